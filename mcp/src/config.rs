//! What one server is configured with (keys, limits, the hosts it answers for; read from the environment by
//! `curbi serve`) and the state it keeps between requests: [`Server`], shared by every route.

use std::sync::Arc;
use std::time::Duration;

use curbi::api::Clock;

use crate::auth::{KeySet, RateLimiter};
use crate::http::MAX_BODY;
use crate::work::WorkPool;

/// Largest tool output, in bytes of the JSON text block (seed 000: "24 KiB tool output").
pub const MAX_TOOL_OUTPUT: usize = 24 * 1024;
/// Default requests per minute per caller (a key, or all key-less callers together) on `POST /mcp`.
pub const DEFAULT_RATE_PER_MINUTE: u32 = 120;
/// Default `tools/call` per minute per caller and tool.
pub const DEFAULT_TOOL_RATE_PER_MINUTE: u32 = 60;
/// Default `POST /v1/check` requests per minute per client address.
pub const DEFAULT_CHECK_RATE_PER_MINUTE: u32 = 600;
/// Default failed authentications (an unknown key, another scheme) per minute per client address; past it every
/// request of that address that carries `Authorization` is a 429 until the window ends, a valid key or not.
pub const DEFAULT_AUTH_FAILURES_PER_MINUTE: u32 = 10;
/// Largest `POST /v1/check` response body, in bytes (docs/CHECK_API.md, Limits).
pub const MAX_CHECK_RESPONSE: usize = 256 * 1024;

/// How the server is configured: keys, limits and the hosts the MCP endpoint answers for.
#[derive(Debug, Clone)]
pub struct Config {
    /// Bearer API keys for the keyed tools.
    pub keys: KeySet,
    /// Largest request body on every route, in bytes.
    pub max_body: usize,
    /// Largest tool output text, in bytes.
    pub max_tool_output: usize,
    /// `POST /mcp` requests per minute per caller; 0 means no limit.
    pub rate_per_minute: u32,
    /// `tools/call` per minute per caller and tool; 0 means no limit.
    pub tool_rate_per_minute: u32,
    /// Host names (without port) the MCP endpoint answers for (DNS-rebinding protection); `None` answers any host.
    pub allowed_hosts: Option<Vec<String>>,
    /// The merchant's recorder behind `fetch_signed_receipt`; `None` serves the demo log.
    pub recorder: Option<Arc<curbi_recorder::Recorder>>,
    /// Receipt keys for `/v1/check` and `policy_check` (docs/CHECKER.md §Receipts); `None`: receipts and
    /// `verify: "required"` are answered as unavailable here, as seed 000's public server does.
    pub receipt_keys: Option<Arc<curbi::api::ReceiptVerifier>>,
    /// A sandbox deployment (`CURBI_ENV=sandbox`): only there is `verify_checkout` registered, and only for a test
    /// key (seed 001).
    pub sandbox: bool,
    /// `POST /v1/check` requests per minute per client address; 0 means no limit.
    pub check_rate_per_minute: u32,
    /// Failed authentications per minute per client address before its keyed requests are refused; 0: no limit.
    pub auth_failures_per_minute: u32,
    /// Largest `/v1/check` response body, in bytes; past it the check stops and answers `output_too_large`.
    pub max_check_response: usize,
    /// Checks and tool calls running at once, off the async workers (`CURBI_WORKERS`; default: the CPU count).
    pub workers: usize,
    /// Checks and tool calls waiting for a worker before the server answers 503 (`CURBI_QUEUE`).
    pub queue: usize,
    /// Connections served at once (`CURBI_MAX_CONNECTIONS`); more wait in the listen backlog.
    pub max_connections: usize,
    /// Time to read a request's headers (`CURBI_HEADER_TIMEOUT_MS`).
    pub header_timeout: Duration,
    /// Time to read a request's body (`CURBI_BODY_TIMEOUT_MS`).
    pub body_timeout: Duration,
    /// How long a connection may sit idle between requests (`CURBI_IDLE_TIMEOUT_MS`).
    pub idle_timeout: Duration,
    /// How long a response write may make no progress (a client that does not read) (`CURBI_WRITE_TIMEOUT_MS`).
    pub write_timeout: Duration,
    /// The server's clock: the instant `verify_bundle` in fresh mode checks keys and receipts' expiry at, read once
    /// per call (seed 000's schema has no `now`, so a caller cannot give one). The system clock, or a fixed time
    /// (`CURBI_MCP_NOW`, RFC 3339; tests and replays).
    pub clock: Clock,
}

impl Default for Config {
    /// No keys, the seed's limits, loopback host names only.
    fn default() -> Config {
        Config {
            keys: KeySet::default(),
            max_body: MAX_BODY,
            max_tool_output: MAX_TOOL_OUTPUT,
            rate_per_minute: DEFAULT_RATE_PER_MINUTE,
            tool_rate_per_minute: DEFAULT_TOOL_RATE_PER_MINUTE,
            allowed_hosts: Some(vec!["localhost".into(), "127.0.0.1".into(), "[::1]".into()]),
            recorder: None,
            receipt_keys: None,
            sandbox: false,
            check_rate_per_minute: DEFAULT_CHECK_RATE_PER_MINUTE,
            auth_failures_per_minute: DEFAULT_AUTH_FAILURES_PER_MINUTE,
            max_check_response: MAX_CHECK_RESPONSE,
            workers: std::thread::available_parallelism().map_or(2, std::num::NonZero::get),
            queue: 256,
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(10),
            clock: Clock::Now(curbi::check::receipts::system_now),
        }
    }
}

impl Config {
    /// Reads the configuration from the environment (docs/MCP.md, Configuration):
    /// `CURBI_MCP_KEYS_FILE` (a keys file), `CURBI_MCP_KEYS` (the same JSON inline), `CURBI_MCP_RATE_PER_MINUTE`,
    /// `CURBI_MCP_TOOL_RATE_PER_MINUTE`, `CURBI_MCP_MAX_TOOL_OUTPUT`, `CURBI_MCP_ALLOWED_HOSTS` (comma-separated host
    /// names, or `*` for any), `CURBI_MCP_NOW` (a fixed clock). Unset variables keep the defaults. The error never
    /// contains a key.
    pub fn from_env() -> Result<Config, String> {
        let mut c = Config::default();
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        if let Some(path) = var("CURBI_MCP_KEYS_FILE") {
            let text = key_file_text("CURBI_MCP_KEYS_FILE", &path)?;
            c.keys = KeySet::from_json(&text).map_err(|e| format!("CURBI_MCP_KEYS_FILE: {e}"))?;
        } else if let Some(text) = var("CURBI_MCP_KEYS") {
            c.keys = KeySet::from_json(&text).map_err(|e| format!("CURBI_MCP_KEYS: {e}"))?;
        }
        let number = |name: &str| -> Result<Option<u64>, String> {
            var(name).map(|v| v.trim().parse::<u64>().map_err(|_| format!("{name}: not a whole number"))).transpose()
        };
        if let Some(n) = number("CURBI_MCP_RATE_PER_MINUTE")? {
            c.rate_per_minute = u32::try_from(n).unwrap_or(u32::MAX);
        }
        if let Some(n) = number("CURBI_MCP_TOOL_RATE_PER_MINUTE")? {
            c.tool_rate_per_minute = u32::try_from(n).unwrap_or(u32::MAX);
        }
        if let Some(n) = number("CURBI_MCP_MAX_TOOL_OUTPUT")? {
            c.max_tool_output = usize::try_from(n).unwrap_or(usize::MAX);
        }
        let count = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        if let Some(n) = number("CURBI_CHECK_RATE_PER_MINUTE")? {
            c.check_rate_per_minute = count(n);
        }
        if let Some(n) = number("CURBI_AUTH_FAILURES_PER_MINUTE")? {
            c.auth_failures_per_minute = count(n);
        }
        if let Some(n) = number("CURBI_MAX_CHECK_RESPONSE")? {
            c.max_check_response = size(n);
        }
        if let Some(n) = number("CURBI_WORKERS")? {
            c.workers = size(n).max(1);
        }
        if let Some(n) = number("CURBI_QUEUE")? {
            c.queue = size(n);
        }
        if let Some(n) = number("CURBI_MAX_CONNECTIONS")? {
            c.max_connections = size(n).max(1);
        }
        for (name, field) in [
            ("CURBI_HEADER_TIMEOUT_MS", &mut c.header_timeout),
            ("CURBI_BODY_TIMEOUT_MS", &mut c.body_timeout),
            ("CURBI_IDLE_TIMEOUT_MS", &mut c.idle_timeout),
            ("CURBI_WRITE_TIMEOUT_MS", &mut c.write_timeout),
        ] {
            if let Some(ms) = number(name)? {
                *field = Duration::from_millis(ms.max(1));
            }
        }
        c.sandbox = var("CURBI_ENV").is_some_and(|v| v.trim().eq_ignore_ascii_case("sandbox"));
        if let Some(hosts) = var("CURBI_MCP_ALLOWED_HOSTS") {
            c.allowed_hosts = if hosts.trim() == "*" {
                None
            } else {
                Some(hosts.split(',').map(|h| h.trim().to_ascii_lowercase()).filter(|h| !h.is_empty()).collect())
            };
        }
        if let Some(db) = var("CURBI_MCP_RECORDER_DB") {
            // The key from a file (CURBI_MCP_RECORDER_KEY_FILE) or the recorder's own variable; never echoed.
            let mut open = serde_json::json!({"path": db});
            match var("CURBI_MCP_RECORDER_KEY_FILE") {
                Some(file) => open["key_file"] = file.into(),
                None => open["key_env"] = curbi_recorder::KEY_ENV.into(),
            }
            let r = curbi_recorder::api::open_json(open.to_string().as_bytes()).map_err(|e| {
                // A PostgreSQL URL's password is never echoed.
                format!("CURBI_MCP_RECORDER_DB {}: {} ({})", curbi_recorder::redact_url(&db), e.message, e.code)
            })?;
            c.recorder = Some(Arc::new(r));
        }
        if let Some(now) = var("CURBI_MCP_NOW") {
            let t = curbi::time::Timestamp::parse(now.trim())
                .map_err(|_| format!("CURBI_MCP_NOW: '{now}' is not an RFC 3339 date-time"))?;
            c.clock = Clock::Fixed(t.unix_seconds());
        }
        if let Some(path) = var("CURBI_RECEIPT_KEYS_FILE") {
            c.receipt_keys =
                Some(Arc::new(receipt_keys(&path, var("CURBI_RECEIPT_ALLOW_TEST"), var("CURBI_RECEIPT_NOW"))?));
        }
        Ok(c)
    }
}

/// The receipt verifier of `CURBI_RECEIPT_KEYS_FILE` (a JWKS), `CURBI_RECEIPT_ALLOW_TEST` (`1` or `true`: test
/// keys count) and `CURBI_RECEIPT_NOW` (a fixed RFC 3339 clock, for tests; the system clock otherwise).
fn receipt_keys(
    path: &str,
    allow_test: Option<String>,
    now: Option<String>,
) -> Result<curbi::api::ReceiptVerifier, String> {
    let text = key_file_text("CURBI_RECEIPT_KEYS_FILE", path)?;
    let jwks: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("CURBI_RECEIPT_KEYS_FILE: not JSON: {e}"))?;
    let allow = match allow_test.as_deref().map(str::trim) {
        None | Some("0" | "false") => false,
        Some("1" | "true") => true,
        Some(other) => {
            let other = curbi::error::excerpt(other);
            return Err(format!("CURBI_RECEIPT_ALLOW_TEST: '{other}' is not 1, true, 0 or false"));
        }
    };
    let mut config = serde_json::json!({"keys": jwks, "allowTest": allow});
    if let Some(n) = now {
        config["now"] = n.into();
    }
    curbi::api::ReceiptVerifier::from_json(config.to_string().as_bytes())
        .map_err(|e| format!("CURBI_RECEIPT_KEYS_FILE: {} at {} ({})", e.message, e.path, e.code.as_str()))
}

/// The text of the key file that variable `name` names: opened without waiting and read only when it is a regular
/// file (`curbi_recorder::open_regular`), at most 16 MiB. Messages name the variable, never its value, which may be
/// the keys themselves set where their path belongs.
fn key_file_text(name: &str, path: &str) -> Result<String, String> {
    use std::io::Read;
    const MAX_KEY_FILE: u64 = 16 << 20;
    let mut text = String::new();
    let file = curbi_recorder::open_regular(std::path::Path::new(path)).map_err(|e| format!("{name}: {e}"))?;
    file.take(MAX_KEY_FILE + 1).read_to_string(&mut text).map_err(|e| format!("{name}: {e}"))?;
    if text.len() as u64 > MAX_KEY_FILE {
        return Err(format!("{name}: the file is over {MAX_KEY_FILE} bytes"));
    }
    Ok(text)
}

/// Shared state of one server: the configuration, the rate-limit windows and the pool the checks run on.
#[derive(Debug)]
pub struct Server {
    pub config: Config,
    pub requests: RateLimiter,
    pub tool_calls: RateLimiter,
    /// `POST /v1/check` per client address.
    pub checks: RateLimiter,
    /// Failed authentications per client address.
    pub auth_failures: RateLimiter,
    /// The bounded pool every check and tool call runs on.
    pub pool: WorkPool,
}

impl Server {
    pub fn new(config: Config) -> Server {
        let requests = RateLimiter::new(config.rate_per_minute);
        let tool_calls = RateLimiter::new(config.tool_rate_per_minute);
        let checks = RateLimiter::new(config.check_rate_per_minute);
        let auth_failures = RateLimiter::new(config.auth_failures_per_minute);
        let pool = WorkPool::new(config.workers, config.queue);
        Server { config, requests, tool_calls, checks, auth_failures, pool }
    }
}
