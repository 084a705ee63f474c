//! Proof of Action primitives (DESIGN §5, docs/PROOF.md): RFC 9162 Merkle logs and proofs, Ed25519 keys and the
//! trusted JWKS, C2SP signed notes, checkpoints and cosignatures. Pure functions and in-memory types, no I/O.
//!
//! The envelopes (attestations, receipts), the reference gate, bundles and the bundle verifier are built on these.
//!
//! - [`merkle`]: SHA-256 leaf and node hashing, [`merkle::MerkleLog`], inclusion and consistency proofs, and their
//!   verification with exact lengths, 32-byte hashes, checked arithmetic and a 64-element cap checked before work.
//! - [`keys`]: [`keys::KeySet`], a strictly parsed JWKS decoded once, of the Ed25519 keys of [`crate::ed25519`]
//!   ([`keys::SigningKey`] from a 32-byte seed, [`keys::VerifyingKey`]: weak and non-canonical points refused,
//!   `verify_strict` only).
//! - [`note`]: C2SP `signed-note` text and signature lines, `tlog-checkpoint` bodies, Ed25519 note signatures and
//!   `cosignature/v1` timestamped cosignatures; the Curbi checkpoint (origin `curbi-checkpoint-v1.…`).
//! - [`envelope`]: attestations and receipts, their signing domains and compact form.
//! - [`gate`]: the in-memory reference gate (grant → attest → confirm → receipt → log → checkpoint → bundle).
//! - [`bundle`]: the `curbi.proof/0.1` bundle, written and read strictly.
//! - [`tiles`]: the log as C2SP `tlog-tiles` (paths, widths, entry bundles) and a bundle assembled from tiles.
//! - [`verify`]: `verify_bundle` against the caller's trusted keys, with the seed's reasons.
//! - [`browser_gate`]: browser gate proofs (`curbi.browser.gate-proof.v1`), their prover and their verifier.
//!
//! The test keys, fixtures and the generator of `vectors/proof/` are in the unpublished crate `curbi-testkit`.

pub mod browser_gate;
pub mod bundle;
pub mod envelope;
pub mod gate;
pub mod keys;
pub mod merkle;
pub mod note;
pub mod tiles;
pub mod verify;

mod json;

pub use keys::{KeySet, SigningKey, TrustedKey, VerifyingKey};
pub use merkle::{Hash, MerkleError, MerkleLog};
pub use note::{Checkpoint, Note, NoteError, SignedCheckpoint};
