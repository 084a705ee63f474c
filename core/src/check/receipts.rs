//! Receipts in checks (docs/CHECKER.md §Receipts): which Curbi-signed receipts a record offers count for a claimed
//! action, judged against keys the verifier was configured with — never keys from the request.
//!
//! A receipt's signature, key and issue-time window are checked once and cached per verifier (the verdict on the
//! same bytes under the same keys never changes); its expiry and what it is for are judged on every check, since
//! they depend on the clock and the claim.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use serde_json::Value;

use crate::check::money::{Currency as Stated, Money};
use crate::decimal::{Dec, SCALE};
use crate::error::{Error, ErrorCode, Result};
use crate::money::Currency;
use crate::pointer::member;
use crate::policy::Verify;
use crate::proof::envelope::{ATTEST_DOMAIN, Envelope, Kind, Receipt, Status};
use crate::proof::keys::KeySet;
use crate::time::Timestamp;

/// Most receipt verdicts a verifier keeps; the cache starts over when full, so memory stays bounded whatever
/// callers send.
const MAX_CACHED: usize = 4096;

/// Where a verifier reads the time that receipts' `exp` is judged against.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    /// A fixed Unix time: tests, vectors and replays, so that they never expire.
    Fixed(i64),
    /// A function returning the current Unix time (the system clock by default; a WebAssembly host passes its own).
    Now(fn() -> i64),
}

/// The system clock in Unix seconds (0 if the clock is before 1970).
pub fn system_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

impl Clock {
    pub fn now(self) -> i64 {
        match self {
            Clock::Fixed(t) => t,
            Clock::Now(f) => f(),
        }
    }
}

/// What a receipt's bytes prove under a verifier's keys, before any claim is looked at.
#[derive(Debug)]
pub(crate) enum Checked {
    /// The signature verifies under a trusted key that was valid at the receipt's issue time.
    Signed(Box<Receipt>),
    /// It can never count under these keys: why.
    Refused(String),
}

/// Trusted receipt keys as configuration: the caller's JWKS, whether test keys count, and the clock. Compile a
/// policy with one (`CompiledPolicy::with_receipts`) to check claimed actions against signed receipts.
pub struct ReceiptVerifier {
    keys: KeySet,
    allow_test: bool,
    clock: Clock,
    cache: RwLock<HashMap<Box<str>, Arc<Checked>>>,
}

impl std::fmt::Debug for ReceiptVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReceiptVerifier")
            .field("keys", &self.keys.len())
            .field("allow_test", &self.allow_test)
            .field("clock", &self.clock)
            .finish_non_exhaustive()
    }
}

impl ReceiptVerifier {
    /// A verifier trusting `keys` (test keys only with `allow_test`), judging expiry by `clock`.
    pub fn new(keys: KeySet, allow_test: bool, clock: Clock) -> ReceiptVerifier {
        ReceiptVerifier { keys, allow_test, clock, cache: RwLock::new(HashMap::new()) }
    }

    /// Reads `{"keys": JWKS, "allowTest"?: bool, "now"?: RFC 3339}` strictly from JSON bytes. Without `now` the
    /// system clock is used; errors carry paths inside this document (`/keys/0/x`, `/now`).
    pub fn from_json(bytes: &[u8]) -> Result<ReceiptVerifier> {
        ReceiptVerifier::from_value(&crate::json::read(bytes)?)
    }

    /// [`ReceiptVerifier::from_json`] on an already-read value.
    pub fn from_value(value: &Value) -> Result<ReceiptVerifier> {
        const MEMBERS: [&str; 3] = ["keys", "allowTest", "now"];
        let obj = value.as_object().ok_or_else(|| crate::json::wrong_type("", "a receipt keys object", value))?;
        if let Some(k) = obj.keys().find(|k| !MEMBERS.contains(&k.as_str())) {
            let msg = format!("unknown member '{}' (allowed: {})", crate::error::excerpt(k), MEMBERS.join(", "));
            return Err(Error::new(ErrorCode::UnknownField, member("", k), msg));
        }
        let keys = obj.get("keys").ok_or_else(|| {
            Error::new(ErrorCode::MissingField, "/keys", "\"keys\" (the JWKS whose receipts you trust) is required")
        })?;
        let keys = KeySet::from_value(keys).map_err(|e| Error::new(e.code, format!("/keys{}", e.path), e.message))?;
        let allow_test = match obj.get("allowTest") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(v) => return Err(crate::json::wrong_type("/allowTest", "a boolean", v)),
        };
        let clock = match obj.get("now") {
            None => Clock::Now(system_now),
            Some(Value::String(s)) => Clock::Fixed(
                Timestamp::parse(s)
                    .map_err(|_| Error::new(ErrorCode::InvalidValue, "/now", "\"now\" must be an RFC 3339 date-time"))?
                    .unix_seconds(),
            ),
            Some(v) => return Err(crate::json::wrong_type("/now", "an RFC 3339 date-time", v)),
        };
        Ok(ReceiptVerifier::new(keys, allow_test, clock))
    }

    /// The same keys with another clock (a WebAssembly host's, or a fixed time).
    pub fn with_clock(mut self, clock: Clock) -> ReceiptVerifier {
        self.clock = clock;
        self
    }

    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// The verdict on one receipt's bytes, from the cache when it was seen before.
    pub(crate) fn check(&self, text: &str) -> Arc<Checked> {
        let read = self.cache.read().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = read.get(text) {
            return c.clone();
        }
        drop(read);
        let checked = Arc::new(self.check_uncached(text));
        let mut cache = self.cache.write().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert(text.into(), checked.clone());
        checked
    }

    fn check_uncached(&self, text: &str) -> Checked {
        let refused = |m: String| Checked::Refused(m);
        if text.starts_with(ATTEST_DOMAIN) {
            return refused(
                "it is an attestation (permission to act), not a receipt (the provider's confirmation)".into(),
            );
        }
        let env = match Envelope::parse(Kind::Receipt, text) {
            Ok(e) => e,
            Err(e) => return refused(format!("it cannot be read as a receipt: {e}")),
        };
        let kid = env.kid();
        let Some(key) = self.keys.get(kid) else {
            return refused(format!("it is signed under kid \"{kid}\", which is no receipt key you trust"));
        };
        if key.is_test() && !self.allow_test {
            return refused(format!(
                "it is signed with the test key \"{kid}\", and test keys count only with allowTest"
            ));
        }
        if env.verify(key.key()).is_err() {
            return refused(format!("its signature does not verify under key \"{kid}\""));
        }
        let receipt = match env.receipt() {
            Ok(r) => r,
            Err(e) => return refused(format!("its signed payload is unreadable: {e}")),
        };
        if !key.valid_at(receipt.iat) {
            return refused(format!("key \"{kid}\" is not valid at the receipt's issue time {}", rfc3339(receipt.iat)));
        }
        Checked::Signed(Box::new(receipt))
    }
}

fn rfc3339(t: i64) -> String {
    Timestamp::from_unix(t, 0).map_or_else(|| t.to_string(), |ts| ts.to_rfc3339())
}

/// One request's use of a verifier: the mode, the time read once, and the receipts already backing a claim (one
/// receipt backs at most one claim in a request, across every case of a batch).
pub(crate) struct ReceiptRun<'v> {
    pub verifier: &'v ReceiptVerifier,
    pub verify: Verify,
    pub now: i64,
    pub used: HashSet<Box<str>>,
}

impl<'v> ReceiptRun<'v> {
    pub(crate) fn new(verifier: &'v ReceiptVerifier, verify: Verify) -> ReceiptRun<'v> {
        ReceiptRun { verifier, verify, now: verifier.clock.now(), used: HashSet::new() }
    }
}

/// A receipt a record offers, with its verdict.
pub(crate) struct Offered<'r> {
    pub text: &'r str,
    pub checked: Arc<Checked>,
}

impl Offered<'_> {
    pub(crate) fn signed(&self) -> Option<&Receipt> {
        match &*self.checked {
            Checked::Signed(r) => Some(r),
            Checked::Refused(_) => None,
        }
    }
}

/// The receipts a record offers that no claim of this request used yet, each listed once.
pub(crate) fn offered<'r>(run: &ReceiptRun<'_>, receipts: &'r [String]) -> Vec<Offered<'r>> {
    let mut out: Vec<Offered<'r>> = Vec::with_capacity(receipts.len());
    // SipHash, not Fx: the texts are the caller's, so their hashes must not be chosen to collide.
    let mut seen: HashSet<&'r str> = HashSet::new();
    for text in receipts {
        if run.used.contains(text.as_str()) || !seen.insert(text) {
            continue;
        }
        out.push(Offered { text, checked: run.verifier.check(text) });
    }
    out
}

/// Why a signed receipt does not count for a claim of `operation` (`None`: it counts).
pub(crate) fn does_not_count(r: &Receipt, operation: &str, subject: Option<&str>, now: i64) -> Option<String> {
    if r.operation != operation {
        return Some(format!("it is for {}, not {operation}", r.operation));
    }
    if r.status != Status::Done {
        return Some(format!("its status is {}, not DONE", r.status.as_str()));
    }
    if let Some(s) = subject
        && r.resource != s
    {
        return Some(format!("it is for {}, not the record's subject {s}", r.resource));
    }
    if now >= r.exp {
        return Some(format!("it expired at {} (now {})", rfc3339(r.exp), rfc3339(now)));
    }
    None
}

/// The receipt's signed amount as its currency writes it (`USD 50.00`), when it has one.
pub(crate) fn signed_amount(r: &Receipt) -> Option<String> {
    let minor = r.amount?;
    let currency = Currency::parse(r.currency.as_deref()?).ok()?;
    Some(currency.format(minor))
}

/// Whether an amount stated in the reply is exactly the receipt's signed amount and currency. `None` when the
/// receipt signs no amount (nothing to compare).
pub(crate) fn same_amount(r: &Receipt, m: &Money) -> Option<bool> {
    let minor = r.amount?;
    let currency = r.currency.as_deref().and_then(|c| Currency::parse(c).ok())?;
    let code = match m.currency {
        Stated::Usd => "USD",
        Stated::Other(code) => code,
    };
    if code != currency.code() {
        return Some(false);
    }
    let Some(stated) = m.amount else {
        return Some(false);
    };
    // Minor units as exact millionths: 5000 USD cents = 50.000000. Every ISO 4217 exponent is at most 4.
    let per_minor = SCALE / 10i128.pow(u32::from(currency.exponent()).min(6));
    Some(Dec(i128::from(minor) * per_minor) == stated)
}

/// The amount a reply states as (currency code, minor units), to find a receipt signing exactly it; `None` when it
/// is not a whole number of minor units of a known currency.
pub(crate) fn stated_key(m: &Money) -> Option<(String, i64)> {
    let code = match m.currency {
        Stated::Usd => "USD",
        Stated::Other(code) => code,
    };
    let currency = Currency::parse(code).ok()?;
    let per_minor = SCALE / 10i128.pow(u32::from(currency.exponent()).min(6));
    let units = m.amount?.0;
    if units % per_minor != 0 {
        return None;
    }
    Some((code.to_owned(), i64::try_from(units / per_minor).ok()?))
}

/// A receipt's signed amount as (currency code, minor units), when it signs one.
pub(crate) fn signed_key(r: &Receipt) -> Option<(String, i64)> {
    Some((r.currency.clone()?, r.amount?))
}

/// Offered receipts in record order, each handed out at most once: the cursor steps over those taken through
/// another queue, so every queue is walked once per request, however many claims there are.
#[derive(Default)]
pub(crate) struct Queue {
    items: Vec<usize>,
    next: usize,
}

impl Queue {
    pub(crate) fn push(&mut self, i: usize) {
        self.items.push(i);
    }

    /// The first receipt not taken yet, which the caller then takes.
    pub(crate) fn pop(&mut self, taken: &[bool]) -> Option<usize> {
        while let Some(&i) = self.items.get(self.next) {
            self.next += 1;
            if !taken[i] {
                return Some(i);
            }
        }
        None
    }
}
