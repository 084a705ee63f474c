//! Property tests of the Merkle log: for random trees up to 4,096 leaves every sampled inclusion and consistency
//! proof verifies, and single-bit changes to a proof element, the roots, the leaf hash, the sizes or the index are
//! rejected.
//!
//! A size is not committed to by a proof or a root on its own: RFC 9162 verification of (index, size) and
//! (index, size') runs the very same hash sequence when their "shapes" agree (leaf 0 of 5 and of 7 both hash
//! h1, h23 and one right-hand node), so no verifier can tell them apart from the proof alone. The size comes with its
//! root from a signed checkpoint; these tests therefore pair a changed size with the root a verifier would hold
//! for it (the honest root of that size), and with the unchanged root whenever the shapes differ.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::OnceLock;

use curbi::encoding::sha256;
use curbi::proof::merkle::{self, Hash, MerkleError, MerkleLog};
use proptest::prelude::*;

const MAX_LEAVES: u64 = 4096;

/// A log of 4,096 distinct pseudo-random entries of 2 to 33 bytes drawn from `salt`; a tree of any size up to that
/// is its prefix, so one log answers every size a case or a mutation asks for.
///
/// Each entry starts with its index, so no two are equal: two equal neighbouring leaves hash the same in either
/// order, and then the proof of one really does verify at the other's index (a fact about the tree, not a flaw of
/// a verifier). Random entries of 1 to 32 bytes repeated often enough (a one-byte entry has 8 values) to make a
/// CI run fail on exactly that.
fn random_log(salt: u64) -> MerkleLog {
    let mut log = MerkleLog::new();
    for i in 0..MAX_LEAVES {
        let mut seed = salt.to_le_bytes().to_vec();
        seed.extend_from_slice(&i.to_le_bytes());
        let digest = sha256(&seed);
        let mut entry = u16::try_from(i).unwrap().to_be_bytes().to_vec();
        entry.extend_from_slice(&digest[..digest[0] as usize % 32]);
        log.append(&entry);
    }
    log
}

/// Four random logs built once (debug-build SHA-256 is slow); each case draws one of them and a random size.
fn logs() -> &'static [MerkleLog] {
    static LOGS: OnceLock<Vec<MerkleLog>> = OnceLock::new();
    LOGS.get_or_init(|| (0..4).map(|i| random_log(0x5eed_0000 + i)).collect())
}

fn log() -> &'static MerkleLog {
    &logs()[0]
}

/// The RFC 9162 walk from node `f` of a tree whose last node is `s` up to the root: per step, `true` where the
/// proof element is the left input (§2.1.3.2 and the second loop of §2.1.4.2 take the same steps).
fn walk(mut f: u64, mut s: u64) -> Vec<bool> {
    let mut ops = Vec::new();
    while s > 0 {
        if f & 1 == 1 || f == s {
            ops.push(true);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            ops.push(false);
        }
        f >>= 1;
        s >>= 1;
    }
    ops
}

/// The sequence of hashing steps RFC 9162 §2.1.3.2 takes for (index, size): `true` where the proof element is
/// the left input. Two (index, size) pairs with equal shapes are indistinguishable to any verifier.
fn inclusion_shape(index: u64, size: u64) -> Option<Vec<bool>> {
    (index < size).then(|| walk(index, size - 1))
}

/// The RFC 9162 §2.1.4.2 steps for (size1, size2): whether the seed is a proof element, then per element whether
/// it feeds both roots.
fn consistency_shape(size1: u64, size2: u64) -> Option<(bool, Vec<bool>)> {
    if size1 == 0 || size1 >= size2 {
        return None;
    }
    let (mut f, mut s) = (size1 - 1, size2 - 1);
    while f & 1 == 1 {
        f >>= 1;
        s >>= 1;
    }
    Some((!size1.is_power_of_two(), walk(f, s)))
}

/// The root a verifier holds for `size`: the honest one when the tree exists, else the one it was shown.
fn root_for(log: &MerkleLog, size: u64, shown: &Hash) -> Hash {
    log.root_at(size).unwrap_or(*shown)
}

fn flip(h: &Hash, bit: usize) -> Hash {
    let mut h = *h;
    h[(bit / 8) % 32] ^= 1 << (bit % 8);
    h
}

/// One of the four logs, a size from 1 to MAX_LEAVES, a seed for a second number below it and a bit to flip.
fn log_case() -> impl Strategy<Value = (usize, u64, u64, usize)> {
    (0usize..4, 1..=MAX_LEAVES, any::<u64>(), 0usize..256)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn inclusion_proofs_verify_and_every_single_bit_change_is_rejected((which, size, index_seed, bit) in log_case()) {
        let log = &logs()[which];
        let index = index_seed % size;
        let root = log.root_at(size).unwrap();
        let leaf = log.leaf_hash(index).unwrap();
        let proof = log.inclusion_proof(index, size).unwrap();
        prop_assert_eq!(Some(proof.len()), merkle::inclusion_proof_len(index, size));
        prop_assert_eq!(inclusion_shape(index, size).map(|s| s.len()), Some(proof.len()));
        prop_assert_eq!(merkle::verify_inclusion(&leaf, index, size, &proof, &root), Ok(()));

        for i in 0..proof.len() {
            let mut bad = proof.clone();
            bad[i] = flip(&bad[i], bit);
            prop_assert!(merkle::verify_inclusion(&leaf, index, size, &bad, &root).is_err(), "proof[{}]", i);
        }
        prop_assert!(merkle::verify_inclusion(&leaf, index, size, &proof, &flip(&root, bit)).is_err());
        prop_assert!(merkle::verify_inclusion(&flip(&leaf, bit), index, size, &proof, &root).is_err());
        let shape = inclusion_shape(index, size);
        for word_bit in 0..64 {
            let index2 = index ^ (1 << word_bit);
            let e = merkle::verify_inclusion(&leaf, index2, size, &proof, &root);
            prop_assert!(e.is_err(), "index {} -> {}", index, index2);
            let size2 = size ^ (1 << word_bit);
            let root2 = if inclusion_shape(index, size2) == shape { root_for(log, size2, &root) } else { root };
            let e = merkle::verify_inclusion(&leaf, index, size2, &proof, &root2);
            prop_assert!(e.is_err(), "size {} -> {}", size, size2);
        }
        // Dropping or adding an element is caught by the exact length before any hashing.
        if let Some((_, shorter)) = proof.split_last() {
            let e = merkle::verify_inclusion(&leaf, index, size, shorter, &root);
            prop_assert!(matches!(e, Err(MerkleError::WrongProofLength { .. })), "{:?}", e);
        }
        let mut longer = proof.clone();
        longer.push(leaf);
        let e = merkle::verify_inclusion(&leaf, index, size, &longer, &root);
        prop_assert!(matches!(e, Err(MerkleError::WrongProofLength { .. })), "{:?}", e);
    }

    #[test]
    fn consistency_proofs_verify_and_every_single_bit_change_is_rejected((which, size2, size1_seed, bit) in log_case()) {
        let log = &logs()[which];
        let size1 = 1 + size1_seed % size2;
        let (root1, root2) = (log.root_at(size1).unwrap(), log.root_at(size2).unwrap());
        let proof = log.consistency_proof(size1, size2).unwrap();
        prop_assert_eq!(Some(proof.len()), merkle::consistency_proof_len(size1, size2));
        if let Some((seed, ops)) = consistency_shape(size1, size2) {
            prop_assert_eq!(ops.len() + usize::from(seed), proof.len());
        }
        prop_assert_eq!(merkle::verify_consistency(size1, size2, &proof, &root1, &root2), Ok(()));

        for i in 0..proof.len() {
            let mut bad = proof.clone();
            bad[i] = flip(&bad[i], bit);
            prop_assert!(merkle::verify_consistency(size1, size2, &bad, &root1, &root2).is_err(), "proof[{}]", i);
        }
        prop_assert!(merkle::verify_consistency(size1, size2, &proof, &flip(&root1, bit), &root2).is_err());
        prop_assert!(merkle::verify_consistency(size1, size2, &proof, &root1, &flip(&root2, bit)).is_err());

        let shape = consistency_shape(size1, size2);
        for word_bit in 0..64 {
            let m = size1 ^ (1 << word_bit);
            let r1 = if consistency_shape(m, size2) == shape { root_for(log, m, &root1) } else { root1 };
            let e = merkle::verify_consistency(m, size2, &proof, &r1, &root2);
            prop_assert!(e.is_err(), "size1 {} -> {}", size1, m);
            let n = size2 ^ (1 << word_bit);
            let r2 = if consistency_shape(size1, n) == shape { root_for(log, n, &root2) } else { root2 };
            let e = merkle::verify_consistency(size1, n, &proof, &root1, &r2);
            prop_assert!(e.is_err(), "size2 {} -> {}", size2, n);
        }
    }

    #[test]
    fn proofs_between_random_sizes_agree_with_roots(which in 0usize..4, a in 1..=MAX_LEAVES, b in 1..=MAX_LEAVES) {
        // Consistency chains: a proof a -> b and b -> c both verify, and a -> c directly too.
        let log = &logs()[which];
        let (lo, hi) = (a.min(b), a.max(b));
        let mid = lo + (hi - lo) / 2;
        for (x, y) in [(lo, mid), (mid, hi), (lo, hi)] {
            let proof = log.consistency_proof(x, y).unwrap();
            let (rx, ry) = (log.root_at(x).unwrap(), log.root_at(y).unwrap());
            prop_assert_eq!(merkle::verify_consistency(x, y, &proof, &rx, &ry), Ok(()));
            // Reversed roots never verify for different sizes.
            if x != y {
                prop_assert!(merkle::verify_consistency(x, y, &proof, &ry, &rx).is_err());
            }
        }
    }
}

#[test]
fn the_size_ambiguity_is_real_and_bound_by_honest_roots() {
    // Leaf 0 of a 5-leaf tree and of a 7-leaf tree: same shape, so the 5-leaf proof and root pass as "size 7".
    // Paired with the real 7-leaf root (as from a signed checkpoint of size 7) it is rejected.
    let log = log();
    let proof = log.inclusion_proof(0, 5).unwrap();
    let leaf = log.leaf_hash(0).unwrap();
    let root5 = log.root_at(5).unwrap();
    assert_eq!(inclusion_shape(0, 5), inclusion_shape(0, 7));
    assert_eq!(merkle::verify_inclusion(&leaf, 0, 7, &proof, &root5), Ok(()));
    assert_eq!(merkle::verify_inclusion(&leaf, 0, 7, &proof, &log.root_at(7).unwrap()), Err(MerkleError::RootMismatch));
}

#[test]
fn equal_neighbouring_leaves_let_a_proof_pass_at_either_index_so_the_logs_have_none() {
    // The premise of the index mutations above: two equal leaves hash to the same node in either order, so the
    // proof of leaf 0 of [a, a] verifies at index 1 too. The test logs must therefore hold no equal leaves.
    let mut twins = MerkleLog::new();
    twins.append(b"a");
    twins.append(b"a");
    let proof = twins.inclusion_proof(0, 2).unwrap();
    let root = twins.root_at(2).unwrap();
    let leaf = twins.leaf_hash(0).unwrap();
    assert_eq!(merkle::verify_inclusion(&leaf, 1, 2, &proof, &root), Ok(()));

    for log in logs() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..log.size() {
            assert!(seen.insert(log.leaf_hash(i).unwrap()), "leaf {i} repeats an earlier one");
        }
    }
}
