//! The log's history: heads the caller saw before ([`KnownHead`]), and the checks that every signed head in play is
//! one history: no fork (with both heads as evidence), every older or known head proven a prefix of the head.

use serde_json::Value;

use super::algorithm::{Trusted, VerifiedHead, verify_checkpoint};
use super::report::{Evidence, Finding, Reason};
use crate::error::Error;
use crate::pointer::element;
use crate::proof::bundle::{ParsedBundle, read_head};
use crate::proof::merkle::{self, Hash};
use crate::proof::note::SignedCheckpoint;

/// A head the caller saw before.
#[derive(Debug, Clone)]
pub struct KnownHead {
    pub text: String,
    pub head: SignedCheckpoint,
}

impl KnownHead {
    /// Reads a signed Curbi checkpoint note.
    pub fn parse(text: &str) -> Result<KnownHead, Error> {
        let (text, head) = read_head(&Value::String(text.to_string()), "")?;
        Ok(KnownHead { text, head })
    }
}

/// The history checks: older heads in the bundle and heads the caller knows must verify, no two signed heads of the
/// log may disagree at one size (a fork), and each must be proven a prefix of the head. Returns the first finding
/// (a fork before anything else) and its evidence.
/// `known_at(i)` is the pointer of the `i`-th known head in the request.
pub(crate) fn check_history(
    bundle: &ParsedBundle,
    head: &VerifiedHead<'_>,
    trusted: &Trusted<'_>,
    known: &[KnownHead],
    known_at: impl Fn(usize) -> String,
) -> Option<(Finding, Option<Evidence>)> {
    let origin = bundle.head.checkpoint().origin();
    // Every signed head in play, the bundle's head first, then what the caller knows, then the bundle's older heads.
    let mut heads: Vec<(&str, &SignedCheckpoint, String)> =
        vec![(&bundle.head_text, &bundle.head, "/bundle/head".into())];
    let mut failures = Vec::new();
    let mut known_ok = Vec::new();
    for (i, k) in known.iter().enumerate() {
        let at = known_at(i);
        match verify_checkpoint(&k.head, trusted, &[], &at) {
            Ok(_) => {
                heads.push((&k.text, &k.head, at));
                known_ok.push(i);
            }
            Err(f) => failures.push(f),
        }
    }
    let mut older_ok = Vec::new();
    for (i, o) in bundle.older.iter().enumerate() {
        let at = format!("{}/head", element("/bundle/consistency", i));
        match verify_checkpoint(&o.head, trusted, &[], &at) {
            Ok(_) => {
                heads.push((&o.text, &o.head, at));
                older_ok.push(i);
            }
            Err(f) => failures.push(f),
        }
    }
    for (a, (text_a, cp_a, _)) in heads.iter().enumerate() {
        for (text_b, cp_b, path_b) in &heads[a + 1..] {
            let (x, y) = (cp_a.checkpoint(), cp_b.checkpoint());
            if x.origin() == y.origin() && x.size() == y.size() && x.root() != y.root() {
                let f = Finding::new(
                    Reason::ForkDetected,
                    path_b.clone(),
                    format!("two signed heads of \"{}\" at size {} with different roots", x.origin(), x.size()),
                );
                let evidence =
                    Evidence { heads: vec![(*text_a).to_string(), (*text_b).to_string()], receipts: Vec::new() };
                return Some((f, Some(evidence)));
            }
        }
    }
    if let Some(f) = failures.into_iter().next() {
        return Some((f, None));
    }
    let unproven = |path: String, m: String| Some((Finding::new(Reason::HistoryUnproven, path, m), None));
    let mut proven: Vec<(u64, Hash)> = vec![(head.size, head.root)];
    for i in older_ok {
        let o = &bundle.older[i];
        let at = element("/bundle/consistency", i);
        let cp = o.head.checkpoint();
        if cp.origin() != origin {
            return unproven(at, format!("the older head is of another log, \"{}\"", cp.origin()));
        }
        if cp.size() > head.size {
            return unproven(
                at,
                format!("an older head of size {} is larger than the head ({})", cp.size(), head.size),
            );
        }
        if let Err(e) = merkle::verify_consistency(cp.size(), head.size, &o.proof, cp.root(), &head.root) {
            return unproven(
                at,
                format!("the head of size {} is not proven a prefix of the head of size {}: {e}", cp.size(), head.size),
            );
        }
        proven.push((cp.size(), *cp.root()));
    }
    for i in known_ok {
        let cp = known[i].head.checkpoint();
        let at = known_at(i);
        if cp.origin() != origin {
            return unproven(at, format!("a known head of another log, \"{}\"", cp.origin()));
        }
        if cp.size() > head.size {
            return unproven(
                at,
                format!(
                    "rollback: you know a head of size {}, the bundle's head is smaller ({})",
                    cp.size(),
                    head.size
                ),
            );
        }
        // The empty tree is a prefix of every tree, so a known head of size 0 needs no proof (RFC 9162 has none
        // from size 0); it only has to be the empty tree, whose root is SHA-256 of the empty string.
        if cp.size() == 0 {
            if *cp.root() != merkle::empty_root() {
                return unproven(
                    at,
                    "a known head of size 0 whose root is not the empty tree's (SHA-256 of the empty string)".into(),
                );
            }
            continue;
        }
        if !proven.contains(&(cp.size(), *cp.root())) {
            return unproven(
                at,
                format!(
                    "the bundle has no consistency proof from your head of size {} to size {}",
                    cp.size(),
                    head.size
                ),
            );
        }
    }
    None
}
