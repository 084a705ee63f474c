//! Runs the built `curbi` binary the way a shell or CI job would: exit codes, stdout bytes, stdin, hostile input.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;

use common::BIN;

// Seed 000's recorded policy_check request, pinned to the checker that answered it (2026-11-01) so that its
// recorded result replays byte for byte now that a later checker is current.
const SEED_REQUEST: &str = r#"{"version":"2026-11-01","policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter is $99 a month."}"#;
// Seed 000, the recorded session's policy_check result, byte for byte.
const SEED_RESPONSE: &str = r#"{"object":"check","version":"2026-11-01","recordTrust":"caller_supplied_unverified","pass":false,"findings":[{"rule":"price:mismatch","span":[11,14],"text":"$99","why":"Starter is $49, not $99."}],"proof":{"scope":"operation_and_subject_only","factsAuthenticated":false,"replayProtection":"within_request_only","authorizationGranted":false}}"#;

fn temp_file(bytes: &[u8]) -> PathBuf {
    common::temp_file("cli", bytes)
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run curbi")
}

fn check_file(bytes: &[u8]) -> Output {
    let path = temp_file(bytes);
    let out = Command::new(BIN).arg("check").arg(&path).output().expect("run curbi check");
    std::fs::remove_file(&path).ok();
    out
}

fn check_stdin(args: &[&str], input: &[u8]) -> Output {
    common::run_stdin(args, input)
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts exit 2 and one line holding a well-formed error document with a known code; returns (code, path).
fn assert_error_doc(out: &Output) -> (String, String) {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(out));
    assert!(!stderr(out).contains("panicked"), "stderr: {}", stderr(out));
    let text = stdout(out);
    assert!(text.ends_with('\n') && text.matches('\n').count() == 1, "one line: {text:?}");
    let doc: Value = serde_json::from_str(&text).expect("error document is JSON");
    let err = doc["error"].as_object().expect("error object");
    assert_eq!(err.len(), 3, "{doc}");
    let code = err["code"].as_str().expect("code").to_owned();
    let path = err["path"].as_str().expect("path").to_owned();
    assert!(err["message"].as_str().is_some_and(|m| !m.is_empty()), "{doc}");
    assert!(curbi::ErrorCode::ALL.iter().any(|c| c.as_str() == code), "unknown code {code}");
    (code, path)
}

#[test]
fn seed_request_prints_the_recorded_response_exactly() {
    let out = check_file(SEED_REQUEST.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), format!("{SEED_RESPONSE}\n"));
    assert_eq!(stderr(&out), "");
}

#[test]
fn stdin_dash_reads_the_request() {
    let out = check_stdin(&["check", "-"], SEED_REQUEST.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), format!("{SEED_RESPONSE}\n"));
}

#[test]
fn passing_reply_exits_zero() {
    let out =
        check_file(br#"{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter is $49 a month."}"#);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(doc["pass"], true);
    assert_eq!(doc["findings"], serde_json::json!([]));
}

#[test]
fn cases_exit_one_when_any_case_fails_and_zero_when_all_pass() {
    let failing = br#"{"policy":{"prices":[{"item":"Pro","amount":49}]},"cases":[{"id":"a","reply":"Pro is $49."},{"id":"b","reply":"Pro is $29."}]}"#;
    let out = check_file(failing);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(doc["object"], "check_batch");
    assert_eq!(doc["results"][0]["pass"], true);
    assert_eq!(doc["results"][1]["id"], "b");
    assert_eq!(doc["results"][1]["pass"], false);

    let passing =
        br#"{"policy":{"prices":[{"item":"Pro","amount":49}]},"cases":[{"reply":"Pro is $49."},{"reply":"Hello."}]}"#;
    assert_eq!(check_file(passing).status.code(), Some(0));
}

#[test]
fn invalid_request_exits_two_with_the_error_document() {
    let out = check_file(br#"{"policy":{"prices":[{"item":"Pro","amount":-1}]},"reply":"Hi"}"#);
    let (code, path) = assert_error_doc(&out);
    assert_eq!((code.as_str(), path.as_str()), ("out_of_range", "/policy/prices/0/amount"));
    assert_eq!(stderr(&out), "");

    let out = check_file(br#"{"reply":"Hi"}"#);
    assert_eq!(assert_error_doc(&out), ("missing_field".to_owned(), "/policy".to_owned()));
}

#[test]
fn pretty_prints_the_same_document() {
    let compact = check_file(SEED_REQUEST.as_bytes());
    let path = temp_file(SEED_REQUEST.as_bytes());
    let pretty = Command::new(BIN).args(["check", "--pretty"]).arg(&path).output().expect("run");
    assert_eq!(pretty.status.code(), Some(1));
    let text = stdout(&pretty);
    assert!(text.lines().count() > 5, "{text}");
    let a: Value = serde_json::from_str(&stdout(&compact)).expect("JSON");
    let b: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(a, b);

    let bad = check_stdin(&["check", "-", "--pretty"], b"{");
    assert_eq!(bad.status.code(), Some(2));
    let doc: Value = serde_json::from_str(&stdout(&bad)).expect("JSON");
    assert_eq!(doc["error"]["code"], "invalid_json");
}

#[test]
fn hostile_bytes_are_invalid_json_not_a_crash() {
    let mut deep = vec![b'['; 100_000];
    deep.extend(vec![b']'; 100_000]);
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("empty file", Vec::new()),
        ("invalid UTF-8", b"\xff\xfe\x00garbage".to_vec()),
        ("invalid UTF-8 inside a string", b"{\"policy\":{},\"reply\":\"\xc3\x28\"}".to_vec()),
        ("100000 open brackets", vec![b'['; 100_000]),
        ("100000 nested arrays", deep),
        ("deep objects", "{\"a\":".repeat(50_000).into_bytes()),
        ("lone surrogate escape", br#"{"policy":{},"reply":"\ud800"}"#.to_vec()),
        ("trailing garbage", format!("{SEED_REQUEST} x").into_bytes()),
        ("NUL bytes", vec![0; 1000]),
    ];
    for (what, bytes) in inputs {
        let out = check_file(&bytes);
        let (code, path) = assert_error_doc(&out);
        assert_eq!(code, "invalid_json", "{what}");
        assert_eq!(path, "", "{what}");
    }
    // A number no f64 holds is still JSON: the strict reader keeps its text, and the schema judges it at its path.
    let huge = check_file(br#"{"policy":{"prices":[{"item":"x","amount":1e999}]},"reply":"x"}"#);
    assert_eq!(assert_error_doc(&huge), ("out_of_range".to_owned(), "/policy/prices/0/amount".to_owned()));
}

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_garbage_never_panics() {
    let mut rng = Rng(0x5eed_c0ff_ee00_0001);
    for i in 0..60 {
        let len = rng.below(300);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let out = check_stdin(&["check", "-"], &bytes);
        let (code, _) = assert_error_doc(&out);
        assert_eq!(code, "invalid_json", "garbage #{i}: {bytes:?}");
    }
}

#[test]
fn mutated_requests_never_panic() {
    // Byte-level mutations of a rich valid request reach the validator and checker, not only the parser.
    let base = br#"{"version":"2026-11-01","policy":{"prices":[{"item":"Pro","amounts":[49,490],"aliases":["Pro plan"]}],"forbid":[{"id":"guarantee","phrases":["guarantee"],"match":"word"}],"actions":{"refunded":"billing.refund"},"discounts":[{"percent":20,"items":["Pro"]}],"unknownAmounts":"flag"},"reply":"Done! I've refunded you, Pro is $29 (20% off), we guarantee it, at 3:30 PM on Nov 3.","record":{"subject":"t-1","effects":[{"operation":"billing.refund","status":"DONE"}],"facts":[{"near":"at","kind":"time","value":"15:30"}]}}"#;
    let alphabet = b"{}[]\":,0123456789-.eE \\u$%\xc3\xa9\xff\x00nulltruefalse";
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    for i in 0..80 {
        let mut bytes = base.to_vec();
        for _ in 0..=rng.below(4) {
            let at = rng.below(bytes.len());
            match rng.below(3) {
                0 => bytes[at] = alphabet[rng.below(alphabet.len())],
                1 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, alphabet[rng.below(alphabet.len())]),
            }
        }
        let out = check_stdin(&["check", "-"], &bytes);
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "mutation #{i}: {err}");
        let code = out.status.code();
        assert!(matches!(code, Some(0..=2)), "mutation #{i}: exit {code:?}");
        let doc: Value = serde_json::from_str(&stdout(&out)).expect("stdout is JSON");
        assert_eq!(doc.get("error").is_some(), code == Some(2), "mutation #{i}: {doc}");
    }
}

#[test]
fn unreadable_file_exits_two_with_a_message_on_stderr() {
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-such-request.json");
    let out = Command::new(BIN).arg("check").arg(&missing).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    assert!(stderr(&out).contains("cannot read"), "{}", stderr(&out));

    // A directory is unreadable as a file too.
    let out = run(&["check", env!("CARGO_TARGET_TMPDIR")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr(&out).contains("panicked"));
}

#[test]
fn version_and_help() {
    let out = run(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), format!("curbi {} (checker 2026-12-04)\n", env!("CARGO_PKG_VERSION")));
    for args in [&["help"][..], &["--help"], &["-h"], &["check", "--help"]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(stdout(&out).contains("Usage:"), "{args:?}");
    }
}

#[test]
fn bad_arguments_exit_two_with_usage() {
    for args in [
        &[][..],
        &["frobnicate"],
        &["check"],
        &["check", "a.json", "b.json"],
        &["check", "--nope", "a.json"],
        &["serve", "--addr"],
        &["serve", "--port", "1"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("Usage:"), "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
    }
}

/// The real binary: binds port 0, announces the address, answers, and stops cleanly on SIGTERM.
#[cfg(unix)]
#[test]
fn serve_binary_answers_and_stops_on_sigterm() {
    let mut child = common::spawn_serve();
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    err.read_line(&mut line).expect("listening line");
    let addr = line
        .trim()
        .strip_prefix("curbi: listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");

    let mut stream = TcpStream::connect(&addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    write!(
        stream,
        "POST /v1/check HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{SEED_REQUEST}",
        SEED_REQUEST.len()
    )
    .expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    assert!(response.starts_with("HTTP/1.1 200 "), "{response}");
    assert!(response.ends_with(SEED_RESPONSE), "{response}");

    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill -TERM");
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().ok();
            panic!("curbi serve did not stop within 10 s of SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let mut rest = String::new();
    err.read_to_string(&mut rest).expect("stderr");
    assert!(rest.contains("shutting down"), "{rest}");
    assert!(!rest.contains("panicked"), "{rest}");
}

#[test]
fn explain_prints_one_line_per_finding() {
    let out = check_stdin(&["check", "--explain", "-"], SEED_REQUEST.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "1 finding(s)");
    assert!(lines[1].contains("price:mismatch") && lines[1].contains("[11, 14)") && lines[1].contains("\"$99\""));
    assert!(lines[1].ends_with("Starter is $49, not $99."));
    assert_eq!(lines.len(), 2);
}
