// Arbitrary replies never take the process down: each call answers with a result whose spans slice the reply, or
// throws an Error with a code. A panic in the core surfaces as code `internal` (a bug to report), never as an
// abort of the Node process. "𑎎ed " is a reply the core's own property test once shrank a panic to.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import curbi from '../index.js'

const policy = curbi.compilePolicy({
  prices: [{ item: 'Pro', amounts: [49, 490], aliases: ['Pro plan'] }],
  forbid: [
    { id: 'guarantee', phrases: ['guarantee', 'guaranteed results'] },
    { id: 'garanti', phrases: ['garanti'], match: 'prefix' },
  ],
  actions: { refunded: 'billing.refund', shipped: 'orders.ship' },
  discounts: [{ percent: 20, items: ['Pro'] }],
})
const record = { facts: [{ near: 'appointment', kind: 'time', value: '15:30' }] }

const PIECES = ['𑎎', 'ed', 'ing', ' ', '$', '49', '.99', '€', '%', ' off', 'Pro', 'guarantee', 'İ', 'ı', 'é', 'e\u0301',
  '😀', '👩‍💻', '日本', 'not', "n't", ',', '.', '!', '\n', 'refunded', 'at 3:30 PM', 'appointment', 'GARANTİ', '\u0000',
  '\uFEFF', 'ß', 'ﬁ', 'ǅ', '\u200D', '9', '/mo', 'USD', '-', '–']

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function replies(n, seed) {
  const next = rng(seed)
  const out = ['𑎎ed ', '𑎎ing', 'ıed', 'İing guarantee']
  while (out.length < n) {
    const len = 1 + Math.floor(next() * 12)
    out.push(Array.from({ length: len }, () => PIECES[Math.floor(next() * PIECES.length)]).join(''))
  }
  return out
}

function judge(reply, run) {
  try {
    const r = run()
    for (const f of r.findings) assert.equal(reply.slice(f.span[0], f.span[1]), f.text, JSON.stringify(reply))
    return 'ok'
  } catch (e) {
    assert.ok(e instanceof Error && typeof e.code === 'string', `${JSON.stringify(reply)}: ${e}`)
    assert.equal(e.code, 'internal', `${JSON.stringify(reply)}: only a core bug may fail a string reply`)
    return 'internal'
  }
}

test('2,000 generated replies through policy.check and check(request): a result or an Error, never an abort', () => {
  const counts = { ok: 0, internal: 0 }
  for (const reply of replies(1000, 20261130)) {
    counts[judge(reply, () => policy.check(reply, { record }))]++
    counts[judge(reply, () => curbi.check({ policy: { forbid: [{ id: 'g', phrases: ['guarantee'] }] }, reply }))]++
  }
  assert.equal(counts.ok + counts.internal, 2000)
  if (counts.internal > 0) console.log(`robustness: ${counts.internal} of 2000 calls hit a core panic (code internal)`)
})

test('a panic during checkAsync rejects its Promise; the next calls still work', async () => {
  const all = replies(300, 7)
  const settled = await Promise.allSettled(all.map((r) => policy.checkAsync(r, { record })))
  settled.forEach((s, i) => {
    if (s.status === 'fulfilled') {
      for (const f of s.value.findings) assert.equal(all[i].slice(f.span[0], f.span[1]), f.text)
    } else {
      assert.equal(s.reason.code, 'internal', `${JSON.stringify(all[i])}: ${s.reason}`)
    }
  })
  assert.equal(policy.check('Pro is $59.').findings[0].rule, 'price:mismatch')
})
