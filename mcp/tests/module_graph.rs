//! Keeps the server crate's layout as DESIGN and the module docs describe it: no module imports one that imports it
//! back (directly or through others), nothing is imported from lib.rs itself, and every file opens with two `//!` lines.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;

use curbi_testkit::module_graph::{assert_acyclic, graph};

#[test]
fn the_module_graph_has_no_cycle() {
    let graph = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph.contains_key("protocol") && graph.contains_key("tools") && graph.contains_key("check_api"));
    for (name, deps) in &graph {
        for d in deps {
            assert!(
                graph.contains_key(d),
                "{name}.rs imports crate::{d}, which is not a module: import it from its own module"
            );
        }
    }
    assert_acyclic(&graph);
}

#[test]
fn every_file_opens_with_two_lines_on_what_it_owns() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let opening: Vec<&str> = text.lines().take(2).collect();
        assert!(
            opening.len() == 2 && opening.iter().all(|l| l.starts_with("//! ") && l.len() > 20),
            "{} must open with two //! lines saying what it owns",
            path.display()
        );
    }
}
