//! The database file (issue 43): a missing or empty file becomes a log only by an explicit create, a refused open
//! leaves the disk as it was, and every file that holds evidence is created 0600 under a umask of 022.
#![allow(clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{ORIGIN, T0, call, grow, key, refund_grant};
use curbi_recorder::dbfile::Create;
use curbi_recorder::{Recorder, RecorderOptions};

fn options(path: &Path, origin: &str, create: Option<Create>) -> RecorderOptions {
    let mut o = RecorderOptions::new(path, origin, key(1, "k1")).fixed_clock(T0);
    if let Some(c) = create {
        o.create = c;
    }
    o
}

fn refused(o: RecorderOptions) -> (String, String) {
    match Recorder::open(o) {
        Ok(_) => panic!("opened"),
        Err(e) => (e.code.as_str().to_string(), e.path),
    }
}

/// Every name in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_missing_file_is_a_new_log_only_when_the_open_asks_and_a_refusal_leaves_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("log.db");
    // No origin: nothing asks for a new log.
    assert_eq!(refused(options(&db, "", None)), ("not_found".into(), "/path".into()));
    // An origin, but the open says existing logs only.
    assert_eq!(refused(options(&db, ORIGIN, Some(Create::No))), ("not_found".into(), "/path".into()));
    // An explicit create with no origin.
    assert_eq!(refused(options(&db, "", Some(Create::Yes))), ("missing_field".into(), "/origin".into()));
    // Refused after the file was made (lifetimes are checked on the store): the file and SQLite's are removed.
    let mut bad = options(&db, ORIGIN, Some(Create::Yes));
    bad.attestation_ttl = 0;
    assert_eq!(refused(bad).0, "out_of_range");
    assert_eq!(listing(dir.path()), Vec::<String>::new(), "no file behind any refused open");
    // The origin asks for a new log at a missing file; the log then opens without it.
    let r = Recorder::open(options(&db, ORIGIN, None)).expect("creates");
    call(&r, "grant", &refund_grant().to_string());
    grow(&r, 2, "rf");
    drop(r);
    let r = Recorder::open(options(&db, "", None)).expect("opens");
    assert_eq!(call(&r, "status", "{}")["size"], 2);
}

#[test]
fn an_empty_file_is_never_silently_a_new_log() {
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("log.db");
    std::fs::write(&db, b"").expect("an empty file");
    let before = std::fs::metadata(&db).expect("meta").permissions();
    for create in [None, Some(Create::IfMissing), Some(Create::No)] {
        assert_eq!(refused(options(&db, ORIGIN, create)), ("corrupt".into(), "/path".into()), "{create:?}");
    }
    // An explicit create refused later puts the empty file back as it was.
    let mut bad = options(&db, ORIGIN, Some(Create::Yes));
    bad.receipt_ttl = -1;
    assert_eq!(refused(bad).0, "out_of_range");
    assert_eq!(listing(dir.path()), ["log.db"]);
    let after = std::fs::metadata(&db).expect("meta");
    assert_eq!((after.len(), after.permissions()), (0, before));
    // Only an explicit create makes it a log.
    let r = Recorder::open(options(&db, ORIGIN, Some(Create::Yes))).expect("creates");
    assert_eq!(call(&r, "status", "{}")["origin"], ORIGIN);
    drop(r);
    assert!(std::fs::metadata(&db).expect("meta").len() > 0);
    // An explicit create on an existing log opens it (the origin must still match).
    let r = Recorder::open(options(&db, ORIGIN, Some(Create::Yes))).expect("opens");
    assert_eq!(call(&r, "status", "{}")["size"], 0);
}

#[test]
fn open_json_takes_create() {
    let dir = tempfile::tempdir().expect("dir");
    let key_file = dir.path().join("key.jwk");
    curbi_recorder::generate_key_file(&key_file, Some("k1")).expect("key");
    let db = dir.path().join("log.db");
    let config = |create: Option<bool>| -> Vec<u8> {
        let mut c = serde_json::json!({"path": db, "origin": ORIGIN, "key_file": key_file, "now": T0});
        if let Some(b) = create {
            c["create"] = b.into();
        }
        c.to_string().into_bytes()
    };
    let code = |c: Vec<u8>| curbi_recorder::api::open_json(&c).map(|_| ()).map_err(|e| e.code.as_str().to_string());
    assert_eq!(code(config(Some(false))), Err("not_found".into()));
    std::fs::write(&db, b"").expect("an empty file");
    assert_eq!(code(config(None)), Err("corrupt".into()));
    assert_eq!(code(config(Some(true))), Ok(()));
    assert_eq!(code(config(Some(false))), Ok(()));
}

const CHILD: &str = "CURBI_TEST_UMASK_022";

/// The modes under a umask of 022: this test runs itself again in a shell that sets it, since a test process
/// cannot set its own umask without `unsafe`.
#[test]
fn files_that_hold_evidence_are_0600_and_published_tiles_are_not() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())).permissions().mode();
    if std::env::var_os(CHILD).is_none() {
        let exe = std::env::current_exe().expect("the test binary");
        let name = "files_that_hold_evidence_are_0600_and_published_tiles_are_not";
        let out = std::process::Command::new("sh")
            .args(["-c", "umask 022 && exec \"$0\" --exact \"$1\" --test-threads 1"])
            .arg(exe)
            .arg(name)
            .env(CHILD, "1")
            .output()
            .expect("runs sh");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("1 passed"), "{text}{}", String::from_utf8_lossy(&out.stderr));
        return;
    }
    let dir = tempfile::tempdir().expect("dir");
    // The umask is in force: a plain new file is 0644.
    let plain = dir.path().join("plain");
    std::fs::write(&plain, b"x").expect("writes");
    assert_eq!(mode(&plain) & 0o777, 0o644);
    let cases: [(&str, bool, Create); 2] = [("new.db", false, Create::IfMissing), ("empty.db", true, Create::Yes)];
    for (name, empty, create) in cases {
        let db = dir.path().join(name);
        if empty {
            std::fs::write(&db, b"").expect("an empty file");
        }
        let r = Recorder::open(options(&db, ORIGIN, Some(create))).expect("creates");
        call(&r, "grant", &refund_grant().to_string());
        grow(&r, 3, "rf");
        // While the log is open, SQLite's write-ahead log and its index hold evidence too.
        let files: Vec<PathBuf> =
            ["", "-wal", "-shm"].iter().map(|s| PathBuf::from(format!("{}{s}", db.display()))).collect();
        for f in &files {
            assert_eq!(mode(f) & 0o777, 0o600, "{}", f.display());
        }
        let public = dir.path().join(format!("public-{name}"));
        call(&r, "checkpoint", "{}");
        call(&r, "publish", &serde_json::json!({"dir": public}).to_string());
        assert_eq!(mode(&public.join("checkpoint")) & 0o777, 0o644, "published tiles are public");
    }
}
