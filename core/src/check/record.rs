//! A record compiled for checking: each fact's value read by its kind with the same readers the checker uses on the
//! reply (so "15:30" on record equals "3:30 PM" in a reply), and its `near` words folded once.
//! The request reader (`policy`) only checks the record's shape; everything the checker needs is decided here.

use crate::check::{datetime, money, text};
use crate::decimal::Dec;
use crate::error::{Error, ErrorCode, Result};
use crate::pointer::{element, member};
use crate::policy::{Case, Effect, Fact, FactInput, FactKind, Record};

/// A fact's value on record, read by its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactValue {
    /// Minutes after midnight.
    Time(u16),
    /// Year (if given), month, day.
    Date(Option<u16>, u8, u8),
    /// US dollars.
    Money(Dec),
}

/// A fact ready to compare.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledFact {
    pub near: String,
    /// `near`, split into folded words.
    pub near_words: Vec<String>,
    pub kind: FactKind,
    /// The value as the caller wrote it, for the finding's `why`.
    pub display: String,
    pub value: FactValue,
}

/// What the caller says happened, compiled. Unverified. Read it once and check any number of replies with it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompiledRecord {
    pub subject: Option<String>,
    pub effects: Vec<Effect>,
    pub facts: Vec<CompiledFact>,
    pub receipts: Vec<String>,
}

impl CompiledRecord {
    /// Compiles a record read from a request at `path` (`/record`, `/cases/0/record`): a fact value that cannot be
    /// read as its kind is `invalid_value` at `{path}/facts/{i}/value`.
    pub fn compile(record: Record, path: &str) -> Result<CompiledRecord> {
        let facts_at = member(path, "facts");
        let facts = record
            .facts
            .into_iter()
            .enumerate()
            .map(|(i, f)| compile_fact(f, &member(&element(&facts_at, i), "value")))
            .collect::<Result<Vec<_>>>()?;
        Ok(CompiledRecord { subject: record.subject, effects: record.effects, facts, receipts: record.receipts })
    }
}

/// A case whose record is compiled.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledCase {
    pub id: Option<String>,
    pub reply: String,
    /// Replaces the request's record for this case when present.
    pub record: Option<CompiledRecord>,
}

impl CompiledCase {
    /// Compiles the case at `path` (`/cases/3`).
    pub fn compile(case: Case, path: &str) -> Result<CompiledCase> {
        let record = case.record.map(|r| CompiledRecord::compile(r, &member(path, "record"))).transpose()?;
        Ok(CompiledCase { id: case.id, reply: case.reply, record })
    }

    /// Compiles the cases of a request found at `path` (`/cases`).
    pub fn compile_all(cases: Vec<Case>, path: &str) -> Result<Vec<CompiledCase>> {
        cases.into_iter().enumerate().map(|(i, c)| CompiledCase::compile(c, &element(path, i))).collect()
    }
}

fn compile_fact(fact: Fact, path: &str) -> Result<CompiledFact> {
    let Fact { near, kind, value } = fact;
    let (display, read) = match (value, kind) {
        (FactInput::Number(n), FactKind::Money) => match Dec::from_json_number(&n) {
            Ok(d) => (d.dollars(), Some(FactValue::Money(d))),
            Err(_) => (n.to_string(), None),
        },
        (FactInput::Number(n), _) => (n.to_string(), None),
        (FactInput::Text(s), FactKind::Money) => {
            let v = money::parse_fact_money(&s).map(FactValue::Money);
            (s, v)
        }
        (FactInput::Text(s), FactKind::Time) => {
            let v = datetime::parse_fact_time(&s).map(FactValue::Time);
            (s, v)
        }
        (FactInput::Text(s), FactKind::Date) => {
            let v = datetime::parse_fact_date(&s).map(|(y, m, d)| FactValue::Date(y, m, d));
            (s, v)
        }
    };
    let Some(value) = read else {
        let hint = match kind {
            FactKind::Time => "a clock time such as \"15:30\" or \"3:30 PM\"",
            FactKind::Date => "a date such as \"2026-11-03\" or \"Nov 3\"",
            FactKind::Money => "a non-negative US dollar amount such as 50 or \"$49.99\"",
        };
        let message = format!("{display:?} cannot be read as a {} fact: use {hint}", kind.as_str());
        return Err(Error::new(ErrorCode::InvalidValue, path, message));
    };
    let near_words = text::phrase_words(&near);
    Ok(CompiledFact { near, near_words, kind, display, value })
}
