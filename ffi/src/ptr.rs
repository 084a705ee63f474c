//! Every raw-pointer operation of the C ABI, each behind one small helper with its safety argument.
//! The exported functions in lib.rs never dereference a pointer themselves.

use std::ffi::{CStr, c_char};

use crate::curbi_status;

/// The longest input we accept: `slice::from_raw_parts` requires `len <= isize::MAX`.
const MAX_LEN: usize = isize::MAX as usize;

/// Borrows `len` bytes at `ptr`. `(NULL, 0)` is the empty input; `(NULL, n > 0)` is an error.
pub(crate) fn bytes_in<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], curbi_status> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(curbi_status::NullArgument);
    }
    if len > MAX_LEN {
        return Err(curbi_status::InvalidLength);
    }
    // SAFETY: the caller promises (docs/ABI.md) that `ptr` points to `len` readable bytes that stay valid and
    // unmodified for the duration of the call; we checked it is non-null and `len <= isize::MAX`.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrows the NUL-terminated string at `ptr`.
pub(crate) fn c_str_in<'a>(ptr: *const c_char) -> Result<&'a CStr, curbi_status> {
    if ptr.is_null() {
        return Err(curbi_status::NullArgument);
    }
    // SAFETY: the caller promises (docs/ABI.md) that a non-null `ptr` points to a NUL-terminated string that stays
    // valid and unmodified for the duration of the call.
    Ok(unsafe { CStr::from_ptr(ptr) })
}

/// Borrows a handle the library handed out.
pub(crate) fn handle<'a, T>(ptr: *const T) -> Result<&'a T, curbi_status> {
    // SAFETY: a non-null handle was created by `Box::into_raw` in `write_out` and not yet freed (the caller's
    // promise); handles are immutable, so shared borrows from many threads are sound.
    unsafe { ptr.as_ref() }.ok_or(curbi_status::NullArgument)
}

/// Checks that an out-parameter can be written, before any work is done.
pub(crate) fn check_out<T>(out: *mut *mut T) -> Result<(), curbi_status> {
    if out.is_null() { Err(curbi_status::NullArgument) } else { Ok(()) }
}

/// Moves `value` to the heap and stores the pointer in `*out` (a no-op when `out` is NULL).
pub(crate) fn write_out<T>(out: *mut *mut T, value: T) {
    if out.is_null() {
        return;
    }
    let raw = Box::into_raw(Box::new(value));
    // SAFETY: `out` is non-null and, by the caller's promise, points to writable storage for one pointer.
    unsafe { out.write(raw) };
}

/// Frees a handle made by `write_out`. NULL is a no-op.
pub(crate) fn free<T>(ptr: *mut T) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: a non-null `ptr` came from `Box::into_raw` in `write_out` and is freed at most once (the caller's
    // promise); after this call it must not be used.
    drop(unsafe { Box::from_raw(ptr) });
}

/// Writes `msg` NUL-terminated into `buf` (truncated at a UTF-8 boundary if it does not fit) and the full length
/// (without NUL) into `*needed` when that is non-null.
pub(crate) fn write_message(msg: &str, buf: *mut c_char, buf_len: usize, needed: *mut usize) -> curbi_status {
    if !needed.is_null() {
        // SAFETY: non-null `needed` points to a writable `size_t` (the caller's promise).
        unsafe { needed.write(msg.len()) };
    }
    if buf.is_null() || buf_len == 0 {
        return if msg.is_empty() && buf_len == 0 && buf.is_null() {
            curbi_status::Ok
        } else {
            curbi_status::BufferTooSmall
        };
    }
    let mut n = msg.len().min(buf_len - 1);
    while !msg.is_char_boundary(n) {
        n -= 1;
    }
    // SAFETY: `buf` is non-null and points to `buf_len` writable bytes (the caller's promise); we write `n + 1 <=
    // buf_len` bytes, and the source is a live `&str` that cannot overlap caller memory.
    unsafe {
        std::ptr::copy_nonoverlapping(msg.as_ptr(), buf.cast::<u8>(), n);
        buf.add(n).write(0);
    }
    if n < msg.len() { curbi_status::BufferTooSmall } else { curbi_status::Ok }
}
