//! Strict JSON reading for trust material: syntax errors as `invalid_json`, and objects that repeat a member name
//! refused (parsers disagree on which copy wins, so a repeated `x` or `kid` could mean two keys to two verifiers).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
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
    UniqueMembers { loc: Loc::Root, found: &found }
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

/// Where a value sits, as a chain up to the document root, so that its pointer is written only for a repeat.
#[derive(Debug, Clone, Copy)]
enum Loc<'a> {
    Root,
    Member(&'a Loc<'a>, &'a str),
    Element(&'a Loc<'a>, usize),
}

impl Loc<'_> {
    fn pointer(&self) -> String {
        match self {
            Loc::Root => String::new(),
            Loc::Member(parent, name) => member(&parent.pointer(), name),
            Loc::Element(parent, i) => element(&parent.pointer(), *i),
        }
    }
}

/// A member name, borrowed from the text when it has no escapes.
struct Name<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Name<'de> {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(NameVisitor)
    }
}

struct NameVisitor;

impl<'de> Visitor<'de> for NameVisitor {
    type Value = Name<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Name<'de>, E> {
        Ok(Name(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Name<'de>, E> {
        Ok(Name(Cow::Owned(v.to_owned())))
    }
}

/// The names seen in one object: a short list for the usual handful, a hash set past it (so a huge object stays
/// linear).
#[derive(Default)]
struct Seen<'de> {
    few: Vec<Cow<'de, str>>,
    many: HashSet<Cow<'de, str>>,
}

impl<'de> Seen<'de> {
    const FEW: usize = 8;

    /// `false` when `name` was seen before.
    fn insert(&mut self, name: Cow<'de, str>) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&name) {
                return false;
            }
            if self.few.len() < Self::FEW {
                self.few.push(name);
                return true;
            }
            self.many.extend(self.few.drain(..));
        }
        self.many.insert(name)
    }
}

/// Walks a document, recording the first repeated member name with the pointer of its object.
struct UniqueMembers<'a> {
    loc: Loc<'a>,
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
            let seed = UniqueMembers { loc: Loc::Element(&self.loc, i), found: self.found };
            if seq.next_element_seed(seed)?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = Seen::default();
        while let Some(Name(name)) = map.next_key::<Name<'de>>()? {
            // A borrowed name clones as a pointer; an owned one (it had escapes) is rare.
            if !seen.insert(name.clone()) {
                // The first repeat is the one reported; walk on, so that a syntax error later still counts.
                let mut found = self.found.borrow_mut();
                if found.is_none() {
                    *found = Some((self.loc.pointer(), name.to_string()));
                }
            }
            map.next_value_seed(UniqueMembers { loc: Loc::Member(&self.loc, &name), found: self.found })?;
        }
        Ok(())
    }
}

impl fmt::Debug for UniqueMembers<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UniqueMembers").field("path", &self.loc.pointer()).finish()
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
    fn repeats_are_found_in_escaped_names_large_objects_and_deep_pointers() {
        let repeat = |text: &str| first_repeat(text).ok().flatten().map(|e| (e.path, e.message));
        // An escaped spelling of the same name is the same name.
        assert_eq!(repeat(r#"{"a\u0062":1,"ab":2}"#).map(|r| r.0), Some(String::new()));
        // Past the short list: the twentieth member repeats the first.
        let mut members: Vec<String> = (0..19).map(|i| format!(r#""m{i}":{i}"#)).collect();
        members.push(r#""m0":0"#.to_owned());
        assert_eq!(
            repeat(&format!("{{{}}}", members.join(","))).map(|r| r.1),
            Some(r#"member "m0" appears more than once"#.to_owned())
        );
        assert_eq!(repeat(&format!("{{{}}}", members[..19].join(","))), None);
        // The pointer of the object holding the repeat, escaped, through arrays and members.
        let deep = r#"{"x":[0,{"a/b":[{"~":{"k":1,"k":2}}]}]}"#;
        assert_eq!(repeat(deep).map(|r| r.0), Some("/x/1/a~1b/0/~0".to_owned()));
        // Only the first repeat is reported, and the walk still finds a syntax error after it.
        assert_eq!(repeat(r#"[{"a":1,"a":2},{"b":1,"b":2}]"#).map(|r| r.0), Some("/0".to_owned()));
        assert!(first_repeat(r#"[{"a":1,"a":2},]"#).is_err());
        assert!(first_repeat(r#"{"a":1,"a":2} x"#).is_err());
    }

    #[test]
    fn ordinary_documents_pass_and_syntax_errors_are_invalid_json() {
        assert!(parse_strict(r#"{"a":[{"b":1},{"b":2}],"c":{"d":null}}"#).is_ok());
        assert_eq!(parse_strict("{").err().map(|e| e.code), Some(ErrorCode::InvalidJson));
        assert_eq!(parse_strict("[1,]").err().map(|e| e.code), Some(ErrorCode::InvalidJson));
    }
}
