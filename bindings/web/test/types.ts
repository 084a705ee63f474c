// Type-checks index.d.ts and core.d.ts (`npm run typecheck`): the calls the README and the seed show must compile,
// and wrong ones must not (each @ts-expect-error fails the check if the line type-checks).
import { CurbiError, compilePolicy, createBrowserGate, createVerifier, createVerifierPool, init, verifyBundle, verifyCheckout } from '@curbi/web'
import type { Check, GateVerification, Verification, VerifyOptions } from '@curbi/web'
import * as core from '@curbi/web/core'

export async function seed(bundle: object, trustedJwks: object): Promise<string | undefined> {
  const result: Verification = await verifyBundle(bundle, { keys: trustedJwks })
  if (!result.ok) return result.reason
  const options: VerifyOptions = { keys: trustedJwks, allowTest: true, mode: 'fresh', now: '2026-11-01T00:00:00Z' }
  await createVerifier(options).verify(bundle)
  // @ts-expect-error mode is archival or fresh
  await verifyBundle(bundle, { keys: trustedJwks, mode: 'later' })
  const pool = await createVerifierPool({ workers: 2 })
  const pooled: Verification = await pool.verifyBundle(bundle, options)
  const count: number = pool.workers
  pool.close()
  // @ts-expect-error workers is a number
  await createVerifierPool({ workers: 'two' })
  if (!pooled.ok || count === 0) return pooled.reason
  return undefined
}

export function spans(reply: string): string[] {
  const checked: Check = compilePolicy({ prices: [{ item: 'Starter', amount: 49 }] }).check(reply, { version: '2026-11-01' })
  // @ts-expect-error the reply is a string
  compilePolicy('{}').check(5)
  return checked.findings.map((f) => reply.slice(...f.span))
}

export function errors(e: unknown): string {
  verifyCheckout('{}').decision satisfies 'ALLOW' | 'DENY' | 'STEP_UP'
  return e instanceof CurbiError ? `${e.code} at ${e.path}` : ''
}

export async function load(bytes: ArrayBuffer): Promise<boolean> {
  await core.init(bytes)
  await init(new URL('https://example.com/curbi_wasm_bg.wasm'))
  return core.isReady()
}

export async function gate(): Promise<string> {
  const g = createBrowserGate({ log: 'curbi-checkpoint-v1.example.com/page' })
  const policy = { agent: 'a', operations: ['op'], resources: ['r:*'], expires_at: '2030-01-01T00:00:00Z' }
  const { proof, trust, decision } = g.prove({ policy, registry: { used: 0 }, proposal: { action: { agent: 'a', operation: 'op', resource: 'r:1' }, now: '2029-01-01T00:00:00Z' } })
  const result: GateVerification = await verifyBundle(proof, { keys: trust, allowTest: true })
  // @ts-expect-error allowTest is a boolean
  await verifyBundle(proof, { keys: trust, allowTest: 'yes' })
  return `${decision.decision} ${result.reason} ${result.items[0]?.result?.decision}`
}
