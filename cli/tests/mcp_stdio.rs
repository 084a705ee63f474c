//! The `curbi mcp --stdio` process (issue 43): a line that is not UTF-8 is answered JSON-RPC -32700 (as an HTTP body
//! is) and the session carries on; `verify_bundle` in fresh mode verifies at the server's clock (`CURBI_MCP_NOW`).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use serde_json::{Value, json};

use common::{BIN, run_stdin};

/// Bad lines of every kind: each lone byte that cannot start or stand as a UTF-8 character (continuation bytes,
/// overlong and out-of-range lead bytes, \xff); the bytes of each lone surrogate half the CESU way (\xed\xa0\x80..
/// \xed\xbf\xbf); and every cut of a 2-, 3- and 4-byte character. Each stands bare and inside an otherwise valid
/// request's string, so the reader sees it both at the top and deep in a message.
fn bad_byte_runs() -> Vec<Vec<u8>> {
    let mut runs: Vec<Vec<u8>> = (0x80..=0xffu8).filter(|b| !(0xc2..=0xf4).contains(b)).map(|b| vec![b]).collect();
    for hi in [0xa0u8, 0xad, 0xb0, 0xbf] {
        runs.push(vec![0xed, hi, 0x80]);
        runs.push(vec![0xed, hi, 0xbf]);
    }
    for c in ['é', '€', '😀'] {
        let mut buf = [0; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        for cut in 1..bytes.len() {
            runs.push(bytes[..cut].to_vec());
        }
    }
    runs
}

#[test]
fn non_utf8_lines_get_parse_errors_and_the_session_carries_on() {
    let mut input = Vec::new();
    let mut bad = 0;
    for run in bad_byte_runs() {
        input.extend_from_slice(&run);
        input.push(b'\n');
        input.extend_from_slice(br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"note":""#);
        input.extend_from_slice(&run);
        input.extend_from_slice(b"\"}}\r\n");
        bad += 2;
    }
    input.extend_from_slice(br#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#);
    input.push(b'\n');

    let out = run_stdin(&["mcp", "--stdio"], &input);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let answers: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), bad + 1, "one answer a line: {answers:?}");
    for (i, a) in answers[..bad].iter().enumerate() {
        assert_eq!(a["error"]["code"], -32700, "line {i}: {a}");
        assert_eq!(a["id"], Value::Null, "line {i}: an unreadable message has no id: {a}");
    }
    assert_eq!(answers[bad], json!({"jsonrpc": "2.0", "id": "after", "result": {}}));
}

/// Seed 000's fresh-mode-expired vector through the process: its `now` is the server's clock, not an argument.
#[test]
fn fresh_mode_verifies_at_the_servers_clock() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors/proof/fresh-mode-expired.json");
    let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let mut args = doc["input"].clone();
    let now = args.as_object_mut().unwrap().remove("now").unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "verify_bundle", "arguments": args}});
    let mut child = std::process::Command::new(BIN)
        .args(["mcp", "--stdio"])
        .env("CURBI_MCP_NOW", now.as_str().unwrap())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(format!("{call}\n").as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let v = &answer["result"]["structuredContent"];
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let items: Vec<Value> = v["items"].as_array().unwrap().iter().map(|i| i["reason"].clone()).collect();
    assert_eq!(json!({"ok": v["ok"], "reason": v["reason"], "items": items}), doc["expected"], "{answer}");
}
