// vectors/documents/: every document kind as raw JSON text, read by the core's one strict reader, through the
// Node API. The outcome must hold the expectation: an error's code and path, or the members it names.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import test from 'node:test'

import curbi from '../index.js'
import { VECTORS } from './vectors.mjs'

const ENTRIES = {
  check: (t) => curbi.check(t),
  compile_policy: (t) => curbi.compilePolicy(t) && { ok: true },
  record: (t) => curbi.prepareOptions(`{"record":${t}}`) && { ok: true },
  validate_policy: (t) => curbi.validatePolicy(t),
  export_regression: (t) => curbi.exportRegression(t),
  replay_regression: (t) => curbi.replayRegression(t),
  verify_checkout: (t) => curbi.verifyCheckout(t),
  verify_action: (t) => curbi.verifyAction(t),
  verify_bundle: (t) => curbi.verifyBundle(t),
  verifier_options: (t) => curbi.createVerifier(t) && { ok: true },
}

async function outcome(entry, text) {
  try {
    return await ENTRIES[entry](text)
  } catch (e) {
    assert.ok(e instanceof curbi.CurbiError, `${entry}: a CurbiError, got ${e}`)
    return { error: { code: e.code, path: e.path, message: e.message } }
  }
}

/** `got` holds `want`: every member `want` names, recursively; arrays of equal length. */
function contains(got, want) {
  if (Array.isArray(want)) return Array.isArray(got) && got.length === want.length && want.every((w, i) => contains(got[i], w))
  if (want && typeof want === 'object')
    return got !== null && typeof got === 'object' && Object.entries(want).every(([k, v]) => k in got && contains(got[k], v))
  return got === want
}

test('documents vectors: every kind read strictly', async () => {
  const dir = join(VECTORS, 'documents')
  let ran = 0
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const group = JSON.parse(readFileSync(join(dir, name), 'utf8'))
    assert.ok(group.description && group.cases.length > 0, name)
    for (const [i, c] of group.cases.entries()) {
      const got = await outcome(c.entry, c.text)
      assert.ok(contains(got, c.expected), `${name}#${i} ${c.description}: got ${JSON.stringify(got)}`)
      ran++
    }
  }
  console.log(`node documents vectors: ${ran} ran`)
  assert.ok(ran > 0)
})
