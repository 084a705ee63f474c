//! The storage the recorder needs, as a small trait: one write transaction at a time (with savepoints, so that a
//! group of calls commits together and a failed call leaves nothing), read transactions beside it, and typed rows.
//! [`crate::sqlite::SqliteStore`] implements it on one SQLite file, `crate::postgres::PostgresStore` (feature
//! `postgres`) on a PostgreSQL database shared by several processes (docs/RECORDER.md).

use std::fmt;

use curbi::Error;
use curbi::proof::merkle::{Hash, NodeStore};

/// A signing key the log has used: its window is `[not_before, expires)`, `expires` open while it is active.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRow {
    pub kid: String,
    /// The public key, unpadded base64url (the JWK `x`).
    pub x: String,
    pub not_before: i64,
    pub expires: Option<i64>,
}

/// What a registered authority is: an action grant, or a purchase mandate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantKind {
    Grant,
    Mandate,
}

impl GrantKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GrantKind::Grant => "grant",
            GrantKind::Mandate => "mandate",
        }
    }
}

/// A grant or mandate as registered: its document (without the ledger members: the recorder keeps those) and the
/// ledger the recorder keeps for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantRow {
    pub id: String,
    pub kind: GrantKind,
    pub document: String,
    /// Grants: actions attested and not released. Mandates: purchases completed (DONE).
    pub used: u64,
    /// Mandates: minor units settled (DONE).
    pub spent: i64,
    /// Mandates: minor units attested and not yet settled.
    pub reserved: i64,
    /// Mandates: when the last purchase completed.
    pub last_use: Option<i64>,
}

/// Where one action (a tenant and idempotency key) stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionState {
    /// Permission issued; the outcome is not yet known.
    Attested,
    /// The provider's outcome was UNKNOWN: held until reconciled. Nothing is in the log.
    Held,
    /// A DONE receipt is in the log.
    Done,
    /// A FAILED receipt is in the log.
    Failed,
    /// Reconciled as not performed: no receipt, the reservation returned.
    Released,
}

impl ActionState {
    pub fn as_str(self) -> &'static str {
        match self {
            ActionState::Attested => "attested",
            ActionState::Held => "held",
            ActionState::Done => "done",
            ActionState::Failed => "failed",
            ActionState::Released => "released",
        }
    }

    pub fn parse(s: &str) -> Option<ActionState> {
        Some(match s {
            "attested" => ActionState::Attested,
            "held" => ActionState::Held,
            "done" => ActionState::Done,
            "failed" => ActionState::Failed,
            "released" => ActionState::Released,
            _ => return None,
        })
    }
}

/// One action, keyed by tenant and idempotency key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRow {
    pub tenant: String,
    pub idempotency_key: String,
    /// SHA-256 of the attest request's canonical fields: the same key with another body is a conflict.
    pub request_hash: Hash,
    pub grant: String,
    pub state: ActionState,
    /// Mandate purchases: the amount reserved against the mandate's budget until the action settles.
    pub reserved: Option<i64>,
    /// The attest answer exactly as first returned (replayed byte for byte).
    pub answer: String,
    /// The compact attestation.
    pub attestation: String,
    pub created: i64,
    pub updated: i64,
    /// SHA-256 of the settled outcome (status and evidence), for telling a replay from a conflict.
    pub outcome_hash: Option<Hash>,
    /// The conversation the action was attested in, when the caller named one.
    pub conversation: Option<String>,
}

/// Which receipts to hand out: those about a subject (the attested resource) or from a conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum About<'a> {
    Subject(&'a str),
    Conversation(&'a str),
}

/// One log entry: a receipt at its sequence number (its leaf index), with what it completes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReceiptRow {
    pub seq: u64,
    pub tenant: String,
    pub idempotency_key: String,
    /// `DONE` or `FAILED`.
    pub status: String,
    pub receipt: String,
    pub attestation: String,
    /// The provider's answer, the exact bytes received (checked to be UTF-8 JSON before it was stored; written out
    /// as text).
    #[serde(serialize_with = "as_text")]
    pub evidence: Vec<u8>,
    pub created: i64,
}

/// A signed head: one per size, never re-signed with another root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadRow {
    pub size: u64,
    pub root: Hash,
    pub note: String,
    pub signed_at: i64,
}

/// One transaction. Reads see the transaction's snapshot; writes are applied at commit or not at all.
/// An action's new state, with the outcome's hash and the time (`Store::settle_action`).
#[derive(Debug, Clone, Copy)]
pub struct Settle<'a> {
    pub tenant: &'a str,
    pub idempotency_key: &'a str,
    pub state: ActionState,
    pub outcome_hash: Option<&'a Hash>,
    pub at: i64,
}

pub trait Tx: NodeStore<Error = Error> {
    fn meta(&self, name: &str) -> Result<Option<String>, Error>;
    fn set_meta(&mut self, name: &str, value: &str) -> Result<(), Error>;

    fn keys(&self) -> Result<Vec<KeyRow>, Error>;
    fn insert_key(&mut self, key: &KeyRow) -> Result<(), Error>;
    fn close_key(&mut self, kid: &str, expires: i64) -> Result<(), Error>;

    fn grant(&self, id: &str) -> Result<Option<GrantRow>, Error>;
    fn insert_grant(&mut self, grant: &GrantRow, at: i64) -> Result<(), Error>;
    fn add_uses(&mut self, id: &str, delta: i64) -> Result<(), Error>;
    /// Moves a mandate's ledger: `spent` and `reserved` by their deltas, and the last use when given.
    fn account(&mut self, id: &str, spent: i64, reserved: i64, last_use: Option<i64>) -> Result<(), Error>;

    fn action(&self, tenant: &str, idempotency_key: &str) -> Result<Option<ActionRow>, Error>;
    fn insert_action(&mut self, action: &ActionRow) -> Result<(), Error>;
    fn settle_action(&mut self, settle: &Settle<'_>) -> Result<(), Error>;
    /// Actions attested or held (not settled), oldest first, at most `limit`.
    fn open_actions(&self, limit: usize) -> Result<Vec<ActionRow>, Error>;

    /// The number of receipts in the log.
    fn size(&self) -> Result<u64, Error>;
    /// Appends `receipt` at `receipt.seq` (the current size) with the tree nodes it completes.
    /// Appends a receipt about `resource` (its action's conversation is recorded with it).
    fn append(&mut self, receipt: &ReceiptRow, resource: &str, nodes: &[(u32, u64, Hash)]) -> Result<(), Error>;
    /// The newest `limit` receipts about a subject or from a conversation, in log order.
    fn receipts_about(&self, by: About<'_>, limit: usize) -> Result<Vec<String>, Error>;
    fn receipt(&self, seq: u64) -> Result<Option<ReceiptRow>, Error>;
    fn receipt_of(&self, tenant: &str, idempotency_key: &str) -> Result<Option<ReceiptRow>, Error>;

    fn head(&self, size: u64) -> Result<Option<HeadRow>, Error>;
    fn latest_head(&self) -> Result<Option<HeadRow>, Error>;
    fn insert_head(&mut self, head: &HeadRow) -> Result<(), Error>;

    /// A number that changes when another connection commits (SQLite's `PRAGMA data_version`): while it stays
    /// the same, what the caller cached from earlier transactions is still what is stored.
    fn data_version(&mut self) -> Result<u64, Error>;

    /// Marks a point that [`Tx::rollback_to_savepoint`] returns to (one level).
    fn savepoint(&mut self) -> Result<(), Error>;
    fn release_savepoint(&mut self) -> Result<(), Error>;
    fn rollback_to_savepoint(&mut self) -> Result<(), Error>;
}

/// Opens transactions. `write` runs `f` in the one write transaction and commits when it returns `Ok` (durably:
/// the commit is on disk before `write` returns), rolls back otherwise; `read` runs `f` on a snapshot.
pub trait Storage: Send + Sync + fmt::Debug {
    fn write(&self, f: &mut dyn FnMut(&mut dyn Tx) -> Result<(), Error>) -> Result<(), Error>;
    fn read(&self, f: &mut dyn FnMut(&mut dyn Tx) -> Result<(), Error>) -> Result<(), Error>;
}

/// Is `path` a PostgreSQL connection string: a `postgres://` or `postgresql://` URL, or libpq's `key=value` form
/// with only options tokio-postgres knows (so a file name such as `a=b.db` stays a SQLite file)?
pub fn is_postgres_url(path: &str) -> bool {
    path.starts_with("postgres://") || path.starts_with("postgresql://") || crate::conninfo::is_key_value(path)
}

/// The connection string with its credentials replaced by `***`, read as tokio-postgres reads it (module
/// `conninfo`): what errors and logs show.
pub fn redact_url(url: &str) -> String {
    crate::conninfo::redact(url)
}

fn as_text<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(bytes))
}
