//! Attestations (`curbi-attest-v1.`) and receipts (`curbi-receipt-v1.`): JSON payloads written deterministically by
//! Rust, signed with Ed25519 over `domain ‖ payload bytes`, and carried in one compact string form each:
//!
//! ```text
//! curbi-receipt-v1.<base64url payload>.<base64url signature>.<kid>
//! ```
//!
//! Verifiers check the signature over the exact payload bytes before parsing them, and never re-canonicalize:
//! digests, duplicates and conflicts are all taken over the signed bytes (docs/PROOF.md §Envelopes).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use sha2::{Digest, Sha256};

use super::keys::{MAX_KID_LEN, MAX_UNIX_SECONDS};
use crate::ed25519::{SIGNATURE_LEN, SignatureError, SigningKey, VerifyingKey};
use crate::encoding::{decode_url, encode_url, hex};
use crate::money::{Currency, MAX_SAFE};

/// The attestation signing domain: the signed message is this prefix followed by the payload bytes.
pub const ATTEST_DOMAIN: &str = "curbi-attest-v1.";
/// The receipt signing domain.
pub const RECEIPT_DOMAIN: &str = "curbi-receipt-v1.";
/// The browser gate result signing domain (docs/PROOF.md §Browser gate proofs).
pub const GATE_RESULT_DOMAIN: &str = "curbi-gate-result-v1.";
/// Longest compact envelope accepted, in bytes.
pub const MAX_ENVELOPE_BYTES: usize = 16 * 1024;
/// Longest text member of a payload (tenant, idempotency key, agent, operation, resource, grant id), in bytes.
pub const MAX_TEXT_BYTES: usize = 256;

/// Which of the two envelopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Attestation,
    Receipt,
    /// A browser gate's signed decision (`proof::browser_gate`).
    GateResult,
}

impl Kind {
    /// The signing domain, which is also the start of the compact form.
    pub fn domain(self) -> &'static str {
        match self {
            Kind::Attestation => ATTEST_DOMAIN,
            Kind::Receipt => RECEIPT_DOMAIN,
            Kind::GateResult => GATE_RESULT_DOMAIN,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Attestation => "attestation",
            Kind::Receipt => "receipt",
            Kind::GateResult => "gate result",
        }
    }

    fn with_article(self) -> &'static str {
        match self {
            Kind::Attestation => "an attestation",
            Kind::Receipt => "a receipt",
            Kind::GateResult => "a gate result",
        }
    }
}

/// Why a compact envelope or its payload could not be read. The message names the part; callers attach a path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EnvelopeError(pub String);

fn bad(msg: impl Into<String>) -> EnvelopeError {
    EnvelopeError(msg.into())
}

/// A compact envelope as read from text: payload bytes, signature and key id. Nothing is verified or parsed yet.
#[derive(Clone, PartialEq, Eq)]
pub struct Envelope {
    kind: Kind,
    payload: Vec<u8>,
    signature: [u8; SIGNATURE_LEN],
    kid: String,
}

impl Envelope {
    /// Reads the compact form `<domain><base64url payload>.<base64url signature>.<kid>`: the domain of `kind`, a
    /// non-empty canonical unpadded base64url payload, a canonical base64url signature of exactly 64 bytes, and a
    /// kid of 1 to 128 visible ASCII characters (which may itself contain dots).
    pub fn parse(kind: Kind, text: &str) -> Result<Envelope, EnvelopeError> {
        if text.len() > MAX_ENVELOPE_BYTES {
            return Err(bad(format!("{} is {} bytes, more than {MAX_ENVELOPE_BYTES}", kind.name(), text.len())));
        }
        let Some(rest) = text.strip_prefix(kind.domain()) else {
            let other = [Kind::Attestation, Kind::Receipt, Kind::GateResult]
                .into_iter()
                .find(|o| *o != kind && text.starts_with(o.domain()));
            return Err(match other {
                Some(other) => bad(format!("{} where {} belongs", other.with_article(), kind.with_article())),
                None => bad(format!("{} starts with \"{}\"", kind.with_article(), kind.domain())),
            });
        };
        let mut parts = rest.splitn(3, '.');
        let (Some(payload), Some(signature), Some(kid)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(bad("the compact form is <domain><payload>.<signature>.<kid>"));
        };
        let payload = decode_url(payload).ok_or_else(|| bad("payload is not canonical unpadded base64url"))?;
        if payload.is_empty() {
            return Err(bad("payload is empty"));
        }
        let signature = decode_url(signature).ok_or_else(|| bad("signature is not canonical unpadded base64url"))?;
        let signature: [u8; SIGNATURE_LEN] = signature
            .as_slice()
            .try_into()
            .map_err(|_| bad(format!("signature is {} bytes, not {SIGNATURE_LEN}", signature.len())))?;
        check_kid(kid)?;
        Ok(Envelope { kind, payload, signature, kid: kid.to_string() })
    }

    /// Signs `payload` with `key` and wraps it under `kid`.
    pub fn sign(kind: Kind, payload: Vec<u8>, key: &SigningKey, kid: &str) -> Result<Envelope, EnvelopeError> {
        check_kid(kid)?;
        if payload.is_empty() {
            return Err(bad("payload is empty"));
        }
        let signature = key.sign(&signed_message(kind, &payload));
        Ok(Envelope { kind, payload, signature, kid: kid.to_string() })
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The exact payload bytes, as signed.
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    pub fn signature(&self) -> &[u8; SIGNATURE_LEN] {
        &self.signature
    }

    /// The key id the signer names (a lookup hint; the signature is what binds the key).
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The signed bytes: the domain followed by the payload.
    pub fn signed_bytes(&self) -> Vec<u8> {
        signed_message(self.kind, &self.payload)
    }

    /// SHA-256 of the signed bytes: the identity of the statement for digests, duplicates and conflicts (never the
    /// signature bytes).
    pub fn digest(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.kind.domain().as_bytes());
        h.update(&self.payload);
        h.finalize().into()
    }

    /// `verify_strict` of the signature over the signed bytes.
    pub fn verify(&self, key: &VerifyingKey) -> Result<(), SignatureError> {
        key.verify(&self.signed_bytes(), &self.signature)
    }

    /// The compact form.
    pub fn to_compact(&self) -> String {
        format!("{}{}.{}.{}", self.kind.domain(), encode_url(&self.payload), encode_url(&self.signature), self.kid)
    }

    /// Parses the payload as an attestation (after the signature verified).
    pub fn attestation(&self) -> Result<Attestation, EnvelopeError> {
        if self.kind != Kind::Attestation {
            return Err(bad("not an attestation"));
        }
        Attestation::from_payload(&self.payload)
    }

    /// Parses the payload as a receipt (after the signature verified).
    pub fn receipt(&self) -> Result<Receipt, EnvelopeError> {
        if self.kind != Kind::Receipt {
            return Err(bad("not a receipt"));
        }
        Receipt::from_payload(&self.payload)
    }
}

impl fmt::Debug for Envelope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Envelope")
            .field("kind", &self.kind)
            .field("payload", &String::from_utf8_lossy(&self.payload))
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

fn signed_message(kind: Kind, payload: &[u8]) -> Vec<u8> {
    let domain = kind.domain().as_bytes();
    let mut m = Vec::with_capacity(domain.len() + payload.len());
    m.extend_from_slice(domain);
    m.extend_from_slice(payload);
    m
}

fn check_kid(kid: &str) -> Result<(), EnvelopeError> {
    if kid.is_empty() || kid.len() > MAX_KID_LEN || !kid.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad(format!("kid must be 1 to {MAX_KID_LEN} visible ASCII characters")));
    }
    Ok(())
}

/// The outcome a receipt records. UNKNOWN outcomes never produce a receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Status {
    #[serde(rename = "DONE")]
    Done,
    #[serde(rename = "FAILED")]
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Done => "DONE",
            Status::Failed => "FAILED",
        }
    }
}

/// A grant's limits as an attestation carries them (minor units of `currency`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Limits {
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "some")]
    pub max_amount: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "some")]
    pub confirmation_threshold: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "some")]
    pub currency: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "some")]
    pub max_count: Option<i64>,
}

impl Limits {
    fn check(&self) -> Result<(), EnvelopeError> {
        for (v, name) in
            [(self.max_amount, "limits.maxAmount"), (self.confirmation_threshold, "limits.confirmationThreshold")]
        {
            if let Some(v) = v {
                check_amount(v, name)?;
            }
        }
        match &self.currency {
            Some(c) => check_currency(c, "limits.currency")?,
            None if self.max_amount.is_some() || self.confirmation_threshold.is_some() => {
                return Err(bad("limits.currency is required with an amount limit"));
            }
            None => {}
        }
        if self.max_count.is_some_and(|n| !(1..=MAX_SAFE).contains(&n)) {
            return Err(bad("limits.maxCount must be an integer from 1"));
        }
        Ok(())
    }
}

/// An attestation: permission, signed before it runs, for one exact mutation under a grant's limits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Attestation {
    pub tenant: String,
    pub idempotency_key: String,
    pub agent: String,
    pub operation: String,
    pub resource: String,
    /// Minor units of `currency`; present together with `currency` or not at all.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "some")]
    pub amount: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "some")]
    pub currency: Option<String>,
    #[serde(deserialize_with = "crate::json::object")]
    pub limits: Limits,
    /// The grant's id, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "some")]
    pub grant: Option<String>,
    /// Issued at, Unix seconds.
    pub iat: i64,
    /// The permission lapses at this Unix time (exclusive).
    pub exp: i64,
}

/// A receipt: the issuer's signed statement that the provider confirmed exactly the attested mutation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Receipt {
    pub tenant: String,
    pub idempotency_key: String,
    pub agent: String,
    pub operation: String,
    pub resource: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "some")]
    pub amount: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "some")]
    pub currency: Option<String>,
    pub status: Status,
    /// Lowercase hex SHA-256 of the attestation's signed bytes.
    pub attestation: String,
    /// Lowercase hex SHA-256 of the provider evidence bytes, as the gate received them.
    pub evidence: String,
    pub iat: i64,
    /// Fresh-mode verification refuses the receipt from this Unix time on.
    pub exp: i64,
}

/// Refuses an explicit `null` for an optional member: absent is the only way to say "none".
fn some<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

fn check_text(s: &str, name: &str) -> Result<(), EnvelopeError> {
    if s.is_empty() || s.len() > MAX_TEXT_BYTES || s.chars().any(char::is_control) {
        return Err(bad(format!("{name} must be 1 to {MAX_TEXT_BYTES} bytes without control characters")));
    }
    Ok(())
}

/// The five texts both envelopes carry, in payload order: tenant, idempotency key, agent, operation, resource.
fn check_subject(texts: [&str; 5]) -> Result<(), EnvelopeError> {
    const NAMES: [&str; 5] = ["tenant", "idempotencyKey", "agent", "operation", "resource"];
    texts.iter().zip(NAMES).try_for_each(|(text, name)| check_text(text, name))
}

fn check_amount(v: i64, name: &str) -> Result<(), EnvelopeError> {
    if !(0..=MAX_SAFE).contains(&v) {
        return Err(bad(format!("{name} must be whole minor units from 0 to 2^53 - 1")));
    }
    Ok(())
}

/// An uppercase ISO 4217 code with a minor unit (`USD`, `JPY`, `KWD`).
pub fn check_currency(c: &str, name: &str) -> Result<(), EnvelopeError> {
    match Currency::parse(c) {
        Ok(cur) if cur.code() == c => Ok(()),
        _ => Err(bad(format!("{name} must be an uppercase ISO 4217 code with a minor unit"))),
    }
}

fn check_time(t: i64, name: &str) -> Result<(), EnvelopeError> {
    if !(0..=MAX_UNIX_SECONDS).contains(&t) {
        return Err(bad(format!("{name} must be Unix seconds from 0 to {MAX_UNIX_SECONDS}")));
    }
    Ok(())
}

fn check_money(amount: Option<i64>, currency: Option<&str>) -> Result<(), EnvelopeError> {
    match (amount, currency) {
        (Some(a), Some(c)) => {
            check_amount(a, "amount")?;
            check_currency(c, "currency")
        }
        (None, None) => Ok(()),
        _ => Err(bad("amount and currency come together or not at all")),
    }
}

fn check_window(iat: i64, exp: i64) -> Result<(), EnvelopeError> {
    check_time(iat, "iat")?;
    check_time(exp, "exp")?;
    if exp <= iat {
        return Err(bad("exp must be later than iat"));
    }
    Ok(())
}

fn check_digest(s: &str, name: &str) -> Result<(), EnvelopeError> {
    if s.len() != 64 || !s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        return Err(bad(format!("{name} must be 64 lowercase hex digits (SHA-256)")));
    }
    Ok(())
}

fn read_payload<'a, T: Deserialize<'a>>(bytes: &'a [u8], what: &str) -> Result<T, EnvelopeError> {
    // serde's derive refuses repeated and unknown members, serde_json refuses floats for integers, and the payload
    // and its `limits` must be objects: the derive alone would also take positional arrays (docs/PROOF.md).
    crate::json::from_object_slice(bytes).map_err(|e| bad(format!("{what} payload: {e}")))
}

fn write_payload<T: Serialize>(value: &T) -> Vec<u8> {
    // Plain structs of strings and integers: serialization cannot fail, and the member order is the struct's.
    serde_json::to_vec(value).unwrap_or_default()
}

impl Attestation {
    /// Reads and checks an attestation payload.
    pub fn from_payload(bytes: &[u8]) -> Result<Attestation, EnvelopeError> {
        let a: Attestation = read_payload(bytes, "attestation")?;
        a.check()?;
        Ok(a)
    }

    /// Every rule of docs/PROOF.md §Envelopes on the members.
    pub fn check(&self) -> Result<(), EnvelopeError> {
        check_subject([&self.tenant, &self.idempotency_key, &self.agent, &self.operation, &self.resource])?;
        check_money(self.amount, self.currency.as_deref())?;
        self.limits.check()?;
        if let Some(g) = &self.grant {
            check_text(g, "grant")?;
        }
        check_window(self.iat, self.exp)
    }

    /// The payload bytes: compact JSON in the struct's member order, absent options left out.
    pub fn to_payload(&self) -> Vec<u8> {
        write_payload(self)
    }
}

impl Receipt {
    /// Reads and checks a receipt payload.
    pub fn from_payload(bytes: &[u8]) -> Result<Receipt, EnvelopeError> {
        let r: Receipt = read_payload(bytes, "receipt")?;
        r.check()?;
        Ok(r)
    }

    /// Every rule of docs/PROOF.md §Envelopes on the members.
    pub fn check(&self) -> Result<(), EnvelopeError> {
        check_subject([&self.tenant, &self.idempotency_key, &self.agent, &self.operation, &self.resource])?;
        check_money(self.amount, self.currency.as_deref())?;
        check_digest(&self.attestation, "attestation")?;
        check_digest(&self.evidence, "evidence")?;
        check_window(self.iat, self.exp)
    }

    /// The payload bytes: compact JSON in the struct's member order, absent options left out.
    pub fn to_payload(&self) -> Vec<u8> {
        write_payload(self)
    }

    /// Whether `attestation` (an envelope whose signature verified, and its parsed payload) is the permission this
    /// receipt completes: its signed-bytes digest is the one bound here, the tenant, idempotency key, agent,
    /// operation, resource, amount and currency are equal, and the receipt was not issued before it.
    pub fn binds(&self, envelope: &Envelope, attestation: &Attestation) -> Result<(), &'static str> {
        if self.attestation != hex(&envelope.digest()) {
            return Err("the receipt binds another attestation (its digest differs)");
        }
        if self.tenant != attestation.tenant || self.idempotency_key != attestation.idempotency_key {
            return Err("tenant or idempotency key differ from the attestation's");
        }
        if self.agent != attestation.agent
            || self.operation != attestation.operation
            || self.resource != attestation.resource
        {
            return Err("agent, operation or resource differ from the attestation's");
        }
        if self.amount != attestation.amount || self.currency != attestation.currency {
            return Err("amount or currency differ from the attestation's");
        }
        if self.iat < attestation.iat {
            return Err("the receipt was issued before its attestation");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SigningKey {
        SigningKey::from_seed(&[7; 32])
    }

    fn receipt() -> Receipt {
        Receipt {
            tenant: "acme".into(),
            idempotency_key: "k1".into(),
            agent: "agent:support".into(),
            operation: "billing.refund".into(),
            resource: "charge:ch_1001".into(),
            amount: Some(5000),
            currency: Some("USD".into()),
            status: Status::Done,
            attestation: "00".repeat(32),
            evidence: "ab".repeat(32),
            iat: 100,
            exp: 200,
        }
    }

    #[test]
    fn payloads_are_deterministic_and_round_trip() {
        let r = receipt();
        let bytes = r.to_payload();
        let text = String::from_utf8(bytes.clone()).expect("utf-8");
        assert!(text.starts_with(r#"{"tenant":"acme","idempotencyKey":"k1","agent":"agent:support","#), "{text}");
        assert!(text.contains(r#""amount":5000,"currency":"USD","status":"DONE","#), "{text}");
        assert_eq!(Receipt::from_payload(&bytes), Ok(r));
        let no_amount = Receipt { amount: None, currency: None, ..receipt() };
        assert!(!String::from_utf8(no_amount.to_payload()).expect("utf-8").contains("amount"));
    }

    #[test]
    fn compact_form_signs_verifies_and_parses() {
        let env = Envelope::sign(Kind::Receipt, receipt().to_payload(), &key(), "k.1").expect("signs");
        let text = env.to_compact();
        assert!(text.starts_with(RECEIPT_DOMAIN));
        let back = Envelope::parse(Kind::Receipt, &text).expect("parses");
        assert_eq!(back, env);
        assert_eq!(back.kid(), "k.1");
        assert_eq!(back.verify(&key().verifying_key()), Ok(()));
        assert_eq!(back.receipt(), Ok(receipt()));
        // The same payload under the other domain is another message.
        let as_attestation = format!("{ATTEST_DOMAIN}{}", &text[RECEIPT_DOMAIN.len()..]);
        let other = Envelope::parse(Kind::Attestation, &as_attestation).expect("parses");
        assert_eq!(other.verify(&key().verifying_key()), Err(SignatureError::Invalid));
        assert_ne!(other.digest(), env.digest());
    }

    #[test]
    fn compact_form_is_strict() {
        let text = Envelope::sign(Kind::Receipt, b"{}".to_vec(), &key(), "kid").expect("signs").to_compact();
        let (payload, rest) = text[RECEIPT_DOMAIN.len()..].split_once('.').expect("dot");
        let (sig, _) = rest.split_once('.').expect("dot");
        let bad_inputs = [
            format!("{ATTEST_DOMAIN}{payload}.{sig}.kid"),
            format!("{RECEIPT_DOMAIN}{payload}.{sig}"),
            format!("{RECEIPT_DOMAIN}{payload}={sig}.kid"),
            format!("{RECEIPT_DOMAIN}.{sig}.kid"),
            format!("{RECEIPT_DOMAIN}{payload}.{}.kid", &sig[..sig.len() - 2]),
            format!("{RECEIPT_DOMAIN}{payload}.{sig}."),
            format!("{RECEIPT_DOMAIN}{payload}.{sig}.a b"),
            format!("{RECEIPT_DOMAIN}{payload}.{sig}.{}", "k".repeat(129)),
            format!(" {text}"),
        ];
        for input in bad_inputs {
            assert!(Envelope::parse(Kind::Receipt, &input).is_err(), "{input}");
        }
        let wrong = Envelope::parse(Kind::Receipt, &format!("{ATTEST_DOMAIN}{payload}.{sig}.kid"));
        assert_eq!(wrong.map_err(|e| e.0), Err("an attestation where a receipt belongs".to_string()));
    }

    #[test]
    fn payload_rules() {
        let cases: Vec<(&str, Receipt)> = vec![
            ("empty tenant", Receipt { tenant: String::new(), ..receipt() }),
            ("amount without currency", Receipt { currency: None, ..receipt() }),
            ("lowercase currency", Receipt { currency: Some("usd".into()), ..receipt() }),
            ("negative amount", Receipt { amount: Some(-1), ..receipt() }),
            ("exp before iat", Receipt { exp: 100, ..receipt() }),
            ("digest", Receipt { evidence: "AB".repeat(32), ..receipt() }),
            ("control", Receipt { resource: "a\nb".into(), ..receipt() }),
        ];
        for (what, r) in cases {
            assert!(Receipt::from_payload(&r.to_payload()).is_err(), "{what}");
        }
        for text in [
            r#"{"tenant":"a"}"#,
            &String::from_utf8(receipt().to_payload()).expect("utf-8").replace("5000", "5000.0"),
            &String::from_utf8(receipt().to_payload())
                .expect("utf-8")
                .replace(r#""iat":100"#, r#""iat":100,"iat":100"#),
            &String::from_utf8(receipt().to_payload()).expect("utf-8").replace(r#""iat":100"#, r#""iat":100,"x":1"#),
            &String::from_utf8(receipt().to_payload()).expect("utf-8").replace("5000", "null"),
        ] {
            assert!(Receipt::from_payload(text.as_bytes()).is_err(), "{text}");
        }
    }
}
