//! The bounded hostile load of issue 15, on loopback: `curbi serve` (the release binary) under 50 hostile clients
//! and 50 ordinary ones, plus 500 connections that stay idle or never read. Passes when the ordinary clients' p99
//! latency is under 100 ms, every ordinary request is answered, the server's peak RSS stays under 256 MiB, and new
//! clients are served while the idle ones are open. Run: `make load` (docs/SECURITY.md, docs/PERFORMANCE.md).
//!
//! Hostile clients, in a loop on keep-alive connections: 20 send the worst `/v1/check` body (50 forbid rules with
//! 200-character whys, 12 cases of one phrase repeated: about 60 KB in, over 100 MB out before the cap), 20 send
//! the same as a `tools/call policy_check`, 5 send it and never read the answers, 5 send headers one byte a second.
//! Beside them (issue 44), 20 more hostile clients loop on a light request that makes the check work: 50 forbid rules
//! on one phrase and a reply made of that phrase, 5.4 KB in all (under the 8 KiB that marks a request heavy).
//! Ordinary clients each open a new connection per request and send seed 000's check. Rate limits are off: on
//! loopback every client is one address, and this measures the bounded work, not the limits.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[path = "../tests/common/attack.rs"]
mod attack;
use attack::amplifier;

/// Issue 44's light but busy request: 50 rules holding one phrase, and a reply made of that phrase (5.4 KB).
fn shared_phrase() -> serde_json::Value {
    let forbid: Vec<_> = (0..50).map(|i| json!({"id": format!("no-refund-{i}"), "phrases": ["full refund"]})).collect();
    json!({"policy": {"forbid": forbid}, "reply": "We offer a full refund. ".repeat(125)})
}

const ORDINARY: &str = r#"{"policy":{"prices":[{"item":"Starter","amount":49}]},"reply":"Starter is $99 a month."}"#;

fn request(addr: SocketAddr, path: &str, body: &str, extra: &str, close: bool) -> Vec<u8> {
    let connection = if close { "close" } else { "keep-alive" };
    format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: {connection}\r\nContent-Type: application/json\r\n\
         Accept: application/json\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Reads one response (headers, then Content-Length bytes); its status.
async fn read_response(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<u16> {
    buf.clear();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let status = head.split(' ').nth(1)?.parse().ok()?;
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            while buf.len() < end + 4 + len {
                let n = stream.read(&mut chunk).await.ok()?;
                if n == 0 {
                    return None;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            buf.drain(..end + 4 + len);
            return Some(status);
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Peak resident set of `pid` (VmHWM), in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let bin = std::env::args().nth(1).unwrap_or_else(|| "target/release/curbi".into());
    let seconds: u64 = std::env::args().nth(2).map_or(20, |s| s.parse().unwrap());
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let mut server = Command::new(&bin)
        .args(["serve", "--addr", &addr.to_string()])
        .env("CURBI_MCP_RATE_PER_MINUTE", "0")
        .env("CURBI_MCP_TOOL_RATE_PER_MINUTE", "0")
        .env("CURBI_CHECK_RATE_PER_MINUTE", "0")
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{bin}: {e}"));
    let started = Instant::now();
    while TcpStream::connect(addr).await.is_err() {
        assert!(started.elapsed() < Duration::from_secs(10), "the server did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let pid = server.id();
    let base_rss = peak_rss_kib(pid);

    // 500 connections that never send anything, and stay open for the whole run.
    let mut idle = Vec::new();
    for _ in 0..500 {
        idle.push(TcpStream::connect(addr).await.unwrap());
    }

    let stop = Arc::new(AtomicBool::new(false));
    let hostile_done = Arc::new(AtomicU64::new(0));
    let body = amplifier().to_string();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "policy_check", "arguments": amplifier()}})
    .to_string();
    let shared = shared_phrase().to_string();
    assert!((5_000..5_800).contains(&shared.len()), "the shared-phrase request is 5.4 KB: {}", shared.len());
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let (stop, done) = (Arc::clone(&stop), Arc::clone(&hostile_done));
        let raw = request(addr, "/v1/check", &shared, "", false);
        tasks.push(tokio::spawn(async move {
            let mut buf = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let Ok(mut s) = TcpStream::connect(addr).await else { continue };
                while !stop.load(Ordering::Relaxed) {
                    if s.write_all(&raw).await.is_err() || read_response(&mut s, &mut buf).await.is_none() {
                        break;
                    }
                    done.fetch_add(1, Ordering::Relaxed);
                }
            }
            Vec::new()
        }));
    }
    for i in 0..50 {
        let (stop, done) = (Arc::clone(&stop), Arc::clone(&hostile_done));
        let (body, call) = (body.clone(), call.clone());
        tasks.push(tokio::spawn(async move {
            let raw = match i {
                0..20 => request(addr, "/v1/check", &body, "", false),
                _ => request(addr, "/mcp", &call, "MCP-Protocol-Version: 2025-06-18\r\n", false),
            };
            let mut buf = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let Ok(mut s) = TcpStream::connect(addr).await else { continue };
                match i {
                    // Never reads: writes requests until the server stops taking them.
                    40..45 => while !stop.load(Ordering::Relaxed) && s.write_all(&raw).await.is_ok() {},
                    // Slowloris: one header byte a second.
                    45..50 => {
                        for b in raw.iter().take(200) {
                            if stop.load(Ordering::Relaxed) || s.write_all(&[*b]).await.is_err() {
                                break;
                            }
                            tokio::time::sleep(Duration::from_secs(1)).await;
                        }
                    }
                    _ => {
                        while !stop.load(Ordering::Relaxed) {
                            if s.write_all(&raw).await.is_err() || read_response(&mut s, &mut buf).await.is_none() {
                                break;
                            }
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            }
            Vec::new()
        }));
    }
    for _ in 0..50 {
        let stop = Arc::clone(&stop);
        tasks.push(tokio::spawn(async move {
            let raw = request(addr, "/v1/check", ORDINARY, "", true);
            let mut latencies = Vec::new();
            let mut buf = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let status = match TcpStream::connect(addr).await {
                    Ok(mut s) => match s.write_all(&raw).await {
                        Ok(()) => read_response(&mut s, &mut buf).await,
                        Err(_) => None,
                    },
                    Err(_) => None,
                };
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                latencies.push(if status == Some(200) { ms } else { f64::INFINITY });
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            latencies
        }));
    }
    let mut peak = 0;
    let run = Instant::now();
    while run.elapsed() < Duration::from_secs(seconds) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        peak = peak.max(peak_rss_kib(pid));
    }
    stop.store(true, Ordering::Relaxed);
    let mut all = Vec::new();
    for t in tasks {
        if let Ok(Ok(l)) = tokio::time::timeout(Duration::from_secs(15), t).await {
            all.extend(l);
        }
    }
    peak = peak.max(peak_rss_kib(pid));
    // A new client after the run, with the 500 idle connections still open.
    let t = Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(&request(addr, "/v1/check", ORDINARY, "", true)).await.unwrap();
    let late = read_response(&mut s, &mut Vec::new()).await;
    let late_ms = t.elapsed().as_secs_f64() * 1000.0;
    drop(idle);
    let _ = server.kill();
    let _ = server.wait();

    all.sort_by(|a, b| a.total_cmp(b));
    let failed = all.iter().filter(|x| x.is_infinite()).count();
    let at = |q: f64| all[((all.len() as f64 * q).ceil() as usize).clamp(1, all.len()) - 1];
    let (p50, p99, max) = (at(0.50), at(0.99), all[all.len() - 1]);
    println!(
        "{seconds} s: ordinary {} requests ({failed} unanswered), p50 {p50:.1} ms, p99 {p99:.1} ms, max {max:.1} ms; \
         hostile answered {}; server peak RSS {:.1} MiB (at start {:.1} MiB); a new client after the run: {:?} in \
         {late_ms:.1} ms",
        all.len(),
        hostile_done.load(Ordering::Relaxed),
        peak as f64 / 1024.0,
        base_rss as f64 / 1024.0,
        late,
    );
    let mut ok = true;
    for (holds, what) in [
        (failed == 0, "every ordinary request answered"),
        (p99 < 100.0, "ordinary p99 under 100 ms"),
        (peak < 256 * 1024, "peak RSS under 256 MiB"),
        (late == Some(200), "a new client served beside 500 idle connections"),
    ] {
        println!("  {} {what}", if holds { "ok  " } else { "FAIL" });
        ok &= holds;
    }
    if !ok {
        std::process::exit(1);
    }
}
