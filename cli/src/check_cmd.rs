//! `curbi check`: one Check API request (`FILE`), or a JSON Lines file of cases against one policy (`--policy P
//! --jsonl IN`), checked on every core and streamed back one result per line in input order.
//!
//! Arguments are read into [`CheckArgs`] first and each mode runs from it, so a new flag is one field, one arm in
//! [`parse`] and its use where the checks are prepared ([`jsonl::Prepared`]).

use std::ffi::OsString;
use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use curbi::{Error, ErrorCode};

use super::{EXIT_INTERNAL, EXIT_INVALID, read_file, usage_error};

mod jsonl;

/// `curbi check`'s arguments, as given.
#[derive(Debug, Default)]
pub(crate) struct CheckArgs<'a> {
    pretty: bool,
    explain: bool,
    /// The request file (`curbi check FILE`).
    file: Option<&'a OsString>,
    /// `--policy P`: the policy every `--jsonl` line is checked against.
    policy: Option<&'a OsString>,
    /// `--jsonl IN`: cases, one a line.
    jsonl: Option<&'a OsString>,
    /// `--record FILE`: the record for `--jsonl` lines that carry none.
    record: Option<&'a OsString>,
    /// `--checker VERSION`: the checker that answers `--jsonl` lines.
    checker: Option<&'a str>,
}

fn parse(args: &[OsString]) -> Result<CheckArgs<'_>, ExitCode> {
    let mut a = CheckArgs::default();
    let mut flags_done = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let s = arg.to_str();
        if !flags_done {
            let mut value = |flag: &str| it.next().ok_or_else(|| usage_error(&format!("check: {flag} needs a value")));
            match s {
                Some("--pretty") => a.pretty = true,
                Some("--explain") => a.explain = true,
                Some("--") => flags_done = true,
                Some("--policy") => a.policy = Some(value("--policy")?),
                Some("--jsonl") => a.jsonl = Some(value("--jsonl")?),
                Some("--record") => a.record = Some(value("--record")?),
                Some("--checker") => {
                    let v = value("--checker")?;
                    a.checker = Some(v.to_str().ok_or_else(|| usage_error("check: --checker must be UTF-8"))?);
                }
                // "-" is stdin, not a flag.
                Some(f) if f.starts_with('-') && f != "-" => {
                    return Err(usage_error(&format!("check: unknown option {f}")));
                }
                _ if a.file.is_some() => return Err(usage_error("check takes exactly one FILE")),
                _ => a.file = Some(arg),
            }
            continue;
        }
        if a.file.is_some() {
            return Err(usage_error("check takes exactly one FILE"));
        }
        a.file = Some(arg);
    }
    Ok(a)
}

pub(crate) fn check_command(args: &[OsString]) -> ExitCode {
    let a = match parse(args) {
        Ok(a) => a,
        Err(status) => return status,
    };
    match (a.jsonl, a.policy, a.file) {
        (Some(_), Some(_), None) if !a.pretty && !a.explain => jsonl::run(&a),
        (Some(_), Some(_), None) => {
            usage_error("check --jsonl writes one compact line per case: no --pretty or --explain")
        }
        (Some(_), None, _) => usage_error("check --jsonl IN needs --policy POLICY"),
        (None, Some(_), _) => {
            usage_error("check --policy POLICY needs --jsonl IN (a request FILE holds its own policy)")
        }
        (Some(_), Some(_), Some(_)) => usage_error("check --jsonl takes no request FILE"),
        (None, None, _) if a.record.is_some() || a.checker.is_some() => {
            usage_error("check: --record and --checker go with --jsonl (a request FILE holds its own)")
        }
        (None, None, Some(file)) => check_request(file, a.pretty, a.explain),
        (None, None, None) => usage_error("check needs a FILE (or - for stdin)"),
    }
}

/// `curbi check FILE`: one Check API request.
fn check_request(file: &OsString, pretty: bool, explain: bool) -> ExitCode {
    let body = match read_file(file) {
        Ok(b) => b,
        Err(status) => return status,
    };

    // A checker panic is a bug; report it as the `internal` error document instead of a bare crash.
    let (out, status) = match panic::catch_unwind(AssertUnwindSafe(|| curbi::api::check_json(&body))) {
        Ok(Ok(res)) => {
            let text = if explain {
                explain_text(&res)
            } else if pretty {
                serde_json::to_string_pretty(&res).unwrap_or_else(|_| res.to_json_string())
            } else {
                res.to_json_string()
            };
            (text, if res.pass() { 0 } else { 1 })
        }
        Ok(Err(e)) => (error_text(&e, pretty), EXIT_INVALID),
        Err(_) => (error_text(&internal(), pretty), EXIT_INTERNAL),
    };
    match writeln!(io::stdout().lock(), "{out}") {
        Ok(()) => ExitCode::from(status),
        Err(e) => {
            eprintln!("curbi: cannot write to stdout: {e}");
            ExitCode::from(EXIT_INTERNAL)
        }
    }
}

fn internal() -> Error {
    Error::new(
        ErrorCode::Internal,
        "",
        "the checker failed on this request; this is a bug, please report it with the input",
    )
}

/// The response for people: a verdict line, then one line per finding with its rule, span, text and why.
fn explain_text(res: &curbi::api::Response) -> String {
    use curbi::api::{Response, WireFinding};
    let mut out = String::new();
    let mut list = |label: &str, pass: bool, findings: &[WireFinding]| {
        let verdict =
            if pass { "pass (no configured rule fired)".to_owned() } else { format!("{} finding(s)", findings.len()) };
        out.push_str(&format!("{label}{verdict}\n"));
        for f in findings {
            out.push_str(&format!(
                "  {:<20} [{}, {})  {:<12} {}\n",
                f.rule,
                f.span[0],
                f.span[1],
                format!("{:?}", f.text),
                f.why
            ));
        }
    };
    match res {
        Response::One(r) => list("", r.pass, &r.findings),
        Response::Batch(b) => {
            for c in &b.results {
                let label = match &c.id {
                    Some(id) => format!("case {} ({id}): ", c.index),
                    None => format!("case {}: ", c.index),
                };
                list(&label, c.pass, &c.findings);
            }
        }
    }
    out.trim_end().to_owned()
}

fn error_text(e: &Error, pretty: bool) -> String {
    let doc = e.to_json();
    if pretty { serde_json::to_string_pretty(&doc).unwrap_or_else(|_| doc.to_string()) } else { doc.to_string() }
}
