//! The golden oracle (`vectors/golden/`): every check vector, every pinned regression and generated replies, under
//! every checker version, answered byte for byte as the C ABI and the server answer them (`check_json_with`).
//!
//! `inputs.jsonl` holds the requests (made once, from the commit its header names); `<version>.jsonl` holds one row a
//! request for that checker version. `CURBI_GOLDEN=add cargo test -p curbi --test golden` writes the rows of a
//! version that has none yet (and the inputs, when there are none); it never rewrites an existing file.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;
#[path = "golden/generator.rs"]
mod generator;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use curbi::CheckerVersion;
use serde_json::{Value, json};

use common::{group_files, load, vectors};

fn golden() -> PathBuf {
    vectors().join("golden")
}

/// One request of the oracle.
#[derive(Debug, Clone, PartialEq)]
struct Input {
    id: String,
    /// `check`, `export` or `replay`.
    kind: String,
    /// The member that names the checker (`version`, or `checker` for a replay), written first into `body` for each
    /// version; `None` when the request is the same under every version (a bad version, say).
    pin: Option<String>,
    /// The request as compact JSON text without the pinned member.
    body: String,
    /// Receipt keys the policy is compiled with (configuration, never part of the request).
    receipts: Option<String>,
}

impl Input {
    fn to_line(&self) -> String {
        let mut v = json!({"id": self.id, "kind": self.kind, "pin": self.pin, "body": self.body});
        if let Some(r) = &self.receipts {
            v["receipts"] = json!(r);
        }
        v.to_string()
    }

    fn from_line(line: &str) -> Input {
        let v: Value = serde_json::from_str(line).unwrap();
        Input {
            id: v["id"].as_str().unwrap().to_string(),
            kind: v["kind"].as_str().unwrap().to_string(),
            pin: v["pin"].as_str().map(str::to_string),
            body: v["body"].as_str().unwrap().to_string(),
            receipts: v.get("receipts").map(|r| r.as_str().unwrap().to_string()),
        }
    }

    /// The request's bytes under `version`: the pinned member first, then the rest as stored.
    fn bytes(&self, version: CheckerVersion) -> String {
        match &self.pin {
            None => self.body.clone(),
            Some(member) => {
                let rest = &self.body[1..];
                let sep = if rest == "}" { "" } else { "," };
                format!("{{\"{member}\":\"{}\"{sep}{rest}", version.as_str())
            }
        }
    }

    /// The response bytes the wire gives, or the error document the C ABI gives.
    fn answer(&self, version: CheckerVersion) -> String {
        let body = self.bytes(version);
        let result = match self.kind.as_str() {
            "check" => {
                let keys = self
                    .receipts
                    .as_ref()
                    .map(|r| Arc::new(curbi::api::ReceiptVerifier::from_json(r.as_bytes()).unwrap()));
                curbi::api::check_json_with(body.as_bytes(), keys.as_ref()).map(|r| r.to_json_string())
            }
            "export" => curbi::api::export_regression_json(body.as_bytes()),
            "replay" => curbi::api::replay_regression_json(body.as_bytes()),
            other => panic!("{}: unknown kind {other}", self.id),
        };
        result.unwrap_or_else(|e| e.to_json().to_string())
    }
}

/// A request object with its checker member taken out when it names a version.
fn unpinned(id: String, kind: &str, member: &str, mut request: Value, receipts: Option<String>) -> Input {
    let Some(obj) = request.as_object_mut() else {
        // Not an object (a bad document): the same bytes under every version.
        return Input { id, kind: kind.to_string(), pin: None, body: request.to_string(), receipts };
    };
    let pin = match obj.get(member) {
        None => Some(member.to_string()),
        Some(v) if v.as_str().and_then(CheckerVersion::parse).is_some() => {
            obj.remove(member);
            Some(member.to_string())
        }
        Some(_) => None,
    };
    Input { id, kind: kind.to_string(), pin, body: request.to_string(), receipts }
}

/// The requests of the shared vectors and of the generator, in a fixed order.
fn make_inputs() -> Vec<Input> {
    let mut out = Vec::new();
    for path in group_files("check") {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        for (i, case) in load(&path)["cases"].as_array().unwrap().iter().enumerate() {
            let receipts = case.get("receipts").map(|r| r.to_string());
            out.push(unpinned(format!("check/{file}#{i}"), "check", "version", case["request"].clone(), receipts));
        }
    }
    for path in group_files("regression") {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        for (i, case) in load(&path)["cases"].as_array().unwrap().iter().enumerate() {
            let id = format!("regression/{file}#{i}");
            if let Some(args) = case.get("export") {
                out.push(unpinned(id, "export", "version", args.clone(), None));
            } else {
                out.push(unpinned(id, "replay", "checker", case["replay"].clone(), None));
            }
        }
    }
    out.extend(generated());
    out
}

fn generated() -> Vec<Input> {
    generator::requests(generator::SEED)
        .into_iter()
        .map(|(id, req)| unpinned(id, "check", "version", req, None))
        .collect()
}

fn head_commit() -> String {
    let out = std::process::Command::new("git").args(["rev-parse", "HEAD"]).current_dir(vectors()).output();
    out.ok().filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap()
}

fn read_lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(str::to_string).collect()
}

fn version_file(version: CheckerVersion) -> PathBuf {
    golden().join(format!("{}.jsonl", version.as_str()))
}

/// Writes what is missing, never what is there: the inputs when there are none, and each version without rows.
fn add_missing() {
    std::fs::create_dir_all(golden()).unwrap();
    let commit = head_commit();
    let inputs_path = golden().join("inputs.jsonl");
    if !inputs_path.exists() {
        let inputs = make_inputs();
        let header = json!({"oracle": "curbi golden inputs", "commit": commit, "generator": generator::NAME,
            "requests": inputs.len()});
        let mut text = header.to_string() + "\n";
        for i in &inputs {
            text += &(i.to_line() + "\n");
        }
        std::fs::write(&inputs_path, text).unwrap();
    }
    let inputs = load_inputs().1;
    for version in CheckerVersion::ALL {
        let path = version_file(version);
        if path.exists() {
            continue;
        }
        let header = json!({"oracle": "curbi golden responses", "version": version.as_str(), "commit": commit,
            "generator": generator::NAME, "inputs": "inputs.jsonl", "rows": inputs.len()});
        let mut text = header.to_string() + "\n";
        for i in &inputs {
            text += &(json!({"id": i.id, "response": i.answer(version)}).to_string() + "\n");
        }
        std::fs::write(&path, text).unwrap();
    }
}

fn load_inputs() -> (Value, Vec<Input>) {
    let lines = read_lines(&golden().join("inputs.jsonl"));
    let header: Value = serde_json::from_str(&lines[0]).unwrap();
    (header, lines[1..].iter().map(|l| Input::from_line(l)).collect())
}

#[test]
fn the_checker_gives_the_oracle_byte_for_byte() {
    if std::env::var("CURBI_GOLDEN").as_deref() == Ok("add") {
        add_missing();
    }
    let (header, inputs) = load_inputs();
    assert_eq!(header["requests"].as_u64(), Some(inputs.len() as u64), "inputs.jsonl: header counts its requests");
    let mut ids: Vec<&str> = inputs.iter().map(|i| i.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), inputs.len(), "inputs.jsonl: ids are unique");
    let generated_count = inputs.iter().filter(|i| i.id.starts_with("gen/")).count();
    assert!(generated_count >= 400, "only {generated_count} generated requests");

    // Every version has its rows: one a request, in order, none missing and none extra.
    let mut files: Vec<String> = std::fs::read_dir(golden())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "inputs.jsonl" && n.ends_with(".jsonl"))
        .collect();
    files.sort();
    let expected_files: Vec<String> = CheckerVersion::ALL.iter().map(|v| format!("{}.jsonl", v.as_str())).collect();
    assert_eq!(files, expected_files, "one rows file per checker version (CURBI_GOLDEN=add writes a new one)");

    let (mut ran, mut failures) = (0, Vec::new());
    for version in CheckerVersion::ALL {
        let lines = read_lines(&version_file(version));
        let head: Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(head["version"], version.as_str());
        assert_eq!(lines.len() - 1, inputs.len(), "{}: one row a request", version.as_str());
        for (input, line) in inputs.iter().zip(&lines[1..]) {
            let row: Value = serde_json::from_str(line).unwrap();
            assert_eq!(row["id"], input.id.as_str(), "{}: rows in the inputs' order", version.as_str());
            let want = row["response"].as_str().unwrap();
            let got = input.answer(version);
            ran += 1;
            if got != want {
                failures.push(format!(
                    "{} {}\n  request:  {}\n  oracle:   {want}\n  now:      {got}",
                    version.as_str(),
                    input.id,
                    input.bytes(version)
                ));
            }
        }
    }
    println!("golden: {ran} rows ran ({} requests, {} versions), {} differ", inputs.len(), files.len(), failures.len());
    let shown: Vec<&String> = failures.iter().take(20).collect();
    assert!(
        failures.is_empty(),
        "{} of {ran} rows differ:\n{}",
        failures.len(),
        shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
}

/// The generator still makes the requests the oracle holds (it is seeded and uses no outside randomness), and every
/// reply family is there.
#[test]
fn the_generator_makes_the_oracles_inputs() {
    let (header, inputs) = load_inputs();
    assert_eq!(header["generator"], generator::NAME);
    let stored: Vec<&Input> = inputs.iter().filter(|i| i.id.starts_with("gen/")).collect();
    let made = generated();
    assert_eq!(stored.len(), made.len());
    for (s, m) in stored.iter().zip(&made) {
        assert_eq!(*s, m, "{}: the generator no longer makes this request", m.id);
    }
    let replies: usize = made
        .iter()
        .map(|i| {
            let v: Value = serde_json::from_str(&i.body).unwrap();
            v["cases"].as_array().map_or(1, Vec::len)
        })
        .sum();
    assert!(replies >= 2500, "only {replies} generated replies");
}
