//! `curbi._native`: the Python surface of the core crate. It translates Python values and results and adds no
//! checking logic. Spans are Python `str` indices (code points); `to_dict()` gives the wire form (UTF-16).
#![forbid(unsafe_code)]

mod recorder;

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use curbi::api::{self, Cases, CheckOptions, SpanUnit};
use curbi::proof::verify::Mode;
use curbi::wire::{BatchResponse, CaseResult, CheckResponse, WireFinding, findings_in};
use curbi::{CheckerVersion, CompiledPolicy, CompiledRecord, Error, ErrorCode, Verify};

/// Raises a core error as the exception class of `curbi._errors` for its code (`CurbiError` or a subclass),
/// carrying `code`, `path` and `message`. The classes are plain Python, so they can be subclassed and pickled.
fn raise(py: Python<'_>, e: Error) -> PyErr {
    let class = match e.code {
        ErrorCode::Unsupported => "UnsupportedError",
        // A bug, or the recorder's storage failing (the disk, a damaged file, a lock held too long): not the input.
        ErrorCode::Internal | ErrorCode::Storage | ErrorCode::Corrupt | ErrorCode::Busy | ErrorCode::Closed => {
            "CurbiError"
        }
        _ => "ValidationError",
    };
    let made = py
        .import("curbi._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|cls| cls.call1((e.message.as_str(), e.code.as_str(), e.path.as_str())));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        // The package's own module is missing or broken: still raise, with the code in the message.
        Err(err) => err,
    }
}

/// Replies longer than this many bytes are checked with the GIL released.
const RELEASE_GIL_ABOVE: usize = 4096;

/// A `str` argument, or `invalid_type` (or `invalid_value` for a lone surrogate) at `path` with a code.
fn string_argument(py: Python<'_>, value: &Bound<'_, PyAny>, path: &str) -> PyResult<String> {
    match value.cast::<PyString>() {
        Ok(s) => text_of(py, s, path),
        Err(_) => {
            let name = value.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            Err(type_error(py, path, &format!("expected a str, got a Python {name}")))
        }
    }
}

fn type_error(py: Python<'_>, path: &str, what: &str) -> PyErr {
    raise(py, Error::new(ErrorCode::InvalidType, path, what.to_owned()))
}

/// How many containers deep a document may nest: the same limit as the core's JSON reader (serde_json's recursion
/// limit of 128 refuses the 128th container), so a dict is refused exactly where its JSON text would be.
const MAX_DEPTH: usize = 127;

/// A Python `str` as Rust text, or `invalid_value` at `path` for one that is not valid Unicode (a lone surrogate).
fn text_of(py: Python<'_>, s: &Bound<'_, PyString>, path: &str) -> PyResult<String> {
    s.to_cow().map(|c| c.into_owned()).map_err(|_| {
        raise(py, Error::new(ErrorCode::InvalidValue, path, "the string is not valid Unicode (a lone surrogate)"))
    })
}

/// A number from its decimal text (a big int, a `decimal.Decimal`), exact: the core reads the text as written.
fn number_text(py: Python<'_>, text: &str, path: &str) -> PyResult<serde_json::Value> {
    serde_json::from_str::<serde_json::Number>(text).map(serde_json::Value::Number).map_err(|_| {
        raise(py, Error::new(ErrorCode::InvalidValue, path, format!("{text} is not a JSON number (NaN or infinity)")))
    })
}

/// Converts a Python value (dict, list, tuple, str, int, float, `decimal.Decimal`, bool, None) to JSON, with the
/// path of a bad value: `too_deep` past 128 levels or for a container that contains itself, `invalid_type` for a
/// value JSON has no form for, `invalid_value` for a string that is not Unicode or a number that is not finite.
/// Integers and decimals keep their decimal text, so `Decimal("999999999999999.999999")` reaches the core exactly.
fn to_json(py: Python<'_>, obj: &Bound<'_, PyAny>, path: &str) -> PyResult<serde_json::Value> {
    to_json_at(py, obj, path, &mut Vec::new())
}

/// [`to_json`] inside the containers `open` (their addresses, outermost first).
fn to_json_at(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    path: &str,
    open: &mut Vec<usize>,
) -> PyResult<serde_json::Value> {
    use serde_json::Value;
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(text_of(py, s, path)?));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        if let Ok(v) = i.extract::<i64>() {
            return Ok(Value::from(v));
        }
        return number_text(py, &i.str()?.to_cow()?, path);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return serde_json::Number::from_f64(f.value()).map(Value::Number).ok_or_else(|| {
            raise(py, Error::new(ErrorCode::InvalidValue, path, "NaN and infinity are not JSON numbers"))
        });
    }
    let is_dict = obj.cast::<PyDict>().is_ok();
    let is_list = obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok();
    if !is_dict && !is_list {
        let decimal = py.import("decimal").and_then(|m| m.getattr("Decimal")).ok();
        if let Some(decimal) = decimal
            && obj.is_instance(&decimal).unwrap_or(false)
        {
            return number_text(py, &obj.str()?.to_cow()?, path);
        }
        let name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(type_error(py, path, &format!("cannot read a Python {name} as JSON")));
    }
    let address = obj.as_ptr() as usize;
    if open.contains(&address) {
        return Err(raise(py, Error::new(ErrorCode::TooDeep, path, "the value contains itself")));
    }
    if open.len() >= MAX_DEPTH {
        let m = format!("the value nests more than {MAX_DEPTH} containers deep (the JSON reader's limit)");
        return Err(raise(py, Error::new(ErrorCode::TooDeep, path, m)));
    }
    open.push(address);
    let out = if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = serde_json::Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let Ok(key) = k.cast::<PyString>() else {
                open.pop();
                return Err(type_error(py, path, "object keys must be str"));
            };
            let key = text_of(py, key, path)?;
            let child = format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"));
            let value = to_json_at(py, &v, &child, open)?;
            map.insert(key, value);
        }
        Value::Object(map)
    } else {
        let mut out = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            out.push(to_json_at(py, &item?, &format!("{path}/{i}"), open)?);
        }
        Value::Array(out)
    };
    open.pop();
    Ok(out)
}

/// A dict (or list) or a str holding JSON, as the JSON bytes the core's entry points read. A str goes to the core as
/// it is, so the strict reader sees repeated member names (refused) and exact numbers, and a large bundle is
/// streamed instead of copied into a tree; a dict is written as JSON first (it cannot repeat a key).
fn document_bytes(py: Python<'_>, input: &Bound<'_, PyAny>, path: &str) -> PyResult<Vec<u8>> {
    if let Ok(s) = input.cast::<PyString>() {
        return Ok(text_of(py, s, path)?.into_bytes());
    }
    serde_json::to_vec(&to_json(py, input, path)?)
        .map_err(|e| raise(py, Error::new(ErrorCode::Internal, "", e.to_string())))
}

/// A JSON document written by the core, as Python objects through `json.loads` (members in the core's order).
fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.getattr("loads")?.call1((text,))
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
    /// The core's wire finding (UTF-16 span), for `to_dict`.
    wire: WireFinding,
}

#[pymethods]
impl Finding {
    /// The wire form: `{"rule", "span", "text", "why"}` with the span in UTF-16 code units.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &serde_json::to_string(&self.wire).unwrap_or_default())
    }

    fn __repr__(&self) -> String {
        format!("Finding(rule={:?}, span={:?}, text={:?}, why={:?})", self.rule, self.span, self.text, self.why)
    }
}

/// The core's findings on `reply`, twice converted: code points for Python, UTF-16 for the wire form.
fn findings(reply: &str, found: Vec<curbi::Finding>) -> (Vec<Finding>, Vec<WireFinding>) {
    let wire = findings_in(reply, found.clone(), SpanUnit::Utf16);
    let ours = findings_in(reply, found, SpanUnit::CodePoint)
        .into_iter()
        .zip(&wire)
        .map(|(f, w)| Finding { rule: f.rule, span: (f.span[0], f.span[1]), text: f.text, why: f.why, wire: w.clone() })
        .collect();
    (ours, wire)
}

/// What a `Check` is the Python face of: one reply's response, or one case's entry in a batch.
enum Wire {
    One(CheckResponse),
    Case(CaseResult),
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
    wire: Wire,
}

impl Check {
    fn one(reply: &str, found: Vec<curbi::Finding>, version: CheckerVersion, trust: &'static str) -> Check {
        let (found, wire) = findings(reply, found);
        let response = CheckResponse::with_trust(version, trust, wire);
        Check {
            passed: response.pass,
            version: response.version,
            record_trust: response.record_trust,
            index: None,
            id: None,
            found,
            wire: Wire::One(response),
        }
    }

    fn case(
        index: usize,
        id: Option<String>,
        reply: &str,
        found: Vec<curbi::Finding>,
        version: CheckerVersion,
        trust: &'static str,
    ) -> Check {
        let (found, wire) = findings(reply, found);
        let result = CaseResult { index, id: id.clone(), pass: wire.is_empty(), findings: wire };
        Check {
            passed: result.pass,
            version: version.as_str(),
            record_trust: trust,
            index: Some(index),
            id,
            found,
            wire: Wire::Case(result),
        }
    }

    fn json(&self) -> String {
        match &self.wire {
            Wire::One(r) => r.to_json_string(),
            Wire::Case(c) => serde_json::to_string(c).unwrap_or_default(),
        }
    }
}

#[pymethods]
impl Check {
    #[getter]
    fn findings(&self) -> Vec<Finding> {
        self.found.clone()
    }

    /// The wire form of the Check API (UTF-16 spans); a case of a batch gives its `results` entry.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &self.json())
    }

    /// The wire form as the core writes it: the bytes `POST /v1/check` answers for this reply.
    fn to_json(&self) -> String {
        self.json()
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
    wire: BatchResponse,
}

#[pymethods]
impl Batch {
    #[getter]
    fn results(&self, py: Python<'_>) -> Vec<Py<Check>> {
        self.results.iter().map(|c| c.clone_ref(py)).collect()
    }

    /// The wire form of the Check API's batch response (UTF-16 spans).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        loads(py, &self.wire.to_json_string())
    }

    /// The wire form as the core writes it.
    fn to_json(&self) -> String {
        self.wire.to_json_string()
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
    inner: Arc<CompiledRecord>,
}

#[pymethods]
impl PyRecord {
    /// Reads a record (a dict, or a str of JSON) with the Check API's limits; errors have `/record/...` paths.
    #[staticmethod]
    fn parse(py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<PyRecord> {
        let bytes = document_bytes(py, record, "/record")?;
        Ok(PyRecord { inner: Arc::new(CompiledRecord::from_json(&bytes).map_err(|e| raise(py, e))?) })
    }

    fn __repr__(&self) -> String {
        format!("Record(effects={}, facts={})", self.inner.effects.len(), self.inner.facts.len())
    }
}

/// The record, checker version and receipt mode of a call, as core's options. A `Record` object is used as it
/// is (cloned: records are small); a dict or str is read now.
fn options(
    py: Python<'_>,
    record: Option<&Bound<'_, PyAny>>,
    version: Option<&str>,
    verify: Option<&str>,
) -> PyResult<CheckOptions> {
    let version = match version {
        None => CheckerVersion::CURRENT,
        Some(v) => CheckerVersion::from_name(v).map_err(|e| raise(py, e))?,
    };
    let verify = match verify {
        None => Verify::Optional,
        Some(v) => curbi::policy::parse_verify(&serde_json::Value::String(v.to_owned()), "/verify")
            .map_err(|e| raise(py, e))?,
    };
    let record = match record.filter(|r| !r.is_none()) {
        None => None,
        Some(r) => match r.cast::<PyRecord>() {
            Ok(parsed) => Some(CompiledRecord::clone(&parsed.get().inner)),
            Err(_) => Some(CompiledRecord::clone(&PyRecord::parse(py, r)?.inner)),
        },
    };
    Ok(CheckOptions { record, version, verify })
}

#[pymethods]
impl Policy {
    /// Validates and compiles a policy (a dict, or a str of JSON). Raises `CurbiError` with the path of a bad field.
    /// With `receipts` (the receipt keys you trust: `{"keys": jwks, "allowTest"?: bool, "now"?: "RFC 3339"}`),
    /// claimed actions are checked against the signed receipts a record offers (docs/CHECKER.md §Receipts).
    #[staticmethod]
    #[pyo3(signature = (policy, receipts=None))]
    fn compile(py: Python<'_>, policy: &Bound<'_, PyAny>, receipts: Option<&Bound<'_, PyAny>>) -> PyResult<Policy> {
        let bytes = document_bytes(py, policy, "")?;
        let keys = match receipts.filter(|r| !r.is_none()) {
            Some(r) => document_bytes(py, r, "")?,
            None => Vec::new(),
        };
        let compiled = CompiledPolicy::from_json_with_receipts(&bytes, &keys).map_err(|e| raise(py, e))?;
        Ok(Policy { inner: Arc::new(compiled) })
    }

    /// Checks one reply, or `cases` (a list of `{"id"?, "reply", "record"?}`), against this policy.
    /// `record` is what the caller says happened (its receipts are verified when the policy has receipt keys);
    /// `version` pins a checker version; `verify="required"` counts claimed actions only through signed receipts.
    #[pyo3(signature = (reply=None, *, cases=None, record=None, version=None, verify=None))]
    fn check(
        &self,
        py: Python<'_>,
        reply: Option<&Bound<'_, PyAny>>,
        cases: Option<&Bound<'_, PyAny>>,
        record: Option<&Bound<'_, PyAny>>,
        version: Option<&Bound<'_, PyAny>>,
        verify: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let version = version.map(|v| string_argument(py, v, "/version")).transpose()?;
        let verify = verify.map(|v| string_argument(py, v, "/verify")).transpose()?;
        let opts = options(py, record, version.as_deref(), verify.as_deref())?;
        let reply = reply.filter(|r| !r.is_none()).map(|r| string_argument(py, r, "/reply")).transpose()?;
        match (reply, cases) {
            (Some(reply), None) => {
                // A long reply is checked with the GIL released, so other Python threads run meanwhile; a short one
                // keeps it (releasing costs more than its check).
                let found = if reply.len() > RELEASE_GIL_ABOVE {
                    let inner = Arc::clone(&self.inner);
                    py.detach(|| api::find_one(&inner, &reply, &opts))
                } else {
                    api::find_one(&self.inner, &reply, &opts)
                };
                let (found, trust) = found.map_err(|e| raise(py, e))?;
                Ok(Py::new(py, Check::one(&reply, found, opts.version, trust))?.into_any())
            }
            (None, Some(cases)) => {
                let bytes = document_bytes(py, cases, "/cases")?;
                let Cases(cases) = Cases::from_json(&bytes).map_err(|e| raise(py, e))?;
                let inner = Arc::clone(&self.inner);
                // Up to 50 replies: release the GIL (and let other threads check) while Rust works.
                let (found, trust) = py.detach(|| api::find_cases(&inner, &cases, &opts)).map_err(|e| raise(py, e))?;
                let mut results = Vec::with_capacity(cases.len());
                let mut wire = Vec::with_capacity(cases.len());
                for (index, (case, f)) in cases.into_iter().zip(found).enumerate() {
                    let check = Check::case(index, case.id, &case.reply, f, opts.version, trust);
                    if let Wire::Case(result) = &check.wire {
                        wire.push(result.clone());
                    }
                    results.push(Py::new(py, check)?);
                }
                let wire = BatchResponse::with_trust(opts.version, trust, wire);
                Ok(Py::new(py, Batch { passed: wire.pass, version: wire.version, results, wire })?.into_any())
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
/// `receipts` are the receipt keys you trust (configuration, never part of the request).
#[pyfunction]
#[pyo3(signature = (request, receipts=None))]
fn check<'py>(
    py: Python<'py>,
    request: &Bound<'py, PyAny>,
    receipts: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let keys = match receipts.filter(|r| !r.is_none()) {
        Some(r) => {
            let bytes = document_bytes(py, r, "")?;
            Some(Arc::new(api::ReceiptVerifier::from_json(&bytes).map_err(|e| raise(py, e))?))
        }
        None => None,
    };
    json_function(py, request, move |b| Ok(api::check_json_with(b, keys.as_ref())?.to_json_string()))
}

/// Runs a JSON-in, JSON-out core function on a dict or JSON str, with the GIL released, and returns the document
/// as Python objects.
fn json_function<'py>(
    py: Python<'py>,
    input: &Bound<'py, PyAny>,
    f: impl FnOnce(&[u8]) -> curbi::Result<String> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let bytes = document_bytes(py, input, "")?;
    let out = py.detach(|| f(&bytes)).map_err(|e| raise(py, e))?;
    loads(py, &out)
}

/// The functions that take one document and answer with one: each a `#[pyfunction]` over its `api::*_json` entry
/// point, through [`json_function`] (the GIL released while the core works).
macro_rules! json_functions {
    ($($(#[doc = $doc:literal])* fn $name:ident($arg:ident) => $entry:path;)*) => {$(
        $(#[doc = $doc])*
        #[pyfunction]
        fn $name<'py>(py: Python<'py>, $arg: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
            json_function(py, $arg, $entry)
        }
    )*};
}

json_functions! {
    /// Lints a policy: `{"valid", "errors", "warnings"}` (docs/LINT.md). An invalid policy is a report, not an error.
    fn validate_policy(policy) => api::validate_policy_json;
    /// Exports a check request as a CI regression: `{"regression", "nodeTest", "pytest"}` (docs/REGRESSION.md).
    fn export_regression(request) => api::export_regression_json;
    /// Replays a `curbi.regression` document with its pinned checker: the `curbi.replay` report.
    fn replay_regression(regression) => api::replay_regression_json;
    /// Decides a purchase: `{"mandate", "checkout", "ledger"?, "now"}` in, the ALLOW / DENY / STEP_UP decision out.
    /// Amounts are integers of minor units: a float such as `100.0` is a DENY, never rounded.
    fn verify_checkout(request) => api::verify_checkout_json;
    /// Decides an action: `{"grant", "action", "now"}` in, the decision out.
    fn verify_action(request) => api::verify_action_json;
    /// The `checkout_digest` a mandate pins for a checkout (docs/PURCHASE.md §Binding), as a `str`: unpadded base64url of
    /// SHA-256 over its RFC 8785 form without `ap2`. Pass the checkout as JSON text to hash its numbers as written.
    fn checkout_digest(checkout) => api::checkout_digest_json;
    /// Verifies a Proof of Action bundle offline: `{"bundle", "keys", "allowTest"?, "mode"?, "now"?, "known"?, ...}` in,
    /// `{"ok", "reason", "items", "head", "evidence", ...}` out, with the GIL released. The caller's `keys` are the
    /// trust anchor. A rejected bundle is a result with `ok: False`; only unreadable JSON raises. To verify many bundles
    /// under the same keys and options, read them once with `Verifier.compile`.
    fn verify_bundle(request) => api::verify_bundle_json;
}

/// Converts a YAML document (`str` or `bytes`; docs/YAML.md) to the compact JSON text it stands for, to pass wherever
/// a JSON document goes: `Policy.compile(yaml_to_json(open("policy.yaml").read()))`. Numbers keep their digits;
/// what the strict reader refuses raises `ValidationError` with its code and path (a repeated key is
/// `duplicate_member`; an alias, a tag, `.inf` or a second document `invalid_json`).
#[pyfunction]
fn yaml_to_json(py: Python<'_>, yaml: &Bound<'_, PyAny>) -> PyResult<String> {
    let bytes = match yaml.cast::<pyo3::types::PyBytes>() {
        Ok(b) => b.as_bytes().to_vec(),
        Err(_) => string_argument(py, yaml, "")?.into_bytes(),
    };
    py.detach(|| api::yaml_to_json(&bytes)).map_err(|e| raise(py, e))
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
        let bytes = document_bytes(py, options, "")?;
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
    m.add_class::<Policy>()?;
    m.add_class::<Check>()?;
    m.add_class::<Batch>()?;
    m.add_class::<Finding>()?;
    m.add_class::<PyRecord>()?;
    m.add_class::<Verifier>()?;
    m.add_class::<recorder::Recorder>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(validate_policy, m)?)?;
    m.add_function(wrap_pyfunction!(export_regression, m)?)?;
    m.add_function(wrap_pyfunction!(replay_regression, m)?)?;
    m.add_function(wrap_pyfunction!(verify_checkout, m)?)?;
    m.add_function(wrap_pyfunction!(verify_action, m)?)?;
    m.add_function(wrap_pyfunction!(checkout_digest, m)?)?;
    m.add_function(wrap_pyfunction!(verify_bundle, m)?)?;
    m.add_function(wrap_pyfunction!(yaml_to_json, m)?)?;
    m.add_function(wrap_pyfunction!(error_codes, m)?)?;
    m.add("CURRENT_CHECKER_VERSION", CheckerVersion::CURRENT.as_str())?;
    Ok(())
}
