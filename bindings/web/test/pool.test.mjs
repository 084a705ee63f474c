// The verifier pool (createVerifierPool) in Node's worker_threads: byte-for-byte the one-thread verifier's answers
// on every proof vector and on a large bundle with one tampered receipt in the middle (CURBI_WEB_LARGE_REQUEST,
// written by test.sh with core's verify_peak example), its errors, and its fallback to the calling thread.
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { test } from 'node:test'
import { Worker as NodeWorker } from 'node:worker_threads'

import * as curbi from '../index.js'
import { comparePool, tampered } from './pool-cases.mjs'

const dir = new URL('../../../vectors/proof/', import.meta.url)
const vectors = readdirSync(dir)
  .filter((f) => f.endsWith('.json') && f !== 'cases.json')
  .map((f) => ({ name: f, request: JSON.stringify(JSON.parse(readFileSync(new URL(f, dir), 'utf8')).input) }))

test('every proof vector: the pool of 1, 2 and 3 workers answers as verifyRequest and verifyBundle do', async () => {
  assert.ok(vectors.length > 50, `${vectors.length} proof vectors`)
  const { compared, started, mismatches } = await comparePool(curbi, vectors, [1, 2, 3])
  assert.deepEqual(mismatches, [])
  assert.deepEqual(started, [1, 2, 3], 'each pool started its workers (not the one-thread fallback)')
  assert.ok(compared >= vectors.length * 3, `${compared} answers compared`)
})

test('text mostly outside ASCII (more UTF-8 than the pool first encodes into): the same answers', async () => {
  // The pool posts UTF-8 bytes, encoded into a buffer sized for text that is nearly all ASCII; text with more
  // (euro signs take 3 bytes, an emoji 4 for its 2 UTF-16 units) is encoded again in full. Both must reach the
  // module whole: the answer is the one-thread one, whose path and message name the member.
  const wide = '€😀'.repeat(3000)
  const cases = vectors.slice(0, 4).flatMap(({ name, request }) => {
    const doc = JSON.parse(request)
    const cases = [{ name: `${name} with a wide top-level member`, request: JSON.stringify({ ...doc, note: wide }) }]
    if (Array.isArray(doc.keys?.keys) && doc.keys.keys.length > 0) {
      doc.keys.keys[0].comment = wide
      cases.push({ name: `${name} with a wide key member`, request: JSON.stringify(doc) })
    }
    return cases
  })
  assert.ok(cases.every(({ request }) => new TextEncoder().encode(request).length > request.length * 1.5))
  const { compared, mismatches } = await comparePool(curbi, cases, [2])
  assert.deepEqual(mismatches, [])
  assert.ok(compared >= cases.length, `${compared} answers compared`)
  const answer = await curbi.verifyRequest(cases[0].request)
  assert.equal(answer.path, '/note')
})

const large = process.env.CURBI_WEB_LARGE_REQUEST
test('a large bundle with one tampered receipt in the middle: the same report from 1 thread and from 2 and 4 workers', { skip: !large && !process.env.CURBI_REQUIRE_NATIVE && 'CURBI_WEB_LARGE_REQUEST is not set' }, async () => {
  assert.ok(large, 'test.sh sets CURBI_WEB_LARGE_REQUEST (verify_peak build)')
  const request = readFileSync(large, 'utf8')
  const n = JSON.parse(request).bundle.receipts.length
  const bad = tampered(request, n >> 1)
  // The expectations come from the change made: the tampered receipt alone fails its signature and decides.
  const one = await curbi.verifyRequest(bad)
  assert.equal(one.reason, 'bad_signature')
  assert.equal(one.path, `/bundle/receipts/${n >> 1}`)
  assert.equal(one.items[n].reason, 'duplicate')
  assert.equal(one.items.filter((i) => i.ok).length, n - 1)
  const valid = await curbi.verifyRequest(request)
  assert.equal(valid.reason, 'verifies')
  const cases = [{ name: 'valid', request }, { name: 'tampered', request: bad }]
  const { started, mismatches } = await comparePool(curbi, cases, [2, 4])
  assert.deepEqual(mismatches, [])
  assert.deepEqual(started, [2, 4])
})

test('errors: the pool rejects as the one-thread verifier does, and a closed pool verifies on this thread', async () => {
  const cases = [
    { name: 'not JSON', request: '{' },
    { name: 'a string', request: '"bundle"' },
    { name: 'no keys', request: '{"bundle":{}}' },
    { name: 'a browser gate proof', request: gateRequest() },
  ]
  const { mismatches } = await comparePool(curbi, cases, [2])
  assert.deepEqual(mismatches, [])
  await assert.rejects(curbi.createVerifierPool({ workers: 0 }), { name: 'CurbiError', code: 'out_of_range', path: '/workers' })
  await assert.rejects(curbi.createVerifierPool({ workers: 1.5 }), { code: 'out_of_range' })
  const pool = await curbi.createVerifierPool({ workers: 2 })
  await assert.rejects(pool.verifyRequest('{'), { name: 'CurbiError', code: 'invalid_json' })
  pool.close()
  assert.equal(pool.workers, 0)
  const { input } = JSON.parse(readFileSync(new URL('valid-four-domains.json', dir), 'utf8'))
  assert.deepEqual(await pool.verifyBundle(input.bundle, { keys: input.keys, allowTest: true }), await curbi.verifyBundle(input.bundle, { keys: input.keys, allowTest: true }))
  const byDefault = await curbi.createVerifierPool()
  assert.ok(byDefault.workers >= 1)
  byDefault.close()
})

/**
 * A `Worker` as a host that runs the pool's worker but announces it before the pool has listened: its hello is
 * dispatched in a microtask right after construction (while `createVerifierPool` is still awaiting the worker's
 * start), the way Deno delivered it, and the worker's own later hello is swallowed. A pool that listened only once
 * it had finished starting would lose that hello and wait forever.
 */
class EarlyHelloWorker extends EventTarget {
  static started = 0
  #worker

  constructor(url, options) {
    super()
    assert.deepEqual(options, { type: 'module' })
    EarlyHelloWorker.started++
    this.#worker = new NodeWorker(url)
    let announced = false
    this.#worker.on('message', (data) => {
      if (data?.hello && !announced) {
        announced = true
        return
      }
      this.dispatchEvent(new MessageEvent('message', { data }))
    })
    this.#worker.on('error', (error) => this.dispatchEvent(Object.assign(new Event('error'), { error })))
    queueMicrotask(() => this.dispatchEvent(new MessageEvent('message', { data: { hello: true } })))
  }

  postMessage(message) {
    this.#worker.postMessage(message)
  }

  terminate() {
    this.#worker.terminate()
  }
}

test('a host that delivers the hello before the pool listens (as Deno did): the pool starts and answers', { timeout: 30_000 }, async () => {
  assert.equal(globalThis.Worker, undefined, 'Node 20 has no global Worker: the pool uses worker_threads')
  globalThis.Worker = EarlyHelloWorker
  try {
    const { compared, started, mismatches } = await comparePool(curbi, vectors.slice(0, 8), [2])
    assert.deepEqual(mismatches, [])
    assert.deepEqual(started, [2])
    assert.ok(compared >= 8, `${compared} answers compared`)
    assert.equal(EarlyHelloWorker.started, 2, 'the pool started its workers through the Worker given')
  } finally {
    delete globalThis.Worker
  }
})

/** A gate proof made in this process and the request that verifies it (docs/PROOF.md §Browser gate proofs). */
function gateRequest() {
  const gate = curbi.createBrowserGate()
  const { proof, trust } = gate.prove({
    policy: { agent: 'a', operations: ['op'], resources: ['r:*'], expires_at: '2030-01-01T00:00:00Z' },
    registry: {},
    proposal: { action: { agent: 'a', operation: 'op', resource: 'r:1' }, now: '2029-01-01T00:00:00Z' },
  })
  gate.free()
  return JSON.stringify({ bundle: proof, keys: trust, allowTest: true })
}
