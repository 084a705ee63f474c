//! `curbi verify` and `curbi vectors`: the offline bundle verifier and the published Proof of Action vectors
//! (docs/PROOF.md). All verification is in core (`curbi::proof`) and all generation in `curbi-testkit`; this file
//! reads files, builds the request, supplies `now` from the clock in fresh mode when not given, prints, and maps
//! results to exit statuses.

use std::ffi::OsString;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use curbi::proof::verify::Reason;
use curbi::time::Timestamp;
use curbi::{Error, ErrorCode};
use serde_json::Value;

use super::{EXIT_INTERNAL, EXIT_INVALID, print_out, read_file, usage_error};

/// Exit status for a bundle that does not verify (any reason but `verifies`, a malformed bundle included).
const EXIT_REJECTED: u8 = 1;

/// What `curbi verify` was given.
#[derive(Default)]
struct VerifyArgs {
    bundle: Option<OsString>,
    keys: Option<OsString>,
    allow_test: bool,
    trust_bundle_keys: bool,
    mode: Option<String>,
    now: Option<String>,
    known: Vec<OsString>,
    witnesses: Vec<String>,
    witnesses_required: Option<String>,
    pretty: bool,
}

fn parse_verify_args(args: &[OsString]) -> Result<Option<VerifyArgs>, ExitCode> {
    let mut out = VerifyArgs::default();
    let mut it = args.iter();
    let mut flags_done = false;
    while let Some(arg) = it.next() {
        let text = arg.to_str();
        if flags_done || text.is_none_or(|s| s == "-" || !s.starts_with('-')) {
            if out.bundle.is_some() {
                return Err(usage_error("verify takes exactly one BUNDLE"));
            }
            out.bundle = Some(arg.clone());
            continue;
        }
        let s = text.unwrap_or_default();
        let (name, inline) = match s.split_once('=') {
            Some((n, v)) => (n, Some(OsString::from(v))),
            None => (s, None),
        };
        let mut value = |flag: &str| -> Result<OsString, ExitCode> {
            match inline.clone().or_else(|| it.next().cloned()) {
                Some(v) => Ok(v),
                None => Err(usage_error(&format!("verify: {flag} needs a value"))),
            }
        };
        let utf8 = |v: OsString, flag: &str| -> Result<String, ExitCode> {
            v.into_string().map_err(|_| usage_error(&format!("verify: {flag} must be UTF-8")))
        };
        match name {
            "--" => flags_done = true,
            "--help" | "-h" => return Ok(None),
            "--pretty" if inline.is_none() => out.pretty = true,
            "--allow-test" if inline.is_none() => out.allow_test = true,
            "--trust-bundle-keys" if inline.is_none() => out.trust_bundle_keys = true,
            "--keys" => out.keys = Some(value("--keys")?),
            "--known" => out.known.push(value("--known")?),
            "--mode" => out.mode = Some(utf8(value("--mode")?, "--mode")?),
            "--now" => out.now = Some(utf8(value("--now")?, "--now")?),
            "--witness" => out.witnesses.push(utf8(value("--witness")?, "--witness")?),
            "--witnesses-required" => {
                out.witnesses_required = Some(utf8(value("--witnesses-required")?, "--witnesses-required")?);
            }
            _ => return Err(super::unknown_option("verify", s)),
        }
    }
    if out.bundle.is_none() {
        return Err(usage_error("verify needs a BUNDLE file (or - for stdin)"));
    }
    if out.keys.is_none() {
        return Err(usage_error("verify needs --keys KEYS: the JWKS you trust is the trust anchor"));
    }
    if [&out.bundle, &out.keys].iter().filter(|f| f.as_ref().is_some_and(|f| f == "-")).count() > 1 {
        return Err(usage_error("verify: at most one input can be - (stdin)"));
    }
    if out.witnesses_required.is_some() && out.witnesses.is_empty() {
        return Err(usage_error("verify: --witnesses-required needs at least one --witness"));
    }
    Ok(Some(out))
}

fn print_text(text: &str, status: u8) -> ExitCode {
    super::print_status(text, status)
}

fn print_error(e: &Error, pretty: bool) -> ExitCode {
    let doc = e.to_json();
    let text =
        if pretty { serde_json::to_string_pretty(&doc).unwrap_or_else(|_| doc.to_string()) } else { doc.to_string() };
    print_text(&text, EXIT_INVALID)
}

/// A JSON file as text: unreadable → stderr and exit 2; not UTF-8 JSON → the `invalid_json` document, exit 2. A
/// key file (`key_option`: the option that names it) is read as keys are ([`crate::files::read_key`]) and named by
/// its option, never by its path.
fn json_text(
    file: &OsString,
    path: &str,
    what: &str,
    key_option: Option<&str>,
    pretty: bool,
) -> Result<String, ExitCode> {
    let bytes = match key_option {
        Some(option) => crate::files::read_key(option, file)?,
        None => read_file(file)?,
    };
    let shown = key_option.map_or_else(|| file.to_string_lossy(), std::borrow::Cow::Borrowed);
    let bad = |detail: String| {
        let e = Error::new(ErrorCode::InvalidJson, path, format!("{what} ({shown}) is not valid JSON: {detail}"));
        print_error(&e, pretty)
    };
    let text = String::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
    // Syntax only, without building the document: the verifier streams the text itself (a repeated member is its
    // `malformed` result, exit 1, not this unreadable-input error).
    curbi::json::first_repeat(&text).map_err(|e| bad(e.message))?;
    Ok(text)
}

/// The clock's time as RFC 3339, for fresh mode without `--now`.
fn system_now() -> String {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = i64::try_from(since.as_secs()).unwrap_or(i64::MAX);
    Timestamp::from_unix(secs, 0).map(|t| t.to_rfc3339()).unwrap_or_default()
}

/// `curbi verify BUNDLE --keys KEYS [--allow-test] [--mode archival|fresh] [--now RFC3339] [--known FILE]…
/// [--trust-bundle-keys] [--witness VKEY]… [--witnesses-required K] [--pretty]`
///
/// Exit 0 when the bundle verifies, 1 when it is rejected (any other reason, a malformed bundle included), 2 when
/// the caller's own input cannot be used (an unreadable file, a file that is not JSON, a bad key set, option or
/// known head), 3 on a bug.
pub(crate) fn verify_command(args: &[OsString]) -> ExitCode {
    let a = match parse_verify_args(args) {
        Ok(Some(a)) => a,
        Ok(None) => return print_out(super::USAGE),
        Err(code) => return code,
    };
    let (Some(bundle_file), Some(keys_file)) = (&a.bundle, &a.keys) else {
        return usage_error("verify needs BUNDLE and --keys KEYS");
    };
    let bundle = match json_text(bundle_file, "/bundle", "BUNDLE", None, a.pretty) {
        Ok(t) => t,
        Err(code) => return code,
    };
    // The key set goes in as its own text, so that repeated member names in it are still seen.
    let keys = match json_text(keys_file, "/keys", "KEYS", Some("--keys"), a.pretty) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut known = Vec::with_capacity(a.known.len());
    for file in &a.known {
        let bytes = match read_file(file) {
            Ok(b) => b,
            Err(code) => return code,
        };
        match String::from_utf8(bytes) {
            Ok(t) => known.push(Value::String(t)),
            Err(_) => {
                let e = Error::new(
                    ErrorCode::InvalidNote,
                    format!("/known/{}", known.len()),
                    format!("--known {} is not UTF-8 text", file.to_string_lossy()),
                );
                return print_error(&e, a.pretty);
            }
        }
    }
    let mut options = format!("{{\"keys\":{keys}");
    let mut member = |name: &str, v: Value| {
        options.push_str(&format!(",{}:{v}", Value::String(name.to_string())));
    };
    if a.allow_test {
        member("allowTest", true.into());
    }
    if a.trust_bundle_keys {
        member("trustBundleKeys", true.into());
    }
    if let Some(mode) = &a.mode {
        member("mode", mode.clone().into());
    }
    match (&a.now, a.mode.as_deref()) {
        (Some(now), _) => member("now", now.clone().into()),
        (None, Some("fresh")) => member("now", system_now().into()),
        _ => {}
    }
    if !known.is_empty() {
        member("known", Value::Array(known));
    }
    if !a.witnesses.is_empty() {
        let mut policy = serde_json::Map::new();
        policy.insert("keys".into(), a.witnesses.iter().cloned().map(Value::String).collect());
        if let Some(k) = &a.witnesses_required {
            match k.parse::<u64>() {
                Ok(n) => {
                    policy.insert("required".into(), n.into());
                }
                Err(_) => return usage_error("verify: --witnesses-required needs a count"),
            }
        }
        member("witnesses", Value::Object(policy));
    }
    options.push('}');

    let run = || curbi::proof::verify::verify_parts_text(&bundle, &options);
    let verification = match panic::catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => return print_error(&e, a.pretty),
        Err(_) => {
            let e = Error::new(
                ErrorCode::Internal,
                "",
                "the verifier failed on this input; this is a bug, please report it with the input",
            );
            return print_text(&e.to_json().to_string(), EXIT_INTERNAL);
        }
    };
    let status = if verification.ok {
        0
    } else if verification.reason == Reason::Malformed && !verification.path.starts_with("/bundle") {
        // The caller's own keys, options or known heads cannot be used.
        EXIT_INVALID
    } else {
        EXIT_REJECTED
    };
    let text = if a.pretty { verification.to_json_pretty() } else { verification.to_json_string() };
    print_text(&text, status)
}

/// `curbi vectors [--out DIR] [--check]`: writes the Proof of Action vectors into DIR (default `vectors/proof`), or
/// with `--check` compares DIR with what the generator makes and exits 1 on any difference.
pub(crate) fn vectors_command(args: &[OsString]) -> ExitCode {
    let mut out = PathBuf::from("vectors/proof");
    let mut check_file: Option<PathBuf> = None;
    let mut check = false;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.to_str() {
            Some("--check") => check = true,
            Some("--out") => match it.next() {
                Some(dir) => out = PathBuf::from(dir),
                None => return usage_error("vectors: --out needs a DIR"),
            },
            Some(s) if s.starts_with("--out=") => out = PathBuf::from(&s["--out=".len()..]),
            Some("--check-file") => match it.next() {
                Some(f) => check_file = Some(PathBuf::from(f)),
                None => return usage_error("vectors: --check-file needs a FILE"),
            },
            Some(s) if s.starts_with("--check-file=") => check_file = Some(PathBuf::from(&s["--check-file=".len()..])),
            Some("--help" | "-h") => return print_out(super::USAGE),
            _ => {
                let shown = arg.to_string_lossy();
                return usage_error(&format!("vectors: unknown argument {}", curbi::error::excerpt(&shown)));
            }
        }
    }
    let generated = panic::catch_unwind(|| (curbi_testkit::generate(), curbi_testkit::check_receipts()));
    let Ok((files, (_, receipts))) = generated else {
        note!("curbi: the vector generator failed; this is a bug");
        return ExitCode::from(EXIT_INTERNAL);
    };
    let proof = if check { check_vectors(&out, &files) } else { write_vectors(&out, &files) };
    // The receipt check vectors live beside the proof vectors, in the check vectors' folder (DIR/../check/), when
    // DIR is in a vectors tree; elsewhere only with --check-file.
    let beside = out.parent().map(|p| p.join("check")).filter(|d| d.is_dir()).map(|d| d.join("99-receipts.json"));
    let Some(check_file) = check_file.or(beside) else {
        return proof;
    };
    let file = if check { check_file_bytes(&check_file, &receipts) } else { write_file_bytes(&check_file, &receipts) };
    if proof == ExitCode::SUCCESS { file } else { proof }
}

/// The receipt check vectors are one file among the hand-written check vectors: compared or written alone.
fn check_file_bytes(path: &Path, bytes: &[u8]) -> ExitCode {
    match std::fs::read(path) {
        Ok(on_disk) if on_disk == bytes => {
            print_text(&format!("curbi vectors: {} matches the generator", path.display()), 0)
        }
        Ok(_) => {
            note!(
                "curbi vectors: {} differs from the generated bytes; regenerate with `curbi vectors`",
                path.display()
            );
            ExitCode::from(EXIT_REJECTED)
        }
        Err(e) => {
            note!("curbi vectors: {}: {e}", path.display());
            ExitCode::from(EXIT_REJECTED)
        }
    }
}

fn write_file_bytes(path: &Path, bytes: &[u8]) -> ExitCode {
    match std::fs::write(path, bytes) {
        Ok(()) => print_text(&format!("curbi vectors: wrote {}", path.display()), 0),
        Err(e) => super::file_write_failed(path, &e),
    }
}

/// JSON files in `dir` that the generator does not make.
fn stale(dir: &Path, files: &[(String, Vec<u8>)]) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json") && !files.iter().any(|(f, _)| f == n))
        .collect();
    names.sort();
    names
}

fn check_vectors(dir: &Path, files: &[(String, Vec<u8>)]) -> ExitCode {
    let mut differ = Vec::new();
    for (name, bytes) in files {
        match std::fs::read(dir.join(name)) {
            Ok(on_disk) if &on_disk == bytes => {}
            Ok(_) => differ.push(format!("{name}: differs from the generated bytes")),
            Err(e) => differ.push(format!("{name}: {e}")),
        }
    }
    for name in stale(dir, files) {
        differ.push(format!("{name}: not made by the generator"));
    }
    if differ.is_empty() {
        print_text(&format!("curbi vectors: {} files in {} match the generator", files.len(), dir.display()), 0)
    } else {
        for d in &differ {
            note!("curbi vectors: {}/{d}", dir.display());
        }
        note!("curbi vectors: {} difference(s); regenerate with `curbi vectors --out {}`", differ.len(), dir.display());
        ExitCode::from(EXIT_REJECTED)
    }
}

fn write_vectors(dir: &Path, files: &[(String, Vec<u8>)]) -> ExitCode {
    if let Err(e) = std::fs::create_dir_all(dir) {
        note!("curbi: cannot create {}: {e}", dir.display());
        return ExitCode::from(EXIT_INVALID);
    }
    for (name, bytes) in files {
        if let Err(e) = std::fs::write(dir.join(name), bytes) {
            return super::file_write_failed(&dir.join(name), &e);
        }
    }
    for name in stale(dir, files) {
        note!("curbi vectors: {}/{name} is not made by the generator; remove it", dir.display());
    }
    print_text(&format!("curbi vectors: wrote {} files to {}", files.len(), dir.display()), 0)
}
