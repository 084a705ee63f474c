//! The Check API's response documents as core's own types, and the one function that runs replies into them: every
//! surface (CLI, server, C, Go, Python, Node) serializes these, none rebuilds them. Field order follows the recorded
//! session in seed 000; spans on the JSON wire are UTF-16 code units, and each binding may ask for its own unit.

use serde::Serialize;

use crate::check::{CompiledCase, CompiledPolicy, CompiledRecord, Finding, ReceiptRun, span};
use crate::error::{Error, ErrorCode, Result};
use crate::policy::{CheckerVersion, Verify};

/// What a check result does and does not prove (seed 000's `proof` object).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProofScope {
    pub scope: &'static str,
    pub facts_authenticated: bool,
    pub replay_protection: &'static str,
    pub authorization_granted: bool,
}

/// The record is the caller's word: effects count as stated (receipts offered with `verify: "optional"` may back
/// claims too, but an effect still can).
pub const RECORD_TRUST: &str = "caller_supplied_unverified";
/// `verify: "required"` with a receipt verifier: claimed actions counted only through signed receipts verified
/// under the configured keys. Facts and the subject remain the caller's (`proof.factsAuthenticated` stays false).
pub const RECORD_TRUST_RECEIPTS: &str = "receipts_verified";

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

/// The record, checker version and receipt mode one check runs with: `{"record": {...}, "version": "...",
/// "verify": "optional" | "required"}`, each optional. Read once (`api::CheckOptions::from_json`) and reused for any
/// number of replies.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub record: Option<CompiledRecord>,
    pub version: CheckerVersion,
    pub verify: Verify,
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
        CheckResponse::with_trust(version, RECORD_TRUST, findings)
    }

    /// The response with the `recordTrust` the check stated ([`find_one`]).
    pub fn with_trust(
        version: CheckerVersion,
        record_trust: &'static str,
        findings: Vec<WireFinding>,
    ) -> CheckResponse {
        CheckResponse {
            object: "check",
            version: version.as_str(),
            record_trust,
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
        BatchResponse::with_trust(version, RECORD_TRUST, results)
    }

    /// The response with the `recordTrust` the check stated ([`find_cases`]).
    pub fn with_trust(version: CheckerVersion, record_trust: &'static str, results: Vec<CaseResult>) -> BatchResponse {
        BatchResponse {
            object: "check_batch",
            version: version.as_str(),
            record_trust,
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

/// One reply's findings (byte offsets into the reply) and the `recordTrust` its response states: what
/// [`check_one`] serializes, for surfaces that convert spans to their own unit. `Err` (`unsupported`) when the record
/// offers receipts or `verify` is `"required"` but the policy was compiled without receipt keys.
pub fn find_one(policy: &CompiledPolicy, reply: &str, options: &CheckOptions) -> Result<(Vec<Finding>, &'static str)> {
    Ok(find_one_within(policy, reply, options, usize::MAX)?.map(|(f, t, _)| (f, t)).unwrap_or_default())
}

/// [`find_one`] within an output budget (`CompiledPolicy::check_within`): `Ok(None)` once the findings would take
/// more than `budget` bytes, else the findings, the `recordTrust` and the bytes of the budget left.
pub fn find_one_within(
    policy: &CompiledPolicy,
    reply: &str,
    options: &CheckOptions,
    budget: usize,
) -> Result<Option<(Vec<Finding>, &'static str, usize)>> {
    let mut run = receipt_run(policy, options.verify, [(options.record.as_ref(), "/record")])?;
    let trust = record_trust(options.verify, run.is_some());
    let found = policy.check_with(reply, options.record.as_ref(), options.version.reading(), run.as_mut(), budget);
    Ok(found.map(|(f, left)| (f, trust, left)))
}

/// Checks one reply with a compiled policy: the response with spans in `unit` ([`find_one`]'s errors).
pub fn check_one(
    policy: &CompiledPolicy,
    reply: &str,
    options: &CheckOptions,
    unit: SpanUnit,
) -> Result<CheckResponse> {
    let (found, trust) = find_one(policy, reply, options)?;
    Ok(CheckResponse::with_trust(options.version, trust, findings_in(reply, found, unit)))
}

/// One reply against caller records only, for callers that never take receipts (exports and regressions, whose
/// records are refused when they hold any).
pub(crate) fn respond(
    policy: &CompiledPolicy,
    reply: &str,
    record: Option<&CompiledRecord>,
    version: CheckerVersion,
    unit: SpanUnit,
) -> CheckResponse {
    CheckResponse::new(version, findings_in(reply, policy.check(reply, record, version), unit))
}

/// Each case's findings (byte offsets into its reply), in order, and the batch's `recordTrust`.
pub type BatchFindings = (Vec<Vec<Finding>>, &'static str);

/// Each case's findings (byte offsets) in order, and the `recordTrust` of the batch: what [`check_cases`]
/// serializes. A case's own `record` replaces the options'. Receipts are used up across the whole batch: one
/// receipt backs at most one claim in a request.
pub fn find_cases(policy: &CompiledPolicy, cases: &[CompiledCase], options: &CheckOptions) -> Result<BatchFindings> {
    Ok(find_cases_within(policy, cases, options, usize::MAX)?.unwrap_or_default())
}

/// [`find_cases`] within one output budget for the whole batch: `Ok(None)` as soon as the findings so far would
/// take more than `budget` bytes (the cases after it are not checked).
pub fn find_cases_within(
    policy: &CompiledPolicy,
    cases: &[CompiledCase],
    options: &CheckOptions,
    budget: usize,
) -> Result<Option<BatchFindings>> {
    let paths: Vec<String> = (0..cases.len()).map(|i| format!("/cases/{i}/record")).collect();
    let records = std::iter::once((options.record.as_ref(), "/record"))
        .chain(cases.iter().zip(&paths).map(|(c, p)| (c.record.as_ref(), p.as_str())));
    let mut run = receipt_run(policy, options.verify, records)?;
    let trust = record_trust(options.verify, run.is_some());
    let mut left = budget;
    let mut found = Vec::with_capacity(cases.len());
    for c in cases {
        let record = c.record.as_ref().or(options.record.as_ref());
        let Some((f, rest)) = policy.check_with(&c.reply, record, options.version.reading(), run.as_mut(), left) else {
            return Ok(None);
        };
        left = rest;
        found.push(f);
    }
    Ok(Some((found, trust)))
}

/// Checks cases with a compiled policy, one result per case in order ([`find_cases`]).
pub fn check_cases(
    policy: &CompiledPolicy,
    cases: &[CompiledCase],
    options: &CheckOptions,
    unit: SpanUnit,
) -> Result<BatchResponse> {
    let (found, trust) = find_cases(policy, cases, options)?;
    Ok(batch_response(options.version, trust, cases, found, unit))
}

/// The batch response for the cases' findings ([`find_cases`]), spans in `unit`.
pub fn batch_response(
    version: CheckerVersion,
    trust: &'static str,
    cases: &[CompiledCase],
    found: Vec<Vec<Finding>>,
    unit: SpanUnit,
) -> BatchResponse {
    let results: Vec<CaseResult> = cases
        .iter()
        .zip(found)
        .enumerate()
        .map(|(index, (c, found))| {
            let findings = findings_in(&c.reply, found, unit);
            CaseResult { index, id: c.id.clone(), pass: findings.is_empty(), findings }
        })
        .collect();
    BatchResponse::with_trust(version, trust, results)
}

fn record_trust(verify: Verify, receipts: bool) -> &'static str {
    if receipts && verify == Verify::Required { RECORD_TRUST_RECEIPTS } else { RECORD_TRUST }
}

/// Receipt checking for one request: `None` when no record offers a receipt and `verify` is `"optional"` (the
/// check is then exactly the caller-record check), an error when receipts need keys the policy was compiled without.
fn receipt_run<'p, 'r>(
    policy: &'p CompiledPolicy,
    verify: Verify,
    records: impl IntoIterator<Item = (Option<&'r CompiledRecord>, &'r str)>,
) -> Result<Option<ReceiptRun<'p>>> {
    let offering = records.into_iter().find(|(r, _)| r.is_some_and(|r| !r.receipts.is_empty())).map(|(_, p)| p);
    if offering.is_none() && verify == Verify::Optional {
        return Ok(None);
    }
    match policy.receipts() {
        Some(verifier) => Ok(Some(ReceiptRun::new(verifier, verify))),
        None => {
            let (path, what) = match offering {
                Some(p) => (format!("{p}/receipts"), "signed receipts"),
                None => ("/verify".to_owned(), "verify \"required\""),
            };
            // The advice names only settings that exist (cli/tests/receipt_advice.rs follows each one): the CLI's
            // flag, and the environment variable both `curbi serve` and `curbi mcp --stdio` read (mcp/src/config.rs).
            let message = format!(
                "receipt verification is unavailable here: {what} need receipt keys, and none are configured \
                 (`curbi check --keys KEYS`; for `curbi serve` and `curbi mcp --stdio`, the environment variable \
                 `CURBI_RECEIPT_KEYS_FILE`; in a library, compile the policy with receipt keys)"
            );
            Err(Error::new(ErrorCode::Unsupported, path, message))
        }
    }
}
