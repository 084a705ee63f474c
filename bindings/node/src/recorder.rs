//! `Recorder`: the durable recorder (docs/RECORDER.md) of `curbi-recorder`. Every method is one `call_json` of the
//! recorder run on the libuv thread pool (each call waits for the disk), resolving with its answer parsed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use curbi::{Error, ErrorCode as Code};
use napi::bindgen_prelude::{AsyncTask, Unknown};
use napi::{Env, Task};
use napi_derive::napi;

use crate::convert::{document_text, js_error};
use crate::{JsonTask, guarded};

/// A durable recorder on one SQLite file, opened with `Recorder.open`. Share one: concurrent calls are grouped
/// into one commit. `close()` waits for the calls in flight and closes the database.
#[napi]
#[derive(Debug)]
pub struct Recorder {
    inner: Arc<Open>,
}

/// The recorder until `close`: calls hold the read side while they run on the pool, so closing waits for them.
#[derive(Debug)]
struct Open {
    recorder: RwLock<Option<curbi_recorder::Recorder>>,
    /// Set as `close` starts: calls made after it reject at once instead of queueing behind it.
    closing: AtomicBool,
}

fn closed() -> Error {
    Error::new(Code::Closed, "", "the recorder is closed; open it again")
}

/// Closes a recorder on the libuv thread pool once its calls in flight are done.
#[derive(Debug)]
pub struct CloseTask {
    open: Arc<Open>,
}

impl Task for CloseTask {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> napi::Result<()> {
        let recorder = self.open.recorder.write().unwrap_or_else(|p| p.into_inner()).take();
        drop(recorder);
        Ok(())
    }

    fn resolve(&mut self, _env: Env, _output: ()) -> napi::Result<()> {
        Ok(())
    }
}

/// Opens a recorder on the libuv thread pool.
#[derive(Debug)]
pub struct OpenTask {
    config: Result<String, Error>,
}

impl Task for OpenTask {
    type Output = Result<curbi_recorder::Recorder, Error>;
    type JsValue = Recorder;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let config = std::mem::replace(&mut self.config, Err(Error::new(Code::Internal, "", "task ran twice")));
        Ok(config.and_then(|text| guarded(|| curbi_recorder::api::open_json(text.as_bytes()))))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        output
            .map(|r| Recorder {
                inner: Arc::new(Open { recorder: RwLock::new(Some(r)), closing: AtomicBool::new(false) }),
            })
            .map_err(|e| js_error(&env, e))
    }
}

impl Recorder {
    /// `method` on the thread pool with its request; `text` resolves with the answer's JSON text instead of the
    /// parsed answer.
    /// After `close`, the task rejects with `closed`.
    fn task(&self, method: impl Into<String>, input: Result<String, Error>, text: bool) -> AsyncTask<JsonTask> {
        let (open, method) = (self.inner.clone(), method.into());
        let input = if open.closing.load(Ordering::Acquire) { Err(closed()) } else { input };
        let run = Box::new(move |bytes: &[u8]| {
            let recorder = open.recorder.read().unwrap_or_else(|p| p.into_inner());
            recorder.as_ref().ok_or_else(closed)?.call_json(&method, bytes)
        });
        AsyncTask::new(JsonTask { input, run, text })
    }
}

/// A request argument: an object or JSON text, `{}` when absent.
fn request(env: &Env, request: Option<Unknown>) -> Result<String, Error> {
    request.map_or_else(|| Ok("{}".to_string()), |r| document_text(env, r, "request"))
}

#[napi]
impl Recorder {
    /// Opens (or creates) a recorder on the libuv thread pool: `{path, origin, key_file | key_env, rotate?, now?,
    /// attestation_ttl?, receipt_ttl?, max_clock_ahead?}`, an object or JSON text. The key file (a private Ed25519
    /// JWK) must be readable by its owner only; `now` (Unix seconds) fixes the clock, for tests;
    /// `max_clock_ahead` (seconds, default 7 days) bounds how far past the log's last time a write may be dated
    /// (`clock_ahead` beyond it). Rejects with a `CurbiError`
    /// (`key_mismatch` at `/key`, `invalid_key_file`, `storage`, ...).
    #[napi(ts_args_type = "config: RecorderConfig | string", ts_return_type = "Promise<Recorder>")]
    pub fn open(env: Env, config: Unknown) -> AsyncTask<OpenTask> {
        AsyncTask::new(OpenTask { config: document_text(&env, config, "config") })
    }

    /// Any call by its method name, resolving with the recorder's answer as JSON text, exactly as it wrote it (an
    /// attest replayed under the same idempotency key is the same text).
    #[napi(ts_args_type = "method: RecorderMethod, request: object | string", ts_return_type = "Promise<string>")]
    pub fn call(&self, env: Env, method: String, request: Unknown) -> AsyncTask<JsonTask> {
        self.task(method, document_text(&env, request, "request"), true)
    }

    /// Registers a grant (`{id, agent, operations, resources, limits, expires_at}`): `{id, used}`.
    #[napi(ts_args_type = "request: RecorderGrant | string", ts_return_type = "Promise<GrantInfo>")]
    pub fn grant(&self, env: Env, request: Unknown) -> AsyncTask<JsonTask> {
        self.task("grant", self::request(&env, Some(request)), false)
    }

    /// Registers a purchase mandate (docs/PURCHASE.md, with an `id`): `{id, used}`. A checkout attested under it is
    /// checked against the recorder's own ledger.
    #[napi(ts_args_type = "request: object | string", ts_return_type = "Promise<GrantInfo>")]
    pub fn mandate(&self, env: Env, request: Unknown) -> AsyncTask<JsonTask> {
        self.task("mandate", self::request(&env, Some(request)), false)
    }

    /// Runs the action check before a mutation: only ALLOW (or a confirmed STEP_UP) carries an attestation. The same
    /// idempotency key and request resolve with the same answer.
    #[napi(
        ts_args_type = "request: AttestRequest | PurchaseAttestRequest | string",
        ts_return_type = "Promise<Attested>"
    )]
    pub fn attest(&self, env: Env, request: Unknown) -> AsyncTask<JsonTask> {
        self.task("attest", self::request(&env, Some(request)), false)
    }

    /// Reports the provider's outcome: DONE or FAILED with its answer as `evidence` signs the one receipt; UNKNOWN
    /// holds the action for `reconcile`.
    #[napi(ts_args_type = "request: OutcomeRequest | string", ts_return_type = "Promise<Settled>")]
    pub fn confirm(&self, env: Env, request: Unknown) -> AsyncTask<JsonTask> {
        self.task("confirm", self::request(&env, Some(request)), false)
    }

    /// Settles an action from the provider's state read later (DONE, FAILED or NOT_PERFORMED).
    #[napi(ts_args_type = "request: OutcomeRequest | string", ts_return_type = "Promise<Settled>")]
    pub fn reconcile(&self, env: Env, request: Unknown) -> AsyncTask<JsonTask> {
        self.task("reconcile", self::request(&env, Some(request)), false)
    }

    /// The actions not yet settled, oldest first.
    #[napi(ts_args_type = "request?: { limit?: number } | string", ts_return_type = "Promise<HeldActions>")]
    pub fn held(&self, env: Env, request: Option<Unknown>) -> AsyncTask<JsonTask> {
        self.task("held", self::request(&env, request), false)
    }

    /// Signs the head of the log; a size already signed resolves with the head signed for it.
    #[napi(ts_return_type = "Promise<Head>")]
    pub fn checkpoint(&self, env: Env) -> AsyncTask<JsonTask> {
        self.task("checkpoint", self::request(&env, None), false)
    }

    /// Asks the configured witnesses to cosign the latest head (C2SP tlog-witness).
    #[napi(ts_return_type = "Promise<Cosigned>")]
    pub fn cosign(&self, env: Env) -> AsyncTask<JsonTask> {
        self.task("cosign", self::request(&env, None), false)
    }

    /// Publishes the log as C2SP tlog-tiles into `{dir}` (the configured `publish` when absent).
    #[napi(ts_args_type = "request?: { dir?: string } | string", ts_return_type = "Promise<Published>")]
    pub fn publish(&self, env: Env, request: Option<Unknown>) -> AsyncTask<JsonTask> {
        self.task("publish", self::request(&env, request), false)
    }

    /// A `curbi.proof/0.1` bundle, which `verifyBundle` checks offline under `keys()`.
    #[napi(ts_args_type = "request: BundleRequest | string", ts_return_type = "Promise<ProofBundle>")]
    pub fn bundle(&self, env: Env, request: Unknown) -> AsyncTask<JsonTask> {
        self.task("bundle", self::request(&env, Some(request)), false)
    }

    /// A stored receipt, by `{seq}` or by `{tenant, idempotency_key}`.
    #[napi(
        ts_args_type = "request: { seq: number } | { tenant: string; idempotency_key: string } | string",
        ts_return_type = "Promise<StoredReceipt>"
    )]
    pub fn receipt(&self, env: Env, request: Unknown) -> AsyncTask<JsonTask> {
        self.task("receipt", self::request(&env, Some(request)), false)
    }

    /// The newest receipts (up to `limit`, at most 50) about a subject (a resource) or from a conversation, in log
    /// order: `{receipts}`, ready for `record.receipts` to check the agent's reply against.
    #[napi(
        ts_args_type = "request: { subject: string; limit?: number } | { conversation: string; limit?: number } | string",
        ts_return_type = "Promise<{ receipts: string[] }>"
    )]
    pub fn receipts(&self, env: Env, request: Unknown) -> AsyncTask<JsonTask> {
        self.task("receipts", self::request(&env, Some(request)), false)
    }

    /// The log's keys as a JWKS, each with its window: the trust anchor to give verifiers.
    #[napi(ts_return_type = "Promise<RecorderKeys>")]
    pub fn keys(&self, env: Env) -> AsyncTask<JsonTask> {
        self.task("keys", self::request(&env, None), false)
    }

    /// The log's origin, kid, note verifier key, size and latest head.
    #[napi(ts_return_type = "Promise<RecorderStatus>")]
    pub fn status(&self, env: Env) -> AsyncTask<JsonTask> {
        self.task("status", self::request(&env, None), false)
    }

    /// Moves a fixed clock to Unix time `now` (tests); rejects with `unsupported` on the system clock.
    #[napi(ts_args_type = "now: number", ts_return_type = "Promise<{}>")]
    pub fn set_clock(&self, env: Env, now: Unknown) -> AsyncTask<JsonTask> {
        // The number as JSON writes it, for the recorder to judge (`1.5` is its invalid_type at `/now`).
        self.task("set_clock", document_text(&env, now, "now").map(|n| format!("{{\"now\":{n}}}")), false)
    }

    /// Closes the database once the calls in flight are done (resolves then); every call made after `close()`
    /// rejects with `closed`. Closing twice resolves too.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self) -> AsyncTask<CloseTask> {
        self.inner.closing.store(true, Ordering::Release);
        AsyncTask::new(CloseTask { open: self.inner.clone() })
    }

    /// `true` once `close()` was called.
    #[napi(getter)]
    pub fn closed(&self) -> bool {
        self.inner.closing.load(Ordering::Acquire)
    }
}
