'use strict'
// Loads the native addon, where napi-rs's layout puts it: beside this file as curbi.<triple>.node (what
// `napi build --platform`, npm run build, writes in a clone), else the platform package curbi-<triple> that npm
// installs as an optional dependency (docs/PACKAGING.md); NAPI_RS_NATIVE_LIBRARY_PATH names another file, as with
// napi's own loader. Written by hand: napi's generated loader is 850 lines for platforms and WASI flavours this
// package does not ship (package.json's napi.targets). curbi.js turns a missing addon into a message that says how
// to build it.
const { join } = require('node:path')

/** `-gnu` or `-musl` on Linux (napi's file names), from the C library the running Node links. */
function libc() {
  if (process.platform !== 'linux') return ''
  const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null
  if (report?.header?.glibcVersionRuntime) return '-gnu'
  const musl = (report?.sharedObjects ?? []).some((f) => f.includes('libc.musl-') || f.includes('ld-musl-'))
  return musl ? '-musl' : '-gnu'
}

const triple = `${process.platform}-${process.arch}${libc()}`
const candidates = process.env.NAPI_RS_NATIVE_LIBRARY_PATH
  ? [process.env.NAPI_RS_NATIVE_LIBRARY_PATH]
  : [join(__dirname, `curbi.${triple}.node`), `curbi-${triple}`]
const errors = []
for (const candidate of candidates) {
  try {
    module.exports = require(candidate)
    break
  } catch (e) {
    errors.push(e)
  }
}
if (errors.length === candidates.length) {
  throw new Error(`Cannot find native binding for ${triple} (tried ${candidates.join(', ')})`, { cause: errors })
}
