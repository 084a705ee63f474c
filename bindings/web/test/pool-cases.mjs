// The verifier pool against the one-thread verifier on the same inputs, in Node (test/pool.test.mjs) and in the
// page (test/browser.test.mjs): every answer of `createVerifierPool({workers}).verifyRequest` and `.verifyBundle`
// must be the one of `verifyRequest` and `verifyBundle`, compared as the JSON text of the whole result (or the
// error's name, code, path and message).

/** An answer or a rejection as text, so that two runs compare byte for byte. */
async function settle(promise) {
  try {
    return JSON.stringify(await promise)
  } catch (e) {
    return `rejected ${JSON.stringify({ name: e.name, code: e.code, path: e.path, message: e.message })}`
  }
}

/**
 * `cases`: `[{name, request}]` with `request` JSON text. Each runs through pools of each size in `sizes`, as a whole
 * request and, where it is an object with a bundle, as a bundle and its options. Resolves with how many answers
 * were compared, the workers each pool started, and every mismatch (empty when all agree).
 */
export async function comparePool(web, cases, sizes) {
  const mismatches = []
  const started = []
  let compared = 0
  for (const workers of sizes) {
    const pool = await web.createVerifierPool({ workers })
    started.push(pool.workers)
    try {
      for (const { name, request } of cases) {
        const calls = [[`${name} (request)`, () => web.verifyRequest(request), () => pool.verifyRequest(request)]]
        let doc
        try {
          doc = JSON.parse(request)
        } catch {}
        if (doc !== null && typeof doc === 'object' && !Array.isArray(doc) && 'bundle' in doc) {
          const { bundle, ...options } = doc
          const [b, o] = [JSON.stringify(bundle), JSON.stringify(options)]
          calls.push([`${name} (bundle, options)`, () => web.verifyBundle(b, o), () => pool.verifyBundle(b, o)])
        }
        for (const [what, one, many] of calls) {
          const [a, b] = [await settle(one()), await settle(many())]
          compared++
          if (a !== b) mismatches.push(`${what}, ${workers} workers: ${a.slice(0, 300)} ≠ ${b.slice(0, 300)}`)
        }
      }
    } finally {
      pool.close()
    }
  }
  return { compared, started, mismatches }
}

/**
 * `request` (JSON text of a large verify request, from `verify_peak build`) with receipt `at`'s signature changed in
 * one character and receipt 5 again at the end: that receipt alone is `bad_signature` and decides the verdict, the
 * last one is a `duplicate` of a receipt another worker checks.
 */
export function tampered(request, at) {
  const doc = JSON.parse(request)
  const receipts = doc.bundle.receipts
  // `curbi-receipt-v1.<payload>.<signature>.<kid>`: the signature's second character.
  const parts = receipts[at].receipt.split('.')
  parts[2] = `${parts[2][0]}${parts[2][1] === 'A' ? 'B' : 'A'}${parts[2].slice(2)}`
  receipts[at] = { ...receipts[at], receipt: parts.join('.') }
  receipts.push(receipts[5])
  return JSON.stringify(doc)
}
