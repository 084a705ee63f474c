//! The facade every surface calls: compiled handles where work is reused (`CompiledPolicy::from_json`,
//! `CheckOptions::from_json`, `Cases::from_json`, `Verifier`) and bytes-in, bytes-out functions where it is not. Every
//! document is read by the strict reader (`crate::json`); every answer is core's own response type or its JSON.
//! Nothing inside core imports this module (docs/DOCUMENTS.md says where a new capability goes).

use serde_json::Value;

use std::sync::Arc;

pub use crate::check::{Clock, ReceiptVerifier};
use crate::check::{CompiledCase, CompiledPolicy, CompiledRecord};
use crate::error::{Error, ErrorCode, Result};
use crate::json;
use crate::policy::{self, CheckRequest, CheckerVersion, Replies, Verify};
pub use crate::proof::verify::Verifier;
pub use crate::wire::*;

impl CompiledPolicy {
    /// Reads and compiles a policy document (the Check API's `policy` member) from JSON bytes; error paths are
    /// relative to the policy (`/prices/0/item`).
    pub fn from_json(bytes: &[u8]) -> Result<CompiledPolicy> {
        Ok(CompiledPolicy::new(policy::parse_policy(&json::read(bytes)?)?))
    }

    /// [`CompiledPolicy::from_json`] checking claimed actions against signed receipts: `receipts` is a receipt
    /// verifier document `{"keys": JWKS, "allowTest"?, "now"?}` ([`ReceiptVerifier::from_json`]); its errors carry
    /// paths inside it. Empty `receipts` means none.
    pub fn from_json_with_receipts(policy: &[u8], receipts: &[u8]) -> Result<CompiledPolicy> {
        let compiled = CompiledPolicy::from_json(policy)?;
        if receipts.iter().all(u8::is_ascii_whitespace) {
            return Ok(compiled);
        }
        Ok(compiled.with_receipts(Arc::new(ReceiptVerifier::from_json(receipts)?)))
    }
}

impl CheckOptions {
    /// Reads options `{"record"?, "version"?}` from JSON bytes; empty input means no options. Errors carry the paths
    /// of a Check API request (`/record/facts/0/value`, `/version`).
    pub fn from_json(bytes: &[u8]) -> Result<CheckOptions> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(CheckOptions::default());
        }
        CheckOptions::from_value(&json::read(bytes)?)
    }

    /// Reads options from a JSON value: an object with only `record`, `version` and `verify`.
    pub fn from_value(value: &Value) -> Result<CheckOptions> {
        let obj = value.as_object().ok_or_else(|| json::wrong_type("", "an options object", value))?;
        if let Some(k) = obj.keys().find(|k| !matches!(k.as_str(), "record" | "version" | "verify")) {
            let msg = format!("unknown option '{}' (allowed: record, version, verify)", crate::error::excerpt(k));
            return Err(Error::new(ErrorCode::UnknownField, crate::pointer::member("", k), msg));
        }
        Ok(CheckOptions {
            record: obj.get("record").map(|r| read_record(r, "/record")).transpose()?,
            version: match obj.get("version") {
                Some(v) => policy::parse_version(v, "/version")?,
                None => Default::default(),
            },
            verify: match obj.get("verify") {
                Some(v) => policy::parse_verify(v, "/verify")?,
                None => Verify::Optional,
            },
        })
    }
}

impl CompiledRecord {
    /// Reads and compiles a record (the Check API's `record` member) from JSON bytes, once, to check many replies
    /// against; errors carry the paths of a request (`/record/facts/0/value`).
    pub fn from_json(bytes: &[u8]) -> Result<CompiledRecord> {
        read_record(&read_at(bytes, "/record")?, "/record")
    }
}

/// Reads a record at `path` and compiles it.
fn read_record(value: &Value, path: &str) -> Result<CompiledRecord> {
    CompiledRecord::compile(policy::parse_record(value, path)?, path)
}

impl CheckerVersion {
    /// A checker version by its name (`"2026-11-01"`), or `invalid_enum` at `/version` naming every version there is.
    pub fn from_name(name: &str) -> Result<CheckerVersion> {
        policy::parse_version(&Value::String(name.to_owned()), "/version")
    }
}

/// The `cases` of a request read once: up to 50 `{id?, reply, record?}` with the request's limits.
#[derive(Debug, Clone, PartialEq)]
pub struct Cases(pub Vec<CompiledCase>);

impl Cases {
    /// Reads a JSON array of cases; errors carry the paths of a Check API request (`/cases/0/reply`).
    pub fn from_json(bytes: &[u8]) -> Result<Cases> {
        Cases::from_value(&read_at(bytes, "/cases")?)
    }

    /// Reads an already-parsed array of cases.
    pub fn from_value(value: &Value) -> Result<Cases> {
        CompiledCase::compile_all(policy::parse_cases(value, "/cases")?, "/cases").map(Cases)
    }
}

impl CompiledCase {
    /// Reads and compiles one case `{id?, reply, record?}` on its own (a line of `curbi check --jsonl`); error
    /// paths are relative to the case (`/reply`, `/record/facts/0/value`).
    pub fn from_value(value: &Value) -> Result<CompiledCase> {
        CompiledCase::compile(policy::parse_case(value, "")?, "")
    }
}

/// Reads a document that sits at `base` in a request, so that the reader's errors carry the same paths as the
/// schema's (`/record/facts/0/value`, not `/facts/0/value`).
fn read_at(bytes: &[u8], base: &str) -> Result<Value> {
    json::read(bytes).map_err(|e| Error::new(e.code, format!("{base}{}", e.path), e.message))
}

/// Runs a parsed request (UTF-16 spans, the wire's unit). Its records are compiled first: a fact value that cannot
/// be read as its kind is the request's error, after every schema error (docs/CHECK_API.md).
/// Without receipt keys, a request offering receipts or asking `verify: "required"` is `unsupported`.
pub fn run(req: CheckRequest) -> Result<Response> {
    run_with(req, None)
}

/// [`run`] with receipt keys from configuration (never from the request): receipts offered are verified under them.
pub fn run_with(req: CheckRequest, receipts: Option<&Arc<ReceiptVerifier>>) -> Result<Response> {
    let record = req.record.map(|r| CompiledRecord::compile(r, "/record")).transpose()?;
    let options = CheckOptions { record, version: req.version, verify: req.verify };
    let mut compiled = CompiledPolicy::new(req.policy);
    if let Some(v) = receipts {
        compiled = compiled.with_receipts(v.clone());
    }
    Ok(match req.replies {
        Replies::One(reply) => Response::One(check_one(&compiled, &reply, &options, SpanUnit::Utf16)?),
        Replies::Cases(cases) => {
            let cases = CompiledCase::compile_all(cases, "/cases")?;
            Response::Batch(check_cases(&compiled, &cases, &options, SpanUnit::Utf16)?)
        }
    })
}

/// The whole Check API in one call: request body bytes in, response out, or the first error.
pub fn check_json(body: &[u8]) -> Result<Response> {
    run(policy::parse_request(body)?)
}

/// [`check_json`] with receipt keys from configuration (a server's, a CLI's `--keys`).
pub fn check_json_with(body: &[u8], receipts: Option<&Arc<ReceiptVerifier>>) -> Result<Response> {
    run_with(policy::parse_request(body)?, receipts)
}

/// [`check_json_with`] with a bound on the answer: the response's JSON text, or `output_too_large` as soon as the
/// findings made so far would take more than `max_bytes` (the check stops there, so neither the work nor the memory
/// of a larger answer is spent), or when the finished text is longer. Under the bound the text is exactly
/// `check_json_with(body, receipts)?.to_json_string()`.
pub fn check_json_within(body: &[u8], receipts: Option<&Arc<ReceiptVerifier>>, max_bytes: usize) -> Result<String> {
    let req = policy::parse_request(body)?;
    let record = req.record.map(|r| CompiledRecord::compile(r, "/record")).transpose()?;
    let options = CheckOptions { record, version: req.version, verify: req.verify };
    let mut compiled = CompiledPolicy::new(req.policy);
    if let Some(v) = receipts {
        compiled = compiled.with_receipts(v.clone());
    }
    let too_large = || {
        Error::new(
            ErrorCode::OutputTooLarge,
            "",
            format!(
                "the response would be more than {max_bytes} bytes; send fewer cases, shorter replies or shorter whys"
            ),
        )
    };
    let unit = SpanUnit::Utf16;
    let response = match req.replies {
        Replies::One(reply) => {
            let (found, trust, _) = find_one_within(&compiled, &reply, &options, max_bytes)?.ok_or_else(too_large)?;
            Response::One(CheckResponse::with_trust(options.version, trust, findings_in(&reply, found, unit)))
        }
        Replies::Cases(cases) => {
            let cases = CompiledCase::compile_all(cases, "/cases")?;
            let (found, trust) = find_cases_within(&compiled, &cases, &options, max_bytes)?.ok_or_else(too_large)?;
            Response::Batch(batch_response(options.version, trust, &cases, found, unit))
        }
    };
    let text = response.to_json_string();
    if text.len() > max_bytes {
        return Err(too_large());
    }
    Ok(text)
}

/// Lint in one call: a policy document in, `{"valid","errors","warnings"}` out (docs/LINT.md). Only a document the
/// strict reader refuses is an `Err`; an invalid policy is a report with `valid: false`.
pub fn validate_policy_json(policy: &[u8]) -> Result<String> {
    Ok(crate::lint::validate_policy(&json::read(policy)?).to_json_string())
}

/// Export in one call: an `export_regression` request in, `{"regression", "nodeTest", "pytest"}` out — the
/// `curbi.regression` document and the text of the two replay test files (docs/REGRESSION.md).
pub fn export_regression_json(request: &[u8]) -> Result<String> {
    Ok(crate::regression::export_regression(&json::read(request)?)?.export_json())
}

/// Replay in one call: a `curbi.regression` document in, the `curbi.replay` report out.
pub fn replay_regression_json(regression: &[u8]) -> Result<String> {
    Ok(crate::regression::replay(&json::read(regression)?)?.to_json_string())
}

/// Purchase check in one call (docs/PURCHASE.md): `{"mandate", "checkout", "ledger"?, "now"}` in, the ALLOW / DENY /
/// STEP_UP decision out. `Err` only for a document the strict reader refuses; malformed content is a DENY.
pub fn verify_checkout_json(request: &[u8]) -> Result<String> {
    Ok(crate::purchase::verify_checkout_request(&json::read(request)?).to_json_string())
}

/// The cart digest a mandate's `checkout_digest` pins (docs/PURCHASE.md §Binding): a checkout document in, unpadded
/// base64url of SHA-256 over its RFC 8785 form without `ap2` out. `Err` for a document the strict reader refuses, a
/// checkout that is not an object (`invalid_type`) or one holding a number beyond the doubles (`out_of_range`); paths
/// are inside the checkout.
pub fn checkout_digest(checkout: &[u8]) -> Result<String> {
    crate::purchase::checkout_digest(&json::read(checkout)?)
}

/// [`checkout_digest`] as a JSON document (a JSON string), the bytes-out form every binding passes on.
pub fn checkout_digest_json(checkout: &[u8]) -> Result<String> {
    checkout_digest(checkout).map(|digest| Value::String(digest).to_string())
}

/// A YAML document (docs/YAML.md) in, the compact JSON text it stands for out: numbers keep their digits, and what
/// the strict reader refuses is refused here with its code and pointer (a repeated key is `duplicate_member`;
/// aliases, tags, `.inf`, a second document are `invalid_json`), so the text can go wherever a JSON document goes.
#[cfg(feature = "yaml")]
pub fn yaml_to_json(yaml: &[u8]) -> Result<String> {
    let text = crate::yaml::to_json(json::utf8(yaml)?)?;
    json::read_str(&text)?;
    Ok(text)
}

/// Action check in one call (docs/PURCHASE.md): `{"grant", "action", "now"}` in, the decision out.
pub fn verify_action_json(request: &[u8]) -> Result<String> {
    Ok(crate::purchase::verify_action_request(&json::read(request)?).to_json_string())
}

/// Proof of Action in one call (docs/PROOF.md §Verifying): a request `{"bundle", "keys", "allowTest"?, "mode"?,
/// "now"?, "known"?, "trustBundleKeys"?, "witnesses"?}` (the MCP tool `verify_bundle`'s arguments) in, the result
/// `{"ok", "reason", "message", "path", "items", "head", "evidence", "scope"}` out. `Err` (`invalid_json`) only when
/// the bytes are not UTF-8 JSON; every other problem is a result with reason `malformed` and an `error` member.
pub fn verify_bundle_json(request: &[u8]) -> Result<String> {
    Ok(crate::proof::verify::verify_request_text(json::utf8(request)?)?.to_json_string())
}

/// [`verify_bundle_json`] with the bundle and the options (the request without `bundle`) as two documents, as
/// `curbi verify` reads them from two files: the same result, paths those of the combined request (`/bundle/...`,
/// `/keys/...`). `Err` (`invalid_json`) only when either text is not UTF-8 JSON.
pub fn verify_bundle_parts_json(bundle: &[u8], options: &[u8]) -> Result<String> {
    let (bundle, options) = (json::utf8(bundle)?, json::utf8(options)?);
    Ok(crate::proof::verify::verify_parts_text(bundle, options)?.to_json_string())
}

/// [`verify_bundle_json`] split over workers, for hosts whose WebAssembly has no threads (docs/WEB.md §A pool of
/// workers): `Shares::from_request(text)` (or `from_parts(bundle, options)`) in every worker, `share(part, parts)`
/// in each, then `finish_json(shares)` in one: the one-call result, byte for byte.
pub use crate::proof::verify::Shares;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_seed_response_byte_for_byte() {
        // Seed 000's request was answered by 2026-11-01, the current checker then: pinned to it, it replays exactly.
        let body = br#"{"version":"2026-11-01","policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter is $99 a month."}"#;
        let out = check_json(body).expect("valid request").to_json_string();
        // Seed 000, "A real session, message by message", step 4, the text block.
        let seed = r#"{"object":"check","version":"2026-11-01","recordTrust":"caller_supplied_unverified","pass":false,"findings":[{"rule":"price:mismatch","span":[11,14],"text":"$99","why":"Starter is $49, not $99."}],"proof":{"scope":"operation_and_subject_only","factsAuthenticated":false,"replayProtection":"within_request_only","authorizationGranted":false}}"#;
        assert_eq!(out, seed);
    }

    #[test]
    fn bundle_and_options_apart_answer_as_the_whole_request() {
        // Seed 003's valid-four-domains verifies with allowTest; its tampered-amount is bad_signature. Both ways.
        for (file, reason) in [
            (include_str!("../../vectors/proof/valid-four-domains.json"), r#""reason":"verifies""#),
            (include_str!("../../vectors/proof/tampered-amount.json"), r#""reason":"bad_signature""#),
        ] {
            let doc: Value = serde_json::from_str(file).expect("vector");
            let mut options = doc["input"].as_object().expect("request").clone();
            let bundle = options.remove("bundle").expect("bundle").to_string();
            let whole = verify_bundle_json(doc["input"].to_string().as_bytes()).expect("json");
            let parts = verify_bundle_parts_json(bundle.as_bytes(), Value::Object(options).to_string().as_bytes());
            assert_eq!(parts.expect("json"), whole);
            assert!(whole.contains(reason), "{whole}");
        }
        assert_eq!(verify_bundle_parts_json(b"{", b"{}").err().map(|e| e.code), Some(ErrorCode::InvalidJson));
    }

    #[test]
    fn handles_read_what_a_request_reads_with_its_paths() {
        let e = |r: Result<CheckOptions>| r.err().map(|e| (e.code.as_str(), e.path));
        assert_eq!(
            e(CheckOptions::from_json(br#"{"version":"2026-10-27","x":1}"#)),
            Some(("unknown_field", "/x".into()))
        );
        assert_eq!(
            e(CheckOptions::from_json(br#"{"version":"1999-01-01"}"#)),
            Some(("invalid_enum", "/version".into()))
        );
        assert_eq!(
            e(CheckOptions::from_json(br#"{"record":{"subject":"a","subject":"b"}}"#)),
            Some(("duplicate_member", "/record/subject".into()))
        );
        let cases = Cases::from_json(br#"[{"reply":"Hi","id":"a"},{"reply":5}]"#).err().map(|e| (e.code, e.path));
        assert_eq!(cases, Some((ErrorCode::InvalidType, "/cases/1/reply".into())));
        let policy = CompiledPolicy::from_json(br#"{"prices":[{"item":""}]}"#).err().map(|e| e.path);
        assert_eq!(policy.as_deref(), Some("/prices/0/item"));
    }
}
