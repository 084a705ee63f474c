// @curbi/web without top-level await: call `await init()` (or `init(source)`) once, then use the API. `index.js` is
// this module with `await init()` done on import. Everything here only marshals: documents become JSON text, core's
// JSON entry points (compiled to WebAssembly from the same Rust as every other surface) judge them, and their JSON
// answers become plain objects. A core error becomes a `CurbiError` with the core's `code`, `message` and `path`.
import * as wasm from './pkg/wasm/curbi_wasm.js'

/** Every error this package throws or rejects with: the core's stable `code` and the JSON pointer `path`. */
export class CurbiError extends Error {
  constructor(message, code, path) {
    super(message)
    this.name = 'CurbiError'
    this.code = code
    this.path = path
  }
}

let ready = null
let loaded = false

/**
 * Loads the WebAssembly module once. `source` may be a `WebAssembly.Module`, the module's bytes, a `Response` (or a
 * Promise of one), or a URL; by default the `.wasm` file beside this module: read with `node:fs` from a `file:` URL
 * (Node, Deno, Bun) and fetched otherwise (browsers, Web Workers).
 */
export function init(source) {
  ready ??= compile(source ?? new URL('./pkg/wasm/curbi_wasm_bg.wasm', import.meta.url)).then((module) => {
    wasm.initSync({ module })
    loaded = true
  })
  return ready
}

async function compile(source) {
  if (source instanceof WebAssembly.Module) return source
  if (typeof source === 'string' || source instanceof URL) {
    const url = new URL(source, import.meta.url)
    if (url.protocol === 'file:') {
      const { readFile } = await import('node:fs/promises')
      return WebAssembly.compile(await readFile(url))
    }
    source = fetch(url)
  }
  const response = await source
  if (typeof Response !== 'undefined' && response instanceof Response) {
    if (!response.ok) throw new Error(`@curbi/web: cannot load the WebAssembly module: HTTP ${response.status}`)
    return WebAssembly.compile(await response.arrayBuffer())
  }
  return WebAssembly.compile(response)
}

/** Whether `init` has finished. */
export function isReady() {
  return loaded
}

/** Calls an export, turning its thrown error document into a `CurbiError`. */
function call(f, ...args) {
  if (!loaded) throw new Error('@curbi/web: call `await init()` first (or import "@curbi/web", which does)')
  try {
    return f(...args)
  } catch (e) {
    if (typeof e === 'string' && e.startsWith('{"error":')) {
      const { error } = JSON.parse(e)
      throw new CurbiError(error.message, error.code, error.path)
    }
    if (e instanceof WebAssembly.RuntimeError) {
      throw new CurbiError(`internal error: the checker trapped (a bug; please report it): ${e.message}`, 'internal', '')
    }
    throw e
  }
}

const parsed = (f, ...args) => JSON.parse(call(f, ...args))

function typeName(v) {
  return v === null ? 'null' : Array.isArray(v) ? 'object' : typeof v
}

/**
 * A document argument as JSON text: a string is JSON text as it is (read by the core's strict reader, so a repeated
 * member is refused, not collapsed); any other value goes through `JSON.stringify`, as when it is sent over HTTP.
 */
function documentText(value, what) {
  if (typeof value === 'string') return value
  if (value === undefined) throw new CurbiError(`${what} is missing (undefined)`, 'invalid_type', '')
  let text
  try {
    text = JSON.stringify(value)
  } catch (e) {
    throw new CurbiError(`the value cannot be written as JSON: ${e.message}`, 'invalid_json', '')
  }
  if (text === undefined) {
    throw new CurbiError('the value has no JSON form (JSON.stringify gave undefined)', 'invalid_json', '')
  }
  return text
}

/** Optional options: `undefined` or `null` for none (empty text, which the core reads as no options). */
function optionsText(value) {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string' || typeof value === 'object') return documentText(value, 'options')
  throw new CurbiError(`options must be an object, got ${typeName(value)}`, 'invalid_type', '')
}

function replyText(value) {
  if (typeof value === 'string') return value
  throw new CurbiError(`reply must be a string, got ${typeName(value)}`, 'invalid_type', '/reply')
}

function casesText(value) {
  if (typeof value !== 'string' && !Array.isArray(value)) {
    throw new CurbiError('cases must be an array', 'invalid_type', '/cases')
  }
  return documentText(value, 'cases')
}

/** The library version, e.g. "0.1.0". */
export function version() {
  return call(wasm.version)
}

/** Receipt keys `{keys, allowTest?, now?}` (configuration, never part of a request): `undefined`/`null` for none. */
function receiptsText(value) {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string' || typeof value === 'object') return documentText(value, 'receipts')
  throw new CurbiError(`receipts must be an object, got ${typeName(value)}`, 'invalid_type', '')
}

/** The whole Check API: `{policy, reply | cases, record?, version?, verify?}` in, the response document out (UTF-16
 * spans). `receipts` are the receipt keys the record's receipts are verified with (docs/CHECKER.md §Receipts). */
export const check = (request, receipts) =>
  parsed(wasm.check, documentText(request, 'request'), receiptsText(receipts))

/** A compiled policy: check any number of replies with it. `reply.slice(...finding.span) === finding.text`. */
export class Policy {
  #inner
  constructor(inner) {
    this.#inner = inner
  }
  /** Checks one reply; `options` is `{record?, version?, verify?}`. */
  check(reply, options) {
    return parsed((r, o) => this.#inner.check(r, o), replyText(reply), optionsText(options))
  }
  /** Checks up to 50 cases `{id?, reply, record?}`, one result per case in order. */
  checkCases(cases, options) {
    return parsed((c, o) => this.#inner.checkCases(c, o), casesText(cases), optionsText(options))
  }
  /** Frees the compiled policy now rather than when it is garbage collected. */
  free() {
    this.#inner.free()
  }
}

/** Validates and compiles a policy; a `CurbiError` with a path into the policy (`/prices/0/item`) when it is bad.
 * With `receipts` (receipt keys `{keys, allowTest?, now?}`; without `now`, the host's `Date.now()`), claimed actions
 * are checked against the record's signed receipts. */
export function compilePolicy(policy, receipts) {
  return new Policy(call(wasm.compilePolicy, documentText(policy, 'policy'), receiptsText(receipts)))
}

/** A one-document call: `what` names the argument in errors. */
const single = (f, what) => (document) => parsed(f, documentText(document, what))

/** Lints a policy (docs/LINT.md): `{valid, errors, warnings}`. Only text that is not JSON throws. */
export const validatePolicy = single(wasm.validatePolicy, 'policy')
/** Exports a check request as a CI regression (docs/REGRESSION.md). */
export const exportRegression = single(wasm.exportRegression, 'request')
/** Replays a `curbi.regression` document: the `curbi.replay` report. */
export const replayRegression = single(wasm.replayRegression, 'regression')
/** Decides a purchase (docs/PURCHASE.md): `{mandate, checkout, ledger?, now}` in, ALLOW / DENY / STEP_UP out. */
export const verifyCheckout = single(wasm.verifyCheckout, 'request')
/** Decides an action against a grant (docs/PURCHASE.md): `{grant, action, now}` in, the decision out. */
export const verifyAction = single(wasm.verifyAction, 'request')
/** The `checkout_digest` a mandate pins for a checkout (docs/PURCHASE.md §Binding). */
export const checkoutDigest = single(wasm.checkoutDigest, 'checkout')

/** Converts a YAML document (a string; docs/YAML.md) to the compact JSON text it stands for, to pass wherever a JSON
 * document goes: `compilePolicy(yamlToJson(text))`. Numbers keep their digits; what the strict reader refuses throws
 * a `CurbiError` with its code and path. */
export function yamlToJson(yaml) {
  if (typeof yaml !== 'string') throw new CurbiError(`yaml must be a string, got ${typeName(yaml)}`, 'invalid_type', '')
  return call(wasm.yamlToJson, yaml)
}

/**
 * Verifies a Proof of Action bundle offline (docs/PROOF.md) against `options` = `{keys, allowTest?, mode?, now?,
 * known?, trustBundleKeys?, witnesses?}`, every option of the native verifier. Resolves with `{ok, reason, items,
 * head, evidence, ...}`; a rejected or malformed bundle resolves with `ok: false`, only text that is not JSON rejects.
 * It runs on the calling thread: verify large bundles in a Worker (`@curbi/web/worker.js`).
 */
export async function verifyBundle(bundle, options) {
  return parsed(wasm.verifyBundleParts, documentText(bundle, 'bundle'), options == null ? '{}' : documentText(options, 'options'))
}

/** `verifyBundle` with one request document `{bundle, keys, ...}`, as the MCP tool and Node's `verifyBundle` take. */
export async function verifyRequest(request) {
  return parsed(wasm.verifyRequest, documentText(request, 'request'))
}

/** A verifier with the caller's keys and options read once. */
export class Verifier {
  #inner
  constructor(inner) {
    this.#inner = inner
  }
  /** Verifies one bundle exactly as `verifyBundle(bundle, options)` would. */
  async verify(bundle) {
    return parsed((b) => this.#inner.verify(b), documentText(bundle, 'bundle'))
  }
  free() {
    this.#inner.free()
  }
}

/** Reads verification options once; options that cannot be used throw a `CurbiError` (`/keys/keys/0/x`). */
export function createVerifier(options) {
  return new Verifier(call(wasm.createVerifier, documentText(options, 'options')))
}

/**
 * A browser gate (docs/PROOF.md §Browser gate proofs): decides proposed actions in the page with the action check
 * and proves each decision, signed with its test key and logged in its small in-memory log.
 */
export class BrowserGate {
  #inner
  constructor(inner) {
    this.#inner = inner
  }
  /**
   * Decides `proposal` (`{action, now}`) against `policy` (an action-check grant without `used` and `revoked`) and
   * `registry` (`{used?, revoked?}`), signs the result at `now`, logs it, signs the new head, and returns
   * `{proof, trust, decision}`: the `curbi.browser.gate-proof.v1` wrapper, the `curbi.browser.gate-trust.v1` document
   * a verifier pins for it, and the action check's decision.
   */
  prove(request) {
    return parsed((r) => this.#inner.prove(r), documentText(request, 'request'))
  }
  /** The gate's identity: the JWKS of its test key (`curbi:test`). */
  identity() {
    return JSON.parse(call(() => this.#inner.identity()))
  }
  free() {
    this.#inner.free()
  }
}

/** The log a gate made without `log` writes to. */
export const DEFAULT_GATE_LOG = 'curbi-checkpoint-v1.localhost/browser-gate'

/**
 * A gate with a fresh test key: 32 bytes from `crypto.getRandomValues`, wiped once the key is made. `log` is the
 * origin of its log (`curbi-checkpoint-v1.<name>`). Every proof it makes verifies only with `allowTest`.
 */
export function createBrowserGate(options = {}) {
  const seed = new Uint8Array(32)
  globalThis.crypto.getRandomValues(seed)
  try {
    return new BrowserGate(call(wasm.createBrowserGate, seed, options.log ?? DEFAULT_GATE_LOG))
  } finally {
    seed.fill(0)
  }
}
