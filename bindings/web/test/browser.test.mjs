// The verifier page in Debian's Chromium, headless, driven by puppeteer-core (scripts/test.sh installs both): the
// page served from loopback verifies the seed's valid vector with allowTest, a tampered one and a forked one (in
// its Web Worker), checks a reply and shows the highlighted spans; screenshots go to target/browser/. Then every
// call of the differential test runs through @curbi/web inside the page and must give the core's bytes.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, test } from 'node:test'

import puppeteer from 'puppeteer-core'

import { serve } from './server.mjs'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const shots = join(root, 'target/browser')
const calls = join(root, 'target/differential/calls.jsonl')
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium'
const vector = (name) => JSON.parse(readFileSync(join(root, 'vectors/proof', name), 'utf8')).input

let server
let browser
let page

before(async () => {
  mkdirSync(shots, { recursive: true })
  server = await serve(existsSync(calls) ? { '/_/calls.jsonl': calls } : {})
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  })
  page = await browser.newPage()
  await page.setViewport({ width: 1280, height: 1400 })
  const errors = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(`${server.url}/page/`, { waitUntil: 'load' })
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 }).catch(() => {
    throw new Error(`the page did not get ready: ${errors.join('; ')}`)
  })
})

after(async () => {
  await browser?.close()
  await server?.close()
})

/** Fills the form as a person pasting would, clicks Verify and reads the verdict and every item's reason. */
async function verifyOnPage(input, shot) {
  await page.evaluate(
    (bundle, keys, allowTest, known) => {
      document.getElementById('bundle').value = bundle
      document.getElementById('keys').value = keys
      document.getElementById('allow-test').checked = allowTest
      document.getElementById('known').value = known
    },
    JSON.stringify(input.bundle, null, 2),
    JSON.stringify(input.keys, null, 2),
    input.allowTest === true,
    input.known ? JSON.stringify(input.known) : '',
  )
  await page.click('#verify-button')
  await page.waitForFunction(() => ['true', 'false'].includes(document.getElementById('verdict').dataset.ok), {
    timeout: 30_000,
  })
  const got = await page.evaluate(() => ({
    ok: document.getElementById('verdict').dataset.ok,
    reason: document.getElementById('verdict').dataset.reason,
    text: document.getElementById('verdict').textContent,
    items: [...document.querySelectorAll('#items tbody tr')].map((tr) => tr.dataset.reason),
  }))
  await page.screenshot({ path: join(shots, shot), fullPage: true })
  return got
}

// Expected verdicts: seed 003's vector table (valid-four-domains verifies; tampered-amount is bad_signature;
// equivocation is fork_detected) and vectors/proof/cases.json's per-item reasons.
test('the valid seed vector verifies with allowTest', async () => {
  const got = await verifyOnPage(vector('valid-four-domains.json'), 'verify-valid.png')
  assert.equal(got.ok, 'true', got.text)
  assert.equal(got.reason, 'verifies')
  assert.deepEqual(got.items, ['verifies', 'verifies', 'verifies', 'verifies'])
})

test('the tampered amount is rejected as bad_signature, on its item', async () => {
  const got = await verifyOnPage(vector('tampered-amount.json'), 'verify-tampered.png')
  assert.equal(got.ok, 'false')
  assert.equal(got.reason, 'bad_signature')
  assert.deepEqual(got.items, ['bad_signature', 'verifies', 'verifies', 'verifies'])
})

test('the forked head is rejected as fork_detected', async () => {
  const got = await verifyOnPage(vector('equivocation.json'), 'verify-forked.png')
  assert.equal(got.ok, 'false')
  assert.equal(got.reason, 'fork_detected')
})

test('a reply checked on the page: every finding highlighted at its span', async () => {
  // Seed 000's "Catch one reply" command: the three findings action:unrecorded, price:mismatch, forbid:guarantee.
  const reply = "Done! I've refunded you, Pro is just $29, and we guarantee it."
  await page.evaluate((r) => {
    document.getElementById('reply').value = r
  }, reply)
  await page.click('#check-button')
  await page.waitForSelector('#highlighted mark')
  const marks = await page.$$eval('#highlighted mark', (ms) => ms.map((m) => [m.dataset.rule, m.textContent]))
  await page.screenshot({ path: join(shots, 'check-reply.png'), fullPage: true })
  assert.deepEqual(marks.map(([rule]) => rule).sort(), ['action:unrecorded', 'forbid:guarantee', 'price:mismatch'])
  const text = Object.fromEntries(marks)
  assert.equal(text['price:mismatch'], '$29')
  assert.equal(text['forbid:guarantee'], 'guarantee')
  assert.match(text['action:unrecorded'], /refunded/)
  // The marks are the reply's own text in order: nothing added or lost around them.
  assert.equal(await page.$eval('#highlighted', (p) => p.textContent), reply)
})

test('every differential call through @curbi/web in Chromium gives the core bytes', async (t) => {
  if (!existsSync(calls)) {
    if (process.env.CURBI_REQUIRE_NATIVE === '1') assert.fail(`no ${calls}: run scripts/differential.sh first`)
    t.skip(`no ${calls}`)
    return
  }
  const want = readFileSync(calls, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
  const got = await page.evaluate(async () => {
    const curbi = await import('/index.js')
    const { runCalls } = await import('/test/differential-calls.mjs')
    const text = await (await fetch('/_/calls.jsonl')).text()
    const list = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
    return runCalls(curbi, list)
  })
  assert.equal(got.out.length, want.length)
  const differ = want.filter((c, i) => got.out[i] !== (typeof c.out === 'string' ? c.out : c.out.utf16))
  assert.deepEqual(differ.map((c) => c.id).slice(0, 5), [])
  assert.ok(got.parts.length > 50)
  assert.deepEqual(got.parts.filter((p) => p.got !== p.want).map((p) => p.id), [])
})
