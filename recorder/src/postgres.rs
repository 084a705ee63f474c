//! The recorder's store on PostgreSQL (feature `postgres`), for several recorder processes on one or many hosts
//! sharing one log (docs/RECORDER.md §Deployment on PostgreSQL). The schema is the SQLite store's, version 2, with
//! the same rules kept by the database itself: receipts, tree nodes and heads are append-only (triggers refuse
//! updates, deletes and truncation), receipts are numbered without gaps, a head is keyed by its size, an action is
//! keyed by its tenant and idempotency key and has at most one receipt (PRIMARY KEY and UNIQUE constraints).
//!
//! One sequencer at a time: every write transaction first takes the transaction-level advisory lock
//! [`SEQUENCER_LOCK`] (`pg_advisory_xact_lock`), so exactly one process appends at a time across every host; the
//! lock goes with the transaction, so a process that dies (its connection closes) or hangs inside one
//! (`idle_in_transaction_session_timeout`) hands it on. Every write transaction bumps a counter row, so that each
//! process sees when another one committed and reloads the log's edge it caches. A commit returns once PostgreSQL
//! has made it durable (`synchronous_commit` may not be `off`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use curbi::proof::merkle::{Hash, NodeStore, leaf_hash};
use curbi::{Error, ErrorCode};
use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, SimpleQueryMessage, Statement};

use crate::sqlite::{SCHEMA_VERSION, STORED_FROM_LEVEL, hash_of, subtree_root, to_i64, to_u64};
use crate::store::{
    About, ActionRow, ActionState, GrantKind, GrantRow, HeadRow, KeyRow, ReceiptRow, Settle, Storage, Tx,
    redact_url as redact,
};

/// The key of the advisory lock every write transaction takes (`pg_advisory_xact_lock(7166482846383711079)`,
/// the ASCII of `curbi-lg`). Advisory locks are per database: two logs in two schemas of one database share it
/// (they take turns; nothing else follows).
pub const SEQUENCER_LOCK: i64 = 0x6375_7262_692d_6c67;

/// How long a writer waits for the sequencer lock before answering `busy` (`lock_timeout`).
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(15);

/// How long a transaction may sit idle before PostgreSQL ends its session and so releases the lock
/// (`idle_in_transaction_session_timeout`): the bound on a hung sequencer. Shorter than [`LOCK_TIMEOUT`], so a
/// waiting writer outlasts a hung one.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one statement may run (`statement_timeout`; the lock wait has its own timeout).
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(30);

/// Seconds to connect before giving up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Reader connections, opened when first needed.
const READERS: usize = 4;

const SCHEMA: &str = r#"
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
-- Bumped by every write transaction: how a process sees that another one committed.
CREATE TABLE commits (one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one), n BIGINT NOT NULL);
INSERT INTO commits (one, n) VALUES (TRUE, 0);
CREATE TABLE keys (
    kid TEXT PRIMARY KEY,
    x TEXT NOT NULL UNIQUE,
    not_before BIGINT NOT NULL,
    expires BIGINT CHECK (expires IS NULL OR expires > not_before)
);
-- At most one active key (open window).
CREATE UNIQUE INDEX keys_one_active ON keys ((expires IS NULL)) WHERE expires IS NULL;
CREATE TABLE grants (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('grant', 'mandate')),
    document TEXT NOT NULL,
    used BIGINT NOT NULL DEFAULT 0 CHECK (used >= 0),
    spent BIGINT NOT NULL DEFAULT 0 CHECK (spent >= 0),
    reserved BIGINT NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    last_use BIGINT,
    created BIGINT NOT NULL
);
CREATE TABLE actions (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_hash BYTEA NOT NULL CHECK (octet_length(request_hash) = 32),
    grant_id TEXT NOT NULL REFERENCES grants (id),
    state TEXT NOT NULL CHECK (state IN ('attested', 'held', 'done', 'failed', 'released')),
    reserved BIGINT CHECK (reserved IS NULL OR reserved >= 0),
    answer TEXT NOT NULL,
    attestation TEXT NOT NULL,
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL,
    outcome_hash BYTEA CHECK (outcome_hash IS NULL OR octet_length(outcome_hash) = 32),
    conversation TEXT CHECK (conversation IS NULL OR length(conversation) BETWEEN 1 AND 256),
    -- Idempotency: one action per tenant and key, whatever the code above does.
    UNIQUE (tenant, idempotency_key)
);
CREATE INDEX actions_open ON actions (created) WHERE state IN ('attested', 'held');
CREATE TABLE receipts (
    seq BIGINT PRIMARY KEY CHECK (seq >= 0),
    -- One receipt per action, whatever the code above does.
    action BIGINT NOT NULL UNIQUE REFERENCES actions (id),
    status TEXT NOT NULL CHECK (status IN ('DONE', 'FAILED')),
    receipt TEXT NOT NULL,
    evidence BYTEA NOT NULL,
    created BIGINT NOT NULL
);
CREATE TABLE receipt_subjects (
    seq BIGINT PRIMARY KEY REFERENCES receipts (seq),
    resource TEXT NOT NULL,
    conversation TEXT
);
CREATE INDEX receipt_subjects_resource ON receipt_subjects (resource, seq);
CREATE INDEX receipt_subjects_conversation ON receipt_subjects (conversation, seq) WHERE conversation IS NOT NULL;
CREATE TABLE nodes (
    level BIGINT NOT NULL,
    idx BIGINT NOT NULL,
    hash BYTEA NOT NULL CHECK (octet_length(hash) = 32),
    PRIMARY KEY (level, idx)
);
-- Keyed by size: a second root for a signed size is a primary key violation.
CREATE TABLE heads (
    size BIGINT PRIMARY KEY CHECK (size >= 0),
    root BYTEA NOT NULL CHECK (octet_length(root) = 32),
    note TEXT NOT NULL,
    signed_at BIGINT NOT NULL
);
CREATE FUNCTION curbi_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0];
END $$;
CREATE FUNCTION curbi_receipts_in_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.seq <> coalesce((SELECT max(seq) FROM receipts), -1) + 1 THEN
        RAISE EXCEPTION 'receipts are numbered without gaps';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER receipts_in_order BEFORE INSERT ON receipts FOR EACH ROW EXECUTE FUNCTION curbi_receipts_in_order();
CREATE TRIGGER receipts_append_only BEFORE UPDATE OR DELETE ON receipts
    FOR EACH ROW EXECUTE FUNCTION curbi_refuse('the log is append-only');
CREATE TRIGGER receipts_no_truncate BEFORE TRUNCATE ON receipts
    FOR EACH STATEMENT EXECUTE FUNCTION curbi_refuse('the log is append-only');
CREATE TRIGGER receipt_subjects_append_only BEFORE UPDATE OR DELETE ON receipt_subjects
    FOR EACH ROW EXECUTE FUNCTION curbi_refuse('the log is append-only');
CREATE TRIGGER receipt_subjects_no_truncate BEFORE TRUNCATE ON receipt_subjects
    FOR EACH STATEMENT EXECUTE FUNCTION curbi_refuse('the log is append-only');
CREATE TRIGGER nodes_append_only BEFORE UPDATE OR DELETE ON nodes
    FOR EACH ROW EXECUTE FUNCTION curbi_refuse('tree nodes are append-only');
CREATE TRIGGER nodes_no_truncate BEFORE TRUNCATE ON nodes
    FOR EACH STATEMENT EXECUTE FUNCTION curbi_refuse('tree nodes are append-only');
CREATE TRIGGER heads_append_only BEFORE UPDATE OR DELETE ON heads
    FOR EACH ROW EXECUTE FUNCTION curbi_refuse('a signed head is never replaced');
CREATE TRIGGER heads_no_truncate BEFORE TRUNCATE ON heads
    FOR EACH STATEMENT EXECUTE FUNCTION curbi_refuse('a signed head is never replaced');
CREATE TRIGGER actions_settled_stay BEFORE UPDATE ON actions
    FOR EACH ROW WHEN (OLD.state IN ('done', 'failed', 'released'))
    EXECUTE FUNCTION curbi_refuse('a settled action never changes');
"#;

/// One connection and the statements prepared on it.
struct Conn {
    client: Client,
    statements: HashMap<String, Statement>,
    /// A transaction may still be open on it (BEGIN sent, neither COMMIT nor ROLLBACK answered): never reused, so a
    /// transaction left behind by a failure or a panic is rolled back by the server when the connection closes.
    open: bool,
}

impl Conn {
    fn begin(&mut self, sql: &str) -> Result<Vec<SimpleQueryMessage>, postgres::Error> {
        self.open = true;
        self.client.simple_query(sql)
    }

    fn rollback(&mut self) {
        if self.client.batch_execute("ROLLBACK").is_ok() {
            self.open = false;
        }
    }
}

/// What tells this process's commits from the others': the counter its last commit left, and the number
/// [`Tx::data_version`] answers (moved whenever the counter is not the one our last commit left).
#[derive(Debug, Default)]
struct Version {
    own: Option<i64>,
    generation: u64,
}

impl Version {
    fn observe(&mut self, counter: i64) -> u64 {
        if self.own != Some(counter) {
            self.generation += 1;
            self.own = Some(counter);
        }
        self.generation
    }
}

/// The recorder's PostgreSQL store: a writer connection and a few readers, each reconnected when lost.
pub struct PostgresStore {
    config: postgres::Config,
    /// The URL without its password.
    shown: String,
    writer: Mutex<Option<Conn>>,
    readers: Vec<Mutex<Option<Conn>>>,
    version: Mutex<Version>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore").field("url", &self.shown).finish_non_exhaustive()
    }
}

fn ms(d: Duration) -> u128 {
    d.as_millis()
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://` or `postgresql://`, libpq's URL form) and creates the
    /// schema in it when it has none. The URL's password is never shown in an error.
    pub fn open(url: &str) -> Result<PostgresStore, Error> {
        let shown = redact(url);
        let mut config: postgres::Config = url.parse().map_err(|e: postgres::Error| {
            // The parser's message names the bad option, never its value.
            Error::new(ErrorCode::InvalidValue, "/path", format!("{shown} is not a PostgreSQL URL: {e}"))
        })?;
        // The recorder's session settings, before the URL's own (the last `-c` of a name wins).
        let ours = format!(
            "-c lock_timeout={}ms -c idle_in_transaction_session_timeout={}ms -c statement_timeout={}ms",
            ms(LOCK_TIMEOUT),
            ms(IDLE_TIMEOUT),
            ms(STATEMENT_TIMEOUT)
        );
        let options = match config.get_options() {
            Some(theirs) => format!("{ours} {theirs}"),
            None => ours,
        };
        config.options(&options);
        if config.get_application_name().is_none() {
            config.application_name("curbi-recorder");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let store = PostgresStore {
            config,
            shown,
            writer: Mutex::new(None),
            readers: (0..READERS).map(|_| Mutex::new(None)).collect(),
            version: Mutex::new(Version::default()),
        };
        let mut guard = store.writer.lock().unwrap_or_else(|p| p.into_inner());
        let conn = store.connected(&mut guard)?;
        let outcome = store.schema(conn);
        store.keep_if_alive(&mut guard);
        drop(guard);
        outcome?;
        Ok(store)
    }

    /// The URL, without its password.
    pub fn url(&self) -> &str {
        &self.shown
    }

    fn connect(&self) -> Result<Conn, Error> {
        let mut client = self.config.connect(NoTls).map_err(|e| self.lost(&e))?;
        let sync = client.simple_query("SHOW synchronous_commit").map_err(|e| self.lost(&e))?;
        let value = sync.iter().find_map(|m| match m {
            SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
            _ => None,
        });
        if value.as_deref() == Some("off") {
            return Err(Error::new(
                ErrorCode::Storage,
                "/path",
                format!(
                    "{}: synchronous_commit is off, so a commit could be lost after it was acknowledged",
                    self.shown
                ),
            ));
        }
        Ok(Conn { client, statements: HashMap::new(), open: false })
    }

    fn connected<'g>(&self, slot: &'g mut Option<Conn>) -> Result<&'g mut Conn, Error> {
        if slot.as_ref().is_some_and(|c| c.open || c.client.is_closed()) {
            *slot = None;
        }
        if slot.is_none() {
            *slot = Some(self.connect()?);
        }
        slot.as_mut().ok_or_else(|| Error::new(ErrorCode::Internal, "", "no connection"))
    }

    /// Drops a connection that was lost or left inside a transaction, so that the next call reconnects.
    fn keep_if_alive(&self, slot: &mut Option<Conn>) {
        if slot.as_ref().is_some_and(|c| c.open || c.client.is_closed()) {
            *slot = None;
        }
    }

    /// A failure while connecting or talking to the server, with the URL (without its password).
    fn lost(&self, e: &postgres::Error) -> Error {
        let mut error = pg(e);
        error.message = format!("{}: {}", self.shown, error.message);
        error
    }

    /// Creates the schema, or checks its version, under the sequencer lock (several processes may open at once).
    fn schema(&self, conn: &mut Conn) -> Result<(), Error> {
        let lost = |e: postgres::Error| self.lost(&e);
        conn.begin(&format!("BEGIN; SELECT pg_advisory_xact_lock({SEQUENCER_LOCK})")).map_err(lost)?;
        let result = (|| {
            let exists: bool = conn
                .client
                .query_one("SELECT to_regclass('meta') IS NOT NULL", &[])
                .and_then(|r| r.try_get(0))
                .map_err(lost)?;
            if !exists {
                conn.client.batch_execute(SCHEMA).map_err(lost)?;
                conn.client
                    .execute("INSERT INTO meta (name, value) VALUES ('schema', $1)", &[&SCHEMA_VERSION])
                    .map_err(lost)?;
            }
            let version: Option<String> = conn
                .client
                .query_opt("SELECT value FROM meta WHERE name = 'schema'", &[])
                .map_err(lost)?
                .map(|r| r.try_get(0))
                .transpose()
                .map_err(lost)?;
            match version.as_deref() {
                Some(SCHEMA_VERSION) => Ok(()),
                v => Err(Error::new(
                    ErrorCode::Corrupt,
                    "",
                    format!("the database has schema version {v:?}; this build reads {SCHEMA_VERSION}"),
                )),
            }
        })();
        finish(conn, result, &lost)
    }
}

/// Commits on `Ok`, rolls back otherwise.
fn finish(conn: &mut Conn, result: Result<(), Error>, lost: &dyn Fn(postgres::Error) -> Error) -> Result<(), Error> {
    match result {
        Ok(()) => match conn.client.batch_execute("COMMIT") {
            Ok(()) => {
                conn.open = false;
                Ok(())
            }
            Err(e) => {
                // A failed COMMIT (or one whose answer was lost) was not acknowledged; whether it took effect is
                // read again by the next transaction (the commit counter moves on either way).
                conn.rollback();
                Err(lost(e))
            }
        },
        Err(e) => {
            conn.rollback();
            Err(e)
        }
    }
}

impl Storage for PostgresStore {
    fn write(&self, f: &mut dyn FnMut(&mut dyn Tx) -> Result<(), Error>) -> Result<(), Error> {
        let mut guard = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let conn = self.connected(&mut guard)?;
        let lost = |e: postgres::Error| self.lost(&e);
        // One round trip: the transaction, the sequencer lock, the counter.
        let begun = conn.begin(&format!(
            "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock({SEQUENCER_LOCK}); \
             UPDATE commits SET n = n + 1 RETURNING n"
        ));
        let counter = match begun {
            Ok(messages) => messages
                .iter()
                .find_map(|m| match m {
                    SimpleQueryMessage::Row(r) => r.get(0).and_then(|v| v.parse::<i64>().ok()),
                    _ => None,
                })
                .ok_or_else(|| Error::new(ErrorCode::Corrupt, "", "the commit counter row is missing")),
            Err(e) => Err(lost(e)),
        };
        let counter = match counter {
            Ok(n) => n,
            Err(e) => {
                conn.rollback();
                self.keep_if_alive(&mut guard);
                return Err(e);
            }
        };
        let generation = self.version.lock().unwrap_or_else(|p| p.into_inner()).observe(counter - 1);
        let result = {
            let mut tx = PgTx { c: RefCell::new(&mut *conn), generation };
            f(&mut tx)
        };
        let committed = finish(conn, result, &lost);
        let mut v = self.version.lock().unwrap_or_else(|p| p.into_inner());
        if committed.is_ok() {
            // Our own commit: the next transaction finding this counter knows nobody else wrote.
            v.own = Some(counter);
        } else {
            v.own = None;
        }
        drop(v);
        self.keep_if_alive(&mut guard);
        committed
    }

    fn read(&self, f: &mut dyn FnMut(&mut dyn Tx) -> Result<(), Error>) -> Result<(), Error> {
        // A free reader if there is one, else wait for the first.
        let mut guard = self
            .readers
            .iter()
            .find_map(|r| r.try_lock().ok())
            .unwrap_or_else(|| self.readers[0].lock().unwrap_or_else(|p| p.into_inner()));
        let conn = self.connected(&mut guard)?;
        let lost = |e: postgres::Error| self.lost(&e);
        let result = match conn.begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
            Ok(_) => {
                let generation = self.version.lock().unwrap_or_else(|p| p.into_inner()).generation;
                let mut tx = PgTx { c: RefCell::new(&mut *conn), generation };
                let r = f(&mut tx);
                finish(conn, r, &lost)
            }
            Err(e) => Err(lost(e)),
        };
        self.keep_if_alive(&mut guard);
        result
    }
}

/// Maps a PostgreSQL failure onto the recorder's codes: a lock or serialization conflict past its timeout is
/// `busy`, a refused schema rule is `internal` (the code above should never have asked), damaged data is
/// `corrupt`, a connection refused or lost (the server restarting, failing over, ending an idle session) is a
/// `storage` error that says to retry, the rest is `storage`.
fn pg(e: &postgres::Error) -> Error {
    let state = e.code();
    let io = std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>());
    let lost = e.is_closed()
        || io
        || state.is_some_and(|s| {
            s.code().starts_with("08")
                || [
                    SqlState::ADMIN_SHUTDOWN,
                    SqlState::CRASH_SHUTDOWN,
                    SqlState::CANNOT_CONNECT_NOW,
                    SqlState::IDLE_IN_TRANSACTION_SESSION_TIMEOUT,
                ]
                .contains(s)
        });
    if lost {
        let cause = std::error::Error::source(e)
            .and_then(|s| s.downcast_ref::<std::io::Error>())
            .map(|s| format!(": {s}"))
            .unwrap_or_default();
        return Error::new(
            ErrorCode::Storage,
            "",
            format!(
                "database: the connection to PostgreSQL failed or was lost ({e}{cause}); nothing was acknowledged: \
                 retry the call (the same idempotency key replays the same answer)"
            ),
        );
    }
    let (Some(db), Some(state)) = (e.as_db_error(), state) else {
        return Error::new(ErrorCode::Storage, "", format!("database: {e}"));
    };
    let code = if [
        SqlState::T_R_SERIALIZATION_FAILURE,
        SqlState::T_R_DEADLOCK_DETECTED,
        SqlState::LOCK_NOT_AVAILABLE,
        SqlState::QUERY_CANCELED,
    ]
    .contains(state)
    {
        ErrorCode::Busy
    } else if state.code().starts_with("23") || *state == SqlState::RAISE_EXCEPTION {
        ErrorCode::Internal
    } else if [SqlState::DATA_CORRUPTED, SqlState::INDEX_CORRUPTED].contains(state) {
        ErrorCode::Corrupt
    } else {
        ErrorCode::Storage
    };
    Error::new(code, "", format!("database: {} ({})", db.message(), state.code()))
}

struct PgTx<'c> {
    c: RefCell<&'c mut Conn>,
    generation: u64,
}

type Params<'p> = &'p [&'p (dyn ToSql + Sync)];

impl PgTx<'_> {
    fn statement(&self, sql: &str) -> Result<Statement, Error> {
        let mut c = self.c.borrow_mut();
        if let Some(s) = c.statements.get(sql) {
            return Ok(s.clone());
        }
        let s = c.client.prepare(sql).map_err(|e| pg(&e))?;
        c.statements.insert(sql.to_string(), s.clone());
        Ok(s)
    }

    fn rows(&self, sql: &str, params: Params<'_>) -> Result<Vec<Row>, Error> {
        let st = self.statement(sql)?;
        self.c.borrow_mut().client.query(&st, params).map_err(|e| pg(&e))
    }

    fn row(&self, sql: &str, params: Params<'_>) -> Result<Option<Row>, Error> {
        let st = self.statement(sql)?;
        self.c.borrow_mut().client.query_opt(&st, params).map_err(|e| pg(&e))
    }

    fn exec(&self, sql: &str, params: Params<'_>) -> Result<u64, Error> {
        let st = self.statement(sql)?;
        self.c.borrow_mut().client.execute(&st, params).map_err(|e| pg(&e))
    }

    fn batch(&self, sql: &str) -> Result<(), Error> {
        self.c.borrow_mut().client.batch_execute(sql).map_err(|e| pg(&e))
    }
}

fn get<'r, T: postgres::types::FromSql<'r>>(row: &'r Row, i: usize) -> Result<T, Error> {
    row.try_get(i).map_err(|e| Error::new(ErrorCode::Corrupt, "", format!("database: column {i}: {e}")))
}

const ACTION_COLUMNS: &str = "tenant, idempotency_key, request_hash, grant_id, state, answer, attestation, created, \
     updated, outcome_hash, reserved, conversation";

fn action_of(r: &Row) -> Result<ActionRow, Error> {
    let state: String = get(r, 4)?;
    Ok(ActionRow {
        tenant: get(r, 0)?,
        idempotency_key: get(r, 1)?,
        request_hash: hash_of(get(r, 2)?)?,
        grant: get(r, 3)?,
        state: ActionState::parse(&state)
            .ok_or_else(|| Error::new(ErrorCode::Corrupt, "", format!("unknown action state {state:?}")))?,
        answer: get(r, 5)?,
        attestation: get(r, 6)?,
        created: get(r, 7)?,
        updated: get(r, 8)?,
        outcome_hash: get::<Option<Vec<u8>>>(r, 9)?.map(hash_of).transpose()?,
        reserved: get(r, 10)?,
        conversation: get(r, 11)?,
    })
}

const RECEIPT_QUERY: &str = "SELECT r.seq, a.tenant, a.idempotency_key, r.status, r.receipt, a.attestation, r.evidence, \
     r.created FROM receipts r JOIN actions a ON a.id = r.action";

fn receipt_of_row(r: &Row) -> Result<ReceiptRow, Error> {
    Ok(ReceiptRow {
        seq: to_u64(get(r, 0)?)?,
        tenant: get(r, 1)?,
        idempotency_key: get(r, 2)?,
        status: get(r, 3)?,
        receipt: get(r, 4)?,
        attestation: get(r, 5)?,
        evidence: get(r, 6)?,
        created: get(r, 7)?,
    })
}

fn head_of(r: &Row) -> Result<HeadRow, Error> {
    Ok(HeadRow { size: to_u64(get(r, 0)?)?, root: hash_of(get(r, 1)?)?, note: get(r, 2)?, signed_at: get(r, 3)? })
}

impl NodeStore for PgTx<'_> {
    type Error = Error;

    fn node(&self, level: u32, index: u64) -> Result<Option<Hash>, Error> {
        if level < STORED_FROM_LEVEL {
            // Below the stored levels: hashed from the (at most 8) receipts it covers, as the SQLite store does.
            let width = 1u64 << level;
            let first = index.checked_mul(width).ok_or_else(|| Error::new(ErrorCode::OutOfRange, "", "node index"))?;
            let rows = self.rows(
                "SELECT receipt FROM receipts WHERE seq >= $1 AND seq < $2 ORDER BY seq",
                &[&to_i64(first)?, &to_i64(first.saturating_add(width))?],
            )?;
            let leaves = rows
                .iter()
                .map(|r| get::<&str>(r, 0).map(|t| leaf_hash(t.as_bytes())))
                .collect::<Result<Vec<_>, Error>>()?;
            return Ok(subtree_root(leaves, width));
        }
        let row =
            self.row("SELECT hash FROM nodes WHERE level = $1 AND idx = $2", &[&i64::from(level), &to_i64(index)?])?;
        row.map(|r| get::<Vec<u8>>(&r, 0).and_then(hash_of)).transpose()
    }
}

impl Tx for PgTx<'_> {
    fn meta(&self, name: &str) -> Result<Option<String>, Error> {
        self.row("SELECT value FROM meta WHERE name = $1", &[&name])?.map(|r| get(&r, 0)).transpose()
    }

    fn set_meta(&mut self, name: &str, value: &str) -> Result<(), Error> {
        self.exec(
            "INSERT INTO meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
            &[&name, &value],
        )
        .map(|_| ())
    }

    fn keys(&self) -> Result<Vec<KeyRow>, Error> {
        let rows =
            self.rows("SELECT kid, x, not_before, expires FROM keys ORDER BY not_before, kid COLLATE \"C\"", &[])?;
        rows.iter()
            .map(|r| Ok(KeyRow { kid: get(r, 0)?, x: get(r, 1)?, not_before: get(r, 2)?, expires: get(r, 3)? }))
            .collect()
    }

    fn insert_key(&mut self, k: &KeyRow) -> Result<(), Error> {
        self.exec(
            "INSERT INTO keys (kid, x, not_before, expires) VALUES ($1, $2, $3, $4)",
            &[&k.kid, &k.x, &k.not_before, &k.expires],
        )
        .map(|_| ())
    }

    fn close_key(&mut self, kid: &str, expires: i64) -> Result<(), Error> {
        self.exec("UPDATE keys SET expires = $2 WHERE kid = $1 AND expires IS NULL", &[&kid, &expires]).map(|_| ())
    }

    fn grant(&self, id: &str) -> Result<Option<GrantRow>, Error> {
        let row =
            self.row("SELECT id, kind, document, used, spent, reserved, last_use FROM grants WHERE id = $1", &[&id])?;
        row.map(|r| {
            let kind = match get::<&str>(&r, 1)? {
                "grant" => GrantKind::Grant,
                "mandate" => GrantKind::Mandate,
                other => return Err(Error::new(ErrorCode::Corrupt, "", format!("unknown grant kind {other:?}"))),
            };
            Ok(GrantRow {
                id: get(&r, 0)?,
                kind,
                document: get(&r, 2)?,
                used: to_u64(get(&r, 3)?)?,
                spent: get(&r, 4)?,
                reserved: get(&r, 5)?,
                last_use: get(&r, 6)?,
            })
        })
        .transpose()
    }

    fn insert_grant(&mut self, g: &GrantRow, at: i64) -> Result<(), Error> {
        self.exec(
            "INSERT INTO grants (id, kind, document, used, spent, reserved, last_use, created) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            &[&g.id, &g.kind.as_str(), &g.document, &to_i64(g.used)?, &g.spent, &g.reserved, &g.last_use, &at],
        )
        .map(|_| ())
    }

    fn add_uses(&mut self, id: &str, delta: i64) -> Result<(), Error> {
        self.exec("UPDATE grants SET used = used + $2 WHERE id = $1", &[&id, &delta]).map(|_| ())
    }

    fn account(&mut self, id: &str, spent: i64, reserved: i64, last_use: Option<i64>) -> Result<(), Error> {
        self.exec(
            "UPDATE grants SET spent = spent + $2, reserved = reserved + $3, \
             last_use = coalesce($4::bigint, last_use) WHERE id = $1",
            &[&id, &spent, &reserved, &last_use],
        )
        .map(|_| ())
    }

    fn action(&self, tenant: &str, key: &str) -> Result<Option<ActionRow>, Error> {
        let sql = format!("SELECT {ACTION_COLUMNS} FROM actions WHERE tenant = $1 AND idempotency_key = $2");
        self.row(&sql, &[&tenant, &key])?.map(|r| action_of(&r)).transpose()
    }

    fn insert_action(&mut self, a: &ActionRow) -> Result<(), Error> {
        let sql = format!(
            "INSERT INTO actions ({ACTION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
        );
        self.exec(
            &sql,
            &[
                &a.tenant,
                &a.idempotency_key,
                &a.request_hash.as_slice(),
                &a.grant,
                &a.state.as_str(),
                &a.answer,
                &a.attestation,
                &a.created,
                &a.updated,
                &a.outcome_hash.as_ref().map(|h| h.as_slice()),
                &a.reserved,
                &a.conversation,
            ],
        )
        .map(|_| ())
    }

    fn settle_action(&mut self, s: &Settle<'_>) -> Result<(), Error> {
        self.exec(
            "UPDATE actions SET state = $3, outcome_hash = $4, updated = $5 WHERE tenant = $1 AND idempotency_key = $2",
            &[&s.tenant, &s.idempotency_key, &s.state.as_str(), &s.outcome_hash.map(|h| h.as_slice()), &s.at],
        )
        .map(|_| ())
    }

    fn open_actions(&self, limit: usize) -> Result<Vec<ActionRow>, Error> {
        // Byte order for the tie-breaks, as SQLite sorts text.
        let sql = format!(
            "SELECT {ACTION_COLUMNS} FROM actions WHERE state IN ('attested', 'held') ORDER BY created, \
             tenant COLLATE \"C\", idempotency_key COLLATE \"C\" LIMIT $1"
        );
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.rows(&sql, &[&limit])?.iter().map(action_of).collect()
    }

    fn size(&self) -> Result<u64, Error> {
        let row = self.row("SELECT coalesce(max(seq), -1) + 1 FROM receipts", &[])?;
        let n: i64 = row.map(|r| get(&r, 0)).transpose()?.unwrap_or(0);
        to_u64(n)
    }

    fn append(&mut self, r: &ReceiptRow, resource: &str, nodes: &[(u32, u64, Hash)]) -> Result<(), Error> {
        let seq = to_i64(r.seq)?;
        let inserted = self.exec(
            "INSERT INTO receipts (seq, action, status, receipt, evidence, created) \
             SELECT $1::bigint, id, $4::text, $5::text, $6::bytea, $7::bigint FROM actions \
             WHERE tenant = $2 AND idempotency_key = $3",
            &[&seq, &r.tenant, &r.idempotency_key, &r.status, &r.receipt, &r.evidence, &r.created],
        )?;
        if inserted != 1 {
            return Err(Error::new(ErrorCode::Internal, "", "a receipt for an action that is not recorded"));
        }
        self.exec(
            "INSERT INTO receipt_subjects (seq, resource, conversation) \
             SELECT $1::bigint, $2::text, conversation FROM actions WHERE tenant = $3 AND idempotency_key = $4",
            &[&seq, &resource, &r.tenant, &r.idempotency_key],
        )?;
        for (level, idx, hash) in nodes.iter().filter(|(level, _, _)| *level >= STORED_FROM_LEVEL) {
            self.exec(
                "INSERT INTO nodes (level, idx, hash) VALUES ($1, $2, $3)",
                &[&i64::from(*level), &to_i64(*idx)?, &hash.as_slice()],
            )?;
        }
        Ok(())
    }

    fn receipts_about(&self, by: About<'_>, limit: usize) -> Result<Vec<String>, Error> {
        // The newest `limit`, then in log order.
        let (sql, value) = match by {
            About::Subject(s) => (
                "SELECT receipt FROM (SELECT r.seq, r.receipt FROM receipt_subjects s JOIN receipts r ON r.seq = s.seq \
                 WHERE s.resource = $1 ORDER BY s.seq DESC LIMIT $2) newest ORDER BY seq",
                s,
            ),
            About::Conversation(c) => (
                "SELECT receipt FROM (SELECT r.seq, r.receipt FROM receipt_subjects s JOIN receipts r ON r.seq = s.seq \
                 WHERE s.conversation = $1 ORDER BY s.seq DESC LIMIT $2) newest ORDER BY seq",
                c,
            ),
        };
        self.rows(sql, &[&value, &to_i64(limit as u64)?])?.iter().map(|r| get(r, 0)).collect()
    }

    fn receipt(&self, seq: u64) -> Result<Option<ReceiptRow>, Error> {
        let sql = format!("{RECEIPT_QUERY} WHERE r.seq = $1");
        self.row(&sql, &[&to_i64(seq)?])?.map(|r| receipt_of_row(&r)).transpose()
    }

    fn receipt_of(&self, tenant: &str, key: &str) -> Result<Option<ReceiptRow>, Error> {
        let sql = format!("{RECEIPT_QUERY} WHERE a.tenant = $1 AND a.idempotency_key = $2");
        self.row(&sql, &[&tenant, &key])?.map(|r| receipt_of_row(&r)).transpose()
    }

    fn head(&self, size: u64) -> Result<Option<HeadRow>, Error> {
        self.row("SELECT size, root, note, signed_at FROM heads WHERE size = $1", &[&to_i64(size)?])?
            .map(|r| head_of(&r))
            .transpose()
    }

    fn latest_head(&self) -> Result<Option<HeadRow>, Error> {
        self.row("SELECT size, root, note, signed_at FROM heads ORDER BY size DESC LIMIT 1", &[])?
            .map(|r| head_of(&r))
            .transpose()
    }

    fn insert_head(&mut self, h: &HeadRow) -> Result<(), Error> {
        self.exec(
            "INSERT INTO heads (size, root, note, signed_at) VALUES ($1, $2, $3, $4)",
            &[&to_i64(h.size)?, &h.root.as_slice(), &h.note, &h.signed_at],
        )
        .map(|_| ())
    }

    fn data_version(&mut self) -> Result<u64, Error> {
        Ok(self.generation)
    }

    fn savepoint(&mut self) -> Result<(), Error> {
        self.batch("SAVEPOINT call")
    }

    fn release_savepoint(&mut self) -> Result<(), Error> {
        self.batch("RELEASE SAVEPOINT call")
    }

    fn rollback_to_savepoint(&mut self) -> Result<(), Error> {
        self.batch("ROLLBACK TO SAVEPOINT call; RELEASE SAVEPOINT call")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_moves_only_for_other_commits() {
        let mut v = Version::default();
        let first = v.observe(0);
        // Our commit left the counter at 1: the next transaction finds 1 and nothing changed.
        v.own = Some(1);
        assert_eq!(v.observe(1), first);
        // Another process committed (counter 2, ours was 1): the number moves.
        assert_ne!(v.observe(2), first);
    }
}
