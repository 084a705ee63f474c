//! Strict JSON reading for trust material: syntax errors as `invalid_json`, and objects that repeat a member name
//! refused (parsers disagree on which copy wins, so a repeated `x` or `kid` could mean two keys to two verifiers).

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::{Error, ErrorCode};

/// Parses `text` as JSON, refusing repeated member names anywhere (the error path is the object holding them).
pub(crate) fn parse_strict(text: &str) -> Result<Value, Error> {
    let value: Value = serde_json::from_str(text).map_err(|e| Error::from_json_error(&e))?;
    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let checked = UniqueMembers { path: String::new(), found: &found }.deserialize(&mut de);
    if let Some((path, name)) = found.into_inner() {
        return Err(Error::new(ErrorCode::InvalidJson, path, format!("member \"{name}\" appears more than once")));
    }
    checked.map_err(|e| Error::from_json_error(&e))?;
    Ok(value)
}

/// RFC 6901 pointer to member `name` under `path`.
pub(crate) fn member(path: &str, name: &str) -> String {
    let mut s = String::with_capacity(path.len() + name.len() + 1);
    s.push_str(path);
    s.push('/');
    for c in name.chars() {
        match c {
            '~' => s.push_str("~0"),
            '/' => s.push_str("~1"),
            c => s.push(c),
        }
    }
    s
}

/// RFC 6901 pointer to element `i` under `path`.
pub(crate) fn element(path: &str, i: usize) -> String {
    format!("{path}/{i}")
}

/// The JSON type name of a value, for messages.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Walks a document, recording the first repeated member name with the pointer of its object.
struct UniqueMembers<'a> {
    path: String,
    found: &'a RefCell<Option<(String, String)>>,
}

impl<'de> DeserializeSeed<'de> for UniqueMembers<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueMembers<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            let seed = UniqueMembers { path: element(&self.path, i), found: self.found };
            if seq.next_element_seed(seed)?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(name) = map.next_key::<String>()? {
            if !seen.insert(name.clone()) {
                *self.found.borrow_mut() = Some((self.path.clone(), name));
                // Stop walking: the first repeat is the one reported.
                return Err(de::Error::custom("repeated member"));
            }
            map.next_value_seed(UniqueMembers { path: member(&self.path, &name), found: self.found })?;
        }
        Ok(())
    }
}

impl fmt::Debug for UniqueMembers<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UniqueMembers").field("path", &self.path).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_members_are_refused_with_their_object_path() {
        let e = parse_strict(r#"{"keys":[{"x":"a","kty":"OKP","x":"b"}]}"#).err();
        let e = e.map(|e| (e.code, e.path));
        assert_eq!(e, Some((ErrorCode::InvalidJson, "/keys/0".to_string())));
        let e = parse_strict(r#"{"a":1,"a":1}"#).err().map(|e| e.path);
        assert_eq!(e.as_deref(), Some(""));
    }

    #[test]
    fn ordinary_documents_pass_and_syntax_errors_are_invalid_json() {
        assert!(parse_strict(r#"{"a":[{"b":1},{"b":2}],"c":{"d":null}}"#).is_ok());
        assert_eq!(parse_strict("{").err().map(|e| e.code), Some(ErrorCode::InvalidJson));
        assert_eq!(parse_strict("[1,]").err().map(|e| e.code), Some(ErrorCode::InvalidJson));
    }

    #[test]
    fn pointers_escape_tilde_and_slash() {
        assert_eq!(member("/keys/0", "a/b~c"), "/keys/0/a~1b~0c");
        assert_eq!(element("/keys", 3), "/keys/3");
    }
}
