// The shared Proof of Action vectors through verifyBundle, a Promise computed off the event loop.
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import test from 'node:test'
import { createRequire } from 'node:module'

const curbi = createRequire(import.meta.url)('../index.js')
const dir = join(import.meta.dirname, '..', '..', '..', 'vectors', 'proof')

// The raw text of the top-level member `name` of a JSON document: the vectors must reach the verifier as written
// (JavaScript reads an index written `1.0` as `1`, which the verifier must refuse).
function rawMember(text, name) {
  const key = `"${name}":`
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch === '"') {
      if (depth === 1 && text.startsWith(key, i)) {
        let j = i + key.length
        while (/\s/.test(text[j])) j++
        const start = j
        let d = 0
        for (; j < text.length; j++) {
          const c = text[j]
          if (c === '"') {
            for (j++; text[j] !== '"'; j++) if (text[j] === '\\') j++
          } else if (c === '{' || c === '[') d++
          else if (c === '}' || c === ']') {
            if (d === 0) break
            d--
            if (d === 0) { j++; break }
          } else if (d === 0 && c === ',') break
        }
        return text.slice(start, j)
      }
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++
    } else if (ch === '{' || ch === '[') depth++
    else if (ch === '}' || ch === ']') depth--
  }
  throw new Error(`no member ${name}`)
}

test('proof vectors through verifyBundle', async () => {
  const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')).cases
  let ran = 0
  for (const c of cases) {
    const text = readFileSync(join(dir, c.file), 'utf8')
    const doc = JSON.parse(text)
    const raw = rawMember(text, 'input')
    assert.deepEqual(JSON.parse(raw), doc.input, `${c.name}: raw input`)
    for (const input of [raw]) {
      const got = await curbi.verifyBundle(input)
      assert.equal(got.ok, doc.expected.ok, `${c.name}: ok`)
      assert.equal(got.reason, doc.expected.reason, `${c.name}: reason`)
      if (doc.expected.items) {
        assert.deepEqual(got.items.map((i) => i.reason), doc.expected.items, `${c.name}: items`)
      }
    }
    ran++
  }
  console.log(`# node proof vectors: ${ran} ran`)
  assert.ok(ran > 0, 'no proof vectors ran')
  assert.ok(readdirSync(dir).length > ran)
  // An object works too where JavaScript numbers lose nothing.
  const valid = JSON.parse(readFileSync(join(dir, 'valid-four-domains.json'), 'utf8'))
  assert.equal((await curbi.verifyBundle(valid.input)).reason, 'verifies')
})

test('verifyBundle rejects its Promise only for text that is not JSON', async () => {
  await assert.rejects(curbi.verifyBundle('{not json'), (e) => e.code === 'invalid_json')
  const bad = await curbi.verifyBundle({ bundle: {}, keys: {} })
  assert.equal(bad.ok, false)
})

test('verifyBundle keeps the event loop free while it works', async () => {
  const doc = JSON.parse(readFileSync(join(dir, 'valid-four-domains.json'), 'utf8'))
  let ticks = 0
  const timer = setInterval(() => ticks++, 0)
  await Promise.all(Array.from({ length: 200 }, () => curbi.verifyBundle(doc.input)))
  clearInterval(timer)
  assert.ok(ticks > 0, 'the event loop never ran while 200 verifications were pending')
})
