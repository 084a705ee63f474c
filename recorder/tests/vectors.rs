//! vectors/recorder/scenarios.json through the Rust recorder's JSON calls (every binding runs the same file).
//! Bundles the scenarios verify are also written to `target/recorder-bundles/rust/` for `curbi verify`.
#![allow(clippy::panic)]

mod common;

use std::path::PathBuf;

#[test]
fn every_scenario_holds() {
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/recorder-bundles/rust");
    std::fs::create_dir_all(&out).expect("bundle dir");
    let dir = tempfile::tempdir().expect("dir");
    let files = dir.path().to_path_buf();
    let checked = common::scenarios::run_scenarios(
        &mut |n| files.join(format!("s{n}.db")).to_string_lossy().into_owned(),
        dir.path(),
        Some(&out),
    );
    assert!(checked >= 70, "only {checked} steps ran");
}
