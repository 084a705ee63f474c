//! The one strict JSON reader every document entering core goes through: syntax errors and invalid UTF-8 are
//! `invalid_json`, a member name written twice in one object is `duplicate_member` at that member's pointer, and
//! numbers keep their decimal text (serde_json's `arbitrary_precision`), so no amount is rounded through a float.
//!
//! Why repeats are refused: parsers disagree on which copy wins (last here, first elsewhere), so a mandate whose cap
//! is written twice could ALLOW here and mean another cap to the payment service downstream (docs/DOCUMENTS.md).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::error::{Error, ErrorCode};
use crate::pointer::{element, member, type_name};

/// The RFC 6901 pointer to member `name` under `path` (`~` and `/` escaped), for errors outside core.
pub fn member_pointer(path: &str, name: &str) -> String {
    member(path, name)
}

/// Reads a whole JSON document from bytes: UTF-8, syntax, no repeated member anywhere, exact numbers.
pub fn read(bytes: &[u8]) -> Result<Value, Error> {
    read_str(utf8(bytes)?)
}

/// [`read`] over text.
pub fn read_str(text: &str) -> Result<Value, Error> {
    if let Some(repeat) = first_repeat(text)? {
        return Err(repeat);
    }
    serde_json::from_str(text).map_err(|e| Error::from_json_error(&e))
}

/// UTF-8 text, or `invalid_json` (JSON text is UTF-8).
pub fn utf8(bytes: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(bytes)
        .map_err(|e| Error::new(ErrorCode::InvalidJson, "", format!("not valid JSON: not UTF-8 ({e})")))
}

/// The error of a repeated member: `duplicate_member` at the pointer of the member (its first and later copies
/// share it).
pub fn duplicate(path: String, name: &str) -> Error {
    let name = crate::error::excerpt(name);
    Error::new(ErrorCode::DuplicateMember, path, format!("member \"{name}\" appears more than once in its object"))
}

/// Reads `text` once without keeping it: `Err` (`invalid_json`) when it is not JSON; otherwise the first repeated
/// member name in document order, if any (see [`duplicate`]). Streaming readers (the bundle reader) run this first
/// and then read the text their own way, so they never see a repeat.
pub fn first_repeat(text: &str) -> Result<Option<Error>, Error> {
    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    UniqueMembers { loc: Loc::Root, found: &found }
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .map_err(|e| Error::from_json_error(&e))?;
    Ok(found.into_inner().map(|(path, name)| duplicate(path, &name)))
}

/// `invalid_type` at `path`: "expected {expected}, got {the value's JSON type}".
pub fn wrong_type(path: &str, expected: &str, got: &Value) -> Error {
    wrong_type_named(path, expected, type_name(got))
}

/// [`wrong_type`] with the type's name, for a value that was streamed rather than kept.
pub fn wrong_type_named(path: &str, expected: &str, got: &str) -> Error {
    Error::new(ErrorCode::InvalidType, path, format!("expected {expected}, got {got}"))
}

/// Reads one value of a JSON text through `seed` and checks that nothing follows it. Repeats must have been
/// refused before ([`first_repeat`]).
pub(crate) fn read_text<T>(text: &str, seed: impl for<'de> DeserializeSeed<'de, Value = T>) -> Result<T, Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v)).map_err(|e| Error::from_json_error(&e))
}

/// Deserializes a derived struct from JSON bytes, accepting only an object where the struct is (serde's derive also
/// takes a positional array, which no other conforming reader would call the same document). Nested structs use
/// [`object`] as their `deserialize_with`.
pub(crate) fn from_object_slice<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = object(&mut de)?;
    de.end()?;
    Ok(value)
}

/// `deserialize_with` for a struct member that must be written as an object, never as an array.
pub(crate) fn object<'de, D: de::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<T, D::Error> {
    struct AsObject<T>(std::marker::PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for AsObject<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object with named members")
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
            T::deserialize(de::value::MapAccessDeserializer::new(map))
        }
    }

    d.deserialize_map(AsObject(std::marker::PhantomData))
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

    /// A string: borrowed from the text when it has no escapes.
    fn text(self, _text: Cow<'de, str>) -> Result<Self::Out, &'static str> {
        Err("string")
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
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(self.0.text(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.0.text(Cow::Owned(v.to_owned())))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Err("null"))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        // With `arbitrary_precision`, a number reaches `deserialize_any` as a one-member map holding its text.
        let first = map.next_key::<Name<'de>>()?;
        if first.as_ref().is_some_and(|Name(n)| n == NUMBER_TOKEN) {
            map.next_value::<IgnoredAny>()?;
            return Ok(Err("number"));
        }
        self.0.map(Peeked { first: first.map(|Name(n)| n), inner: map })
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.0.seq(seq)
    }
}

/// A string value, through [`Shaped`]: `Ok(text)`, or `Err(type name)` for any other JSON value.
pub(crate) struct Text;

impl<'de> Container<'de> for Text {
    type Out = Cow<'de, str>;

    fn text(self, text: Cow<'de, str>) -> Result<Cow<'de, str>, &'static str> {
        Ok(text)
    }
}

/// A member name, borrowed from the text when it has no escapes.
pub(crate) fn member_name<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Cow<'de, str>>, A::Error> {
    Ok(map.next_key::<Name<'de>>()?.map(|Name(n)| n))
}

/// The member name under which serde_json's `arbitrary_precision` passes a number's text to `deserialize_any`.
/// Not public API, so a test (`streamed_numbers_are_numbers`) fails if serde_json ever changes it.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// An object whose first member name was already read (to tell it from a number), handed on as if it was not.
struct Peeked<'de, A> {
    first: Option<Cow<'de, str>>,
    inner: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Peeked<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        match self.first.take() {
            Some(Cow::Borrowed(name)) => seed.deserialize(de::value::BorrowedStrDeserializer::new(name)).map(Some),
            Some(Cow::Owned(name)) => seed.deserialize(de::value::StringDeserializer::new(name)).map(Some),
            None => self.inner.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.inner.next_value_seed(seed)
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

/// Walks a document, recording the first repeated member name with its pointer.
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

    // With `arbitrary_precision`, serde_json hands a number to `deserialize_any` as a one-member map holding its
    // text; that map has one member, so it can never look like a repeat.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = Seen::default();
        while let Some(Name(name)) = map.next_key::<Name<'de>>()? {
            // A borrowed name clones as a pointer; an owned one (it had escapes) is rare.
            if !seen.insert(name.clone()) {
                // The first repeat is the one reported; walk on, so that a syntax error later still counts.
                let mut found = self.found.borrow_mut();
                if found.is_none() {
                    *found = Some((member(&self.loc.pointer(), &name), name.to_string()));
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
#[allow(clippy::panic)]
mod tests {
    use super::*;

    fn refused(text: &str) -> Option<(ErrorCode, String)> {
        read_str(text).err().map(|e| (e.code, e.path))
    }

    #[test]
    fn repeated_members_are_refused_at_the_member() {
        let want = |path: &str| Some((ErrorCode::DuplicateMember, path.to_owned()));
        assert_eq!(refused(r#"{"keys":[{"x":"a","kty":"OKP","x":"b"}]}"#), want("/keys/0/x"));
        assert_eq!(refused(r#"{"a":1,"a":1}"#), want("/a"));
        // An escaped spelling of the same name is the same name.
        assert_eq!(refused(r#"{"a\u0062":1,"ab":2}"#), want("/ab"));
        // Past the short list: the twentieth member repeats the first.
        let mut members: Vec<String> = (0..19).map(|i| format!(r#""m{i}":{i}"#)).collect();
        members.push(r#""m0":0"#.to_owned());
        assert_eq!(refused(&format!("{{{}}}", members.join(","))), want("/m0"));
        assert_eq!(refused(&format!("{{{}}}", members[..19].join(","))), None);
        // Pointers escape `~` and `/`, through arrays and members.
        assert_eq!(refused(r#"{"x":[0,{"a/b":[{"~":{"k":1,"k":2}}]}]}"#), want("/x/1/a~1b/0/~0/k"));
        // Only the first repeat is reported, and the walk still finds a syntax error after it.
        assert_eq!(refused(r#"[{"a":1,"a":2},{"b":1,"b":2}]"#), want("/0/a"));
        assert_eq!(refused(r#"[{"a":1,"a":2},]"#).map(|e| e.0), Some(ErrorCode::InvalidJson));
        assert_eq!(refused(r#"{"a":1,"a":2} x"#).map(|e| e.0), Some(ErrorCode::InvalidJson));
    }

    #[test]
    fn numbers_keep_their_decimal_text() {
        use crate::decimal::{Dec, DecError};
        // Through an f64, 1e-400 is 0, 1e400 does not parse, and 999999999999999.999999 rounds.
        let read = |text: &str| match read_str(text) {
            Ok(Value::Number(n)) => Dec::from_json_number(&n),
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(read("1e-400"), Err(DecError::TooPrecise));
        assert_eq!(read("1e400"), Err(DecError::TooLarge));
        assert_eq!(read("999999999999999.999999"), Ok(Dec(999_999_999_999_999_999_999)));
        assert_eq!(read("0.1"), Ok(Dec(100_000)));
        assert_eq!(read("49.990"), Ok(Dec(49_990_000)));
    }

    #[test]
    fn streamed_numbers_are_numbers() {
        struct Members;
        impl<'de> Container<'de> for Members {
            type Out = Vec<String>;
            fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Result<Vec<String>, &'static str>, A::Error> {
                let mut names = Vec::new();
                while let Some((k, _)) = map.next_entry::<String, IgnoredAny>()? {
                    names.push(k);
                }
                Ok(Ok(names))
            }
        }
        for number in ["1", "-1", "1.5", "1e400", "18446744073709551616"] {
            assert_eq!(read_text(number, Shaped(Members)).ok(), Some(Err("number")), "{number}");
        }
        // An object still reaches its reader whole, its first member included.
        let names = read_text(r#"{"a\u0062":1,"c":[2.5]}"#, Shaped(Members)).ok();
        assert_eq!(names, Some(Ok(vec!["ab".to_owned(), "c".to_owned()])));
        assert_eq!(read_text("{}", Shaped(Members)).ok(), Some(Ok(vec![])));
    }

    #[test]
    fn syntax_and_encoding_errors_are_invalid_json() {
        for bad in [&b"{"[..], b"[1,]", b"\xff", b"{\"a\":1} {}", b""] {
            assert_eq!(read(bad).err().map(|e| e.code), Some(ErrorCode::InvalidJson));
        }
        assert!(read(br#"{"a":[{"b":1},{"b":2}],"c":{"d":null}}"#).is_ok());
    }

    #[test]
    fn struct_payloads_must_be_objects() {
        #[derive(Debug, Deserialize, PartialEq)]
        #[serde(deny_unknown_fields)]
        struct Inner {
            n: i64,
        }
        #[derive(Debug, Deserialize, PartialEq)]
        #[serde(deny_unknown_fields)]
        struct Outer {
            a: String,
            #[serde(deserialize_with = "object")]
            inner: Inner,
        }
        let ok: serde_json::Result<Outer> = from_object_slice(br#"{"a":"x","inner":{"n":1}}"#);
        assert_eq!(ok.ok(), Some(Outer { a: "x".into(), inner: Inner { n: 1 } }));
        for positional in [&br#"["x",{"n":1}]"#[..], br#"{"a":"x","inner":[1]}"#, br#"{"a":"x","inner":[]}"#] {
            assert!(from_object_slice::<Outer>(positional).is_err());
        }
    }
}
