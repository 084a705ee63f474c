//! What the regression tests of the core and of the CLI expect of a check response.

use serde_json::{Value, json};

/// A check response's findings as a regression keeps them in its expectations (docs/REGRESSION.md): the rule, the
/// span and the text of each, in order. A response without findings is `null`.
pub fn expected_findings(response: &Value) -> Value {
    match response["findings"].as_array() {
        Some(findings) => {
            findings.iter().map(|f| json!({"rule": f["rule"], "span": f["span"], "text": f["text"]})).collect()
        }
        None => Value::Null,
    }
}
