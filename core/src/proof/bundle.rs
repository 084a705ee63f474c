//! The bundle `curbi.proof/0.1`, the unit that travels: receipts (each with its optional attestation, its leaf index
//! and inclusion proof), the head (a signed checkpoint note), consistency proofs from older heads, and optionally
//! keys, which a verifier never trusts unless its caller opts in. Field by field in docs/PROOF.md §Bundle.
//!
//! [`Bundle`] is the document as written; [`ParsedBundle`] is a bundle whose every member has been read strictly
//! (compact envelopes, checkpoint notes, 32-byte proof hashes, key set), ready for verification. Nothing here checks a
//! signature or a proof.

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer};
use serde_json::{Map, Value};

use super::encoding::{decode_std, encode_std};
use super::envelope::{Envelope, Kind};
use super::json::{element, member, type_name};
use super::keys::KeySet;
use super::merkle::{HASH_LEN, Hash, MAX_PROOF_LEN};
use super::note::{self, SignedCheckpoint};
use crate::error::{Error, ErrorCode};

/// The `object` member of every bundle.
pub const BUNDLE_OBJECT: &str = "curbi.proof/0.1";
/// Most receipts one bundle may carry.
pub const MAX_RECEIPTS: usize = 100_000;
/// Most older heads one bundle may carry consistency proofs from.
pub const MAX_CONSISTENCY: usize = 64;

const MEMBERS: [&str; 5] = ["object", "head", "receipts", "consistency", "keys"];
const ITEM_MEMBERS: [&str; 4] = ["receipt", "attestation", "index", "proof"];
const OLDER_MEMBERS: [&str; 2] = ["head", "proof"];

/// A bundle as written: texts and hashes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bundle {
    /// The head: a signed Curbi checkpoint note (text and signature lines).
    pub head: String,
    pub receipts: Vec<BundleItem>,
    /// Consistency proofs from older heads to the head.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub consistency: Vec<OlderHead>,
    /// A JWKS the issuer offers. Never trusted unless the verifier's caller opts in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<Value>,
}

/// One receipt with its proof of inclusion under the head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BundleItem {
    /// The compact receipt, which is also the exact log entry.
    pub receipt: String,
    /// The compact attestation the receipt completes, when attached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attestation: Option<String>,
    /// Leaf index in the log.
    pub index: u64,
    /// RFC 9162 inclusion proof for the head's tree size, leaf level first.
    #[serde(serialize_with = "hashes")]
    pub proof: Vec<Hash>,
}

/// An older head and the RFC 9162 consistency proof from its size to the head's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OlderHead {
    pub head: String,
    #[serde(serialize_with = "hashes")]
    pub proof: Vec<Hash>,
}

fn hashes<S: Serializer>(proof: &[Hash], s: S) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(proof.len()))?;
    for h in proof {
        seq.serialize_element(&encode_std(h))?;
    }
    seq.end()
}

#[derive(Serialize)]
struct Wire<'a> {
    object: &'static str,
    #[serde(flatten)]
    bundle: &'a Bundle,
}

impl Bundle {
    /// The JSON document (`object` first, then the members in the order above).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(Wire { object: BUNDLE_OBJECT, bundle: self }).unwrap_or(Value::Null)
    }

    /// Compact JSON.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string(&Wire { object: BUNDLE_OBJECT, bundle: self }).unwrap_or_default()
    }
}

/// A receipt entry read strictly.
#[derive(Debug, Clone)]
pub struct ParsedItem {
    /// The compact receipt text: the log entry whose leaf hash is recomputed.
    pub text: String,
    pub receipt: Envelope,
    pub attestation: Option<Envelope>,
    pub index: u64,
    pub proof: Vec<Hash>,
}

/// An older head read strictly.
#[derive(Debug, Clone)]
pub struct ParsedOlder {
    pub text: String,
    pub head: SignedCheckpoint,
    pub proof: Vec<Hash>,
}

/// A bundle whose every member was read strictly; signatures and proofs are still unchecked.
#[derive(Debug, Clone)]
pub struct ParsedBundle {
    pub head_text: String,
    pub head: SignedCheckpoint,
    pub items: Vec<ParsedItem>,
    pub older: Vec<ParsedOlder>,
    /// The bundle's own key set, if it carries one (trusted only on the caller's opt-in).
    pub keys: Option<KeySet>,
}

fn malformed(code: ErrorCode, path: impl Into<String>, message: impl Into<String>) -> Error {
    Error::new(code, path, message)
}

fn wrong_type(path: &str, expected: &str, got: &Value) -> Error {
    malformed(ErrorCode::InvalidType, path, format!("expected {expected}, got {}", type_name(got)))
}

fn object<'a>(v: &'a Value, path: &str, allowed: &[&str], what: &str) -> Result<&'a Map<String, Value>, Error> {
    let obj = v.as_object().ok_or_else(|| wrong_type(path, what, v))?;
    if let Some(name) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(malformed(
            ErrorCode::UnknownField,
            member(path, name),
            format!("\"{name}\" is not a member of {what} (allowed: {})", allowed.join(", ")),
        ));
    }
    Ok(obj)
}

fn required<'a>(obj: &'a Map<String, Value>, path: &str, name: &str) -> Result<&'a Value, Error> {
    obj.get(name)
        .ok_or_else(|| malformed(ErrorCode::MissingField, member(path, name), format!("\"{name}\" is required")))
}

fn string<'a>(v: &'a Value, path: &str) -> Result<&'a str, Error> {
    v.as_str().ok_or_else(|| wrong_type(path, "a string", v))
}

/// Reads a signed Curbi checkpoint note at `path`.
pub fn read_head(v: &Value, path: &str) -> Result<(String, SignedCheckpoint), Error> {
    let text = string(v, path)?;
    let signed = note::parse_curbi_checkpoint(text)
        .map_err(|e| malformed(ErrorCode::InvalidNote, path, format!("not a signed Curbi checkpoint: {e}")))?;
    Ok((text.to_string(), signed))
}

/// Reads a proof: an array of at most 64 canonical standard base64 strings of exactly 32 bytes.
fn read_proof(v: &Value, path: &str) -> Result<Vec<Hash>, Error> {
    let list = v.as_array().ok_or_else(|| wrong_type(path, "an array of base64 hashes", v))?;
    if list.len() > MAX_PROOF_LEN {
        return Err(malformed(
            ErrorCode::TooManyItems,
            path,
            format!("{} proof elements, more than {MAX_PROOF_LEN}", list.len()),
        ));
    }
    let mut proof = Vec::with_capacity(list.len());
    for (i, h) in list.iter().enumerate() {
        let at = element(path, i);
        let text = string(h, &at)?;
        let bytes = decode_std(text).ok_or_else(|| {
            malformed(ErrorCode::InvalidValue, at.clone(), "a proof hash is canonical standard base64 (with padding)")
        })?;
        let hash = Hash::try_from(bytes.as_slice()).map_err(|_| {
            malformed(
                ErrorCode::InvalidValue,
                at.clone(),
                format!("a proof hash is {HASH_LEN} bytes, not {}", bytes.len()),
            )
        })?;
        proof.push(hash);
    }
    Ok(proof)
}

fn read_envelope(v: &Value, path: &str, kind: Kind) -> Result<Envelope, Error> {
    let text = string(v, path)?;
    Envelope::parse(kind, text).map_err(|e| malformed(ErrorCode::InvalidValue, path, e.0))
}

fn read_item(v: &Value, path: &str) -> Result<ParsedItem, Error> {
    let obj = object(v, path, &ITEM_MEMBERS, "a bundle receipt")?;
    let receipt_at = member(path, "receipt");
    let receipt_value = required(obj, path, "receipt")?;
    let receipt = read_envelope(receipt_value, &receipt_at, Kind::Receipt)?;
    let attestation = match obj.get("attestation") {
        Some(a) => Some(read_envelope(a, &member(path, "attestation"), Kind::Attestation)?),
        None => None,
    };
    let index_at = member(path, "index");
    let index_value = required(obj, path, "index")?;
    let index = match index_value {
        Value::Number(n) if n.is_u64() => n.as_u64().unwrap_or_default(),
        Value::Number(n) if n.is_i64() => {
            return Err(malformed(ErrorCode::OutOfRange, index_at, "a leaf index is not negative"));
        }
        other => return Err(wrong_type(&index_at, "an integer leaf index", other)),
    };
    let proof = read_proof(required(obj, path, "proof")?, &member(path, "proof"))?;
    Ok(ParsedItem { text: receipt_value.as_str().unwrap_or_default().to_string(), receipt, attestation, index, proof })
}

impl ParsedBundle {
    /// Reads a bundle document strictly. `path` is the pointer of the bundle in the caller's document (for example
    /// `/bundle`); every error carries a stable code and a pointer below it.
    pub fn from_value(v: &Value, path: &str) -> Result<ParsedBundle, Error> {
        let obj = object(v, path, &MEMBERS, "a curbi.proof/0.1 bundle")?;
        let kind_at = member(path, "object");
        match string(required(obj, path, "object")?, &kind_at)? {
            BUNDLE_OBJECT => {}
            other => {
                return Err(malformed(
                    ErrorCode::InvalidEnum,
                    kind_at,
                    format!("\"object\" must be \"{BUNDLE_OBJECT}\", not \"{other}\""),
                ));
            }
        }
        let (head_text, head) = read_head(required(obj, path, "head")?, &member(path, "head"))?;
        let receipts_at = member(path, "receipts");
        let receipts = required(obj, path, "receipts")?;
        let list = receipts.as_array().ok_or_else(|| wrong_type(&receipts_at, "an array of receipts", receipts))?;
        if list.is_empty() {
            return Err(malformed(ErrorCode::TooFewItems, receipts_at, "a bundle carries at least one receipt"));
        }
        if list.len() > MAX_RECEIPTS {
            return Err(malformed(
                ErrorCode::TooManyItems,
                receipts_at,
                format!("{} receipts, more than {MAX_RECEIPTS}", list.len()),
            ));
        }
        let items = list
            .iter()
            .enumerate()
            .map(|(i, r)| read_item(r, &element(&receipts_at, i)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut older = Vec::new();
        if let Some(c) = obj.get("consistency") {
            let at = member(path, "consistency");
            let list = c.as_array().ok_or_else(|| wrong_type(&at, "an array of older heads", c))?;
            if list.len() > MAX_CONSISTENCY {
                return Err(malformed(
                    ErrorCode::TooManyItems,
                    at,
                    format!("{} older heads, more than {MAX_CONSISTENCY}", list.len()),
                ));
            }
            for (i, entry) in list.iter().enumerate() {
                let entry_at = element(&at, i);
                let o = object(entry, &entry_at, &OLDER_MEMBERS, "a consistency entry")?;
                let (text, head) = read_head(required(o, &entry_at, "head")?, &member(&entry_at, "head"))?;
                let proof = read_proof(required(o, &entry_at, "proof")?, &member(&entry_at, "proof"))?;
                older.push(ParsedOlder { text, head, proof });
            }
        }
        let keys = match obj.get("keys") {
            Some(k) => Some(KeySet::from_value(k).map_err(|e| {
                let sub = if e.path.is_empty() { String::new() } else { e.path.clone() };
                Error::new(e.code, format!("{}{sub}", member(path, "keys")), e.message)
            })?),
            None => None,
        };
        Ok(ParsedBundle { head_text, head, items, older, keys })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: Value) -> (ErrorCode, String) {
        match ParsedBundle::from_value(&v, "/bundle") {
            Ok(_) => (ErrorCode::Internal, "accepted".into()),
            Err(e) => (e.code, e.path),
        }
    }

    #[test]
    fn structure_errors_have_codes_and_paths() {
        assert_eq!(err(json!([])), (ErrorCode::InvalidType, "/bundle".into()));
        assert_eq!(err(json!({"object": "curbi.proof/0.2"})), (ErrorCode::InvalidEnum, "/bundle/object".into()));
        assert_eq!(err(json!({"object": BUNDLE_OBJECT, "x": 1})), (ErrorCode::UnknownField, "/bundle/x".into()));
        assert_eq!(err(json!({"object": BUNDLE_OBJECT})), (ErrorCode::MissingField, "/bundle/head".into()));
        assert_eq!(
            err(json!({"object": BUNDLE_OBJECT, "head": "x\n", "receipts": []})),
            (ErrorCode::InvalidNote, "/bundle/head".into())
        );
    }

    #[test]
    fn proofs_are_strict() {
        let h = encode_std(&[1; 32]);
        assert_eq!(read_proof(&json!([h]), "/p").map(|p| p.len()), Ok(1));
        assert_eq!(read_proof(&json!([encode_std(&[1; 31])]), "/p").map_err(|e| e.path), Err("/p/0".into()));
        assert_eq!(
            read_proof(&json!([h.trim_end_matches('=')]), "/p").map_err(|e| e.code),
            Err(ErrorCode::InvalidValue)
        );
        assert_eq!(read_proof(&json!(vec![h; 65]), "/p").map_err(|e| e.code), Err(ErrorCode::TooManyItems));
        assert_eq!(read_proof(&json!("x"), "/p").map_err(|e| e.code), Err(ErrorCode::InvalidType));
    }
}
