// The verifier page in Debian's Chromium, headless, driven by puppeteer-core (scripts/test.sh installs both): the
// page served from loopback verifies the seed's valid vector with allowTest, a tampered one and a forked one (in
// its Web Worker), checks a reply and shows the highlighted spans; makes a browser gate proof in the page, verifies it
// there and through the MCP tool verify_bundle of `curbi serve` (valid and tampered); screenshots go to
// target/browser/. Then every call of the differential test runs through @curbi/web inside the page and must give
// the core's bytes.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'
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
const proofVectors = readdirSync(join(root, 'vectors/proof')).filter((f) => f.endsWith('.json') && f !== 'cases.json')
const large = process.env.CURBI_WEB_LARGE_REQUEST

let server
let browser
let page

before(async () => {
  mkdirSync(shots, { recursive: true })
  const extra = existsSync(calls) ? { '/_/calls.jsonl': calls } : {}
  for (const name of proofVectors) extra[`/_/proof/${name}`] = join(root, 'vectors/proof', name)
  if (large) extra['/_/large.json'] = large
  server = await serve(extra)
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
    testKeys: document.getElementById('verdict').dataset.testKeys,
    text: document.getElementById('verdict').textContent,
    items: [...document.querySelectorAll('#items tbody tr')].map((tr) => tr.dataset.reason),
    result: JSON.parse(document.getElementById('result-json').textContent || 'null'),
  }))
  await page.screenshot({ path: join(shots, shot), fullPage: true })
  return got
}

// Expected verdicts: seed 003's vector table (valid-four-domains verifies; tampered-amount is bad_signature;
// equivocation is fork_detected) and vectors/proof/cases.json's per-item reasons.
// The published test key (docs/PROOF.md §Vectors, "Published test material"): every proof vector is signed with it.
const TEST_KID = '9aAQiI2gBMJ76h4exktKlyHvtuxksjQjipPETkbZT2Y'

test('the valid seed vector verifies with allowTest, and the verdict says it trusted a test key because of the box', async () => {
  const got = await verifyOnPage(vector('valid-four-domains.json'), 'verify-valid.png')
  assert.equal(got.ok, 'true', got.text)
  assert.equal(got.reason, 'verifies')
  assert.deepEqual(got.items, ['verifies', 'verifies', 'verifies', 'verifies'])
  // Seed 003: test keys verify only with allowTest, so without the box this bundle has no trusted key.
  assert.equal(got.testKeys, 'true')
  assert.match(got.text, /^Verifies \(under TEST keys\)/)
  assert.match(got.text, /TEST KEYS: this verdict trusts test keys only because “Accept test keys” \(allowTest\) is ticked/)
  assert.ok(got.text.includes(`Signed by test key ${TEST_KID} (tagged curbi:test)`), got.text)
  assert.match(got.text, /Without test keys: rejected, no_trusted_keys/)
  assert.equal(got.result.ok, true)
  assert.equal(got.result.underTestKeys, true)
  assert.deepEqual(got.result.testKeys, { kids: [TEST_KID], without: { ok: false, reason: 'no_trusted_keys' } })
})

test('without allowTest the same bundle is rejected, with no test-key mark', async () => {
  const got = await verifyOnPage({ ...vector('valid-four-domains.json'), allowTest: false }, 'verify-no-allow-test.png')
  assert.equal(got.ok, 'false')
  assert.equal(got.reason, 'no_trusted_keys')
  assert.equal(got.testKeys, 'false')
  assert.doesNotMatch(got.text, /TEST/)
  assert.equal(got.result.underTestKeys, false)
  assert.equal(got.result.testKeys, null)
})

test('a key not tagged curbi:test: the box ticked changes nothing, so the verdict is not marked', async () => {
  // The same public key without the tag is a production key to the verifier (docs/PROOF.md §Trusted keys).
  const input = vector('valid-four-domains.json')
  const keys = { keys: input.keys.keys.map(({ 'curbi:test': _, ...key }) => key) }
  const got = await verifyOnPage({ ...input, keys, allowTest: true }, 'verify-production-key.png')
  assert.equal(got.ok, 'true', got.text)
  assert.equal(got.testKeys, 'false')
  assert.doesNotMatch(got.text, /TEST/)
  assert.equal(got.result.underTestKeys, false)
  assert.deepEqual(got.result.testKeys, { kids: [], without: { ok: true, reason: 'verifies' } })
})

test('the tampered amount is rejected as bad_signature, on its item', async () => {
  const got = await verifyOnPage(vector('tampered-amount.json'), 'verify-tampered.png')
  assert.equal(got.ok, 'false')
  assert.equal(got.reason, 'bad_signature')
  assert.deepEqual(got.items, ['bad_signature', 'verifies', 'verifies', 'verifies'])
  // A rejection reached with test keys trusted is marked too: without them every item is no_trusted_keys.
  assert.equal(got.testKeys, 'true')
  assert.equal(got.result.testKeys.without.reason, 'no_trusted_keys')
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

/** A free loopback port. */
async function freePort() {
  const probe = createServer()
  await new Promise((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address()
  await new Promise((resolve) => probe.close(resolve))
  return port
}

/** Starts `curbi serve` (CURBI, else the release build) on loopback; resolves once it answers. */
async function startServe(binary) {
  const port = await freePort()
  const child = spawn(binary, ['serve', '--addr', `127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  child.stderr.on('data', (d) => { log += d })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`curbi serve exited: ${log}`)
    try {
      if ((await fetch(`${url}/ai.json`)).ok) break
    } catch {}
    await new Promise((r) => setTimeout(r, 100))
  }
  return { url, stop: () => child.kill('SIGTERM') }
}

/** tools/call verify_bundle over MCP: the tool's result document and whether the call was a tool error. */
async function mcpVerify(url, args) {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'verify_bundle', arguments: args } }),
  })
  assert.equal(response.status, 200)
  const { result } = await response.json()
  return { isError: result.isError === true, verification: JSON.parse(result.content[0].text) }
}

/** Waits for the gate panel's verdict and reads it with the proof and trust document shown. */
async function gateVerdict(shot) {
  await page.waitForFunction(() => ['true', 'false'].includes(document.getElementById('gate-verdict').dataset.ok), {
    timeout: 30_000,
  })
  const got = await page.evaluate(() => ({
    ok: document.getElementById('gate-verdict').dataset.ok,
    reason: document.getElementById('gate-verdict').dataset.reason,
    testKeys: document.getElementById('gate-verdict').dataset.testKeys,
    text: document.getElementById('gate-verdict').textContent,
    decision: document.getElementById('gate-decision').dataset.decision,
    proof: JSON.parse(document.getElementById('gate-proof').textContent),
    trust: JSON.parse(document.getElementById('gate-trust').textContent),
  }))
  await page.screenshot({ path: join(shots, shot), fullPage: true })
  return got
}

// Expected verdicts from docs/PROOF.md §Browser gate proofs: the panel's USD 50.00 refund is within its grant (ALLOW,
// and the proof verifies); the proposal changed after signing no longer has the digest the signed result names
// (decision_mismatch).
test('a gate proof made in the page verifies there and through the MCP verify_bundle tool; a tampered one does not', async (t) => {
  await page.click('#gate-button')
  const made = await gateVerdict('gate-proof-valid.png')
  assert.equal(made.decision, 'ALLOW', made.text)
  assert.equal(made.ok, 'true', made.text)
  assert.equal(made.reason, 'verifies')
  assert.equal(made.proof.object, 'curbi.browser.gate-proof.v1')
  assert.equal(made.trust.object, 'curbi.browser.gate-trust.v1')
  assert.equal(made.trust.identity.keys[0]['curbi:test'], true)
  // The gate's key is a test key (docs/PROOF.md §Browser gate proofs): its green verdict says so.
  assert.equal(made.testKeys, 'true')
  assert.match(made.text, /^The proof: verifies \(under TEST keys\)/)
  assert.ok(made.text.includes(`Signed by test key ${made.trust.identity.keys[0].kid}`), made.text)

  await page.evaluate(() => { document.getElementById('gate-verdict').dataset.ok = '' })
  await page.click('#gate-tamper-button')
  const tampered = await gateVerdict('gate-proof-tampered.png')
  assert.equal(tampered.ok, 'false', tampered.text)
  assert.equal(tampered.reason, 'decision_mismatch')
  assert.notDeepEqual(tampered.proof.proposal, made.proof.proposal)

  const binary = process.env.CURBI ?? join(root, 'target/release/curbi')
  if (!existsSync(binary)) {
    if (process.env.CURBI_REQUIRE_NATIVE === '1') assert.fail(`no ${binary}: build it first (cargo build --release -p curbi-cli)`)
    t.skip(`no ${binary}`)
    return
  }
  const server = await startServe(binary)
  try {
    const valid = await mcpVerify(server.url, { bundle: made.proof, keys: made.trust, allowTest: true })
    assert.equal(valid.isError, false)
    assert.equal(valid.verification.ok, true, valid.verification.message)
    assert.equal(valid.verification.reason, 'verifies')
    assert.equal(valid.verification.items[0].result.decision, 'ALLOW')
    const bad = await mcpVerify(server.url, { bundle: tampered.proof, keys: made.trust, allowTest: true })
    assert.equal(bad.isError, false)
    assert.equal(bad.verification.ok, false)
    assert.equal(bad.verification.reason, 'decision_mismatch')
    // Without allowTest the test key is not trusted.
    const strict = await mcpVerify(server.url, { bundle: made.proof, keys: made.trust })
    assert.equal(strict.verification.reason, 'no_trusted_keys')
  } finally {
    server.stop()
  }
})

test('the verifier pool of Web Workers in the page: every proof vector and a large tampered bundle as one thread gives them', async (t) => {
  if (!large) {
    if (process.env.CURBI_REQUIRE_NATIVE === '1') assert.fail('CURBI_WEB_LARGE_REQUEST is not set (test.sh sets it)')
    t.skip('CURBI_WEB_LARGE_REQUEST is not set')
    return
  }
  const got = await page.evaluate(async (names) => {
    const web = await import('/index.js')
    const { comparePool, tampered } = await import('/test/pool-cases.mjs')
    const cases = []
    for (const name of names) {
      cases.push({ name, request: JSON.stringify((await (await fetch(`/_/proof/${name}`)).json()).input) })
    }
    const vectors = await comparePool(web, cases, [2])
    const request = await (await fetch('/_/large.json')).text()
    const n = JSON.parse(request).bundle.receipts.length
    const bad = tampered(request, n >> 1)
    const one = await web.verifyRequest(bad)
    const big = await comparePool(web, [{ name: 'valid', request }, { name: 'tampered', request: bad }], [2, 3])
    return { vectors, big, n, reason: one.reason, path: one.path, ok: one.items.filter((i) => i.ok).length }
  }, proofVectors)
  assert.deepEqual(got.vectors.mismatches, [])
  assert.deepEqual(got.vectors.started, [2], 'two Web Workers started (not the one-thread fallback)')
  assert.ok(got.vectors.compared >= proofVectors.length)
  // The expectation comes from the change made: the tampered receipt alone fails and decides.
  assert.equal(got.reason, 'bad_signature')
  assert.equal(got.path, `/bundle/receipts/${got.n >> 1}`)
  assert.equal(got.ok, got.n - 1)
  assert.deepEqual(got.big.mismatches, [])
  assert.deepEqual(got.big.started, [2, 3])
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
