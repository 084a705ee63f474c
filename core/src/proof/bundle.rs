//! The bundle `curbi.proof/0.1`, the unit that travels: receipts (each with its optional attestation, its leaf index
//! and inclusion proof), the head (a signed checkpoint note), consistency proofs from older heads, and optionally
//! keys, which a verifier never trusts unless its caller opts in. Field by field in docs/PROOF.md §Bundle.
//!
//! [`Bundle`] is the document as written; [`ParsedBundle`] is a bundle whose every member has been read strictly
//! (compact envelopes, checkpoint notes, 32-byte proof hashes, key set), ready for verification. Nothing here checks a
//! signature or a proof.

use std::borrow::Cow;

use serde::Serialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess};
use serde::ser::{SerializeSeq, Serializer};
use serde_json::{Map, Value};

use super::envelope::{Envelope, Kind};
use super::json::{Container, Shaped, Text, first_repeat, member_name, read_text, wrong_type, wrong_type_named};
use super::keys::KeySet;
use super::merkle::{HASH_LEN, Hash, MAX_PROOF_LEN};
use super::note::{self, SignedCheckpoint};
use crate::encoding::{decode_std, decode_std_array, encode_std};
use crate::error::{Error, ErrorCode};
use crate::pointer::{element, member};

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

fn unknown_member(path: &str, name: &str, allowed: &[&str], what: &str) -> Error {
    malformed(
        ErrorCode::UnknownField,
        member(path, name),
        format!("\"{name}\" is not a member of {what} (allowed: {})", allowed.join(", ")),
    )
}

fn object<'a>(v: &'a Value, path: &str, allowed: &[&str], what: &str) -> Result<&'a Map<String, Value>, Error> {
    let obj = v.as_object().ok_or_else(|| wrong_type(path, what, v))?;
    if let Some(name) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(unknown_member(path, name, allowed, what));
    }
    Ok(obj)
}

fn required<'a>(obj: &'a Map<String, Value>, path: &str, name: &str) -> Result<&'a Value, Error> {
    present(obj.get(name), path, name)
}

fn present<T>(v: Option<T>, path: &str, name: &str) -> Result<T, Error> {
    v.ok_or_else(|| missing(path, name))
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

/// Reads a `consistency` list at `at`: at most [`MAX_CONSISTENCY`] entries `{head, proof}`.
pub(crate) fn read_consistency(c: &Value, at: &str) -> Result<Vec<ParsedOlder>, Error> {
    let list = c.as_array().ok_or_else(|| wrong_type(at, "an array of older heads", c))?;
    Error::at_most(list.len(), MAX_CONSISTENCY, at, || {
        format!("{} older heads, more than {MAX_CONSISTENCY}", list.len())
    })?;
    let mut older = Vec::with_capacity(list.len());
    for (i, entry) in list.iter().enumerate() {
        let entry_at = element(at, i);
        let o = object(entry, &entry_at, &OLDER_MEMBERS, "a consistency entry")?;
        let (text, head) = read_head(required(o, &entry_at, "head")?, &member(&entry_at, "head"))?;
        let proof = read_proof(required(o, &entry_at, "proof")?, &member(&entry_at, "proof"))?;
        older.push(ParsedOlder { text, head, proof });
    }
    Ok(older)
}

/// Reads a leaf index at `at`: a JSON integer from 0.
pub(crate) fn read_index(v: &Value, at: &str) -> Result<u64, Error> {
    match v {
        Value::Number(n) if n.is_u64() => Ok(n.as_u64().unwrap_or_default()),
        Value::Number(n) if n.is_i64() => Err(malformed(ErrorCode::OutOfRange, at, "a leaf index is not negative")),
        other => Err(wrong_type(at, "an integer leaf index", other)),
    }
}

/// Reads a proof: an array of at most 64 canonical standard base64 strings of exactly 32 bytes.
pub(crate) fn read_proof(v: &Value, path: &str) -> Result<Vec<Hash>, Error> {
    let list = v.as_array().ok_or_else(|| wrong_type(path, PROOF, v))?;
    Error::at_most(list.len(), MAX_PROOF_LEN, path, || {
        format!("{} proof elements, more than {MAX_PROOF_LEN}", list.len())
    })?;
    let mut proof = Vec::with_capacity(list.len());
    for (i, h) in list.iter().enumerate() {
        // The pointer is made only for an error: a receipt carries a dozen or more hashes.
        let Some(text) = h.as_str() else { return Err(wrong_type(&element(path, i), "a string", h)) };
        proof.push(proof_hash(text).map_err(|m| malformed(ErrorCode::InvalidValue, element(path, i), m))?);
    }
    Ok(proof)
}

/// One proof hash: canonical standard base64 of exactly 32 bytes, or the message saying what it is instead.
fn proof_hash(text: &str) -> Result<Hash, String> {
    decode_std_array::<HASH_LEN>(text).ok_or_else(|| match decode_std(text).map(|b| b.len()) {
        Some(n) => format!("a proof hash is {HASH_LEN} bytes, not {n}"),
        None => "a proof hash is canonical standard base64 (with padding)".to_owned(),
    })
}

fn read_envelope(v: &Value, path: &str, kind: Kind) -> Result<Envelope, Error> {
    let text = string(v, path)?;
    Envelope::parse(kind, text).map_err(|e| malformed(ErrorCode::InvalidValue, path, e.0))
}

fn read_item(v: &Value, path: &str) -> Result<ParsedItem, Error> {
    let obj = object(v, path, &ITEM_MEMBERS, ITEM)?;
    let receipt_at = member(path, "receipt");
    let receipt_value = required(obj, path, "receipt")?;
    let receipt = read_envelope(receipt_value, &receipt_at, Kind::Receipt)?;
    let attestation = match obj.get("attestation") {
        Some(a) => Some(read_envelope(a, &member(path, "attestation"), Kind::Attestation)?),
        None => None,
    };
    let index_at = member(path, "index");
    let index_value = required(obj, path, "index")?;
    let index = read_index(index_value, &index_at)?;
    let proof = read_proof(required(obj, path, "proof")?, &member(path, "proof"))?;
    Ok(ParsedItem { text: receipt_value.as_str().unwrap_or_default().to_string(), receipt, attestation, index, proof })
}

/// A receipt list of `count` entries is at least one and at most [`MAX_RECEIPTS`] long.
fn check_count(count: usize, path: &str) -> Result<(), Error> {
    if count == 0 {
        return Err(malformed(ErrorCode::TooFewItems, path, "a bundle carries at least one receipt"));
    }
    if count > MAX_RECEIPTS {
        return Err(malformed(ErrorCode::TooManyItems, path, format!("{count} receipts, more than {MAX_RECEIPTS}")));
    }
    Ok(())
}

fn read_receipts(v: &Value, path: &str) -> Result<Vec<ParsedItem>, Error> {
    let list = v.as_array().ok_or_else(|| wrong_type(path, RECEIPTS, v))?;
    check_count(list.len(), path)?;
    list.iter().enumerate().map(|(i, r)| read_item(r, &element(path, i))).collect()
}

const BUNDLE: &str = "a curbi.proof/0.1 bundle";
const RECEIPTS: &str = "an array of receipts";
const ITEM: &str = "a bundle receipt";
const PROOF: &str = "an array of base64 hashes";

/// A bundle object's members as found, judged by [`Members::finish`] in one fixed order (unknown members, then
/// `object`, `head`, `receipts`, `consistency`, `keys`) whatever order the document writes them in, so the tree
/// reader and the streaming reader report the same first error.
#[derive(Default)]
struct Members<'a> {
    /// The first unknown member name in byte order (the order a parsed JSON object lists its names in).
    unknown: Option<String>,
    object: Option<&'a Value>,
    head: Option<&'a Value>,
    receipts: Option<Result<Vec<ParsedItem>, Error>>,
    consistency: Option<&'a Value>,
    keys: Option<&'a Value>,
}

impl Members<'_> {
    fn finish(self, path: &str) -> Result<ParsedBundle, Error> {
        // A browser gate proof under a JWKS: say what it needs rather than list its members as unknown.
        if self.object.and_then(Value::as_str) == Some(super::browser_gate::GATE_PROOF_OBJECT) {
            return Err(malformed(
                ErrorCode::InvalidEnum,
                member(path, "object"),
                format!(
                    "a {} wrapper verifies against a {} document as \"keys\", not a JWKS",
                    super::browser_gate::GATE_PROOF_OBJECT,
                    super::browser_gate::GATE_TRUST_OBJECT
                ),
            ));
        }
        if let Some(name) = &self.unknown {
            return Err(unknown_member(path, name, &MEMBERS, BUNDLE));
        }
        let kind_at = member(path, "object");
        match string(present(self.object, path, "object")?, &kind_at)? {
            BUNDLE_OBJECT => {}
            other => {
                return Err(malformed(
                    ErrorCode::InvalidEnum,
                    kind_at,
                    format!("\"object\" must be \"{BUNDLE_OBJECT}\", not \"{other}\""),
                ));
            }
        }
        let (head_text, head) = read_head(present(self.head, path, "head")?, &member(path, "head"))?;
        let items = present(self.receipts, path, "receipts")??;
        let older = match self.consistency {
            Some(c) => read_consistency(c, &member(path, "consistency"))?,
            None => Vec::new(),
        };
        let keys = match self.keys {
            Some(k) => Some(KeySet::from_value(k).map_err(|e| {
                let sub = if e.path.is_empty() { String::new() } else { e.path.clone() };
                Error::new(e.code, format!("{}{sub}", member(path, "keys")), e.message)
            })?),
            None => None,
        };
        Ok(ParsedBundle { head_text, head, items, older, keys })
    }
}

impl ParsedBundle {
    /// Reads a bundle document strictly. `path` is the pointer of the bundle in the caller's document (for example
    /// `/bundle`); every error carries a stable code and a pointer below it.
    pub fn from_value(v: &Value, path: &str) -> Result<ParsedBundle, Error> {
        let obj = v.as_object().ok_or_else(|| wrong_type(path, BUNDLE, v))?;
        let receipts_at = member(path, "receipts");
        Members {
            unknown: obj.keys().find(|k| !MEMBERS.contains(&k.as_str())).cloned(),
            object: obj.get("object"),
            head: obj.get("head"),
            receipts: obj.get("receipts").map(|r| read_receipts(r, &receipts_at)),
            consistency: obj.get("consistency"),
            keys: obj.get("keys"),
        }
        .finish(path)
    }

    /// [`ParsedBundle::from_value`] over JSON text, refusing repeated member names (`invalid_json`), without
    /// building the document's tree: receipts are read one at a time, so a large bundle costs about its parsed
    /// form and not also a `serde_json::Value` of it. The same document gives the same result (or first error) as
    /// `from_value`. `Err` is `invalid_json` when the text is not JSON.
    pub fn from_text(text: &str, path: &str) -> Result<ParsedBundle, Error> {
        if let Some(e) = first_repeat(text)? {
            return Err(Error::new(e.code, format!("{path}{}", e.path), e.message));
        }
        read_text(text, BundleSeed { path })?
    }
}

/// Streams a bundle at `path` into a [`ParsedBundle`] (or the first error, as [`ParsedBundle::from_value`] would
/// report it). Repeated member names must have been refused before (`json::first_repeat`): here the last wins.
pub(crate) struct BundleSeed<'a> {
    pub path: &'a str,
}

impl<'de> DeserializeSeed<'de> for BundleSeed<'_> {
    type Value = Result<ParsedBundle, Error>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let path = self.path;
        Ok(Shaped(self).deserialize(deserializer)?.unwrap_or_else(|got| Err(wrong_type_named(path, BUNDLE, got))))
    }
}

impl<'de> Container<'de> for BundleSeed<'_> {
    type Out = Result<ParsedBundle, Error>;

    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Result<Self::Out, &'static str>, A::Error> {
        let receipts_at = member(self.path, "receipts");
        let (mut object, mut head, mut consistency, mut keys) = (None, None, None, None);
        let mut found = Members::default();
        while let Some(name) = map.next_key::<String>()? {
            match name.as_str() {
                "object" => object = Some(map.next_value::<Value>()?),
                "head" => head = Some(map.next_value::<Value>()?),
                "consistency" => consistency = Some(map.next_value::<Value>()?),
                "keys" => keys = Some(map.next_value::<Value>()?),
                "receipts" => {
                    let read = map.next_value_seed(Shaped(ReceiptsSeed { path: &receipts_at }))?;
                    found.receipts =
                        Some(read.unwrap_or_else(|got| Err(wrong_type_named(&receipts_at, RECEIPTS, got))));
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    if found.unknown.as_ref().is_none_or(|first| name < *first) {
                        found.unknown = Some(name);
                    }
                }
            }
        }
        let members = Members {
            object: object.as_ref(),
            head: head.as_ref(),
            consistency: consistency.as_ref(),
            keys: keys.as_ref(),
            ..found
        };
        Ok(Ok(members.finish(self.path)))
    }
}

/// Streams the receipts array, each entry straight into a [`ParsedItem`] ([`ItemSeed`]), no `Value` built. After
/// the first bad entry, or past [`MAX_RECEIPTS`], the rest are only counted.
struct ReceiptsSeed<'a> {
    path: &'a str,
}

impl<'de> Container<'de> for ReceiptsSeed<'_> {
    type Out = Result<Vec<ParsedItem>, Error>;

    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Result<Self::Out, &'static str>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(MAX_RECEIPTS));
        let mut first_error = None;
        let mut count = 0usize;
        loop {
            if count < MAX_RECEIPTS && first_error.is_none() {
                let seed = Shaped(ItemSeed { list: self.path, i: count });
                let Some(entry) = seq.next_element_seed(seed)? else { break };
                match entry {
                    Ok(Ok(item)) => items.push(item),
                    Ok(Err(e)) => first_error = Some(e),
                    Err(got) => first_error = Some(wrong_type_named(&element(self.path, count), ITEM, got)),
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            count += 1;
        }
        Ok(Ok(check_count(count, self.path).and_then(|()| first_error.map_or(Ok(items), Err))))
    }
}

/// Streams receipt entry `i` of the list at `list` into a [`ParsedItem`]: the strings borrowed from the text, the
/// proof decoded as it is read. Its first error is [`read_item`]'s for the same entry as a `Value`: the members are
/// judged in that fixed order (an unknown member, the first in byte order; then `receipt`, `attestation`, `index`,
/// `proof`) whatever order they are written in, and the entry's pointer is written only for an error.
struct ItemSeed<'a> {
    list: &'a str,
    i: usize,
}

impl<'de> Container<'de> for ItemSeed<'_> {
    type Out = Result<ParsedItem, Error>;

    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Result<Self::Out, &'static str>, A::Error> {
        let mut found = ItemMembers::default();
        while let Some(name) = member_name(&mut map)? {
            match &*name {
                "receipt" => found.receipt = Some(map.next_value_seed(Shaped(Text))?),
                "attestation" => found.attestation = Some(map.next_value_seed(Shaped(Text))?),
                "index" => found.index = Some(map.next_value::<Value>()?),
                "proof" => found.proof = Some(map.next_value_seed(Shaped(ProofSeed))?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    if found.unknown.as_deref().is_none_or(|first| *name < *first) {
                        found.unknown = Some(name.into_owned());
                    }
                }
            }
        }
        Ok(Ok(found.finish(|| element(self.list, self.i))))
    }
}

/// A streamed receipt entry's members as found (each string or the type it was instead), judged by
/// [`ItemMembers::finish`].
#[derive(Default)]
struct ItemMembers<'de> {
    unknown: Option<String>,
    receipt: Option<Result<Cow<'de, str>, &'static str>>,
    attestation: Option<Result<Cow<'de, str>, &'static str>>,
    index: Option<Value>,
    proof: Option<Result<Result<Vec<Hash>, ProofFault>, &'static str>>,
}

impl<'de> ItemMembers<'de> {
    fn finish(self, at: impl Fn() -> String) -> Result<ParsedItem, Error> {
        if let Some(name) = self.unknown {
            return Err(unknown_member(&at(), &name, &ITEM_MEMBERS, ITEM));
        }
        let envelope = |text: Result<Cow<'de, str>, &str>, name: &str, kind: Kind| {
            let text = text.map_err(|got| wrong_type_named(&member(&at(), name), "a string", got))?;
            let envelope = Envelope::parse(kind, &text)
                .map_err(|e| malformed(ErrorCode::InvalidValue, member(&at(), name), e.0))?;
            Ok::<_, Error>((text, envelope))
        };
        let receipt = self.receipt.ok_or_else(|| missing(&at(), "receipt"))?;
        let (text, receipt) = envelope(receipt, "receipt", Kind::Receipt)?;
        let attestation = match self.attestation {
            Some(a) => Some(envelope(a, "attestation", Kind::Attestation)?.1),
            None => None,
        };
        let index = match self.index.ok_or_else(|| missing(&at(), "index"))? {
            Value::Number(n) if n.is_u64() => n.as_u64().unwrap_or_default(),
            other => read_index(&other, &member(&at(), "index"))?,
        };
        let proof = match self.proof.ok_or_else(|| missing(&at(), "proof"))? {
            Ok(read) => read.map_err(|fault| fault.error(&member(&at(), "proof")))?,
            Err(got) => return Err(wrong_type_named(&member(&at(), "proof"), PROOF, got)),
        };
        Ok(ParsedItem { text: text.into_owned(), receipt, attestation, index, proof })
    }
}

fn missing(path: &str, name: &str) -> Error {
    malformed(ErrorCode::MissingField, member(path, name), format!("\"{name}\" is required"))
}

/// Streams a proof array, each hash decoded as it is read; past [`MAX_PROOF_LEN`] elements, or after the first bad
/// one, the rest are only counted, so the error is [`read_proof`]'s (the count first).
struct ProofSeed;

/// What is wrong with a streamed proof, before its pointer is known.
enum ProofFault {
    TooMany(usize),
    NotText(usize, &'static str),
    Bad(usize, String),
}

impl ProofFault {
    fn error(self, path: &str) -> Error {
        match self {
            ProofFault::TooMany(n) => {
                malformed(ErrorCode::TooManyItems, path, format!("{n} proof elements, more than {MAX_PROOF_LEN}"))
            }
            ProofFault::NotText(i, got) => wrong_type_named(&element(path, i), "a string", got),
            ProofFault::Bad(i, message) => malformed(ErrorCode::InvalidValue, element(path, i), message),
        }
    }
}

impl<'de> Container<'de> for ProofSeed {
    type Out = Result<Vec<Hash>, ProofFault>;

    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Result<Self::Out, &'static str>, A::Error> {
        let mut proof = Vec::with_capacity(16);
        let mut fault = None;
        let mut count = 0usize;
        loop {
            if count < MAX_PROOF_LEN && fault.is_none() {
                let Some(hash) = seq.next_element_seed(Shaped(Text))? else { break };
                match hash.map(|text| proof_hash(&text)) {
                    Ok(Ok(hash)) => proof.push(hash),
                    Ok(Err(message)) => fault = Some(ProofFault::Bad(count, message)),
                    Err(got) => fault = Some(ProofFault::NotText(count, got)),
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            count += 1;
        }
        if count > MAX_PROOF_LEN {
            return Ok(Ok(Err(ProofFault::TooMany(count))));
        }
        Ok(Ok(fault.map_or(Ok(proof), Err)))
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
