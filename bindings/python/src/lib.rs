//! `curbi._native`: the Python surface of the core crate. It translates Python values and results and adds no
//! checking logic. Spans are Python `str` indices (code points); `to_dict()` gives the wire form (UTF-16).
#![forbid(unsafe_code)]

use std::sync::Arc;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use curbi::api::{self, CheckOptions, RECORD_TRUST};
use curbi::check::span;
use curbi::policy::{self, Replies};
use curbi::proof::verify::Mode;
use curbi::{CheckerVersion, CompiledPolicy, Error, ErrorCode};

create_exception!(curbi, CurbiError, PyException, "Invalid input: `.code`, `.path` and `.message` say what and where.");
create_exception!(curbi, ValidationError, CurbiError, "A document does not match its schema or cannot be read.");
create_exception!(curbi, UnsupportedError, CurbiError, "Valid, but not supported by this build (signed receipts).");

/// Raises the core error as `CurbiError` (or a subclass) carrying code, path and message.
fn raise(py: Python<'_>, e: Error) -> PyErr {
    let err = match e.code {
        ErrorCode::Unsupported => UnsupportedError::new_err(e.message.clone()),
        ErrorCode::Internal => CurbiError::new_err(e.message.clone()),
        _ => ValidationError::new_err(e.message.clone()),
    };
    let value = err.value(py);
    // Attribute writes on a fresh exception instance cannot fail in practice; if one did, the error still raises.
    let _ = value.setattr("code", e.code.as_str());
    let _ = value.setattr("path", e.path.as_str());
    let _ = value.setattr("message", e.message.as_str());
    err
}

fn type_error(py: Python<'_>, path: &str, what: &str) -> PyErr {
    raise(py, Error::new(ErrorCode::InvalidType, path, what.to_owned()))
}

/// Converts a Python value (dict, list, tuple, str, int, float, bool, None) to JSON, with the path of a bad value.
fn to_json(py: Python<'_>, obj: &Bound<'_, PyAny>, path: &str) -> PyResult<serde_json::Value> {
    use serde_json::Value;
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        if let Ok(v) = i.extract::<i64>() {
            return Ok(Value::from(v));
        }
        if let Ok(v) = i.extract::<u64>() {
            return Ok(Value::from(v));
        }
        return Err(raise(py, Error::new(ErrorCode::OutOfRange, path, "integer does not fit in 64 bits")));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return serde_json::Number::from_f64(f.value()).map(Value::Number).ok_or_else(|| {
            raise(py, Error::new(ErrorCode::InvalidValue, path, "NaN and infinity are not JSON numbers"))
        });
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = serde_json::Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                return Err(type_error(py, path, "object keys must be str"));
            };
            let key = key.to_cow()?.into_owned();
            let child = format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"));
            let value = to_json(py, &v, &child)?;
            map.insert(key, value);
        }
        return Ok(Value::Object(map));
    }
    if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        let mut out = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            out.push(to_json(py, &item?, &format!("{path}/{i}"))?);
        }
        return Ok(Value::Array(out));
    }
    let name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    Err(type_error(py, path, &format!("cannot read a Python {name} as JSON")))
}

/// A dict, or a str holding JSON.
fn document(py: Python<'_>, obj: &Bound<'_, PyAny>, path: &str) -> PyResult<serde_json::Value> {
    if let Ok(s) = obj.cast::<PyString>() {
        return serde_json::from_str(&s.to_cow()?).map_err(|e| raise(py, Error::from_json_error(&e)));
    }
    to_json(py, obj, path)
}

/// Converts JSON to Python objects (dicts, lists, str, int, float, bool, None).
fn to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => PyList::new(py, a.iter().map(|x| to_py(py, x)).collect::<PyResult<Vec<_>>>()?)?.into_any(),
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// One finding. `span` indexes the Python `str` (code points): `reply[f.span[0]:f.span[1]] == f.text`.
#[pyclass(frozen, module = "curbi._native", eq)]
#[derive(Clone, PartialEq)]
struct Finding {
    #[pyo3(get)]
    rule: String,
    #[pyo3(get)]
    span: (usize, usize),
    #[pyo3(get)]
    text: String,
    #[pyo3(get)]
    why: String,
    /// UTF-16 span, for the wire form.
    wire_span: (usize, usize),
}

#[pymethods]
impl Finding {
    /// The wire form: `{"rule", "span", "text", "why"}` with the span in UTF-16 code units.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("rule", &self.rule)?;
        d.set_item("span", [self.wire_span.0, self.wire_span.1])?;
        d.set_item("text", &self.text)?;
        d.set_item("why", &self.why)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!("Finding(rule={:?}, span={:?}, text={:?}, why={:?})", self.rule, self.span, self.text, self.why)
    }
}

fn findings(reply: &str, found: Vec<curbi::Finding>) -> Vec<Finding> {
    let offsets: Vec<usize> = found.iter().flat_map(|f| [f.start, f.end]).collect();
    let cp = span::char_offsets(reply, &offsets);
    let u16 = span::utf16_offsets(reply, &offsets);
    found
        .into_iter()
        .enumerate()
        .map(|(i, f)| Finding {
            rule: f.rule,
            span: (cp[2 * i], cp[2 * i + 1]),
            text: f.text,
            why: f.why,
            wire_span: (u16[2 * i], u16[2 * i + 1]),
        })
        .collect()
}

fn proof_dict<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("scope", api::PROOF.scope)?;
    d.set_item("factsAuthenticated", api::PROOF.facts_authenticated)?;
    d.set_item("replayProtection", api::PROOF.replay_protection)?;
    d.set_item("authorizationGranted", api::PROOF.authorization_granted)?;
    Ok(d)
}

/// The result of checking one reply (or one case of a batch, with `index` and `id`).
#[pyclass(frozen, module = "curbi._native")]
struct Check {
    /// True when no configured rule fired. A pass grants no authority.
    #[pyo3(get)]
    passed: bool,
    #[pyo3(get)]
    version: &'static str,
    #[pyo3(get)]
    record_trust: &'static str,
    #[pyo3(get)]
    index: Option<usize>,
    #[pyo3(get)]
    id: Option<String>,
    found: Vec<Finding>,
}

#[pymethods]
impl Check {
    #[getter]
    fn findings(&self) -> Vec<Finding> {
        self.found.clone()
    }

    /// The wire form of the Check API (UTF-16 spans); a case of a batch gives its `results` entry.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let list = PyList::empty(py);
        for f in &self.found {
            list.append(f.to_dict(py)?)?;
        }
        if let Some(index) = self.index {
            d.set_item("index", index)?;
            if let Some(id) = &self.id {
                d.set_item("id", id)?;
            }
            d.set_item("pass", self.passed)?;
            d.set_item("findings", list)?;
            return Ok(d);
        }
        d.set_item("object", "check")?;
        d.set_item("version", self.version)?;
        d.set_item("recordTrust", self.record_trust)?;
        d.set_item("pass", self.passed)?;
        d.set_item("findings", list)?;
        d.set_item("proof", proof_dict(py)?)?;
        Ok(d)
    }

    fn __bool__(&self) -> bool {
        self.passed
    }

    fn __repr__(&self) -> String {
        format!(
            "Check(passed={}, findings={}, version={:?})",
            if self.passed { "True" } else { "False" },
            self.found.len(),
            self.version
        )
    }
}

/// The result of checking `cases`: one `Check` per case, in order.
#[pyclass(frozen, module = "curbi._native")]
struct Batch {
    /// True when every case passed.
    #[pyo3(get)]
    passed: bool,
    #[pyo3(get)]
    version: &'static str,
    results: Vec<Py<Check>>,
}

#[pymethods]
impl Batch {
    #[getter]
    fn results(&self, py: Python<'_>) -> Vec<Py<Check>> {
        self.results.iter().map(|c| c.clone_ref(py)).collect()
    }

    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("object", "check_batch")?;
        d.set_item("version", self.version)?;
        d.set_item("recordTrust", RECORD_TRUST)?;
        d.set_item("pass", self.passed)?;
        let list = PyList::empty(py);
        for c in &self.results {
            list.append(c.get().to_dict(py)?)?;
        }
        d.set_item("results", list)?;
        d.set_item("proof", proof_dict(py)?)?;
        Ok(d)
    }

    fn __len__(&self) -> usize {
        self.results.len()
    }

    fn __bool__(&self) -> bool {
        self.passed
    }
}

/// A compiled policy: immutable, thread-safe, reuse it for every reply.
#[pyclass(frozen, module = "curbi._native")]
struct Policy {
    inner: Arc<CompiledPolicy>,
}

/// A record read once (`Record.parse`), to pass to `Policy.check` many times without reading it again.
#[pyclass(frozen, module = "curbi._native", name = "Record")]
struct PyRecord {
    inner: Arc<curbi::Record>,
}

#[pymethods]
impl PyRecord {
    /// Reads a record (a dict, or a str of JSON) with the Check API's limits; errors have `/record/...` paths.
    #[staticmethod]
    fn parse(py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<PyRecord> {
        let mut m = serde_json::Map::new();
        m.insert("record".into(), document(py, record, "/record")?);
        let opts = CheckOptions::from_value(&serde_json::Value::Object(m)).map_err(|e| raise(py, e))?;
        Ok(PyRecord { inner: Arc::new(opts.record.unwrap_or_default()) })
    }

    fn __repr__(&self) -> String {
        format!("Record(effects={}, facts={})", self.inner.effects.len(), self.inner.facts.len())
    }
}

/// The record and checker version of a call. A `Record` object is used as it is; a dict or str is read now.
struct CallOptions {
    record: Option<Arc<curbi::Record>>,
    version: CheckerVersion,
}

fn options(py: Python<'_>, record: Option<&Bound<'_, PyAny>>, version: Option<&str>) -> PyResult<CallOptions> {
    let version = match version {
        None => CheckerVersion::CURRENT,
        Some(v) => CheckerVersion::parse(v).ok_or_else(|| {
            raise(
                py,
                Error::new(ErrorCode::InvalidEnum, "/version", format!("'{v}' is not one of: 2026-10-27, 2026-11-01")),
            )
        })?,
    };
    let record = match record.filter(|r| !r.is_none()) {
        None => None,
        Some(r) => match r.cast::<PyRecord>() {
            Ok(parsed) => Some(Arc::clone(&parsed.get().inner)),
            Err(_) => Some(PyRecord::parse(py, r)?.inner),
        },
    };
    Ok(CallOptions { record, version })
}

#[pymethods]
impl Policy {
    /// Validates and compiles a policy (a dict, or a str of JSON). Raises `CurbiError` with the path of a bad field.
    #[staticmethod]
    fn compile(py: Python<'_>, policy: &Bound<'_, PyAny>) -> PyResult<Policy> {
        let value = document(py, policy, "")?;
        let p = policy::parse_policy(&value).map_err(|e| raise(py, e))?;
        Ok(Policy { inner: Arc::new(CompiledPolicy::new(p)) })
    }

    /// Checks one reply, or `cases` (a list of `{"id"?, "reply", "record"?}`), against this policy.
    /// `record` is what the caller says happened (unverified); `version` pins a checker version.
    #[pyo3(signature = (reply=None, *, cases=None, record=None, version=None))]
    fn check(
        &self,
        py: Python<'_>,
        reply: Option<&str>,
        cases: Option<&Bound<'_, PyAny>>,
        record: Option<&Bound<'_, PyAny>>,
        version: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let opts = options(py, record, version)?;
        match (reply, cases) {
            (Some(reply), None) => {
                let found = findings(reply, self.inner.check(reply, opts.record.as_deref(), opts.version));
                let c = Check {
                    passed: found.is_empty(),
                    version: opts.version.as_str(),
                    record_trust: RECORD_TRUST,
                    index: None,
                    id: None,
                    found,
                };
                Ok(Py::new(py, c)?.into_any())
            }
            (None, Some(cases)) => {
                // Read cases with the request schema (limits, codes and paths as the Check API's).
                let mut req = serde_json::Map::new();
                req.insert("policy".into(), serde_json::json!({}));
                req.insert("cases".into(), document(py, cases, "/cases")?);
                let parsed = policy::parse_request_value(&serde_json::Value::Object(req)).map_err(|e| raise(py, e))?;
                let Replies::Cases(cases) = parsed.replies else {
                    return Err(raise(py, Error::new(ErrorCode::MissingField, "/cases", "cases are required")));
                };
                let inner = Arc::clone(&self.inner);
                // Up to 50 replies: release the GIL (and let other threads check) while Rust works.
                let raw: Vec<(Option<String>, String, Vec<curbi::Finding>)> = py.detach(|| {
                    cases
                        .into_iter()
                        .map(|c| {
                            let f = inner.check(&c.reply, c.record.as_ref().or(opts.record.as_deref()), opts.version);
                            (c.id, c.reply, f)
                        })
                        .collect()
                });
                let mut results = Vec::with_capacity(raw.len());
                let mut all = true;
                for (index, (id, reply, f)) in raw.into_iter().enumerate() {
                    let found = findings(&reply, f);
                    all &= found.is_empty();
                    let c = Check {
                        passed: found.is_empty(),
                        version: opts.version.as_str(),
                        record_trust: RECORD_TRUST,
                        index: Some(index),
                        id,
                        found,
                    };
                    results.push(Py::new(py, c)?);
                }
                Ok(Py::new(py, Batch { passed: all, version: opts.version.as_str(), results })?.into_any())
            }
            (Some(_), Some(_)) => {
                Err(raise(py, Error::new(ErrorCode::ConflictingFields, "/cases", "send 'reply' or 'cases', not both")))
            }
            (None, None) => Err(raise(
                py,
                Error::new(ErrorCode::MissingField, "/reply", "send 'reply' (one reply) or 'cases' (up to 50)"),
            )),
        }
    }

    fn __repr__(&self) -> String {
        let p = self.inner.policy();
        format!("Policy(prices={}, forbid={}, actions={})", p.prices.len(), p.forbid.len(), p.actions.len())
    }
}

/// The Check API in one call: a request (dict or JSON str) in, the wire response dict out (UTF-16 spans).
#[pyfunction]
fn check<'py>(py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let value = document(py, request, "")?;
    let req = policy::parse_request_value(&value).map_err(|e| raise(py, e))?;
    let response = py.detach(|| api::run(&req));
    let json =
        serde_json::to_value(&response).map_err(|e| raise(py, Error::new(ErrorCode::Internal, "", e.to_string())))?;
    to_py(py, &json)
}

/// A dict or JSON str as the JSON bytes the core's `_json` entry points read. A str goes to the core as it is, not
/// through a `serde_json::Value`: the core then sees repeated member names (refused in trust material, where a
/// parsed tree would silently keep the last), and a large bundle is streamed instead of copied into a tree.
fn document_bytes(py: Python<'_>, input: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(s) = input.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    serde_json::to_vec(&document(py, input, "")?)
        .map_err(|e| raise(py, Error::new(ErrorCode::Internal, "", e.to_string())))
}

/// Runs a JSON-in, JSON-out core function on a dict or JSON str, with the GIL released, and returns the document
/// as Python objects.
fn json_function<'py>(
    py: Python<'py>,
    input: &Bound<'py, PyAny>,
    f: impl FnOnce(&[u8]) -> curbi::Result<String> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let bytes = document_bytes(py, input)?;
    let out = py.detach(|| f(&bytes)).map_err(|e| raise(py, e))?;
    let value: serde_json::Value =
        serde_json::from_str(&out).map_err(|e| raise(py, Error::new(ErrorCode::Internal, "", e.to_string())))?;
    to_py(py, &value)
}

/// Lints a policy: `{"valid", "errors", "warnings"}` (docs/LINT.md). An invalid policy is a report, not an error.
#[pyfunction]
fn validate_policy<'py>(py: Python<'py>, policy: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    json_function(py, policy, api::validate_policy_json)
}

/// Exports a check request as a CI regression: `{"regression", "nodeTest", "pytest"}` (docs/REGRESSION.md).
#[pyfunction]
fn export_regression<'py>(py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    json_function(py, request, api::export_regression_json)
}

/// Replays a `curbi.regression` document with its pinned checker: the `curbi.replay` report.
#[pyfunction]
fn replay_regression<'py>(py: Python<'py>, regression: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    json_function(py, regression, api::replay_regression_json)
}

fn checkout_json(body: &[u8]) -> curbi::Result<String> {
    Ok(curbi::purchase::verify_checkout_json(body)?.to_json_string())
}

fn action_json(body: &[u8]) -> curbi::Result<String> {
    Ok(curbi::purchase::verify_action_json(body)?.to_json_string())
}

/// Decides a purchase: `{"mandate", "checkout", "ledger"?, "now"}` in, the ALLOW / DENY / STEP_UP decision out.
/// Amounts are integers of minor units: a float such as `100.0` is a DENY, never rounded.
#[pyfunction]
fn verify_checkout<'py>(py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    json_function(py, request, checkout_json)
}

/// Decides an action: `{"grant", "action", "now"}` in, the decision out.
#[pyfunction]
fn verify_action<'py>(py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    json_function(py, request, action_json)
}

/// Verifies a Proof of Action bundle offline: `{"bundle", "keys", "allowTest"?, "mode"?, "now"?, "known"?, ...}` in,
/// `{"ok", "reason", "items", "head", "evidence", ...}` out, with the GIL released. The caller's `keys` are the
/// trust anchor. A rejected bundle is a result with `ok: False`; only unreadable JSON raises. To verify many bundles
/// under the same keys and options, read them once with `Verifier.compile`.
#[pyfunction]
fn verify_bundle<'py>(py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    json_function(py, request, api::verify_bundle_json)
}

/// A bundle verifier: the trust anchor and options read once (`Verifier.compile`), then any number of bundles
/// verified with it. Immutable and thread-safe: share one across threads.
#[pyclass(frozen, module = "curbi._native")]
struct Verifier {
    inner: api::Verifier,
}

#[pymethods]
impl Verifier {
    /// Reads the options `{"keys", "allowTest"?, "mode"?, "now"?, "known"?, "trustBundleKeys"?, "witnesses"?}` (a
    /// dict, or a str of JSON): `verify_bundle`'s request without `bundle`. Options that cannot be used raise
    /// `CurbiError` with the code and path `verify_bundle` would report under reason `malformed`.
    #[staticmethod]
    fn compile(py: Python<'_>, options: &Bound<'_, PyAny>) -> PyResult<Verifier> {
        let bytes = document_bytes(py, options)?;
        Ok(Verifier { inner: api::Verifier::from_json(&bytes).map_err(|e| raise(py, e))? })
    }

    /// Verifies one bundle (a dict, or a str of JSON) with the GIL released: the result `verify_bundle` gives for
    /// these options with this bundle. A rejected or unreadable bundle is a result with `ok: False` (paths under
    /// `/bundle`); only text that is not JSON raises.
    fn verify<'py>(&self, py: Python<'py>, bundle: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        json_function(py, bundle, |b| self.inner.verify_json(b))
    }

    fn __repr__(&self) -> String {
        let o = self.inner.options();
        let mode = match o.mode {
            Mode::Archival => "archival",
            Mode::Fresh { .. } => "fresh",
        };
        format!("Verifier(keys={}, mode={mode}, known={})", o.keys.len(), o.known.len())
    }
}

/// The library version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// Every stable error code, in the order of vectors/errors.json.
#[pyfunction]
fn error_codes() -> Vec<&'static str> {
    ErrorCode::ALL.iter().map(|c| c.as_str()).collect()
}

#[pymodule(gil_used = false)]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Policy>()?;
    m.add_class::<Check>()?;
    m.add_class::<Batch>()?;
    m.add_class::<Finding>()?;
    m.add_class::<PyRecord>()?;
    m.add_class::<Verifier>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(validate_policy, m)?)?;
    m.add_function(wrap_pyfunction!(export_regression, m)?)?;
    m.add_function(wrap_pyfunction!(replay_regression, m)?)?;
    m.add_function(wrap_pyfunction!(verify_checkout, m)?)?;
    m.add_function(wrap_pyfunction!(verify_action, m)?)?;
    m.add_function(wrap_pyfunction!(verify_bundle, m)?)?;
    m.add_function(wrap_pyfunction!(error_codes, m)?)?;
    m.add("CurbiError", py.get_type::<CurbiError>())?;
    m.add("ValidationError", py.get_type::<ValidationError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("CURRENT_CHECKER_VERSION", CheckerVersion::CURRENT.as_str())?;
    Ok(())
}
