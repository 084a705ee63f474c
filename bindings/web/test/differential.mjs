// The WebAssembly half of the differential test (scripts/differential.sh): every call the core wrote to
// DIR/calls.jsonl made through @curbi/web in Node, answers written to DIR/wasm.txt, one line a call, for
// scripts/differential.py to hold byte for byte to the core's. The two-document `verifyBundle(bundle, options)` is
// checked here against the core's answer to the whole request. Usage: node differential.mjs DIR
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

import * as curbi from '../index.js'
import { runCalls } from './differential-calls.mjs'

const dir = process.argv[2]
const calls = readFileSync(join(dir, 'calls.jsonl'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
const { out, parts } = await runCalls(curbi, calls)
if (out.length === 0 || parts.length === 0) {
  console.error('wasm differential: no calls')
  process.exit(1)
}
writeFileSync(join(dir, 'wasm.txt'), out.map((l) => l + '\n').join(''))
const bad = parts.filter((p) => p.got !== p.want)
for (const p of bad.slice(0, 5)) console.error(`wasm verifyBundle(bundle, options): ${p.id}\n  core ${p.want?.slice(0, 300)}\n  wasm ${p.got.slice(0, 300)}`)
console.log(`wasm differential: ${out.length} calls; verifyBundle(bundle, options): ${parts.length - bad.length} identical, ${bad.length} differ`)
process.exit(bad.length > 0 ? 1 : 0)
