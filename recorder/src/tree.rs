//! The log's right edge in memory: the complete subtrees whose concatenation is the whole log (one per set bit of
//! its size). Appending a leaf yields the tree nodes it completes, which the store keeps; the root folds the edge.
//! Loading it on open reads at most 64 stored nodes, so reopening never replays the log.

use curbi::Error;
use curbi::proof::merkle::{Hash, NodeStore, empty_root, node_hash};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Frontier {
    size: u64,
    /// Subtree hashes, largest (leftmost) first: one per set bit of `size`, from the highest.
    peaks: Vec<Hash>,
}

impl Frontier {
    /// Reads the edge of a log of `size` leaves from its stored nodes.
    pub(crate) fn load<S: NodeStore<Error = Error> + ?Sized>(store: &S, size: u64) -> Result<Frontier, Error> {
        let mut peaks = Vec::with_capacity(size.count_ones() as usize);
        let mut start = 0u64;
        for level in (0..u64::BITS).rev() {
            if size >> level & 1 == 1 {
                let hash = store.node(level, start >> level)?.ok_or_else(|| {
                    Error::new(
                        curbi::ErrorCode::Corrupt,
                        "",
                        format!("the tree has no node at level {level} for leaf {start}"),
                    )
                })?;
                peaks.push(hash);
                start += 1 << level;
            }
        }
        Ok(Frontier { size, peaks })
    }

    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Appends the leaf hash `leaf` at index `size`, returning every node it completes as `(level, index, hash)`.
    pub(crate) fn append(&mut self, leaf: Hash) -> Vec<(u32, u64, Hash)> {
        let n = self.size;
        let mut nodes = vec![(0, n, leaf)];
        let mut hash = leaf;
        let mut level = 0u32;
        // Each trailing one bit of n is a complete left sibling that the new leaf pairs with.
        while n >> level & 1 == 1 {
            let left = self.peaks.pop().unwrap_or_default();
            hash = node_hash(&left, &hash);
            level += 1;
            nodes.push((level, n >> level, hash));
        }
        self.peaks.push(hash);
        self.size += 1;
        nodes
    }

    /// MTH of the whole log (RFC 9162): the peaks folded from the right.
    pub(crate) fn root(&self) -> Hash {
        let mut iter = self.peaks.iter().rev();
        let Some(last) = iter.next() else { return empty_root() };
        iter.fold(*last, |acc, left| node_hash(left, &acc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use curbi::proof::merkle::{MerkleLog, leaf_hash};
    use std::collections::HashMap;

    struct Nodes(HashMap<(u32, u64), Hash>);

    impl NodeStore for Nodes {
        type Error = Error;
        fn node(&self, level: u32, index: u64) -> Result<Option<Hash>, Error> {
            Ok(self.0.get(&(level, index)).copied())
        }
    }

    #[test]
    fn the_edge_agrees_with_the_in_memory_log_at_every_size_and_reloads() {
        let mut log = MerkleLog::new();
        let mut edge = Frontier::default();
        let mut nodes = Nodes(HashMap::new());
        assert_eq!(edge.root(), empty_root());
        for i in 0..300u64 {
            let entry = i.to_be_bytes();
            log.append(&entry);
            for (level, index, hash) in edge.append(leaf_hash(&entry)) {
                assert_eq!(nodes.0.insert((level, index), hash), None, "a node is written once");
                assert_eq!(log.node(level, index), Ok(Some(hash)), "node {level}/{index}");
            }
            assert_eq!(edge.root(), log.root(), "root at size {}", i + 1);
            assert_eq!(Frontier::load(&nodes, i + 1).expect("loads"), edge);
        }
        // About two stored nodes per leaf, as the design says.
        assert_eq!(nodes.0.len(), 2 * 300 - 300u64.count_ones() as usize);
    }
}
