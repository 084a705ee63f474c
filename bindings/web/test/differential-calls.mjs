// The calls of the differential test (scripts/differential.sh, docs/DOCUMENTS.md) made through @curbi/web: shared
// by the Node half (differential.mjs) and the browser half (browser.test.mjs), so both run exactly these lines.
// `curbi` is the package's module namespace; each call answers with the document's JSON text, or the error
// document `{"error":{"code","message","path"}}` for a CurbiError, as every binding writes it.

/** The package's function for a one-document entry: its camelCase name, `verifyRequest` for the whole request. */
const entryFunction = (curbi, entry) =>
  entry === 'verify_bundle' ? curbi.verifyRequest : curbi[entry.replace(/_(.)/g, (_, c) => c.toUpperCase())]

async function run(curbi, call) {
  if (call.entry === 'policy_check')
    return curbi.compilePolicy(call.policy, call.receipts ?? undefined).check(call.reply, call.options ?? undefined)
  if (call.entry === 'check' && call.receipts) return curbi.check(call.input, call.receipts)
  if (call.entry === 'verifier') return curbi.createVerifier(call.options).verify(call.bundle)
  return entryFunction(curbi, call.entry)(call.input)
}

async function answer(curbi, f) {
  try {
    return JSON.stringify(await f())
  } catch (e) {
    if (!(e instanceof curbi.CurbiError)) throw e
    return JSON.stringify({ error: { code: e.code, message: e.message, path: e.path } })
  }
}

/**
 * Every call's answer, in order. Also returns `parts`: for each `verifier` call, `verifyBundle(bundle, options)` (the
 * two-document form) next to the core's answer to the whole request of the same vector (where the vector has one),
 * which it must equal.
 */
export async function runCalls(curbi, calls) {
  const out = []
  const parts = []
  const whole = new Map()
  for (const call of calls) {
    out.push(await answer(curbi, () => run(curbi, call)))
    if (call.entry === 'verify_bundle') whole.set(call.id.replace(/\/verify_bundle$/, ''), call.out)
    if (call.entry === 'verifier') {
      const id = call.id.replace(/\/verifier$/, '')
      // Only vectors written both ways (proof/): a documents vector may have just the options-and-bundle form.
      if (!whole.has(id)) continue
      const got = await answer(curbi, () => curbi.verifyBundle(call.bundle, call.options))
      parts.push({ id, want: whole.get(id), got })
    }
  }
  return { out, parts }
}
