//! The log published as C2SP tlog-tiles (docs/RECORDER.md §Publishing the log): the layout the spec gives for each
//! size, incremental writes with superseded partial tiles removed, tiles that are the leaf hashes of the receipts,
//! and a bundle assembled from the published files alone that equals the recorder's own and verifies.
#![allow(clippy::panic)]

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::*;
use curbi::proof::merkle::leaf_hash;
use curbi::proof::tiles::bundle_from_tiles;
use curbi_recorder::{BundleRequest, Select};
use serde_json::{Value, json};

/// Every file under `dir`, as paths relative to it.
fn files(dir: &Path) -> BTreeSet<String> {
    fn walk(root: &Path, at: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(at).expect("reads") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(p.strip_prefix(root).expect("under").to_string_lossy().into_owned());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

fn set(paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|s| (*s).to_string()).collect()
}

fn from_dir(dir: &Path) -> impl Fn(&str) -> Result<Option<Vec<u8>>, curbi::Error> + '_ {
    move |p: &str| match std::fs::read(dir.join(p)) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => panic!("{p}: {e}"),
    }
}

#[test]
fn the_log_is_published_incrementally_in_the_spec_s_layout() {
    let tmp = tempfile::tempdir().expect("dir");
    let r = fresh_log(tmp.path(), "log.db");
    let out = tmp.path().join("public");
    assert_eq!(code_of(r.call_json("publish", json!({"dir": out}).to_string().as_bytes())), "no_head");

    grow(&r, 5, "rf");
    call(&r, "checkpoint", "{}");
    let p = call(&r, "publish", &json!({"dir": out}).to_string());
    assert_eq!((p["size"].as_u64(), p["previous"].as_u64(), p["files"].as_u64()), (Some(5), Some(0), Some(2)));
    assert_eq!(files(&out), set(&["checkpoint", "tile/0/000.p/5", "tile/entries/000.p/5"]));

    // 300 = one full level-0 tile and one of 44; level 1 has one hash (the first tile's root).
    grow(&r, 300, "rf");
    call(&r, "checkpoint", "{}");
    let p = call(&r, "publish", &json!({"dir": out}).to_string());
    assert_eq!((p["previous"].as_u64(), p["files"].as_u64()), (Some(5), Some(5)));
    let at_300 = set(&[
        "checkpoint",
        "tile/0/000",
        "tile/0/001.p/44",
        "tile/1/000.p/1",
        "tile/entries/000",
        "tile/entries/001.p/44",
    ]);
    assert_eq!(files(&out), at_300, "the partial tile of 5 is gone once its full tile is there");

    // Publishing again with no new head writes nothing.
    let p = call(&r, "publish", &json!({"dir": out}).to_string());
    assert_eq!(p["files"], 0);

    // 600: tile 0/001 fills (its partial goes), 0/002 is partial at 88, level 1 has two hashes.
    grow(&r, 600, "rf");
    call(&r, "checkpoint", "{}");
    let p = call(&r, "publish", &json!({"dir": out}).to_string());
    assert_eq!(p["files"], 5, "two level-0 tiles, their two entry bundles and the level-1 tile");
    let at_600 = set(&[
        "checkpoint",
        "tile/0/000",
        "tile/0/001",
        "tile/0/002.p/88",
        "tile/1/000.p/1",
        "tile/1/000.p/2",
        "tile/entries/000",
        "tile/entries/001",
        "tile/entries/002.p/88",
    ]);
    assert_eq!(files(&out), at_600, "a partial tile of a published size stays until its full tile exists");

    // The level-0 tiles are the leaf hashes of the receipts, in order; the entry bundles are the receipts.
    let mut leaves = Vec::new();
    let mut entries = Vec::new();
    for seq in 0..256 {
        let receipt = r.receipt(seq).expect("receipt").receipt;
        leaves.extend_from_slice(&leaf_hash(receipt.as_bytes()));
        entries.extend_from_slice(&u16::try_from(receipt.len()).expect("short").to_be_bytes());
        entries.extend_from_slice(receipt.as_bytes());
    }
    assert_eq!(std::fs::read(out.join("tile/0/000")).expect("tile"), leaves);
    assert_eq!(std::fs::read(out.join("tile/entries/000")).expect("bundle"), entries);
    assert_eq!(std::fs::read(out.join("tile/1/000.p/2")).expect("tile").len(), 64);
    let head = call(&r, "status", "{}")["head"]["note"].as_str().expect("note").to_string();
    assert_eq!(std::fs::read_to_string(out.join("checkpoint")).expect("checkpoint"), head);
}

#[test]
fn a_bundle_from_the_tiles_alone_equals_the_recorder_s_and_verifies() {
    let tmp = tempfile::tempdir().expect("dir");
    let r = fresh_log(tmp.path(), "log.db");
    let out = tmp.path().join("public");
    let mut heads = Vec::new();
    for size in [3u64, 256, 300, 517] {
        grow(&r, size, "rf");
        heads.push(call(&r, "checkpoint", "{}")["note"].as_str().expect("note").to_string());
        r.publish(&out).expect("publishes");
    }
    let known = &heads[..3];
    let indexes = [0u64, 2, 255, 256, 299, 300, 516];
    let keys = call(&r, "keys", "{}");
    let fetch = from_dir(&out);
    let tiles = bundle_from_tiles(&fetch, &indexes, known, Some(keys.clone())).expect("assembles");
    let own = r
        .bundle(&BundleRequest {
            select: Select::Seqs(indexes.to_vec()),
            head: None,
            known: known.to_vec(),
            attestations: false,
        })
        .expect("bundles");
    assert_eq!(tiles.head, own.head);
    assert_eq!(tiles.receipts, own.receipts, "the same receipts, indexes and inclusion proofs");
    assert_eq!(tiles.consistency, own.consistency, "the same consistency proofs from every known head");
    let result = verify(&tiles.to_value(), &keys, known);
    assert_eq!(result["ok"], true, "{result}");

    // Past the checkpoint, a missing tile and a tampered one are errors, not bundles.
    let code = |r: Result<_, curbi::Error>| r.map(|_: curbi::proof::bundle::Bundle| ()).map_err(|e| e.code.as_str());
    assert_eq!(code(bundle_from_tiles(&fetch, &[517], &[], None)), Err("unknown_receipt"));
    std::fs::remove_file(out.join("tile/entries/001")).expect("removes");
    assert_eq!(code(bundle_from_tiles(&fetch, &[300], &[], None)), Err("not_found"));
    let mut tile = std::fs::read(out.join("tile/0/000")).expect("tile");
    tile[0] ^= 1;
    std::fs::write(out.join("tile/0/000"), tile).expect("writes");
    assert_eq!(code(bundle_from_tiles(&fetch, &[0], &[], None)), Err("corrupt"));
}

#[test]
fn a_directory_of_another_log_or_a_later_size_is_refused_and_no_temporary_file_stays() {
    let tmp = tempfile::tempdir().expect("dir");
    let out = tmp.path().join("public");
    let a = fresh_log(tmp.path(), "a.db");
    grow(&a, 4, "rf");
    call(&a, "checkpoint", "{}");
    a.publish(&out).expect("publishes");
    // Another database of the same origin (a fork, or a restored backup that lost entries): its heads are not ours.
    let b = fresh_log(tmp.path(), "b.db");
    call(&b, "attest", &attest_body("other", 200));
    settle(&b, "confirm", "other", "DONE", Some(&evidence(200)));
    call(&b, "checkpoint", "{}");
    assert_eq!(b.publish(&out).map_err(|e| e.code.as_str()), Err("unknown_head"));
    assert!(files(&out).iter().all(|f| !f.contains(".tmp")), "{:?}", files(&out));
    let published: Value = json!(files(&out));
    assert_eq!(published, json!(["checkpoint", "tile/0/000.p/4", "tile/entries/000.p/4"]));
}
