// The Node half of the differential test (scripts/differential.sh, docs/DOCUMENTS.md): every call the core wrote
// to DIR/calls.jsonl, made through the public Node API, its document written to DIR/node.txt, one line a call, for
// scripts/differential.py to hold byte for byte to the core's. Usage: node differential.mjs DIR
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import curbi from '../index.js'

const single = {
  check: curbi.check,
  validate_policy: curbi.validatePolicy,
  export_regression: curbi.exportRegression,
  replay_regression: curbi.replayRegression,
  verify_checkout: curbi.verifyCheckout,
  verify_action: curbi.verifyAction,
  checkout_digest: curbi.checkoutDigest,
  verify_bundle: curbi.verifyBundle,
}

async function run(call) {
  if (call.entry === 'policy_check')
    return curbi.compilePolicy(call.policy, call.receipts ?? undefined).check(call.reply, call.options ?? undefined)
  if (call.entry === 'check' && call.receipts) return curbi.check(call.input, call.receipts)
  if (call.entry === 'verifier') return curbi.createVerifier(call.options).verify(call.bundle)
  return single[call.entry](call.input)
}

const dir = process.argv[2]
const calls = readFileSync(join(dir, 'calls.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
const out = []
for (const call of calls) {
  try {
    out.push(JSON.stringify(await run(call)))
  } catch (e) {
    if (!(e instanceof curbi.CurbiError)) throw e
    out.push(JSON.stringify({ error: { code: e.code, message: e.message, path: e.path } }))
  }
}
if (out.length === 0) {
  console.error('node differential: no calls')
  process.exit(1)
}
writeFileSync(join(dir, 'node.txt'), out.map((l) => l + '\n').join(''))
console.log(`node differential: ${out.length} calls`)
