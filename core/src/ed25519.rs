//! Ed25519 (RFC 8032): signing keys from a 32-byte seed, and verifying keys that refuse weak and non-canonical
//! points and verify with ed25519-dalek's `verify_strict` only. Proof of Action signs and verifies with them; the
//! purchase check verifies merchant signatures (`EdDSA`) with them.

use std::fmt;
use std::sync::LazyLock;

use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity as _;
use ed25519_dalek::Signer as _;
use sha2::{Digest as _, Sha512};

use crate::encoding::{encode_url, sha256};
use crate::error::ErrorCode;

/// Length of an Ed25519 seed (the RFC 8032 secret key).
pub const SEED_LEN: usize = 32;
/// Length of an Ed25519 public key.
pub const PUBLIC_KEY_LEN: usize = 32;
/// Length of an Ed25519 signature.
pub const SIGNATURE_LEN: usize = 64;

/// Why bytes are not a usable public key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("an Ed25519 public key is 32 bytes, not {0}")]
    WrongLength(usize),
    #[error("not the encoding of a point on edwards25519")]
    NotAPoint,
    #[error("a non-canonical encoding of its point")]
    NonCanonical,
    #[error("a weak key (a point of small order), for which a signature proves nothing")]
    Weak,
}

impl KeyError {
    /// The stable error code: `weak_key` for small-order points, `invalid_key` otherwise.
    pub fn code(&self) -> ErrorCode {
        match self {
            KeyError::Weak => ErrorCode::WeakKey,
            _ => ErrorCode::InvalidKey,
        }
    }
}

/// Why a signature was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("an Ed25519 signature is 64 bytes, not {0}")]
    WrongLength(usize),
    #[error("the public key is not a point on edwards25519")]
    BadPublicKey,
    #[error("the signature does not verify")]
    Invalid,
}

/// An Ed25519 signing key. Its seed is wiped from memory when it is dropped and never printed.
#[derive(Clone)]
pub struct SigningKey {
    inner: ed25519_dalek::SigningKey,
}

impl SigningKey {
    /// The key whose RFC 8032 secret key is `seed`.
    pub fn from_seed(seed: &[u8; SEED_LEN]) -> SigningKey {
        SigningKey { inner: ed25519_dalek::SigningKey::from_bytes(seed) }
    }

    /// Its public key.
    pub fn verifying_key(&self) -> VerifyingKey {
        VerifyingKey { inner: self.inner.verifying_key() }
    }

    /// The RFC 8032 Ed25519 signature of `message` (deterministic).
    pub fn sign(&self, message: &[u8]) -> [u8; SIGNATURE_LEN] {
        self.inner.sign(message).to_bytes()
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey").field("public", &self.verifying_key().to_jwk_x()).finish_non_exhaustive()
    }
}

/// An Ed25519 public key that is a canonical encoding of a point of large order: weak and non-canonical keys
/// cannot be constructed. Verification is ed25519-dalek's `verify_strict` and nothing else.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct VerifyingKey {
    inner: ed25519_dalek::VerifyingKey,
}

impl VerifyingKey {
    /// Decodes a public key, refusing non-points, non-canonical encodings and weak (small-order) points.
    pub fn from_bytes(bytes: &[u8; PUBLIC_KEY_LEN]) -> Result<VerifyingKey, KeyError> {
        let inner = ed25519_dalek::VerifyingKey::from_bytes(bytes).map_err(|_| KeyError::NotAPoint)?;
        // dalek keeps the bytes it was given; re-encoding the point shows whether they were its one canonical form
        // (y < p, and no sign bit on x = 0).
        if inner.to_edwards().compress().as_bytes() != bytes {
            return Err(KeyError::NonCanonical);
        }
        if inner.is_weak() {
            return Err(KeyError::Weak);
        }
        Ok(VerifyingKey { inner })
    }

    /// [`VerifyingKey::from_bytes`] from a slice of any length.
    pub fn from_slice(bytes: &[u8]) -> Result<VerifyingKey, KeyError> {
        let array: &[u8; PUBLIC_KEY_LEN] = bytes.try_into().map_err(|_| KeyError::WrongLength(bytes.len()))?;
        VerifyingKey::from_bytes(array)
    }

    /// The 32-byte encoding.
    pub fn to_bytes(&self) -> [u8; PUBLIC_KEY_LEN] {
        self.inner.to_bytes()
    }

    /// The 32-byte encoding, borrowed.
    pub fn as_bytes(&self) -> &[u8; PUBLIC_KEY_LEN] {
        self.inner.as_bytes()
    }

    /// Verifies `signature` over `message` with `verify_strict`: `S < L`, canonical `R`, no small-order `R` or key.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), SignatureError> {
        let bytes: &[u8; SIGNATURE_LEN] =
            signature.try_into().map_err(|_| SignatureError::WrongLength(signature.len()))?;
        let signature = ed25519_dalek::Signature::from_bytes(bytes);
        self.inner.verify_strict(message, &signature).map_err(|_| SignatureError::Invalid)
    }

    /// The JWK `x` member: unpadded base64url of the 32-byte encoding.
    pub fn to_jwk_x(&self) -> String {
        encode_url(self.as_bytes())
    }

    /// The RFC 7638 JWK thumbprint (SHA-256, base64url), Curbi's default `kid`.
    pub fn thumbprint(&self) -> String {
        // Required members only, lexicographic order, no whitespace (RFC 7638 §3.2, RFC 8037 §2).
        let canonical = format!(r#"{{"crv":"Ed25519","kty":"OKP","x":"{}"}}"#, self.to_jwk_x());
        encode_url(&sha256(canonical.as_bytes()))
    }
}

impl fmt::Debug for VerifyingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("VerifyingKey").field(&self.to_jwk_x()).finish()
    }
}

impl std::hash::Hash for VerifyingKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

/// A [`VerifyingKey`] prepared to verify many signatures: a fixed-base table of multiples of −A (220 KB, see
/// [`Comb`]), so that `[k](−A)` becomes 43 point additions where `verify_strict` doubles 256 times, and `[S]B`
/// uses the one basepoint table of the process the same way. Building it costs about ten verifications in
/// WebAssembly (1.7 ms) and thirty natively (0.6 ms); each later verification then takes under half of
/// `verify_strict`'s time in WebAssembly and about two thirds natively (docs/PERFORMANCE.md). The proof verifier
/// prepares a key from its sixteenth signature in one bundle on.
///
/// [`PreparedKey::verify`] answers exactly what [`VerifyingKey::verify`] (ed25519-dalek's `verify_strict`)
/// answers, for every input: the same checks in the same terms — `S` canonical (`S < L`), `R` a point and not of
/// small order, the key not of small order — and the same equation, `R == [k](−A) + [S]B` compared as encodings,
/// with `k = SHA-512(R ‖ A ‖ M) mod L` over the bytes as given. Only the way the right-hand side is computed
/// differs (and R's checks are made on the point its bytes matched, so R is never decompressed), and group
/// arithmetic is exact. Tests compare the two on Wycheproof, CCTV's edge cases, RFC 8032 and
/// random and mutated signatures (core/tests/proof_external.rs, core/tests/ed25519_prepared.rs).
pub struct PreparedKey {
    key: VerifyingKey,
    /// `is_small_order()` of the key's point, as `verify_strict` asks it on every call (always false for a
    /// [`VerifyingKey`], which refuses weak keys; kept so that the checks stay `verify_strict`'s one for one).
    small_order: bool,
    minus_a: Comb,
}

/// The basepoint's [`Comb`], built on the first prepared verification of the process (2.7 ms in WebAssembly, 1 ms
/// natively; 380 KB).
static BASEPOINT: LazyLock<Comb> = LazyLock::new(|| Comb::new(&ED25519_BASEPOINT_POINT, 7));

impl PreparedKey {
    pub fn new(key: &VerifyingKey) -> PreparedKey {
        let point = key.inner.to_edwards();
        PreparedKey { key: *key, small_order: point.is_small_order(), minus_a: Comb::new(&-point, 6) }
    }

    /// The key it was prepared from.
    pub fn key(&self) -> &VerifyingKey {
        &self.key
    }

    /// [`VerifyingKey::verify`], with the prepared table.
    pub fn verify(&self, message: &[u8], signature: &[u8]) -> Result<(), SignatureError> {
        let bytes: &[u8; SIGNATURE_LEN] =
            signature.try_into().map_err(|_| SignatureError::WrongLength(signature.len()))?;
        let (mut r, mut s) = ([0u8; 32], [0u8; 32]);
        r.copy_from_slice(&bytes[..32]);
        s.copy_from_slice(&bytes[32..]);
        let r = CompressedEdwardsY(r);
        let s = Option::<Scalar>::from(Scalar::from_canonical_bytes(s)).ok_or(SignatureError::Invalid)?;
        if self.small_order {
            return Err(SignatureError::Invalid);
        }
        let k = Scalar::from_hash(
            Sha512::new().chain_update(r.as_bytes()).chain_update(self.key.as_bytes()).chain_update(message),
        );
        let expected = BASEPOINT.mul_add(&s, self.minus_a.mul_add(&k, EdwardsPoint::identity()));
        // `verify_strict` decompresses R before this comparison; here the comparison comes first. Bytes equal to
        // `expected`'s encoding are a canonical encoding of a point, and that point is `expected`, so "R is a
        // point" holds and R's order is `expected`'s; bytes that differ are refused either way. One square root
        // (the decompression) saved per signature, and every refusal is the same answer.
        if expected.compress() != r || expected.is_small_order() {
            return Err(SignatureError::Invalid);
        }
        Ok(())
    }
}

/// Variable-time fixed-base multiplication by one point P: for each digit position `p` of a scalar in signed radix
/// 2^w, the multiples `j·2^(w·p)·P` for `j = 1 ..= 2^(w−1)`. A scalar's digits pick one point per position (or its
/// negation) and the product is their sum: `⌈257 / w⌉` additions, no doublings.
///
/// curve25519-dalek's own fixed-base tables are constant-time: every look-up scans its whole row with
/// conditional moves, which in WebAssembly costs about as much as the additions themselves. A verifier's scalars
/// (`k` from the signed bytes, `S` from the signature) are public, so it can index the row directly; no library
/// offers that for a point of the caller's choosing (its variable-time precomputation,
/// `VartimeEdwardsPrecomputation`, keeps the 256 doublings). Only curve25519-dalek's public, exact group
/// operations are used; tests compare every product with its scalar multiplication. Never use it for a secret
/// scalar: signing keeps the library's constant-time multiplication.
struct Comb {
    w: u32,
    /// `2^(w−1)`, the points in a row.
    half: usize,
    positions: usize,
    /// Position `p`'s row starts at `p · half`; its `j − 1`th point is `j·2^(w·p)·P`.
    points: Vec<EdwardsPoint>,
}

impl Comb {
    fn new(point: &EdwardsPoint, w: u32) -> Comb {
        debug_assert!((2..=8).contains(&w));
        let half = 1usize << (w - 1);
        // Digits in [−2^(w−1) + 1, 2^(w−1)] with a carry: one bit beyond the scalar's 256 leaves room for the last.
        let positions = 257usize.div_ceil(w as usize);
        let mut points = Vec::with_capacity(positions * half);
        let mut base = *point;
        for _ in 0..positions {
            let mut multiple = base;
            points.push(multiple);
            for _ in 1..half {
                multiple += base;
                points.push(multiple);
            }
            for _ in 0..w {
                base = base + base;
            }
        }
        Comb { w, half, positions, points }
    }

    /// `acc + [scalar]P`.
    fn mul_add(&self, scalar: &Scalar, mut acc: EdwardsPoint) -> EdwardsPoint {
        let mut digits = [0i16; 257];
        signed_digits(scalar.as_bytes(), self.w, &mut digits[..self.positions]);
        for (p, &d) in digits[..self.positions].iter().enumerate() {
            let row = p * self.half;
            match d {
                0 => {}
                d if d > 0 => acc += self.points[row + d.unsigned_abs() as usize - 1],
                d => acc -= self.points[row + d.unsigned_abs() as usize - 1],
            }
        }
        acc
    }
}

/// The digits `d_p` of the little-endian 256-bit `value` in signed radix `2^w`, least significant first, with
/// `value = Σ d_p · 2^(w·p)` and each `d_p` in `[−2^(w−1) + 1, 2^(w−1)]`; `out.len() · w` must exceed 256 so that
/// no carry is left over.
///
/// Both checks below are real `assert!`s, kept in release builds: a carry left over would mean a wrong product and
/// so a wrong verdict, which must never be answered. No input can reach either. Every caller is [`Comb::mul_add`],
/// whose `out` is `⌈257 / w⌉` digits for a `w` fixed in this file (6 and 7), so `out.len() · w ≥ 257` whatever
/// the scalar. The carry into a window is 0 or 1; the last window's top bit is bit `out.len() · w − 1 ≥ 256`, past
/// the 32 bytes, and reads as 0 (`bit` below), so that window's value is at most `2^(w−1) − 1` and plus a carry of 1
/// at most `2^(w−1)`: never above `half`, so it sets no carry. That holds for all 2^256 byte strings, not only for
/// reduced scalars (the tests `signed_digits_leave_no_carry_for_any_bytes` and `the_largest_values_leave_no_carry`
/// and the fuzz target `ed25519_prepared` try the extremes and generated values). A panic here would unwind into the bindings (the C ABI catches it and answers
/// `CURBI_STATUS_PANIC`, ffi/src/lib.rs), so it must stay unreachable: it guards the invariant, never an input.
fn signed_digits(value: &[u8; 32], w: u32, out: &mut [i16]) {
    assert!(out.len() * w as usize > 256, "{} digits of {w} bits cannot hold 256 bits and a carry", out.len());
    let bit = |i: usize| value.get(i / 8).map_or(0, |b| (b >> (i % 8)) & 1);
    let (full, half) = (1i16 << w, 1i16 << (w - 1));
    let mut carry = 0;
    for (p, digit) in out.iter_mut().enumerate() {
        let window = (0..w as usize).fold(0i16, |v, b| v | i16::from(bit(p * w as usize + b)) << b);
        let v = window + carry;
        (*digit, carry) = if v > half { (v - full, 1) } else { (v, 0) };
    }
    assert_eq!(carry, 0, "a carry left over past the last digit");
}

impl fmt::Debug for PreparedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("PreparedKey").field(&self.key.to_jwk_x()).finish()
    }
}

/// `verify_strict` over raw bytes with no key policy of ours: the key only has to decode to a point. This is the
/// measured primitive of the public vectors (Wycheproof, CCTV's `dalek_verify_strict` column); trust decisions
/// use [`VerifyingKey`], which also refuses non-canonical keys when they are loaded.
pub fn verify_strict_bytes(public_key: &[u8], message: &[u8], signature: &[u8]) -> Result<(), SignatureError> {
    let key: &[u8; PUBLIC_KEY_LEN] = public_key.try_into().map_err(|_| SignatureError::BadPublicKey)?;
    let key = ed25519_dalek::VerifyingKey::from_bytes(key).map_err(|_| SignatureError::BadPublicKey)?;
    let bytes: &[u8; SIGNATURE_LEN] = signature.try_into().map_err(|_| SignatureError::WrongLength(signature.len()))?;
    key.verify_strict(message, &ed25519_dalek::Signature::from_bytes(bytes)).map_err(|_| SignatureError::Invalid)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scalars that exercise the recoding: the edges (0, 1, the largest), every window at its digit bounds, runs of
    /// carries, and pseudo-random ones.
    fn scalars() -> Vec<Scalar> {
        let mut out = vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::from(2u64), -Scalar::from(2u64)];
        for byte in [0x0f, 0x10, 0x11, 0x7f, 0x80, 0x81, 0xff, 0x55, 0xaa] {
            out.push(Scalar::from_bytes_mod_order([byte; 32]));
            let mut low = [0u8; 32];
            low[..31].fill(byte);
            out.push(Scalar::from_bytes_mod_order(low));
        }
        for i in 0u32..200 {
            out.push(Scalar::from_hash(Sha512::new().chain_update(b"comb").chain_update(i.to_le_bytes())));
        }
        out
    }

    #[test]
    fn the_comb_multiplies_as_the_library_does() {
        let points = [ED25519_BASEPOINT_POINT, -EdwardsPoint::mul_base(&Scalar::from(123_456_789u64))];
        let offset = EdwardsPoint::mul_base(&Scalar::from(987u64));
        for point in points {
            for w in 2..=8 {
                let comb = Comb::new(&point, w);
                for s in scalars() {
                    let want = point * s;
                    assert_eq!(comb.mul_add(&s, EdwardsPoint::identity()), want, "w = {w}, s = {s:?}");
                    assert_eq!(comb.mul_add(&s, offset), offset + want, "w = {w}, s = {s:?}");
                }
            }
        }
    }

    #[test]
    fn signed_digits_sum_to_the_value_within_their_bounds() {
        // Σ d_p · 2^(w·p), carried out in base 2^8 limbs, equals the value; every digit is in its range.
        let mut values: Vec<[u8; 32]> = scalars().iter().map(|s| s.to_bytes()).collect();
        values.extend([[0xff; 32], [0x80; 32], [0x7f; 32], [0; 32]]);
        for value in values {
            for w in 2..=8u32 {
                let mut digits = vec![0i16; 257usize.div_ceil(w as usize)];
                signed_digits(&value, w, &mut digits);
                let half = 1i16 << (w - 1);
                assert!(digits.iter().all(|&d| d > -half && d <= half), "w = {w}: {digits:?}");
                let bytes = digits_value(&digits, w);
                assert_eq!(&bytes[..32], &value[..], "w = {w}");
                assert!(bytes[32..].iter().all(|&b| b == 0), "w = {w}");
            }
        }
    }

    /// Σ d_p · 2^(w·p) in base-2^8 limbs (limb i holds the parts d_p · 2^(w·p − 8·i), then carries), which must
    /// give back the value with nothing above it.
    fn digits_value(digits: &[i16], w: u32) -> Vec<u8> {
        let mut limbs = vec![0i64; 40];
        for (p, &d) in digits.iter().enumerate() {
            let at = p * w as usize;
            limbs[at / 8] += i64::from(d) << (at % 8);
        }
        for i in 0..limbs.len() - 1 {
            let carry = limbs[i].div_euclid(256);
            limbs[i] -= carry * 256;
            limbs[i + 1] += carry;
        }
        limbs.iter().map(|&l| u8::try_from(l).expect("a byte")).collect()
    }

    proptest::proptest! {
        /// Any 32 bytes, not only reduced scalars, at the digit counts `Comb` uses for every w: the carry check
        /// (a real assert) never fires and the digits sum to the value.
        #[test]
        fn signed_digits_leave_no_carry_for_any_bytes(value in proptest::prelude::any::<[u8; 32]>(), w in 2u32..=8) {
            let mut digits = vec![0i16; 257usize.div_ceil(w as usize)];
            signed_digits(&value, w, &mut digits);
            let back = digits_value(&digits, w);
            proptest::prop_assert_eq!(&back[..32], &value[..]);
        }
    }

    #[test]
    fn the_largest_values_leave_no_carry() {
        // All ones carries out of every window; a window of exactly half then a carry is the edge of the rule.
        let mut values = vec![[0xff; 32], [0x80; 32], [0x7f; 32]];
        for w in 2..=8u32 {
            let mut v = [0u8; 32];
            for i in (w as usize - 1..256).step_by(w as usize) {
                v[i / 8] |= 1 << (i % 8);
            }
            values.push(v);
        }
        for value in values {
            for w in 2..=8u32 {
                let mut digits = vec![0i16; 257usize.div_ceil(w as usize)];
                signed_digits(&value, w, &mut digits);
                assert_eq!(&digits_value(&digits, w)[..32], &value[..], "w = {w}");
            }
        }
    }

    /// Too few digits for 256 bits and a carry is refused in every build, release included (it was a
    /// `debug_assert!`, so a release build would have gone on and dropped the carry).
    #[test]
    #[should_panic(expected = "cannot hold 256 bits and a carry")]
    fn too_few_digits_are_refused_in_every_build() {
        let mut digits = [0i16; 32];
        signed_digits(&[0xff; 32], 8, &mut digits);
    }

    #[test]
    fn signing_and_verifying_round_trip() {
        let sk = SigningKey::from_seed(&[42; 32]);
        let vk = sk.verifying_key();
        let sig = sk.sign(b"message");
        assert_eq!(vk.verify(b"message", &sig), Ok(()));
        assert_eq!(vk.verify(b"massage", &sig), Err(SignatureError::Invalid));
        assert_eq!(vk.verify(b"message", &sig[..63]), Err(SignatureError::WrongLength(63)));
        assert_eq!(VerifyingKey::from_bytes(vk.as_bytes()), Ok(vk));
        assert_eq!(format!("{sk:?}"), format!("SigningKey {{ public: {:?}, .. }}", vk.to_jwk_x()));
    }
}
