//! The C ABI of Curbi: opaque handles and JSON documents over the core crate, with no logic of its own.
//! Conventions (ownership, out-params, NULL, panics, threads, status codes) are in docs/ABI.md.
// Exporting C symbols needs `#[unsafe(no_mangle)]`; every pointer dereference is in `ptr.rs`.
#![allow(unsafe_code)]
#![allow(non_camel_case_types)]

mod ptr;
mod recorder;

pub use recorder::*;

use std::ffi::c_char;
use std::panic::{AssertUnwindSafe, catch_unwind};

use curbi_core::api::{self, CheckOptions, SpanUnit};
use curbi_core::{CompiledPolicy, Error, ErrorCode};

/// Status of every call. Stable numbers: never renumbered or reused; new ones are appended.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum curbi_status {
    /// Success: the out-parameters were written.
    Ok = 0,
    /// The input was read but is not valid; the error document (`error_out`) has its code, message and path.
    InvalidInput = 1,
    /// A required pointer argument was NULL (or a NULL pointer came with a non-zero length).
    NullArgument = 2,
    /// A length is larger than PTRDIFF_MAX.
    InvalidLength = 3,
    /// Text that must be UTF-8 is not; the error document names the field.
    InvalidUtf8 = 4,
    /// The library caught a panic: a bug, please report it. No out-parameter was written.
    Panic = 5,
    /// The caller's buffer was too small: it holds a truncated, NUL-terminated message and `*needed` the full size.
    BufferTooSmall = 6,
}

impl curbi_status {
    fn message(self) -> &'static str {
        match self {
            curbi_status::Ok => "ok",
            curbi_status::InvalidInput => "invalid input: see the error document",
            curbi_status::NullArgument => "a required pointer argument was NULL",
            curbi_status::InvalidLength => "a length is larger than PTRDIFF_MAX",
            curbi_status::InvalidUtf8 => "text is not valid UTF-8",
            curbi_status::Panic => "internal error: the library caught a panic (a bug; please report it)",
            curbi_status::BufferTooSmall => "the buffer is too small",
        }
    }

    fn from_u32(n: u32) -> Option<curbi_status> {
        use curbi_status::*;
        [Ok, InvalidInput, NullArgument, InvalidLength, InvalidUtf8, Panic, BufferTooSmall]
            .into_iter()
            .find(|s| *s as u32 == n)
    }
}

/// A compiled policy: immutable, safe to share between threads. Free with `curbi_policy_free`.
#[derive(Debug)]
pub struct curbi_policy {
    inner: CompiledPolicy,
}

/// A Proof of Action verifier: the trust anchor (`keys`) and options read once. Immutable, safe to share between
/// threads. Free with `curbi_verifier_free`.
#[derive(Debug)]
pub struct curbi_verifier {
    inner: api::Verifier,
}

/// An owned JSON document (UTF-8, not NUL-terminated). Read with `curbi_bytes_data` / `curbi_bytes_len`; free
/// with `curbi_bytes_free`.
#[derive(Debug)]
pub struct curbi_bytes {
    data: Box<[u8]>,
}

/// A failed call's outcome: its status, and the error document when there is one.
struct Failure(curbi_status, Option<Error>);

impl From<curbi_status> for Failure {
    fn from(s: curbi_status) -> Self {
        Failure(s, None)
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure(curbi_status::InvalidInput, Some(e))
    }
}

/// Runs `f` inside the panic guard. On failure, writes the error document to `error_out` (if non-NULL).
fn guard(error_out: *mut *mut curbi_bytes, f: impl FnOnce() -> Result<(), Failure>) -> curbi_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => curbi_status::Ok,
        Ok(Err(Failure(status, doc))) => {
            if let Some(e) = doc {
                ptr::write_out(error_out, curbi_bytes { data: e.to_json().to_string().into_bytes().into() });
            }
            status
        }
        Err(_) => curbi_status::Panic,
    }
}

/// The shape of every call that answers with a document: `handle_call` writing the JSON `f` makes.
fn document_call(
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
    f: impl FnOnce() -> Result<String, Failure>,
) -> curbi_status {
    handle_call(result_out, error_out, || Ok(curbi_bytes { data: f()?.into_bytes().into_boxed_slice() }))
}

/// The shape of every call with one out-parameter (a constructor's handle, a document): `handle_out` checked
/// first, then `f` reads its inputs and makes the value, which goes to `handle_out`; a failure goes to `error_out`
/// (`guard`).
fn handle_call<T>(
    handle_out: *mut *mut T,
    error_out: *mut *mut curbi_bytes,
    f: impl FnOnce() -> Result<T, Failure>,
) -> curbi_status {
    guard(error_out, || {
        ptr::check_out(handle_out)?;
        let handle = f()?;
        ptr::write_out(handle_out, handle);
        Ok(())
    })
}

/// The library version, e.g. "0.1.0": a static NUL-terminated string, never freed.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Compiles a policy document (the Check API's `policy` member, as JSON). On success writes a new handle to
/// `*policy_out`; on `CURBI_STATUS_INVALID_INPUT` writes the error document to `*error_out` (if non-NULL).
#[unsafe(no_mangle)]
pub extern "C" fn curbi_policy_compile(
    policy_json: *const u8,
    policy_len: usize,
    policy_out: *mut *mut curbi_policy,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    new_handle(policy_json, policy_len, policy_out, error_out, |bytes| {
        Ok(curbi_policy { inner: CompiledPolicy::from_json(bytes)? })
    })
}

/// Compiles a policy that checks claimed actions against signed receipts (docs/CHECKER.md §Receipts):
/// `receipts_json` is `{"keys": JWKS, "allowTest"?: bool, "now"?: "RFC 3339"}` — the receipt keys you trust, whether
/// test keys count, and a fixed clock (the system clock when absent). NULL/0 means no receipt keys, as
/// `curbi_policy_compile`. Errors in the receipts document carry paths inside it (`/keys/0/x`).
#[unsafe(no_mangle)]
pub extern "C" fn curbi_policy_compile_with_receipts(
    policy_json: *const u8,
    policy_len: usize,
    receipts_json: *const u8,
    receipts_len: usize,
    policy_out: *mut *mut curbi_policy,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    handle_call(policy_out, error_out, || {
        let (policy, receipts) = (ptr::bytes_in(policy_json, policy_len)?, ptr::bytes_in(receipts_json, receipts_len)?);
        Ok(curbi_policy { inner: CompiledPolicy::from_json_with_receipts(policy, receipts)? })
    })
}

/// A document in, a new handle out: the shape of every constructor.
fn new_handle<T>(
    input: *const u8,
    len: usize,
    handle_out: *mut *mut T,
    error_out: *mut *mut curbi_bytes,
    f: impl FnOnce(&[u8]) -> curbi_core::Result<T>,
) -> curbi_status {
    handle_call(handle_out, error_out, || Ok(f(ptr::bytes_in(input, len)?)?))
}

/// Frees a policy. NULL is a no-op. The handle must not be in use by another thread.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_policy_free(policy: *mut curbi_policy) {
    let _ = catch_unwind(|| ptr::free(policy));
}

/// Checks one reply (UTF-8 bytes) with a compiled policy. `options_json` may be NULL/0 or
/// `{"record": {...}, "version": "...", "verify": "optional" | "required"}`; receipts in the record need a policy
/// compiled with receipt keys (`CURBI_STATUS_INVALID_INPUT`, code `unsupported`, otherwise). On success writes the response document to `*result_out`, with spans in
/// UTF-8 **bytes** of `reply`. Thread-safe: many threads may check with one policy at once.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_policy_check(
    policy: *const curbi_policy,
    reply: *const u8,
    reply_len: usize,
    options_json: *const u8,
    options_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    document_call(result_out, error_out, || {
        let p = ptr::handle(policy)?;
        let reply = ptr::bytes_in(reply, reply_len)?;
        let options = ptr::bytes_in(options_json, options_len)?;
        let Ok(reply) = std::str::from_utf8(reply) else {
            let e = Error::new(ErrorCode::InvalidValue, "/reply", "reply is not valid UTF-8");
            return Err(Failure(curbi_status::InvalidUtf8, Some(e)));
        };
        let options = CheckOptions::from_json(options)?;
        Ok(api::check_one(&p.inner, reply, &options, SpanUnit::Utf8)?.to_json_string())
    })
}

/// A document in, a document out: the shape of every JSON function below.
fn json_call(
    input: *const u8,
    len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
    f: impl FnOnce(&[u8]) -> curbi_core::Result<String>,
) -> curbi_status {
    document_call(result_out, error_out, || Ok(f(ptr::bytes_in(input, len)?)?))
}

/// The Check API in one call: a whole request document in, the response document out (spans in UTF-16 code units,
/// exactly as `POST /v1/check`).
#[unsafe(no_mangle)]
pub extern "C" fn curbi_check(
    request_json: *const u8,
    request_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    json_call(request_json, request_len, result_out, error_out, |b| Ok(api::check_json(b)?.to_json_string()))
}

/// [`curbi_check`] with receipt keys from configuration (never from the request): `receipts_json` is
/// `{"keys": JWKS, "allowTest"?, "now"?}`, as `curbi_policy_compile_with_receipts`. NULL/0 means none: receipts and
/// `verify: "required"` are then `unsupported`, as with `curbi_check`. Errors in the receipts document carry paths
/// inside it.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_check_with_receipts(
    request_json: *const u8,
    request_len: usize,
    receipts_json: *const u8,
    receipts_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    document_call(result_out, error_out, || {
        let (request, receipts) =
            (ptr::bytes_in(request_json, request_len)?, ptr::bytes_in(receipts_json, receipts_len)?);
        let keys = if receipts.is_empty() {
            None
        } else {
            Some(std::sync::Arc::new(api::ReceiptVerifier::from_json(receipts)?))
        };
        Ok(api::check_json_with(request, keys.as_ref())?.to_json_string())
    })
}

/// Lints a policy document: `{"valid","errors","warnings"}` (docs/LINT.md). An invalid policy is still
/// `CURBI_STATUS_OK` with `valid: false`; only unreadable JSON is `CURBI_STATUS_INVALID_INPUT`.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_validate_policy(
    policy_json: *const u8,
    policy_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    json_call(policy_json, policy_len, result_out, error_out, api::validate_policy_json)
}

/// Exports a check request as a CI regression: `{"regression", "nodeTest", "pytest"}` (docs/REGRESSION.md).
#[unsafe(no_mangle)]
pub extern "C" fn curbi_export_regression(
    request_json: *const u8,
    request_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    json_call(request_json, request_len, result_out, error_out, api::export_regression_json)
}

/// Replays a `curbi.regression` document with its pinned checker: the `curbi.replay` report (`pass` says whether
/// every expectation held).
#[unsafe(no_mangle)]
pub extern "C" fn curbi_replay_regression(
    regression_json: *const u8,
    regression_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    json_call(regression_json, regression_len, result_out, error_out, api::replay_regression_json)
}

/// Decides a purchase: `{"mandate", "checkout", "ledger"?, "now"}` in, the ALLOW / DENY / STEP_UP decision document
/// out (docs/PURCHASE.md). Malformed content is a DENY with reasons; only unreadable JSON is an error.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_verify_checkout(
    request_json: *const u8,
    request_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    json_call(request_json, request_len, result_out, error_out, api::verify_checkout_json)
}

/// A YAML document in (docs/YAML.md: a policy as most teams write it), the compact JSON text it stands for out, to
/// pass wherever a JSON document goes: numbers keep their digits, and what the strict reader refuses is refused
/// here with its code and pointer (a repeated key, an alias, a tag, `.inf`, a second document).
#[unsafe(no_mangle)]
pub extern "C" fn curbi_yaml_to_json(
    yaml: *const u8,
    yaml_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    json_call(yaml, yaml_len, result_out, error_out, api::yaml_to_json)
}

/// Decides an action: `{"grant", "action", "now"}` in, the decision document out (docs/PURCHASE.md).
#[unsafe(no_mangle)]
pub extern "C" fn curbi_verify_action(
    request_json: *const u8,
    request_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    json_call(request_json, request_len, result_out, error_out, api::verify_action_json)
}

/// The `checkout_digest` a mandate pins for a checkout (docs/PURCHASE.md §Binding): the checkout document in, its
/// digest out as a JSON string (`"…"`: unpadded base64url of SHA-256 over the RFC 8785 checkout without `ap2`). A
/// checkout the strict reader refuses, one that is not an object, or one with a number beyond the IEEE 754 doubles
/// is `CURBI_STATUS_INVALID_INPUT`, with paths inside the checkout.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_checkout_digest(
    checkout_json: *const u8,
    checkout_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    json_call(checkout_json, checkout_len, result_out, error_out, api::checkout_digest_json)
}

/// Verifies a Proof of Action bundle offline: `{"bundle", "keys", "allowTest"?, "mode"?, "now"?, "known"?, ...}` in,
/// `{"ok", "reason", "items", "head", "evidence", ...}` out (docs/PROOF.md). The caller's `keys` are the trust anchor.
/// A rejected bundle is `CURBI_STATUS_OK` with `ok: false`; only unreadable JSON is `CURBI_STATUS_INVALID_INPUT`.
/// Large bundles use every core.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_verify_bundle(
    request_json: *const u8,
    request_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    json_call(request_json, request_len, result_out, error_out, api::verify_bundle_json)
}

/// Reads the options of `curbi_verify_bundle` once: the request without `bundle`, `{"keys", "allowTest"?, "mode"?,
/// "now"?, "known"?, "trustBundleKeys"?, "witnesses"?}`. On success writes a new handle to `*verifier_out`. Options
/// that cannot be used are `CURBI_STATUS_INVALID_INPUT` with the error document (if `error_out` is non-NULL): the
/// code and path (`/keys/keys/0/x`) that a whole request with these options reports under reason `malformed`.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_verifier_new(
    options_json: *const u8,
    options_len: usize,
    verifier_out: *mut *mut curbi_verifier,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    new_handle(options_json, options_len, verifier_out, error_out, |options| {
        Ok(curbi_verifier { inner: api::Verifier::from_json(options)? })
    })
}

/// Frees a verifier. NULL is a no-op. The handle must not be in use by another thread.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_verifier_free(verifier: *mut curbi_verifier) {
    let _ = catch_unwind(|| ptr::free(verifier));
}

/// Verifies one bundle document (the `bundle` member of a request, as JSON) with a verifier. On success writes the
/// result document to `*result_out`: byte for byte what `curbi_verify_bundle` returns for the verifier's options
/// with this bundle. A rejected bundle is `CURBI_STATUS_OK` with `ok: false` (an unreadable one has reason
/// `malformed` and a path under `/bundle`); only text that is not JSON is `CURBI_STATUS_INVALID_INPUT`.
/// Thread-safe: many threads may verify with one verifier at once. Large bundles use every core.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_verifier_verify(
    verifier: *const curbi_verifier,
    bundle_json: *const u8,
    bundle_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    document_call(result_out, error_out, || {
        let v = ptr::handle(verifier)?;
        let bundle = ptr::bytes_in(bundle_json, bundle_len)?;
        Ok(v.inner.verify_json(bundle)?)
    })
}

/// Pointer to a document's bytes (valid until `curbi_bytes_free`); NULL for a NULL document.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_bytes_data(bytes: *const curbi_bytes) -> *const u8 {
    ptr::handle(bytes).map_or(std::ptr::null(), |b| b.data.as_ptr())
}

/// Length of a document in bytes; 0 for a NULL document.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_bytes_len(bytes: *const curbi_bytes) -> usize {
    ptr::handle(bytes).map_or(0, |b| b.data.len())
}

/// Frees a document. NULL is a no-op.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_bytes_free(bytes: *mut curbi_bytes) {
    let _ = catch_unwind(|| ptr::free(bytes));
}

/// Writes a readable message into `buf` (NUL-terminated): the `message` of `error` when it is a non-NULL error
/// document, else the description of `status`. `*needed` (if non-NULL) receives the full length without the NUL.
/// Returns `CURBI_STATUS_BUFFER_TOO_SMALL` when the message was truncated (or `buf` is NULL / empty).
#[unsafe(no_mangle)]
pub extern "C" fn curbi_error_message(
    status: u32,
    error: *const curbi_bytes,
    buf: *mut c_char,
    buf_len: usize,
    needed: *mut usize,
) -> curbi_status {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let from_doc = ptr::handle(error).ok().and_then(|b| {
            let v: serde_json::Value = serde_json::from_slice(&b.data).ok()?;
            v["error"]["message"].as_str().map(str::to_owned)
        });
        let msg = match from_doc {
            Some(m) => m,
            None => curbi_status::from_u32(status).map_or("unknown status", curbi_status::message).to_owned(),
        };
        ptr::write_message(&msg, buf, buf_len, needed)
    }));
    r.unwrap_or(curbi_status::Panic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_numbers_are_stable() {
        // docs/ABI.md lists these numbers; changing one breaks every compiled caller.
        let expected = [
            (curbi_status::Ok, 0),
            (curbi_status::InvalidInput, 1),
            (curbi_status::NullArgument, 2),
            (curbi_status::InvalidLength, 3),
            (curbi_status::InvalidUtf8, 4),
            (curbi_status::Panic, 5),
            (curbi_status::BufferTooSmall, 6),
        ];
        for (s, n) in expected {
            assert_eq!(s as u32, n);
            assert_eq!(curbi_status::from_u32(n), Some(s));
        }
        assert_eq!(curbi_status::from_u32(7), None);
    }

    #[test]
    fn handles_may_be_shared_between_threads() {
        // The header promises that many threads may use one handle at once.
        fn shared<T: Send + Sync>() {}
        shared::<curbi_policy>();
        shared::<curbi_verifier>();
    }
}
