//! The module graph of a crate's `src/`, for the layering tests of core and the server (`tests/module_graph.rs`):
//! which top-level modules each one names as `crate::…`, and a check that no module imports one that imports it back.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Each top-level module of `src` (a file or a folder; `lib.rs` aside) and the names its code imports as
/// `crate::name` or `crate::{name, …}`, comments left out. A name may be an item `lib.rs` re-exports rather than a
/// module: callers that forbid that check the names against the graph's keys.
pub fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut paths = Vec::new();
    files(src, &mut paths);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in paths {
        let rel = p.strip_prefix(src).unwrap();
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

/// Panics with the cycle when a module reaches itself through its imports (depth-first; names that are not modules
/// of the graph end a path).
pub fn assert_acyclic(graph: &BTreeMap<String, BTreeSet<String>>) {
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
        visit(m, graph, &mut Vec::new(), &mut done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(edges: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
        edges.iter().map(|(m, d)| (m.to_string(), d.iter().map(|s| s.to_string()).collect())).collect()
    }

    #[test]
    #[should_panic(expected = "module cycle: a -> b -> c -> a")]
    fn a_cycle_through_three_modules_is_named() {
        assert_acyclic(&g(&[("a", &["b"]), ("b", &["c", "Error"]), ("c", &["a"])]));
    }

    #[test]
    fn a_diamond_is_no_cycle() {
        assert_acyclic(&g(&[("a", &["b", "c"]), ("b", &["d"]), ("c", &["d"]), ("d", &["Error"])]));
    }
}
