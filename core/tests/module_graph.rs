//! Keeps core's layering (docs/DOCUMENTS.md): no top-level module imports one that imports it back, directly or
//! through others, and nothing inside core imports the facade `api`, which every surface calls.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;

use curbi_testkit::module_graph::{assert_acyclic, graph};

fn core_graph() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn the_module_graph_has_no_cycle() {
    let graph = core_graph();
    assert!(graph.contains_key("check") && graph.contains_key("policy") && graph.contains_key("proof"));
    assert_acyclic(&graph);
}

#[test]
fn nothing_inside_core_imports_the_facade() {
    for (m, deps) in core_graph() {
        assert!(!deps.contains("api"), "{m} imports crate::api: the facade is for the surfaces only");
    }
}
