//! vectors/recorder/scenarios.json run through the recorder's JSON calls on any store: tests/vectors.rs on SQLite
//! files, tests/postgres.rs on PostgreSQL databases (every binding runs the same file).

use std::path::Path;

use curbi_recorder::Recorder;
use serde_json::{Value, json};

pub fn vectors() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/recorder/scenarios.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("reads")).expect("JSON")
}

/// `expect` holds in `got`: objects by their listed members, arrays element by element, the rest equal.
fn holds(expect: &Value, got: &Value) -> bool {
    match (expect, got) {
        (Value::Object(e), Value::Object(g)) => e.iter().all(|(k, v)| g.get(k).is_some_and(|gv| holds(v, gv))),
        (Value::Array(e), Value::Array(g)) => e.len() == g.len() && e.iter().zip(g).all(|(a, b)| holds(a, b)),
        _ => expect == got,
    }
}

fn open(doc: &Value, db: &str, keys: &Path, spec: &Value) -> Result<Recorder, curbi::Error> {
    let kid = spec["key"].as_str().expect("key");
    let key_file = keys.join(format!("{kid}.jwk"));
    write_private(&key_file, doc["keys"][kid]["jwk"].as_str().expect("jwk"));
    let mut config = json!({"path": db, "origin": doc["origin"], "key_file": key_file, "now": spec["now"]});
    if let Some(r) = spec.get("rotate") {
        config["rotate"] = r.clone();
    }
    curbi_recorder::api::open_json(config.to_string().as_bytes())
}

fn write_private(path: &Path, text: &str) {
    use std::io::Write;
    let _ = std::fs::remove_file(path);
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path).and_then(|mut f| f.write_all(text.as_bytes())).expect("writes the key file");
}

fn substitute(request: &Value, heads: &[Value]) -> Value {
    match request {
        Value::String(s) if s == "$heads" => Value::Array(heads.to_vec()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), substitute(v, heads))).collect()),
        other => other.clone(),
    }
}

/// Runs every scenario, scenario `n` on the database `db(n)` (a SQLite path or a PostgreSQL URL) with its key files
/// in `keys`; writes the bundles it verified to `out` when given. Returns the number of steps checked.
pub fn run_scenarios(db: &mut dyn FnMut(usize) -> String, keys: &Path, out: Option<&Path>) -> usize {
    let doc = vectors();
    let mut checked = 0;
    for (n, scenario) in doc["scenarios"].as_array().expect("scenarios").iter().enumerate() {
        let name = scenario["name"].as_str().expect("name");
        let db = db(n);
        let keys = keys.join(format!("s{n}"));
        std::fs::create_dir_all(&keys).expect("key dir");
        let mut r = Some(open(&doc, &db, &keys, &scenario["open"]).expect("opens"));
        let mut answers: Vec<Option<String>> = Vec::new();
        let mut heads: Vec<Value> = Vec::new();
        for (i, step) in scenario["steps"].as_array().expect("steps").iter().enumerate() {
            let at = format!("{name}, step {i}");
            if let Some(spec) = step.get("reopen") {
                // A reopen that fails leaves the recorder that was open as it was.
                match (open(&doc, &db, &keys, spec), step.get("error")) {
                    (Ok(opened), None) => r = Some(opened),
                    (Err(e), Some(want)) => {
                        assert_eq!(json!({"code": e.code.as_str(), "path": e.path}), *want, "{at}");
                    }
                    (Ok(_), Some(want)) => panic!("{at}: opened, expected {want}"),
                    (Err(e), None) => panic!("{at}: {e}"),
                }
                answers.push(None);
                continue;
            }
            let recorder = r.as_ref().expect("open");
            let method = step["call"].as_str().expect("call");
            let body = match step.get("request_text") {
                Some(t) => t.as_str().expect("text").to_string(),
                None => substitute(&step["request"], &heads).to_string(),
            };
            let result = recorder.call_json(method, body.as_bytes());
            match (result, step.get("error")) {
                (Err(e), Some(want)) => {
                    assert_eq!(json!({"code": e.code.as_str(), "path": e.path}), *want, "{at}: {e}");
                    answers.push(None);
                }
                (Ok(text), None) => {
                    let got: Value = serde_json::from_str(&text).expect("JSON");
                    if let Some(e) = step.get("expect") {
                        assert!(holds(e, &got), "{at}: expected {e}, got {got}");
                    }
                    for m in step.get("present").and_then(Value::as_array).into_iter().flatten() {
                        assert!(got.get(m.as_str().expect("name")).is_some(), "{at}: {m} missing in {got}");
                    }
                    for m in step.get("absent").and_then(Value::as_array).into_iter().flatten() {
                        assert!(got.get(m.as_str().expect("name")).is_none(), "{at}: {m} present in {got}");
                    }
                    if let Some(j) = step.get("same_as").and_then(Value::as_u64) {
                        let earlier = answers[j as usize].as_deref().expect("an answer there");
                        assert_eq!(text, earlier, "{at}: not byte-identical to step {j}");
                    }
                    if method == "checkpoint" {
                        let note = got["note"].clone();
                        if !heads.contains(&note) {
                            heads.push(note);
                        }
                    }
                    if step.get("verify") == Some(&Value::Bool(true)) {
                        let keys: Value =
                            serde_json::from_str(&recorder.call_json("keys", b"{}").expect("keys")).expect("JSON");
                        let request = json!({"bundle": got, "keys": keys, "known": heads});
                        let verdict = curbi::api::verify_bundle_json(request.to_string().as_bytes()).expect("verifies");
                        let v: Value = serde_json::from_str(&verdict).expect("JSON");
                        assert_eq!(v["ok"], true, "{at}: {v}");
                        if let Some(out) = out {
                            let file = out.join(format!("s{n}-{i}"));
                            std::fs::write(file.with_extension("bundle.json"), &text).expect("writes");
                            std::fs::write(file.with_extension("keys.json"), keys.to_string()).expect("writes");
                        }
                    }
                    answers.push(Some(text));
                }
                (Ok(text), Some(want)) => panic!("{at}: answered {text}, expected {want}"),
                (Err(e), None) => panic!("{at}: {e}"),
            }
            checked += 1;
        }
    }
    checked
}
