// Issue 15 in Node: a value that contains itself or nests past the core reader's 128 levels is a CurbiError
// `too_deep` with the JSON pointer of the place (it was an `invalid_json` at the root), and a BigInt is an
// `invalid_type` at its path: coded errors, never a crash or a bare TypeError/RangeError.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import curbi from '../index.js'

const ENTRY_POINTS = {
  compilePolicy: (d) => curbi.compilePolicy(d),
  check: (d) => curbi.check(d),
  validatePolicy: (d) => curbi.validatePolicy(d),
  createVerifier: (d) => curbi.createVerifier(d),
  prepareOptions: (d) => curbi.prepareOptions(d),
}

function deep(levels) {
  const doc = {}
  let cur = doc
  for (let i = 0; i < levels; i++) {
    cur.a = {}
    cur = cur.a
  }
  return doc
}

function refused(call, code, path) {
  assert.throws(call, (e) => {
    assert.ok(e instanceof curbi.CurbiError, String(e))
    assert.equal(e.code, code, e.message)
    assert.equal(e.path, path, e.message)
    return true
  })
}

for (const [name, call] of Object.entries(ENTRY_POINTS)) {
  test(`${name}: a value that contains itself is too_deep at its path`, () => {
    const doc = { policy: {} }
    doc.policy.self = doc
    refused(() => call(doc), 'too_deep', '/policy/self')
  })

  test(`${name}: 1,000 and 100,000 levels are too_deep at the 128th container`, () => {
    refused(() => call(deep(1000)), 'too_deep', '/a'.repeat(127))
    refused(() => call(deep(100000)), 'too_deep', '/a'.repeat(127))
  })
}

test('a BigInt is invalid_type at its path', () => {
  refused(() => curbi.compilePolicy({ prices: [{ item: 'Pro', amount: 10n }] }), 'invalid_type', '/prices/0/amount')
})

test('127 containers are read like JSON text: refused for their content, not their depth', () => {
  refused(() => curbi.compilePolicy(deep(126)), 'unknown_field', '/a')
  refused(() => curbi.compilePolicy(deep(127)), 'too_deep', '/a'.repeat(127))
})
