//! `curbi purchase` and `curbi action`: the purchase check and the action check (docs/PURCHASE.md). The decision is
//! all in core (`curbi::purchase`); this file reads the documents, supplies `now` from the clock when not given,
//! prints the decision and maps it to an exit status.

use std::ffi::OsString;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use curbi::purchase::{self, Decision, Verdict};
use curbi::time::Timestamp;
use curbi::{Error, ErrorCode};
use serde_json::{Map, Value};

use super::{EXIT_INTERNAL, EXIT_INVALID, print_out, read_file, usage_error};

/// Exit status for DENY and STEP_UP: the host must not go ahead.
const EXIT_NOT_ALLOWED: u8 = 1;

/// What the arguments of either command name.
struct Args {
    /// (member of the request, FILE) in request order.
    files: Vec<(&'static str, OsString)>,
    now: Option<String>,
    /// `--protocol`: the request's `protocol` (`acp` or `ucp`), checked by core.
    protocol: Option<String>,
    pretty: bool,
}

/// The purchase request's optional members read from files: (option, request member).
const PURCHASE_FILES: &[(&str, &str)] = &[
    ("--ledger", "ledger"),
    ("--merchant", "merchant"),
    ("--payment", "payment"),
    ("--recurring", "recurring"),
    ("--checkout-mandate", "checkout_mandate"),
    ("--merchant-keys", "merchant_keys"),
];

/// Parses `POSITIONAL... [--FILE-OPTION FILE]... [--protocol NAME] [--now RFC3339] [--pretty]`; options may come
/// anywhere before `--`.
fn parse_args(
    cmd: &str,
    args: &[OsString],
    positional: &[&'static str],
    file_options: &[(&str, &'static str)],
) -> Result<Option<Args>, ExitCode> {
    let mut out = Args { files: Vec::new(), now: None, protocol: None, pretty: false };
    let mut given: Vec<OsString> = Vec::new();
    let mut optional: Vec<(&'static str, OsString)> = Vec::new();
    let mut it = args.iter();
    let mut flags_done = false;
    while let Some(arg) = it.next() {
        let text = arg.to_str();
        if flags_done || text.is_none_or(|s| s == "-" || !s.starts_with('-')) {
            given.push(arg.clone());
            continue;
        }
        let s = text.unwrap_or_default();
        let (name, inline) = match s.split_once('=') {
            Some((n, v)) => (n, Some(v.to_owned())),
            None => (s, None),
        };
        let mut value = |flag: &str| -> Result<OsString, ExitCode> {
            match inline.clone().map(OsString::from).or_else(|| it.next().cloned()) {
                Some(v) => Ok(v),
                None => Err(usage_error(&format!("{cmd}: {flag} needs a value"))),
            }
        };
        match name {
            "--" => flags_done = true,
            "--help" | "-h" => return Ok(None),
            "--pretty" if inline.is_none() => out.pretty = true,
            "--protocol" if !file_options.is_empty() => match value("--protocol")?.into_string() {
                Ok(v) => out.protocol = Some(v),
                Err(_) => return Err(usage_error(&format!("{cmd}: --protocol must be UTF-8"))),
            },
            flag if file_options.iter().any(|(f, _)| *f == flag) => {
                let member = file_options.iter().find(|(f, _)| *f == flag).map_or("", |(_, m)| *m);
                if optional.iter().any(|(m, _)| *m == member) {
                    return Err(usage_error(&format!("{cmd}: {flag} given twice")));
                }
                optional.push((member, value(flag)?));
            }
            "--now" => match value("--now")?.into_string() {
                Ok(v) => out.now = Some(v),
                Err(_) => return Err(usage_error(&format!("{cmd}: --now must be UTF-8"))),
            },
            _ => return Err(super::unknown_option(cmd, s)),
        }
    }
    if given.len() != positional.len() {
        let names = positional.iter().map(|p| p.to_uppercase()).collect::<Vec<_>>().join(" ");
        return Err(usage_error(&format!("{cmd} takes {names} (got {} file argument(s))", given.len())));
    }
    out.files = positional.iter().copied().zip(given).collect();
    out.files.extend(optional);
    if out.files.iter().filter(|(_, f)| f == "-").count() > 1 {
        return Err(usage_error(&format!("{cmd}: at most one input can be - (stdin)")));
    }
    Ok(Some(out))
}

fn print_doc(doc: &Value, pretty: bool, status: u8) -> ExitCode {
    let text =
        if pretty { serde_json::to_string_pretty(doc).unwrap_or_else(|_| doc.to_string()) } else { doc.to_string() };
    print_text(&text, status)
}

fn print_text(text: &str, status: u8) -> ExitCode {
    super::print_status(text, status)
}

fn print_error(e: &Error, pretty: bool, status: u8) -> ExitCode {
    print_doc(&e.to_json(), pretty, status)
}

/// `now` from `--now` (strict RFC 3339), else the system clock.
fn now_value(now: Option<&str>, pretty: bool) -> Result<Value, ExitCode> {
    match now {
        Some(s) => match Timestamp::parse(s) {
            Ok(_) => Ok(Value::String(s.to_owned())),
            Err(_) => {
                let e = Error::new(
                    ErrorCode::InvalidValue,
                    "/now",
                    format!("--now {s:?} is not an RFC 3339 date-time such as 2026-11-20T12:00:00Z"),
                );
                Err(print_error(&e, pretty, EXIT_INVALID))
            }
        },
        None => {
            let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
            let secs = i64::try_from(since.as_secs()).unwrap_or(i64::MAX);
            let ts = Timestamp::from_unix(secs, since.subsec_nanos());
            Ok(Value::String(ts.map(|t| t.to_rfc3339()).unwrap_or_default()))
        }
    }
}

/// Reads every file into the request document; a file that is not JSON is the `invalid_json` error document with
/// the request member as its path (`/mandate`), exit 2.
fn build_request(a: &Args) -> Result<Value, ExitCode> {
    let mut request = Map::new();
    for (member, file) in &a.files {
        // A key file is read as keys are and named by its option, never by its path (cli/src/files.rs).
        let key_option = (*member == "merchant_keys").then_some("--merchant-keys");
        let bytes = match key_option {
            Some(option) => crate::files::read_key(option, file)?,
            None => read_file(file)?,
        };
        let shown = key_option.map_or_else(|| file.to_string_lossy(), std::borrow::Cow::Borrowed);
        // The strict reader: a repeated member is refused at its pointer inside the request, like bad syntax.
        let value: Value = curbi::json::read(&bytes).map_err(|e| {
            let err = Error::new(
                e.code,
                format!("/{member}{}", e.path),
                format!("{} ({shown}) cannot be read: {}", member.to_uppercase(), e.message),
            );
            print_error(&err, a.pretty, EXIT_INVALID)
        })?;
        request.insert((*member).to_owned(), value);
    }
    if let Some(p) = &a.protocol {
        request.insert("protocol".to_owned(), Value::String(p.clone()));
    }
    request.insert("now".to_owned(), now_value(a.now.as_deref(), a.pretty)?);
    Ok(Value::Object(request))
}

/// Decides, turning a panic (a bug) into the `internal` error document and exit 3; prints the decision.
fn decide(request: &Value, pretty: bool, f: fn(&Value) -> Decision) -> ExitCode {
    match panic::catch_unwind(AssertUnwindSafe(|| f(request))) {
        Ok(d) => {
            let status = if d.verdict() == Verdict::Allow { 0 } else { EXIT_NOT_ALLOWED };
            // The decision's own serialisation keeps the documented member order.
            print_text(&if pretty { d.to_json_pretty() } else { d.to_json_string() }, status)
        }
        Err(_) => {
            let e = Error::new(
                ErrorCode::Internal,
                "",
                "the checker failed on this input; this is a bug, please report it with the input",
            );
            print_error(&e, pretty, EXIT_INTERNAL)
        }
    }
}

fn run(
    cmd: &str,
    args: &[OsString],
    positional: &[&'static str],
    file_options: &[(&str, &'static str)],
    f: fn(&Value) -> Decision,
) -> ExitCode {
    let parsed = match parse_args(cmd, args, positional, file_options) {
        Ok(Some(a)) => a,
        Ok(None) => return print_out(super::USAGE),
        Err(code) => return code,
    };
    match build_request(&parsed) {
        Ok(request) => decide(&request, parsed.pretty, f),
        Err(code) => code,
    }
}

/// `curbi purchase MANDATE CHECKOUT [--ledger FILE] [--now RFC3339] [--pretty]`
pub(crate) fn purchase_command(args: &[OsString]) -> ExitCode {
    run("purchase", args, &["mandate", "checkout"], PURCHASE_FILES, purchase::verify_checkout_request)
}

/// `curbi action GRANT ACTION [--now RFC3339] [--pretty]`
pub(crate) fn action_command(args: &[OsString]) -> ExitCode {
    run("action", args, &["grant", "action"], &[], purchase::verify_action_request)
}

/// `curbi checkout-digest CHECKOUT|-`: the `checkout_digest` a mandate pins for this checkout (unpadded base64url of
/// SHA-256 over its RFC 8785 form without `ap2`), computed by core as the purchase check computes it.
pub(crate) fn checkout_digest_command(args: &[OsString]) -> ExitCode {
    let [file] = args else { return usage_error("checkout-digest takes CHECKOUT (a file, or - for stdin)") };
    if file == "--help" || file == "-h" {
        return print_out(super::USAGE);
    }
    let bytes = match read_file(file) {
        Ok(b) => b,
        Err(code) => return code,
    };
    // Read by the strict reader, as the purchase check reads the checkout: a repeated member is refused, not hashed.
    match curbi::api::checkout_digest(&bytes) {
        Ok(digest) => print_text(&digest, 0),
        Err(e) => {
            let message = format!("CHECKOUT ({}) cannot be read: {}", file.to_string_lossy(), e.message);
            print_error(&Error::new(e.code, format!("/checkout{}", e.path), message), false, EXIT_INVALID)
        }
    }
}
