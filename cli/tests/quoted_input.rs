//! Issue 43 part C for the `curbi` command's usage errors: an argument quoted in a message is a bounded excerpt with
//! the marker `… (N bytes)`, whatever its length (an unknown command, option or argument of 100,000 characters).
#![allow(clippy::unwrap_used)]

use std::process::{Command, Stdio};

mod common;

use common::BIN;

/// Far more than any message about it may hold: its stderr must not grow with it.
const LONG: usize = 100_000;

#[test]
fn usage_errors_quote_an_argument_as_a_bounded_excerpt() {
    let long = "k".repeat(LONG);
    let request = common::temp_file("quoted", br#"{"policy":{},"reply":"hi"}"#);
    let request = request.to_str().unwrap();
    let cases: Vec<Vec<String>> = vec![
        vec![long.clone()],
        vec!["check".into(), format!("--{long}"), request.into()],
        vec!["check".into(), request.into(), format!("--keyz={long}")],
        vec!["verify".into(), request.into(), format!("--{long}")],
        vec!["vectors".into(), format!("--{long}")],
        vec!["serve".into(), format!("--{long}")],
        vec!["tiles".into(), "bundle".into(), format!("--keys={long}")],
        vec!["lint".into(), format!("--{long}")],
        vec!["export".into(), format!("--{long}=x")],
    ];
    for args in cases {
        let out = Command::new(BIN).args(&args).stdin(Stdio::null()).output().unwrap();
        let shown: Vec<String> = args.iter().map(|a| a.chars().take(20).collect()).collect();
        assert_eq!(out.status.code(), Some(2), "{shown:?}: {}", String::from_utf8_lossy(&out.stderr));
        // The usage text may follow the message; the message itself is its first line.
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr.lines().next().unwrap_or_default();
        assert!(first.len() < 400, "{shown:?}: a message of {} bytes: {:.300}", first.len(), first);
        assert!(out.stdout.len() + out.stderr.len() < 20_000, "{shown:?}: the output grew with the argument");
        assert!(!stderr.contains(&"k".repeat(65)), "{shown:?}: more than an excerpt: {first:.300}");
        if first.contains('…') {
            assert!(first.contains(" bytes)"), "{shown:?}: an excerpt says what it left out: {first:.300}");
        }
    }
}
