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
/** The compiled module `init` instantiated: a verifier pool's workers instantiate it again. */
let compiled = null

/**
 * Loads the WebAssembly module once. `source` may be a `WebAssembly.Module`, the module's bytes, a `Response` (or a
 * Promise of one), or a URL; by default the `.wasm` file beside this module: read with `node:fs` from a `file:` URL
 * (Node, Deno, Bun) and fetched otherwise (browsers, Web Workers).
 */
export function init(source) {
  ready ??= compile(source ?? new URL('./pkg/wasm/curbi_wasm_bg.wasm', import.meta.url)).then((module) => {
    wasm.initSync({ module })
    compiled = module
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
    throw thrown(e, e instanceof WebAssembly.RuntimeError)
  }
}

/** What an export threw (`trap`: a WebAssembly trap), as the error to throw: a core error document becomes a
 * `CurbiError`. */
function thrown(e, trap) {
  if (typeof e === 'string' && e.startsWith('{"error":')) {
    const { error } = JSON.parse(e)
    return new CurbiError(error.message, error.code, error.path)
  }
  if (trap) {
    return new CurbiError(`internal error: the checker trapped (a bug; please report it): ${e.message ?? e}`, 'internal', '')
  }
  return e instanceof Error ? e : new Error(String(e))
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

/** The workers a pool starts by default: the host's logical processors (`navigator.hardwareConcurrency`, or
 * Node's `os.availableParallelism()`), from 1 to 16. */
async function defaultWorkers() {
  let n = globalThis.navigator?.hardwareConcurrency
  if (!Number.isInteger(n) && globalThis.process?.versions?.node) {
    n = (await import('node:os')).availableParallelism()
  }
  return Math.min(Math.max(Number.isInteger(n) ? n : 1, 1), 16)
}

/**
 * One worker as a message port: a module Web Worker where the host has `Worker` (browsers, Deno, Bun), a Node
 * `worker_threads` worker otherwise; `null` where neither can start (a Content-Security-Policy without
 * `worker-src`, a host without workers).
 */
/**
 * `subscribe(onMessage, onFailure)` is called at once, as the worker starts; the returned `listen(f, fail)` gets
 * everything from then on, what came before it first. Hosts may deliver a worker's first message (its hello)
 * before the awaits that lead to `listen` have run — Deno does, from a promise — and an event nobody listens to is
 * lost: the pool then waited for that hello forever.
 */
function listenFromStart(subscribe) {
  const early = []
  let onMessage = (m) => early.push([true, m])
  let onFailure = (e) => early.push([false, e])
  subscribe((m) => onMessage(m), (e) => onFailure(e))
  return (f, fail) => {
    onMessage = f
    onFailure = fail
    for (const [message, x] of early.splice(0)) (message ? f : fail)(x)
  }
}

async function startWorker() {
  const url = new URL('./pool-worker.js', import.meta.url)
  if (typeof Worker === 'function') {
    const w = new Worker(url, { type: 'module' })
    const listen = listenFromStart((f, fail) => {
      w.addEventListener('message', (e) => f(e.data))
      w.addEventListener('error', (e) => { e.preventDefault?.(); fail(e.error ?? new Error(e.message || 'the worker failed')) })
    })
    return {
      post: (m, transfer) => w.postMessage(m, transfer),
      listen,
      hold: () => {},
      release: () => {},
      terminate: () => w.terminate(),
    }
  }
  if (!globalThis.process?.versions?.node) return null
  const { Worker: NodeWorker } = await import('node:worker_threads')
  const w = new NodeWorker(url)
  w.unref()
  const listen = listenFromStart((f, fail) => {
    w.on('message', f)
    w.on('error', fail)
  })
  return {
    post: (m, transfer) => w.postMessage(m, transfer),
    listen,
    // An idle pool does not keep Node running; one with a verification under way does.
    hold: () => w.ref(),
    release: () => w.unref(),
    terminate: () => w.terminate(),
  }
}

const utf8 = new TextEncoder()

/**
 * `text` as UTF-8 bytes: `encodeInto` a buffer sized for text that is almost all ASCII (a bundle's is), which in
 * Chromium takes half the time `encode` takes on a two-byte string (it encodes, then copies into a new buffer); the
 * view may not fill its buffer. `encode` when the text does not fit.
 */
function utf8Bytes(text) {
  const buffer = new Uint8Array(text.length + (text.length >> 4) + 64)
  const { read, written } = utf8.encodeInto(text, buffer)
  return read === text.length ? buffer.subarray(0, written) : utf8.encode(text)
}

/** A started worker answering requests `{op, ...}` by id. */
class PoolWorker {
  #port
  #next = 0
  #pending = new Map()
  #failed = null
  #hello

  constructor(port) {
    this.#port = port
    let hello
    this.#hello = new Promise((resolve) => { hello = resolve })
    port.listen((m) => {
      if (m.hello) return hello()
      const p = this.#pending.get(m.id)
      this.#pending.delete(m.id)
      if (this.#pending.size === 0) port.release()
      if (m.ok) p?.resolve(m.result)
      else p?.reject(m.error.text !== undefined ? thrown(m.error.text, false) : thrown(new Error(m.error.message), m.error.trap))
    }, (e) => {
      this.#failed = new CurbiError(`a verifier pool's worker failed: ${e?.message ?? e}`, 'internal', '')
      hello()
      for (const p of this.#pending.values()) p.reject(this.#failed)
      this.#pending.clear()
      port.release()
    })
  }

  async request(op, message, transfer) {
    await this.#hello
    if (this.#failed) throw this.#failed
    const id = this.#next++
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      this.#port.hold()
      try {
        this.#port.post({ ...message, id, op }, transfer)
      } catch (e) {
        this.#pending.delete(id)
        if (this.#pending.size === 0) this.#port.release()
        reject(e)
      }
    })
  }

  terminate() {
    this.#port.terminate()
  }
}

/**
 * Verifies bundles on several threads without `SharedArrayBuffer` (no cross-origin isolation needed): each worker
 * instantiates the same compiled module and checks one share of the receipts' own checks (signatures, payloads,
 * inclusion), one of them finishes (head, duplicates, conflicts, history, verdict) with every share. Its answers are
 * `verifyBundle`'s and `verifyRequest`'s, byte for byte. With `workers === 0` (none could start) it verifies on the
 * calling thread.
 */
export class VerifierPool {
  #workers
  #jobs = 0

  constructor(workers) {
    this.#workers = workers
  }

  /** The workers verifying: 0 when none could start, and verifications run on the calling thread. */
  get workers() {
    return this.#workers.length
  }

  /** `verifyBundle(bundle, options)` across the pool's workers. */
  async verifyBundle(bundle, options) {
    const text = documentText(bundle, 'bundle')
    const opts = options == null ? '{}' : documentText(options, 'options')
    if (this.#workers.length === 0) return parsed(wasm.verifyBundleParts, text, opts)
    return this.#verify({ bundle: text, options: opts })
  }

  /** `verifyRequest(request)` across the pool's workers. */
  async verifyRequest(request) {
    const text = documentText(request, 'request')
    if (this.#workers.length === 0) return parsed(wasm.verifyRequest, text)
    return this.#verify({ request: text })
  }

  async #verify(document) {
    const job = this.#jobs++
    const parts = this.#workers.length
    const [finisher] = this.#workers
    // Each worker gets the text as UTF-8 bytes in a buffer of its own, transferred rather than copied: encoded once
    // here, where a posted string is copied to every worker and then encoded again in each to enter the module
    // (a bundle's head carries non-ASCII dashes, so its text is a two-byte string, the slow case for both).
    const bytes = Object.entries(document).map(([name, text]) => [name, utf8Bytes(text)])
    const shares = await Promise.allSettled(
      this.#workers.map((w, part) => {
        const own = bytes.map(([name, b]) => [name, part === parts - 1 ? b : b.slice()])
        const message = { ...Object.fromEntries(own), job, part, parts, keep: part === 0 }
        return w.request('share', message, own.map(([, b]) => b.buffer))
      }),
    )
    const failed = shares.find((s) => s.status === 'rejected')
    if (failed) {
      if (shares[0].status === 'fulfilled') finisher.request('drop', { job }).catch(() => {})
      throw failed.reason
    }
    return JSON.parse(await finisher.request('finish', { job, shares: `[${shares.map((s) => s.value).join(',')}]` }))
  }

  /** Stops the workers; the pool then verifies on the calling thread. */
  close() {
    for (const w of this.#workers) w.terminate()
    this.#workers = []
  }
}

/**
 * A pool of `workers` workers (default: the host's logical processors, up to 16) verifying bundles together; it
 * loads the module first (`init`). Where no worker can start, the pool has `workers === 0` and verifies on the
 * calling thread, so it is correct in every runtime. `close()` it when done (Node exits with an idle pool open).
 */
export async function createVerifierPool(options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new CurbiError(`options must be an object, got ${typeName(options)}`, 'invalid_type', '')
  }
  const n = options.workers ?? (await defaultWorkers())
  if (!Number.isInteger(n) || n < 1 || n > 256) {
    throw new CurbiError(`workers must be a whole number from 1 to 256, got ${n}`, 'out_of_range', '/workers')
  }
  await init()
  const workers = []
  try {
    for (let i = 0; i < n; i++) {
      const port = await startWorker()
      if (port === null) break
      workers.push(new PoolWorker(port))
    }
    // The compiled module is posted where the host can clone it (browsers, Node); otherwise each worker compiles.
    await Promise.all(workers.map((w) => w.request('init', { module: compiled }).catch(() => w.request('init', {}))))
  } catch {
    // No worker (or not every one) could start or load the module: verify on this thread instead.
    for (const w of workers) w.terminate()
    return new VerifierPool([])
  }
  return new VerifierPool(workers)
}
