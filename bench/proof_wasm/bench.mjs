// @curbi/web's bundle verifier (core compiled to WebAssembly) against the native library and the WebCrypto
// JavaScript verifier of bench/proof_webcrypto/, on the same request text, in Node and then in Debian's Chromium
// (headless, puppeteer-core), in one run. Prints the module's size raw and gzipped, and one table per runtime.
//   native    the Node addon's verifyBundle(text) (bindings/node, receipts on every core)          Node only
//   wasm      @curbi/web's verifyRequest(text), one thread (the page runs it in a Web Worker)
//   pool      @curbi/web's createVerifierPool({workers}).verifyRequest(text): one worker per core (worker_threads in
//             Node, module Web Workers in Chromium), started before the rounds; its answer is checked to be the
//             one-thread answer, byte for byte, before timing
//   js-conc   bench/proof_webcrypto/verify.mjs with every receipt at once (Promise.all)
//   js-seq    the same, awaiting each receipt in turn
// Targets (issue 19): wasm ≥ 3× faster than the faster JS variant, and within 2.5× of native; both are judged for the
// one-thread and the pool line.
//
// Each verifier is warmed up alone first (at least --warmup calls, default 1, and --warmup-ms, default 3,000 ms, of
// calls); the medians are of the rounds after that, and each verifier's first call is printed as `cold`.
//
//   node --expose-gc bench/proof_wasm/bench.mjs REQUEST.json... [--runs N] [--warmup N] [--warmup-ms MS]
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism, cpus, loadavg } from 'node:os'
import { basename, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'

import * as web from '../../bindings/web/index.js'
import { serve } from '../../bindings/web/test/server.mjs'
import { verifyRequest } from '../proof_webcrypto/verify.mjs'
import { median, rounds, timed } from './rounds.mjs'

const here = import.meta.dirname
const repo = join(here, '..', '..')
const native = createRequire(import.meta.url)(join(repo, 'bindings', 'node', 'index.js'))

const args = process.argv.slice(2)
const option = (name) => {
  const i = args.indexOf(name)
  if (i === -1) return undefined
  return Number(args.splice(i, 2)[1])
}
const runsOption = option('--runs')
const warmup = option('--warmup') ?? 1
const warmupMs = option('--warmup-ms') ?? 3000
const files = args
if (files.length === 0) throw new Error('usage: bench.mjs REQUEST.json... [--runs N] [--warmup N] [--warmup-ms MS]')
const runsFor = (n) => runsOption ?? (n < 5000 ? 7 : 5)
const ms = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1))

const wasmFile = join(repo, 'bindings', 'web', 'pkg', 'wasm', 'curbi_wasm_bg.wasm')
const wasmBytes = readFileSync(wasmFile)
console.log(`WebAssembly module: ${wasmBytes.length} bytes raw, ${gzipSync(wasmBytes, { level: 9 }).length} bytes gzip -9; glue ${readFileSync(join(repo, 'bindings', 'web', 'pkg', 'wasm', 'curbi_wasm.js')).length} bytes`)
console.log(`node ${process.version} (V8 ${process.versions.v8}), ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'})`)
console.log(`load average at start: ${loadavg().map((l) => l.toFixed(2)).join(', ')}`)

const rows = []
function table(runtime, file, n, { samples, cold }) {
  console.log(`\n${runtime} · ${basename(file)}: ${n} receipts`)
  for (const [name, s] of Object.entries(samples)) console.log(`  ${name.padEnd(8)} wall ms: ${s.map(ms).join(' ')}  (cold: ${ms(cold[name])})`)
  for (const [name, s] of Object.entries(samples)) rows.push({ runtime, n, name, wall: median(s), cold: cold[name] })
}

const workers = availableParallelism()
const pool = await web.createVerifierPool({ workers })
if (pool.workers !== workers) throw new Error(`the pool started ${pool.workers} of ${workers} workers`)

const texts = files.map((file) => {
  const text = readFileSync(file, 'utf8')
  return { file, text, n: JSON.parse(text).bundle.receipts.length }
})

for (const { file, text, n } of texts) {
  const [poolFirst, wasmFirst] = [await timed(() => pool.verifyRequest(text)), await timed(() => web.verifyRequest(text))]
  if (JSON.stringify(poolFirst.answer) !== JSON.stringify(wasmFirst.answer)) {
    throw new Error(`${file}: the pool's answer is not the one-thread answer`)
  }
  const verifiers = {
    native: (t) => native.verifyBundle(t),
    wasm: (t) => web.verifyRequest(t),
    pool: (t) => pool.verifyRequest(t),
    'js-conc': (t) => verifyRequest(t, { concurrent: true }),
    'js-seq': (t) => verifyRequest(t),
  }
  const result = await rounds(verifiers, text, n, { runs: runsFor(n), warmup, warmupMs, gc: globalThis.gc })
  // The first calls were the answer check: they are the cold ones.
  Object.assign(result.cold, { pool: poolFirst.wall, wasm: wasmFirst.wall })
  table('node', file, n, result)
}
pool.close()

// Chromium: the same package, verifier and request text, served from loopback to one page.
const puppeteer = (await import(pathToFileURL(createRequire(join(repo, 'bindings', 'web', 'package.json')).resolve('puppeteer-core')))).default
const extra = { '/_/verify.mjs': join(repo, 'bench', 'proof_webcrypto', 'verify.mjs'), '/_/rounds.mjs': join(here, 'rounds.mjs'), '/_/buffer-shim.mjs': join(here, 'buffer-shim.mjs') }
texts.forEach(({ file }, i) => { extra[`/_/request-${i}.json`] = file })
const server = await serve(extra)
const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--js-flags=--expose-gc'] })
try {
  const page = await browser.newPage()
  await page.goto(`${server.url}/page/`, { waitUntil: 'load' })
  console.log(`\n${await browser.version()}`)
  for (const [i, { file, n }] of texts.entries()) {
    const samples = await page.evaluate(async (i, n, runs, warmup, warmupMs, workers) => {
      await import('/_/buffer-shim.mjs')
      const web = await import('/index.js')
      const { verifyRequest } = await import('/_/verify.mjs')
      const { rounds, timed } = await import('/_/rounds.mjs')
      const text = await (await fetch(`/_/request-${i}.json`)).text()
      const pool = await web.createVerifierPool({ workers })
      if (pool.workers !== workers) throw new Error(`the pool started ${pool.workers} of ${workers} Web Workers`)
      const [poolFirst, wasmFirst] = [await timed(() => pool.verifyRequest(text)), await timed(() => web.verifyRequest(text))]
      if (JSON.stringify(poolFirst.answer) !== JSON.stringify(wasmFirst.answer)) {
        throw new Error("the pool's answer is not the one-thread answer")
      }
      const verifiers = {
        wasm: (t) => web.verifyRequest(t),
        pool: (t) => pool.verifyRequest(t),
        'js-conc': (t) => verifyRequest(t, { concurrent: true }),
        'js-seq': (t) => verifyRequest(t),
      }
      try {
        const result = await rounds(verifiers, text, n, { runs, warmup, warmupMs, gc: globalThis.gc })
        Object.assign(result.cold, { pool: poolFirst.wall, wasm: wasmFirst.wall })
        return result
      } finally {
        pool.close()
      }
    }, i, n, runsFor(n), warmup, warmupMs, workers)
    table('chromium', file, n, samples)
  }
} finally {
  await browser.close()
  await server.close()
}

console.log(`\nload average at end: ${loadavg().map((l) => l.toFixed(2)).join(', ')}\n`)
console.log('| runtime | receipts | verifier | median (warm) | per receipt | ÷ wasm | first call (cold) |')
console.log('|---|---:|---|---:|---:|---:|---:|')
const wasmOf = (r) => rows.find((w) => w.runtime === r.runtime && w.n === r.n && w.name === 'wasm').wall
for (const r of rows) {
  console.log(`| ${r.runtime} | ${r.n} | ${r.name} | ${ms(r.wall)} ms | ${((r.wall * 1000) / r.n).toFixed(1)} µs | ${(r.wall / wasmOf(r)).toFixed(2)} | ${ms(r.cold)} ms |`)
}
console.log('')
for (const r of rows.filter((x) => x.name === 'wasm' || x.name === 'pool')) {
  const js = rows.filter((x) => x.runtime === r.runtime && x.n === r.n && x.name.startsWith('js-')).sort((a, b) => a.wall - b.wall)[0]
  const nat = rows.find((x) => x.runtime === 'node' && x.n === r.n && x.name === 'native')
  const faster = js.wall / r.wall
  const slower = r.wall / nat.wall
  console.log(`${r.runtime}, ${r.n} receipts: ${r.name} is ${faster.toFixed(1)}× faster than ${js.name} (target ≥ 3×: ${faster >= 3 ? 'met' : 'NOT met'}); ${slower.toFixed(2)}× native in Node (target ≤ 2.5×: ${slower <= 2.5 ? 'met' : 'NOT met'})`)
}
