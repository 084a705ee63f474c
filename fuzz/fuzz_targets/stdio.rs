//! Arbitrary bytes as what a client writes to `curbi mcp --stdio` (mcp/src/stdio.rs): cut into lines as `run` cuts
//! stdin (`lines()`: on `\n`, a trailing `\r` dropped, the last line without its newline, blank lines skipped), each
//! line answered by `stdio::answer` (the strict reader, the message-shape check, the dispatcher with every tool) as
//! the anonymous caller and as a keyed one. Never a panic; every answer is one line of JSON-RPC 2.0 (a raw newline
//! inside an answer would be read by the client as two messages) and linear in its line beyond a fixed allowance
//! for the largest constant answer (`tools/list`).
#![no_main]

use std::sync::{Arc, LazyLock};

use curbi_mcp::config::Server;
use curbi_mcp::{ApiKey, Caller, Scope};
use libfuzzer_sys::fuzz_target;

static RUNTIME: LazyLock<tokio::runtime::Runtime> =
    LazyLock::new(|| tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime"));

const KEY: &str = "curbi_test_fuzzing-key-0123456789";

fn key() -> ApiKey {
    ApiKey::new(KEY, "fuzz", vec![Scope::Checkout, Scope::Verify])
}

static SERVER: LazyLock<Arc<Server>> = LazyLock::new(|| {
    Arc::new(Server::new(curbi_mcp::Config {
        rate_per_minute: 0,
        tool_rate_per_minute: 0,
        check_rate_per_minute: 0,
        keys: curbi_mcp::KeySet::new(vec![key()]),
        sandbox: true,
        ..curbi_mcp::Config::default()
    }))
});

/// Room for the constant answers (the tool catalog) on top of 64 bytes an input byte.
const ALLOWANCE: usize = 256 * 1024;

fn answer(line: &[u8], caller: &Caller) {
    let Some(text) = RUNTIME.block_on(curbi_mcp::stdio::answer(&SERVER, caller, line)) else { return };
    assert!(!text.contains('\n'), "an answer spans lines: {text}");
    let v: serde_json::Value = serde_json::from_str(&text).expect("the answer is JSON");
    assert_eq!(v["jsonrpc"], "2.0", "{v}");
    assert!(text.len() <= 64 * line.len() + ALLOWANCE, "{} bytes answer a line of {}", text.len(), line.len());
}

fuzz_target!(|data: &[u8]| {
    let callers = [Caller::Anonymous, Caller::Key(key())];
    for raw in data.split(|&b| b == b'\n') {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        // `run` reads UTF-8 lines; other bytes end its loop with an I/O error before any answer.
        let Ok(text) = std::str::from_utf8(line) else { return };
        if text.trim().is_empty() {
            continue;
        }
        for caller in &callers {
            answer(line, caller);
        }
    }
});
