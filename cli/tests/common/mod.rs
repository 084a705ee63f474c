//! Helpers shared by the CLI test files: running the built binary, temp files, stdin without deadlocks.
#![allow(dead_code)] // each test file uses its own subset

use std::ffi::OsStr;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_curbi");

/// A fresh file under cargo's per-test-target temp dir; `tag` keeps the test files apart.
pub(crate) fn temp_file(tag: &str, bytes: &[u8]) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{tag}-{}-{n}.json", std::process::id()));
    std::fs::write(&path, bytes).expect("write temp file");
    path
}

/// `curbi serve` on 127.0.0.1 with an ephemeral port; it announces the address on the stderr it pipes.
pub(crate) fn spawn_serve() -> std::process::Child {
    Command::new(BIN)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn curbi serve")
}

/// Runs curbi with `args`, feeding `input` on stdin from another thread, so a child that stops reading early cannot
/// deadlock the test.
pub(crate) fn run_stdin<S: AsRef<OsStr>>(args: &[S], input: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn curbi");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // A broken pipe is the child's business; its exit code and output are what we check.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait curbi");
    writer.join().expect("stdin writer");
    out
}

/// `curbi ARGS` for the recorder's tests, with no key in the environment (each test names its key).
pub(crate) fn recorder_curbi(args: &[&str]) -> Output {
    Command::new(BIN).args(args).env_remove("CURBI_RECORDER_KEY").output().expect("runs curbi")
}

/// The JSON document `curbi` printed.
#[allow(clippy::panic)] // a test helper: the panic message shows what was printed instead
pub(crate) fn answer(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("not JSON ({e}): {} / {}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    })
}

/// Writes `v` to `dir/name`; its path.
pub(crate) fn json_file(dir: &std::path::Path, name: &str, v: &serde_json::Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, v.to_string()).expect("writes");
    p.to_string_lossy().into_owned()
}
