//! The files `curbi` reads keys from and writes keys to, and how their errors name them (docs/SECURITY.md §Key
//! files on the command line). A key file is opened without waiting and used only when it is a regular file; a key
//! is written only to a new file, never through a symlink, readable by its owner alone; and no message repeats the
//! value of an option that takes a key, since that value may be the key itself, pasted where its path belongs.

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::Path;
use std::process::ExitCode;

use super::EXIT_INVALID;

/// Stable code of the message when a file to be written is already there (or is a symlink): nothing was written.
pub(crate) const FILE_EXISTS: &str = "file_exists";
/// Stable code of the message when a key file is a FIFO, a device, a socket or a folder, not a regular file.
pub(crate) const NOT_REGULAR_FILE: &str = "not_regular_file";
/// Stable code of the message when a key file cannot be opened or read (missing, no permission, over the limit) or
/// is YAML that JSON cannot hold.
pub(crate) const UNREADABLE_FILE: &str = "unreadable_file";

/// At most `cap` bytes of `r`, or an error saying the input is over the limit (nothing past `cap + 1` is read).
pub(crate) fn read_capped(r: &mut dyn Read, cap: u64) -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    r.take(cap.saturating_add(1)).read_to_end(&mut buf)?;
    if buf.len() as u64 > cap {
        let m = format!("larger than {cap} bytes (the input limit; CURBI_MAX_INPUT_BYTES sets it)");
        return Err(io::Error::new(io::ErrorKind::InvalidData, m));
    }
    Ok(buf)
}

/// The bytes of the key file that `option` names (`-`: stdin), up to the input cap, opened by
/// [`curbi_recorder::open_regular`] (a FIFO never blocks, only a regular file is read); a file named
/// `*.yaml`/`*.yml` is handed on as the JSON it stands for. Any failure is a message on stderr that names the
/// option, never its value or the file's contents (a YAML error keeps only its code and pointer), and exit 2.
pub(crate) fn read_key(option: &str, file: &OsString) -> Result<Vec<u8>, ExitCode> {
    let cap = super::max_input();
    let body = if file == "-" {
        read_capped(&mut io::stdin().lock(), cap)
    } else {
        curbi_recorder::open_regular(Path::new(file)).and_then(|mut f| read_capped(&mut f, cap))
    };
    let body = body.map_err(|e| {
        let code = if e.kind() == io::ErrorKind::InvalidInput { NOT_REGULAR_FILE } else { UNREADABLE_FILE };
        refuse_key(option, code, &e.to_string())
    })?;
    if file == "-" || !super::is_yaml(file) {
        return Ok(body);
    }
    match curbi::json::utf8(&body).and_then(curbi::yaml::to_json) {
        Ok(json) => Ok(json.into_bytes()),
        Err(e) => Err(refuse_key(
            option,
            UNREADABLE_FILE,
            &format!("not YAML that JSON can hold ({} at '{}')", e.code, e.path),
        )),
    }
}

/// The message for a key file that was not read, `curbi: CODE: OPTION: why`, and exit 2.
pub(crate) fn refuse_key(option: &str, code: &str, why: &str) -> ExitCode {
    note!(
        "curbi: {code}: {option}: the key file cannot be used: {why} (its path is not repeated here: {option} may \
         hold the key itself)"
    );
    ExitCode::from(EXIT_INVALID)
}

/// Writes `bytes` to the new file `path` that `option` names, by [`curbi_recorder::create_private`]: mode 0600,
/// never through a symlink, never over anything. There is no `--force` (docs/SECURITY.md says why). On failure a
/// message (`file_exists` when something is there already) and exit 2. The path is shown: it is where the caller
/// asked a file to go, not a key.
pub(crate) fn write_private(option: &str, path: &OsString, bytes: &[u8]) -> Result<(), ExitCode> {
    let shown = Path::new(path).display();
    curbi_recorder::create_private(Path::new(path), bytes).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists {
            note!(
                "curbi: {FILE_EXISTS}: {option} {shown} already exists (or is a symlink); nothing was written: \
                 remove it or name a new file"
            );
        } else {
            note!("curbi: {option} {shown} cannot be written: {e}");
        }
        ExitCode::from(EXIT_INVALID)
    })
}
