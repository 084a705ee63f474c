//! `curbi lint`, `curbi export` and `curbi replay`: policy lint and CI regressions (docs/LINT.md,
//! docs/REGRESSION.md). The work is all in core (`curbi::lint`, `curbi::regression`); this file reads files, writes
//! files and maps results to exit statuses.

use std::ffi::OsString;
use std::io::{self, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::process::ExitCode;

use curbi::regression::{self, Regression};
use curbi::{CheckerVersion, Error, ErrorCode};
use serde_json::Value;

use super::{EXIT_INTERNAL, EXIT_INVALID, print_out, read_file, usage_error};

/// Exit status when the policy is invalid (lint) or an expectation no longer holds (replay).
const EXIT_FAILED: u8 = 1;

/// Reads a document with the strict reader; one it refuses (bad syntax, a repeated member) is the error document
/// on stdout and exit 2.
fn parse_json(bytes: &[u8], pretty: bool) -> Result<Value, ExitCode> {
    curbi::json::read(bytes).map_err(|e| print_error(&e, pretty, EXIT_INVALID))
}

fn print_error(e: &Error, pretty: bool, status: u8) -> ExitCode {
    let doc = e.to_json();
    let text =
        if pretty { serde_json::to_string_pretty(&doc).unwrap_or_else(|_| doc.to_string()) } else { doc.to_string() };
    print_status(&text, status)
}

fn print_status(text: &str, status: u8) -> ExitCode {
    super::print_status(text, status)
}

/// Runs core work, turning a panic (a bug) into the `internal` error document and exit 3.
fn guarded<T>(pretty: bool, f: impl FnOnce() -> T) -> Result<T, ExitCode> {
    panic::catch_unwind(AssertUnwindSafe(f)).map_err(|_| {
        let e = Error::new(
            ErrorCode::Internal,
            "",
            "curbi failed on this input; this is a bug, please report it with the input",
        );
        print_error(&e, pretty, EXIT_INTERNAL)
    })
}

/// Flags and one positional FILE. `takes_value` lists flags followed by a value (`--out DIR` or `--out=DIR`).
struct Args<'a> {
    switches: Vec<&'a str>,
    values: Vec<(&'a str, &'a str)>,
    file: Option<&'a OsString>,
}

fn parse_args<'a>(
    command: &str,
    args: &'a [OsString],
    switches: &[&str],
    takes_value: &[&str],
) -> Result<Args<'a>, ExitCode> {
    let mut out = Args { switches: Vec::new(), values: Vec::new(), file: None };
    let mut flags_done = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let s = arg.to_str();
        if !flags_done {
            match s {
                Some("--help" | "-h") => return Err(print_out(super::USAGE)),
                Some("--") => {
                    flags_done = true;
                    continue;
                }
                Some(flag) if switches.contains(&flag) => {
                    out.switches.push(flag);
                    continue;
                }
                Some(flag) if takes_value.contains(&flag) => match it.next().map(|v| v.to_str()) {
                    Some(Some(v)) => {
                        out.values.push((flag, v));
                        continue;
                    }
                    Some(None) => return Err(usage_error(&format!("{command}: {flag} needs a UTF-8 value"))),
                    None => return Err(usage_error(&format!("{command}: {flag} needs a value"))),
                },
                Some(flag) if flag.starts_with("--") && flag.contains('=') => {
                    let (name, value) = flag.split_once('=').unwrap_or((flag, ""));
                    if takes_value.contains(&name) {
                        out.values.push((name, value));
                        continue;
                    }
                    return Err(super::unknown_option(command, name));
                }
                // "-" is stdin, not a flag.
                Some(flag) if flag.starts_with('-') && flag != "-" => return Err(super::unknown_option(command, flag)),
                _ => {}
            }
        }
        if out.file.is_some() {
            return Err(usage_error(&format!("{command} takes exactly one FILE")));
        }
        out.file = Some(arg);
    }
    Ok(out)
}

impl Args<'_> {
    fn has(&self, switch: &str) -> bool {
        self.switches.contains(&switch)
    }

    /// The last value given for `flag`.
    fn value(&self, flag: &str) -> Option<&str> {
        self.values.iter().rev().find(|(f, _)| *f == flag).map(|(_, v)| *v)
    }
}

/// `curbi lint [--pretty] [--strict] POLICY`: exit 0 valid, 1 invalid (or, with --strict, any warning), 2 unreadable.
pub(crate) fn lint_command(args: &[OsString]) -> ExitCode {
    let a = match parse_args("lint", args, &["--pretty", "--strict"], &[]) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let Some(file) = a.file else {
        return usage_error("lint needs a POLICY file (or - for stdin)");
    };
    let pretty = a.has("--pretty");
    let (value, yaml) = match super::read_document(file).and_then(|(b, yaml)| Ok((parse_json(&b, pretty)?, yaml))) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let mut report = match guarded(pretty, || curbi::lint::validate_policy(&value)) {
        Ok(r) => r,
        Err(code) => return code,
    };
    if let Some(yaml) = yaml {
        yaml_positions(&mut report, &yaml);
    }
    let text = if pretty {
        serde_json::to_string_pretty(&report).unwrap_or_else(|_| report.to_json_string())
    } else {
        report.to_json_string()
    };
    let failed = !report.valid || (a.has("--strict") && !report.warnings.is_empty());
    print_status(&text, if failed { EXIT_FAILED } else { 0 })
}

/// Each error and warning of a YAML policy's report also names where its pointer is written in the YAML (`(YAML line
/// 3, column 5)`): the author edits the YAML, not the JSON it stands for.
fn yaml_positions(report: &mut curbi::lint::LintReport, yaml: &str) {
    let paths: Vec<String> =
        report.errors.iter().map(|e| e.path.clone()).chain(report.warnings.iter().map(|w| w.path.clone())).collect();
    let pointers: Vec<&str> = paths.iter().map(String::as_str).collect();
    let found = curbi::yaml::positions(yaml, &pointers);
    let messages =
        report.errors.iter_mut().map(|e| &mut e.message).chain(report.warnings.iter_mut().map(|w| &mut w.message));
    for (message, at) in messages.zip(found) {
        if let Some((line, column)) = at {
            message.push_str(&format!(" (YAML line {line}, column {column})"));
        }
    }
}

/// `curbi export REQUEST --out DIR [--title T] [--checker V]`: writes regression.json, regression.test.mjs and
/// test_regression.py into DIR. Exit 0 written, 2 invalid request or unwritable DIR.
pub(crate) fn export_command(args: &[OsString]) -> ExitCode {
    let a = match parse_args("export", args, &["--force"], &["--title", "--out", "--checker"]) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let Some(file) = a.file else {
        return usage_error("export needs a REQUEST file (or - for stdin)");
    };
    let Some(out) = a.value("--out") else {
        return usage_error("export needs --out DIR (the folder for regression.json and its test files)");
    };
    let checker = match a.value("--checker") {
        None => CheckerVersion::CURRENT,
        Some(v) => match CheckerVersion::parse(v) {
            Some(c) => c,
            None => {
                let known: Vec<&str> = CheckerVersion::ALL.iter().map(|v| v.as_str()).collect();
                return usage_error(&format!("export: --checker must be one of {}", known.join(", ")));
            }
        },
    };
    let mut request = match read_file(file).and_then(|b| parse_json(&b, false)) {
        Ok(v) => v,
        Err(code) => return code,
    };
    // --title sets (or replaces) the request's `title`; its limit is checked with the rest of the request.
    if let (Some(t), Some(m)) = (a.value("--title"), request.as_object_mut()) {
        m.insert("title".into(), Value::String(t.to_owned()));
    }
    let regression = match guarded(false, || regression::export_regression_pinned(&request, checker)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return print_error(&e, false, EXIT_INVALID),
        Err(code) => return code,
    };
    write_export(Path::new(out), &regression, a.has("--force"))
}

/// Writes the three files into `dir`. Each is created new (`O_EXCL`: never through a symlink, never over a file
/// another process put there since the check); a file already there is kept and nothing is written (exit 2) unless
/// `force`, which removes it (a symlink itself, not what it points to) first.
fn write_export(dir: &Path, r: &Regression, force: bool) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(dir) {
        note!("curbi: cannot create {}: {e}", dir.display());
        return ExitCode::from(EXIT_INVALID);
    }
    let names = [regression::JSON_FILE, regression::NODE_TEST_FILE, regression::PYTEST_FILE];
    for name in names {
        let path = dir.join(name);
        let refuse = |why: String| {
            note!("curbi: {} {why}", path.display());
            ExitCode::from(EXIT_INVALID)
        };
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return refuse(format!("cannot be checked: {e}")),
            Ok(m) if m.is_dir() => return refuse("is a folder".into()),
            Ok(m) if !force => {
                let what = if m.file_type().is_symlink() { "is a symlink" } else { "already exists" };
                return refuse(format!("{what}; nothing was written (--force replaces it)"));
            }
            Ok(_) => {
                if let Err(e) = std::fs::remove_file(&path) {
                    return refuse(format!("cannot be replaced: {e}"));
                }
            }
        }
    }
    let files = [r.to_json_pretty(), r.node_test(), r.pytest()];
    let mut lines = Vec::new();
    for (name, text) in names.into_iter().zip(files) {
        let path = dir.join(name);
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()));
        if let Err(e) = written {
            // A full disk is exit 4 like a full stdout; a path that cannot be created stays exit 2.
            return super::file_write_failed(&path, &e);
        }
        lines.push(format!("wrote {}", path.display()));
    }
    let failing = r.cases.iter().filter(|c| !c.expected.pass).count();
    lines[0].push_str(&format!(
        " ({} case(s), {failing} with findings; expectations from checker {})",
        r.cases.len(),
        r.checker.as_str()
    ));
    print_out(&lines.join("\n"))
}

/// `curbi replay [--json] REGRESSION`: exit 0 when every expectation holds, 1 with a per-case diff otherwise,
/// 2 unreadable or not a regression document.
pub(crate) fn replay_command(args: &[OsString]) -> ExitCode {
    let a = match parse_args("replay", args, &["--json"], &[]) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let Some(file) = a.file else {
        return usage_error("replay needs a REGRESSION file (regression.json, or - for stdin)");
    };
    let value = match read_file(file).and_then(|b| parse_json(&b, false)) {
        Ok(v) => v,
        Err(code) => return code,
    };
    let report = match guarded(false, || regression::replay(&value)) {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return print_error(&e, false, EXIT_INVALID),
        Err(code) => return code,
    };
    let text = if a.has("--json") { report.to_json_string() } else { report.to_text().trim_end().to_owned() };
    print_status(&text, if report.pass { 0 } else { EXIT_FAILED })
}
