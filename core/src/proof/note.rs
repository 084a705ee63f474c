//! C2SP signed notes (`signed-note` v1.0.0), `tlog-checkpoint` bodies and `tlog-cosignature` timestamped Ed25519
//! cosignatures (`cosignature/v1`), parsed strictly and never panicking on any input; plus the Curbi checkpoint: a
//! standard checkpoint whose origin starts with `curbi-checkpoint-v1.`, signed by the log key twice under the origin
//! as key name, once as a plain Ed25519 note signature and once as a cosignature that carries the signing time.

use std::fmt;

use super::merkle::Hash;
use crate::ed25519::{SignatureError, SigningKey, VerifyingKey};
use crate::encoding::{decode_std, encode_std, sha256};

/// Largest note accepted, in bytes (text and signature lines).
pub const MAX_NOTE_BYTES: usize = 64 * 1024;
/// Most signature lines accepted in one note (C2SP requires at least 16).
pub const MAX_SIGNATURES: usize = 32;
/// Longest key name or checkpoint origin, in bytes.
pub const MAX_KEY_NAME_BYTES: usize = 256;
/// Longest base64 signature on a signature line (room for post-quantum signatures of other signers).
pub const MAX_SIGNATURE_BASE64: usize = 8 * 1024;
/// Most checkpoint extension lines accepted.
pub const MAX_EXTENSION_LINES: usize = 16;
/// Every Curbi checkpoint origin starts with this: the checkpoint signing domain.
pub const CURBI_ORIGIN_PREFIX: &str = "curbi-checkpoint-v1.";
/// The header line of a `cosignature/v1` signed message.
pub const COSIGNATURE_V1_HEADER: &str = "cosignature/v1\n";

const SIGNATURE_LINE_PREFIX: &str = "\u{2014} ";
const TIMESTAMP_LEN: usize = 8;

/// The note signature types Curbi signs and verifies (C2SP signed-note §Signature types).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignatureKind {
    /// `0x01`: Ed25519 over the note text.
    Ed25519,
    /// `0x04`: a timestamped Ed25519 cosignature over `cosignature/v1\ntime T\n` ‖ note text.
    CosignatureV1,
}

impl SignatureKind {
    /// The signature type identifier byte that enters the key ID.
    pub fn type_byte(self) -> u8 {
        match self {
            SignatureKind::Ed25519 => 0x01,
            SignatureKind::CosignatureV1 => 0x04,
        }
    }

    fn from_type_byte(b: u8) -> Option<SignatureKind> {
        match b {
            0x01 => Some(SignatureKind::Ed25519),
            0x04 => Some(SignatureKind::CosignatureV1),
            _ => None,
        }
    }
}

impl fmt::Display for SignatureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SignatureKind::Ed25519 => "Ed25519",
            SignatureKind::CosignatureV1 => "cosignature/v1",
        })
    }
}

/// Why a note, checkpoint or verifier key was refused. [`NoteError::is_malformed`] separates unreadable input
/// from verification verdicts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoteError {
    #[error("note is {0} bytes, more than the limit of {MAX_NOTE_BYTES}")]
    TooLarge(usize),
    #[error("control character U+{code:04X} at byte {offset} (only newline is allowed)")]
    ControlCharacter { offset: usize, code: u8 },
    #[error("note text must be non-empty and end with a newline")]
    BadText,
    #[error("no blank line followed by signature lines")]
    NoSignatures,
    #[error("signature line {line}: {reason}")]
    MalformedSignature { line: usize, reason: &'static str },
    #[error("more than {MAX_SIGNATURES} signature lines")]
    TooManySignatures,
    #[error("key name {0}")]
    InvalidKeyName(&'static str),
    #[error("verifier key {0}")]
    InvalidVerifierKey(&'static str),
    #[error("checkpoint line {line}: {reason}")]
    MalformedCheckpoint { line: usize, reason: &'static str },
    #[error("checkpoint origin must start with \"{CURBI_ORIGIN_PREFIX}\" and be a valid key name")]
    NotCurbiOrigin,
    #[error("cosignature timestamp is above 2^63 - 1")]
    TimestampOutOfRange,
    #[error("a {0} signer cannot make this kind of signature")]
    WrongSignerKind(SignatureKind),
    #[error("two verifiers share key name \"{name}\" and key ID {key_id:08x}")]
    AmbiguousVerifiers { name: String, key_id: u32 },
    #[error("no signature by a known key")]
    NoKnownSignature,
    #[error("signature by \"{name}\" (key ID {key_id:08x}) does not verify")]
    SignatureFailed { name: String, key_id: u32 },
    #[error("\"{name}\" (key ID {key_id:08x}) signed more than once")]
    RepeatedSignature { name: String, key_id: u32 },
    #[error("the log's {0} signature is missing")]
    MissingLogSignature(SignatureKind),
}

impl NoteError {
    /// True when the input could not be read at all (stable code `invalid_note`); false for verification verdicts
    /// (no known signature, a failing or repeated known signature, a missing log signature) and caller mistakes.
    pub fn is_malformed(&self) -> bool {
        matches!(
            self,
            NoteError::TooLarge(_)
                | NoteError::ControlCharacter { .. }
                | NoteError::BadText
                | NoteError::NoSignatures
                | NoteError::MalformedSignature { .. }
                | NoteError::TooManySignatures
                | NoteError::InvalidKeyName(_)
                | NoteError::InvalidVerifierKey(_)
                | NoteError::MalformedCheckpoint { .. }
                | NoteError::NotCurbiOrigin
        )
    }
}

/// The C2SP key ID: the first four bytes, big-endian, of SHA-256(key name ‖ 0x0A ‖ type byte ‖ public key).
pub fn key_id(name: &str, type_byte: u8, public_key: &[u8]) -> u32 {
    let mut input = Vec::with_capacity(name.len() + 2 + public_key.len());
    input.extend_from_slice(name.as_bytes());
    input.push(b'\n');
    input.push(type_byte);
    input.extend_from_slice(public_key);
    let digest = sha256(&input);
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// The message a `cosignature/v1` signs: `cosignature/v1\ntime <T>\n` followed by the whole note text.
pub fn cosignature_message(timestamp: u64, text: &str) -> Vec<u8> {
    format!("{COSIGNATURE_V1_HEADER}time {timestamp}\n{text}").into_bytes()
}

/// Checks a key name: non-empty, at most 256 bytes, no Unicode spaces, no `+`, no control characters.
pub fn check_key_name(name: &str) -> Result<(), NoteError> {
    if name.is_empty() {
        return Err(NoteError::InvalidKeyName("is empty"));
    }
    if name.len() > MAX_KEY_NAME_BYTES {
        return Err(NoteError::InvalidKeyName("is longer than 256 bytes"));
    }
    if name.chars().any(|c| c.is_whitespace() || c == '+' || c.is_control()) {
        return Err(NoteError::InvalidKeyName("contains a space, a plus sign or a control character"));
    }
    Ok(())
}

fn check_no_controls(s: &str) -> Result<(), NoteError> {
    match s.bytes().enumerate().find(|&(_, b)| b < 0x20 && b != b'\n') {
        Some((offset, code)) => Err(NoteError::ControlCharacter { offset, code }),
        None => Ok(()),
    }
}

/// Checks note text: at most [`MAX_NOTE_BYTES`], no control characters but newline, non-empty, ending in newline.
fn check_text(text: &str) -> Result<(), NoteError> {
    if text.len() > MAX_NOTE_BYTES {
        return Err(NoteError::TooLarge(text.len()));
    }
    check_no_controls(text)?;
    if text.is_empty() || !text.ends_with('\n') {
        return Err(NoteError::BadText);
    }
    Ok(())
}

/// One signature line: key name, key ID and the signature bytes that follow the key ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteSignature {
    pub name: String,
    pub key_id: u32,
    pub signature: Vec<u8>,
}

impl NoteSignature {
    /// The signature line, `— <name> <base64(key ID ‖ signature)>` and a newline.
    pub fn line(&self) -> String {
        let mut raw = Vec::with_capacity(4 + self.signature.len());
        raw.extend_from_slice(&self.key_id.to_be_bytes());
        raw.extend_from_slice(&self.signature);
        format!("{SIGNATURE_LINE_PREFIX}{} {}\n", self.name, encode_std(&raw))
    }

    fn parse(line: &str) -> Result<NoteSignature, &'static str> {
        let rest = line.strip_prefix(SIGNATURE_LINE_PREFIX).ok_or("does not start with an em dash and a space")?;
        let (name, b64) = rest.split_once(' ').ok_or("has no space between key name and signature")?;
        check_key_name(name).map_err(|_| "has an invalid key name")?;
        if b64.len() > MAX_SIGNATURE_BASE64 {
            return Err("has a signature longer than 8 KiB of base64");
        }
        let raw = decode_std(b64).ok_or("signature is not canonical standard base64")?;
        match raw.as_slice() {
            [a, b, c, d, sig @ ..] if !sig.is_empty() => Ok(NoteSignature {
                name: name.to_string(),
                key_id: u32::from_be_bytes([*a, *b, *c, *d]),
                signature: sig.to_vec(),
            }),
            _ => Err("signature is shorter than a key ID and one byte"),
        }
    }
}

/// A signed note: its text (with the final newline) and its signature lines, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    text: String,
    signatures: Vec<NoteSignature>,
}

impl Note {
    /// An unsigned note over `text`, which must be non-empty, end with a newline and hold no control characters
    /// but newlines.
    pub fn new(text: &str) -> Result<Note, NoteError> {
        check_text(text)?;
        Ok(Note { text: text.to_string(), signatures: Vec::new() })
    }

    /// Parses a signed note strictly: valid UTF-8 (a `str`), at most [`MAX_NOTE_BYTES`], no control characters but
    /// newline, the text split from the signatures at the last blank line, 1 to [`MAX_SIGNATURES`] signature lines
    /// each with a valid key name and canonical standard base64 of a key ID and at least one signature byte.
    pub fn parse(note: &str) -> Result<Note, NoteError> {
        if note.len() > MAX_NOTE_BYTES {
            return Err(NoteError::TooLarge(note.len()));
        }
        check_no_controls(note)?;
        let split = note.rfind("\n\n").ok_or(NoteError::NoSignatures)?;
        let (text, block) = (&note[..split + 1], &note[split + 2..]);
        let Some(block) = block.strip_suffix('\n') else {
            return Err(if block.is_empty() {
                NoteError::NoSignatures
            } else {
                NoteError::MalformedSignature { line: block.split('\n').count(), reason: "does not end with a newline" }
            });
        };
        let mut signatures = Vec::new();
        for (i, line) in block.split('\n').enumerate() {
            if i == MAX_SIGNATURES {
                return Err(NoteError::TooManySignatures);
            }
            let sig =
                NoteSignature::parse(line).map_err(|reason| NoteError::MalformedSignature { line: i + 1, reason })?;
            signatures.push(sig);
        }
        Ok(Note { text: text.to_string(), signatures })
    }

    /// The signed text, ending in a newline.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The signature lines, in order.
    pub fn signatures(&self) -> &[NoteSignature] {
        &self.signatures
    }

    /// Appends a signature line (made by [`NoteSigner`] or taken from another copy of the note).
    pub fn add_signature(&mut self, signature: NoteSignature) -> Result<(), NoteError> {
        if self.signatures.len() >= MAX_SIGNATURES {
            return Err(NoteError::TooManySignatures);
        }
        check_key_name(&signature.name)?;
        self.signatures.push(signature);
        Ok(())
    }

    /// Verifies the note against known keys, as C2SP signed-note requires: signatures whose (name, key ID) match
    /// no verifier are ignored; a matching signature must verify or the whole note is refused; a known key may sign
    /// only once; and at least one known signature must verify. Returns the verified signatures in note order.
    pub fn verify(&self, verifiers: &[NoteVerifier]) -> Result<Vec<VerifiedSignature>, NoteError> {
        for (i, a) in verifiers.iter().enumerate() {
            if verifiers[..i].iter().any(|b| b.name == a.name && b.key_id == a.key_id) {
                return Err(NoteError::AmbiguousVerifiers { name: a.name.clone(), key_id: a.key_id });
            }
        }
        let mut used = vec![false; verifiers.len()];
        let mut verified = Vec::new();
        for sig in &self.signatures {
            let Some(i) = verifiers.iter().position(|v| v.name == sig.name && v.key_id == sig.key_id) else {
                continue;
            };
            let (name, key_id) = (sig.name.clone(), sig.key_id);
            if std::mem::replace(&mut used[i], true) {
                return Err(NoteError::RepeatedSignature { name, key_id });
            }
            let verifier = &verifiers[i];
            let timestamp = verifier
                .verify_signature(&self.text, &sig.signature)
                .map_err(|_| NoteError::SignatureFailed { name, key_id })?;
            verified.push(VerifiedSignature { verifier: i, kind: verifier.kind, timestamp });
        }
        if verified.is_empty() {
            return Err(NoteError::NoKnownSignature);
        }
        Ok(verified)
    }
}

impl fmt::Display for Note {
    /// The note as it travels: text, a blank line, then the signature lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)?;
        f.write_str("\n")?;
        for sig in &self.signatures {
            f.write_str(&sig.line())?;
        }
        Ok(())
    }
}

/// A signature that verified: which verifier (index into the slice given), its kind, and for cosignatures the
/// timestamp it signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifiedSignature {
    pub verifier: usize,
    pub kind: SignatureKind,
    pub timestamp: Option<u64>,
}

/// A known key for note verification: key name, signature kind and public key, with the key ID they give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteVerifier {
    name: String,
    kind: SignatureKind,
    key: VerifyingKey,
    key_id: u32,
}

impl NoteVerifier {
    /// A verifier for `key` signing under `name` with signatures of `kind`.
    pub fn new(name: &str, kind: SignatureKind, key: VerifyingKey) -> Result<NoteVerifier, NoteError> {
        check_key_name(name)?;
        let key_id = key_id(name, kind.type_byte(), key.as_bytes());
        Ok(NoteVerifier { name: name.to_string(), kind, key, key_id })
    }

    /// Parses a C2SP verifier key, `<name>+<8 lowercase hex key ID>+<base64(type byte ‖ public key)>`, of type
    /// 0x01 (Ed25519) or 0x04 (cosignature/v1). The key ID must match; weak and non-canonical keys are refused.
    pub fn parse_vkey(vkey: &str) -> Result<NoteVerifier, NoteError> {
        let (name, rest) = vkey.split_once('+').ok_or(NoteError::InvalidVerifierKey("has no '+' separators"))?;
        let (id_hex, b64) = rest.split_once('+').ok_or(NoteError::InvalidVerifierKey("has one '+', not two"))?;
        check_key_name(name)?;
        if id_hex.len() != 8 || !id_hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Err(NoteError::InvalidVerifierKey("key ID is not 8 lowercase hex digits"));
        }
        let given = u32::from_str_radix(id_hex, 16).map_err(|_| NoteError::InvalidVerifierKey("key ID is not hex"))?;
        let raw = decode_std(b64).ok_or(NoteError::InvalidVerifierKey("key is not canonical standard base64"))?;
        let (&type_byte, public_key) = raw.split_first().ok_or(NoteError::InvalidVerifierKey("key is empty"))?;
        let kind = SignatureKind::from_type_byte(type_byte)
            .ok_or(NoteError::InvalidVerifierKey("type is neither Ed25519 (0x01) nor cosignature/v1 (0x04)"))?;
        let key = VerifyingKey::from_slice(public_key)
            .map_err(|_| NoteError::InvalidVerifierKey("is not a valid, canonical, non-weak Ed25519 public key"))?;
        let verifier = NoteVerifier::new(name, kind, key)?;
        if verifier.key_id != given {
            return Err(NoteError::InvalidVerifierKey("key ID does not match the name and key"));
        }
        Ok(verifier)
    }

    /// The C2SP verifier key text.
    pub fn to_vkey(&self) -> String {
        let mut raw = Vec::with_capacity(33);
        raw.push(self.kind.type_byte());
        raw.extend_from_slice(self.key.as_bytes());
        format!("{}+{:08x}+{}", self.name, self.key_id, encode_std(&raw))
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn kind(&self) -> SignatureKind {
        self.kind
    }

    pub fn key(&self) -> &VerifyingKey {
        &self.key
    }

    pub fn key_id(&self) -> u32 {
        self.key_id
    }

    /// Checks one signature (the bytes after the key ID) over `text` with `verify_strict`: `Ok(None)` for a valid
    /// Ed25519 signature, `Ok(Some(t))` for a valid cosignature made at Unix time `t` (at most 2^63 − 1).
    pub fn verify_signature(&self, text: &str, signature: &[u8]) -> Result<Option<u64>, SignatureError> {
        match self.kind {
            SignatureKind::Ed25519 => self.key.verify(text.as_bytes(), signature).map(|()| None),
            SignatureKind::CosignatureV1 => {
                let (time, sig) = signature
                    .split_first_chunk::<TIMESTAMP_LEN>()
                    .ok_or(SignatureError::WrongLength(signature.len()))?;
                let timestamp = u64::from_be_bytes(*time);
                if i64::try_from(timestamp).is_err() {
                    return Err(SignatureError::Invalid);
                }
                self.key.verify(&cosignature_message(timestamp, text), sig).map(|()| Some(timestamp))
            }
        }
    }
}

/// A signing key under a key name, for one signature kind.
#[derive(Debug, Clone)]
pub struct NoteSigner {
    name: String,
    kind: SignatureKind,
    key: SigningKey,
    key_id: u32,
}

impl NoteSigner {
    pub fn new(name: &str, kind: SignatureKind, key: SigningKey) -> Result<NoteSigner, NoteError> {
        check_key_name(name)?;
        let key_id = key_id(name, kind.type_byte(), key.verifying_key().as_bytes());
        Ok(NoteSigner { name: name.to_string(), kind, key, key_id })
    }

    /// The matching verifier.
    pub fn verifier(&self) -> NoteVerifier {
        NoteVerifier { name: self.name.clone(), kind: self.kind, key: self.key.verifying_key(), key_id: self.key_id }
    }

    /// An Ed25519 note signature over `text` (an Ed25519 signer only).
    pub fn sign(&self, text: &str) -> Result<NoteSignature, NoteError> {
        if self.kind != SignatureKind::Ed25519 {
            return Err(NoteError::WrongSignerKind(self.kind));
        }
        check_text(text)?;
        let signature = self.key.sign(text.as_bytes()).to_vec();
        Ok(NoteSignature { name: self.name.clone(), key_id: self.key_id, signature })
    }

    /// A `cosignature/v1` over `text` at Unix time `timestamp` (a cosignature signer only).
    pub fn cosign(&self, text: &str, timestamp: u64) -> Result<NoteSignature, NoteError> {
        if self.kind != SignatureKind::CosignatureV1 {
            return Err(NoteError::WrongSignerKind(self.kind));
        }
        check_text(text)?;
        if i64::try_from(timestamp).is_err() {
            return Err(NoteError::TimestampOutOfRange);
        }
        let mut signature = timestamp.to_be_bytes().to_vec();
        signature.extend_from_slice(&self.key.sign(&cosignature_message(timestamp, text)));
        Ok(NoteSignature { name: self.name.clone(), key_id: self.key_id, signature })
    }
}

/// A C2SP `tlog-checkpoint` body: origin, tree size, root hash and optional extension lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    origin: String,
    size: u64,
    root: Hash,
    extensions: Vec<String>,
}

impl Checkpoint {
    /// A checkpoint without extension lines. The origin must be a non-empty line of at most 256 bytes.
    pub fn new(origin: &str, size: u64, root: Hash) -> Result<Checkpoint, NoteError> {
        check_origin(origin)?;
        Ok(Checkpoint { origin: origin.to_string(), size, root, extensions: Vec::new() })
    }

    /// Parses a checkpoint body (note text) strictly: at least three newline-terminated lines, all non-empty; a
    /// decimal size without sign or leading zeros that fits in u64; a root in canonical standard base64 of exactly
    /// 32 bytes; at most [`MAX_EXTENSION_LINES`] extension lines.
    pub fn parse_body(text: &str) -> Result<Checkpoint, NoteError> {
        check_text(text).map_err(|e| match e {
            NoteError::BadText => {
                NoteError::MalformedCheckpoint { line: 0, reason: "body does not end with a newline" }
            }
            other => other,
        })?;
        let body = text.strip_suffix('\n').unwrap_or(text);
        let lines: Vec<&str> = body.split('\n').collect();
        let bad = |line: usize, reason: &'static str| NoteError::MalformedCheckpoint { line, reason };
        let [origin, size, root, extensions @ ..] = lines.as_slice() else {
            return Err(bad(lines.len() + 1, "a checkpoint has an origin, a size and a root line"));
        };
        check_origin(origin).map_err(|e| match e {
            NoteError::MalformedCheckpoint { reason, .. } => bad(1, reason),
            other => other,
        })?;
        let size = parse_size(size).map_err(|reason| bad(2, reason))?;
        let root = decode_std(root).ok_or(bad(3, "root is not canonical standard base64"))?;
        let root = Hash::try_from(root.as_slice()).map_err(|_| bad(3, "root is not 32 bytes"))?;
        if extensions.len() > MAX_EXTENSION_LINES {
            return Err(bad(4 + MAX_EXTENSION_LINES, "more than 16 extension lines"));
        }
        if let Some(i) = extensions.iter().position(|l| l.is_empty()) {
            return Err(bad(4 + i, "empty line"));
        }
        Ok(Checkpoint {
            origin: (*origin).to_string(),
            size,
            root,
            extensions: extensions.iter().map(|l| (*l).to_string()).collect(),
        })
    }

    /// The body: origin, size and standard base64 root, each on its own line, then any extension lines.
    pub fn body(&self) -> String {
        let mut s = format!("{}\n{}\n{}\n", self.origin, self.size, encode_std(&self.root));
        for line in &self.extensions {
            s.push_str(line);
            s.push('\n');
        }
        s
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn root(&self) -> &Hash {
        &self.root
    }

    pub fn extensions(&self) -> &[String] {
        &self.extensions
    }

    /// Whether this is a Curbi checkpoint: the origin starts with [`CURBI_ORIGIN_PREFIX`], names a log after it, and
    /// is a valid key name (the log key signs under its origin).
    pub fn is_curbi(&self) -> bool {
        self.origin.len() > CURBI_ORIGIN_PREFIX.len()
            && self.origin.starts_with(CURBI_ORIGIN_PREFIX)
            && check_key_name(&self.origin).is_ok()
    }
}

fn check_origin(origin: &str) -> Result<(), NoteError> {
    let bad = |reason| NoteError::MalformedCheckpoint { line: 1, reason };
    if origin.is_empty() {
        return Err(bad("origin is empty"));
    }
    if origin.len() > MAX_KEY_NAME_BYTES {
        return Err(bad("origin is longer than 256 bytes"));
    }
    if origin.chars().any(char::is_control) {
        return Err(bad("origin contains a control character"));
    }
    Ok(())
}

fn parse_size(text: &str) -> Result<u64, &'static str> {
    if text.is_empty() {
        return Err("size is empty");
    }
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("size is not a decimal number");
    }
    if text.len() > 1 && text.starts_with('0') {
        return Err("size has a leading zero");
    }
    text.parse().map_err(|_| "size is larger than 2^64 - 1")
}

/// A parsed checkpoint note: the checkpoint and the note it came from (text and every signature line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedCheckpoint {
    checkpoint: Checkpoint,
    note: Note,
}

/// What a verified Curbi checkpoint establishes: the log key's signing time and the witness cosignatures that
/// verified (index into the witnesses given, and their timestamps).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointSignatures {
    pub signed_at: u64,
    pub witnesses: Vec<WitnessCosignature>,
}

/// One verified witness cosignature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WitnessCosignature {
    pub witness: usize,
    pub timestamp: u64,
}

impl SignedCheckpoint {
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.checkpoint
    }

    pub fn note(&self) -> &Note {
        &self.note
    }

    /// Verifies a Curbi checkpoint: the log key's Ed25519 note signature and its `cosignature/v1` (both under the
    /// origin as key name) must be present and verify, and so must every line from a pinned witness (cosignature
    /// verifiers only). Lines from unknown keys are ignored. Returns the log's signing time and the witnesses that
    /// cosigned; a k-of-n witness policy is the caller's.
    pub fn verify(
        &self,
        log_key: &VerifyingKey,
        witnesses: &[NoteVerifier],
    ) -> Result<CheckpointSignatures, NoteError> {
        if !self.checkpoint.is_curbi() {
            return Err(NoteError::NotCurbiOrigin);
        }
        if let Some(w) = witnesses.iter().find(|w| w.kind != SignatureKind::CosignatureV1) {
            return Err(NoteError::WrongSignerKind(w.kind));
        }
        let origin = self.checkpoint.origin();
        let mut verifiers = Vec::with_capacity(witnesses.len() + 2);
        verifiers.push(NoteVerifier::new(origin, SignatureKind::Ed25519, *log_key)?);
        verifiers.push(NoteVerifier::new(origin, SignatureKind::CosignatureV1, *log_key)?);
        verifiers.extend_from_slice(witnesses);
        let verified = self.note.verify(&verifiers)?;
        if !verified.iter().any(|v| v.verifier == 0) {
            return Err(NoteError::MissingLogSignature(SignatureKind::Ed25519));
        }
        let signed_at = verified
            .iter()
            .find(|v| v.verifier == 1)
            .and_then(|v| v.timestamp)
            .ok_or(NoteError::MissingLogSignature(SignatureKind::CosignatureV1))?;
        let witnesses = verified
            .iter()
            .filter(|v| v.verifier >= 2)
            .filter_map(|v| Some(WitnessCosignature { witness: v.verifier - 2, timestamp: v.timestamp? }))
            .collect();
        Ok(CheckpointSignatures { signed_at, witnesses })
    }
}

/// Parses a signed checkpoint note (any C2SP checkpoint): [`Note::parse`], then [`Checkpoint::parse_body`] on its
/// text. Signatures are not checked here.
pub fn parse_checkpoint(note: &str) -> Result<SignedCheckpoint, NoteError> {
    let note = Note::parse(note)?;
    let checkpoint = Checkpoint::parse_body(note.text())?;
    Ok(SignedCheckpoint { checkpoint, note })
}

/// [`parse_checkpoint`] that also requires a Curbi origin.
pub fn parse_curbi_checkpoint(note: &str) -> Result<SignedCheckpoint, NoteError> {
    let signed = parse_checkpoint(note)?;
    if !signed.checkpoint.is_curbi() {
        return Err(NoteError::NotCurbiOrigin);
    }
    Ok(signed)
}

/// Signs a Curbi checkpoint with the log key: an Ed25519 note signature, then a `cosignature/v1` carrying
/// `signed_at` (Unix seconds), both under the origin as key name. Returns the note text, the head's compact form.
pub fn sign_curbi_checkpoint(
    checkpoint: &Checkpoint,
    log_key: &SigningKey,
    signed_at: u64,
) -> Result<String, NoteError> {
    if !checkpoint.is_curbi() {
        return Err(NoteError::NotCurbiOrigin);
    }
    let body = checkpoint.body();
    let mut note = Note::new(&body)?;
    let origin = checkpoint.origin();
    note.add_signature(NoteSigner::new(origin, SignatureKind::Ed25519, log_key.clone())?.sign(&body)?)?;
    note.add_signature(
        NoteSigner::new(origin, SignatureKind::CosignatureV1, log_key.clone())?.cosign(&body, signed_at)?,
    )?;
    Ok(note.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::encode_url;

    fn curbi_checkpoint(size: u64) -> Checkpoint {
        Checkpoint::new("curbi-checkpoint-v1.example.com/log", size, [size as u8; 32]).expect("valid origin")
    }

    fn signer(name: &str, kind: SignatureKind, seed: u8) -> NoteSigner {
        NoteSigner::new(name, kind, SigningKey::from_seed(&[seed; 32])).expect("valid key name")
    }

    #[test]
    fn a_curbi_checkpoint_signs_and_verifies_with_its_time() {
        let key = SigningKey::from_seed(&[1; 32]);
        let text = sign_curbi_checkpoint(&curbi_checkpoint(5), &key, 1_795_176_000).expect("signs");
        let signed = parse_curbi_checkpoint(&text).expect("parses");
        assert_eq!(signed.checkpoint(), &curbi_checkpoint(5));
        assert_eq!(signed.note().signatures().len(), 2);
        assert_eq!(signed.note().to_string(), text);
        let result = signed.verify(&key.verifying_key(), &[]);
        assert_eq!(result, Ok(CheckpointSignatures { signed_at: 1_795_176_000, witnesses: vec![] }));
        let other = SigningKey::from_seed(&[2; 32]).verifying_key();
        assert_eq!(signed.verify(&other, &[]), Err(NoteError::NoKnownSignature));
    }

    #[test]
    fn both_log_signatures_are_required() {
        let key = SigningKey::from_seed(&[1; 32]);
        let text = sign_curbi_checkpoint(&curbi_checkpoint(3), &key, 7).expect("signs");
        let note = Note::parse(&text).expect("parses");
        for (keep, missing) in [(0, SignatureKind::CosignatureV1), (1, SignatureKind::Ed25519)] {
            let one = Note { text: note.text().to_string(), signatures: vec![note.signatures()[keep].clone()] };
            let signed = parse_curbi_checkpoint(&one.to_string()).expect("parses");
            assert_eq!(signed.verify(&key.verifying_key(), &[]), Err(NoteError::MissingLogSignature(missing)));
        }
    }

    #[test]
    fn witnesses_cosign_and_a_failing_known_signature_rejects() {
        let key = SigningKey::from_seed(&[1; 32]);
        let text = sign_curbi_checkpoint(&curbi_checkpoint(9), &key, 100).expect("signs");
        let witness = signer("witness.example/w1", SignatureKind::CosignatureV1, 3);
        let mut note = Note::parse(&text).expect("parses");
        note.add_signature(witness.cosign(note.text(), 150).expect("cosigns")).expect("room");
        let signed = parse_curbi_checkpoint(&note.to_string()).expect("parses");
        let expected =
            CheckpointSignatures { signed_at: 100, witnesses: vec![WitnessCosignature { witness: 0, timestamp: 150 }] };
        assert_eq!(signed.verify(&key.verifying_key(), &[witness.verifier()]), Ok(expected));
        // The witness line is ignored by a verifier that does not pin the witness.
        assert!(signed.verify(&key.verifying_key(), &[]).is_ok());
        // A plain Ed25519 verifier is not a witness.
        let plain = signer("witness.example/w2", SignatureKind::Ed25519, 3).verifier();
        assert_eq!(
            signed.verify(&key.verifying_key(), &[plain]),
            Err(NoteError::WrongSignerKind(SignatureKind::Ed25519))
        );
        // Re-dating the log's cosignature breaks it, and the whole note is refused.
        let mut sigs = note.signatures().to_vec();
        sigs[1].signature[7] ^= 1;
        let forged = Note { text: note.text().to_string(), signatures: sigs }.to_string();
        let result = parse_curbi_checkpoint(&forged).expect("parses").verify(&key.verifying_key(), &[]);
        assert!(matches!(result, Err(NoteError::SignatureFailed { .. })), "{result:?}");
    }

    #[test]
    fn checkpoint_bodies_are_strict() {
        let root = encode_std(&[7; 32]);
        let ok = |body: &str| Checkpoint::parse_body(body).map(|c| c.size());
        let line = |body: &str| match Checkpoint::parse_body(body) {
            Err(NoteError::MalformedCheckpoint { line, .. }) => line,
            _ => usize::MAX,
        };
        assert_eq!(ok(&format!("o\n0\n{root}\n")), Ok(0));
        assert_eq!(ok(&format!("o\n18446744073709551615\n{root}\next\n")), Ok(u64::MAX));
        assert_eq!(line(&format!("o\n18446744073709551616\n{root}\n")), 2);
        assert_eq!(line(&format!("o\n007\n{root}\n")), 2);
        assert_eq!(line(&format!("o\n+7\n{root}\n")), 2);
        assert_eq!(line(&format!("o\n 7\n{root}\n")), 2);
        assert_eq!(line(&format!("o\n\n{root}\n")), 2);
        assert_eq!(line(&format!("\n7\n{root}\n")), 1);
        assert_eq!(line(&format!("o\n7\n{}\n", encode_std(&[7; 31]))), 3);
        assert_eq!(line(&format!("o\n7\n{}\n", root.trim_end_matches('='))), 3);
        assert_eq!(line(&format!("o\n7\n{}\n", encode_url(&[0xfb; 32]))), 3);
        assert_eq!(line(&format!("o\n7\n{root}\n\nx\n")), 4);
        assert_eq!(line(&format!("o\n7\n{root}")), 0);
        assert_eq!(line("o\n7\n"), 3);
        let crlf = Checkpoint::parse_body(&format!("o\n7\n{root}\r\n"));
        assert_eq!(crlf, Err(NoteError::ControlCharacter { offset: 4 + root.len(), code: b'\r' }));
        let body = curbi_checkpoint(12).body();
        assert_eq!(Checkpoint::parse_body(&body), Ok(curbi_checkpoint(12)));
    }

    #[test]
    fn notes_split_at_the_last_blank_line() {
        let signer = signer("example.com/k", SignatureKind::Ed25519, 5);
        let text = "first\n\nsecond\n";
        let line = signer.sign(text).expect("signs").line();
        let note = Note::parse(&format!("{text}\n{line}")).expect("parses");
        assert_eq!(note.text(), text);
        assert_eq!(note.verify(&[signer.verifier()]).map(|v| v.len()), Ok(1));
        assert_eq!(Note::parse(&format!("{text}\n{line}\n")), Err(NoteError::NoSignatures));
        let unterminated = Note::parse(&format!("{text}\n{}", line.trim_end()));
        assert!(matches!(unterminated, Err(NoteError::MalformedSignature { line: 1, .. })), "{unterminated:?}");
        let twice = Note::parse(&format!("{text}\n{line}{line}")).expect("parses");
        assert!(matches!(twice.verify(&[signer.verifier()]), Err(NoteError::RepeatedSignature { .. })));
        assert_eq!(Note::parse("no blank line\n\u{2014} a AAAAAAA=\n"), Err(NoteError::NoSignatures));
        let short = Note::parse("t\n\n\u{2014} a AAAAAA==\n");
        assert!(matches!(short, Err(NoteError::MalformedSignature { line: 1, .. })), "{short:?}");
        let verifiers = [signer.verifier(), signer.verifier()];
        assert!(matches!(note.verify(&verifiers), Err(NoteError::AmbiguousVerifiers { .. })));
    }

    #[test]
    fn vkeys_round_trip_and_are_checked() {
        let verifier = signer("example.com/w", SignatureKind::CosignatureV1, 8).verifier();
        let vkey = verifier.to_vkey();
        assert_eq!(NoteVerifier::parse_vkey(&vkey), Ok(verifier));
        let renamed = format!("example.com/x{}", &vkey["example.com/w".len()..]);
        assert!(matches!(NoteVerifier::parse_vkey(&renamed), Err(NoteError::InvalidVerifierKey(_))));
        assert!(NoteVerifier::parse_vkey("a+b").is_err());
        assert!(NoteVerifier::parse_vkey("a+0000000g+AQ==").is_err());
        assert!(NoteVerifier::parse_vkey(&vkey.to_uppercase()).is_err());
    }

    #[test]
    fn signers_refuse_the_other_kind_and_bad_text() {
        let plain = signer("k", SignatureKind::Ed25519, 4);
        let cosigner = signer("k", SignatureKind::CosignatureV1, 4);
        assert_eq!(plain.cosign("t\n", 1), Err(NoteError::WrongSignerKind(SignatureKind::Ed25519)));
        assert_eq!(cosigner.sign("t\n"), Err(NoteError::WrongSignerKind(SignatureKind::CosignatureV1)));
        assert_eq!(plain.sign("no newline"), Err(NoteError::BadText));
        assert_eq!(cosigner.cosign("t\n", 1 << 63), Err(NoteError::TimestampOutOfRange));
        assert!(cosigner.cosign("t\n", (1 << 63) - 1).is_ok());
        for name in ["", "a b", "a+b", "a\u{a0}b"] {
            assert!(
                NoteSigner::new(name, SignatureKind::Ed25519, SigningKey::from_seed(&[4; 32])).is_err(),
                "{name:?}"
            );
        }
    }

    #[test]
    fn only_curbi_origins_are_signed_as_curbi_checkpoints() {
        let key = SigningKey::from_seed(&[1; 32]);
        for origin in ["example.com/log", "curbi-checkpoint-v1.", "curbi-checkpoint-v1.a b", "curbi-checkpoint-v1.a+b"]
        {
            let cp = Checkpoint::new(origin, 1, [0; 32]).expect("a valid generic origin");
            assert_eq!(sign_curbi_checkpoint(&cp, &key, 1), Err(NoteError::NotCurbiOrigin), "{origin}");
        }
    }
}
