//! docs/MCP.md lists, with why, every conformance check the server cannot apply: the same list the conformance
//! script gates on (mcp/conformance/not-applicable.tsv, and for stdio also not-applicable-stdio.tsv). This keeps the two from drifting apart.
#![allow(clippy::unwrap_used)]

#[test]
fn the_documented_list_is_the_gated_list() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    // Both lists, in the order docs/MCP.md gives their tables: every transport, then stdio's own.
    let tsv = ["conformance/not-applicable.tsv", "conformance/not-applicable-stdio.tsv"]
        .map(|f| std::fs::read_to_string(root.join(f)).unwrap())
        .concat();
    let gated: Vec<String> = tsv
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            format!("| {} | `{}` |", cols[0], cols[1])
        })
        .collect();
    let doc = std::fs::read_to_string(root.join("../docs/MCP.md")).unwrap();
    let documented: Vec<String> = doc
        .lines()
        .filter(|l| l.starts_with("| scenario |") || l.starts_with("| check |"))
        .map(|l| l.splitn(4, " | ").take(2).collect::<Vec<_>>().join(" | ") + " |")
        .collect();
    assert!(!gated.is_empty());
    assert_eq!(documented, gated, "docs/MCP.md's table and mcp/conformance/not-applicable.tsv differ");
}
