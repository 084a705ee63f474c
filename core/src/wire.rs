//! The Check API's response documents as core's own types, and the one function that runs replies into them: every
//! surface (CLI, server, C, Go, Python, Node) serializes these, none rebuilds them. Field order follows the recorded
//! session in seed 000; spans on the JSON wire are UTF-16 code units, and each binding may ask for its own unit.

use serde::Serialize;

use crate::check::{CompiledCase, CompiledPolicy, CompiledRecord, Finding, span};
use crate::policy::CheckerVersion;

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

/// A finding as it crosses the wire: span in the response's unit (UTF-16 code units on the JSON wire).
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

impl SpanUnit {
    /// Byte offsets into `text` as offsets in this unit.
    pub fn convert(self, text: &str, byte_offsets: Vec<usize>) -> Vec<usize> {
        match self {
            SpanUnit::Utf16 => span::utf16_offsets(text, &byte_offsets),
            SpanUnit::Utf8 => byte_offsets,
            SpanUnit::CodePoint => span::char_offsets(text, &byte_offsets),
        }
    }
}

/// Converts byte-offset findings on `reply` into findings with spans in `unit`.
pub fn findings_in(reply: &str, findings: Vec<Finding>, unit: SpanUnit) -> Vec<WireFinding> {
    let conv = unit.convert(reply, findings.iter().flat_map(|f| [f.start, f.end]).collect());
    findings
        .into_iter()
        .zip(conv.chunks_exact(2))
        .map(|(f, s)| WireFinding { rule: f.rule, span: [s[0], s[1]], text: f.text, why: f.why })
        .collect()
}

/// The record and checker version one check runs with: `{"record": {...}, "version": "..."}`, both optional. Read
/// once (`api::CheckOptions::from_json`) and reused for any number of replies.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub record: Option<CompiledRecord>,
    pub version: CheckerVersion,
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

/// Compact JSON of a response type: plain structs of strings, numbers and booleans cannot fail to serialize, but
/// if one ever did, the caller gets an `internal` error document rather than a panic.
fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| {
        format!("{{\"error\":{{\"code\":\"internal\",\"message\":{:?},\"path\":\"\"}}}}", e.to_string())
    })
}

impl CheckResponse {
    /// The response for one reply's findings (spans already in the caller's unit).
    pub fn new(version: CheckerVersion, findings: Vec<WireFinding>) -> CheckResponse {
        CheckResponse {
            object: "check",
            version: version.as_str(),
            record_trust: RECORD_TRUST,
            pass: findings.is_empty(),
            findings,
            proof: PROOF,
        }
    }

    /// Compact JSON, the same bytes for the same input.
    pub fn to_json_string(&self) -> String {
        to_json(self)
    }
}

impl BatchResponse {
    /// The response for `cases`, one result per case in order.
    pub fn new(version: CheckerVersion, results: Vec<CaseResult>) -> BatchResponse {
        BatchResponse {
            object: "check_batch",
            version: version.as_str(),
            record_trust: RECORD_TRUST,
            pass: results.iter().all(|r| r.pass),
            results,
            proof: PROOF,
        }
    }

    /// Compact JSON, the same bytes for the same input.
    pub fn to_json_string(&self) -> String {
        to_json(self)
    }
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
        to_json(self)
    }
}

/// Checks one reply with a compiled policy: the response with spans in `unit`.
pub fn check_one(policy: &CompiledPolicy, reply: &str, options: &CheckOptions, unit: SpanUnit) -> CheckResponse {
    respond(policy, reply, options.record.as_ref(), options.version, unit)
}

/// [`check_one`] with the record and version given apart (no options value needed).
pub fn respond(
    policy: &CompiledPolicy,
    reply: &str,
    record: Option<&CompiledRecord>,
    version: CheckerVersion,
    unit: SpanUnit,
) -> CheckResponse {
    CheckResponse::new(version, findings_in(reply, policy.check(reply, record, version), unit))
}

/// Checks cases with a compiled policy, one result per case in order; a case's own `record` replaces the options'.
pub fn check_cases(
    policy: &CompiledPolicy,
    cases: &[CompiledCase],
    options: &CheckOptions,
    unit: SpanUnit,
) -> BatchResponse {
    let results: Vec<CaseResult> = cases
        .iter()
        .enumerate()
        .map(|(index, c)| {
            let record = c.record.as_ref().or(options.record.as_ref());
            let findings = findings_in(&c.reply, policy.check(&c.reply, record, options.version), unit);
            CaseResult { index, id: c.id.clone(), pass: findings.is_empty(), findings }
        })
        .collect();
    BatchResponse::new(options.version, results)
}
