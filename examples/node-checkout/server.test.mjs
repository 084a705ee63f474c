// Drives the checkout service over real HTTP on 127.0.0.1 (an ephemeral port). Expected findings are worked out
// by hand from policy.json: approved prices Pro $49/$490, Starter $19/$190; 20% off only for Pro; "guarantee" is
// forbidden unless negated; "refunded" needs billing.refund DONE in the record.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createRequire } from 'node:module'
import { readFileSync } from 'node:fs'

const require = createRequire(import.meta.url)
const { createCheckoutServer } = require('./server.js')

let server
let base

before(async () => {
  server = createCheckoutServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${server.address().port}`
})

after(() => new Promise((resolve) => server.close(resolve)))

async function post(body, { path = '/reply', type = 'application/json' } = {}) {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'Content-Type': type },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

/** The finding for `text` in `reply`, located by indexOf (UTF-16 code units, as JavaScript indexes strings). */
function at(rule, reply, text) {
  const start = reply.indexOf(text)
  assert.ok(start >= 0, `${text} in ${reply}`)
  return { rule, span: [start, start + text.length], text }
}

function summary(findings) {
  return findings.map(({ rule, span, text }) => ({ rule, span, text }))
}

test('a reply that breaks no rule comes back unchanged', async () => {
  for (const reply of [
    'Thanks! Pro is $49 a month, or $490 a year.',
    'Pro is 20% off this week.',
    "We don't guarantee delivery dates, but express shipping is $12.",
    'Starter plan: $19.',
  ]) {
    assert.deepEqual(await post({ reply }), { status: 200, body: { reply } }, reply)
  }
})

test('a reply with a wrong price, an unapproved discount or a forbidden promise is blocked with findings', async () => {
  const cases = [
    ['Pro is $59 a month.', [['price:mismatch', '$59']]],
    ['Starter is 20% off today.', [['discount:unapproved', '20% off']]],
    ['We guarantee delivery by Friday.', [['forbid:guarantee', 'guarantee']]],
    ['Pro is $59 and it is risk-free.', [['price:mismatch', '$59'], ['forbid:guarantee', 'risk-free']]],
  ]
  for (const [reply, expected] of cases) {
    const { status, body } = await post({ reply })
    assert.equal(status, 422, reply)
    assert.equal(body.blocked, true)
    assert.equal(body.reply, undefined, 'a blocked reply is never passed on')
    assert.deepEqual(summary(body.findings), expected.map(([rule, text]) => at(rule, reply, text)), reply)
    for (const f of body.findings) assert.equal(typeof f.why, 'string')
  }
})

test('claimed actions are judged against the record sent with the reply', async () => {
  const reply = "I've refunded your order."
  const blocked = await post({ reply })
  assert.equal(blocked.status, 422)
  assert.deepEqual(summary(blocked.body.findings), [at('action:unrecorded', reply, 'refunded')])

  const pending = await post({ reply, record: { effects: [{ operation: 'billing.refund', status: 'PENDING' }] } })
  assert.equal(pending.status, 422, 'only DONE counts')

  const done = await post({ reply, record: { effects: [{ operation: 'billing.refund', status: 'DONE' }] } })
  assert.deepEqual(done, { status: 200, body: { reply } })
})

test('spans over HTTP are JavaScript string indices, also after emoji, é, CJK and İ', async () => {
  const reply = '🎉 Renée, 您好! İyi günler: Pro is $59 😀'
  const { status, body } = await post({ reply })
  assert.equal(status, 422)
  assert.deepEqual(summary(body.findings), [at('price:mismatch', reply, '$59')])
  const [f] = body.findings
  assert.equal(reply.slice(f.span[0], f.span[1]), f.text)
})

test('bad input answers 400 with the Check API code and path', async () => {
  const badFact = { reply: 'x', record: { facts: [{ near: 'delivery', kind: 'date', value: 'someday' }] } }
  const cases = [
    [badFact, 'invalid_value', '/record/facts/0/value'],
    [{ reply: 'x', record: { effects: [{ op: 'x' }] } }, 'unknown_field', '/record/effects/0/op'],
    [{ reply: 'x', record: { receipts: ['r'] } }, 'unsupported', '/record/receipts'],
    [{}, 'invalid_type', '/reply'],
    [{ reply: 42 }, 'invalid_type', '/reply'],
    [{ reply: 'x', extra: 1 }, 'unknown_field', '/extra'],
    ['{"reply": ', 'invalid_json', ''],
    ['[1]', 'invalid_type', ''],
  ]
  for (const [body, code, path] of cases) {
    const res = await post(body)
    assert.equal(res.status, 400, JSON.stringify(body))
    assert.equal(res.body.error.code, code, JSON.stringify(res.body))
    assert.equal(res.body.error.path, path, JSON.stringify(res.body))
  }
})

test('transport errors: media type, size, method, endpoint', async () => {
  assert.equal((await post('reply=x', { type: 'text/plain' })).status, 415)
  const big = await post({ reply: 'x'.repeat(70 * 1024) })
  assert.deepEqual([big.status, big.body.error.code], [413, 'body_too_large'])
  const get = await fetch(`${base}/reply`)
  assert.deepEqual([get.status, get.headers.get('allow'), (await get.json()).error.code], [405, 'POST', 'method_not_allowed'])
  const none = await fetch(`${base}/nope`)
  assert.deepEqual([none.status, (await none.json()).error.code], [404, 'not_found'])
  const health = await fetch(`${base}/health`)
  assert.deepEqual(await health.json(), { ok: true, curbi: require('../../bindings/node').version() })
})

test('200 concurrent requests each get their own verdict', async () => {
  const replies = Array.from({ length: 200 }, (_, i) => `Order ${i}: Pro is $${i % 2 === 0 ? 49 : 59}.`)
  const results = await Promise.all(replies.map((reply) => post({ reply })))
  results.forEach((r, i) => {
    if (i % 2 === 0) assert.deepEqual(r, { status: 200, body: { reply: replies[i] } })
    else assert.deepEqual(summary(r.body.findings), [at('price:mismatch', replies[i], '$59')])
  })
})

test('POST /checkout: the purchase vectors over HTTP, answered 200 ALLOW, 409 STEP_UP, 403 DENY', async () => {
  const status = { ALLOW: 200, STEP_UP: 409, DENY: 403 }
  const seen = new Set()
  for (const file of ['00-baseline.json', '30-scope.json']) {
    const doc = JSON.parse(readFileSync(new URL(`../../vectors/purchase/${file}`, import.meta.url), 'utf8'))
    for (const c of doc.cases) {
      const res = await post(c.input, { path: '/checkout' })
      assert.equal(res.status, status[c.expected.decision], c.description)
      assert.equal(res.body.decision, c.expected.decision, c.description)
      assert.equal(res.body.authorizationGranted, false)
      seen.add(c.expected.decision)
    }
  }
  assert.deepEqual([...seen].sort(), ['ALLOW', 'DENY', 'STEP_UP'])
  // A float amount is not rounded: sent as written, `9139.0` is a DENY (amount_invalid), where 9139 was an ALLOW.
  const allowed = JSON.stringify(
    JSON.parse(readFileSync(new URL('../../vectors/purchase/00-baseline.json', import.meta.url), 'utf8')).cases[0].input,
  )
  const text = allowed.replace('{"type":"total","amount":9139}', '{"type":"total","amount":9139.0}')
  assert.notEqual(text, allowed, 'the total was rewritten as a float')
  assert.equal((await post(allowed, { path: '/checkout' })).status, 200)
  const res = await post(text, { path: '/checkout' })
  assert.equal(res.status, 403)
  assert.ok(res.body.reasons.some((r) => r.code === 'amount_invalid'), JSON.stringify(res.body.reasons))
  assert.equal((await post('{not json', { path: '/checkout' })).body.error.code, 'invalid_json')
})

test('a bad policy fails when the service is created, with the policy path', () => {
  assert.throws(
    () => createCheckoutServer({ policy: { prices: [{ item: '' }] } }),
    (e) => e instanceof Error && e.code === 'too_short' && e.path === '/prices/0/item',
  )
})

test('with a recorder, a completed purchase is attested, paid, receipted and handed out as a bundle that verifies', async () => {
  const { mkdtempSync, openSync, writeSync, closeSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const curbi = require('../../bindings/node')
  const dir = mkdtempSync(join(tmpdir(), 'curbi-checkout-'))
  // The recorder scenarios' test key k1 (RFC 8037's example key), in a file only its owner may read.
  const vectors = JSON.parse(readFileSync(new URL('../../vectors/recorder/scenarios.json', import.meta.url), 'utf8'))
  const keyFile = join(dir, 'shop.jwk')
  const fd = openSync(keyFile, 'wx', 0o600)
  writeSync(fd, vectors.keys.k1.jwk)
  closeSync(fd)
  const recorder = await curbi.Recorder.open({
    path: join(dir, 'log.db'),
    origin: 'curbi-checkpoint-v1.shop.example/checkout',
    key_file: keyFile,
    now: 1793714400, // 2026-11-03T14:00:00Z: inside the mandate's and the checkout's windows
  })
  // vectors/purchase/00-baseline.json's headphones mandate and checkout (total USD 91.39), with a USD 150.00 budget.
  const baseline = JSON.parse(readFileSync(new URL('../../vectors/purchase/00-baseline.json', import.meta.url), 'utf8'))
  const { mandate, checkout } = baseline.cases[0].input
  await recorder.mandate({ ...mandate, budget: { max: 15000 } })
  const paid = []
  const pay = async (c, attestation) => {
    paid.push({ id: c.id, attestation })
    const answer = { id: `pi_${c.id}`, operation: 'checkout.complete', resource: `checkout:${c.id}`, amount: 9139, currency: 'usd' }
    return { outcome: 'DONE', evidence: JSON.stringify(answer) }
  }
  // Receipts are judged a day after they were signed (they last 30 days), whatever the day the test runs.
  const shop = createCheckoutServer({ recorder, mandate: mandate.id, pay, receiptsNow: '2026-11-04T14:00:00Z' })
  await new Promise((resolve) => shop.listen(0, '127.0.0.1', resolve))
  const at = `http://127.0.0.1:${shop.address().port}`
  try {
    const buy = async (key, id) => {
      const res = await fetch(at + '/purchase', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ idempotency_key: key, agent: 'agent:shopper', checkout: { ...checkout, id }, conversation: 'chat-1' }),
      })
      return { status: res.status, body: await res.json() }
    }
    const say = async (reply, conversation) => {
      const res = await fetch(at + '/reply', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reply, conversation }),
      })
      return { status: res.status, body: await res.json() }
    }
    const first = await buy('order-1', 'cs_1')
    assert.equal(first.status, 200, JSON.stringify(first.body))
    assert.equal(first.body.receipt.status, 'DONE')
    const keys = await (await fetch(at + '/keys')).json()
    const verdict = await curbi.verifyBundle({ bundle: first.body.bundle, keys })
    assert.equal(verdict.ok, true, JSON.stringify(verdict))
    // The mandate is single-use and its budget is spent, by the recorder's own ledger: the next one is refused
    // before anything is paid.
    const second = await buy('order-2', 'cs_2')
    assert.equal(second.status, 403)
    assert.deepEqual(second.body.reasons.map((r) => r.code).sort(), ['budget_exceeded', 'recurrence_count_exceeded'])
    assert.deepEqual(paid.map((p) => p.id), ['cs_1'])
    // The same request again hands out the recorded purchase; it is not paid twice.
    const again = await buy('order-1', 'cs_1')
    assert.equal(again.status, 200)
    assert.deepEqual(again.body.receipt, first.body.receipt)
    assert.deepEqual(paid.map((p) => p.id), ['cs_1'])
    // The agent's reply in that conversation, checked against the purchase's signed receipt (USD 91.39).
    assert.equal((await say("Done — I've charged you $91.39.", 'chat-1')).status, 200)
    const wrong = await say("Done — I've charged you $191.39.", 'chat-1')
    assert.equal(wrong.status, 422)
    assert.deepEqual(wrong.body.findings.map((f) => [f.rule, f.text]), [['receipt:mismatch', '$191.39']])
    assert.equal(wrong.body.findings[0].why, 'The signed receipt for checkout.complete is USD 91.39, not $191.39.')
    // Another conversation has no receipt for that purchase: the claim is unverified, and with no receipt to judge
    // it against, $91.39 is an amount the policy does not approve.
    const elsewhere = await say("Done — I've charged you $91.39.", 'chat-2')
    assert.deepEqual(elsewhere.body.findings.map((f) => f.rule), ['action:unverified', 'price:unknown'])
    // Without `receiptsNow` the system clock judges: the receipt signed 2026-11-03T14:00Z lasted 30 days, so on
    // every day since 2026-12-03T14:00Z the claim is refused as expired, never passed on an expired receipt.
    const bySystemClock = createCheckoutServer({ recorder, mandate: mandate.id, pay })
    await new Promise((resolve) => bySystemClock.listen(0, '127.0.0.1', resolve))
    try {
      const res = await fetch(`http://127.0.0.1:${bySystemClock.address().port}/reply`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ reply: "Done — I've charged you $91.39.", conversation: 'chat-1' }),
      })
      const body = await res.json()
      assert.equal(res.status, 422, JSON.stringify(body))
      // An expired receipt backs no amount either: $91.39 is then one the policy does not approve.
      assert.deepEqual(body.findings.map((f) => [f.rule, f.text]), [['receipt:mismatch', 'charged'], ['price:unknown', '$91.39']])
      assert.match(body.findings[0].why, /expired at 2026-12-03T14:00:00Z/)
    } finally {
      await new Promise((resolve) => bySystemClock.close(resolve))
    }
  } finally {
    await new Promise((resolve) => shop.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  }
})
