//! Issue 43 part C for the `curbi` command's key files: no message repeats a key given where its path belongs, a key
//! file that is a FIFO is refused without waiting for a writer, and key files are written new, mode 0600, never
//! through a symlink or over a file (cli/src/files.rs, recorder/src/keyfile.rs).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::panic)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;

use common::BIN;

fn curbi<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(BIN).args(args).env_remove("CURBI_RECORDER_KEY").stdin(Stdio::null()).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn show(out: &Output) -> String {
    format!("status {:?}\nstdout:\n{}\nstderr:\n{}", out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// A new empty folder for one test.
fn folder(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("key-files-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p.to_str().unwrap().to_owned()
}

/// A real private key made by `curbi recorder keys generate`: its file, its text and its `d`.
fn generated_key(dir: &Path) -> (String, String, String) {
    let path = dir.join("signing.jwk").to_str().unwrap().to_owned();
    let out = curbi(&["recorder", "keys", "generate", "--out", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let jwk = std::fs::read_to_string(&path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&jwk).unwrap();
    let d = v["d"].as_str().unwrap().to_owned();
    assert_eq!(d.len(), 43, "32 bytes of unpadded base64url");
    (path, jwk.trim_end().to_owned(), d)
}

/// Every invocation of an option that takes a key file, with `KEY` where the option's value goes: as a separate
/// argument and as `--option=KEY`.
fn key_invocations(dir: &Path, key: &str) -> Vec<Vec<String>> {
    let request = write(dir, "request.json", r#"{"policy":{},"reply":"hi"}"#);
    let policy = write(dir, "policy.json", "{}");
    let cases = write(dir, "cases.jsonl", "{\"reply\":\"hi\"}\n");
    let doc = write(dir, "doc.json", "{}");
    let db = dir.join("log.db").to_str().unwrap().to_owned();
    let dir_s = dir.to_str().unwrap().to_owned();
    let origin = "curbi-checkpoint-v1.shop.example/keys";
    let forms: Vec<(Vec<&str>, &str, Vec<&str>)> = vec![
        (vec!["check"], "--keys", vec![&request]),
        (vec!["check", "--policy", &policy, "--jsonl", &cases], "--keys", vec![]),
        (vec!["verify", &doc], "--keys", vec![]),
        (vec!["purchase", &doc, &doc], "--merchant-keys", vec![]),
        (vec!["recorder", "init", "--db", &db, "--origin", origin], "--key", vec![]),
        (vec!["recorder", "status", "--db", &db], "--key", vec![]),
        (vec!["recorder", "status", "--db", &db], "--key-env", vec![]),
        (vec!["tiles", "bundle", "--from", &dir_s, "--index", "0"], "--keys", vec![]),
        // A mistyped option: its value is not repeated either.
        (vec!["verify", &doc, "--keys", &doc], "--key", vec![]),
        (vec!["check", &request], "--keyz", vec![]),
    ];
    let mut out = Vec::new();
    for (before, option, after) in forms {
        let owned = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let mut separate = owned(&before);
        separate.extend([option.to_owned(), key.to_owned()]);
        separate.extend(owned(&after));
        let mut inline = owned(&before);
        inline.push(format!("{option}={key}"));
        inline.extend(owned(&after));
        out.push(separate);
        out.push(inline);
    }
    out
}

/// Fails when `d` or any 8-character piece of it is in the output.
fn assert_no_piece_of(d: &str, out: &Output, what: &str) {
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    for i in 0..=d.len() - 8 {
        let piece = &d[i..i + 8];
        assert!(!all.contains(piece), "{what}: the output holds {piece:?}, a piece of d:\n{}", show(out));
    }
}

#[test]
fn no_message_repeats_a_private_key_given_to_an_option_that_takes_a_key_path() {
    let dir = folder("echo");
    let (key_file, key_text, d) = generated_key(&dir);
    // The key's text where its path belongs, and the key's file where a key set (JWKS) belongs.
    for value in [key_text.as_str(), key_file.as_str()] {
        for args in key_invocations(&dir, value) {
            let out = curbi(&args);
            // The key's file is what `recorder ... --key` asks for: that may succeed, but never shows `d` either.
            if value == key_text {
                assert_ne!(out.status.code(), Some(0), "{args:?} cannot succeed:\n{}", show(&out));
            }
            assert_no_piece_of(&d, &out, &format!("{:?}", &args[..2]));
        }
    }
    // And the key itself is named by its option: the message says which one.
    let out = curbi(&["verify", &write(&dir, "b.json", "{}"), "--keys", &key_text]);
    assert!(text(&out.stderr).contains("unreadable_file: --keys:"), "{}", show(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `args` with a FIFO where the key file goes. Before the fix such a child blocked opening it; a writer that opens
/// the FIFO then unblocks it (it reads nothing and fails some other way), so the test fails rather than hangs.
fn run_with_fifo(args: &[String], fifo: &Path) -> Output {
    let child = Command::new(BIN)
        .args(args)
        .env_remove("CURBI_RECORDER_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let fifo = fifo.to_owned();
    // Left running when the child never opens the FIFO for long enough: it ends with the test process.
    std::thread::spawn(move || drop(std::fs::OpenOptions::new().write(true).open(fifo)));
    child.wait_with_output().unwrap()
}

#[test]
fn a_key_file_that_is_a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = folder("fifo");
    let request = write(&dir, "request.json", r#"{"policy":{},"reply":"hi"}"#);
    let doc = write(&dir, "doc.json", "{}");
    let db = dir.join("log.db").to_str().unwrap().to_owned();
    let dir_s = dir.to_str().unwrap().to_owned();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["check", &request, "--keys"], "not_regular_file: --keys:"),
        (vec!["verify", &doc, "--keys"], "not_regular_file: --keys:"),
        (vec!["purchase", &doc, &doc, "--merchant-keys"], "not_regular_file: --merchant-keys:"),
        (vec!["tiles", "bundle", "--from", &dir_s, "--index", "0", "--keys"], "not_regular_file: --keys:"),
        (vec!["recorder", "status", "--db", &db, "--key"], "a FIFO, not a regular file"),
    ];
    for (n, (args, expected)) in cases.into_iter().enumerate() {
        let fifo = dir.join(format!("key-{n}.fifo"));
        let made = Command::new("mkfifo").arg("-m").arg("600").arg(&fifo).status().unwrap();
        assert!(made.success());
        let mut args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        args.push(fifo.to_str().unwrap().to_owned());
        let out = run_with_fifo(&args, &fifo);
        assert_eq!(out.status.code(), Some(2), "{args:?}:\n{}", show(&out));
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(all.contains(expected), "{args:?}: expected {expected:?}:\n{}", show(&out));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn key_files_are_written_new_owner_only_and_never_through_a_symlink() {
    let dir = folder("write");
    let (key_file, _, _) = generated_key(&dir);
    assert_eq!(std::fs::metadata(&key_file).unwrap().permissions().mode() & 0o777, 0o600);
    let db = dir.join("log.db").to_str().unwrap().to_owned();
    let init =
        curbi(&["recorder", "init", "--db", &db, "--origin", "curbi-checkpoint-v1.shop.example/w", "--key", &key_file]);
    assert_eq!(init.status.code(), Some(0), "{}", show(&init));
    let keys_out = |out: &str| curbi(&["recorder", "keys", "--db", &db, "--key", &key_file, "--out", out]);
    let generate = |out: &str| curbi(&["recorder", "keys", "generate", "--out", out]);

    // A new file: written, mode 0600.
    let jwks = dir.join("jwks.json");
    let out = keys_out(jwks.to_str().unwrap());
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(std::fs::metadata(&jwks).unwrap().permissions().mode() & 0o777, 0o600);
    let written = std::fs::read(&jwks).unwrap();
    assert!(text(&written).contains("\"keys\""));

    // An existing file, for both commands: refused with its code, left as it was.
    for out in [keys_out(jwks.to_str().unwrap()), generate(jwks.to_str().unwrap())] {
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(all.contains("already exists"), "{}", show(&out));
    }
    assert!(text(&keys_out(jwks.to_str().unwrap()).stderr).contains("file_exists: --out"));
    assert_eq!(std::fs::read(&jwks).unwrap(), written);

    // A symlink to an existing file and a dangling one: neither is written through, for both commands.
    let existing = dir.join("existing.txt");
    std::fs::write(&existing, "kept").unwrap();
    let to_existing = dir.join("to-existing.json");
    std::os::unix::fs::symlink(&existing, &to_existing).unwrap();
    let nowhere = dir.join("nowhere.json");
    let dangling = dir.join("dangling.json");
    std::os::unix::fs::symlink(&nowhere, &dangling).unwrap();
    for link in [&to_existing, &dangling] {
        for out in [keys_out(link.to_str().unwrap()), generate(link.to_str().unwrap())] {
            assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        }
    }
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "kept");
    assert!(!nowhere.exists(), "nothing was created through the dangling link");
    std::fs::remove_dir_all(&dir).unwrap();
}
