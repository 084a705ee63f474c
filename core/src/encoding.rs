//! Strict encodings for everything that is signed or hashed: RFC 4648 base64 (standard alphabet with canonical
//! padding for notes and checkpoints, URL-safe without padding for JWK members), lowercase hex, and SHA-256.
//!
//! Decoding refuses whitespace, missing or extra padding, the other alphabet and non-zero trailing bits (the base64
//! crate's engines as configured here: canonical padding or none, no trailing bits), so each byte string has
//! exactly one accepted text. The tests hold that every text the decoders accept is the encoding of what it
//! decodes to, over every short text of the characters where canonical and non-canonical spellings meet; that is
//! what lets the decoders skip re-encoding each value to compare (a tenth of reading a bundle in WebAssembly).

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use sha2::{Digest, Sha256};

/// SHA-256 of `data`.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

/// Standard base64 with padding (RFC 4648 §4), the encoding of signed notes and checkpoints.
pub fn encode_std(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Decodes canonical standard base64 with padding. `None` for anything else, including the empty string's
/// non-canonical spellings; `""` decodes to no bytes.
pub fn decode_std(text: &str) -> Option<Vec<u8>> {
    STANDARD.decode(text).ok()
}

/// [`decode_std`] of exactly `N ≤ 48` bytes, without touching the heap (proof hashes: ten or more per receipt).
/// `None` for anything [`decode_std`] refuses and for any other length.
pub fn decode_std_array<const N: usize>(text: &str) -> Option<[u8; N]> {
    const MAX: usize = 48;
    let mut decoded = [0u8; MAX];
    // 64 characters decode to at most 48 bytes, so a longer text cannot be N ≤ 48 bytes.
    if N > MAX || text.len() != N.div_ceil(3) * 4 {
        return None;
    }
    let n = STANDARD.decode_slice(text, &mut decoded).ok()?;
    decoded.get(..n)?.try_into().ok()
}

/// URL-safe base64 without padding (RFC 4648 §5, RFC 7515 `base64url`), the encoding of JWK members.
pub fn encode_url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes canonical unpadded base64url. `None` for padding, the standard alphabet, whitespace or trailing bits.
pub fn decode_url(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text).ok()
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    s
}

/// One hex digit's value; `upper` says whether `A`–`F` count.
fn nibble(c: u8, upper: bool) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' if upper => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Decodes lowercase or uppercase hex of even length. `None` for anything else.
pub fn decode_hex(text: &str) -> Option<Vec<u8>> {
    let raw = text.as_bytes();
    if raw.len() % 2 != 0 {
        return None;
    }
    raw.chunks_exact(2).map(|pair| Some(nibble(pair[0], true)? << 4 | nibble(pair[1], true)?)).collect()
}

/// Exactly `N` bytes as lowercase hex, the one spelling [`hex`] writes. `None` for uppercase digits, any other
/// character or any other length. Decoded in place, without touching the heap (a share carries one per receipt).
pub fn decode_lower_hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let raw = text.as_bytes();
    if raw.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (byte, pair) in out.iter_mut().zip(raw.chunks_exact(2)) {
        *byte = nibble(pair[0], false)? << 4 | nibble(pair[1], false)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_base64_is_strict() {
        assert_eq!(decode_std("AAEC").as_deref(), Some(&[0u8, 1, 2][..]));
        assert_eq!(decode_std("").as_deref(), Some(&[][..]));
        assert_eq!(decode_std("AAE="), Some(vec![0, 1]));
    }

    #[test]
    fn each_alphabet_refuses_what_it_does_not_write() {
        type Decode = fn(&str) -> Option<Vec<u8>>;
        let (std, url): (Decode, Decode) = (decode_std, decode_url);
        let refused = [
            (std, "AAE", "missing padding"),
            (std, "AAF=", "non-zero trailing bits"),
            (std, "AA E=", "whitespace"),
            (std, "AAE=\n", "trailing newline"),
            (std, "-_8=", "url alphabet"),
            (url, "-_8=", "padding"),
            (url, "+/8", "standard alphabet"),
            (url, "-_9", "non-zero trailing bits"),
            (url, "A", "impossible length"),
        ];
        for (decode, text, why) in refused {
            assert_eq!(decode(text), None, "{text:?}: {why}");
        }
    }

    #[test]
    fn fixed_length_std_base64_agrees_with_decode_std() {
        let h = [7u8; 32];
        let text = encode_std(&h);
        assert_eq!(decode_std_array::<32>(&text), Some(h));
        assert_eq!(decode_std_array::<31>(&text), None, "another length");
        assert_eq!(decode_std_array::<32>(&encode_std(&[7u8; 31])), None, "31 bytes");
        assert_eq!(decode_std_array::<32>(&encode_std(&[7u8; 33])), None, "33 bytes");
        // 32 bytes end in one padding character; a non-zero trailing bit or a missing pad is refused, as by decode_std.
        let mut trailing = text.clone().into_bytes();
        trailing[42] = b'5';
        let trailing = String::from_utf8(trailing).unwrap_or_default();
        assert_eq!(decode_std(&trailing), None);
        assert_eq!(decode_std_array::<32>(&trailing), None);
        assert_eq!(decode_std_array::<32>(text.trim_end_matches('=')), None);
        assert_eq!(decode_std_array::<32>(&text.replace('B', "-")), None);
        assert_eq!(decode_std_array::<2>("AAE="), Some([0, 1]));
        assert_eq!(decode_std_array::<0>(""), Some([]));
    }

    /// Every text of up to 5 characters over characters at the edges — the first of each trailing-bit class (`A`,
    /// `E`, `Q`, `g`, `w`), values with low bits set (`B`, `F`, `9`), both alphabets' last two, padding, whitespace
    /// and a foreign character — plus 200,000 pseudo-random texts of 6 to 12: whatever a decoder accepts is the
    /// encoding of what it decoded, and the fixed-length decoder agrees with the general one.
    #[test]
    fn every_accepted_text_is_the_encoding_of_its_bytes() {
        const CHARS: &[u8] = b"AEQgwBF9+/-_= .";
        let mut accepted = [0usize; 2];
        let mut check = |text: &str| {
            if let Some(bytes) = decode_std(text) {
                assert_eq!(encode_std(&bytes), text, "standard: {text:?}");
                accepted[0] += 1;
                if bytes.len() == 3 {
                    assert_eq!(decode_std_array::<3>(text).map(Vec::from), Some(bytes.clone()), "{text:?}");
                }
            } else {
                assert_eq!(decode_std_array::<3>(text), None, "{text:?}");
                assert_eq!(decode_std_array::<4>(text), None, "{text:?}");
            }
            if let Some(bytes) = decode_url(text) {
                assert_eq!(encode_url(&bytes), text, "url: {text:?}");
                accepted[1] += 1;
            }
        };
        let mut text = Vec::new();
        fn all(len: usize, text: &mut Vec<u8>, check: &mut dyn FnMut(&str)) {
            if text.len() == len {
                return check(std::str::from_utf8(text).unwrap_or_default());
            }
            for &c in CHARS {
                text.push(c);
                all(len, text, check);
                text.pop();
            }
        }
        for len in 0..=5 {
            all(len, &mut text, &mut check);
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = 6 + (x % 7) as usize;
            let t: String =
                (0..len).map(|i| char::from(CHARS[((x >> (i * 4 + 3)) % CHARS.len() as u64) as usize])).collect();
            check(&t);
        }
        // Not vacuous: both decoders accepted texts of every kind.
        assert!(accepted[0] > 1_000 && accepted[1] > 1_000, "{accepted:?}");
    }

    #[test]
    fn lower_hex_of_a_fixed_length_has_one_spelling() {
        let h = [0xabu8, 0x01, 0xff];
        assert_eq!(decode_lower_hex::<3>(&hex(&h)), Some(h));
        for bad in ["AB01FF", "ab01f", "ab01ff00", "ab01fg", "ab 1ff", ""] {
            assert_eq!(decode_lower_hex::<3>(bad), None, "{bad:?}");
        }
        assert_eq!(decode_lower_hex::<0>(""), Some([]));
    }

    #[test]
    fn url_base64_is_strict() {
        assert_eq!(decode_url("-_8"), Some(vec![0xfb, 0xff]));
    }

    #[test]
    fn hex_round_trips() {
        assert_eq!(hex(&[0x00, 0xab, 0xff]), "00abff");
        assert_eq!(decode_hex("00abFF"), Some(vec![0x00, 0xab, 0xff]));
        assert_eq!(decode_hex("0"), None);
        assert_eq!(decode_hex("zz"), None);
    }

    #[test]
    fn sha256_of_empty_string() {
        // FIPS 180-2 / RFC 6962 empty tree hash.
        assert_eq!(hex(&sha256(b"")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
