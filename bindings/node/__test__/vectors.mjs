// Loads the shared conformance vectors (../../vectors/check/*.json) and checks each file's shape before use,
// as vectors/README.md asks of every runner.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import curbi from '../index.js'

export const VECTORS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'vectors')

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

/** Every case of every `check/*.json` file, as `{ file, index, description, request, expected, receipts? }`:
 * `receipts` is the receipt keys the policy is compiled with (configuration, never part of the request). */
export function checkVectors() {
  const dir = join(VECTORS, 'check')
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
  const out = []
  for (const file of files) {
    const doc = JSON.parse(readFileSync(join(dir, file), 'utf8'))
    assert.equal(typeof doc.description, 'string', `${file}: description`)
    assert.ok(Array.isArray(doc.cases) && doc.cases.length > 0, `${file}: a non-empty cases array`)
    doc.cases.forEach((c, index) => {
      const where = `${file}#${index}`
      const members = Object.keys(c).sort()
      const allowed = 'receipts' in c ? ['description', 'expected', 'receipts', 'request'] : ['description', 'expected', 'request']
      assert.deepEqual(members, allowed, `${where}: members`)
      if ('receipts' in c) assert.ok(isObject(c.receipts), `${where}: receipts is an object`)
      assert.ok(typeof c.description === 'string' && c.description.length > 0, `${where}: description`)
      assert.ok(isObject(c.request), `${where}: request is an object`)
      assert.ok(isObject(c.expected), `${where}: expected is an object`)
      out.push({ file, index, where, ...c })
    })
  }
  return out
}

/** `got` holds `want`: every member `want` names, recursively; arrays of equal length. */
export function contains(got, want) {
  if (Array.isArray(want)) return Array.isArray(got) && got.length === want.length && want.every((w, i) => contains(got[i], w))
  if (want && typeof want === 'object')
    return got !== null && typeof got === 'object' && Object.entries(want).every(([k, v]) => k in got && contains(got[k], v))
  return got === want
}

/** The codes of vectors/errors.json, in order. */
export function errorCodes() {
  return JSON.parse(readFileSync(join(VECTORS, 'errors.json'), 'utf8')).codes.map((c) => c.code)
}

/** Asserts that `fn` throws an Error with this code and path. */
export function assertCurbiError(fn, code, path, where = '') {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof curbi.CurbiError && e instanceof Error, `${where}: a CurbiError, got ${e}`)
    assert.equal(e.name, 'CurbiError')
    assert.equal(e.code, code, `${where}: code (message: ${e.message})`)
    assert.equal(e.path, path, `${where}: path (message: ${e.message})`)
    assert.equal(typeof e.message, 'string')
    assert.ok(e.message.length > 0, `${where}: a message`)
    return true
  })
}

/** Asserts that `promise` rejects with an Error with this code and path. */
export async function assertCurbiRejects(promise, code, path, where = '') {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof curbi.CurbiError, `${where}: a CurbiError, got ${e}`)
    assert.equal(e.code, code, `${where}: code (message: ${e.message})`)
    assert.equal(e.path, path, `${where}: path (message: ${e.message})`)
    return true
  })
}

/**
 * Parses JSON text keeping where each value is written, so a runner can pass a value's own bytes on (the purchase
 * vectors need `100.0` kept apart from `100`, which JavaScript numbers cannot). Returns `{ start, end, items }` for
 * arrays, `{ start, end, members }` (a Map) for objects, `{ start, end }` otherwise; `text.slice(start, end)` is the
 * value as written.
 */
export function spans(text) {
  let i = 0
  const ws = () => {
    while (/\s/.test(text[i] ?? '')) i++
  }
  const string = () => {
    const start = i++
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1
    i++
    return JSON.parse(text.slice(start, i))
  }
  // The members or items of the object or array at i, one call of `one` each, up to and past `close`.
  const each = (close, one) => {
    i++
    ws()
    while (text[i] !== close) {
      one()
      ws()
      if (text[i] === ',') i++
      ws()
    }
    i++
  }
  const value = () => {
    ws()
    const start = i
    if (text[i] === '{') {
      const members = new Map()
      each('}', () => {
        ws()
        const key = string()
        ws()
        assert.equal(text[i++], ':')
        members.set(key, value())
      })
      return { start, end: i, members }
    }
    if (text[i] === '[') {
      const items = []
      each(']', () => items.push(value()))
      return { start, end: i, items }
    }
    if (text[i] === '"') {
      string()
      return { start, end: i }
    }
    while (i < text.length && !/[\s,\]}]/.test(text[i])) i++
    return { start, end: i }
  }
  const root = value()
  JSON.parse(text) // the scan above trusts its input: make sure it was JSON
  return root
}

/** The group files of a vectors folder, parsed, in name order (`except` left out). */
export function groups(folder, except = []) {
  const dir = join(VECTORS, folder)
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !except.includes(f))
    .sort()
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8')
      const doc = JSON.parse(text)
      assert.equal(typeof doc.description, 'string', `${file}: description`)
      assert.ok(Array.isArray(doc.cases) && doc.cases.length > 0, `${file}: a non-empty cases array`)
      return { file, text, doc }
    })
}

/** A code list file (errors.json, warnings.json, purchase/reasons.json) as an array of its entries. */
export function codeList(path) {
  return JSON.parse(readFileSync(join(VECTORS, path), 'utf8')).codes
}

/**
 * Every case of `proof/cases.json` with its file, as `{ name, file, expected, doc, input, members }`: `input` is the
 * raw text of the file's `input` and `members` (when it is an object) a Map of each member's raw text, so the
 * vectors reach the verifier as written (JavaScript reads an index written `1.0` as `1`, which it must refuse).
 */
export function proofVectors() {
  const dir = join(VECTORS, 'proof')
  return JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')).cases.map((c) => {
    const text = readFileSync(join(dir, c.file), 'utf8')
    const doc = JSON.parse(text)
    const at = spans(text).members.get('input')
    const raw = (v) => text.slice(v.start, v.end)
    const members = at.members && new Map([...at.members].map(([name, v]) => [name, raw(v)]))
    assert.deepEqual(JSON.parse(raw(at)), doc.input, `${c.name}: raw input`)
    return { ...c, doc, input: raw(at), members }
  })
}
