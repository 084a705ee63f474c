//! Issue 43 part C for YAML policies on the command line: `curbi lint` names, beside each error's JSON pointer, the
//! YAML line and column where that field is written (the author edits the YAML, not the JSON it stands for).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::process::{Command, Stdio};

mod common;

use common::BIN;

#[test]
fn lint_of_a_yaml_policy_names_the_yaml_line_and_column_of_each_error() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("yaml-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let policy = dir.join("policy.yaml");
    // Hand-worked: the amount -5 is under the key on line 3, column 5; the misspelt key on line 5, column 5; the
    // missing amount of the second item is told at the item, which starts on line 4, column 5.
    std::fs::write(&policy, "prices:\n  - item: Pro\n    amount: -5\n  - item: Team\n    amout: 3\n").unwrap();
    let out = Command::new(BIN).arg("lint").arg(&policy).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = report["errors"].as_array().unwrap();
    let at = |path: &str| {
        let e = errors.iter().find(|e| e["path"] == path).unwrap_or_else(|| panic!("no error at {path}: {report}"));
        e["message"].as_str().unwrap().to_owned()
    };
    assert!(at("/prices/0/amount").ends_with(" (YAML line 3, column 5)"), "{report}");
    assert!(at("/prices/1/amout").ends_with(" (YAML line 5, column 5)"), "{report}");
    if errors.iter().any(|e| e["path"] == "/prices/1/amount") {
        assert!(at("/prices/1/amount").ends_with(" (YAML line 4, column 5)"), "{report}");
    }
    // The same policy as JSON keeps its messages as they were: no position is claimed.
    let json = dir.join("policy.json");
    std::fs::write(&json, r#"{"prices":[{"item":"Pro","amount":-5}]}"#).unwrap();
    let out = Command::new(BIN).arg("lint").arg(&json).stdin(Stdio::null()).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("YAML line"));
    std::fs::remove_dir_all(&dir).unwrap();
}
