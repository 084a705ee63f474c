// `npx @curbi/web verify` (bin/curbi-web.mjs) against the native `curbi verify` (cli/src/proof_cmd.rs): for every
// proof vector, the same files and flags give the same stdout and exit status. Needs the release CLI
// (target/release/curbi, or $CURBI); without it the comparison is skipped unless CURBI_REQUIRE_NATIVE=1.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const bin = fileURLToPath(new URL('../bin/curbi-web.mjs', import.meta.url))
const native = process.env.CURBI ?? join(root, 'target/release/curbi')
const proof = join(root, 'vectors/proof')

const web = (args, input) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', input })

/** The flags `curbi verify` takes for a vector's request, with its documents written to files in `dir`. */
function argsFor(input, dir) {
  writeFileSync(join(dir, 'bundle.json'), JSON.stringify(input.bundle))
  writeFileSync(join(dir, 'keys.json'), JSON.stringify(input.keys))
  const args = [join(dir, 'bundle.json'), '--keys', join(dir, 'keys.json')]
  if (input.allowTest) args.push('--allow-test')
  if (input.trustBundleKeys) args.push('--trust-bundle-keys')
  if (input.mode) args.push('--mode', input.mode)
  if (input.now) args.push('--now', input.now)
  for (const [i, head] of (input.known ?? []).entries()) {
    writeFileSync(join(dir, `known-${i}.txt`), head)
    args.push('--known', join(dir, `known-${i}.txt`))
  }
  for (const w of input.witnesses?.keys ?? []) args.push('--witness', w)
  if (input.witnesses?.required !== undefined) args.push('--witnesses-required', String(input.witnesses.required))
  return args
}

test('exit statuses: 0 verifies, 1 rejected, 2 unusable input or arguments', () => {
  const valid = join(proof, 'bundle.valid.json')
  const keys = join(proof, 'keys.test.json')
  assert.equal(web(['verify', valid, '--keys', keys, '--allow-test']).status, 0)
  // Seed 003: test keys are refused by default.
  const refused = web(['verify', valid, '--keys', keys])
  assert.equal(refused.status, 1)
  assert.equal(JSON.parse(refused.stdout).reason, 'no_trusted_keys')
  assert.equal(web(['verify', valid]).status, 2)
  assert.equal(web(['verify', valid, '--keys', join(proof, 'missing.json')]).status, 2)
  const notJson = web(['verify', '-', '--keys', keys], '{"object":')
  assert.equal(notJson.status, 2)
  assert.equal(JSON.parse(notJson.stdout).error.path, '/bundle')
  const badKeys = web(['verify', valid, '--keys', '-'], '{"keys":[{"kty":"RSA"}]}')
  assert.equal(badKeys.status, 2)
  assert.equal(JSON.parse(badKeys.stdout).reason, 'malformed')
  assert.equal(web(['verify', valid, '--keys', keys, '--bogus']).status, 2)
  assert.equal(web(['nope']).status, 2)
  assert.equal(web(['--help']).status, 0)
})

test('npx runs the package bin: npx <package> verify', () => {
  const pkg = fileURLToPath(new URL('..', import.meta.url))
  const args = ['--yes', pkg, 'verify', join(proof, 'bundle.valid.json'), '--keys', join(proof, 'keys.test.json')]
  const refused = spawnSync('npx', args, { encoding: 'utf8', timeout: 120_000 })
  assert.equal(refused.status, 1, refused.stderr)
  assert.equal(JSON.parse(refused.stdout).reason, 'no_trusted_keys')
  const ok = spawnSync('npx', [...args, '--allow-test'], { encoding: 'utf8', timeout: 120_000 })
  assert.equal(ok.status, 0, ok.stderr)
})

test('a copy of the package without its built module: CURBI_WEB_NOT_BUILT and how to build, not ERR_MODULE_NOT_FOUND', () => {
  // The package as a clone has it before scripts/build.sh: every file it publishes except pkg/.
  const here = fileURLToPath(new URL('..', import.meta.url))
  const dir = mkdtempSync(join(tmpdir(), 'curbi-web-not-built-'))
  try {
    const { files } = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'))
    cpSync(join(here, 'package.json'), join(dir, 'package.json'))
    for (const f of files.filter((f) => f !== 'pkg/' && f !== 'README.md')) cpSync(join(here, f), join(dir, f), { recursive: true })
    assert.ok(!existsSync(join(dir, 'pkg')))
    const args = ['verify', join(proof, 'bundle.valid.json'), '--keys', join(proof, 'keys.test.json'), '--allow-test']
    const direct = spawnSync(process.execPath, [join(dir, 'bin/curbi-web.mjs'), ...args], { encoding: 'utf8' })
    const npx = spawnSync('npx', ['--yes', dir, ...args], { encoding: 'utf8', timeout: 120_000 })
    for (const [how, r] of [['node bin/curbi-web.mjs', direct], ['npx', npx]]) {
      assert.equal(r.status, 3, `${how}: ${r.stderr}`)
      assert.equal(r.stdout, '', how)
      assert.match(r.stderr, /^curbi-web: CURBI_WEB_NOT_BUILT: the WebAssembly module is not built/, how)
      assert.match(r.stderr, /pkg\/wasm\/curbi_wasm\.js/, how)
      assert.match(r.stderr, /run `npm run build` in /, how)
      assert.doesNotMatch(r.stderr, /ERR_MODULE_NOT_FOUND|at async|node:internal/, how)
    }
    const version = spawnSync(process.execPath, [join(dir, 'bin/curbi-web.mjs'), '--version'], { encoding: 'utf8' })
    assert.equal(version.status, 3)
    assert.match(version.stderr, /CURBI_WEB_NOT_BUILT/)
    // What needs no module still works: help, and usage errors (exit 2).
    assert.equal(spawnSync(process.execPath, [join(dir, 'bin/curbi-web.mjs'), '--help']).status, 0)
    assert.equal(spawnSync(process.execPath, [join(dir, 'bin/curbi-web.mjs'), 'verify', 'x.json']).status, 2)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('every proof vector: the same stdout and exit status as the native curbi verify', (t) => {
  if (!existsSync(native)) {
    if (process.env.CURBI_REQUIRE_NATIVE === '1') assert.fail(`no native CLI at ${native}`)
    t.skip(`no native CLI at ${native}`)
    return
  }
  const { cases } = JSON.parse(readFileSync(join(proof, 'cases.json'), 'utf8'))
  let compared = 0
  for (const c of cases) {
    const { input } = JSON.parse(readFileSync(join(proof, c.file), 'utf8'))
    // Requests the CLI's flags cannot express (not an object, or a member it has no flag for) stay library-only.
    if (input === null || typeof input !== 'object' || Array.isArray(input)) continue
    const flags = ['bundle', 'keys', 'allowTest', 'trustBundleKeys', 'mode', 'now', 'known', 'witnesses']
    if (!Object.keys(input).every((k) => flags.includes(k)) || !('bundle' in input) || !('keys' in input)) continue
    const dir = mkdtempSync(join(tmpdir(), 'curbi-web-cli-'))
    const args = ['verify', ...argsFor(input, dir)]
    const want = spawnSync(native, args, { encoding: 'utf8' })
    const got = web(args)
    if ('now' in input) {
      assert.equal(got.stdout, want.stdout, c.file)
    } else {
      // Without `now` both read the clock, a second or so apart: the same answer, each with its own time.
      const times = (out) => [...out.matchAll(/\(now (\d+)\)/g)].map((m) => Number(m[1]))
      const [gotTimes, wantTimes] = [times(got.stdout), times(want.stdout)]
      assert.equal(gotTimes.length, wantTimes.length, c.file)
      gotTimes.forEach((g, i) => assert.ok(Math.abs(g - wantTimes[i]) <= 60, `${c.file}: now ${g} and ${wantTimes[i]}`))
      const untimed = (out) => out.replace(/\(now \d+\)/g, '(now)')
      assert.equal(untimed(got.stdout), untimed(want.stdout), c.file)
    }
    assert.equal(got.status, want.status, c.file)
    rmSync(dir, { recursive: true, force: true })
    compared++
  }
  assert.ok(compared >= 60, `only ${compared} vectors compared`)
})
