//! Differential: `PreparedKey::verify` (core/src/ed25519.rs, the fixed-base tables) and `VerifyingKey::verify`
//! against ed25519-dalek's `verify_strict`, the reference, on keys and signatures derived from the input and then
//! changed at the edges `verify_strict` has a rule for. The two verdicts must be the same on every input.
//!
//! From the input: a seed (core's `SigningKey` signs the message), or a secret scalar and a nonce that make a
//! signature with curve25519-dalek's scalar and point operations (so that R or A can carry a torsion component and
//! still satisfy the cofactored equation); then mutations of the key, R, S and the message: points of small order,
//! a torsion point added, non-canonical encodings (y + p, a sign bit on x = 0), S + L and S + k·L, bytes from the
//! input, bit flips. No curve arithmetic is written here: every point and scalar operation is curve25519-dalek's.
#![no_main]

use curbi::proof::keys::{KeyError, PreparedKey, VerifyingKey};
use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT, EIGHT_TORSION};
use curve25519_dalek::edwards::CompressedEdwardsY;
use curve25519_dalek::scalar::Scalar;
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use sha2::{Digest as _, Sha512};

/// L, the order of the prime subgroup, little-endian (RFC 8032 §5.1): one more than −1 mod L, curve25519-dalek's
/// canonical encoding of the largest scalar.
fn order() -> [u8; 32] {
    let mut one = [0u8; 32];
    one[0] = 1;
    add_multiple(&(-Scalar::ONE).to_bytes(), &one, 1).expect("L < 2^256")
}

/// p = 2^255 − 19, little-endian: all ones but the low byte (0xff − 18) and the top bit.
fn field_prime() -> [u8; 32] {
    let mut p = [0xff; 32];
    p[0] = 0xed;
    p[31] = 0x7f;
    p
}

/// `a + m·b` over 256-bit little-endian integers (byte arithmetic on encodings, not on the curve); `None` past
/// 2^256.
fn add_multiple(a: &[u8; 32], b: &[u8; 32], m: u8) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    let mut carry = 0u32;
    for i in 0..32 {
        let v = u32::from(a[i]) + u32::from(b[i]) * u32::from(m) + carry;
        out[i] = v as u8;
        carry = v >> 8;
    }
    (carry == 0).then_some(out)
}

/// An encoding of an edwards25519 y coordinate at or above p (y + p for a small y, either sign bit): what a strict
/// decoder refuses and curve25519-dalek reads modulo p.
fn non_canonical(small_y: u8, sign: bool) -> [u8; 32] {
    let mut e = field_prime();
    // p's low byte is 0xed: adding up to 18 carries nowhere.
    e[0] += small_y % 19;
    if sign {
        e[31] |= 0x80;
    }
    e
}

/// A 32-byte encoding of the kind `kind` selects, for R or the key; `current` is the encoding it replaces.
fn point_mutation(u: &mut Unstructured<'_>, current: [u8; 32]) -> Result<[u8; 32]> {
    let t = usize::from(u.int_in_range(0u8..=7)?);
    Ok(match u.int_in_range(0u8..=6)? {
        // The point plus a point of small order (a mixed-order point when t ≠ 0).
        0 => match CompressedEdwardsY(current).decompress() {
            Some(p) => (p + EIGHT_TORSION[t]).compress().to_bytes(),
            None => current,
        },
        // A point of small order, canonically encoded.
        1 => EIGHT_TORSION[t].compress().to_bytes(),
        // y ≥ p.
        2 => non_canonical(u.arbitrary()?, u.arbitrary()?),
        // The sign bit flipped (on x = 0 a "negative zero" that no canonical encoder writes).
        3 => {
            let mut e = current;
            e[31] ^= 0x80;
            e
        }
        // Any bytes.
        4 => u.arbitrary()?,
        // One bit flipped.
        5 => {
            let mut e = current;
            let bit = u.int_in_range(0u16..=255)?;
            e[usize::from(bit / 8)] ^= 1 << (bit % 8);
            e
        }
        // The negated point.
        _ => match CompressedEdwardsY(current).decompress() {
            Some(p) => (-p).compress().to_bytes(),
            None => current,
        },
    })
}

fn scalar_mutation(u: &mut Unstructured<'_>, s: [u8; 32]) -> Result<[u8; 32]> {
    Ok(match u.int_in_range(0u8..=5)? {
        // S + k·L, k = 1 ..= 15: the same scalar mod L, never canonical.
        0 => add_multiple(&s, &order(), u.int_in_range(1u8..=15)?).unwrap_or(s),
        // L itself, zero, and L − 1 (the largest canonical S).
        1 => order(),
        2 => [0; 32],
        3 => {
            let mut e = order();
            e[0] -= 1;
            e
        }
        // The top bits (dalek's legacy check looked at the three high bits only).
        4 => {
            let mut e = s;
            e[31] |= 0x10 << u.int_in_range(0u8..=3)?;
            e
        }
        _ => u.arbitrary()?,
    })
}

/// A key, message and signature made from the input: signed by a seed, or by a secret scalar and nonce with a
/// torsion point added to the key or to R after the fact (S still satisfies the cofactored equation).
fn signed(u: &mut Unstructured<'_>) -> Result<([u8; 32], Vec<u8>, [u8; 64], bool)> {
    let msg_len = u.int_in_range(0usize..=256)?;
    let msg = u.bytes(msg_len.min(u.len()))?.to_vec();
    if u.arbitrary::<bool>()? {
        let seed: [u8; 32] = u.arbitrary()?;
        let signer = curbi::proof::keys::SigningKey::from_seed(&seed);
        let sig = signer.sign(&msg);
        return Ok((signer.verifying_key().to_bytes(), msg, sig, true));
    }
    let a = Scalar::from_bytes_mod_order(u.arbitrary()?);
    let r = Scalar::from_bytes_mod_order(u.arbitrary()?);
    let (ta, tr) = (usize::from(u.int_in_range(0u8..=7)?), usize::from(u.int_in_range(0u8..=7)?));
    let key = (ED25519_BASEPOINT_POINT * a + EIGHT_TORSION[ta]).compress();
    let big_r = (ED25519_BASEPOINT_POINT * r + EIGHT_TORSION[tr]).compress();
    let k =
        Scalar::from_hash(Sha512::new().chain_update(big_r.as_bytes()).chain_update(key.as_bytes()).chain_update(&msg));
    let s = r + k * a;
    let mut sig = [0u8; 64];
    sig[..32].copy_from_slice(big_r.as_bytes());
    sig[32..].copy_from_slice(s.as_bytes());
    // Valid for verify_strict when neither carries a torsion component and the key is not the identity.
    Ok((key.to_bytes(), msg, sig, false))
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let (mut key, mut msg, mut sig, by_seed) = signed(&mut u)?;
    let mutations: u8 = u.arbitrary()?;
    if mutations & 1 != 0 {
        key = point_mutation(&mut u, key)?;
    }
    if mutations & 2 != 0 {
        let r = point_mutation(&mut u, sig[..32].try_into().expect("32 bytes"))?;
        sig[..32].copy_from_slice(&r);
    }
    if mutations & 4 != 0 {
        let s = scalar_mutation(&mut u, sig[32..].try_into().expect("32 bytes"))?;
        sig[32..].copy_from_slice(&s);
    }
    if mutations & 8 != 0 && !msg.is_empty() {
        let i = u.choose_index(msg.len() * 8)?;
        msg[i / 8] ^= 1 << (i % 8);
    }
    if mutations & 16 != 0 {
        msg.push(u.arbitrary()?);
    }
    compare(&key, &msg, &sig, by_seed && mutations & 0x1f == 0);
    Ok(())
}

fn compare(key: &[u8; 32], msg: &[u8], sig: &[u8; 64], must_verify: bool) {
    let signature = ed25519_dalek::Signature::from_bytes(sig);
    let reference = ed25519_dalek::VerifyingKey::from_bytes(key).map(|k| k.verify_strict(msg, &signature).is_ok());
    // The verdict, or None where dalek cannot decode the key.
    let reference = reference.ok();
    if must_verify {
        assert_eq!(reference, Some(true), "a signature just made must verify");
    }
    match VerifyingKey::from_bytes(key) {
        Ok(ours) => {
            let reference = reference.expect("a key core accepts is a point for dalek");
            let prepared = PreparedKey::new(&ours).verify(msg, sig).is_ok();
            assert_eq!(prepared, reference, "PreparedKey disagrees with verify_strict: key {key:02x?} sig {sig:02x?}");
            assert_eq!(ours.verify(msg, sig).is_ok(), reference, "VerifyingKey disagrees with verify_strict");
            // A wrong length is refused the same way by both of core's.
            assert_eq!(PreparedKey::new(&ours).verify(msg, &sig[..63]), ours.verify(msg, &sig[..63]));
        }
        // A weak key: verify_strict refuses every signature under it, so refusing the key loses nothing.
        Err(KeyError::Weak) => assert_eq!(reference, Some(false), "verify_strict accepted under a weak key"),
        // Not a point, or not its point's one encoding: dalek's decoder agrees it is no canonical point.
        Err(KeyError::NotAPoint) => assert!(reference.is_none(), "dalek decoded a key core found no point"),
        Err(KeyError::NonCanonical) => {
            let point = CompressedEdwardsY(*key).decompress().expect("a point");
            assert_ne!(point.compress().as_bytes(), key);
        }
        Err(KeyError::WrongLength(n)) => panic!("a 32-byte key refused for its length {n}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
