// DESIGN §8: curbi's bundle verifier must be ≥ 3× faster than a WebCrypto-based JavaScript verifier on the same
// bundles. This times, in one process and one run, on each request file given:
//   curbi       the Node addon's verifyBundle(text), as shipped (libuv threadpool, receipts on every core)
//   js-seq      verify.mjs, awaiting each receipt in turn
//   js-conc     verify.mjs, every receipt at once (Promise.all; Node's threadpool spreads the crypto over the cores)
// Both sides get the same request text and parse it themselves; both results are built into JS objects.
//
//   node --expose-gc bench/proof_webcrypto/bench.mjs REQUEST.json... [--runs N] [--warmup N]
//
// Requests come from `verify_peak build` (bench/proof_webcrypto.sh makes them). Each round times the three
// verifiers once, in a rotating order, so load changes on the shared machine hit all three alike; the figure is the
// median over rounds (default 7 rounds under 5,000 receipts, else 5), after `--warmup` untimed rounds (default 1).
// Every timed result is checked: a verifier that does not say "verifies" for every receipt stops the run.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism, cpus, loadavg } from 'node:os'
import { basename, join } from 'node:path'

import { verifyRequest } from './verify.mjs'

const curbi = createRequire(import.meta.url)(join(import.meta.dirname, '..', '..', 'bindings', 'node', 'index.js'))

const args = process.argv.slice(2)
const option = (name) => {
  const i = args.indexOf(name)
  if (i === -1) return undefined
  const [, value] = args.splice(i, 2)
  return Number(value)
}
const runsOption = option('--runs')
const warmup = option('--warmup') ?? 1
const files = args
assert.ok(files.length > 0, 'usage: bench.mjs REQUEST.json... [--runs N] [--warmup N]')

const VERIFIERS = {
  curbi: async (text) => {
    const r = await curbi.verifyBundle(text)
    return { ok: r.ok, reason: r.reason, items: r.items }
  },
  'js-seq': (text) => verifyRequest(text),
  'js-conc': (text) => verifyRequest(text, { concurrent: true }),
}
const NAMES = Object.keys(VERIFIERS)

/** Wall time and CPU time (all threads of the process) of one call, in ms; the result is checked afterwards. */
async function timeOnce(name, text, n) {
  globalThis.gc?.() // garbage of the previous call is not charged to this one
  const cpu0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  const result = await VERIFIERS[name](text)
  const wall = Number(process.hrtime.bigint() - t0) / 1e6
  const cpu = process.cpuUsage(cpu0)
  assert.equal(result.ok, true, `${name}: ok (reason ${result.reason})`)
  assert.equal(result.reason, 'verifies', `${name}: reason`)
  assert.equal(result.items.length, n, `${name}: one item per receipt`)
  assert.ok(result.items.every((i) => i.ok && i.reason === 'verifies'), `${name}: every receipt verifies`)
  return { wall, cpu: (cpu.user + cpu.system) / 1000 }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const ms = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1))

console.log(`node ${process.version} (OpenSSL ${process.versions.openssl}, V8 ${process.versions.v8}), curbi ${curbi.version()}`)
console.log(`${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`)
console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`)

const rows = []
for (const file of files) {
  const text = readFileSync(file, 'utf8')
  const n = JSON.parse(text).bundle.receipts.length
  const runs = runsOption ?? (n < 5000 ? 7 : 5)
  for (let w = 0; w < warmup; w++) for (const name of NAMES) await timeOnce(name, text, n)
  const samples = Object.fromEntries(NAMES.map((name) => [name, []]))
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < NAMES.length; k++) {
      const name = NAMES[(r + k) % NAMES.length] // rotate which verifier goes first
      samples[name].push(await timeOnce(name, text, n))
    }
  }
  console.log(`\n${basename(file)}: ${n} receipts, ${(text.length / 1e6).toFixed(1)} MB of request text, ${runs} rounds after ${warmup} warm-up`)
  for (const name of NAMES) console.log(`  ${name.padEnd(8)} wall ms: ${samples[name].map((s) => ms(s.wall)).join(' ')}`)
  const base = median(samples.curbi.map((s) => s.wall))
  for (const name of NAMES) {
    const wall = median(samples[name].map((s) => s.wall))
    const cores = median(samples[name].map((s) => s.cpu / s.wall))
    rows.push({ n, name, wall, min: Math.min(...samples[name].map((s) => s.wall)), perReceipt: (wall * 1000) / n, cores, ratio: wall / base })
  }
}

console.log(`\nload average at end: ${loadavg().map((l) => l.toFixed(2)).join(', ')}\n`)
console.log('| receipts | verifier | median | min | per receipt | CPU ÷ wall | JS ÷ curbi |')
console.log('|---:|---|---:|---:|---:|---:|---:|')
for (const r of rows) {
  const ratio = r.name === 'curbi' ? '1' : `**${r.ratio.toFixed(1)}×**`
  console.log(`| ${r.n} | ${r.name} | ${ms(r.wall)} ms | ${ms(r.min)} ms | ${r.perReceipt.toFixed(1)} µs | ${r.cores.toFixed(2)} | ${ratio} |`)
}
console.log('')
for (const n of new Set(rows.map((r) => r.n))) {
  // The target is judged against the faster JavaScript variant: beating only the slow one would prove little.
  const best = rows.filter((r) => r.n === n && r.name !== 'curbi').sort((a, b) => a.wall - b.wall)[0]
  const verdict = best.ratio >= 3 ? 'met' : 'NOT met'
  console.log(`${n} receipts: curbi is ${best.ratio.toFixed(1)}× faster than the faster JS verifier (${best.name}); target ≥ 3×: ${verdict}`)
}
