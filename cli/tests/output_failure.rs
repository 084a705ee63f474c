//! Output that cannot be written (issue 43): stdout on a full disk (/dev/full) or a pipe whose reader has closed
//! exits 4, the documented "output could not be written", for every command that prints, `--jsonl` included (it
//! exited 3, "internal error"); a stderr that cannot be written loses only the diagnostics, never the exit status.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use common::{BIN, temp_file};

const POLICY: &str = r#"{"prices":[{"item":"Starter","amount":49}]}"#;
const REQUEST: &str = r#"{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter is $99 a month."}"#;

/// Where a run's stdout or stderr goes.
#[derive(Clone, Copy, Debug)]
enum Sink {
    /// A device on which every write fails with ENOSPC.
    Full,
    /// A pipe whose read end was closed before the process started: every write fails with EPIPE.
    Closed,
    Captured,
}

fn stdio(sink: Sink) -> Stdio {
    match sink {
        Sink::Full => File::options().write(true).open("/dev/full").unwrap().into(),
        Sink::Closed => {
            // The write end of a pipe whose only reader, `true`, has exited (std's own pipe() is newer than the
            // MSRV): each write to it fails with EPIPE, however soon.
            let mut reader = Command::new("true").stdin(Stdio::piped()).spawn().unwrap();
            let writer = reader.stdin.take().unwrap();
            assert!(reader.wait().unwrap().success());
            writer.into()
        }
        Sink::Captured => Stdio::piped(),
    }
}

fn run(args: &[&str], stdin: &[u8], stdout: Sink, stderr: Sink) -> Output {
    let mut child =
        Command::new(BIN).args(args).stdin(Stdio::piped()).stdout(stdio(stdout)).stderr(stdio(stderr)).spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    // A child that exits without reading closes its stdin: that broken pipe is not what is tested.
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

struct Files {
    policy: PathBuf,
    request: PathBuf,
    cases: PathBuf,
}

fn files() -> Files {
    let cases =
        (0..50).map(|i| format!("{{\"id\":\"c{i}\",\"reply\":\"Starter is ${}.\"}}\n", 40 + i)).collect::<String>();
    Files {
        policy: temp_file("out-policy", POLICY.as_bytes()),
        request: temp_file("out-request", REQUEST.as_bytes()),
        cases: temp_file("out-cases", cases.as_bytes()),
    }
}

#[test]
fn jsonl_output_that_cannot_be_written_exits_4() {
    let f = files();
    let args = ["check", "--policy", f.policy.to_str().unwrap(), "--jsonl", f.cases.to_str().unwrap()];
    for sink in [Sink::Full, Sink::Closed] {
        let out = run(&args, b"", sink, Sink::Captured);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{sink:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{sink:?}: {stderr}");
        if let Sink::Full = sink {
            assert!(stderr.contains("cannot write to stdout"), "{stderr}");
        }
    }
    // Stdin as IN, the same.
    let cases = std::fs::read(&f.cases).unwrap();
    let out =
        run(&["check", "--policy", f.policy.to_str().unwrap(), "--jsonl", "-"], &cases, Sink::Full, Sink::Captured);
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn every_printing_command_exits_4_when_stdout_cannot_be_written() {
    let f = files();
    let (policy, request, cases) = (f.policy.to_str().unwrap(), f.request.to_str().unwrap(), f.cases.to_str().unwrap());
    let ping = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".as_slice();
    let runs: [(&[&str], &[u8]); 10] = [
        (&["--version"], b""),
        (&["help"], b""),
        (&["check", "--help"], b""),
        (&["check", request], b""),
        (&["check", "--pretty", "-"], b"{not json"),
        (&["check", "--explain", request], b""),
        (&["check", "--policy", policy, "--jsonl", cases], b""),
        (&["lint", policy], b""),
        (&["export", "--help"], b""),
        (&["mcp", "--stdio"], ping),
    ];
    for (args, stdin) in runs {
        // The same run with stdout captured succeeds in writing (0 pass, 1 findings, 2 an error document).
        let ok = run(args, stdin, Sink::Captured, Sink::Captured);
        assert!(matches!(ok.status.code(), Some(0..=2)) && !ok.stdout.is_empty(), "{args:?}: {ok:?}");
        for sink in [Sink::Full, Sink::Closed] {
            let out = run(args, stdin, sink, Sink::Captured);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(4), "{args:?} {sink:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{args:?} {sink:?}: {stderr}");
        }
    }
}

#[test]
fn a_stderr_that_cannot_be_written_keeps_the_exit_status() {
    let f = files();
    let args = ["check", "--policy", f.policy.to_str().unwrap(), "--jsonl", f.cases.to_str().unwrap()];
    let expected = run(&args, b"", Sink::Captured, Sink::Captured);
    assert_eq!(expected.status.code(), Some(1), "the cases hold findings");
    for sink in [Sink::Full, Sink::Closed] {
        // The summary line goes to stderr after every result: it is lost, the results and the status are not.
        let out = run(&args, b"", Sink::Captured, sink);
        assert_eq!(out.status.code(), Some(1), "{sink:?}");
        assert_eq!(out.stdout, expected.stdout, "{sink:?}");
    }
}

#[test]
fn a_refusal_keeps_its_status_when_stderr_cannot_be_written() {
    let f = files();
    let missing = f.policy.with_extension("missing");
    let runs: [(&[&str], i32); 4] = [
        (&["no-such-command"], 2),
        (&["check"], 2),
        (&["check", missing.to_str().unwrap()], 2),
        (&["lint", missing.to_str().unwrap()], 2),
    ];
    for (args, status) in runs {
        let told = run(args, b"", Sink::Captured, Sink::Captured);
        assert_eq!(told.status.code(), Some(status), "{args:?}");
        assert!(!told.stderr.is_empty(), "{args:?}: the message this test loses");
        for sink in [Sink::Full, Sink::Closed] {
            let out = run(args, b"", Sink::Captured, sink);
            assert_eq!(out.status.code(), Some(status), "{args:?} {sink:?}");
        }
    }
}

/// A file a command writes, on a full disk: `curbi vectors --check-file /dev/full` (the receipt vectors' file) is
/// exit 4 like stdout; a path that cannot be created at all stays exit 2 (a bad argument).
#[test]
fn a_file_on_a_full_disk_exits_4_and_a_bad_path_2() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("out-vectors-{}", std::process::id()));
    let proof = dir.join("proof");
    let out = run(
        &["vectors", "--out", proof.to_str().unwrap(), "--check-file", "/dev/full"],
        b"",
        Sink::Captured,
        Sink::Captured,
    );
    assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stderr));
    let missing = dir.join("no-such-dir/99-receipts.json");
    let out = run(
        &["vectors", "--out", proof.to_str().unwrap(), "--check-file", missing.to_str().unwrap()],
        b"",
        Sink::Captured,
        Sink::Captured,
    );
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::remove_dir_all(dir).ok();
}

/// `curbi serve` with stderr a closed pipe or a full disk: the listening line is lost, the server still serves.
#[test]
fn serve_keeps_serving_when_stderr_cannot_be_written() {
    use std::io::Read;
    for sink in [Sink::Full, Sink::Closed] {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut child = Command::new(BIN)
            .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stdio(sink))
            .spawn()
            .unwrap();
        // Wait for the listener (or the process's end): no deadline is asserted, only what happens.
        let mut stream = loop {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("{sink:?}: curbi serve exited with {status}");
            }
            match std::net::TcpStream::connect(("127.0.0.1", port)) {
                Ok(s) => break s,
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        };
        stream.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        child.kill().ok();
        child.wait().ok();
        assert!(reply.starts_with("HTTP/1.1 200"), "{sink:?}: {reply}");
    }
}
