//! Core's response documents as plain JavaScript objects: the core writes the JSON (its own response types, the
//! bytes every surface gives), and `JSON.parse` builds the object in one step. Spans are UTF-16 code units:
//! `reply.slice(...span) === text`.
//!
//! Why `JSON.parse` and not N-API property sets: N-API defines properties one call at a time, about 0.15–0.25 µs
//! each on our cores, so a 10-property result would cost ~2 µs, the whole per-call budget of DESIGN §8; V8 parses a
//! small JSON document into objects of a fixed shape faster than that, and nothing of the document is rebuilt here.

use curbi::api;
use napi::Env;
use napi::bindgen_prelude::Unknown;

use crate::js::js;

/// The document for one reply.
pub(crate) fn check(env: &Env, r: api::CheckResponse) -> napi::Result<Unknown<'static>> {
    document(env, r.to_json_string())
}

/// The document for `cases`.
pub(crate) fn batch(env: &Env, r: api::BatchResponse) -> napi::Result<Unknown<'static>> {
    document(env, r.to_json_string())
}

/// Either document of the whole Check API.
pub(crate) fn response(env: &Env, r: api::Response) -> napi::Result<Unknown<'static>> {
    document(env, r.to_json_string())
}

/// A JSON document written by the core (a check response, a lint report, a regression, a decision), as a plain
/// object.
pub(crate) fn document(env: &Env, text: String) -> napi::Result<Unknown<'static>> {
    js(env)?.parse.borrow_back(env)?.call(text)
}
