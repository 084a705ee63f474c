// Spans are JavaScript string indices (UTF-16 code units): `reply.slice(...span) === text` on replies with emoji,
// é (composed and decomposed), CJK (including a character outside the BMP) and Turkish İ. Expected positions come
// from String.prototype.indexOf, never from the addon.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import curbi from '../index.js'

const POLICY = {
  prices: [{ item: 'Starter', amount: 49 }],
  forbid: [
    { id: 'garanti', phrases: ['garanti'], match: 'prefix' },
    { id: 'iade', phrases: ['iade'] },
  ],
  actions: { refunded: 'billing.refund' },
}
const policy = curbi.compilePolicy(POLICY)

function assertRoundTrip(reply, findings) {
  for (const f of findings) assert.equal(reply.slice(f.span[0], f.span[1]), f.text, JSON.stringify({ reply, f }))
}

test('a reply mixing emoji, é, CJK and Turkish İ: each finding where indexOf finds its text', () => {
  const reply = '😀 Café Renée: 您好 𠮷野家! Starter is $99. İADE yok. Ürünlerimiz GARANTİLİDİR. We refunded you 👍🏽.'
  const { findings, pass } = policy.check(reply)
  assert.equal(pass, false)
  const expected = [
    ['price:mismatch', '$99'],
    ['forbid:iade', 'İADE'],
    ['forbid:garanti', 'GARANTİLİDİR'],
    ['action:unrecorded', 'refunded'],
  ]
  assert.deepEqual(
    findings.map((f) => [f.rule, f.text, f.span]),
    expected.map(([rule, text]) => [rule, text, [reply.indexOf(text), reply.indexOf(text) + text.length]]),
  )
  assertRoundTrip(reply, findings)
})

test('every prefix shifts the span by its own length in UTF-16 code units', () => {
  const tail = 'Starter is $99 a month.'
  const base = tail.indexOf('$99')
  const pieces = ['😀', 'é', 'e\u0301', '日本語', '𠮷', 'İ', 'ı', '👩‍💻', '🇹🇷', 'ß', 'Ω', ' ', 'a']
  let checked = 0
  for (const a of pieces) {
    for (const b of pieces) {
      const prefix = `${a}${b} `
      const reply = prefix + tail
      const [f, ...rest] = policy.check(reply).findings
      assert.equal(rest.length, 0, reply)
      assert.deepEqual(f.span, [prefix.length + base, prefix.length + base + 3], reply)
      assertRoundTrip(reply, [f])
      checked++
    }
  }
  assert.equal(checked, pieces.length ** 2)
})

test('Turkish İ and ı fold with the phrase but spans come from the original text', () => {
  for (const word of ['GARANTİLİ', 'garantili', 'Garantİ', 'GARANTİ']) {
    const reply = `İyi günler 🙂 ${word} ürün.`
    const findings = policy.check(reply).findings
    assert.deepEqual(
      findings.map((f) => [f.rule, f.text, f.span]),
      [['forbid:garanti', word, [reply.indexOf(word), reply.indexOf(word) + word.length]]],
      reply,
    )
  }
})

test('checkCases, checkAsync and check(request) agree on spans with policy.check', async () => {
  const replies = ['🙂 Starter is $99.', 'Zoë: 您好 Starter $99 İADE', '𠮷 GARANTİLİ 🇹🇷 refunded']
  const batch = policy.checkCases(replies.map((reply, i) => ({ id: `c${i}`, reply })))
  for (const [i, reply] of replies.entries()) {
    const one = policy.check(reply)
    assert.deepEqual(batch.results[i], { index: i, id: `c${i}`, pass: one.pass, findings: one.findings })
    assert.deepEqual(await policy.checkAsync(reply), one)
    assert.deepEqual(curbi.check({ policy: POLICY, reply }), one)
    assertRoundTrip(reply, one.findings)
    assert.ok(one.findings.length > 0, reply)
  }
})
