// vectors/yaml/conversions.json through yamlToJson: the exact JSON text, or the error's code and path; then the
// text compiles as a policy.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'

import curbi from '../index.js'
import { VECTORS } from './vectors.mjs'

const DOC = JSON.parse(readFileSync(join(VECTORS, 'yaml', 'conversions.json'), 'utf8'))

test('the YAML vectors', () => {
  assert.ok(DOC.cases.length >= 10)
  for (const c of DOC.cases) {
    if ('json' in c) {
      assert.equal(curbi.yamlToJson(c.yaml), c.json, c.description)
    } else {
      assert.throws(() => curbi.yamlToJson(c.yaml), (e) => e.code === c.error.code && e.path === c.error.path, c.description)
    }
  }
})

test('a YAML policy compiles; a non-string is invalid_type', () => {
  const policy = curbi.compilePolicy(curbi.yamlToJson('prices:\n  - item: Pro\n    amount: 49.90\n'))
  assert.deepEqual(policy.check('Pro is $49.99.').findings.map((f) => f.rule), ['price:mismatch'])
  assert.throws(() => curbi.yamlToJson({ prices: [] }), (e) => e.code === 'invalid_type')
})
