// vectors/recorder/scenarios.json through Recorder (the description member says the step format; the Rust runner is
// recorder/tests/vectors.rs), twice: the named methods (parsed answers) and `call` (the recorder's JSON text, byte
// for byte). Each bundle a step verifies is written to target/recorder-bundles/node/ with the recorder's keys, for
// `curbi verify` (scripts/test.sh). Then: the event loop runs while a call waits for the disk, calls at once share
// one recorder, refusals reject with a CurbiError.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { once } from 'node:events'
import { after, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'

import curbi from '../index.js'
import { VECTORS, assertCurbiRejects, contains } from './vectors.mjs'

const DOC = JSON.parse(readFileSync(join(VECTORS, 'recorder', 'scenarios.json'), 'utf8'))
const BUNDLES = join(VECTORS, '..', 'target', 'recorder-bundles', 'node')
const NO_REQUEST = new Set(['checkpoint', 'keys', 'status'])
// Every folder a test makes is removed when the file's tests end (the recorders in it are closed by then).
const made = []
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'curbi-recorder-node-'))
  made.push(dir)
  return dir
}
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

/** The scenario's test key in a file only its owner may read (the recorder refuses any other). */
function keyFile(db, kid) {
  const path = `${db}.${kid}.jwk`
  rmSync(path, { force: true })
  const fd = openSync(path, 'wx', 0o600)
  writeSync(fd, DOC.keys[kid].jwk)
  closeSync(fd)
  return path
}

function open(db, spec) {
  const config = { path: db, origin: DOC.origin, key_file: keyFile(db, spec.key), now: spec.now }
  if ('rotate' in spec) config.rotate = spec.rotate
  return curbi.Recorder.open(config)
}

/** The request with the string "$heads" (itself, or a member's value at any depth of objects) as the heads. */
function substitute(request, heads) {
  if (request === '$heads') return [...heads]
  if (request && typeof request === 'object' && !Array.isArray(request))
    return Object.fromEntries(Object.entries(request).map(([k, v]) => [k, substitute(v, heads)]))
  return request
}

/** One call: `{ value, text }`, `text` the recorder's own JSON when the call went through `call`. */
async function answer(recorder, method, request, byName) {
  if (!byName) {
    const text = await recorder.call(method, request)
    return { value: JSON.parse(text), text }
  }
  const name = method.replace(/_(\w)/g, (_, c) => c.toUpperCase())
  if (NO_REQUEST.has(method)) {
    assert.deepEqual(request, {}, `${method} takes no request`)
    return { value: await recorder[name]() }
  }
  return { value: await recorder[name](method === 'set_clock' ? request.now : request) }
}

/** The bundle verifies under the recorder's keys with every head so far as known; it is written out. */
async function verify(recorder, { value, text }, heads, base, where) {
  const keys = await answer(recorder, 'keys', {}, text === undefined)
  const request = text
    ? `{"bundle":${text},"keys":${keys.text},"known":${JSON.stringify(heads)}}`
    : { bundle: value, keys: keys.value, known: heads }
  const result = await curbi.verifyBundle(request)
  assert.equal(result.ok, true, `${where}: ${JSON.stringify(result)}`)
  writeFileSync(`${base}.bundle.json`, text ?? JSON.stringify(value))
  writeFileSync(`${base}.keys.json`, keys.text ?? JSON.stringify(keys.value))
}

async function runScenarios(dir, byName) {
  let ran = 0
  for (const [n, scenario] of DOC.scenarios.entries()) {
    const db = join(dir, `s${n}.db`)
    let recorder = await open(db, scenario.open)
    const answers = []
    const heads = []
    for (const [i, step] of scenario.steps.entries()) {
      const where = `${scenario.name}, step ${i}`
      ran++
      answers.push(undefined)
      if (step.reopen) {
        // A reopen that fails leaves the recorder that was open as it was.
        if (step.error) await assertCurbiRejects(open(db, step.reopen), step.error.code, step.error.path, where)
        else recorder = await open(db, step.reopen)
        continue
      }
      const request = step.request_text ?? substitute(step.request, heads)
      if (step.error) {
        await assertCurbiRejects(answer(recorder, step.call, request, byName), step.error.code, step.error.path, where)
        continue
      }
      const got = await answer(recorder, step.call, request, byName)
      const { value } = got
      assert.ok(contains(value, step.expect ?? {}), `${where}: expected ${JSON.stringify(step.expect)}, got ${JSON.stringify(value)}`)
      for (const m of step.present ?? []) assert.ok(m in value, `${where}: ${m} missing`)
      for (const m of step.absent ?? []) assert.ok(!(m in value), `${where}: ${m} present`)
      if ('same_as' in step) {
        // The recorder's text must be the earlier answer's, byte for byte; a parsed answer must be equal.
        if (byName) assert.deepStrictEqual(value, answers[step.same_as].value, where)
        else assert.equal(got.text, answers[step.same_as].text, where)
      }
      if (step.call === 'checkpoint' && !heads.includes(value.note)) heads.push(value.note)
      if (step.verify) await verify(recorder, got, heads, join(BUNDLES, `s${n}-${i}`), where)
      answers[i] = got
    }
  }
  return ran
}

test('recorder scenarios through the named methods, then through call', async () => {
  rmSync(BUNDLES, { recursive: true, force: true })
  mkdirSync(BUNDLES, { recursive: true })
  // `call` last: the bundles it leaves are the recorder's own bytes.
  for (const byName of [true, false]) {
    const dir = tmp()
    const ran = await runScenarios(dir, byName)
    console.log(`node recorder vectors: ${ran} steps ran (${byName ? 'named methods' : 'call'})`)
    assert.ok(ran >= 70, `only ${ran} steps ran`)
    rmSync(dir, { recursive: true, force: true })
  }
})

const FIRST = DOC.scenarios[0]
const GRANT = FIRST.steps[0].request

async function firstRecorder() {
  const db = join(tmp(), 'r.db')
  const recorder = await open(db, FIRST.open)
  await recorder.grant(GRANT)
  return { recorder, db }
}

/** Another process holding the database's write lock until `release()` (Python's sqlite3: Node 20 has none). */
async function writeLock(db) {
  const hold =
    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); " +
    "print('locked', flush=True); sys.stdin.readline(); c.execute('ROLLBACK')"
  const child = spawn('python3', ['-c', hold, db], { stdio: ['pipe', 'pipe', 'inherit'] })
  let said = ''
  for await (const chunk of child.stdout) {
    said += chunk
    if (said.includes('\n')) break
  }
  if (said !== 'locked\n') {
    child.kill()
    assert.fail(`the lock holder said ${JSON.stringify(said)}`)
  }
  return async () => {
    child.stdin.end('\n')
    const [code] = await once(child, 'exit')
    assert.equal(code, 0)
  }
}

test('the event loop runs while a call waits on the thread pool', async () => {
  // The call waits for a lock that only this event loop can have released: timers fire meanwhile only if the call
  // runs off the loop.
  const { recorder, db } = await firstRecorder()
  const release = await writeLock(db)
  let settled = false
  let ticks = 0
  let waited = false
  const pending = recorder.checkpoint().finally(() => {
    settled = true
  })
  try {
    for (let k = 0; k < 10; k++) {
      await sleep(10)
      ticks++
    }
    waited = !settled
  } finally {
    await release()
  }
  const head = await pending
  assert.ok(waited, `the checkpoint waits for the lock (it answered ${JSON.stringify(head)})`)
  assert.equal(ticks, 10)
  assert.equal(head.size, 0)
})

test('calls at once on one recorder: every refund allowed and receipted once', async () => {
  const { recorder } = await firstRecorder()
  const keys = Array.from({ length: 24 }, (_, i) => `n${i}`)
  const action = { agent: 'agent:support', operation: 'billing.refund', resource: 'charge:ch_1', amount: 100, currency: 'USD' }
  const attested = await Promise.all(
    keys.map((k) => recorder.attest({ tenant: 'acme', idempotency_key: k, grant: GRANT.id, action })),
  )
  assert.ok(attested.every((a) => a.decision === 'ALLOW'))
  const evidence = (k) =>
    JSON.stringify({ id: `re_${k}`, operation: 'billing.refund', resource: 'charge:ch_1', amount: 100, currency: 'usd', status: 'succeeded' })
  const settled = await Promise.all(
    keys.map((k) => recorder.confirm({ tenant: 'acme', idempotency_key: k, outcome: 'DONE', evidence: evidence(k) })),
  )
  assert.deepEqual(settled.map((s) => s.seq).sort((a, b) => a - b), keys.map((_, i) => i))
  assert.equal((await recorder.grant(GRANT)).used, keys.length)
  assert.equal((await recorder.checkpoint()).size, keys.length)
})

test('refusals reject with a CurbiError', async () => {
  await assertCurbiRejects(curbi.Recorder.open({ origin: DOC.origin }), 'missing_field', '/path')
  await assertCurbiRejects(curbi.Recorder.open('{"path":"x","path":"y"}'), 'duplicate_member', '/path')
  const { recorder } = await firstRecorder()
  await assertCurbiRejects(recorder.call('nope', {}), 'not_found', '')
  await assertCurbiRejects(recorder.held({ limit: 0 }), 'out_of_range', '/limit')
  await assertCurbiRejects(recorder.grant({ ...GRANT, limits: { ...GRANT.limits, max_amount: 1 } }), 'grant_conflict', '/id')
  assert.deepEqual(await recorder.setClock(FIRST.open.now + 60), {})
  await assertCurbiRejects(recorder.setClock(1.5), 'invalid_type', '/now')
  const status = await recorder.status()
  assert.deepEqual([status.origin, status.size, status.head], [DOC.origin, 0, null])
  assert.throws(() => new curbi.Recorder(), 'Recorder.open makes recorders')
})

test('close waits for the calls in flight, then every call rejects with closed', async () => {
  const { recorder, db } = await firstRecorder()
  const release = await writeLock(db)
  let closedYet = false
  const pending = recorder.checkpoint()
  await sleep(50)
  const closing = recorder.close().then(() => {
    closedYet = true
  })
  assert.equal(recorder.closed, true)
  // A call made while close waits rejects at once, without queueing behind it.
  await assertCurbiRejects(recorder.status(), 'closed', '')
  await sleep(50)
  assert.equal(closedYet, false, 'close waits for the checkpoint held up by the lock')
  await release()
  assert.equal((await pending).size, 0)
  await closing
  await assertCurbiRejects(recorder.grant(GRANT), 'closed', '')
  await recorder.close()
})

test('after close the database is closed: SQLite removed its write-ahead log, and a reopen finds everything', async () => {
  const db = join(tmp(), 'c.db')
  const recorder = await open(db, FIRST.open)
  await recorder.grant(GRANT)
  assert.ok(existsSync(`${db}-wal`))
  await recorder.close()
  assert.equal(existsSync(`${db}-wal`), false)
  const again = await open(db, FIRST.open)
  assert.deepEqual(await again.grant(GRANT), { id: GRANT.id, used: 0 })
  await again.close()
})

test('publish writes the log as C2SP tiles; status names the log vkey; cosign needs witnesses', async () => {
  const dir = tmp()
  const kid = Object.keys(DOC.keys)[0]
  const recorder = await open(join(dir, 'log.db'), { key: kid, now: 1793714400 })
  await recorder.grant({
    id: 'g-refunds', agent: 'agent:support', operations: ['billing.refund'], resources: ['charge:*'],
    limits: { max_amount: 10000, currency: 'USD' }, expires_at: '2027-01-01T00:00:00Z',
  })
  const action = { agent: 'agent:support', operation: 'billing.refund', resource: 'charge:ch_1', amount: 100, currency: 'USD' }
  const attested = await recorder.attest({ tenant: 'acme', idempotency_key: 'rf-1', grant: 'g-refunds', action })
  assert.equal(attested.decision, 'ALLOW')
  const evidence = JSON.stringify({ id: 're_1', operation: 'billing.refund', resource: 'charge:ch_1', amount: 100, currency: 'usd' })
  await recorder.confirm({ tenant: 'acme', idempotency_key: 'rf-1', outcome: 'DONE', evidence })
  const head = await recorder.checkpoint()
  const out = join(dir, 'public')
  const published = await recorder.publish({ dir: out })
  assert.deepEqual(published, { size: 1, previous: 0, files: 2, checkpoint: head.note })
  assert.equal(readFileSync(join(out, 'checkpoint'), 'utf8'), head.note)
  assert.equal(readFileSync(join(out, 'tile', '0', '000.p', '1')).length, 32, 'one leaf hash')
  const status = await recorder.status()
  assert.match(status.vkey, new RegExp(`^${DOC.origin.replace(/[.]/g, '\\.')}\\+[0-9a-f]{8}\\+`))
  await assertCurbiRejects(recorder.cosign(), 'missing_field', '/witnesses', 'cosign')
})

test('max_clock_ahead: a write dated too far past the log time is refused with clock_ahead; the setting lets it sign', async () => {
  const dir = tmp()
  const kid = Object.keys(DOC.keys)[0]
  const db = join(dir, 'log.db')
  const now = 1793714400
  const first = await open(db, { key: kid, now })
  assert.equal((await first.checkpoint()).size, 0)
  await first.close()
  const decade = 10 * 365 * 86400
  const far = await open(db, { key: kid, now: now + decade })
  assert.equal((await far.status()).sealed, null, 'a read at a clock years ahead answers')
  await assertCurbiRejects(far.call('checkpoint', {}), 'clock_ahead', '')
  await far.close()
  const config = (extra) => ({ path: db, key_file: keyFile(db, kid), now: now + 30 * 86400, ...extra })
  await assertCurbiRejects(curbi.Recorder.open(config({ max_clock_ahead: 0 })), 'out_of_range', '/max_clock_ahead')
  const idle = await curbi.Recorder.open(config({}))
  await assertCurbiRejects(idle.grant(GRANT), 'clock_ahead', '')
  await idle.close()
  const late = await curbi.Recorder.open(config({ max_clock_ahead: 40 * 86400 }))
  assert.equal((await late.grant(GRANT)).id, GRANT.id)
  await late.close()
})
