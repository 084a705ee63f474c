//! Publishing the log as C2SP `tlog-tiles` into a directory that a static web server, an object store or a CDN
//! serves (docs/RECORDER.md §Publishing the log): `checkpoint` (the latest signed head, with the witness
//! cosignatures collected for it), the hash tiles `tile/<L>/<N>[.p/<W>]` and the entry bundles
//! `tile/entries/<N>[.p/<W>]` (each entry the compact receipt).
//!
//! Incremental: the directory's own `checkpoint` says what was published; only the tiles that the new entries
//! change are written, from the store's tree nodes (never by rehashing the log), so a publish costs the new entries
//! plus at most one rewritten partial tile per level. Every file is written to a temporary name, synced and renamed
//! into place (then its directory synced), so a crash never leaves a torn file; the checkpoint goes last, so every
//! tile it needs is already there. A partial tile is removed once the full tile that supersedes it is in place.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use curbi::proof::merkle::leaf_hash;
use curbi::proof::note;
use curbi::proof::tiles::{
    TILE_HEIGHT, TILE_WIDTH, entries_path, hashes_at, index_path, push_entry, tile_path, tile_width,
};
use curbi::{Error, ErrorCode};
use serde::Serialize;

use crate::recorder::Recorder;
use crate::store::{HeadRow, Tx};

/// What one publish did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Published {
    /// The size of the checkpoint now published.
    pub size: u64,
    /// The size published before (0 for a new directory).
    pub previous: u64,
    /// Tiles and entry bundles written.
    pub files: usize,
    /// The published checkpoint (the signed head with any witness cosignatures).
    pub checkpoint: String,
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::new(ErrorCode::Storage, "/dir", format!("{}: {e}", path.display()))
}

/// Creates `dir` (and its missing parents), syncing each parent a new directory was added to. A relative path's
/// last parent is the empty path, the working directory, which is there already (creating it fails).
fn make_dir(dir: &Path) -> Result<(), Error> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        make_dir(parent)?;
    }
    match fs::create_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io(dir, e)),
    }
    if let Some(parent) = dir.parent() {
        sync_dir(parent)?;
    }
    Ok(())
}

fn sync_dir(dir: &Path) -> Result<(), Error> {
    let d = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
    fs::File::open(d).and_then(|f| f.sync_all()).map_err(|e| io(d, e))
}

/// Writes `bytes` at `path` atomically: a temporary file beside it, synced, renamed over it, the directory synced.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let dir = path.parent().unwrap_or(Path::new(""));
    make_dir(dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    // Unique per process and call, so that two publishers never share a temporary file.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let mut f = fs::File::create(&tmp).map_err(|e| io(&tmp, e))?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(|e| io(&tmp, e))?;
    drop(f);
    fs::rename(&tmp, path).map_err(|e| io(path, e))?;
    sync_dir(dir)
}

/// The head to publish: the signed head with the cosignatures stored for it (its text otherwise).
pub(crate) fn cosigned_note(tx: &dyn Tx, head: &HeadRow) -> Result<String, Error> {
    Ok(tx.meta(&cosigned_key(head.size))?.unwrap_or_else(|| head.note.clone()))
}

/// The meta entry that keeps a head's cosigned text.
pub(crate) fn cosigned_key(size: u64) -> String {
    format!("cosigned.{size}")
}

/// The size the directory's checkpoint says was published: 0 when there is none. A checkpoint of another log, or
/// of a root this log never had at its size, is refused: publishing over it would mix two logs.
fn published_size(tx: &dyn Tx, dir: &Path, origin: &str) -> Result<u64, Error> {
    let path = dir.join("checkpoint");
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(io(&path, e)),
    };
    let bad = |m: String| Error::new(ErrorCode::UnknownHead, "/dir", format!("{}: {m}", path.display()));
    let signed = note::parse_checkpoint(&text).map_err(|e| bad(e.to_string()))?;
    let cp = signed.checkpoint();
    if cp.origin() != origin {
        return Err(bad(format!("a checkpoint of the log {}", cp.origin())));
    }
    match tx.head(cp.size())? {
        Some(h) if h.root == *cp.root() => Ok(cp.size()),
        _ => Err(bad(format!("a checkpoint of size {} this log never signed", cp.size()))),
    }
}

impl Recorder {
    /// Publishes the log as C2SP tiles into `dir` up to the latest signed head (see the module docs). Refused
    /// before the first checkpoint. One process publishes into a directory at a time (the one that signs heads):
    /// a publish that finds the directory past this log's latest head, or holding another log, is refused.
    pub fn publish(&self, dir: &Path) -> Result<Published, Error> {
        let origin = self.origin().to_string();
        let mut out = None;
        self.storage().read(&mut |tx| {
            out = Some(publish_in(tx, dir, &origin)?);
            Ok(())
        })?;
        out.ok_or_else(|| Error::new(ErrorCode::Internal, "", "the publish did not run"))
    }
}

fn publish_in(tx: &mut dyn Tx, dir: &Path, origin: &str) -> Result<Published, Error> {
    let head = tx.latest_head()?.ok_or_else(|| Error::new(ErrorCode::NoHead, "", "no head signed yet"))?;
    let checkpoint = cosigned_note(tx, &head)?;
    let size = head.size;
    let previous = published_size(tx, dir, origin)?;
    if previous > size {
        return Err(Error::new(
            ErrorCode::Corrupt,
            "/dir",
            format!("the directory holds a checkpoint of size {previous}, past this log's latest head {size}"),
        ));
    }
    let mut files = 0;
    let mut level = 0u32;
    while hashes_at(level, size) > 0 {
        let (old, new) = (hashes_at(level, previous), hashes_at(level, size));
        if new > old {
            for n in old / TILE_WIDTH..=(new - 1) / TILE_WIDTH {
                let width = tile_width(level, n, size);
                write_tile(tx, dir, level, n, width)?;
                files += 1;
                if level == 0 {
                    write_entries(tx, dir, n, width)?;
                    files += 1;
                }
                if width == TILE_WIDTH {
                    remove_partials(dir, level, n)?;
                }
            }
        }
        level += 1;
    }
    let current = fs::read_to_string(dir.join("checkpoint")).ok();
    if current.as_deref() != Some(checkpoint.as_str()) {
        write_atomic(&dir.join("checkpoint"), checkpoint.as_bytes())?;
    }
    Ok(Published { size, previous, files, checkpoint })
}

fn write_tile(tx: &dyn Tx, dir: &Path, level: u32, n: u64, width: u64) -> Result<(), Error> {
    let mut bytes = Vec::with_capacity(width as usize * 32);
    for i in 0..width {
        let index = n * TILE_WIDTH + i;
        let hash = tx.node(TILE_HEIGHT * level, index)?.ok_or_else(|| {
            Error::new(
                ErrorCode::Corrupt,
                "",
                format!("the tree has no node at level {} for {index}", TILE_HEIGHT * level),
            )
        })?;
        bytes.extend_from_slice(&hash);
    }
    write_atomic(&dir.join(tile_path(level, n, width)), &bytes)
}

fn write_entries(tx: &dyn Tx, dir: &Path, n: u64, width: u64) -> Result<(), Error> {
    let mut bytes = Vec::new();
    for i in 0..width {
        let seq = n * TILE_WIDTH + i;
        let row = tx.receipt(seq)?.ok_or_else(|| Error::new(ErrorCode::Corrupt, "", format!("no receipt at {seq}")))?;
        if tx.node(0, seq)? != Some(leaf_hash(row.receipt.as_bytes())) {
            return Err(Error::new(ErrorCode::Corrupt, "", format!("the receipt at {seq} is not its leaf")));
        }
        push_entry(&mut bytes, row.receipt.as_bytes())?;
    }
    write_atomic(&dir.join(entries_path(n, width)), &bytes)
}

/// Removes the partial tiles (and entry bundles) that the full tile `n` at `level` supersedes: C2SP lets a log
/// delete them, and readers fall back to the full tile.
fn remove_partials(dir: &Path, level: u32, n: u64) -> Result<(), Error> {
    let mut partials: Vec<PathBuf> = vec![dir.join(format!("tile/{level}/{}.p", index_path(n)))];
    if level == 0 {
        partials.push(dir.join(format!("tile/entries/{}.p", index_path(n))));
    }
    for p in partials {
        match fs::remove_dir_all(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&p, e)),
        }
    }
    Ok(())
}
