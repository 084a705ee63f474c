// Per-call cost of the Node binding on the DESIGN §8 workload, next to the same work done natively.
//
//   cargo bench -p curbi-node --bench native     # the native medians (criterion saves them under target/)
//   node bindings/node/bench/bench.mjs           # this: the Node medians, and the difference to each native one
//
// The policy, record and reply are read from core/benches/check.rs, as benches/native.rs does, so both sides
// measure the same workload. Each Node figure is the median of 31 samples, each the mean of a timed loop of calls
// after a warm-up. Run by hand (numbers go to docs/PERFORMANCE.md), never by tests.
//
// `node bench/bench.mjs --loop MODE N` only makes N calls (MODE: prepared, record, none), untimed: run it under
// `valgrind --tool=callgrind` at two N and divide the difference for instructions per call, steadier than time on a
// shared machine (CURBI_LOOP=MODE:N runs the same loop natively in benches/native.rs).
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import curbi from '../index.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
const source = readFileSync(join(root, 'core', 'benches', 'check.rs'), 'utf8')

function rawConst(name) {
  const m = source.match(new RegExp(`pub const ${name}: &str = r#"([\\s\\S]*?)"#;`))
  assert.ok(m, `core/benches/check.rs defines ${name}`)
  return m[1]
}

function stringConst(name) {
  const m = source.match(new RegExp(`pub const ${name}: &str = "((?:[^"\\\\]|\\\\[\\s\\S])*)";`))
  assert.ok(m, `core/benches/check.rs defines ${name}`)
  // Rust string escapes used there: `\` + newline (skip the newline and the next line's indentation), \" and \\.
  return m[1].replace(/\\\n\s*/g, '').replace(/\\(["\\])/g, '$1')
}

const POLICY = JSON.parse(rawConst('POLICY'))
const RECORD = JSON.parse(rawConst('RECORD'))
const REPLY = stringConst('REPLY')
const chars = [...REPLY].length
assert.ok(chars >= 195 && chars <= 205, `a 200-character reply, got ${chars}`)

const loop = process.argv.indexOf('--loop')
if (loop !== -1) {
  const [mode, n] = [process.argv[loop + 1], Number(process.argv[loop + 2])]
  const policy = curbi.compilePolicy(POLICY)
  const opts = { prepared: curbi.prepareOptions({ record: RECORD }), record: { record: RECORD }, none: undefined }
  assert.ok(mode in opts && n > 0, 'usage: bench.mjs --loop prepared|record|none N')
  for (let i = 0; i < n; i++) policy.check(REPLY, opts[mode])
  process.exit(0)
}

const SAMPLES = 31
const CALLS = 20_000

/** Median over samples of the mean time per call, in microseconds. */
function measure(fn) {
  for (let i = 0; i < CALLS; i++) fn()
  const samples = []
  for (let s = 0; s < SAMPLES; s++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < CALLS; i++) fn()
    samples.push(Number(process.hrtime.bigint() - start) / CALLS / 1000)
  }
  samples.sort((a, b) => a - b)
  return samples[(SAMPLES - 1) / 2]
}

/** A criterion median in microseconds, or null when that benchmark has not been run. */
function nativeMedianUs(name) {
  const file = join(root, 'target', 'criterion', name, 'new', 'estimates.json')
  if (!existsSync(file)) return null
  return JSON.parse(readFileSync(file, 'utf8')).median.point_estimate / 1000
}

const policy = curbi.compilePolicy(POLICY)
const options = { record: RECORD }
const prepared = curbi.prepareOptions(options)
const expected = policy.check(REPLY, options)
assert.equal(expected.pass, true, 'the workload reply passes its policy (as in the Rust benchmark)')
assert.deepStrictEqual(policy.check(REPLY, prepared), expected)
const empty = curbi.compilePolicy({})

// [what, Node median, the native benchmark doing the same work]
const rows = [
  ['policy.check(reply, prepared) — §8 workload, record read once', measure(() => policy.check(REPLY, prepared)), 'node_native_check_prepared'],
  ['policy.check(reply, { record }) — record read on every call', measure(() => policy.check(REPLY, options)), 'node_native_options_json_and_check'],
  ['policy.check(reply) — no record', measure(() => policy.check(REPLY)), 'node_native_check_no_record'],
  ['empty policy, empty reply — a call and its result alone', measure(() => empty.check('')), null],
]

console.log(`curbi ${curbi.version()}, node ${process.version}, ${SAMPLES} samples × ${CALLS} calls, median per call`)
console.log('    node    native      over  what')
for (const [what, node, bench] of rows) {
  const native = bench && nativeMedianUs(bench)
  const cols = [node, native, native === null || native === undefined ? null : node - native]
  console.log(`${cols.map((n) => (n === null || n === undefined ? '—' : `${n.toFixed(2)} µs`).padStart(9)).join(' ')}  ${what}`)
}
const core = nativeMedianUs('check_200_chars')
if (core !== null) console.log(`native CompiledPolicy::check (cargo bench -p curbi --bench check): ${core.toFixed(2)} µs`)
if (rows.some(([, , bench]) => bench && nativeMedianUs(bench) === null)) {
  console.log('native: run `cargo bench -p curbi-node --bench native` first for the native column')
}
