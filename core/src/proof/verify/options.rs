//! What the caller trusts and how strictly to judge ([`VerifyOptions`], read strictly from a request's members), and
//! the JSON entry points built on it: a whole request, the two-document form, and the [`Verifier`] handle.

use serde::de::MapAccess;
use serde_json::{Map, Value};

use super::algorithm::verify_bundle;
use super::history::KnownHead;
use super::report::Verification;
use crate::error::{Error, ErrorCode};
use crate::pointer::{element, member};
use crate::proof::browser_gate::{self, GateOptions};
use crate::proof::bundle::{BundleSeed, ParsedBundle, read_head};
use crate::proof::json::{Container, Shaped, first_repeat, parse_strict, read_text, wrong_type, wrong_type_named};
use crate::proof::keys::KeySet;
use crate::proof::note::{NoteVerifier, SignatureKind};
use crate::time::Timestamp;

/// Most heads a caller may say it saw before (`known`).
pub const MAX_KNOWN: usize = 64;
/// Longest known head, in bytes (the MCP tool's limit).
pub const MAX_KNOWN_BYTES: usize = 4096;
/// Most pinned witnesses.
pub const MAX_WITNESSES: usize = 32;

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
        options.known = read_known(obj)?;
        if let Some(v) = obj.get("witnesses") {
            options.witnesses = Some(read_witnesses(v)?);
        }
        Ok(options)
    }
}

/// Reads a request's `known`: at most [`MAX_KNOWN`] signed heads of at most [`MAX_KNOWN_BYTES`] each.
pub(crate) fn read_known(obj: &Map<String, Value>) -> Result<Vec<KnownHead>, Error> {
    let Some(v) = obj.get("known") else { return Ok(Vec::new()) };
    let list = v.as_array().ok_or_else(|| wrong_type("/known", "an array of signed heads", v))?;
    if list.len() > MAX_KNOWN {
        return Err(Error::new(
            ErrorCode::TooManyItems,
            "/known",
            format!("{} known heads, more than {MAX_KNOWN}", list.len()),
        ));
    }
    let mut known = Vec::with_capacity(list.len());
    for (i, h) in list.iter().enumerate() {
        let at = element("/known", i);
        let text = h.as_str().ok_or_else(|| wrong_type(&at, "a signed head (note text)", h))?;
        if text.len() > MAX_KNOWN_BYTES {
            return Err(Error::new(ErrorCode::TooLong, at, format!("longer than {MAX_KNOWN_BYTES} bytes")));
        }
        let (text, head) = read_head(h, &at)?;
        known.push(KnownHead { text, head });
    }
    Ok(known)
}

/// A request's boolean option `name`, `false` when absent.
pub(crate) fn read_boolean(obj: &Map<String, Value>, name: &str) -> Result<bool, Error> {
    boolean(obj, name)
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

/// Reads a whole request `{bundle, keys, allowTest, mode, now, known, trustBundleKeys, witnesses}` and verifies it.
/// Options are read first, then the bundle; the first unreadable member gives `malformed`.
pub fn verify_request(request: &Value) -> Verification {
    if browser_gate::value_names_gate_trust(request) {
        return browser_gate::verify_request_value(request);
    }
    let Some(obj) = request.as_object() else {
        return Verification::malformed(wrong_type("", REQUEST, request));
    };
    verify_read(obj, obj.get("bundle").map(|b| ParsedBundle::from_value(b, "/bundle")))
}

const REQUEST: &str = "a request object {bundle, keys, ...}";

/// Judges a request read as its option members and its bundle (if any), options first.
fn verify_read(options: &Map<String, Value>, bundle: Option<Result<ParsedBundle, Error>>) -> Verification {
    match read_options(options, bundle) {
        Ok((b, o)) => verify_bundle(&b, &o),
        Err(v) => *v,
    }
}

/// A request read as far as verifying goes without checking a signature: a browser gate proof's (its own reader
/// verifies it), a verdict already known (`malformed`), or a bundle and the options to verify it against.
pub(crate) enum Read {
    Gate,
    Known(Box<Verification>),
    Bundle(Box<ParsedBundle>, Box<VerifyOptions>),
}

impl Read {
    fn malformed(e: Error) -> Read {
        Read::Known(Box::new(Verification::malformed(e)))
    }

    fn of(read: Result<(ParsedBundle, VerifyOptions), Box<Verification>>) -> Read {
        match read {
            Ok((b, o)) => Read::Bundle(Box::new(b), Box::new(o)),
            Err(v) => Read::Known(v),
        }
    }

    /// The verdict, with `gate` giving a browser gate proof's.
    fn verify(self, gate: impl FnOnce() -> Result<Verification, Error>) -> Result<Verification, Error> {
        match self {
            Read::Gate => gate(),
            Read::Known(v) => Ok(*v),
            Read::Bundle(b, o) => Ok(verify_bundle(&b, &o)),
        }
    }
}

/// The options and the bundle of a request, or the verdict when either cannot be read.
fn read_options(
    options: &Map<String, Value>,
    bundle: Option<Result<ParsedBundle, Error>>,
) -> Result<(ParsedBundle, VerifyOptions), Box<Verification>> {
    let malformed = |e| Box::new(Verification::malformed(e));
    let options = VerifyOptions::from_request(options, &["bundle"]).map_err(malformed)?;
    match bundle {
        None => Err(malformed(Error::new(ErrorCode::MissingField, "/bundle", "\"bundle\" is required"))),
        Some(b) => Ok((b.map_err(malformed)?, options)),
    }
}

/// [`verify_request_text`] up to the verification ([`Read::Gate`] for a browser gate proof's request).
///
/// A request whose `keys` is a gate-trust document is a browser gate proof's, whatever else the text holds; the
/// search for one runs over the whole text, so it runs only when the text does not read as a bundle's request.
/// One that reads never has one: a key set has no member but `keys` ([`KeySet::from_value`]), so its `keys` has no
/// `object`, and a repeated `keys` does not read.
pub(crate) fn read_request_text(text: &str) -> Result<Read, Error> {
    let read = read_bundle_request(text);
    if matches!(read, Ok(Read::Bundle(..))) || !browser_gate::request_names_gate_trust(text) {
        return read;
    }
    Ok(Read::Gate)
}

fn read_bundle_request(text: &str) -> Result<Read, Error> {
    if let Some(e) = first_repeat(text)? {
        return Ok(Read::malformed(e));
    }
    Ok(match read_text(text, Shaped(RequestSeed))? {
        Ok((options, bundle)) => Read::of(read_options(&options, bundle)),
        Err(got) => Read::malformed(wrong_type_named("", REQUEST, got)),
    })
}

/// [`verify_request`] over JSON text, refusing repeated member names anywhere (`malformed`, `invalid_json`).
/// `Err` only when the text is not JSON at all. The bundle is streamed ([`ParsedBundle::from_text`]): no tree of
/// the document is built, only the small option members.
pub fn verify_request_text(text: &str) -> Result<Verification, Error> {
    read_request_text(text)?.verify(|| browser_gate::verify_request_text(text))
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
///
/// Options whose `keys` is a `curbi.browser.gate-trust.v1` document make a gate-proof verifier: each document is
/// then read as a `curbi.browser.gate-proof.v1` wrapper (docs/PROOF.md §Browser gate proofs).
#[derive(Debug, Clone)]
pub struct Verifier {
    options: VerifyOptions,
    gate: Option<GateOptions>,
}

const OPTIONS_DOCUMENT: &str = "an options object {keys, allowTest, ...}";

impl Verifier {
    pub fn new(options: VerifyOptions) -> Verifier {
        Verifier { options, gate: None }
    }

    /// Reads the options document `{keys, allowTest?, mode?, now?, known?, trustBundleKeys?, witnesses?}` strictly.
    /// Options that cannot be used are `Err` with the stable code and pointer (`/keys/keys/0/x`) that a whole request
    /// with these options reports under reason `malformed`; repeated member names are `invalid_json`.
    pub fn from_text(options: &str) -> Result<Verifier, Error> {
        let value = parse_strict(options)?;
        let Value::Object(obj) = &value else { return Err(wrong_type("", OPTIONS_DOCUMENT, &value)) };
        let trust = obj.get("keys").and_then(|k| k.get("object"));
        if trust.and_then(Value::as_str) == Some(browser_gate::GATE_TRUST_OBJECT) {
            let gate = GateOptions::from_request(obj, &[])?;
            let mut options = VerifyOptions::new(gate.trust.identity.clone());
            options.allow_test = gate.allow_test;
            options.known.clone_from(&gate.known);
            return Ok(Verifier { options, gate: Some(gate) });
        }
        Ok(Verifier { options: VerifyOptions::from_request(obj, &[])?, gate: None })
    }

    /// [`Verifier::from_text`] over bytes (`invalid_json` when they are not UTF-8).
    pub fn from_json(options: &[u8]) -> Result<Verifier, Error> {
        Verifier::from_text(crate::json::utf8(options)?)
    }

    pub fn options(&self) -> &VerifyOptions {
        &self.options
    }

    /// Verifies a parsed bundle (under a gate-trust document, a bundle is refused as the wrapper reader refuses it).
    pub fn verify(&self, bundle: &ParsedBundle) -> Verification {
        match &self.gate {
            Some(_) => browser_gate::bundle_under_gate_trust(),
            None => verify_bundle(bundle, &self.options),
        }
    }

    /// Verifies a bundle document given as JSON text, streamed ([`ParsedBundle::from_text`]). `Err` only when the
    /// text is not JSON; an unreadable bundle is a result with reason `malformed` and a pointer under `/bundle`, as
    /// in a whole request.
    pub fn verify_text(&self, bundle: &str) -> Result<Verification, Error> {
        if let Some(gate) = &self.gate {
            return browser_gate::verify_bundle_text(bundle, gate);
        }
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
        Ok(self.verify_text(crate::json::utf8(bundle)?)?.to_json_string())
    }
}

/// [`verify_request_text`] with the bundle and the options (the request without `bundle`) as two texts. Error
/// paths are those of the combined request. `Err` only when either text is not JSON at all.
pub fn verify_parts_text(bundle: &str, options: &str) -> Result<Verification, Error> {
    read_parts_text(bundle, options)?.verify(|| browser_gate::verify_parts_text(bundle, options))
}

/// [`verify_parts_text`] up to the verification ([`Read::Gate`] for options that pin a browser gate).
pub(crate) fn read_parts_text(bundle: &str, options: &str) -> Result<Read, Error> {
    if browser_gate::options_name_gate_trust(options) {
        return Ok(Read::Gate);
    }
    let bundle_repeat = first_repeat(bundle)?;
    if let Some(e) = first_repeat(options)? {
        return Ok(Read::malformed(e));
    }
    if let Some(e) = bundle_repeat {
        return Ok(Read::malformed(Error::new(e.code, format!("/bundle{}", e.path), e.message)));
    }
    let options_value: Value = serde_json::from_str(options).map_err(|e| Error::from_json_error(&e))?;
    let Value::Object(request) = options_value else {
        return Ok(Read::malformed(wrong_type("", OPTIONS_DOCUMENT, &options_value)));
    };
    if request.contains_key("bundle") {
        let e = Error::new(ErrorCode::UnknownField, "/bundle", "pass the bundle as its own document, not in options");
        return Ok(Read::malformed(e));
    }
    Ok(Read::of(read_options(&request, Some(read_text(bundle, BundleSeed { path: "/bundle" })?))))
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

    #[test]
    fn a_request_is_a_gate_proofs_exactly_when_its_keys_name_the_gate_trust_document() {
        // The peek decides before anything else could: the reading of a bundle's request only goes first.
        let gate = format!(r#"{{"object":"{}","identity":{{"keys":[]}}}}"#, browser_gate::GATE_TRUST_OBJECT);
        let (bundle, keys) = curbi_testkit::large_bundle(3, false).expect("a bundle from the reference gate");
        let request = serde_json::json!({"bundle": bundle, "keys": keys.to_value(), "allowTest": true}).to_string();
        let texts = [
            request.clone(),
            format!(r#"{{"bundle":{{}},"keys":{gate}}}"#),
            format!(r#"{{"keys":{gate},"bundle":[]}}"#),
            format!(r#"{{"keys":{gate}}} trailing"#),
            format!(r#"{{"keys":{{"keys":[]}},"keys":{gate}}}"#),
            format!(r#"{{"keys":{gate},"keys":{{"keys":[]}}}}"#),
            request.replacen(
                r#""keys":{"keys":"#,
                &format!(r#""keys":{{"object":"{}","keys":"#, browser_gate::GATE_TRUST_OBJECT),
                1,
            ),
            "{".to_string(),
            "[]".to_string(),
        ];
        for text in &texts {
            let gate_read = matches!(read_request_text(text), Ok(Read::Gate));
            assert_eq!(gate_read, browser_gate::request_names_gate_trust(text), "{text:.200}");
        }
        assert!(matches!(read_request_text(&request), Ok(Read::Bundle(..))), "the valid request reads as a bundle's");
        assert!(texts[1..7].iter().all(|t| matches!(read_request_text(t), Ok(Read::Gate))), "six name the gate trust");
    }
}
