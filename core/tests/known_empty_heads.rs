//! Known heads of size 0 (issue 43): the empty tree is a prefix of every tree, so a signed head of size 0 with the
//! RFC 9162 empty root never fails a bundle, with or without proofs; one with any other root is `history_unproven`.
#![allow(clippy::unwrap_used, clippy::panic)]

use curbi::encoding::sha256;
use curbi::proof::gate::Gate;
use curbi::proof::note::{self, Checkpoint};
use curbi_testkit::fixtures::{ORIGIN, T0};
use curbi_testkit::keys::test_key;
use curbi_testkit::large::dispatch_log;
use proptest::prelude::*;
use serde_json::{Value, json};

/// A reference gate with `n` DONE receipts, signing a head at each size in `signed_at_sizes`; the heads by size.
fn log(n: u64, signed_at_sizes: &[u64]) -> (Gate, Vec<(u64, String)>) {
    dispatch_log(n, |i| signed_at_sizes.contains(&i)).unwrap()
}

fn verify(bundle: &Value, gate: &Gate, known: &[&str]) -> Value {
    let request = json!({"bundle": bundle, "keys": gate.jwks(true).unwrap().to_value(), "allowTest": true,
                         "known": known});
    serde_json::from_str(&curbi::api::verify_bundle_json(request.to_string().as_bytes()).unwrap()).unwrap()
}

/// A log of 1 to 24 receipts with heads signed at the empty log, at some sizes between, and at its size; a head
/// (one of the non-empty ones), a receipt under it, and a selection of the heads up to it that the caller knows.
fn case() -> impl Strategy<Value = (u64, Vec<u64>, usize, u64, Vec<bool>)> {
    (1u64..=24).prop_flat_map(|n| {
        let between = prop::collection::btree_set(1..n.max(2), 0..4);
        (
            Just(n),
            between,
            any::<prop::sample::Index>(),
            any::<prop::sample::Index>(),
            prop::collection::vec(any::<bool>(), 8),
        )
            .prop_map(|(n, between, head, leaf, pick)| {
                let mut sizes: Vec<u64> = std::iter::once(0).chain(between.into_iter().filter(|s| *s < n)).collect();
                sizes.push(n);
                let head = 1 + head.index(sizes.len() - 1);
                let leaf = leaf.index(usize::try_from(sizes[head]).unwrap()) as u64;
                (n, sizes, head, leaf, pick)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The builder gives every known head but the empty one a consistency proof, and the verifier takes the lot;
    /// the empty head alone, with no proof in the bundle, verifies too.
    #[test]
    fn a_known_empty_head_never_fails_a_bundle((n, sizes, head, leaf, pick) in case()) {
        let (gate, heads) = log(n, &sizes);
        let (size, head_text) = &heads[head];
        let mut known: Vec<&str> = vec![&heads[0].1];
        known.extend(heads[1..=head].iter().zip(&pick).filter(|(_, p)| **p).map(|((_, t), _)| t.as_str()));
        let bundle = gate.bundle(&[leaf], head_text, &known, false).unwrap();
        prop_assert_eq!(bundle.consistency.len(), known.len() - 1, "no proof from size 0");
        let r = verify(&bundle.to_value(), &gate, &known);
        prop_assert_eq!(&r["reason"], "verifies", "size {}, known {:?}: {}", size, known.len(), r);
        let alone = gate.bundle(&[leaf], head_text, &[], false).unwrap();
        let r = verify(&alone.to_value(), &gate, &[&heads[0].1]);
        prop_assert_eq!(&r["reason"], "verifies", "{}", r);
    }

    /// A head of size 0 signed by the trusted key with any root but the empty tree's is refused, with that reason,
    /// at its place in `known`.
    #[test]
    fn a_known_empty_head_with_another_root_is_history_unproven(
        (n, sizes, head, leaf, _pick) in case(),
        root in any::<[u8; 32]>(),
    ) {
        prop_assume!(root != sha256(b""));
        let (gate, heads) = log(n, &sizes);
        let forged = note::sign_curbi_checkpoint(&Checkpoint::new(ORIGIN, 0, root).unwrap(), &test_key(),
            u64::try_from(T0).unwrap()).unwrap();
        let bundle = gate.bundle(&[leaf], &heads[head].1, &[], false).unwrap();
        let r = verify(&bundle.to_value(), &gate, &[&forged]);
        prop_assert_eq!(&r["reason"], "history_unproven", "{}", r);
        prop_assert_eq!(&r["path"], "/known/0");
        prop_assert!(r["message"].as_str().unwrap().contains("size 0"), "{}", r);
        // Beside the honest empty head, the two are a fork at size 0.
        let r = verify(&bundle.to_value(), &gate, &[&heads[0].1, &forged]);
        prop_assert_eq!(&r["reason"], "fork_detected", "{}", r);
    }
}

#[test]
fn the_empty_root_is_sha256_of_nothing() {
    // RFC 9162 §2.1.1: MTH({}) = SHA-256().
    assert_eq!(
        curbi::encoding::hex(&curbi::proof::merkle::empty_root()),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}
