// A Verifier built once from the options gives, for every bundle, what verifyBundle gives for the whole request;
// options that cannot be used refuse to build it, with the code and path the whole request reports as `malformed`.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import curbi from '../index.js'
import { assertCurbiError, assertCurbiRejects, proofVectors } from './vectors.mjs'

// The vectors whose input is an object with a bundle, split into the options (the rest, as written) and the bundle.
const split = proofVectors()
  .filter((v) => v.members?.has('bundle'))
  .map((v) => {
    const rest = [...v.members].filter(([name]) => name !== 'bundle')
    const options = `{${rest.map(([name, raw]) => `${JSON.stringify(name)}:${raw}`).join(',')}}`
    return { ...v, options, bundle: v.members.get('bundle') }
  })
const valid = split.find((v) => v.name === 'valid-four-domains')

test('every proof vector through a verifier gives the whole request’s result', async () => {
  let built = 0
  let refused = 0
  for (const v of split) {
    const whole = await curbi.verifyBundle(v.input)
    let verifier
    try {
      verifier = curbi.createVerifier(v.options)
    } catch (e) {
      assert.equal(whole.reason, 'malformed', `${v.name}: the whole request is malformed too`)
      assert.deepEqual([e.code, e.path], [whole.error.code, whole.error.path], `${v.name}: code and path`)
      refused++
      continue
    }
    assert.ok(verifier instanceof curbi.Verifier, v.name)
    assert.deepStrictEqual(await verifier.verify(v.bundle), whole, v.name)
    built++
  }
  console.log(`# node verifier: ${built} built, ${refused} refused`)
  assert.ok(built >= 55 && refused >= 10, `${built} built, ${refused} refused`)
})

test('options and bundles may be objects or JSON text', async () => {
  const whole = await curbi.verifyBundle(valid.doc.input)
  assert.equal(whole.reason, 'verifies')
  const { bundle, ...options } = valid.doc.input
  for (const verifier of [curbi.createVerifier(options), curbi.createVerifier(valid.options)]) {
    assert.deepStrictEqual(await verifier.verify(bundle), whole)
    assert.deepStrictEqual(await verifier.verify(valid.bundle), whole)
  }
})

test('only a bundle that is not JSON rejects; an unreadable one is a malformed result', async () => {
  const verifier = curbi.createVerifier(valid.options)
  await assertCurbiRejects(verifier.verify('{not json'), 'invalid_json', '')
  await assertCurbiRejects(verifier.verify({ n: 1n }), 'invalid_type', '/n')
  await assertCurbiRejects(verifier.verify(undefined), 'invalid_type', '')
  const odd = await verifier.verify({ object: 'curbi.proof/0.1', x: 1 })
  assert.deepEqual([odd.ok, odd.reason, odd.error.path], [false, 'malformed', '/bundle/x'])
  const repeated = await verifier.verify('{"head":"a","head":"b"}')
  assert.deepEqual([repeated.reason, repeated.error.code, repeated.error.path], ['malformed', 'duplicate_member', '/bundle/head'])
})

test('options that cannot be used throw a CurbiError', () => {
  assertCurbiError(() => curbi.createVerifier('[]'), 'invalid_type', '')
  assertCurbiError(() => curbi.createVerifier('{not json'), 'invalid_json', '')
  assertCurbiError(() => curbi.createVerifier('{"keys":{"keys":[]},"keys":{"keys":[]}}'), 'duplicate_member', '/keys')
  assertCurbiError(() => curbi.createVerifier({ keys: { keys: [] }, bundle: {} }), 'unknown_field', '/bundle')
  assertCurbiError(() => curbi.createVerifier({}), 'missing_field', '/keys')
  assertCurbiError(() => curbi.createVerifier(undefined), 'invalid_type', '')
  assert.throws(() => new curbi.Verifier())
})

test('many concurrent verify calls on one verifier give the results of one call at a time', async () => {
  const verifier = curbi.createVerifier(valid.options)
  const bundles = split.map((v) => v.bundle)
  const one = []
  for (const b of bundles) one.push(await verifier.verify(b))
  const N = 500
  const all = await Promise.all(Array.from({ length: N }, (_, i) => verifier.verify(bundles[i % bundles.length])))
  all.forEach((got, i) => assert.deepStrictEqual(got, one[i % bundles.length], split[i % bundles.length].name))
  assert.equal(one[split.indexOf(valid)].reason, 'verifies')
})
