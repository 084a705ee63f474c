//! The log as C2SP `tlog-tiles` (docs/RECORDER.md §Publishing the log): the layout a publisher writes (tile paths,
//! widths, entry bundles) and a reader that assembles a `curbi.proof/0.1` bundle from a published log alone, through
//! a [`Fetch`] callback, so the core stays free of I/O.
//!
//! Tiles have height 8: the tile at level `l`, index `n`, holds up to 256 consecutive hashes of the Merkle tree at
//! level `8·l` (level 0: the leaf hashes), from node `256·n`. Entry bundles hold the entries of a level-0 tile, each
//! a big-endian `uint16` length and the entry's bytes (here, the compact receipt).

use std::cell::RefCell;
use std::collections::HashMap;

use super::bundle::{Bundle, BundleItem, MAX_CONSISTENCY, MAX_RECEIPTS, OlderHead};
use super::merkle::{HASH_LEN, Hash, NodeStore, consistency_proof_in, inclusion_proof_in, leaf_hash};
use super::note;
use crate::error::{Error, ErrorCode};

/// Hashes in a full tile (tile height 8).
pub const TILE_WIDTH: u64 = 256;
/// Tree levels one tile spans.
pub const TILE_HEIGHT: u32 = 8;
/// Longest entry an entry bundle can hold (its `uint16` length prefix).
pub const MAX_ENTRY_BYTES: usize = u16::MAX as usize;

/// The `<N>` of a tile path: zero-padded 3-digit elements, all but the last prefixed with `x`
/// (1234067 → `x001/x234/067`).
pub fn index_path(index: u64) -> String {
    let mut groups = vec![index % 1000];
    let mut rest = index / 1000;
    while rest > 0 {
        groups.push(rest % 1000);
        rest /= 1000;
    }
    let last = groups.len() - 1;
    groups
        .iter()
        .rev()
        .enumerate()
        .map(|(i, g)| if i < last { format!("x{g:03}/") } else { format!("{g:03}") })
        .collect()
}

fn suffix(width: u64) -> String {
    if width < TILE_WIDTH { format!(".p/{width}") } else { String::new() }
}

/// `tile/<L>/<N>[.p/<W>]`: the hash tile at `level`, `index`, of `width` hashes (256: a full tile).
pub fn tile_path(level: u32, index: u64, width: u64) -> String {
    format!("tile/{level}/{}{}", index_path(index), suffix(width))
}

/// `tile/entries/<N>[.p/<W>]`: the entry bundle beside the level-0 tile `index`.
pub fn entries_path(index: u64, width: u64) -> String {
    format!("tile/entries/{}{}", index_path(index), suffix(width))
}

/// Hashes at tree level `8·level` in a tree of `size` leaves (the complete nodes there).
pub fn hashes_at(level: u32, size: u64) -> u64 {
    size.checked_shr(TILE_HEIGHT * level).unwrap_or(0)
}

/// The width of tile `index` at `level` in a tree of `size` leaves: 256 when full, 1 to 255 when it is the partial
/// rightmost tile, 0 when the tree does not reach it.
pub fn tile_width(level: u32, index: u64, size: u64) -> u64 {
    hashes_at(level, size).saturating_sub(index.saturating_mul(TILE_WIDTH)).min(TILE_WIDTH)
}

/// Appends one entry to an entry bundle: its length as a big-endian `uint16`, then its bytes.
pub fn push_entry(bundle: &mut Vec<u8>, entry: &[u8]) -> Result<(), Error> {
    let len = u16::try_from(entry.len()).map_err(|_| {
        Error::new(
            ErrorCode::TooLong,
            "",
            format!("a log entry of {} bytes is longer than an entry bundle holds ({MAX_ENTRY_BYTES})", entry.len()),
        )
    })?;
    bundle.extend_from_slice(&len.to_be_bytes());
    bundle.extend_from_slice(entry);
    Ok(())
}

/// Splits an entry bundle into its entries; `path` names the bundle in errors.
pub fn split_entries<'b>(bundle: &'b [u8], path: &str) -> Result<Vec<&'b [u8]>, Error> {
    let mut entries = Vec::new();
    let mut rest = bundle;
    while !rest.is_empty() {
        let (len, tail) =
            rest.split_first_chunk::<2>().ok_or_else(|| corrupt(path, "ends inside an entry's length".into()))?;
        let len = usize::from(u16::from_be_bytes(*len));
        if tail.len() < len {
            return Err(corrupt(path, format!("entry {} is cut short", entries.len())));
        }
        let (entry, tail) = tail.split_at(len);
        entries.push(entry);
        rest = tail;
    }
    Ok(entries)
}

fn corrupt(path: &str, m: String) -> Error {
    Error::new(ErrorCode::Corrupt, "", format!("{path}: {m}"))
}

/// Reads one published file by its path under the log's prefix (`checkpoint`, `tile/0/000`, …): `Ok(None)` when
/// it is not there (a 404), an error when it could not be read.
pub trait Fetch {
    fn fetch(&self, path: &str) -> Result<Option<Vec<u8>>, Error>;
}

impl<F: Fn(&str) -> Result<Option<Vec<u8>>, Error>> Fetch for F {
    fn fetch(&self, path: &str) -> Result<Option<Vec<u8>>, Error> {
        self(path)
    }
}

/// A published log of `size` leaves read through a [`Fetch`]: a [`NodeStore`] whose nodes come from the tiles
/// (each tile fetched once), so that core's proofs run on it unchanged.
#[derive(Debug)]
pub struct TileReader<'f, F: ?Sized> {
    fetch: &'f F,
    size: u64,
    tiles: RefCell<HashMap<(u32, u64), Vec<Hash>>>,
}

impl<'f, F: Fetch + ?Sized> TileReader<'f, F> {
    pub fn new(fetch: &'f F, size: u64) -> TileReader<'f, F> {
        TileReader { fetch, size, tiles: RefCell::new(HashMap::new()) }
    }

    /// The hashes of tile `index` at `level` for this tree size: the partial tile when the tree ends in it (or the
    /// full tile, which a log may have published since and may have deleted the partial one for).
    fn tile(&self, level: u32, index: u64) -> Result<Vec<Hash>, Error> {
        if let Some(t) = self.tiles.borrow().get(&(level, index)) {
            return Ok(t.clone());
        }
        let width = tile_width(level, index, self.size);
        if width == 0 {
            return Err(Error::new(ErrorCode::Internal, "", format!("tile {level}/{index} is past the tree")));
        }
        let mut tried = vec![tile_path(level, index, width)];
        if width < TILE_WIDTH {
            tried.push(tile_path(level, index, TILE_WIDTH));
        }
        let mut found = None;
        for path in &tried {
            if let Some(bytes) = self.fetch.fetch(path)? {
                found = Some((path, bytes));
                break;
            }
        }
        let (path, bytes) = found.ok_or_else(|| {
            Error::new(ErrorCode::NotFound, "", format!("the log publishes no tile {}", tried.join(" nor ")))
        })?;
        let expected = if path.contains(".p/") { width } else { TILE_WIDTH };
        if bytes.len() as u64 != expected * HASH_LEN as u64 {
            return Err(corrupt(path, format!("{} bytes, not {expected} hashes", bytes.len())));
        }
        let hashes: Vec<Hash> = bytes.chunks_exact(HASH_LEN).filter_map(|c| Hash::try_from(c).ok()).collect();
        self.tiles.borrow_mut().insert((level, index), hashes.clone());
        Ok(hashes)
    }

    /// The entries of level-0 tile `index` in this tree (its width), each checked against its leaf hash.
    pub fn entries(&self, index: u64) -> Result<Vec<Vec<u8>>, Error> {
        let width = tile_width(0, index, self.size);
        let path = entries_path(index, width);
        let bytes = match self.fetch.fetch(&path)? {
            Some(b) => b,
            None if width < TILE_WIDTH => {
                let full = entries_path(index, TILE_WIDTH);
                self.fetch.fetch(&full)?.ok_or_else(|| {
                    Error::new(ErrorCode::NotFound, "", format!("the log publishes no entry bundle {path} nor {full}"))
                })?
            }
            None => {
                return Err(Error::new(ErrorCode::NotFound, "", format!("the log publishes no entry bundle {path}")));
            }
        };
        let entries = split_entries(&bytes, &path)?;
        if (entries.len() as u64) < width {
            return Err(corrupt(&path, format!("{} entries, fewer than the tree's {width}", entries.len())));
        }
        let leaves = self.tile(0, index)?;
        let mut out = Vec::with_capacity(width as usize);
        for (i, (entry, leaf)) in entries.iter().zip(&leaves).take(width as usize).enumerate() {
            if leaf_hash(entry) != *leaf {
                return Err(corrupt(&path, format!("entry {i} does not hash to its leaf in tile/0")));
            }
            out.push(entry.to_vec());
        }
        Ok(out)
    }
}

impl<F: Fetch + ?Sized> NodeStore for TileReader<'_, F> {
    type Error = Error;

    /// The node from the tile at level `⌊level/8⌋`: read directly when `level` is a multiple of 8, else hashed up
    /// from the tile's hashes below it (a subtree of a tile lies within that tile).
    fn node(&self, level: u32, index: u64) -> Result<Option<Hash>, Error> {
        let complete = index.checked_add(1).and_then(|i| i.checked_shl(level)).is_some_and(|end| end <= self.size);
        if level >= 64 || !complete {
            return Ok(None);
        }
        let (tile_level, height) = (level / TILE_HEIGHT, level % TILE_HEIGHT);
        let first = index << height;
        let tile = self.tile(tile_level, first / TILE_WIDTH)?;
        let start = (first % TILE_WIDTH) as usize;
        let mut layer: Vec<Hash> =
            tile.get(start..start + (1usize << height)).map(<[Hash]>::to_vec).ok_or_else(|| {
                corrupt(&tile_path(tile_level, first / TILE_WIDTH, TILE_WIDTH), "is too short for the tree".into())
            })?;
        while layer.len() > 1 {
            layer = layer.chunks_exact(2).map(|p| super::merkle::node_hash(&p[0], &p[1])).collect();
        }
        Ok(layer.first().copied())
    }
}

/// A bundle of the receipts at `indexes` under the published checkpoint, with a consistency proof from each head
/// in `known` (signed checkpoints the customer holds), assembled from the published files alone: the checkpoint,
/// the tiles the proofs need and the entry bundles of the receipts. The tiles must hash to the checkpoint's root
/// and each entry to its leaf; no signature is checked here (the verifier does that, against the keys the customer
/// trusts). `keys`, when given, is carried as the bundle's offered JWKS.
pub fn bundle_from_tiles<F: Fetch + ?Sized>(
    fetch: &F,
    indexes: &[u64],
    known: &[String],
    keys: Option<serde_json::Value>,
) -> Result<Bundle, Error> {
    Error::at_most(indexes.len(), MAX_RECEIPTS, "/receipts", || format!("more than {MAX_RECEIPTS} receipts"))?;
    Error::at_most(known.len(), MAX_CONSISTENCY, "/known", || format!("more than {MAX_CONSISTENCY} known heads"))?;
    let bytes = fetch
        .fetch("checkpoint")?
        .ok_or_else(|| Error::new(ErrorCode::NoHead, "", "the log publishes no checkpoint"))?;
    let head = String::from_utf8(bytes)
        .map_err(|_| Error::new(ErrorCode::InvalidNote, "/head", "the published checkpoint is not UTF-8"))?;
    let signed =
        note::parse_curbi_checkpoint(&head).map_err(|e| Error::new(ErrorCode::InvalidNote, "/head", e.to_string()))?;
    let size = signed.checkpoint().size();
    let tiles = TileReader::new(fetch, size);
    let root = super::merkle::root_in(&tiles, size)?;
    if root != *signed.checkpoint().root() {
        return Err(Error::new(
            ErrorCode::Corrupt,
            "/head",
            "the published tiles do not hash to the checkpoint's root",
        ));
    }
    let mut receipts = Vec::with_capacity(indexes.len());
    let mut bundles: HashMap<u64, Vec<Vec<u8>>> = HashMap::new();
    for (i, &index) in indexes.iter().enumerate() {
        if index >= size {
            return Err(Error::new(
                ErrorCode::UnknownReceipt,
                format!("/receipts/{i}"),
                format!("no receipt {index} below the checkpoint's size {size}"),
            ));
        }
        let n = index / TILE_WIDTH;
        let bundle = match bundles.entry(n) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(tiles.entries(n)?),
        };
        let entry = bundle.get((index % TILE_WIDTH) as usize).cloned().unwrap_or_default();
        let receipt = String::from_utf8(entry).map_err(|_| {
            Error::new(ErrorCode::Corrupt, format!("/receipts/{i}"), format!("entry {index} is not UTF-8"))
        })?;
        receipts.push(BundleItem {
            proof: inclusion_proof_in(&tiles, index, size)?,
            index,
            attestation: None,
            receipt,
        });
    }
    let mut consistency = Vec::with_capacity(known.len());
    for (i, old) in known.iter().enumerate() {
        let path = format!("/known/{i}");
        let parsed =
            note::parse_curbi_checkpoint(old).map_err(|e| Error::new(ErrorCode::InvalidNote, &path, e.to_string()))?;
        let old_size = parsed.checkpoint().size();
        if old_size > size {
            return Err(Error::new(
                ErrorCode::OutOfRange,
                &path,
                format!("a known head of size {old_size} is past the published checkpoint's {size}"),
            ));
        }
        // The empty tree is a prefix of every tree: a verifier takes a head of size 0 without a proof (RFC 9162
        // has none from size 0), as long as it is the empty tree.
        if old_size == 0 {
            if *parsed.checkpoint().root() != super::merkle::empty_root() {
                return Err(Error::new(
                    ErrorCode::UnknownHead,
                    &path,
                    "a known head of size 0 whose root is not the empty tree's (SHA-256 of the empty string)",
                ));
            }
            continue;
        }
        consistency.push(OlderHead { head: old.clone(), proof: consistency_proof_in(&tiles, old_size, size)? });
    }
    Ok(Bundle { head, receipts, consistency, keys })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_paths_follow_the_spec_examples() {
        assert_eq!(index_path(0), "000");
        assert_eq!(index_path(7), "007");
        assert_eq!(index_path(999), "999");
        assert_eq!(index_path(1000), "x001/000");
        assert_eq!(index_path(1_234_067), "x001/x234/067");
        assert_eq!(tile_path(0, 1_234_067, 256), "tile/0/x001/x234/067");
        assert_eq!(tile_path(3, 5, 112), "tile/3/005.p/112");
        assert_eq!(entries_path(1000, 1), "tile/entries/x001/000.p/1");
    }

    #[test]
    fn widths_match_the_spec_example_of_a_tree_of_70000() {
        // 273 full level-0 tiles and one of width 112; one full level-1 tile and one of 17; level 2 of width 1.
        assert_eq!(tile_width(0, 272, 70_000), 256);
        assert_eq!(tile_width(0, 273, 70_000), 112);
        assert_eq!(tile_width(0, 274, 70_000), 0);
        assert_eq!(tile_width(1, 0, 70_000), 256);
        assert_eq!(tile_width(1, 1, 70_000), 17);
        assert_eq!(tile_width(2, 0, 70_000), 1);
        assert_eq!(tile_width(3, 0, 70_000), 0);
        // A tree of 256: a full level-0 tile and a level-1 tile of width 1.
        assert_eq!(tile_width(0, 0, 256), 256);
        assert_eq!(tile_width(1, 0, 256), 1);
    }

    #[test]
    fn entry_bundles_round_trip_and_refuse_truncation() {
        let mut b = Vec::new();
        push_entry(&mut b, b"ab").expect("fits");
        push_entry(&mut b, b"").expect("fits");
        assert_eq!(b, [0, 2, b'a', b'b', 0, 0]);
        assert_eq!(split_entries(&b, "x").expect("splits"), vec![&b"ab"[..], &b""[..]]);
        assert_eq!(split_entries(&b[..3], "x").map_err(|e| e.code), Err(ErrorCode::Corrupt));
        assert_eq!(split_entries(&b[..1], "x").map_err(|e| e.code), Err(ErrorCode::Corrupt));
        assert_eq!(push_entry(&mut b, &vec![0; 65_536]).map_err(|e| e.code), Err(ErrorCode::TooLong));
    }

    /// Tiles and entry bundles of an in-memory log at `size`, as a publisher lays them out.
    fn publish(log: &crate::proof::MerkleLog, entries: &[Vec<u8>], size: u64) -> HashMap<String, Vec<u8>> {
        let mut files = HashMap::new();
        for level in 0..8u32 {
            let count = hashes_at(level, size);
            for n in 0..count.div_ceil(TILE_WIDTH) {
                let width = tile_width(level, n, size);
                let mut bytes = Vec::new();
                for i in 0..width {
                    let node = log.node(TILE_HEIGHT * level, n * TILE_WIDTH + i).expect("node").expect("complete");
                    bytes.extend_from_slice(&node);
                }
                files.insert(tile_path(level, n, width), bytes);
                if level == 0 {
                    let mut b = Vec::new();
                    for e in &entries[(n * TILE_WIDTH) as usize..(n * TILE_WIDTH + width) as usize] {
                        push_entry(&mut b, e).expect("fits");
                    }
                    files.insert(entries_path(n, width), b);
                }
            }
        }
        files
    }

    #[test]
    fn proofs_from_tiles_equal_the_in_memory_log_s() {
        let mut log = crate::proof::MerkleLog::new();
        let entries: Vec<Vec<u8>> = (0..700u32).map(|i| format!("entry {i}").into_bytes()).collect();
        for e in &entries {
            log.append(e);
        }
        for size in [1u64, 2, 255, 256, 257, 511, 512, 513, 700] {
            let files = publish(&log, &entries, size);
            let fetch = |p: &str| -> Result<Option<Vec<u8>>, Error> { Ok(files.get(p).cloned()) };
            let tiles = TileReader::new(&fetch, size);
            assert_eq!(crate::proof::merkle::root_in(&tiles, size), log.root_at(size).map_err(Error::from));
            for index in [0, size / 3, size - 1] {
                let proof = inclusion_proof_in(&tiles, index, size).expect("from tiles");
                assert_eq!(proof, log.inclusion_proof(index, size).expect("in memory"), "{index} in {size}");
            }
            for old in [1, size / 2, size] {
                if old == 0 {
                    continue;
                }
                let proof = consistency_proof_in(&tiles, old, size).expect("from tiles");
                assert_eq!(proof, log.consistency_proof(old, size).expect("in memory"), "{old} to {size}");
            }
            let last = (size - 1) / TILE_WIDTH;
            let got = tiles.entries(last).expect("entries");
            assert_eq!(got.len() as u64, tile_width(0, last, size));
            assert_eq!(got.last(), entries.get(size as usize - 1));
        }
    }

    #[test]
    fn a_full_tile_stands_in_for_a_deleted_partial_and_a_bad_entry_is_caught() {
        let mut log = crate::proof::MerkleLog::new();
        let entries: Vec<Vec<u8>> = (0..300u32).map(|i| i.to_be_bytes().to_vec()).collect();
        for e in &entries {
            log.append(e);
        }
        // The log published 300; a reader holds a checkpoint of 260, whose partial tile 0/001.p/4 is gone, and the
        // full tile 0/001 is there (as it will be once the log reaches 512).
        let mut files = publish(&log, &entries, 300);
        let mut full = Vec::new();
        for i in 256..512u64 {
            full.extend_from_slice(&log.leaf_hash(i.min(299)).expect("leaf"));
        }
        files.insert(tile_path(0, 1, 256), full);
        let fetch = |p: &str| -> Result<Option<Vec<u8>>, Error> { Ok(files.get(p).cloned()) };
        let tiles = TileReader::new(&fetch, 260);
        assert_eq!(inclusion_proof_in(&tiles, 258, 260), log.inclusion_proof(258, 260).map_err(Error::from));
        let mut broken = publish(&log, &entries, 300);
        broken.insert(entries_path(1, 44), {
            let mut b = Vec::new();
            for e in 256..300u32 {
                push_entry(&mut b, if e == 270 { b"forged" } else { &entries[e as usize] }).expect("fits");
            }
            b
        });
        let fetch = |p: &str| -> Result<Option<Vec<u8>>, Error> { Ok(broken.get(p).cloned()) };
        assert_eq!(TileReader::new(&fetch, 300).entries(1).map_err(|e| e.code), Err(ErrorCode::Corrupt));
    }
}
