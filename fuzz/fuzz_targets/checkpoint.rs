//! Arbitrary bytes as a signed checkpoint note (`proof::note`): the note, checkpoint and Curbi checkpoint parsers,
//! the known-head reader, and, for whatever parses, verification under the published test key with the two test
//! witnesses pinned. Nothing may panic.
#![no_main]

use std::sync::OnceLock;

use curbi::proof::keys::VerifyingKey;
use curbi::proof::note::{self, Checkpoint, Note, NoteVerifier, SignatureKind};
use curbi::proof::verify::KnownHead;
use curbi_testkit::{WITNESS_NAMES, WITNESS_SEEDS, key_from_text, test_key};
use libfuzzer_sys::fuzz_target;

/// The log key and the pinned witnesses of the vectors.
fn keys() -> &'static (VerifyingKey, Vec<NoteVerifier>) {
    static KEYS: OnceLock<(VerifyingKey, Vec<NoteVerifier>)> = OnceLock::new();
    KEYS.get_or_init(|| {
        let witnesses = (0..2)
            .map(|i| {
                let key = key_from_text(WITNESS_SEEDS[i]).verifying_key();
                NoteVerifier::new(WITNESS_NAMES[i], SignatureKind::CosignatureV1, key).expect("a key name")
            })
            .collect();
        (test_key().verifying_key(), witnesses)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (log_key, witnesses) = keys();
    let _ = Checkpoint::parse_body(text);
    let _ = NoteVerifier::parse_vkey(text);
    let _ = KnownHead::parse(text);
    if let Ok(n) = Note::parse(text) {
        let _ = n.verify(witnesses);
        // A parsed note writes back to the very text it was read from.
        assert_eq!(n.to_string(), text);
    }
    if let Ok(signed) = note::parse_checkpoint(text) {
        let _ = signed.verify(log_key, witnesses);
        let _ = signed.verify(log_key, &[]);
    }
    let _ = note::parse_curbi_checkpoint(text);
});
