// The timing loop shared by the Node and the Chromium halves of bench/proof_wasm.sh: each round times every verifier
// once, in a rotating order, so load changes on the shared machine hit all alike. Before the timed rounds each
// verifier is warmed up on its own: at least `warmup` calls and until it has run for `warmupMs`. A JIT needs that:
// WebAssembly starts in V8's baseline tier and a pool's workers reach the optimized one only after some ten
// 1,024-receipt calls (docs/PERFORMANCE.md); native code and WebCrypto need none, and lose nothing by it. The first
// call of each verifier is kept apart as `cold`. Every result must say "verifies" for every receipt, or the run
// stops. Runs unchanged in Node and a browser.

/**
 * `verifiers`: name → async (text) => {ok, reason, items}. Returns `{samples, cold}`: name → timed wall times in ms,
 * and name → the wall time of its first call.
 */
export async function rounds(verifiers, text, n, { runs, warmup = 1, warmupMs = 0, gc = () => {} }) {
  const names = Object.keys(verifiers)
  const once = async (name) => {
    gc()
    const t0 = performance.now()
    const r = await verifiers[name](text)
    const wall = performance.now() - t0
    const bad = r.items.length !== n || !r.ok || r.reason !== 'verifies' || !r.items.every((i) => i.ok && i.reason === 'verifies')
    if (bad) throw new Error(`${name}: did not verify every one of ${n} receipts (reason ${r.reason})`)
    return wall
  }
  const cold = {}
  for (const name of names) {
    const start = performance.now()
    for (let w = 0; w < warmup || performance.now() - start < warmupMs; w++) {
      const wall = await once(name)
      cold[name] ??= wall
    }
  }
  const samples = Object.fromEntries(names.map((name) => [name, []]))
  for (let r = 0; r < runs; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length]
      samples[name].push(await once(name))
    }
  }
  return { samples, cold }
}

/** `f()`'s answer and wall time in ms (the answer check's calls, which are each verifier's cold ones). */
export async function timed(f) {
  const t0 = performance.now()
  const answer = await f()
  return { answer, wall: performance.now() - t0 }
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
