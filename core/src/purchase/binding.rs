//! What ties the checkout to what was approved: a cart digest the mandate pins (SHA-256 over the RFC 8785 checkout),
//! an AP2 closed checkout mandate's `checkout_hash` and the checkout its `checkout_jwt` carries, and the merchant's
//! signatures (UCP/AP2 `merchant_authorization`, the `checkout_jwt`) verified against keys the caller pins.

use serde_json::{Map, Value};

use super::decision::{ReasonCode, Reasons};
use super::read::{Reader, quote, show};
use crate::encoding::{decode_url, encode_url, sha256};
use crate::error::Error;
use crate::jcs::canonicalize;
use crate::json;
use crate::pointer::{element, member};
use crate::time::Timestamp;

/// The member of a checkout that carries signatures over the rest of it (UCP's AP2 extension): never signed or hashed.
const SIGNATURE_MEMBER: &str = "ap2";
/// Most keys a pinned key set may hold.
const MAX_KEYS: usize = 64;

/// The checkout as it is signed and hashed: every member but `ap2`, RFC 8785 canonical. `Err` (`out_of_range` at the
/// number's pointer inside the checkout) when a number is beyond the IEEE 754 doubles.
fn signed_bytes(checkout: &Value) -> Result<String, Error> {
    match checkout {
        Value::Object(m) if m.contains_key(SIGNATURE_MEMBER) => {
            let rest: Map<String, Value> =
                m.iter().filter(|(k, _)| k.as_str() != SIGNATURE_MEMBER).map(|(k, v)| (k.clone(), v.clone())).collect();
            canonicalize(&Value::Object(rest))
        }
        other => canonicalize(other),
    }
}

/// The digest a mandate's `checkout_digest` pins: unpadded base64url of SHA-256 over the RFC 8785 canonical checkout
/// without its `ap2` member. A host computes it over the checkout the user approved (`api::checkout_digest_json`
/// reads that checkout with the strict reader). `Err` when the checkout is not an object (`invalid_type`) or has no
/// canonical form (see [`canonicalize`]).
pub fn checkout_digest(checkout: &Value) -> Result<String, Error> {
    if !checkout.is_object() {
        return Err(json::wrong_type("", "a checkout object", checkout));
    }
    signed_bytes(checkout).map(|signed| encode_url(&sha256(signed.as_bytes())))
}

/// A JSON document inside a JWS (its protected header, a JWT's payload), read by the strict reader: a member written
/// twice is refused, as RFC 7515 §4 requires of header parameter names. `None` when it is not base64url JSON.
fn jws_json(part: &str) -> Option<Value> {
    decode_url(part).and_then(|bytes| json::read(&bytes).ok())
}

/// A public key the caller pins for merchant signatures.
#[derive(Clone)]
enum PublicKey {
    /// `ES256`: ECDSA over P-256 with SHA-256.
    P256(Box<p256::ecdsa::VerifyingKey>),
    /// `ES384`: ECDSA over P-384 with SHA-384.
    P384(Box<p384::ecdsa::VerifyingKey>),
    /// `ES512`: ECDSA over P-521 with SHA-512.
    P521(Box<p521::ecdsa::VerifyingKey>),
    /// `EdDSA`: Ed25519, verified strictly.
    Ed25519(crate::ed25519::VerifyingKey),
}

impl std::fmt::Debug for PublicKey {
    // p521's verifying key has no `Debug`: each key is shown as its algorithm and its point (SEC1) or bytes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut t = f.debug_tuple(self.alg());
        match self {
            PublicKey::P256(k) => t.field(&k.to_encoded_point(false)),
            PublicKey::P384(k) => t.field(&k.to_encoded_point(false)),
            PublicKey::P521(k) => t.field(&k.to_encoded_point(false)),
            PublicKey::Ed25519(k) => t.field(k),
        };
        t.finish()
    }
}

impl PublicKey {
    fn alg(&self) -> &'static str {
        match self {
            PublicKey::P256(_) => "ES256",
            PublicKey::P384(_) => "ES384",
            PublicKey::P521(_) => "ES512",
            PublicKey::Ed25519(_) => "EdDSA",
        }
    }

    /// Verifies `signature` over `message`. An ECDSA signature is the JWS form (RFC 7518 §3.4): `r || s`, each the
    /// curve's field size (64, 96 and 132 bytes in all for P-256, P-384 and P-521), both in `[1, n)`; any other length
    /// does not verify. As in RFC 7518, a high `s` is not refused.
    fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        use p256::ecdsa::signature::Verifier as _;
        match self {
            PublicKey::P256(k) => {
                p256::ecdsa::Signature::from_slice(signature).is_ok_and(|sig| k.verify(message, &sig).is_ok())
            }
            PublicKey::P384(k) => {
                p384::ecdsa::Signature::from_slice(signature).is_ok_and(|sig| k.verify(message, &sig).is_ok())
            }
            PublicKey::P521(k) => {
                p521::ecdsa::Signature::from_slice(signature).is_ok_and(|sig| k.verify(message, &sig).is_ok())
            }
            PublicKey::Ed25519(k) => k.verify(message, signature).is_ok(),
        }
    }
}

/// One pinned JWK: its `kid`, the algorithm its key is for, and the key.
#[derive(Debug, Clone)]
pub(crate) struct PinnedKey {
    kid: String,
    key: PublicKey,
}

/// Reads the caller's `merchant_keys` JWKS (`{"keys": [...]}`): EC P-256 (`ES256`), P-384 (`ES384`) and P-521
/// (`ES512`) and OKP Ed25519 (`EdDSA`) public keys, each with a `kid`. A key set with any unreadable key is refused as a whole (`None`): a typo must not leave a
/// signature checked against fewer keys than meant.
pub(crate) fn read_keys(r: &mut Reader, v: &Value, path: &str) -> Option<Vec<PinnedKey>> {
    let m = r.object(v, path, &["keys"], &[])?;
    let kp = member(path, "keys");
    let list = r.required(m, path, "keys").and_then(|x| r.array(x, &kp, 1))?;
    if list.len() > MAX_KEYS {
        let message = format!("at most {MAX_KEYS} keys may be pinned");
        r.push(ReasonCode::Malformed, kp, format!("at most {MAX_KEYS} keys"), list.len().to_string(), message);
        return None;
    }
    let mut out = Vec::with_capacity(list.len());
    let mut ok = true;
    for (i, x) in list.iter().enumerate() {
        match read_jwk(r, x, &element(&kp, i)) {
            Some(k) if out.iter().any(|o: &PinnedKey| o.kid == k.kid) => {
                let p = member(&element(&kp, i), "kid");
                let message = format!("kid {} is pinned twice: which key signs would be ambiguous", quote(&k.kid));
                r.push(ReasonCode::Malformed, p, "a kid used once", quote(&k.kid), message);
                ok = false;
            }
            Some(k) => out.push(k),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn read_jwk(r: &mut Reader, v: &Value, path: &str) -> Option<PinnedKey> {
    let m = r.object(v, path, &["kty", "crv", "x", "y", "kid", "alg"], &["use", "key_ops"])?;
    let text = |r: &mut Reader, k: &str| r.required(m, path, k).and_then(|x| r.id(x, &member(path, k)));
    let kid = text(r, "kid");
    let kty = text(r, "kty")?;
    let crv = text(r, "crv")?;
    let bytes = |r: &mut Reader, k: &str, len: usize| {
        let p = member(path, k);
        let s = text(r, k)?;
        match decode_url(&s) {
            Some(b) if b.len() == len => Some(b),
            _ => {
                let expected = format!("{len} bytes in unpadded base64url");
                r.push(ReasonCode::Malformed, p, expected.clone(), quote(&s), format!("JWK {k} must be {expected}"));
                None
            }
        }
    };
    // An EC key's x and y, each exactly the curve's field size, as RFC 7518 §6.2.1.2 and §6.2.1.3 require.
    let coordinates = |r: &mut Reader, len: usize| {
        let (x, y) = (bytes(r, "x", len), bytes(r, "y", len));
        Some((x?, y?))
    };
    let off_curve = |r: &mut Reader| -> Option<PinnedKey> {
        let message = format!("x and y are not a point on {crv}");
        r.push(ReasonCode::Malformed, member(path, "x"), format!("a {crv} point"), "not on the curve", message);
        None
    };
    // An EC key on one curve (its crate, field size in bytes and PublicKey variant), or a reason when x and y are
    // not a point on it.
    macro_rules! ec_key {
        ($curve:ident, $len:literal, $variant:ident) => {{
            let (x, y) = coordinates(r, $len)?;
            let point = $curve::EncodedPoint::from_affine_coordinates(x.as_slice().into(), y.as_slice().into(), false);
            match $curve::ecdsa::VerifyingKey::from_encoded_point(&point) {
                Ok(k) => PublicKey::$variant(Box::new(k)),
                Err(_) => return off_curve(r),
            }
        }};
    }
    let key = match (kty.as_str(), crv.as_str()) {
        ("EC", "P-256") => ec_key!(p256, 32, P256),
        ("EC", "P-384") => ec_key!(p384, 48, P384),
        ("EC", "P-521") => ec_key!(p521, 66, P521),
        ("OKP", "Ed25519") => {
            if m.contains_key("y") {
                r.push(ReasonCode::Malformed, member(path, "y"), "absent", "present", "an OKP key has no y");
                return None;
            }
            let x = bytes(r, "x", 32)?;
            match crate::ed25519::VerifyingKey::from_slice(&x) {
                Ok(k) => PublicKey::Ed25519(k),
                Err(_) => {
                    let message = "x is not a canonical, non-weak Ed25519 public key";
                    r.push(ReasonCode::Malformed, member(path, "x"), "an Ed25519 public key", "refused", message);
                    return None;
                }
            }
        }
        (kty, crv) => {
            let message = format!(
                "a {} {} key cannot verify ES256, ES384, ES512 or EdDSA, the merchant_authorization algorithms \
                 supported",
                quote(kty),
                quote(crv)
            );
            let expected = "EC P-256, P-384 or P-521, or OKP Ed25519";
            r.push(ReasonCode::Malformed, member(path, "kty"), expected, quote(kty), message);
            return None;
        }
    };
    if let Some(alg) = m.get("alg")
        && alg.as_str() != Some(key.alg())
    {
        let message = format!("this key is for {}, so its alg must be {}", key.alg(), quote(key.alg()));
        r.push(ReasonCode::Malformed, member(path, "alg"), quote(key.alg()), show(alg), message);
        return None;
    }
    Some(PinnedKey { kid: kid?, key })
}

/// Why a JWS did not verify.
fn jws_problem(keys: &[PinnedKey], header_b64: &str, payload: &str, signature_b64: &str) -> Option<String> {
    let Some(header) = jws_json(header_b64) else {
        return Some("its protected header is not base64url JSON with each member once".to_owned());
    };
    let Some(h) = header.as_object() else { return Some("its protected header is not a JSON object".to_owned()) };
    if h.contains_key("crit") {
        return Some("its header has crit extensions, which this verifier does not implement".to_owned());
    }
    let Some(alg) = h.get("alg").and_then(Value::as_str) else { return Some("its header has no alg".to_owned()) };
    let Some(kid) = h.get("kid").and_then(Value::as_str) else { return Some("its header has no kid".to_owned()) };
    let Some(pinned) = keys.iter().find(|k| k.kid == kid) else {
        return Some(format!("kid {} is not one of the pinned merchant keys", quote(kid)));
    };
    if pinned.key.alg() != alg {
        return Some(format!("alg {} is not the pinned key's {}", quote(alg), pinned.key.alg()));
    }
    let Some(signature) = decode_url(signature_b64) else {
        return Some("its signature is not unpadded base64url".to_owned());
    };
    let signing_input = format!("{header_b64}.{payload}");
    (!pinned.key.verify(signing_input.as_bytes(), &signature))
        .then(|| format!("the signature does not verify with key {}", quote(kid)))
}

/// The AP2 closed checkout mandate as read: what it binds and until when.
#[derive(Debug, Clone, Default)]
pub(crate) struct CheckoutMandate {
    checkout_jwt: Option<String>,
    checkout_hash: Option<String>,
    exp: Option<i64>,
}

/// Reads an AP2 v0.2 closed checkout mandate's content (`vct` `mandate.checkout.1`), as disclosed from its SD-JWT.
/// Curbi does not verify the SD-JWT itself (the user's or platform's signature, key binding, disclosures): the host
/// does, and hands over the disclosed claims.
pub(crate) fn read_checkout_mandate(r: &mut Reader, v: &Value, path: &str) -> Option<CheckoutMandate> {
    let known = ["vct", "checkout_jwt", "checkout_hash", "iat", "exp", "_sd_alg"];
    // SD-JWT and JWT plumbing, verified by the host with the SD-JWT: not part of what is bound.
    let ignored = ["_sd", "cnf", "iss", "sub", "aud", "nonce", "sd_hash", "jti"];
    let m = r.object(v, path, &known, &ignored)?;
    let p = |k: &str| member(path, k);
    if let Some(vct) = r.required(m, path, "vct") {
        if vct.as_str() != Some("mandate.checkout.1") {
            let message = "only a closed checkout mandate (vct \"mandate.checkout.1\") binds a checkout";
            r.push(ReasonCode::Malformed, p("vct"), "\"mandate.checkout.1\"", show(vct), message);
        }
    }
    if let Some(alg) = m.get("_sd_alg")
        && alg.as_str() != Some("sha-256")
    {
        let message = "checkout_hash uses the SD-JWT's _sd_alg; only sha-256 is implemented";
        r.push(ReasonCode::Malformed, p("_sd_alg"), "\"sha-256\"", show(alg), message);
    }
    // iat is read for its type only: when the mandate was made does not bound it.
    if let Some(x) = m.get("iat") {
        r.count(x, &p("iat"), 0);
    }
    Some(CheckoutMandate {
        checkout_jwt: r.required(m, path, "checkout_jwt").and_then(|x| r.id(x, &p("checkout_jwt"))),
        checkout_hash: r.required(m, path, "checkout_hash").and_then(|x| r.id(x, &p("checkout_hash"))),
        exp: m.get("exp").and_then(|x| r.count(x, &p("exp"), 0)),
    })
}

/// What the binding checks need, already read.
#[derive(Debug, Default)]
pub(crate) struct Binding<'a> {
    /// The mandate's `checkout_digest`.
    pub(crate) digest: Option<String>,
    pub(crate) checkout_mandate: Option<CheckoutMandate>,
    pub(crate) keys: Option<Vec<PinnedKey>>,
    /// The checkout document as given, and its `ap2.merchant_authorization` when it has one.
    pub(crate) checkout: Option<&'a Value>,
    pub(crate) merchant_authorization: Option<String>,
}

/// Checks every binding: the pinned digest, the AP2 checkout mandate, the merchant's signatures.
pub(crate) fn check_binding(r: &mut Reader, b: &Binding<'_>, now: Option<Timestamp>) {
    let Some(checkout) = b.checkout else { return };
    if b.digest.is_none() && b.checkout_mandate.is_none() && b.keys.is_none() {
        // Nothing pins this checkout: it is not canonicalized at all.
        return;
    }
    let signed = match signed_bytes(checkout) {
        Ok(signed) => signed,
        Err(e) => {
            let message = format!("the checkout cannot be bound to what was approved or signed: {}", e.message);
            let actual = checkout.pointer(&e.path).map(show).unwrap_or_default();
            r.push(
                ReasonCode::Malformed,
                format!("/checkout{}", e.path),
                "a number within the doubles",
                actual,
                message,
            );
            return;
        }
    };
    if let Some(pinned) = &b.digest {
        let actual = encode_url(&sha256(signed.as_bytes()));
        if &actual != pinned {
            let message = "the checkout is not the one the user approved: its RFC 8785 SHA-256 digest differs from \
                           the mandate's checkout_digest";
            r.push(
                ReasonCode::MandateScopeMismatch,
                "/mandate/checkout_digest",
                quote(pinned),
                quote(&actual),
                message,
            );
        }
    }
    if let Some(cm) = &b.checkout_mandate {
        check_checkout_mandate(r, cm, &signed, b.keys.as_deref(), now);
    }
    let Some(keys) = &b.keys else { return };
    let path = "/checkout/ap2/merchant_authorization";
    let Some(jws) = &b.merchant_authorization else {
        let message = "merchant keys are pinned and the checkout carries no merchant_authorization signature";
        r.push(ReasonCode::MerchantAuthorizationMissing, path, "a detached JWS", "missing", message);
        return;
    };
    let problem = match jws.split('.').collect::<Vec<_>>().as_slice() {
        [h, "", s] => jws_problem(keys, h, &encode_url(signed.as_bytes()), s),
        _ => Some("it is not a detached JWS (header..signature)".to_owned()),
    };
    if let Some(why) = problem {
        let message = format!("merchant_authorization does not verify: {why}");
        r.push(
            ReasonCode::MerchantAuthorizationInvalid,
            path,
            "a valid detached JWS over the checkout",
            show_jws(jws),
            message,
        );
    }
}

fn show_jws(s: &str) -> String {
    show(&Value::String(s.to_owned()))
}

fn check_checkout_mandate(
    r: &mut Reader,
    cm: &CheckoutMandate,
    signed: &str,
    keys: Option<&[PinnedKey]>,
    now: Option<Timestamp>,
) {
    let base = "/checkout_mandate";
    if let (Some(exp), Some(now)) = (cm.exp, now)
        && now.unix_seconds() >= exp
    {
        let message = format!("the checkout mandate expired at Unix time {exp}; it is now {now}");
        r.push(ReasonCode::MandateExpired, member(base, "exp"), format!("before {exp}"), now.to_rfc3339(), message);
    }
    let Some(jwt) = &cm.checkout_jwt else { return };
    if let Some(hash) = &cm.checkout_hash {
        let actual = encode_url(&sha256(jwt.as_bytes()));
        if &actual != hash {
            let message = "checkout_hash is not the SHA-256 of checkout_jwt: the mandate does not bind this checkout";
            r.push(
                ReasonCode::MandateScopeMismatch,
                member(base, "checkout_hash"),
                quote(&actual),
                quote(hash),
                message,
            );
        }
    }
    let jp = member(base, "checkout_jwt");
    let parts: Vec<&str> = jwt.split('.').collect();
    let [h, payload, s] = parts.as_slice() else {
        let message = "checkout_jwt is not a compact JWS (header.payload.signature)";
        r.push(ReasonCode::Malformed, jp, "a compact JWS", show_jws(jwt), message);
        return;
    };
    match jws_json(payload) {
        Some(carried) if signed_bytes(&carried).is_ok_and(|c| c == signed) => {}
        Some(_) => {
            let message = "the checkout the checkout mandate carries (its checkout_jwt) is not this checkout";
            r.push(ReasonCode::MandateScopeMismatch, jp.clone(), "this checkout", "another checkout", message);
        }
        None => {
            let message = "checkout_jwt's payload is not base64url JSON with each member once";
            r.push(ReasonCode::Malformed, jp.clone(), "a JWT of the checkout", show_jws(jwt), message);
        }
    }
    if let Some(keys) = keys
        && let Some(why) = jws_problem(keys, h, payload, s)
    {
        let message = format!("the merchant's signature on checkout_jwt does not verify: {why}");
        r.push(
            ReasonCode::MerchantAuthorizationInvalid,
            jp,
            "a checkout_jwt signed by a pinned merchant key",
            "refused",
            message,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::purchase::{Verdict, verify_checkout_request};

    /// A checkout that adds up, with an ACP member Curbi ignores holding a number beyond the doubles.
    const CHECKOUT: &str = r#"{"id":"cs_1","status":"ready_for_payment","currency":"usd","merchant":{"id":"m_1"},
        "exchange_rate":1e400,
        "line_items":[{"id":"li_1","item":{"id":"sku_1"},"quantity":1,"unit_amount":4000,
                       "totals":[{"type":"subtotal","amount":4000},{"type":"total","amount":4000}]}],
        "totals":[{"type":"subtotal","amount":4000},{"type":"total","amount":4000}]}"#;

    fn decide(digest: Option<&str>) -> (Verdict, Vec<(ReasonCode, String)>) {
        let pin = digest.map(|d| format!(r#","checkout_digest":"{d}""#)).unwrap_or_default();
        let text = format!(
            r#"{{"mandate":{{"currency":"USD","amount_range":{{"max":5000}},"user_cart_confirmation_required":false,
                "expires_at":"2026-12-31T00:00:00Z"{pin}}},"checkout":{CHECKOUT},"now":"2026-11-20T12:00:00Z"}}"#
        );
        let d = verify_checkout_request(&json::read_str(&text).expect("valid JSON"));
        (d.verdict(), d.reasons().iter().map(|r| (r.code, r.path.clone())).collect())
    }

    #[test]
    fn a_number_beyond_the_doubles_cannot_be_canonicalized() {
        let checkout = json::read_str(CHECKOUT).expect("valid JSON");
        let e = checkout_digest(&checkout).err().map(|e| (e.code, e.path));
        assert_eq!(e, Some((crate::error::ErrorCode::OutOfRange, "/exchange_rate".to_owned())));
    }

    #[test]
    fn only_a_pinned_checkout_is_canonicalized() {
        // Nothing binds it: the ignored member is ignored, number and all.
        assert_eq!(decide(None), (Verdict::Allow, vec![]));
        // A digest is pinned, and this checkout has no RFC 8785 form to compare: refused at the number, never
        // compared over bytes another canonicalizer would not write.
        let refused = (Verdict::Deny, vec![(ReasonCode::Malformed, "/checkout/exchange_rate".to_owned())]);
        assert_eq!(decide(Some("oxef9T3elDT1Qkro5KAh-i0LD4eizWSuny1iAIZCMO0")), refused);
    }
}
