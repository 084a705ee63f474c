//! The advice in the `unsupported` error of receipts without receipt keys (issue 43): every `curbi` option it names
//! exists in that command's help, and following each named setting really configures receipt keys.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::process::Command;

use serde_json::{Value, json};

use common::{BIN, temp_file};

fn receipt_cases() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors/check/99-receipts.json");
    let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    doc["cases"].as_array().unwrap().clone()
}

/// The vectors' request refused without receipt keys (verify "required", no receipts) and the receipt keys, test-key
/// permission and clock of their first case.
fn fixtures() -> (Value, Value) {
    let cases = receipt_cases();
    let refused = cases.iter().find(|c| c["expected"]["error"]["path"] == "/verify").expect("the refused case");
    assert_eq!(refused["expected"]["error"]["code"], "unsupported");
    (refused["request"].clone(), cases[0]["receipts"].clone())
}

/// The words of a help text: runs of letters, digits and dashes (`[--keys KEYS]` holds `--keys`).
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).filter(|w| !w.is_empty()).collect()
}

/// `curbi mcp --stdio` with `env`, one `policy_check` of `request`: the tool result.
fn policy_check_over_stdio(request: &Value, env: &[(&str, &str)]) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "policy_check", "arguments": request}});
    let mut cmd = Command::new(BIN);
    cmd.args(["mcp", "--stdio"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_stdin_with(cmd, format!("{call}\n").as_bytes());
    let line = String::from_utf8(out).unwrap();
    let doc: Value = serde_json::from_str(line.lines().next().expect("an answer")).unwrap();
    doc["result"].clone()
}

fn run_stdin_with(mut cmd: Command, input: &[u8]) -> Vec<u8> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    out.stdout
}

#[test]
fn receipt_key_advice_names_only_settings_that_exist_and_work() {
    let (request, receipts) = fixtures();
    let request_file = temp_file("advice-req", request.to_string().as_bytes());
    let keys_file = temp_file("advice-keys", receipts["keys"].to_string().as_bytes());
    let (req, keys) = (request_file.to_str().unwrap(), keys_file.to_str().unwrap());
    let now = receipts["now"].as_str().unwrap();

    // Without keys: the error document, whose message is the advice under test.
    let out = Command::new(BIN).args(["check", req]).output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((doc["error"]["code"].as_str(), doc["error"]["path"].as_str()), (Some("unsupported"), Some("/verify")));
    let advice = doc["error"]["message"].as_str().unwrap().to_owned();

    let (mut options, mut variables) = (0, 0);
    for quoted in advice.split('`').skip(1).step_by(2) {
        if let Some(command) = quoted.strip_prefix("curbi ") {
            let mut it = command.split_whitespace();
            let sub = it.next().unwrap();
            let help = Command::new(BIN).args([sub, "--help"]).output().unwrap();
            assert!(help.status.success(), "`curbi {sub} --help` failed: the advice names a command that is not one");
            let help = format!("{}{}", String::from_utf8_lossy(&help.stdout), String::from_utf8_lossy(&help.stderr));
            for option in it.filter(|w| w.starts_with("--")) {
                assert!(words(&help).contains(&option), "`curbi {sub}` has no {option}: {advice}");
                options += 1;
            }
            if sub == "check" && command.contains("--keys") {
                // Following it: the same request is checked (no receipt backs the claim), not refused.
                let args = ["check", "--keys", keys, "--allow-test", "--now", now, req];
                let out = Command::new(BIN).args(args).output().unwrap();
                let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(doc["findings"][0]["rule"], "action:unverified", "{doc}");
                assert_eq!(out.status.code(), Some(1));
            }
        } else if quoted.starts_with("CURBI_") {
            // The server's setting: unset, policy_check refuses as `curbi check` did; set, it checks.
            let refused = policy_check_over_stdio(&request, &[]);
            assert_eq!(refused["isError"], true, "{refused}");
            assert_eq!(refused["structuredContent"]["error"]["code"], "unsupported", "{refused}");
            let env = [(quoted, keys), ("CURBI_RECEIPT_ALLOW_TEST", "1"), ("CURBI_RECEIPT_NOW", now)];
            let checked = policy_check_over_stdio(&request, &env);
            assert_eq!(checked["isError"], false, "{quoted} did not configure receipt keys: {checked}");
            assert_eq!(checked["structuredContent"]["findings"][0]["rule"], "action:unverified", "{checked}");
            variables += 1;
        }
    }
    assert!(options >= 1 && variables >= 1, "the advice names no option or no setting: {advice}");
    std::fs::remove_file(request_file).ok();
    std::fs::remove_file(keys_file).ok();
}
