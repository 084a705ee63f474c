//! The Check API's response documents as plain JavaScript objects (typed in dts-header.d.ts), built by two small
//! JavaScript functions (js.rs). Spans are UTF-16 code units: `reply.slice(...span) === text`.
//!
//! Why JavaScript and not N-API property sets: N-API defines properties one call at a time, about 0.15–0.25 µs each
//! on our cores, so a 10-property result cost ~2 µs — the whole per-call budget of DESIGN §8. A JavaScript object
//! literal gets its fixed shape from V8 in one step, and findings come over as one JSON string for `JSON.parse`,
//! V8's fastest way to build many small objects. Every value comes from the core's response; the constant `proof`
//! object is written into the function from the core's `api::PROOF`.

use curbi::api;
use napi::Env;
use napi::bindgen_prelude::{FnArgs, Unknown};

use crate::js::js;

/// The document for one reply.
pub(crate) fn check(env: &Env, r: api::CheckResponse) -> napi::Result<Unknown<'static>> {
    let findings = if r.findings.is_empty() { String::new() } else { json(serde_json::to_string(&r.findings))? };
    let f = js(env)?.check.borrow_back(env)?;
    f.call(FnArgs { data: (r.object, r.version, r.record_trust, r.pass, findings) })
}

/// The document for `cases`.
pub(crate) fn batch(env: &Env, r: api::BatchResponse) -> napi::Result<Unknown<'static>> {
    let results = json(serde_json::to_string(&r.results))?;
    let f = js(env)?.batch.borrow_back(env)?;
    f.call(FnArgs { data: (r.object, r.version, r.record_trust, r.pass, results) })
}

/// Either document of the whole Check API.
pub(crate) fn response(env: &Env, r: api::Response) -> napi::Result<Unknown<'static>> {
    match r {
        api::Response::One(one) => check(env, one),
        api::Response::Batch(b) => batch(env, b),
    }
}

fn json(written: serde_json::Result<String>) -> napi::Result<String> {
    written.map_err(|e| napi::Error::from_reason(format!("could not write a result: {e}")))
}

/// A JSON document written by the core (a lint report, a regression, a decision), as a plain object.
pub(crate) fn document(env: &Env, text: String) -> napi::Result<Unknown<'static>> {
    js(env)?.parse.borrow_back(env)?.call(text)
}
