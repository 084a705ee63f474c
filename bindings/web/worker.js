// A module Web Worker running @curbi/web off the page's thread: `new Worker(new URL('@curbi/web/worker.js',
// import.meta.url), { type: 'module' })`, then post `{id, op, args}` with `op` one of the package's functions
// (`verifyBundle`, `verifyRequest`, `check`, `validatePolicy`, ...); the answer is `{id, ok: true, result}` or
// `{id, ok: false, error: {name, code, message, path}}`.
import * as curbi from './index.js'

const ops = {
  verifyBundle: curbi.verifyBundle,
  verifyRequest: curbi.verifyRequest,
  check: curbi.check,
  validatePolicy: curbi.validatePolicy,
  verifyCheckout: curbi.verifyCheckout,
  verifyAction: curbi.verifyAction,
  checkPolicy: (policy, reply, options) => curbi.compilePolicy(policy).check(reply, options),
}

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    if (!Object.hasOwn(ops, op)) throw new Error(`unknown op ${op}`)
    self.postMessage({ id, ok: true, result: await ops[op](...args) })
  } catch (e) {
    self.postMessage({ id, ok: false, error: { name: e.name, code: e.code, message: e.message, path: e.path } })
  }
}
self.postMessage({ ready: true, version: curbi.version() })
