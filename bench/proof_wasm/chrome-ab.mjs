// Two builds of @curbi/web in one headless Chromium page: each build's verifier pool (2 workers) on one request,
// calls alternating and the order flipped every round, with a GC and a 20 ms pause before each call, so that a
// noisy machine slows both alike. Prints each build's median and lower quartile and the median of the per-round
// ratios (after ÷ before), which is the figure to read: on this 2-core machine two runs of the same build differ
// by up to ±5 % in medians, and by ~1–2 % in the paired ratio over 201 rounds. Every answer must be the same bytes,
// or it stops. Each DIR is a copy of bindings/web built with scripts/build.sh; both must be under one folder, which
// is served from loopback.
//
//   node bench/proof_wasm/chrome-ab.mjs BEFORE_DIR AFTER_DIR REQUEST.json [ROUNDS, default 101]
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { serve } from '../../bindings/web/test/server.mjs'

const [beforeDir, afterDir, request, rounds = '101'] = process.argv.slice(2)
if (!request) throw new Error('usage: chrome-ab.mjs BEFORE_DIR AFTER_DIR REQUEST.json [ROUNDS]')
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
const [before, after] = [resolve(beforeDir), resolve(afterDir)]
let root = dirname(before)
while (relative(root, after).startsWith('..')) root = dirname(root)
const served = [before, after].map((d) => `/${relative(root, d).split('\\').join('/')}`)

const require = createRequire(join(repo, 'bindings', 'web', 'package.json'))
const puppeteer = (await import(pathToFileURL(require.resolve('puppeteer-core')))).default
const server = await serve({ '/_/request.json': resolve(request), '/_/blank.html': join(repo, 'bindings', 'web', 'page', 'index.html') }, root)
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--js-flags=--expose-gc'],
})
try {
  const page = await browser.newPage()
  await page.goto(`${server.url}/_/blank.html`, { waitUntil: 'load' })
  const out = await page.evaluate(
    async (dirs, rounds) => {
      const text = await (await fetch('/_/request.json')).text()
      const pools = []
      for (const d of dirs) {
        const web = await import(`${d}/index.js`)
        const pool = await web.createVerifierPool({ workers: 2 })
        if (pool.workers !== 2) throw new Error(`${d}: the pool started ${pool.workers} of 2 workers`)
        pools.push(pool)
      }
      for (let i = 0; i < 4; i++) for (const p of pools) await p.verifyRequest(text)
      const times = [[], []]
      let first
      for (let i = 0; i < rounds; i++) {
        for (const j of i % 2 ? [1, 0] : [0, 1]) {
          globalThis.gc?.()
          await new Promise((r) => setTimeout(r, 20))
          const t = performance.now()
          const answer = JSON.stringify(await pools[j].verifyRequest(text))
          times[j].push(performance.now() - t)
          first ??= answer
          if (answer !== first) throw new Error(`round ${i}: the builds' answers differ`)
        }
      }
      for (const p of pools) p.close()
      return times
    },
    served,
    Number(rounds),
  )
  const sorted = (v) => [...v].sort((a, b) => a - b)
  const at = (v, q) => sorted(v)[Math.floor((v.length - 1) * q)]
  const [a, b] = out
  const ratios = b.map((t, i) => t / a[i])
  console.log(`chromium pool (2 workers), ${a.length} rounds of ${request}`)
  console.log(`  before ${beforeDir}: median ${at(a, 0.5).toFixed(1)} ms, lower quartile ${at(a, 0.25).toFixed(1)} ms`)
  console.log(`  after  ${afterDir}: median ${at(b, 0.5).toFixed(1)} ms, lower quartile ${at(b, 0.25).toFixed(1)} ms`)
  console.log(`  after ÷ before: median of the rounds' ratios ${at(ratios, 0.5).toFixed(3)}, of the medians ${(at(b, 0.5) / at(a, 0.5)).toFixed(3)}`)
} finally {
  await browser.close()
  await server.close()
}
