//! `curbi lint`, `curbi export` and `curbi replay` as CI would run them, and the exported test files run for real:
//! `regression.test.mjs` under plain `node --test` against a `curbi serve` started here on loopback, and
//! `test_regression.py` under pytest through a stand-in `curbi` module. Node, Python and pytest are required: when one
//! is missing these tests fail and say so, they never skip.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;

use common::BIN;

/// Seed 000 'Catch one reply' as three cases with ids, one of them passing, one with a record of its own.
fn catch_request() -> Value {
    json!({
        "policy": {
            "prices": [{"item": "Pro", "amount": 49}],
            "forbid": [{"id": "guarantee", "phrases": ["guarantee"]}],
            "actions": {"refunded": "billing.refund"}
        },
        "cases": [
            {"id": "catch-one-reply", "reply": "Done! I've refunded you, Pro is just $29, and we guarantee it."},
            {"id": "clean", "reply": "Pro is $49 a month. We do not guarantee results."},
            {"id": "refund-done", "reply": "I've refunded you 😀.",
             "record": {"effects": [{"operation": "billing.refund", "status": "DONE"}]}}
        ]
    })
}

/// A fresh, empty folder under cargo's per-test-target temp dir.
fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("regression-{name}-{}-{n}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_json(path: &Path, v: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(v).unwrap()).unwrap();
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn curbi(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run curbi")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn show(out: &Output) -> String {
    format!("status {:?}\nstdout:\n{}\nstderr:\n{}", out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// Exports `request` into a fresh folder and returns it.
fn export(name: &str, request: &Value, extra: &[&str]) -> PathBuf {
    let dir = temp_dir(name);
    let req = dir.join("request.json");
    write_json(&req, request);
    let out_dir = dir.join("out");
    let mut args = vec!["export", req.to_str().unwrap(), "--out", out_dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = curbi(&args);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    for f in ["regression.json", "regression.test.mjs", "test_regression.py"] {
        assert!(out_dir.join(f).is_file(), "{f} not written");
    }
    out_dir
}

/// Runs a command to completion with a deadline, so a hung child fails the test instead of hanging it.
fn run_with_deadline(mut cmd: Command, what: &str, secs: u64) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}. It is required by these tests (see the file header)."));
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t1 = std::thread::spawn(move || {
        let mut b = Vec::new();
        so.read_to_end(&mut b).ok();
        b
    });
    let t2 = std::thread::spawn(move || {
        let mut b = Vec::new();
        se.read_to_end(&mut b).ok();
        b
    });
    let deadline = Instant::now() + Duration::from_secs(secs);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            panic!("{what} did not finish within {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output { status, stdout: t1.join().unwrap(), stderr: t2.join().unwrap() }
}

/// A `curbi serve` on 127.0.0.1 with an ephemeral port, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start() -> Server {
        let mut child = common::spawn_serve();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stderr).lines();
            while let Some(Ok(line)) = lines.next() {
                if let Some(addr) = line.strip_prefix("curbi: listening on ") {
                    tx.send(addr.trim().to_owned()).ok();
                }
            }
        });
        let base = match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(a) => a,
            Err(_) => {
                child.kill().ok();
                panic!("curbi serve printed no listening address");
            }
        };
        assert!(base.starts_with("http://127.0.0.1:"), "{base}");
        Server { child, url: format!("{base}/v1/check") }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// `node --test regression.test.mjs` in `dir`, against `url`. Node is required: a missing node fails loudly.
fn node_test(dir: &Path, url: &str) -> Output {
    let version = run_with_deadline(
        {
            let mut c = Command::new("node");
            c.arg("--version");
            c
        },
        "node (Node 20 or later, needed to run the exported regression.test.mjs)",
        30,
    );
    let v = text(&version.stdout);
    let major: u32 = v.trim().trim_start_matches('v').split('.').next().unwrap_or("0").parse().unwrap_or(0);
    assert!(major >= 20, "Node 20 or later is required, found {v}");
    let mut cmd = Command::new("node");
    cmd.args(["--test", "regression.test.mjs"]).current_dir(dir).env("CURBI_CHECK_URL", url).env_remove("NODE_OPTIONS");
    run_with_deadline(cmd, "node --test", 120)
}

/// Changes one expectation in `dir/regression.json` and returns the original bytes.
fn tamper(dir: &Path, f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let path = dir.join("regression.json");
    let original = std::fs::read(&path).unwrap();
    let mut doc: Value = serde_json::from_slice(&original).unwrap();
    f(&mut doc);
    write_json(&path, &doc);
    original
}

#[test]
fn exported_node_test_passes_against_curbi_serve_and_fails_when_an_expectation_changes() {
    let dir = export("node", &catch_request(), &["--title", "Catch one reply (node)"]);
    let server = Server::start();

    let out = node_test(&dir, &server.url);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("# pass 3") && stdout.contains("# fail 0"), "{stdout}");
    assert!(stdout.contains("Catch one reply (node) [checker 2026-12-04]"), "{stdout}");

    // One rule changed in case 0: that test fails, the others still pass.
    let original = tamper(&dir, |d| d["cases"][0]["expected"]["rules"][2] = json!("price:unknown"));
    let out = node_test(&dir, &server.url);
    assert_ne!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("# pass 2") && stdout.contains("# fail 1"), "{stdout}");
    assert!(stdout.contains("price:unknown"), "the failure shows the difference: {stdout}");
    std::fs::write(dir.join("regression.json"), &original).unwrap();

    // One verdict changed in the passing case.
    tamper(&dir, |d| d["cases"][1]["expected"]["pass"] = json!(false));
    let out = node_test(&dir, &server.url);
    assert_ne!(out.status.code(), Some(0), "{}", show(&out));
    assert!(text(&out.stdout).contains("# fail 1"), "{}", show(&out));
    std::fs::write(dir.join("regression.json"), &original).unwrap();

    // One span changed.
    tamper(&dir, |d| d["cases"][0]["expected"]["findings"][1]["span"] = json!([36, 40]));
    let out = node_test(&dir, &server.url);
    assert!(text(&out.stdout).contains("# fail 1"), "{}", show(&out));
    std::fs::write(dir.join("regression.json"), &original).unwrap();

    let out = node_test(&dir, &server.url);
    assert_eq!(out.status.code(), Some(0), "restored: {}", show(&out));
}

#[test]
fn node_test_fails_when_the_check_api_is_unreachable() {
    let dir = export("unreachable", &catch_request(), &[]);
    // A port that was free a moment ago and has no listener now.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = node_test(&dir, &format!("http://127.0.0.1:{port}/v1/check"));
    assert_ne!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("# fail 3") && stdout.contains("cannot reach the Check API"), "{stdout}");
}

#[test]
fn node_test_pins_the_checker_version_and_batches_large_regressions() {
    // 2026-10-27 reads '$10k' as '$10' and does not negate after a phrase (docs/CHECKER_VERSIONS.md).
    let mut cases = vec![
        json!({"id": "magnitude", "reply": "Enterprise starts at $10k."}),
        json!({"id": "negated-after", "reply": "Refunds are not available."}),
    ];
    // Enough long replies that one request would exceed the Check API's 64 KiB: the file sends several.
    let filler = "Enterprise is $10,000 a year. ".repeat(100);
    for i in 0..28 {
        cases.push(json!({"id": format!("long-{i}"), "reply": filler.trim_end()}));
    }
    let request = json!({
        "policy": {"prices": [{"item": "Enterprise", "amount": 10000}], "forbid": [{"id": "refund", "phrases": ["refund"]}]},
        "cases": cases
    });
    assert!(serde_json::to_vec(&request).unwrap().len() > 80 * 1024);
    let dir = export("pinned", &request, &["--checker", "2026-10-27", "--title", "pinned"]);
    let doc = read_json(&dir.join("regression.json"));
    assert_eq!(doc["checker"], "2026-10-27");
    assert_eq!(doc["cases"][0]["expected"]["rules"], json!(["price:mismatch"]));
    assert_eq!(doc["cases"][1]["expected"]["rules"], json!(["forbid:refund"]));

    let server = Server::start();
    let out = node_test(&dir, &server.url);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(text(&out.stdout).contains("# pass 30"), "{}", show(&out));

    // The same expectations under a later checker (2026-11-01) do not hold: the file really sends the pinned version.
    tamper(&dir, |d| d["checker"] = json!("2026-11-01"));
    let out = node_test(&dir, &server.url);
    assert_ne!(out.status.code(), Some(0), "{}", show(&out));
    assert!(text(&out.stdout).contains("# fail 2"), "{}", show(&out));
}

#[test]
fn replay_passes_then_fails_with_a_per_case_diff_after_tampering() {
    let dir = export("replay", &catch_request(), &[]);
    let file = dir.join("regression.json");
    let path = file.to_str().unwrap();

    let out = curbi(&["replay", path]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(text(&out.stdout).starts_with("replay \"Curbi regression\" (checker 2026-12-04): 3 case(s), 0 failed"));

    tamper(&dir, |d| {
        d["cases"][0]["expected"]["rules"][2] = json!("price:unknown");
        d["cases"][0]["expected"]["findings"][1]["rule"] = json!("price:unknown");
    });
    let out = curbi(&["replay", path]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let report = text(&out.stdout);
    assert!(report.contains("3 case(s), 1 failed"), "{report}");
    assert!(report.contains("FAIL case 0 (\"catch-one-reply\")"), "{report}");
    assert!(report.contains("missing:    price:unknown [37, 40) \"$29\""), "{report}");
    assert!(report.contains("unexpected: price:mismatch [37, 40) \"$29\""), "{report}");
    assert!(report.contains("ok   case 1 (\"clean\")"), "{report}");

    let out = curbi(&["replay", "--json", path]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((doc["total"].clone(), doc["failed"].clone()), (json!(3), json!(1)));
    assert_eq!(doc["cases"][0]["diff"]["missing"][0]["rule"], "price:unknown");
}

#[test]
fn export_then_replay_gives_the_verdicts_of_curbi_check() {
    let dir = export("roundtrip", &catch_request(), &[]);
    let doc = read_json(&dir.join("regression.json"));
    // The same request through `curbi check`: the exported expectations are its verdicts and findings.
    let req = temp_dir("roundtrip-check").join("request.json");
    write_json(&req, &catch_request());
    let out = curbi(&["check", req.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let check: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = check["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for (i, r) in results.iter().enumerate() {
        let want = &doc["cases"][i];
        assert_eq!(want["id"], r["id"]);
        assert_eq!(want["expected"]["pass"], r["pass"], "case {i}");
        assert_eq!(want["expected"]["findings"], curbi_testkit::expected_findings(r), "case {i}");
    }
    // Seed 000's three findings, worked out by hand in vectors/check/00-seed.json.
    assert_eq!(
        doc["cases"][0]["expected"]["rules"],
        json!(["action:unrecorded", "forbid:guarantee", "price:mismatch"])
    );
    assert_eq!(doc["cases"][2]["record"], json!({"effects": [{"operation": "billing.refund", "status": "DONE"}]}));
    assert_eq!(curbi(&["replay", dir.join("regression.json").to_str().unwrap()]).status.code(), Some(0));
}

/// A stand-in for the future `curbi` Python package: `curbi.check(dict) -> dict` through `curbi check -`.
const PY_SHIM: &str = r#"import json, os, subprocess

def check(request):
    out = subprocess.run([os.environ["CURBI_BIN"], "check", "-"], input=json.dumps(request).encode(),
                         capture_output=True, check=False)
    if out.returncode not in (0, 1):
        raise RuntimeError(out.stdout.decode() + out.stderr.decode())
    return json.loads(out.stdout)
"#;

fn pytest(dir: &Path, shim: &str) -> Output {
    let shim_dir = dir.join("shim");
    std::fs::create_dir_all(&shim_dir).unwrap();
    std::fs::write(shim_dir.join("curbi.py"), shim).unwrap();
    // An empty config of our own, so no pytest configuration above the temp dir applies.
    std::fs::write(dir.join("pytest.ini"), "[pytest]\n").unwrap();
    let mut cmd = Command::new("python3");
    cmd.args(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-c", "pytest.ini", "test_regression.py"])
        .current_dir(dir)
        .env("PYTHONPATH", &shim_dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("CURBI_BIN", BIN);
    let out = run_with_deadline(cmd, "python3 -m pytest (Python 3 with pytest: python3 -m pip install pytest)", 120);
    assert!(!text(&out.stderr).contains("No module named pytest"), "pytest is required: python3 -m pip install pytest");
    out
}

#[test]
fn exported_pytest_file_replays_through_a_curbi_check_function_and_skips_without_the_package() {
    let dir = export("pytest", &catch_request(), &[]);

    let out = pytest(&dir, PY_SHIM);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(text(&out.stdout).contains("3 passed"), "{}", show(&out));

    let original = tamper(&dir, |d| d["cases"][2]["expected"]["pass"] = json!(false));
    let out = pytest(&dir, PY_SHIM);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(text(&out.stdout).contains("1 failed, 2 passed"), "{}", show(&out));
    std::fs::write(dir.join("regression.json"), &original).unwrap();

    // Without the package (the import fails as a missing module does), every test is skipped, with the reason.
    let missing = "raise ModuleNotFoundError(\"No module named 'curbi'\", name='curbi')\n";
    let out = pytest(&dir, missing);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("3 skipped"), "{stdout}");
    assert!(stdout.contains("the curbi Python package is not installed"), "{stdout}");
}

#[test]
fn lint_prints_the_report_and_exits_by_validity() {
    let dir = temp_dir("lint");
    let seed = dir.join("seed.json");
    write_json(&seed, &json!({"prices": [{"item": "Starter", "amount": 49}]}));
    let out = curbi(&["lint", seed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(text(&out.stdout), "{\"valid\":true,\"errors\":[],\"warnings\":[]}\n");

    let warn = dir.join("warn.json");
    write_json(&warn, &json!({"forbid": [{"id": "hype", "phrases": ["!!!"]}]}));
    let out = curbi(&["lint", warn.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "warnings alone keep a policy valid: {}", show(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["warnings"][0]["code"], "rule_never_fires");
    assert_eq!(doc["warnings"][0]["path"], "/forbid/0/phrases/0");
    assert_eq!(curbi(&["lint", "--strict", warn.to_str().unwrap()]).status.code(), Some(1));

    let bad = dir.join("bad.json");
    write_json(&bad, &json!({"prices": [{"item": "Pro", "amount": 49, "amounts": [49]}], "extra": 1}));
    let out = curbi(&["lint", "--pretty", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<(&str, &str)> = doc["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["code"].as_str().unwrap(), e["path"].as_str().unwrap()))
        .collect();
    assert_eq!(errors, [("unknown_field", "/extra"), ("conflicting_fields", "/prices/0/amounts")]);

    // Unreadable: no such file (a message on stderr), or not JSON (the error document).
    let out = curbi(&["lint", dir.join("missing.json").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read"), "{}", show(&out));
    let mut child = Command::new(BIN).args(["lint", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"{\"prices\":").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["error"]["code"], "invalid_json");

    assert_eq!(curbi(&["lint"]).status.code(), Some(2));
    assert_eq!(curbi(&["lint", "--bogus", seed.to_str().unwrap()]).status.code(), Some(2));
}

#[test]
fn export_refuses_bad_requests_and_arguments_without_writing() {
    let dir = temp_dir("export-errors");
    let out_dir = dir.join("out");
    let out_arg = out_dir.to_str().unwrap().to_owned();
    let req = |name: &str, v: Value| {
        let p = dir.join(name);
        write_json(&p, &v);
        p.to_str().unwrap().to_owned()
    };
    let policy = json!({"prices": [{"item": "Starter", "amount": 49}]});
    let cases = [
        (json!({"policy": policy, "reply": "x", "verify": "required"}), "invalid_enum", "/verify"),
        (json!({"policy": policy, "reply": "x", "record": {"receipts": ["r"]}}), "unsupported", "/record/receipts"),
        (json!({"version": "2026-10-27", "policy": policy, "reply": "x"}), "invalid_enum", "/version"),
        (json!({"reply": "x"}), "missing_field", "/policy"),
    ];
    for (i, (request, code, path)) in cases.into_iter().enumerate() {
        let out = curbi(&["export", &req(&format!("r{i}.json"), request), "--out", &out_arg]);
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((doc["error"]["code"].as_str(), doc["error"]["path"].as_str()), (Some(code), Some(path)));
        assert!(!out_dir.exists(), "nothing is written for a refused request");
    }
    let good = req("good.json", json!({"policy": policy, "reply": "Starter is $49.", "title": "from the file"}));
    // --title replaces the request's title and is held to the same 80-character limit.
    let long = "x".repeat(81);
    let out = curbi(&["export", &good, "--out", &out_arg, "--title", &long]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stdout).contains("\"path\":\"/title\""), "{}", show(&out));
    let out = curbi(&["export", &good, "--out", &out_arg, "--title=From the flag"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(read_json(&out_dir.join("regression.json"))["title"], "From the flag");

    assert_eq!(curbi(&["export", &good]).status.code(), Some(2), "--out is required");
    assert_eq!(curbi(&["export", &good, "--out", &out_arg, "--checker", "2099-01-01"]).status.code(), Some(2));
    assert_eq!(curbi(&["export", "--out", &out_arg]).status.code(), Some(2), "REQUEST is required");
    // An --out that cannot be a folder: a file is in the way.
    let blocked = dir.join("blocked");
    std::fs::write(&blocked, "a file").unwrap();
    let out = curbi(&["export", &good, "--out", blocked.join("sub").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("cannot create"), "{}", show(&out));
}

#[test]
fn replay_refuses_what_is_not_a_regression() {
    let dir = temp_dir("replay-errors");
    let p = dir.join("r.json");
    write_json(&p, &catch_request());
    let out = curbi(&["replay", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "a check request is not a regression: {}", show(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (doc["error"]["code"].as_str(), doc["error"]["path"].as_str()),
        (Some("missing_field"), Some("/object"))
    );
    std::fs::write(&p, b"not json").unwrap();
    let out = curbi(&["replay", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap()["error"]["code"], "invalid_json");
    assert_eq!(curbi(&["replay", dir.join("nope.json").to_str().unwrap()]).status.code(), Some(2));
    assert_eq!(curbi(&["replay"]).status.code(), Some(2));
}
