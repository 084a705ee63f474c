//! The differential test's first half (docs/DOCUMENTS.md): every shared vector (check, lint, regression, purchase,
//! action, checkout digest, proof, documents) becomes one or more calls of the entry points every binding has,
//! written with the core's answer to `$CURBI_DIFFERENTIAL_DIR/calls.jsonl` (default `target/differential`). Each
//! binding then makes the same calls and writes what it got (scripts/differential.sh); `scripts/differential.py`
//! requires the bytes to be the core's, call for call. Run alone it only checks that the calls are many and well
//! formed.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::io::Write as _;
use std::path::PathBuf;

use curbi::api::{self, CheckOptions, SpanUnit};
use curbi::{CompiledPolicy, Error};
use serde_json::{Value, json};

/// An error as every binding writes it: `{"error":{"code","message","path"}}`, members in that order.
fn error_doc(e: &Error) -> String {
    e.to_json().to_string()
}

fn answer(r: curbi::Result<String>) -> String {
    r.unwrap_or_else(|e| error_doc(&e))
}

/// `policy_check`: compile `policy` (with `receipts` keys, JSON text or none), check `reply` with `options` (JSON
/// text or none), in `unit`.
fn policy_check(policy: &str, receipts: Option<&str>, reply: &str, options: Option<&str>, unit: SpanUnit) -> String {
    let run = || -> curbi::Result<String> {
        let p = CompiledPolicy::from_json_with_receipts(policy.as_bytes(), receipts.unwrap_or("").as_bytes())?;
        let o = CheckOptions::from_json(options.unwrap_or("").as_bytes())?;
        Ok(api::check_one(&p, reply, &o, unit)?.to_json_string())
    };
    answer(run())
}

/// `verifier`: build a verifier from `options`, verify `bundle` with it.
fn verifier(options: &str, bundle: &str) -> String {
    answer(api::Verifier::from_json(options.as_bytes()).and_then(|v| v.verify_json(bundle.as_bytes())))
}

/// The answer of a one-document entry point.
fn single(entry: &str, input: &str) -> String {
    let b = input.as_bytes();
    answer(match entry {
        "check" => api::check_json(b).map(|r| r.to_json_string()),
        "validate_policy" => api::validate_policy_json(b),
        "export_regression" => api::export_regression_json(b),
        "replay_regression" => api::replay_regression_json(b),
        "verify_checkout" => api::verify_checkout_json(b),
        "verify_action" => api::verify_action_json(b),
        "checkout_digest" => api::checkout_digest_json(b),
        "verify_bundle" => api::verify_bundle_json(b),
        other => panic!("unknown entry {other}"),
    })
}

struct Calls(Vec<Value>);

/// A compiled policy's inputs besides the policy and the reply: each as JSON text or none.
#[derive(Default)]
struct Options<'a> {
    record: Option<String>,
    version: Option<&'a str>,
    verify: Option<&'a str>,
    /// The receipt keys the policy is compiled with.
    receipts: Option<String>,
}

impl Calls {
    fn one(&mut self, id: String, entry: &str, input: String) {
        let out = single(entry, &input);
        self.0.push(json!({"id": id, "entry": entry, "input": input, "out": out}));
    }

    /// The Check API in one call with receipt keys from configuration (`check` with a `receipts` member).
    fn check_with_receipts(&mut self, id: String, input: String, receipts: String) {
        let verifier = api::ReceiptVerifier::from_json(receipts.as_bytes()).map(std::sync::Arc::new);
        let out = answer(verifier.and_then(|v| Ok(api::check_json_with(input.as_bytes(), Some(&v))?.to_json_string())));
        self.0.push(json!({"id": id, "entry": "check", "input": input, "receipts": receipts, "out": out}));
    }

    /// `record` (JSON text, kept as written), `version` and `verify` are also given whole as `options`, for the
    /// bindings that take one options document (C, Node) rather than apart (Go, Python).
    fn policy_check(&mut self, id: String, policy: String, reply: &str, o: Options<'_>) {
        let mut members = Vec::new();
        if let Some(r) = &o.record {
            members.push(format!(r#""record":{r}"#));
        }
        if let Some(v) = o.version {
            members.push(format!(r#""version":{}"#, Value::String(v.to_owned())));
        }
        if let Some(v) = o.verify {
            members.push(format!(r#""verify":{}"#, Value::String(v.to_owned())));
        }
        let options = (!members.is_empty()).then(|| format!("{{{}}}", members.join(",")));
        let keys = o.receipts.as_deref();
        let utf8 = policy_check(&policy, keys, reply, options.as_deref(), SpanUnit::Utf8);
        let utf16 = policy_check(&policy, keys, reply, options.as_deref(), SpanUnit::Utf16);
        let call = json!({"id": id, "entry": "policy_check", "policy": policy, "reply": reply, "options": options,
                          "record": o.record, "version": o.version, "verify": o.verify, "receipts": o.receipts,
                          "out": {"utf8": utf8, "utf16": utf16}});
        self.0.push(call);
    }

    fn verifier(&mut self, id: String, options: String, bundle: String) {
        let out = verifier(&options, &bundle);
        self.0.push(json!({"id": id, "entry": "verifier", "options": options, "bundle": bundle, "out": out}));
    }
}

fn each_case(group: &str, mut f: impl FnMut(String, &Value, &Value)) {
    for path in common::group_files(group) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc = common::load(&path);
        let Some(cases) = doc["cases"].as_array() else { continue };
        for (i, case) in cases.iter().enumerate() {
            f(format!("{group}/{name}#{i}"), &doc, case);
        }
    }
}

fn build() -> Vec<Value> {
    let mut calls = Calls(Vec::new());
    each_case("check", |id, _, case| {
        let request = &case["request"];
        let receipts = case.get("receipts").map(Value::to_string);
        match &receipts {
            Some(keys) => calls.check_with_receipts(format!("{id}/check"), request.to_string(), keys.clone()),
            None => calls.one(format!("{id}/check"), "check", request.to_string()),
        }
        // The compiled path, when the request is one reply the options can carry.
        let members = ["policy", "reply", "record", "version", "verify"];
        let fits = request.as_object().unwrap().keys().all(|k| members.contains(&k.as_str()));
        let strings = ["version", "verify"].iter().all(|k| request.get(*k).is_none_or(Value::is_string));
        if fits && strings && request["reply"].is_string() && request["policy"].is_object() {
            let options = Options {
                record: request.get("record").map(Value::to_string),
                version: request.get("version").and_then(Value::as_str),
                verify: request.get("verify").and_then(Value::as_str),
                receipts,
            };
            let reply = request["reply"].as_str().unwrap();
            calls.policy_check(format!("{id}/policy_check"), request["policy"].to_string(), reply, options);
        }
    });
    each_case("lint", |id, _, case| {
        calls.one(format!("{id}/validate_policy"), "validate_policy", case["policy"].to_string())
    });
    each_case("regression", |id, _, case| match (case.get("export"), case.get("replay")) {
        (Some(e), _) => calls.one(format!("{id}/export_regression"), "export_regression", e.to_string()),
        (_, Some(r)) => calls.one(format!("{id}/replay_regression"), "replay_regression", r.to_string()),
        _ => panic!("{id}: neither export nor replay"),
    });
    each_case("purchase", |id, group, case| {
        let entry = if group["check"] == "action" { "verify_action" } else { "verify_checkout" };
        calls.one(format!("{id}/{entry}"), entry, case["input"].to_string());
        if let Some(checkout) = case["input"].get("checkout") {
            calls.one(format!("{id}/checkout_digest"), "checkout_digest", checkout.to_string());
        }
    });
    each_case("checkout_digest", |id, _, case| {
        calls.one(format!("{id}/checkout_digest"), "checkout_digest", case["checkout"].as_str().unwrap().to_owned());
    });
    let index = common::load(&common::vectors().join("proof/cases.json"));
    for case in index["cases"].as_array().unwrap() {
        let file = case["file"].as_str().unwrap();
        let doc = common::load(&common::vectors().join("proof").join(file));
        let input = &doc["input"];
        let id = format!("proof/{file}");
        calls.one(format!("{id}/verify_bundle"), "verify_bundle", input.to_string());
        if let Some(obj) = input.as_object()
            && let Some(bundle) = obj.get("bundle")
        {
            let mut options = obj.clone();
            options.remove("bundle");
            calls.verifier(format!("{id}/verifier"), Value::Object(options).to_string(), bundle.to_string());
        }
    }
    each_case("documents", |id, _, case| {
        let text = case["text"].as_str().unwrap().to_owned();
        match case["entry"].as_str().unwrap() {
            "compile_policy" => calls.policy_check(format!("{id}/policy_check"), text, "", Options::default()),
            "record" => {
                let options = Options { record: Some(text), ..Options::default() };
                calls.policy_check(format!("{id}/policy_check"), "{}".to_owned(), "Hi", options)
            }
            "verifier_options" => calls.verifier(format!("{id}/verifier"), text, "{}".to_owned()),
            entry => calls.one(format!("{id}/{entry}"), entry, text),
        }
    });
    calls.0
}

#[test]
fn differential_calls() {
    let calls = build();
    let dir = std::env::var_os("CURBI_DIFFERENTIAL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/differential"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut file = std::io::BufWriter::new(std::fs::File::create(dir.join("calls.jsonl")).unwrap());
    for c in &calls {
        writeln!(file, "{c}").unwrap();
    }
    file.flush().unwrap();
    let count = |entry: &str| calls.iter().filter(|c| c["entry"] == entry).count();
    println!(
        "differential calls: {} ({} check, {} policy_check, {} checkout_digest, {} verify_bundle, {} verifier)",
        calls.len(),
        count("check"),
        count("policy_check"),
        count("checkout_digest"),
        count("verify_bundle"),
        count("verifier")
    );
    // Every group contributes: a loader that found nothing would make the comparison vacuous.
    for group in ["check/", "lint/", "regression/", "purchase/", "checkout_digest/", "proof/", "documents/"] {
        assert!(calls.iter().any(|c| c["id"].as_str().unwrap().starts_with(group)), "no calls from {group}");
    }
}
