//! The Node binding of Curbi (npm package `curbi`): a thin napi-rs layer over the core crate with no checking logic
//! of its own. Documents in as objects or JSON text, plain result objects out, errors as `Error`s with code and path.

mod codes;
mod convert;
mod js;
mod recorder;
mod result;

use std::sync::Arc;

use curbi::api::{self, Cases, CheckOptions, SpanUnit};
use curbi::{CompiledPolicy, Error, ErrorCode as Code};
use napi::bindgen_prelude::{
    AsyncTask, ClassInstance, Either, FromNapiValue, JavaScriptClassExt, JsObjectValue, JsValue, Unknown,
};
use napi::{Env, Task, ValueType};
use napi_derive::napi;

pub use codes::ErrorCode;
use convert::{document_text, js_error, options_text, reply_text};
pub use recorder::{OpenTask, Recorder};

/// Runs core work inside a panic guard. A panic is a bug in the core; unwinding out of an addon call would abort
/// the whole Node process, so it becomes a thrown `internal` error instead (as the C ABI's `CURBI_STATUS_PANIC`).
fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(Error::new(Code::Internal, "", "internal error: the checker panicked (a bug; please report it)"))
    })
}

/// Puts the `CurbiError` class on the module's exports: every error the addon throws or rejects with is an instance
/// of it (`e instanceof curbi.CurbiError`), with `code` and `path`.
#[napi(module_exports)]
pub fn exports(mut exports: napi::bindgen_prelude::Object, env: Env) -> napi::Result<()> {
    let class = js::js(&env)?.error_class.borrow_back(&env)?;
    exports.set_named_property("CurbiError", class)
}

/// The library version, e.g. "0.1.0".
#[napi]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// A compiled policy: immutable, cheap to share. Made by `compilePolicy`; check any number of replies with it.
#[napi]
#[derive(Debug)]
pub struct Policy {
    inner: Arc<CompiledPolicy>,
}

/// Validates and compiles a policy (the Check API's `policy` member), as an object or JSON text. Throws a
/// `CurbiError` whose `path` points into the policy document (e.g. `/prices/0/item`). With `receipts` (the receipt
/// keys you trust: `{keys, allowTest?, now?}`), claimed actions are checked against signed receipts in the record
/// (docs/CHECKER.md §Receipts); errors in it carry paths inside it (`/keys/0/x`).
#[napi(ts_args_type = "policy: PolicyDocument | string, receipts?: ReceiptKeys | string | undefined | null")]
pub fn compile_policy(env: Env, policy: Unknown, receipts: Option<Unknown>) -> napi::Result<Policy> {
    guarded(|| compile(&env, policy, receipts)).map_err(|e| js_error(&env, e))
}

fn compile(env: &Env, value: Unknown, receipts: Option<Unknown>) -> Result<Policy, Error> {
    let text = document_text(env, value, "policy")?;
    let receipts = receipts_text(env, receipts)?.unwrap_or_default();
    Ok(Policy { inner: Arc::new(CompiledPolicy::from_json_with_receipts(text.as_bytes(), receipts.as_bytes())?) })
}

/// The receipt keys document, when one was passed (`undefined` and `null` mean none).
fn receipts_text(env: &Env, value: Option<Unknown>) -> Result<Option<String>, Error> {
    match value {
        Some(v) if !matches!(v.get_type().ok(), Some(ValueType::Undefined | ValueType::Null)) => {
            document_text(env, v, "receipts").map(Some)
        }
        _ => Ok(None),
    }
}

/// The receipt verifier of a `receipts` document, for the one-call `check(request, receipts)`: built per call, so its
/// signature cache lives for that call only (compile a policy with receipt keys to keep it across checks).
fn verifier(text: Option<String>) -> Result<Option<Arc<api::ReceiptVerifier>>, Error> {
    text.map(|t| api::ReceiptVerifier::from_json(t.as_bytes()).map(Arc::new)).transpose()
}

/// Check options read once (`{record, version}`, validated), to check many replies against the same record
/// without reading it again each time. Made by `prepareOptions`; pass it wherever options are accepted.
#[napi]
#[derive(Debug)]
pub struct PreparedOptions {
    inner: Arc<CheckOptions>,
}

#[napi]
impl PreparedOptions {
    /// The checker version these options pin (the current one when none was given).
    #[napi(getter, ts_return_type = "CheckerVersion")]
    pub fn version(&self) -> &'static str {
        self.inner.version.as_str()
    }
}

/// Reads and validates check options once. Throws a `CurbiError` with the same codes and paths as passing the
/// object to `policy.check` (`/record/facts/0/value`, `/version`).
#[napi(ts_args_type = "options: CheckOptions | string")]
pub fn prepare_options(env: Env, options: Unknown) -> napi::Result<PreparedOptions> {
    let run = || match options_text(&env, Some(options))? {
        Some(text) => CheckOptions::from_json(text.as_bytes()),
        None => Err(Error::new(Code::InvalidType, "", "options must be an object")),
    };
    guarded(run).map(|o| PreparedOptions { inner: Arc::new(o) }).map_err(|e| js_error(&env, e))
}

/// Options as an argument carries them: none, already read, or JSON text still to be read.
#[derive(Debug)]
enum Options {
    Default,
    Prepared(Arc<CheckOptions>),
    Text(String),
}

impl Options {
    /// Reads the argument on the JavaScript thread: a `PreparedOptions`, a plain object, or nothing.
    fn from_arg(env: &Env, value: Option<Unknown>) -> Result<Options, Error> {
        if let Some(v) = value
            && v.get_type().ok() == Some(ValueType::Object)
            && PreparedOptions::instance_of(env, &v).unwrap_or(false)
        {
            let prepared = ClassInstance::<PreparedOptions>::from_unknown(v)
                .map_err(|e| Error::new(Code::Internal, "", format!("could not read PreparedOptions: {e}")))?;
            return Ok(Options::Prepared(prepared.inner.clone()));
        }
        Ok(options_text(env, value)?.map_or(Options::Default, Options::Text))
    }

    /// The options, reading JSON text with the request schema (codes and paths of a Check API request).
    fn with<T>(&self, f: impl FnOnce(&CheckOptions) -> Result<T, Error>) -> Result<T, Error> {
        match self {
            Options::Default => f(&CheckOptions::default()),
            Options::Prepared(o) => f(o),
            Options::Text(text) => f(&CheckOptions::from_json(text.as_bytes())?),
        }
    }
}

/// Checks one reply against a compiled policy, spans in UTF-16 code units.
fn check_one(policy: &CompiledPolicy, reply: &str, options: &Options) -> Result<api::CheckResponse, Error> {
    options.with(|o| api::check_one(policy, reply, o, SpanUnit::Utf16))
}

/// Checks `cases` (JSON text of the array) against a compiled policy. Errors in a case have the paths of a Check API
/// request (`/cases/0/reply`); a case's own `record` replaces the one in `options`.
fn check_cases(policy: &CompiledPolicy, cases: &str, options: &Options) -> Result<api::BatchResponse, Error> {
    let cases = Cases::from_json(cases.as_bytes())?;
    options.with(|o| api::check_cases(policy, &cases.0, o, SpanUnit::Utf16))
}

/// `cases` must be an array; its errors are reported at `/cases` as in a request.
/// `cases` must be an array or JSON text (the core judges the text: not an array is its `invalid_type` at `/cases`).
fn cases_text(env: &Env, cases: Unknown) -> Result<String, Error> {
    if !cases.is_array().unwrap_or(false) && cases.get_type().ok() != Some(ValueType::String) {
        return Err(Error::new(Code::InvalidType, "/cases", "cases must be an array"));
    }
    document_text(env, cases, "cases")
}

#[napi]
impl Policy {
    /// Checks one reply. `reply.slice(...finding.span) === finding.text` for every finding.
    #[napi(
        ts_args_type = "reply: string, options?: CheckOptions | PreparedOptions | string | undefined | null",
        ts_return_type = "Check"
    )]
    pub fn check(&self, env: Env, reply: Unknown, options: Option<Unknown>) -> napi::Result<Unknown<'static>> {
        let run = || check_one(&self.inner, &reply_text(reply)?, &Options::from_arg(&env, options)?);
        guarded(run).map_err(|e| js_error(&env, e)).and_then(|r| result::check(&env, r))
    }

    /// Checks one reply on the libuv thread pool. Bad input rejects the Promise with a `CurbiError`.
    #[napi(
        ts_args_type = "reply: string, options?: CheckOptions | PreparedOptions | string | undefined | null",
        ts_return_type = "Promise<Check>"
    )]
    pub fn check_async(&self, env: Env, reply: Unknown, options: Option<Unknown>) -> AsyncTask<CheckTask> {
        let job =
            reply_text(reply).and_then(|r| Ok(Job::One(self.inner.clone(), r, Options::from_arg(&env, options)?)));
        AsyncTask::new(CheckTask { job })
    }

    /// Checks up to 50 cases (`{id?, reply, record?}`), one result per case in order.
    #[napi(
        ts_args_type = "cases: CheckCase[] | string, options?: CheckOptions | PreparedOptions | string | undefined | null",
        ts_return_type = "CheckBatch"
    )]
    pub fn check_cases(&self, env: Env, cases: Unknown, options: Option<Unknown>) -> napi::Result<Unknown<'static>> {
        let run = || check_cases(&self.inner, &cases_text(&env, cases)?, &Options::from_arg(&env, options)?);
        guarded(run).map_err(|e| js_error(&env, e)).and_then(|r| result::batch(&env, r))
    }

    /// `checkCases` on the libuv thread pool.
    #[napi(
        ts_args_type = "cases: CheckCase[] | string, options?: CheckOptions | PreparedOptions | string | undefined | null",
        ts_return_type = "Promise<CheckBatch>"
    )]
    pub fn check_cases_async(&self, env: Env, cases: Unknown, options: Option<Unknown>) -> AsyncTask<CheckTask> {
        let job = cases_text(&env, cases)
            .and_then(|c| Ok(Job::Cases(self.inner.clone(), c, Options::from_arg(&env, options)?)));
        AsyncTask::new(CheckTask { job })
    }
}

/// The whole Check API in one call: a request (`{policy, reply | cases, record?, version?, verify?}`, as an object
/// or JSON text) in, the response document out, spans in UTF-16 code units. Throws a `CurbiError` with the first
/// error in schema order, its `path` pointing into the request. `receipts` are the receipt keys you trust
/// (configuration, never part of the request); without them, receipts and `verify: 'required'` are `unsupported`.
#[napi(
    ts_args_type = "request: CheckRequest | string, receipts?: ReceiptKeys | string | undefined | null",
    ts_return_type = "CheckResponse"
)]
pub fn check(env: Env, request: Unknown, receipts: Option<Unknown>) -> napi::Result<Unknown<'static>> {
    let run = || {
        let keys = verifier(receipts_text(&env, receipts)?)?;
        api::check_json_with(document_text(&env, request, "request")?.as_bytes(), keys.as_ref())
    };
    guarded(run).map_err(|e| js_error(&env, e)).and_then(|r| result::response(&env, r))
}

/// `check` on the libuv thread pool: the request is parsed, compiled and checked off the event loop.
#[napi(
    ts_args_type = "request: CheckRequest | string, receipts?: ReceiptKeys | string | undefined | null",
    ts_return_type = "Promise<CheckResponse>"
)]
pub fn check_async(env: Env, request: Unknown, receipts: Option<Unknown>) -> AsyncTask<CheckTask> {
    let job = receipts_text(&env, receipts).and_then(|k| Ok(Job::Request(document_text(&env, request, "request")?, k)));
    AsyncTask::new(CheckTask { job })
}

/// Runs a core function that takes a JSON document and answers with one (lint, regression, purchase).
fn json_call(
    env: &Env,
    input: Unknown,
    what: &str,
    f: fn(&[u8]) -> Result<String, Error>,
) -> napi::Result<Unknown<'static>> {
    let run = || f(document_text(env, input, what)?.as_bytes());
    guarded(run).map_err(|e| js_error(env, e)).and_then(|text| result::document(env, text))
}

/// Lints a policy (docs/LINT.md): every schema error, and warnings for rules the shipped checker never fires on.
/// An invalid policy is a report with `valid: false`, not an exception; only text that is not JSON throws.
#[napi(ts_args_type = "policy: PolicyDocument | string", ts_return_type = "LintReport")]
pub fn validate_policy(env: Env, policy: Unknown) -> napi::Result<Unknown<'static>> {
    json_call(&env, policy, "policy", api::validate_policy_json)
}

/// Exports a check request as a CI regression (docs/REGRESSION.md): the `curbi.regression` document, whose
/// expectations come from the checker, and the text of its `node:test` and pytest replay files.
#[napi(ts_args_type = "request: ExportRequest | string", ts_return_type = "RegressionExport")]
pub fn export_regression(env: Env, request: Unknown) -> napi::Result<Unknown<'static>> {
    json_call(&env, request, "request", api::export_regression_json)
}

/// Replays a `curbi.regression` document with the checker version it pins: the `curbi.replay` report.
#[napi(ts_args_type = "regression: Regression | string", ts_return_type = "ReplayReport")]
pub fn replay_regression(env: Env, regression: Unknown) -> napi::Result<Unknown<'static>> {
    json_call(&env, regression, "regression", api::replay_regression_json)
}

/// Decides a purchase (docs/PURCHASE.md): `{mandate, checkout, ledger?, now}` in, ALLOW / DENY / STEP_UP with every
/// reason out. Anything malformed is a DENY with reasons, not an exception. Amounts are integers of minor units;
/// pass JSON text to keep `100.0` (a DENY) apart from `100`, which JavaScript numbers cannot.
#[napi(ts_args_type = "request: object | string", ts_return_type = "Decision")]
pub fn verify_checkout(env: Env, request: Unknown) -> napi::Result<Unknown<'static>> {
    json_call(&env, request, "request", api::verify_checkout_json)
}

/// Decides an action against a grant (docs/PURCHASE.md): `{grant, action, now}` in, the decision out.
#[napi(ts_args_type = "request: object | string", ts_return_type = "Decision")]
pub fn verify_action(env: Env, request: Unknown) -> napi::Result<Unknown<'static>> {
    json_call(&env, request, "request", api::verify_action_json)
}

/// The `checkout_digest` a mandate pins for a checkout (docs/PURCHASE.md §Binding): unpadded base64url of SHA-256 over
/// its RFC 8785 form without `ap2`. Pass JSON text to hash the checkout's numbers as written (`2.5e3`, `100.0`).
#[napi(ts_args_type = "checkout: object | string", ts_return_type = "string")]
pub fn checkout_digest(env: Env, checkout: Unknown) -> napi::Result<Unknown<'static>> {
    json_call(&env, checkout, "checkout", api::checkout_digest_json)
}

/// Converts a YAML document (docs/YAML.md) to the compact JSON text it stands for, to pass wherever a JSON document
/// goes: `compilePolicy(yamlToJson(readFileSync('policy.yaml', 'utf8')))`. Numbers keep their digits; what the strict
/// reader refuses throws a `CurbiError` with its code and path (a repeated key is `duplicate_member`; an alias, a
/// tag, `.inf` or a second document `invalid_json`).
#[napi(ts_args_type = "yaml: string", ts_return_type = "string")]
pub fn yaml_to_json(env: Env, yaml: Unknown) -> napi::Result<String> {
    let run = || {
        let internal = |e: napi::Error| Error::new(Code::Internal, "", e.to_string());
        let text = match yaml.get_type().map_err(internal)? {
            ValueType::String => String::from_unknown(yaml).map_err(internal)?,
            _ => return Err(Error::new(Code::InvalidType, "", "yaml must be a string")),
        };
        api::yaml_to_json(text.as_bytes())
    };
    guarded(run).map_err(|e| js_error(&env, e))
}

/// Verifies a Proof of Action bundle offline (docs/PROOF.md) on the libuv thread pool: `{bundle, keys, allowTest?,
/// mode?, now?, known?, ...}` in, `{ok, reason, items, head, evidence, ...}` out. The caller's `keys` are the trust
/// anchor. A rejected bundle resolves with `ok: false` and its reason; only text that is not JSON rejects. To verify
/// many bundles under the same keys and options, read them once with `createVerifier`.
#[napi(ts_args_type = "request: VerifyBundleRequest | string", ts_return_type = "Promise<Verification>")]
pub fn verify_bundle(env: Env, request: Unknown) -> AsyncTask<JsonTask> {
    AsyncTask::new(JsonTask {
        input: document_text(&env, request, "request"),
        run: Box::new(api::verify_bundle_json),
        text: false,
    })
}

/// A Proof of Action verifier: the caller's keys and options read once, immutable and shared. Made by
/// `createVerifier`; verify any number of bundles with it, concurrently.
#[napi]
#[derive(Debug)]
pub struct Verifier {
    inner: Arc<api::Verifier>,
}

/// Reads the verification options (`{keys, allowTest?, mode?, now?, known?, trustBundleKeys?, witnesses?}`: a
/// `verifyBundle` request without `bundle`), as an object or JSON text, once. Options that cannot be used throw a
/// `CurbiError` with the code and path the whole request would report under reason `malformed` (`/keys/keys/0/x`).
#[napi(ts_args_type = "options: VerifyOptions | string")]
pub fn create_verifier(env: Env, options: Unknown) -> napi::Result<Verifier> {
    let run = || api::Verifier::from_json(document_text(&env, options, "options")?.as_bytes());
    guarded(run).map(|v| Verifier { inner: Arc::new(v) }).map_err(|e| js_error(&env, e))
}

#[napi]
impl Verifier {
    /// Verifies one bundle (an object or JSON text) on the libuv thread pool, resolving exactly as `verifyBundle` does
    /// for the request made of these options and this bundle. A bundle that cannot be read resolves with reason
    /// `malformed` and a path under `/bundle`; only text that is not JSON rejects.
    #[napi(ts_args_type = "bundle: ProofBundle | string", ts_return_type = "Promise<Verification>")]
    pub fn verify(&self, env: Env, bundle: Unknown) -> AsyncTask<JsonTask> {
        let verifier = self.inner.clone();
        let run = Box::new(move |text: &[u8]| verifier.verify_json(text));
        AsyncTask::new(JsonTask { input: document_text(&env, bundle, "bundle"), run, text: false })
    }
}

/// A core call that takes a JSON document and answers with one.
type JsonFn = dyn Fn(&[u8]) -> Result<String, Error> + Send;

/// A JSON-in, JSON-out core call run off the event loop.
pub struct JsonTask {
    input: Result<String, Error>,
    run: Box<JsonFn>,
    /// Resolve with the answer's JSON text rather than the parsed answer.
    text: bool,
}

impl std::fmt::Debug for JsonTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonTask").field("input", &self.input).finish_non_exhaustive()
    }
}

impl Task for JsonTask {
    type Output = Result<String, Error>;
    type JsValue = Either<String, Unknown<'static>>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let input = std::mem::replace(&mut self.input, Err(Error::new(Code::Internal, "", "task ran twice")));
        Ok(input.and_then(|text| guarded(|| (self.run)(text.as_bytes()))))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        let text = output.map_err(|e| js_error(&env, e))?;
        if self.text { Ok(Either::A(text)) } else { result::document(&env, text).map(Either::B) }
    }
}

/// What an async call does off the event loop, with everything it needs owned.
#[derive(Debug)]
enum Job {
    One(Arc<CompiledPolicy>, String, Options),
    Cases(Arc<CompiledPolicy>, String, Options),
    Request(String, Option<String>),
}

/// A check run on the libuv thread pool. Input errors found while reading the arguments on the JavaScript thread
/// are carried here, so async calls always report them by rejecting their Promise, never by throwing.
#[derive(Debug)]
pub struct CheckTask {
    job: Result<Job, Error>,
}

impl Task for CheckTask {
    type Output = Result<api::Response, Error>;
    type JsValue = Unknown<'static>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let job = std::mem::replace(&mut self.job, Err(Error::new(Code::Internal, "", "task ran twice")));
        Ok(job.and_then(|job| {
            guarded(|| match job {
                Job::One(p, reply, options) => check_one(&p, &reply, &options).map(api::Response::One),
                Job::Cases(p, cases, options) => check_cases(&p, &cases, &options).map(api::Response::Batch),
                Job::Request(text, keys) => api::check_json_with(text.as_bytes(), verifier(keys)?.as_ref()),
            })
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        output.map_err(|e| js_error(&env, e)).and_then(|r| result::response(&env, r))
    }
}
