// Where a receipt's time goes in @curbi/web's bundle verifier (one thread, Node): V8's sampling profiler over
// `verifyRequest(text)` run N times, each sample's function sorted into the work it is part of by its name in the
// module's name section. Self time by kind of work, then the inclusive time of the verifier's phases.
//
//   node bench/proof_wasm/profile.mjs REQUEST.json [--runs N]
import { readFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'

import * as web from '../../bindings/web/index.js'

const args = process.argv.slice(2)
const at = args.indexOf('--runs')
const runs = at === -1 ? 5 : Number(args.splice(at, 2)[1])
const text = readFileSync(args[0], 'utf8')
const n = JSON.parse(text).bundle.receipts.length
await web.verifyRequest(text) // warm-up: compiled, tiered up

const session = new Session()
session.connect()
await session.post('Profiler.enable')
await session.post('Profiler.setSamplingInterval', { interval: 50 })
await session.post('Profiler.start')
const t0 = performance.now()
for (let i = 0; i < runs; i++) {
  const r = await web.verifyRequest(text)
  if (!r.ok) throw new Error(`does not verify: ${r.reason}`)
}
const wall = performance.now() - t0
const { profile } = await session.post('Profiler.stop')

// Self time per node from the samples' time deltas.
const byId = new Map(profile.nodes.map((node) => [node.id, { ...node, self: 0 }]))
profile.samples.forEach((id, i) => { byId.get(id).self += (profile.timeDeltas[i] ?? 0) / 1000 })
const total = [...byId.values()].reduce((s, x) => s + x.self, 0)

const KINDS = [
  ['Ed25519 (curve25519-dalek field, scalar and point arithmetic)', /curve25519|ed25519|edwards|scalar|field|montgomery|subtle|RCompute/i],
  ['SHA-512 (sha2; Ed25519\'s H(R ‖ A ‖ M))', /sha512|compress512/i],
  ['SHA-256 (sha2; leaf hashes, Merkle path, digests)', /sha256|compress256/i],
  ['base64', /base64/i],
  ['JSON reading and writing (serde_json, strict reader)', /serde|json|deseri|seriali|Visitor|MapAccess/i],
  ['memory (alloc, memcpy, dlmalloc)', /alloc|memcpy|memmove|memset|dlmalloc|realloc|free/i],
  ['wasm-bindgen glue and JavaScript (text in and out, JSON.parse)', /^(?!wasm-function)/],
]
const wasmFrame = (node) => node.callFrame.url.startsWith('wasm://') || /wasm-function/.test(node.callFrame.functionName)
const kindOf = (node) => {
  const name = node.callFrame.functionName
  if (!wasmFrame(node)) return name === '(idle)' || name === '(program)' || name === '(garbage collector)' ? name : 'JavaScript (glue, JSON.parse of the result)'
  for (const [kind, re] of KINDS.slice(0, -1)) if (re.test(name)) return kind
  return 'other Rust (verifier logic, Merkle path, strings)'
}
const kinds = new Map()
for (const node of byId.values()) kinds.set(kindOf(node), (kinds.get(kindOf(node)) ?? 0) + node.self)

// Inclusive time of the phases: every sample under a frame whose name matches (counted once per sample).
const parent = new Map()
for (const node of byId.values()) for (const c of node.children ?? []) parent.set(c, node.id)
const PHASES = [
  ['read the request (ParsedBundle, every envelope decoded)', /BundleSeed|ParsedBundle|read_request_text|read_parts_text|proof::bundle::/],
  ['receipts\' own checks (check_item)', /check_item/],
  ['  of which Ed25519 (verify_strict, or PreparedKey::verify from a key\'s 16th signature)', /verify_strict|PreparedKey.*verify/],
  ['    of which R decompressed, small-order checks', /decompress|is_small_order|sqrt_ratio/],
  ['    of which [k](-A) + [s]B (double-base, or the two Comb tables)', /vartime_double_scalar_mul_basepoint|Comb.*mul_add|EdwardsPoint.*Add/],
  ['  of which leaf hash and inclusion proof', /verify_inclusion|leaf_hash/],
  ['  of which the payload read (Receipt)', /envelope.*receipt|Envelope.*receipt|payload/i],
  ['the head (checkpoint signatures)', /verify_head|verify_checkpoint/],
  ['digests, duplicates, conflicts, history', /digest|mark_duplicates|mark_conflicts|check_history/],
  ['the result written (to_json_string)', /to_json_string|Verification.*serialize/],
]
const phases = new Map(PHASES.map(([p]) => [p, 0]))
const seen = new Map()
for (const [id] of byId) {
  const self = byId.get(id).self
  if (self === 0) continue
  const hit = new Set()
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const name = byId.get(cur).callFrame.functionName
    for (const [p, re] of PHASES) if (!hit.has(p) && re.test(name)) hit.add(p)
  }
  for (const p of hit) phases.set(p, phases.get(p) + self)
  seen.set(id, hit)
}

const pct = (x) => `${((100 * x) / total).toFixed(1)} %`
const us = (x) => `${((x * 1000) / (runs * n)).toFixed(1)} µs`
console.log(`${n} receipts × ${runs} runs: ${(wall / runs).toFixed(0)} ms a run, ${((wall * 1000) / (runs * n)).toFixed(1)} µs a receipt; ${profile.samples.length} samples`)
console.log('\n| self time in | share | per receipt |\n|---|---:|---:|')
for (const [k, v] of [...kinds].sort((a, b) => b[1] - a[1])) console.log(`| ${k} | ${pct(v)} | ${us(v)} |`)
console.log('\n| inclusive time of | share | per receipt |\n|---|---:|---:|')
for (const [p, v] of phases) console.log(`| ${p} | ${pct(v)} | ${us(v)} |`)
if (process.env.PROFILE_TOP) {
  const top = [...byId.values()].sort((a, b) => b.self - a.self).slice(0, Number(process.env.PROFILE_TOP))
  for (const node of top) console.log(pct(node.self).padStart(8), node.callFrame.functionName.slice(0, 140))
}
