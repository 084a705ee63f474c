//! JSON in, JSON out: the Check API document shapes shared by the CLI, the HTTP server and every binding.
//! Response field order follows the recorded session in seed 000; spans on the wire are UTF-16 code units.

use serde::Serialize;

use crate::check::{CompiledPolicy, Finding, span};
use crate::error::{Error, ErrorCode, Result};
use crate::policy::{self, CheckRequest, CheckerVersion, Record, Replies};
pub use crate::proof::verify::Verifier;
use crate::proof::verify::utf8;

/// What a check result does and does not prove (seed 000's `proof` object).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProofScope {
    pub scope: &'static str,
    pub facts_authenticated: bool,
    pub replay_protection: &'static str,
    pub authorization_granted: bool,
}

/// Caller records are never verified by the reply check.
pub const RECORD_TRUST: &str = "caller_supplied_unverified";

pub const PROOF: ProofScope = ProofScope {
    scope: "operation_and_subject_only",
    facts_authenticated: false,
    replay_protection: "within_request_only",
    authorization_granted: false,
};

/// A finding as it crosses the wire: span in UTF-16 code units.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WireFinding {
    pub rule: String,
    pub span: [usize; 2],
    pub text: String,
    pub why: String,
}

/// The unit a span counts in. The JSON wire uses UTF-16; each binding uses its own language's string indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpanUnit {
    /// UTF-16 code units: the JSON wire, JavaScript.
    #[default]
    Utf16,
    /// UTF-8 bytes: Rust, C, Go.
    Utf8,
    /// Unicode code points: Python.
    CodePoint,
}

/// Converts byte-offset findings on `reply` into wire findings (UTF-16 spans).
pub fn wire_findings(reply: &str, findings: Vec<Finding>) -> Vec<WireFinding> {
    findings_in(reply, findings, SpanUnit::Utf16)
}

/// Converts byte-offset findings on `reply` into findings with spans in `unit`.
pub fn findings_in(reply: &str, findings: Vec<Finding>, unit: SpanUnit) -> Vec<WireFinding> {
    let offsets: Vec<usize> = findings.iter().flat_map(|f| [f.start, f.end]).collect();
    let conv = match unit {
        SpanUnit::Utf16 => span::utf16_offsets(reply, &offsets),
        SpanUnit::Utf8 => offsets,
        SpanUnit::CodePoint => span::char_offsets(reply, &offsets),
    };
    findings
        .into_iter()
        .enumerate()
        .map(|(i, f)| WireFinding { rule: f.rule, span: [conv[2 * i], conv[2 * i + 1]], text: f.text, why: f.why })
        .collect()
}

/// Options for checking one reply with a compiled policy: `{"record": {...}, "version": "2026-11-01"}`, both
/// optional. Read with the request schema, so errors carry the same codes and paths (`/record/...`, `/version`).
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub record: Option<Record>,
    pub version: CheckerVersion,
}

impl CheckOptions {
    /// Reads options from JSON bytes; empty input means no options.
    pub fn from_json(bytes: &[u8]) -> Result<CheckOptions> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(CheckOptions::default());
        }
        let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| Error::from_json_error(&e))?;
        CheckOptions::from_value(&value)
    }

    /// Reads options from a JSON value: an object with only `record` and `version`.
    pub fn from_value(value: &serde_json::Value) -> Result<CheckOptions> {
        let Some(obj) = value.as_object() else {
            return Err(Error::new(ErrorCode::InvalidType, "", "options must be an object"));
        };
        if let Some(k) = obj.keys().find(|k| !matches!(k.as_str(), "record" | "version")) {
            let msg = format!("unknown option '{k}' (allowed: record, version)");
            return Err(Error::new(ErrorCode::UnknownField, format!("/{k}"), msg));
        }
        // Reuse the request reader so limits, codes and paths are exactly the Check API's.
        let mut req = serde_json::Map::new();
        req.insert("policy".into(), serde_json::json!({}));
        req.insert("reply".into(), serde_json::Value::String(String::new()));
        for (k, v) in obj {
            req.insert(k.clone(), v.clone());
        }
        let parsed = policy::parse_request_value(&serde_json::Value::Object(req))?;
        Ok(CheckOptions { record: parsed.record, version: parsed.version })
    }
}

/// Checks one reply and answers with spans in `unit` (the response shape of the Check API).
pub fn respond_in(policy: &CompiledPolicy, reply: &str, options: &CheckOptions, unit: SpanUnit) -> CheckResponse {
    let findings = findings_in(reply, policy.check(reply, options.record.as_ref(), options.version), unit);
    CheckResponse {
        object: "check",
        version: options.version.as_str(),
        record_trust: RECORD_TRUST,
        pass: findings.is_empty(),
        findings,
        proof: PROOF,
    }
}

/// The response to one reply.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckResponse {
    pub object: &'static str,
    pub version: &'static str,
    pub record_trust: &'static str,
    pub pass: bool,
    pub findings: Vec<WireFinding>,
    pub proof: ProofScope,
}

/// One case's result in a batch.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub pass: bool,
    pub findings: Vec<WireFinding>,
}

/// The response to `cases`: one result per case, in order; `pass` is true when every case passes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchResponse {
    pub object: &'static str,
    pub version: &'static str,
    pub record_trust: &'static str,
    pub pass: bool,
    pub results: Vec<CaseResult>,
    pub proof: ProofScope,
}

/// Either response.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Response {
    One(CheckResponse),
    Batch(BatchResponse),
}

impl Response {
    /// Whether every reply passed.
    pub fn pass(&self) -> bool {
        match self {
            Response::One(r) => r.pass,
            Response::Batch(b) => b.pass,
        }
    }

    /// Compact JSON, the same bytes for the same input.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!("{{\"error\":{{\"code\":\"internal\",\"message\":{:?},\"path\":\"\"}}}}", e.to_string())
        })
    }
}

/// Checks one reply with a compiled policy and wraps it as a wire response (UTF-16 spans).
pub fn respond_one(
    policy: &CompiledPolicy,
    reply: &str,
    record: Option<&Record>,
    version: CheckerVersion,
) -> CheckResponse {
    let options = CheckOptions { record: record.cloned(), version };
    respond_in(policy, reply, &options, SpanUnit::Utf16)
}

/// Runs a parsed request.
pub fn run(req: &CheckRequest) -> Response {
    let compiled = CompiledPolicy::new(req.policy.clone());
    run_compiled(&compiled, &req.replies, req.record.as_ref(), req.version)
}

/// Runs replies against an already compiled policy. A case's own `record` replaces the request's.
pub fn run_compiled(
    policy: &CompiledPolicy,
    replies: &Replies,
    record: Option<&Record>,
    version: CheckerVersion,
) -> Response {
    match replies {
        Replies::One(reply) => Response::One(respond_one(policy, reply, record, version)),
        Replies::Cases(cases) => {
            let results: Vec<CaseResult> = cases
                .iter()
                .enumerate()
                .map(|(index, c)| {
                    let findings =
                        wire_findings(&c.reply, policy.check(&c.reply, c.record.as_ref().or(record), version));
                    CaseResult { index, id: c.id.clone(), pass: findings.is_empty(), findings }
                })
                .collect();
            Response::Batch(BatchResponse {
                object: "check_batch",
                version: version.as_str(),
                record_trust: RECORD_TRUST,
                pass: results.iter().all(|r| r.pass),
                results,
                proof: PROOF,
            })
        }
    }
}

/// The whole Check API in one call: request body bytes in, response out, or the first error.
pub fn check_json(body: &[u8]) -> Result<Response> {
    let req = policy::parse_request(body)?;
    Ok(run(&req))
}

/// Reads JSON bytes with the Check API's `invalid_json` error.
fn read_json(bytes: &[u8]) -> Result<serde_json::Value> {
    serde_json::from_slice(bytes).map_err(|e| Error::from_json_error(&e))
}

/// Lint in one call: a policy document in, `{"valid","errors","warnings"}` out (docs/LINT.md). Only unreadable JSON
/// is an `Err`; an invalid policy is a report with `valid: false`.
pub fn validate_policy_json(policy: &[u8]) -> Result<String> {
    Ok(crate::lint::validate_policy(&read_json(policy)?).to_json_string())
}

/// Export in one call: an `export_regression` request in, `{"regression", "nodeTest", "pytest"}` out — the
/// `curbi.regression` document and the text of the two replay test files (docs/REGRESSION.md).
pub fn export_regression_json(request: &[u8]) -> Result<String> {
    let r = crate::regression::export_regression(&read_json(request)?)?;
    let regression: serde_json::Value = serde_json::from_str(&r.to_json_string())
        .map_err(|e| Error::new(ErrorCode::Internal, "", format!("regression document: {e}")))?;
    Ok(serde_json::json!({"regression": regression, "nodeTest": r.node_test(), "pytest": r.pytest()}).to_string())
}

/// Replay in one call: a `curbi.regression` document in, the `curbi.replay` report out.
pub fn replay_regression_json(regression: &[u8]) -> Result<String> {
    Ok(crate::regression::replay(&read_json(regression)?)?.to_json_string())
}

/// Proof of Action in one call (docs/PROOF.md §Verifying): a request `{"bundle", "keys", "allowTest"?, "mode"?,
/// "now"?, "known"?, "trustBundleKeys"?, "witnesses"?}` (the MCP tool `verify_bundle`'s arguments) in, the result
/// `{"ok", "reason", "message", "path", "items", "head", "evidence", "scope"}` out. `Err` (`invalid_json`) only when
/// the bytes are not UTF-8 JSON; every other problem is a result with reason `malformed` and an `error` member.
pub fn verify_bundle_json(request: &[u8]) -> Result<String> {
    Ok(crate::proof::verify::verify_request_text(utf8(request)?)?.to_json_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_seed_response_byte_for_byte() {
        let body = br#"{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter is $99 a month."}"#;
        let out = check_json(body).expect("valid request").to_json_string();
        // Seed 000, "A real session, message by message", step 4, the text block.
        let seed = r#"{"object":"check","version":"2026-11-01","recordTrust":"caller_supplied_unverified","pass":false,"findings":[{"rule":"price:mismatch","span":[11,14],"text":"$99","why":"Starter is $49, not $99."}],"proof":{"scope":"operation_and_subject_only","factsAuthenticated":false,"replayProtection":"within_request_only","authorizationGranted":false}}"#;
        assert_eq!(out, seed);
    }
}
