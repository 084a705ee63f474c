//! JavaScript values in, core errors out: documents are read as the JSON text `JSON.stringify` gives (or JSON text
//! the caller passes), so every code and path is exactly the CLI's; core errors become JS `Error`s with `code`, `path`.

use curbi::{Error, ErrorCode};
use napi::bindgen_prelude::{FnArgs, FromNapiValue, Function, Unknown};
use napi::{Env, ValueType};

/// Reads a document argument: a string is JSON text (as the CLI reads a file); any other value is serialized with
/// `JSON.stringify`, so `undefined` members are left out and `toJSON` applies, exactly as when it is sent over HTTP,
/// and the core judges the result (a number where an object belongs is its `invalid_type`, as from the CLI).
pub(crate) fn document_text(env: &Env, value: Unknown, what: &str) -> Result<String, Error> {
    match value.get_type().map_err(internal)? {
        ValueType::String => String::from_unknown(value).map_err(internal),
        ValueType::Undefined => Err(Error::new(ErrorCode::InvalidType, "", format!("{what} is missing (undefined)"))),
        _ => stringify(env, value),
    }
}

/// Reads the optional options argument: `undefined` or `null` means none; otherwise an object or JSON text.
pub(crate) fn options_text(env: &Env, value: Option<Unknown>) -> Result<Option<String>, Error> {
    let Some(value) = value else { return Ok(None) };
    match value.get_type().map_err(internal)? {
        ValueType::Undefined | ValueType::Null => Ok(None),
        ValueType::Object => stringify(env, value).map(Some),
        // JSON text, read by the core's strict reader as it is (a repeated member is refused, not collapsed).
        ValueType::String => String::from_unknown(value).map(Some).map_err(internal),
        other => {
            Err(Error::new(ErrorCode::InvalidType, "", format!("options must be an object, got {}", type_name(other))))
        }
    }
}

/// Reads the reply argument, which must be a string (the path is the reply's place in a Check API request).
pub(crate) fn reply_text(value: Unknown) -> Result<String, Error> {
    match value.get_type().map_err(internal)? {
        ValueType::String => String::from_unknown(value).map_err(internal),
        other => Err(Error::new(
            ErrorCode::InvalidType,
            "/reply",
            format!("reply must be a string, got {}", type_name(other)),
        )),
    }
}

fn stringify(env: &Env, value: Unknown) -> Result<String, Error> {
    let js = crate::js::js(env).map_err(internal)?;
    let f: Function<Unknown<'_>, Option<String>> = js.stringify.borrow_back(env).map_err(internal)?;
    // A cycle, a BigInt or a stack overflow makes JSON.stringify throw, and a `toJSON` may return undefined: no JSON,
    // so no document. A cycle or a depth past the reader's is `too_deep` at its path, like the Python binding's.
    match f.call(value) {
        Ok(Some(text)) if nesting(&text) <= MAX_DEPTH => Ok(text),
        Ok(Some(_)) => Err(diagnose(env, value)
            .unwrap_or_else(|| Error::new(ErrorCode::TooDeep, "", "the value nests more than 127 containers deep"))),
        Ok(None) => {
            Err(Error::new(ErrorCode::InvalidJson, "", "the value has no JSON form (JSON.stringify gave undefined)"))
        }
        Err(e) => Err(diagnose(env, value).unwrap_or_else(|| {
            Error::new(ErrorCode::InvalidJson, "", format!("the value cannot be written as JSON: {}", e.reason))
        })),
    }
}

/// How many containers deep JSON text may nest: the core reader's limit (serde_json's recursion limit of 128
/// refuses the 128th container).
const MAX_DEPTH: usize = 127;

/// How deep JSON text nests (brackets outside strings), in one pass over its bytes.
fn nesting(text: &str) -> usize {
    let (mut depth, mut max, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Why `value` has no document, with its path, from the JavaScript walker ([`crate::js`]); `None` if it finds
/// nothing to say.
fn diagnose(env: &Env, value: Unknown) -> Option<Error> {
    let f = crate::js::js(env).and_then(|js| js.diagnose.borrow_back(env)).ok()?;
    let found = f.call(value).ok()??;
    let [code, path, message] = <[String; 3]>::try_from(found).ok()?;
    let code = ErrorCode::ALL.into_iter().find(|c| c.as_str() == code)?;
    Some(Error::new(code, path, message))
}

fn type_name(t: ValueType) -> &'static str {
    match t {
        ValueType::Undefined => "undefined",
        ValueType::Null => "null",
        ValueType::Boolean => "boolean",
        ValueType::Number => "number",
        ValueType::String => "string",
        ValueType::Symbol => "symbol",
        ValueType::Object => "object",
        ValueType::Function => "function",
        ValueType::BigInt => "bigint",
        _ => "an unsupported value",
    }
}

/// A failure of the JavaScript engine itself while reading arguments (not the caller's input).
fn internal(e: napi::Error) -> Error {
    Error::new(ErrorCode::Internal, "", format!("could not read a JavaScript value: {}", e.reason))
}

/// Turns a core error into a `CurbiError` (the exported class) with string `code` and `path` (its `message` is the
/// core's message, as in the Check API's error document), ready to be thrown or to reject a Promise.
pub(crate) fn js_error(env: &Env, e: Error) -> napi::Error {
    let code: &'static str = e.code.as_str();
    let built = crate::js::js(env).and_then(|js| {
        let make = js.make_error.borrow_back(env)?;
        make.call(FnArgs { data: (e.message.clone(), code, e.path.clone()) })
    });
    match built {
        Ok(obj) => napi::Error::from(obj),
        // The engine could not build an object (it is shutting down): keep the code at least.
        Err(_) => napi::Error::new(napi::Status::GenericFailure, e.to_string()),
    }
}
