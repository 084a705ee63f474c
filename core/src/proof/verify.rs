//! The offline bundle verifier: `verify_bundle(bundle, options)` against the caller's trusted keys (docs/PROOF.md
//! §Verifying). Signatures are checked before anything they sign is parsed; leaf hashes are recomputed from the
//! entry bytes; tree size and root come only from a verified checkpoint; duplicates and conflicts are keyed on the
//! SHA-256 of signed bytes. Receipts are checked in parallel on every core with `std::thread::scope`.
//!
//! The result is `{ok, reason, message, path, items, head, evidence, scope}` with the seed's reasons
//! ([`Reason`]), plus `malformed` (with the `error` that says where) for input that cannot be read.

use std::collections::HashSet;
use std::fmt;
use std::num::NonZeroUsize;

use rustc_hash::FxHashMap;
use serde::Serialize;
use serde::de::MapAccess;
use serde_json::{Map, Value};

use super::bundle::{BundleSeed, ParsedBundle, ParsedItem, read_head};
use super::encoding::{encode_std, hex};
use super::envelope::{Envelope, Receipt, Status};
use super::json::{Container, Shaped, first_repeat, parse_strict, read_text, wrong_type, wrong_type_named};
use super::keys::{KeySet, TrustedKey};
use super::merkle::{self, Hash};
use super::note::{self, NoteVerifier, SignatureKind, SignedCheckpoint};
use crate::error::{Error, ErrorCode};
use crate::pointer::{element, member};
use crate::purchase::Timestamp;

/// Most heads a caller may say it saw before (`known`).
pub const MAX_KNOWN: usize = 64;
/// Longest known head, in bytes (the MCP tool's limit).
pub const MAX_KNOWN_BYTES: usize = 4096;
/// Most pinned witnesses.
pub const MAX_WITNESSES: usize = 32;
/// Receipts per thread below which a bundle is verified on the calling thread only.
const MIN_PER_THREAD: usize = 32;

/// Why a bundle or item did or did not verify: the seed's words, plus `malformed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Everything checked holds.
    Verifies,
    /// After the caller's policy (test keys only with `allowTest`, bundle keys only on opt-in) no key is left.
    NoTrustedKeys,
    /// A signature by a trusted key does not verify, or the signer is no key the caller trusts.
    BadSignature,
    /// The receipt is not the entry at its position under the verified head.
    NotInLog,
    /// The attached attestation is not the one the receipt binds, or describes another mutation.
    AttestationNotBound,
    /// The same signed receipt appears again in the bundle; it counts once.
    Duplicate,
    /// Two different DONE receipts for one tenant and idempotency key: issuer misbehaviour.
    ConflictingReceipt,
    /// Two signed heads of one log and size with different roots (evidence holds both).
    ForkDetected,
    /// A head the caller knows, or an older head in the bundle, is not proven a prefix of the head.
    HistoryUnproven,
    /// The head is signed by no key the caller trusts.
    CheckpointUnknownKey,
    /// Fresh mode: a receipt past its `exp`, or a key not valid now.
    Expired,
    /// The signing key's window does not cover the signing time.
    CheckpointKeyNotValidAtIssue,
    /// The input cannot be read (the `error` member says where).
    Malformed,
}

impl Reason {
    /// Every reason, seed order first.
    pub const ALL: [Reason; 13] = [
        Reason::Verifies,
        Reason::NoTrustedKeys,
        Reason::BadSignature,
        Reason::NotInLog,
        Reason::AttestationNotBound,
        Reason::Duplicate,
        Reason::ConflictingReceipt,
        Reason::ForkDetected,
        Reason::HistoryUnproven,
        Reason::CheckpointUnknownKey,
        Reason::Expired,
        Reason::CheckpointKeyNotValidAtIssue,
        Reason::Malformed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Verifies => "verifies",
            Reason::NoTrustedKeys => "no_trusted_keys",
            Reason::BadSignature => "bad_signature",
            Reason::NotInLog => "not_in_log",
            Reason::AttestationNotBound => "attestation_not_bound",
            Reason::Duplicate => "duplicate",
            Reason::ConflictingReceipt => "conflicting_receipt",
            Reason::ForkDetected => "fork_detected",
            Reason::HistoryUnproven => "history_unproven",
            Reason::CheckpointUnknownKey => "checkpoint_unknown_key",
            Reason::Expired => "expired",
            Reason::CheckpointKeyNotValidAtIssue => "checkpoint_key_not_valid_at_issue",
            Reason::Malformed => "malformed",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `archival`: keys are checked at signing time and history stays valid forever. `fresh`: also refuses receipts
/// past their `exp` and keys not valid at `now` (Unix seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Archival,
    Fresh { now: i64 },
}

/// Witnesses the caller pins, and how many of them must have cosigned the head.
#[derive(Debug, Clone)]
pub struct WitnessPolicy {
    pub witnesses: Vec<NoteVerifier>,
    pub required: usize,
}

/// A head the caller saw before.
#[derive(Debug, Clone)]
pub struct KnownHead {
    pub text: String,
    pub head: SignedCheckpoint,
}

impl KnownHead {
    /// Reads a signed Curbi checkpoint note.
    pub fn parse(text: &str) -> Result<KnownHead, Error> {
        let (text, head) = read_head(&Value::String(text.to_string()), "")?;
        Ok(KnownHead { text, head })
    }
}

/// What the caller trusts and how strictly to judge.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// The trust anchor: the caller's keys.
    pub keys: KeySet,
    /// Accept keys tagged `curbi:test`.
    pub allow_test: bool,
    pub mode: Mode,
    /// Heads seen before (at most 64).
    pub known: Vec<KnownHead>,
    /// Also trust the keys the bundle carries.
    pub trust_bundle_keys: bool,
    pub witnesses: Option<WitnessPolicy>,
    /// Threads for the receipts: 0 for every available core.
    pub threads: usize,
}

impl VerifyOptions {
    /// Archival verification against `keys`, production keys only, no history, every core.
    pub fn new(keys: KeySet) -> VerifyOptions {
        VerifyOptions {
            keys,
            allow_test: false,
            mode: Mode::Archival,
            known: Vec::new(),
            trust_bundle_keys: false,
            witnesses: None,
            threads: 0,
        }
    }

    /// Reads the options members of a request document (`keys`, `allowTest`, `mode`, `now`, `known`,
    /// `trustBundleKeys`, `witnesses`); other members are refused except those in `also`.
    pub fn from_request(obj: &Map<String, Value>, also: &[&str]) -> Result<VerifyOptions, Error> {
        const OPTIONS: [&str; 7] = ["keys", "allowTest", "mode", "now", "known", "trustBundleKeys", "witnesses"];
        if let Some(name) = obj.keys().find(|k| !OPTIONS.contains(&k.as_str()) && !also.contains(&k.as_str())) {
            return Err(Error::new(
                ErrorCode::UnknownField,
                member("", name),
                format!("\"{name}\" is not a verify option (allowed: {})", OPTIONS.join(", ")),
            ));
        }
        let keys = obj
            .get("keys")
            .ok_or_else(|| Error::new(ErrorCode::MissingField, "/keys", "\"keys\" (a JWKS you trust) is required"))?;
        let keys = KeySet::from_value(keys).map_err(|e| Error::new(e.code, format!("/keys{}", e.path), e.message))?;
        let mut options = VerifyOptions::new(keys);
        options.allow_test = boolean(obj, "allowTest")?;
        options.trust_bundle_keys = boolean(obj, "trustBundleKeys")?;
        let now = match obj.get("now") {
            Some(v) => {
                let s = v.as_str().ok_or_else(|| wrong_type("/now", "an RFC 3339 date-time", v))?;
                let t = Timestamp::parse(s).map_err(|_| {
                    Error::new(ErrorCode::InvalidValue, "/now", "\"now\" must be an RFC 3339 date-time")
                })?;
                Some(t.unix_seconds())
            }
            None => None,
        };
        options.mode = match obj.get("mode") {
            None => Mode::Archival,
            Some(v) => match v.as_str() {
                Some("archival") => Mode::Archival,
                Some("fresh") => Mode::Fresh {
                    now: now.ok_or_else(|| {
                        Error::new(ErrorCode::MissingField, "/now", "fresh mode needs \"now\" (RFC 3339)")
                    })?,
                },
                Some(other) => {
                    return Err(Error::new(
                        ErrorCode::InvalidEnum,
                        "/mode",
                        format!("\"mode\" is \"archival\" or \"fresh\", not \"{other}\""),
                    ));
                }
                None => return Err(wrong_type("/mode", "a string", v)),
            },
        };
        if let Some(v) = obj.get("known") {
            let list = v.as_array().ok_or_else(|| wrong_type("/known", "an array of signed heads", v))?;
            if list.len() > MAX_KNOWN {
                return Err(Error::new(
                    ErrorCode::TooManyItems,
                    "/known",
                    format!("{} known heads, more than {MAX_KNOWN}", list.len()),
                ));
            }
            for (i, h) in list.iter().enumerate() {
                let at = element("/known", i);
                let text = h.as_str().ok_or_else(|| wrong_type(&at, "a signed head (note text)", h))?;
                if text.len() > MAX_KNOWN_BYTES {
                    return Err(Error::new(ErrorCode::TooLong, at, format!("longer than {MAX_KNOWN_BYTES} bytes")));
                }
                let (text, head) = read_head(h, &at)?;
                options.known.push(KnownHead { text, head });
            }
        }
        if let Some(v) = obj.get("witnesses") {
            options.witnesses = Some(read_witnesses(v)?);
        }
        Ok(options)
    }
}

fn boolean(obj: &Map<String, Value>, name: &str) -> Result<bool, Error> {
    match obj.get(name) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(wrong_type(&member("", name), "a boolean", v)),
    }
}

fn read_witnesses(v: &Value) -> Result<WitnessPolicy, Error> {
    let obj = v.as_object().ok_or_else(|| wrong_type("/witnesses", "an object {keys, required}", v))?;
    if let Some(name) = obj.keys().find(|k| !matches!(k.as_str(), "keys" | "required")) {
        return Err(Error::new(
            ErrorCode::UnknownField,
            member("/witnesses", name),
            "a witness policy has only \"keys\" and \"required\"",
        ));
    }
    let keys = obj
        .get("keys")
        .ok_or_else(|| Error::new(ErrorCode::MissingField, "/witnesses/keys", "\"keys\" is required"))?;
    let list = keys.as_array().ok_or_else(|| wrong_type("/witnesses/keys", "an array of C2SP verifier keys", keys))?;
    if list.is_empty() {
        return Err(Error::new(ErrorCode::TooFewItems, "/witnesses/keys", "pin at least one witness"));
    }
    if list.len() > MAX_WITNESSES {
        return Err(Error::new(ErrorCode::TooManyItems, "/witnesses/keys", format!("more than {MAX_WITNESSES}")));
    }
    let mut witnesses: Vec<NoteVerifier> = Vec::with_capacity(list.len());
    for (i, k) in list.iter().enumerate() {
        let at = element("/witnesses/keys", i);
        let text = k.as_str().ok_or_else(|| wrong_type(&at, "a C2SP verifier key", k))?;
        let w = NoteVerifier::parse_vkey(text)
            .map_err(|e| Error::new(ErrorCode::InvalidKey, at.clone(), format!("not a witness key: {e}")))?;
        if w.kind() != SignatureKind::CosignatureV1 {
            return Err(Error::new(ErrorCode::InvalidKey, at, "a witness key is of type cosignature/v1 (0x04)"));
        }
        if witnesses.iter().any(|o| o.name() == w.name() || o.key() == w.key()) {
            return Err(Error::new(ErrorCode::DuplicateKey, at, "this witness is already pinned"));
        }
        witnesses.push(w);
    }
    let required = match obj.get("required") {
        None => witnesses.len(),
        Some(r) => {
            let n = r.as_u64().filter(|_| r.is_u64()).ok_or_else(|| wrong_type("/witnesses/required", "a count", r))?;
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            if n == 0 || n > witnesses.len() {
                return Err(Error::new(
                    ErrorCode::OutOfRange,
                    "/witnesses/required",
                    format!("\"required\" is from 1 to the {} pinned witnesses", witnesses.len()),
                ));
            }
            n
        }
    };
    Ok(WitnessPolicy { witnesses, required })
}

/// The verified head, as the result reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HeadSummary {
    pub origin: String,
    pub size: u64,
    /// Standard base64, as in the checkpoint.
    pub root: String,
    /// The log key's `cosignature/v1` time, Unix seconds.
    pub signed_at: u64,
    pub kid: String,
    /// Names of the pinned witnesses whose cosignatures verified.
    pub witnesses: Vec<String>,
}

/// What a rejection rests on: for a fork both signed heads, for conflicting receipts both compact receipts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub heads: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub receipts: Vec<String>,
}

/// One receipt's result, in bundle order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ItemResult {
    /// Position in the bundle's `receipts`.
    pub index: usize,
    pub ok: bool,
    pub reason: Reason,
    pub message: String,
    /// The leaf index the bundle claims.
    pub leaf: u64,
    /// Lowercase hex SHA-256 of the receipt's signed bytes (what duplicates and conflicts are keyed on).
    pub digest: String,
    pub kid: String,
    /// Whether an attestation was attached.
    pub attested: bool,
    /// The receipt's members, when its signature verified under a trusted key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Receipt>,
}

/// What a verified bundle shows and does not show (seed 003).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    pub shows: &'static str,
    pub provider_action_proven: bool,
    pub authorization_granted: bool,
}

/// The scope of every result.
pub const SCOPE: Scope = Scope {
    shows: "what a trusted key signed and logged",
    provider_action_proven: false,
    authorization_granted: false,
};

/// The verdict on a bundle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    pub ok: bool,
    pub reason: Reason,
    pub message: String,
    /// JSON pointer into the request of what decided the reason (`""` when the bundle verifies).
    pub path: String,
    pub items: Vec<ItemResult>,
    pub head: Option<HeadSummary>,
    pub evidence: Option<Evidence>,
    /// For `malformed`: the stable error code, message and pointer.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "error_doc")]
    pub error: Option<Error>,
    pub scope: Scope,
}

fn error_doc<S: serde::Serializer>(e: &Option<Error>, s: S) -> Result<S::Ok, S::Error> {
    match e {
        Some(e) => serde_json::json!({"code": e.code.as_str(), "message": e.message, "path": e.path}).serialize(s),
        None => s.serialize_none(),
    }
}

impl Verification {
    /// A `malformed` verdict for unreadable input.
    pub fn malformed(error: Error) -> Verification {
        Verification {
            ok: false,
            reason: Reason::Malformed,
            message: format!("unreadable input at \"{}\": {}", error.path, error.message),
            path: error.path.clone(),
            items: Vec::new(),
            head: None,
            evidence: None,
            error: Some(error),
            scope: SCOPE,
        }
    }

    /// Compact JSON.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(self)
            .unwrap_or_else(|e| format!("{{\"ok\":false,\"reason\":\"malformed\",\"message\":{:?}}}", e.to_string()))
    }

    /// Indented JSON, in the same member order.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| self.to_json_string())
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// Reads a whole request `{bundle, keys, allowTest, mode, now, known, trustBundleKeys, witnesses}` and verifies it.
/// Options are read first, then the bundle; the first unreadable member gives `malformed`.
pub fn verify_request(request: &Value) -> Verification {
    let Some(obj) = request.as_object() else {
        return Verification::malformed(wrong_type("", REQUEST, request));
    };
    verify_read(obj, obj.get("bundle").map(|b| ParsedBundle::from_value(b, "/bundle")))
}

const REQUEST: &str = "a request object {bundle, keys, ...}";

/// Judges a request read as its option members and its bundle (if any), options first.
fn verify_read(options: &Map<String, Value>, bundle: Option<Result<ParsedBundle, Error>>) -> Verification {
    let options = match VerifyOptions::from_request(options, &["bundle"]) {
        Ok(o) => o,
        Err(e) => return Verification::malformed(e),
    };
    match bundle {
        None => Verification::malformed(Error::new(ErrorCode::MissingField, "/bundle", "\"bundle\" is required")),
        Some(Ok(b)) => verify_bundle(&b, &options),
        Some(Err(e)) => Verification::malformed(e),
    }
}

/// [`verify_request`] over JSON text, refusing repeated member names anywhere (`malformed`, `invalid_json`).
/// `Err` only when the text is not JSON at all. The bundle is streamed ([`ParsedBundle::from_text`]): no tree of
/// the document is built, only the small option members.
pub fn verify_request_text(text: &str) -> Result<Verification, Error> {
    if let Some(e) = first_repeat(text)? {
        return Ok(Verification::malformed(e));
    }
    Ok(match read_text(text, Shaped(RequestSeed))? {
        Ok((options, bundle)) => verify_read(&options, bundle),
        Err(got) => Verification::malformed(wrong_type_named("", REQUEST, got)),
    })
}

/// Streams a request object: `bundle` through [`BundleSeed`], every other member kept as a `Value`.
struct RequestSeed;

impl<'de> Container<'de> for RequestSeed {
    type Out = (Map<String, Value>, Option<Result<ParsedBundle, Error>>);

    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Result<Self::Out, &'static str>, A::Error> {
        let mut options = Map::new();
        let mut bundle = None;
        while let Some(name) = map.next_key::<String>()? {
            if name == "bundle" {
                bundle = Some(map.next_value_seed(BundleSeed { path: "/bundle" })?);
            } else {
                let value = map.next_value::<Value>()?;
                options.insert(name, value);
            }
        }
        Ok(Ok((options, bundle)))
    }
}

/// A verifier with its trust anchor and options read once (DESIGN §2: compiled objects cross as handles). Build it
/// from the options document, then verify any number of bundle documents with it, from any number of threads; each
/// bundle gives exactly the result of a whole request made of these options and that bundle.
#[derive(Debug, Clone)]
pub struct Verifier {
    options: VerifyOptions,
}

const OPTIONS_DOCUMENT: &str = "an options object {keys, allowTest, ...}";

impl Verifier {
    pub fn new(options: VerifyOptions) -> Verifier {
        Verifier { options }
    }

    /// Reads the options document `{keys, allowTest?, mode?, now?, known?, trustBundleKeys?, witnesses?}` strictly.
    /// Options that cannot be used are `Err` with the stable code and pointer (`/keys/keys/0/x`) that a whole request
    /// with these options reports under reason `malformed`; repeated member names are `invalid_json`.
    pub fn from_text(options: &str) -> Result<Verifier, Error> {
        let value = parse_strict(options)?;
        let Value::Object(obj) = &value else { return Err(wrong_type("", OPTIONS_DOCUMENT, &value)) };
        Ok(Verifier { options: VerifyOptions::from_request(obj, &[])? })
    }

    /// [`Verifier::from_text`] over bytes (`invalid_json` when they are not UTF-8).
    pub fn from_json(options: &[u8]) -> Result<Verifier, Error> {
        Verifier::from_text(utf8(options)?)
    }

    pub fn options(&self) -> &VerifyOptions {
        &self.options
    }

    /// Verifies a parsed bundle.
    pub fn verify(&self, bundle: &ParsedBundle) -> Verification {
        verify_bundle(bundle, &self.options)
    }

    /// Verifies a bundle document given as JSON text, streamed ([`ParsedBundle::from_text`]). `Err` only when the
    /// text is not JSON; an unreadable bundle is a result with reason `malformed` and a pointer under `/bundle`, as
    /// in a whole request.
    pub fn verify_text(&self, bundle: &str) -> Result<Verification, Error> {
        if let Some(e) = first_repeat(bundle)? {
            return Ok(Verification::malformed(Error::new(e.code, format!("/bundle{}", e.path), e.message)));
        }
        Ok(match read_text(bundle, BundleSeed { path: "/bundle" })? {
            Ok(b) => self.verify(&b),
            Err(e) => Verification::malformed(e),
        })
    }

    /// [`Verifier::verify_text`] over bytes, to the result document (compact JSON): the entry every binding uses.
    pub fn verify_json(&self, bundle: &[u8]) -> Result<String, Error> {
        Ok(self.verify_text(utf8(bundle)?)?.to_json_string())
    }
}

/// UTF-8 text, or `invalid_json` (JSON text is UTF-8).
pub(crate) fn utf8(bytes: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorCode::InvalidJson, "", format!("not valid JSON: not UTF-8 ({e})")))
}

/// [`verify_request_text`] with the bundle and the options (the request without `bundle`) as two texts. Error
/// paths are those of the combined request. `Err` only when either text is not JSON at all.
pub fn verify_parts_text(bundle: &str, options: &str) -> Result<Verification, Error> {
    let bundle_repeat = first_repeat(bundle)?;
    if let Some(e) = first_repeat(options)? {
        return Ok(Verification::malformed(e));
    }
    if let Some(e) = bundle_repeat {
        return Ok(Verification::malformed(Error::new(e.code, format!("/bundle{}", e.path), e.message)));
    }
    let options_value: Value = serde_json::from_str(options).map_err(|e| Error::from_json_error(&e))?;
    let Value::Object(request) = options_value else {
        return Ok(Verification::malformed(wrong_type("", OPTIONS_DOCUMENT, &options_value)));
    };
    if request.contains_key("bundle") {
        let e = Error::new(ErrorCode::UnknownField, "/bundle", "pass the bundle as its own document, not in options");
        return Ok(Verification::malformed(e));
    }
    Ok(verify_read(&request, Some(read_text(bundle, BundleSeed { path: "/bundle" })?)))
}

/// The keys the caller's policy leaves: its own (test keys only with `allowTest`), then the bundle's on opt-in
/// (never replacing a caller `kid` or public key).
struct Trusted<'a> {
    keys: Vec<&'a TrustedKey>,
    by_kid: FxHashMap<&'a str, &'a TrustedKey>,
}

impl<'a> Trusted<'a> {
    fn new(caller: &'a KeySet, bundle: Option<&'a KeySet>, allow_test: bool) -> Trusted<'a> {
        let mut t = Trusted { keys: Vec::new(), by_kid: FxHashMap::default() };
        for k in caller.keys().iter().chain(bundle.into_iter().flat_map(KeySet::keys)) {
            if k.is_test() && !allow_test {
                continue;
            }
            if t.by_kid.contains_key(k.kid()) || t.keys.iter().any(|o| o.key() == k.key()) {
                continue;
            }
            t.by_kid.insert(k.kid(), k);
            t.keys.push(k);
        }
        t
    }
}

/// A reason with what it is about.
#[derive(Debug, Clone)]
struct Finding {
    reason: Reason,
    message: String,
    path: String,
}

impl Finding {
    fn new(reason: Reason, path: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding { reason, message: message.into(), path: path.into() }
    }
}

/// A head whose log signatures verified under a trusted key whose window covers the signing time.
struct VerifiedHead<'a> {
    size: u64,
    root: Hash,
    signed_at: u64,
    key: &'a TrustedKey,
    witnesses: Vec<usize>,
}

/// Verifies a checkpoint's log signatures (and pinned witnesses) with the trusted key that signed it, then the
/// key's window at the signing time.
fn verify_checkpoint<'a>(
    signed: &SignedCheckpoint,
    trusted: &Trusted<'a>,
    witnesses: &[NoteVerifier],
    path: &str,
) -> Result<VerifiedHead<'a>, Finding> {
    let origin = signed.checkpoint().origin();
    let lines: Vec<(&str, u32)> = signed.note().signatures().iter().map(|s| (s.name.as_str(), s.key_id)).collect();
    let candidates: Vec<&TrustedKey> = trusted
        .keys
        .iter()
        .copied()
        .filter(|k| {
            let ids = [SignatureKind::Ed25519, SignatureKind::CosignatureV1]
                .map(|kind| note::key_id(origin, kind.type_byte(), k.key().as_bytes()));
            lines.iter().any(|&(name, id)| name == origin && ids.contains(&id))
        })
        .collect();
    if candidates.is_empty() {
        return Err(Finding::new(
            Reason::CheckpointUnknownKey,
            path,
            format!("the head of \"{origin}\" is signed by no key you trust"),
        ));
    }
    let mut failure = None;
    for key in candidates {
        match signed.verify(key.key(), witnesses) {
            Ok(sigs) => {
                let at = i64::try_from(sigs.signed_at).unwrap_or(i64::MAX);
                if !key.valid_at(at) {
                    return Err(Finding::new(
                        Reason::CheckpointKeyNotValidAtIssue,
                        path,
                        format!("key \"{}\" is not valid at the head's signing time {at}", key.kid()),
                    ));
                }
                let mut seen = HashSet::new();
                let witnesses = sigs.witnesses.iter().map(|w| w.witness).filter(|w| seen.insert(*w)).collect();
                return Ok(VerifiedHead {
                    size: signed.checkpoint().size(),
                    root: *signed.checkpoint().root(),
                    signed_at: sigs.signed_at,
                    key,
                    witnesses,
                });
            }
            Err(e) => failure = Some(e),
        }
    }
    let e = failure.map(|e| e.to_string()).unwrap_or_default();
    Err(Finding::new(Reason::BadSignature, path, format!("the head's signatures do not verify: {e}")))
}

/// One receipt's own checks, before duplicates and conflicts.
struct ItemOutcome {
    /// `None`: every own check passed but inclusion could not be checked (no verified head).
    finding: Option<(Reason, String)>,
    digest: [u8; 32],
    receipt: Option<Receipt>,
}

struct ItemCtx<'a> {
    trusted: &'a Trusted<'a>,
    mode: Mode,
    head: Option<(u64, Hash)>,
}

fn check_envelope<'a>(env: &Envelope, trusted: &Trusted<'a>, what: &str) -> Result<&'a TrustedKey, String> {
    let key = trusted
        .by_kid
        .get(env.kid())
        .copied()
        .ok_or_else(|| format!("the {what} is signed under kid \"{}\", which is no key you trust", env.kid()))?;
    env.verify(key.key()).map_err(|e| format!("the {what} signature does not verify under \"{}\": {e}", key.kid()))?;
    Ok(key)
}

fn check_item(item: &ParsedItem, ctx: &ItemCtx<'_>) -> ItemOutcome {
    let digest = item.receipt.digest();
    let fail = |reason: Reason, message: String, receipt: Option<Receipt>| ItemOutcome {
        finding: Some((reason, message)),
        digest,
        receipt,
    };
    let key = match check_envelope(&item.receipt, ctx.trusted, "receipt") {
        Ok(k) => k,
        Err(m) => return fail(Reason::BadSignature, m, None),
    };
    // Only now, with the signature verified, are the payload bytes read.
    let receipt = match item.receipt.receipt() {
        Ok(r) => r,
        Err(e) => return fail(Reason::Malformed, format!("a signed receipt whose payload is unreadable: {e}"), None),
    };
    if !key.valid_at(receipt.iat) {
        let m = format!("key \"{}\" is not valid at the receipt's issue time {}", key.kid(), receipt.iat);
        return fail(Reason::CheckpointKeyNotValidAtIssue, m, Some(receipt));
    }
    if let Mode::Fresh { now } = ctx.mode {
        if !key.valid_at(now) {
            return fail(Reason::Expired, format!("key \"{}\" is not valid now", key.kid()), Some(receipt));
        }
        if now >= receipt.exp {
            let m = format!("the receipt expired at {} (now {now})", receipt.exp);
            return fail(Reason::Expired, m, Some(receipt));
        }
    }
    let included = ctx.head.map(|(size, root)| {
        merkle::verify_inclusion(&merkle::leaf_hash(item.text.as_bytes()), item.index, size, &item.proof, &root)
    });
    if let Some(Err(e)) = included {
        let m = format!("the receipt is not the log entry at index {} under the head: {e}", item.index);
        return fail(Reason::NotInLog, m, Some(receipt));
    }
    if let Some(att) = &item.attestation {
        let att_key = match check_envelope(att, ctx.trusted, "attestation") {
            Ok(k) => k,
            Err(m) => return fail(Reason::BadSignature, m, Some(receipt)),
        };
        let attestation = match att.attestation() {
            Ok(a) => a,
            Err(e) => {
                let m = format!("a signed attestation whose payload is unreadable: {e}");
                return fail(Reason::Malformed, m, Some(receipt));
            }
        };
        if !att_key.valid_at(attestation.iat) {
            let m =
                format!("key \"{}\" is not valid at the attestation's issue time {}", att_key.kid(), attestation.iat);
            return fail(Reason::CheckpointKeyNotValidAtIssue, m, Some(receipt));
        }
        if let Err(m) = receipt.binds(att, &attestation) {
            return fail(Reason::AttestationNotBound, m.to_string(), Some(receipt));
        }
    }
    match included {
        Some(_) => ItemOutcome { finding: Some((Reason::Verifies, String::new())), digest, receipt: Some(receipt) },
        None => ItemOutcome { finding: None, digest, receipt: Some(receipt) },
    }
}

fn check_items(items: &[ParsedItem], ctx: &ItemCtx<'_>, threads: usize) -> Vec<ItemOutcome> {
    let available = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let threads = if threads == 0 { available } else { threads };
    let threads = threads.min(items.len() / MIN_PER_THREAD).max(1);
    if threads == 1 {
        return items.iter().map(|i| check_item(i, ctx)).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(threads);
        for part in items.chunks(chunk) {
            let work = move || part.iter().map(|i| check_item(i, ctx)).collect::<Vec<_>>();
            // No thread to be had: the chunk is done below, on this thread, in order.
            handles.push(std::thread::Builder::new().spawn_scoped(s, work).map_err(|_| part));
        }
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            match h {
                Ok(h) => match h.join() {
                    Ok(v) => out.extend(v),
                    Err(p) => std::panic::resume_unwind(p),
                },
                Err(part) => out.extend(part.iter().map(|i| check_item(i, ctx))),
            }
        }
        out
    })
}

/// Verifies a parsed bundle against the options. Never panics on any bundle or key set.
pub fn verify_bundle(bundle: &ParsedBundle, options: &VerifyOptions) -> Verification {
    let bundle_keys = bundle.keys.as_ref().filter(|_| options.trust_bundle_keys);
    let trusted = Trusted::new(&options.keys, bundle_keys, options.allow_test);
    let blank = |i: usize, item: &ParsedItem, reason: Reason, message: &str| ItemResult {
        index: i,
        ok: false,
        reason,
        message: message.to_string(),
        leaf: item.index,
        digest: hex(&item.receipt.digest()),
        kid: item.receipt.kid().to_string(),
        attested: item.attestation.is_some(),
        receipt: None,
    };
    let mut result = Verification {
        ok: false,
        reason: Reason::Verifies,
        message: String::new(),
        path: String::new(),
        items: Vec::new(),
        head: None,
        evidence: None,
        error: None,
        scope: SCOPE,
    };
    if trusted.keys.is_empty() {
        let why = if options.keys.is_empty() {
            "you gave no keys; keys inside a bundle are trusted only when you opt in"
        } else if options.keys.keys().iter().all(TrustedKey::is_test) && !options.allow_test {
            "every key you gave is a test key, and test keys verify only with allowTest"
        } else {
            "no key is left after the test-key policy"
        };
        result.reason = Reason::NoTrustedKeys;
        result.message = format!("no trusted keys: {why}");
        result.path = "/keys".into();
        result.items =
            bundle.items.iter().enumerate().map(|(i, it)| blank(i, it, Reason::NoTrustedKeys, why)).collect();
        return result;
    }

    // The head: the only source of tree size and root.
    let no_witnesses = Vec::new();
    let pinned = options.witnesses.as_ref().map_or(&no_witnesses, |w| &w.witnesses);
    let head = verify_checkpoint(&bundle.head, &trusted, pinned, "/bundle/head").and_then(|h| {
        if let Mode::Fresh { now } = options.mode {
            if !h.key.valid_at(now) {
                let m = format!("key \"{}\" is not valid now", h.key.kid());
                return Err(Finding::new(Reason::Expired, "/bundle/head", m));
            }
        }
        let policy = options.witnesses.as_ref().filter(|p| h.witnesses.len() < p.required);
        if let Some(policy) = policy {
            return Err(Finding::new(
                Reason::HistoryUnproven,
                "/bundle/head",
                format!(
                    "{} of the {} pinned witnesses cosigned the head; {} required",
                    h.witnesses.len(),
                    policy.witnesses.len(),
                    policy.required
                ),
            ));
        }
        Ok(h)
    });

    let ctx = ItemCtx { trusted: &trusted, mode: options.mode, head: head.as_ref().ok().map(|h| (h.size, h.root)) };
    let outcomes = check_items(&bundle.items, &ctx, options.threads);

    let head_failure = head.as_ref().err().cloned();
    let mut items: Vec<ItemResult> = Vec::with_capacity(outcomes.len());
    for (i, (item, o)) in bundle.items.iter().zip(outcomes).enumerate() {
        let (reason, message) = match (o.finding, &head_failure) {
            (Some(f), _) => f,
            (None, Some(h)) => (h.reason, format!("the head does not verify: {}", h.message)),
            (None, None) => (Reason::Verifies, String::new()),
        };
        items.push(ItemResult {
            index: i,
            ok: false,
            reason,
            message,
            leaf: item.index,
            digest: hex(&o.digest),
            kid: item.receipt.kid().to_string(),
            attested: item.attestation.is_some(),
            receipt: o.receipt,
        });
    }

    // Duplicates: the same signed bytes again count once.
    let mut first: FxHashMap<&str, usize> = FxHashMap::default();
    let digests: Vec<String> = items.iter().map(|i| i.digest.clone()).collect();
    for (i, d) in digests.iter().enumerate() {
        if let Some(&j) = first.get(d.as_str()) {
            items[i].reason = Reason::Duplicate;
            items[i].message = format!("the same signed receipt as item {j}; it counts once");
        } else {
            first.insert(d, i);
        }
    }

    // Conflicts: two different DONE receipts, each signed by a trusted key, for one tenant and idempotency key.
    let mut by_key: FxHashMap<(&str, &str), Vec<usize>> = FxHashMap::default();
    for (i, it) in items.iter().enumerate() {
        if it.reason == Reason::Duplicate {
            continue;
        }
        if let Some(r) = it.receipt.as_ref().filter(|r| r.status == Status::Done) {
            by_key.entry((r.tenant.as_str(), r.idempotency_key.as_str())).or_default().push(i);
        }
    }
    let mut conflicts: Vec<Vec<usize>> = by_key.into_values().filter(|g| g.len() > 1).collect();
    conflicts.sort();
    for group in &conflicts {
        for &i in group {
            items[i].reason = Reason::ConflictingReceipt;
            items[i].message = format!(
                "{} different DONE receipts for one tenant and idempotency key (items {:?}): issuer misbehaviour",
                group.len(),
                group
            );
        }
    }
    for it in &mut items {
        it.ok = it.reason == Reason::Verifies;
    }
    result.items = items;

    let head = match head {
        Ok(h) => h,
        Err(f) => {
            result.reason = f.reason;
            result.message = f.message;
            result.path = f.path;
            return result;
        }
    };
    result.head = Some(HeadSummary {
        origin: bundle.head.checkpoint().origin().to_string(),
        size: head.size,
        root: encode_std(&head.root),
        signed_at: head.signed_at,
        kid: head.key.kid().to_string(),
        witnesses: head.witnesses.iter().filter_map(|&w| pinned.get(w)).map(|w| w.name().to_string()).collect(),
    });

    let decided = check_history(bundle, &head, &trusted, &options.known).map(|(f, evidence)| {
        result.evidence = evidence;
        f
    });
    let decided = match decided {
        Some(f) if f.reason == Reason::ForkDetected => Some(f),
        other => conflicts
            .first()
            .map(|group| {
                result.evidence = Some(Evidence {
                    heads: Vec::new(),
                    receipts: group.iter().map(|&i| bundle.items[i].text.clone()).collect(),
                });
                Finding::new(
                    Reason::ConflictingReceipt,
                    element("/bundle/receipts", group[0]),
                    format!("different DONE receipts for one tenant and idempotency key at items {group:?}"),
                )
            })
            .or(other),
    };
    let decided = decided.or_else(|| {
        result.items.iter().find(|i| !i.ok).map(|i| {
            Finding::new(i.reason, element("/bundle/receipts", i.index), format!("item {}: {}", i.index, i.message))
        })
    });
    match decided {
        Some(f) => {
            result.reason = f.reason;
            result.message = f.message;
            result.path = f.path;
        }
        None => {
            result.ok = true;
            result.message = format!(
                "{} receipt(s) signed by a trusted key and logged under the head of size {}",
                result.items.len(),
                head.size
            );
        }
    }
    result
}

/// The history checks: older heads in the bundle and heads the caller knows must verify, no two signed heads of the
/// log may disagree at one size (a fork), and each must be proven a prefix of the head. Returns the first finding
/// (a fork before anything else) and its evidence.
fn check_history(
    bundle: &ParsedBundle,
    head: &VerifiedHead<'_>,
    trusted: &Trusted<'_>,
    known: &[KnownHead],
) -> Option<(Finding, Option<Evidence>)> {
    let origin = bundle.head.checkpoint().origin();
    // Every signed head in play, the bundle's head first, then what the caller knows, then the bundle's older heads.
    let mut heads: Vec<(&str, &SignedCheckpoint, String)> =
        vec![(&bundle.head_text, &bundle.head, "/bundle/head".into())];
    let mut failures = Vec::new();
    let mut known_ok = Vec::new();
    for (i, k) in known.iter().enumerate() {
        let at = element("/known", i);
        match verify_checkpoint(&k.head, trusted, &[], &at) {
            Ok(_) => {
                heads.push((&k.text, &k.head, at));
                known_ok.push(i);
            }
            Err(f) => failures.push(f),
        }
    }
    let mut older_ok = Vec::new();
    for (i, o) in bundle.older.iter().enumerate() {
        let at = format!("{}/head", element("/bundle/consistency", i));
        match verify_checkpoint(&o.head, trusted, &[], &at) {
            Ok(_) => {
                heads.push((&o.text, &o.head, at));
                older_ok.push(i);
            }
            Err(f) => failures.push(f),
        }
    }
    for (a, (text_a, cp_a, _)) in heads.iter().enumerate() {
        for (text_b, cp_b, path_b) in &heads[a + 1..] {
            let (x, y) = (cp_a.checkpoint(), cp_b.checkpoint());
            if x.origin() == y.origin() && x.size() == y.size() && x.root() != y.root() {
                let f = Finding::new(
                    Reason::ForkDetected,
                    path_b.clone(),
                    format!("two signed heads of \"{}\" at size {} with different roots", x.origin(), x.size()),
                );
                let evidence =
                    Evidence { heads: vec![(*text_a).to_string(), (*text_b).to_string()], receipts: Vec::new() };
                return Some((f, Some(evidence)));
            }
        }
    }
    if let Some(f) = failures.into_iter().next() {
        return Some((f, None));
    }
    let unproven = |path: String, m: String| Some((Finding::new(Reason::HistoryUnproven, path, m), None));
    let mut proven: Vec<(u64, Hash)> = vec![(head.size, head.root)];
    for i in older_ok {
        let o = &bundle.older[i];
        let at = element("/bundle/consistency", i);
        let cp = o.head.checkpoint();
        if cp.origin() != origin {
            return unproven(at, format!("the older head is of another log, \"{}\"", cp.origin()));
        }
        if cp.size() > head.size {
            return unproven(
                at,
                format!("an older head of size {} is larger than the head ({})", cp.size(), head.size),
            );
        }
        if let Err(e) = merkle::verify_consistency(cp.size(), head.size, &o.proof, cp.root(), &head.root) {
            return unproven(
                at,
                format!("the head of size {} is not proven a prefix of the head of size {}: {e}", cp.size(), head.size),
            );
        }
        proven.push((cp.size(), *cp.root()));
    }
    for i in known_ok {
        let cp = known[i].head.checkpoint();
        let at = element("/known", i);
        if cp.origin() != origin {
            return unproven(at, format!("a known head of another log, \"{}\"", cp.origin()));
        }
        if cp.size() > head.size {
            return unproven(
                at,
                format!(
                    "rollback: you know a head of size {}, the bundle's head is smaller ({})",
                    cp.size(),
                    head.size
                ),
            );
        }
        if !proven.contains(&(cp.size(), *cp.root())) {
            return unproven(
                at,
                format!(
                    "the bundle has no consistency proof from your head of size {} to size {}",
                    cp.size(),
                    head.size
                ),
            );
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_strictly() {
        let err = |v: Value| match VerifyOptions::from_request(v.as_object().expect("object"), &[]) {
            Ok(_) => (ErrorCode::Internal, "accepted".to_string()),
            Err(e) => (e.code, e.path),
        };
        let keys = serde_json::json!({"keys": []});
        assert_eq!(err(serde_json::json!({})), (ErrorCode::MissingField, "/keys".into()));
        assert_eq!(err(serde_json::json!({"keys": keys, "mode": "fresh"})), (ErrorCode::MissingField, "/now".into()));
        assert_eq!(err(serde_json::json!({"keys": keys, "mode": "live"})), (ErrorCode::InvalidEnum, "/mode".into()));
        assert_eq!(err(serde_json::json!({"keys": keys, "now": "tomorrow"})), (ErrorCode::InvalidValue, "/now".into()));
        assert_eq!(
            err(serde_json::json!({"keys": keys, "allowTest": 1})),
            (ErrorCode::InvalidType, "/allowTest".into())
        );
        assert_eq!(err(serde_json::json!({"keys": keys, "extra": 1})), (ErrorCode::UnknownField, "/extra".into()));
        assert_eq!(err(serde_json::json!({"keys": keys, "known": ["x"]})), (ErrorCode::InvalidNote, "/known/0".into()));
        assert_eq!(
            err(serde_json::json!({"keys": keys, "known": vec!["x"; 65]})),
            (ErrorCode::TooManyItems, "/known".into())
        );
        assert_eq!(
            err(serde_json::json!({"keys": {"keys": [{"kty": "OKP"}]}})),
            (ErrorCode::MissingField, "/keys/keys/0/crv".into())
        );
        assert_eq!(
            err(serde_json::json!({"keys": keys, "witnesses": {"keys": []}})),
            (ErrorCode::TooFewItems, "/witnesses/keys".into())
        );
        let ok = VerifyOptions::from_request(
            serde_json::json!({"keys": keys, "mode": "fresh", "now": "2026-11-03T14:00:00Z", "allowTest": true})
                .as_object()
                .expect("object"),
            &[],
        )
        .expect("reads");
        assert_eq!(ok.mode, Mode::Fresh { now: 1_793_714_400 });
        assert!(ok.allow_test && !ok.trust_bundle_keys);
    }
}
