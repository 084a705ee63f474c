//! `curbi check`: one Check API request (`FILE`), or a JSON Lines file of cases against one policy (`--policy P
//! --jsonl IN`), checked on every core and streamed back one result per line in input order.
//!
//! Arguments are read into [`CheckArgs`] first and each mode runs from it, so a new flag is one field, one arm in
//! [`parse`] and its use where the checks are prepared ([`jsonl::Prepared`]).

use std::ffi::OsString;

use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use curbi::{Error, ErrorCode};

use super::{EXIT_INTERNAL, EXIT_INVALID, print_status, read_file, usage_error};

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
    /// `--keys KEYS`: the receipt keys (a JWKS file) the record's signed receipts are verified with.
    keys: Option<&'a OsString>,
    /// `--allow-test`: test-tagged receipt keys count.
    allow_test: bool,
    /// `--now RFC3339`: a fixed clock for receipts' expiry.
    now: Option<&'a str>,
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
                Some("--keys") => a.keys = Some(value("--keys")?),
                Some("--allow-test") => a.allow_test = true,
                Some("--now") => {
                    let v = value("--now")?;
                    a.now = Some(v.to_str().ok_or_else(|| usage_error("check: --now must be UTF-8"))?);
                }
                // "-" is stdin, not a flag.
                Some(f) if f.starts_with('-') && f != "-" => return Err(super::unknown_option("check", f)),
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
        _ if a.keys.is_none() && (a.allow_test || a.now.is_some()) => {
            usage_error("check: --allow-test and --now configure receipt keys; give them with --keys KEYS")
        }
        (None, None, Some(file)) => check_request(file, &a),
        (None, None, None) => usage_error("check needs a FILE (or - for stdin)"),
    }
}

/// `curbi check FILE`: one Check API request, its receipts verified with `--keys` when given.
fn check_request(file: &OsString, a: &CheckArgs<'_>) -> ExitCode {
    let (pretty, explain) = (a.pretty, a.explain);
    let verifier = match a.keys.map(|k| receipt_verifier(k, a.allow_test, a.now)).transpose() {
        Ok(v) => v,
        Err(status) => return status,
    };
    let body = match read_file(file) {
        Ok(b) => b,
        Err(status) => return status,
    };

    // A checker panic is a bug; report it as the `internal` error document instead of a bare crash.
    let run = || curbi::api::check_json_with(&body, verifier.as_ref());
    let (out, status) = match panic::catch_unwind(AssertUnwindSafe(run)) {
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
    print_status(&out, status)
}

/// The receipt keys of `curbi check --keys`: the JWKS file, whether test keys count, and the clock.
pub(super) fn receipt_verifier(
    keys: &OsString,
    allow_test: bool,
    now: Option<&str>,
) -> Result<std::sync::Arc<curbi::api::ReceiptVerifier>, ExitCode> {
    // The file's name is never shown: --keys may hold a key itself (cli/src/files.rs).
    let bytes = crate::files::read_key("--keys", keys)?;
    let jwks: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            note!("curbi: --keys: not a JWKS document: {e}");
            return Err(ExitCode::from(EXIT_INVALID));
        }
    };
    let mut config = serde_json::json!({ "keys": jwks, "allowTest": allow_test });
    if let Some(n) = now {
        config["now"] = serde_json::Value::String(n.to_owned());
    }
    match curbi::api::ReceiptVerifier::from_json(config.to_string().as_bytes()) {
        Ok(v) => Ok(std::sync::Arc::new(v)),
        Err(e) => {
            // Paths inside the key file are under /keys; the clock's is --now.
            let at = if e.path == "/now" {
                "--now".to_owned()
            } else {
                format!("--keys at {}", &e.path["/keys".len().min(e.path.len())..])
            };
            note!("curbi: receipt keys: {at}: {} ({})", e.message, e.code.as_str());
            Err(ExitCode::from(EXIT_INVALID))
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
