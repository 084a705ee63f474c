// Lint, regression export and replay, the purchase and action checks and the checkout digest, run on their shared
// vectors (vectors/lint, vectors/regression, vectors/purchase, vectors/checkout_digest) through the addon.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'

import curbi from '../index.js'
import { assertCurbiError, codeList, groups, spans } from './vectors.mjs'

const pairs = (list) => list.map(({ code, path }) => ({ code, path }))

test('lint vectors through validatePolicy', () => {
  const known = new Set(codeList('warnings.json').map((c) => c.code))
  const fired = new Set()
  let ran = 0
  for (const { file, doc } of groups('lint')) {
    doc.cases.forEach((c, i) => {
      const where = `${file}#${i}`
      const got = curbi.validatePolicy(c.policy)
      assert.equal(got.valid, c.expected.valid, where)
      assert.deepEqual(pairs(got.errors), pairs(c.expected.errors), `${where}: errors`)
      assert.deepEqual(pairs(got.warnings), pairs(c.expected.warnings), `${where}: warnings`)
      for (const w of got.warnings) {
        assert.ok(known.has(w.code), `${where}: ${w.code} is in vectors/warnings.json`)
        fired.add(w.code)
      }
      // The same policy as JSON text is the same report.
      assert.deepEqual(curbi.validatePolicy(JSON.stringify(c.policy)), got, where)
      ran++
    })
  }
  console.log(`node lint vectors: ${ran} ran`)
  assert.ok(ran > 0, 'no lint vectors ran')
  assert.deepEqual([...known].filter((c) => !fired.has(c)), [], 'every warning code fires in some vector')
  assertCurbiError(() => curbi.validatePolicy('{'), 'invalid_json', '')
})

test('regression vectors through exportRegression and replayRegression', () => {
  let ran = 0
  for (const { file, doc } of groups('regression')) {
    doc.cases.forEach((c, i) => {
      const where = `${file}#${i}`
      const [run, doc] = 'export' in c ? [curbi.exportRegression, c.export] : [curbi.replayRegression, c.replay]
      assert.ok(doc !== undefined, `${where}: export or replay`)
      // A string is JSON text to the addon: a document that is itself a string goes over as its JSON text.
      const input = typeof doc === 'string' ? JSON.stringify(doc) : doc
      if (c.expected.error) {
        assertCurbiError(() => run(input), c.expected.error.code, c.expected.error.path, where)
      } else if (run === curbi.exportRegression) {
        const got = run(input)
        assert.deepStrictEqual(got.regression, c.expected, where)
        assert.match(got.nodeTest, /node:test/, where)
        assert.match(got.pytest, /pytest|def test_/, where)
        // What an export writes, a replay with the same checker holds.
        const replayed = curbi.replayRegression(got.regression)
        assert.equal(replayed.pass, true, `${where}: the export replays`)
      } else {
        assert.deepStrictEqual(run(input), c.expected, where)
      }
      ran++
    })
  }
  console.log(`node regression vectors: ${ran} ran`)
  assert.ok(ran > 0, 'no regression vectors ran')
})

test('purchase and action vectors through verifyCheckout and verifyAction, from their own bytes', () => {
  const effects = new Map(codeList('purchase/reasons.json').map((c) => [c.code, c.effect]))
  const triples = (reasons) => reasons.map((r) => `${r.code} ${r.effect} ${r.path}`).sort()
  let ran = 0
  for (const { file, text, doc } of groups('purchase', ['reasons.json'])) {
    const raw = spans(text).members.get('cases').items
    doc.cases.forEach((c, i) => {
      const where = `${file}#${i}`
      const node = raw[i].members.get('input')
      const input = text.slice(node.start, node.end)
      const decide = doc.check === 'action' ? curbi.verifyAction : curbi.verifyCheckout
      const got = decide(input)
      assert.equal(got.decision, c.expected.decision, where)
      assert.deepEqual(triples(got.reasons), triples(c.expected.reasons), where)
      if ('summary' in c.expected) assert.equal(got.stepUp.summary, c.expected.summary, where)
      assert.equal(got.object, doc.check === 'action' ? 'action_check' : 'purchase_check', where)
      assert.equal(got.authorizationGranted, false, where)
      assert.equal(got.reasons.length === 0, got.decision === 'ALLOW', where)
      assert.equal('stepUp' in got, got.decision === 'STEP_UP', where)
      for (const r of got.reasons) assert.equal(effects.get(r.code), r.effect, `${where}: ${r.code}'s fixed effect`)
      ran++
    })
  }
  console.log(`node purchase vectors: ${ran} ran`)
  assert.ok(ran > 0, 'no purchase vectors ran')
  assertCurbiError(() => curbi.verifyCheckout('{not json'), 'invalid_json', '')
  // Only unreadable JSON is an error: a document of the wrong shape is a DENY with its reasons.
  const odd = curbi.verifyAction(7)
  assert.deepEqual([odd.decision, odd.reasons[0]?.code], ['DENY', 'malformed'])
})

test('checkout digest vectors through checkoutDigest, each digest first hashed again with node:crypto', () => {
  let ran = 0
  for (const { file, doc } of groups('checkout_digest')) {
    doc.cases.forEach((c, i) => {
      const where = `${file}#${i} ${c.description}`
      ran++
      const { error } = c.expected
      if (error) return assertCurbiError(() => curbi.checkoutDigest(c.checkout), error.code, error.path)
      // The vector's digest is SHA-256 of its hand-written RFC 8785 text.
      const sha = createHash('sha256').update(c.expected.canonical, 'utf8').digest('base64url')
      assert.equal(sha, c.expected.digest, where)
      // The checkout as JSON text, so 2.5e3 and the escapes reach the core as written.
      assert.equal(curbi.checkoutDigest(c.checkout), c.expected.digest, where)
    })
  }
  console.log(`node checkout_digest vectors: ${ran} ran`)
  assert.ok(ran > 0, 'no checkout_digest vectors ran')
})

test('checkoutDigest pins the cart: that checkout ALLOWs, another item is mandate_scope_mismatch', () => {
  const line = { id: 'li_1', item: { id: 'sku_1' }, quantity: 1, unit_amount: 4000 }
  const totals = [{ type: 'subtotal', amount: 4000 }, { type: 'total', amount: 4000 }]
  const checkout = { id: 'cs_1', status: 'ready_for_payment', currency: 'usd', merchant: { id: 'm_1' },
    line_items: [{ ...line, totals }], totals }
  const mandate = { currency: 'USD', amount_range: { max: 5000 }, user_cart_confirmation_required: false,
    expires_at: '2026-12-31T00:00:00Z', checkout_digest: curbi.checkoutDigest(checkout) }
  const decide = (c) => curbi.verifyCheckout({ mandate, checkout: c, now: '2026-11-20T12:00:00Z' })
  assert.equal(decide(checkout).decision, 'ALLOW')
  const other = { ...checkout, line_items: [{ ...line, item: { id: 'sku_2' }, totals }] }
  const reasons = decide(other).reasons.map((r) => [r.code, r.path])
  assert.deepEqual(reasons, [['mandate_scope_mismatch', '/mandate/checkout_digest']])
})
