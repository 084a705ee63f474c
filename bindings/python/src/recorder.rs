//! `curbi.Recorder`: the durable recorder (docs/RECORDER.md) of `curbi-recorder`. Each method is one `call_json` of
//! the recorder with the GIL released (every call waits for the disk); the `_async` methods run the same call on
//! the event loop's executor, so a coroutine awaits it while the loop runs on.

use std::path::PathBuf;
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use serde_json::{Map, Value};

use curbi::{Error, ErrorCode};

use crate::{document_bytes, loads, raise};

/// A durable recorder on one SQLite file. Thread-safe: share one across threads; their writes are grouped into one
/// commit. `close()` (or leaving a `with` block) waits for the calls in flight and closes the database.
#[pyclass(frozen, module = "curbi._native")]
pub(crate) struct Recorder {
    /// `None` once closed. Calls hold the read side while they run, so `close` waits for them.
    inner: RwLock<Option<curbi_recorder::Recorder>>,
    /// Set as `close` starts, so that calls made after it fail at once instead of queueing behind it.
    closing: AtomicBool,
    origin: String,
    kid: String,
}

/// `loop.run_in_executor(None, f, *args)` on the running loop: an awaitable for `f(*args)` run on a worker thread.
fn in_executor<'py>(
    py: Python<'py>,
    f: Bound<'py, PyAny>,
    args: impl IntoIterator<Item = Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let running = py.import("asyncio")?.call_method0("get_running_loop")?;
    let mut all = vec![py.None().into_bound(py), f];
    all.extend(args);
    running.call_method1("run_in_executor", PyTuple::new(py, all)?)
}

impl Recorder {
    /// One call with the GIL released: the answer as the recorder wrote it; `closed` after `close()`.
    fn text(&self, py: Python<'_>, method: &str, request: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let bytes = match request {
            Some(r) => document_bytes(py, r, "")?,
            None => b"{}".to_vec(),
        };
        let closed = || Error::new(ErrorCode::Closed, "", "the recorder is closed; open it again");
        if self.closing.load(Ordering::Acquire) {
            return Err(raise(py, closed()));
        }
        py.detach(|| {
            let open = self.inner.read().unwrap_or_else(|p| p.into_inner());
            open.as_ref().ok_or_else(closed)?.call_json(method, &bytes)
        })
        .map_err(|e| raise(py, e))
    }

    /// One call, its answer as Python objects.
    fn json<'py>(
        &self,
        py: Python<'py>,
        method: &str,
        request: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &self.text(py, method, request)?)
    }

    /// The named method `method` run on the running loop's executor.
    fn later<'py>(
        slf: &Bound<'py, Self>,
        method: &str,
        request: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_executor(slf.py(), slf.getattr(method)?, request.cloned())
    }
}

#[pymethods]
impl Recorder {
    /// Opens (or creates) the recorder on its database file `path`, with the log origin `origin`
    /// (`curbi-checkpoint-v1.<name>`) and the signing key (a private Ed25519 JWK) from `key_file`, which only its
    /// owner may read, or from the environment variable `key_env` (`CURBI_RECORDER_KEY` when neither is given).
    /// `rotate` makes a new key the log's active one; `now` (Unix seconds) fixes the clock, for tests.
    /// `max_clock_ahead` (seconds, default 7 days) is how far past the last time the log used a write may be dated
    /// (beyond: `clock_ahead`, nothing signed; docs/RECORDER.md §Time). `predecessor` (a sealed log's final head)
    /// makes a new log its successor (§Sealing a log). Raises `CurbiError` (`key_mismatch` at
    /// `/key`, `invalid_key_file`, `storage`, ...).
    #[new]
    #[pyo3(signature = (path, origin, *, key_file=None, key_env=None, rotate=false, now=None, attestation_ttl=None, receipt_ttl=None, max_clock_ahead=None, predecessor=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        origin: String,
        key_file: Option<PathBuf>,
        key_env: Option<String>,
        rotate: bool,
        now: Option<i64>,
        attestation_ttl: Option<i64>,
        receipt_ttl: Option<i64>,
        max_clock_ahead: Option<i64>,
        predecessor: Option<String>,
    ) -> PyResult<Recorder> {
        let text = |p: PathBuf, at: &str| {
            p.into_os_string().into_string().map(Value::String).map_err(|_| {
                raise(
                    py,
                    Error::new(ErrorCode::InvalidValue, at, "the path is not UTF-8 (the recorder's config is JSON)"),
                )
            })
        };
        let mut config = Map::new();
        config.insert("path".into(), text(path, "/path")?);
        config.insert("origin".into(), origin.into());
        if let Some(f) = key_file {
            config.insert("key_file".into(), text(f, "/key_file")?);
        }
        let options = [
            ("key_env", key_env.map(Value::from)),
            ("now", now.map(Value::from)),
            ("predecessor", predecessor.map(Value::from)),
        ];
        let ttls = [
            ("attestation_ttl", attestation_ttl.map(Value::from)),
            ("receipt_ttl", receipt_ttl.map(Value::from)),
            ("max_clock_ahead", max_clock_ahead.map(Value::from)),
        ];
        for (name, value) in options.into_iter().chain(ttls) {
            if let Some(v) = value {
                config.insert(name.into(), v);
            }
        }
        config.insert("rotate".into(), rotate.into());
        let bytes = Value::Object(config).to_string().into_bytes();
        let inner = py.detach(|| curbi_recorder::api::open_json(&bytes)).map_err(|e| raise(py, e))?;
        let (origin, kid) = (inner.origin().to_string(), inner.kid().to_string());
        Ok(Recorder { inner: RwLock::new(Some(inner)), closing: AtomicBool::new(false), origin, kid })
    }

    /// `Recorder(path, origin, **options)` on the running loop's executor: `await Recorder.open_async(...)`.
    #[staticmethod]
    #[pyo3(signature = (path, origin, **options))]
    fn open_async<'py>(
        py: Python<'py>,
        path: Bound<'py, PyAny>,
        origin: Bound<'py, PyAny>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let class = py.get_type::<Recorder>().into_any();
        let open = py.import("functools")?.getattr("partial")?.call((class, path, origin), options.as_ref())?;
        in_executor(py, open, [])
    }

    /// Any call by its method name (`grant`, `attest`, `confirm`, `reconcile`, `held`, `checkpoint`, `bundle`,
    /// `receipt`, `keys`, `status`, `set_clock`), its request a dict or JSON text: the answer as the recorder wrote
    /// it, JSON text (an attest replayed under the same idempotency key is the same text).
    fn call(&self, py: Python<'_>, method: &str, request: &Bound<'_, PyAny>) -> PyResult<String> {
        self.text(py, method, Some(request))
    }

    /// Registers a grant: `{"id", "used"}`. The same grant again answers with its uses.
    fn grant<'py>(&self, py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "grant", Some(request))
    }

    /// Registers a purchase mandate (with an `id`): `{"id", "used"}`. Checkouts attested under it are checked against
    /// the recorder's own ledger.
    fn mandate<'py>(&self, py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "mandate", Some(request))
    }

    /// Runs the action check before a mutation: `{"decision", "attestation"?, "check"}`; only ALLOW (or a confirmed
    /// STEP_UP) carries an attestation. The same idempotency key and request replay the same answer.
    fn attest<'py>(&self, py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "attest", Some(request))
    }

    /// Reports the provider's outcome (`DONE` or `FAILED` with its answer as `evidence`, or `UNKNOWN`):
    /// `{"status", "seq"?, "receipt"?}`. UNKNOWN holds the action for `reconcile`.
    fn confirm<'py>(&self, py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "confirm", Some(request))
    }

    /// Settles an action from the provider's state read later (`DONE`, `FAILED` or `NOT_PERFORMED`).
    fn reconcile<'py>(&self, py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "reconcile", Some(request))
    }

    /// The actions not yet settled (`{"limit"?}`, `{}` when None): `{"actions", "more"}`, oldest first.
    #[pyo3(signature = (request=None))]
    fn held<'py>(&self, py: Python<'py>, request: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "held", request)
    }

    /// Signs the head of the log: `{"size", "note"}`.
    fn checkpoint<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "checkpoint", None)
    }

    /// Asks the configured witnesses to cosign the latest head: `{"size", "note", "witnesses"}`.
    fn cosign<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "cosign", None)
    }

    /// Publishes the log as C2SP tiles (`{"dir"?}`, the configured `publish` when None):
    /// `{"size", "previous", "files", "checkpoint"}`.
    #[pyo3(signature = (request=None))]
    fn publish<'py>(&self, py: Python<'py>, request: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "publish", request)
    }

    /// A `curbi.proof/0.1` bundle (`{"receipts" | "actions", "head"?, "known"?, "attestations"?}`), which
    /// `verify_bundle` checks offline under `keys()`.
    fn bundle<'py>(&self, py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "bundle", Some(request))
    }

    /// A stored receipt, by `{"seq"}` or by `{"tenant", "idempotency_key"}`.
    fn receipt<'py>(&self, py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "receipt", Some(request))
    }

    /// The newest receipts (up to `"limit"`, at most 50) of `{"subject"}` (a resource) or `{"conversation"}`, in
    /// log order: `{"receipts": [...]}`, ready for `record["receipts"]` to check the agent's reply against.
    fn receipts<'py>(&self, py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "receipts", Some(request))
    }

    /// The log's keys as a JWKS, each with its window: the trust anchor to give verifiers.
    fn keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "keys", None)
    }

    /// The log's origin, kid, size and latest head.
    fn status<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.json(py, "status", None)
    }

    /// Moves a fixed clock to Unix time `now` (tests); raises `UnsupportedError` on the system clock.
    fn set_clock(&self, py: Python<'_>, now: i64) -> PyResult<()> {
        let request = pyo3::types::PyString::new(py, &serde_json::json!({ "now": now }).to_string()).into_any();
        self.text(py, "set_clock", Some(&request)).map(|_| ())
    }

    /// Waits for the calls in flight, then closes the database; every later call raises `CurbiError` with code
    /// `closed`. Closing twice does nothing.
    fn close(&self, py: Python<'_>) {
        self.closing.store(true, Ordering::Release);
        let closed = py.detach(|| self.inner.write().unwrap_or_else(|p| p.into_inner()).take());
        // Dropped with the GIL released too: closing the file may wait for the disk.
        py.detach(move || drop(closed));
    }

    /// `True` once `close()` was called (it may still be waiting for calls in flight).
    #[getter]
    fn closed(&self) -> bool {
        self.closing.load(Ordering::Acquire)
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> bool {
        self.close(py);
        false
    }

    /// `close` on the running loop's executor.
    fn close_async<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "close", None)
    }

    /// `async with await Recorder.open_async(...) as r:` (or `async with Recorder(...) as r:`) closes it on exit
    /// without blocking the loop.
    fn __aenter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let done = slf.py().import("asyncio")?.call_method0("get_running_loop")?.call_method0("create_future")?;
        done.call_method1("set_result", (slf,))?;
        Ok(done)
    }

    #[pyo3(signature = (*_exc))]
    fn __aexit__<'py>(slf: &Bound<'py, Self>, _exc: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::close_async(slf)
    }

    /// `call` on the running loop's executor.
    fn call_async<'py>(
        slf: &Bound<'py, Self>,
        method: Bound<'py, PyAny>,
        request: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        in_executor(slf.py(), slf.getattr("call")?, [method, request])
    }

    /// `grant` on the running loop's executor.
    fn grant_async<'py>(slf: &Bound<'py, Self>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "grant", Some(request))
    }

    /// `mandate` on the running loop's executor.
    fn mandate_async<'py>(slf: &Bound<'py, Self>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "mandate", Some(request))
    }

    /// `attest` on the running loop's executor.
    fn attest_async<'py>(slf: &Bound<'py, Self>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "attest", Some(request))
    }

    /// `confirm` on the running loop's executor.
    fn confirm_async<'py>(slf: &Bound<'py, Self>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "confirm", Some(request))
    }

    /// `reconcile` on the running loop's executor.
    fn reconcile_async<'py>(slf: &Bound<'py, Self>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "reconcile", Some(request))
    }

    /// `held` on the running loop's executor.
    #[pyo3(signature = (request=None))]
    fn held_async<'py>(slf: &Bound<'py, Self>, request: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "held", request)
    }

    /// `checkpoint` on the running loop's executor.
    fn checkpoint_async<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "checkpoint", None)
    }

    /// `cosign` on the running loop's executor.
    fn cosign_async<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "cosign", None)
    }

    /// `publish` on the running loop's executor.
    #[pyo3(signature = (request=None))]
    fn publish_async<'py>(slf: &Bound<'py, Self>, request: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "publish", request)
    }

    /// `bundle` on the running loop's executor.
    fn bundle_async<'py>(slf: &Bound<'py, Self>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "bundle", Some(request))
    }

    /// `receipt` on the running loop's executor.
    fn receipt_async<'py>(slf: &Bound<'py, Self>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "receipt", Some(request))
    }

    /// `receipts` on the running loop's executor.
    fn receipts_async<'py>(slf: &Bound<'py, Self>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "receipts", Some(request))
    }

    /// `keys` on the running loop's executor.
    fn keys_async<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "keys", None)
    }

    /// `status` on the running loop's executor.
    fn status_async<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Recorder::later(slf, "status", None)
    }

    /// `set_clock` on the running loop's executor.
    fn set_clock_async<'py>(slf: &Bound<'py, Self>, now: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        in_executor(slf.py(), slf.getattr("set_clock")?, [now])
    }

    fn __repr__(&self) -> String {
        let closed = if self.closed() { ", closed" } else { "" };
        format!("Recorder(origin={:?}, kid={:?}{closed})", self.origin, self.kid)
    }
}
