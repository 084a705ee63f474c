//! The error codes as JavaScript sees them: a string union in index.d.ts, kept equal to the core's list by an
//! exhaustive match (and to vectors/errors.json by a test).

use napi_derive::napi;

/// Every stable error code (vectors/errors.json): the `code` of a thrown `CurbiError`. The match below is exhaustive,
/// so a code added to the core does not compile here until it is added to this list.
#[napi(string_enum = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidJson,
    InvalidType,
    UnknownField,
    MissingField,
    TooLong,
    TooShort,
    TooManyItems,
    TooFewItems,
    PatternMismatch,
    InvalidEnum,
    OutOfRange,
    ConflictingFields,
    InvalidValue,
    Unsupported,
    BodyTooLarge,
    UnsupportedMediaType,
    MethodNotAllowed,
    NotFound,
    Internal,
    InvalidKey,
    WeakKey,
    PrivateKeyPresent,
    DuplicateKey,
    InvalidNote,
}

impl From<curbi::ErrorCode> for ErrorCode {
    fn from(code: curbi::ErrorCode) -> ErrorCode {
        match code {
            curbi::ErrorCode::InvalidJson => ErrorCode::InvalidJson,
            curbi::ErrorCode::InvalidType => ErrorCode::InvalidType,
            curbi::ErrorCode::UnknownField => ErrorCode::UnknownField,
            curbi::ErrorCode::MissingField => ErrorCode::MissingField,
            curbi::ErrorCode::TooLong => ErrorCode::TooLong,
            curbi::ErrorCode::TooShort => ErrorCode::TooShort,
            curbi::ErrorCode::TooManyItems => ErrorCode::TooManyItems,
            curbi::ErrorCode::TooFewItems => ErrorCode::TooFewItems,
            curbi::ErrorCode::PatternMismatch => ErrorCode::PatternMismatch,
            curbi::ErrorCode::InvalidEnum => ErrorCode::InvalidEnum,
            curbi::ErrorCode::OutOfRange => ErrorCode::OutOfRange,
            curbi::ErrorCode::ConflictingFields => ErrorCode::ConflictingFields,
            curbi::ErrorCode::InvalidValue => ErrorCode::InvalidValue,
            curbi::ErrorCode::Unsupported => ErrorCode::Unsupported,
            curbi::ErrorCode::BodyTooLarge => ErrorCode::BodyTooLarge,
            curbi::ErrorCode::UnsupportedMediaType => ErrorCode::UnsupportedMediaType,
            curbi::ErrorCode::MethodNotAllowed => ErrorCode::MethodNotAllowed,
            curbi::ErrorCode::NotFound => ErrorCode::NotFound,
            curbi::ErrorCode::Internal => ErrorCode::Internal,
            curbi::ErrorCode::InvalidKey => ErrorCode::InvalidKey,
            curbi::ErrorCode::WeakKey => ErrorCode::WeakKey,
            curbi::ErrorCode::PrivateKeyPresent => ErrorCode::PrivateKeyPresent,
            curbi::ErrorCode::DuplicateKey => ErrorCode::DuplicateKey,
            curbi::ErrorCode::InvalidNote => ErrorCode::InvalidNote,
        }
    }
}
