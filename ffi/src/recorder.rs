//! The recorder's C handle (docs/RECORDER.md, docs/ABI.md §The recorder handle): `curbi_recorder_open` on a config
//! document, then JSON in, JSON out calls, each one `curbi_recorder::api`'s `call_json` with nothing added here.

use std::ffi::c_char;
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::{curbi_bytes, curbi_status, document_call, new_handle, ptr};

/// A durable recorder on one SQLite file. Thread-safe: any number of threads may call it at once (their writes are
/// grouped into one commit). Every call blocks until its work is on disk. Free with `curbi_recorder_free`.
#[derive(Debug)]
pub struct curbi_recorder {
    inner: recorder_lib::Recorder,
}

/// Opens (or creates) a recorder: `{"path", "origin", "key_file" | "key_env", "rotate"?, "now"?,
/// "attestation_ttl"?, "receipt_ttl"?, "max_clock_ahead"?}`. The key file must be readable by its owner only;
/// `key_env` names an environment variable holding the key's text (`CURBI_RECORDER_KEY` when neither is given);
/// `now` fixes the clock (tests); `max_clock_ahead` (seconds, default 7 days) bounds how far past the log's last
/// time a write may be dated (`clock_ahead` beyond it, nothing signed). On success writes a new handle to `*recorder_out`; on `CURBI_STATUS_INVALID_INPUT` writes the error
/// document to `*error_out` (if non-NULL): `key_mismatch` at `/key` for a key that is not the log's, `storage`
/// when the file cannot be opened.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_recorder_open(
    config_json: *const u8,
    config_len: usize,
    recorder_out: *mut *mut curbi_recorder,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    new_handle(config_json, config_len, recorder_out, error_out, |config| {
        Ok(curbi_recorder { inner: recorder_lib::api::open_json(config)? })
    })
}

/// Frees a recorder, closing its database. NULL is a no-op. The handle must not be in use by another thread.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_recorder_free(recorder: *mut curbi_recorder) {
    let _ = catch_unwind(AssertUnwindSafe(|| ptr::free(recorder)));
}

/// One call: `method` (NUL-terminated: `grant`, `mandate`, `attest`, `confirm`, `reconcile`, `held`, `checkpoint`,
/// `bundle`, `receipt`, `keys`, `status` or `set_clock`) with its request document (docs/RECORDER.md §Calls). On success
/// writes the answer document to `*result_out`; a refused call is `CURBI_STATUS_INVALID_INPUT` with its error
/// document (`not_found` for a method that does not exist). Blocks until the call's work is on disk.
#[unsafe(no_mangle)]
pub extern "C" fn curbi_recorder_call(
    recorder: *const curbi_recorder,
    method: *const c_char,
    request_json: *const u8,
    request_len: usize,
    result_out: *mut *mut curbi_bytes,
    error_out: *mut *mut curbi_bytes,
) -> curbi_status {
    document_call(result_out, error_out, || {
        let r = ptr::handle(recorder)?;
        // A name that is not UTF-8 names no method: the recorder refuses it as it refuses any unknown name.
        let method = String::from_utf8_lossy(ptr::c_str_in(method)?.to_bytes());
        Ok(r.inner.call_json(&method, ptr::bytes_in(request_json, request_len)?)?)
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_recorder_may_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<super::curbi_recorder>();
    }
}
