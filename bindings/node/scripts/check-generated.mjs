// Rebuilds the addon with `napi build` and fails when the committed index.d.ts differs from what the build
// generates (it is generated from src/*.rs and dts-header.d.ts, and committed for users without Rust). index.js is
// written by hand (the build runs with --no-js).
// Run: `npm run check-generated`. On failure the regenerated files are left in place to be reviewed and committed.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..')
const GENERATED = ['index.d.ts']
const read = (f) => {
  try {
    return readFileSync(join(pkg, f), 'utf8')
  } catch {
    return null
  }
}

const before = Object.fromEntries(GENERATED.map((f) => [f, read(f)]))
const napi = join(pkg, 'node_modules', '.bin', 'napi')
const build = spawnSync(napi, ['build', '--platform', '--no-js', '--release', '--', '--locked'], { cwd: pkg, stdio: 'inherit' })
if (build.status !== 0) {
  console.error(`check-generated: napi build failed (status ${build.status})`)
  process.exit(1)
}
const stale = GENERATED.filter((f) => before[f] !== read(f))
if (stale.length > 0) {
  console.error(`check-generated: ${stale.join(' and ')} did not match the build; the regenerated files are in place`)
  console.error('check-generated: review them (git diff bindings/node) and commit them with the change that caused it')
  process.exit(1)
}
console.log(`check-generated: ${GENERATED.join(' and ')} are up to date`)
