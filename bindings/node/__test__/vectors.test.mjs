// The shared vectors through the addon: every case through `check(request)` (whole documents deep-equal, errors on
// code and path), and every single-reply case again through `compilePolicy` + `policy.check`.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import curbi from '../index.js'
import { assertCurbiError, checkVectors } from './vectors.mjs'

const vectors = checkVectors()
let ran = 0
let compiledRan = 0

test('every vector through check(request)', () => {
  for (const v of vectors) {
    if (v.expected.error) {
      assertCurbiError(() => curbi.check(v.request, v.receipts), v.expected.error.code, v.expected.error.path, v.where)
    } else {
      assert.deepStrictEqual(curbi.check(v.request, v.receipts), v.expected, v.where)
    }
    ran++
  }
  console.log(`node vectors: ${ran} ran`)
  assert.ok(ran > 0, 'no vectors ran')
})

test('the same vectors as JSON text give the same answers', () => {
  for (const v of vectors) {
    const text = JSON.stringify(v.request)
    const keys = v.receipts && JSON.stringify(v.receipts)
    if (v.expected.error) {
      assertCurbiError(() => curbi.check(text, keys), v.expected.error.code, v.expected.error.path, v.where)
    } else {
      assert.deepStrictEqual(curbi.check(text, keys), v.expected, v.where)
    }
  }
})

test('every single-reply vector through compilePolicy + policy.check', () => {
  for (const v of vectors) {
    const { policy, reply, record, version, verify, ...rest } = v.request
    if (v.expected.error || reply === undefined || Object.keys(rest).length > 0) continue
    const options = {}
    if (record !== undefined) options.record = record
    if (version !== undefined) options.version = version
    if (verify !== undefined) options.verify = verify
    const compiled = curbi.compilePolicy(policy, v.receipts)
    const got = compiled.check(reply, options)
    // Spans are UTF-16 code units on the wire and in JavaScript alike, so the whole document is the same.
    assert.deepStrictEqual(got, v.expected, v.where)
    // Options read once give the same answer as options read on every call.
    const prepared = curbi.prepareOptions(options)
    // Without a version the current checker answers.
    assert.equal(prepared.version, version ?? '2026-12-04', v.where)
    assert.deepStrictEqual(compiled.check(reply, prepared), v.expected, `${v.where} (prepared options)`)
    for (const f of got.findings) assert.equal(reply.slice(f.span[0], f.span[1]), f.text, `${v.where}: span`)
    compiledRan++
  }
  console.log(`node vectors through compilePolicy: ${compiledRan} ran`)
  assert.ok(compiledRan > 0, 'no single-reply vectors ran')
})

test('error vectors: compilePolicy and policy.check report the same codes, paths relative to what they read', () => {
  let seen = 0
  for (const v of vectors) {
    const err = v.expected.error
    const { policy, reply, record, version, verify, ...rest } = v.request
    if (!err || reply === undefined || Object.keys(rest).length > 0) continue
    if (err.path.startsWith('/policy/') || err.path === '/policy') {
      // The policy alone is the document compilePolicy reads.
      assertCurbiError(() => curbi.compilePolicy(policy), err.code, err.path.slice('/policy'.length), v.where)
      seen++
    } else if (err.path.startsWith('/record') || err.path === '/version' || err.path === '/verify') {
      // Options are read with the request schema: their paths are the request's.
      const options = {
        ...(record !== undefined && { record }),
        ...(version !== undefined && { version }),
        ...(verify !== undefined && { verify }),
      }
      const p = curbi.compilePolicy(policy, v.receipts)
      assertCurbiError(() => p.check(reply, options), err.code, err.path, v.where)
      if (err.code === 'unsupported') {
        // Receipts without receipt keys are refused by the check, not by reading the options.
        assert.equal(typeof curbi.prepareOptions(options), 'object', v.where)
      } else {
        assertCurbiError(() => curbi.prepareOptions(options), err.code, err.path, `${v.where} (prepareOptions)`)
      }
      seen++
    }
  }
  assert.ok(seen >= 3, `expected the policy, record and version error vectors, saw ${seen}`)
})
