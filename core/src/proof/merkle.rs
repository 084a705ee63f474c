//! RFC 9162 §2.1 Merkle hash trees over SHA-256 (leaf `0x00‖entry`, node `0x01‖left‖right`): an in-memory
//! append-only log that answers roots, inclusion proofs and consistency proofs at any size up to its own, and the
//! verification of both proof kinds with every check of DESIGN §5.
//!
//! Verification checks, in order: a proof longer than [`MAX_PROOF_LEN`] is refused before any other work; sizes and
//! index are range-checked (index < size, 0 < size1 ≤ size2); the proof length must be exactly the one RFC 9162
//! produces for those sizes; then the RFC 9162 §2.1.3.2 / §2.1.4.2 algorithms run, including their final `sn == 0`
//! check. All arithmetic is on `u64` without overflow. Leaf hashes are never taken on trust: callers recompute them
//! from the entry bytes with [`leaf_hash`].

use sha2::{Digest, Sha256};

/// A SHA-256 Merkle tree hash.
pub type Hash = [u8; 32];

/// The length of every hash that is hashed, parsed or compared.
pub const HASH_LEN: usize = 32;

/// Proofs with more elements are refused before any hashing (a tree of 2^64 − 1 leaves needs at most 64).
pub const MAX_PROOF_LEN: usize = 64;

/// The hash of an empty tree: SHA-256 of the empty string.
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// The leaf hash of an entry: SHA-256(0x00 ‖ entry).
pub fn leaf_hash(entry: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([0x00]);
    h.update(entry);
    h.finalize().into()
}

/// The hash of an interior node: SHA-256(0x01 ‖ left ‖ right).
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([0x01]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// Why a proof was refused or could not be produced. Each variant has a stable snake_case [`MerkleError::code`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum MerkleError {
    /// More than [`MAX_PROOF_LEN`] elements; refused before any work.
    #[error("proof has {len} elements, more than the limit of 64")]
    ProofTooLong { len: usize },
    /// A leaf hash, root or proof element that is not 32 bytes.
    #[error("{what} is {len} bytes, not 32")]
    BadHashLength { what: HashRole, len: usize },
    /// Inclusion: the index is not below the tree size (every index of an empty tree).
    #[error("leaf index {index} is not below tree size {size}")]
    IndexOutOfRange { index: u64, size: u64 },
    /// Consistency from a tree of size 0 proves nothing and is refused.
    #[error("consistency from an empty tree is not a proof")]
    EmptyTree,
    /// Consistency: the older tree is larger than the newer one.
    #[error("size1 {size1} is larger than size2 {size2}")]
    SizesReversed { size1: u64, size2: u64 },
    /// The proof does not have exactly the number of elements RFC 9162 gives for these sizes.
    #[error("proof has {actual} elements, expected exactly {expected}")]
    WrongProofLength { expected: usize, actual: usize },
    /// The proof does not lead to the given root (for consistency: to either root).
    #[error("proof does not match the root")]
    RootMismatch,
    /// Generation: a size beyond the log's current size.
    #[error("size {size} is beyond the log size {log_size}")]
    BeyondLog { size: u64, log_size: u64 },
    /// Generation: the store has no hash for a subtree that should be complete (leaves `[lo, hi)`).
    #[error("the store has no node for leaves {lo}..{hi}")]
    MissingNode { lo: u64, hi: u64 },
}

/// Which hash a [`MerkleError::BadHashLength`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashRole {
    LeafHash,
    Root,
    FirstRoot,
    SecondRoot,
    /// A proof element, by position.
    ProofElement(usize),
}

impl std::fmt::Display for HashRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HashRole::LeafHash => f.write_str("leaf hash"),
            HashRole::Root => f.write_str("root"),
            HashRole::FirstRoot => f.write_str("root1"),
            HashRole::SecondRoot => f.write_str("root2"),
            HashRole::ProofElement(i) => write!(f, "proof element {i}"),
        }
    }
}

impl MerkleError {
    /// Stable snake_case name, for logs and diagnostics.
    pub fn code(&self) -> &'static str {
        match self {
            MerkleError::ProofTooLong { .. } => "proof_too_long",
            MerkleError::BadHashLength { .. } => "bad_hash_length",
            MerkleError::IndexOutOfRange { .. } => "index_out_of_range",
            MerkleError::EmptyTree => "empty_tree",
            MerkleError::SizesReversed { .. } => "sizes_reversed",
            MerkleError::WrongProofLength { .. } => "wrong_proof_length",
            MerkleError::RootMismatch => "root_mismatch",
            MerkleError::BeyondLog { .. } => "beyond_log",
            MerkleError::MissingNode { .. } => "missing_node",
        }
    }
}

/// Number of significant bits (0 for 0).
fn bit_len(x: u64) -> u32 {
    u64::BITS - x.leading_zeros()
}

/// The largest power of two strictly below `n` (`n ≥ 2`), the RFC 9162 split point `k`.
fn split_point(n: u64) -> u64 {
    debug_assert!(n >= 2);
    1u64 << (bit_len(n - 1) - 1)
}

/// The exact inclusion proof length for `index < size`: the levels below the point where the leaf's path leaves
/// the tree's right border (each has a sibling), plus the border levels where the leaf's path is a right child.
pub fn inclusion_proof_len(index: u64, size: u64) -> Option<usize> {
    if index >= size {
        return None;
    }
    let inner = bit_len(index ^ (size - 1));
    let border = index.checked_shr(inner).unwrap_or(0).count_ones();
    usize::try_from(inner + border).ok()
}

/// The exact consistency proof length for `0 < size1 ≤ size2` (0 when the sizes are equal).
pub fn consistency_proof_len(size1: u64, size2: u64) -> Option<usize> {
    if size1 == 0 || size1 > size2 {
        return None;
    }
    if size1 == size2 {
        return Some(0);
    }
    // Skip the levels where the old tree's last subtree is complete: its root stands for them.
    let level = size1.trailing_zeros();
    let index = (size1 - 1) >> level;
    let last = (size2 - 1) >> level;
    let inner = bit_len(index ^ last);
    let border = index.checked_shr(inner).unwrap_or(0).count_ones();
    // When the old tree is not a power of two, the proof also carries the seed (its last complete subtree).
    let seed = u32::from(index != 0);
    usize::try_from(inner + border + seed).ok()
}

/// Verifies that `leaf_hash` is the leaf at `index` of the tree of `size` leaves whose root is `root`
/// (RFC 9162 §2.1.3.2). `leaf_hash` must come from [`leaf_hash`] over the entry bytes the caller holds.
pub fn verify_inclusion(
    leaf_hash: &Hash,
    index: u64,
    size: u64,
    proof: &[Hash],
    root: &Hash,
) -> Result<(), MerkleError> {
    let computed = root_from_inclusion_proof(leaf_hash, index, size, proof)?;
    if computed == *root { Ok(()) } else { Err(MerkleError::RootMismatch) }
}

/// [`verify_inclusion`] for one of many proofs walked in a row (a bundle's receipts, in order), reusing the node
/// hashes the last walk computed from the same two children ([`PathMemo`]): the same answer, fewer hashes.
pub fn verify_inclusion_with(
    leaf_hash: &Hash,
    index: u64,
    size: u64,
    proof: &[Hash],
    root: &Hash,
    memo: &mut PathMemo,
) -> Result<(), MerkleError> {
    let computed =
        walk_inclusion_proof(leaf_hash, index, size, proof, |step, left, right| memo.node(step, left, right))?;
    if computed == *root { Ok(()) } else { Err(MerkleError::RootMismatch) }
}

/// The node hashes of the last inclusion proof walked, by step. Receipts next to each other in one log share their
/// path from their lowest common ancestor up, so the proof of the next one computes the same nodes from the same
/// children again: a step whose two children are the last walk's at that step takes its hash instead. A hash is
/// a function of its two children alone, so the memo never changes an answer; it holds at most one node per step
/// ([`MAX_PROOF_LEN`]).
#[derive(Debug, Default)]
pub struct PathMemo {
    steps: Vec<([u8; 2 * HASH_LEN], Hash)>,
}

impl PathMemo {
    fn node(&mut self, step: usize, left: &Hash, right: &Hash) -> Hash {
        let mut children = [0u8; 2 * HASH_LEN];
        children[..HASH_LEN].copy_from_slice(left);
        children[HASH_LEN..].copy_from_slice(right);
        if let Some((seen, hash)) = self.steps.get(step)
            && *seen == children
        {
            return *hash;
        }
        let hash = node_hash(left, right);
        match self.steps.get_mut(step) {
            Some(slot) => *slot = (children, hash),
            // Steps come in order from 0, so a new one is always the next.
            None => self.steps.push((children, hash)),
        }
        hash
    }
}

/// The root that an inclusion proof leads to, after every structural check (limit, range, exact length, `sn == 0`).
pub fn root_from_inclusion_proof(leaf_hash: &Hash, index: u64, size: u64, proof: &[Hash]) -> Result<Hash, MerkleError> {
    walk_inclusion_proof(leaf_hash, index, size, proof, |_, left, right| node_hash(left, right))
}

/// RFC 9162 §2.1.3.2's walk, each node hashed by `node(step, left, right)`.
fn walk_inclusion_proof(
    leaf_hash: &Hash,
    index: u64,
    size: u64,
    proof: &[Hash],
    mut node: impl FnMut(usize, &Hash, &Hash) -> Hash,
) -> Result<Hash, MerkleError> {
    if proof.len() > MAX_PROOF_LEN {
        return Err(MerkleError::ProofTooLong { len: proof.len() });
    }
    let expected = inclusion_proof_len(index, size).ok_or(MerkleError::IndexOutOfRange { index, size })?;
    if proof.len() != expected {
        return Err(MerkleError::WrongProofLength { expected, actual: proof.len() });
    }
    // RFC 9162 §2.1.3.2: fn walks the leaf's position, sn the last position, up the tree.
    let mut f = index;
    let mut s = size - 1;
    let mut r = *leaf_hash;
    for (step, p) in proof.iter().enumerate() {
        if s == 0 {
            return Err(MerkleError::WrongProofLength { expected, actual: proof.len() });
        }
        if f & 1 == 1 || f == s {
            r = node(step, p, &r);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            r = node(step, &r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    if s != 0 {
        return Err(MerkleError::WrongProofLength { expected, actual: proof.len() });
    }
    Ok(r)
}

/// Verifies that the tree of `size1` leaves with root `root1` is a prefix of the tree of `size2` leaves with root
/// `root2` (RFC 9162 §2.1.4.2). `size1 == 0` is refused; equal sizes need an empty proof and equal roots.
pub fn verify_consistency(
    size1: u64,
    size2: u64,
    proof: &[Hash],
    root1: &Hash,
    root2: &Hash,
) -> Result<(), MerkleError> {
    check_consistency_shape(size1, size2, proof.len())?;
    if size1 == size2 {
        return if root1 == root2 { Ok(()) } else { Err(MerkleError::RootMismatch) };
    }
    let (first, second) = roots_from_consistency_proof(size1, size2, proof, root1)?;
    if first == *root1 && second == *root2 { Ok(()) } else { Err(MerkleError::RootMismatch) }
}

/// Limit, sizes and exact length of a consistency proof, in that order.
fn check_consistency_shape(size1: u64, size2: u64, len: usize) -> Result<(), MerkleError> {
    if len > MAX_PROOF_LEN {
        return Err(MerkleError::ProofTooLong { len });
    }
    if size1 == 0 {
        return Err(MerkleError::EmptyTree);
    }
    if size1 > size2 {
        return Err(MerkleError::SizesReversed { size1, size2 });
    }
    let expected = consistency_proof_len(size1, size2).ok_or(MerkleError::SizesReversed { size1, size2 })?;
    if len != expected {
        return Err(MerkleError::WrongProofLength { expected, actual: len });
    }
    Ok(())
}

/// The (old, new) roots a consistency proof leads to for `0 < size1 < size2`, shape already checked.
fn roots_from_consistency_proof(
    size1: u64,
    size2: u64,
    proof: &[Hash],
    root1: &Hash,
) -> Result<(Hash, Hash), MerkleError> {
    // Unreachable after the exact-length check; kept so that a mismatch can never pass silently.
    let expected = consistency_proof_len(size1, size2).unwrap_or(0);
    let wrong = || MerkleError::WrongProofLength { expected, actual: proof.len() };
    // A power-of-two old tree is itself a complete subtree of the new one: its root is the seed.
    let (seed, rest) = if size1.is_power_of_two() {
        (*root1, proof)
    } else {
        let (first, rest) = proof.split_first().ok_or_else(wrong)?;
        (*first, rest)
    };
    let mut f = size1 - 1;
    let mut s = size2 - 1;
    while f & 1 == 1 {
        f >>= 1;
        s >>= 1;
    }
    let mut fr = seed;
    let mut sr = seed;
    for c in rest {
        if s == 0 {
            return Err(wrong());
        }
        if f & 1 == 1 || f == s {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            sr = node_hash(&sr, c);
        }
        f >>= 1;
        s >>= 1;
    }
    if s != 0 {
        return Err(wrong());
    }
    Ok((fr, sr))
}

/// Reads a hash from bytes, refusing any length but 32.
fn hash_from(bytes: &[u8], what: HashRole) -> Result<Hash, MerkleError> {
    Hash::try_from(bytes).map_err(|_| MerkleError::BadHashLength { what, len: bytes.len() })
}

/// Reads proof elements from bytes after the length limit, each exactly 32 bytes.
fn proof_from<P: AsRef<[u8]>>(proof: &[P]) -> Result<Vec<Hash>, MerkleError> {
    if proof.len() > MAX_PROOF_LEN {
        return Err(MerkleError::ProofTooLong { len: proof.len() });
    }
    proof.iter().enumerate().map(|(i, p)| hash_from(p.as_ref(), HashRole::ProofElement(i))).collect()
}

/// [`verify_inclusion`] over untyped bytes, as parsed from a document: every hash must be exactly 32 bytes.
pub fn verify_inclusion_bytes<P: AsRef<[u8]>>(
    leaf_hash: &[u8],
    index: u64,
    size: u64,
    proof: &[P],
    root: &[u8],
) -> Result<(), MerkleError> {
    let proof = proof_from(proof)?;
    let leaf = hash_from(leaf_hash, HashRole::LeafHash)?;
    let root = hash_from(root, HashRole::Root)?;
    verify_inclusion(&leaf, index, size, &proof, &root)
}

/// [`verify_consistency`] over untyped bytes, the bare form the transparency-dev probes exercise.
///
/// Like the reference implementation, equal sizes with an empty proof compare the two roots byte for byte without
/// hashing them, so two equal roots of any length pass there; in every other case each hash must be 32 bytes.
/// Callers that parse checkpoints or proofs enforce 32-byte roots themselves (as [`crate::proof::note`] does).
pub fn verify_consistency_bytes<P: AsRef<[u8]>>(
    size1: u64,
    size2: u64,
    proof: &[P],
    root1: &[u8],
    root2: &[u8],
) -> Result<(), MerkleError> {
    check_consistency_shape(size1, size2, proof.len())?;
    if size1 == size2 {
        return if root1 == root2 { Ok(()) } else { Err(MerkleError::RootMismatch) };
    }
    let proof = proof_from(proof)?;
    let root1 = hash_from(root1, HashRole::FirstRoot)?;
    let root2 = hash_from(root2, HashRole::SecondRoot)?;
    verify_consistency(size1, size2, &proof, &root1, &root2)
}

/// An in-memory append-only RFC 9162 log. It keeps the hash of every complete aligned subtree (about two hashes per
/// leaf), so a root at any size costs O(log n) node hashes and a proof O(log² n) at worst; appends are amortised O(1).
/// Entries themselves are not kept: the caller stores them and proves membership by recomputing leaf hashes.
#[derive(Debug, Clone, Default)]
pub struct MerkleLog {
    /// `levels[l][i]` is the hash of leaves `[i·2^l, (i+1)·2^l)`; level 0 holds the leaf hashes.
    levels: Vec<Vec<Hash>>,
}

impl MerkleLog {
    /// An empty log.
    pub fn new() -> Self {
        MerkleLog::default()
    }

    /// The number of entries.
    pub fn size(&self) -> u64 {
        self.levels.first().map_or(0, |l| l.len() as u64)
    }

    /// True when nothing was appended.
    pub fn is_empty(&self) -> bool {
        self.size() == 0
    }

    /// Appends an entry (hashed as a leaf) and returns its index.
    pub fn append(&mut self, entry: &[u8]) -> u64 {
        let index = self.size();
        let mut hash = leaf_hash(entry);
        let mut level = 0;
        loop {
            if self.levels.len() == level {
                self.levels.push(Vec::new());
            }
            let nodes = &mut self.levels[level];
            nodes.push(hash);
            // A level with an even count just completed a pair: its parent is now complete too.
            if nodes.len() % 2 != 0 {
                break;
            }
            hash = node_hash(&nodes[nodes.len() - 2], &nodes[nodes.len() - 1]);
            level += 1;
        }
        index
    }

    /// The leaf hash at `index`, if the log has it.
    pub fn leaf_hash(&self, index: u64) -> Option<Hash> {
        self.levels.first()?.get(usize::try_from(index).ok()?).copied()
    }

    /// The root of the whole log.
    pub fn root(&self) -> Hash {
        self.root_at(self.size()).unwrap_or_else(|_| empty_root())
    }

    /// The root of the first `size` entries (MTH of RFC 9162), for any size up to the log's.
    pub fn root_at(&self, size: u64) -> Result<Hash, MerkleError> {
        self.check_size(size)?;
        if size == 0 {
            return Ok(empty_root());
        }
        self.subtree(0, size).ok_or(MerkleError::BeyondLog { size, log_size: self.size() })
    }

    /// The inclusion proof of leaf `index` in the tree of the first `size` entries (PATH of RFC 9162), leaf level
    /// first.
    pub fn inclusion_proof(&self, index: u64, size: u64) -> Result<Vec<Hash>, MerkleError> {
        self.check_size(size)?;
        inclusion_proof_in(self, index, size)
    }

    /// The consistency proof from the first `size1` entries to the first `size2` (PROOF of RFC 9162), in
    /// verification order. Equal sizes give an empty proof; `size1 == 0` is refused as verification refuses it.
    pub fn consistency_proof(&self, size1: u64, size2: u64) -> Result<Vec<Hash>, MerkleError> {
        self.check_size(size2)?;
        consistency_proof_in(self, size1, size2)
    }

    fn check_size(&self, size: u64) -> Result<(), MerkleError> {
        if size > self.size() { Err(MerkleError::BeyondLog { size, log_size: self.size() }) } else { Ok(()) }
    }

    fn subtree(&self, lo: u64, hi: u64) -> Option<Hash> {
        subtree_in(self, lo, hi).ok()
    }
}

impl NodeStore for MerkleLog {
    type Error = MerkleError;

    fn node(&self, level: u32, index: u64) -> Result<Option<Hash>, MerkleError> {
        let (Ok(level), Ok(at)) = (usize::try_from(level), usize::try_from(index)) else { return Ok(None) };
        Ok(self.levels.get(level).and_then(|l| l.get(at)).copied())
    }
}

/// A proof a durable store could not produce names a store that contradicts itself: `corrupt`.
impl From<MerkleError> for crate::Error {
    fn from(e: MerkleError) -> crate::Error {
        crate::Error::new(crate::ErrorCode::Corrupt, "", format!("the stored tree: {e}"))
    }
}

/// Where a log keeps the hash of every complete aligned subtree: `node(level, index)` is the hash of leaves
/// `[index·2^level, (index+1)·2^level)` (level 0: the leaf hashes), or `None` when that subtree is not complete.
/// [`MerkleLog`] keeps them in memory; a durable store keeps them in a table, so that a proof reads O(log n) nodes
/// instead of replaying the log.
pub trait NodeStore {
    type Error: From<MerkleError>;
    fn node(&self, level: u32, index: u64) -> Result<Option<Hash>, Self::Error>;
}

/// MTH of leaves `[lo, hi)` (`lo < hi`) from stored nodes: one node when the range is an aligned power of two, else
/// the RFC 9162 split. Ranges reached from the root are aligned on the left, so the recursion is one spine.
pub fn subtree_in<S: NodeStore + ?Sized>(store: &S, lo: u64, hi: u64) -> Result<Hash, S::Error> {
    let missing = || MerkleError::MissingNode { lo, hi };
    let n = hi.checked_sub(lo).filter(|n| *n > 0).ok_or_else(missing)?;
    if n.is_power_of_two() && lo % n == 0 {
        return store.node(n.trailing_zeros(), lo >> n.trailing_zeros())?.ok_or_else(|| missing().into());
    }
    let mid = lo + split_point(n);
    Ok(node_hash(&subtree_in(store, lo, mid)?, &subtree_in(store, mid, hi)?))
}

/// The root of the first `size` leaves of a store (the empty root for 0).
pub fn root_in<S: NodeStore + ?Sized>(store: &S, size: u64) -> Result<Hash, S::Error> {
    if size == 0 { Ok(empty_root()) } else { subtree_in(store, 0, size) }
}

/// [`MerkleLog::inclusion_proof`] over any [`NodeStore`] holding at least `size` leaves.
pub fn inclusion_proof_in<S: NodeStore + ?Sized>(store: &S, index: u64, size: u64) -> Result<Vec<Hash>, S::Error> {
    if index >= size {
        return Err(MerkleError::IndexOutOfRange { index, size }.into());
    }
    let mut proof = Vec::with_capacity(64);
    let (mut lo, mut hi) = (0u64, size);
    while hi - lo > 1 {
        let mid = lo + split_point(hi - lo);
        if index < mid {
            proof.push(subtree_in(store, mid, hi)?);
            hi = mid;
        } else {
            proof.push(subtree_in(store, lo, mid)?);
            lo = mid;
        }
    }
    proof.reverse();
    Ok(proof)
}

/// [`MerkleLog::consistency_proof`] over any [`NodeStore`] holding at least `size2` leaves.
pub fn consistency_proof_in<S: NodeStore + ?Sized>(store: &S, size1: u64, size2: u64) -> Result<Vec<Hash>, S::Error> {
    if size1 == 0 {
        return Err(MerkleError::EmptyTree.into());
    }
    if size1 > size2 {
        return Err(MerkleError::SizesReversed { size1, size2 }.into());
    }
    let mut proof = Vec::with_capacity(64);
    // SUBPROOF(m, D[lo:hi], whole): `whole` stays true while the old tree is a prefix subtree of the range.
    let (mut lo, mut hi, mut m, mut whole) = (0u64, size2, size1, true);
    loop {
        let n = hi - lo;
        if m == n {
            if !whole {
                proof.push(subtree_in(store, lo, hi)?);
            }
            break;
        }
        let mid = lo + split_point(n);
        if m <= mid - lo {
            proof.push(subtree_in(store, mid, hi)?);
            hi = mid;
        } else {
            proof.push(subtree_in(store, lo, mid)?);
            m -= mid - lo;
            lo = mid;
            whole = false;
        }
    }
    proof.reverse();
    Ok(proof)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_of(n: u64) -> MerkleLog {
        let mut log = MerkleLog::new();
        for i in 0..n {
            log.append(&i.to_be_bytes());
        }
        log
    }

    /// MTH straight from the RFC 9162 recursive definition, for cross-checking the log's stored-node shortcuts.
    fn mth(leaves: &[Hash]) -> Hash {
        match leaves.len() {
            0 => empty_root(),
            1 => leaves[0],
            n => {
                let k = split_point(n as u64) as usize;
                node_hash(&mth(&leaves[..k]), &mth(&leaves[k..]))
            }
        }
    }

    #[test]
    fn roots_match_the_recursive_definition() {
        let log = log_of(70);
        let leaves: Vec<Hash> = (0..70u64).map(|i| leaf_hash(&i.to_be_bytes())).collect();
        for size in 0..=70u64 {
            assert_eq!(log.root_at(size), Ok(mth(&leaves[..size as usize])), "size {size}");
        }
        assert_eq!(log.root(), mth(&leaves));
        assert_eq!(log.root_at(71), Err(MerkleError::BeyondLog { size: 71, log_size: 70 }));
    }

    #[test]
    fn a_shared_path_memo_gives_every_answer_the_memo_free_walk_gives() {
        // Proofs walked in a row through one memo: in order, backwards, jumping, at several tree sizes, with every
        // third proof damaged in one hash (the damaged step's children differ, so nothing may be taken from the
        // memo for it) and now and then a wrong leaf or root. Each answer must be `verify_inclusion`'s.
        let log = log_of(70);
        let mut memo = PathMemo::default();
        let (mut hits, mut walks) = (0, 0);
        for size in [1u64, 2, 3, 7, 8, 9, 33, 64, 70] {
            let root = log.root_at(size).expect("size within the log");
            let order: Vec<u64> = (0..size).chain((0..size).rev()).chain((0..size).map(|i| i * 7 % size)).collect();
            for (n, &index) in order.iter().enumerate() {
                let mut proof = log.inclusion_proof(index, size).expect("index < size");
                let mut leaf = log.leaf_hash(index).expect("leaf exists");
                if n % 3 == 2 && !proof.is_empty() {
                    let at = n % proof.len();
                    proof[at][n % HASH_LEN] ^= 1;
                }
                if n % 11 == 5 {
                    leaf[0] ^= 0x80;
                }
                let root = if n % 13 == 7 { leaf_hash(b"another root") } else { root };
                let want = verify_inclusion(&leaf, index, size, &proof, &root);
                let before = memo.steps.clone();
                assert_eq!(
                    verify_inclusion_with(&leaf, index, size, &proof, &root, &mut memo),
                    want,
                    "{index}/{size} #{n}"
                );
                hits += memo.steps.iter().zip(&before).filter(|(a, b)| a == b).count();
                walks += 1;
            }
        }
        // The memo was used, not only consulted: most steps of walks in order were found there.
        assert!(hits > walks, "{hits} steps reused over {walks} walks");
    }

    #[test]
    fn every_proof_verifies_and_has_the_predicted_length() {
        let log = log_of(40);
        for size in 1..=40u64 {
            let root = log.root_at(size).expect("size within the log");
            for index in 0..size {
                let proof = log.inclusion_proof(index, size).expect("index < size");
                assert_eq!(Some(proof.len()), inclusion_proof_len(index, size));
                let leaf = log.leaf_hash(index).expect("leaf exists");
                assert_eq!(verify_inclusion(&leaf, index, size, &proof, &root), Ok(()), "{index}/{size}");
            }
            for size1 in 1..=size {
                let proof = log.consistency_proof(size1, size).expect("0 < size1 <= size");
                assert_eq!(Some(proof.len()), consistency_proof_len(size1, size));
                let root1 = log.root_at(size1).expect("size within the log");
                assert_eq!(verify_consistency(size1, size, &proof, &root1, &root), Ok(()), "{size1}->{size}");
            }
        }
    }

    #[test]
    fn structural_checks_come_first() {
        let h = [7u8; 32];
        let long = vec![h; 65];
        assert_eq!(verify_inclusion(&h, 0, 0, &long, &h), Err(MerkleError::ProofTooLong { len: 65 }));
        assert_eq!(verify_consistency(0, 0, &long, &h, &h), Err(MerkleError::ProofTooLong { len: 65 }));
        assert_eq!(verify_inclusion(&h, 0, 0, &[], &h), Err(MerkleError::IndexOutOfRange { index: 0, size: 0 }));
        assert_eq!(verify_consistency(0, 0, &[], &h, &h), Err(MerkleError::EmptyTree));
        assert_eq!(verify_consistency(2, 1, &[], &h, &h), Err(MerkleError::SizesReversed { size1: 2, size2: 1 }));
        assert_eq!(
            verify_consistency(3, 3, &[h], &h, &h),
            Err(MerkleError::WrongProofLength { expected: 0, actual: 1 })
        );
        assert_eq!(
            verify_inclusion_bytes(&[0u8; 31], 0, 1, &[] as &[&[u8]], &h),
            Err(MerkleError::BadHashLength { what: HashRole::LeafHash, len: 31 })
        );
    }

    #[test]
    fn extreme_sizes_do_not_overflow() {
        let h = [1u8; 32];
        assert_eq!(inclusion_proof_len(u64::MAX - 1, u64::MAX), Some(63));
        assert_eq!(inclusion_proof_len(0, u64::MAX), Some(64));
        assert!(verify_inclusion(&h, u64::MAX - 1, u64::MAX, &[h; 64], &h).is_err());
        assert!(consistency_proof_len(u64::MAX - 1, u64::MAX).is_some());
        assert!(consistency_proof_len(1, u64::MAX).is_some());
        assert!(verify_consistency(u64::MAX - 1, u64::MAX, &[h; 3], &h, &h).is_err());
        assert!(verify_consistency(1 << 63, u64::MAX, &[h; 64], &h, &h).is_err());
    }

    #[test]
    fn generation_refuses_what_verification_refuses() {
        let log = log_of(5);
        assert_eq!(log.inclusion_proof(5, 5), Err(MerkleError::IndexOutOfRange { index: 5, size: 5 }));
        assert_eq!(log.inclusion_proof(0, 6), Err(MerkleError::BeyondLog { size: 6, log_size: 5 }));
        assert_eq!(log.consistency_proof(0, 5), Err(MerkleError::EmptyTree));
        assert_eq!(log.consistency_proof(4, 3), Err(MerkleError::SizesReversed { size1: 4, size2: 3 }));
        assert_eq!(log.consistency_proof(5, 5), Ok(vec![]));
    }
}
