//! The published test keys: each an Ed25519 seed = SHA-256 of a documented text, so anyone can derive them. Every
//! key set of the vectors tags them `curbi:test`, so a verifier refuses them unless the caller allows test keys.

use curbi::proof::encoding::sha256;
use curbi::proof::keys::SigningKey;

/// The seed text of the published test key: its Ed25519 seed is the SHA-256 of these bytes.
pub const TEST_KEY_SEED: &str = "curbi test key 0";
/// A second test key that nobody trusts in the vectors.
pub const OTHER_KEY_SEED: &str = "curbi test key 1";
/// Seeds of the two test witnesses.
pub const WITNESS_SEEDS: [&str; 2] = ["curbi test witness 0", "curbi test witness 1"];
/// Key names of the two test witnesses.
pub const WITNESS_NAMES: [&str; 2] = ["witness0.example.com", "witness1.example.com"];

/// A signing key from a documented seed text: Ed25519 seed = SHA-256(text).
pub fn key_from_text(text: &str) -> SigningKey {
    SigningKey::from_seed(&sha256(text.as_bytes()))
}

/// The published test key.
pub fn test_key() -> SigningKey {
    key_from_text(TEST_KEY_SEED)
}
