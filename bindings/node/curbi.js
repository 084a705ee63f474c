'use strict'
// The package's entry point: the loader (index.js), with a message that says what to do when the native addon is
// missing — napi's own loader said "npm has a bug related to optional dependencies", which is wrong for a clone
// that was never built.
try {
  module.exports = require('./index.js')
} catch (e) {
  if (!(e instanceof Error) || !e.message.startsWith('Cannot find native binding')) throw e
  const platform = `${process.platform}-${process.arch}`
  const err = new Error(
    `curbi: the native addon for ${platform} is not built or not installed. ` +
      'From a clone of the repository: run `npm ci && npm run build` in bindings/node (needs Rust and cargo). ' +
      `From npm: the package for this platform (curbi-${platform}-*) must be installed beside curbi; ` +
      'reinstall curbi without --no-optional / --omit=optional. The loader tried: ' +
      (e.cause ? [].concat(e.cause).map((c) => (c && c.message) || String(c)).join('; ') : e.message),
    { cause: e },
  )
  err.code = 'CURBI_ADDON_NOT_BUILT'
  throw err
}
