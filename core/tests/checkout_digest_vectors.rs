//! `vectors/checkout_digest/`: checkouts as raw text, their RFC 8785 canonical text written by hand and its digest.
//! The digest is checked twice: against SHA-256 taken here over the hand-written text (sha2 and base64 directly, not
//! Curbi's encoding), and against `api::checkout_digest`; the canonicalizer is also held to the canonical text.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use curbi::api;
use sha2::{Digest, Sha256};

#[test]
fn checkout_digest_vectors() {
    common::each_case("checkout_digest", |file, case| {
        let what = format!("{file}: {}", case["description"]);
        let (text, expected) = (case["checkout"].as_str().unwrap(), &case["expected"]);
        let got = api::checkout_digest(text.as_bytes());
        if let Some(error) = expected.get("error") {
            let e = got.err().unwrap_or_else(|| panic!("{what}: expected an error"));
            assert_eq!(
                (e.code.as_str(), e.path.as_str()),
                (error["code"].as_str().unwrap(), error["path"].as_str().unwrap()),
                "{what}"
            );
        } else {
            let canonical = expected["canonical"].as_str().unwrap();
            let digest = expected["digest"].as_str().unwrap();
            assert_eq!(
                URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes())),
                digest,
                "{what}: the file's digest"
            );
            let value = curbi::json::read(text.as_bytes()).unwrap();
            let mut signed = value.clone();
            signed.as_object_mut().unwrap().remove("ap2");
            assert_eq!(curbi::jcs::canonicalize(&signed).unwrap(), canonical, "{what}: canonical text");
            assert_eq!(got.unwrap(), digest, "{what}");
            assert_eq!(api::checkout_digest_json(text.as_bytes()).unwrap(), format!("\"{digest}\""), "{what}");
        }
    });
}
