//! The `curbi` command. Arguments are parsed by hand: a few subcommands do not justify a parser dependency.
#![forbid(unsafe_code)]

mod proof_cmd;
mod purchase_cmd;
mod recorder_cmd;
mod regression_cmd;

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;

use curbi::{CheckerVersion, Error, ErrorCode};

const USAGE: &str = "\
curbi: check what an AI agent tells a customer against explicit rules.

Usage:
  curbi check [--pretty] FILE   Check a Check API request body (FILE, or - for stdin) and print the response JSON
  curbi check --explain FILE    The same check, printed for people: one line per finding
  curbi check --keys KEYS [--allow-test] [--now RFC3339] FILE
                                Also verify the record's signed receipts against the receipt keys you trust
                                (a JWKS file; test keys only with --allow-test; a fixed clock with --now;
                                docs/CHECKER.md §Receipts)
  curbi serve [--addr ADDR]     Serve the Check API (POST /v1/check) and MCP (POST /mcp, GET /ai.json) over HTTP
                                (default 127.0.0.1:8787, loopback only; keys and limits: docs/MCP.md)
  curbi lint [--pretty] [--strict] POLICY
                                Lint a policy document: {valid, errors, warnings} (docs/LINT.md)
  curbi export REQUEST --out DIR [--title T] [--checker VERSION] [--force]
                                Run a check request and write it as a CI regression: regression.json,
                                regression.test.mjs (node --test) and test_regression.py (docs/REGRESSION.md);
                                existing files are kept (exit 2) unless --force replaces them; never through a
                                symlink
  curbi replay [--json] REGRESSION
                                Replay regression.json with its pinned checker and diff every case
  curbi purchase MANDATE CHECKOUT [--ledger FILE] [--merchant FILE] [--payment FILE] [--recurring FILE]
                 [--checkout-mandate FILE] [--merchant-keys FILE] [--protocol acp|ucp] [--now RFC3339] [--pretty]
                                Purchase check: ALLOW, DENY or STEP_UP for a checkout against the user's
                                mandate and the ledger of what was spent (docs/PURCHASE.md)
  curbi checkout-digest CHECKOUT
                                The checkout_digest a mandate pins for this checkout (FILE, or - for stdin):
                                SHA-256 over its RFC 8785 form without ap2, unpadded base64url
  curbi action GRANT ACTION [--now RFC3339] [--pretty]
                                Action check: ALLOW, DENY or STEP_UP for one action against a grant
  curbi verify BUNDLE --keys KEYS [--allow-test] [--mode archival|fresh] [--now RFC3339] [--known FILE]...
               [--trust-bundle-keys] [--witness VKEY]... [--witnesses-required K] [--pretty]
                                Verify a curbi.proof/0.1 bundle offline against the keys you trust and print
                                the result {ok, reason, items, head, evidence} (docs/PROOF.md)
  curbi recorder SUBCOMMAND --db DB ...
                                The durable recorder: init, grant, attest, confirm, reconcile, held, checkpoint,
                                bundle, receipt, keys, status (curbi recorder help; docs/RECORDER.md)
  curbi vectors [--out DIR] [--check-file FILE] [--check]
                                Write the Proof of Action vectors (default vectors/proof) and the receipt
                                check vectors (DIR/../check/99-receipts.json when that folder exists, or
                                FILE), or check both
                                against the generator byte for byte
  curbi help | --help           Show this help
  curbi --version               Show the version and the current checker version

check exit status:
  0  every reply passed (no configured rule fired; a pass grants no authority)
  1  at least one finding
  2  invalid input: the error document {\"error\":{\"code\",\"message\",\"path\"}} is printed on stdout
     (or, for an unreadable file or bad arguments, a message on stderr)
  3  internal error (a bug: please report it with the input)
  4  the output could not be written (stdout closed: a broken pipe; or a full disk), for every command
Every command reads at most 256 MiB from one FILE or stdin (CURBI_MAX_INPUT_BYTES sets the limit); a larger
input is refused with exit 2.

lint exit status: 0 valid (warnings allowed; with --strict, none), 1 invalid, 2 unreadable.
export exit status: 0 written, 2 invalid request or unwritable DIR.
replay exit status: 0 every expectation holds, 1 some case differs (a per-case diff is printed), 2 unreadable.
purchase and action exit status: 0 ALLOW, 1 DENY or STEP_UP (the decision document says why; it grants no
  authority by itself), 2 a file that is not JSON, a bad --now (the error document) or an unreadable file.
  --now defaults to the system clock.
verify exit status: 0 verifies, 1 rejected (any other reason, a malformed bundle included), 2 unreadable input
  (a file that cannot be read or is not JSON, a bad key set, option or --known head). In fresh mode --now
  defaults to the system clock. A verified bundle shows what a trusted key signed and logged, not that the
  provider action happened, and grants no authority.
vectors exit status: 0 written or identical, 1 some file differs (--check), 2 DIR cannot be written.

The request format is docs/CHECK_API.md.";

/// Exit status for bad input, bad arguments and unreadable files.
const EXIT_INVALID: u8 = 2;
/// Exit status for a caught panic (a bug).
const EXIT_INTERNAL: u8 = 3;
/// Exit status when the output cannot be written: the reader of stdout went away (a broken pipe) or the disk is
/// full. Not a bug of curbi, so not 3.
const EXIT_OUTPUT: u8 = 4;
/// The largest input curbi reads from one FILE or stdin, in bytes, unless `CURBI_MAX_INPUT_BYTES` says otherwise:
/// a larger one is refused (exit 2) before it is held in memory.
const MAX_INPUT: u64 = 256 * 1024 * 1024;

/// A failed write to stdout: exit [`EXIT_OUTPUT`], with a message on stderr unless the reader simply went away.
pub(crate) fn stdout_failed(e: &io::Error) -> ExitCode {
    if e.kind() != io::ErrorKind::BrokenPipe {
        eprintln!("curbi: cannot write to stdout: {e}");
    }
    ExitCode::from(EXIT_OUTPUT)
}

/// The input cap: `CURBI_MAX_INPUT_BYTES` when set to a whole number, else [`MAX_INPUT`].
fn max_input() -> u64 {
    std::env::var("CURBI_MAX_INPUT_BYTES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(MAX_INPUT)
}

fn main() -> ExitCode {
    // OsString: a FILE path need not be UTF-8.
    let mut args = std::env::args_os().skip(1);
    let Some(command) = args.next() else {
        return usage_error("missing command");
    };
    let rest: Vec<OsString> = args.collect();
    match command.to_str() {
        Some("check") => check_command(&rest),
        Some("serve") => serve_command(&rest),
        Some("lint") => regression_cmd::lint_command(&rest),
        Some("export") => regression_cmd::export_command(&rest),
        Some("replay") => regression_cmd::replay_command(&rest),
        Some("purchase") => purchase_cmd::purchase_command(&rest),
        Some("action") => purchase_cmd::action_command(&rest),
        Some("checkout-digest") => purchase_cmd::checkout_digest_command(&rest),
        Some("verify") => proof_cmd::verify_command(&rest),
        Some("vectors") => proof_cmd::vectors_command(&rest),
        Some("recorder") => recorder_cmd::recorder_command(&rest),
        Some("help" | "--help" | "-h") => print_out(USAGE),
        Some("--version" | "-V" | "version") => {
            print_out(&format!("curbi {} (checker {})", env!("CARGO_PKG_VERSION"), CheckerVersion::CURRENT.as_str()))
        }
        _ => usage_error(&format!("unknown command {}", command.to_string_lossy())),
    }
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("curbi: {msg}\n\n{USAGE}");
    ExitCode::from(EXIT_INVALID)
}

/// Reads FILE, or stdin for `-`, up to the input cap ([`max_input`]). An unreadable file or one over the cap is a
/// message on stderr and exit 2; nothing past the cap is read.
fn read_file(file: &OsString) -> Result<Vec<u8>, ExitCode> {
    let cap = max_input();
    let read = |r: &mut dyn Read| -> io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        r.take(cap.saturating_add(1)).read_to_end(&mut buf)?;
        if buf.len() as u64 > cap {
            let m = format!("larger than {cap} bytes (the input limit; CURBI_MAX_INPUT_BYTES sets it)");
            return Err(io::Error::new(io::ErrorKind::InvalidData, m));
        }
        Ok(buf)
    };
    let body = if file == "-" {
        read(&mut io::stdin().lock())
    } else {
        std::fs::File::open(PathBuf::from(file)).and_then(|mut f| read(&mut f))
    };
    body.map_err(|e| {
        eprintln!("curbi: cannot read {}: {e}", file.to_string_lossy());
        ExitCode::from(EXIT_INVALID)
    })
}

fn print_out(text: &str) -> ExitCode {
    print_status(text, 0)
}

/// `text` on stdout, then exit `status`; exit [`EXIT_OUTPUT`] if it cannot be written.
pub(crate) fn print_status(text: &str, status: u8) -> ExitCode {
    match write_out(text) {
        Ok(()) => ExitCode::from(status),
        Err(e) => stdout_failed(&e),
    }
}

/// `text` and a newline on stdout, flushed, so a full disk is seen here and not lost at exit.
fn write_out(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()
}

fn check_command(args: &[OsString]) -> ExitCode {
    let mut pretty = false;
    let mut explain = false;
    let mut file: Option<&OsString> = None;
    let mut flags_done = false;
    let (mut keys, mut allow_test, mut now): (Option<&OsString>, bool, Option<String>) = (None, false, None);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.to_str() {
            Some("--pretty") if !flags_done => pretty = true,
            Some("--explain") if !flags_done => explain = true,
            Some("--allow-test") if !flags_done => allow_test = true,
            Some("--keys") if !flags_done => match it.next() {
                Some(k) => keys = Some(k),
                None => return usage_error("check: --keys needs a KEYS file (a JWKS)"),
            },
            Some("--now") if !flags_done => match it.next().and_then(|n| n.to_str()) {
                Some(n) => now = Some(n.to_owned()),
                None => return usage_error("check: --now needs an RFC 3339 date-time"),
            },
            Some("--help" | "-h") if !flags_done => return print_out(USAGE),
            Some("--") if !flags_done => flags_done = true,
            // "-" is stdin, not a flag.
            Some(s) if !flags_done && s.starts_with('-') && s != "-" => {
                return usage_error(&format!("check: unknown option {s}"));
            }
            _ if file.is_some() => return usage_error("check takes exactly one FILE"),
            _ => file = Some(arg),
        }
    }
    let Some(file) = file else {
        return usage_error("check needs a FILE (or - for stdin)");
    };

    if keys.is_none() && (allow_test || now.is_some()) {
        return usage_error("check: --allow-test and --now configure receipt keys; give them with --keys KEYS");
    }
    let verifier = match keys.map(|k| receipt_verifier(k, allow_test, now.as_deref())).transpose() {
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
        Err(_) => {
            let e = Error::new(
                ErrorCode::Internal,
                "",
                "the checker failed on this request; this is a bug, please report it with the input",
            );
            (error_text(&e, pretty), EXIT_INTERNAL)
        }
    };
    print_status(&out, status)
}

/// The receipt keys of `curbi check --keys`: the JWKS file, whether test keys count, and the clock.
fn receipt_verifier(
    keys: &OsString,
    allow_test: bool,
    now: Option<&str>,
) -> Result<std::sync::Arc<curbi::api::ReceiptVerifier>, ExitCode> {
    let bytes = read_file(keys)?;
    let name = keys.to_string_lossy();
    let jwks: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("curbi: {name}: not a JWKS document: {e}");
            return Err(ExitCode::from(EXIT_INVALID));
        }
    };
    let mut config = serde_json::json!({ "keys": jwks, "allowTest": allow_test });
    if let Some(n) = now {
        config["now"] = serde_json::Value::String(n.to_owned());
    }
    let text = config.to_string();
    match curbi::api::ReceiptVerifier::from_json(text.as_bytes()) {
        Ok(v) => Ok(std::sync::Arc::new(v)),
        Err(e) => {
            // Paths inside the key file are under /keys; the clock's is --now.
            let at = if e.path == "/now" {
                "--now".to_owned()
            } else {
                format!("{name} at {}", &e.path["/keys".len().min(e.path.len())..])
            };
            eprintln!("curbi: receipt keys: {at}: {} ({})", e.message, e.code.as_str());
            Err(ExitCode::from(EXIT_INVALID))
        }
    }
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

/// Parses `--addr` and runs the server crate (`curbi-mcp`), which holds every route.
fn serve_command(args: &[OsString]) -> ExitCode {
    let mut addr = curbi_mcp::DEFAULT_ADDR.to_owned();
    let mut it = args.iter().map(|a| a.to_str());
    while let Some(arg) = it.next() {
        match arg {
            Some("--addr") => match it.next() {
                Some(Some(a)) => a.clone_into(&mut addr),
                _ => return usage_error("serve: --addr needs HOST:PORT"),
            },
            Some("--help" | "-h") => return print_out(USAGE),
            Some(a) => match a.strip_prefix("--addr=") {
                Some(v) => v.clone_into(&mut addr),
                None => return usage_error(&format!("serve: unknown argument {a}")),
            },
            None => return usage_error("serve: arguments must be UTF-8"),
        }
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("curbi: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(curbi_mcp::run(addr.as_str())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("curbi: cannot serve on {addr}: {e}");
            ExitCode::FAILURE
        }
    }
}
