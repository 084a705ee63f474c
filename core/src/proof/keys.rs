//! The trusted key set: a strictly checked JWKS of OKP/Ed25519 public keys (docs/PROOF.md §Keys), decoded once, with
//! RFC 7638 thumbprint kids, validity windows and a test tag. The keys themselves are `crate::ed25519`'s.

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use super::json::{parse_strict, wrong_type};
pub use crate::ed25519::{
    KeyError, PUBLIC_KEY_LEN, PreparedKey, SEED_LEN, SIGNATURE_LEN, SignatureError, SigningKey, VerifyingKey,
    verify_strict_bytes,
};
use crate::encoding::decode_url;
use crate::error::{Error, ErrorCode};
use crate::pointer::{element, member};

/// Most keys one key set may hold.
pub const MAX_KEYS: usize = 256;
/// Longest `kid`, in bytes.
pub const MAX_KID_LEN: usize = 128;
/// Latest time a window member may name: 9999-12-31T23:59:59Z, in Unix seconds.
pub const MAX_UNIX_SECONDS: i64 = 253_402_300_799;

/// Project member: the key is valid from this Unix time (seconds, inclusive).
pub const MEMBER_NOT_BEFORE: &str = "curbi:nbf";
/// Project member: the key is valid until this Unix time (seconds, exclusive).
pub const MEMBER_EXPIRES: &str = "curbi:exp";
/// Project member: `true` marks a test key, which verifies only when the caller allows test keys.
pub const MEMBER_TEST: &str = "curbi:test";

/// Every member a key set's JWK may carry. Anything else is refused (`unknown_field`), so that a misspelt or
/// unprefixed window (`exp`, `curbi:expires`) can never be silently ignored.
const JWK_MEMBERS: [&str; 10] =
    ["kty", "crv", "x", "kid", "alg", "use", "key_ops", MEMBER_NOT_BEFORE, MEMBER_EXPIRES, MEMBER_TEST];

/// One key of a key set: the decoded public key with its `kid`, validity window and test tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedKey {
    kid: String,
    key: VerifyingKey,
    thumbprint: String,
    not_before: Option<i64>,
    expires: Option<i64>,
    test: bool,
}

impl TrustedKey {
    /// A production key valid at all times, whose `kid` is its RFC 7638 thumbprint.
    pub fn new(key: VerifyingKey) -> TrustedKey {
        let thumbprint = key.thumbprint();
        TrustedKey { kid: thumbprint.clone(), key, thumbprint, not_before: None, expires: None, test: false }
    }

    /// The same key under another `kid` (1 to 128 visible ASCII characters).
    pub fn with_kid(mut self, kid: &str) -> Result<TrustedKey, Error> {
        check_kid(kid, "/kid")?;
        self.kid = kid.to_string();
        Ok(self)
    }

    /// The same key valid only from `not_before` (inclusive) until `expires` (exclusive), Unix seconds.
    pub fn with_window(mut self, not_before: Option<i64>, expires: Option<i64>) -> Result<TrustedKey, Error> {
        for (t, name) in [(not_before, MEMBER_NOT_BEFORE), (expires, MEMBER_EXPIRES)] {
            if t.is_some_and(|t| !(0..=MAX_UNIX_SECONDS).contains(&t)) {
                return Err(Error::new(ErrorCode::OutOfRange, member("", name), window_range_message(name)));
            }
        }
        check_window(not_before, expires, "")?;
        self.not_before = not_before;
        self.expires = expires;
        Ok(self)
    }

    /// The same key tagged as a test key (or not).
    pub fn with_test(mut self, test: bool) -> TrustedKey {
        self.test = test;
        self
    }

    pub fn kid(&self) -> &str {
        &self.kid
    }

    pub fn key(&self) -> &VerifyingKey {
        &self.key
    }

    /// The RFC 7638 thumbprint, whatever the `kid`.
    pub fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    /// `curbi:nbf`: valid from this Unix time, inclusive.
    pub fn not_before(&self) -> Option<i64> {
        self.not_before
    }

    /// `curbi:exp`: valid until this Unix time, exclusive.
    pub fn expires(&self) -> Option<i64> {
        self.expires
    }

    /// `curbi:test`: a test key, refused unless the caller allows test keys.
    pub fn is_test(&self) -> bool {
        self.test
    }

    /// Whether Unix time `t` lies in the key's window: `not_before ≤ t < expires`, open ends unbounded.
    pub fn valid_at(&self, t: i64) -> bool {
        self.not_before.is_none_or(|nbf| t >= nbf) && self.expires.is_none_or(|exp| t < exp)
    }

    /// The public JWK: `kty`, `crv`, `x`, `kid` and the project members that are set.
    pub fn to_jwk(&self) -> Value {
        let mut m = Map::new();
        m.insert("kty".into(), "OKP".into());
        m.insert("crv".into(), "Ed25519".into());
        m.insert("x".into(), self.key.to_jwk_x().into());
        m.insert("kid".into(), self.kid.clone().into());
        if let Some(t) = self.not_before {
            m.insert(MEMBER_NOT_BEFORE.into(), t.into());
        }
        if let Some(t) = self.expires {
            m.insert(MEMBER_EXPIRES.into(), t.into());
        }
        if self.test {
            m.insert(MEMBER_TEST.into(), true.into());
        }
        Value::Object(m)
    }
}

/// A trusted key set: every key decoded and checked once, looked up by `kid` or by public key.
#[derive(Debug, Clone, Default)]
pub struct KeySet {
    keys: Vec<TrustedKey>,
    by_kid: FxHashMap<String, usize>,
    by_key: FxHashMap<[u8; PUBLIC_KEY_LEN], usize>,
}

impl KeySet {
    /// Parses a JWKS document (`{"keys": [...]}`) strictly; the first error carries a stable code and a JSON pointer.
    pub fn parse(text: &str) -> Result<KeySet, Error> {
        KeySet::from_value(&parse_strict(text)?)
    }

    /// Reads an already-parsed JWKS document. (Repeated member names cannot be seen any more; prefer
    /// [`KeySet::parse`] for untrusted text.)
    pub fn from_value(value: &Value) -> Result<KeySet, Error> {
        let obj = value.as_object().ok_or_else(|| wrong_type("", "a JWK set object", value))?;
        if let Some(name) = obj.keys().find(|k| k.as_str() != "keys") {
            return Err(Error::new(
                ErrorCode::UnknownField,
                member("", name),
                format!("a key set has only a \"keys\" member, not \"{name}\""),
            ));
        }
        let keys = obj
            .get("keys")
            .ok_or_else(|| Error::new(ErrorCode::MissingField, "/keys", "a key set needs a \"keys\" array"))?;
        let list = keys.as_array().ok_or_else(|| wrong_type("/keys", "an array of JWKs", keys))?;
        Error::at_most(list.len(), MAX_KEYS, "/keys", || {
            format!("{} keys, more than the limit of {MAX_KEYS}", list.len())
        })?;
        let mut parsed = Vec::with_capacity(list.len());
        for (i, jwk) in list.iter().enumerate() {
            let path = element("/keys", i);
            let key = parse_jwk(jwk, &path)?;
            let kid_given = jwk.get("kid").is_some();
            parsed.push((key, kid_given));
        }
        KeySet::build(parsed)
    }

    /// A key set from keys made in code; `kid`s and public keys must be unique (paths `/keys/{i}/kid`, `/keys/{i}/x`).
    pub fn from_keys(keys: Vec<TrustedKey>) -> Result<KeySet, Error> {
        Error::at_most(keys.len(), MAX_KEYS, "/keys", || {
            format!("{} keys, more than the limit of {MAX_KEYS}", keys.len())
        })?;
        KeySet::build(keys.into_iter().map(|k| (k, true)).collect())
    }

    fn build(keys: Vec<(TrustedKey, bool)>) -> Result<KeySet, Error> {
        let mut set = KeySet::default();
        for (i, (key, kid_given)) in keys.into_iter().enumerate() {
            let path = element("/keys", i);
            if let Some(&first) = set.by_kid.get(&key.kid) {
                let at = if kid_given { member(&path, "kid") } else { path };
                return Err(Error::new(
                    ErrorCode::DuplicateKey,
                    at,
                    format!("kid \"{}\" is already used by /keys/{first}", key.kid),
                ));
            }
            if let Some(&first) = set.by_key.get(key.key.as_bytes()) {
                return Err(Error::new(
                    ErrorCode::DuplicateKey,
                    member(&path, "x"),
                    format!("this public key is already listed at /keys/{first}; one key has one window and tag"),
                ));
            }
            set.by_kid.insert(key.kid.clone(), i);
            set.by_key.insert(key.key.to_bytes(), i);
            set.keys.push(key);
        }
        Ok(set)
    }

    /// Every key, in document order.
    pub fn keys(&self) -> &[TrustedKey] {
        &self.keys
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key with this `kid`.
    pub fn get(&self, kid: &str) -> Option<&TrustedKey> {
        self.by_kid.get(kid).and_then(|&i| self.keys.get(i))
    }

    /// The key with this public key.
    pub fn find(&self, public_key: &[u8; PUBLIC_KEY_LEN]) -> Option<&TrustedKey> {
        self.by_key.get(public_key).and_then(|&i| self.keys.get(i))
    }

    /// The JWKS document of these keys (public members only).
    pub fn to_value(&self) -> Value {
        serde_json::json!({ "keys": self.keys.iter().map(TrustedKey::to_jwk).collect::<Vec<_>>() })
    }
}

/// Reads one public OKP/Ed25519 JWK at `path` (for messages), with every check of docs/PROOF.md §Keys.
pub fn parse_jwk(value: &Value, path: &str) -> Result<TrustedKey, Error> {
    let obj = value.as_object().ok_or_else(|| wrong_type(path, "a JWK object", value))?;
    if obj.contains_key("d") {
        return Err(Error::new(
            ErrorCode::PrivateKeyPresent,
            member(path, "d"),
            "a private key (\"d\") in a key set: key sets hold public keys only; treat this key as exposed",
        ));
    }
    if let Some(name) = obj.keys().find(|k| !JWK_MEMBERS.contains(&k.as_str())) {
        return Err(Error::new(
            ErrorCode::UnknownField,
            member(path, name),
            format!("\"{name}\" is not a member of a Curbi JWK (see docs/PROOF.md)"),
        ));
    }
    expect_enum(obj, path, "kty", &["OKP"], true)?;
    expect_enum(obj, path, "crv", &["Ed25519"], true)?;
    let x = read_x(obj, path)?;
    expect_enum(obj, path, "alg", &["Ed25519", "EdDSA"], false)?;
    expect_enum(obj, path, "use", &["sig"], false)?;
    read_key_ops(obj, path)?;
    let mut key = TrustedKey::new(x);
    if let Some(kid) = obj.get("kid") {
        let at = member(path, "kid");
        let kid = kid.as_str().ok_or_else(|| wrong_type(&at, "a string", kid))?;
        check_kid(kid, &at)?;
        key.kid = kid.to_string();
    }
    key.not_before = read_time(obj, path, MEMBER_NOT_BEFORE)?;
    key.expires = read_time(obj, path, MEMBER_EXPIRES)?;
    check_window(key.not_before, key.expires, path)?;
    if let Some(t) = obj.get(MEMBER_TEST) {
        key.test = t.as_bool().ok_or_else(|| wrong_type(&member(path, MEMBER_TEST), "a boolean", t))?;
    }
    Ok(key)
}

fn expect_enum(
    obj: &Map<String, Value>,
    path: &str,
    name: &str,
    allowed: &[&str],
    required: bool,
) -> Result<(), Error> {
    let at = member(path, name);
    let Some(v) = obj.get(name) else {
        if required {
            return Err(Error::new(ErrorCode::MissingField, at, format!("\"{name}\" is required")));
        }
        return Ok(());
    };
    let s = v.as_str().ok_or_else(|| wrong_type(&at, "a string", v))?;
    if allowed.contains(&s) {
        Ok(())
    } else {
        let list = allowed.iter().map(|a| format!("\"{a}\"")).collect::<Vec<_>>().join(" or ");
        Err(Error::new(ErrorCode::InvalidEnum, at, format!("\"{name}\" must be {list}, not \"{s}\"")))
    }
}

fn read_x(obj: &Map<String, Value>, path: &str) -> Result<VerifyingKey, Error> {
    let at = member(path, "x");
    let v = obj.get("x").ok_or_else(|| Error::new(ErrorCode::MissingField, at.clone(), "\"x\" is required"))?;
    let text = v.as_str().ok_or_else(|| wrong_type(&at, "a string", v))?;
    let bytes = decode_url(text)
        .ok_or_else(|| Error::new(ErrorCode::InvalidKey, at.clone(), "\"x\" is not canonical unpadded base64url"))?;
    VerifyingKey::from_slice(&bytes).map_err(|e| Error::new(e.code(), at, format!("\"x\" is {e}")))
}

fn read_key_ops(obj: &Map<String, Value>, path: &str) -> Result<(), Error> {
    let Some(v) = obj.get("key_ops") else { return Ok(()) };
    let at = member(path, "key_ops");
    let ops = v.as_array().ok_or_else(|| wrong_type(&at, "an array", v))?;
    for (i, op) in ops.iter().enumerate() {
        let op_at = element(&at, i);
        let s = op.as_str().ok_or_else(|| wrong_type(&op_at, "a string", op))?;
        if s != "verify" {
            return Err(Error::new(
                ErrorCode::InvalidEnum,
                op_at,
                format!("a public key's operation is \"verify\", not \"{s}\""),
            ));
        }
    }
    match ops.len() {
        0 => Err(Error::new(ErrorCode::TooFewItems, at, "\"key_ops\" must be [\"verify\"] when present")),
        1 => Ok(()),
        _ => Err(Error::new(ErrorCode::TooManyItems, at, "\"key_ops\" lists \"verify\" more than once")),
    }
}

fn check_kid(kid: &str, at: &str) -> Result<(), Error> {
    if kid.is_empty() {
        return Err(Error::new(ErrorCode::TooShort, at, "\"kid\" must not be empty"));
    }
    if kid.len() > MAX_KID_LEN {
        return Err(Error::new(ErrorCode::TooLong, at, format!("\"kid\" is longer than {MAX_KID_LEN} bytes")));
    }
    if !kid.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Error::new(ErrorCode::PatternMismatch, at, "\"kid\" must be visible ASCII without spaces"));
    }
    Ok(())
}

fn window_range_message(name: &str) -> String {
    format!("\"{name}\" must be whole Unix seconds from 0 to {MAX_UNIX_SECONDS} (9999-12-31T23:59:59Z)")
}

fn read_time(obj: &Map<String, Value>, path: &str, name: &str) -> Result<Option<i64>, Error> {
    let Some(v) = obj.get(name) else { return Ok(None) };
    let at = member(path, name);
    let n = match v {
        Value::Number(n) => n,
        other => return Err(wrong_type(&at, "an integer number of Unix seconds", other)),
    };
    // An integer in the JSON text: `1.0` and `1e3` are floats to serde_json and are refused.
    let t = if n.is_i64() || n.is_u64() { n.as_i64() } else { None };
    match t {
        Some(t) if (0..=MAX_UNIX_SECONDS).contains(&t) => Ok(Some(t)),
        _ if n.is_f64() => Err(Error::new(ErrorCode::InvalidType, at, window_range_message(name))),
        _ => Err(Error::new(ErrorCode::OutOfRange, at, window_range_message(name))),
    }
}

fn check_window(not_before: Option<i64>, expires: Option<i64>, path: &str) -> Result<(), Error> {
    match (not_before, expires) {
        (Some(nbf), Some(exp)) if exp <= nbf => Err(Error::new(
            ErrorCode::InvalidValue,
            member(path, MEMBER_EXPIRES),
            format!("\"{MEMBER_EXPIRES}\" ({exp}) must be later than \"{MEMBER_NOT_BEFORE}\" ({nbf})"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::encode_url;

    const RFC8032_TEST1_X: &str = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";

    fn err(text: &str) -> (ErrorCode, String) {
        match KeySet::parse(text) {
            Ok(_) => (ErrorCode::Internal, "accepted".into()),
            Err(e) => (e.code, e.path),
        }
    }

    fn jwks(members: &str) -> String {
        format!(r#"{{"keys":[{{"kty":"OKP","crv":"Ed25519","x":"{RFC8032_TEST1_X}"{members}}}]}}"#)
    }

    #[test]
    fn a_minimal_key_parses_with_its_thumbprint_as_kid() {
        let set = KeySet::parse(&jwks("")).expect("parses");
        assert_eq!(set.len(), 1);
        let key = &set.keys()[0];
        // RFC 8037 §A.3.
        assert_eq!(key.kid(), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
        assert!(!key.is_test());
        assert!(key.valid_at(0) && key.valid_at(MAX_UNIX_SECONDS));
        assert!(set.get(key.kid()).is_some());
        assert!(set.find(key.key().as_bytes()).is_some());
    }

    #[test]
    fn project_members_are_read() {
        let set = KeySet::parse(&jwks(r#","kid":"log-2026","curbi:nbf":100,"curbi:exp":200,"curbi:test":true"#));
        let set = set.expect("parses");
        let key = &set.keys()[0];
        assert_eq!(
            (key.kid(), key.not_before(), key.expires(), key.is_test()),
            ("log-2026", Some(100), Some(200), true)
        );
        assert!(!key.valid_at(99) && key.valid_at(100) && key.valid_at(199) && !key.valid_at(200));
        let again = KeySet::parse(&set.to_value().to_string()).expect("round trip");
        assert_eq!(again.keys(), set.keys());
    }

    #[test]
    fn strict_checks_have_codes_and_pointers() {
        let cases: &[(&str, ErrorCode, &str)] = &[
            (r#","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A""#, ErrorCode::PrivateKeyPresent, "/keys/0/d"),
            (r#","alg":"ES256""#, ErrorCode::InvalidEnum, "/keys/0/alg"),
            (r#","alg":"EdDSA""#, ErrorCode::Internal, "accepted"),
            (r#","alg":"Ed25519","use":"sig","key_ops":["verify"]"#, ErrorCode::Internal, "accepted"),
            (r#","use":"enc""#, ErrorCode::InvalidEnum, "/keys/0/use"),
            (r#","key_ops":["sign"]"#, ErrorCode::InvalidEnum, "/keys/0/key_ops/0"),
            (r#","key_ops":[]"#, ErrorCode::TooFewItems, "/keys/0/key_ops"),
            (r#","exp":5"#, ErrorCode::UnknownField, "/keys/0/exp"),
            (r#","kid":"""#, ErrorCode::TooShort, "/keys/0/kid"),
            (r#","kid":"a b""#, ErrorCode::PatternMismatch, "/keys/0/kid"),
            (r#","kid":7"#, ErrorCode::InvalidType, "/keys/0/kid"),
            (r#","curbi:nbf":"2026-01-01T00:00:00Z""#, ErrorCode::InvalidType, "/keys/0/curbi:nbf"),
            (r#","curbi:nbf":1.5"#, ErrorCode::InvalidType, "/keys/0/curbi:nbf"),
            (r#","curbi:nbf":-1"#, ErrorCode::OutOfRange, "/keys/0/curbi:nbf"),
            (r#","curbi:exp":253402300800"#, ErrorCode::OutOfRange, "/keys/0/curbi:exp"),
            (r#","curbi:nbf":10,"curbi:exp":10"#, ErrorCode::InvalidValue, "/keys/0/curbi:exp"),
            (r#","curbi:test":"yes""#, ErrorCode::InvalidType, "/keys/0/curbi:test"),
            (r#","x":"again""#, ErrorCode::DuplicateMember, "/keys/0/x"),
        ];
        for (members, code, path) in cases {
            assert_eq!(err(&jwks(members)), (*code, path.to_string()), "{members}");
        }
    }

    #[test]
    fn bad_x_values_are_refused() {
        let x = |x: &str| err(&format!(r#"{{"keys":[{{"kty":"OKP","crv":"Ed25519","x":"{x}"}}]}}"#));
        let at = "/keys/0/x".to_string();
        assert_eq!(x(&format!("{RFC8032_TEST1_X}=")), (ErrorCode::InvalidKey, at.clone()), "padding");
        assert_eq!(
            x("11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo"),
            (ErrorCode::InvalidKey, at.clone()),
            "std alphabet"
        );
        assert_eq!(
            x("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURp"),
            (ErrorCode::InvalidKey, at.clone()),
            "trailing bits"
        );
        assert_eq!(x("AAAA"), (ErrorCode::InvalidKey, at.clone()), "3 bytes");
        let mut identity = [0u8; 32];
        identity[0] = 1;
        // The identity point (y = 1): canonical, but of order 1.
        assert_eq!(x(&encode_url(&identity)), (ErrorCode::WeakKey, at.clone()));
        // y = 1 with the sign bit set: x = 0 has no negative, so this encoding is not canonical.
        let mut signed = identity;
        signed[31] = 0x80;
        assert_eq!(x(&encode_url(&signed)), (ErrorCode::InvalidKey, at.clone()));
        // y = p + 1 = 2^255 - 18, which reduces to 1: a non-canonical field element.
        let mut above_p = [0xffu8; 32];
        above_p[0] = 0xee;
        above_p[31] = 0x7f;
        assert_eq!(x(&encode_url(&above_p)), (ErrorCode::InvalidKey, at));
    }

    #[test]
    fn set_level_checks() {
        assert_eq!(err("[]"), (ErrorCode::InvalidType, String::new()));
        assert_eq!(err("{}"), (ErrorCode::MissingField, "/keys".into()));
        assert_eq!(err(r#"{"keys":[],"extra":1}"#), (ErrorCode::UnknownField, "/extra".into()));
        assert_eq!(err(r#"{"keys":{}}"#), (ErrorCode::InvalidType, "/keys".into()));
        assert_eq!(err(r#"{"keys":[1]}"#), (ErrorCode::InvalidType, "/keys/0".into()));
        assert!(KeySet::parse(r#"{"keys":[]}"#).is_ok_and(|s| s.is_empty()));
        let k = format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{RFC8032_TEST1_X}"}}"#);
        assert_eq!(err(&format!(r#"{{"keys":[{k},{k}]}}"#)), (ErrorCode::DuplicateKey, "/keys/1".into()));
        let other = SigningKey::from_seed(&[9; 32]).verifying_key().to_jwk_x();
        let a = format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{RFC8032_TEST1_X}","kid":"k"}}"#);
        let b = format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{other}","kid":"k"}}"#);
        assert_eq!(err(&format!(r#"{{"keys":[{a},{b}]}}"#)), (ErrorCode::DuplicateKey, "/keys/1/kid".into()));
        let c = format!(r#"{{"kty":"OKP","crv":"Ed25519","x":"{RFC8032_TEST1_X}","kid":"other"}}"#);
        assert_eq!(err(&format!(r#"{{"keys":[{a},{c}]}}"#)), (ErrorCode::DuplicateKey, "/keys/1/x".into()));
    }
}
