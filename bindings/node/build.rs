//! Sets the linker flags a Node addon needs (napi-build), and writes the error-code enum from vectors/errors.json,
//! the one list of codes, so the TypeScript union and the codes the addon throws cannot drift from it.
// A build script reports a missing or unreadable code list by failing the build, which is what a panic does here.
#![allow(clippy::panic)]
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    napi_build::setup();
    let list = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors/errors.json");
    println!("cargo::rerun-if-changed={}", list.display());
    let text = std::fs::read_to_string(&list).unwrap_or_else(|e| panic!("{}: {e}", list.display()));
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", list.display()));
    let codes: Vec<&str> =
        doc["codes"].as_array().map(|a| a.iter().filter_map(|c| c["code"].as_str()).collect()).unwrap_or_default();
    assert!(!codes.is_empty(), "{}: no codes", list.display());
    let variant = |code: &str| -> String { code.split('_').map(|w| w[..1].to_ascii_uppercase() + &w[1..]).collect() };
    let mut out = String::from(
        "/// Every stable error code (vectors/errors.json): the `code` of a thrown `CurbiError`.\n\
         #[napi(string_enum = \"snake_case\")]\n#[derive(Debug, Clone, Copy, PartialEq, Eq)]\npub enum ErrorCode {\n",
    );
    for c in &codes {
        let _ = writeln!(out, "    {},", variant(c));
    }
    out.push_str("}\n\nimpl ErrorCode {\n    /// The code named `code`, if the list has it.\n");
    out.push_str("    pub(crate) fn named(code: &str) -> Option<ErrorCode> {\n        match code {\n");
    for c in &codes {
        let _ = writeln!(out, "            {c:?} => Some(ErrorCode::{}),", variant(c));
    }
    out.push_str("            _ => None,\n        }\n    }\n}\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("codes.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
