// A minimal checkout-support service on node:http: the agent's draft reply and the order record come in, and the
// reply goes out only when curbi finds nothing wrong with it; otherwise the caller gets the findings instead.
//
//   POST /reply  {"reply": "...", "record": {...}?, "conversation"?}
//                                                    → 200 {"reply"}            the reply passed every rule; with a
//                                                      conversation (and a recorder), every action it claims is
//                                                      backed by a receipt the recorder signed in that conversation
//                                                    → 422 {"blocked", "findings"}  it did not: do not send it
//                                                    → 400 {"error": {code, message, path}}  bad input
//   POST /checkout {"mandate", "checkout", "ledger"?, "now"} → 200 ALLOW  /  409 STEP_UP (ask the user)  /  403 DENY,
//                                                      each with curbi's decision document (every reason)
//   POST /purchase {"idempotency_key", "agent", "checkout", "conversation"?}   (when a recorder is configured)
//                                                    → 200 {"decision", "receipt", "bundle"}: the purchase was checked
//                                                      against the mandate and the recorder's own ledger, attested,
//                                                      paid, and its receipt signed and logged; the bundle verifies
//                                                      offline under GET /keys
//                                                    → 409 STEP_UP / 403 DENY with the decision (nothing was paid)
//                                                    → 202 {"held"}: the payment's outcome is unknown; reconcile later
//   GET  /keys                                       → the recorder's JWKS, every key with its window
//   GET  /health                                     → 200 {"ok": true, "curbi": version}
//
// Run: node examples/node-checkout/server.js (PORT, default 8080, on 127.0.0.1), after building the addon in
// bindings/node (bindings/node/test.sh or `npm ci && npm run build` there).
'use strict'

const { createServer } = require('node:http')
const { readFileSync } = require('node:fs')
const { join } = require('node:path')

const curbi = require('../../bindings/node')

const MAX_BODY = 64 * 1024

/** Creates the service. The policy is compiled once, here; a bad policy fails at start, not on a request.
 *  With `recorder` (an open `curbi.Recorder`), `mandate` (the id of a mandate registered in it), `tenant` and
 *  `pay(checkout, attestation, idempotencyKey)` (the payment call: resolves `{outcome: 'DONE'|'FAILED'|'UNKNOWN', evidence}`, the
 *  provider's answer as text), completed purchases are recorded and each hands out its bundle. `receiptsNow` (RFC
 *  3339) fixes the clock the receipts' expiry is judged by, for tests and replays; the system clock when absent. */
function createCheckoutServer({
  policy = JSON.parse(readFileSync(join(__dirname, 'policy.json'), 'utf8')),
  recorder,
  mandate,
  tenant = 'shop',
  pay,
  receiptsNow,
} = {}) {
  const compiled = curbi.compilePolicy(policy)
  // Replies in a conversation are checked against the recorder's receipts, under the recorder's own keys (read once,
  // on first use): the same policy, compiled with them.
  const shop = recorder ? { recorder, mandate, tenant, pay, policy, receiptsNow, signed: null } : null

  return createServer((req, res) => {
    handle(compiled, shop, req, res).catch((e) => {
      console.error('checkout service: unexpected error', e)
      if (!res.headersSent) send(res, 500, error('internal', 'unexpected error'))
      else res.destroy()
    })
  })
}

async function handle(compiled, shop, req, res) {
  const url = new URL(req.url, 'http://localhost')
  if (url.pathname === '/health') {
    if (req.method !== 'GET') return send(res, 405, error('method_not_allowed', 'use GET'), { Allow: 'GET' })
    return send(res, 200, { ok: true, curbi: curbi.version() })
  }
  if (shop && url.pathname === '/keys') {
    if (req.method !== 'GET') return send(res, 405, error('method_not_allowed', 'use GET'), { Allow: 'GET' })
    return send(res, 200, await shop.recorder.keys())
  }
  const known = ['/reply', '/checkout'].concat(shop ? ['/purchase'] : [])
  if (!known.includes(url.pathname)) {
    return send(res, 404, error('not_found', `no endpoint ${url.pathname}`))
  }
  if (req.method !== 'POST') return send(res, 405, error('method_not_allowed', 'use POST'), { Allow: 'POST' })
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    return send(res, 415, error('unsupported_media_type', 'send Content-Type: application/json'))
  }

  const text = await readBody(req)
  if (text === null) {
    return send(res, 413, error('body_too_large', `the body is over ${MAX_BODY} bytes`), { Connection: 'close' })
  }
  if (url.pathname === '/checkout') return checkout(res, text)
  if (url.pathname === '/purchase') return purchase(shop, res, text)
  let body
  try {
    body = JSON.parse(text)
  } catch (e) {
    return send(res, 400, error('invalid_json', `the body is not JSON: ${e.message}`))
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return send(res, 400, error('invalid_type', 'the body must be a JSON object'))
  }
  const { reply, record, conversation, ...rest } = body
  const unknown = Object.keys(rest)[0] ?? (conversation !== undefined && !shop ? 'conversation' : undefined)
  if (unknown !== undefined) return send(res, 400, error('unknown_field', `unknown member '${unknown}'`, `/${unknown}`))

  let result
  try {
    if (conversation !== undefined) {
      // The receipts this conversation's actions got, and only those: "I've charged you $191.39" against a receipt
      // for $91.39 is receipt:mismatch; a claimed action with no receipt is action:unverified.
      const { receipts } = await shop.recorder.receipts({ conversation })
      const now = shop.receiptsNow === undefined ? {} : { now: shop.receiptsNow }
      shop.signed ??= curbi.compilePolicy(shop.policy, { keys: await shop.recorder.keys(), ...now })
      result = shop.signed.check(reply, { record: { ...(record ?? {}), receipts }, verify: 'required' })
    } else {
      // A check takes microseconds: running it inline costs less than a hop to the thread pool would.
      // (`compiled.checkAsync` is there for large batches.)
      result = compiled.check(reply, record === undefined ? undefined : { record })
    }
  } catch (e) {
    // A CurbiError: the same code and JSON pointer as the Check API (`/reply`, `/record/facts/0/value`).
    if (typeof e.code !== 'string' || typeof e.path !== 'string') throw e
    return send(res, 400, error(e.code, e.message, e.path))
  }
  if (result.pass) return send(res, 200, { reply })
  // Never pass the reply on: the caller decides what the customer sees instead.
  return send(res, 422, { blocked: true, findings: result.findings })
}

/** The agent wants to complete a checkout: proceed only on ALLOW. The body goes to curbi as the bytes it came in,
 *  so an amount written `100.0` stays a float (a DENY), not the integer JavaScript would make of it. */
function checkout(res, text) {
  let decision
  try {
    decision = curbi.verifyCheckout(text)
  } catch (e) {
    // Only a body that is not JSON at all is an error; anything malformed is a DENY with its reasons.
    if (typeof e.code !== 'string' || typeof e.path !== 'string') throw e
    return send(res, 400, error(e.code, e.message, e.path))
  }
  const status = { ALLOW: 200, STEP_UP: 409, DENY: 403 }[decision.decision]
  return send(res, status, decision)
}

/** A purchase, recorded: attest (the purchase check on the mandate with the recorder's own ledger), pay, confirm with
 *  the provider's answer, sign a head and hand out the receipt's bundle. Every step is on disk before the next. */
async function purchase(shop, res, text) {
  let body
  try {
    body = JSON.parse(text)
  } catch (e) {
    return send(res, 400, error('invalid_json', `the body is not JSON: ${e.message}`))
  }
  const { idempotency_key, agent, checkout, conversation } = body ?? {}
  const key = { tenant: shop.tenant, idempotency_key }
  try {
    const inConversation = conversation === undefined ? {} : { conversation }
    const attested = await shop.recorder.attest({ ...key, mandate: shop.mandate, agent, checkout, ...inConversation })
    if (!attested.attestation) {
      return send(res, attested.decision === 'STEP_UP' ? 409 : 403, attested.check)
    }
    // A replayed request gets its recorded answer: the same attestation, and, once settled, its receipt. Never pay
    // twice: a purchase already receipted is handed out again (pay also gets the key, for the provider to dedupe).
    const done = await shop.recorder.receipt(key).catch((e) => (e.code === 'unknown_receipt' ? null : Promise.reject(e)))
    if (done) {
      const bundle = await shop.recorder.bundle({ receipts: [done.seq] })
      return send(res, 200, { decision: attested.decision, receipt: { status: done.status, seq: done.seq, receipt: done.receipt }, bundle })
    }
    const paid = await shop.pay(checkout, attested.attestation, idempotency_key)
    const settled = await shop.recorder.confirm({ ...key, outcome: paid.outcome, evidence: paid.evidence })
    if (settled.status === 'HELD') return send(res, 202, { held: true, idempotency_key })
    await shop.recorder.checkpoint()
    const bundle = await shop.recorder.bundle({ receipts: [settled.seq] })
    return send(res, 200, { decision: attested.decision, receipt: settled, bundle })
  } catch (e) {
    // A CurbiError: the recorder refused the call (a bad request, an idempotency conflict), with its code and path.
    if (typeof e.code !== 'string' || typeof e.path !== 'string') throw e
    return send(res, 400, error(e.code, e.message, e.path))
  }
}

function error(code, message, path = '') {
  return { error: { code, message, path } }
}

/** The body as text, or null when it is over MAX_BODY (the rest is read and dropped, never kept). */
async function readBody(req) {
  const chunks = []
  let size = 0
  for await (const chunk of req) {
    size += chunk.length
    if (size <= MAX_BODY) chunks.push(chunk)
  }
  return size > MAX_BODY ? null : Buffer.concat(chunks).toString('utf8')
}

function send(res, status, doc, headers = {}) {
  const body = JSON.stringify(doc)
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers })
  res.end(body)
}

module.exports = { createCheckoutServer }

if (require.main === module) {
  const port = Number(process.env.PORT ?? 8080)
  createCheckoutServer().listen(port, '127.0.0.1', function () {
    console.log(`checkout service on http://127.0.0.1:${this.address().port} (curbi ${curbi.version()})`)
  })
}
