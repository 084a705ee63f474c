//! Fuzz-style property tests of every proof parser that reads untrusted input (notes, checkpoints, verifier keys,
//! key sets, raw Merkle proofs): none panics on arbitrary or near-valid input, and a single-character edit of a
//! signed checkpoint never still verifies with the same result. (A cargo-fuzz target is still to come.)
#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::OnceLock;

use curbi::proof::keys::{KeySet, SigningKey, TrustedKey};
use curbi::proof::merkle;
use curbi::proof::note::{
    self, Checkpoint, CheckpointSignatures, Note, NoteSigner, NoteVerifier, SignatureKind, SignedCheckpoint,
};
use proptest::prelude::*;
use serde_json::Value;

mod props;

/// Runs every text parser on `s`; each must return, never panic.
fn parse_everything(s: &str) {
    let _ = Note::parse(s);
    let _ = note::parse_checkpoint(s);
    let _ = note::parse_curbi_checkpoint(s);
    let _ = Checkpoint::parse_body(s);
    let _ = NoteVerifier::parse_vkey(s);
    let _ = KeySet::parse(s);
    if let Ok(signed) = note::parse_checkpoint(s) {
        let _ = signed.verify(&fixture().log_key.verifying_key(), &[]);
        let _ = signed.note().verify(&[]);
    }
}

/// Pieces that note and checkpoint parsers care about, for near-valid inputs.
fn note_fragment() -> impl Strategy<Value = String> {
    let fixed = ["\n", "\n\n", "\u{2014} ", " ", "curbi-checkpoint-v1.", "0", "=", "\r", "+"];
    let patterns = ["[0-9]{1,21}", "[A-Za-z0-9+/]{1,12}={0,2}", "[a-z./-]{1,10}"];
    props::fragments(&fixed, &patterns, vec![props::any_char()])
}

fn near_note() -> impl Strategy<Value = String> {
    prop::collection::vec(note_fragment(), 0..40).prop_map(|parts| parts.concat())
}

/// A signed Curbi checkpoint with a witness cosignature, the keys that verify it, and what verification gives.
struct Fixture {
    text: String,
    log_key: SigningKey,
    witness: NoteVerifier,
    verified: Option<CheckpointSignatures>,
}

/// Built once: Ed25519 in a debug build is slow.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let (text, log_key, witness) = signed_fixture();
        let verified = verify(&note::parse_curbi_checkpoint(&text).unwrap(), &log_key, &witness);
        Fixture { text, log_key, witness, verified }
    })
}

fn signed_fixture() -> (String, SigningKey, NoteVerifier) {
    let log_key = SigningKey::from_seed(&[11; 32]);
    let root = merkle::leaf_hash(b"fixture");
    let cp = Checkpoint::new("curbi-checkpoint-v1.example.com/log", 42, root).unwrap();
    let text = note::sign_curbi_checkpoint(&cp, &log_key, 1_795_176_000).unwrap();
    let witness = NoteSigner::new("witness.example/w1", SignatureKind::CosignatureV1, SigningKey::from_seed(&[12; 32]));
    let witness = witness.unwrap();
    let mut note = Note::parse(&text).unwrap();
    note.add_signature(witness.cosign(note.text(), 1_795_176_001).unwrap()).unwrap();
    (note.to_string(), log_key, witness.verifier())
}

fn verify(signed: &SignedCheckpoint, log_key: &SigningKey, witness: &NoteVerifier) -> Option<CheckpointSignatures> {
    signed.verify(&log_key.verifying_key(), std::slice::from_ref(witness)).ok()
}

/// Applies one edit at character `at`: replace it, delete it, or insert before it.
fn edit(s: &str, at: usize, op: u8, c: char) -> String {
    let chars: Vec<char> = s.chars().collect();
    let at = at % (chars.len() + 1);
    let mut out: Vec<char> = chars.clone();
    match op % 3 {
        0 if at < chars.len() => out[at] = c,
        1 if at < chars.len() => {
            out.remove(at);
        }
        _ => out.insert(at, c),
    }
    out.into_iter().collect()
}

fn json_value() -> impl Strategy<Value = Value> {
    let names = prop_oneof![
        Just("keys"),
        Just("kty"),
        Just("crv"),
        Just("x"),
        Just("d"),
        Just("kid"),
        Just("alg"),
        Just("use"),
        Just("key_ops"),
        Just("curbi:nbf"),
        Just("curbi:exp"),
        Just("curbi:test"),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        Just(Value::from("OKP")),
        Just(Value::from("Ed25519")),
        Just(Value::from("EdDSA")),
        Just(Value::from("verify")),
        Just(Value::from("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")),
        "[A-Za-z0-9_=+/-]{0,44}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((names.clone(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(s in any::<String>()) {
        parse_everything(&s);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        parse_everything(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn near_valid_notes_never_panic(s in near_note()) {
        parse_everything(&s);
        // A prefix that makes a checkpoint body more likely.
        parse_everything(&format!("curbi-checkpoint-v1.a\n{s}"));
    }

}

proptest! {
    // Each case verifies up to three Ed25519 signatures, slow in a debug build: fewer cases.
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn one_edit_of_a_signed_checkpoint_never_verifies_the_same(at in any::<usize>(), op in any::<u8>(), c in any::<char>()) {
        let f = fixture();
        prop_assert!(f.verified.as_ref().is_some_and(|o| o.witnesses.len() == 1));
        let edited = edit(&f.text, at, op, c);
        if edited != f.text {
            let parsed = note::parse_curbi_checkpoint(&edited);
            let result = parsed.ok().and_then(|s| verify(&s, &f.log_key, &f.witness));
            prop_assert!(result != f.verified, "edit verified the same: {:?}", edited);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_key_sets_never_panic(v in json_value()) {
        let _ = KeySet::from_value(&v);
        let _ = KeySet::parse(&v.to_string());
        let _ = KeySet::from_value(&serde_json::json!({ "keys": [v] }));
    }

    #[test]
    fn edited_key_sets_never_panic(at in any::<usize>(), op in any::<u8>(), c in any::<char>()) {
        let key = TrustedKey::new(SigningKey::from_seed(&[3; 32]).verifying_key())
            .with_window(Some(1), Some(2)).unwrap().with_test(true);
        let text = KeySet::from_keys(vec![key]).unwrap().to_value().to_string();
        let _ = KeySet::parse(&edit(&text, at, op, c));
    }

    #[test]
    fn arbitrary_merkle_inputs_never_panic(
        a in any::<u64>(),
        b in any::<u64>(),
        proof in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..70),
        r1 in prop::collection::vec(any::<u8>(), 0..40),
        r2 in prop::collection::vec(any::<u8>(), 0..40),
    ) {
        let _ = merkle::verify_inclusion_bytes(&r1, a, b, &proof, &r2);
        let _ = merkle::verify_consistency_bytes(a, b, &proof, &r1, &r2);
        let _ = merkle::inclusion_proof_len(a, b);
        let _ = merkle::consistency_proof_len(a, b);
        let hashes: Vec<merkle::Hash> = proof.iter().map(|p| {
            let mut h = [0u8; 32];
            h.iter_mut().zip(p).for_each(|(d, s)| *d = *s);
            h
        }).collect();
        let _ = merkle::verify_inclusion(&[1; 32], a, b, &hashes, &[2; 32]);
        let _ = merkle::verify_consistency(a, b, &hashes, &[1; 32], &[2; 32]);
    }
}
