// @curbi/web in Node: the seed's snippet, UTF-16 spans, errors with the core's codes and paths, the purchase and
// action checks, and loading the module from bytes or a compiled module. Byte-for-byte agreement with the core on
// every shared vector is the differential test's (test/differential.mjs, scripts/differential.sh).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'

import * as curbi from '../index.js'

const vector = (name) => JSON.parse(readFileSync(new URL(`../../../vectors/proof/${name}`, import.meta.url), 'utf8'))

test("seed 003's snippet: verifyBundle(bundle, { keys }) with allowTest, and test keys refused without it", async () => {
  const { input } = vector('valid-four-domains.json')
  const result = await curbi.verifyBundle(input.bundle, { keys: input.keys, allowTest: true })
  assert.equal(result.ok, true)
  assert.equal(result.reason, 'verifies')
  assert.deepEqual(result.items.map((i) => i.reason), ['verifies', 'verifies', 'verifies', 'verifies'])
  // Seed 003, "test-key-refused": the same valid bundle under default production settings.
  const refused = await curbi.verifyBundle(input.bundle, { keys: input.keys })
  assert.equal(refused.ok, false)
  assert.equal(refused.reason, 'no_trusted_keys')
  // Seed 003, "tampered-amount": bad_signature.
  const tampered = vector('tampered-amount.json').input
  const bad = await curbi.verifyBundle(JSON.stringify(tampered.bundle), { keys: tampered.keys, allowTest: true })
  assert.equal(bad.reason, 'bad_signature')
})

test('every option of the native verifier is taken: fresh mode needs now, known heads, witnesses', async () => {
  const { input } = vector('valid-four-domains.json')
  const fresh = await curbi.verifyBundle(input.bundle, { keys: input.keys, allowTest: true, mode: 'fresh' })
  assert.equal(fresh.reason, 'malformed')
  assert.equal(fresh.path, '/now')
  const eq = vector('equivocation.json').input
  const fork = await curbi.verifyBundle(eq.bundle, { keys: eq.keys, allowTest: true, known: eq.known })
  assert.equal(fork.reason, 'fork_detected')
  const witnesses = await curbi.verifyBundle(input.bundle, { keys: input.keys, allowTest: true, witnesses: { keys: [] } })
  assert.equal(witnesses.reason, 'malformed')
  assert.equal(witnesses.error.code, 'too_few_items')
  assert.equal(witnesses.path, '/witnesses/keys')
  const unknown = await curbi.verifyBundle(input.bundle, { keys: input.keys, allowtest: true })
  assert.equal(unknown.error.code, 'unknown_field')
  assert.equal(unknown.path, '/allowtest')
})

test('compilePolicy(policy).check(reply): spans in UTF-16 code units, as reply.slice gives them', () => {
  const policy = curbi.compilePolicy({ prices: [{ item: 'Starter', amount: 49 }] })
  // Seed 000, step 4: "Starter is $99 a month." finds $99 at [11,14].
  const seed = policy.check('Starter is $99 a month.', { version: '2026-11-01' })
  assert.deepEqual(seed.findings, [{ rule: 'price:mismatch', span: [11, 14], text: '$99', why: 'Starter is $49, not $99.' }])
  const reply = '𝒮 Starter — now $99!'
  const [finding] = policy.check(reply).findings
  assert.equal(reply.slice(...finding.span), '$99')
  // 𝒮 is two UTF-16 units (four UTF-8 bytes), then ' Starter — now ' is 15 units (— is three UTF-8 bytes).
  assert.deepEqual(finding.span, [17, 20])
  const batch = policy.checkCases([{ id: 'a', reply: 'Starter is $49.' }, { reply: 'Starter is $99.' }])
  assert.deepEqual(batch.results.map((r) => r.pass), [true, false])
})

test('bad input is a CurbiError with the core code and JSON pointer', () => {
  const thrown = (f) => {
    try {
      f()
    } catch (e) {
      assert.ok(e instanceof curbi.CurbiError, `${e}`)
      return [e.code, e.path]
    }
    assert.fail('did not throw')
  }
  assert.deepEqual(thrown(() => curbi.compilePolicy({ prices: [{ item: 'A', amount: 'x' }] })), ['invalid_type', '/prices/0/amount'])
  assert.deepEqual(thrown(() => curbi.compilePolicy('{"prices":[],"prices":[]}')), ['duplicate_member', '/prices'])
  assert.deepEqual(thrown(() => curbi.compilePolicy(undefined)), ['invalid_type', ''])
  assert.deepEqual(thrown(() => curbi.compilePolicy({ n: 1n })), ['invalid_json', ''])
  const policy = curbi.compilePolicy({ prices: [{ item: 'A', amount: 1 }] })
  assert.deepEqual(thrown(() => policy.check(5)), ['invalid_type', '/reply'])
  assert.deepEqual(thrown(() => policy.check('A', { version: '1999-01-01' })), ['invalid_enum', '/version'])
  assert.deepEqual(thrown(() => policy.checkCases({})), ['invalid_type', '/cases'])
  assert.deepEqual(thrown(() => curbi.check('{')), ['invalid_json', ''])
  assert.deepEqual(thrown(() => curbi.createVerifier({})), ['missing_field', '/keys'])
})

test('validatePolicy, the purchase and action checks, checkoutDigest', () => {
  const lint = curbi.validatePolicy({})
  assert.equal(lint.valid, true)
  assert.ok(lint.warnings.length > 0, 'a policy with no rules is warned about (docs/LINT.md)')
  const purchase = curbi.verifyCheckout({})
  assert.equal(purchase.decision, 'DENY')
  const action = curbi.verifyAction('{"grant":{},"action":{},"now":"2026-11-01T00:00:00Z"}')
  assert.equal(action.decision, 'DENY')
  const digest = curbi.checkoutDigest({ a: 1 })
  // SHA-256 of the RFC 8785 text {"a":1}, unpadded base64url (printf '{"a":1}' | sha256sum, as base64url).
  assert.equal(digest, 'AVq9f1zFei3ZS3WQ8ErYCEJzkF7jPsXOvq5iJ2qX-GI')
})

test('the module loads from its bytes or a compiled WebAssembly.Module (core.js, no top-level await)', () => {
  const script = `
    import { readFileSync } from 'node:fs'
    import * as core from './core.js'
    const bytes = readFileSync(new URL('./pkg/wasm/curbi_wasm_bg.wasm', import.meta.url))
    let before
    try { core.version() } catch (e) { before = e.message }
    await core.init(process.argv[1] === 'module' ? new WebAssembly.Module(bytes) : bytes)
    console.log(JSON.stringify([before, core.isReady(), core.version()]))`
  for (const how of ['bytes', 'module']) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, how], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
    })
    const [before, ready, version] = JSON.parse(out)
    assert.match(before, /await init\(\)/)
    assert.equal(ready, true)
    assert.equal(version, JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version)
  }
})

test('receipts in checks: receipt keys as configuration; without `now`, the host clock (Date.now) judges expiry', () => {
  const doc = JSON.parse(readFileSync(new URL('../../../vectors/check/99-receipts.json', import.meta.url), 'utf8'))
  const [match] = doc.cases
  const { policy, reply, record, verify } = match.request
  // Fixed clock: the vector's answer, through both forms.
  assert.deepEqual(curbi.check(match.request, match.receipts), match.expected)
  const { version } = match.request
  assert.deepEqual(curbi.compilePolicy(policy, match.receipts).check(reply, { record, verify, version }), match.expected)
  // The host's clock: the vector's receipt expired at 2026-12-03T14:02:00Z, so on every day since, it no longer
  // counts, and the finding says so (the fixed clock above is the vector's answer while it did).
  const { now, ...hostClock } = match.receipts
  const got = curbi.compilePolicy(policy, hostClock).check(reply, { record, verify: 'required' })
  assert.equal(got.pass, false)
  assert.deepEqual(got.findings.map((f) => f.rule), ['receipt:mismatch'])
  assert.match(got.findings[0].why, /expired at 2026-12-03T14:02:00Z/)
  // Without receipt keys, receipts are refused, not ignored.
  assert.throws(
    () => curbi.compilePolicy(policy).check(reply, { record }),
    (e) => e instanceof curbi.CurbiError && e.code === 'unsupported' && e.path === '/record/receipts',
  )
})

test('yamlToJson: vectors/yaml/conversions.json, byte for byte', () => {
  const doc = JSON.parse(readFileSync(new URL('../../../vectors/yaml/conversions.json', import.meta.url), 'utf8'))
  assert.ok(doc.cases.length >= 10)
  for (const c of doc.cases) {
    if ('json' in c) assert.equal(curbi.yamlToJson(c.yaml), c.json, c.description)
    else assert.throws(() => curbi.yamlToJson(c.yaml), (e) => e.code === c.error.code && e.path === c.error.path, c.description)
  }
  const policy = curbi.compilePolicy(curbi.yamlToJson('prices:\n  - item: Pro\n    amount: 49\n'))
  assert.equal(policy.check('Pro is $49.').pass, true)
  assert.throws(() => curbi.yamlToJson(42), (e) => e.code === 'invalid_type')
})
