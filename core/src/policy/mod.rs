//! The `policy_check` request model of seed 000, read from JSON with every schema limit enforced.
//! `schema.rs` owns the reading; this file owns the types the checker compiles from.

mod reading;
mod schema;

pub use reading::Reading;

pub use schema::{
    parse_case, parse_cases, parse_policy, parse_record, parse_request, parse_request_value, parse_verify,
    parse_version, validate_policy_value,
};

use crate::decimal::Dec;

/// Checker versions. A pinned version's verdicts never change (docs/CHECKER_VERSIONS.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum CheckerVersion {
    /// The checker before `2026-11-01`; kept for pinned regressions.
    V2026_10_27,
    /// The previous checker.
    V2026_11_01,
    /// Issue 17's checker.
    V2026_12_01,
    /// 2026-12-01 with the misreadings found by probing it mended (docs/CHECKER_VERSIONS.md).
    V2026_12_03,
    /// The current checker: 2026-12-03 with money written the European way, a currency code before `$`, scale
    /// words in spelled amounts and a sentence end with no space after it read (docs/CHECKER_VERSIONS.md).
    #[default]
    V2026_12_04,
}

impl CheckerVersion {
    pub const CURRENT: CheckerVersion = CheckerVersion::V2026_12_04;
    pub const ALL: [CheckerVersion; 5] = [
        CheckerVersion::V2026_10_27,
        CheckerVersion::V2026_11_01,
        CheckerVersion::V2026_12_01,
        CheckerVersion::V2026_12_03,
        CheckerVersion::V2026_12_04,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CheckerVersion::V2026_10_27 => "2026-10-27",
            CheckerVersion::V2026_11_01 => "2026-11-01",
            CheckerVersion::V2026_12_01 => "2026-12-01",
            CheckerVersion::V2026_12_03 => "2026-12-03",
            CheckerVersion::V2026_12_04 => "2026-12-04",
        }
    }

    pub fn parse(s: &str) -> Option<CheckerVersion> {
        CheckerVersion::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// `policy.unknownAmounts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnknownAmounts {
    #[default]
    Flag,
    Allow,
}

/// `policy.forbid[].match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatchMode {
    #[default]
    Word,
    Prefix,
}

/// `policy.prices[]`. `amount` and `amounts` are read into one list.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceItem {
    pub item: String,
    pub amounts: Vec<Dec>,
    pub aliases: Vec<String>,
}

/// `policy.forbid[]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ForbidRule {
    pub id: String,
    pub phrases: Vec<String>,
    pub why: Option<String>,
    pub negatable: bool,
    pub match_mode: MatchMode,
}

/// `policy.discounts[]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Discount {
    pub percent: Dec,
    /// `None`: applies to every item.
    pub items: Option<Vec<String>>,
}

/// A policy as the caller wrote it, validated.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Policy {
    pub name: Option<String>,
    pub description: Option<String>,
    pub prices: Vec<PriceItem>,
    pub forbid: Vec<ForbidRule>,
    /// Past-tense verb → operation, sorted by verb.
    pub actions: Vec<(String, String)>,
    pub discounts: Vec<Discount>,
    pub unknown_amounts: UnknownAmounts,
}

/// `record.effects[]`. Both members are optional in the schema; a missing one never counts as DONE.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Effect {
    pub operation: Option<String>,
    pub status: Option<String>,
    /// `status` is exactly `"DONE"`: decided once when the record is read, not on every check.
    pub done: bool,
}

impl Effect {
    pub fn new(operation: Option<String>, status: Option<String>) -> Effect {
        let done = status.as_deref() == Some("DONE");
        Effect { operation, status, done }
    }
}

/// `record.facts[].kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactKind {
    Time,
    Date,
    Money,
}

impl FactKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FactKind::Time => "time",
            FactKind::Date => "date",
            FactKind::Money => "money",
        }
    }
}

/// `record.facts[].value` as the caller wrote it: the checker reads it by its kind when the record is compiled
/// (`check::CompiledRecord`), with the same readers as the reply.
#[derive(Debug, Clone, PartialEq)]
pub enum FactInput {
    Text(String),
    /// The number's decimal text (the strict reader keeps it).
    Number(serde_json::Number),
}

/// `record.facts[]`, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    pub near: String,
    pub kind: FactKind,
    pub value: FactInput,
}

/// What the caller says happened. Unverified.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record {
    pub subject: Option<String>,
    pub effects: Vec<Effect>,
    pub facts: Vec<Fact>,
    pub receipts: Vec<String>,
}

/// `cases[]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub id: Option<String>,
    pub reply: String,
    /// Replaces the request's `record` for this case when present.
    pub record: Option<Record>,
}

/// One reply or a batch.
#[derive(Debug, Clone, PartialEq)]
pub enum Replies {
    One(String),
    Cases(Vec<Case>),
}

/// `verify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verify {
    #[default]
    Optional,
    Required,
}

/// A whole `policy_check` request.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckRequest {
    pub version: CheckerVersion,
    pub policy: Policy,
    pub replies: Replies,
    pub record: Option<Record>,
    pub verify: Verify,
}
