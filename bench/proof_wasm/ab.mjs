// Two builds of @curbi/web on one request in one Node process, calls alternating (before, after, before, ...), so
// that a noisy machine slows both alike: the median time of each and their ratio. Every pair of answers must be the
// same bytes, or it stops. Each DIR is a copy of bindings/web built with scripts/build.sh (for the build before a
// change: `git worktree add /tmp/before <commit>` and build there, or build, copy, change, build again).
//
//   node bench/proof_wasm/ab.mjs BEFORE_DIR AFTER_DIR REQUEST.json [ROUNDS, default 9] [--op verify|read|pool]
//
// `verify` (the default) times one-thread `verifyRequest(text)`; `read` times what each pool worker does before its
// share (`sharesOfRequest(text)`, the request read strictly; the builds' first shares are compared once); `pool` times
// `createVerifierPool({workers: 2}).verifyRequest(text)` of each build.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const args = process.argv.slice(2)
const at = args.indexOf('--op')
const op = at === -1 ? 'verify' : args.splice(at, 2)[1]
const [before, after, request, rounds = '9'] = args
if (!request || !['verify', 'read', 'pool'].includes(op)) {
  throw new Error('usage: ab.mjs BEFORE_DIR AFTER_DIR REQUEST.json [ROUNDS] [--op verify|read|pool]')
}
const text = readFileSync(request, 'utf8')
const load = async (dir) => {
  const url = (p) => pathToFileURL(resolve(dir, p)).href
  const core = await import(url('core.js'))
  await core.init()
  const wasm = await import(url('pkg/wasm/curbi_wasm.js'))
  if (op === 'verify') return () => wasm.verifyRequest(text)
  if (op === 'read') {
    const shares = wasm.sharesOfRequest(text)
    firstShares.push(shares.share(0, 2))
    shares.free()
    return () => wasm.sharesOfRequest(text).free()
  }
  const pool = await core.createVerifierPool({ workers: 2 })
  if (pool.workers !== 2) throw new Error(`${dir}: the pool started ${pool.workers} of 2 workers`)
  pools.push(pool)
  return async () => JSON.stringify(await pool.verifyRequest(text))
}
const pools = []
const firstShares = []
const builds = [await load(before), await load(after)]
if (firstShares.length && firstShares[0] !== firstShares[1]) throw new Error('the two builds share differently')
const call = async (run) => {
  const start = performance.now()
  const answer = await run()
  return [performance.now() - start, answer]
}
for (let i = 0; i < 5; i++) for (const b of builds) await call(b) // warm-up: both builds tiered up
const times = [[], []]
for (let i = 0; i < Number(rounds); i++) {
  const [a, x] = await call(builds[0])
  const [b, y] = await call(builds[1])
  if (x !== y) throw new Error(`round ${i}: the two builds answer differently`)
  times[0].push(a)
  times[1].push(b)
}
for (const p of pools) p.close()
const median = (v) => [...v].sort((p, q) => p - q)[v.length >> 1]
const [m0, m1] = times.map(median)
console.log(
  `${op}: before ${m0.toFixed(1)} ms  after ${m1.toFixed(1)} ms  after/before ${(m1 / m0).toFixed(3)}  (${rounds} rounds, same answers)`,
)
