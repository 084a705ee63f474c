// Types of @curbi/web (core.js; index.js is the same API, loaded on import). The document types are the Node
// package's, generated into pkg/documents.d.ts by scripts/build.sh from bindings/node/dts-header.d.ts.
import type {
  Check, CheckBatch, CheckCase, CheckOptions, CheckRequest, CheckResponse, Decision, ExportRequest, LintReport,
  PolicyDocument, ProofBundle, ReceiptKeys, Regression, RegressionExport, ReplayReport, Verification,
  VerifyBundleRequest, VerifyOptions,
} from './pkg/documents.js'

export * from './pkg/documents.js'

/** Where the WebAssembly module comes from: by default the `.wasm` file beside core.js (fetched, or read with
 * `node:fs` from a `file:` URL). */
export type WasmSource = WebAssembly.Module | BufferSource | Response | Promise<Response> | URL | string

/** Loads the module once; every other call needs it done (index.js does it on import). */
export declare function init(source?: WasmSource): Promise<void>
/** Whether `init` has finished. */
export declare function isReady(): boolean
/** The library version, e.g. "0.1.0". */
export declare function version(): string

/** The whole Check API: the response document, spans in UTF-16 code units. */
export declare function check(request: CheckRequest | string, receipts?: ReceiptKeys | string | null): CheckResponse

/** A compiled policy. `reply.slice(...finding.span) === finding.text` for every finding. */
export declare class Policy {
  private constructor()
  check(reply: string, options?: CheckOptions | string | null): Check
  checkCases(cases: CheckCase[] | string, options?: CheckOptions | string | null): CheckBatch
  /** Frees the compiled policy now rather than when it is garbage collected. */
  free(): void
}
/** Validates and compiles a policy; throws a `CurbiError` whose `path` points into it (`/prices/0/item`). */
export declare function compilePolicy(policy: PolicyDocument | string, receipts?: ReceiptKeys | string | null): Policy
/** Lints a policy (docs/LINT.md); an invalid policy is a report with `valid: false`. */
export declare function validatePolicy(policy: PolicyDocument | string): LintReport
export declare function exportRegression(request: ExportRequest | string): RegressionExport
export declare function replayRegression(regression: Regression | string): ReplayReport
/** Purchase check (docs/PURCHASE.md): `{mandate, checkout, ledger?, now}`. Pass JSON text to keep `100.0` apart
 * from `100`, which JavaScript numbers cannot. */
export declare function verifyCheckout(request: object | string): Decision
/** Action check (docs/PURCHASE.md): `{grant, action, now}`. */
export declare function verifyAction(request: object | string): Decision
export declare function checkoutDigest(checkout: object | string): string
/** A YAML document (docs/YAML.md) as the compact JSON text it stands for: `compilePolicy(yamlToJson(text))`. */
export declare function yamlToJson(yaml: string): string

/** Verifies a bundle offline against the keys you trust, with every option of the native verifier; a gate proof
 * against its trust document (docs/PROOF.md §Browser gate proofs). */
export declare function verifyBundle(bundle: GateProof, options: GateVerifyOptions): Promise<GateVerification>
export declare function verifyBundle(bundle: ProofBundle | string, options: VerifyOptions | string): Promise<Verification>
/** `verifyBundle` with one request document `{bundle, keys, ...}` (the MCP tool's arguments). */
export declare function verifyRequest(request: GateVerifyRequest): Promise<GateVerification>
export declare function verifyRequest(request: VerifyBundleRequest | string): Promise<Verification>
/** A verifier with keys and options read once. */
export declare class Verifier {
  private constructor()
  verify(bundle: ProofBundle | GateProof | string): Promise<Verification>
  free(): void
}
export declare function createVerifier(options: VerifyOptions | GateVerifyOptions | string): Verifier
/** Options of `createVerifierPool`. */
export interface VerifierPoolOptions {
  /** Workers to start, 1 to 256; default the host's logical processors (up to 16). */
  workers?: number
}
/** Workers verifying bundles together, without SharedArrayBuffer (docs/WEB.md §A pool of workers): the answers
 * of `verifyBundle` and `verifyRequest`, byte for byte. */
export declare class VerifierPool {
  private constructor()
  /** The workers verifying; 0 when none could start (it then verifies on the calling thread). */
  readonly workers: number
  verifyBundle(bundle: GateProof, options: GateVerifyOptions): Promise<GateVerification>
  verifyBundle(bundle: ProofBundle | string, options: VerifyOptions | string): Promise<Verification>
  verifyRequest(request: GateVerifyRequest): Promise<GateVerification>
  verifyRequest(request: VerifyBundleRequest | string): Promise<Verification>
  /** Stops the workers (an open pool's idle workers do not keep Node running). */
  close(): void
}
/** Starts a pool (loading the module first, as `init` does). */
export declare function createVerifierPool(options?: VerifierPoolOptions): Promise<VerifierPool>

/** The proposed action a browser gate decides: the action check's `action` at `now` (RFC 3339). */
export interface GateProposal {
  action: { agent: string; operation: string; resource: string; amount?: number; currency?: string; at?: string }
  now: string
}
/** The grant's state as the gate records it. */
export interface GateRegistry {
  used?: number
  revoked?: boolean
}
/** What a gate decides on: the policy is an action-check grant without `used` and `revoked`. */
export interface GateRequest {
  policy: Record<string, unknown>
  registry: GateRegistry
  proposal: GateProposal
}
/** A `curbi.browser.gate-proof.v1` wrapper. */
export interface GateProof {
  object: 'curbi.browser.gate-proof.v1'
  proposal: GateProposal
  policy: Record<string, unknown>
  registry: GateRegistry
  /** `curbi-gate-result-v1.<payload>.<signature>.<kid>`, also the log entry. */
  result: string
  head: string
  index: number
  proof: string[]
  consistency?: Array<{ head: string; proof: string[] }>
}
/** The `curbi.browser.gate-trust.v1` document a verifier pins (as `keys`). */
export interface GateTrust {
  object: 'curbi.browser.gate-trust.v1'
  identity: { keys: Array<Record<string, unknown>> }
  /** SHA-256 hex of the RFC 8785 forms of the policy and the registry. */
  policy: string
  registry: string
  minVersion: string
  log: string
  previous?: string
  /** RFC 3339: the archival instant. */
  at: string
}
export interface GateVerifyOptions {
  keys: GateTrust
  allowTest?: boolean
  mode?: 'archival'
  now?: string
  known?: string[]
}
export interface GateVerifyRequest extends GateVerifyOptions {
  bundle: GateProof
}
/** The signed result's members, once its signature verified. */
export interface GateResult {
  gate: string
  policy: string
  registry: string
  proposal: string
  decision: 'ALLOW' | 'DENY' | 'STEP_UP'
  reasons: string[]
  iat: number
  exp: number
}
/** The bundle verifier's document, with one item (the result). */
export interface GateVerification extends Omit<Verification, 'reason' | 'items'> {
  reason: Verification['reason']
  items: Array<{ ok: boolean; reason: string; message: string; leaf: number; digest: string; kid: string; result?: GateResult }>
}
/** What `BrowserGate.prove` returns. */
export interface GateProved {
  proof: GateProof
  trust: GateTrust
  decision: Decision
}
/** A gate deciding in the page with a test key; its log lives as long as the object. */
export declare class BrowserGate {
  private constructor()
  prove(request: GateRequest | string): GateProved
  identity(): { keys: Array<Record<string, unknown>> }
  free(): void
}
/** The log a gate made without `log` writes to. */
export declare const DEFAULT_GATE_LOG: string
/** A gate with a fresh test key from `crypto.getRandomValues`. */
export declare function createBrowserGate(options?: { log?: string }): BrowserGate
