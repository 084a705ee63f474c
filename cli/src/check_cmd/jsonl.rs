//! `curbi check --policy P --jsonl IN`: every line of IN a case `{id?, reply, record?}`, checked against one
//! compiled policy on every core, one result per line in input order on stdout.
//!
//! Lines are read in blocks; a block is split across scoped threads (one per core, each a contiguous run of lines)
//! and its results written in order before the next block is read, so memory stays bounded by the block and output
//! streams as it goes. Each line is read by core's strict reader and the Check API's case schema, its result is
//! the Check API's case result (`{index, id?, pass, findings}`, spans in UTF-16 code units).

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::Instant;

use curbi::api::{CaseResult, SpanUnit, findings_in};
use curbi::{CheckerVersion, CompiledPolicy, CompiledRecord, Error};

use super::{CheckArgs, internal};
use crate::{EXIT_INTERNAL, EXIT_INVALID, read_file};

/// Lines per block: large enough that starting the block's threads costs little beside checking it.
const BLOCK: usize = 4096;

/// What every line is checked with, read once from the arguments.
struct Prepared {
    policy: CompiledPolicy,
    record: Option<CompiledRecord>,
    version: CheckerVersion,
}

/// How one line came out.
#[derive(Clone, Copy, PartialEq)]
enum Outcome {
    Pass,
    Fail,
    Invalid,
    Internal,
}

#[derive(Default)]
struct Tally {
    pass: usize,
    fail: usize,
    invalid: usize,
    internal: usize,
}

impl Tally {
    fn add(&mut self, o: Outcome) {
        match o {
            Outcome::Pass => self.pass += 1,
            Outcome::Fail => self.fail += 1,
            Outcome::Invalid => self.invalid += 1,
            Outcome::Internal => self.internal += 1,
        }
    }

    fn total(&self) -> usize {
        self.pass + self.fail + self.invalid + self.internal
    }

    fn status(&self) -> u8 {
        if self.internal > 0 {
            EXIT_INTERNAL
        } else if self.invalid > 0 {
            EXIT_INVALID
        } else if self.fail > 0 {
            1
        } else {
            0
        }
    }
}

/// Prints an error document on stdout (the policy, the record or the checker version is bad): exit 2.
fn refuse(e: &Error) -> ExitCode {
    crate::print_status(&e.to_json().to_string(), EXIT_INVALID)
}

fn prepare(a: &CheckArgs<'_>) -> Result<Prepared, ExitCode> {
    let policy_file = a.policy.ok_or_else(|| ExitCode::from(EXIT_INVALID))?;
    let mut policy = CompiledPolicy::from_json(&read_file(policy_file)?).map_err(|e| refuse(&e))?;
    if let Some(k) = a.keys {
        policy = policy.with_receipts(super::receipt_verifier(k, a.allow_test, a.now)?);
    }
    let record = match a.record {
        Some(f) => Some(CompiledRecord::from_json(&read_file(f)?).map_err(|e| refuse(&e))?),
        None => None,
    };
    let version = match a.checker {
        Some(name) => CheckerVersion::from_name(name).map_err(|e| refuse(&e))?,
        None => CheckerVersion::default(),
    };
    Ok(Prepared { policy, record, version })
}

pub(super) fn run(a: &CheckArgs<'_>) -> ExitCode {
    let p = match prepare(a) {
        Ok(p) => p,
        Err(status) => return status,
    };
    let Some(input) = a.jsonl else { return ExitCode::from(EXIT_INVALID) };
    let (reader, size): (Box<dyn Read>, Option<u64>) = if input == "-" {
        (Box::new(io::stdin()), None)
    } else {
        match File::open(input) {
            Ok(f) => {
                let size = f.metadata().ok().map(|m| m.len());
                (Box::new(f), size)
            }
            Err(e) => {
                note!("curbi: cannot read {}: {e}", input.to_string_lossy());
                return ExitCode::from(EXIT_INVALID);
            }
        }
    };
    match stream(&p, BufReader::with_capacity(1 << 16, reader), size, input) {
        Ok(status) => ExitCode::from(status),
        Err(status) => status,
    }
}

fn stream(p: &Prepared, mut reader: impl BufRead, size: Option<u64>, input: &OsString) -> Result<u8, ExitCode> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let progress = io::stderr().is_terminal();
    let started = Instant::now();
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut tally = Tally::default();
    let mut lines: Vec<Vec<u8>> = Vec::with_capacity(BLOCK);
    let mut next_index = 0usize;
    let mut read_bytes = 0u64;
    loop {
        // Read a block, reusing the line buffers.
        let mut n = 0;
        while n < BLOCK {
            if lines.len() == n {
                lines.push(Vec::new());
            }
            let line = &mut lines[n];
            line.clear();
            match reader.read_until(b'\n', line) {
                Ok(0) => break,
                Ok(k) => {
                    read_bytes += k as u64;
                    n += 1;
                }
                Err(e) => {
                    note!("curbi: cannot read {}: {e}", input.to_string_lossy());
                    return Err(ExitCode::from(EXIT_INVALID));
                }
            }
        }
        if n == 0 {
            break;
        }
        let block = &lines[..n];
        let results = check_block(p, block, next_index, threads);
        next_index += n;
        for (text, outcome) in results.iter().flatten() {
            tally.add(*outcome);
            writeln!(out, "{text}").map_err(output_failed)?;
        }
        out.flush().map_err(output_failed)?;
        if progress {
            let pct = size.filter(|s| *s > 0).map(|s| format!(" ({}%)", read_bytes * 100 / s)).unwrap_or_default();
            let _ = write!(io::stderr(), "\r\x1b[Kcurbi check: {} checked{pct}", tally.total());
        }
    }
    if progress {
        let _ = write!(io::stderr(), "\r\x1b[K");
    }
    let invalid = if tally.invalid > 0 { format!(", {} invalid", tally.invalid) } else { String::new() };
    let internal = if tally.internal > 0 { format!(", {} internal errors", tally.internal) } else { String::new() };
    note!(
        "curbi check: {} case(s): {} passed, {} failed{invalid}{internal} in {:.2} s on {threads} thread(s)",
        tally.total(),
        tally.pass,
        tally.fail,
        started.elapsed().as_secs_f64()
    );
    Ok(tally.status())
}

/// A result line that cannot be written (the reader went away, or a full disk): the documented exit 4, not 3 (an
/// internal error), like every other command's output (issue 43).
fn output_failed(e: io::Error) -> ExitCode {
    crate::stdout_failed(&e)
}

/// Checks a block of lines, `threads` contiguous runs at once; results in line order (`None` for blank lines).
fn check_block(p: &Prepared, block: &[Vec<u8>], first: usize, threads: usize) -> Vec<Option<(String, Outcome)>> {
    let one = |(i, line): (usize, &Vec<u8>)| check_line(p, first + i, line);
    if threads <= 1 || block.len() < 64 {
        return block.iter().enumerate().map(one).collect();
    }
    let run = block.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = block
            .chunks(run)
            .enumerate()
            .map(|(k, chunk)| {
                s.spawn(move || {
                    chunk.iter().enumerate().map(|(i, l)| check_line(p, first + k * run + i, l)).collect::<Vec<_>>()
                })
            })
            .collect();
        // check_line catches panics itself, so a join error cannot carry one; count it as internal all the same.
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|_| vec![internal_line(first)])).collect()
    })
}

fn internal_line(index: usize) -> Option<(String, Outcome)> {
    Some((error_line(index, None, &internal()), Outcome::Internal))
}

/// One line's result document, or `None` for a blank line.
fn check_line(p: &Prepared, index: usize, line: &[u8]) -> Option<(String, Outcome)> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let checked = panic::catch_unwind(AssertUnwindSafe(|| {
        let value = match curbi::json::read(line) {
            Ok(v) => v,
            Err(e) => {
                // The id is kept where a lenient read finds one, unless it is the id that is repeated.
                let lenient = (e.path != "/id").then(|| serde_json::from_slice::<serde_json::Value>(line).ok());
                let id = lenient.flatten().and_then(|v| v.get("id").and_then(|v| v.as_str().map(str::to_owned)));
                return (error_line(index, id.as_deref(), &e), Outcome::Invalid);
            }
        };
        let case = match curbi::check::CompiledCase::from_value(&value) {
            Ok(c) => c,
            Err(e) => {
                let id = value.get("id").and_then(|v| v.as_str());
                return (error_line(index, id, &e), Outcome::Invalid);
            }
        };
        // Each line is its own request: its receipts (with --keys) back its own claims only; without --keys a line
        // offering receipts is its own `unsupported` error line, never checked as if they were not there.
        let record = case.record.clone().or_else(|| p.record.clone());
        let options = curbi::api::CheckOptions { record, version: p.version, verify: curbi::Verify::Optional };
        let found = match curbi::api::find_one(&p.policy, &case.reply, &options) {
            Ok((found, _)) => found,
            Err(e) => return (error_line(index, case.id.as_deref(), &e), Outcome::Invalid),
        };
        let findings = findings_in(&case.reply, found, SpanUnit::Utf16);
        let pass = findings.is_empty();
        let result = CaseResult { index, id: case.id, pass, findings };
        let outcome = if pass { Outcome::Pass } else { Outcome::Fail };
        match serde_json::to_string(&result) {
            Ok(text) => (text, outcome),
            Err(_) => (error_line(index, None, &internal()), Outcome::Internal),
        }
    }));
    Some(checked.unwrap_or_else(|_| (error_line(index, None, &internal()), Outcome::Internal)))
}

/// `{"index":N,"id"?:…,"error":{code,message,path}}` for a line that is not a valid case.
fn error_line(index: usize, id: Option<&str>, e: &Error) -> String {
    let error = &e.to_json()["error"];
    match id {
        Some(id) => format!("{{\"index\":{index},\"id\":{},\"error\":{error}}}", serde_json::Value::from(id)),
        None => format!("{{\"index\":{index},\"error\":{error}}}"),
    }
}
