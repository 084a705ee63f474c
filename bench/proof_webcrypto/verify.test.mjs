// The WebCrypto verifier is a real verifier: it accepts the benchmark bundle and rejects single-bit changes to a
// signature, a proof hash and the head's root, with the same verdicts as curbi (the Node addon) on the same text;
// and on the shared vectors (vectors/proof) it agrees with curbi wherever its scope reaches.
//
//   PROOF_WEBCRYPTO_REQUEST=/tmp/req.json node --test bench/proof_webcrypto/verify.test.mjs
//
// The request is a verify_bundle request from `verify_peak build` (bench/proof_webcrypto.sh makes one).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import test from 'node:test'

import { verifyRequest } from './verify.mjs'

const root = join(import.meta.dirname, '..', '..')
const curbi = createRequire(import.meta.url)(join(root, 'bindings', 'node', 'index.js'))
const path = process.env.PROOF_WEBCRYPTO_REQUEST
assert.ok(path, 'set PROOF_WEBCRYPTO_REQUEST to a request from `verify_peak build` (bench/proof_webcrypto.sh does)')
const text = readFileSync(path, 'utf8')
const request = JSON.parse(text)
const n = request.bundle.receipts.length
const middle = n >> 1

/** Both verifiers on the same text, in both JS variants; returns the JS result after checking they agree. */
async function both(requestText) {
  const [seq, conc, native] = await Promise.all([
    verifyRequest(requestText),
    verifyRequest(requestText, { concurrent: true }),
    curbi.verifyBundle(requestText),
  ])
  assert.deepEqual(conc, seq, 'sequential and concurrent give the same result')
  assert.equal(seq.ok, native.ok, `ok: webcrypto ${seq.reason}, curbi ${native.reason}`)
  assert.equal(seq.reason, native.reason, 'reason')
  assert.deepEqual(seq.items.map((i) => i.reason), native.items.map((i) => i.reason), 'item reasons')
  return seq
}

const edited = (edit) => {
  const copy = structuredClone(request)
  edit(copy)
  return JSON.stringify(copy)
}
const flipBit = (bytes, byte = 0, bit = 0) => {
  bytes[byte] ^= 1 << bit
  return bytes
}

test('accepts the benchmark bundle', async () => {
  const got = await both(text)
  assert.equal(got.ok, true)
  assert.equal(got.reason, 'verifies')
  assert.equal(got.items.length, n)
  assert.ok(got.items.every((i) => i.ok))
  assert.equal(got.head.size, n)
})

test('(a) one bit of one receipt signature changed: bad_signature', async () => {
  const got = await both(edited((r) => {
    const item = r.bundle.receipts[middle]
    const [payload, sig, kid] = item.receipt.slice('curbi-receipt-v1.'.length).split('.')
    const changed = flipBit(Buffer.from(sig, 'base64url'), 17, 3).toString('base64url')
    item.receipt = `curbi-receipt-v1.${payload}.${changed}.${kid}`
  }))
  assert.equal(got.ok, false)
  assert.equal(got.reason, 'bad_signature')
  assert.deepEqual(got.items.flatMap((i, k) => (i.ok ? [] : [k])), [middle])
})

test('(b) one inclusion-proof hash changed: not_in_log', async () => {
  const got = await both(edited((r) => {
    const proof = r.bundle.receipts[middle].proof
    proof[proof.length - 1] = flipBit(Buffer.from(proof.at(-1), 'base64'), 31, 7).toString('base64')
  }))
  assert.equal(got.ok, false)
  assert.equal(got.reason, 'not_in_log')
  assert.deepEqual(got.items.flatMap((i, k) => (i.ok ? [] : [k])), [middle])
})

// The published test key (docs/PROOF.md §Vectors): Ed25519 seed = SHA-256("curbi test key 0"). With it a head can
// be re-signed, so the altered root below is checked by the inclusion proofs, not only by the head's signatures.
async function testKey() {
  const seed = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('curbi test key 0')))
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]) // RFC 8410 wrapper
  return crypto.subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign'])
}

/** Signs checkpoint text as the gate does: an Ed25519 note signature and a cosignature/v1 at `time`. */
async function signHead(text, time, x) {
  const key = await testKey()
  const origin = text.slice(0, text.indexOf('\n'))
  const enc = new TextEncoder()
  const keyId = async (type) =>
    Buffer.from(await crypto.subtle.digest('SHA-256', Buffer.concat([enc.encode(`${origin}\n`), Buffer.of(type), x]))).subarray(0, 4)
  const sign = async (msg) => Buffer.from(await crypto.subtle.sign('Ed25519', key, enc.encode(msg)))
  const t = Buffer.alloc(8)
  t.writeBigUInt64BE(time)
  const note = Buffer.concat([await keyId(1), await sign(text)])
  const cosig = Buffer.concat([await keyId(4), t, await sign(`cosignature/v1\ntime ${time}\n${text}`)])
  return `${text}\n— ${origin} ${note.toString('base64')}\n— ${origin} ${cosig.toString('base64')}\n`
}

test('(c) a head whose root is altered: rejected, signed or not', async () => {
  const head = request.bundle.head
  const cut = head.lastIndexOf('\n\n') + 1
  const body = head.slice(0, cut)
  const [origin, size, rootText] = body.split('\n')
  const altered = `${origin}\n${size}\n${flipBit(Buffer.from(rootText, 'base64'), 0, 0).toString('base64')}\n`
  const cosigLine = head.slice(cut).split('\n')[2] // after the blank line: the note signature, then the cosignature
  const time = Buffer.from(cosigLine.split(' ').at(-1), 'base64').readBigUInt64BE(4) // key ID (4) ‖ time (8) ‖ sig
  const x = Buffer.from(request.keys.keys[0].x, 'base64url')
  // Deterministic signatures: re-signing the original body must reproduce the head byte for byte.
  assert.equal(await signHead(body, time, x), head, 'signHead reproduces the gate head')

  // The root changed under the original signatures: the head does not verify, nor does anything under it.
  const unsigned = await both(edited((r) => { r.bundle.head = altered + head.slice(cut) }))
  assert.equal(unsigned.ok, false)
  assert.equal(unsigned.reason, 'bad_signature')
  assert.ok(unsigned.items.every((i) => !i.ok))

  // The altered root properly signed by the trusted key: the head verifies, but no receipt is under that root.
  const resigned = await signHead(altered, time, x)
  const got = await both(edited((r) => { r.bundle.head = resigned }))
  assert.equal(got.ok, false)
  assert.equal(got.reason, 'not_in_log')
  assert.equal(got.head.size, n)
  assert.ok(got.items.every((i) => i.reason === 'not_in_log'))
})

// Vectors whose expected verdict needs a rule this verifier does not implement (docs/PERFORMANCE.md, "Against a
// WebCrypto JavaScript verifier"): it accepts them where curbi refuses, or refuses them for another reason. Everything else must agree with curbi exactly.
const OUT_OF_SCOPE = {
  'history-rewritten': 'consistency proofs are not checked',
  'bundle-contradicts-itself': 'older heads in the bundle are not checked (fork)',
  'older-head-larger-than-head': 'older heads in the bundle are not checked',
  'malformed-consistency-member': 'the consistency member is not read',
  'malformed-bundle-keys': "the bundle's own keys are not read",
  'malformed-index-float': 'JSON.parse reads 1.0 as 1',
  'malformed-keys-weak': 'small-order keys are not refused (it is refused later, for another reason)',
}

test('shared vectors (vectors/proof): agrees with curbi within its scope', async () => {
  const dir = join(root, 'vectors', 'proof')
  const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')).cases
  const valid = JSON.parse(readFileSync(join(dir, 'valid-four-domains.json'), 'utf8'))
  assert.equal((await verifyRequest(JSON.stringify(valid.input))).ok, true, 'valid-four-domains verifies')

  const tally = { agree: 0, unsupported: 0, outOfScope: [] }
  for (const c of cases) {
    const input = JSON.stringify(JSON.parse(readFileSync(join(dir, c.file), 'utf8')).input)
    const got = await verifyRequest(input)
    if (got.reason === 'unsupported') {
      assert.equal(got.ok, false)
      tally.unsupported++
    } else if (c.name in OUT_OF_SCOPE) {
      assert.notEqual(got.reason, c.expected.reason, `${c.name} is listed as out of scope but agrees`)
      tally.outOfScope.push(c.name)
    } else {
      assert.equal(got.ok, c.expected.ok, `${c.name}: ok`)
      assert.equal(got.reason, c.expected.reason, `${c.name}: reason`)
      if (c.expected.items && got.items.length > 0) {
        assert.deepEqual(got.items.map((i) => i.reason), c.expected.items, `${c.name}: items`)
      }
      tally.agree++
    }
  }
  assert.deepEqual(tally.outOfScope.sort(), Object.keys(OUT_OF_SCOPE).sort())
  console.log(`vectors: ${tally.agree} agree with curbi, ${tally.unsupported} use options not implemented here ` +
    `(answered 'unsupported'), ${tally.outOfScope.length} out of scope: ${tally.outOfScope.join(', ')}`)
})
