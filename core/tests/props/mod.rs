//! Strategies shared by the property tests: fragments to glue into near-valid text, and JSON scalars.
#![allow(dead_code)] // each test file uses its own subset

use proptest::prelude::*;
use proptest::strategy::Union;
use serde_json::Value;

/// Each of `fixed` as written, a string matching one of `patterns`, or one of `more`: all equally likely.
pub(crate) fn fragments(
    fixed: &[&'static str],
    patterns: &[&'static str],
    more: Vec<BoxedStrategy<String>>,
) -> Union<BoxedStrategy<String>> {
    let fixed = fixed.iter().map(|s| Just((*s).to_owned()).boxed());
    let patterns = patterns.iter().map(|p| (*p).boxed());
    Union::new(fixed.chain(patterns).chain(more))
}

/// One character, any of them.
pub(crate) fn any_char() -> BoxedStrategy<String> {
    any::<char>().prop_map(String::from).boxed()
}

/// The JSON scalars every reader must take or refuse cleanly, equally likely: null, a boolean, any i64, any u64,
/// a double within ±1e20.
pub(crate) fn json_scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e20f64..1e20).prop_map(Value::from),
    ]
}

/// Every JSON pointer in `v`, the root (`at`) included.
pub(crate) fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            m.iter().for_each(|(k, x)| pointers(x, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out))
        }
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| pointers(x, format!("{at}/{i}"), out)),
        _ => {}
    }
}
