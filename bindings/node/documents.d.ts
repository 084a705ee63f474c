// The documents the addon reads and writes (docs/CHECK_API.md and the documents it links), one source for this
// package's index.d.ts (which imports them through dts-header.d.ts) and for @curbi/web's types (bindings/web
// scripts/build.sh copies all but the recorder's). The addon enforces every limit.
import type { ErrorCode } from './index'

/** Checker versions: `2026-12-04` is current; `2026-12-03`, `2026-12-01`, `2026-11-01` and `2026-10-27` are kept for pinned requests. */
export type CheckerVersion = '2026-10-27' | '2026-11-01' | '2026-12-01' | '2026-12-03' | '2026-12-04'

/**
 * What every function throws (or rejects with) on bad input: an `Error` with the same `code`, `message` and `path`
 * as the Check API's error document. `path` is a JSON pointer into the document passed in (`''` is all of it).
 * Exported, so `e instanceof CurbiError` tells Curbi's errors apart.
 */
export declare class CurbiError extends Error {
  constructor(message: string, code: ErrorCode, path: string)
  code: ErrorCode
  path: string
}

/** An approved price. Use `amount` or `amounts`, not both. USD. */
export interface PriceItem {
  item: string
  amount?: number
  amounts?: number[]
  aliases?: string[]
}

/** Phrases the agent must not say; findings are reported as `forbid:<id>`. */
export interface ForbidRule {
  id: string
  phrases: string[]
  why?: string
  /** Default true: a negated mention ("we do not guarantee") passes. */
  negatable?: boolean
  /** Default "word": whole words plus English endings; "prefix": words that start with the phrase. */
  match?: 'word' | 'prefix'
}

/** An approved discount; `items` omitted means every item. */
export interface Discount {
  percent: number
  items?: string[]
}

/** A policy: the Check API's `policy` member. Set at least one of prices, forbid or actions. */
export interface PolicyDocument {
  name?: string
  description?: string
  prices?: PriceItem[]
  forbid?: ForbidRule[]
  /** Past-tense verb to operation, e.g. `{ refunded: 'billing.refund' }`. */
  actions?: { [verb: string]: string }
  discounts?: Discount[]
  unknownAmounts?: 'flag' | 'allow'
}

/** An action on record: it counts only when `status` is "DONE". */
export interface Effect {
  operation?: string
  status?: string
}

/** A value the reply must state correctly near the words `near`. */
export interface Fact {
  near: string
  kind: 'time' | 'date' | 'money'
  value: string | number
}

/** What happened, supplied by the caller and not verified; `receipts` (compact Curbi-signed receipts) are verified
 * when the policy was compiled with receipt keys. */
export interface CheckRecord {
  subject?: string
  effects?: Effect[]
  facts?: Fact[]
  receipts?: string[]
}

/** The receipt keys a policy trusts (docs/CHECKER.md §Receipts): configuration, never part of a request. */
export interface ReceiptKeys {
  /** JWKS of OKP/Ed25519 keys (the recorder's `keys()` answer, or your pinned copy of it). */
  keys: object
  /** Let keys tagged `curbi:test` count. */
  allowTest?: boolean
  /** RFC 3339: a fixed clock for expiry (tests, replays); the system clock when absent. */
  now?: string
}

/** Options for checks with a compiled policy. `verify: 'required'` counts claimed actions only through signed
 * receipts; it needs a policy compiled with receipt keys. */
export interface CheckOptions {
  record?: CheckRecord
  version?: CheckerVersion
  verify?: 'optional' | 'required'
}

/** One case of a batch; its own `record` replaces the shared one. */
export interface CheckCase {
  id?: string
  reply: string
  record?: CheckRecord
}

/** A whole Check API request: `reply` or up to 50 `cases`, not both. */
export interface CheckRequest {
  version?: CheckerVersion
  policy: PolicyDocument
  reply?: string
  cases?: CheckCase[]
  record?: CheckRecord
  verify?: 'optional' | 'required'
}

/** One finding: the rule that fired, where, the text there, and why. */
export interface Finding {
  /**
   * `price:mismatch`, `price:currency`, `price:unknown`, `discount:unapproved`, `forbid:<id>`,
   * `action:unrecorded` or `fact:mismatch`.
   */
  rule: string
  /** `[start, end)` in UTF-16 code units of the reply (JavaScript string indices): `reply.slice(...span) === text`. */
  span: [number, number]
  /** The reply's text at `span`. */
  text: string
  /** Names the approved value, e.g. "Starter is $49, not $99.". */
  why: string
}

/** What a result does and does not prove. A pass means no configured rule fired; no result grants authority. */
export interface ProofScope {
  scope: 'operation_and_subject_only'
  factsAuthenticated: false
  replayProtection: 'within_request_only'
  authorizationGranted: false
}

/** The result of checking one reply (the Check API's response to `reply`). */
export interface Check {
  object: 'check'
  /** The checker version that judged the reply. */
  version: CheckerVersion
  /** `caller_supplied_unverified`: effects count as the caller states them; `receipts_verified` (verify
   * 'required' with receipt keys): claimed actions counted only through verified signed receipts. */
  recordTrust: 'caller_supplied_unverified' | 'receipts_verified'
  /** True when no configured rule fired. */
  pass: boolean
  /** Sorted by span start, then rule. */
  findings: Finding[]
  proof: ProofScope
}

/** One case's result in a batch. */
export interface CaseResult {
  /** The case's position in `cases`. */
  index: number
  /** The case's `id`, when it had one. */
  id?: string
  pass: boolean
  findings: Finding[]
}

/** The result of checking `cases` (the Check API's response to `cases`): one result per case, in order. */
export interface CheckBatch {
  object: 'check_batch'
  version: CheckerVersion
  /** `caller_supplied_unverified`: effects count as the caller states them; `receipts_verified` (verify
   * 'required' with receipt keys): claimed actions counted only through verified signed receipts. */
  recordTrust: 'caller_supplied_unverified' | 'receipts_verified'
  /** True when every case passes. */
  pass: boolean
  results: CaseResult[]
  proof: ProofScope
}

/** The Check API's response: `Check` for `reply`, `CheckBatch` for `cases`. */
export type CheckResponse = Check | CheckBatch

/** One lint error or warning: a stable code, a message for people, a JSON pointer into the policy. */
export interface LintIssue {
  code: string
  message: string
  path: string
}

/** `validatePolicy`'s answer (docs/LINT.md). Lint is not completeness: a valid policy can still miss things. */
export interface LintReport {
  valid: boolean
  errors: LintIssue[]
  /** Codes of vectors/warnings.json: `no_rules`, `rule_never_fires`, `duplicate_phrase`, … */
  warnings: LintIssue[]
}

/** `exportRegression`'s request: a check request with an optional title; `version` is the format version. */
export interface ExportRequest extends Omit<CheckRequest, 'version' | 'verify'> {
  title?: string
  version?: '2026-11-01'
  verify?: 'optional'
}

/** A finding as a regression expects it: rule, span (UTF-16 code units) and text; `why` is not part of it. */
export interface ExpectedFinding {
  rule: string
  span: [number, number]
  text: string
}

/** A `curbi.regression` document (docs/REGRESSION.md): expectations from the checker, pinned to its version. */
export interface Regression {
  object: 'curbi.regression'
  version: '2026-11-01'
  title: string
  checker: CheckerVersion
  note?: string
  policy: PolicyDocument
  cases: Array<{
    id?: string
    reply: string
    record?: CheckRecord
    expected: { pass: boolean; rules: string[]; findings: ExpectedFinding[] }
  }>
}

/** `exportRegression`'s answer: the document and the text of its two replay test files. */
export interface RegressionExport {
  regression: Regression
  /** `regression.test.mjs`: replays `regression.json` against a Check API (`CURBI_CHECK_URL`). */
  nodeTest: string
  /** `test_regression.py`: replays `regression.json` through the Python package. */
  pytest: string
}

/** `replayRegression`'s answer: which cases still hold under the pinned checker, and how the others differ. */
export interface ReplayReport {
  object: 'curbi.replay'
  title: string
  checker: CheckerVersion
  pass: boolean
  total: number
  failed: number
  cases: Array<{
    index: number
    id?: string
    ok: boolean
    diff?: {
      pass?: { expected: boolean; got: boolean }
      rules?: { expected: string[]; got: string[] }
      missing: ExpectedFinding[]
      unexpected: ExpectedFinding[]
    }
  }>
}

/** One reason of a purchase or action decision (docs/PURCHASE.md; codes in vectors/purchase/reasons.json). */
export interface DecisionReason {
  code: string
  effect: 'DENY' | 'STEP_UP'
  /** JSON pointer into the request: `/mandate/...`, `/checkout/...`, `/ledger/...`, `/grant/...`, `/action/...`, `/now`. */
  path: string
  expected: string
  actual: string
  message: string
}

/** ALLOW / DENY / STEP_UP with every reason. A decision grants no authority: the host enforces it. */
export interface Decision {
  object: 'purchase_check' | 'action_check'
  decision: 'ALLOW' | 'DENY' | 'STEP_UP'
  reasons: DecisionReason[]
  /** Only on STEP_UP: what to show the user before asking again. */
  stepUp?: { kind: 'confirm_purchase' | 'confirm_action'; summary: string }
  authorizationGranted: false
}

/** A Proof of Action bundle (docs/PROOF.md §Bundle): one JSON object, `{object: 'curbi.proof/0.1', head, receipts,
 * consistency?, keys?}`. */
export type ProofBundle = object

/** What a verification trusts and how strictly it judges (docs/PROOF.md): a `verify_bundle` request without
 * `bundle`, for `createVerifier`. Keys inside the bundle are ignored unless `trustBundleKeys`; test keys verify only
 * with `allowTest`. */
export interface VerifyOptions {
  /** Caller-pinned JWKS of OKP/Ed25519 keys. */
  keys: object
  allowTest?: boolean
  mode?: 'archival' | 'fresh'
  /** RFC 3339; required in `fresh` mode. */
  now?: string
  /** Heads seen before (note text), to prove the log append-only. */
  known?: string[]
  trustBundleKeys?: boolean
  /** Pinned witness keys (C2SP vkeys, cosignature/v1); `required` defaults to all of them. */
  witnesses?: { keys: string[]; required?: number }
}

/** A `verify_bundle` request (docs/PROOF.md): the bundle and the caller's trust anchor and options. */
export interface VerifyBundleRequest extends VerifyOptions {
  bundle: ProofBundle
}

/** The verifier's answer. A verified bundle shows what a trusted key signed and logged, not that the provider action
 * happened, and grants no authority. */
export interface Verification {
  ok: boolean
  reason:
    | 'verifies' | 'no_trusted_keys' | 'bad_signature' | 'not_in_log' | 'attestation_not_bound' | 'duplicate'
    | 'conflicting_receipt' | 'fork_detected' | 'history_unproven' | 'checkpoint_unknown_key' | 'expired'
    | 'checkpoint_key_not_valid_at_issue' | 'malformed' | 'gate_not_pinned' | 'decision_mismatch'
  message?: string
  path?: string
  items: Array<{ ok: boolean; reason: string; [k: string]: unknown }>
  head?: unknown
  evidence?: unknown
  [k: string]: unknown
}

/** How to open a `Recorder` (docs/RECORDER.md). Give `key_file` or `key_env` (`CURBI_RECORDER_KEY` when neither). */
export interface RecorderConfig {
  /** The SQLite database file, created when missing. */
  path: string
  /** The log origin, `curbi-checkpoint-v1.<name>`: fixed when the database is created. */
  origin: string
  /** A private Ed25519 JWK in a file only its owner may read (mode 0600). */
  key_file?: string
  /** The name of an environment variable holding the same text. */
  key_env?: string
  /** Make a new key the log's active one (its window starts now; the old key's closes). */
  rotate?: boolean
  /** A fixed clock at this Unix time, for tests (`setClock` moves it); the system clock when absent. */
  now?: number
  /** Seconds an attestation permits its mutation (default 300). */
  attestation_ttl?: number
  /** Seconds a receipt stays fresh (default 30 days). */
  receipt_ttl?: number
  /**
   * Most seconds a write may be dated past the last time the log used (default 7 days); beyond it the write is
   * refused with `clock_ahead` and nothing is signed (docs/RECORDER.md §Time).
   */
  max_clock_ahead?: number
  /** Witnesses `checkpoint` asks to cosign each head (C2SP tlog-witness; plain http:// URL prefixes). */
  witnesses?: Array<{ key: string; url: string }>
  /** How long one witness request may take, in milliseconds (default 5000). */
  witness_timeout_ms?: number
  /** A directory `checkpoint` publishes the log into as C2SP tlog-tiles after each head. */
  publish?: string
}

/** The recorder's calls, for `Recorder.call`. */
export type RecorderMethod =
  | 'grant' | 'mandate' | 'attest' | 'confirm' | 'reconcile' | 'held' | 'checkpoint' | 'cosign' | 'publish' | 'bundle'
  | 'receipt' | 'keys' | 'status' | 'set_clock'

/** A grant as the recorder registers it: the action check's grant (docs/PURCHASE.md) with an `id` and without `used`
 * (the recorder counts uses itself). */
export interface RecorderGrant {
  id: string
  agent: string
  operations: string[]
  resources: string[]
  limits?: { max_amount?: number; confirmation_threshold?: number; currency?: string; max_count?: number }
  not_before?: string
  expires_at: string
  revoked?: boolean
  other_constraints?: object[]
}

/** A registered grant and the uses the recorder counted. */
export interface GrantInfo {
  id: string
  used: number
}

/** A mutation to attest before it is made, under an idempotency key of its tenant. */
export interface AttestRequest {
  tenant: string
  idempotency_key: string
  grant: string
  action: { agent: string; operation: string; resource: string; amount?: number; currency?: string }
  /** The user confirmed the step-up an earlier attest asked for; a DENY still refuses. */
  step_up_confirmed?: boolean
  /** The conversation the agent acts in: its receipts come back from `receipts({ conversation })`. */
  conversation?: string
}

/** A purchase to attest under a mandate: the purchase check on `checkout` with the recorder's own ledger; an ALLOW
 * attests `checkout.complete` on `checkout:<id>` for the checkout's total and reserves it. */
export interface PurchaseAttestRequest {
  tenant: string
  idempotency_key: string
  mandate: string
  agent: string
  checkout: object
  step_up_confirmed?: boolean
  /** The conversation the agent acts in: its receipts come back from `receipts({ conversation })`. */
  conversation?: string
}

/** `attest`'s answer: only ALLOW (or a confirmed STEP_UP) carries an attestation. */
export interface Attested {
  decision: 'ALLOW' | 'STEP_UP' | 'DENY'
  attestation?: string
  /** The action check's whole decision. */
  check: Decision
}

/** What the provider said: `DONE` / `FAILED` with its answer, the exact text, as `evidence`; `UNKNOWN` (confirm
 * only) holds the action; `NOT_PERFORMED` (reconcile only) releases it without a receipt. */
export interface OutcomeRequest {
  tenant: string
  idempotency_key: string
  outcome: 'DONE' | 'FAILED' | 'UNKNOWN' | 'NOT_PERFORMED'
  evidence?: string
}

/** Where an action stands: `DONE` / `FAILED` with its receipt in the log at `seq`, `HELD`, or `RELEASED`. */
export interface Settled {
  status: 'DONE' | 'FAILED' | 'HELD' | 'RELEASED'
  seq?: number
  receipt?: string
}

/** The actions not yet settled, oldest first; `more` when the list was cut at `limit`. */
export interface HeldActions {
  actions: Array<{
    tenant: string
    idempotency_key: string
    state: 'attested' | 'held'
    grant: string
    attestation: string
    since: number
  }>
  more: boolean
}

/** A signed head: the log's size and its checkpoint note; with witnesses or `publish` configured, their answers. */
export interface Head {
  size: number
  note: string
  witnesses?: WitnessAnswer[]
  published?: Published
}

/** One witness's answer to a cosigning request. */
export interface WitnessAnswer {
  name: string
  status: 'cosigned' | 'failed'
  error?: string
}

/** The latest head with every cosignature collected, and each witness's answer. */
export interface Cosigned {
  size: number
  note: string
  witnesses: WitnessAnswer[]
}

/** The log published as C2SP tlog-tiles: up to `size` (from `previous`), `files` written, the checkpoint served. */
export interface Published {
  size: number
  previous: number
  files: number
  checkpoint: string
}

/** Which receipts a bundle carries (by sequence number or by action), under which head, with consistency proofs from
 * the heads the customer already holds. */
export interface BundleRequest {
  receipts?: number[]
  actions?: Array<{ tenant: string; idempotency_key: string }>
  head?: string
  known?: string[]
  /** Carry each receipt's attestation (default true). */
  attestations?: boolean
}

/** A receipt as stored, with the attestation it completes and the provider's answer. */
export interface StoredReceipt {
  seq: number
  tenant: string
  idempotency_key: string
  status: 'DONE' | 'FAILED'
  receipt: string
  attestation: string
  evidence: string
  created: number
}

/** The log's keys as a JWKS, each with its window (`curbi:nbf`, `curbi:exp`): give it to verifiers as `keys`. */
export interface RecorderKeys {
  keys: Array<{ kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; 'curbi:nbf'?: number; 'curbi:exp'?: number }>
}

/** The log's origin, active kid, note verifier key (for witnesses and tlog clients), size and latest head. */
export interface RecorderStatus {
  origin: string
  kid: string
  vkey: string
  size: number
  head: Head | null
  /** The size of the final head once the log is sealed, else null (docs/RECORDER.md §Sealing a log). */
  sealed: number | null
}
