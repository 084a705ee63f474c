//! Issue 15 for the `curbi` command: an input size cap, `curbi export` never writing through a symlink or over an
//! existing file unless told, and a broken pipe or a full disk on stdout reported as exit 4, not 3 ("internal").
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;

use common::BIN;

const REQUEST: &str = r#"{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter is $99 a month."}"#;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn show(out: &Output) -> String {
    format!("status {:?}\nstdout:\n{}\nstderr:\n{}", out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn input_over_the_cap_is_refused_before_it_is_read_whole() {
    let file = common::temp_file("hostile", REQUEST.as_bytes());
    let out =
        Command::new(BIN).args(["check", file.to_str().unwrap()]).env("CURBI_MAX_INPUT_BYTES", "50").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("larger than 50 bytes"), "{}", show(&out));
    // At the cap it is read.
    let cap = REQUEST.len().to_string();
    let out =
        Command::new(BIN).args(["check", file.to_str().unwrap()]).env("CURBI_MAX_INPUT_BYTES", &cap).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    // Stdin is capped too: an endless stream is cut at the cap (here /dev/zero, which never ends).
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let out =
        Command::new(BIN).args(["check", "-"]).env("CURBI_MAX_INPUT_BYTES", "1000000").stdin(zero).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("larger than 1000000 bytes"), "{}", show(&out));
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A folder `name` holding request.json (REQUEST) and an empty `out` folder to export into: (folder, request, out).
fn export_dirs(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = temp_dir(name);
    let request = dir.join("request.json");
    std::fs::write(&request, REQUEST).unwrap();
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    (dir, request, out_dir)
}

fn export(request: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["export", request.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    Command::new(BIN).args(args).output().unwrap()
}

#[test]
fn export_keeps_existing_files_unless_forced() {
    let (_, request, out_dir) = export_dirs("existing");
    std::fs::write(out_dir.join("regression.test.mjs"), "// mine").unwrap();
    let out = export(&request, &out_dir, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("already exists"), "{}", show(&out));
    // Nothing was written, not even the files that were not in the way.
    assert!(!out_dir.join("regression.json").exists());
    assert_eq!(std::fs::read_to_string(out_dir.join("regression.test.mjs")).unwrap(), "// mine");
    let out = export(&request, &out_dir, &["--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(std::fs::read_to_string(out_dir.join("regression.test.mjs")).unwrap().contains("node:test"));
}

#[test]
fn export_never_writes_through_a_symlink() {
    let (dir, request, out_dir) = export_dirs("symlink");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    std::os::unix::fs::symlink(&victim, out_dir.join("regression.json")).unwrap();
    let out = export(&request, &out_dir, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("is a symlink"), "{}", show(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    // --force replaces the link itself; what it pointed to is untouched.
    let out = export(&request, &out_dir, &["--force"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let meta = std::fs::symlink_metadata(out_dir.join("regression.json")).unwrap();
    assert!(meta.file_type().is_file());
}

#[test]
fn a_full_disk_on_stdout_is_exit_4_not_internal() {
    let file = common::temp_file("hostile", REQUEST.as_bytes());
    for args in [vec!["check", file.to_str().unwrap()], vec!["--help"], vec!["lint", file.to_str().unwrap()]] {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let out = Command::new(BIN).args(&args).stdout(full).stderr(Stdio::piped()).output().unwrap();
        assert_eq!(out.status.code(), Some(4), "{args:?}: {}", show(&out));
        assert!(text(&out.stderr).contains("cannot write to stdout"), "{}", show(&out));
    }
}

#[test]
fn a_broken_pipe_on_stdout_is_exit_4_quietly() {
    let file = common::temp_file("hostile", REQUEST.as_bytes());
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(BIN)
        .args(["check", file.to_str().unwrap()])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", show(&out));
    assert!(!text(&out.stderr).contains("internal"), "{}", show(&out));
}
