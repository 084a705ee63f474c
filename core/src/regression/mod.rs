//! Regression export (`export_regression`, DESIGN §4) and replay. An export runs the check on the caller's request
//! and records what the checker said as a `curbi.regression` document; replay runs it again with the checker
//! version pinned in the document and diffs each case. Expectations always come from the checker, never from the
//! caller. The format is written up field by field in docs/REGRESSION.md.
//!
//! Beside the JSON, an export yields the text of two test files that replay it elsewhere: a dependency-free
//! `node:test` file against a Check API, and a pytest file through the Python package. Both read `regression.json`
//! from their own folder, so the JSON is the single source of every expectation.

use std::cmp::Ordering;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::check::{CompiledCase, CompiledPolicy, CompiledRecord};
use crate::error::{Error, ErrorCode, Result};
use crate::pointer::{member, type_name};
use crate::policy::{self, CheckerVersion, Replies};
use crate::wire::{self, SpanUnit, WireFinding};

/// `object` of a regression document (seed 000).
pub const OBJECT: &str = "curbi.regression";
/// The regression format version: the only value of `export_regression`'s `version` in seed 000.
pub const FORMAT_VERSION: &str = "2026-11-01";
/// Longest `title`, in Unicode code points (seed 000).
pub const MAX_TITLE: usize = 80;
/// The title when the request gives none.
pub const DEFAULT_TITLE: &str = "Curbi regression";
/// Most cases in one regression: one export of one check request.
pub const MAX_CASES: usize = 50;
/// The `note` every exported regression carries.
pub const NOTE: &str = "Expectations were produced by the Curbi checker named in \"checker\", never by the caller. A \
                        pass means no configured rule fired. Records are supplied by the caller and not verified. \
                        Nothing here grants authority to act.";

/// The file names `curbi export` writes.
pub const JSON_FILE: &str = "regression.json";
pub const NODE_TEST_FILE: &str = "regression.test.mjs";
pub const PYTEST_FILE: &str = "test_regression.py";

const NODE_TEMPLATE: &str = include_str!("regression.test.mjs");
const PYTEST_TEMPLATE: &str = include_str!("test_regression.py");
const TITLE_MARK: &str = "@@TITLE@@";

/// Members `export_regression` accepts (seed 000's input schema, in schema order).
const EXPORT_MEMBERS: [&str; 7] = ["version", "policy", "reply", "record", "cases", "verify", "title"];
/// Members of a regression document, in the order they are written.
const DOC_MEMBERS: [&str; 7] = ["object", "version", "title", "checker", "note", "policy", "cases"];

/// One expected finding: the rule, its `[start, end)` span in UTF-16 code units of the reply, and that text. The
/// finding's `why` is for people and is not part of an expectation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ExpectedFinding {
    pub rule: String,
    pub span: [usize; 2],
    pub text: String,
}

impl ExpectedFinding {
    fn key(&self) -> (usize, usize, &str, &str) {
        (self.span[0], self.span[1], &self.rule, &self.text)
    }
}

/// What the checker said about one reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Expected {
    pub pass: bool,
    /// One rule id per finding, sorted.
    pub rules: Vec<String>,
    /// The findings in the checker's order (span start, then rule).
    pub findings: Vec<ExpectedFinding>,
}

impl Expected {
    fn from_findings(findings: &[WireFinding]) -> Expected {
        let mut rules: Vec<String> = findings.iter().map(|f| f.rule.clone()).collect();
        rules.sort();
        Expected {
            pass: findings.is_empty(),
            rules,
            findings: findings
                .iter()
                .map(|f| ExpectedFinding { rule: f.rule.clone(), span: f.span, text: f.text.clone() })
                .collect(),
        }
    }
}

/// One case: the reply, the record it was checked with (as the caller wrote it), and what the checker said.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegressionCase {
    /// The caller's case id, when it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub reply: String,
    /// The record this case was checked with: the case's own, else the request's; absent when neither had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<Value>,
    pub expected: Expected,
}

/// A `curbi.regression` document.
#[derive(Debug, Clone, PartialEq)]
pub struct Regression {
    pub title: String,
    /// The checker version the expectations came from; replay always uses it.
    pub checker: CheckerVersion,
    /// The policy as the caller wrote it.
    pub policy: Value,
    pub cases: Vec<RegressionCase>,
}

#[derive(Serialize)]
struct WireRegression<'a> {
    object: &'static str,
    version: &'static str,
    title: &'a str,
    checker: &'static str,
    note: &'static str,
    policy: &'a Value,
    cases: &'a [RegressionCase],
}

impl Serialize for Regression {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        WireRegression {
            object: OBJECT,
            version: FORMAT_VERSION,
            title: &self.title,
            checker: self.checker.as_str(),
            note: NOTE,
            policy: &self.policy,
            cases: &self.cases,
        }
        .serialize(s)
    }
}

impl Regression {
    /// The document as JSON, indented by two spaces and ending in a newline (the bytes of `regression.json`).
    pub fn to_json_pretty(&self) -> String {
        let mut s = inline_number_arrays(&serde_json::to_string_pretty(self).unwrap_or_default());
        s.push('\n');
        s
    }

    /// The document as compact JSON.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// What `export_regression` answers: `{"regression", "nodeTest", "pytest"}`, the document and the text of its two
    /// replay test files.
    pub fn export_json(&self) -> String {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Export<'a> {
            regression: &'a Regression,
            node_test: String,
            pytest: String,
        }
        serde_json::to_string(&Export { regression: self, node_test: self.node_test(), pytest: self.pytest() })
            .unwrap_or_default()
    }

    /// The text of `regression.test.mjs`: a dependency-free `node:test` file that replays `regression.json` (read
    /// from its own folder) against the Check API at `CURBI_CHECK_URL`.
    pub fn node_test(&self) -> String {
        NODE_TEMPLATE.replacen(TITLE_MARK, &ascii_json_string(&self.title), 1)
    }

    /// The text of `test_regression.py`: a pytest file that replays `regression.json` (read from its own folder)
    /// through `curbi.check(dict) -> dict`, skipped with a reason when the Python package is not installed.
    pub fn pytest(&self) -> String {
        PYTEST_TEMPLATE.replacen(TITLE_MARK, &ascii_json_string(&self.title), 1)
    }

    /// Replays every case with the pinned checker and compares it with its expectation.
    pub fn replay(&self) -> Result<ReplayReport> {
        let req = self.check_request()?;
        let Replies::Cases(cases) = req.replies else {
            return Err(Error::new(ErrorCode::Internal, "/cases", "replay request without cases"));
        };
        let cases = CompiledCase::compile_all(cases, "/cases")?;
        let compiled = CompiledPolicy::new(req.policy);
        let results = self
            .cases
            .iter()
            .zip(&cases)
            .enumerate()
            .map(|(index, (want, case))| {
                let resp = wire::respond(&compiled, &case.reply, case.record.as_ref(), self.checker, SpanUnit::Utf16);
                let got = Expected::from_findings(&resp.findings);
                let diff = diff(&want.expected, &got);
                CaseReplay { index, id: want.id.clone(), ok: diff.is_none(), got, diff }
            })
            .collect::<Vec<_>>();
        Ok(ReplayReport {
            title: self.title.clone(),
            checker: self.checker,
            pass: results.iter().all(|c| c.ok),
            cases: results,
        })
    }

    /// The Check API request that replays this regression: the pinned checker, the policy, and every case with its
    /// own record. Reading it enforces every limit of the check on the policy and the cases.
    fn check_request(&self) -> Result<policy::CheckRequest> {
        let cases: Vec<Value> = self
            .cases
            .iter()
            .map(|c| {
                let mut m = Map::new();
                if let Some(id) = &c.id {
                    m.insert("id".into(), Value::String(id.clone()));
                }
                m.insert("reply".into(), Value::String(c.reply.clone()));
                if let Some(r) = &c.record {
                    m.insert("record".into(), r.clone());
                }
                Value::Object(m)
            })
            .collect();
        let mut m = Map::new();
        m.insert("version".into(), Value::String(self.checker.as_str().into()));
        m.insert("policy".into(), self.policy.clone());
        m.insert("cases".into(), Value::Array(cases));
        let req = policy::parse_request_value(&Value::Object(m))?;
        refuse_receipts(&req)?;
        Ok(req)
    }
}

/// Pretty JSON with arrays of numbers on one line (`"span": [11, 14]`), so a regression reads and diffs well.
fn inline_number_arrays(pretty: &str) -> String {
    let b = pretty.as_bytes();
    let mut out = String::with_capacity(pretty.len());
    let (mut i, mut copied, mut in_string, mut escaped) = (0, 0, false, false);
    while i < b.len() {
        let c = b[i];
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
        } else if c == b'"' {
            in_string = true;
        } else if c == b'[' {
            let close = b[i..].iter().position(|&x| x == b']').map(|p| i + p);
            if let Some(close) = close {
                let inner = &pretty[i + 1..close];
                let numbers: Vec<&str> = inner.split(',').map(str::trim).collect();
                let all_numbers = !inner.trim().is_empty()
                    && numbers.iter().all(|n| !n.is_empty() && n.bytes().all(|x| b"0123456789-+.eE".contains(&x)));
                if all_numbers {
                    out.push_str(&pretty[copied..i]);
                    out.push('[');
                    out.push_str(&numbers.join(", "));
                    out.push(']');
                    i = close + 1;
                    copied = i;
                    continue;
                }
            }
        }
        i += 1;
    }
    out.push_str(&pretty[copied..]);
    out
}

/// A JSON string literal with every character outside printable ASCII escaped, so it can sit in a JavaScript or
/// Python comment: no line terminator (U+2028 included) can end the comment early.
fn ascii_json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

/// Signed receipts are refused by exports and regressions, whatever the build can verify: a regression replays
/// caller records only, so its expectations never depend on keys or a clock.
fn refuse_receipts(req: &policy::CheckRequest) -> Result<()> {
    let mut records: Vec<(&policy::Record, String)> = Vec::new();
    if let Some(r) = &req.record {
        records.push((r, "/record".into()));
    }
    if let policy::Replies::Cases(cases) = &req.replies {
        for (i, c) in cases.iter().enumerate() {
            if let Some(r) = &c.record {
                records.push((r, format!("/cases/{i}/record")));
            }
        }
    }
    match records.into_iter().find(|(r, _)| !r.receipts.is_empty()) {
        Some((_, path)) => Err(Error::new(
            ErrorCode::Unsupported,
            format!("{path}/receipts"),
            "signed receipts cannot be exported: a regression replays caller-supplied records only, so remove \
             'receipts' (exports accept verify \"optional\" only)",
        )),
        None => Ok(()),
    }
}

fn unknown_members(m: &Map<String, Value>, base: &str, allowed: &[&str]) -> Result<()> {
    // Map keys iterate in code-point order, as the Check API reports unknown members.
    match m.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(Error::new(
            ErrorCode::UnknownField,
            member(base, k),
            crate::suggest::unknown_member_message(k, allowed),
        )),
        None => Ok(()),
    }
}

fn string<'v>(v: &'v Value, path: &str, max: Option<usize>) -> Result<&'v str> {
    let Value::String(s) = v else {
        return Err(Error::new(ErrorCode::InvalidType, path, format!("expected a string, got {}", type_name(v))));
    };
    let n = s.chars().count();
    if let Some(max) = max
        && n > max
    {
        return Err(Error::new(ErrorCode::TooLong, path, format!("must be at most {max} characters, got {n}")));
    }
    Ok(s)
}

fn one_of(v: &Value, path: &str, allowed: &[&str], why: &str) -> Result<()> {
    let s = string(v, path, None)?;
    if allowed.contains(&s) {
        return Ok(());
    }
    Err(Error::new(ErrorCode::InvalidEnum, path, format!("'{s}' is not one of: {} ({why})", allowed.join(", "))))
}

fn required<'v>(m: &'v Map<String, Value>, base: &str, key: &str) -> Result<&'v Value> {
    m.get(key).ok_or_else(|| Error::new(ErrorCode::MissingField, member(base, key), format!("'{key}' is required")))
}

/// Runs `request` (seed 000's `export_regression` arguments: a `policy_check` request with `verify` only
/// `"optional"`, no receipts, an optional `title` of at most 80 characters, and `version` the regression format
/// version `2026-11-01`) with the current checker, and returns the regression. Errors are the first one in schema
/// order, with the Check API's codes and paths.
pub fn export_regression(request: &Value) -> Result<Regression> {
    export_regression_pinned(request, CheckerVersion::CURRENT)
}

/// [`export_regression`] with the expectations taken from checker `checker` (pinned in the document). The seed's
/// tool has no such argument: it always uses the current checker. `curbi export --checker` uses this.
pub fn export_regression_pinned(request: &Value, checker: CheckerVersion) -> Result<Regression> {
    let Value::Object(m) = request else {
        return Err(Error::new(ErrorCode::InvalidType, "", format!("expected an object, got {}", type_name(request))));
    };
    unknown_members(m, "", &EXPORT_MEMBERS)?;
    if let Some(v) = m.get("version") {
        one_of(
            v,
            "/version",
            &[FORMAT_VERSION],
            "the regression format version; the checker that produces the expectations is recorded as \"checker\"",
        )?;
    }
    // The rest is a check request: its reading enforces every limit of the Check API, with the same paths.
    let mut check = m.clone();
    for k in ["version", "verify", "title"] {
        check.remove(k);
    }
    let mut deferred = None;
    let req = policy::parse_request_value(&Value::Object(check))?;
    // Schema-valid but refused: reported after the schema errors of `verify` and `title` below.
    if let Err(e) = refuse_receipts(&req) {
        deferred = Some(e);
    }
    if let Some(v) = m.get("verify") {
        one_of(v, "/verify", &["optional"], "exports use caller records, so only \"optional\" is accepted")?;
    }
    let title = match m.get("title") {
        Some(v) => string(v, "/title", Some(MAX_TITLE))?.to_owned(),
        None => DEFAULT_TITLE.to_owned(),
    };
    if let Some(e) = deferred {
        return Err(e);
    }

    let record = req.record.map(|r| CompiledRecord::compile(r, "/record")).transpose()?;
    let compiled = CompiledPolicy::new(req.policy);
    let top_record = m.get("record");
    let raw_cases = m.get("cases").and_then(Value::as_array);
    let mut cases = Vec::new();
    match req.replies {
        Replies::One(reply) => {
            let resp = wire::respond(&compiled, &reply, record.as_ref(), checker, SpanUnit::Utf16);
            cases.push(RegressionCase {
                id: None,
                reply,
                record: top_record.cloned(),
                expected: Expected::from_findings(&resp.findings),
            });
        }
        Replies::Cases(list) => {
            for (i, c) in CompiledCase::compile_all(list, "/cases")?.into_iter().enumerate() {
                // A case's own record replaces the request's (docs/CHECK_API.md); the regression keeps the one used.
                let own = raw_cases.and_then(|a| a.get(i)).and_then(|c| c.get("record"));
                let record = c.record.as_ref().or(record.as_ref());
                let resp = wire::respond(&compiled, &c.reply, record, checker, SpanUnit::Utf16);
                cases.push(RegressionCase {
                    id: c.id,
                    reply: c.reply,
                    record: own.or(top_record).cloned(),
                    expected: Expected::from_findings(&resp.findings),
                });
            }
        }
    }
    let policy = m.get("policy").cloned().unwrap_or(Value::Null);
    Ok(Regression { title, checker, policy, cases })
}

/// Reads a `curbi.regression` document, strictly: unknown members anywhere are errors (a misspelt `expected` must
/// not silently test nothing), and the policy and every case are read with the Check API's limits. Returns the first
/// error: the document's own members in order, then the policy and cases as the Check API reads them, then each
/// case's `expected`.
pub fn parse_regression(doc: &Value) -> Result<Regression> {
    let Value::Object(m) = doc else {
        return Err(Error::new(ErrorCode::InvalidType, "", format!("expected an object, got {}", type_name(doc))));
    };
    unknown_members(m, "", &DOC_MEMBERS)?;
    let object = m.get("object").ok_or_else(|| {
        Error::new(
            ErrorCode::MissingField,
            "/object",
            "'object' is required: a regression document has \"object\": \"curbi.regression\"",
        )
    })?;
    one_of(object, "/object", &[OBJECT], "a regression document")?;
    one_of(required(m, "", "version")?, "/version", &[FORMAT_VERSION], "the regression format version")?;
    let title = string(required(m, "", "title")?, "/title", Some(MAX_TITLE))?.to_owned();
    let checker_v = required(m, "", "checker")?;
    let checker_s = string(checker_v, "/checker", None)?;
    let Some(checker) = CheckerVersion::parse(checker_s) else {
        let known: Vec<&str> = CheckerVersion::ALL.iter().map(|v| v.as_str()).collect();
        return Err(Error::new(
            ErrorCode::InvalidEnum,
            "/checker",
            format!(
                "'{checker_s}' is not one of: {} (the checker version the expectations came from)",
                known.join(", ")
            ),
        ));
    };
    if let Some(n) = m.get("note") {
        string(n, "/note", None)?;
    }
    let policy = required(m, "", "policy")?.clone();
    let raw_cases = required(m, "", "cases")?;
    let Value::Array(list) = raw_cases else {
        return Err(Error::new(
            ErrorCode::InvalidType,
            "/cases",
            format!("expected an array, got {}", type_name(raw_cases)),
        ));
    };
    if list.is_empty() {
        return Err(Error::new(ErrorCode::TooFewItems, "/cases", "needs at least 1 item(s), got 0"));
    }
    Error::at_most(list.len(), MAX_CASES, "/cases", || {
        format!("allows at most {MAX_CASES} items, got {}", list.len())
    })?;
    let mut cases = Vec::with_capacity(list.len());
    for (i, c) in list.iter().enumerate() {
        let cp = format!("/cases/{i}");
        let Value::Object(cm) = c else {
            return Err(Error::new(ErrorCode::InvalidType, cp, format!("expected an object, got {}", type_name(c))));
        };
        unknown_members(cm, &cp, &["id", "reply", "record", "expected"])?;
        let id = match cm.get("id") {
            Some(v) => Some(string(v, &format!("{cp}/id"), None)?.to_owned()),
            None => None,
        };
        let reply = string(required(cm, &cp, "reply")?, &format!("{cp}/reply"), None)?.to_owned();
        required(cm, &cp, "expected")?;
        // `expected` is read once the Check API has read the policy and every case (below).
        cases.push(RegressionCase {
            id,
            reply,
            record: cm.get("record").cloned(),
            expected: Expected { pass: true, rules: Vec::new(), findings: Vec::new() },
        });
    }
    let mut r = Regression { title, checker, policy, cases };
    r.check_request()?;
    for (i, c) in list.iter().enumerate() {
        r.cases[i].expected = expected(&c["expected"], &format!("/cases/{i}/expected"))?;
    }
    Ok(r)
}

fn expected(v: &Value, path: &str) -> Result<Expected> {
    let Value::Object(m) = v else {
        return Err(Error::new(ErrorCode::InvalidType, path, format!("expected an object, got {}", type_name(v))));
    };
    unknown_members(m, path, &["pass", "rules", "findings"])?;
    let pass_v = required(m, path, "pass")?;
    let Value::Bool(pass) = pass_v else {
        return Err(Error::new(
            ErrorCode::InvalidType,
            format!("{path}/pass"),
            format!("expected a boolean, got {}", type_name(pass_v)),
        ));
    };
    let array = |key: &str| -> Result<&Vec<Value>> {
        let v = required(m, path, key)?;
        v.as_array().ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidType,
                format!("{path}/{key}"),
                format!("expected an array, got {}", type_name(v)),
            )
        })
    };
    let rules = array("rules")?
        .iter()
        .enumerate()
        .map(|(k, r)| string(r, &format!("{path}/rules/{k}"), None).map(str::to_owned))
        .collect::<Result<Vec<_>>>()?;
    let mut findings = Vec::new();
    for (k, f) in array("findings")?.iter().enumerate() {
        let fp = format!("{path}/findings/{k}");
        let Value::Object(fm) = f else {
            return Err(Error::new(ErrorCode::InvalidType, fp, format!("expected an object, got {}", type_name(f))));
        };
        unknown_members(fm, &fp, &["rule", "span", "text"])?;
        let rule = string(required(fm, &fp, "rule")?, &format!("{fp}/rule"), None)?.to_owned();
        let span_v = required(fm, &fp, "span")?;
        let span = match span_v.as_array().map(|a| a.iter().map(Value::as_u64).collect::<Vec<_>>()).as_deref() {
            Some([Some(a), Some(b)]) if a <= b => [*a as usize, *b as usize],
            _ => {
                return Err(Error::new(
                    ErrorCode::InvalidValue,
                    format!("{fp}/span"),
                    "expected [start, end]: two non-negative integers with start <= end",
                ));
            }
        };
        let text = string(required(fm, &fp, "text")?, &format!("{fp}/text"), None)?.to_owned();
        findings.push(ExpectedFinding { rule, span, text });
    }
    Ok(Expected { pass: *pass, rules, findings })
}

/// Reads and replays a regression document with its pinned checker.
pub fn replay(doc: &Value) -> Result<ReplayReport> {
    parse_regression(doc)?.replay()
}

/// A before/after pair in a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change<T> {
    pub expected: T,
    pub got: T,
}

/// How a case's result differs from its expectation. Findings are compared as multisets on rule, span and text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseDiff {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pass: Option<Change<bool>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<Change<Vec<String>>>,
    /// Expected findings the checker did not produce.
    pub missing: Vec<ExpectedFinding>,
    /// Findings the checker produced that were not expected.
    pub unexpected: Vec<ExpectedFinding>,
}

/// One case's replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseReplay {
    pub index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub ok: bool,
    /// What the checker said this time.
    #[serde(skip)]
    pub got: Expected,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<CaseDiff>,
}

/// The result of a replay: `pass` when every case's expectation held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayReport {
    pub title: String,
    pub checker: CheckerVersion,
    pub pass: bool,
    pub cases: Vec<CaseReplay>,
}

#[derive(Serialize)]
struct WireReplay<'a> {
    object: &'static str,
    title: &'a str,
    checker: &'static str,
    pass: bool,
    total: usize,
    failed: usize,
    cases: &'a [CaseReplay],
}

impl Serialize for ReplayReport {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        WireReplay {
            object: "curbi.replay",
            title: &self.title,
            checker: self.checker.as_str(),
            pass: self.pass,
            total: self.cases.len(),
            failed: self.cases.iter().filter(|c| !c.ok).count(),
            cases: &self.cases,
        }
        .serialize(s)
    }
}

impl ReplayReport {
    /// Compact JSON: `{"object":"curbi.replay","title","checker","pass","total","failed","cases":[…]}`.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// For people: one line per case, and under each failed case what differs.
    pub fn to_text(&self) -> String {
        let failed = self.cases.iter().filter(|c| !c.ok).count();
        let mut out = format!(
            "replay {} (checker {}): {} case(s), {failed} failed\n",
            ascii_json_string(&self.title),
            self.checker.as_str(),
            self.cases.len()
        );
        let finding =
            |f: &ExpectedFinding| format!("{} [{}, {}) {}", f.rule, f.span[0], f.span[1], ascii_json_string(&f.text));
        for c in &self.cases {
            let name = match &c.id {
                Some(id) => format!("case {} ({})", c.index, ascii_json_string(id)),
                None => format!("case {}", c.index),
            };
            out.push_str(&format!("  {} {name}\n", if c.ok { "ok  " } else { "FAIL" }));
            let Some(d) = &c.diff else {
                continue;
            };
            if let Some(p) = &d.pass {
                out.push_str(&format!("         pass: expected {}, got {}\n", p.expected, p.got));
            }
            if let Some(r) = &d.rules {
                out.push_str(&format!("         rules: expected {:?}, got {:?}\n", r.expected, r.got));
            }
            for f in &d.missing {
                out.push_str(&format!("         missing:    {}\n", finding(f)));
            }
            for f in &d.unexpected {
                out.push_str(&format!("         unexpected: {}\n", finding(f)));
            }
        }
        out
    }
}

/// `None` when `got` meets `want`: same verdict, same rule ids, same findings (as multisets).
fn diff(want: &Expected, got: &Expected) -> Option<CaseDiff> {
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    let (want_rules, got_rules) = (sorted(&want.rules), sorted(&got.rules));
    let mut a: Vec<&ExpectedFinding> = want.findings.iter().collect();
    let mut b: Vec<&ExpectedFinding> = got.findings.iter().collect();
    a.sort_by(|x, y| x.key().cmp(&y.key()));
    b.sort_by(|x, y| x.key().cmp(&y.key()));
    let (mut missing, mut unexpected) = (Vec::new(), Vec::new());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let ord = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.key().cmp(&y.key()),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match ord {
            Ordering::Equal => {
                i += 1;
                j += 1;
            }
            Ordering::Less => {
                missing.push(a[i].clone());
                i += 1;
            }
            Ordering::Greater => {
                unexpected.push(b[j].clone());
                j += 1;
            }
        }
    }
    let d = CaseDiff {
        pass: (want.pass != got.pass).then_some(Change { expected: want.pass, got: got.pass }),
        rules: (want_rules != got_rules).then_some(Change { expected: want_rules, got: got_rules }),
        missing,
        unexpected,
    };
    (d.pass.is_some() || d.rules.is_some() || !d.missing.is_empty() || !d.unexpected.is_empty()).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn title_in_comments_cannot_break_out() {
        let s = ascii_json_string("a\"b\\c\n\u{2028}*/é😀");
        assert_eq!(s, r#""a\"b\\c\u000a\u2028*/\u00e9\ud83d\ude00""#);
        assert!(s.chars().all(|c| (' '..='~').contains(&c)));
    }

    #[test]
    fn number_arrays_stay_on_one_line_and_strings_are_untouched() {
        let v = json!({"span": [11, 14], "text": "[1,\n 2]", "rules": ["a"], "e": [], "n": [[1, 2]]});
        let s = inline_number_arrays(&serde_json::to_string_pretty(&v).expect("json"));
        assert!(s.contains("\"span\": [11, 14]"), "{s}");
        assert!(s.contains("[\n      1, 2\n    ]") || s.contains("[1, 2]"), "{s}");
        let back: Value = serde_json::from_str(&s).expect("still JSON");
        assert_eq!(back, v);
    }

    #[test]
    fn templates_have_one_title_mark() {
        assert_eq!(NODE_TEMPLATE.matches(TITLE_MARK).count(), 1);
        assert_eq!(PYTEST_TEMPLATE.matches(TITLE_MARK).count(), 1);
    }

    #[test]
    fn diff_reports_missing_and_unexpected_as_multisets() {
        let f = |rule: &str, a: usize| ExpectedFinding { rule: rule.into(), span: [a, a + 3], text: "$99".into() };
        let want =
            Expected { pass: false, rules: vec!["price:mismatch".into()], findings: vec![f("price:mismatch", 1)] };
        let got = Expected { pass: false, rules: vec!["price:unknown".into()], findings: vec![f("price:unknown", 1)] };
        let d = diff(&want, &got).expect("differs");
        assert_eq!(d.pass, None);
        assert_eq!(d.missing, [f("price:mismatch", 1)]);
        assert_eq!(d.unexpected, [f("price:unknown", 1)]);
        assert_eq!(diff(&want, &want.clone()), None);
    }

    #[test]
    fn export_refuses_what_the_seed_schema_refuses() {
        let p = json!({"prices": [{"item": "Pro", "amount": 49}]});
        let e = export_regression(&json!({"policy": p, "reply": "x", "verify": "required"})).expect_err("verify");
        assert_eq!((e.code, e.path.as_str()), (ErrorCode::InvalidEnum, "/verify"));
        let e = export_regression(&json!({"policy": p, "reply": "x", "record": {"receipts": ["r"]}})).expect_err("r");
        assert_eq!((e.code, e.path.as_str()), (ErrorCode::Unsupported, "/record/receipts"));
        assert!(e.message.contains("cannot be exported"), "{}", e.message);
    }
}
