//! Strict encodings for everything that is signed or hashed: RFC 4648 base64 (standard alphabet with canonical
//! padding for notes and checkpoints, URL-safe without padding for JWK members), lowercase hex, and SHA-256.
//!
//! Decoding refuses whitespace, missing or extra padding, the other alphabet and non-zero trailing bits, and every
//! decoded value is re-encoded and compared with its input, so each byte string has exactly one accepted text.

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
    let bytes = STANDARD.decode(text).ok()?;
    (STANDARD.encode(&bytes) == text).then_some(bytes)
}

/// URL-safe base64 without padding (RFC 4648 §5, RFC 7515 `base64url`), the encoding of JWK members.
pub fn encode_url(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Decodes canonical unpadded base64url. `None` for padding, the standard alphabet, whitespace or trailing bits.
pub fn decode_url(text: &str) -> Option<Vec<u8>> {
    let bytes = URL_SAFE_NO_PAD.decode(text).ok()?;
    (URL_SAFE_NO_PAD.encode(&bytes) == text).then_some(bytes)
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

/// Decodes lowercase or uppercase hex of even length. `None` for anything else.
pub fn decode_hex(text: &str) -> Option<Vec<u8>> {
    fn nibble(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let raw = text.as_bytes();
    if raw.len() % 2 != 0 {
        return None;
    }
    raw.chunks_exact(2).map(|pair| Some(nibble(pair[0])? << 4 | nibble(pair[1])?)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_base64_is_strict() {
        assert_eq!(decode_std("AAEC").as_deref(), Some(&[0u8, 1, 2][..]));
        assert_eq!(decode_std("").as_deref(), Some(&[][..]));
        assert_eq!(decode_std("AAE="), Some(vec![0, 1]));
        assert_eq!(decode_std("AAE"), None, "missing padding");
        assert_eq!(decode_std("AAF="), None, "non-zero trailing bits");
        assert_eq!(decode_std("AA E="), None, "whitespace");
        assert_eq!(decode_std("AAE=\n"), None, "trailing newline");
        assert_eq!(decode_std("-_8="), None, "url alphabet");
    }

    #[test]
    fn url_base64_is_strict() {
        assert_eq!(decode_url("-_8"), Some(vec![0xfb, 0xff]));
        assert_eq!(decode_url("-_8="), None, "padding");
        assert_eq!(decode_url("+/8"), None, "standard alphabet");
        assert_eq!(decode_url("-_9"), None, "non-zero trailing bits");
        assert_eq!(decode_url("A"), None, "impossible length");
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
