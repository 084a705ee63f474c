//! What one server is configured with (keys, limits, the hosts it answers for; read from the environment by
//! `curbi serve`) and the state it keeps between requests: [`Server`], shared by every route.

use std::sync::Arc;

use crate::auth::{KeySet, RateLimiter};
use crate::http::MAX_BODY;

/// Largest tool output, in bytes of the JSON text block (seed 000: "24 KiB tool output").
pub const MAX_TOOL_OUTPUT: usize = 24 * 1024;
/// Default requests per minute per caller (a key, or all key-less callers together) on `POST /mcp`.
pub const DEFAULT_RATE_PER_MINUTE: u32 = 120;
/// Default `tools/call` per minute per caller and tool.
pub const DEFAULT_TOOL_RATE_PER_MINUTE: u32 = 60;

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
        }
    }
}

impl Config {
    /// Reads the configuration from the environment (docs/MCP.md, Configuration):
    /// `CURBI_MCP_KEYS_FILE` (a keys file), `CURBI_MCP_KEYS` (the same JSON inline), `CURBI_MCP_RATE_PER_MINUTE`,
    /// `CURBI_MCP_TOOL_RATE_PER_MINUTE`, `CURBI_MCP_MAX_TOOL_OUTPUT`, `CURBI_MCP_ALLOWED_HOSTS` (comma-separated host
    /// names, or `*` for any). Unset variables keep the defaults. The error never contains a key.
    pub fn from_env() -> Result<Config, String> {
        let mut c = Config::default();
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        if let Some(path) = var("CURBI_MCP_KEYS_FILE") {
            let text = std::fs::read_to_string(&path).map_err(|e| format!("CURBI_MCP_KEYS_FILE {path}: {e}"))?;
            c.keys = KeySet::from_json(&text).map_err(|e| format!("CURBI_MCP_KEYS_FILE {path}: {e}"))?;
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
            let r = curbi_recorder::api::open_json(open.to_string().as_bytes())
                .map_err(|e| format!("CURBI_MCP_RECORDER_DB {db}: {} ({})", e.message, e.code))?;
            c.recorder = Some(Arc::new(r));
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
    let text = std::fs::read_to_string(path).map_err(|e| format!("CURBI_RECEIPT_KEYS_FILE {path}: {e}"))?;
    let jwks: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("CURBI_RECEIPT_KEYS_FILE {path}: not JSON: {e}"))?;
    let allow = match allow_test.as_deref().map(str::trim) {
        None | Some("0" | "false") => false,
        Some("1" | "true") => true,
        Some(other) => return Err(format!("CURBI_RECEIPT_ALLOW_TEST: '{other}' is not 1, true, 0 or false")),
    };
    let mut config = serde_json::json!({"keys": jwks, "allowTest": allow});
    if let Some(n) = now {
        config["now"] = n.into();
    }
    curbi::api::ReceiptVerifier::from_json(config.to_string().as_bytes())
        .map_err(|e| format!("CURBI_RECEIPT_KEYS_FILE {path}: {} at {} ({})", e.message, e.path, e.code.as_str()))
}

/// Shared state of one server: the configuration and the rate-limit windows.
#[derive(Debug)]
pub struct Server {
    pub config: Config,
    pub requests: RateLimiter,
    pub tool_calls: RateLimiter,
}

impl Server {
    pub fn new(config: Config) -> Server {
        let requests = RateLimiter::new(config.rate_per_minute);
        let tool_calls = RateLimiter::new(config.tool_rate_per_minute);
        Server { config, requests, tool_calls }
    }
}
