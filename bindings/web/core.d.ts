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

/** Verifies a bundle offline against the keys you trust, with every option of the native verifier. */
export declare function verifyBundle(bundle: ProofBundle | string, options: VerifyOptions | string): Promise<Verification>
/** `verifyBundle` with one request document `{bundle, keys, ...}` (the MCP tool's arguments). */
export declare function verifyRequest(request: VerifyBundleRequest | string): Promise<Verification>
/** A verifier with keys and options read once. */
export declare class Verifier {
  private constructor()
  verify(bundle: ProofBundle | string): Promise<Verification>
  free(): void
}
export declare function createVerifier(options: VerifyOptions | string): Verifier
