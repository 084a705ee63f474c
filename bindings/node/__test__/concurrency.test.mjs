// Many checks at once agree with the sync results, and heavy async work runs off the event loop.
import assert from 'node:assert/strict'
import { test } from 'node:test'

import curbi from '../index.js'
import { checkVectors } from './vectors.mjs'

// The single-reply vectors: real policies, records and replies with known answers.
const singles = checkVectors().filter((v) => !v.expected.error && v.request.reply !== undefined && !v.request.cases)
const N = 1000

function job(i) {
  const v = singles[i % singles.length]
  const { policy, reply, record, version, verify } = v.request
  const options = {
    ...(record !== undefined && { record }),
    ...(version !== undefined && { version }),
    ...(verify !== undefined && { verify }),
  }
  return { v, policy: curbi.compilePolicy(policy, v.receipts), reply, options }
}

test(`${N} concurrent checkAsync calls agree with sync results and the vectors`, async () => {
  assert.ok(singles.length > 100, `enough distinct vectors (${singles.length})`)
  const jobs = Array.from({ length: N }, (_, i) => job(i))
  const sync = jobs.map((j) => j.policy.check(j.reply, j.options))
  const async = await Promise.all(jobs.map((j) => j.policy.checkAsync(j.reply, j.options)))
  const whole = await Promise.all(jobs.map((j) => curbi.checkAsync(j.v.request, j.v.receipts)))
  const prepared = await Promise.all(jobs.map((j) => j.policy.checkAsync(j.reply, curbi.prepareOptions(j.options))))
  for (let i = 0; i < N; i++) {
    assert.deepStrictEqual(async[i], sync[i], jobs[i].v.where)
    assert.deepStrictEqual(prepared[i], sync[i], jobs[i].v.where)
    assert.deepStrictEqual(sync[i], jobs[i].v.expected, jobs[i].v.where)
    assert.deepStrictEqual(whole[i], jobs[i].v.expected, jobs[i].v.where)
  }
})

test(`${N} concurrent checkAsync calls on one shared policy`, async () => {
  const p = curbi.compilePolicy({
    prices: [{ item: 'Starter', amount: 49 }, { item: 'Pro', amounts: [99, 990] }],
    forbid: [{ id: 'guarantee', phrases: ['guarantee'] }],
  })
  const replies = Array.from({ length: N }, (_, i) => `#${i} Starter is $${40 + (i % 20)}; Pro is $99. We guarantee it.`)
  const sync = replies.map((r) => p.check(r))
  const async = await Promise.all(replies.map((r) => p.checkAsync(r)))
  assert.deepStrictEqual(async, sync)
  // Only $49 is approved for Starter: one mismatch unless the amount is 49; the guarantee fires every time.
  replies.forEach((r, i) => {
    const rules = sync[i].findings.map((f) => f.rule)
    assert.deepEqual(rules, 40 + (i % 20) === 49 ? ['forbid:guarantee'] : ['price:mismatch', 'forbid:guarantee'], r)
  })
})

test('a tight sync loop gives the same answer every time', () => {
  const j = job(7)
  const first = j.policy.check(j.reply, j.options)
  assert.deepStrictEqual(first, j.v.expected)
  for (let i = 0; i < N; i++) assert.deepStrictEqual(j.policy.check(j.reply, j.options), first)
})

test('heavy checkAsync calls do not block the event loop', async () => {
  // A large policy (50 items with 8 aliases, 50 rules of 20 phrases) and a ~3,100-character reply: each check is
  // hundreds of microseconds of work on a few kilobytes of input, so 200 of them are far more than one turn of
  // the event loop should hold.
  const aliases = (i) => ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'].map((w) => `${w}${i}`)
  const policy = curbi.compilePolicy({
    prices: Array.from({ length: 50 }, (_, i) => ({ item: `Plan ${i}`, amounts: [i + 1, 10 * (i + 1)], aliases: aliases(i) })),
    forbid: Array.from({ length: 50 }, (_, i) => ({
      id: `rule-${i}`,
      phrases: Array.from({ length: 20 }, (_, j) => `phrase${i} word${j}`),
    })),
  })
  const reply = Array.from({ length: 200 }, (_, i) => `Plan ${i % 50} is $${(i % 50) + 1}. `).join('')
  const expected = policy.check(reply)
  assert.equal(expected.pass, true, 'every amount is the approved one')

  let ticks = 0
  let done = false
  const tick = () => {
    ticks++
    if (!done) setImmediate(tick)
  }
  setImmediate(tick)
  const resolvedAt = []
  const pending = Array.from({ length: 200 }, () => policy.checkAsync(reply).then((r) => (resolvedAt.push(ticks), r)))
  assert.equal(ticks, 0, 'no tick can run while the calls are being made')
  const results = await Promise.all(pending)
  done = true
  for (const r of results) assert.deepStrictEqual(r, expected)
  // Work done on the calling thread would resolve every Promise before the first tick (their callbacks are
  // microtasks of the call that made them); off the loop, the loop turns while the thread pool works, so the last
  // result comes after at least one tick. How many ticks depends on the machine, so only that one is asserted.
  const last = Math.max(...resolvedAt)
  assert.ok(last >= 1, `the event loop did not turn before the last result (${last} ticks)`)
})

test('worker threads load the addon and give the same answers as the main thread', async () => {
  const { Worker } = await import('node:worker_threads')
  const source = `
    const { parentPort, workerData } = require('node:worker_threads')
    const curbi = require(workerData.addon)
    parentPort.postMessage(workerData.requests.map((r) => curbi.check(r)))
  `
  const requests = singles.slice(0, 100).map((v) => v.request)
  const addon = new URL('../index.js', import.meta.url).pathname
  const run = () =>
    new Promise((resolve, reject) => {
      const w = new Worker(source, { eval: true, workerData: { addon, requests } })
      w.once('message', resolve)
      w.once('error', reject)
    })
  const [a, b] = await Promise.all([run(), run()])
  const main = requests.map((r) => curbi.check(r))
  assert.deepStrictEqual(a, main)
  assert.deepStrictEqual(b, main)
  singles.slice(0, 100).forEach((v, i) => assert.deepStrictEqual(a[i], v.expected, v.where))
})
