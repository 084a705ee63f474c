//! Runs the shared regression vectors in `vectors/regression/` (export and replay, whole documents compared), and
//! round-trips every check vector through export and replay.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use curbi::CheckerVersion;
use curbi::regression::{self, export_regression, export_regression_pinned, parse_regression, replay};
use serde_json::{Value, json};

use common::{cases, group_files, load};

fn error_doc(e: &curbi::Error) -> Value {
    json!({"error": {"code": e.code.as_str(), "path": e.path}})
}

#[test]
fn regression_vectors() {
    let files = group_files("regression");
    let (mut ran, mut exports, mut replays, mut failures) = (0, 0, 0, Vec::new());
    for path in &files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc = load(path);
        let cases = cases(&file, &doc);
        for (i, case) in cases.iter().enumerate() {
            let obj = case.as_object().unwrap();
            assert_eq!(obj.len(), 3, "{file}#{i}: description, export | replay, expected");
            assert!(case["description"].as_str().is_some_and(|d| !d.is_empty()), "{file}#{i}: description");
            let got = if let Some(request) = obj.get("export") {
                exports += 1;
                match export_regression(request) {
                    Ok(r) => {
                        // The compact and pretty forms are the same document.
                        let compact: Value = serde_json::from_str(&r.to_json_string()).unwrap();
                        let pretty: Value = serde_json::from_str(&r.to_json_pretty()).unwrap();
                        assert_eq!(compact, pretty, "{file}#{i}");
                        compact
                    }
                    Err(e) => error_doc(&e),
                }
            } else if let Some(document) = obj.get("replay") {
                replays += 1;
                match replay(document) {
                    Ok(r) => serde_json::from_str(&r.to_json_string()).unwrap(),
                    Err(e) => error_doc(&e),
                }
            } else {
                panic!("{file}#{i}: needs 'export' or 'replay'");
            };
            ran += 1;
            if got != case["expected"] {
                failures.push(format!(
                    "{file}#{i} {}\n  expected: {}\n  got:      {got}",
                    case["description"].as_str().unwrap_or(""),
                    case["expected"]
                ));
            }
        }
    }
    println!(
        "regression vectors: {ran} ran ({exports} export, {replays} replay), {} failed, in {} files",
        failures.len(),
        files.len()
    );
    assert!(exports > 0 && replays > 0, "no export or no replay vectors ran");
    assert!(failures.is_empty(), "{} of {ran} regression vectors failed:\n{}", failures.len(), failures.join("\n"));
}

/// Every check vector that export accepts (no receipts, no `verify: "required"`) round-trips: its exported
/// expectations equal the hand-worked check vector's findings (rule, span, text), and replaying the export with its
/// pinned checker holds for every case. Check vectors pinned to 2026-10-27 are exported with that checker.
#[test]
fn every_check_vector_round_trips_through_export_and_replay() {
    let (mut exported, mut refused) = (0, 0);
    for path in group_files("check") {
        let doc = load(&path);
        for (i, case) in doc["cases"].as_array().unwrap().iter().enumerate() {
            let label = format!("{}#{i}", path.file_name().unwrap().to_string_lossy());
            let expected = &case["expected"];
            if expected.get("error").is_some() {
                continue;
            }
            let mut request = case["request"].clone();
            let checker = match request.as_object_mut().unwrap().remove("version") {
                Some(v) => CheckerVersion::parse(v.as_str().unwrap()).unwrap(),
                None => CheckerVersion::CURRENT,
            };
            let r = match export_regression_pinned(&request, checker) {
                Ok(r) => r,
                Err(e) => {
                    // Receipts are `unsupported`; `verify: "required"` is outside the export schema's enum.
                    let verify = e.code == curbi::ErrorCode::InvalidEnum && e.path == "/verify";
                    assert!(e.code == curbi::ErrorCode::Unsupported || verify, "{label}: {e}");
                    refused += 1;
                    continue;
                }
            };
            exported += 1;
            assert_eq!(r.checker, checker, "{label}");
            let hand: Vec<&Value> = match expected["object"].as_str() {
                Some("check") => vec![expected],
                _ => expected["results"].as_array().unwrap().iter().collect(),
            };
            assert_eq!(r.cases.len(), hand.len(), "{label}");
            for (k, (c, h)) in r.cases.iter().zip(&hand).enumerate() {
                assert_eq!(c.expected.pass, h["pass"].as_bool().unwrap(), "{label} case {k}");
                let findings = curbi_testkit::expected_findings(h);
                assert_eq!(serde_json::to_value(&c.expected.findings).unwrap(), findings, "{label} {k}");
            }
            // Through the document's bytes, as CI would read regression.json.
            let back: Value = serde_json::from_str(&r.to_json_pretty()).unwrap();
            assert_eq!(parse_regression(&back).unwrap(), r, "{label}: parse(to_json) differs");
            let report = replay(&back).unwrap();
            assert!(report.pass, "{label}: {}", report.to_text());
        }
    }
    println!("export/replay round trip: {exported} check vectors exported and replayed, {refused} refused");
    assert!(exported > 200, "only {exported} exported");
}

/// A regression pinned to 2026-10-27 keeps its expectations: replay runs 2026-10-27 whatever the current checker,
/// and the same replies exported with the current checker expect something else.
#[test]
fn a_pinned_checker_keeps_its_expectations() {
    let request = json!({
        "policy": {"prices": [{"item": "Enterprise", "amount": 10000}], "forbid": [{"id": "refund", "phrases": ["refund"]}]},
        "cases": [{"reply": "Refunds are not available."}, {"reply": "Enterprise starts at $10k."}]
    });
    let old = export_regression_pinned(&request, CheckerVersion::V2026_10_27).unwrap();
    let new = export_regression(&request).unwrap();
    assert_eq!(new.checker, CheckerVersion::CURRENT);
    assert!(old.cases.iter().all(|c| !c.expected.pass), "2026-10-27 finds both (docs/CHECKER_VERSIONS.md)");
    assert!(new.cases.iter().all(|c| c.expected.pass), "2026-11-01 passes both");
    let doc: Value = serde_json::from_str(&old.to_json_string()).unwrap();
    assert_eq!(doc["checker"], "2026-10-27");
    assert!(replay(&doc).unwrap().pass, "replay must use the pinned 2026-10-27");
    let mut repinned = doc.clone();
    repinned["checker"] = json!("2026-11-01");
    let report = replay(&repinned).unwrap();
    assert!(!report.pass && report.cases.iter().all(|c| !c.ok), "{}", report.to_text());
}

/// The generated test files name the regression safely and carry no expectation of their own: they read
/// regression.json.
#[test]
fn generated_files_read_the_json_beside_them() {
    let r = export_regression(&json!({
        "policy": {"prices": [{"item": "Starter", "amount": 49}]},
        "reply": "Starter is $99.",
        "title": "line\u{2028}break */ \"quoted\""
    }))
    .unwrap();
    let node = r.node_test();
    let py = r.pytest();
    assert!(node.contains("new URL('./regression.json', import.meta.url)"));
    assert!(py.contains("with_name(\"regression.json\")"));
    assert!(py.contains("pytest.importorskip("));
    for text in [&node, &py] {
        assert!(text.contains(r#"Regression: "line\u2028break */ \"quoted\"""#), "{text}");
        assert!(!text.contains('\u{2028}'));
        assert!(!text.contains("$99"), "expectations must come from regression.json only");
    }
    assert_eq!(regression::NODE_TEST_FILE, "regression.test.mjs");
    assert_eq!(regression::PYTEST_FILE, "test_regression.py");
}
