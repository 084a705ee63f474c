//! The tiles reader (core/src/proof/tiles.rs: `bundle_from_tiles`, `TileReader`, `split_entries`) on a log the
//! recorder really published (recorder/src/tiles.rs: 300 confirmed refunds, a known head at 100, tiles, partial
//! tiles and entry bundles), with its files changed as the input says: replaced, cut, a byte flipped, extended,
//! deleted, or an extra file at a path the reader may try. Never a panic; a refusal is an error with a code that
//! is not `internal`; a bundle is only ever the log's own entries at the asked indexes (whatever the files say, the
//! reader hands out nothing the checkpoint's root does not commit to) and its size is linear in the bytes read.
//! The input itself is also split as an entry bundle, which must write back to the same bytes.
#![no_main]

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

use curbi::proof::tiles::{bundle_from_tiles, push_entry, split_entries};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

mod common;
mod recorder_log;

struct Log {
    files: BTreeMap<String, Vec<u8>>,
    entries: Vec<String>,
    known: String,
}

fn read_tree(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).expect("reads the published folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            read_tree(root, &path, out);
        } else {
            let name = path.strip_prefix(root).expect("under the root").to_string_lossy().into_owned();
            out.insert(name, std::fs::read(&path).expect("reads a published file"));
        }
    }
}

static LOG: LazyLock<Log> = LazyLock::new(|| {
    let dir = recorder_log::scratch("tiles");
    let recorder = recorder_log::open(&dir);
    recorder_log::refunds(&recorder, 0, 100);
    let known = recorder_log::call(&recorder, "checkpoint", &serde_json::json!({}));
    recorder_log::refunds(&recorder, 100, 200);
    recorder_log::call(&recorder, "checkpoint", &serde_json::json!({}));
    let published = dir.join("published");
    recorder_log::call(&recorder, "publish", &serde_json::json!({"dir": published}));
    let mut files = BTreeMap::new();
    read_tree(&published, &published, &mut files);
    let entries = (0..300u64)
        .map(|seq| {
            recorder_log::call(&recorder, "receipt", &serde_json::json!({"seq": seq}))["receipt"]
                .as_str()
                .expect("a receipt")
                .to_string()
        })
        .collect();
    Log { files, entries, known: known["note"].as_str().expect("a note").to_string() }
});

/// Paths a reader of a 300-leaf log may ask for beside the published ones.
const EXTRA: [&str; 6] =
    ["tile/0/001", "tile/entries/001", "tile/1/000", "tile/0/000.p/12", "tile/1/000.p/2", "checkpoint"];

/// Up to `max` bytes of the input, as many as it says (fewer where it runs out).
fn take<'a>(u: &mut Unstructured<'a>, max: usize) -> Result<&'a [u8]> {
    let n = u.int_in_range(0usize..=max)?.min(u.len());
    u.bytes(n)
}

fn run(data: &[u8]) -> Result<()> {
    let log = &*LOG;
    let mut u = Unstructured::new(data);
    let mut files = log.files.clone();
    let names: Vec<String> = files.keys().cloned().chain(EXTRA.iter().map(|s| s.to_string())).collect();
    let changes = u.int_in_range(0u8..=4)?;
    for _ in 0..changes {
        let name = u.choose(&names)?.clone();
        let file = files.entry(name.clone()).or_default();
        match u.int_in_range(0u8..=4)? {
            0 => *file = take(&mut u, 512)?.to_vec(),
            1 => file.truncate(u.int_in_range(0usize..=file.len())?),
            2 if !file.is_empty() => {
                let i = u.choose_index(file.len())?;
                file[i] ^= u.int_in_range(1u8..=255)?;
            }
            3 => file.extend_from_slice(take(&mut u, 64)?),
            _ => {
                files.remove(&name);
            }
        }
    }
    let known: Vec<String> = match u.int_in_range(0u8..=2)? {
        0 => vec![],
        1 => vec![log.known.clone()],
        _ => vec![String::from_utf8_lossy(take(&mut u, 256)?).into_owned()],
    };
    let count = u.int_in_range(1usize..=4)?;
    let mut indexes = Vec::with_capacity(count);
    for _ in 0..count {
        indexes.push(u64::from(u.int_in_range(0u16..=303)?));
    }
    let read = Cell::new(0usize);
    let fetch = |path: &str| -> curbi::Result<Option<Vec<u8>>> {
        let got = files.get(path).cloned();
        read.set(read.get() + path.len() + got.as_ref().map_or(0, Vec::len));
        Ok(got)
    };
    match bundle_from_tiles(&fetch, &indexes, &known, None) {
        Ok(bundle) => {
            for (item, &index) in bundle.receipts.iter().zip(&indexes) {
                assert_eq!(item.receipt, log.entries[index as usize], "receipt {index} is not the log's");
            }
            assert_eq!(bundle.receipts.len(), indexes.len());
            common::assert_bounded("a bundle from tiles", bundle.to_json_string().len(), read.get(), 8);
        }
        Err(e) => {
            common::assert_error(&e, read.get() + data.len());
            assert!(
                changes > 0 || indexes.iter().any(|&i| i >= 300) || known.len() == 1 && known[0] != log.known,
                "the published log was refused: {e}"
            );
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    if let Ok(entries) = split_entries(data, "input") {
        let mut again = Vec::with_capacity(data.len());
        for e in &entries {
            push_entry(&mut again, e).expect("an entry that was read fits");
        }
        assert_eq!(again, data, "an entry bundle writes back to its bytes");
    }
    let _ = run(data);
});
