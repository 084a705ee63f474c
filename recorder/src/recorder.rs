//! The recorder: the reference gate's rules (core `proof::gate`) made durable. Every write runs in the store's one
//! write transaction and is on disk before it returns; concurrent callers are grouped into one commit (each in its
//! own savepoint, so one caller's error leaves the others' work intact). docs/RECORDER.md.

use std::any::Any;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use curbi::encoding::{decode_url, sha256};
use curbi::proof::bundle::{Bundle, BundleItem, OlderHead};
use curbi::proof::envelope::{Attestation, Envelope, Kind, Limits, Status};
use curbi::proof::gate::{self, Clock, FixedClock, GateError, Mutation};
use curbi::proof::merkle::{Hash, consistency_proof_in, inclusion_proof_in, leaf_hash};
use curbi::proof::note::{self, Checkpoint};
use curbi::proof::{KeySet, SigningKey, TrustedKey, VerifyingKey};
use curbi::purchase::{self, Verdict};
use curbi::time::Timestamp;
use curbi::{Error, ErrorCode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dbfile::{self, Create};
use crate::failpoint;
use crate::keyfile::LoadedKey;
use crate::sqlite::SqliteStore;
use crate::store::{
    About, ActionRow, ActionState, GrantKind, GrantRow, HeadRow, KeyRow, ReceiptRow, Settle, Storage, Tx,
};
use crate::tree::Frontier;

/// Most calls one commit groups.
const MAX_GROUP: usize = 256;
/// How long a leader waits, at most, for calls still signing ahead before it starts a group without them: they
/// then share its commit (and its fsync) rather than wait for the next. A call alone never waits.
const GATHER: std::time::Duration = std::time::Duration::from_micros(300);
/// Most open actions one `held` call lists.
pub const MAX_HELD: usize = 10_000;

/// The system clock, in Unix seconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> i64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
    }
}

/// How to open a recorder.
#[derive(Debug, Clone)]
pub struct RecorderOptions {
    /// The SQLite database file (a new log only as `create` allows), or a `postgres://` / `postgresql://` URL
    /// (feature `postgres`; docs/RECORDER.md §Deployment on PostgreSQL).
    pub path: PathBuf,
    /// Whether this open may start a new log in a missing or empty SQLite file: [`Create::IfMissing`] when `new`
    /// is given an origin, else [`Create::No`].
    pub create: Create,
    /// The log origin, `curbi-checkpoint-v1.<name>`: fixed when the database is created. Empty: the one stored.
    pub origin: String,
    /// The signing key and its kid.
    pub key: LoadedKey,
    /// Where time comes from: [`SystemClock`], or a [`FixedClock`] (see [`RecorderOptions::fixed_clock`]).
    pub clock: Arc<dyn Clock>,
    /// The clock is this fixed one, which [`Recorder::set_clock`] moves (tests and vectors).
    pub fixed: Option<Arc<FixedClock>>,
    /// Make `key` the log's active key when it is a new one (docs/RECORDER.md §Keys).
    pub rotate: bool,
    /// Seconds an attestation permits its mutation.
    pub attestation_ttl: i64,
    /// Seconds a receipt stays fresh.
    pub receipt_ttl: i64,
    /// Most seconds the clock may be ahead of the last time the log used before a write is refused with
    /// `clock_ahead` ([`DEFAULT_MAX_CLOCK_AHEAD`]): one wrong clock cannot move the log's time on for good.
    pub max_clock_ahead: i64,
}

/// The default of [`RecorderOptions::max_clock_ahead`]: seven days. A log written at least weekly never meets it; a
/// clock set years (or a test's `now` set months) ahead is refused before it signs, and whatever a clock up to a
/// week fast signs is dated at most a week ahead (docs/RECORDER.md §Time).
pub const DEFAULT_MAX_CLOCK_AHEAD: i64 = 7 * 86_400;

impl RecorderOptions {
    /// Five-minute attestations and thirty-day receipts (the reference gate's), on the system clock.
    pub fn new(path: impl Into<PathBuf>, origin: &str, key: LoadedKey) -> RecorderOptions {
        RecorderOptions {
            path: path.into(),
            create: if origin.is_empty() { Create::No } else { Create::IfMissing },
            origin: origin.to_string(),
            key,
            clock: Arc::new(SystemClock),
            fixed: None,
            rotate: false,
            attestation_ttl: 300,
            receipt_ttl: 30 * 86_400,
            max_clock_ahead: DEFAULT_MAX_CLOCK_AHEAD,
        }
    }
}

impl RecorderOptions {
    /// The same options on a fixed clock at Unix time `now`.
    pub fn fixed_clock(mut self, now: i64) -> RecorderOptions {
        let clock = Arc::new(FixedClock::new(now));
        self.clock = clock.clone();
        self.fixed = Some(clock);
        self
    }
}

/// One mutation to attest: who asks to do what under which grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttestRequest {
    /// The grant, or with `checkout` the mandate.
    pub grant: String,
    /// For a grant, the mutation asked for; for a purchase, its tenant, idempotency key and agent (the rest is the
    /// checkout's: operation `checkout.complete`, resource `checkout:<id>`, its total and currency).
    pub mutation: Mutation,
    /// A purchase under a mandate: the checkout to complete.
    pub checkout: Option<Value>,
    /// The step-up the action check asked for was confirmed by the user; a DENY still refuses.
    pub step_up_confirmed: bool,
    /// The conversation the agent acts in, so that its receipts can be handed out to check the agent's replies
    /// ([`Recorder::receipts_about`]). Not part of the idempotency check: the first attest's is kept.
    pub conversation: Option<String>,
}

/// What the provider said, as [`Recorder::confirm`] and [`Recorder::reconcile`] take it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Performed: the provider's answer, the exact bytes.
    Done(Vec<u8>),
    /// Refused by the provider: its answer, the exact bytes.
    Failed(Vec<u8>),
    /// No answer (lost, timed out, 5xx): hold the action (confirm only).
    Unknown,
    /// The provider has no trace of it: release it without a receipt (reconcile only).
    NotPerformed,
}

impl Outcome {
    fn name(&self) -> &'static str {
        match self {
            Outcome::Done(_) => "DONE",
            Outcome::Failed(_) => "FAILED",
            Outcome::Unknown => "UNKNOWN",
            Outcome::NotPerformed => "NOT_PERFORMED",
        }
    }

    /// SHA-256 over the outcome's name and evidence: a second call with the same outcome is a replay.
    fn digest(&self) -> Hash {
        let evidence: &[u8] = match self {
            Outcome::Done(e) | Outcome::Failed(e) => e,
            Outcome::Unknown | Outcome::NotPerformed => &[],
        };
        let mut bytes = Vec::with_capacity(evidence.len() + 16);
        bytes.extend_from_slice(self.name().as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(evidence);
        sha256(&bytes)
    }
}

/// The answer to an attest call. Replayed byte for byte for the same tenant, idempotency key and request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attested {
    /// The action check's verdict: `ALLOW`, `STEP_UP` or `DENY`.
    pub decision: String,
    /// The compact attestation, when one was issued (ALLOW, or a confirmed STEP_UP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attestation: Option<String>,
    /// The action check's full result (docs/PURCHASE.md §Action check).
    pub check: Value,
}

/// Where an action stands after confirm or reconcile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Settled {
    /// `DONE` or `FAILED` (a receipt is in the log), `HELD` (UNKNOWN: nothing logged) or `RELEASED`.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt: Option<String>,
}

/// A registered grant and the uses recorded against it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrantInfo {
    pub id: String,
    pub used: u64,
}

/// An action not yet settled: attested (its outcome never reported) or held (reported UNKNOWN).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenAction {
    pub tenant: String,
    pub idempotency_key: String,
    pub state: String,
    pub grant: String,
    pub attestation: String,
    pub since: i64,
}

/// The open actions, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenActions {
    pub actions: Vec<OpenAction>,
    /// More open actions exist than were listed.
    pub more: bool,
}

/// A signed head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Head {
    pub size: u64,
    pub note: String,
}

/// A receipt as stored, with the attestation it completes and the provider's answer.
pub type StoredReceipt = ReceiptRow;

/// Which receipts a bundle carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Select {
    Seqs(Vec<u64>),
    Actions(Vec<(String, String)>),
}

/// A bundle request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRequest {
    pub select: Select,
    /// A head this log signed (the latest when `None`).
    pub head: Option<String>,
    /// Heads the customer already holds: each gets a consistency proof to `head`.
    pub known: Vec<String>,
    /// Carry each receipt's attestation.
    pub attestations: bool,
}

struct Ctx {
    frontier: Frontier,
    /// What this process keeps in memory (the edge, the last time) matches the committed database (false after a
    /// failed commit).
    fresh: bool,
    /// The store's data version when that was last true: another connection's commit changes it.
    version: Option<u64>,
    /// The last time the log used.
    last_time: i64,
    /// The log is sealed: every write but the seal itself is refused.
    sealed: bool,
}

type Output = Result<Box<dyn Any + Send>, Error>;

type Run = Box<dyn FnMut(&Recorder, &mut dyn Tx, &mut Ctx, &Batch<'_>) -> Output + Send>;

struct Job {
    run: Run,
    done: SyncSender<Msg>,
    /// The time the call was made (the time it signed ahead at).
    at: i64,
    signer: Arc<Signer>,
    /// The call seals the log (the one write a sealed log answers).
    seal: bool,
}

/// What a waiting call is told: its answer, or that it leads now.
enum Msg {
    Done(Output),
    Lead,
}

/// The calls waiting for a transaction, and whether a caller is leading.
#[derive(Default)]
struct Queue {
    jobs: Vec<Job>,
    leading: bool,
}

/// What one call runs with in the writer: its time, and the signatures made for it beforehand.
struct Batch<'s> {
    now: i64,
    signer: &'s Signer,
}

impl Batch<'_> {
    /// A failpoint (tests/crash.rs).
    fn hit(&self, name: &str) {
        failpoint::hit(name);
    }
}

/// Signatures made for one call. Before the call queues for the writer, it signs in its own thread (beside the
/// writer, on another core) what it expects to sign, from what this process already holds in memory ([`Memo`]);
/// the writer reuses a signature when the bytes to sign are the same, and signs itself when they are not (the
/// state moved on, or nothing was known beforehand). Ed25519 is deterministic, so either way the envelope is the
/// same.
#[derive(Default)]
struct Signer {
    made: Mutex<Vec<(Kind, Vec<u8>, Envelope)>>,
}

impl Signer {
    fn sign(&self, r: &Recorder, kind: Kind, payload: Vec<u8>) -> Result<Envelope, Error> {
        let mut made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, _, e)) = made.iter().find(|(k, p, _)| *k == kind && *p == payload) {
            return Ok(e.clone());
        }
        let e = Envelope::sign(kind, payload.clone(), &r.key, &r.kid).map_err(|e| err(ErrorCode::Internal, "", e.0))?;
        made.push((kind, payload, e.clone()));
        Ok(e)
    }
}

/// Most entries each [`Memo`] map keeps; a full map is emptied and starts again.
const MEMO_LIMIT: usize = 4096;

/// What calls in this process already read or built, so that neither the writer nor the signing ahead has to
/// read or parse it again: grant and mandate documents as parsed, and the attestations this process issued that
/// are not settled yet. Only a hint: the writer uses an entry only when it is byte for byte what the store holds
/// (the document, the attestation text), so an entry another process made stale is never acted on.
#[derive(Default)]
struct Memo {
    grants: Mutex<HashMap<String, Arc<GrantMemo>>>,
    attested: Mutex<HashMap<(String, String), Arc<AttestedMemo>>>,
}

/// A grant or mandate document as parsed, with the limits an attestation under it carries.
struct GrantMemo {
    kind: GrantKind,
    document: String,
    value: Value,
    limits: Limits,
}

/// An attestation as issued: its compact text, its envelope and its payload.
struct AttestedMemo {
    compact: String,
    envelope: Envelope,
    attestation: Attestation,
}

fn memo_put<K: std::hash::Hash + Eq, V>(map: &Mutex<HashMap<K, V>>, key: K, value: V) {
    let mut m = map.lock().unwrap_or_else(|p| p.into_inner());
    if m.len() >= MEMO_LIMIT {
        m.clear();
    }
    m.insert(key, value);
}

impl Memo {
    fn grant(&self, id: &str) -> Option<Arc<GrantMemo>> {
        self.grants.lock().unwrap_or_else(|p| p.into_inner()).get(id).cloned()
    }

    /// The parsed document of `g`, from memory when it is the one stored.
    fn grant_of(&self, g: &GrantRow) -> Result<Arc<GrantMemo>, Error> {
        if let Some(m) = self.grant(&g.id).filter(|m| m.kind == g.kind && m.document == g.document) {
            return Ok(m);
        }
        let value = curbi::json::read_str(&g.document)?;
        let limits = if g.kind == GrantKind::Grant { limits_of(&value) } else { Limits::default() };
        let m = Arc::new(GrantMemo { kind: g.kind, document: g.document.clone(), value, limits });
        memo_put(&self.grants, g.id.clone(), m.clone());
        Ok(m)
    }

    fn attested(&self, tenant: &str, key: &str) -> Option<Arc<AttestedMemo>> {
        let m = self.attested.lock().unwrap_or_else(|p| p.into_inner());
        m.get(&(tenant.to_string(), key.to_string())).cloned()
    }

    fn settled(&self, tenant: &str, key: &str) {
        let mut m = self.attested.lock().unwrap_or_else(|p| p.into_inner());
        m.remove(&(tenant.to_string(), key.to_string()));
    }
}

/// A durable recorder on one store.
pub struct Recorder {
    store: Arc<dyn Storage>,
    key: SigningKey,
    kid: String,
    origin: String,
    clock: Arc<dyn Clock>,
    fixed: Option<Arc<FixedClock>>,
    attestation_ttl: i64,
    receipt_ttl: i64,
    max_clock_ahead: i64,
    queue: Mutex<Queue>,
    writer: Mutex<Ctx>,
    /// The last time this process committed, for calls to start from.
    last_time: AtomicI64,
    /// Calls signing ahead, about to queue for the writer (see [`GATHER`]).
    preparing: AtomicUsize,
    /// Witnesses and a publish directory for each head signed through `call_json` (crate `witness`).
    sharing: std::sync::OnceLock<crate::witness::Sharing>,
    /// Documents and attestations this process already holds, to sign ahead and not to parse twice.
    memo: Memo,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder").field("origin", &self.origin).field("kid", &self.kid).finish_non_exhaustive()
    }
}

fn err(code: ErrorCode, path: &str, message: impl Into<String>) -> Error {
    Error::new(code, path, message)
}

fn gate_error(e: GateError) -> Error {
    match e {
        GateError::InvalidEvidence(m) => err(ErrorCode::InvalidEvidence, "/evidence", m),
        GateError::EvidenceMismatch(m) => {
            err(ErrorCode::EvidenceMismatch, "/evidence", format!("the evidence does not name the attested {m}"))
        }
        other => err(ErrorCode::Internal, "", other.to_string()),
    }
}

fn check_origin(origin: &str) -> Result<(), Error> {
    let probe =
        Checkpoint::new(origin, 0, [0; 32]).map_err(|e| err(ErrorCode::InvalidValue, "/origin", e.to_string()))?;
    if !probe.is_curbi() {
        return Err(err(ErrorCode::InvalidValue, "/origin", "the origin must start with curbi-checkpoint-v1."));
    }
    Ok(())
}

fn timestamp(t: i64) -> Result<Timestamp, Error> {
    Timestamp::from_unix(t, 0).ok_or_else(|| err(ErrorCode::OutOfRange, "", format!("the time {t} is out of range")))
}

impl Recorder {
    /// Opens the recorder on its SQLite file, or on PostgreSQL when the path is a `postgres://` or
    /// `postgresql://` URL (feature `postgres`), restoring everything it holds.
    pub fn open(options: RecorderOptions) -> Result<Recorder, Error> {
        if let Some(url) = options.path.to_str().filter(|p| crate::store::is_postgres_url(p)) {
            return Recorder::open_on(open_postgres(url)?, options);
        }
        // A refused open leaves no file behind: the file it made is removed once SQLite has let go of it.
        let new = dbfile::prepare(&options.path, options.create, !options.origin.is_empty())?;
        let opened = SqliteStore::open(&options.path).and_then(|s| Recorder::open_on(Arc::new(s), options));
        if let (Err(_), Some(new)) = (&opened, new) {
            new.undo();
        }
        opened
    }

    /// Opens the recorder on any [`Storage`].
    pub fn open_on(store: Arc<dyn Storage>, options: RecorderOptions) -> Result<Recorder, Error> {
        if !options.origin.is_empty() {
            check_origin(&options.origin)?;
        }
        if options.attestation_ttl <= 0 || options.receipt_ttl <= 0 {
            return Err(err(ErrorCode::OutOfRange, "/attestation_ttl", "lifetimes must be positive seconds"));
        }
        if options.max_clock_ahead <= 0 {
            return Err(err(ErrorCode::OutOfRange, "/max_clock_ahead", "the clock's tolerance is positive seconds"));
        }
        let public = options.key.key.verifying_key().to_jwk_x();
        let kid = options.key.kid.clone();
        let mut origin = options.origin.clone();
        store.write(&mut |tx| {
            // Opening moves no time: only a new key (a new log, a rotation) is dated, as any write is.
            let clock = options.clock.now();
            match tx.meta("origin")? {
                None if origin.is_empty() => {
                    return Err(err(ErrorCode::MissingField, "/origin", "a new log needs its origin"));
                }
                None => tx.set_meta("origin", &origin)?,
                Some(o) if origin.is_empty() => origin = o,
                Some(o) if o == origin => {}
                Some(o) => {
                    return Err(err(ErrorCode::InvalidValue, "/origin", format!("this database is the log {o}")));
                }
            }
            adopt_key(tx, &kid, &public, options.rotate, clock, options.max_clock_ahead)?;
            // The stored edge must be whole: a log whose nodes do not add up is refused at open, not at a proof.
            Frontier::load(tx, tx.size()?)?;
            Ok(())
        })?;
        Ok(Recorder {
            store,
            key: options.key.key,
            kid,
            origin,
            clock: options.clock,
            fixed: options.fixed,
            attestation_ttl: options.attestation_ttl,
            receipt_ttl: options.receipt_ttl,
            max_clock_ahead: options.max_clock_ahead,
            queue: Mutex::new(Queue::default()),
            writer: Mutex::new(Ctx {
                frontier: Frontier::default(),
                fresh: false,
                version: None,
                last_time: i64::MIN,
                sealed: false,
            }),
            last_time: AtomicI64::new(i64::MIN),
            preparing: AtomicUsize::new(0),
            sharing: std::sync::OnceLock::new(),
            memo: Memo::default(),
        })
    }

    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Sets, once, what `checkpoint` calls through [`Recorder::call_json`] do with each head they sign.
    pub fn share_heads(&self, sharing: crate::witness::Sharing) -> Result<(), Error> {
        self.sharing.set(sharing).map_err(|_| err(ErrorCode::ConflictingFields, "/witnesses", "already set"))
    }

    /// What [`Recorder::share_heads`] set.
    pub fn sharing(&self) -> Option<&crate::witness::Sharing> {
        self.sharing.get()
    }

    /// The store, for the publisher and the witness client (crate `tiles`, `witness`).
    pub(crate) fn storage(&self) -> &dyn Storage {
        &*self.store
    }

    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// Moves a fixed clock (tests and vectors); refused on the system clock.
    pub fn set_clock(&self, now: i64) -> Result<(), Error> {
        match &self.fixed {
            Some(c) => {
                c.set(now);
                Ok(())
            }
            None => Err(err(ErrorCode::Unsupported, "/now", "this recorder runs on the system clock")),
        }
    }

    /// Runs `f` in a write transaction, grouped with whatever other callers are waiting, and returns once that
    /// transaction is committed (or refused). One caller at a time leads: it runs every queued call in one
    /// transaction, answers them all, and goes on while calls keep arriving; the others wait for their answer. Once
    /// its own call is answered, the leader hands the lead to the oldest waiting call before it wakes the callers it
    /// answered, so no caller serves the others forever and the wake-ups run beside the next transaction.
    fn write<T: Send + 'static>(
        &self,
        f: impl FnMut(&Recorder, &mut dyn Tx, &mut Ctx, &Batch<'_>) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        self.write_at(self.call_time(), Arc::default(), false, false, f)
    }

    /// The time a call starts at: the clock, but not before the last time this process committed.
    fn call_time(&self) -> i64 {
        self.clock.now().max(self.last_time.load(Ordering::Relaxed))
    }

    /// [`Recorder::write`] for a call made at `at` that signed ahead, in its own thread, what it expects to sign
    /// (`signer`): the writer then only checks that the bytes are the same (see [`Signer`]). What was signed ahead
    /// is a hint, never an answer. `counted`: the call counted itself in `preparing` before it signed ahead.
    /// `seal`: the call seals the log.
    fn write_at<T: Send + 'static>(
        &self,
        at: i64,
        signer: Arc<Signer>,
        counted: bool,
        seal: bool,
        mut f: impl FnMut(&Recorder, &mut dyn Tx, &mut Ctx, &Batch<'_>) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        let (done, answer) = sync_channel(1);
        let run: Run =
            Box::new(move |r, tx, ctx, batch| f(r, tx, ctx, batch).map(|t| Box::new(t) as Box<dyn Any + Send>));
        let own = Arc::as_ptr(&signer);
        let lead = {
            let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
            q.jobs.push(Job { run, done, at, signer, seal });
            if counted {
                self.preparing.fetch_sub(1, Ordering::Relaxed);
            }
            !std::mem::replace(&mut q.leading, true)
        };
        if !lead {
            match answer.recv() {
                Ok(Msg::Done(out)) => return downcast(out),
                Ok(Msg::Lead) => {}
                Err(_) => return Err(err(ErrorCode::Internal, "", "the call was dropped without an answer")),
            }
        }
        loop {
            // Calls signing ahead are about to queue: wait a little for them, so that they share this commit.
            if self.preparing.load(Ordering::Relaxed) > 0 {
                let until = std::time::Instant::now() + GATHER;
                while self.preparing.load(Ordering::Relaxed) > 0 && std::time::Instant::now() < until {
                    std::thread::yield_now();
                }
            }
            let jobs: Vec<Job> = {
                let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                let n = q.jobs.len().min(MAX_GROUP);
                q.jobs.drain(..n).collect()
            };
            let answers = {
                let mut ctx = self.writer.lock().unwrap_or_else(|p| p.into_inner());
                self.run_batch(&mut ctx, jobs)
            };
            let mine = answers.iter().position(|(job, _)| Arc::as_ptr(&job.signer) == own);
            let answers = answers.into_iter();
            let Some(i) = mine else {
                // Our own call was not in this group (more than MAX_GROUP were waiting): answer these, go on.
                answers.for_each(|(job, out)| drop(job.done.send(Msg::Done(out))));
                continue;
            };
            {
                let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
                match q.jobs.first() {
                    Some(next) => {
                        let _ = next.done.send(Msg::Lead);
                    }
                    None => q.leading = false,
                }
            }
            let mut out = None;
            for (k, (job, o)) in answers.enumerate() {
                if k == i {
                    out = Some(o);
                } else {
                    let _ = job.done.send(Msg::Done(o));
                }
            }
            return out.map_or_else(|| Err(err(ErrorCode::Internal, "", "the leader lost its own answer")), downcast);
        }
    }

    /// Runs a group of calls in one transaction and returns each call with its answer (sent by the caller of this,
    /// once the writer is free). The calls first run one after another in the transaction itself: one refused
    /// before it wrote anything (the usual refusals: a conflict, an unknown key) leaves nothing to undo, and no
    /// savepoint makes SQLite copy every page a call touches. If one fails after it wrote, or with an error of the
    /// store's, the transaction is rolled back and the group runs again, each call in its own savepoint, so that
    /// its error leaves the others' work intact.
    fn run_batch(&self, ctx: &mut Ctx, jobs: Vec<Job>) -> Vec<(Job, Output)> {
        let mut jobs = jobs;
        let mut outputs: Vec<Output> = Vec::with_capacity(jobs.len());
        let alone = jobs.len() == 1;
        let mut savepoints = false;
        let mut restart = false;
        let committed = loop {
            let committed = self.store.write(&mut |tx| {
                outputs.clear();
                let version = tx.data_version()?;
                if !ctx.fresh || ctx.version != Some(version) {
                    // Another connection committed since our last transaction (or ours failed): read again what we
                    // keep in memory. Otherwise nothing but us wrote, and what we keep is what is on disk.
                    match tx.meta("active_kid")? {
                        Some(k) if k == self.kid => {}
                        _ => {
                            return Err(err(
                                ErrorCode::KeyRotated,
                                "",
                                "another process rotated the log's key; reopen the recorder with the new key",
                            ));
                        }
                    }
                    ctx.last_time = stored_time(tx)?;
                    ctx.sealed = tx.meta(SEALED)?.is_some();
                    ctx.frontier = Frontier::load(tx, tx.size()?)?;
                    ctx.version = Some(version);
                    ctx.fresh = true;
                }
                let start = ctx.last_time;
                let mut latest = start;
                failpoint::hit("write.begin");
                if alone {
                    // One call: its own transaction is its savepoint.
                    let job = &mut jobs[0];
                    if let Some(e) = self.refusal(job, ctx, start) {
                        outputs.push(Err(e.clone()));
                        return Err(e);
                    }
                    let now = job.at.max(start);
                    latest = latest.max(now);
                    let signer = job.signer.clone();
                    let out = run_caught(job, self, tx, ctx, &Batch { now, signer: &signer });
                    let failed = out.as_ref().err().cloned();
                    outputs.push(out);
                    if let Some(e) = failed {
                        return Err(e);
                    }
                } else {
                    for job in jobs.iter_mut() {
                        // Refused before it runs: nothing to undo.
                        if let Some(e) = self.refusal(job, ctx, start) {
                            outputs.push(Err(e));
                            continue;
                        }
                        let now = job.at.max(start);
                        latest = latest.max(now);
                        let signer = job.signer.clone();
                        let batch = Batch { now, signer: &signer };
                        if savepoints {
                            tx.savepoint()?;
                            let before = ctx.frontier.clone();
                            let out = run_caught(job, self, tx, ctx, &batch);
                            if out.is_ok() {
                                tx.release_savepoint()?;
                            } else {
                                tx.rollback_to_savepoint()?;
                                ctx.frontier = before;
                            }
                            outputs.push(out);
                        } else {
                            let size = ctx.frontier.size();
                            let mut tracked = Tracked { tx: &mut *tx, wrote: false };
                            let out = run_caught(job, self, &mut tracked, ctx, &batch);
                            let wrote = tracked.wrote || ctx.frontier.size() != size;
                            if out.as_ref().is_err_and(|e| wrote || from_store(e)) {
                                restart = true;
                                return Err(err(ErrorCode::Internal, "", "a call failed after it wrote"));
                            }
                            outputs.push(out);
                        }
                    }
                }
                if latest != ctx.last_time {
                    tx.set_meta("last_time", &latest.to_string())?;
                    ctx.last_time = latest;
                }
                failpoint::hit("commit.before");
                Ok(())
            });
            if committed.is_err() && std::mem::take(&mut restart) {
                // Nothing of this transaction was kept (what we keep in memory is read again): the same group
                // again, with savepoints.
                ctx.fresh = false;
                savepoints = true;
                continue;
            }
            break committed;
        };
        match committed {
            Ok(()) => {
                self.last_time.fetch_max(ctx.last_time, Ordering::Relaxed);
                failpoint::hit("commit.after");
                jobs.into_iter().zip(outputs).collect()
            }
            Err(e) => {
                ctx.fresh = false;
                // A call that failed alone gets its own error; every other call gets the transaction's.
                let own = if alone { outputs.pop().and_then(Result::err) } else { None };
                jobs.into_iter().map(|job| (job, Err(own.clone().unwrap_or_else(|| e.clone())))).collect()
            }
        }
    }

    /// Why `job` may not run at all: the log is sealed, or its time is further ahead of the last time the log used
    /// (`start`) than the tolerance (a clock that wrong would date everything after it as far ahead, for good).
    fn refusal(&self, job: &Job, ctx: &Ctx, start: i64) -> Option<Error> {
        if ctx.sealed && !job.seal {
            return Some(sealed_error());
        }
        clock_ahead(job.at, start, self.max_clock_ahead).err()
    }

    fn read<T>(&self, mut f: impl FnMut(&mut dyn Tx) -> Result<T, Error>) -> Result<T, Error> {
        let mut out = None;
        self.store.read(&mut |tx| {
            out = Some(f(tx)?);
            Ok(())
        })?;
        out.ok_or_else(|| err(ErrorCode::Internal, "", "the read ran no transaction"))
    }
}

#[cfg(feature = "postgres")]
fn open_postgres(url: &str) -> Result<Arc<dyn Storage>, Error> {
    Ok(Arc::new(crate::postgres::PostgresStore::open(url)?))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(url: &str) -> Result<Arc<dyn Storage>, Error> {
    let m = format!("{}: this build has no PostgreSQL store (feature `postgres`)", crate::store::redact_url(url));
    Err(err(ErrorCode::Unsupported, "/path", m))
}

/// An error the store may have raised, after which the transaction may be unusable (PostgreSQL aborts it at a
/// failed statement), as opposed to a refusal the recorder decided on before it wrote.
fn from_store(e: &Error) -> bool {
    matches!(e.code, ErrorCode::Storage | ErrorCode::Busy | ErrorCode::Corrupt | ErrorCode::Internal)
}

/// Runs one call; a panic in it (a bug) is that call's `internal` error, never a stuck leader.
fn run_caught(job: &mut Job, r: &Recorder, tx: &mut dyn Tx, ctx: &mut Ctx, batch: &Batch<'_>) -> Output {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (job.run)(r, tx, ctx, batch))).unwrap_or_else(|_| {
        Err(err(ErrorCode::Internal, "", "the recorder call failed; this is a bug, please report it"))
    })
}

fn downcast<T: 'static>(out: Output) -> Result<T, Error> {
    out.and_then(|b| {
        b.downcast::<T>().map(|b| *b).map_err(|_| err(ErrorCode::Internal, "", "an answer of another type"))
    })
}

/// The last time the log used.
fn stored_time(tx: &mut dyn Tx) -> Result<i64, Error> {
    Ok(tx.meta("last_time")?.and_then(|t| t.parse::<i64>().ok()).unwrap_or(i64::MIN))
}

/// The meta row naming the size of a sealed log's final head.
const SEALED: &str = "sealed";

fn sealed_error() -> Error {
    err(ErrorCode::Sealed, "", "the log is sealed: it takes no more writes (its successor does); reads still work")
}

/// Refuses a write at `at` when it is more than `max` seconds after `last`, the last time the log used (none yet:
/// `i64::MIN`). A write's time is the clock, but never before `last`: a clock stepped back must not sign a receipt
/// before its key's window or a head before an earlier one. So a clock far ahead would date every later write as
/// far ahead; this is where that stops, before anything is signed or stored.
fn clock_ahead(at: i64, last: i64, max: i64) -> Result<(), Error> {
    if last == i64::MIN || at <= last.saturating_add(max) {
        return Ok(());
    }
    let ahead = at.saturating_sub(last);
    Err(err(
        ErrorCode::ClockAhead,
        "",
        format!(
            "the clock ({at}) is {ahead} s ahead of the last time this log used ({last}), more than max_clock_ahead \
             ({max} s); nothing was signed. Fix the clock, or if it is right (the log was idle that long), reopen \
             with a larger max_clock_ahead"
        ),
    ))
}

/// Makes the opening key the active one, or refuses it (docs/RECORDER.md §Keys). A rotation closes the old key's
/// window one second after the last time the log used, and opens the new key's there: every signature the old key
/// made lies inside its window, and none after.
fn adopt_key(tx: &mut dyn Tx, kid: &str, x: &str, rotate: bool, clock: i64, max_ahead: i64) -> Result<(), Error> {
    let keys = tx.keys()?;
    if let Some(k) = keys.iter().find(|k| k.x == x || k.kid == kid) {
        if k.x != x || k.kid != kid {
            return Err(err(
                ErrorCode::KeyMismatch,
                "/key",
                format!("the log knows kid {} with another public key (or this key under another kid)", k.kid),
            ));
        }
        if k.expires.is_some() {
            return Err(err(ErrorCode::KeyMismatch, "/key", format!("key {kid} was retired; it never signs again")));
        }
        if tx.meta("active_kid")?.as_deref() != Some(kid) {
            tx.set_meta("active_kid", kid)?;
        }
        return Ok(());
    }
    // A new key dates its window: a write, under the rules of every write.
    if tx.meta(SEALED)?.is_some() {
        return Err(sealed_error());
    }
    let last = stored_time(tx)?;
    clock_ahead(clock, last, max_ahead)?;
    let now = clock.max(last);
    let active = keys.iter().find(|k| k.expires.is_none());
    let start = match active {
        None => now,
        Some(old) if rotate => {
            let at = now.saturating_add(1).max(old.not_before.saturating_add(1));
            tx.close_key(&old.kid, at)?;
            at
        }
        Some(old) => {
            return Err(err(
                ErrorCode::KeyMismatch,
                "/key",
                format!("the log's active key is {}; open with it, or rotate to this one", old.kid),
            ));
        }
    };
    tx.insert_key(&KeyRow { kid: kid.to_string(), x: x.to_string(), not_before: start, expires: None })?;
    tx.set_meta("last_time", &start.to_string())?;
    tx.set_meta("active_kid", kid)
}

/// A successor log's first entry ([`Recorder::record_predecessor`]): the operation it attests, the recorder's own
/// grant for it, and its tenant, idempotency key and agent.
pub const PREDECESSOR_OPERATION: &str = "log.predecessor";
pub const PREDECESSOR_GRANT: &str = "curbi:log.predecessor";
pub const PREDECESSOR_TENANT: &str = "curbi";
pub const PREDECESSOR_KEY: &str = "log.predecessor";
pub const PREDECESSOR_AGENT: &str = "curbi:recorder";

/// The operation a mandate's purchase is attested as (its resource: `checkout:<id>`).
pub const PURCHASE_OPERATION: &str = "checkout.complete";

/// Makes `m` the mutation a purchase attests: `checkout.complete` on `checkout:<id>` for the charge's total and
/// currency (tenant, idempotency key and agent stay the caller's). Builds nothing when `m` already is that.
fn charge_into(m: &mut Mutation, id: &str, c: &purchase::Charge) {
    if m.operation != PURCHASE_OPERATION {
        m.operation = PURCHASE_OPERATION.into();
    }
    if m.resource.strip_prefix("checkout:") != Some(id) {
        m.resource = format!("checkout:{id}");
    }
    m.amount = Some(c.total);
    if m.currency.as_deref() != Some(c.currency.as_str()) {
        m.currency = Some(c.currency.clone());
    }
}

/// The mutation of a purchase by `agent` of `checkout` (see [`charge_into`]); when the checkout's id, total or
/// currency does not read, only its tenant, key and agent (the purchase check DENYs such a checkout, so nothing is
/// attested for it).
pub(crate) fn purchase_mutation(tenant: String, idempotency_key: String, agent: String, checkout: &Value) -> Mutation {
    let mut m = Mutation {
        tenant,
        idempotency_key,
        agent,
        operation: PURCHASE_OPERATION.into(),
        resource: "checkout".into(),
        amount: None,
        currency: None,
    };
    if let Some(c) = purchase::checkout_charge(checkout)
        && let Some(id) = &c.id
    {
        charge_into(&mut m, id, &c);
    }
    m
}

/// The ledger the purchase check reads for a mandate: the recorder's own records of it.
fn ledger_of(g: &GrantRow) -> Result<Value, Error> {
    let mut ledger = serde_json::json!({"spent": g.spent, "reserved": g.reserved, "occurrences": g.used});
    if let Some(t) = g.last_use {
        ledger["last_occurrence_at"] = timestamp(t)?.to_rfc3339().into();
    }
    Ok(ledger)
}

/// The grant's `limits`, as an attestation carries them (already validated when the grant was registered).
fn limits_of(grant: &Value) -> Limits {
    let l = grant.get("limits");
    let int = |name: &str| l.and_then(|l| l.get(name)).and_then(Value::as_i64);
    Limits {
        max_amount: int("max_amount"),
        confirmation_threshold: int("confirmation_threshold"),
        currency: l.and_then(|l| l.get("currency")).and_then(Value::as_str).map(str::to_string),
        max_count: int("max_count"),
    }
}

/// SHA-256 over the attest request's fields, each length-prefixed: the same request hashes the same however its
/// JSON was written.
fn request_hash(r: &AttestRequest) -> Hash {
    let m = &r.mutation;
    let amount = m.amount.map(|a| a.to_string()).unwrap_or_default();
    // A purchase's operation, resource, amount and currency are its checkout's, which is hashed whole below; these
    // fixed names (what the JSON surface passed before it read them from the checkout) keep every purchase's hash
    // what it was when it was recorded.
    let (operation, resource, amount, currency) = match &r.checkout {
        Some(_) => (PURCHASE_OPERATION, "checkout", "", ""),
        None => (m.operation.as_str(), m.resource.as_str(), amount.as_str(), m.currency.as_deref().unwrap_or("")),
    };
    let mut bytes = Vec::new();
    for part in [
        "curbi-recorder-attest-v1",
        &m.tenant,
        &m.idempotency_key,
        &r.grant,
        &m.agent,
        operation,
        resource,
        amount,
        currency,
        // The checkout as read (its members sorted): the same cart however its JSON was written.
        &r.checkout.as_ref().map(Value::to_string).unwrap_or_default(),
    ] {
        bytes.extend_from_slice(&(part.len() as u64).to_be_bytes());
        bytes.extend_from_slice(part.as_bytes());
    }
    sha256(&bytes)
}

fn settled_of(receipt: &ReceiptRow) -> Settled {
    Settled { status: receipt.status.clone(), seq: Some(receipt.seq), receipt: Some(receipt.receipt.clone()) }
}

impl Recorder {
    /// Registers a grant (the action check's grant document, with an `id` and without `used`: the recorder counts
    /// uses itself). The same id with the same document again is a replay; with another document, a conflict.
    pub fn grant(&self, document: &Value) -> Result<GrantInfo, Error> {
        self.register(GrantKind::Grant, document)
    }

    /// Registers a purchase mandate (docs/PURCHASE.md), with an `id`. Its ledger (what it spent, reserved and was
    /// used for) is the recorder's own: a checkout attested under it is checked against that, never a host's.
    pub fn mandate(&self, document: &Value) -> Result<GrantInfo, Error> {
        self.register(GrantKind::Mandate, document)
    }

    fn register(&self, kind: GrantKind, document: &Value) -> Result<GrantInfo, Error> {
        let what = kind.as_str();
        let obj =
            document.as_object().ok_or_else(|| curbi::json::wrong_type("", &format!("a {what} object"), document))?;
        let id = match obj.get("id") {
            Some(Value::String(s)) if !s.is_empty() && s.len() <= 256 => s.clone(),
            Some(v @ Value::String(_)) => {
                return Err(err(ErrorCode::TooLong, "/id", format!("a {what} id is 1 to 256 bytes, not {v}")));
            }
            Some(v) => return Err(curbi::json::wrong_type("/id", "a string", v)),
            None => return Err(err(ErrorCode::MissingField, "/id", format!("a recorded {what} needs an id"))),
        };
        if kind == GrantKind::Grant && obj.contains_key("used") {
            return Err(err(ErrorCode::UnknownField, "/used", "the recorder counts a grant's uses itself"));
        }
        // The check reads it; a grant or mandate it cannot read would DENY everything.
        let (probe, prefix) = match kind {
            GrantKind::Grant => (purchase::verify_action(document, &serde_json::json!({}), timestamp(0)?), "/grant"),
            GrantKind::Mandate => {
                (purchase::verify_checkout(document, &serde_json::json!({}), None, timestamp(0)?), "/mandate")
            }
        };
        let unreadable = ["malformed", "amount_invalid", "timestamp_invalid", "currency_unknown"];
        if let Some(r) =
            probe.reasons().iter().find(|r| r.path.starts_with(prefix) && unreadable.contains(&r.code.as_str()))
        {
            let path = r.path.strip_prefix(prefix).unwrap_or(&r.path);
            return Err(err(ErrorCode::InvalidValue, path, format!("{}: {}", r.code.as_str(), r.message)));
        }
        let text = document.to_string();
        self.write(move |_, tx, _, batch| match tx.grant(&id)? {
            Some(g) if g.document == text && g.kind == kind => Ok(GrantInfo { id: g.id, used: g.used }),
            Some(g) => Err(err(
                ErrorCode::GrantConflict,
                "/id",
                format!("{} {id} exists with another document", g.kind.as_str()),
            )),
            None => {
                let row = GrantRow {
                    id: id.clone(),
                    kind,
                    document: text.clone(),
                    used: 0,
                    spent: 0,
                    reserved: 0,
                    last_use: None,
                };
                tx.insert_grant(&row, batch.now)?;
                Ok(GrantInfo { id: id.clone(), used: 0 })
            }
        })
    }

    /// Runs the action check on the mutation under its grant, with the uses the recorder counted. ALLOW (or a
    /// confirmed STEP_UP) signs and stores an attestation and counts a use, durably, before returning; STEP_UP and
    /// DENY store nothing. The same tenant, idempotency key and request again returns the same answer.
    pub fn attest(&self, request: &AttestRequest) -> Result<Attested, Error> {
        let m = &request.mutation;
        gate::attestation_for(m, &Limits::default(), None, 0, 1)
            .check()
            .map_err(|e| err(ErrorCode::InvalidValue, "/action", e.0))?;
        let hash = request_hash(request);
        // A purchase attests the charge the check allows: the checkout's total, in its currency. Read here, once
        // per call, outside the writer; the JSON surface already built the mutation from it (`purchase_mutation`).
        let charge = request.checkout.as_ref().map(purchase::checkout_charge);
        let mut request = request.clone();
        let purchase = match &charge {
            None => Ok(()),
            Some(Some(c)) => match &c.id {
                Some(id) => {
                    charge_into(&mut request.mutation, id, c);
                    Ok(())
                }
                None => Err(err(ErrorCode::MissingField, "/checkout/id", "a checkout needs an id")),
            },
            Some(None) => Err(err(ErrorCode::InvalidValue, "/checkout", "the checkout's total does not read")),
        };
        let reserved = charge.as_ref().and_then(|c| c.as_ref().map(|c| c.total));
        let ttl = self.attestation_ttl;
        let ahead = |at: i64, signer: &Signer| -> Result<(), Error> {
            // Sign ahead the attestation an ALLOW would issue, when this process knows the grant's document.
            let Some(g) = self.memo.grant(&request.grant) else { return Ok(()) };
            if purchase.is_err() || (g.kind == GrantKind::Mandate) != request.checkout.is_some() {
                return Ok(());
            }
            let attestation = gate::attestation_for(&request.mutation, &g.limits, Some(&request.grant), at, ttl);
            if attestation.check().is_ok() {
                signer.sign(self, Kind::Attestation, attestation.to_payload())?;
            }
            Ok(())
        };
        let at = self.call_time();
        let signer = Arc::new(Signer::default());
        self.preparing.fetch_add(1, Ordering::Relaxed);
        let _ = ahead(at, &signer);
        self.write_at(at, signer, true, false, move |r, tx, _, batch| {
            let m = &request.mutation;
            if let Some(a) = tx.action(&m.tenant, &m.idempotency_key)? {
                if a.request_hash != hash {
                    return Err(err(
                        ErrorCode::IdempotencyConflict,
                        "/idempotency_key",
                        "this idempotency key already names another request",
                    ));
                }
                if a.state == ActionState::Released {
                    // Its attestation must not be acted on: the provider never performed it and its use was returned.
                    return Err(err(
                        ErrorCode::Released,
                        "/idempotency_key",
                        "the action was released as not performed; a new idempotency key starts a new action",
                    ));
                }
                return serde_json::from_str(&a.answer)
                    .map_err(|e| err(ErrorCode::Corrupt, "", format!("a stored answer does not read: {e}")));
            }
            let named = if request.checkout.is_some() { "/mandate" } else { "/grant" };
            let g = tx
                .grant(&request.grant)?
                .ok_or_else(|| err(ErrorCode::UnknownGrant, named, format!("no grant or mandate {}", request.grant)))?;
            let doc = r.memo.grant_of(&g)?;
            let now = timestamp(batch.now)?;
            // The check runs on the recorder's own ledger: uses for a grant; spent, reserved and uses for a mandate.
            let decision = match (g.kind, &request.checkout) {
                (GrantKind::Grant, None) => {
                    let mut grant = doc.value.clone();
                    if let Some(obj) = grant.as_object_mut() {
                        obj.insert("used".into(), g.used.into());
                    }
                    purchase::verify_action(&grant, &gate::action_document(m), now)
                }
                (GrantKind::Mandate, Some(checkout)) => {
                    let ledger = ledger_of(&g)?;
                    purchase::verify_checkout(&doc.value, checkout, Some(&ledger), now)
                }
                (GrantKind::Grant, Some(_)) => {
                    return Err(err(
                        ErrorCode::InvalidValue,
                        "/mandate",
                        format!("{} is a grant, not a mandate", g.id),
                    ));
                }
                (GrantKind::Mandate, None) => {
                    return Err(err(
                        ErrorCode::InvalidValue,
                        "/grant",
                        format!("{} is a mandate: attest a checkout", g.id),
                    ));
                }
            };
            let verdict = decision.verdict();
            let issue = verdict == Verdict::Allow || (verdict == Verdict::StepUp && request.step_up_confirmed);
            let mut answer =
                Attested { decision: verdict.as_str().to_string(), attestation: None, check: decision.to_json() };
            if !issue {
                return Ok(answer);
            }
            purchase.clone()?;
            let attestation = gate::attestation_for(m, &doc.limits, Some(&g.id), batch.now, r.attestation_ttl);
            attestation.check().map_err(|e| err(ErrorCode::InvalidValue, "/action", e.0))?;
            let envelope = batch.signer.sign(r, Kind::Attestation, attestation.to_payload())?;
            let compact = envelope.to_compact();
            answer.attestation = Some(compact.clone());
            let text = serde_json::to_string(&answer).map_err(|e| err(ErrorCode::Internal, "", e.to_string()))?;
            tx.insert_action(&ActionRow {
                tenant: m.tenant.clone(),
                idempotency_key: m.idempotency_key.clone(),
                request_hash: hash,
                grant: g.id.clone(),
                state: ActionState::Attested,
                reserved,
                answer: text,
                attestation: compact.clone(),
                created: batch.now,
                updated: batch.now,
                outcome_hash: None,
                conversation: request.conversation.clone(),
            })?;
            batch.hit("attest.stored");
            match reserved {
                // A mandate's purchase reserves its total until it settles; a grant counts a use.
                Some(amount) => tx.account(&g.id, 0, amount, None)?,
                None => tx.add_uses(&g.id, 1)?,
            }
            // Its confirm, from this process, then neither reads nor parses the attestation again.
            let key = (m.tenant.clone(), m.idempotency_key.clone());
            memo_put(&r.memo.attested, key, Arc::new(AttestedMemo { compact, envelope, attestation }));
            Ok(answer)
        })
    }

    /// Records the provider's answer to an attested action: DONE or FAILED with its evidence signs a receipt and
    /// appends it to the log in the same transaction; UNKNOWN holds the action (no receipt, nothing logged).
    pub fn confirm(&self, tenant: &str, idempotency_key: &str, outcome: Outcome) -> Result<Settled, Error> {
        if outcome == Outcome::NotPerformed {
            return Err(err(ErrorCode::InvalidEnum, "/outcome", "NOT_PERFORMED is a reconcile outcome"));
        }
        self.settle(tenant, idempotency_key, outcome, false)
    }

    /// Settles an action from the provider's state read later (GET-only recovery): DONE or FAILED signs its one
    /// receipt, NOT_PERFORMED releases it (no receipt, its use returned). Works on held and on attested actions
    /// (an attestation whose outcome was never reported, as after a crash).
    pub fn reconcile(&self, tenant: &str, idempotency_key: &str, outcome: Outcome) -> Result<Settled, Error> {
        if outcome == Outcome::Unknown {
            return Err(err(ErrorCode::InvalidEnum, "/outcome", "reconcile needs the provider's state, not UNKNOWN"));
        }
        self.settle(tenant, idempotency_key, outcome, true)
    }

    fn settle(&self, tenant: &str, key: &str, outcome: Outcome, reconcile: bool) -> Result<Settled, Error> {
        if let Outcome::Done(e) | Outcome::Failed(e) = &outcome
            && e.len() > gate::MAX_EVIDENCE_BYTES
        {
            return Err(err(
                ErrorCode::InvalidEvidence,
                "/evidence",
                format!("the evidence is over {} bytes", gate::MAX_EVIDENCE_BYTES),
            ));
        }
        let (tenant, key) = (tenant.to_string(), key.to_string());
        let at = self.call_time();
        let signer = Arc::new(Signer::default());
        // Sign ahead, in this thread, the receipt of an attestation this process issued, with the evidence checked
        // against it: the writer then only reads the action's state and appends.
        self.preparing.fetch_add(1, Ordering::Relaxed);
        let known = match &outcome {
            Outcome::Done(e) | Outcome::Failed(e) => self.memo.attested(&tenant, &key).map(|m| {
                let checked = gate::check_evidence(&m.attestation, e).is_ok();
                if checked {
                    let status = if matches!(outcome, Outcome::Done(_)) { Status::Done } else { Status::Failed };
                    let receipt = gate::receipt_for(&m.envelope, &m.attestation, status, e, at, self.receipt_ttl);
                    if receipt.check().is_ok() {
                        let _ = signer.sign(self, Kind::Receipt, receipt.to_payload());
                    }
                }
                (m, checked)
            }),
            Outcome::Unknown | Outcome::NotPerformed => None,
        };
        self.write_at(at, signer, true, false, move |r, tx, ctx, batch| {
            let a = tx.action(&tenant, &key)?.ok_or_else(|| {
                err(
                    ErrorCode::NotAttested,
                    "/idempotency_key",
                    "no attested action under this tenant and idempotency key",
                )
            })?;
            let digest = outcome.digest();
            match a.state {
                ActionState::Done | ActionState::Failed => {
                    if a.outcome_hash == Some(digest) {
                        let receipt = tx
                            .receipt_of(&tenant, &key)?
                            .ok_or_else(|| err(ErrorCode::Corrupt, "", "a settled action has no receipt in the log"))?;
                        return Ok(settled_of(&receipt));
                    }
                    return Err(err(
                        ErrorCode::OutcomeConflict,
                        "/outcome",
                        format!(
                            "the action is already settled as {}; there is never a second receipt",
                            a.state.as_str()
                        ),
                    ));
                }
                ActionState::Released => {
                    if outcome == Outcome::NotPerformed {
                        return Ok(Settled { status: "RELEASED".into(), seq: None, receipt: None });
                    }
                    return Err(err(
                        ErrorCode::Released,
                        "/idempotency_key",
                        "the action was released as not performed",
                    ));
                }
                ActionState::Held if !reconcile => {
                    if outcome == Outcome::Unknown {
                        return Ok(Settled { status: "HELD".into(), seq: None, receipt: None });
                    }
                    return Err(err(ErrorCode::Held, "/idempotency_key", "the action is held; reconcile it"));
                }
                ActionState::Held | ActionState::Attested => {}
            }
            let (status, evidence) = match &outcome {
                Outcome::Unknown => {
                    tx.settle_action(&settle(&tenant, &key, ActionState::Held, None, batch.now))?;
                    batch.hit("settle.held");
                    return Ok(Settled { status: "HELD".into(), seq: None, receipt: None });
                }
                Outcome::NotPerformed => {
                    tx.settle_action(&settle(&tenant, &key, ActionState::Released, Some(&digest), batch.now))?;
                    r.memo.settled(&tenant, &key);
                    batch.hit("settle.released");
                    match a.reserved {
                        Some(amount) => tx.account(&a.grant, 0, -amount, None)?,
                        None => tx.add_uses(&a.grant, -1)?,
                    }
                    return Ok(Settled { status: "RELEASED".into(), seq: None, receipt: None });
                }
                Outcome::Done(e) => (Status::Done, e),
                Outcome::Failed(e) => (Status::Failed, e),
            };
            // The attestation as this process issued it when that is the one stored, else parsed from the store.
            let parsed;
            let (envelope, attestation, checked) = match known.as_ref().filter(|(m, _)| m.compact == a.attestation) {
                Some((m, checked)) => (&m.envelope, &m.attestation, *checked),
                None => {
                    let envelope = Envelope::parse(Kind::Attestation, &a.attestation).map_err(|e| {
                        err(ErrorCode::Corrupt, "", format!("a stored attestation does not read: {}", e.0))
                    })?;
                    let attestation = envelope
                        .attestation()
                        .map_err(|e| err(ErrorCode::Corrupt, "", format!("a stored attestation: {}", e.0)))?;
                    parsed = (envelope, attestation);
                    (&parsed.0, &parsed.1, false)
                }
            };
            if !checked {
                gate::check_evidence(attestation, evidence).map_err(gate_error)?;
            }
            let receipt = gate::receipt_for(envelope, attestation, status, evidence, batch.now, r.receipt_ttl);
            receipt.check().map_err(|e| err(ErrorCode::Internal, "", e.0))?;
            let signed = batch.signer.sign(r, Kind::Receipt, receipt.to_payload())?;
            let compact = signed.to_compact();
            let seq = ctx.frontier.size();
            let nodes = ctx.frontier.append(leaf_hash(compact.as_bytes()));
            let row = ReceiptRow {
                seq,
                tenant: tenant.clone(),
                idempotency_key: key.clone(),
                status: status.as_str().to_string(),
                receipt: compact,
                attestation: a.attestation.clone(),
                evidence: evidence.clone(),
                created: batch.now,
            };
            tx.append(&row, &attestation.resource, &nodes)?;
            batch.hit("settle.appended");
            let state = if status == Status::Done { ActionState::Done } else { ActionState::Failed };
            tx.settle_action(&settle(&tenant, &key, state, Some(&digest), batch.now))?;
            r.memo.settled(&tenant, &key);
            if let Some(amount) = a.reserved {
                // A completed purchase is spent and counts as a use of its mandate; a failed one returns its reserve.
                if status == Status::Done {
                    tx.account(&a.grant, amount, -amount, Some(batch.now))?;
                    tx.add_uses(&a.grant, 1)?;
                } else {
                    tx.account(&a.grant, 0, -amount, None)?;
                }
            }
            Ok(settled_of(&row))
        })
    }

    /// The actions not yet settled (attested or held), oldest first, at most `limit` (≤ [`MAX_HELD`]).
    pub fn open_actions(&self, limit: usize) -> Result<OpenActions, Error> {
        if limit == 0 || limit > MAX_HELD {
            return Err(err(ErrorCode::OutOfRange, "/limit", format!("limit is 1 to {MAX_HELD}")));
        }
        self.read(|tx| {
            let mut rows = tx.open_actions(limit + 1)?;
            let more = rows.len() > limit;
            rows.truncate(limit);
            let actions = rows
                .into_iter()
                .map(|a| OpenAction {
                    tenant: a.tenant,
                    idempotency_key: a.idempotency_key,
                    state: a.state.as_str().to_string(),
                    grant: a.grant,
                    attestation: a.attestation,
                    since: a.updated,
                })
                .collect();
            Ok(OpenActions { actions, more })
        })
    }

    /// Signs the head of the log at its current size. A size already signed returns the head signed for it: there
    /// is never a second head, let alone a second root, for one size.
    pub fn checkpoint(&self) -> Result<Head, Error> {
        self.write(|r, tx, ctx, batch| r.sign_head(tx, ctx, batch, ["checkpoint.signed", "checkpoint.stored"]))
    }

    /// The head at the log's size: the one already signed for it, or a new one signed at the call's time.
    /// `points`: the failpoints after it is signed and after it is stored.
    fn sign_head(&self, tx: &mut dyn Tx, ctx: &Ctx, batch: &Batch<'_>, points: [&str; 2]) -> Result<Head, Error> {
        let size = ctx.frontier.size();
        if let Some(h) = tx.head(size)? {
            if h.root != ctx.frontier.root() {
                return Err(err(ErrorCode::Corrupt, "", format!("the head of size {size} has another root")));
            }
            return Ok(Head { size, note: h.note });
        }
        let root = ctx.frontier.root();
        let checkpoint =
            Checkpoint::new(&self.origin, size, root).map_err(|e| err(ErrorCode::Internal, "", e.to_string()))?;
        let at = u64::try_from(batch.now).map_err(|_| err(ErrorCode::OutOfRange, "", "the clock is before 1970"))?;
        let text = note::sign_curbi_checkpoint(&checkpoint, &self.key, at)
            .map_err(|e| err(ErrorCode::Internal, "", e.to_string()))?;
        batch.hit(points[0]);
        tx.insert_head(&HeadRow { size, root, note: text.clone(), signed_at: batch.now })?;
        batch.hit(points[1]);
        Ok(Head { size, note: text })
    }

    /// Seals the log (docs/RECORDER.md §Sealing a log): its final head (the head of its size, signed now unless
    /// that size is signed already) is recorded as the last, in one transaction. From then on every write, in
    /// this process or any other, is refused with `sealed`; reads, bundles and proofs go on and verify as before.
    /// Sealing a sealed log returns its final head. The way out of a log whose time a wrong clock moved ahead: seal
    /// it (at its own time, never before a time it used), and open a successor whose first entry names this head
    /// ([`Recorder::record_predecessor`]).
    pub fn seal(&self) -> Result<Head, Error> {
        self.write_at(self.call_time(), Arc::default(), false, true, |r, tx, ctx, batch| {
            if let Some(size) = tx.meta(SEALED)? {
                let size =
                    size.parse::<u64>().map_err(|_| err(ErrorCode::Corrupt, "", "the sealed size does not read"))?;
                let h = tx.head(size)?.ok_or_else(|| err(ErrorCode::Corrupt, "", "the final head is missing"))?;
                return Ok(Head { size, note: h.note });
            }
            let head = r.sign_head(tx, ctx, batch, ["seal.signed", "seal.stored"])?;
            tx.set_meta(SEALED, &head.size.to_string())?;
            ctx.sealed = true;
            batch.hit("seal.sealed");
            Ok(head)
        })
    }

    /// The final head of a sealed log; `None` while the log takes writes.
    pub fn sealed(&self) -> Result<Option<Head>, Error> {
        self.read(|tx| match tx.meta(SEALED)? {
            None => Ok(None),
            Some(size) => {
                let size =
                    size.parse::<u64>().map_err(|_| err(ErrorCode::Corrupt, "", "the sealed size does not read"))?;
                let h = tx.head(size)?.ok_or_else(|| err(ErrorCode::Corrupt, "", "the final head is missing"))?;
                Ok(Some(Head { size, note: h.note }))
            }
        })
    }

    /// The latest signed head, if any.
    pub fn latest_head(&self) -> Result<Option<Head>, Error> {
        self.read(|tx| Ok(tx.latest_head()?.map(|h| Head { size: h.size, note: h.note })))
    }

    /// The receipt at sequence number `seq`.
    pub fn receipt(&self, seq: u64) -> Result<StoredReceipt, Error> {
        self.read(|tx| {
            tx.receipt(seq)?.ok_or_else(|| err(ErrorCode::UnknownReceipt, "/seq", format!("no receipt at {seq}")))
        })
    }

    /// Most receipts handed out at once by [`Recorder::receipts_about`].
    pub const MAX_RECEIPTS_ABOUT: usize = 50;

    /// The newest receipts (at most `limit`, up to [`Recorder::MAX_RECEIPTS_ABOUT`]) about a subject (the attested
    /// resource) or from a conversation, in log order: the `record.receipts` to check an agent's reply against.
    pub fn receipts_about(&self, by: About<'_>, limit: usize) -> Result<Vec<String>, Error> {
        if limit == 0 || limit > Self::MAX_RECEIPTS_ABOUT {
            let m = format!("limit is 1 to {}", Self::MAX_RECEIPTS_ABOUT);
            return Err(err(ErrorCode::OutOfRange, "/limit", m));
        }
        self.read(|tx| tx.receipts_about(by, limit))
    }

    /// The receipt of an action, by tenant and idempotency key.
    pub fn receipt_of(&self, tenant: &str, idempotency_key: &str) -> Result<StoredReceipt, Error> {
        self.read(|tx| {
            tx.receipt_of(tenant, idempotency_key)?
                .ok_or_else(|| err(ErrorCode::UnknownReceipt, "/idempotency_key", "this action has no receipt"))
        })
    }

    /// The log's keys as a JWKS, each with its window (`curbi:nbf`, `curbi:exp`): give it to verifiers.
    pub fn keys(&self) -> Result<KeySet, Error> {
        let rows = self.read(|tx| tx.keys())?;
        let keys = rows
            .iter()
            .map(|k| {
                let bytes =
                    decode_url(&k.x).ok_or_else(|| err(ErrorCode::Corrupt, "", "a stored key is not base64url"))?;
                let key = VerifyingKey::from_slice(&bytes).map_err(|e| err(ErrorCode::Corrupt, "", e.to_string()))?;
                TrustedKey::new(key)
                    .with_kid(&k.kid)
                    .and_then(|t| t.with_window(Some(k.not_before), k.expires))
                    .map_err(|e| err(ErrorCode::Corrupt, "", e.message))
            })
            .collect::<Result<Vec<_>, Error>>()?;
        KeySet::from_keys(keys).map_err(|e| err(ErrorCode::Corrupt, "", e.message))
    }

    /// A `curbi.proof/0.1` bundle of the selected receipts under a head this log signed, with consistency proofs
    /// from each known head, and the log's JWKS. Costs O(log n) stored-node reads per receipt.
    pub fn bundle(&self, request: &BundleRequest) -> Result<Bundle, Error> {
        let count = match &request.select {
            Select::Seqs(s) => s.len(),
            Select::Actions(a) => a.len(),
        };
        if count > curbi::proof::bundle::MAX_RECEIPTS {
            return Err(err(
                ErrorCode::TooManyItems,
                "/receipts",
                format!("{count} receipts, more than {}", curbi::proof::bundle::MAX_RECEIPTS),
            ));
        }
        if request.known.len() > curbi::proof::bundle::MAX_CONSISTENCY {
            return Err(err(ErrorCode::TooManyItems, "/known", "more known heads than a bundle carries"));
        }
        let keys = self.keys()?;
        let jwks = keys.to_value();
        self.read(|tx| {
            let (head, size) = match &request.head {
                Some(text) => (text.clone(), self.own_head(tx, &keys, text, "/head")?),
                None => {
                    let h = tx.latest_head()?.ok_or_else(|| err(ErrorCode::NoHead, "/head", "no head signed yet"))?;
                    // With the witness cosignatures collected for it (crate `witness`).
                    (crate::tiles::cosigned_note(&*tx, &h)?, h.size)
                }
            };
            let mut receipts = Vec::with_capacity(count);
            let mut add = |row: Option<ReceiptRow>, path: String| -> Result<(), Error> {
                let row = row.filter(|r| r.seq < size).ok_or_else(|| {
                    err(ErrorCode::UnknownReceipt, &path, format!("no receipt below the head's size {size}"))
                })?;
                receipts.push(BundleItem {
                    proof: inclusion_proof_in(&*tx, row.seq, size)?,
                    index: row.seq,
                    attestation: request.attestations.then(|| row.attestation.clone()),
                    receipt: row.receipt,
                });
                Ok(())
            };
            match &request.select {
                Select::Seqs(seqs) => {
                    for (i, seq) in seqs.iter().enumerate() {
                        add(tx.receipt(*seq)?, format!("/receipts/{i}"))?;
                    }
                }
                Select::Actions(actions) => {
                    for (i, (tenant, key)) in actions.iter().enumerate() {
                        add(tx.receipt_of(tenant, key)?, format!("/actions/{i}"))?;
                    }
                }
            }
            let mut consistency = Vec::with_capacity(request.known.len());
            for (i, old) in request.known.iter().enumerate() {
                let path = format!("/known/{i}");
                let old_size = self.own_head(tx, &keys, old, &path)?;
                if old_size > size {
                    return Err(err(
                        ErrorCode::OutOfRange,
                        &path,
                        format!("a known head of size {old_size} is past the bundle's head"),
                    ));
                }
                // The empty tree is a prefix of every tree: the verifier takes this log's head of size 0 (checked
                // by own_head: our root at size 0, the empty root) without a proof, and RFC 9162 has none.
                if old_size == 0 {
                    continue;
                }
                consistency.push(OlderHead { head: old.clone(), proof: consistency_proof_in(&*tx, old_size, size)? });
            }
            Ok(Bundle {
                head: head.clone(),
                receipts: std::mem::take(&mut receipts),
                consistency,
                keys: Some(jwks.clone()),
            })
        })
    }

    /// The size of a head this log signed: its origin is ours, its root is our root at its size, and the log's
    /// signature on it verifies under one of our keys. Witness cosignatures the holder added are kept.
    fn own_head(&self, tx: &mut dyn Tx, keys: &KeySet, text: &str, path: &str) -> Result<u64, Error> {
        let unknown = |m: String| err(ErrorCode::UnknownHead, path, m);
        let signed =
            note::parse_curbi_checkpoint(text).map_err(|e| err(ErrorCode::InvalidNote, path, e.to_string()))?;
        let cp = signed.checkpoint();
        if cp.origin() != self.origin {
            return Err(unknown(format!("a head of the log {}", cp.origin())));
        }
        let stored = tx
            .head(cp.size())?
            .ok_or_else(|| unknown(format!("this log never signed a head of size {}", cp.size())))?;
        if stored.note != text {
            if *cp.root() != stored.root {
                return Err(unknown(format!("a head of size {} with a root this log never had", cp.size())));
            }
            if !keys.keys().iter().any(|k| signed.verify(k.key(), &[]).is_ok()) {
                return Err(unknown("the log's signature on this head does not verify".into()));
            }
        }
        Ok(cp.size())
    }

    /// The log's size, latest head and, once sealed, the size of its final head.
    pub fn status(&self) -> Result<Value, Error> {
        let (size, head, sealed) = self.read(|tx| Ok((tx.size()?, tx.latest_head()?, tx.meta(SEALED)?)))?;
        let head = head.map(|h| serde_json::json!({"size": h.size, "note": h.note}));
        let vkey = self.note_vkey()?;
        let sealed = sealed.and_then(|s| s.parse::<u64>().ok());
        Ok(serde_json::json!({"origin": self.origin, "kid": self.kid, "vkey": vkey, "size": size, "head": head,
            "sealed": sealed}))
    }

    /// Makes this log the successor of a sealed one: its first entry (seq 0) is a receipt that names `head`, the
    /// sealed log's final head (docs/RECORDER.md §Sealing a log). The receipt completes an attestation of
    /// [`PREDECESSOR_OPERATION`] on `head:<size>:<root, base64url>` under the recorder's own grant
    /// [`PREDECESSOR_GRANT`], and its evidence (kept byte for byte, its digest signed in the receipt) is
    /// `{operation, resource, origin, head}` with the head's full text. Safe to repeat after a crash at any point:
    /// each step replays; a log whose first entry is this receipt answers it again, any other log is refused.
    pub fn record_predecessor(&self, head: &str) -> Result<Settled, Error> {
        let bad = |code: ErrorCode, m: String| err(code, "/predecessor", m);
        let signed = note::parse_curbi_checkpoint(head).map_err(|e| bad(ErrorCode::InvalidNote, e.to_string()))?;
        let cp = signed.checkpoint();
        if cp.origin() == self.origin {
            let m = "a successor has an origin of its own: a second log under the sealed log's origin is a fork";
            return Err(bad(ErrorCode::InvalidValue, m.into()));
        }
        let resource = format!("head:{}:{}", cp.size(), curbi::encoding::encode_url(cp.root()));
        let evidence = serde_json::json!({"operation": PREDECESSOR_OPERATION, "resource": resource,
            "origin": cp.origin(), "head": head})
        .to_string()
        .into_bytes();
        if let Some(first) = self.read(|tx| tx.receipt(0))? {
            if first.tenant == PREDECESSOR_TENANT
                && first.idempotency_key == PREDECESSOR_KEY
                && first.evidence == evidence
            {
                return Ok(settled_of(&first));
            }
            return Err(bad(
                ErrorCode::ConflictingFields,
                "this log has entries: only a new log becomes a successor".into(),
            ));
        }
        self.grant(&serde_json::json!({"id": PREDECESSOR_GRANT, "agent": PREDECESSOR_AGENT,
            "operations": [PREDECESSOR_OPERATION], "resources": ["head:*"], "expires_at": "9999-12-31T23:59:59Z"}))?;
        let attested = self.attest(&AttestRequest {
            grant: PREDECESSOR_GRANT.into(),
            mutation: Mutation {
                tenant: PREDECESSOR_TENANT.into(),
                idempotency_key: PREDECESSOR_KEY.into(),
                agent: PREDECESSOR_AGENT.into(),
                operation: PREDECESSOR_OPERATION.into(),
                resource,
                amount: None,
                currency: None,
            },
            checkout: None,
            step_up_confirmed: false,
            conversation: None,
        })?;
        if attested.attestation.is_none() {
            let m = format!("the predecessor entry was not attested: {}", attested.check);
            return Err(err(ErrorCode::Internal, "", m));
        }
        let settled = self.confirm(PREDECESSOR_TENANT, PREDECESSOR_KEY, Outcome::Done(evidence))?;
        if settled.seq != Some(0) {
            return Err(bad(
                ErrorCode::ConflictingFields,
                "another entry was appended first: only a new log becomes a successor".into(),
            ));
        }
        Ok(settled)
    }

    /// The log's C2SP note verifier key (Ed25519, named by the origin): what witnesses and tlog clients pin.
    pub fn note_vkey(&self) -> Result<String, Error> {
        let v = note::NoteVerifier::new(&self.origin, note::SignatureKind::Ed25519, self.key.verifying_key())
            .map_err(|e| err(ErrorCode::Internal, "", e.to_string()))?;
        Ok(v.to_vkey())
    }
}

/// The transaction as one call of a group sees it, noting whether the call wrote anything (see
/// [`Recorder::run_batch`]).
struct Tracked<'t> {
    tx: &'t mut dyn Tx,
    wrote: bool,
}

impl curbi::proof::merkle::NodeStore for Tracked<'_> {
    type Error = Error;
    fn node(&self, level: u32, index: u64) -> Result<Option<Hash>, Error> {
        self.tx.node(level, index)
    }
}

impl Tx for Tracked<'_> {
    fn meta(&self, name: &str) -> Result<Option<String>, Error> {
        self.tx.meta(name)
    }
    fn set_meta(&mut self, name: &str, value: &str) -> Result<(), Error> {
        self.wrote = true;
        self.tx.set_meta(name, value)
    }
    fn keys(&self) -> Result<Vec<KeyRow>, Error> {
        self.tx.keys()
    }
    fn insert_key(&mut self, key: &KeyRow) -> Result<(), Error> {
        self.wrote = true;
        self.tx.insert_key(key)
    }
    fn close_key(&mut self, kid: &str, expires: i64) -> Result<(), Error> {
        self.wrote = true;
        self.tx.close_key(kid, expires)
    }
    fn grant(&self, id: &str) -> Result<Option<GrantRow>, Error> {
        self.tx.grant(id)
    }
    fn insert_grant(&mut self, grant: &GrantRow, at: i64) -> Result<(), Error> {
        self.wrote = true;
        self.tx.insert_grant(grant, at)
    }
    fn add_uses(&mut self, id: &str, delta: i64) -> Result<(), Error> {
        self.wrote = true;
        self.tx.add_uses(id, delta)
    }
    fn account(&mut self, id: &str, spent: i64, reserved: i64, last_use: Option<i64>) -> Result<(), Error> {
        self.wrote = true;
        self.tx.account(id, spent, reserved, last_use)
    }
    fn action(&self, tenant: &str, key: &str) -> Result<Option<ActionRow>, Error> {
        self.tx.action(tenant, key)
    }
    fn insert_action(&mut self, action: &ActionRow) -> Result<(), Error> {
        self.wrote = true;
        self.tx.insert_action(action)
    }
    fn settle_action(&mut self, settle: &Settle<'_>) -> Result<(), Error> {
        self.wrote = true;
        self.tx.settle_action(settle)
    }
    fn open_actions(&self, limit: usize) -> Result<Vec<ActionRow>, Error> {
        self.tx.open_actions(limit)
    }
    fn size(&self) -> Result<u64, Error> {
        self.tx.size()
    }
    fn append(&mut self, receipt: &ReceiptRow, resource: &str, nodes: &[(u32, u64, Hash)]) -> Result<(), Error> {
        self.wrote = true;
        self.tx.append(receipt, resource, nodes)
    }
    fn receipts_about(&self, by: About<'_>, limit: usize) -> Result<Vec<String>, Error> {
        self.tx.receipts_about(by, limit)
    }
    fn receipt(&self, seq: u64) -> Result<Option<ReceiptRow>, Error> {
        self.tx.receipt(seq)
    }
    fn receipt_of(&self, tenant: &str, key: &str) -> Result<Option<ReceiptRow>, Error> {
        self.tx.receipt_of(tenant, key)
    }
    fn head(&self, size: u64) -> Result<Option<HeadRow>, Error> {
        self.tx.head(size)
    }
    fn latest_head(&self) -> Result<Option<HeadRow>, Error> {
        self.tx.latest_head()
    }
    fn insert_head(&mut self, head: &HeadRow) -> Result<(), Error> {
        self.wrote = true;
        self.tx.insert_head(head)
    }
    fn data_version(&mut self) -> Result<u64, Error> {
        self.tx.data_version()
    }
    fn savepoint(&mut self) -> Result<(), Error> {
        self.wrote = true;
        self.tx.savepoint()
    }
    fn release_savepoint(&mut self) -> Result<(), Error> {
        self.wrote = true;
        self.tx.release_savepoint()
    }
    fn rollback_to_savepoint(&mut self) -> Result<(), Error> {
        self.wrote = true;
        self.tx.rollback_to_savepoint()
    }
}

fn settle<'a>(tenant: &'a str, key: &'a str, state: ActionState, outcome: Option<&'a Hash>, at: i64) -> Settle<'a> {
    Settle { tenant, idempotency_key: key, state, outcome_hash: outcome, at }
}
