#!/usr/bin/env node
// `npx @curbi/web verify BUNDLE --keys KEYS [--allow-test] ...`: the offline bundle verifier of `curbi verify`
// (cli/src/proof_cmd.rs) with its flags and exit statuses, through the WebAssembly build. This file reads files and
// arguments and prints; the verifying is core's.
import { existsSync, readFileSync } from 'node:fs'
import process from 'node:process'
import { fileURLToPath } from 'node:url'

const USAGE = `Usage:
  npx @curbi/web verify BUNDLE --keys KEYS [--allow-test] [--mode archival|fresh] [--now RFC3339] [--known FILE]...
                        [--trust-bundle-keys] [--witness VKEY]... [--witnesses-required K] [--pretty]
      Verify a curbi.proof/0.1 bundle offline against the keys you trust (BUNDLE or KEYS may be - for stdin)
  npx @curbi/web --version | --help

verify exit status: 0 verifies, 1 rejected (any other reason, a malformed bundle included), 2 unreadable input
  (a file that cannot be read or is not JSON, a bad key set, option or --known head), 3 internal error, or a
  package whose WebAssembly module is not built (CURBI_WEB_NOT_BUILT on stderr). In fresh mode --now defaults to
  the system clock. A verified bundle shows what a trusted key signed and logged, not that the provider action
  happened, and grants no authority.`

const EXIT_REJECTED = 1
const EXIT_INVALID = 2
const EXIT_INTERNAL = 3
/** Not a verdict about any input: the package cannot run (as an internal error, the verifier did not run). */
const EXIT_NOT_BUILT = EXIT_INTERNAL

class Exit extends Error {
  constructor(status) {
    super(`exit ${status}`)
    this.status = status
  }
}

// The WebAssembly module and its glue are build output (scripts/build.sh writes pkg/), absent from a clone that was
// never built. The package is imported only once they are there, so that such a clone says how to build it instead
// of Node's ERR_MODULE_NOT_FOUND for a file the user never heard of (as the Node addon's CURBI_ADDON_NOT_BUILT).
const BUILT = ['../pkg/wasm/curbi_wasm.js', '../pkg/wasm/curbi_wasm_bg.wasm']

async function loadPackage() {
  const missing = BUILT.filter((f) => !existsSync(new URL(f, import.meta.url)))
  if (missing.length > 0) {
    const pkg = fileURLToPath(new URL('..', import.meta.url))
    process.stderr.write(
      `curbi-web: CURBI_WEB_NOT_BUILT: the WebAssembly module is not built (no ${missing.map((f) => f.slice(3)).join(', ')} in ${pkg}).\n` +
        `From a clone of the repository: run \`npm run build\` in ${pkg} (bash scripts/build.sh; needs Rust with rustup and ` +
        'cargo, and installs the wasm32 target and wasm-bindgen-cli). From npm: reinstall @curbi/web, whose package ' +
        'carries pkg/.\n',
    )
    throw new Exit(EXIT_NOT_BUILT)
  }
  return import('../index.js')
}

function usageError(message) {
  process.stderr.write(`curbi-web: ${message}\n\n${USAGE}\n`)
  return new Exit(EXIT_INVALID)
}

function parseArgs(args) {
  const out = { known: [], witnesses: [] }
  let flagsDone = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (flagsDone || arg === '-' || !arg.startsWith('-')) {
      if (out.bundle !== undefined) throw usageError('verify takes exactly one BUNDLE')
      out.bundle = arg
      continue
    }
    const eq = arg.indexOf('=')
    const name = eq < 0 ? arg : arg.slice(0, eq)
    const inline = eq < 0 ? undefined : arg.slice(eq + 1)
    const value = () => {
      if (inline !== undefined) return inline
      if (i + 1 >= args.length) throw usageError(`verify: ${name} needs a value`)
      return args[++i]
    }
    const flag = (set) => {
      if (inline !== undefined) throw usageError(`verify: unknown option ${arg}`)
      set()
    }
    switch (name) {
      case '--': flagsDone = true; break
      case '--help': case '-h': return null
      case '--pretty': flag(() => { out.pretty = true }); break
      case '--allow-test': flag(() => { out.allowTest = true }); break
      case '--trust-bundle-keys': flag(() => { out.trustBundleKeys = true }); break
      case '--keys': out.keys = value(); break
      case '--known': out.known.push(value()); break
      case '--mode': out.mode = value(); break
      case '--now': out.now = value(); break
      case '--witness': out.witnesses.push(value()); break
      case '--witnesses-required': out.witnessesRequired = value(); break
      default: throw usageError(`verify: unknown option ${arg}`)
    }
  }
  if (out.bundle === undefined) throw usageError('verify needs a BUNDLE file (or - for stdin)')
  if (out.keys === undefined) throw usageError('verify needs --keys KEYS: the JWKS you trust is the trust anchor')
  if (out.bundle === '-' && out.keys === '-') throw usageError('verify: at most one input can be - (stdin)')
  if (out.witnessesRequired !== undefined && out.witnesses.length === 0) {
    throw usageError('verify: --witnesses-required needs at least one --witness')
  }
  return out
}

function readBytes(file) {
  try {
    return readFileSync(file === '-' ? 0 : file)
  } catch (e) {
    process.stderr.write(`curbi-web: cannot read ${file}: ${e.message}\n`)
    throw new Exit(EXIT_INVALID)
  }
}

function print(doc, pretty) {
  process.stdout.write(`${pretty ? JSON.stringify(doc, null, 2) : JSON.stringify(doc)}\n`)
}

function printError(code, message, path, pretty) {
  print({ error: { code, message, path } }, pretty)
  return new Exit(EXIT_INVALID)
}

/** A file as UTF-8 JSON text; not UTF-8, or not JSON, is the `invalid_json` document at `path`, exit 2. */
function jsonText(file, path, what, pretty) {
  const bytes = readBytes(file)
  let text
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    JSON.parse(text)
  } catch (e) {
    throw printError('invalid_json', `${what} (${file}) is not valid JSON: ${e.message}`, path, pretty)
  }
  return text
}

/** The clock's time as RFC 3339 to the second, for fresh mode without `--now`. */
const systemNow = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')

async function verify(args) {
  const a = parseArgs(args)
  if (a === null) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const { verifyBundle } = await loadPackage()
  const bundle = jsonText(a.bundle, '/bundle', 'BUNDLE', a.pretty)
  // The key set goes in as its own text, so that repeated member names in it are still seen by the core.
  const keys = jsonText(a.keys, '/keys', 'KEYS', a.pretty)
  const members = [`"keys":${keys}`]
  const member = (name, v) => members.push(`${JSON.stringify(name)}:${JSON.stringify(v)}`)
  if (a.allowTest) member('allowTest', true)
  if (a.trustBundleKeys) member('trustBundleKeys', true)
  if (a.mode !== undefined) member('mode', a.mode)
  if (a.now !== undefined) member('now', a.now)
  else if (a.mode === 'fresh') member('now', systemNow())
  const known = []
  for (const file of a.known) {
    try {
      known.push(new TextDecoder('utf-8', { fatal: true }).decode(readBytes(file)))
    } catch (e) {
      if (e instanceof Exit) throw e
      throw printError('invalid_note', `--known ${file} is not UTF-8 text`, `/known/${known.length}`, a.pretty)
    }
  }
  if (known.length > 0) member('known', known)
  if (a.witnesses.length > 0) {
    const policy = { keys: a.witnesses }
    if (a.witnessesRequired !== undefined) {
      if (!/^[0-9]+$/.test(a.witnessesRequired)) throw usageError('verify: --witnesses-required needs a count')
      policy.required = Number(a.witnessesRequired)
    }
    member('witnesses', policy)
  }
  const result = await verifyBundle(bundle, `{${members.join(',')}}`)
  print(result, a.pretty)
  if (result.ok) return 0
  // The caller's own keys, options or known heads cannot be used.
  if (result.reason === 'malformed' && !result.path.startsWith('/bundle')) return EXIT_INVALID
  return EXIT_REJECTED
}

async function main(argv) {
  const [command, ...rest] = argv
  switch (command) {
    case 'verify': return verify(rest)
    case '--version': case '-V': case 'version':
      process.stdout.write(`curbi-web ${(await loadPackage()).version()} (WebAssembly)\n`)
      return 0
    case 'help': case '--help': case '-h':
      process.stdout.write(`${USAGE}\n`)
      return 0
    case undefined: throw usageError('missing command')
    default: throw usageError(`unknown command ${command}`)
  }
}

try {
  process.exitCode = await main(process.argv.slice(2))
} catch (e) {
  if (e instanceof Exit) {
    process.exitCode = e.status
  } else if (e?.name === 'CurbiError' && e.code !== 'internal') {
    // Text that is not JSON after all (the core's strict reader): the error document, as `curbi verify` prints it.
    printError(e.code, e.message, e.path, false)
    process.exitCode = EXIT_INVALID
  } else {
    print({ error: { code: 'internal', message: `the verifier failed on this input; this is a bug, please report it with the input (${e?.message ?? e})`, path: '' } }, false)
    process.exitCode = EXIT_INTERNAL
  }
}
