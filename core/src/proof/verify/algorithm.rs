//! The algorithm of `verify_bundle`, as a sequence of named phases: the trusted keys, the head, each receipt's own
//! checks (on every core), duplicates, conflicts, the history, and the one finding that decides the verdict.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rustc_hash::FxHashMap;

use super::history::check_history;
use super::options::{Mode, VerifyOptions};
use super::report::{Evidence, Finding, HeadSummary, ItemResult, Reason, Verification};
use crate::encoding::{encode_std, hex};
use crate::pointer::element;
use crate::proof::bundle::{ParsedBundle, ParsedItem};
use crate::proof::envelope::{Envelope, Receipt, Status};
use crate::proof::keys::{KeySet, PreparedKey, SignatureError, TrustedKey, VerifyingKey};
use crate::proof::merkle::{self, Hash};
use crate::proof::note::{self, NoteVerifier, SignatureKind, SignedCheckpoint};

/// Receipts per thread below which a bundle is verified on the calling thread only.
const MIN_PER_THREAD: usize = 32;

/// Verifies a parsed bundle against the options. Never panics on any bundle or key set.
pub fn verify_bundle(bundle: &ParsedBundle, options: &VerifyOptions) -> Verification {
    let outcomes =
        |items: &[ParsedItem], ctx: &ItemCtx<'_>| Ok::<_, Infallible>(check_items(items, 0, ctx, options.threads));
    match verify_bundle_with(bundle, options, None, outcomes) {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// [`verify_bundle`] with the receipts' own checks from `outcomes` (every item, in order): checked here on every
/// core, or by several workers and read back ([`finish_shares`]).
fn verify_bundle_with<E>(
    bundle: &ParsedBundle,
    options: &VerifyOptions,
    kept_head: Option<KeptHead>,
    outcomes: impl FnOnce(&[ParsedItem], &ItemCtx<'_>) -> Result<Vec<ItemOutcome>, E>,
) -> Result<Verification, E> {
    let trusted = Trusted::new(options, bundle);
    if trusted.is_empty() {
        return Ok(no_trusted_keys(bundle, options));
    }
    // Before any signature: a copy is never verified again, so copies add hashing, not verifications.
    let copies = copies(&bundle.items);
    let pinned = pinned_witnesses(options);
    let head = match kept_head.and_then(|k| k.restore(&trusted)) {
        Some(head) => head,
        None => verify_head(bundle, &trusted, options, pinned),
    };
    let head_at = head.as_ref().ok().map(|h| (h.size, h.root));
    let ctx = ItemCtx { trusted: &trusted, mode: options.mode, head: head_at, copies: &copies };
    let mut outcomes = outcomes(&bundle.items, &ctx)?;
    // A copy shows what its first showed (its receipt when that one's signature verified).
    for (i, first) in copies.iter().enumerate() {
        if let Some(j) = *first {
            outcomes[i].receipt = outcomes.get(j).and_then(|o| o.receipt.clone());
        }
    }
    let mut items = item_results(bundle, outcomes, &head);
    mark_duplicates(&mut items, &copies);
    let conflicts = mark_conflicts(&mut items);
    // Only now is every item's reason final: a duplicate or a conflict overrides its own checks.
    for it in &mut items {
        it.ok = it.reason == Reason::Verifies;
    }
    // Without a verified head nothing is placed in the log, so the head's finding decides.
    let head = match head {
        Ok(h) => h,
        Err(f) => return Ok(Verification::rejected(f, items, None, None)),
    };
    let summary = head_summary(bundle, &head, pinned);
    let history = check_history(bundle, &head, &trusted, &options.known, |i| element("/known", i));
    Ok(match deciding_finding(history, &conflicts, bundle, &items) {
        Some((f, evidence)) => Verification::rejected(f, items, Some(summary), evidence),
        None => Verification::verified(items, summary),
    })
}

/// One receipt's own checks as a worker hands them back: its finding (`None`: every own check passed, but there
/// is no verified head to place it under), and whether its signed payload was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShareOutcome {
    pub(crate) finding: Option<(Reason, String)>,
    pub(crate) read: bool,
    /// SHA-256 of the receipt's signed bytes, which the worker hashed for its checks: the finish keys duplicates
    /// and conflicts on it without hashing every receipt again on one thread.
    pub(crate) digest: [u8; 32],
}

/// A worker's share of the receipts' own checks: `outcomes` for the items from `from` on, of `items` in all (`0`
/// with no outcomes when the verdict needs none: no key is left to check a receipt with).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Share {
    pub(crate) items: usize,
    pub(crate) from: usize,
    pub(crate) outcomes: Vec<ShareOutcome>,
}

/// What a reading worked out for its own share, kept so that its finish does not work it out again: the receipts
/// it parsed (items from `from` on, `None` where a payload was not read) and the head's verification.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    pub(crate) from: usize,
    pub(crate) receipts: Vec<Option<Receipt>>,
    head: Option<KeptHead>,
}

/// A head's verification without its borrows: the signing key by its place among the trusted keys, which the
/// same options and bundle always list in the same order ([`Trusted::new`]).
#[derive(Debug)]
struct KeptHead(Result<(u64, Hash, u64, usize, Vec<usize>), Finding>);

impl KeptHead {
    fn of(head: &Result<VerifiedHead<'_>, Finding>, trusted: &Trusted<'_>) -> Option<KeptHead> {
        Some(KeptHead(match head {
            Ok(h) => {
                let key = trusted.keys.iter().position(|k| std::ptr::eq(*k, h.key))?;
                Ok((h.size, h.root, h.signed_at, key, h.witnesses.clone()))
            }
            Err(f) => Err(f.clone()),
        }))
    }

    fn restore<'a>(self, trusted: &Trusted<'a>) -> Option<Result<VerifiedHead<'a>, Finding>> {
        Some(match self.0 {
            Ok((size, root, signed_at, key, witnesses)) => {
                Ok(VerifiedHead { size, root, signed_at, key: trusted.keys.get(key)?, witnesses })
            }
            Err(f) => Err(f),
        })
    }
}

/// Share `part` (from 0) of `parts`: the own checks of the `part`-th of `parts` runs of consecutive receipts (the
/// runs as even as can be), exactly as [`verify_bundle`] checks them, and the receipts it parsed.
pub(crate) fn check_share(bundle: &ParsedBundle, options: &VerifyOptions, part: usize, parts: usize) -> (Share, Kept) {
    let trusted = Trusted::new(options, bundle);
    if trusted.is_empty() {
        return (Share { items: 0, from: 0, outcomes: Vec::new() }, Kept::default());
    }
    let head = verify_head(bundle, &trusted, options, pinned_witnesses(options));
    let kept_head = KeptHead::of(&head, &trusted);
    let copies = copies(&bundle.items);
    let head_at = head.as_ref().ok().map(|h| (h.size, h.root));
    let ctx = ItemCtx { trusted: &trusted, mode: options.mode, head: head_at, copies: &copies };
    let n = bundle.items.len();
    let per = n.div_ceil(parts.max(1));
    let from = part.saturating_mul(per).min(n);
    let to = from.saturating_add(per).min(n);
    let (outcomes, receipts) = check_items(&bundle.items[from..to], from, &ctx, options.threads)
        .into_iter()
        .map(|o| (ShareOutcome { finding: o.finding, read: o.receipt.is_some(), digest: o.digest }, o.receipt))
        .unzip();
    (Share { items: n, from, outcomes }, Kept { from, receipts, head: kept_head })
}

/// [`verify_bundle`] with the receipts' own checks taken from `shares` (any order) instead of made here: the same
/// result when they are the shares [`check_share`] made of this bundle and options. A receipt a share says was read
/// is taken from `kept` (what [`check_share`] parsed from this same bundle) when it is there, and parsed again
/// otherwise. `Err` (a message) when the shares do not cover the bundle's receipts exactly once, or claim a payload
/// was read that cannot be.
pub(crate) fn finish_shares(
    bundle: &ParsedBundle,
    options: &VerifyOptions,
    mut shares: Vec<Share>,
    mut kept: Kept,
) -> Result<Verification, String> {
    verify_bundle_with(bundle, options, kept.head.take(), |items, _| {
        shares.sort_by_key(|s| s.from);
        let mut outcomes = Vec::with_capacity(items.len());
        for share in shares {
            if share.items != items.len() || share.from != outcomes.len() {
                return Err(format!(
                    "a share of {} receipts from item {} does not continue the {} outcomes of this bundle's {} receipts",
                    share.items,
                    share.from,
                    outcomes.len(),
                    items.len()
                ));
            }
            for o in share.outcomes {
                let Some(item) = items.get(outcomes.len()) else {
                    return Err(format!("more outcomes than the bundle's {} receipts", items.len()));
                };
                let i = outcomes.len();
                let receipt = match o.read {
                    true => {
                        match i.checked_sub(kept.from).and_then(|k| kept.receipts.get_mut(k)).and_then(Option::take) {
                            Some(r) => Some(r),
                            None => Some(
                                item.receipt
                                    .receipt()
                                    .map_err(|e| format!("item {i}: a share read a payload that is unreadable: {e}"))?,
                            ),
                        }
                    }
                    false => None,
                };
                outcomes.push(ItemOutcome { finding: o.finding, digest: o.digest, receipt });
            }
        }
        if outcomes.len() != items.len() {
            return Err(format!("{} outcomes for the bundle's {} receipts", outcomes.len(), items.len()));
        }
        Ok(outcomes)
    })
}

/// The keys the caller's policy leaves: its own (test keys only with `allowTest`), then the bundle's on opt-in
/// (never replacing a caller `kid` or public key).
pub(crate) struct Trusted<'a> {
    keys: Vec<&'a TrustedKey>,
    /// Each key's index in `keys`.
    by_kid: FxHashMap<&'a str, usize>,
    /// Per key, in the order of `keys`: how many envelopes it verified, and its prepared table from the
    /// [`PREPARE_FROM`]th on (shared by the threads that verify receipts).
    uses: Vec<Uses>,
    /// How many keys had a table built: at most [`MAX_PREPARED`] (each is 220 KB), whatever the bundle; the keys
    /// after those verify without one (the same answer, more slowly), unless [`RECENT_TABLES`] has theirs.
    prepared: AtomicU32,
}

/// The signature from which on a key verifies with a [`PreparedKey`]: building one costs about ten verifications
/// in WebAssembly and thirty natively, and each later one takes under half of an unprepared one's time in
/// WebAssembly and about two thirds natively (docs/PERFORMANCE.md). Sixteen keeps a bundle with few receipts per
/// key from paying for tables it cannot use, and a key that signs many pays its table back soon after.
const PREPARE_FROM: u32 = 16;

/// At most this many prepared keys per verification: ≤ 14 MB of tables.
const MAX_PREPARED: u32 = 64;

/// The tables of the keys that were prepared most recently in this process, the newest last: a host that verifies
/// many bundles of one log (an auditor's page, a merchant's CI, a worker of a verifier pool) builds a key's table
/// once, not once per bundle. A key found here verifies with its table from its first envelope on. A table is a
/// function of its key alone, so only time depends on what is here.
static RECENT_TABLES: Mutex<Recent> = Mutex::new(Recent(Vec::new()));

/// At most this many tables in [`RECENT_TABLES`]: ≤ 1.8 MB, held for the life of the process.
const RECENT: usize = 8;

/// Tables, the most recently used last, at most [`RECENT`].
struct Recent(Vec<Arc<PreparedKey>>);

impl Recent {
    /// `key`'s table, now the most recently used.
    fn take(&mut self, key: &VerifyingKey) -> Option<Arc<PreparedKey>> {
        let i = self.0.iter().position(|t| t.key() == key)?;
        let table = self.0.remove(i);
        self.0.push(Arc::clone(&table));
        Some(table)
    }

    /// A table just built, as the most recently used (the least recently used leaves when there are [`RECENT`]).
    fn put(&mut self, table: &Arc<PreparedKey>) {
        self.0.retain(|t| t.key() != table.key());
        if self.0.len() >= RECENT {
            self.0.remove(0);
        }
        self.0.push(Arc::clone(table));
    }
}

fn recent() -> std::sync::MutexGuard<'static, Recent> {
    RECENT_TABLES.lock().unwrap_or_else(PoisonError::into_inner)
}

#[derive(Default)]
struct Uses {
    count: AtomicU32,
    prepared: OnceLock<Arc<PreparedKey>>,
}

impl<'a> Trusted<'a> {
    fn new(options: &'a VerifyOptions, bundle: &'a ParsedBundle) -> Trusted<'a> {
        let bundle_keys = bundle.keys.as_ref().filter(|_| options.trust_bundle_keys);
        let all = options.keys.keys().iter().chain(bundle_keys.into_iter().flat_map(KeySet::keys));
        Trusted::of(all.filter(|k| !k.is_test() || options.allow_test))
    }

    /// The keys given, in order, the first of each `kid` and public key kept.
    pub(crate) fn of(keys: impl Iterator<Item = &'a TrustedKey>) -> Trusted<'a> {
        let mut t =
            Trusted { keys: Vec::new(), by_kid: FxHashMap::default(), uses: Vec::new(), prepared: AtomicU32::new(0) };
        for k in keys {
            if t.by_kid.contains_key(k.kid()) || t.keys.iter().any(|o| o.key() == k.key()) {
                continue;
            }
            t.by_kid.insert(k.kid(), t.keys.len());
            t.keys.push(k);
            t.uses.push(Uses::default());
        }
        t
    }

    /// The key trusted under `kid`, if any.
    fn key(&self, kid: &str) -> Option<(usize, &'a TrustedKey)> {
        self.by_kid.get(kid).map(|&i| (i, self.keys[i]))
    }

    /// `env`'s signature under key `i`: [`VerifyingKey::verify`](crate::proof::VerifyingKey::verify), through the
    /// key's prepared table once it has verified enough envelopes (the same answer either way).
    fn verify(&self, i: usize, env: &Envelope) -> Result<(), SignatureError> {
        #[cfg(test)]
        tests::SIGNATURES.with(|n| n.set(n.get() + 1));
        let uses = &self.uses[i];
        // Only the call that counts the key's PREPARE_FROMth envelope builds its table; calls on other threads
        // meanwhile verify without it rather than wait.
        let prepared = uses.prepared.get().or_else(|| {
            let seen = uses.count.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
            let key = self.keys[i].key();
            if seen == 1
                && let Some(table) = recent().take(key)
            {
                return Some(uses.prepared.get_or_init(|| table));
            }
            let build = seen == PREPARE_FROM && self.prepared.fetch_add(1, Ordering::Relaxed) < MAX_PREPARED;
            build.then(|| {
                uses.prepared.get_or_init(|| {
                    let table = Arc::new(PreparedKey::new(key));
                    recent().put(&table);
                    table
                })
            })
        });
        match prepared {
            Some(p) => p.verify(&env.signed_bytes(), env.signature()),
            None => env.verify(self.keys[i].key()),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

/// The verdict when the caller's policy leaves no key: every receipt refused, saying why.
fn no_trusted_keys(bundle: &ParsedBundle, options: &VerifyOptions) -> Verification {
    let why = if options.keys.is_empty() {
        "you gave no keys; keys inside a bundle are trusted only when you opt in"
    } else if options.keys.keys().iter().all(TrustedKey::is_test) && !options.allow_test {
        "every key you gave is a test key, and test keys verify only with allowTest"
    } else {
        "no key is left after the test-key policy"
    };
    let items = bundle
        .items
        .iter()
        .enumerate()
        .map(|(i, it)| item_result(i, it, &it.receipt.digest(), (Reason::NoTrustedKeys, why.to_string()), None))
        .collect();
    let finding = Finding::new(Reason::NoTrustedKeys, "/keys", format!("no trusted keys: {why}"));
    Verification::rejected(finding, items, None, None)
}

fn pinned_witnesses(options: &VerifyOptions) -> &[NoteVerifier] {
    options.witnesses.as_ref().map_or(&[], |w| w.witnesses.as_slice())
}

/// The head, the only source of tree size and root: signed by a trusted key valid at the signing time (in fresh
/// mode also now), and cosigned by as many pinned witnesses as the caller requires.
fn verify_head<'a>(
    bundle: &ParsedBundle,
    trusted: &Trusted<'a>,
    options: &VerifyOptions,
    pinned: &[NoteVerifier],
) -> Result<VerifiedHead<'a>, Finding> {
    let h = verify_checkpoint(&bundle.head, trusted, pinned, "/bundle/head")?;
    if let Mode::Fresh { now } = options.mode {
        if !h.key.valid_at(now) {
            let m = format!("key \"{}\" is not valid now", h.key.kid());
            return Err(Finding::new(Reason::Expired, "/bundle/head", m));
        }
    }
    let policy = options.witnesses.as_ref().filter(|p| h.witnesses.len() < p.required);
    if let Some(policy) = policy {
        return Err(Finding::new(
            Reason::HistoryUnproven,
            "/bundle/head",
            format!(
                "{} of the {} pinned witnesses cosigned the head; {} required",
                h.witnesses.len(),
                policy.witnesses.len(),
                policy.required
            ),
        ));
    }
    Ok(h)
}

/// Each receipt's result from its own checks; one that passes them all but cannot be placed without a verified
/// head takes the head's reason.
fn item_results(
    bundle: &ParsedBundle,
    outcomes: Vec<ItemOutcome>,
    head: &Result<VerifiedHead<'_>, Finding>,
) -> Vec<ItemResult> {
    let head_failure = head.as_ref().err();
    let mut items = Vec::with_capacity(outcomes.len());
    for (i, (item, o)) in bundle.items.iter().zip(outcomes).enumerate() {
        let finding = match (o.finding, head_failure) {
            (Some(f), _) => f,
            (None, Some(h)) => (h.reason, format!("the head does not verify: {}", h.message)),
            (None, None) => (Reason::Verifies, String::new()),
        };
        items.push(item_result(i, item, &o.digest, finding, o.receipt));
    }
    items
}

fn item_result(
    index: usize,
    item: &ParsedItem,
    digest: &[u8; 32],
    (reason, message): (Reason, String),
    receipt: Option<Receipt>,
) -> ItemResult {
    ItemResult {
        index,
        ok: false,
        reason,
        message,
        leaf: item.index,
        digest: hex(digest),
        kid: item.receipt.kid().to_string(),
        attested: item.attestation.is_some(),
        receipt,
        result: None,
    }
}

/// For each item, the earlier item with the same signed bytes (keyed on their SHA-256), if any: one pass over the
/// bundle that verifies nothing, so it runs before any signature is checked.
fn copies(items: &[ParsedItem]) -> Vec<Option<usize>> {
    // SipHash, not Fx: the digests are of the caller's bytes.
    let mut first: HashMap<[u8; 32], usize> = HashMap::with_capacity(items.len());
    let mut first_of = |(i, item): (usize, &ParsedItem)| match first.entry(item.receipt.digest()) {
        Entry::Occupied(e) => Some(*e.get()),
        Entry::Vacant(e) => {
            e.insert(i);
            None
        }
    };
    items.iter().enumerate().map(&mut first_of).collect()
}

fn duplicate_message(first: usize) -> String {
    format!("the same signed receipt as item {first}; it counts once")
}

/// Duplicates: the same signed bytes again count once.
fn mark_duplicates(items: &mut [ItemResult], copies: &[Option<usize>]) {
    for (item, first) in items.iter_mut().zip(copies) {
        if let Some(j) = *first {
            item.reason = Reason::Duplicate;
            item.message = duplicate_message(j);
        }
    }
}

/// Conflicts: two different DONE receipts, each signed by a trusted key, for one tenant and idempotency key. Returns
/// the groups of items, in order.
fn mark_conflicts(items: &mut [ItemResult]) -> Vec<Vec<usize>> {
    let mut by_key: FxHashMap<(&str, &str), Vec<usize>> = FxHashMap::default();
    for (i, it) in items.iter().enumerate() {
        if it.reason == Reason::Duplicate {
            continue;
        }
        if let Some(r) = it.receipt.as_ref().filter(|r| r.status == Status::Done) {
            by_key.entry((r.tenant.as_str(), r.idempotency_key.as_str())).or_default().push(i);
        }
    }
    let mut conflicts: Vec<Vec<usize>> = by_key.into_values().filter(|g| g.len() > 1).collect();
    conflicts.sort();
    for group in &conflicts {
        for &i in group {
            items[i].reason = Reason::ConflictingReceipt;
            items[i].message = format!(
                "{} different DONE receipts for one tenant and idempotency key (items {:?}): issuer misbehaviour",
                group.len(),
                group
            );
        }
    }
    conflicts
}

pub(crate) fn head_summary(bundle: &ParsedBundle, head: &VerifiedHead<'_>, pinned: &[NoteVerifier]) -> HeadSummary {
    HeadSummary {
        origin: bundle.head.checkpoint().origin().to_string(),
        size: head.size,
        root: encode_std(&head.root),
        signed_at: head.signed_at,
        kid: head.key.kid().to_string(),
        witnesses: head.witnesses.iter().filter_map(|&w| pinned.get(w)).map(|w| w.name().to_string()).collect(),
    }
}

/// What decides the verdict once the head verified, with its evidence: a fork first, then conflicting receipts,
/// then any other history finding, then the first receipt that fails. `None`: the bundle verifies.
fn deciding_finding(
    history: Option<(Finding, Option<Evidence>)>,
    conflicts: &[Vec<usize>],
    bundle: &ParsedBundle,
    items: &[ItemResult],
) -> Option<(Finding, Option<Evidence>)> {
    let fork = history.as_ref().is_some_and(|(f, _)| f.reason == Reason::ForkDetected);
    if let Some(group) = conflicts.first().filter(|_| !fork) {
        let evidence =
            Evidence { heads: Vec::new(), receipts: group.iter().map(|&i| bundle.items[i].text.clone()).collect() };
        let f = Finding::new(
            Reason::ConflictingReceipt,
            element("/bundle/receipts", group[0]),
            format!("different DONE receipts for one tenant and idempotency key at items {group:?}"),
        );
        return Some((f, Some(evidence)));
    }
    history.or_else(|| {
        items.iter().find(|i| !i.ok).map(|i| {
            let at = element("/bundle/receipts", i.index);
            (Finding::new(i.reason, at, format!("item {}: {}", i.index, i.message)), None)
        })
    })
}

/// A head whose log signatures verified under a trusted key whose window covers the signing time.
pub(crate) struct VerifiedHead<'a> {
    pub(crate) size: u64,
    pub(crate) root: Hash,
    pub(crate) signed_at: u64,
    pub(crate) key: &'a TrustedKey,
    witnesses: Vec<usize>,
}

/// Verifies a checkpoint's log signatures (and pinned witnesses) with the trusted key that signed it, then the
/// key's window at the signing time.
pub(crate) fn verify_checkpoint<'a>(
    signed: &SignedCheckpoint,
    trusted: &Trusted<'a>,
    witnesses: &[NoteVerifier],
    path: &str,
) -> Result<VerifiedHead<'a>, Finding> {
    let origin = signed.checkpoint().origin();
    let lines: Vec<(&str, u32)> = signed.note().signatures().iter().map(|s| (s.name.as_str(), s.key_id)).collect();
    let candidates: Vec<&TrustedKey> = trusted
        .keys
        .iter()
        .copied()
        .filter(|k| {
            let ids = [SignatureKind::Ed25519, SignatureKind::CosignatureV1]
                .map(|kind| note::key_id(origin, kind.type_byte(), k.key().as_bytes()));
            lines.iter().any(|&(name, id)| name == origin && ids.contains(&id))
        })
        .collect();
    if candidates.is_empty() {
        return Err(Finding::new(
            Reason::CheckpointUnknownKey,
            path,
            format!("the head of \"{origin}\" is signed by no key you trust"),
        ));
    }
    let mut failure = None;
    for key in candidates {
        match signed.verify(key.key(), witnesses) {
            Ok(sigs) => {
                let at = i64::try_from(sigs.signed_at).unwrap_or(i64::MAX);
                if !key.valid_at(at) {
                    return Err(Finding::new(
                        Reason::CheckpointKeyNotValidAtIssue,
                        path,
                        format!("key \"{}\" is not valid at the head's signing time {at}", key.kid()),
                    ));
                }
                let mut seen = HashSet::new();
                let witnesses = sigs.witnesses.iter().map(|w| w.witness).filter(|w| seen.insert(*w)).collect();
                return Ok(VerifiedHead {
                    size: signed.checkpoint().size(),
                    root: *signed.checkpoint().root(),
                    signed_at: sigs.signed_at,
                    key,
                    witnesses,
                });
            }
            Err(e) => failure = Some(e),
        }
    }
    let e = failure.map(|e| e.to_string()).unwrap_or_default();
    Err(Finding::new(Reason::BadSignature, path, format!("the head's signatures do not verify: {e}")))
}

/// One receipt's own checks, before duplicates and conflicts.
struct ItemOutcome {
    /// `None`: every own check passed but inclusion could not be checked (no verified head).
    finding: Option<(Reason, String)>,
    digest: [u8; 32],
    receipt: Option<Receipt>,
}

struct ItemCtx<'a> {
    trusted: &'a Trusted<'a>,
    mode: Mode,
    head: Option<(u64, Hash)>,
    /// [`copies`] of the whole bundle: a copy is answered `duplicate` without being checked again.
    copies: &'a [Option<usize>],
}

pub(crate) fn check_envelope<'a>(env: &Envelope, trusted: &Trusted<'a>, what: &str) -> Result<&'a TrustedKey, String> {
    let (i, key) = trusted
        .key(env.kid())
        .ok_or_else(|| format!("the {what} is signed under kid \"{}\", which is no key you trust", env.kid()))?;
    trusted.verify(i, env).map_err(|e| format!("the {what} signature does not verify under \"{}\": {e}", key.kid()))?;
    Ok(key)
}

fn check_item(index: usize, item: &ParsedItem, ctx: &ItemCtx<'_>, memo: &mut merkle::PathMemo) -> ItemOutcome {
    let digest = item.receipt.digest();
    if let Some(&Some(first)) = ctx.copies.get(index) {
        return ItemOutcome { finding: Some((Reason::Duplicate, duplicate_message(first))), digest, receipt: None };
    }
    let fail = |reason: Reason, message: String, receipt: Option<Receipt>| ItemOutcome {
        finding: Some((reason, message)),
        digest,
        receipt,
    };
    let key = match check_envelope(&item.receipt, ctx.trusted, "receipt") {
        Ok(k) => k,
        Err(m) => return fail(Reason::BadSignature, m, None),
    };
    // Only now, with the signature verified, are the payload bytes read.
    let receipt = match item.receipt.receipt() {
        Ok(r) => r,
        Err(e) => return fail(Reason::Malformed, format!("a signed receipt whose payload is unreadable: {e}"), None),
    };
    if !key.valid_at(receipt.iat) {
        let m = format!("key \"{}\" is not valid at the receipt's issue time {}", key.kid(), receipt.iat);
        return fail(Reason::CheckpointKeyNotValidAtIssue, m, Some(receipt));
    }
    if let Mode::Fresh { now } = ctx.mode {
        if !key.valid_at(now) {
            return fail(Reason::Expired, format!("key \"{}\" is not valid now", key.kid()), Some(receipt));
        }
        if now >= receipt.exp {
            let m = format!("the receipt expired at {} (now {now})", receipt.exp);
            return fail(Reason::Expired, m, Some(receipt));
        }
    }
    let included = ctx.head.map(|(size, root)| {
        let leaf = merkle::leaf_hash(item.text.as_bytes());
        merkle::verify_inclusion_with(&leaf, item.index, size, &item.proof, &root, memo)
    });
    if let Some(Err(e)) = included {
        let m = format!("the receipt is not the log entry at index {} under the head: {e}", item.index);
        return fail(Reason::NotInLog, m, Some(receipt));
    }
    if let Some(att) = &item.attestation {
        let att_key = match check_envelope(att, ctx.trusted, "attestation") {
            Ok(k) => k,
            Err(m) => return fail(Reason::BadSignature, m, Some(receipt)),
        };
        let attestation = match att.attestation() {
            Ok(a) => a,
            Err(e) => {
                let m = format!("a signed attestation whose payload is unreadable: {e}");
                return fail(Reason::Malformed, m, Some(receipt));
            }
        };
        if !att_key.valid_at(attestation.iat) {
            let m =
                format!("key \"{}\" is not valid at the attestation's issue time {}", att_key.kid(), attestation.iat);
            return fail(Reason::CheckpointKeyNotValidAtIssue, m, Some(receipt));
        }
        if let Err(m) = receipt.binds(att, &attestation) {
            return fail(Reason::AttestationNotBound, m.to_string(), Some(receipt));
        }
    }
    match included {
        Some(_) => ItemOutcome { finding: Some((Reason::Verifies, String::new())), digest, receipt: Some(receipt) },
        None => ItemOutcome { finding: None, digest, receipt: Some(receipt) },
    }
}

/// One thread's run of consecutive receipts, the first at bundle index `from`, checked in order (their inclusion
/// proofs share one [`merkle::PathMemo`]).
fn check_run(items: &[ParsedItem], from: usize, ctx: &ItemCtx<'_>) -> Vec<ItemOutcome> {
    let mut memo = merkle::PathMemo::default();
    items.iter().enumerate().map(|(k, i)| check_item(from + k, i, ctx, &mut memo)).collect()
}

/// The own checks of `items`, the first at bundle index `from`.
fn check_items(items: &[ParsedItem], from: usize, ctx: &ItemCtx<'_>, threads: usize) -> Vec<ItemOutcome> {
    let available = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let threads = if threads == 0 { available } else { threads };
    let threads = threads.min(items.len() / MIN_PER_THREAD).max(1);
    if threads == 1 {
        return check_run(items, from, ctx);
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(threads);
        for (k, part) in items.chunks(chunk).enumerate() {
            let start = from + k * chunk;
            let work = move || check_run(part, start, ctx);
            // No thread to be had: the chunk is done below, on this thread, in order.
            handles.push(std::thread::Builder::new().spawn_scoped(s, work).map_err(|_| (part, start)));
        }
        let mut out = Vec::with_capacity(items.len());
        for h in handles {
            match h {
                Ok(h) => match h.join() {
                    Ok(v) => out.extend(v),
                    Err(p) => std::panic::resume_unwind(p),
                },
                Err((part, start)) => out.extend(check_run(part, start, ctx)),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::proof::envelope::Kind;
    use crate::proof::keys::SigningKey;

    thread_local! {
        /// Signatures verified through [`Trusted::verify`] on this thread: the work a bundle's receipts cost.
        pub(super) static SIGNATURES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// Signatures verified by verifying `bundle` (with copies of its receipts appended: item `i` of `copies` is a
    /// copy of item `copies[i]`) on this thread, and the verdict.
    fn verify_counting(bundle: &serde_json::Value, keys: &serde_json::Value, copies: &[usize]) -> (u64, Verification) {
        let mut bundle = bundle.clone();
        let receipts = bundle["receipts"].as_array_mut().unwrap();
        for &c in copies {
            let copy = receipts[c].clone();
            receipts.push(copy);
        }
        let parsed = ParsedBundle::from_text(&bundle.to_string(), "/bundle").unwrap();
        let request = serde_json::json!({"keys": keys, "allowTest": true});
        let mut options = VerifyOptions::from_request(request.as_object().unwrap(), &[]).unwrap();
        options.threads = 1;
        let before = SIGNATURES.with(std::cell::Cell::get);
        let v = verify_bundle(&parsed, &options);
        (SIGNATURES.with(std::cell::Cell::get) - before, v)
    }

    #[test]
    fn copies_of_receipts_cost_no_signature_and_the_first_copy_decides() {
        let (bundle, keys) = curbi_testkit::large_bundle(6, true).unwrap();
        let keys = keys.to_value();
        let (alone, v) = verify_counting(&bundle, &keys, &[]);
        assert!(v.ok, "{}", v.message);
        // Six receipts and their six attestations.
        assert_eq!(alone, 12);
        // Generated copy lists, from a fixed linear congruential sequence: any number of copies of any receipts
        // (copies of copies included) adds no signature check, and the first copy is the verdict.
        let mut state = 7u64;
        for n in [1usize, 2, 17, 300, 3000] {
            let mut copies = Vec::with_capacity(n);
            for k in 0..n {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                copies.push(usize::try_from(state >> 33).unwrap() % (6 + k));
            }
            let (work, v) = verify_counting(&bundle, &keys, &copies);
            assert_eq!(work, alone, "{n} copies");
            assert_eq!(v.reason, Reason::Duplicate, "{n} copies");
            assert_eq!(v.path, "/bundle/receipts/6");
            let first = copies[0];
            assert_eq!(v.message, format!("item 6: the same signed receipt as item {first}; it counts once"));
            // A copy shows the receipt its first showed.
            assert_eq!(v.items[6].receipt, v.items[first].receipt);
            assert!(v.items[6].receipt.is_some());
            assert_eq!(v.items.iter().filter(|i| i.reason == Reason::Duplicate).count(), n);
        }
    }

    /// Held by the tests that build many tables or look one up in RECENT_TABLES, so that one does not push out the
    /// table the other looks for (the other tests use a few keys, each taking one place).
    static MANY_TABLES: Mutex<()> = Mutex::new(());

    #[test]
    fn keys_get_tables_from_their_sixteenth_envelope_and_no_more_than_the_cap_do() {
        let _alone = MANY_TABLES.lock().unwrap_or_else(PoisonError::into_inner);
        // Seeds no other test uses: no table of these keys is in RECENT_TABLES before this test builds them.
        let signers: Vec<SigningKey> =
            (0..MAX_PREPARED + 6).map(|i| SigningKey::from_seed(&[i as u8 + 150; 32])).collect();
        let trusted: Vec<TrustedKey> = signers.iter().map(|s| TrustedKey::new(s.verifying_key())).collect();
        let t = Trusted::of(trusted.iter());
        for (i, signer) in signers.iter().enumerate() {
            for n in 0..PREPARE_FROM + 2 {
                let good = Envelope::sign(Kind::Receipt, format!("{{\"n\":{n}}}").into_bytes(), signer, "k").unwrap();
                // Another key's signature over the same payload: refused whether or not the key has its table.
                let other = &signers[(i + 1) % signers.len()];
                let bad = Envelope::sign(Kind::Receipt, good.payload().to_vec(), other, "k").unwrap();
                assert_eq!(t.verify(i, &good), Ok(()), "key {i}, envelope {n}");
                assert_eq!(t.verify(i, &bad), Err(SignatureError::Invalid), "key {i}, envelope {n}");
                let expect_table = 2 * n + 2 >= PREPARE_FROM && i < MAX_PREPARED as usize;
                assert_eq!(t.uses[i].prepared.get().is_some(), expect_table, "key {i}, envelope {n}");
            }
        }
        assert_eq!(t.uses.iter().filter(|u| u.prepared.get().is_some()).count(), MAX_PREPARED as usize);
    }

    #[test]
    fn a_key_prepared_before_in_this_process_verifies_with_its_table_from_its_first_envelope() {
        let _alone = MANY_TABLES.lock().unwrap_or_else(PoisonError::into_inner);
        // A seed no other test uses.
        let signer = SigningKey::from_seed(&[241; 32]);
        let trusted = [TrustedKey::new(signer.verifying_key())];
        let sign = |n: u32| Envelope::sign(Kind::Receipt, format!("{{\"n\":{n}}}").into_bytes(), &signer, "k").unwrap();
        let first = Trusted::of(trusted.iter());
        for n in 0..PREPARE_FROM {
            assert_eq!(first.verify(0, &sign(n)), Ok(()));
        }
        assert!(first.uses[0].prepared.get().is_some());
        let again = Trusted::of(trusted.iter());
        assert_eq!(again.verify(0, &sign(99)), Ok(()));
        let table = again.uses[0].prepared.get().unwrap();
        assert!(Arc::ptr_eq(table, first.uses[0].prepared.get().unwrap()), "the table built before, not a new one");
        // And it is the key's table: another key's signature is still refused through it.
        let forged =
            Envelope::sign(Kind::Receipt, sign(99).payload().to_vec(), &SigningKey::from_seed(&[242; 32]), "k");
        assert_eq!(again.verify(0, &forged.unwrap()), Err(SignatureError::Invalid));
    }

    #[test]
    fn recent_tables_hand_back_each_key_its_own_and_forget_the_least_recently_used() {
        let table = |seed: u8| Arc::new(PreparedKey::new(&SigningKey::from_seed(&[seed; 32]).verifying_key()));
        let key = |seed: u8| SigningKey::from_seed(&[seed; 32]).verifying_key();
        let mut recent = Recent(Vec::new());
        for seed in 1..=RECENT as u8 {
            recent.put(&table(seed));
        }
        assert_eq!(recent.take(&key(2)).map(|t| *t.key()), Some(key(2)));
        assert_eq!(recent.take(&key(1)).map(|t| *t.key()), Some(key(1)));
        // Full: the next one pushes out the least recently used, key 3 (1 and 2 were just used).
        recent.put(&table(100));
        assert_eq!(recent.0.len(), RECENT);
        assert!(recent.take(&key(3)).is_none());
        for seed in [1, 2, 4, 100] {
            assert_eq!(recent.take(&key(seed)).map(|t| *t.key()), Some(key(seed)), "seed {seed}");
        }
        // The same key again replaces its table rather than taking a second place.
        recent.put(&table(100));
        assert_eq!(recent.0.len(), RECENT);
        assert!(recent.take(&key(101)).is_none());
    }
}
