//! `PreparedKey::verify` and `VerifyingKey::verify` against ed25519-dalek's `verify_strict` on random keys and
//! messages, their valid signatures, and signatures changed in every way `verify_strict` has a rule for: any bit
//! of R, S or the message; S ≥ L; R of small order (each of the eight torsion points, as canonical and
//! non-canonical encodings); R the identity with an S that satisfies the equation (made with the secret scalar);
//! R not a point; R shifted by a torsion point; a key of mixed order with a signature its secret scalar makes. All
//! three must give the same answer on every one, and the valid signatures must verify (96 cases here, 100,000 in
//! `make prop-ed25519`). Also: the bundle verifier, which switches a key to its prepared table from the sixteenth
//! signature on, rejects exactly the receipts whose signatures were changed, before and after the switch.
#![allow(clippy::unwrap_used, clippy::panic)]

use curbi::proof::bundle::ParsedBundle;
use curbi::proof::keys::{PreparedKey, SigningKey, VerifyingKey};
use curbi::proof::verify::{self, Reason, VerifyOptions};
use proptest::prelude::*;
use serde_json::json;
use sha2::Digest as _;

/// L, the order of the prime subgroup, little-endian (RFC 8032 §5.1).
const L: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

/// p = 2^255 − 19, little-endian.
const P: [u8; 32] = [
    0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
];

fn add_le(a: &[u8; 32], b: &[u8; 32]) -> ([u8; 32], bool) {
    let mut out = [0u8; 32];
    let mut carry = 0u16;
    for i in 0..32 {
        let v = u16::from(a[i]) + u16::from(b[i]) + carry;
        out[i] = v as u8;
        carry = v >> 8;
    }
    (out, carry != 0)
}

/// The eight points of small order, as their canonical encodings (the y coordinates 1, −1, 0 with either sign of
/// x, and the two pairs of order 8), from the torsion subgroup curve25519-dalek defines.
fn small_order_encodings() -> Vec<[u8; 32]> {
    curve25519_dalek::constants::EIGHT_TORSION.iter().map(|p| p.compress().to_bytes()).collect()
}

/// Encodings of small-order points that are not canonical: y + p for y = 0 and y = 1 (the only small-order y
/// values below 19, so the only ones whose y + p fits in 255 bits), with either sign bit; and the sign bit set on
/// x = 0 (y = 1 and y = p − 1), a "negative zero" no canonical encoder writes.
fn non_canonical_small_order() -> Vec<[u8; 32]> {
    let mut out = Vec::new();
    for y in [0u8, 1] {
        let mut e = P;
        e[0] += y;
        out.push(e);
        e[31] |= 0x80;
        out.push(e);
    }
    let mut identity = [0u8; 32];
    identity[0] = 1;
    let mut minus_one = P;
    minus_one[0] -= 1;
    for mut e in [identity, minus_one] {
        e[31] |= 0x80;
        out.push(e);
    }
    out
}

/// Both of core's verifiers against ed25519-dalek's `verify_strict` itself (the reference, called here directly).
fn agree(key: &VerifyingKey, prepared: &PreparedKey, msg: &[u8], sig: &[u8]) -> Result<bool, TestCaseError> {
    let reference = match <&[u8; 64]>::try_from(sig) {
        Ok(bytes) => ed25519_dalek::VerifyingKey::from_bytes(key.as_bytes())
            .unwrap()
            .verify_strict(msg, &ed25519_dalek::Signature::from_bytes(bytes))
            .is_ok(),
        Err(_) => false,
    };
    prop_assert_eq!(key.verify(msg, sig).is_ok(), reference, "VerifyingKey, sig {:02x?}", sig);
    prop_assert_eq!(prepared.verify(msg, sig).is_ok(), reference, "PreparedKey, sig {:02x?}", sig);
    Ok(reference)
}

/// 96 cases in `make test`; `make prop-ed25519` runs 100,000 (CURBI_ED25519_CASES, docs/FUZZING.md).
fn cases() -> u32 {
    std::env::var("CURBI_ED25519_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(96)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn prepared_verification_answers_what_verify_strict_answers(
        seed in any::<[u8; 32]>(),
        msg in prop::collection::vec(any::<u8>(), 0..300),
        bit in 0usize..512,
        msg_bit in any::<prop::sample::Index>(),
        torsion in 0usize..8,
    ) {
        let signer = SigningKey::from_seed(&seed);
        let key = signer.verifying_key();
        let prepared = PreparedKey::new(&key);
        let sig = signer.sign(&msg);
        prop_assert!(agree(&key, &prepared, &msg, &sig)?, "a valid signature must verify");

        // Any one bit of R or S.
        let mut flipped = sig;
        flipped[bit / 8] ^= 1 << (bit % 8);
        prop_assert!(!agree(&key, &prepared, &msg, &flipped)?);

        // Any one bit of the message.
        if !msg.is_empty() {
            let mut other = msg.clone();
            let i = msg_bit.index(other.len() * 8);
            other[i / 8] ^= 1 << (i % 8);
            prop_assert!(!agree(&key, &prepared, &other, &sig)?);
        }

        // S + L: the same scalar mod L, refused as non-canonical.
        let s: [u8; 32] = sig[32..].try_into().unwrap();
        let (s_plus_l, overflow) = add_le(&s, &L);
        if !overflow {
            let mut wide = sig;
            wide[32..].copy_from_slice(&s_plus_l);
            prop_assert!(!agree(&key, &prepared, &msg, &wide)?);
        }

        // R replaced by a point of small order, canonically or not encoded.
        for r in small_order_encodings().into_iter().chain(non_canonical_small_order()) {
            let mut weak = sig;
            weak[..32].copy_from_slice(&r);
            prop_assert!(!agree(&key, &prepared, &msg, &weak)?);
        }

        // R + T for a torsion point T: the equation holds only up to the cofactor, which verify_strict refuses.
        let r = curve25519_dalek::edwards::CompressedEdwardsY(sig[..32].try_into().unwrap()).decompress().unwrap();
        let shifted = (r + curve25519_dalek::constants::EIGHT_TORSION[torsion]).compress().to_bytes();
        let mut moved = sig;
        moved[..32].copy_from_slice(&shifted);
        prop_assert_eq!(agree(&key, &prepared, &msg, &moved)?, torsion == 0);

        // R the identity and S = k·a: the equation holds ([S]B − [k]A is the identity), so only the rule that R is
        // not of small order refuses it. The signer's secret scalar makes it; dalek's unstrict `verify` accepts it.
        let identity = <curve25519_dalek::EdwardsPoint as curve25519_dalek::traits::Identity>::identity().compress();
        let dalek_key = ed25519_dalek::SigningKey::from_bytes(&seed);
        let k = curve25519_dalek::scalar::Scalar::from_hash(
            sha2::Sha512::new().chain_update(identity.as_bytes()).chain_update(key.as_bytes()).chain_update(&msg),
        );
        let mut forged = [0u8; 64];
        forged[..32].copy_from_slice(identity.as_bytes());
        forged[32..].copy_from_slice((k * dalek_key.to_scalar()).as_bytes());
        let forged_sig = ed25519_dalek::Signature::from_bytes(&forged);
        prop_assert!(ed25519_dalek::Verifier::verify(&dalek_key.verifying_key(), &msg, &forged_sig).is_ok());
        prop_assert!(!agree(&key, &prepared, &msg, &forged)?);

        // A key with a torsion component (of mixed order: not weak, so it loads) and a signature its secret scalar
        // makes under it: [S]B − [k]A' is R − [k]T, so verify_strict accepts exactly when [k]T is the identity.
        let t = curve25519_dalek::constants::EIGHT_TORSION[torsion];
        let mixed = (dalek_key.verifying_key().to_edwards() + t).compress();
        let mixed_key = VerifyingKey::from_bytes(mixed.as_bytes()).unwrap();
        let nonce = curve25519_dalek::scalar::Scalar::from_hash(sha2::Sha512::new().chain_update(b"nonce").chain_update(&msg));
        let big_r = curve25519_dalek::EdwardsPoint::mul_base(&nonce).compress();
        let k = curve25519_dalek::scalar::Scalar::from_hash(
            sha2::Sha512::new().chain_update(big_r.as_bytes()).chain_update(mixed.as_bytes()).chain_update(&msg),
        );
        let mut cofactored = [0u8; 64];
        cofactored[..32].copy_from_slice(big_r.as_bytes());
        cofactored[32..].copy_from_slice((nonce + k * dalek_key.to_scalar()).as_bytes());
        let want = curve25519_dalek::traits::IsIdentity::is_identity(&(t * k));
        prop_assert_eq!(agree(&mixed_key, &PreparedKey::new(&mixed_key), &msg, &cofactored)?, want);

        // R not a point at all (about half of all y values), or y ≥ p.
        let mut junk = sig;
        junk[..32].copy_from_slice(&P);
        agree(&key, &prepared, &msg, &junk)?;
        for y in 2u8..40 {
            let mut off = sig;
            off[..32].fill(0);
            off[0] = y;
            agree(&key, &prepared, &msg, &off)?;
        }

        // A wrong length is the same error on both.
        prop_assert_eq!(prepared.verify(&msg, &sig[..63]), key.verify(&msg, &sig[..63]));
    }
}

#[test]
fn the_non_canonical_encodings_are_what_they_claim() {
    // Each decodes (curve25519-dalek reads y mod p) to a point of small order, and is not that point's encoding.
    let canonical = small_order_encodings();
    assert_eq!(canonical.len(), 8);
    for e in non_canonical_small_order() {
        let p = curve25519_dalek::edwards::CompressedEdwardsY(e).decompress().expect("decodes");
        assert!(p.is_small_order(), "{e:02x?}");
        assert_ne!(p.compress().to_bytes(), e);
        assert!(canonical.contains(&p.compress().to_bytes()));
    }
}

#[test]
fn the_verifier_rejects_exactly_the_changed_signatures_before_and_after_it_prepares_a_key() {
    let n = 24;
    let (mut bundle, keys) = curbi_testkit::large_bundle(n, true).unwrap();
    // Each item carries two signatures of the one key (its attestation's and its receipt's), so the table takes
    // over at the sixteenth signature, in item 7: change receipts before (0, 1, 2) and after the switch.
    let changed = [0usize, 1, 2, 9, 17, 23];
    for &i in &changed {
        let compact = bundle["receipts"][i]["receipt"].as_str().unwrap().to_string();
        let mut parts: Vec<String> = compact.split('.').map(str::to_string).collect();
        let sig = parts.len() - 2;
        let mut bytes = curbi::encoding::decode_url(&parts[sig]).unwrap();
        bytes[40] ^= 0x01;
        parts[sig] = curbi::encoding::encode_url(&bytes);
        bundle["receipts"][i]["receipt"] = json!(parts.join("."));
    }
    let parsed = ParsedBundle::from_value(&bundle, "/bundle").unwrap();
    let mut options = VerifyOptions::new(keys);
    options.allow_test = true;
    for threads in [1, 2] {
        options.threads = threads;
        let v = verify::verify_bundle(&parsed, &options);
        let bad: Vec<(usize, Reason)> = v.items.iter().filter(|i| !i.ok).map(|i| (i.index, i.reason)).collect();
        let want: Vec<(usize, Reason)> = changed.iter().map(|&i| (i, Reason::BadSignature)).collect();
        assert_eq!(bad, want, "{threads} threads");
    }
}
