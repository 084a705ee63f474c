//! Keeps the server crate's layout as DESIGN and the module docs describe it: no module imports one that imports it
//! back (directly or through others), nothing is imported from lib.rs itself, and every file opens with two `//!` lines.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each module of `src/` (lib.rs aside) and the modules its code names with `crate::…`, doc comments left out.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let sources: BTreeMap<String, String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    let modules: BTreeSet<&str> = sources.keys().map(String::as_str).filter(|m| *m != "lib").collect();
    let mut graph = BTreeMap::new();
    for (name, text) in sources.iter().filter(|(m, _)| m.as_str() != "lib") {
        let code: String =
            text.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n");
        let mut deps = BTreeSet::new();
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            // `crate::{a, b::c}` names several; `crate::a::…` one.
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group.split('}').next().unwrap_or_default().split(',').collect(),
                None => vec![rest],
            };
            for n in names {
                let first: String = n.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                assert!(
                    modules.contains(first.as_str()),
                    "{name}.rs imports crate::{first}, which is not a module: import it from its own module"
                );
                if first != *name {
                    deps.insert(first);
                }
            }
        }
        graph.insert(name.clone(), deps);
    }
    graph
}

#[test]
fn the_module_graph_has_no_cycle() {
    let graph = graph();
    assert!(graph.contains_key("protocol") && graph.contains_key("tools") && graph.contains_key("check_api"));
    // Depth-first search; a module met again while still on the path closes a cycle.
    fn visit<'a>(
        m: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(start) = path.iter().position(|p| *p == m) {
            panic!("module cycle: {} -> {m}", path[start..].join(" -> "));
        }
        if !done.insert(m) {
            return;
        }
        path.push(m);
        for d in &graph[m] {
            visit(d, graph, path, done);
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        visit(m, &graph, &mut Vec::new(), &mut done);
    }
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
