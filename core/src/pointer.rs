//! RFC 6901 JSON pointers and JSON type names, for the paths and messages of every coded error in core.

use serde_json::Value;

/// Pointer to member `name` under `path` (`~` and `/` escaped).
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

/// Pointer to element `i` under `path`.
pub(crate) fn element(path: &str, i: usize) -> String {
    format!("{path}/{i}")
}

/// The JSON type name of a value, for messages ("expected an array, got object").
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_tilde_and_slash() {
        assert_eq!(member("/keys/0", "a/b~c"), "/keys/0/a~1b~0c");
        assert_eq!(member("", "~1"), "/~01");
        assert_eq!(element("/keys", 3), "/keys/3");
    }

    #[test]
    fn type_names() {
        let names: Vec<_> = serde_json::json!([null, true, 1, "s", [], {}])
            .as_array()
            .map_or_else(Vec::new, |a| a.iter().map(type_name).collect());
        assert_eq!(names, ["null", "boolean", "number", "string", "array", "object"]);
    }
}
