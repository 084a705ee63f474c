//! The command's habits: help per subcommand, "did you mean", YAML wherever JSON is read, and `check --jsonl`.
//! Expected findings are worked by hand from the policy (Starter is $49) and the reply text; spans are UTF-16.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{Value, json};

mod common;

use common::BIN;

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run curbi")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A temp file with the given extension.
fn file(ext: &str, text: &str) -> PathBuf {
    let json = common::temp_file("habits", text.as_bytes());
    let path = json.with_extension(ext);
    std::fs::rename(&json, &path).unwrap();
    path
}

fn lines(out: &Output) -> Vec<Value> {
    stdout(out).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

const POLICY_JSON: &str =
    r#"{"prices":[{"item":"Starter","amount":49}],"forbid":[{"id":"promise","phrases":["guarantee"]}]}"#;
const POLICY_YAML: &str = "\
# the same policy as POLICY_JSON
prices:
  - item: Starter
    amount: 49
forbid:
  - id: promise
    phrases: [guarantee]
";

#[test]
fn each_subcommand_prints_its_own_help() {
    for (cmd, own, other) in [
        ("check", "curbi check --policy POLICY --jsonl IN", "curbi serve"),
        ("lint", "curbi lint [--pretty] [--strict] POLICY", "curbi check"),
        ("verify", "curbi verify BUNDLE --keys KEYS", "curbi lint"),
        ("purchase", "curbi purchase MANDATE CHECKOUT", "curbi verify"),
        ("serve", "curbi serve [--addr ADDR]", "curbi check"),
        ("export", "curbi export REQUEST --out DIR", "curbi replay"),
        ("replay", "curbi replay [--json] REGRESSION", "curbi export"),
        ("action", "curbi action GRANT ACTION", "curbi purchase"),
        ("checkout-digest", "curbi checkout-digest CHECKOUT", "curbi action"),
        ("vectors", "curbi vectors [--out DIR] [--check-file FILE] [--check]", "curbi verify"),
        ("recorder", "curbi recorder attest", "curbi verify"),
    ] {
        for args in [vec![cmd, "--help"], vec![cmd, "-h"], vec!["help", cmd]] {
            let out = run(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            let text = stdout(&out);
            assert!(text.contains(own), "{args:?}: {text}");
            assert!(!text.contains(other), "{args:?} shows another command's help: {text}");
        }
    }
    // After `--`, --help is a file name.
    let out = run(&["check", "--", "--help"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read --help"), "{}", stderr(&out));
}

#[test]
fn a_mistyped_command_gets_a_suggestion() {
    for (typed, want) in [("chek", "check"), ("verfy", "verify"), ("lnit", "lint"), ("recoder", "recorder")] {
        let out = run(&[typed, "x"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains(&format!("unknown command {typed}: did you mean '{want}'?")), "{}", stderr(&out));
    }
    let out = run(&["frobnicate"]);
    assert!(stderr(&out).contains("unknown command frobnicate\n"), "{}", stderr(&out));
}

#[test]
fn a_mistyped_policy_member_gets_a_suggestion_everywhere() {
    let request = r#"{"policy":{"prcies":[]},"reply":"x"}"#;
    let out = common::run_stdin(&["check", "-"], request.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["error"]["code"], "unknown_field");
    assert_eq!(doc["error"]["path"], "/policy/prcies");
    let msg = doc["error"]["message"].as_str().unwrap();
    assert!(msg.starts_with("unknown member 'prcies': did you mean 'prices'?"), "{msg}");
    // lint reports it the same way, from a YAML file.
    let out = run(&["lint", file("yaml", "prcies: []\n").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(doc["errors"][0]["message"].as_str().unwrap().contains("did you mean 'prices'?"), "{doc}");
}

#[test]
fn yaml_policies_and_requests_read_as_their_json() {
    let reply = "Starter costs $99, guarantee.";
    let json_req = format!(r#"{{"policy":{POLICY_JSON},"reply":"{reply}"}}"#);
    let yaml_req = format!(
        "policy:\n{}reply: \"{reply}\"\n",
        POLICY_YAML.lines().skip(1).map(|l| format!("  {l}\n")).collect::<String>()
    );
    let a = run(&["check", file("json", &json_req).to_str().unwrap()]);
    let b = run(&["check", file("yml", &yaml_req).to_str().unwrap()]);
    assert_eq!(a.status.code(), Some(1));
    assert_eq!(stdout(&a), stdout(&b));
    let doc: Value = serde_json::from_str(&stdout(&b)).unwrap();
    let rules: Vec<&str> = doc["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["price:mismatch", "forbid:promise"]);
    // lint of the YAML policy and of the JSON one: the same report.
    let a = run(&["lint", file("json", POLICY_JSON).to_str().unwrap()]);
    let b = run(&["lint", file("yaml", POLICY_YAML).to_str().unwrap()]);
    assert_eq!((a.status.code(), stdout(&a)), (b.status.code(), stdout(&b)));
}

#[test]
fn yaml_is_read_as_strictly_as_json() {
    for (yaml, code, path) in [
        ("prices:\n  - item: Starter\n    item: Pro\n    amount: 1\n", "duplicate_member", "/prices/0/item"),
        ("prices: [{item: A, amount: 1}]\nprices: []\n", "duplicate_member", "/prices"),
        ("base: &b {item: A, amount: 1}\nprices: [*b]\n", "invalid_json", "/prices/0"),
        ("prices: [{item: A, amount: .inf}]\n", "invalid_json", "/prices/0/amount"),
        ("prices: [{item: A, amount: 1}\n", "invalid_json", ""),
    ] {
        let out = run(&["lint", file("yaml", yaml).to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{yaml}");
        let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!((doc["error"]["code"].as_str(), doc["error"]["path"].as_str()), (Some(code), Some(path)), "{yaml}");
    }
    // A YAML amount keeps its digits: 49.00 is 49, so the reply's $49 matches.
    let policy = file("yaml", "prices:\n  - item: Starter\n    amount: 49.00\n");
    let input = file("jsonl", "{\"reply\":\"Starter costs $49.\"}\n");
    let out = run(&["check", "--policy", policy.to_str().unwrap(), "--jsonl", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn jsonl_streams_one_result_per_line_with_ids() {
    let policy = file("json", POLICY_JSON);
    let input = file(
        "jsonl",
        concat!(
            "{\"id\":\"a\",\"reply\":\"Starter costs $99.\"}\n",
            "\n",
            "{\"id\":\"b\",\"reply\":\"Starter costs $49.\"}\r\n",
            "{\"reply\":\"We guarantee it.\"}\n",
            "{\"id\":\"d\",\"reply\":7}\n",
            "not json\n",
            "{\"id\":\"f\",\"reply\":\"x\",\"reply\":\"y\"}", // no final newline
        ),
    );
    let out = run(&["check", "--policy", policy.to_str().unwrap(), "--jsonl", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "an invalid line: exit 2; {}", stderr(&out));
    assert_eq!(
        lines(&out),
        vec![
            json!({"index":0,"id":"a","pass":false,"findings":[{"rule":"price:mismatch","span":[14,17],"text":"$99","why":"Starter is $49, not $99."}]}),
            json!({"index":2,"id":"b","pass":true,"findings":[]}),
            json!({"index":3,"pass":false,"findings":[{"rule":"forbid:promise","span":[3,12],"text":"guarantee","why":"\"guarantee\" is a forbidden phrase."}]}), // docs/CHECKER.md
            json!({"index":4,"id":"d","error":{"code":"invalid_type","message":"expected a string, got number","path":"/reply"}}),
            json!({"index":5,"error":{"code":"invalid_json","message":lines(&out)[4]["error"]["message"],"path":""}}), // serde's wording
            json!({"index":6,"id":"f","error":{"code":"duplicate_member","message":"member \"reply\" appears more than once in its object","path":"/reply"}}),
        ]
    );
    assert!(lines(&out)[4]["error"]["message"].as_str().unwrap().starts_with("not valid JSON: "));
    assert!(stderr(&out).contains("curbi check: 6 case(s): 1 passed, 2 failed, 3 invalid in "), "{}", stderr(&out));
    // stderr is not a terminal here: no progress line.
    assert!(!stderr(&out).contains('\r'));
}

#[test]
fn jsonl_exit_status_and_stdin() {
    let policy = file("json", POLICY_JSON);
    let p = policy.to_str().unwrap();
    let pass = common::run_stdin(&["check", "--policy", p, "--jsonl", "-"], b"{\"reply\":\"Starter costs $49.\"}\n");
    assert_eq!(pass.status.code(), Some(0));
    let fail = common::run_stdin(&["check", "--policy", p, "--jsonl", "-"], b"{\"reply\":\"Starter is $1.\"}\n");
    assert_eq!(fail.status.code(), Some(1));
    let empty = common::run_stdin(&["check", "--policy", p, "--jsonl", "-"], b"");
    assert_eq!((empty.status.code(), stdout(&empty)), (Some(0), String::new()));
    // A bad policy is one error document, before any line is read.
    let bad = file("json", r#"{"prices":[{"item":""}]}"#);
    let out = common::run_stdin(&["check", "--policy", bad.to_str().unwrap(), "--jsonl", "-"], b"{\"reply\":\"x\"}\n");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(lines(&out).len(), 1);
    assert_eq!(lines(&out)[0]["error"]["path"], "/prices/0/item");
    for args in [
        &["check", "--jsonl", "-"][..],
        &["check", "--policy", p, "-"],
        &["check", "--policy", p, "--jsonl", "-", "--pretty"],
        &["check", "--record", p, "x.json"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(stderr(&out).contains("Usage:"), "{args:?}");
    }
}

#[test]
fn jsonl_keeps_input_order_across_blocks_and_threads() {
    // 10,001 lines: more than two blocks of 4,096, each split across threads. Every 7th reply quotes a wrong price.
    let n = 10_001;
    let mut text = String::new();
    for i in 0..n {
        let price = if i % 7 == 0 { 99 } else { 49 };
        text.push_str(&format!("{{\"id\":\"r{i}\",\"reply\":\"Reply {i}: Starter costs ${price}.\"}}\n"));
    }
    let policy = file("json", POLICY_JSON);
    let input = file("jsonl", &text);
    let out = run(&["check", "--policy", policy.to_str().unwrap(), "--jsonl", input.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let got = lines(&out);
    assert_eq!(got.len(), n);
    for (i, v) in got.iter().enumerate() {
        assert_eq!(v["index"], i);
        assert_eq!(v["id"], format!("r{i}"));
        assert_eq!(v["pass"], i % 7 != 0, "{v}");
    }
    let failed = (0..n).filter(|i| i % 7 == 0).count();
    let summary = format!("curbi check: {n} case(s): {} passed, {failed} failed in ", n - failed);
    assert!(stderr(&out).contains(&summary), "{}", stderr(&out));
}
