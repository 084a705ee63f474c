// The static verifier page: no server logic. Bundles are verified in a module Web Worker (../worker.js) so a large
// one does not block the page; replies are checked on the page. Every verdict is the core's, through @curbi/web.
import { CurbiError, compilePolicy, createBrowserGate, version } from '../index.js'

const $ = (id) => document.getElementById(id)

const worker = new Worker(new URL('../worker.js', import.meta.url), { type: 'module' })
const pending = new Map()
let nextId = 0
const workerReady = new Promise((resolve, reject) => {
  worker.addEventListener('error', (e) => reject(new Error(e.message || 'the verifier worker failed to start')))
  worker.addEventListener('message', ({ data }) => {
    if (data.ready) return resolve()
    const p = pending.get(data.id)
    pending.delete(data.id)
    if (data.ok) p.resolve(data.result)
    else p.reject(Object.assign(new CurbiError(data.error.message, data.error.code, data.error.path), { name: data.error.name }))
  })
})

async function inWorker(op, ...args) {
  await workerReady
  const id = nextId++
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject })
    worker.postMessage({ id, op, args })
  })
}

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props)
  node.append(...children)
  return node
}

// Drop or choose a file into a textarea.
for (const name of ['bundle', 'keys']) {
  const area = $(name)
  const load = async (file) => {
    area.value = await file.text()
  }
  $(`${name}-file`).addEventListener('change', (e) => e.target.files[0] && load(e.target.files[0]))
  area.addEventListener('dragover', (e) => e.preventDefault())
  area.addEventListener('drop', (e) => {
    e.preventDefault()
    if (e.dataTransfer.files[0]) load(e.dataTransfer.files[0])
  })
}

/** The options document from the form (`allowTest` as the box says, unless given). The page adds nothing the core
 * does not read. */
function options(allowTest = $('allow-test').checked) {
  const out = { keys: $('keys').value.trim() }
  if (allowTest) out.allowTest = true
  if ($('trust-bundle-keys').checked) out.trustBundleKeys = true
  if ($('mode').value === 'fresh') out.mode = 'fresh'
  if ($('now').value.trim()) out.now = $('now').value.trim()
  const members = [`"keys":${out.keys || 'null'}`]
  for (const k of ['allowTest', 'trustBundleKeys', 'mode', 'now']) {
    if (k in out) members.push(`${JSON.stringify(k)}:${JSON.stringify(out[k])}`)
  }
  // JSON text kept as the user wrote it, so the core's strict reader judges it (a repeated member is refused).
  if ($('known').value.trim()) members.push(`"known":${$('known').value.trim()}`)
  const witnesses = $('witnesses').value.split('\n').map((l) => l.trim()).filter(Boolean)
  if (witnesses.length) {
    const policy = { keys: witnesses }
    if ($('witnesses-required').value) policy.required = Number($('witnesses-required').value)
    members.push(`"witnesses":${JSON.stringify(policy)}`)
  }
  return `{${members.join(',')}}`
}

/**
 * Verifies, and when test keys were allowed, verifies again without them: a verdict that the second answer does not
 * repeat was reached under test keys, and the page says so (a green "Verifies" must not hide that it trusted a key
 * tagged `curbi:test` because a box was ticked). The core judges both; the page reads no keys itself. The result
 * gets two members after the core's: `underTestKeys` (boolean) and `testKeys`, null without allowTest, else
 * `{kids, without: {ok, reason}}`: the key IDs that signed the head or a receipt only with test keys trusted, and the
 * verdict without them. Allowing test keys doubles the work.
 */
async function verifyMarked(bundle, optionsWith, optionsWithout) {
  const result = await inWorker('verifyBundle', bundle, optionsWith)
  if (optionsWithout === null) return { ...result, underTestKeys: false, testKeys: null }
  const without = await inWorker('verifyBundle', bundle, optionsWithout)
  const differs = JSON.stringify(result) !== JSON.stringify(without)
  const kids = new Set()
  if (differs) {
    if (result.head && result.head.kid !== without.head?.kid) kids.add(result.head.kid)
    result.items.forEach((item, i) => {
      if (item.ok && item.kid && !without.items[i]?.ok) kids.add(item.kid)
    })
  }
  return { ...result, underTestKeys: differs, testKeys: { kids: [...kids], without: { ok: without.ok, reason: without.reason } } }
}

/** The visible mark of a verdict reached under test keys (`how`: what allowed them), or nothing. */
function testKeyNote(result, how) {
  if (!result.underTestKeys) return []
  const { kids, without } = result.testKeys
  const signed = kids.length ? ` Signed by test key ${kids.join(', ')} (tagged curbi:test).` : ''
  return [el('p', { className: 'test-note', textContent:
    `TEST KEYS: this verdict trusts test keys only because ${how}.${signed} ` +
    `Without test keys: ${without.ok ? 'verifies' : `rejected, ${without.reason}`}. ` +
    'A test key is published or made for trying things out: what it signed shows nothing about a production system.' })]
}

function showVerdict(result) {
  const verdict = $('verdict')
  verdict.dataset.ok = String(result.ok)
  verdict.dataset.reason = result.reason
  verdict.dataset.testKeys = String(result.underTestKeys)
  verdict.className = `${result.ok ? 'good' : 'bad'}${result.underTestKeys ? ' test' : ''}`
  verdict.replaceChildren(
    el('strong', { textContent: `${result.ok ? 'Verifies' : `Rejected: ${result.reason}`}${result.underTestKeys ? ' (under TEST keys)' : ''}` }),
    el('span', { textContent: ` ${result.message}${result.path ? ` (at ${result.path})` : ''}` }),
    ...testKeyNote(result, '“Accept test keys” (allowTest) is ticked'),
  )
  const body = $('items').tBodies[0]
  body.replaceChildren(
    ...result.items.map((item) => {
      const r = item.receipt
      const says = r
        ? `${r.status} ${r.operation} on ${r.resource} by ${r.agent}${r.amount !== undefined ? `, ${r.amount} ${r.currency} (minor units)` : ''}`
        : item.message
      const row = el('tr', { className: item.ok ? 'good' : 'bad' },
        el('td', { textContent: String(item.index) }),
        el('td', { textContent: item.ok ? 'ok' : 'rejected' }),
        el('td', { className: 'reason', textContent: item.reason }),
        el('td', { textContent: item.ok || !r ? says : `${says}: ${item.message}` }))
      row.dataset.reason = item.reason
      return row
    }),
  )
  $('items').hidden = result.items.length === 0
  $('result-json').textContent = JSON.stringify(result, null, 2)
  $('details').hidden = false
}

$('verify-button').addEventListener('click', async () => {
  const verdict = $('verdict')
  verdict.dataset.ok = ''
  verdict.dataset.reason = ''
  verdict.dataset.testKeys = ''
  verdict.className = 'busy'
  verdict.textContent = 'Verifying…'
  try {
    const allowTest = $('allow-test').checked
    showVerdict(await verifyMarked($('bundle').value, options(allowTest), allowTest ? options(false) : null))
  } catch (e) {
    verdict.className = 'bad'
    verdict.dataset.ok = 'false'
    verdict.dataset.reason = e.code ?? 'error'
    verdict.dataset.testKeys = 'false'
    verdict.textContent = `Cannot verify: ${e.message}${e.path ? ` (at ${e.path})` : ''}`
  }
})

/** The reply with each finding's span marked: spans are UTF-16 code units, so they index the string directly. */
function highlight(reply, findings) {
  const cuts = new Set([0, reply.length])
  for (const f of findings) f.span.forEach((c) => cuts.add(c))
  const points = [...cuts].sort((a, b) => a - b)
  const out = []
  for (let i = 0; i + 1 < points.length; i++) {
    const [from, to] = [points[i], points[i + 1]]
    const text = reply.slice(from, to)
    const covering = findings.map((f, n) => [f, n]).filter(([f]) => f.span[0] <= from && to <= f.span[1])
    if (covering.length === 0) {
      out.push(document.createTextNode(text))
      continue
    }
    const mark = el('mark', { textContent: text, title: covering.map(([f]) => `${f.rule}: ${f.why}`).join('\n') })
    mark.dataset.rule = covering.map(([f]) => f.rule).join(' ')
    mark.dataset.findings = covering.map(([, n]) => n + 1).join(' ')
    out.push(mark)
  }
  return out
}

$('check-button').addEventListener('click', () => {
  const verdict = $('check-verdict')
  const reply = $('reply').value
  try {
    const result = compilePolicy($('policy').value).check(reply)
    verdict.className = result.pass ? 'good' : 'bad'
    verdict.dataset.pass = String(result.pass)
    verdict.textContent = result.pass
      ? 'Pass: no configured rule fired (this grants no authority).'
      : `${result.findings.length} finding(s)`
    $('highlighted').replaceChildren(...highlight(reply, result.findings))
    $('findings').replaceChildren(
      ...result.findings.map((f) =>
        el('li', {}, el('code', { textContent: f.rule }), ` “${f.text}” at [${f.span.join(', ')}]: ${f.why}`)),
    )
  } catch (e) {
    verdict.className = 'bad'
    verdict.dataset.pass = 'error'
    verdict.textContent = e instanceof CurbiError ? `Invalid policy: ${e.message} (${e.code} at ${e.path || '/'})` : String(e)
    $('highlighted').replaceChildren()
    $('findings').replaceChildren()
  }
})

// The browser gate: one per tab, so its log grows with each proof and each trust document pins the head before.
let gate = null
let lastProof = null

function showGateVerdict(result, what) {
  const verdict = $('gate-verdict')
  verdict.dataset.ok = String(result.ok)
  verdict.dataset.reason = result.reason
  verdict.dataset.testKeys = String(result.underTestKeys)
  verdict.className = `${result.ok ? 'good' : 'bad'}${result.underTestKeys ? ' test' : ''}`
  verdict.replaceChildren(
    el('strong', { textContent: `${what}: ${result.ok ? 'verifies' : `rejected, ${result.reason}`}${result.underTestKeys ? ' (under TEST keys)' : ''}` }),
    el('span', { textContent: ` ${result.message}${result.path ? ` (at ${result.path})` : ''}` }),
    ...testKeyNote(result, 'a gate proof is TEST only and is verified here with allowTest'),
  )
}

async function verifyGateProof(proof, trust, what) {
  const verdict = $('gate-verdict')
  verdict.dataset.ok = ''
  verdict.dataset.testKeys = ''
  verdict.className = 'busy'
  verdict.textContent = 'Verifying…'
  const bundle = JSON.stringify(proof)
  showGateVerdict(await verifyMarked(bundle, JSON.stringify({ keys: trust, allowTest: true }), JSON.stringify({ keys: trust })), what)
}

$('gate-button').addEventListener('click', async () => {
  const decision = $('gate-decision')
  try {
    gate ??= createBrowserGate()
    const proposal = `{"action":${$('gate-action').value.trim()},"now":${JSON.stringify(new Date().toISOString())}}`
    // JSON text as written, so the core's strict reader judges each document.
    const request = `{"policy":${$('gate-policy').value.trim()},"registry":${$('gate-registry').value.trim()},"proposal":${proposal}}`
    const made = gate.prove(request)
    lastProof = made
    decision.className = made.decision.decision === 'ALLOW' ? 'good' : 'bad'
    decision.dataset.decision = made.decision.decision
    decision.textContent = `The gate decided ${made.decision.decision}` +
      (made.decision.reasons.length ? `: ${made.decision.reasons.map((r) => r.code).join(', ')}` : '') +
      ` and logged it at index ${made.proof.index}.`
    $('gate-proof').textContent = JSON.stringify(made.proof, null, 2)
    $('gate-trust').textContent = JSON.stringify(made.trust, null, 2)
    $('gate-tamper-button').disabled = false
    $('gate-load-button').disabled = false
    await verifyGateProof(made.proof, made.trust, 'The proof')
  } catch (e) {
    decision.className = 'bad'
    decision.dataset.decision = 'error'
    decision.textContent = `Cannot prove: ${e.message}${e.path ? ` (${e.code} at ${e.path})` : ''}`
  }
})

$('gate-tamper-button').addEventListener('click', async () => {
  if (!lastProof) return
  // The unsigned proposal changed after the gate decided: the signed result no longer names it.
  const tampered = structuredClone(lastProof.proof)
  tampered.proposal.action.resource = `${tampered.proposal.action.resource}-tampered`
  $('gate-proof').textContent = JSON.stringify(tampered, null, 2)
  await verifyGateProof(tampered, lastProof.trust, 'The tampered proof')
})

$('gate-load-button').addEventListener('click', () => {
  $('bundle').value = $('gate-proof').textContent
  $('keys').value = $('gate-trust').textContent
  $('allow-test').checked = true
  $('verify').scrollIntoView()
})

$('version').textContent = version()
workerReady.then(
  () => {
    $('status').textContent = 'Ready.'
    document.body.dataset.ready = 'true'
  },
  (e) => {
    $('status').textContent = `The verifier could not start: ${e.message}`
  },
)
