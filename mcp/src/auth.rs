//! Bearer API keys with scopes, the sandbox partition of test keys, and the fixed-window rate limits of `POST /mcp`.
//! Keys are held only as SHA-256 digests: the raw key is never stored, echoed, logged or put in an error.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::header::WWW_AUTHENTICATE;
use axum::http::{HeaderValue, StatusCode};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::rpc::{RpcError, code};

/// The prefix of sandbox test keys: a key that starts with it uses the sandbox partition.
pub const TEST_KEY_PREFIX: &str = "curbi_test_";

/// What a key may call beyond the public tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// `verify_checkout`.
    Checkout,
    /// `verify_agent`.
    Verify,
    /// Any configured key (`fetch_signed_receipt`); never written in a keys file.
    AnyKey,
}

impl Scope {
    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "checkout" => Some(Scope::Checkout),
            "verify" => Some(Scope::Verify),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Checkout => "checkout",
            Scope::Verify => "verify",
            Scope::AnyKey => "any key",
        }
    }
}

/// Where a caller's requests are counted and labelled: keys starting with [`TEST_KEY_PREFIX`] are `sandbox`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partition {
    Live,
    Sandbox,
}

impl Partition {
    pub fn as_str(self) -> &'static str {
        match self {
            Partition::Live => "live",
            Partition::Sandbox => "sandbox",
        }
    }
}

/// One configured key: its digest, a name for limits and logs, its scopes and partition.
#[derive(Clone)]
pub struct ApiKey {
    digest: [u8; 32],
    pub name: String,
    pub scopes: Vec<Scope>,
    pub partition: Partition,
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiKey")
            .field("name", &self.name)
            .field("scopes", &self.scopes)
            .field("partition", &self.partition)
            .finish_non_exhaustive()
    }
}

impl ApiKey {
    /// A key from its raw value (hashed at once).
    pub fn new(raw: &str, name: impl Into<String>, scopes: Vec<Scope>) -> ApiKey {
        let partition = if raw.starts_with(TEST_KEY_PREFIX) { Partition::Sandbox } else { Partition::Live };
        ApiKey { digest: digest(raw), name: name.into(), scopes, partition }
    }
}

fn digest(raw: &str) -> [u8; 32] {
    Sha256::digest(raw.as_bytes()).into()
}

/// The configured keys.
#[derive(Debug, Clone, Default)]
pub struct KeySet {
    keys: Vec<ApiKey>,
}

impl KeySet {
    pub fn new(keys: Vec<ApiKey>) -> KeySet {
        KeySet { keys }
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Reads `{"keys":[{"key":"curbi_test_…","name":"ci","scopes":["checkout","verify"]}]}`. Errors name the
    /// entry by index, never by key.
    pub fn from_json(text: &str) -> Result<KeySet, String> {
        let doc: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let entries = doc.get("keys").and_then(Value::as_array).ok_or("expected {\"keys\": [...]}")?;
        let mut keys = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let raw = entry.get("key").and_then(Value::as_str).filter(|k| k.len() >= 16);
            let raw = raw.ok_or(format!("keys[{i}].key: a string of at least 16 characters is required"))?;
            let name = entry.get("name").and_then(Value::as_str).map_or_else(|| format!("key{i}"), str::to_string);
            let mut scopes = Vec::new();
            for s in entry.get("scopes").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
                let s = s.as_str().and_then(Scope::parse);
                scopes.push(s.ok_or(format!("keys[{i}].scopes: each scope is \"checkout\" or \"verify\""))?);
            }
            keys.push(ApiKey::new(raw, name, scopes));
        }
        Ok(KeySet { keys })
    }

    /// The caller of a request: anonymous without `Authorization`; a known bearer key; else 401 with
    /// `WWW-Authenticate: Bearer`.
    pub fn caller(&self, authorization: Option<&HeaderValue>) -> Result<Caller, RpcError> {
        let Some(value) = authorization else { return Ok(Caller::Anonymous) };
        let unauthorized = |m: &str, challenge: &'static str| {
            RpcError::new(StatusCode::UNAUTHORIZED, code::SERVER_ERROR, m.to_string())
                .with_header(WWW_AUTHENTICATE, challenge)
        };
        let text = value.to_str().unwrap_or_default().trim();
        let token = match text.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => return Err(unauthorized("send the API key as Authorization: Bearer <key>", "Bearer")),
        };
        let d = digest(token);
        // Compare every digest in full, so timing does not depend on where a key matches.
        let found = self.keys.iter().fold(None, |found, k| if ct_eq(&k.digest, &d) { Some(k) } else { found });
        match found {
            Some(k) => Ok(Caller::Key(k.clone())),
            None => Err(unauthorized("unknown API key", "Bearer error=\"invalid_token\"")),
        }
    }
}

fn ct_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Who is calling.
#[derive(Debug, Clone)]
pub enum Caller {
    /// No key: the public tools only.
    Anonymous,
    /// A configured key.
    Key(ApiKey),
}

impl Caller {
    pub fn has_scope(&self, scope: Scope) -> bool {
        matches!(self, Caller::Key(k) if scope == Scope::AnyKey || k.scopes.contains(&scope))
    }

    pub fn partition(&self) -> Option<Partition> {
        match self {
            Caller::Anonymous => None,
            Caller::Key(k) => Some(k.partition),
        }
    }

    /// The rate-limit bucket: all key-less callers share `public`; a key counts in its partition under its name.
    pub fn bucket(&self) -> String {
        match self {
            Caller::Anonymous => "public".into(),
            Caller::Key(k) => format!("{}:{}", k.partition.as_str(), k.name),
        }
    }
}

/// A fixed one-minute window per bucket.
#[derive(Debug)]
pub struct RateLimiter {
    per_minute: u32,
    window: Duration,
    buckets: Mutex<HashMap<String, (Instant, u32)>>,
}

impl RateLimiter {
    /// `per_minute` 0 means no limit.
    pub fn new(per_minute: u32) -> RateLimiter {
        RateLimiter { per_minute, window: Duration::from_secs(60), buckets: Mutex::new(HashMap::new()) }
    }

    /// Counts one request in `bucket`; `Err(seconds until the window ends)` past the limit.
    pub fn check(&self, bucket: &str) -> Result<(), u64> {
        self.count(bucket, true)
    }

    /// `Err(seconds until the window ends)` when `bucket` is already at its limit; counts nothing.
    pub fn spent(&self, bucket: &str) -> Result<(), u64> {
        self.count(bucket, false)
    }

    fn count(&self, bucket: &str, add: bool) -> Result<(), u64> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if buckets.len() > 10_000 {
            buckets.retain(|_, (start, _)| now.duration_since(*start) < self.window);
        }
        let entry = buckets.entry(bucket.to_string()).or_insert((now, 0));
        if now.duration_since(entry.0) >= self.window {
            *entry = (now, 0);
        }
        if entry.1 >= self.per_minute {
            let left = self.window.saturating_sub(now.duration_since(entry.0));
            return Err((left.as_secs() + u64::from(left.subsec_nanos() > 0)).max(1));
        }
        if add {
            entry.1 += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_file_and_lookup() {
        let set = KeySet::from_json(
            r#"{"keys":[{"key":"curbi_test_0123456789abcdef","name":"ci","scopes":["checkout"]},
                        {"key":"curbi_live_0123456789abcdef","scopes":["verify","checkout"]}]}"#,
        )
        .expect("keys");
        let test = set.caller(Some(&HeaderValue::from_static("Bearer curbi_test_0123456789abcdef"))).expect("known");
        assert_eq!(test.partition(), Some(Partition::Sandbox));
        assert!(test.has_scope(Scope::Checkout) && !test.has_scope(Scope::Verify));
        assert_eq!(test.bucket(), "sandbox:ci");
        let live = set.caller(Some(&HeaderValue::from_static("bearer curbi_live_0123456789abcdef"))).expect("known");
        assert_eq!(live.partition(), Some(Partition::Live));
        assert_eq!(live.bucket(), "live:key1");
        let e = set.caller(Some(&HeaderValue::from_static("Bearer curbi_test_wrong"))).expect_err("unknown");
        assert_eq!(e.status, StatusCode::UNAUTHORIZED);
        assert!(!e.message.contains("curbi_test_wrong"));
        assert!(set.caller(Some(&HeaderValue::from_static("Basic abc"))).is_err());
        assert!(matches!(set.caller(None), Ok(Caller::Anonymous)));
        assert!(!format!("{set:?}").contains("0123456789abcdef"));
    }

    #[test]
    fn bad_keys_files() {
        for bad in
            ["[]", r#"{"keys":[{"key":"short"}]}"#, r#"{"keys":[{"key":"curbi_test_0123456789","scopes":["admin"]}]}"#]
        {
            let e = KeySet::from_json(bad).expect_err(bad);
            assert!(!e.contains("curbi_test_0123456789"), "{e}");
        }
    }

    #[test]
    fn rate_limit_window() {
        let limiter = RateLimiter::new(2);
        assert!(limiter.check("a").is_ok());
        assert!(limiter.check("a").is_ok());
        let retry = limiter.check("a").expect_err("third");
        assert!((1..=60).contains(&retry), "{retry}");
        assert!(limiter.check("b").is_ok());
        assert!(RateLimiter::new(0).check("a").is_ok());
    }
}
