//! Strict JSON reading for trust material: syntax errors as `invalid_json`, and objects that repeat a member name
//! refused (parsers disagree on which copy wins, so a repeated `x` or `kid` could mean two keys to two verifiers).

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::{Error, ErrorCode};
use crate::pointer::{element, member, type_name};

/// Parses `text` as JSON, refusing repeated member names anywhere (the error path is the object holding them).
pub(crate) fn parse_strict(text: &str) -> Result<Value, Error> {
    if let Some(repeat) = first_repeat(text)? {
        return Err(repeat);
    }
    serde_json::from_str(text).map_err(|e| Error::from_json_error(&e))
}

/// Reads `text` once without keeping it: `Err` (`invalid_json`) when it is not JSON; otherwise the first repeated
/// member name in document order, if any, as an `invalid_json` error at the pointer of the object holding it.
pub(crate) fn first_repeat(text: &str) -> Result<Option<Error>, Error> {
    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    UniqueMembers { path: String::new(), found: &found }
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .map_err(|e| Error::from_json_error(&e))?;
    Ok(found.into_inner().map(|(path, name)| {
        Error::new(ErrorCode::InvalidJson, path, format!("member \"{name}\" appears more than once"))
    }))
}

/// `invalid_type` at `path`: "expected {expected}, got {the value's JSON type}".
pub(crate) fn wrong_type(path: &str, expected: &str, got: &Value) -> Error {
    wrong_type_named(path, expected, type_name(got))
}

/// [`wrong_type`] with the type's name, for a value that was streamed rather than kept.
pub(crate) fn wrong_type_named(path: &str, expected: &str, got: &str) -> Error {
    Error::new(ErrorCode::InvalidType, path, format!("expected {expected}, got {got}"))
}

/// Reads one value of a JSON text through `seed` and checks that nothing follows it.
pub(crate) fn read_text<T>(text: &str, seed: impl for<'de> DeserializeSeed<'de, Value = T>) -> Result<T, Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v)).map_err(|e| Error::from_json_error(&e))
}

/// A reader for one kind of JSON container, used through [`Shaped`]: `map` reads an object, `seq` an array. The one
/// not overridden drains its container and answers with its type name, so a caller can report "expected an
/// object, got array" at its own path without having built the value.
pub(crate) trait Container<'de>: Sized {
    type Out;

    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Result<Self::Out, &'static str>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Err("object"))
    }

    fn seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Result<Self::Out, &'static str>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Err("array"))
    }
}

/// Streams a value into a [`Container`]: `Ok(out)` when it is the container's kind, `Err(type name)` otherwise.
pub(crate) struct Shaped<C>(pub C);

impl<'de, C: Container<'de>> DeserializeSeed<'de> for Shaped<C> {
    type Value = Result<C::Out, &'static str>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de, C: Container<'de>> Visitor<'de> for Shaped<C> {
    type Value = Result<C::Out, &'static str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Err("boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Err("number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Err("number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Err("number"))
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(Err("string"))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err("null"))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.map(map)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.seq(seq)
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
                // The first repeat is the one reported; walk on, so that a syntax error later still counts.
                let mut found = self.found.borrow_mut();
                if found.is_none() {
                    *found = Some((self.path.clone(), name.clone()));
                }
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
}
