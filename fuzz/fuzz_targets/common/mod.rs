//! What the fuzz targets hold of every answer: decisions never grant authority, errors carry a stable code and a
//! JSON pointer, and no answer grows faster than the input that asked for it.
#![allow(dead_code)]

/// A decision document: JSON, ALLOW, DENY or STEP_UP, and never granting authority.
pub fn assert_decision(text: &str) {
    let v: serde_json::Value = serde_json::from_str(text).expect("the decision is JSON");
    assert!(matches!(v["decision"].as_str(), Some("ALLOW" | "DENY" | "STEP_UP")), "{text}");
    assert_eq!(v["authorizationGranted"], false, "{text}");
}

/// An error for bad input: a stable snake_case code that is not `internal`, a path that is empty or a JSON
/// pointer, a message, and a message no longer than the input plus a constant (an error may quote the input once,
/// never more).
pub fn assert_error(e: &curbi::Error, input_len: usize) {
    let code = e.code.as_str();
    assert!(!code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "code {code:?}");
    assert_ne!(e.code, curbi::ErrorCode::Internal, "bad input gave an internal error: {e}");
    assert!(e.path.is_empty() || e.path.starts_with('/'), "path {:?} is not a JSON pointer", e.path);
    assert!(!e.message.is_empty(), "an error without a message: {code}");
    assert_bounded("error message", e.message.len() + e.path.len(), input_len, 16);
}

/// Output at most `per_byte` bytes per input byte plus 4 KiB: linear in the input, whatever its shape (a fuzzer
/// finds the shape that makes a superlinear answer cross any such line).
pub fn assert_bounded(what: &str, output_len: usize, input_len: usize, per_byte: usize) {
    assert!(output_len <= per_byte * input_len + 4096, "{what}: {output_len} bytes out of {input_len} in");
}
