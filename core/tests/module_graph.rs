//! Keeps core's layering (docs/DOCUMENTS.md): no top-level module imports one that imports it back, directly or
//! through others, and nothing inside core imports the facade `api`, which every surface calls.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Each top-level module of `src/` (a file or a folder) and the top-level modules its code names as `crate::…`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    files(&src, &mut paths);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in paths {
        let rel = p.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_owned();
        if top == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let code: String =
            text.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n");
        let deps = graph.entry(top.clone()).or_default();
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group.split('}').next().unwrap_or_default().split(',').collect(),
                None => vec![rest],
            };
            for n in names {
                let first: String = n.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !first.is_empty() && first != top {
                    deps.insert(first);
                }
            }
        }
    }
    graph
}

#[test]
fn the_module_graph_has_no_cycle() {
    let graph = graph();
    assert!(graph.contains_key("check") && graph.contains_key("policy") && graph.contains_key("proof"));
    fn visit<'a>(
        m: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(start) = path.iter().position(|p| *p == m) {
            panic!("module cycle: {} -> {m}", path[start..].join(" -> "));
        }
        if done.contains(m) {
            return;
        }
        path.push(m);
        for d in graph.get(m).into_iter().flatten() {
            visit(d, graph, path, done);
        }
        path.pop();
        done.insert(m);
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        visit(m, &graph, &mut Vec::new(), &mut done);
    }
}

#[test]
fn nothing_inside_core_imports_the_facade() {
    for (m, deps) in graph() {
        assert!(!deps.contains("api"), "{m} imports crate::api: the facade is for the surfaces only");
    }
}
