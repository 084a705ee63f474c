// Two builds of @curbi/web on one request in one Node process, calls alternating (before, after, before, ...), so
// that a noisy machine slows both alike: the median one-thread `verifyRequest` time of each and their ratio. Every
// pair of answers must be the same bytes, or it stops. Each DIR is a copy of bindings/web built with
// scripts/build.sh (for the build before a change: `git worktree add /tmp/before <commit>` and build there).
//
//   node bench/proof_wasm/ab.mjs BEFORE_DIR AFTER_DIR REQUEST.json [ROUNDS, default 9]
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const [before, after, request, rounds = '9'] = process.argv.slice(2)
if (!request) throw new Error('usage: ab.mjs BEFORE_DIR AFTER_DIR REQUEST.json [ROUNDS]')
const text = readFileSync(request, 'utf8')
const load = async (dir) => {
  const url = (p) => pathToFileURL(resolve(dir, p)).href
  await (await import(url('core.js'))).init()
  return import(url('pkg/wasm/curbi_wasm.js'))
}
const builds = [await load(before), await load(after)]
const call = (wasm) => {
  const start = performance.now()
  const answer = wasm.verifyRequest(text)
  return [performance.now() - start, answer]
}
for (let i = 0; i < 5; i++) builds.forEach(call) // warm-up: both builds tiered up
const times = [[], []]
for (let i = 0; i < Number(rounds); i++) {
  const [[a, x], [b, y]] = builds.map(call)
  if (x !== y) throw new Error(`round ${i}: the two builds answer differently`)
  times[0].push(a)
  times[1].push(b)
}
const median = (v) => [...v].sort((p, q) => p - q)[v.length >> 1]
const [m0, m1] = times.map(median)
console.log(`before ${m0.toFixed(1)} ms  after ${m1.toFixed(1)} ms  after/before ${(m1 / m0).toFixed(3)}  (${rounds} rounds, same answers)`)
