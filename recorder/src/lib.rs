//! Curbi's durable recorder (docs/RECORDER.md): Proof of Action inside merchant code. Grants, attestations,
//! provider outcomes, receipts, the Merkle log and its signed heads live in one SQLite file (or one PostgreSQL
//! database shared by several processes, feature `postgres`); every step is on disk
//! before it returns, and a restart restores everything, so a restart never looks like a forked log.

pub mod api;
mod conninfo;
pub mod dbfile;
mod failpoint;
pub mod keyfile;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod recorder;
pub mod sqlite;
pub mod store;
pub mod tiles;
mod tree;
pub mod witness;

pub use keyfile::{
    KEY_ENV, LoadedKey, create_private, generate_key_file, open_regular, parse_key, read_key_env, read_key_file,
};
pub use recorder::{
    AttestRequest, Attested, BundleRequest, DEFAULT_MAX_CLOCK_AHEAD, GrantInfo, Head, OpenAction, OpenActions, Outcome,
    Recorder, RecorderOptions, Select, Settled, StoredReceipt, SystemClock,
};
pub use store::{About, Storage, Tx, is_postgres_url, redact_url};
