// What `npm pack` puts in the tarball: the root LICENSE (byte for byte) beside the code and the types.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = join(dirname(fileURLToPath(import.meta.url)), '..')

test('the packed tarball carries the LICENSE, index.js, index.d.ts and documents.d.ts', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: here, encoding: 'utf8' })
  const [pack] = JSON.parse(out)
  const paths = pack.files.map((f) => f.path)
  for (const name of ['LICENSE', 'index.js', 'index.d.ts', 'documents.d.ts', 'package.json']) assert.ok(paths.includes(name), name)
  assert.deepEqual(readFileSync(join(here, 'LICENSE')), readFileSync(join(here, '..', '..', 'LICENSE')))
})
