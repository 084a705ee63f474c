//! YAML documents read as the JSON value the strict reader would see (feature `yaml`; the `curbi` command reads
//! `.yaml`/`.yml` files with it). The YAML is converted to JSON *text* that [`crate::json::read`] then reads, so
//! everything the strict reader refuses is refused here too, with the same codes and paths: a repeated key is
//! `duplicate_member`, numbers keep their decimal digits (never an `f64`), nesting is bounded.
//!
//! Scalars resolve by the YAML 1.2 core schema: quoted and block scalars are strings; plain `null`, `~` and empty
//! are null, `true`/`false` booleans, decimal, `0o` and `0x` integers and decimal floats numbers, anything else a
//! string. What JSON cannot hold is refused with `invalid_json` and the JSON pointer where it stands: aliases (a
//! policy writes each value out), tags other than the core schema's, `.inf`/`.nan`, non-scalar keys, more than one
//! document. The parser is `saphyr-parser` (docs/YAML.md says why).
//!
//! Every error names the YAML source line and column (`(YAML line 3, column 5)`) beside the JSON pointer of the bad
//! field, never a position in the converted text: what the strict reader refuses in that text (a repeated key,
//! nesting too deep) is found here and traced back to the YAML node it came from.

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Tag};

use crate::error::{Error, ErrorCode, Result, excerpt};

/// Reads a YAML document as the strict reader reads JSON: the value, or the first error.
pub fn read(text: &str) -> Result<serde_json::Value> {
    crate::json::read_str(&to_json(text)?)
}

/// Converts one YAML document to JSON text (compact, keys in document order) that the strict reader reads as it
/// is: what it would refuse (a repeated key, nesting too deep) is refused here, at the YAML line and column.
pub fn to_json(text: &str) -> Result<String> {
    let mut c = Converter {
        out: String::with_capacity(text.len() + 16),
        stack: Vec::new(),
        documents: 0,
        at: (1, 0),
        marks: Vec::new(),
    };
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|e| syntax(&e))?;
        c.at = (span.start.line(), span.start.col());
        c.event(event)?;
    }
    if c.documents == 0 {
        return Err(Error::new(ErrorCode::InvalidJson, "", "not valid YAML: the document is empty"));
    }
    // The strict reader's refusals, found on the converted text without building its value, and told in the YAML's
    // terms: a repeated key at the second copy's line, a JSON syntax error (nesting too deep) at the node where the
    // converted text fails.
    match crate::json::first_repeat(&c.out) {
        Ok(None) => Ok(c.out),
        Ok(Some(e)) => Err(match find(text, &e.path, 2) {
            Some(at) => located(e, at),
            None => e,
        }),
        Err(e) => Err(c.at_json_position(e, text)),
    }
}

/// `e` with the YAML position `(line, 0-based column)` it concerns.
fn located(e: Error, (line, col): (usize, usize)) -> Error {
    let message = format!("{} (YAML line {line}, column {})", e.message, col + 1);
    Error::new(e.code, e.path, message)
}

/// Where the YAML node at JSON pointer `target` starts, as `(line, 0-based column)`: a mapping member at its key
/// (where a repeated or unknown key is written), the `nth` time that key is written (`2` finds the repeat of a
/// repeated key) or else the first; for a pointer to nothing (a missing member), the deepest node on its way. One
/// pass over the events.
fn find(text: &str, target: &str, nth: usize) -> Option<(usize, usize)> {
    let (mut seen, mut exact, mut deepest) = (0, None, None::<(usize, (usize, usize))>);
    walk(text, |pointer, at| {
        if pointer == target {
            seen += 1;
            if seen == 1 || seen == nth {
                exact = Some(at);
            }
        } else if leads_to(pointer, target) && deepest.is_none_or(|(len, _)| pointer.len() > len) {
            deepest = Some((pointer.len(), at));
        }
    });
    exact.or(deepest.map(|(_, at)| at))
}

/// Whether `pointer` is a proper ancestor of `target`.
fn leads_to(pointer: &str, target: &str) -> bool {
    target.len() > pointer.len() && target.starts_with(pointer) && target.as_bytes()[pointer.len()] == b'/'
}

/// Where in the YAML `text` each JSON pointer of `pointers` is written, as `(line, column)` from 1: a member at its
/// key, an item where it starts; a pointer to nothing (a missing member) at the deepest node on its way; `None`
/// when `text` is not YAML. For messages about a document converted by [`to_json`] that name only a pointer (a
/// policy's schema errors): one pass over the document for all of them.
pub fn positions(text: &str, pointers: &[&str]) -> Vec<Option<(usize, usize)>> {
    // Each pointer and its ancestors, each filled with the first node written at it.
    let mut at: std::collections::HashMap<&str, Option<(usize, usize)>> = std::collections::HashMap::new();
    for p in pointers {
        at.insert(p, None);
        for (i, b) in p.bytes().enumerate() {
            if b == b'/' {
                at.insert(&p[..i], None);
            }
        }
    }
    walk(text, |pointer, here| {
        if let Some(slot @ None) = at.get_mut(pointer) {
            *slot = Some((here.0, here.1 + 1));
        }
    });
    let found = |p: &str| at.get(p).copied().flatten();
    pointers
        .iter()
        .map(|p| {
            // The nearest ancestor written, when `p` itself is not.
            found(p).or_else(|| p.rmatch_indices('/').map(|(i, _)| &p[..i]).find_map(found))
        })
        .collect()
}

/// An open collection while [`walk`] goes through a document: the next index of a sequence (`None`: a mapping),
/// whether a mapping's next event is a key, and the pointer's length at the collection.
struct Open {
    index: Option<usize>,
    key_next: bool,
    len: usize,
}

/// Calls `visit` with the JSON pointer and YAML position `(line, 0-based column)` of every node of `text`, in
/// document order: a mapping member at its key, its value not again. Stops at the first syntax error.
fn walk(text: &str, mut visit: impl FnMut(&str, (usize, usize))) {
    let mut stack: Vec<Open> = Vec::new();
    let mut pointer = String::new();
    // A node ended: in a mapping, the next event is a key.
    let value_ended = |stack: &mut Vec<Open>| {
        if let Some(open) = stack.last_mut()
            && open.index.is_none()
        {
            open.key_next = true;
        }
    };
    for event in Parser::new_from_str(text) {
        let Ok((event, span)) = event else { break };
        let at = (span.start.line(), span.start.col());
        let sequence = match &event {
            Event::SequenceStart(..) => Some(true),
            Event::MappingStart(..) => Some(false),
            Event::Scalar(..) | Event::Alias(_) => None,
            Event::SequenceEnd | Event::MappingEnd => {
                stack.pop();
                value_ended(&mut stack);
                continue;
            }
            _ => continue,
        };
        match stack.last_mut() {
            None => {
                pointer.clear();
                visit(&pointer, at);
            }
            Some(open) if open.index.is_some() => {
                let i = open.index.unwrap_or(0);
                open.index = Some(i + 1);
                pointer.truncate(open.len);
                pointer.push_str(&format!("/{i}"));
                visit(&pointer, at);
            }
            Some(open) if open.key_next => {
                open.key_next = false;
                pointer.truncate(open.len);
                pointer.push('/');
                if let Event::Scalar(k, ..) = &event {
                    pointer.push_str(&k.replace('~', "~0").replace('/', "~1"));
                }
                visit(&pointer, at);
                // The key is not a node of its own: its value comes next, at this pointer.
                continue;
            }
            // A member's value: visited at its key already.
            Some(_) => {}
        }
        match sequence {
            Some(seq) => stack.push(Open { index: seq.then_some(0), key_next: !seq, len: pointer.len() }),
            None => value_ended(&mut stack),
        }
    }
}

fn syntax(e: &ScanError) -> Error {
    let m = e.marker();
    Error::new(
        ErrorCode::InvalidJson,
        "",
        format!("not valid YAML at line {}, column {}: {}", m.line(), m.col() + 1, e.info()),
    )
}

/// The JSON pointer of the value about to be written under `stack`.
fn pointer_of(stack: &[Frame]) -> String {
    let mut p = String::new();
    for f in stack {
        match f {
            Frame::Seq(i) => p.push_str(&format!("/{i}")),
            Frame::Map { key: Some(k), .. } => p.push_str(&format!("/{}", k.replace('~', "~0").replace('/', "~1"))),
            // A key not read yet: the error is the mapping's own.
            Frame::Map { key: None, .. } => {}
        }
    }
    p
}

/// The pointer of the node whose JSON starts at `offset` of the converted text: the conversion again, up to it.
fn pointer_at(text: &str, offset: usize) -> Option<String> {
    let mut c = Converter { out: String::new(), stack: Vec::new(), documents: 0, at: (1, 0), marks: Vec::new() };
    for event in Parser::new_from_str(text) {
        let (event, _) = event.ok()?;
        let (depth, before) = (c.stack.len(), c.out.len());
        c.event(event).ok()?;
        if c.out.len() > offset {
            // A collection that starts here has pushed its own frame: the pointer is its parent's view of it.
            let frames = if c.stack.len() > depth && before <= offset { &c.stack[..depth] } else { &c.stack[..] };
            return Some(pointer_of(frames));
        }
    }
    None
}

enum Frame {
    /// A sequence and the index of its next item.
    Seq(usize),
    /// A mapping: the key being read (Some once read, until its value ends), and whether one entry was written.
    Map { key: Option<String>, first: bool },
}

struct Converter {
    out: String,
    stack: Vec<Frame>,
    documents: usize,
    /// The YAML position `(line, 0-based column)` of the event being converted.
    at: (usize, usize),
    /// Where each node's JSON starts in `out`, with its YAML position, in order: a position in the converted text
    /// is traced back to the node it belongs to.
    marks: Vec<(usize, (usize, usize))>,
}

impl Converter {
    /// The JSON pointer of the value about to be written.
    fn pointer(&self) -> String {
        pointer_of(&self.stack)
    }

    /// Notes that the node of the current event starts here in the converted text.
    fn mark(&mut self) {
        self.marks.push((self.out.len(), self.at));
    }

    /// A refusal of the strict reader with a position in the converted text (`… at line 1 column N`: the text is one
    /// line) as the YAML node there: its line and column, and its pointer.
    fn at_json_position(&self, e: Error, text: &str) -> Error {
        let Some((head, column)) = e.message.rsplit_once(" at line 1 column ") else { return e };
        let Ok(column) = column.parse::<usize>() else { return e };
        let offset = column.saturating_sub(1);
        let i = self.marks.partition_point(|&(start, _)| start <= offset);
        let Some(&(start, (line, col))) = i.checked_sub(1).and_then(|i| self.marks.get(i)) else { return e };
        let path = pointer_at(text, start).unwrap_or(e.path);
        Error::new(e.code, path, format!("{head} (YAML line {line}, column {})", col + 1))
    }

    fn refuse(&self, msg: impl Into<String>) -> Error {
        let (line, col) = self.at;
        let message = format!("not representable as JSON: {} (YAML line {line}, column {})", msg.into(), col + 1);
        Error::new(ErrorCode::InvalidJson, self.pointer(), message)
    }

    /// Whether the next node is a mapping key.
    fn at_key(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map { key: None, .. }))
    }

    /// Writes the separator before a sequence item.
    fn before_value(&mut self) {
        if let Some(Frame::Seq(i)) = self.stack.last() {
            if *i > 0 {
                self.out.push(',');
            }
        }
    }

    /// Marks the current value as written: the sequence moves on, the mapping waits for its next key.
    fn after_value(&mut self) {
        match self.stack.last_mut() {
            Some(Frame::Seq(i)) => *i += 1,
            Some(Frame::Map { key, .. }) => *key = None,
            None => {}
        }
    }

    fn event(&mut self, event: Event<'_>) -> Result<()> {
        match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => Ok(()),
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(Error::new(
                        ErrorCode::InvalidJson,
                        "",
                        "not representable as JSON: more than one YAML document (---)",
                    ));
                }
                Ok(())
            }
            Event::Alias(_) => Err(self.refuse("a YAML alias (*name); write the value out where it is used")),
            Event::Scalar(value, style, _anchor, tag) => {
                if self.at_key() {
                    let first = matches!(self.stack.last(), Some(Frame::Map { first: true, .. }));
                    if !first {
                        self.out.push(',');
                    }
                    self.mark();
                    push_string(&mut self.out, &value);
                    self.out.push(':');
                    if let Some(Frame::Map { key, first }) = self.stack.last_mut() {
                        *key = Some(value.into_owned());
                        *first = false;
                    }
                    return Ok(());
                }
                self.before_value();
                self.mark();
                let json = self.scalar(&value, style, tag.as_deref())?;
                self.out.push_str(&json);
                self.after_value();
                Ok(())
            }
            Event::SequenceStart(_, tag) | Event::MappingStart(_, tag) if self.at_key() => {
                let _ = tag;
                Err(self.refuse("a mapping key that is a sequence or a mapping; JSON keys are strings"))
            }
            Event::SequenceStart(_, tag) => {
                self.collection_tag(tag.as_deref(), "seq")?;
                self.before_value();
                self.mark();
                self.out.push('[');
                self.stack.push(Frame::Seq(0));
                Ok(())
            }
            Event::MappingStart(_, tag) => {
                self.collection_tag(tag.as_deref(), "map")?;
                self.before_value();
                self.mark();
                self.out.push('{');
                self.stack.push(Frame::Map { key: None, first: true });
                Ok(())
            }
            Event::SequenceEnd => {
                self.stack.pop();
                self.out.push(']');
                self.after_value();
                Ok(())
            }
            Event::MappingEnd => {
                self.stack.pop();
                self.out.push('}');
                self.after_value();
                Ok(())
            }
        }
    }

    fn collection_tag(&self, tag: Option<&Tag>, want: &str) -> Result<()> {
        match tag {
            None => Ok(()),
            Some(t) if t.is_yaml_core_schema() && t.suffix == want => Ok(()),
            Some(t) => Err(self.refuse(format!("the tag {}", excerpt(&format!("{}{}", t.handle, t.suffix))))),
        }
    }

    /// A value scalar as JSON text.
    fn scalar(&self, value: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<String> {
        let mut out = String::new();
        match tag {
            Some(t) if t.is_yaml_core_schema() && t.suffix == "str" => {
                push_string(&mut out, value);
                return Ok(out);
            }
            Some(t) if t.is_yaml_core_schema() && matches!(t.suffix.as_str(), "int" | "float" | "bool" | "null") => {
                return match plain(value) {
                    Ok(Some((json, kind))) if kind == t.suffix || (kind == "int" && t.suffix == "float") => Ok(json),
                    Err(msg) => Err(self.refuse(msg)),
                    _ => Err(self.refuse(format!("{:?} is not a !!{}", excerpt(value), excerpt(&t.suffix)))),
                };
            }
            Some(t) => return Err(self.refuse(format!("the tag {}", excerpt(&format!("{}{}", t.handle, t.suffix))))),
            None => {}
        }
        if style != ScalarStyle::Plain {
            push_string(&mut out, value);
            return Ok(out);
        }
        match plain(value) {
            Ok(Some((json, _))) => Ok(json),
            Ok(None) => {
                push_string(&mut out, value);
                Ok(out)
            }
            Err(msg) => Err(self.refuse(msg)),
        }
    }
}

/// A plain scalar resolved by the YAML 1.2 core schema: `Some((json, kind))` for null, bool, int and float, `None`
/// for a string, `Err` for what JSON cannot hold.
fn plain(v: &str) -> std::result::Result<Option<(String, &'static str)>, String> {
    match v {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Some(("null".into(), "null"))),
        "true" | "True" | "TRUE" => return Ok(Some(("true".into(), "bool"))),
        "false" | "False" | "FALSE" => return Ok(Some(("false".into(), "bool"))),
        _ => {}
    }
    let unsigned = v.strip_prefix(['-', '+']).unwrap_or(v);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || (unsigned == v && matches!(v, ".nan" | ".NaN" | ".NAN")) {
        return Err(format!("{v} (JSON numbers are finite)"));
    }
    for (prefix, radix) in [("0o", 8), ("0x", 16)] {
        if let Some(digits) = v.strip_prefix(prefix) {
            if !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix)) {
                return match u128::from_str_radix(digits, radix) {
                    Ok(n) => Ok(Some((n.to_string(), "int"))),
                    Err(_) => Err(format!("the integer {} is too large", excerpt(v))),
                };
            }
            return Ok(None);
        }
    }
    Ok(decimal(v))
}

/// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?` as JSON number text, keeping every digit.
fn decimal(v: &str) -> Option<(String, &'static str)> {
    let (sign, rest) = match v.as_bytes().first() {
        Some(b'-') => ("-", &v[1..]),
        Some(b'+') => ("", &v[1..]),
        _ => ("", v),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || !frac.is_none_or(digits) || (int.is_empty() && frac.is_none_or(str::is_empty)) {
        return None;
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        if e.is_empty() || !digits(e) {
            return None;
        }
    }
    let int = int.trim_start_matches('0');
    let mut json = format!("{sign}{}", if int.is_empty() { "0" } else { int });
    let mut kind = "int";
    if let Some(f) = frac.filter(|f| !f.is_empty()) {
        json.push('.');
        json.push_str(f);
        kind = "float";
    } else if frac.is_some() {
        kind = "float";
    }
    if let Some(e) = exponent {
        json.push('e');
        json.push_str(e);
        kind = "float";
    }
    Some((json, kind))
}

/// Appends `s` as a JSON string.
fn push_string(out: &mut String, s: &str) {
    // serde_json's escaping of a plain string cannot fail.
    out.push_str(&serde_json::Value::String(s.to_owned()).to_string());
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn err(text: &str) -> (ErrorCode, String) {
        let e = read(text).unwrap_err();
        (e.code, e.path)
    }

    #[test]
    fn a_policy_reads_as_its_json() {
        let text = "\
prices:
  - item: Starter
    amount: 49.90   # digits kept: 49.90, not 49.9
  - {item: 'Pro', amounts: [99, 0x10, 0o17, +5, 007, .5, 1., 2e3]}
forbid:
  - id: guarantee
    phrases: [\"guarantee\", guaranteed]
unknownAmounts: allow
name: ~
description: |
  two
  lines
";
        let got = to_json(text).unwrap();
        assert_eq!(
            got,
            r#"{"prices":[{"item":"Starter","amount":49.90},{"item":"Pro","amounts":[99,16,15,5,7,0.5,1,2e3]}],"forbid":[{"id":"guarantee","phrases":["guarantee","guaranteed"]}],"unknownAmounts":"allow","name":null,"description":"two\nlines\n"}"#
        );
        let v = read(text).unwrap();
        assert_eq!(v["prices"][0]["amount"].to_string(), "49.90");
        assert_eq!(v["name"], json!(null));
    }

    #[test]
    fn scalars_resolve_by_the_core_schema() {
        let v =
            read("[yes, no, 'true', true, False, '', \"12\", 12, 1_000, 1.2.3, 0x, 0xZ, !!str 5, !!float 5]").unwrap();
        assert_eq!(v, json!(["yes", "no", "true", true, false, "", "12", 12, "1_000", "1.2.3", "0x", "0xZ", "5", 5]));
        assert_eq!(to_json("-0").unwrap(), "-0");
    }

    #[test]
    fn repeated_keys_are_refused_like_json() {
        let (code, path) = err("prices:\n  - item: A\n    item: B\n");
        assert_eq!((code, path.as_str()), (ErrorCode::DuplicateMember, "/prices/0/item"));
        let (code, path) = err("a: 1\nb: 2\na: 3\n");
        assert_eq!((code, path.as_str()), (ErrorCode::DuplicateMember, "/a"));
    }

    #[test]
    fn what_json_cannot_hold_is_refused_where_it_stands() {
        assert_eq!(err("a: &x 1\nb: *x\n"), (ErrorCode::InvalidJson, "/b".into()));
        assert_eq!(err("prices:\n  - amount: .inf\n"), (ErrorCode::InvalidJson, "/prices/0/amount".into()));
        assert_eq!(err("x: -.Inf"), (ErrorCode::InvalidJson, "/x".into()));
        assert_eq!(err("x: .nan"), (ErrorCode::InvalidJson, "/x".into()));
        assert_eq!(err("x: !custom 1"), (ErrorCode::InvalidJson, "/x".into()));
        assert_eq!(err("? [a]\n: 1\n"), (ErrorCode::InvalidJson, "".into()));
        assert_eq!(err("a/b~: [0, !!int x]"), (ErrorCode::InvalidJson, "/a~1b~0/1".into()));
        assert_eq!(err("a: 1\n---\nb: 2\n"), (ErrorCode::InvalidJson, "".into()));
        assert_eq!(err(""), (ErrorCode::InvalidJson, "".into()));
        assert_eq!(err("x: 0x100000000000000000000000000000000"), (ErrorCode::InvalidJson, "/x".into()));
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let e = read("a: [1, 2\nb: 3\n").unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        assert!(e.message.starts_with("not valid YAML at line "), "{}", e.message);
    }

    /// The `(YAML line L, column C)` an error message ends with.
    fn yaml_position(e: &Error) -> (usize, usize) {
        let (_, tail) = e.message.rsplit_once("(YAML line ").expect("the message ends with a YAML position");
        let (line, col) = tail.trim_end_matches(')').split_once(", column ").unwrap();
        (line.parse().unwrap(), col.parse().unwrap())
    }

    #[test]
    fn errors_name_the_yaml_line_and_column_never_a_position_in_the_converted_text() {
        // A repeated key: at the second copy, where it is written in the YAML.
        let e = read("prices:\n  - item: A\n    amount: 1\n    item: B\n").unwrap_err();
        assert_eq!((e.code, e.path.as_str()), (ErrorCode::DuplicateMember, "/prices/0/item"));
        assert_eq!(yaml_position(&e), (4, 5));
        let e = to_json("a: 1\nb:\n  c: 2\n  c: 3\n").unwrap_err();
        assert_eq!((e.code, e.path.as_str(), yaml_position(&e)), (ErrorCode::DuplicateMember, "/b/c", (4, 3)));
        // What JSON cannot hold, at its node.
        let e = read("a: &x 1\nb: *x\n").unwrap_err();
        assert_eq!((e.path.as_str(), yaml_position(&e)), ("/b", (2, 4)));
        let e = read("list:\n  - 1\n  - .nan\n").unwrap_err();
        assert_eq!((e.path.as_str(), yaml_position(&e)), ("/list/1", (3, 5)));
        // Nesting too deep for the strict reader (containers 128 deep): mapping k starts at line k, column 2k - 1,
        // so the 128th is at line 128, column 255, under 127 keys "a".
        let deep: String =
            (0..200).map(|i| format!("{}a:\n", "  ".repeat(i))).collect::<String>() + &"  ".repeat(200) + "1\n";
        let e = read(&deep).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidJson);
        assert_eq!(yaml_position(&e), (128, 255), "{}", e.message);
        assert_eq!(e.path, "/a".repeat(127));
        assert!(!e.message.contains("line 1 column"), "{}", e.message);
        // A JSON document is YAML too: the same column as the JSON reader's, on line 1.
        let flow = format!("{}{}", "[".repeat(150), "]".repeat(150));
        let json_error = crate::json::read_str(&flow).unwrap_err();
        let json_column: usize = json_error.message.rsplit_once("column ").unwrap().1.parse().unwrap();
        let e = read(&flow).unwrap_err();
        assert_eq!(yaml_position(&e), (1, json_column));
        assert_eq!(e.path, "/0".repeat(json_column - 1));
    }

    #[test]
    fn positions_name_where_each_pointer_is_written() {
        // Line 6: `"a/b~": {x: [1, 2]}`, the item 2 in column 17.
        let text = "prices:\n  - item: Pro\n    amount: -5\n  - item: Team\n    amout: 3\n\"a/b~\": {x: [1, 2]}\n";
        let pointers =
            ["/prices/0/amount", "/prices/1/amout", "/prices/1/amount", "/prices/1", "/a~1b~0/x/1", "", "/no"];
        let want = [Some((3, 5)), Some((5, 5)), Some((4, 5)), Some((4, 5)), Some((6, 17)), Some((1, 1)), Some((1, 1))];
        assert_eq!(positions(text, &pointers), want);
        // Not YAML: nothing is claimed.
        assert_eq!(positions("a: [", &["/a"]), vec![Some((1, 1))]);
        assert_eq!(positions("", &["/a"]), vec![None]);
    }

    #[test]
    fn a_json_document_is_yaml_too() {
        let text = r#"{"policy": {"prices": [{"item": "Starter", "amount": 49}]}, "reply": "Starter costs $99."}"#;
        assert_eq!(read(text).unwrap(), crate::json::read_str(text).unwrap());
    }
}
