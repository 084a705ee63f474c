//! Instruction counts for the Proof of Action verify cost against its floor (issue 7, docs/PERFORMANCE.md), steadier
//! than time on a shared machine. Builds a bundle of N receipts (no attestations) from the reference gate with its
//! fixed clock and the published test key, then runs, on one thread, either `verify` (one `verify_bundle` of it) or
//! `floor` (N times: one `verify_strict` of a receipt's signed bytes, its leaf hash and ⌈log2 N⌉ node hashes), or
//! `read` (the bundle's compact JSON text read strictly by `ParsedBundle::from_text`, as each pool worker does). Run
//! under callgrind with collection on only inside the measured function:
//!
//! ```sh
//! cargo build --release -p curbi --example verify_count
//! valgrind --tool=callgrind --collect-atstart=no --toggle-collect='verify_count::measured_*' \
//!     target/release/examples/verify_count verify 1024
//! ```
#![allow(clippy::unwrap_used, missing_docs)]

use std::hint::black_box;

use curbi::proof::bundle::ParsedBundle;
use curbi::proof::envelope::{Envelope, Kind};
use curbi::proof::keys::{KeySet, VerifyingKey};
use curbi::proof::merkle::{self, Hash};
use curbi::proof::verify::{self, Reason, VerifyOptions};

fn bundle(n: usize) -> (ParsedBundle, KeySet, String) {
    let (value, keys) = curbi_testkit::large_bundle(n, false).unwrap();
    let first = value["receipts"][0]["receipt"].as_str().unwrap().to_string();
    (ParsedBundle::from_value(&value, "/bundle").unwrap(), keys, first)
}

#[inline(never)]
fn measured_verify(bundle: &ParsedBundle, options: &VerifyOptions) -> Reason {
    verify::verify_bundle(bundle, options).reason
}

#[inline(never)]
fn measured_read(text: &str) -> usize {
    ParsedBundle::from_text(black_box(text), "/bundle").unwrap().items.len()
}

#[inline(never)]
fn measured_floor(n: usize, key: &VerifyingKey, message: &[u8], signature: &[u8], entry: &[u8], siblings: &[Hash]) {
    for _ in 0..n {
        key.verify(black_box(message), black_box(signature)).unwrap();
        let mut h = merkle::leaf_hash(black_box(entry));
        for s in siblings {
            h = merkle::node_hash(&h, s);
        }
        black_box(h);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, n) = match args.as_slice() {
        [mode, n] => (mode.as_str(), n.parse::<usize>().unwrap()),
        _ => {
            eprintln!("usage: verify_count verify|floor|read N");
            std::process::exit(2);
        }
    };
    let (parsed, keys, first) = bundle(n);
    match mode {
        "verify" => {
            let mut options = VerifyOptions::new(keys);
            options.allow_test = true;
            options.threads = 1;
            assert_eq!(measured_verify(&parsed, &options), Reason::Verifies);
        }
        "floor" => {
            let env = Envelope::parse(Kind::Receipt, &first).unwrap();
            let depth = (n as u64).next_power_of_two().trailing_zeros() as usize;
            let siblings: Vec<Hash> = (0..depth).map(|i| merkle::leaf_hash(&[i as u8])).collect();
            let key = curbi_testkit::test_key().verifying_key();
            measured_floor(n, &key, &env.signed_bytes(), env.signature(), first.as_bytes(), &siblings);
        }
        "read" => {
            let (value, _) = curbi_testkit::large_bundle(n, false).unwrap();
            assert_eq!(measured_read(&value.to_string()), n);
        }
        _ => std::process::exit(2),
    }
}
