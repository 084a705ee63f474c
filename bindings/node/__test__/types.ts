// Type-checked by `tsc -p __test__` (test.sh): index.d.ts describes the API as the tests use it, and rejects misuse.
// Each `@ts-expect-error` fails the type check if the line below it stops being an error.
import {
  check,
  checkAsync,
  checkoutDigest,
  compilePolicy,
  createVerifier,
  exportRegression,
  prepareOptions,
  replayRegression,
  validatePolicy,
  verifyAction,
  verifyBundle,
  verifyCheckout,
  version,
  Recorder,
  Verifier,
} from '../index.js'
import type {
  Attested,
  Head,
  RecorderConfig,
  Settled,
  ProofBundle,
  Check,
  CheckBatch,
  CheckResponse,
  CurbiError,
  ErrorCode,
  Finding,
  PolicyDocument,
  Verification,
  VerifyOptions,
} from '../index.js'

const doc: PolicyDocument = {
  prices: [{ item: 'Starter', amount: 49, aliases: ['Basic'] }],
  forbid: [{ id: 'guarantee', phrases: ['guarantee'], match: 'word', negatable: true }],
  actions: { refunded: 'billing.refund' },
  discounts: [{ percent: 20, items: ['Starter'] }],
  unknownAmounts: 'flag',
}
const policy = compilePolicy(doc)
const one: Check = policy.check('Starter is $99.', {
  record: { effects: [{ operation: 'billing.refund', status: 'DONE' }], facts: [{ near: 'refund', kind: 'money', value: 49 }] },
  version: '2026-10-27',
})
const prepared = prepareOptions({ record: { subject: 'order-1' }, version: '2026-11-01' })
const pinned: '2026-10-27' | '2026-11-01' | '2026-12-01' | '2026-12-03' | '2026-12-04' = prepared.version
const again: Check = policy.check('x', prepared)
const first: Finding | undefined = one.findings[0]
const [start, end]: [number, number] = first ? first.span : [0, 0]
const text: string = 'Starter is $99.'.slice(start, end)
const batch: CheckBatch = policy.checkCases([{ id: 'a', reply: 'x' }, { reply: 'y', record: { subject: 'order-1' } }])
const id: string | undefined = batch.results[0]?.id
const wire: CheckResponse = check({ policy: doc, reply: 'x' })
const kind: 'check' | 'check_batch' = wire.object
const fromText: CheckResponse = check('{"policy":{},"reply":"x"}')
const v: string = version()

async function later(): Promise<boolean> {
  const a: Check = await policy.checkAsync('x')
  const b: CheckBatch = await policy.checkCasesAsync([{ reply: 'x' }])
  const c: CheckResponse = await checkAsync({ policy: doc, cases: [{ reply: 'x' }] })
  return a.pass && b.pass && c.pass
}

const verifyOptions: VerifyOptions = { keys: { keys: [] }, allowTest: true, mode: 'fresh', now: '2026-11-01T00:00:00Z' }
const verifier: Verifier = createVerifier(verifyOptions)
const verifierFromText: Verifier = createVerifier('{"keys":{"keys":[]}}')
async function verified(bundle: ProofBundle): Promise<boolean> {
  const a: Verification = await verifier.verify(bundle)
  const b: Verification = await verifierFromText.verify('{"object":"curbi.proof/0.1"}')
  const c: Verification = await verifyBundle({ ...verifyOptions, bundle })
  return a.ok && b.ok && c.reason === 'verifies'
}

const lint: boolean = validatePolicy(doc).valid
const exported = exportRegression({ policy: doc, reply: 'Starter is $99.', title: 'smoke' })
const holds: boolean = replayRegression(exported.regression).pass
const decision: 'ALLOW' | 'DENY' | 'STEP_UP' = verifyCheckout('{"mandate":{},"checkout":{},"now":"x"}').decision
const granted: false = verifyAction({ grant: {}, action: {}, now: 'x' }).authorizationGranted
const digest: string = checkoutDigest('{"id":"cs_1"}')
void [lint, holds, decision, granted, digest]

try {
  compilePolicy({ prices: [{ item: '' }] })
} catch (e) {
  const err = e as CurbiError
  const code: ErrorCode = err.code
  const path: string = err.path
  const message: string = err.message
  void [code, path, message]
}

// @ts-expect-error: `amount` is a number
compilePolicy({ prices: [{ item: 'A', amount: '49' }] })
// @ts-expect-error: options have only record, version and verify
policy.check('x', { strict: true })
// @ts-expect-error: verify is 'optional' or 'required'
policy.check('x', { verify: 'always' })
// Receipt keys are the second argument of compilePolicy and of check, never part of the request.
const withKeys = compilePolicy({ actions: { refunded: 'billing.refund' } }, { keys: { keys: [] }, allowTest: true })
void withKeys.check('x', { verify: 'required', record: { receipts: [] } })
// @ts-expect-error: allowTest is a boolean
compilePolicy({}, { keys: { keys: [] }, allowTest: 'yes' })
// @ts-expect-error: not a checker version
policy.check('x', { version: '2020-01-01' })
// @ts-expect-error: a fact's kind is time, date or money
policy.check('x', { record: { facts: [{ near: 'a', kind: 'weight', value: 1 }] } })
// @ts-expect-error: cases is an array of cases
policy.checkCases(['x'])
// @ts-expect-error: a regression's format version is not a checker version
exportRegression({ policy: doc, reply: 'x', version: '2026-10-27' })
// @ts-expect-error: the reply is a string
policy.check(42)
// @ts-expect-error: the options need the caller's keys
createVerifier({ allowTest: true })
// @ts-expect-error: the bundle is its own argument to verify, not an option
createVerifier({ keys: { keys: [] }, bundle: {} })
// @ts-expect-error: not a mode
createVerifier({ keys: { keys: [] }, mode: 'strict' })
// @ts-expect-error: a bundle is an object or JSON text
verifier.verify(42)

const recorderConfig: RecorderConfig = { path: 'refunds.db', origin: 'curbi-checkpoint-v1.shop.example', key_file: 'k.jwk' }
async function recorded(): Promise<number> {
  const r: Recorder = await Recorder.open(recorderConfig)
  const fromText: Recorder = await Recorder.open('{"path":"refunds.db","origin":"curbi-checkpoint-v1.x"}')
  const used: number = (await r.grant({ id: 'g', agent: 'a', operations: ['o'], resources: ['*'], expires_at: 'x' })).used
  const action = { agent: 'a', operation: 'o', resource: 'r', amount: 100, currency: 'USD' }
  const a: Attested = await r.attest({ tenant: 't', idempotency_key: 'k', grant: 'g', action })
  const s: Settled = await r.confirm({ tenant: 't', idempotency_key: 'k', outcome: 'DONE', evidence: '{}' })
  const h: Head = await r.checkpoint()
  const bundle: ProofBundle = await r.bundle({ receipts: [s.seq ?? 0], known: [h.note] })
  const keys = await r.keys()
  const result: Verification = await verifyBundle({ bundle, keys })
  const text: string = await fromText.call('status', {})
  void [a.attestation, result, text, (await r.held()).more, (await r.status()).head?.size]
  // @ts-expect-error: not an outcome
  await r.confirm({ tenant: 't', idempotency_key: 'k', outcome: 'MAYBE' })
  // @ts-expect-error: not a recorder method
  await r.call('delete', {})
  const closing: Promise<void> = r.close()
  const closed: boolean = r.closed
  void [closing, closed]
  // @ts-expect-error: read-only
  r.closed = false
  return used
}

void [first, text, id, kind, fromText, v, later, pinned, again, verified, recorded]
