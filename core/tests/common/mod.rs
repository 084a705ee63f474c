//! Reading the shared vectors (`vectors/` at the repository root) for the vector tests.
#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// `vectors/` at the repository root.
pub(crate) fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors")
}

/// A JSON file, or a panic that names it.
pub(crate) fn load(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `.json` files of `vectors/<group>/`, sorted by name.
pub(crate) fn group_files(group: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(vectors().join(group))
        .unwrap_or_else(|e| panic!("vectors/{group}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// The `cases` of a vector group document, after checking that the group has a description and at least one case.
pub(crate) fn cases<'a>(file: &str, doc: &'a Value) -> &'a Vec<Value> {
    assert!(doc["description"].is_string(), "{file}: group needs a description");
    let cases = doc["cases"].as_array().unwrap_or_else(|| panic!("{file}: cases must be an array"));
    assert!(!cases.is_empty(), "{file}: no cases");
    cases
}

/// Runs `each` on every case of every file of `vectors/<group>/`, with the file's path for messages; prints how many
/// ran and fails when none did.
pub(crate) fn each_case(group: &str, mut each: impl FnMut(&str, &Value)) {
    let mut ran = 0;
    for path in group_files(group) {
        let file = path.display().to_string();
        let doc = load(&path);
        for case in cases(&file, &doc) {
            each(&file, case);
            ran += 1;
        }
    }
    println!("{group} vectors: {ran} ran");
    assert!(ran > 0, "no {group} vectors ran");
}
