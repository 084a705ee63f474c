//! Runs the built `curbi verify` and `curbi vectors` the way CI and an auditor would: the committed vectors match the
//! generator byte for byte, and verify's exit statuses (0 verified, 1 rejected, 2 unreadable input).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_curbi");

fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors/proof")
}

fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("proof-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn curbi(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn status(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn result(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", String::from_utf8_lossy(&o.stdout)))
}

/// One vector's request, as the files `curbi verify` reads: bundle, keys and known heads.
struct Files {
    bundle: PathBuf,
    keys: PathBuf,
    known: Vec<PathBuf>,
}

fn vector_files(name: &str) -> Files {
    let doc: Value = serde_json::from_slice(&std::fs::read(vectors().join(format!("{name}.json"))).unwrap()).unwrap();
    let dir = temp_dir(name);
    let input = &doc["input"];
    let bundle = write(&dir, "bundle.json", &serde_json::to_vec(&input["bundle"]).unwrap());
    let keys = write(&dir, "keys.json", &serde_json::to_vec(&input["keys"]).unwrap());
    let known = input["known"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, k)| write(&dir, &format!("known-{i}.txt"), k.as_str().unwrap().as_bytes()))
        .collect();
    Files { bundle, keys, known }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn committed_vectors_match_the_generator() {
    let out = curbi(&["vectors", "--check", "--out", s(&vectors())]);
    assert_eq!(status(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("match the generator"));
}

#[test]
fn vectors_regenerate_byte_for_byte_and_check_catches_a_difference() {
    let dir = temp_dir("regen");
    let out = curbi(&["vectors", "--out", s(&dir)]);
    assert_eq!(status(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name();
        assert_eq!(
            std::fs::read(dir.join(&name)).unwrap(),
            std::fs::read(vectors().join(&name)).unwrap(),
            "{name:?} regenerates byte for byte"
        );
    }
    assert_eq!(status(&curbi(&["vectors", "--check", "--out", s(&dir)])), 0);
    // One changed byte, one extra file, one missing file: each is a difference.
    let path = dir.join("tampered-amount.json");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 2;
    bytes[last] ^= 0x20;
    std::fs::write(&path, bytes).unwrap();
    let out = curbi(&["vectors", "--check", "--out", s(&dir)]);
    assert_eq!(status(&out), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("tampered-amount.json"));
    assert_eq!(status(&curbi(&["vectors", "--out", s(&dir)])), 0);
    write(&dir, "extra.json", b"{}");
    assert_eq!(status(&curbi(&["vectors", "--check", "--out", s(&dir)])), 1);
    std::fs::remove_file(dir.join("extra.json")).unwrap();
    std::fs::remove_file(dir.join("cases.json")).unwrap();
    assert_eq!(status(&curbi(&["vectors", "--check", "--out", s(&dir)])), 1);
}

#[test]
fn verify_exit_zero_when_the_bundle_verifies() {
    let bundle = vectors().join("bundle.valid.json");
    let keys = vectors().join("keys.test.json");
    let out = curbi(&["verify", s(&bundle), "--keys", s(&keys), "--allow-test"]);
    assert_eq!(status(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));
    let r = result(&out);
    assert_eq!((r["ok"].as_bool(), r["reason"].as_str()), (Some(true), Some("verifies")));
    assert_eq!(r["items"].as_array().map(Vec::len), Some(4));
    assert_eq!(r["head"]["size"], 4);
    // Stdin, and the pretty form.
    let mut child = Command::new(BIN)
        .args(["verify", "-", "--keys", s(&keys), "--allow-test", "--pretty"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&std::fs::read(&bundle).unwrap()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(status(&out), 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("\n  \"reason\": \"verifies\""));
}

#[test]
fn verify_exit_one_when_rejected() {
    let bundle = vectors().join("bundle.valid.json");
    let keys = vectors().join("keys.test.json");
    let out = curbi(&["verify", s(&bundle), "--keys", s(&keys)]);
    assert_eq!(status(&out), 1);
    assert_eq!(result(&out)["reason"], "no_trusted_keys");

    let f = vector_files("tampered-amount");
    let out = curbi(&["verify", s(&f.bundle), "--keys", s(&f.keys), "--allow-test"]);
    assert_eq!((status(&out), result(&out)["reason"].clone()), (1, "bad_signature".into()));

    let f = vector_files("equivocation");
    let out = curbi(&["verify", s(&f.bundle), "--keys", s(&f.keys), "--allow-test", "--known", s(&f.known[0])]);
    let r = result(&out);
    assert_eq!((status(&out), r["reason"].as_str()), (1, Some("fork_detected")));
    assert_eq!(r["evidence"]["heads"].as_array().map(Vec::len), Some(2));

    let f = vector_files("known-head-proven");
    let out = curbi(&["verify", s(&f.bundle), "--keys", s(&f.keys), "--allow-test", "--known", s(&f.known[0])]);
    assert_eq!(status(&out), 0, "{}", String::from_utf8_lossy(&out.stdout));

    let args = ["verify", s(&bundle), "--keys", s(&keys), "--allow-test", "--mode", "fresh"];
    let out = curbi(&[&args[..], &["--now", "2027-01-15T00:00:00Z"]].concat());
    assert_eq!((status(&out), result(&out)["reason"].clone()), (1, "expired".into()));
    let out = curbi(&[&args[..], &["--now", "2026-11-04T00:00:00Z"]].concat());
    assert_eq!(status(&out), 0);

    // A malformed bundle is a rejection of the bundle, not of the caller's input.
    let f = vector_files("malformed-receipts-empty");
    let out = curbi(&["verify", s(&f.bundle), "--keys", s(&f.keys), "--allow-test"]);
    assert_eq!((status(&out), result(&out)["reason"].clone()), (1, "malformed".into()));
    assert_eq!(result(&out)["error"]["path"], "/bundle/receipts");
}

#[test]
fn verify_exit_two_for_unreadable_input() {
    let bundle = vectors().join("bundle.valid.json");
    let keys = vectors().join("keys.test.json");
    let dir = temp_dir("unreadable");
    let missing = dir.join("missing.json");
    assert_eq!(status(&curbi(&["verify", s(&missing), "--keys", s(&keys)])), 2);
    assert_eq!(status(&curbi(&["verify", s(&bundle), "--keys", s(&missing)])), 2);

    let not_json = write(&dir, "not.json", b"{\"object\":");
    let out = curbi(&["verify", s(&not_json), "--keys", s(&keys)]);
    assert_eq!(status(&out), 2);
    assert_eq!(result(&out)["error"]["code"], "invalid_json");
    assert_eq!(result(&out)["error"]["path"], "/bundle");

    let private = write(
        &dir,
        "private.json",
        br#"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}]}"#,
    );
    let out = curbi(&["verify", s(&bundle), "--keys", s(&private)]);
    assert_eq!((status(&out), result(&out)["error"]["path"].clone()), (2, "/keys/keys/0/d".into()));

    let repeated = write(&dir, "repeated.json", br#"{"keys":[],"keys":[]}"#);
    let out = curbi(&["verify", s(&bundle), "--keys", s(&repeated)]);
    let error = &result(&out)["error"];
    assert_eq!(
        (status(&out), error["code"].clone(), error["path"].clone()),
        (2, "duplicate_member".into(), "/keys/keys".into())
    );

    let out = curbi(&["verify", s(&bundle), "--keys", s(&keys), "--mode", "fresh", "--now", "tomorrow"]);
    assert_eq!((status(&out), result(&out)["error"]["path"].clone()), (2, "/now".into()));
    let out = curbi(&["verify", s(&bundle), "--keys", s(&keys), "--mode", "live"]);
    assert_eq!(status(&out), 2);
    let not_a_head = write(&dir, "head.txt", b"4\n");
    let out = curbi(&["verify", s(&bundle), "--keys", s(&keys), "--known", s(&not_a_head)]);
    assert_eq!((status(&out), result(&out)["error"]["path"].clone()), (2, "/known/0".into()));
    let out = curbi(&["verify", s(&bundle), "--keys", s(&keys), "--witness", "not-a-vkey"]);
    assert_eq!(status(&out), 2);

    // Usage errors.
    assert_eq!(status(&curbi(&["verify", s(&bundle)])), 2, "--keys is required");
    assert_eq!(status(&curbi(&["verify", "--keys", s(&keys)])), 2, "BUNDLE is required");
    assert_eq!(status(&curbi(&["verify", s(&bundle), s(&bundle), "--keys", s(&keys)])), 2);
    assert_eq!(status(&curbi(&["verify", s(&bundle), "--keys", s(&keys), "--frobnicate"])), 2);
    assert_eq!(status(&curbi(&["vectors", "--frobnicate"])), 2);
}

/// A browser gate proof (docs/PROOF.md §Browser gate proofs) with its trust document as `--keys`: exit 0 when it
/// verifies, 1 when it is rejected, 2 when the trust document cannot be used (the caller's input).
#[test]
fn verify_reads_a_gate_proof_with_its_trust_document() {
    for (name, want, reason) in [
        ("gate-valid", 0, "verifies"),
        ("gate-tampered-decision", 1, "decision_mismatch"),
        ("gate-malformed-unknown-member", 1, "malformed"),
        ("gate-malformed-trust-without-at", 2, "malformed"),
    ] {
        let f = vector_files(name);
        let o = curbi(&["verify", s(&f.bundle), "--keys", s(&f.keys), "--allow-test"]);
        assert_eq!(status(&o), want, "{name}: {}", String::from_utf8_lossy(&o.stdout));
        assert_eq!(result(&o)["reason"], reason, "{name}");
    }
    // Without --allow-test the gate's test key is not trusted.
    let f = vector_files("gate-valid");
    let o = curbi(&["verify", s(&f.bundle), "--keys", s(&f.keys)]);
    assert_eq!((status(&o), result(&o)["reason"].as_str()), (1, Some("no_trusted_keys")));
}
