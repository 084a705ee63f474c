//! `curbi recorder`: the durable recorder (docs/RECORDER.md) from the shell. Every subcommand is one recorder call
//! (`curbi_recorder::api`): the request is a JSON file (or `-` for stdin), the answer JSON on stdout.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use curbi::{Error, ErrorCode};
use serde_json::{Value, json};

use super::{EXIT_INTERNAL, EXIT_INVALID, print_out, read_file, usage_error};

pub(crate) const USAGE: &str = "\
curbi recorder: Proof of Action inside merchant code, durably (docs/RECORDER.md).

Usage:
  curbi recorder keys generate --out FILE [--kid KID]
                                Write a new private Ed25519 JWK to FILE (created, mode 0600, never overwritten)
  curbi recorder init --db DB --origin ORIGIN [KEY]
                                Create the log DB (origin curbi-checkpoint-v1.<name>) signed with KEY
  curbi recorder grant --db DB [KEY] GRANT    Register a grant (the action check's grant, with an id)
  curbi recorder attest --db DB [KEY] REQUEST Attest one mutation: {tenant, idempotency_key, grant, action}
  curbi recorder confirm --db DB [KEY] REQUEST
                                The provider's answer: {tenant, idempotency_key, outcome DONE|FAILED|UNKNOWN,
                                evidence}
  curbi recorder reconcile --db DB [KEY] REQUEST
                                Settle a held action from the provider's state: outcome DONE|FAILED|NOT_PERFORMED
  curbi recorder held --db DB [KEY] [--limit N]
                                The actions not yet settled (attested or held), oldest first
  curbi recorder checkpoint --db DB [KEY]     Sign the head of the log (a size already signed returns its head)
  curbi recorder bundle --db DB [KEY] (REQUEST | --seq N... [--known FILE]...)
                                A curbi.proof/0.1 bundle of receipts, with consistency proofs from known heads
  curbi recorder receipt --db DB [KEY] SEQ    The receipt at SEQ, its attestation and the provider's answer
  curbi recorder receipts --db DB [KEY] REQUEST
                                The newest receipts of {subject} or {conversation} (limit?, at most 50), for
                                a check's record.receipts: {receipts}
  curbi recorder keys --db DB [KEY] [--out FILE]
                                The log's JWKS with every key's window: what verifiers trust
  curbi recorder status --db DB [KEY]         The log's origin, note verifier key (vkey), size and latest head
  curbi recorder seal --db DB [KEY] [--successor DB2 --successor-origin ORIGIN2]
                                Seal the log: sign its final head, then refuse every write (sealed); with
                                --successor, create the log DB2 whose first entry names that head. Safe to run
                                again after a crash. The way out of a log a wrong clock dated ahead
  curbi recorder init --db DB2 --origin ORIGIN2 --predecessor HEAD_FILE [KEY]
                                Create a successor log whose first entry names the sealed log's final head
  curbi recorder publish --db DB [KEY] --dir DIR
                                Publish the log as C2SP tlog-tiles into DIR (checkpoint, tile/..., tile/entries/...),
                                up to the latest head; incremental, each file written atomically, checkpoint last
  curbi recorder cosign --db DB [KEY] --witnesses FILE
                                Ask the witnesses in FILE ([{key, url}]: C2SP tlog-witness) to cosign the latest head

KEY: --key FILE (a private JWK, mode 0600) or --key-env VAR; by default the variable CURBI_RECORDER_KEY. Add
  --rotate to make a new key the log's active one. --now UNIX_SECONDS fixes the clock (tests).
  --max-clock-ahead SECONDS: how far past the last time the log used a write may be dated (default 604800, 7 days);
  beyond it the write is refused with clock_ahead and nothing is signed. Reads never move the log's time.
  --witnesses FILE and --publish DIR: what checkpoint does with each head it signs (cosign it, publish the log).
Exit status: 0 done; 1 attest issued nothing (DENY, or STEP_UP not confirmed: the answer says why); 2 bad
  arguments or a refused call (the error document {\"error\":{code,message,path}} on stdout); 3 internal error.";

/// Exit status when `attest` issued no attestation.
const EXIT_NOT_ISSUED: u8 = 1;

struct Args {
    db: Option<OsString>,
    config: serde_json::Map<String, Value>,
    positional: Vec<OsString>,
    seqs: Vec<u64>,
    known: Vec<OsString>,
    limit: Option<u64>,
    out: Option<OsString>,
    kid: Option<String>,
    dir: Option<String>,
    successor: Option<OsString>,
    successor_origin: Option<String>,
}

fn parse(cmd: &str, args: &[OsString]) -> Result<Option<Args>, ExitCode> {
    let mut a = Args {
        db: None,
        config: serde_json::Map::new(),
        positional: Vec::new(),
        seqs: Vec::new(),
        known: Vec::new(),
        limit: None,
        out: None,
        kid: None,
        dir: None,
        successor: None,
        successor_origin: None,
    };
    let mut it = args.iter();
    let mut flags_done = false;
    while let Some(arg) = it.next() {
        let text = arg.to_str();
        if flags_done || text.is_none_or(|s| s == "-" || !s.starts_with('-')) {
            a.positional.push(arg.clone());
            continue;
        }
        let s = text.unwrap_or_default();
        let (name, inline) = match s.split_once('=') {
            Some((n, v)) => (n, Some(OsString::from(v))),
            None => (s, None),
        };
        let mut value = || -> Result<OsString, ExitCode> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| usage_error(&format!("{cmd}: {name} needs a value")))
        };
        let utf8 = |v: OsString| v.into_string().map_err(|_| usage_error(&format!("{cmd}: {name} must be UTF-8")));
        let number = |v: String| v.parse::<u64>().map_err(|_| usage_error(&format!("{cmd}: {name} takes a number")));
        match name {
            "--" => flags_done = true,
            "--help" | "-h" => return Ok(None),
            "--db" => a.db = Some(value()?),
            "--origin" => {
                a.config.insert("origin".into(), utf8(value()?)?.into());
            }
            "--key" => {
                a.config.insert("key_file".into(), utf8(value()?)?.into());
            }
            "--key-env" => {
                a.config.insert("key_env".into(), utf8(value()?)?.into());
            }
            "--rotate" if inline.is_none() => {
                a.config.insert("rotate".into(), true.into());
            }
            "--now" => {
                let t = utf8(value()?)?;
                let t: i64 = t.parse().map_err(|_| usage_error(&format!("{cmd}: --now takes Unix seconds")))?;
                a.config.insert("now".into(), t.into());
            }
            "--max-clock-ahead" => {
                let t = number(utf8(value()?)?)?;
                a.config.insert("max_clock_ahead".into(), t.into());
            }
            "--predecessor" => {
                let head = String::from_utf8_lossy(&read_file(&value()?)?).into_owned();
                a.config.insert("predecessor".into(), head_text(head).into());
            }
            "--successor" => a.successor = Some(value()?),
            "--successor-origin" => a.successor_origin = Some(utf8(value()?)?),
            "--seq" => a.seqs.push(number(utf8(value()?)?)?),
            "--known" => a.known.push(value()?),
            "--limit" => a.limit = Some(number(utf8(value()?)?)?),
            "--out" => a.out = Some(value()?),
            "--kid" => a.kid = Some(utf8(value()?)?),
            "--dir" => a.dir = Some(utf8(value()?)?),
            "--publish" => {
                a.config.insert("publish".into(), utf8(value()?)?.into());
            }
            "--witnesses" => {
                let text = read_file(&value()?)?;
                let list: Value = serde_json::from_slice(&text)
                    .map_err(|e| usage_error(&format!("{cmd}: --witnesses is not JSON: {e}")))?;
                a.config.insert("witnesses".into(), list);
            }
            _ => return Err(super::unknown_option(cmd, s)),
        }
    }
    Ok(Some(a))
}

fn print_result(result: Result<String, Error>, status: u8) -> ExitCode {
    match result {
        Ok(text) => match print_out(&text) {
            c if c == ExitCode::SUCCESS => ExitCode::from(status),
            c => c,
        },
        Err(e) => {
            let code = if e.code == ErrorCode::Internal { EXIT_INTERNAL } else { EXIT_INVALID };
            let _ = print_out(&e.to_json().to_string());
            ExitCode::from(code)
        }
    }
}

/// A signed head read from a file: a note ends with one newline; a file written by `jq -r .note` has one more.
fn head_text(t: String) -> String {
    if t.ends_with("\n\n") { t[..t.len() - 1].to_string() } else { t }
}

/// `seal --successor DB2 --successor-origin ORIGIN2`: opens DB2 (created) as the successor of the sealed log whose
/// final head is `head`, with the same key and clock options, and answers `{sealed, successor: {origin, entry}}`.
/// Run again after a crash, each step replays: the seal answers the same head, the successor the same entry.
fn open_successor(a: &Args, db: &OsString, head: &str) -> Result<Value, Error> {
    let origin = a.successor_origin.clone().unwrap_or_default();
    let mut config = a.config.clone();
    config.remove("rotate");
    config.insert("path".into(), db.to_string_lossy().into_owned().into());
    config.insert("origin".into(), origin.into());
    config.insert("predecessor".into(), head.into());
    // The successor is a log this command creates, as init does (a 0-byte file left by a kill is started too).
    config.insert("create".into(), true.into());
    let successor = curbi_recorder::api::open_json(Value::Object(config).to_string().as_bytes())?;
    let entry: Value = serde_json::from_str(&successor.call_json("receipt", br#"{"seq":0}"#)?)
        .map_err(|e| Error::new(ErrorCode::Internal, "", e.to_string()))?;
    Ok(json!({"origin": successor.origin(), "entry": entry}))
}

fn json_file(file: &OsString) -> Result<Vec<u8>, ExitCode> {
    read_file(file)
}

pub(crate) fn recorder_command(args: &[OsString]) -> ExitCode {
    let Some((sub, rest)) = args.split_first() else { return usage_error("recorder needs a subcommand") };
    let Some(sub) = sub.to_str() else { return usage_error("recorder: the subcommand must be UTF-8") };
    if matches!(sub, "help" | "--help" | "-h") {
        return print_out(USAGE);
    }
    let cmd = format!("recorder {sub}");
    let a = match parse(&cmd, rest) {
        Ok(Some(a)) => a,
        Ok(None) => return print_out(USAGE),
        Err(code) => return code,
    };
    if sub == "keys" && a.positional.first().is_some_and(|p| p == "generate") {
        let Some(out) = &a.out else { return usage_error("recorder keys generate needs --out FILE") };
        let result = curbi_recorder::generate_key_file(&PathBuf::from(out), a.kid.as_deref())
            .map(|kid| json!({"kid": kid, "file": out.to_string_lossy()}).to_string());
        return print_result(result, 0);
    }
    let Some(db) = &a.db else { return usage_error(&format!("{cmd} needs --db DB")) };
    let mut config = a.config.clone();
    config.insert("path".into(), db.to_string_lossy().into_owned().into());
    if sub == "init" && !config.contains_key("origin") {
        return usage_error("recorder init needs --origin ORIGIN");
    }
    if sub != "init" && config.contains_key("predecessor") {
        return usage_error("--predecessor names a new log's predecessor: use it with recorder init");
    }
    if a.successor.is_some() != a.successor_origin.is_some() || (a.successor.is_some() && sub != "seal") {
        return usage_error("recorder seal takes --successor DB2 and --successor-origin ORIGIN2 together");
    }
    // Only init starts a new log; every other command opens an existing one, so a mistyped --db is an error.
    config.insert("create".into(), (sub == "init").into());
    let recorder = match curbi_recorder::api::open_json(Value::Object(config).to_string().as_bytes()) {
        Ok(r) => r,
        Err(e) => return print_result(Err(e), 0),
    };
    let body = |want: usize| -> Result<Vec<u8>, ExitCode> {
        match a.positional.as_slice() {
            [file] if want == 1 => json_file(file),
            [] if want == 0 => Ok(b"{}".to_vec()),
            _ => Err(usage_error(&format!("{cmd} takes {}", if want == 1 { "one REQUEST file" } else { "no file" }))),
        }
    };
    let (method, request) = match sub {
        "init" | "status" => ("status", body(0)),
        "grant" | "attest" | "confirm" | "reconcile" | "receipts" => (sub, body(1)),
        "checkpoint" | "cosign" | "seal" => (sub, body(0)),
        "publish" => match &a.dir {
            Some(d) => ("publish", body(0).map(|_| json!({"dir": d}).to_string().into_bytes())),
            None => return usage_error("recorder publish needs --dir DIR"),
        },
        "held" => ("held", body(0).map(|_| json!({"limit": a.limit.unwrap_or(1000)}).to_string().into_bytes())),
        "keys" => ("keys", body(0)),
        "receipt" => match a.positional.as_slice() {
            [seq] => match seq.to_str().and_then(|s| s.parse::<u64>().ok()) {
                Some(n) => ("receipt", Ok(json!({"seq": n}).to_string().into_bytes())),
                None => ("receipt", json_file(seq)),
            },
            _ => return usage_error("recorder receipt takes SEQ (or a REQUEST file)"),
        },
        "bundle" if a.seqs.is_empty() => ("bundle", body(1)),
        "bundle" => {
            let mut known = Vec::new();
            for f in &a.known {
                match read_file(f).map(|b| String::from_utf8_lossy(&b).into_owned()) {
                    Ok(t) => known.push(head_text(t)),
                    Err(code) => return code,
                }
            }
            ("bundle", body(0).map(|_| json!({"receipts": a.seqs, "known": known}).to_string().into_bytes()))
        }
        other => return usage_error(&format!("recorder: unknown subcommand {other}")),
    };
    let request = match request {
        Ok(r) => r,
        Err(code) => return code,
    };
    let result = recorder.call_json(method, &request);
    if let (Some(next), Ok(text)) = (&a.successor, &result) {
        drop(recorder);
        let head: Value = serde_json::from_str(text).unwrap_or_default();
        let note = head["note"].as_str().unwrap_or_default();
        let result = open_successor(&a, next, note).map(|s| json!({"sealed": head, "successor": s}).to_string());
        return print_result(result, 0);
    }
    if sub == "keys"
        && let (Some(out), Ok(text)) = (&a.out, &result)
    {
        // Created new, 0600, never through a symlink or over a file, like every key file (cli/src/files.rs).
        if let Err(code) = super::files::write_private("--out", out, format!("{text}\n").as_bytes()) {
            return code;
        }
    }
    let issued = |text: &str| serde_json::from_str::<Value>(text).is_ok_and(|v| v.get("attestation").is_some());
    let status = match (&result, sub) {
        (Ok(text), "attest") if !issued(text) => EXIT_NOT_ISSUED,
        _ => 0,
    };
    print_result(result, status)
}

pub(crate) const TILES_USAGE: &str = "\
curbi tiles: read a log published as C2SP tlog-tiles (docs/RECORDER.md \u{a7}Publishing the log).

Usage:
  curbi tiles bundle --from DIR --index N [--index M]... [--known FILE]... [--keys FILE]
                                A curbi.proof/0.1 bundle of the receipts at N, M... under DIR's checkpoint, from
                                its files alone (checkpoint, tiles, entry bundles), with a consistency proof from
                                each known head (FILE: a signed head); --keys: a JWKS to carry as the bundle's keys.
                                Check it with curbi verify against the keys you trust.
Exit status: 0 written; 2 bad arguments or a log that does not add up (the error document on stdout).";

/// `curbi tiles bundle`: [`curbi::proof::tiles::bundle_from_tiles`] over the files of a directory.
pub(crate) fn tiles_command(args: &[OsString]) -> ExitCode {
    let Some((sub, rest)) = args.split_first() else { return usage_error("tiles needs a subcommand") };
    match sub.to_str() {
        Some("help" | "--help" | "-h") => return print_out(TILES_USAGE),
        Some("bundle") => {}
        _ => return usage_error("tiles: the subcommand is bundle"),
    }
    let (mut from, mut indexes, mut known, mut keys) = (None, Vec::new(), Vec::new(), None);
    let mut it = rest.iter();
    while let Some(arg) = it.next() {
        let Some(name) = arg.to_str() else { return usage_error("tiles bundle: arguments must be UTF-8") };
        if matches!(name, "--help" | "-h") {
            return print_out(TILES_USAGE);
        }
        let Some(value) = it.next() else {
            // The option's name only: `--keys=VALUE` (not a form tiles reads) may carry a key.
            let shown = curbi::error::excerpt(name.split_once('=').map_or(name, |(n, _)| n));
            return usage_error(&format!("tiles bundle: {shown} needs a value"));
        };
        match name {
            "--from" => from = Some(PathBuf::from(value)),
            "--index" => match value.to_str().and_then(|v| v.parse::<u64>().ok()) {
                Some(n) => indexes.push(n),
                None => return usage_error("tiles bundle: --index takes a number"),
            },
            "--known" => match read_file(value) {
                Ok(b) => {
                    let t = String::from_utf8_lossy(&b).into_owned();
                    // A note ends with a newline; a file written by `jq -r .note` has one more.
                    known.push(if t.ends_with("\n\n") { t[..t.len() - 1].to_string() } else { t });
                }
                Err(code) => return code,
            },
            "--keys" => match super::files::read_key("--keys", value).map(|b| serde_json::from_slice::<Value>(&b)) {
                Ok(Ok(v)) => keys = Some(v),
                Ok(Err(e)) => return usage_error(&format!("tiles bundle: --keys is not JSON: {e}")),
                Err(code) => return code,
            },
            other => return super::unknown_option("tiles bundle", other),
        }
    }
    let Some(from) = from else { return usage_error("tiles bundle needs --from DIR") };
    if indexes.is_empty() {
        return usage_error("tiles bundle needs at least one --index N");
    }
    let fetch = |path: &str| -> Result<Option<Vec<u8>>, Error> {
        match std::fs::read(from.join(path)) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::new(ErrorCode::Storage, "", format!("{path}: {e}"))),
        }
    };
    let result = curbi::proof::tiles::bundle_from_tiles(&fetch, &indexes, &known, keys).map(|b| b.to_json_string());
    print_result(result, 0)
}
