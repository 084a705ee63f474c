//! The SQLite database file on disk, before SQLite opens it: whether an open may start a new log there, creating
//! it readable by its owner only (it holds the providers' evidence), and leaving nothing behind when an open fails.

use std::fs::Permissions;
use std::path::{Path, PathBuf};

use curbi::{Error, ErrorCode};

/// Whether an open may start a new log. A missing file, or an empty (0-byte) one, becomes a log only when the open
/// asks for it: an empty file at a log's path is most often a lost or truncated database, and a new log under the
/// same origin and key there is a fork to anyone holding an old head (docs/RECORDER.md §Creating and opening).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Create {
    /// Open an existing log only: a missing file is `not_found`, an empty one `corrupt`, and either is left as is.
    No,
    /// Start a new log at a missing file; an empty file is still refused. What naming an origin asks for.
    IfMissing,
    /// Start a new log at a missing or an empty file (`curbi recorder init`, `"create": true`).
    Yes,
}

/// A file this open made (or an empty one it made a log in), to put back as it was if the open fails.
#[derive(Debug)]
pub(crate) struct NewFile {
    path: PathBuf,
    /// The empty file's permissions before it became a log; `None`: the file did not exist.
    was_empty: Option<Permissions>,
}

/// SQLite's files beside the database: the write-ahead log, its index, and a rollback journal.
const SIDECARS: [&str; 3] = ["-wal", "-shm", "-journal"];

fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn file_error(code: ErrorCode, path: &Path, what: &str) -> Error {
    Error::new(code, "/path", format!("{}: {what}", path.display()))
}

/// Checks the file at `path` against `create` before SQLite sees it, and makes a new one mode 0600 (SQLite gives its
/// -wal, -shm and -journal files the database's mode). Returns the file to undo when this open starts a new log.
pub(crate) fn prepare(path: &Path, create: Create, has_origin: bool) -> Result<Option<NewFile>, Error> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(file_error(ErrorCode::Storage, path, &e.to_string())),
    };
    // A 0-byte file whose write-ahead log holds pages is a log not yet checkpointed, not an empty file.
    let wal_len = std::fs::metadata(sidecar(path, "-wal")).map_or(0, |m| m.len());
    let new_log = |allowed: bool, refused: Error| -> Result<(), Error> {
        if !allowed {
            return Err(refused);
        }
        if !has_origin {
            return Err(Error::new(ErrorCode::MissingField, "/origin", "a new log needs its origin"));
        }
        Ok(())
    };
    match meta {
        None => {
            new_log(
                create != Create::No,
                file_error(ErrorCode::NotFound, path, "no such log; create it with `curbi recorder init` (create)"),
            )?;
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            options.open(path).map_err(|e| file_error(ErrorCode::Storage, path, &e.to_string()))?;
            Ok(Some(NewFile { path: path.to_path_buf(), was_empty: None }))
        }
        Some(m) if m.is_file() && m.len() == 0 && wal_len == 0 => {
            new_log(
                create == Create::Yes,
                file_error(
                    ErrorCode::Corrupt,
                    path,
                    "the file is empty (0 bytes), not a log: a lost or truncated database? Only an explicit create \
                     (`curbi recorder init`, \"create\": true) starts a new log in it",
                ),
            )?;
            let before = m.permissions();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(path, Permissions::from_mode(0o600))
                    .map_err(|e| file_error(ErrorCode::Storage, path, &e.to_string()))?;
            }
            Ok(Some(NewFile { path: path.to_path_buf(), was_empty: Some(before) }))
        }
        Some(_) => Ok(None),
    }
}

impl NewFile {
    /// Puts the file back as it was before this open: removed, or empty again with its permissions, and SQLite's
    /// files beside it removed. Best effort: the open's own error is what the caller reports.
    pub(crate) fn undo(self) {
        for suffix in SIDECARS {
            let _ = std::fs::remove_file(sidecar(&self.path, suffix));
        }
        match self.was_empty {
            None => {
                let _ = std::fs::remove_file(&self.path);
            }
            Some(permissions) => {
                let _ = std::fs::OpenOptions::new().write(true).truncate(true).open(&self.path);
                let _ = std::fs::set_permissions(&self.path, permissions);
            }
        }
    }
}
