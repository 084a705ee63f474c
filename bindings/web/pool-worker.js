// One worker of a verifier pool (`createVerifierPool` in core.js): a module Web Worker (browsers, Deno) or a Node
// `worker_threads` worker. It instantiates the WebAssembly module the pool posts (compiled once, on the pool's
// thread), then, per verification, reads the same text the other workers read (as UTF-8 bytes) and verifies its
// share of the receipts; the worker given `keep` holds its reading and makes the finish from every share. Only core's code
// verifies: this file passes text and shares.
import { init } from './core.js'
import * as wasm from './pkg/wasm/curbi_wasm.js'

const port =
  typeof self !== 'undefined' && typeof self.postMessage === 'function'
    ? { post: (m) => self.postMessage(m), listen: (f) => self.addEventListener('message', (e) => f(e.data)) }
    : await import('node:worker_threads').then(({ parentPort }) => ({
        post: (m) => parentPort.postMessage(m),
        listen: (f) => parentPort.on('message', f),
      }))

/** Readings kept for their finish, by job. */
const kept = new Map()

/** A core error document (thrown as text) or any other error, as the pool turns it back into an error. */
const failure = (e) => (typeof e === 'string' ? { text: e } : { message: String(e?.message ?? e), trap: e instanceof WebAssembly.RuntimeError })

const ops = {
  async init({ module }) {
    await init(module ?? undefined)
  },
  share({ job, request, bundle, options, part, parts, keep }) {
    const shares = request !== undefined ? wasm.sharesOfRequest(request) : wasm.sharesOfBundle(bundle, options)
    try {
      const share = shares.share(part, parts)
      if (keep) kept.set(job, shares)
      return share
    } finally {
      if (!keep) shares.free()
    }
  },
  finish({ job, shares }) {
    const reading = kept.get(job)
    kept.delete(job)
    if (reading === undefined) throw new Error(`no reading kept for job ${job}`)
    try {
      return reading.finish(shares)
    } finally {
      reading.free()
    }
  },
  drop({ job }) {
    kept.get(job)?.free()
    kept.delete(job)
  },
}

port.listen(async (message) => {
  const { id, op } = message
  try {
    port.post({ id, ok: true, result: await ops[op](message) })
  } catch (e) {
    port.post({ id, ok: false, error: failure(e) })
  }
})
port.post({ hello: true })
