//! The recorder's store on one SQLite file: WAL, `synchronous=FULL` (a commit is on disk before it is
//! acknowledged), `BEGIN IMMEDIATE` for the one writer, and a schema that keeps the log's rules itself: receipts,
//! tree nodes and heads are append-only (triggers refuse updates and deletes), receipts are numbered without gaps,
//! and an action has at most one receipt (a UNIQUE constraint). docs/RECORDER.md §Schema.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use curbi::proof::merkle::{Hash, NodeStore, leaf_hash, node_hash};
use curbi::{Error, ErrorCode};
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row, params};

use crate::store::{
    About, ActionRow, ActionState, GrantKind, GrantRow, HeadRow, KeyRow, ReceiptRow, Settle, Storage, Tx,
};

/// The schema version this build reads and writes.
pub const SCHEMA_VERSION: &str = "2";

/// Tree nodes below this level are not stored: they are hashes of at most 8 receipts the receipts table already
/// has, computed when a proof needs them. Most appends then write no node row at all (one in 16 does).
pub const STORED_FROM_LEVEL: u32 = 4;

/// How long a writer waits for another process's write transaction before answering `busy`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS keys (
    kid TEXT PRIMARY KEY,
    x TEXT NOT NULL UNIQUE,
    not_before INTEGER NOT NULL,
    expires INTEGER CHECK (expires IS NULL OR expires > not_before)
) WITHOUT ROWID;
-- At most one active key (open window).
CREATE UNIQUE INDEX IF NOT EXISTS keys_one_active ON keys ((expires IS NULL)) WHERE expires IS NULL;
CREATE TABLE IF NOT EXISTS grants (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('grant', 'mandate')),
    document TEXT NOT NULL,
    used INTEGER NOT NULL DEFAULT 0 CHECK (used >= 0),
    spent INTEGER NOT NULL DEFAULT 0 CHECK (spent >= 0),
    reserved INTEGER NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    last_use INTEGER,
    created INTEGER NOT NULL
) WITHOUT ROWID;
-- A rowid table: its rows are large (the answer and the attestation), and receipts point at them by id.
CREATE TABLE IF NOT EXISTS actions (
    id INTEGER PRIMARY KEY,
    tenant TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_hash BLOB NOT NULL CHECK (length(request_hash) = 32),
    grant_id TEXT NOT NULL REFERENCES grants (id),
    state TEXT NOT NULL CHECK (state IN ('attested', 'held', 'done', 'failed', 'released')),
    reserved INTEGER CHECK (reserved IS NULL OR reserved >= 0),
    answer TEXT NOT NULL,
    attestation TEXT NOT NULL,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    outcome_hash BLOB CHECK (outcome_hash IS NULL OR length(outcome_hash) = 32),
    -- Schema 2: the conversation the caller attested it in, to hand its receipts out for checking replies.
    conversation TEXT CHECK (conversation IS NULL OR length(conversation) BETWEEN 1 AND 256),
    UNIQUE (tenant, idempotency_key)
);
CREATE INDEX IF NOT EXISTS actions_open ON actions (created) WHERE state IN ('attested', 'held');
CREATE TABLE IF NOT EXISTS receipts (
    seq INTEGER PRIMARY KEY CHECK (seq >= 0),
    -- One receipt per action, whatever the code above does.
    action INTEGER NOT NULL UNIQUE REFERENCES actions (id),
    status TEXT NOT NULL CHECK (status IN ('DONE', 'FAILED')),
    receipt TEXT NOT NULL,
    evidence BLOB NOT NULL,
    created INTEGER NOT NULL
);
-- Schema 2: what each receipt is about, to find the receipts of a subject or a conversation without reading the log.
CREATE TABLE IF NOT EXISTS receipt_subjects (
    seq INTEGER PRIMARY KEY REFERENCES receipts (seq),
    resource TEXT NOT NULL,
    conversation TEXT
);
CREATE INDEX IF NOT EXISTS receipt_subjects_resource ON receipt_subjects (resource, seq);
CREATE INDEX IF NOT EXISTS receipt_subjects_conversation ON receipt_subjects (conversation, seq)
    WHERE conversation IS NOT NULL;
CREATE TRIGGER IF NOT EXISTS receipt_subjects_no_update BEFORE UPDATE ON receipt_subjects
    BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS receipt_subjects_no_delete BEFORE DELETE ON receipt_subjects
    BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
CREATE TABLE IF NOT EXISTS nodes (
    level INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    hash BLOB NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS heads (
    size INTEGER PRIMARY KEY CHECK (size >= 0),
    root BLOB NOT NULL CHECK (length(root) = 32),
    note TEXT NOT NULL,
    signed_at INTEGER NOT NULL
);
CREATE TRIGGER IF NOT EXISTS receipts_in_order BEFORE INSERT ON receipts
    WHEN NEW.seq != coalesce((SELECT max(seq) FROM receipts), -1) + 1
    BEGIN SELECT RAISE(ABORT, 'receipts are numbered without gaps'); END;
CREATE TRIGGER IF NOT EXISTS receipts_no_update BEFORE UPDATE ON receipts
    BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS receipts_no_delete BEFORE DELETE ON receipts
    BEGIN SELECT RAISE(ABORT, 'the log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS nodes_no_update BEFORE UPDATE ON nodes
    BEGIN SELECT RAISE(ABORT, 'tree nodes are append-only'); END;
CREATE TRIGGER IF NOT EXISTS nodes_no_delete BEFORE DELETE ON nodes
    BEGIN SELECT RAISE(ABORT, 'tree nodes are append-only'); END;
CREATE TRIGGER IF NOT EXISTS heads_no_update BEFORE UPDATE ON heads
    BEGIN SELECT RAISE(ABORT, 'a signed head is never replaced'); END;
CREATE TRIGGER IF NOT EXISTS heads_no_delete BEFORE DELETE ON heads
    BEGIN SELECT RAISE(ABORT, 'a signed head is never replaced'); END;
CREATE TRIGGER IF NOT EXISTS actions_settled_stay BEFORE UPDATE ON actions
    WHEN OLD.state IN ('done', 'failed', 'released')
    BEGIN SELECT RAISE(ABORT, 'a settled action never changes'); END;
"#;

/// Schema 1 → 2: every receipt's resource, read from its signed payload, into `receipt_subjects` (conversations
/// were not recorded before schema 2). Runs once, in the opening transaction.
fn migrate_subjects(c: &Connection) -> Result<(), Error> {
    let mut read = c.prepare("SELECT seq, receipt FROM receipts ORDER BY seq").map_err(storage)?;
    let mut insert = c
        .prepare("INSERT INTO receipt_subjects (seq, resource, conversation) VALUES (?1, ?2, NULL)")
        .map_err(storage)?;
    let rows = read.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))).map_err(storage)?;
    for row in rows {
        let (seq, text) = row.map_err(storage)?;
        let receipt = curbi::proof::envelope::Envelope::parse(curbi::proof::envelope::Kind::Receipt, &text)
            .and_then(|e| e.receipt())
            .map_err(|e| Error::new(ErrorCode::Corrupt, "", format!("receipt {seq} does not read: {}", e.0)))?;
        insert.execute(params![seq, receipt.resource]).map_err(storage)?;
    }
    Ok(())
}

/// Reader connections kept open beside the writer.
const READERS: usize = 4;

/// The recorder's SQLite store: one connection for the writer and a few for readers (WAL lets them run beside it).
#[derive(Debug)]
pub struct SqliteStore {
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` and brings its schema up.
    pub fn open(path: &Path) -> Result<SqliteStore, Error> {
        let writer = connect(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)?;
        writer.execute_batch("PRAGMA journal_mode = WAL;").map_err(storage)?;
        let mode: String = writer.query_row("PRAGMA journal_mode", [], |r| r.get(0)).map_err(storage)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::new(
                ErrorCode::Storage,
                "",
                format!("the database cannot use WAL (journal mode {mode})"),
            ));
        }
        immediate(&writer, &mut |c| {
            // A schema 1 file gains the conversation column before the schema (and its new tables) is applied.
            let actions_exist: bool = c
                .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'actions'", [], |r| {
                    r.get::<_, i64>(0).map(|n| n > 0)
                })
                .map_err(storage)?;
            let has_conversation: bool = actions_exist
                && c.query_row(
                    "SELECT count(*) FROM pragma_table_info('actions') WHERE name = 'conversation'",
                    [],
                    |r| r.get::<_, i64>(0).map(|n| n > 0),
                )
                .map_err(storage)?;
            if actions_exist && !has_conversation {
                c.execute_batch(
                    "ALTER TABLE actions ADD COLUMN conversation TEXT \
                     CHECK (conversation IS NULL OR length(conversation) BETWEEN 1 AND 256);",
                )
                .map_err(storage)?;
            }
            c.execute_batch(SCHEMA).map_err(storage)?;
            let version: Option<String> = c
                .query_row("SELECT value FROM meta WHERE name = 'schema'", [], |r| r.get(0))
                .optional()
                .map_err(storage)?;
            match version.as_deref() {
                None => {
                    c.execute("INSERT INTO meta (name, value) VALUES ('schema', ?1)", [SCHEMA_VERSION])
                        .map_err(storage)?;
                }
                Some(SCHEMA_VERSION) => {}
                Some("1") => {
                    migrate_subjects(c)?;
                    c.execute("UPDATE meta SET value = ?1 WHERE name = 'schema'", [SCHEMA_VERSION]).map_err(storage)?;
                }
                Some(v) => {
                    return Err(Error::new(
                        ErrorCode::Corrupt,
                        "",
                        format!("the database has schema version {v}; this build reads {SCHEMA_VERSION}"),
                    ));
                }
            }
            Ok(())
        })?;
        let readers = (0..READERS)
            .map(|_| connect(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map(Mutex::new))
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(SqliteStore { writer: Mutex::new(writer), readers })
    }
}

fn connect(path: &Path, flags: OpenFlags) -> Result<Connection, Error> {
    let c = Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(storage)?;
    c.busy_timeout(BUSY_TIMEOUT).map_err(storage)?;
    // Every statement the store runs stays prepared.
    c.set_prepared_statement_cache_capacity(64);
    c.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA trusted_schema = OFF;")
        .map_err(storage)?;
    Ok(c)
}

/// Runs one statement without parameters, kept prepared (transaction control runs several times per group commit).
fn run(c: &Connection, sql: &str) -> Result<(), Error> {
    c.prepare_cached(sql).and_then(|mut st| st.execute([])).map(|_| ()).map_err(storage)
}

/// Runs `f` in a `BEGIN IMMEDIATE` transaction, committing on `Ok`.
fn immediate(c: &Connection, f: &mut dyn FnMut(&Connection) -> Result<(), Error>) -> Result<(), Error> {
    transaction(c, "BEGIN IMMEDIATE", f)
}

fn transaction(c: &Connection, begin: &str, f: &mut dyn FnMut(&Connection) -> Result<(), Error>) -> Result<(), Error> {
    run(c, begin)?;
    match f(c) {
        Ok(()) => match run(c, "COMMIT") {
            Ok(()) => Ok(()),
            Err(e) => {
                // A failed COMMIT may leave the transaction open; nothing of it was acknowledged.
                let _ = c.execute_batch("ROLLBACK");
                Err(e)
            }
        },
        Err(e) => {
            let _ = c.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

impl Storage for SqliteStore {
    fn write(&self, f: &mut dyn FnMut(&mut dyn Tx) -> Result<(), Error>) -> Result<(), Error> {
        let conn = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        immediate(&conn, &mut |c| f(&mut SqliteTx { c }))
    }

    fn read(&self, f: &mut dyn FnMut(&mut dyn Tx) -> Result<(), Error>) -> Result<(), Error> {
        // A free reader if there is one, else wait for the first.
        let conn = self
            .readers
            .iter()
            .find_map(|r| r.try_lock().ok())
            .unwrap_or_else(|| self.readers[0].lock().unwrap_or_else(|p| p.into_inner()));
        transaction(&conn, "BEGIN DEFERRED", &mut |c| f(&mut SqliteTx { c }))
    }
}

/// Maps a SQLite failure onto the recorder's codes: a lock held past the timeout is `busy`, a damaged or foreign
/// file is `corrupt`, a schema rule refused is `internal` (the code above should never have asked), the rest is
/// `storage` (I/O, disk full, read-only).
pub(crate) fn storage(e: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode as C;
    let code = match e.sqlite_error_code() {
        Some(C::DatabaseBusy | C::DatabaseLocked) => ErrorCode::Busy,
        Some(C::DatabaseCorrupt | C::NotADatabase) => ErrorCode::Corrupt,
        Some(C::ConstraintViolation) => ErrorCode::Internal,
        _ => ErrorCode::Storage,
    };
    Error::new(code, "", format!("database: {e}"))
}

struct SqliteTx<'c> {
    c: &'c Connection,
}

pub(crate) fn hash_of(bytes: Vec<u8>) -> Result<Hash, Error> {
    <Hash>::try_from(bytes.as_slice())
        .map_err(|_| Error::new(ErrorCode::Corrupt, "", format!("a stored hash is {} bytes, not 32", bytes.len())))
}

pub(crate) fn to_i64(v: u64) -> Result<i64, Error> {
    i64::try_from(v).map_err(|_| Error::new(ErrorCode::OutOfRange, "", format!("{v} is beyond the store's range")))
}

pub(crate) fn to_u64(v: i64) -> Result<u64, Error> {
    u64::try_from(v).map_err(|_| Error::new(ErrorCode::Corrupt, "", format!("a stored count is negative ({v})")))
}

const ACTION_COLUMNS: &str = "tenant, idempotency_key, request_hash, grant_id, state, answer, attestation, created, \
     updated, outcome_hash, reserved, conversation";

/// An action as read, before its state and hashes are checked: the row, its state text, its request hash and its
/// outcome hash.
type RawAction = (ActionRow, String, Vec<u8>, Option<Vec<u8>>);

fn action_row(r: &Row<'_>) -> rusqlite::Result<RawAction> {
    let state: String = r.get(4)?;
    Ok((
        ActionRow {
            tenant: r.get(0)?,
            idempotency_key: r.get(1)?,
            request_hash: [0; 32],
            grant: r.get(3)?,
            state: ActionState::Attested,
            reserved: r.get(10)?,
            answer: r.get(5)?,
            attestation: r.get(6)?,
            created: r.get(7)?,
            updated: r.get(8)?,
            outcome_hash: None,
            conversation: r.get(11)?,
        },
        state,
        r.get(2)?,
        r.get(9)?,
    ))
}

fn finish_action(raw: RawAction) -> Result<ActionRow, Error> {
    let (mut row, state, hash, outcome) = raw;
    row.state = ActionState::parse(&state)
        .ok_or_else(|| Error::new(ErrorCode::Corrupt, "", format!("unknown action state {state:?}")))?;
    row.request_hash = hash_of(hash)?;
    row.outcome_hash = outcome.map(hash_of).transpose()?;
    Ok(row)
}

const RECEIPT_QUERY: &str = "SELECT r.seq, a.tenant, a.idempotency_key, r.status, r.receipt, a.attestation, r.evidence, \
     r.created FROM receipts r JOIN actions a ON a.id = r.action";

fn receipt_row(r: &Row<'_>) -> rusqlite::Result<(i64, ReceiptRow)> {
    Ok((
        r.get(0)?,
        ReceiptRow {
            seq: 0,
            tenant: r.get(1)?,
            idempotency_key: r.get(2)?,
            status: r.get(3)?,
            receipt: r.get(4)?,
            attestation: r.get(5)?,
            evidence: r.get(6)?,
            created: r.get(7)?,
        },
    ))
}

fn finish_receipt(raw: (i64, ReceiptRow)) -> Result<ReceiptRow, Error> {
    let (seq, mut row) = raw;
    row.seq = to_u64(seq)?;
    Ok(row)
}

fn head_row(r: &Row<'_>) -> rusqlite::Result<(i64, Vec<u8>, String, i64)> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
}

fn finish_head(raw: (i64, Vec<u8>, String, i64)) -> Result<HeadRow, Error> {
    Ok(HeadRow { size: to_u64(raw.0)?, root: hash_of(raw.1)?, note: raw.2, signed_at: raw.3 })
}

impl NodeStore for SqliteTx<'_> {
    type Error = Error;

    fn node(&self, level: u32, index: u64) -> Result<Option<Hash>, Error> {
        if level < STORED_FROM_LEVEL {
            return self.low_node(level, index);
        }
        let mut st = self.c.prepare_cached("SELECT hash FROM nodes WHERE level = ?1 AND idx = ?2").map_err(storage)?;
        let h: Option<Vec<u8>> =
            st.query_row(params![level, to_i64(index)?], |r| r.get(0)).optional().map_err(storage)?;
        h.map(hash_of).transpose()
    }
}

impl SqliteTx<'_> {
    /// A subtree below the stored levels, hashed from its receipts (at most 2^(STORED_FROM_LEVEL-1) of them, read in
    /// one range scan); `None` when the log does not have all of them yet.
    fn low_node(&self, level: u32, index: u64) -> Result<Option<Hash>, Error> {
        let width = 1u64 << level;
        let first = index.checked_mul(width).ok_or_else(|| Error::new(ErrorCode::OutOfRange, "", "node index"))?;
        let mut st = self
            .c
            .prepare_cached("SELECT receipt FROM receipts WHERE seq >= ?1 AND seq < ?2 ORDER BY seq")
            .map_err(storage)?;
        let rows = st
            .query_map(params![to_i64(first)?, to_i64(first + width)?], |r| r.get::<_, String>(0))
            .map_err(storage)?;
        let mut leaves = Vec::with_capacity(width as usize);
        for r in rows {
            leaves.push(leaf_hash(r.map_err(storage)?.as_bytes()));
        }
        Ok(subtree_root(leaves, width))
    }
}

/// The root of a complete aligned subtree of `width` leaves from their hashes (pairwise up: RFC 9162's MTH);
/// `None` when the log does not have all of them yet.
pub(crate) fn subtree_root(mut leaves: Vec<Hash>, width: u64) -> Option<Hash> {
    if leaves.len() as u64 != width {
        return None;
    }
    while leaves.len() > 1 {
        leaves = leaves.chunks(2).map(|p| node_hash(&p[0], &p[1])).collect();
    }
    leaves.pop()
}

impl Tx for SqliteTx<'_> {
    fn meta(&self, name: &str) -> Result<Option<String>, Error> {
        let mut st = self.c.prepare_cached("SELECT value FROM meta WHERE name = ?1").map_err(storage)?;
        st.query_row([name], |r| r.get(0)).optional().map_err(storage)
    }

    fn set_meta(&mut self, name: &str, value: &str) -> Result<(), Error> {
        let mut st = self
            .c
            .prepare_cached(
                "INSERT INTO meta (name, value) VALUES (?1, ?2) ON CONFLICT (name) DO UPDATE SET value = ?2",
            )
            .map_err(storage)?;
        st.execute([name, value]).map(|_| ()).map_err(storage)
    }

    fn keys(&self) -> Result<Vec<KeyRow>, Error> {
        let mut st = self
            .c
            .prepare_cached("SELECT kid, x, not_before, expires FROM keys ORDER BY not_before, kid")
            .map_err(storage)?;
        let rows = st
            .query_map([], |r| Ok(KeyRow { kid: r.get(0)?, x: r.get(1)?, not_before: r.get(2)?, expires: r.get(3)? }))
            .map_err(storage)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(storage)
    }

    fn insert_key(&mut self, k: &KeyRow) -> Result<(), Error> {
        self.c
            .execute(
                "INSERT INTO keys (kid, x, not_before, expires) VALUES (?1, ?2, ?3, ?4)",
                params![k.kid, k.x, k.not_before, k.expires],
            )
            .map(|_| ())
            .map_err(storage)
    }

    fn close_key(&mut self, kid: &str, expires: i64) -> Result<(), Error> {
        self.c
            .execute("UPDATE keys SET expires = ?2 WHERE kid = ?1 AND expires IS NULL", params![kid, expires])
            .map(|_| ())
            .map_err(storage)
    }

    fn grant(&self, id: &str) -> Result<Option<GrantRow>, Error> {
        let mut st = self
            .c
            .prepare_cached("SELECT id, kind, document, used, spent, reserved, last_use FROM grants WHERE id = ?1")
            .map_err(storage)?;
        type Raw = (String, String, String, i64, i64, i64, Option<i64>);
        let raw: Option<Raw> = st
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)))
            .optional()
            .map_err(storage)?;
        raw.map(|(id, kind, document, used, spent, reserved, last_use)| {
            let kind = match kind.as_str() {
                "grant" => GrantKind::Grant,
                "mandate" => GrantKind::Mandate,
                other => return Err(Error::new(ErrorCode::Corrupt, "", format!("unknown grant kind {other:?}"))),
            };
            Ok(GrantRow { id, kind, document, used: to_u64(used)?, spent, reserved, last_use })
        })
        .transpose()
    }

    fn insert_grant(&mut self, g: &GrantRow, at: i64) -> Result<(), Error> {
        self.c
            .execute(
                "INSERT INTO grants (id, kind, document, used, spent, reserved, last_use, created) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![g.id, g.kind.as_str(), g.document, to_i64(g.used)?, g.spent, g.reserved, g.last_use, at],
            )
            .map(|_| ())
            .map_err(storage)
    }

    fn add_uses(&mut self, id: &str, delta: i64) -> Result<(), Error> {
        let mut st = self.c.prepare_cached("UPDATE grants SET used = used + ?2 WHERE id = ?1").map_err(storage)?;
        st.execute(params![id, delta]).map(|_| ()).map_err(storage)
    }

    fn account(&mut self, id: &str, spent: i64, reserved: i64, last_use: Option<i64>) -> Result<(), Error> {
        let mut st = self
            .c
            .prepare_cached(
                "UPDATE grants SET spent = spent + ?2, reserved = reserved + ?3, last_use = coalesce(?4, last_use) \
                 WHERE id = ?1",
            )
            .map_err(storage)?;
        st.execute(params![id, spent, reserved, last_use]).map(|_| ()).map_err(storage)
    }

    fn action(&self, tenant: &str, key: &str) -> Result<Option<ActionRow>, Error> {
        let sql = format!("SELECT {ACTION_COLUMNS} FROM actions WHERE tenant = ?1 AND idempotency_key = ?2");
        let mut st = self.c.prepare_cached(&sql).map_err(storage)?;
        st.query_row([tenant, key], action_row).optional().map_err(storage)?.map(finish_action).transpose()
    }

    fn insert_action(&mut self, a: &ActionRow) -> Result<(), Error> {
        let sql = format!(
            "INSERT INTO actions ({ACTION_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
        );
        let mut st = self.c.prepare_cached(&sql).map_err(storage)?;
        st.execute(params![
            a.tenant,
            a.idempotency_key,
            a.request_hash.as_slice(),
            a.grant,
            a.state.as_str(),
            a.answer,
            a.attestation,
            a.created,
            a.updated,
            a.outcome_hash.as_ref().map(|h| h.as_slice()),
            a.reserved,
            a.conversation,
        ])
        .map(|_| ())
        .map_err(storage)
    }

    fn settle_action(&mut self, s: &Settle<'_>) -> Result<(), Error> {
        let mut st = self
            .c
            .prepare_cached(
                "UPDATE actions SET state = ?3, outcome_hash = ?4, updated = ?5 WHERE tenant = ?1 AND idempotency_key = ?2",
            )
            .map_err(storage)?;
        st.execute(params![s.tenant, s.idempotency_key, s.state.as_str(), s.outcome_hash.map(|h| h.as_slice()), s.at])
            .map(|_| ())
            .map_err(storage)
    }

    fn open_actions(&self, limit: usize) -> Result<Vec<ActionRow>, Error> {
        let sql = format!(
            "SELECT {ACTION_COLUMNS} FROM actions WHERE state IN ('attested', 'held') ORDER BY created, tenant, \
             idempotency_key LIMIT ?1"
        );
        let mut st = self.c.prepare_cached(&sql).map_err(storage)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = st.query_map([limit], action_row).map_err(storage)?;
        rows.map(|r| r.map_err(storage).and_then(finish_action)).collect()
    }

    fn size(&self) -> Result<u64, Error> {
        let mut st = self.c.prepare_cached("SELECT coalesce(max(seq), -1) + 1 FROM receipts").map_err(storage)?;
        to_u64(st.query_row([], |r| r.get(0)).map_err(storage)?)
    }

    fn append(&mut self, r: &ReceiptRow, resource: &str, nodes: &[(u32, u64, Hash)]) -> Result<(), Error> {
        let mut st = self
            .c
            .prepare_cached(
                "INSERT INTO receipts (seq, action, status, receipt, evidence, created) \
                 SELECT ?1, id, ?4, ?5, ?6, ?7 FROM actions WHERE tenant = ?2 AND idempotency_key = ?3",
            )
            .map_err(storage)?;
        let inserted = st
            .execute(params![to_i64(r.seq)?, r.tenant, r.idempotency_key, r.status, r.receipt, r.evidence, r.created])
            .map_err(storage)?;
        if inserted != 1 {
            return Err(Error::new(ErrorCode::Internal, "", "a receipt for an action that is not recorded"));
        }
        let mut st = self
            .c
            .prepare_cached(
                // One row of VALUES (not INSERT … SELECT): SQLite then needs no statement journal for it.
                "INSERT INTO receipt_subjects (seq, resource, conversation) \
                 VALUES (?1, ?2, (SELECT conversation FROM actions WHERE tenant = ?3 AND idempotency_key = ?4))",
            )
            .map_err(storage)?;
        st.execute(params![to_i64(r.seq)?, resource, r.tenant, r.idempotency_key]).map_err(storage)?;
        let mut st =
            self.c.prepare_cached("INSERT INTO nodes (level, idx, hash) VALUES (?1, ?2, ?3)").map_err(storage)?;
        for (level, idx, hash) in nodes.iter().filter(|(level, _, _)| *level >= STORED_FROM_LEVEL) {
            st.execute(params![level, to_i64(*idx)?, hash.as_slice()]).map_err(storage)?;
        }
        Ok(())
    }

    fn receipts_about(&self, by: About<'_>, limit: usize) -> Result<Vec<String>, Error> {
        let (column, value) = match by {
            About::Subject(s) => ("resource", s),
            About::Conversation(c) => ("conversation", c),
        };
        // The newest `limit`, then in log order.
        let sql = format!(
            "SELECT receipt FROM (SELECT r.seq, r.receipt FROM receipt_subjects s JOIN receipts r ON r.seq = s.seq \
             WHERE s.{column} = ?1 ORDER BY s.seq DESC LIMIT ?2) ORDER BY seq"
        );
        let mut st = self.c.prepare_cached(&sql).map_err(storage)?;
        let rows = st.query_map(params![value, to_i64(limit as u64)?], |r| r.get::<_, String>(0)).map_err(storage)?;
        rows.collect::<rusqlite::Result<Vec<String>>>().map_err(storage)
    }

    fn receipt(&self, seq: u64) -> Result<Option<ReceiptRow>, Error> {
        let sql = format!("{RECEIPT_QUERY} WHERE r.seq = ?1");
        let mut st = self.c.prepare_cached(&sql).map_err(storage)?;
        st.query_row([to_i64(seq)?], receipt_row).optional().map_err(storage)?.map(finish_receipt).transpose()
    }

    fn receipt_of(&self, tenant: &str, key: &str) -> Result<Option<ReceiptRow>, Error> {
        let sql = format!("{RECEIPT_QUERY} WHERE a.tenant = ?1 AND a.idempotency_key = ?2");
        let mut st = self.c.prepare_cached(&sql).map_err(storage)?;
        st.query_row([tenant, key], receipt_row).optional().map_err(storage)?.map(finish_receipt).transpose()
    }

    fn head(&self, size: u64) -> Result<Option<HeadRow>, Error> {
        let mut st =
            self.c.prepare_cached("SELECT size, root, note, signed_at FROM heads WHERE size = ?1").map_err(storage)?;
        st.query_row([to_i64(size)?], head_row).optional().map_err(storage)?.map(finish_head).transpose()
    }

    fn latest_head(&self) -> Result<Option<HeadRow>, Error> {
        let mut st = self
            .c
            .prepare_cached("SELECT size, root, note, signed_at FROM heads ORDER BY size DESC LIMIT 1")
            .map_err(storage)?;
        st.query_row([], head_row).optional().map_err(storage)?.map(finish_head).transpose()
    }

    fn insert_head(&mut self, h: &HeadRow) -> Result<(), Error> {
        self.c
            .execute(
                "INSERT INTO heads (size, root, note, signed_at) VALUES (?1, ?2, ?3, ?4)",
                params![to_i64(h.size)?, h.root.as_slice(), h.note, h.signed_at],
            )
            .map(|_| ())
            .map_err(storage)
    }

    fn data_version(&mut self) -> Result<u64, Error> {
        let mut st = self.c.prepare_cached("PRAGMA data_version").map_err(storage)?;
        to_u64(st.query_row([], |r| r.get(0)).map_err(storage)?)
    }

    fn savepoint(&mut self) -> Result<(), Error> {
        run(self.c, "SAVEPOINT call")
    }

    fn release_savepoint(&mut self) -> Result<(), Error> {
        run(self.c, "RELEASE call")
    }

    fn rollback_to_savepoint(&mut self) -> Result<(), Error> {
        self.c.execute_batch("ROLLBACK TO call; RELEASE call").map_err(storage)
    }
}
