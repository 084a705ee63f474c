// A Proof of Action bundle verifier written the way a JavaScript engineer would with nothing but WebCrypto
// (crypto.subtle) and Node's built-ins: the peer that DESIGN §8's "≥ 3× faster than a WebCrypto-based JavaScript
// verifier" is measured against (bench/proof_webcrypto/bench.mjs). Formats and rules are docs/PROOF.md's.
//
//   verifyRequest(text, { concurrent })  →  { ok, reason, message, items, head }
//
// `text` is the verify_bundle request as JSON text ({bundle, keys, allowTest?, mode?}), parsed here so JSON parsing
// counts as it does for curbi. Every call imports its keys and checks every signature and proof again: nothing is
// cached between calls. `concurrent: false` awaits each receipt in turn; `true` starts them all at once
// (Promise.all), so Node's threadpool runs the crypto on every core.
//
// What it checks, per docs/PROOF.md: the caller's JWKS (OKP/Ed25519, canonical x, kid or RFC 7638 thumbprint,
// curbi:test only with allowTest, curbi:nbf/exp windows); the head (a Curbi checkpoint note: both log lines, the
// Ed25519 note signature and the cosignature/v1, the key's window at the cosignature time); every receipt (compact
// form, canonical base64url, kid lookup, Ed25519 over domain ‖ payload, payload JSON, key window at iat, the RFC 9162
// inclusion proof from SHA-256(0x00 ‖ receipt) to the head's root); an attached attestation (signature, window,
// binding to the receipt); duplicates and conflicting DONE receipts. What it leaves out is listed in
// docs/PERFORMANCE.md; notably the bundle's `consistency` and `keys` members are allowed but not read (no history checks).
// Options it does not implement (fresh mode, known heads, witnesses, trustBundleKeys) give reason `unsupported`,
// never `ok`.

const { subtle } = globalThis.crypto
const ED25519 = { name: 'Ed25519' }
const utf8 = new TextEncoder()
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

const RECEIPT = 'curbi-receipt-v1.'
const ATTEST = 'curbi-attest-v1.'
const CHECKPOINT = 'curbi-checkpoint-v1.'
const DOMAIN_BYTES = { [RECEIPT]: utf8.encode(RECEIPT), [ATTEST]: utf8.encode(ATTEST) }
const BOUND_FIELDS = ['tenant', 'idempotencyKey', 'agent', 'operation', 'resource', 'amount', 'currency']
const OPTIONS = new Set(['bundle', 'keys', 'allowTest', 'mode', 'now', 'known', 'trustBundleKeys', 'witnesses'])
const BUNDLE_MEMBERS = new Set(['object', 'head', 'receipts', 'consistency', 'keys'])
const ITEM_MEMBERS = new Set(['receipt', 'attestation', 'index', 'proof'])

/** Thrown for input that cannot be read; becomes `{ok: false, reason: 'malformed' | 'unsupported'}`. */
class Refusal extends Error {
  constructor(reason, message) {
    super(message)
    this.reason = reason
  }
}
const malformed = (message) => new Refusal('malformed', message)

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v)

// Base64 through Buffer (Node's native codec; Node 20 has no Uint8Array.fromBase64). Buffer decoding is lenient,
// so canonical form is enforced by alphabet + re-encoding, as the format requires (no padding variants, no
// non-zero trailing bits): a text that decodes must be the only text for its bytes.
function base64url(text) {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) return null
  const bytes = Buffer.from(text, 'base64url')
  return bytes.toString('base64url') === text ? bytes : null
}
function base64(text) {
  if (typeof text !== 'string' || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null
  const bytes = Buffer.from(text, 'base64')
  return bytes.toString('base64') === text ? bytes : null
}

const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
const equalBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i])
const sha256 = async (bytes) => new Uint8Array(await subtle.digest('SHA-256', bytes))
const hex = (bytes) => Buffer.from(bytes).toString('hex')

// RFC 9162 §2.1.1: leaf = SHA-256(0x00 ‖ entry), node = SHA-256(0x01 ‖ left ‖ right).
const LEAF = Uint8Array.of(0)
const NODE = Uint8Array.of(1)
const leafHash = (entry) => sha256(concat(LEAF, entry))
const nodeHash = (left, right) => sha256(concat(NODE, left, right))

/** RFC 9162 §2.1.3.2. Sizes are safe integers, so halving with Math.floor is exact (`>>` would cut at 2^32). */
async function verifyInclusion(leaf, index, size, proof, root) {
  if (index >= size) return false
  let fn = index
  let sn = size - 1
  let r = leaf
  for (const p of proof) {
    if (sn === 0) return false // proof too long
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r)
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2)
        sn = Math.floor(sn / 2)
      }
    } else {
      r = await nodeHash(r, p)
    }
    fn = Math.floor(fn / 2)
    sn = Math.floor(sn / 2)
  }
  return sn === 0 && equalBytes(r, root) // sn ≠ 0: proof too short
}

const validAt = (key, t) => key.nbf <= t && t < key.exp

/** The caller's JWKS → Map kid → {kid, raw, key, nbf, exp}; each key imported once per request. */
async function trustedKeys(jwks, allowTest) {
  if (!isObject(jwks) || !Array.isArray(jwks.keys)) throw malformed('/keys: not a JWKS')
  const keys = new Map()
  const seen = new Set()
  for (const [i, jwk] of jwks.keys.entries()) {
    const at = `/keys/keys/${i}`
    if (!isObject(jwk) || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519') throw malformed(`${at}: not an OKP Ed25519 key`)
    if ('d' in jwk) throw malformed(`${at}/d: private key present`)
    const raw = base64url(jwk.x)
    if (raw?.length !== 32) throw malformed(`${at}/x: not 32 bytes of canonical base64url`)
    // RFC 7638 thumbprint: required members in lexicographic order, no whitespace.
    const kid = jwk.kid ?? Buffer.from(await sha256(utf8.encode(`{"crv":"Ed25519","kty":"OKP","x":"${jwk.x}"}`))).toString('base64url')
    if (typeof kid !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(kid)) throw malformed(`${at}/kid: not 1-128 visible ASCII`)
    if (seen.has(kid) || seen.has(jwk.x)) throw malformed(`${at}: duplicate key`)
    seen.add(kid).add(jwk.x)
    const nbf = jwk['curbi:nbf'] ?? -Infinity
    const exp = jwk['curbi:exp'] ?? Infinity
    if (!(Number.isSafeInteger(nbf) || nbf === -Infinity) || !(Number.isSafeInteger(exp) || exp === Infinity) || nbf >= exp) {
      throw malformed(`${at}: bad curbi:nbf / curbi:exp`)
    }
    if (jwk['curbi:test'] === true && !allowTest) continue
    const key = await subtle.importKey('raw', raw, ED25519, false, ['verify'])
    keys.set(kid, { kid, raw, key, nbf, exp })
  }
  return keys
}

/** C2SP signed-note key ID: SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4]. */
const noteKeyId = async (name, type, raw) => (await sha256(concat(utf8.encode(`${name}\n`), Uint8Array.of(type), raw))).subarray(0, 4)

/** Reads the head (a signed Curbi checkpoint note); malformed text throws. */
function parseHead(note) {
  if (typeof note !== 'string') throw malformed('/bundle/head: not a string')
  const cut = note.lastIndexOf('\n\n')
  if (cut < 0 || !note.endsWith('\n')) throw malformed('/bundle/head: not a signed note')
  const text = note.slice(0, cut + 1)
  const lines = text.slice(0, -1).split('\n')
  if (lines.length < 3 || lines.includes('')) throw malformed('/bundle/head: not a checkpoint')
  const [origin, sizeText, rootText] = lines
  if (!origin.startsWith(CHECKPOINT) || /[\s+]/u.test(origin)) throw malformed('/bundle/head: not a Curbi checkpoint')
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) throw malformed('/bundle/head: bad size')
  const root = base64(rootText)
  if (root?.length !== 32) throw malformed('/bundle/head: bad root')
  const signatures = note.slice(cut + 2, -1).split('\n').map((line) => {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line)
    const bytes = m && base64(m[2])
    if (!bytes || bytes.length < 5) throw malformed('/bundle/head: bad signature line')
    return { name: m[1], id: bytes.subarray(0, 4), sig: bytes.subarray(4) }
  })
  return { text, origin, size: Number(sizeText), root, signatures }
}

/** The head's verdict: which trusted key signed it, with both log lines (note signature and cosignature/v1). */
async function verifyHead(head, keys) {
  const ours = head.signatures.filter((s) => s.name === head.origin)
  for (const k of keys.values()) {
    const [id1, id4] = await Promise.all([noteKeyId(head.origin, 0x01, k.raw), noteKeyId(head.origin, 0x04, k.raw)])
    const notes = ours.filter((s) => equalBytes(s.id, id1))
    const cosigs = ours.filter((s) => equalBytes(s.id, id4))
    if (notes.length + cosigs.length === 0) continue
    const bad = { ok: false, reason: 'bad_signature', message: 'the head does not verify' }
    if (notes.length !== 1 || cosigs.length !== 1) return bad // both lines, once each
    const [note, cosig] = [notes[0].sig, cosigs[0].sig]
    if (note.length !== 64 || cosig.length !== 72) return bad
    const time = Buffer.from(cosig.buffer, cosig.byteOffset, 8).readBigUInt64BE()
    if (time >= 2n ** 63n) return bad
    const cosigned = utf8.encode(`cosignature/v1\ntime ${time}\n${head.text}`)
    const [a, b] = await Promise.all([
      subtle.verify(ED25519, k.key, note, utf8.encode(head.text)),
      subtle.verify(ED25519, k.key, cosig.subarray(8), cosigned),
    ])
    if (!a || !b) return bad
    const signedAt = Number(time)
    if (!validAt(k, signedAt)) return { ok: false, reason: 'checkpoint_key_not_valid_at_issue', message: 'head key window' }
    return { ok: true, origin: head.origin, size: head.size, root: head.root, signedAt, kid: k.kid }
  }
  return { ok: false, reason: 'checkpoint_unknown_key', message: 'no trusted key signed the head' }
}

/** `<domain><b64url payload>.<b64url signature>.<kid>`, split at the first two dots after the domain. */
function parseCompact(text, domain) {
  if (typeof text !== 'string' || text.length > 16384 || !text.startsWith(domain)) return null
  const d1 = text.indexOf('.', domain.length)
  const d2 = d1 < 0 ? -1 : text.indexOf('.', d1 + 1)
  if (d2 < 0) return null
  const payload = base64url(text.slice(domain.length, d1))
  const sig = base64url(text.slice(d1 + 1, d2))
  const kid = text.slice(d2 + 1)
  if (!payload?.length || sig?.length !== 64 || !/^[\x21-\x7e]{1,128}$/.test(kid)) return null
  return { payload, sig, kid, signed: concat(DOMAIN_BYTES[domain], payload) }
}

const readPayload = (bytes) => {
  try {
    const p = JSON.parse(strictUtf8.decode(bytes))
    const ok = isObject(p) && typeof p.tenant === 'string' && typeof p.idempotencyKey === 'string' &&
      Number.isSafeInteger(p.iat) && Number.isSafeInteger(p.exp) && p.iat < p.exp
    return ok ? p : null
  } catch {
    return null
  }
}

const fail = (reason, message) => ({ ok: false, reason, message })

/** Reads one bundle item (compact forms, index, proof hashes) before anything is verified; unreadable throws. */
function readItem(item, at) {
  const readable = isObject(item) && Object.keys(item).every((name) => ITEM_MEMBERS.has(name)) &&
    Number.isSafeInteger(item.index) && item.index >= 0 && Array.isArray(item.proof) && item.proof.length <= 64
  if (!readable) throw malformed(`${at}: not {receipt, attestation?, index, proof}`)
  const receipt = parseCompact(item.receipt, RECEIPT)
  if (!receipt) throw malformed(`${at}/receipt: not a compact receipt`)
  const attestation = item.attestation === undefined ? null : parseCompact(item.attestation, ATTEST)
  if (item.attestation !== undefined && !attestation) throw malformed(`${at}/attestation: not a compact attestation`)
  const proof = item.proof.map(base64)
  if (proof.some((h) => h?.length !== 32)) throw malformed(`${at}/proof: not 32-byte hashes`)
  return { at, text: item.receipt, receipt, attestation, index: item.index, proof }
}

/** One receipt: signature first, then its payload, then its place in the log, then its attestation. */
async function verifyReceipt(item, keys, head) {
  const { at, receipt: env } = item
  const key = keys.get(env.kid)
  if (!key || !(await subtle.verify(ED25519, key.key, env.sig, env.signed))) return fail('bad_signature', `${at}/receipt`)
  const receipt = readPayload(env.payload)
  if (!receipt || (receipt.status !== 'DONE' && receipt.status !== 'FAILED')) return fail('malformed', `${at}/receipt: payload`)
  const signed = { kid: env.kid, receipt } // what the cross-receipt checks need once the signature verified
  if (!validAt(key, receipt.iat)) return { ...fail('checkpoint_key_not_valid_at_issue', `${at}/receipt`), ...signed }
  if (!head.ok) return { ...fail(head.reason, head.message), ...signed }
  const leaf = await leafHash(utf8.encode(item.text))
  if (!(await verifyInclusion(leaf, item.index, head.size, item.proof, head.root))) return { ...fail('not_in_log', `${at}/proof`), ...signed }
  const att = item.attestation
  if (att) {
    const akey = keys.get(att.kid)
    if (!akey || !(await subtle.verify(ED25519, akey.key, att.sig, att.signed))) return { ...fail('bad_signature', `${at}/attestation`), ...signed }
    const attestation = readPayload(att.payload)
    if (!attestation) return { ...fail('malformed', `${at}/attestation: payload`), ...signed }
    if (!validAt(akey, attestation.iat)) return { ...fail('checkpoint_key_not_valid_at_issue', `${at}/attestation`), ...signed }
    const bound = receipt.attestation === hex(await sha256(att.signed)) && receipt.iat >= attestation.iat &&
      BOUND_FIELDS.every((f) => receipt[f] === attestation[f])
    if (!bound) return { ...fail('attestation_not_bound', `${at}/attestation`), ...signed }
  }
  return { ok: true, reason: 'verifies', message: '', ...signed }
}

/** Reads the request, refusing what this verifier does not implement rather than ignoring it. */
function readRequest(text) {
  let request
  try {
    request = JSON.parse(text)
  } catch {
    throw malformed('not JSON')
  }
  if (!isObject(request)) throw malformed('the request is not an object')
  for (const name of Object.keys(request)) if (!OPTIONS.has(name)) throw malformed(`/${name}: unknown option`)
  const { bundle, keys, allowTest = false, mode = 'archival', known = [], trustBundleKeys = false, witnesses } = request
  if (isObject(keys) && keys.object === 'curbi.browser.gate-trust.v1') {
    throw new Refusal('unsupported', 'browser gate proofs (docs/PROOF.md) are not implemented here')
  }
  if (typeof allowTest !== 'boolean') throw malformed('/allowTest')
  if (!['archival', 'fresh'].includes(mode)) throw malformed('/mode')
  if (mode !== 'archival' || !Array.isArray(known) || known.length > 0 || trustBundleKeys !== false || witnesses !== undefined) {
    throw new Refusal('unsupported', 'fresh mode, known heads, witnesses and trustBundleKeys are not implemented here')
  }
  if (!isObject(bundle) || bundle.object !== 'curbi.proof/0.1') throw malformed('/bundle: not a curbi.proof/0.1 bundle')
  for (const name of Object.keys(bundle)) if (!BUNDLE_MEMBERS.has(name)) throw malformed(`/bundle/${name}: unknown member`)
  const { receipts } = bundle
  if (!Array.isArray(receipts) || receipts.length === 0 || receipts.length > 100_000) throw malformed('/bundle/receipts')
  const head = parseHead(bundle.head)
  const items = receipts.map((item, i) => readItem(item, `/bundle/receipts/${i}`))
  return { keys, allowTest, head, items }
}

/**
 * Verifies a verify_bundle request given as JSON text. `ok` is true only when the head and every receipt verify.
 * The reason is the first of: malformed / unsupported, no_trusted_keys, the head's, conflicting_receipt, then the
 * first receipt that does not verify, in bundle order (curbi's order, without the history reasons).
 */
export async function verifyRequest(text, { concurrent = false } = {}) {
  let request, keys
  try {
    request = readRequest(text)
    keys = await trustedKeys(request.keys, request.allowTest)
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, reason: e.reason, message: e.message, items: [] }
    throw e
  }
  const receipts = request.items
  if (keys.size === 0) {
    const items = receipts.map(() => fail('no_trusted_keys', 'no trusted key'))
    return { ok: false, reason: 'no_trusted_keys', message: 'no trusted key', items }
  }
  const verdict = await verifyHead(request.head, keys)
  let items
  if (concurrent) {
    items = await Promise.all(receipts.map((item) => verifyReceipt(item, keys, verdict)))
  } else {
    items = []
    for (const item of receipts) items.push(await verifyReceipt(item, keys, verdict))
  }

  // Across receipts: a second copy of the same signed text is a duplicate (the first keeps its verdict); several
  // different DONE receipts signed by a trusted key for one tenant and idempotency key are all conflicting.
  const firstCopy = new Map()
  const done = new Map()
  receipts.forEach(({ text }, i) => {
    if (firstCopy.has(text)) {
      items[i] = { ...items[i], ...fail('duplicate', `/bundle/receipts/${i}: copy of ${firstCopy.get(text)}`) }
      return
    }
    firstCopy.set(text, i)
    const r = items[i].receipt // present only once the receipt's signature verified
    if (r?.status === 'DONE') {
      const k = JSON.stringify([r.tenant, r.idempotencyKey])
      if (!done.has(k)) done.set(k, [])
      done.get(k).push(i)
    }
  })
  let conflict = false
  for (const same of done.values()) {
    if (same.length < 2) continue
    conflict = true
    for (const i of same) items[i] = { ...items[i], ...fail('conflicting_receipt', 'another DONE receipt for this key') }
  }

  const firstBad = items.find((it) => !it.ok)
  const reason = !verdict.ok ? verdict.reason : conflict ? 'conflicting_receipt' : (firstBad?.reason ?? 'verifies')
  const message = !verdict.ok ? verdict.message : (firstBad?.message ?? `${items.length} receipt(s) verified`)
  return { ok: reason === 'verifies', reason, message, items, head: verdict.ok ? verdict : undefined }
}
