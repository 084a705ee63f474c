// The shared Proof of Action vectors through verifyBundle, a Promise computed off the event loop.
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import test from 'node:test'
import { createRequire } from 'node:module'

import { VECTORS, proofVectors } from './vectors.mjs'

const curbi = createRequire(import.meta.url)('../index.js')
const dir = join(VECTORS, 'proof')

test('proof vectors through verifyBundle', async () => {
  let ran = 0
  for (const { name, doc, input } of proofVectors()) {
    const got = await curbi.verifyBundle(input)
    assert.equal(got.ok, doc.expected.ok, `${name}: ok`)
    assert.equal(got.reason, doc.expected.reason, `${name}: reason`)
    if (doc.expected.items) {
      assert.deepEqual(got.items.map((i) => i.reason), doc.expected.items, `${name}: items`)
    }
    ran++
  }
  console.log(`# node proof vectors: ${ran} ran`)
  assert.ok(ran > 0, 'no proof vectors ran')
  assert.ok(readdirSync(dir).length > ran)
  // An object works too where JavaScript numbers lose nothing.
  const valid = JSON.parse(readFileSync(join(dir, 'valid-four-domains.json'), 'utf8'))
  assert.equal((await curbi.verifyBundle(valid.input)).reason, 'verifies')
})

test('verifyBundle rejects its Promise only for text that is not JSON', async () => {
  await assert.rejects(curbi.verifyBundle('{not json'), (e) => e.code === 'invalid_json')
  const bad = await curbi.verifyBundle({ bundle: {}, keys: {} })
  assert.equal(bad.ok, false)
})

test('verifyBundle keeps the event loop free while it works', async () => {
  const doc = JSON.parse(readFileSync(join(dir, 'valid-four-domains.json'), 'utf8'))
  let ticks = 0
  const timer = setInterval(() => ticks++, 0)
  await Promise.all(Array.from({ length: 200 }, () => curbi.verifyBundle(doc.input)))
  clearInterval(timer)
  assert.ok(ticks > 0, 'the event loop never ran while 200 verifications were pending')
})
