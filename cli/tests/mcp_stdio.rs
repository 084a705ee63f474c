//! The `curbi mcp --stdio` process on bytes that are not UTF-8 (issue 43): each such line is answered JSON-RPC
//! -32700 (as an HTTP body is) and the session carries on to answer the valid request after it.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use serde_json::{Value, json};

use common::run_stdin;

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
