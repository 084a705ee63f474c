//! The `curbi` command. Arguments are parsed by hand: a few subcommands do not justify a parser dependency.
#![forbid(unsafe_code)]

// Before the modules, so that they can use it. A diagnostic on stderr never decides the exit status: with stderr
// closed or on a full disk it is lost, where `eprintln!` would panic and exit as a bug (issue 43).
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod check_cmd;
mod files;
mod proof_cmd;
mod purchase_cmd;
mod recorder_cmd;
mod regression_cmd;

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use curbi::CheckerVersion;

// Each command's help is its usage lines and its exit statuses; `curbi help` is all of them, `curbi CMD --help` its
// own. Macros, so that both are put together at compile time from one text.
macro_rules! check_usage {
    () => {
        "  curbi check [--pretty] FILE   Check a Check API request body (FILE, or - for stdin) and print the response JSON
  curbi check --explain FILE    The same check, printed for people: one line per finding
  curbi check --keys KEYS [--allow-test] [--now RFC3339] FILE
                                Also verify the record's signed receipts against the receipt keys you trust
                                (a JWKS file; test keys only with --allow-test; a fixed clock with --now;
                                docs/CHECKER.md \u{a7}Receipts)
  curbi check --policy POLICY --jsonl IN [--record FILE] [--checker VERSION]
                                Check every line of IN (JSON Lines, or - for stdin), each a case {id?, reply,
                                record?}, against one policy, on every core: one result per line, in order
"
    };
}
macro_rules! check_status {
    () => {
        "check exit status:
  0  every reply passed (no configured rule fired; a pass grants no authority)
  1  at least one finding
  2  invalid input: the error document {\"error\":{\"code\",\"message\",\"path\"}} is printed on stdout
     (or, for an unreadable file or bad arguments, a message on stderr); with --jsonl, a line that is not a
     valid case is its own error line {\"index\",\"error\"} and the others are still checked
  3  internal error (a bug: please report it with the input)
  4  the output could not be written (stdout closed: a broken pipe; or a full disk), for every command
Every command reads at most 256 MiB from one FILE or stdin (CURBI_MAX_INPUT_BYTES sets the limit); a larger
input is refused with exit 2.
--jsonl: each output line is {\"index\",\"id\"?,\"pass\",\"findings\"} (index: the line's 0-based position in IN;
  blank lines are skipped but counted); a summary goes to stderr, and a progress line too when stderr is a
  terminal. The request format is docs/CHECK_API.md.
"
    };
}
macro_rules! serve_usage {
    () => {
        "  curbi serve [--addr ADDR]     Serve the Check API (POST /v1/check) and MCP (POST /mcp, GET /ai.json) over HTTP
                                (default 127.0.0.1:8787, loopback only; keys and limits: docs/MCP.md)
"
    };
}
macro_rules! mcp_usage {
    () => {
        "  curbi mcp --stdio             Serve MCP over stdin/stdout (newline-delimited JSON-RPC) for clients that start a
                                command: the same tools and protocol versions as POST /mcp; keyed tools need
                                CURBI_MCP_KEY (docs/MCP.md)
"
    };
}
macro_rules! lint_usage {
    () => {
        "  curbi lint [--pretty] [--strict] POLICY
                                Lint a policy document: {valid, errors, warnings} (docs/LINT.md)
"
    };
}
macro_rules! lint_status {
    () => {
        "lint exit status: 0 valid (warnings allowed; with --strict, none), 1 invalid, 2 unreadable.\n"
    };
}
macro_rules! export_usage {
    () => {
        "  curbi export REQUEST --out DIR [--title T] [--checker VERSION] [--force]
                                Run a check request and write it as a CI regression: regression.json,
                                regression.test.mjs (node --test) and test_regression.py (docs/REGRESSION.md);
                                existing files are kept (exit 2) unless --force replaces them; never through a
                                symlink
"
    };
}
macro_rules! export_status {
    () => {
        "export exit status: 0 written, 2 invalid request or unwritable DIR.\n"
    };
}
macro_rules! replay_usage {
    () => {
        "  curbi replay [--json] REGRESSION
                                Replay regression.json with its pinned checker and diff every case
"
    };
}
macro_rules! replay_status {
    () => {
        "replay exit status: 0 every expectation holds, 1 some case differs (a per-case diff is printed), 2 unreadable.\n"
    };
}
macro_rules! purchase_usage {
    () => {
        "  curbi purchase MANDATE CHECKOUT [--ledger FILE] [--merchant FILE] [--payment FILE] [--recurring FILE]
                 [--checkout-mandate FILE] [--merchant-keys FILE] [--protocol acp|ucp] [--now RFC3339] [--pretty]
                                Purchase check: ALLOW, DENY or STEP_UP for a checkout against the user's
                                mandate and the ledger of what was spent (docs/PURCHASE.md)
"
    };
}
macro_rules! digest_usage {
    () => {
        "  curbi checkout-digest CHECKOUT
                                The checkout_digest a mandate pins for this checkout (FILE, or - for stdin):
                                SHA-256 over its RFC 8785 form without ap2, unpadded base64url
"
    };
}
macro_rules! action_usage {
    () => {
        "  curbi action GRANT ACTION [--now RFC3339] [--pretty]
                                Action check: ALLOW, DENY or STEP_UP for one action against a grant
"
    };
}
macro_rules! purchase_status {
    () => {
        "purchase and action exit status: 0 ALLOW, 1 DENY or STEP_UP (the decision document says why; it grants no
  authority by itself), 2 a file that is not JSON, a bad --now (the error document) or an unreadable file.
  --now defaults to the system clock.
"
    };
}
macro_rules! verify_usage {
    () => {
        "  curbi verify BUNDLE --keys KEYS [--allow-test] [--mode archival|fresh] [--now RFC3339] [--known FILE]...
               [--trust-bundle-keys] [--witness VKEY]... [--witnesses-required K] [--pretty]
                                Verify a curbi.proof/0.1 bundle offline against the keys you trust and print
                                the result {ok, reason, items, head, evidence} (docs/PROOF.md)
"
    };
}
macro_rules! verify_status {
    () => {
        "verify exit status: 0 verifies, 1 rejected (any other reason, a malformed bundle included), 2 unreadable input
  (a file that cannot be read or is not JSON, a bad key set, option or --known head). In fresh mode --now
  defaults to the system clock. A verified bundle shows what a trusted key signed and logged, not that the
  provider action happened, and grants no authority.
"
    };
}
macro_rules! recorder_usage {
    () => {
        "  curbi recorder SUBCOMMAND --db DB ...
                                The durable recorder: init, grant, attest, confirm, reconcile, held, checkpoint,
                                bundle, receipt, keys, status, publish, cosign (curbi recorder help;
                                docs/RECORDER.md)
  curbi tiles bundle --from DIR --index N...
                                A bundle from a log published as C2SP tiles alone (curbi tiles help)
"
    };
}
macro_rules! vectors_usage {
    () => {
        "  curbi vectors [--out DIR] [--check-file FILE] [--check]
                                Write the Proof of Action vectors (default vectors/proof) and the receipt
                                check vectors (DIR/../check/99-receipts.json when that folder exists, or
                                FILE), or check both against the generator byte for byte
"
    };
}
macro_rules! vectors_status {
    () => {
        "vectors exit status: 0 written or identical, 1 some file differs (--check), 2 DIR cannot be written.\n"
    };
}
macro_rules! files_note {
    () => {
        "
Files named *.yaml or *.yml are read as YAML wherever a JSON document is read (policies, requests, mandates...);
the JSON they stand for is read as strictly as JSON (docs/YAML.md). stdin (-) is always JSON.
"
    };
}

const USAGE: &str = concat!(
    "curbi: check what an AI agent tells a customer against explicit rules.\n\nUsage:\n",
    check_usage!(),
    serve_usage!(),
    mcp_usage!(),
    lint_usage!(),
    export_usage!(),
    replay_usage!(),
    purchase_usage!(),
    digest_usage!(),
    action_usage!(),
    verify_usage!(),
    recorder_usage!(),
    vectors_usage!(),
    "  curbi help | --help           Show this help (curbi COMMAND --help: that command's)
  curbi --version               Show the version and the current checker version

",
    check_status!(),
    "\n",
    lint_status!(),
    export_status!(),
    replay_status!(),
    purchase_status!(),
    verify_status!(),
    vectors_status!(),
    files_note!(),
);

/// `curbi COMMAND --help`: that command's usage and exit statuses (recorder has its own, longer help).
fn command_help(command: &str) -> Option<&'static str> {
    Some(match command {
        "check" => concat!("Usage:\n", check_usage!(), "\n", check_status!(), files_note!()),
        "serve" => concat!("Usage:\n", serve_usage!()),
        "mcp" => concat!("Usage:\n", mcp_usage!()),
        "lint" => concat!("Usage:\n", lint_usage!(), "\n", lint_status!(), files_note!()),
        "export" => concat!("Usage:\n", export_usage!(), "\n", export_status!(), files_note!()),
        "replay" => concat!("Usage:\n", replay_usage!(), "\n", replay_status!(), files_note!()),
        "purchase" => concat!("Usage:\n", purchase_usage!(), "\n", purchase_status!(), files_note!()),
        "action" => concat!("Usage:\n", action_usage!(), "\n", purchase_status!(), files_note!()),
        "checkout-digest" => concat!("Usage:\n", digest_usage!(), files_note!()),
        "verify" => concat!("Usage:\n", verify_usage!(), "\n", verify_status!(), files_note!()),
        "vectors" => concat!("Usage:\n", vectors_usage!(), "\n", vectors_status!()),
        "recorder" => recorder_cmd::USAGE,
        "tiles" => recorder_cmd::TILES_USAGE,
        _ => return None,
    })
}

/// Every command's name, for "did you mean".
const COMMANDS: &[&str] = &[
    "check",
    "serve",
    "mcp",
    "lint",
    "export",
    "replay",
    "purchase",
    "action",
    "checkout-digest",
    "verify",
    "recorder",
    "tiles",
    "vectors",
    "help",
    "version",
];

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
        note!("curbi: cannot write to stdout: {e}");
    }
    ExitCode::from(EXIT_OUTPUT)
}

/// A file a command writes could not be written: exit [`EXIT_OUTPUT`] when the writing itself failed (a full disk,
/// a broken pipe), as for stdout; [`EXIT_INVALID`] for a path that cannot be opened or made (a bad argument).
pub(crate) fn file_write_failed(path: &std::path::Path, e: &io::Error) -> ExitCode {
    note!("curbi: cannot write {}: {e}", path.display());
    let output = matches!(e.kind(), io::ErrorKind::StorageFull | io::ErrorKind::BrokenPipe);
    ExitCode::from(if output { EXIT_OUTPUT } else { EXIT_INVALID })
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
    let name = command.to_str().unwrap_or("");
    // `curbi CMD --help` (before any `--`): that command's help. The recorder reads its own subcommands' help.
    if name != "recorder"
        && name != "tiles"
        && rest.iter().take_while(|a| *a != "--").any(|a| a == "--help" || a == "-h")
    {
        if let Some(help) = command_help(name) {
            return print_out(help.trim_end());
        }
    }
    match name {
        "check" => check_cmd::check_command(&rest),
        "serve" => serve_command(&rest),
        "mcp" => mcp_command(&rest),
        "lint" => regression_cmd::lint_command(&rest),
        "export" => regression_cmd::export_command(&rest),
        "replay" => regression_cmd::replay_command(&rest),
        "purchase" => purchase_cmd::purchase_command(&rest),
        "action" => purchase_cmd::action_command(&rest),
        "checkout-digest" => purchase_cmd::checkout_digest_command(&rest),
        "verify" => proof_cmd::verify_command(&rest),
        "vectors" => proof_cmd::vectors_command(&rest),
        "recorder" => recorder_cmd::recorder_command(&rest),
        "tiles" => recorder_cmd::tiles_command(&rest),
        "help" | "--help" | "-h" => match rest.first().and_then(|c| c.to_str()).and_then(command_help) {
            Some(help) => print_out(help.trim_end()),
            None => print_out(USAGE.trim_end()),
        },
        "--version" | "-V" | "version" => {
            print_out(&format!("curbi {} (checker {})", env!("CARGO_PKG_VERSION"), CheckerVersion::CURRENT.as_str()))
        }
        _ => {
            let lossy = command.to_string_lossy();
            let shown = curbi::error::excerpt(&lossy);
            match curbi::suggest::closest(&shown, COMMANDS) {
                Some(s) => usage_error(&format!("unknown command {shown}: did you mean '{s}'?")),
                None => usage_error(&format!("unknown command {shown}")),
            }
        }
    }
}

fn usage_error(msg: &str) -> ExitCode {
    note!("curbi: {msg}\n\n{}", USAGE.trim_end());
    ExitCode::from(EXIT_INVALID)
}

/// `CMD: unknown option NAME`: the option's name only (an `=VALUE` may be a key, pasted where a path belongs, so it
/// is never repeated), quoted as a bounded excerpt.
pub(crate) fn unknown_option(cmd: &str, arg: &str) -> ExitCode {
    let name = arg.split_once('=').map_or(arg, |(name, _)| name);
    usage_error(&format!("{cmd}: unknown option {}", curbi::error::excerpt(name)))
}

/// Reads FILE, or stdin for `-`, up to the input cap ([`max_input`]). An unreadable file or one over the cap is a
/// message on stderr and exit 2; nothing past the cap is read. A file named `*.yaml` or `*.yml` is read as YAML and
/// handed on as the JSON text it stands for (core's `yaml` module), so every command reads it with the same strict
/// reader; YAML that JSON cannot hold is the error document on stdout and exit 2.
fn read_file(file: &OsString) -> Result<Vec<u8>, ExitCode> {
    read_document(file).map(|(json, _)| json)
}

/// [`read_file`], and the YAML text when FILE is YAML: later errors name only a JSON pointer, which the YAML's line
/// and column are found for (`curbi::yaml::positions`).
fn read_document(file: &OsString) -> Result<(Vec<u8>, Option<String>), ExitCode> {
    let cap = max_input();
    let body = if file == "-" {
        files::read_capped(&mut io::stdin().lock(), cap)
    } else {
        std::fs::File::open(PathBuf::from(file)).and_then(|mut f| files::read_capped(&mut f, cap))
    };
    let body = body.map_err(|e| {
        note!("curbi: cannot read {}: {e}", file.to_string_lossy());
        ExitCode::from(EXIT_INVALID)
    })?;
    if file == "-" || !is_yaml(file) {
        return Ok((body, None));
    }
    match curbi::json::utf8(&body).and_then(|text| Ok((curbi::yaml::to_json(text)?, text))) {
        Ok((json, text)) => Ok((json.into_bytes(), Some(text.to_owned()))),
        Err(e) => Err(print_status(&e.to_json().to_string(), EXIT_INVALID)),
    }
}

/// Whether a path names a YAML file, by its extension.
fn is_yaml(file: &OsString) -> bool {
    let ext = std::path::Path::new(file).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    matches!(ext.as_deref(), Some("yaml" | "yml"))
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

/// `curbi mcp --stdio`: the MCP dispatcher of the server crate on stdin and stdout, configured from the same
/// environment as `curbi serve` (keys, limits, recorder), the caller's key from `CURBI_MCP_KEY`.
fn mcp_command(args: &[OsString]) -> ExitCode {
    match args {
        [a] if a == "--stdio" => {}
        [] => return usage_error("mcp needs --stdio (for MCP over HTTP, run curbi serve)"),
        _ => return usage_error("mcp takes only --stdio"),
    }
    let config = match curbi_mcp::Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            note!("curbi: {e}");
            return ExitCode::from(EXIT_INVALID);
        }
    };
    let key = std::env::var("CURBI_MCP_KEY").ok().filter(|k| !k.trim().is_empty());
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            note!("curbi: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(curbi_mcp::stdio::run(config, key)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(curbi_mcp::stdio::StdioError::Output(e)) => stdout_failed(&e),
        Err(e) => {
            note!("curbi: mcp --stdio: {e}");
            ExitCode::FAILURE
        }
    }
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
                None => return usage_error(&format!("serve: unknown argument {}", curbi::error::excerpt(a))),
            },
            None => return usage_error("serve: arguments must be UTF-8"),
        }
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            note!("curbi: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(curbi_mcp::run(addr.as_str())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            note!("curbi: cannot serve on {addr}: {e}");
            ExitCode::FAILURE
        }
    }
}
