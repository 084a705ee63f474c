// Before a build, requiring the package says that the addon is not built and how to build it (not napi's "npm has
// a bug related to optional dependencies"). Runs the package's own entry files from a folder with no addon.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = join(dirname(fileURLToPath(import.meta.url)), '..')

test('require without the addon names the missing addon and the build command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'curbi-not-built-'))
  try {
    for (const f of ['package.json', 'index.js', 'curbi.js']) copyFileSync(join(here, f), join(dir, f))
    assert.equal(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).main, 'curbi.js')
    const r = spawnSync(process.execPath, ['-e', `try { require(${JSON.stringify(dir)}) } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`], { encoding: 'utf8' })
    const { code, message } = JSON.parse(r.stdout)
    assert.equal(code, 'CURBI_ADDON_NOT_BUILT')
    assert.ok(message.includes(`native addon for ${process.platform}-${process.arch} is not built`), message)
    assert.match(message, /npm run build/)
    assert.doesNotMatch(message.split('The loader tried')[0], /npm has a bug/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
