//! Errors with a stable snake_case `code`, a message and the JSON pointer of the bad field.
//! The full list of codes lives in `vectors/errors.json`; every language checks it.

/// Stable error codes. Never renamed or reused; new ones are appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// The body is not JSON (bad syntax, invalid UTF-8, nesting too deep, a number out of range).
    InvalidJson,
    /// A value has the wrong JSON type.
    InvalidType,
    /// A member that the schema does not allow (`additionalProperties: false`).
    UnknownField,
    /// A required member is missing.
    MissingField,
    /// A string is longer than its `maxLength` (counted in Unicode code points).
    TooLong,
    /// A string is shorter than its `minLength`.
    TooShort,
    /// An array or object has more entries than its `maxItems` / `maxProperties`.
    TooManyItems,
    /// An array has fewer entries than its `minItems`.
    TooFewItems,
    /// A string does not match its `pattern`.
    PatternMismatch,
    /// A string is not one of its `enum` values.
    InvalidEnum,
    /// A number is outside its `minimum` / `maximum` / `exclusiveMinimum`.
    OutOfRange,
    /// Two members that exclude each other are both present (`reply` and `cases`, `amount` and `amounts`).
    ConflictingFields,
    /// A value is well-formed JSON but cannot be read as what it stands for (a fact time, a money amount).
    InvalidValue,
    /// Accepted by the schema, not supported by this build (receipt verification before it lands).
    Unsupported,
    /// A request body over the size limit (HTTP 413).
    BodyTooLarge,
    /// A request body that is not `application/json` (HTTP 415).
    UnsupportedMediaType,
    /// An HTTP method the endpoint does not serve (HTTP 405).
    MethodNotAllowed,
    /// No such endpoint (HTTP 404).
    NotFound,
    /// A bug: a panic caught at a boundary. Never expected; always reported.
    Internal,
    /// A public key that cannot be used: not canonical unpadded base64url, not 32 bytes, not a point, or a
    /// non-canonical encoding of one.
    InvalidKey,
    /// A public key of small order (a weak key), for which a signature proves nothing.
    WeakKey,
    /// A key set member carries private key material (a JWK `d`).
    PrivateKeyPresent,
    /// Two keys in one key set share a `kid` or a public key.
    DuplicateKey,
    /// A signed note or checkpoint that does not parse strictly (C2SP signed-note, tlog-checkpoint).
    InvalidNote,
    /// A member name written twice in one object: readers disagree on which copy wins, so the document is refused.
    DuplicateMember,
    /// MCP: `tools/call` names a tool the server does not have.
    UnknownTool,
    /// MCP: `fetch` was given an id that `search` never returns.
    UnknownId,
    /// MCP: a tool's output is over the output limit; nothing of it is returned.
    OutputTooLarge,
    /// Recorder: this tenant and idempotency key already name a different request.
    IdempotencyConflict,
    /// Recorder: another writer holds the database longer than the wait; nothing was done, retry.
    Busy,
    /// Recorder: the action is held after an UNKNOWN outcome; reconcile it.
    Held,
    /// Recorder: no attested action under this tenant and idempotency key.
    NotAttested,
    /// Recorder: the action already has a different outcome; never a second receipt.
    OutcomeConflict,
    /// Recorder: the action was released unperformed; use a new idempotency key.
    Released,
    /// Recorder: no grant or mandate with this id.
    UnknownGrant,
    /// Recorder: a grant or mandate with this id exists with another document.
    GrantConflict,
    /// Recorder: provider evidence that is not a JSON object or is too large.
    InvalidEvidence,
    /// Recorder: provider evidence that does not name the attested mutation.
    EvidenceMismatch,
    /// Recorder: a head this log did not sign.
    UnknownHead,
    /// Recorder: no head has been signed yet.
    NoHead,
    /// Recorder: no receipt at this sequence number.
    UnknownReceipt,
    /// Recorder: the signing key is not the log's active key.
    KeyMismatch,
    /// Recorder: another process rotated the key; reopen with the new key.
    KeyRotated,
    /// Recorder: the signing key file or variable is unreadable or not a private Ed25519 JWK.
    InvalidKeyFile,
    /// Recorder: the database could not be read or written (I/O, disk full).
    Storage,
    /// Recorder: the database is not a recorder database this version reads, or fails its checks.
    Corrupt,
    /// A binding's native value (a Python dict, a JavaScript object) nested 128 containers deep or more, where the
    /// JSON reader refuses the same document as text, or one that contains itself.
    TooDeep,
    /// Server: this caller sent more requests than its per-minute limit (HTTP 429, `Retry-After`).
    RateLimited,
    /// Server: the `Host` or `Origin` names a host this server does not answer for (HTTP 403).
    Forbidden,
    /// Server: the `Host` header is missing, repeated or not a host with an optional port (HTTP 400).
    InvalidHost,
    /// Server: every checking worker is busy and the queue is full; nothing was done, retry (HTTP 503,
    /// `Retry-After`).
    Overloaded,
    /// A binding's handle (a recorder) was closed; open it again.
    Closed,
    /// Recorder: the clock is further ahead of the last time the log used than `max_clock_ahead`; nothing was signed.
    ClockAhead,
    /// Recorder: the log is sealed (a final head signed); it is read-only, and its successor takes new entries.
    Sealed,
}

impl ErrorCode {
    /// Every code, in the order of `vectors/errors.json`.
    pub const ALL: [ErrorCode; 54] = [
        ErrorCode::InvalidJson,
        ErrorCode::InvalidType,
        ErrorCode::UnknownField,
        ErrorCode::MissingField,
        ErrorCode::TooLong,
        ErrorCode::TooShort,
        ErrorCode::TooManyItems,
        ErrorCode::TooFewItems,
        ErrorCode::PatternMismatch,
        ErrorCode::InvalidEnum,
        ErrorCode::OutOfRange,
        ErrorCode::ConflictingFields,
        ErrorCode::InvalidValue,
        ErrorCode::Unsupported,
        ErrorCode::BodyTooLarge,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::MethodNotAllowed,
        ErrorCode::NotFound,
        ErrorCode::Internal,
        ErrorCode::InvalidKey,
        ErrorCode::WeakKey,
        ErrorCode::PrivateKeyPresent,
        ErrorCode::DuplicateKey,
        ErrorCode::InvalidNote,
        ErrorCode::DuplicateMember,
        ErrorCode::UnknownTool,
        ErrorCode::UnknownId,
        ErrorCode::OutputTooLarge,
        ErrorCode::IdempotencyConflict,
        ErrorCode::Busy,
        ErrorCode::Held,
        ErrorCode::NotAttested,
        ErrorCode::OutcomeConflict,
        ErrorCode::Released,
        ErrorCode::UnknownGrant,
        ErrorCode::GrantConflict,
        ErrorCode::InvalidEvidence,
        ErrorCode::EvidenceMismatch,
        ErrorCode::UnknownHead,
        ErrorCode::NoHead,
        ErrorCode::UnknownReceipt,
        ErrorCode::KeyMismatch,
        ErrorCode::KeyRotated,
        ErrorCode::InvalidKeyFile,
        ErrorCode::Storage,
        ErrorCode::Corrupt,
        ErrorCode::TooDeep,
        ErrorCode::RateLimited,
        ErrorCode::Forbidden,
        ErrorCode::InvalidHost,
        ErrorCode::Overloaded,
        ErrorCode::Closed,
        ErrorCode::ClockAhead,
        ErrorCode::Sealed,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidJson => "invalid_json",
            ErrorCode::InvalidType => "invalid_type",
            ErrorCode::UnknownField => "unknown_field",
            ErrorCode::MissingField => "missing_field",
            ErrorCode::TooLong => "too_long",
            ErrorCode::TooShort => "too_short",
            ErrorCode::TooManyItems => "too_many_items",
            ErrorCode::TooFewItems => "too_few_items",
            ErrorCode::PatternMismatch => "pattern_mismatch",
            ErrorCode::InvalidEnum => "invalid_enum",
            ErrorCode::OutOfRange => "out_of_range",
            ErrorCode::ConflictingFields => "conflicting_fields",
            ErrorCode::InvalidValue => "invalid_value",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::BodyTooLarge => "body_too_large",
            ErrorCode::UnsupportedMediaType => "unsupported_media_type",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Internal => "internal",
            ErrorCode::InvalidKey => "invalid_key",
            ErrorCode::WeakKey => "weak_key",
            ErrorCode::PrivateKeyPresent => "private_key_present",
            ErrorCode::DuplicateKey => "duplicate_key",
            ErrorCode::InvalidNote => "invalid_note",
            ErrorCode::DuplicateMember => "duplicate_member",
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::UnknownId => "unknown_id",
            ErrorCode::OutputTooLarge => "output_too_large",
            ErrorCode::IdempotencyConflict => "idempotency_conflict",
            ErrorCode::Busy => "busy",
            ErrorCode::Held => "held",
            ErrorCode::NotAttested => "not_attested",
            ErrorCode::OutcomeConflict => "outcome_conflict",
            ErrorCode::Released => "released",
            ErrorCode::UnknownGrant => "unknown_grant",
            ErrorCode::GrantConflict => "grant_conflict",
            ErrorCode::InvalidEvidence => "invalid_evidence",
            ErrorCode::EvidenceMismatch => "evidence_mismatch",
            ErrorCode::UnknownHead => "unknown_head",
            ErrorCode::NoHead => "no_head",
            ErrorCode::UnknownReceipt => "unknown_receipt",
            ErrorCode::KeyMismatch => "key_mismatch",
            ErrorCode::KeyRotated => "key_rotated",
            ErrorCode::InvalidKeyFile => "invalid_key_file",
            ErrorCode::Storage => "storage",
            ErrorCode::Corrupt => "corrupt",
            ErrorCode::TooDeep => "too_deep",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::InvalidHost => "invalid_host",
            ErrorCode::Overloaded => "overloaded",
            ErrorCode::Closed => "closed",
            ErrorCode::ClockAhead => "clock_ahead",
            ErrorCode::Sealed => "sealed",
        }
    }
}

/// `Display` for a list of stable codes (`ErrorCode`, `WarningCode`): each code's wire name, from its `as_str`.
macro_rules! display_wire_name {
    ($code:ty) => {
        impl std::fmt::Display for $code {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use display_wire_name;

display_wire_name!(ErrorCode);

/// One error: stable code, readable message, JSON pointer (RFC 6901) of the bad field (`""` is the whole document).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code} at '{path}': {message}")]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub path: String,
}

/// The most characters of one piece of input an error message quotes ([`excerpt`]).
pub const QUOTE_CHARS: usize = 64;

/// The longest message and path an [`Error`] keeps, in bytes, before the marker of what was left out: whatever
/// the input, an error document stays under a few KB (a message is cut here only when some construction quotes
/// input without [`excerpt`]; a path, only when member names in it are that long).
pub const MAX_ERROR_TEXT: usize = 1024;

/// `text` as an error message quotes it: whole when it is at most [`QUOTE_CHARS`] characters, else its first
/// [`QUOTE_CHARS`] characters and the marker `… (N bytes)` with its whole length, so a 10 MB value never makes a
/// 10 MB error and the reader sees that something was left out.
pub fn excerpt(text: &str) -> std::borrow::Cow<'_, str> {
    cut(text, QUOTE_CHARS, usize::MAX)
}

/// `text` cut after `chars` characters or `bytes` bytes, whichever comes first (at a character boundary), with the
/// marker `… (N bytes)`; unchanged when it fits.
fn cut(text: &str, chars: usize, bytes: usize) -> std::borrow::Cow<'_, str> {
    let end = text.char_indices().nth(chars).map_or(text.len(), |(i, _)| i).min(bytes);
    if end >= text.len() {
        return std::borrow::Cow::Borrowed(text);
    }
    let end = (0..=end).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    std::borrow::Cow::Owned(format!("{}… ({} bytes)", &text[..end], text.len()))
}

/// A message or path within [`MAX_ERROR_TEXT`] bytes (with the marker when cut): for error texts built outside
/// [`Error`] (a JSON-RPC error's message).
pub fn bounded(text: String) -> String {
    match cut(&text, usize::MAX, MAX_ERROR_TEXT) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(short) => short,
    }
}

impl Error {
    /// An error; a message or path over [`MAX_ERROR_TEXT`] bytes is cut there with the marker `… (N bytes)`, so no
    /// input makes an error document grow with it.
    pub fn new(code: ErrorCode, path: impl Into<String>, message: impl Into<String>) -> Self {
        Error { code, message: bounded(message.into()), path: bounded(path.into()) }
    }

    /// A list of `len` items at `path` within its limit of `max`, or `too_many_items` there saying so in `message`.
    pub(crate) fn at_most(len: usize, max: usize, path: &str, message: impl FnOnce() -> String) -> Result<(), Self> {
        if len > max { Err(Error::new(ErrorCode::TooManyItems, path, message())) } else { Ok(()) }
    }

    /// `{"error":{"code","message","path"}}`, the error document on every surface.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "error": { "code": self.code.as_str(), "message": self.message, "path": self.path }
        })
    }

    /// Reads a serde_json parse failure as `invalid_json`, keeping its line and column.
    pub fn from_json_error(e: &serde_json::Error) -> Self {
        Error::new(ErrorCode::InvalidJson, "", format!("not valid JSON: {e}"))
    }
}

/// Result alias for core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_keep_short_text_and_mark_what_they_leave_out() {
        assert_eq!(excerpt("colour"), "colour");
        let exact = "é".repeat(QUOTE_CHARS);
        assert_eq!(excerpt(&exact), exact);
        // 65 two-byte characters: 64 kept, and the whole length in bytes.
        assert_eq!(excerpt(&"é".repeat(65)), format!("{}… (130 bytes)", "é".repeat(64)));
        let big = "x".repeat(10_485_760);
        assert_eq!(excerpt(&big), format!("{}… (10485760 bytes)", "x".repeat(64)));
    }

    #[test]
    fn an_error_keeps_at_most_a_bounded_message_and_path() {
        let big = "€".repeat(1_000_000);
        let e = Error::new(ErrorCode::UnknownField, format!("/{big}"), format!("unknown member '{big}'"));
        assert!(e.message.len() <= MAX_ERROR_TEXT + 32 && e.path.len() <= MAX_ERROR_TEXT + 32, "{}", e.path.len());
        assert!(e.message.starts_with("unknown member '€€€") && e.message.ends_with("… (3000017 bytes)"));
        assert!(e.path.starts_with("/€€") && e.path.ends_with("… (3000001 bytes)"), "{}", &e.path[1000..]);
        let short = Error::new(ErrorCode::UnknownField, "/a", "unknown member 'a'");
        assert_eq!((short.path.as_str(), short.message.as_str()), ("/a", "unknown member 'a'"));
    }
}
