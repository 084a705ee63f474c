//! Canonical JSON text: object members sorted by name, compact or with two-space indentation, so that generated
//! files are the same bytes whatever order `serde_json::Map` keeps members in.

use std::fmt::Write as _;

use serde_json::Value;

/// JSON text with object members sorted by name and two-space indentation: independent of how `serde_json::Map`
/// orders members in a given build, so the files regenerate byte for byte.
pub fn canonical_pretty(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v, 0, true);
    out.push('\n');
    out
}

/// The same, compact.
pub fn canonical(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v, 0, false);
    out
}

fn write_value(out: &mut String, v: &Value, depth: usize, pretty: bool) {
    let newline = |out: &mut String, depth: usize| {
        if pretty {
            out.push('\n');
            out.push_str(&"  ".repeat(depth));
        }
    };
    match v {
        Value::Array(list) if !list.is_empty() => {
            out.push('[');
            for (i, x) in list.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                write_value(out, x, depth + 1, pretty);
            }
            newline(out, depth);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            let mut names: Vec<&String> = map.keys().collect();
            names.sort();
            out.push('{');
            for (i, k) in names.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, depth + 1);
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                if pretty {
                    out.push(' ');
                }
                write_value(out, &map[k], depth + 1, pretty);
            }
            newline(out, depth);
            out.push('}');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn canonical_json_sorts_members() {
        let v = json!({"b": [1, {"d": null, "c": "é—"}], "a": {}});
        assert_eq!(canonical(&v), r#"{"a":{},"b":[1,{"c":"é—","d":null}]}"#);
        assert_eq!(canonical_pretty(&json!({"a": [1]})), "{\n  \"a\": [\n    1\n  ]\n}\n");
    }
}
