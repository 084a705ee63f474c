// Bad input gives an Error with a string `code` and `path`: the Check API's codes (vectors/errors.json) and JSON
// pointers. Expectations are written from docs/CHECK_API.md and seed 000's schema; when a built `curbi` CLI is at
// hand, each request case is also compared with what `curbi check -` answers for the same body.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

import curbi from '../index.js'
import { assertCurbiError, assertCurbiRejects, errorCodes } from './vectors.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..', '..', '..')

// [request, code, path]
const REQUESTS = [
  [{ policy: { prices: [{ item: '' }] }, reply: 'x' }, 'too_short', '/policy/prices/0/item'],
  [{ policy: {} }, 'missing_field', '/reply'],
  [{ reply: 'x' }, 'missing_field', '/policy'],
  [{ policy: {}, reply: 'x', cases: [{ reply: 'y' }] }, 'conflicting_fields', '/cases'],
  [{ policy: {}, reply: 'x'.repeat(4001) }, 'too_long', '/reply'],
  [{ policy: {}, reply: 'é'.repeat(4000) }, null, null], // 4000 code points is within the limit
  [{ policy: { forbid: [{ id: 'Bad Id', phrases: ['x'] }] }, reply: 'x' }, 'pattern_mismatch', '/policy/forbid/0/id'],
  [{ policy: { prices: [{ item: 'A', amount: -1 }] }, reply: 'x' }, 'out_of_range', '/policy/prices/0/amount'],
  [{ policy: { prices: [{ item: 'A', amount: 1e16 }] }, reply: 'x' }, 'out_of_range', '/policy/prices/0/amount'],
  [{ policy: { prices: [{ item: 'A', amount: 49.1234567 }] }, reply: 'x' }, 'invalid_value', '/policy/prices/0/amount'],
  [{ policy: { extra: 1 }, reply: 'x' }, 'unknown_field', '/policy/extra'],
  [{ policy: { unknownAmounts: 'maybe' }, reply: 'x' }, 'invalid_enum', '/policy/unknownAmounts'],
  [{ policy: [1, 2], reply: 'x' }, 'invalid_type', '/policy'],
  [{ policy: {}, reply: 'x', record: { receipts: ['abc'] } }, 'unsupported', '/record/receipts'],
  [{ policy: {}, reply: 'x', verify: 'required' }, 'unsupported', '/verify'],
  [{ policy: {}, cases: [] }, 'too_few_items', '/cases'],
  [{ policy: {}, cases: [{ reply: 5 }] }, 'invalid_type', '/cases/0/reply'],
  [{ policy: {}, cases: [{ reply: 'x', extra: 1 }] }, 'unknown_field', '/cases/0/extra'],
  [{ policy: {}, version: '2020-01-01', reply: 'x' }, 'invalid_enum', '/version'],
  [
    { policy: {}, reply: 'x', record: { facts: [{ near: 'appointment', kind: 'time', value: 'soon' }] } },
    'invalid_value',
    '/record/facts/0/value',
  ],
]

function cli() {
  for (const p of [process.env.CURBI_CLI, join(root, 'target/release/curbi'), join(root, 'target/debug/curbi')]) {
    if (p && existsSync(p)) return p
  }
  return null
}

test('check(request): codes and paths of the Check API', () => {
  for (const [request, code, path] of REQUESTS) {
    const where = JSON.stringify(request).slice(0, 80)
    if (code === null) assert.equal(curbi.check(request).object, 'check', where)
    else assertCurbiError(() => curbi.check(request), code, path, where)
  }
})

test('check(request) gives the same code and path as the CLI for the same body', (t) => {
  const bin = cli()
  if (!bin) {
    t.skip('no built curbi CLI (target/*/curbi); the hand-written expectations above still ran')
    return
  }
  for (const [request] of REQUESTS) {
    const body = JSON.stringify(request)
    const out = spawnSync(bin, ['check', '-'], { input: body, encoding: 'utf8' })
    const doc = JSON.parse(out.stdout)
    if (doc.error) {
      assert.equal(out.status, 2, body)
      assertCurbiError(() => curbi.check(request), doc.error.code, doc.error.path, body.slice(0, 80))
    } else {
      assert.deepStrictEqual(curbi.check(request), doc, body.slice(0, 80))
    }
  }
})

test('arguments that are not documents', () => {
  assertCurbiError(() => curbi.check('{"policy":'), 'invalid_json', '')
  assertCurbiError(() => curbi.check(42), 'invalid_type', '')
  assertCurbiError(() => curbi.check(null), 'invalid_type', '')
  assertCurbiError(() => curbi.check(undefined), 'invalid_type', '')
  assertCurbiError(() => curbi.check('42'), 'invalid_type', '')
  const cyclic = { policy: {}, reply: 'x' }
  cyclic.policy.self = cyclic
  // Issue 15: a cycle and a BigInt are named at their place (hostile.test.mjs has the rest).
  assertCurbiError(() => curbi.check(cyclic), 'too_deep', '/policy/self')
  assertCurbiError(() => curbi.compilePolicy({ prices: [{ item: 'A', amount: 10n }] }), 'invalid_type', '/prices/0/amount')
  assertCurbiError(() => curbi.compilePolicy({ toJSON: () => undefined }), 'invalid_json', '')
  // JSON.stringify semantics: toJSON applies, and an undefined member is left out, as when sent over HTTP.
  assertCurbiError(() => curbi.compilePolicy({ toJSON: () => ({ extra: 1 }) }), 'unknown_field', '/extra')
  assert.equal(curbi.check({ policy: {}, reply: 'x', record: undefined }).pass, true)
})

test('compilePolicy: paths relative to the policy document', () => {
  assertCurbiError(() => curbi.compilePolicy({ prices: [{ item: '' }] }), 'too_short', '/prices/0/item')
  assertCurbiError(() => curbi.compilePolicy({ forbid: [{ id: 'Bad Id', phrases: ['x'] }] }), 'pattern_mismatch', '/forbid/0/id')
  assertCurbiError(() => curbi.compilePolicy({ extra: 1 }), 'unknown_field', '/extra')
  assertCurbiError(() => curbi.compilePolicy({ actions: { Refunded: 'billing.refund' } }), 'pattern_mismatch', '/actions/Refunded')
  assertCurbiError(() => curbi.compilePolicy({ prices: [{ item: 'A', amount: 49, amounts: [49] }] }), 'conflicting_fields', '/prices/0/amounts')
  assertCurbiError(() => curbi.compilePolicy('{"prices": [{"item": ""}]}'), 'too_short', '/prices/0/item')
  assertCurbiError(() => curbi.compilePolicy('[]'), 'invalid_type', '')
  assertCurbiError(() => curbi.compilePolicy('{'), 'invalid_json', '')
  assertCurbiError(() => curbi.compilePolicy(7), 'invalid_type', '')
})

test('policy.check and checkCases: reply, options and cases errors', () => {
  const p = curbi.compilePolicy({ prices: [{ item: 'Starter', amount: 49 }] })
  assertCurbiError(() => p.check(42), 'invalid_type', '/reply')
  assertCurbiError(() => p.check(undefined), 'invalid_type', '/reply')
  assertCurbiError(() => p.check('x', { foo: 1 }), 'unknown_field', '/foo')
  assertCurbiError(() => p.check('x', { version: '2020-01-01' }), 'invalid_enum', '/version')
  // Options as JSON text are read by the core: 'options' is not JSON, '[]' not an object.
  assertCurbiError(() => p.check('x', 'options'), 'invalid_json', '')
  assertCurbiError(() => p.check('x', '[]'), 'invalid_type', '')
  assertCurbiError(() => p.check('x', 42), 'invalid_type', '')
  assertCurbiError(() => p.check('x', { record: { receipts: ['r'] } }), 'unsupported', '/record/receipts')
  assertCurbiError(
    () => p.check('x', { record: { facts: [{ near: 'appointment', kind: 'time', value: 'soon' }] } }),
    'invalid_value',
    '/record/facts/0/value',
  )
  assertCurbiError(() => p.check('x', { record: { effects: [{ op: 'x' }] } }), 'unknown_field', '/record/effects/0/op')
  assert.equal(p.check('Starter is $49.', null).pass, true)
  assert.equal(p.check('Starter is $49.', undefined).pass, true)

  // JSON text is read as it is: not JSON is invalid_json, not an array invalid_type, both at /cases.
  assertCurbiError(() => p.checkCases('x'), 'invalid_json', '/cases')
  assertCurbiError(() => p.checkCases('{"reply":"x"}'), 'invalid_type', '/cases')
  assertCurbiError(() => p.checkCases(42), 'invalid_type', '/cases')
  assertCurbiError(() => p.checkCases([]), 'too_few_items', '/cases')
  assertCurbiError(() => p.checkCases([{ reply: 5 }]), 'invalid_type', '/cases/0/reply')
  assertCurbiError(() => p.checkCases([{ reply: 'x', extra: 1 }]), 'unknown_field', '/cases/0/extra')
  assertCurbiError(() => p.checkCases(Array.from({ length: 51 }, () => ({ reply: 'x' }))), 'too_many_items', '/cases')
  assertCurbiError(() => p.checkCases([{ reply: 'x' }], { bad: true }), 'unknown_field', '/bad')

  assertCurbiError(() => curbi.prepareOptions({ version: 'v' }), 'invalid_enum', '/version')
  assertCurbiError(() => curbi.prepareOptions({ record: { subject: '' } }), 'too_short', '/record/subject')
  assertCurbiError(() => curbi.prepareOptions(null), 'invalid_type', '')
  assertCurbiError(() => curbi.prepareOptions('[]'), 'invalid_type', '')
  assertCurbiError(() => curbi.prepareOptions('{"version":"2026-10-27","version":"2026-11-01"}'), 'duplicate_member', '/version')
  assert.equal(curbi.prepareOptions('{}').version, curbi.prepareOptions({}).version)
})

test('async calls reject with the same errors and never throw', async () => {
  const p = curbi.compilePolicy({ prices: [{ item: 'Starter', amount: 49 }] })
  let pending
  assert.doesNotThrow(() => {
    pending = [
      assertCurbiRejects(p.checkAsync(42), 'invalid_type', '/reply'),
      assertCurbiRejects(p.checkAsync('x', { version: 'v' }), 'invalid_enum', '/version'),
      assertCurbiRejects(p.checkCasesAsync([]), 'too_few_items', '/cases'),
      assertCurbiRejects(curbi.checkAsync({ reply: 'x' }), 'missing_field', '/policy'),
      assertCurbiRejects(curbi.checkAsync({ policy: { prices: [{ item: '' }] }, reply: 'x' }), 'too_short', '/policy/prices/0/item'),
      assertCurbiRejects(curbi.checkAsync(7), 'invalid_type', ''),
    ]
  })
  await Promise.all(pending)
})

test('the codes the addon can throw are exactly those of vectors/errors.json, in index.d.ts and at run time', () => {
  const dts = readFileSync(join(here, '..', 'index.d.ts'), 'utf8')
  const union = dts.match(/^export type ErrorCode = (.*)$/m)
  assert.ok(union, 'index.d.ts declares ErrorCode')
  assert.deepEqual([...union[1].matchAll(/'([a-z_]+)'/g)].map((m) => m[1]), errorCodes())
  assert.deepEqual(Object.values(curbi.ErrorCode), errorCodes())
})

test('Policy has no public constructor: compilePolicy is the only way to make one', () => {
  assert.throws(() => new curbi.Policy())
})
