// @curbi/web unchanged in Deno (the `deno` npm package's binary, a devDependency): the seed's snippet, a tampered
// bundle, a reply's UTF-16 spans, the verifier pool in Deno Workers; with `--differential`, every call of the differential test (after
// scripts/differential.sh) must give the core's bytes. Run: deno run --allow-read test/deno.mjs [--differential]
import * as curbi from '../index.js'
import { runCalls } from './differential-calls.mjs'
import { comparePool } from './pool-cases.mjs'

const root = new URL('../../../', import.meta.url)
const results = []
const check = (name, ok, detail = '') => {
  results.push(ok)
  console.log(`${ok ? 'ok' : 'not ok'} - ${name}${ok ? '' : `: ${detail}`}`)
}
const vector = async (name) => JSON.parse(await Deno.readTextFile(new URL(`vectors/proof/${name}`, root))).input

console.log(`Deno ${Deno.version.deno}, @curbi/web ${curbi.version()}`)
// Seed 003: valid-four-domains verifies with allowTest; tampered-amount is bad_signature.
const valid = await vector('valid-four-domains.json')
const v = await curbi.verifyBundle(valid.bundle, { keys: valid.keys, allowTest: true })
check('the valid seed vector verifies', v.ok === true && v.reason === 'verifies', v.reason)
const tampered = await vector('tampered-amount.json')
const t = await curbi.verifyBundle(tampered.bundle, { keys: tampered.keys, allowTest: true })
check('the tampered amount is bad_signature', t.reason === 'bad_signature', t.reason)
// Seed 000: "Starter is $99 a month." finds $99 at [11,14].
const c = curbi.compilePolicy({ prices: [{ item: 'Starter', amount: 49 }] }).check('Starter is $99 a month.')
check('UTF-16 spans', JSON.stringify(c.findings.map((f) => f.span)) === '[[11,14]]', JSON.stringify(c.findings))

// The verifier pool of two Deno Workers: every proof vector as one thread answers it.
const cases = []
for await (const e of Deno.readDir(new URL('vectors/proof/', root))) {
  if (!e.name.endsWith('.json') || e.name === 'cases.json') continue
  cases.push({ name: e.name, request: JSON.stringify(await vector(e.name)) })
}
const pool = await comparePool(curbi, cases, [2])
check(`the verifier pool (${pool.started} Workers) on ${cases.length} proof vectors`, cases.length > 50 && pool.started[0] === 2 && pool.mismatches.length === 0, pool.mismatches.slice(0, 3).join('; '))

if (Deno.args.includes('--differential')) {
  const text = await Deno.readTextFile(new URL('target/differential/calls.jsonl', root))
  const calls = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l))
  const { out, parts } = await runCalls(curbi, calls)
  const differ = calls.filter((call, i) => out[i] !== (typeof call.out === 'string' ? call.out : call.out.utf16))
  check(`${calls.length} differential calls give the core's bytes`, calls.length > 0 && differ.length === 0, differ.slice(0, 5).map((d) => d.id).join(', '))
  const partsDiffer = parts.filter((p) => p.got !== p.want)
  check(`verifyBundle(bundle, options) on ${parts.length} proof vectors`, parts.length > 50 && partsDiffer.length === 0, partsDiffer.map((p) => p.id).join(', '))
}

const failed = results.filter((r) => !r).length
console.log(`deno: ${results.length - failed} passed, ${failed} failed`)
Deno.exit(failed ? 1 : 0)
