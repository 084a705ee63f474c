//! Peak memory of verifying a large Proof of Action bundle (issue 7), in two steps so that building the fixture does
//! not count: `build REQUEST N [--attestations]` writes a `verify_bundle` request (a bundle of N receipts from the
//! reference gate with its fixed clock and the published test key, each with its attestation when asked, and the key
//! set trusting that key) to a file; `verify REQUEST`, run in a fresh process, reads the file, verifies it through
//! `api::verify_bundle_json` (the JSON entry every surface uses) on every core, and prints the reason and sizes
//! without reading the result back. `bench/proof_memory.sh` runs both and reads the peak from `/usr/bin/time -v`.
#![allow(clippy::unwrap_used, missing_docs)]

use std::process::ExitCode;

use serde_json::{Value, json};

fn request(n: usize, attestations: bool) -> Value {
    let (bundle, keys) = curbi_testkit::large_bundle(n, attestations).unwrap();
    json!({"bundle": bundle, "keys": keys.to_value(), "allowTest": true})
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["build", path, n, rest @ ..] if rest.is_empty() || rest == ["--attestations"] => {
            let n: usize = n.parse().unwrap();
            std::fs::write(path, serde_json::to_vec(&request(n, !rest.is_empty())).unwrap()).unwrap();
            ExitCode::SUCCESS
        }
        ["verify", path] => {
            let bytes = std::fs::read(path).unwrap();
            let out = curbi::api::verify_bundle_json(&bytes).unwrap();
            // The result is not parsed back: that would count the harness, not the verifier.
            let ok = out.starts_with(r#"{"ok":true,"reason":"verifies""#);
            println!("verifies={ok} request_bytes={} result_bytes={}", bytes.len(), out.len());
            if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
        }
        _ => {
            eprintln!("usage: verify_peak build REQUEST N [--attestations] | verify REQUEST");
            ExitCode::from(2)
        }
    }
}
