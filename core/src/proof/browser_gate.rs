//! Browser gate proofs (docs/PROOF.md §Browser gate proofs): a gate running in a page through `@curbi/web` decides
//! one proposed action with the action check against a policy and a registry, signs the decision with a test key
//! (`curbi-gate-result-v1.`) and appends it to its own small log. The proof travels as a
//! `curbi.browser.gate-proof.v1` wrapper and is verified against the caller's `curbi.browser.gate-trust.v1`
//! document, which pins the identity keys, the policy and registry digests, the lowest gate version, the log, an
//! optional head seen before and the archival instant `at`.
//!
//! - [`GateProof::from_value`] and [`GateOptions::from_request`]: the strict readers (repeated members, unknown
//!   members, wrong types and sizes are `malformed` with the JSON pointer).
//! - [`GateResult`]: the signed payload; [`decide`]: the one decision both the gate and the verifier run.
//! - [`verify_gate_proof`]: the checks in the documented order, answered with the bundle verifier's document.
//! - [`BrowserGate`]: the prover, as the page runs it (and the vector generator, with a fixed clock).
//!
//! "Bounded TEST": only keys tagged `curbi:test` are ever trusted, only with `allowTest`; every member is bounded;
//! the result grants nothing and does not show that the action was carried out.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::bundle::{ParsedBundle, read_consistency, read_head, read_index, read_proof};
use super::envelope::{Envelope, Kind};
use super::keys::{KeySet, MAX_UNIX_SECONDS, SigningKey, TrustedKey};
use super::merkle::{self, Hash, MerkleLog};
use super::note::{self, CURBI_ORIGIN_PREFIX, Checkpoint};
use super::verify::KnownHead;
use super::verify::algorithm::{Trusted, check_envelope, head_summary, verify_checkpoint};
use super::verify::history::check_history;
use super::verify::report::{Evidence, Finding, HeadSummary, ItemResult, Reason, SCOPE, Verification};
use crate::encoding::{encode_std, hex, sha256};
use crate::error::{Error, ErrorCode};
use crate::json::{first_repeat, wrong_type};
use crate::money::MAX_SAFE;
use crate::pointer::{element, member};
use crate::purchase::{self, Decision};
use crate::time::Timestamp;

/// The wrapper's `object`.
pub const GATE_PROOF_OBJECT: &str = "curbi.browser.gate-proof.v1";
/// The trust document's `object`.
pub const GATE_TRUST_OBJECT: &str = "curbi.browser.gate-trust.v1";
/// The only gate name accepted: the `@curbi/web` package.
pub const GATE_NAME: &str = "curbi-web";
/// Longest request (or options plus wrapper) read on the gate path, in bytes.
pub const MAX_GATE_REQUEST_BYTES: usize = 256 * 1024;
/// Longest RFC 8785 form of the proposal, the policy or the registry, in bytes.
pub const MAX_DOCUMENT_BYTES: usize = 16 * 1024;
/// Most reason codes a result carries.
pub const MAX_REASONS: usize = 64;
/// Longest previous head, in bytes (as a known head).
pub const MAX_PREVIOUS_BYTES: usize = super::verify::MAX_KNOWN_BYTES;
/// How long a result the page's gate signs is valid (`exp - iat`), in seconds.
pub const RESULT_LIFETIME: i64 = 3600;

const PROOF_MEMBERS: [&str; 9] =
    ["object", "proposal", "policy", "registry", "result", "head", "index", "proof", "consistency"];
const TRUST_MEMBERS: [&str; 8] = ["object", "identity", "policy", "registry", "minVersion", "log", "previous", "at"];
const OPTION_MEMBERS: [&str; 5] = ["keys", "allowTest", "mode", "now", "known"];
/// The grant members that are the registry's, never the policy's.
const REGISTRY_MEMBERS: [&str; 2] = ["used", "revoked"];

/// A gate version `MAJOR.MINOR.PATCH` (decimal, no leading zeros, no pre-release), compared field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u64, pub u64, pub u64);

impl Version {
    pub fn parse(s: &str) -> Option<Version> {
        let mut parts = s.split('.');
        let mut n = [0u64; 3];
        for slot in &mut n {
            let p = parts.next()?;
            let digits = !p.is_empty() && p.len() <= 9 && p.bytes().all(|b| b.is_ascii_digit());
            if !digits || (p.len() > 1 && p.starts_with('0')) {
                return None;
            }
            *slot = p.parse().ok()?;
        }
        parts.next().is_none().then_some(Version(n[0], n[1], n[2]))
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// `<name>/<version>`: a name of 1 to 64 characters `a-z 0-9 -`, then a [`Version`].
fn parse_gate(s: &str) -> Option<(&str, Version)> {
    let (name, version) = s.split_once('/')?;
    let name_ok = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    Some((name, Version::parse(version)?)).filter(|_| name_ok)
}

/// The signed payload of a gate result (members in this order on the wire).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GateResult {
    /// The gate that decided: `curbi-web/<version>`.
    pub gate: String,
    /// SHA-256 hex of the RFC 8785 form of the policy it decided against.
    pub policy: String,
    /// SHA-256 hex of the RFC 8785 form of the registry.
    pub registry: String,
    /// SHA-256 hex of the RFC 8785 form of the proposal.
    pub proposal: String,
    /// `ALLOW`, `DENY` or `STEP_UP`.
    pub decision: String,
    /// The decision's reason codes, in the decision's order.
    pub reasons: Vec<String>,
    /// Issued at, Unix seconds: the proposal's `now`.
    pub iat: i64,
    /// Valid until (exclusive), Unix seconds.
    pub exp: i64,
}

fn is_digest(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl GateResult {
    /// Reads and checks a payload (after its signature verified).
    pub fn from_payload(bytes: &[u8]) -> Result<GateResult, String> {
        let r: GateResult = crate::json::from_object_slice(bytes).map_err(|e| format!("gate result payload: {e}"))?;
        r.check()?;
        Ok(r)
    }

    /// Every rule of docs/PROOF.md §Browser gate proofs on the members.
    pub fn check(&self) -> Result<(), String> {
        if parse_gate(&self.gate).is_none() {
            return Err("gate must be <name>/<MAJOR.MINOR.PATCH>".into());
        }
        for (d, name) in [(&self.policy, "policy"), (&self.registry, "registry"), (&self.proposal, "proposal")] {
            if !is_digest(d) {
                return Err(format!("{name} must be 64 lowercase hex digits (SHA-256)"));
            }
        }
        if !matches!(self.decision.as_str(), "ALLOW" | "DENY" | "STEP_UP") {
            return Err("decision must be ALLOW, DENY or STEP_UP".into());
        }
        if self.reasons.len() > MAX_REASONS {
            return Err(format!("more than {MAX_REASONS} reasons"));
        }
        let code = |c: &String| {
            !c.is_empty()
                && c.len() <= 64
                && c.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        };
        if !self.reasons.iter().all(code) {
            return Err("a reason is a code of 1 to 64 characters a-z, 0-9, _".into());
        }
        if !(0..=MAX_UNIX_SECONDS).contains(&self.iat) || !(0..=MAX_UNIX_SECONDS).contains(&self.exp) {
            return Err(format!("iat and exp must be Unix seconds from 0 to {MAX_UNIX_SECONDS}"));
        }
        if self.exp <= self.iat {
            return Err("exp must be later than iat".into());
        }
        Ok(())
    }

    /// The payload bytes (compact JSON, members in order).
    pub fn to_payload(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// The action check on a proposal against a policy and a registry: the grant is the policy with the registry's
/// members (`used`, `revoked`) added, the request `{grant, action, now}` (docs/PURCHASE.md §Action check). The gate
/// and the verifier both run exactly this.
pub fn decide(policy: &Map<String, Value>, registry: &Map<String, Value>, proposal: &Map<String, Value>) -> Decision {
    let mut grant = policy.clone();
    for (k, v) in registry {
        grant.insert(k.clone(), v.clone());
    }
    let mut request = Map::new();
    request.insert("grant".into(), Value::Object(grant));
    for name in ["action", "now"] {
        if let Some(v) = proposal.get(name) {
            request.insert(name.into(), v.clone());
        }
    }
    purchase::verify_action_request(&Value::Object(request))
}

fn bad(code: ErrorCode, path: impl Into<String>, message: impl Into<String>) -> Error {
    Error::new(code, path, message)
}

fn object<'a>(v: &'a Value, path: &str, what: &str) -> Result<&'a Map<String, Value>, Error> {
    v.as_object().ok_or_else(|| wrong_type(path, what, v))
}

fn no_unknown(obj: &Map<String, Value>, path: &str, allowed: &[&str], what: &str) -> Result<(), Error> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(name) => Err(bad(
            ErrorCode::UnknownField,
            member(path, name),
            format!("\"{name}\" is not a member of {what} (allowed: {})", allowed.join(", ")),
        )),
        None => Ok(()),
    }
}

fn required<'a>(obj: &'a Map<String, Value>, path: &str, name: &str) -> Result<&'a Value, Error> {
    obj.get(name).ok_or_else(|| bad(ErrorCode::MissingField, member(path, name), format!("\"{name}\" is required")))
}

fn string<'a>(v: &'a Value, path: &str) -> Result<&'a str, Error> {
    v.as_str().ok_or_else(|| wrong_type(path, "a string", v))
}

/// The `object` member, which must be `want`.
fn kind(obj: &Map<String, Value>, path: &str, want: &str, hint: &str) -> Result<(), Error> {
    let at = member(path, "object");
    match string(required(obj, path, "object")?, &at)? {
        got if got == want => Ok(()),
        got => Err(bad(ErrorCode::InvalidEnum, at, format!("\"object\" must be \"{want}\", not \"{got}\"{hint}"))),
    }
}

/// An RFC 3339 date-time at `path`, as Unix seconds from 0 to 9999-12-31T23:59:59Z.
fn time(v: &Value, path: &str) -> Result<i64, Error> {
    let s = string(v, path)?;
    let t = Timestamp::parse(s).map_err(|_| bad(ErrorCode::InvalidValue, path, "an RFC 3339 date-time"))?;
    let secs = t.unix_seconds();
    if !(0..=MAX_UNIX_SECONDS).contains(&secs) {
        return Err(bad(ErrorCode::OutOfRange, path, "a time from 1970 to 9999"));
    }
    Ok(secs)
}

fn digest(v: &Value, path: &str) -> Result<String, Error> {
    let s = string(v, path)?;
    if !is_digest(s) {
        return Err(bad(ErrorCode::InvalidValue, path, "a SHA-256 digest: 64 lowercase hex digits"));
    }
    Ok(s.to_owned())
}

/// SHA-256 hex of the RFC 8785 form of a document at `path`, at most [`MAX_DOCUMENT_BYTES`] long.
fn canonical_digest(v: &Value, path: &str) -> Result<String, Error> {
    let text = crate::jcs::canonicalize(v).map_err(|e| bad(e.code, format!("{path}{}", e.path), e.message))?;
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(bad(
            ErrorCode::TooLong,
            path,
            format!("{} bytes in RFC 8785 form, more than {MAX_DOCUMENT_BYTES}", text.len()),
        ));
    }
    Ok(hex(&sha256(text.as_bytes())))
}

/// The three documents a gate decides on, read strictly, with their digests.
#[derive(Debug, Clone)]
pub struct Documents {
    pub proposal: Map<String, Value>,
    pub policy: Map<String, Value>,
    pub registry: Map<String, Value>,
    /// SHA-256 hex of the RFC 8785 forms: proposal, policy, registry.
    pub proposal_digest: String,
    pub policy_digest: String,
    pub registry_digest: String,
    /// The proposal's `now`, Unix seconds.
    pub now: i64,
}

impl Documents {
    /// Reads the proposal `{action, now}`, the policy (an action-check grant without `used` and `revoked`) and the
    /// registry (`{used?, revoked?}`), each at its own pointer.
    pub fn read(
        proposal: (&Value, &str),
        policy: (&Value, &str),
        registry: (&Value, &str),
    ) -> Result<Documents, Error> {
        let (p, at) = proposal;
        let prop = object(p, at, "a proposal {action, now}")?;
        no_unknown(prop, at, &["action", "now"], "a proposal")?;
        let action_at = member(at, "action");
        object(required(prop, at, "action")?, &action_at, "an action object")?;
        let now = time(required(prop, at, "now")?, &member(at, "now"))?;
        let proposal_digest = canonical_digest(p, at)?;

        let (v, at) = policy;
        let pol = object(v, at, "a policy (an action-check grant)")?;
        if let Some(name) = REGISTRY_MEMBERS.iter().find(|n| pol.contains_key(**n)) {
            return Err(bad(
                ErrorCode::InvalidValue,
                member(at, name),
                format!("\"{name}\" is the grant's state: it belongs in the registry, not the policy"),
            ));
        }
        let policy_digest = canonical_digest(v, at)?;

        let (r, at) = registry;
        let reg = object(r, at, "a registry {used?, revoked?}")?;
        no_unknown(reg, at, &REGISTRY_MEMBERS, "a registry")?;
        if let Some(u) = reg.get("used") {
            let used_at = member(at, "used");
            match u {
                Value::Number(n) if n.is_u64() && n.as_u64().is_some_and(|n| n <= MAX_SAFE.unsigned_abs()) => {}
                Value::Number(n) if n.is_u64() || n.is_i64() => {
                    return Err(bad(ErrorCode::OutOfRange, used_at, "a count from 0 to 2^53 - 1"));
                }
                other => return Err(wrong_type(&used_at, "an integer count", other)),
            }
        }
        if let Some(b) = reg.get("revoked").filter(|b| !b.is_boolean()) {
            return Err(wrong_type(&member(at, "revoked"), "a boolean", b));
        }
        let registry_digest = canonical_digest(r, at)?;
        Ok(Documents {
            proposal: prop.clone(),
            policy: pol.clone(),
            registry: reg.clone(),
            proposal_digest,
            policy_digest,
            registry_digest,
            now,
        })
    }

    /// [`decide`] on these documents.
    pub fn decide(&self) -> Decision {
        decide(&self.policy, &self.registry, &self.proposal)
    }
}

/// A `curbi.browser.gate-proof.v1` wrapper read strictly; signatures and proofs are still unchecked.
#[derive(Debug, Clone)]
pub struct GateProof {
    pub documents: Documents,
    /// The compact result: also the exact log entry.
    pub result_text: String,
    pub result: Envelope,
    /// The head and the older heads, as a bundle without receipts (for the history checks).
    pub log: ParsedBundle,
    pub index: u64,
    pub proof: Vec<Hash>,
}

impl GateProof {
    /// Reads a wrapper at `path` (`/bundle` in a request): `object` first, then unknown members, then `proposal`,
    /// `policy`, `registry`, `result`, `head`, `index`, `proof`, `consistency`.
    pub fn from_value(v: &Value, path: &str) -> Result<GateProof, Error> {
        let obj = object(v, path, "a curbi.browser.gate-proof.v1 wrapper")?;
        let hint = if obj.get("object").and_then(Value::as_str) == Some(super::bundle::BUNDLE_OBJECT) {
            " (a curbi.proof/0.1 bundle verifies against a JWKS as \"keys\", not a gate-trust document)"
        } else {
            ""
        };
        kind(obj, path, GATE_PROOF_OBJECT, hint)?;
        no_unknown(obj, path, &PROOF_MEMBERS, "a gate-proof wrapper")?;
        let (proposal_at, policy_at, registry_at) =
            (member(path, "proposal"), member(path, "policy"), member(path, "registry"));
        let documents = Documents::read(
            (required(obj, path, "proposal")?, &proposal_at),
            (required(obj, path, "policy")?, &policy_at),
            (required(obj, path, "registry")?, &registry_at),
        )?;
        let result_at = member(path, "result");
        let result_text = string(required(obj, path, "result")?, &result_at)?.to_owned();
        let result = Envelope::parse(Kind::GateResult, &result_text)
            .map_err(|e| bad(ErrorCode::InvalidValue, &result_at, e.0))?;
        let (head_text, head) = read_head(required(obj, path, "head")?, &member(path, "head"))?;
        let index = read_index(required(obj, path, "index")?, &member(path, "index"))?;
        let proof = read_proof(required(obj, path, "proof")?, &member(path, "proof"))?;
        let older = match obj.get("consistency") {
            Some(c) => read_consistency(c, &member(path, "consistency"))?,
            None => Vec::new(),
        };
        let log = ParsedBundle { head_text, head, items: Vec::new(), older, keys: None };
        Ok(GateProof { documents, result_text, result, log, index, proof })
    }
}

/// The caller's `curbi.browser.gate-trust.v1` document.
#[derive(Debug, Clone)]
pub struct GateTrust {
    /// The gate's keys; only those tagged `curbi:test` are ever trusted.
    pub identity: KeySet,
    pub policy: String,
    pub registry: String,
    pub min_version: Version,
    /// The origin the head must have.
    pub log: String,
    pub previous: Option<KnownHead>,
    /// The archival instant, Unix seconds.
    pub at: i64,
}

impl GateTrust {
    /// Reads a trust document at `path` (`/keys` in a request).
    pub fn from_value(v: &Value, path: &str) -> Result<GateTrust, Error> {
        let obj = object(v, path, "a curbi.browser.gate-trust.v1 document")?;
        kind(obj, path, GATE_TRUST_OBJECT, "")?;
        no_unknown(obj, path, &TRUST_MEMBERS, "a gate-trust document")?;
        let identity_at = member(path, "identity");
        let identity = KeySet::from_value(required(obj, path, "identity")?)
            .map_err(|e| bad(e.code, format!("{identity_at}{}", e.path), e.message))?;
        let policy = digest(required(obj, path, "policy")?, &member(path, "policy"))?;
        let registry = digest(required(obj, path, "registry")?, &member(path, "registry"))?;
        let version_at = member(path, "minVersion");
        let min_version = Version::parse(string(required(obj, path, "minVersion")?, &version_at)?)
            .ok_or_else(|| bad(ErrorCode::InvalidValue, &version_at, "a version MAJOR.MINOR.PATCH"))?;
        let log_at = member(path, "log");
        let log = string(required(obj, path, "log")?, &log_at)?;
        let curbi = log.len() > CURBI_ORIGIN_PREFIX.len()
            && log.starts_with(CURBI_ORIGIN_PREFIX)
            && note::check_key_name(log).is_ok();
        if !curbi {
            return Err(bad(ErrorCode::InvalidValue, log_at, "a Curbi log origin curbi-checkpoint-v1.<name>"));
        }
        let previous = match obj.get("previous") {
            Some(p) => {
                let at = member(path, "previous");
                if p.as_str().is_some_and(|t| t.len() > MAX_PREVIOUS_BYTES) {
                    return Err(bad(ErrorCode::TooLong, at, format!("longer than {MAX_PREVIOUS_BYTES} bytes")));
                }
                let (text, head) = read_head(p, &at)?;
                Some(KnownHead { text, head })
            }
            None => None,
        };
        let at = time(required(obj, path, "at")?, &member(path, "at"))?;
        Ok(GateTrust { identity, policy, registry, min_version, log: log.to_owned(), previous, at })
    }
}

/// What the caller trusts for a gate proof: the trust document and the request's options.
#[derive(Debug, Clone)]
pub struct GateOptions {
    pub trust: GateTrust,
    pub allow_test: bool,
    /// Further heads the caller saw before (`known`), after the trust document's `previous`.
    pub known: Vec<KnownHead>,
}

impl GateOptions {
    /// Reads a request's option members: `keys` (the trust document), `allowTest`, `mode` (archival only), `now`
    /// (read, then unused: the trust document's `at` is the instant), `known`; others are refused except `also`.
    pub fn from_request(obj: &Map<String, Value>, also: &[&str]) -> Result<GateOptions, Error> {
        if let Some(name) = obj.keys().find(|k| !OPTION_MEMBERS.contains(&k.as_str()) && !also.contains(&k.as_str())) {
            return Err(bad(
                ErrorCode::UnknownField,
                member("", name),
                format!("\"{name}\" is not a verify option for a gate proof (allowed: {})", OPTION_MEMBERS.join(", ")),
            ));
        }
        let keys = obj
            .get("keys")
            .ok_or_else(|| bad(ErrorCode::MissingField, "/keys", "\"keys\" (the gate-trust document) is required"))?;
        let trust = GateTrust::from_value(keys, "/keys")?;
        let allow_test = super::verify::read_boolean(obj, "allowTest")?;
        if let Some(v) = obj.get("now") {
            time(v, "/now")?;
        }
        match obj.get("mode") {
            None => {}
            Some(Value::String(m)) if m == "archival" => {}
            Some(Value::String(m)) if m == "fresh" => {
                return Err(bad(
                    ErrorCode::InvalidValue,
                    "/mode",
                    "a gate proof is verified in archival mode, at the trust document's \"at\"",
                ));
            }
            Some(Value::String(m)) => {
                return Err(bad(ErrorCode::InvalidEnum, "/mode", format!("\"mode\" is \"archival\", not \"{m}\"")));
            }
            Some(v) => return Err(wrong_type("/mode", "a string", v)),
        }
        let known = super::verify::read_known(obj)?;
        Ok(GateOptions { trust, allow_test, known })
    }
}

/// Walks a JSON text down `path` (member names) without building it, and answers whether the string there is
/// `want`. Anything else (another type, a missing member, text that is not JSON) is `false`.
struct Peek<'a> {
    path: &'a [&'a str],
    want: &'a str,
}

impl<'de> DeserializeSeed<'de> for Peek<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Peek<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut found = false;
        while let Some(name) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match self.path.split_first() {
                Some((first, rest)) if name == *first => {
                    found |= map.next_value_seed(Peek { path: rest, want: self.want })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }

    fn visit_str<E>(self, v: &str) -> Result<bool, E> {
        Ok(self.path.is_empty() && v == self.want)
    }

    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
}

/// Whether the string at `path` in the JSON `text` is `want` (cheap: a substring test first, then one pass that
/// keeps nothing).
fn peek(text: &str, path: &[&str], want: &str) -> bool {
    // memchr's search, not `str::contains`: this runs over every request, and std's is several times slower in wasm32.
    if memchr::memmem::find(text.as_bytes(), want.as_bytes()).is_none() {
        return false;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    Peek { path, want }.deserialize(&mut de).unwrap_or(false)
}

/// Whether a request's `keys` is a gate-trust document: the trust anchor, never the prover's wrapper, chooses the
/// gate-proof verifier.
pub(crate) fn request_names_gate_trust(text: &str) -> bool {
    peek(text, &["keys", "object"], GATE_TRUST_OBJECT)
}

/// Whether an options document's `keys` is a gate-trust document.
pub(crate) fn options_name_gate_trust(text: &str) -> bool {
    request_names_gate_trust(text)
}

fn too_long(path: &str, len: usize) -> Verification {
    Verification::malformed(bad(
        ErrorCode::TooLong,
        path,
        format!("{len} bytes: a gate proof request is at most {MAX_GATE_REQUEST_BYTES} bytes"),
    ))
}

fn parse_bounded(text: &str, path: &str) -> Result<Result<Value, Verification>, Error> {
    if let Some(e) = first_repeat(text)? {
        return Ok(Err(Verification::malformed(bad(e.code, format!("{path}{}", e.path), e.message))));
    }
    if text.len() > MAX_GATE_REQUEST_BYTES {
        return Ok(Err(too_long(path, text.len())));
    }
    Ok(Ok(serde_json::from_str(text).map_err(|e| Error::from_json_error(&e))?))
}

/// A whole request `{bundle, keys, allowTest?, mode?, now?, known?}` whose `keys` is a gate-trust document. `Err`
/// only when the text is not JSON.
pub fn verify_request_text(text: &str) -> Result<Verification, Error> {
    let value = match parse_bounded(text, "")? {
        Ok(v) => v,
        Err(verdict) => return Ok(verdict),
    };
    Ok(verify_request_value(&value))
}

/// [`verify_request_text`] on a request already read (no size bound: the text entry points bound the text).
pub fn verify_request_value(value: &Value) -> Verification {
    let Some(obj) = value.as_object() else {
        return Verification::malformed(wrong_type("", "a request object {bundle, keys, ...}", value));
    };
    let options = match GateOptions::from_request(obj, &["bundle"]) {
        Ok(o) => o,
        Err(e) => return Verification::malformed(e),
    };
    let Some(bundle) = obj.get("bundle") else {
        return Verification::malformed(bad(ErrorCode::MissingField, "/bundle", "\"bundle\" is required"));
    };
    verify_value(bundle, &options)
}

/// Whether a request read as a value has a gate-trust document as `keys`.
pub(crate) fn value_names_gate_trust(request: &Value) -> bool {
    request.get("keys").and_then(|k| k.get("object")).and_then(Value::as_str) == Some(GATE_TRUST_OBJECT)
}

/// The two-document form (`curbi verify`): the wrapper and the options, paths those of the combined request.
pub fn verify_parts_text(bundle: &str, options: &str) -> Result<Verification, Error> {
    let bundle_repeat = first_repeat(bundle)?;
    let options = match parse_bounded(options, "")? {
        Ok(v) => v,
        Err(verdict) => return Ok(verdict),
    };
    if let Some(e) = bundle_repeat {
        return Ok(Verification::malformed(bad(e.code, format!("/bundle{}", e.path), e.message)));
    }
    let Some(obj) = options.as_object() else {
        return Ok(Verification::malformed(wrong_type("", "an options object {keys, allowTest, ...}", &options)));
    };
    if obj.contains_key("bundle") {
        let e = bad(ErrorCode::UnknownField, "/bundle", "pass the bundle as its own document, not in options");
        return Ok(Verification::malformed(e));
    }
    let options = match GateOptions::from_request(obj, &[]) {
        Ok(o) => o,
        Err(e) => return Ok(Verification::malformed(e)),
    };
    verify_bundle_text(bundle, &options)
}

/// A wrapper document as JSON text under options read before (the verifier handle).
pub fn verify_bundle_text(bundle: &str, options: &GateOptions) -> Result<Verification, Error> {
    Ok(match parse_bounded(bundle, "/bundle")? {
        Ok(v) => verify_value(&v, options),
        Err(verdict) => verdict,
    })
}

fn verify_value(bundle: &Value, options: &GateOptions) -> Verification {
    match GateProof::from_value(bundle, "/bundle") {
        Ok(p) => verify_gate_proof(&p, options),
        Err(e) => Verification::malformed(e),
    }
}

/// What a gate-trust verifier answers for a parsed `curbi.proof/0.1` bundle: the reader's refusal.
pub(crate) fn bundle_under_gate_trust() -> Verification {
    Verification::malformed(bad(
        ErrorCode::InvalidEnum,
        "/bundle/object",
        format!(
            "\"object\" must be \"{GATE_PROOF_OBJECT}\", not \"{}\" (a curbi.proof/0.1 bundle verifies against a \
             JWKS as \"keys\", not a gate-trust document)",
            super::bundle::BUNDLE_OBJECT
        ),
    ))
}

/// Verifies a read gate proof, checks in the documented order (docs/PROOF.md §Browser gate proofs): trusted keys,
/// head, result signature and times, pins, decision, inclusion, history. The result is the bundle verifier's
/// document with one item, the result.
pub fn verify_gate_proof(proof: &GateProof, options: &GateOptions) -> Verification {
    let trust = &options.trust;
    let mut item = ItemResult {
        index: 0,
        ok: false,
        reason: Reason::Verifies,
        message: String::new(),
        leaf: proof.index,
        digest: hex(&proof.result.digest()),
        kid: proof.result.kid().to_owned(),
        attested: false,
        receipt: None,
        result: None,
    };
    let reject = |f: Finding, mut item: ItemResult, head: Option<HeadSummary>, evidence: Option<Evidence>| {
        item.reason = f.reason;
        item.message.clone_from(&f.message);
        Verification::rejected(f, vec![item], head, evidence)
    };

    // Trusted keys: the identity's test keys, and only with allowTest.
    let test_keys: Vec<&TrustedKey> = trust.identity.keys().iter().filter(|k| k.is_test()).collect();
    if test_keys.is_empty() {
        let m = "the gate identity holds no key tagged curbi:test: browser gate proofs verify only under test keys";
        return reject(Finding::new(Reason::NoTrustedKeys, "/keys/identity", m), item, None, None);
    }
    if !options.allow_test {
        let m = "browser gate proofs are signed with test keys, which verify only with allowTest";
        return reject(Finding::new(Reason::NoTrustedKeys, "/allowTest", m), item, None, None);
    }
    let trusted = Trusted::of(test_keys.into_iter());

    // The head: signed by an identity key valid when it signed and at `at`, of the pinned log.
    let head = match verify_checkpoint(&proof.log.head, &trusted, &[], "/bundle/head") {
        Ok(h) => h,
        Err(f) => return reject(f, item, None, None),
    };
    let summary = head_summary(&proof.log, &head, &[]);
    let origin = proof.log.head.checkpoint().origin();
    if origin != trust.log {
        let m = format!("the head is of the log \"{origin}\", not the pinned \"{}\"", trust.log);
        return reject(Finding::new(Reason::NotInLog, "/bundle/head", m), item, Some(summary), None);
    }
    if !head.key.valid_at(trust.at) {
        let m = format!("key \"{}\" is not valid at \"at\" ({})", head.key.kid(), trust.at);
        let f = Finding::new(Reason::CheckpointKeyNotValidAtIssue, "/keys/at", m);
        return reject(f, item, Some(summary), None);
    }

    // The result: signed by an identity key, only then read; valid at its issue time and at `at`.
    let key = match check_envelope(&proof.result, &trusted, "gate result") {
        Ok(k) => k,
        Err(m) => return reject(Finding::new(Reason::BadSignature, "/bundle/result", m), item, Some(summary), None),
    };
    let result = match GateResult::from_payload(proof.result.payload()) {
        Ok(r) => r,
        Err(m) => {
            let m = format!("a signed gate result whose payload is unreadable: {m}");
            return reject(Finding::new(Reason::Malformed, "/bundle/result", m), item, Some(summary), None);
        }
    };
    item.result = Some(result.clone());
    for (t, what, path) in [(result.iat, "the result's issue time", "/bundle/result"), (trust.at, "\"at\"", "/keys/at")]
    {
        if !key.valid_at(t) {
            let m = format!("key \"{}\" is not valid at {what} ({t})", key.kid());
            let f = Finding::new(Reason::CheckpointKeyNotValidAtIssue, path, m);
            return reject(f, item, Some(summary), None);
        }
    }
    if !(result.iat <= trust.at && trust.at < result.exp) {
        let m = format!("\"at\" ({}) is outside the result's validity [{}, {})", trust.at, result.iat, result.exp);
        return reject(Finding::new(Reason::Expired, "/keys/at", m), item, Some(summary), None);
    }

    // The pins: the caller's policy, registry and lowest gate version.
    let pinned = |what: &str, got: &str, want: &str| {
        Finding::new(
            Reason::GateNotPinned,
            "/bundle/result",
            format!("the result was decided against the {what} {got}, not the pinned {want}"),
        )
    };
    if result.policy != trust.policy {
        return reject(pinned("policy", &result.policy, &trust.policy), item, Some(summary), None);
    }
    if result.registry != trust.registry {
        return reject(pinned("registry", &result.registry, &trust.registry), item, Some(summary), None);
    }
    let (name, version) = parse_gate(&result.gate).unwrap_or((&result.gate, Version(0, 0, 0)));
    if name != GATE_NAME || version < trust.min_version {
        let m = format!("the gate \"{}\" is not {GATE_NAME} at {} or later", result.gate, trust.min_version);
        return reject(Finding::new(Reason::GateNotPinned, "/bundle/result", m), item, Some(summary), None);
    }

    // The decision: the result names this proof's documents, and re-running the action check gives it.
    let docs = &proof.documents;
    for (got, want, path) in [
        (&result.policy, &docs.policy_digest, "/bundle/policy"),
        (&result.registry, &docs.registry_digest, "/bundle/registry"),
        (&result.proposal, &docs.proposal_digest, "/bundle/proposal"),
    ] {
        if got != want {
            let m = format!("the result names the document {got}; this one is {want}");
            return reject(Finding::new(Reason::DecisionMismatch, path, m), item, Some(summary), None);
        }
    }
    if result.iat != docs.now {
        let m = format!("the result was issued at {}, the proposal is decided at {}", result.iat, docs.now);
        return reject(Finding::new(Reason::DecisionMismatch, "/bundle/proposal/now", m), item, Some(summary), None);
    }
    let decision = docs.decide();
    let codes: Vec<&str> = decision.reasons().iter().map(|r| r.code.as_str()).collect();
    if decision.verdict().as_str() != result.decision || codes != result.reasons {
        let m = format!(
            "the result says {} {:?}; the action check on the proposal gives {} {codes:?}",
            result.decision,
            result.reasons,
            decision.verdict().as_str()
        );
        return reject(Finding::new(Reason::DecisionMismatch, "/bundle/result", m), item, Some(summary), None);
    }

    // Inclusion: the compact result is the entry at `index` under the head.
    let leaf = merkle::leaf_hash(proof.result_text.as_bytes());
    if let Err(e) = merkle::verify_inclusion(&leaf, proof.index, head.size, &proof.proof, &head.root) {
        let m = format!("the result is not the log entry at index {} under the head: {e}", proof.index);
        return reject(Finding::new(Reason::NotInLog, "/bundle/proof", m), item, Some(summary), None);
    }

    // History: the head seen before (and any known heads) proven a prefix of the head, no fork.
    let previous = usize::from(trust.previous.is_some());
    let heads: Vec<KnownHead> = trust.previous.iter().chain(&options.known).cloned().collect();
    let known_at = |i: usize| if i < previous { "/keys/previous".to_owned() } else { element("/known", i - previous) };
    if let Some((f, evidence)) = check_history(&proof.log, &head, &trusted, &heads, known_at) {
        return reject(f, item, Some(summary), evidence);
    }

    item.ok = true;
    let message = format!(
        "a {} decision signed by a trusted test key of {GATE_NAME}, re-decided from its proposal and logged under \
         the head of size {}",
        result.decision, head.size
    );
    Verification {
        ok: true,
        reason: Reason::Verifies,
        message,
        path: String::new(),
        items: vec![item],
        head: Some(summary),
        evidence: None,
        error: None,
        scope: SCOPE,
    }
}

/// A gate proof made by [`BrowserGate::prove`]: the wrapper, the trust document a verifier pins for it, and the
/// decision.
#[derive(Debug, Clone)]
pub struct Proved {
    pub proof: Value,
    pub trust: Value,
    pub decision: Decision,
}

/// The prover: one test key signs results and checkpoints of a small in-memory log. The page builds one from a
/// random seed; the vector generator from a published test seed.
pub struct BrowserGate {
    key: SigningKey,
    kid: String,
    origin: String,
    gate: String,
    version: Version,
    log: MerkleLog,
    /// Every head signed, with its size.
    heads: Vec<(u64, String)>,
    lifetime: i64,
}

impl std::fmt::Debug for BrowserGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrowserGate").field("origin", &self.origin).field("gate", &self.gate).finish_non_exhaustive()
    }
}

impl BrowserGate {
    /// A gate signing with `key` under the log `origin` (`curbi-checkpoint-v1.<name>`), calling itself
    /// `curbi-web/<version>`.
    pub fn new(key: SigningKey, origin: &str, version: &str) -> Result<BrowserGate, Error> {
        let version = Version::parse(version)
            .ok_or_else(|| bad(ErrorCode::InvalidValue, "/version", "a version MAJOR.MINOR.PATCH"))?;
        Checkpoint::new(origin, 0, merkle::empty_root())
            .ok()
            .filter(Checkpoint::is_curbi)
            .ok_or_else(|| bad(ErrorCode::InvalidValue, "/log", "a Curbi log origin curbi-checkpoint-v1.<name>"))?;
        let kid = key.verifying_key().thumbprint();
        Ok(BrowserGate {
            key,
            kid,
            origin: origin.to_owned(),
            gate: format!("{GATE_NAME}/{version}"),
            version,
            log: MerkleLog::new(),
            heads: Vec::new(),
            lifetime: RESULT_LIFETIME,
        })
    }

    /// The gate's identity: a JWKS of its one key, tagged `curbi:test`.
    pub fn identity(&self) -> Value {
        KeySet::from_keys(vec![TrustedKey::new(self.key.verifying_key()).with_test(true)])
            .map(|k| k.to_value())
            .unwrap_or(Value::Null)
    }

    /// The log's origin.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Every head signed so far, oldest first.
    pub fn heads(&self) -> impl Iterator<Item = &str> {
        self.heads.iter().map(|(_, h)| h.as_str())
    }

    /// Decides `proposal` against `policy` and `registry` (read as a wrapper's are, paths `/proposal`, `/policy`,
    /// `/registry`), signs the result at the proposal's `now`, logs it, signs the new head, and returns the wrapper
    /// (with a consistency proof from the previous head, if any) and the trust document that pins this gate, these
    /// documents, the previous head and `at` = the result's issue time.
    pub fn prove(&mut self, policy: &Value, registry: &Value, proposal: &Value) -> Result<Proved, Error> {
        self.prove_with([policy, registry, proposal], |_| {})
    }

    /// [`BrowserGate::prove`] over JSON: a request `{policy, registry, proposal}` in (read strictly; paths
    /// `/policy/...`, `/registry/...`, `/proposal/...`), `{"proof", "trust", "decision"}` out, the decision being
    /// the action check's document. The entry `@curbi/web`'s `createBrowserGate` marshals to.
    pub fn prove_json(&mut self, request: &[u8]) -> Result<String, Error> {
        let value = crate::json::read(request)?;
        let obj = object(&value, "", "a request {policy, registry, proposal}")?;
        no_unknown(obj, "", &["policy", "registry", "proposal"], "a gate request")?;
        let (policy, registry, proposal) =
            (required(obj, "", "policy")?, required(obj, "", "registry")?, required(obj, "", "proposal")?);
        let proved = self.prove(policy, registry, proposal)?;
        let mut out = Map::new();
        out.insert("proof".into(), proved.proof);
        out.insert("trust".into(), proved.trust);
        out.insert("decision".into(), proved.decision.to_json());
        Ok(Value::Object(out).to_string())
    }

    /// [`BrowserGate::prove`] of `[policy, registry, proposal]` with the payload changed before it is signed: a gate
    /// breaking its own rules, for the conformance vectors only.
    #[cfg(feature = "misbehave")]
    pub fn misbehave_prove(&mut self, docs: [&Value; 3], edit: impl FnOnce(&mut GateResult)) -> Result<Proved, Error> {
        self.prove_with(docs, edit)
    }

    fn prove_with(&mut self, docs: [&Value; 3], edit: impl FnOnce(&mut GateResult)) -> Result<Proved, Error> {
        let [policy, registry, proposal] = docs;
        let docs = Documents::read((proposal, "/proposal"), (policy, "/policy"), (registry, "/registry"))?;
        let decision = docs.decide();
        let exp = docs.now.saturating_add(self.lifetime).min(MAX_UNIX_SECONDS);
        let mut result = GateResult {
            gate: self.gate.clone(),
            policy: docs.policy_digest.clone(),
            registry: docs.registry_digest.clone(),
            proposal: docs.proposal_digest.clone(),
            decision: decision.verdict().as_str().to_owned(),
            reasons: decision.reasons().iter().map(|r| r.code.as_str().to_owned()).collect(),
            iat: docs.now,
            exp,
        };
        edit(&mut result);
        let failed = |m: String| bad(ErrorCode::InvalidValue, "/proposal/now", m);
        let envelope =
            Envelope::sign(Kind::GateResult, result.to_payload(), &self.key, &self.kid).map_err(|e| failed(e.0))?;
        let compact = envelope.to_compact();
        let index = self.log.append(compact.as_bytes());
        let size = self.log.size();
        let checkpoint = Checkpoint::new(&self.origin, size, self.log.root()).map_err(|e| failed(e.to_string()))?;
        let signed_at = u64::try_from(docs.now).unwrap_or_default();
        let head = note::sign_curbi_checkpoint(&checkpoint, &self.key, signed_at).map_err(|e| failed(e.to_string()))?;
        let inclusion = self.log.inclusion_proof(index, size).map_err(|e| failed(e.to_string()))?;
        let hashes = |p: &[Hash]| Value::Array(p.iter().map(|h| Value::String(encode_std(h))).collect());
        let mut wrapper = Map::new();
        wrapper.insert("object".into(), GATE_PROOF_OBJECT.into());
        wrapper.insert("proposal".into(), proposal.clone());
        wrapper.insert("policy".into(), policy.clone());
        wrapper.insert("registry".into(), registry.clone());
        wrapper.insert("result".into(), compact.into());
        wrapper.insert("head".into(), head.clone().into());
        wrapper.insert("index".into(), index.into());
        wrapper.insert("proof".into(), hashes(&inclusion));
        let mut trust = Map::new();
        trust.insert("object".into(), GATE_TRUST_OBJECT.into());
        trust.insert("identity".into(), self.identity());
        trust.insert("policy".into(), docs.policy_digest.into());
        trust.insert("registry".into(), docs.registry_digest.into());
        trust.insert("minVersion".into(), self.version.to_string().into());
        trust.insert("log".into(), self.origin.clone().into());
        if let Some((old_size, old_head)) = self.heads.last() {
            let consistency = self.log.consistency_proof(*old_size, size).map_err(|e| failed(e.to_string()))?;
            let entry = serde_json::json!({"head": old_head, "proof": hashes(&consistency)});
            wrapper.insert("consistency".into(), Value::Array(vec![entry]));
            trust.insert("previous".into(), old_head.clone().into());
        }
        let at = Timestamp::from_unix(docs.now, 0).map(|t| t.to_rfc3339()).unwrap_or_default();
        trust.insert("at".into(), at.into());
        self.heads.push((size, head));
        Ok(Proved { proof: Value::Object(wrapper), trust: Value::Object(trust), decision })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_number() {
        // Hand-worked: 0.10.0 is later than 0.9.9, which text comparison would get wrong.
        assert!(Version::parse("0.10.0") > Version::parse("0.9.9"));
        assert_eq!(Version::parse("1.2.3"), Some(Version(1, 2, 3)));
        for bad in ["1.2", "1.2.3.4", "01.2.3", "1.2.3-rc1", "", "1..3", "a.b.c", "1.2.+3"] {
            assert_eq!(Version::parse(bad), None, "{bad}");
        }
        assert_eq!(parse_gate("curbi-web/0.1.0"), Some(("curbi-web", Version(0, 1, 0))));
        assert_eq!(parse_gate("Curbi/0.1.0"), None);
    }

    #[test]
    fn the_peek_finds_only_the_trust_anchor() {
        let t = GATE_TRUST_OBJECT;
        assert!(request_names_gate_trust(&format!(r#"{{"bundle":{{}},"keys":{{"object":"{t}","x":[1,2.5]}}}}"#)));
        assert!(!request_names_gate_trust(&format!(r#"{{"bundle":{{"object":"{t}"}},"keys":{{"keys":[]}}}}"#)));
        assert!(!request_names_gate_trust(&format!(r#"[{{"object":"{t}"}}]"#)));
        assert!(!request_names_gate_trust(&format!(r#"{{"keys":{{"object":["{t}"]}}}}"#)));
        assert!(!request_names_gate_trust(&format!(r#"{{"keys":{{"object":"{t}"#)));
    }
}
