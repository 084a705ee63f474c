//! The published log read by clients that share no code with Curbi, and heads cosigned by an existing witness
//! (docs/RECORDER.md §Publishing the log, §Witnesses). Needs the Go tools built by testkit/tlog/test.sh, which runs
//! these tests (`CURBI_TLOG_BIN`: the folder holding `tlog`, torchwood's `litewitness` and `witnessctl`).
#![allow(clippy::panic)]

mod common;

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use curbi::encoding::decode_std;
use curbi::proof::VerifyingKey;
use curbi::proof::note::{NoteVerifier, SignatureKind};
use curbi_recorder::sqlite::SqliteStore;
use curbi_recorder::witness::{Sharing, Witness};
use curbi_recorder::{Recorder, Storage};
use serde_json::{Value, json};

fn bin(name: &str) -> PathBuf {
    let dir = std::env::var("CURBI_TLOG_BIN").expect("CURBI_TLOG_BIN: run testkit/tlog/test.sh");
    Path::new(&dir).join(name)
}

/// Runs the Go client on `dir`; its JSON summary, or its error text.
fn go_client(dir: &Path, vkey: &str, extra: &[String]) -> Result<Value, String> {
    let out = Command::new(bin("tlog"))
        .arg("-dir")
        .arg(dir)
        .args(["-vkey", vkey])
        .args(extra)
        .output()
        .expect("runs the Go client");
    if out.status.success() {
        Ok(serde_json::from_slice(&out.stdout).expect("a JSON summary"))
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
#[ignore = "needs the Go tools: testkit/tlog/test.sh"]
fn the_go_tlog_client_reads_the_published_log() {
    let tmp = tempfile::tempdir().expect("dir");
    let r = fresh_log(tmp.path(), "log.db");
    let out = tmp.path().join("public");
    let mut old = Vec::new();
    for size in [100u64, 300, 600] {
        grow(&r, size, "rf");
        let head = call(&r, "checkpoint", "{}")["note"].as_str().expect("note").to_string();
        r.publish(&out).expect("publishes");
        if size < 600 {
            let file = tmp.path().join(format!("head-{size}"));
            std::fs::write(&file, head).expect("writes");
            old.extend(["-old".to_string(), file.to_string_lossy().into_owned()]);
        }
    }
    let vkey = call(&r, "status", "{}")["vkey"].as_str().expect("vkey").to_string();
    let summary = go_client(&out, &vkey, &old).unwrap_or_else(|e| panic!("the Go client refused the log: {e}"));
    assert_eq!(
        summary,
        json!({"origin": ORIGIN, "size": 600, "entries": 600, "inclusion_proofs": 600, "consistent_with": [100, 300],
               "witnesses": []})
    );

    // The Go client can fail: a head of a fork (same key, other entries) is not a prefix of the published log,
    // another key does not verify the checkpoint, and a flipped bit in a tile breaks the root.
    let fork = fresh_log(tmp.path(), "fork.db");
    grow(&fork, 150, "other");
    let forked = tmp.path().join("fork-head");
    std::fs::write(&forked, call(&fork, "checkpoint", "{}")["note"].as_str().expect("note")).expect("writes");
    let err = go_client(&out, &vkey, &["-old".into(), forked.to_string_lossy().into_owned()]).expect_err("a fork");
    assert!(err.contains("not a prefix"), "{err}");
    let other = call(&open(&tmp.path().join("k2.db"), 2, "k2", T0), "status", "{}")["vkey"].clone();
    assert!(go_client(&out, other.as_str().expect("vkey"), &[]).is_err(), "another key");
    let mut tile = std::fs::read(out.join("tile/0/001")).expect("tile");
    tile[100] ^= 1;
    std::fs::write(out.join("tile/0/001"), tile).expect("writes");
    assert!(go_client(&out, &vkey, &[]).is_err(), "a tampered tile");
}

/// Our own processes, killed by their ids when the test ends.
#[derive(Default)]
struct Processes(Vec<(String, Child)>);

impl Processes {
    fn stop(&mut self, name: &str) {
        for (n, c) in self.0.iter_mut().filter(|(n, _)| n == name) {
            let _ = c.kill();
            let _ = c.wait();
            n.clear();
        }
    }
}

impl Drop for Processes {
    fn drop(&mut self) {
        for (_, c) in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn wait_for(what: &str, ready: impl Fn() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(start.elapsed() < Duration::from_secs(20), "{what} did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("runs");
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// One litewitness: its key in a dedicated ssh-agent, its database knowing our log and its key.
struct Lite {
    name: String,
    dir: PathBuf,
    port: u16,
    fingerprint: String,
    verifier: NoteVerifier,
}

impl Lite {
    fn new(root: &Path, i: usize, log_vkey: &str, procs: &mut Processes) -> Lite {
        let name = format!("witness.test/w{i}");
        let dir = root.join(format!("w{i}"));
        std::fs::create_dir_all(&dir).expect("dir");
        let key = dir.join("key");
        run(Command::new("ssh-keygen").args(["-q", "-t", "ed25519", "-N", "", "-C", &name, "-f"]).arg(&key));
        let sock = dir.join("agent.sock");
        let agent = Command::new("ssh-agent").arg("-D").arg("-a").arg(&sock).stdout(Stdio::null()).spawn();
        procs.0.push((format!("agent{i}"), agent.expect("ssh-agent")));
        // The socket may exist a moment before the agent accepts on it.
        wait_for("ssh-agent", || {
            let add =
                Command::new("ssh-add").arg("-q").arg(&key).env("SSH_AUTH_SOCK", &sock).stderr(Stdio::null()).status();
            add.is_ok_and(|s| s.success())
        });
        let fp = run(Command::new("ssh-keygen").args(["-l", "-E", "sha256", "-f"]).arg(dir.join("key.pub")));
        let fingerprint = fp.split_whitespace().nth(1).expect("a fingerprint").to_string();
        let db = dir.join("witness.db");
        run(Command::new(bin("witnessctl")).args(["add-log", "-origin", ORIGIN, "-db"]).arg(&db));
        run(Command::new(bin("witnessctl")).args(["add-key", "-origin", ORIGIN, "-key", log_vkey, "-db"]).arg(&db));
        // The witness's public key, from its OpenSSH form: the last 32 bytes of the ssh-ed25519 blob.
        let public = std::fs::read_to_string(dir.join("key.pub")).expect("key.pub");
        let blob = decode_std(public.split_whitespace().nth(1).expect("blob")).expect("base64");
        let key = VerifyingKey::from_slice(&blob[blob.len() - 32..]).expect("an Ed25519 key");
        let verifier = NoteVerifier::new(&name, SignatureKind::CosignatureV1, key).expect("a verifier");
        let port = TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("addr").port();
        let lite = Lite { name, dir, port, fingerprint, verifier };
        lite.start(i, procs);
        lite
    }

    fn start(&self, i: usize, procs: &mut Processes) {
        let child = Command::new(bin("litewitness"))
            .args(["-name", &self.name, "-key", &self.fingerprint, "-listen", &format!("127.0.0.1:{}", self.port)])
            .arg("-db")
            .arg(self.dir.join("witness.db"))
            .arg("-ssh-agent")
            .arg(self.dir.join("agent.sock"))
            .stderr(std::fs::File::create(self.dir.join(format!("log-{}", procs.0.len()))).expect("log"))
            .spawn()
            .expect("litewitness");
        procs.0.push((format!("w{i}"), child));
        wait_for("litewitness", || TcpStream::connect(("127.0.0.1", self.port)).is_ok());
    }

    fn witness(&self) -> Witness {
        Witness::new(&self.verifier.to_vkey(), &format!("http://127.0.0.1:{}", self.port), "/witnesses/0")
            .expect("a witness")
    }
}

fn answers(head: &Value) -> Vec<(String, String)> {
    let list = head["witnesses"].as_array().unwrap_or_else(|| panic!("no witness answers: {head}"));
    list.iter()
        .map(|a| {
            let detail = a["error"].as_str().unwrap_or("").to_string();
            (a["status"].as_str().expect("status").to_string(), detail)
        })
        .collect()
}

fn verify_with(r: &Recorder, witnesses: &[String], required: usize) -> Value {
    let size = call(r, "status", "{}")["size"].as_u64().expect("size");
    let bundle = call(r, "bundle", &json!({"receipts": (0..size).collect::<Vec<_>>()}).to_string());
    let request = json!({"bundle": bundle, "keys": call(r, "keys", "{}"),
                         "witnesses": {"keys": witnesses, "required": required}});
    let text = curbi::api::verify_bundle_json(request.to_string().as_bytes()).expect("verifies");
    serde_json::from_str(&text).expect("JSON")
}

#[test]
#[ignore = "needs the Go tools: testkit/tlog/test.sh"]
fn litewitnesses_cosign_each_head_and_the_verifier_counts_them() {
    let tmp = tempfile::tempdir().expect("dir");
    let db = tmp.path().join("log.db");
    let r = open(&db, 1, "k1", T0);
    call(&r, "grant", &refund_grant().to_string());
    let vkey = call(&r, "status", "{}")["vkey"].as_str().expect("vkey").to_string();
    let mut procs = Processes::default();
    let lites: Vec<Lite> = (0..3).map(|i| Lite::new(tmp.path(), i, &vkey, &mut procs)).collect();
    let out = tmp.path().join("public");
    r.share_heads(Sharing {
        witnesses: lites.iter().map(Lite::witness).collect(),
        timeout: Duration::from_secs(3),
        publish: Some(out.clone()),
    })
    .expect("shares");
    let pinned: Vec<String> = lites.iter().map(|l| l.verifier.to_vkey()).collect();

    // All three cosign the first head; the verifier's 2-of-3 and 3-of-3 pass; so does the Go client's 3-of-3.
    grow(&r, 5, "rf");
    let head = call(&r, "checkpoint", "{}");
    assert!(answers(&head).iter().all(|(s, _)| s == "cosigned"), "{head}");
    let note = head["note"].as_str().expect("note");
    assert_eq!(note.lines().filter(|l| l.starts_with('\u{2014}')).count(), 5, "two log lines and three witnesses");
    assert_eq!(std::fs::read_to_string(out.join("checkpoint")).expect("published"), note);
    assert_eq!(verify_with(&r, &pinned, 2)["ok"], true);
    assert_eq!(verify_with(&r, &pinned, 3)["ok"], true);
    let mut go_args: Vec<String> = pinned.iter().flat_map(|k| ["-witness".to_string(), k.clone()]).collect();
    go_args.extend(["-required".into(), "3".into()]);
    let summary = go_client(&out, &vkey, &go_args).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(summary["witnesses"].as_array().map(Vec::len), Some(3), "{summary}");

    // Two witnesses down: receipts go on, the head is signed and published with one cosignature, and the
    // verifier's 2-of-3 fails with its reason while 1-of-3 passes.
    procs.stop("w1");
    procs.stop("w2");
    grow(&r, 8, "rf");
    let head = call(&r, "checkpoint", "{}");
    let got = answers(&head);
    assert_eq!(got[0].0, "cosigned", "{head}");
    assert!(got[1..].iter().all(|(s, e)| s == "failed" && !e.is_empty()), "{head}");
    assert_eq!(head["published"]["size"], 8);
    let two = verify_with(&r, &pinned, 2);
    assert_eq!((two["ok"].as_bool(), two["reason"].as_str()), (Some(false), Some("history_unproven")), "{two}");
    assert_eq!(verify_with(&r, &pinned, 1)["ok"], true);

    // w1 back: the next head is cosigned from the size it last cosigned (5), with a consistency proof to 10.
    lites[1].start(1, &mut procs);
    grow(&r, 10, "rf");
    let head = call(&r, "checkpoint", "{}");
    let got: Vec<String> = answers(&head).into_iter().map(|(s, _)| s).collect();
    assert_eq!(got, ["cosigned", "cosigned", "failed"], "{head}");
    assert_eq!(verify_with(&r, &pinned, 2)["ok"], true);

    // The recorder forgot where w0 stands (a restored backup): w0 answers 409 with its size and the retry with the
    // right consistency proof is cosigned.
    let store = SqliteStore::open(&db).expect("opens");
    store.write(&mut |tx| tx.set_meta("witness.witness.test/w0.size", "0")).expect("writes");
    grow(&r, 12, "rf");
    let head = call(&r, "checkpoint", "{}");
    assert_eq!(answers(&head)[0].0, "cosigned", "{head}");

    // A fork under the same key and origin: w0 tells it its size (12), and refuses the consistency proof the fork
    // offers from there (422); the fork's head never gets w0's line.
    let fork = fresh_log(tmp.path(), "fork.db");
    grow(&fork, 13, "other");
    call(&fork, "checkpoint", "{}");
    let cosigned = fork.cosign(&[lites[0].witness()], Duration::from_secs(3)).expect("asks");
    let w0 = &cosigned.witnesses[0];
    assert_eq!(w0.status, "failed");
    assert!(w0.error.as_deref().unwrap_or("").starts_with("422"), "{w0:?}");
    assert!(!cosigned.note.contains("witness.test/w0"));
    // The same size with another root: 409 on the retry, never a cosignature.
    let fork12 = fresh_log(tmp.path(), "fork12.db");
    grow(&fork12, 12, "other");
    call(&fork12, "checkpoint", "{}");
    let cosigned = fork12.cosign(&[lites[0].witness()], Duration::from_secs(3)).expect("asks");
    assert_eq!(cosigned.witnesses[0].status, "failed", "{cosigned:?}");
    assert!(!cosigned.note.contains("witness.test/w0"));
}
