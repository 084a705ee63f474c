//! The offline bundle verifier: `verify_bundle(bundle, options)` against the caller's trusted keys (docs/PROOF.md
//! §Verifying), and its JSON entry points. Signatures are checked before anything they sign is parsed; leaf hashes
//! are recomputed from the entry bytes; tree size and root come only from a verified checkpoint; duplicates and
//! conflicts are keyed on the SHA-256 of signed bytes. Receipts are checked in parallel on every core.
//!
//! - `options`: what the caller trusts ([`VerifyOptions`], [`Mode`], witnesses), read strictly from a request, and
//!   the entry points over JSON ([`verify_request_text`], [`verify_parts_text`], the [`Verifier`] handle).
//! - `report`: the result document ([`Verification`], [`ItemResult`], [`HeadSummary`], [`Evidence`]) and the seed's
//!   reasons ([`Reason`]), plus `malformed` (with the `error` that says where) for input that cannot be read.
//! - `history`: heads seen before ([`KnownHead`]) and the fork, rollback and consistency checks.
//! - `algorithm`: [`verify_bundle`] as a sequence of named phases.
//! - `shares`: the same verification split over workers for hosts without threads ([`Shares`]).

pub(crate) mod algorithm;
pub(crate) mod history;
mod options;
pub(crate) mod report;
mod shares;

pub use algorithm::verify_bundle;
pub use history::KnownHead;
pub use options::{
    MAX_KNOWN, MAX_KNOWN_BYTES, MAX_WITNESSES, Mode, Verifier, VerifyOptions, WitnessPolicy, verify_parts_text,
    verify_request, verify_request_text,
};
pub(crate) use options::{read_boolean, read_known};
pub use report::{Evidence, HeadSummary, ItemResult, Reason, SCOPE, Scope, Verification};
pub use shares::Shares;
