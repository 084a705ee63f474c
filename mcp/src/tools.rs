//! The tools: the six public ones with seed 000's definitions verbatim (`tools.json`), and the keyed ones
//! (`keyed_tools.json`). Each call gives the exact JSON text of its answer; argument errors are tool errors.

use std::sync::LazyLock;

use curbi::api::Clock;
use curbi::time::Timestamp;
use serde_json::{Value, json};

use crate::auth::{Caller, Scope};
use crate::catalog;

/// Seed 000's recorded `tools/list` result, tool by tool, verbatim.
pub const PUBLIC_TOOLS_JSON: &str = include_str!("../tools.json");
/// The keyed tools' definitions.
pub const KEYED_TOOLS_JSON: &str = include_str!("../keyed_tools.json");

/// One tool: its definition and the scope it needs (`None`: public).
#[derive(Debug)]
pub struct Tool {
    pub name: String,
    pub scope: Option<Scope>,
    pub definition: Value,
}

static TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    let read = |text: &str| match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(tools)) => tools,
        _ => Vec::new(),
    };
    let mut tools = Vec::new();
    for definition in read(PUBLIC_TOOLS_JSON) {
        let name = definition["name"].as_str().unwrap_or_default().to_string();
        tools.push(Tool { name, scope: None, definition });
    }
    for definition in read(KEYED_TOOLS_JSON) {
        let name = definition["name"].as_str().unwrap_or_default().to_string();
        let scope = match name.as_str() {
            "verify_checkout" => Scope::Checkout,
            "verify_agent" => Scope::Verify,
            _ => Scope::AnyKey,
        };
        tools.push(Tool { name, scope: Some(scope), definition });
    }
    tools
});

/// Every tool, public first.
pub fn all() -> &'static [Tool] {
    &TOOLS
}

pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// Whether `tool` exists for `caller` on this deployment: `verify_checkout` only on a sandbox deployment and never
/// for a live key (seed 001: "Registered only when … sandbox, and only for a … test key"); every other tool always.
/// A tool that is not registered is an unknown tool, whatever the caller's scopes.
pub fn registered(tool: &Tool, caller: &Caller, sandbox: bool) -> bool {
    tool.name != "verify_checkout" || (sandbox && caller.partition() != Some(crate::auth::Partition::Live))
}

/// The sentence of seed 000's `policy_check` description that a server with receipt keys makes untrue.
const NO_RECEIPTS: &str = "receipt verification is unavailable here.";
const WITH_RECEIPTS: &str = "receipts in the record are verified against this server's configured receipt keys.";

/// The definitions a caller may see: the public tools, plus the registered keyed tools its key's scopes allow. With
/// receipt keys configured, `policy_check` says that it verifies receipts instead of seed 000's "unavailable here".
pub fn visible_tools(caller: &Caller, sandbox: bool, receipts: bool) -> Vec<Value> {
    let describe = |t: &Tool| {
        let mut d = t.definition.clone();
        if receipts
            && t.name == "policy_check"
            && let Some(text) = d["description"].as_str()
        {
            d["description"] = text.replace(NO_RECEIPTS, WITH_RECEIPTS).into();
        }
        d
    };
    TOOLS
        .iter()
        .filter(|t| t.scope.is_none_or(|s| caller.has_scope(s)) && registered(t, caller, sandbox))
        .map(describe)
        .collect()
}

/// A tool's answer: the exact JSON text (also given as `structuredContent`) and whether it is an error.
#[derive(Debug)]
pub struct ToolOutcome {
    pub text: String,
    pub is_error: bool,
}

impl ToolOutcome {
    fn ok(text: String) -> ToolOutcome {
        ToolOutcome { text, is_error: false }
    }

    /// An argument error in the Check API's error document: `{"error":{"code","message","path"}}`.
    pub fn error(code: &str, path: &str, message: impl Into<String>) -> ToolOutcome {
        // Bounded like every error's message and path: either may quote the caller's member names.
        let (message, path) = (curbi::error::bounded(message.into()), curbi::error::bounded(path.to_owned()));
        let doc = json!({"error": {"code": code, "message": message, "path": path}});
        ToolOutcome { text: doc.to_string(), is_error: true }
    }

    pub(crate) fn core_error(e: &curbi::Error) -> ToolOutcome {
        ToolOutcome { text: e.to_json().to_string(), is_error: true }
    }
}

/// Checks the arguments against the top level of the tool's input schema: an object, no member the schema does
/// not name, every required member, and the type and length of string members. Deeper rules are the core's.
fn check_arguments(tool: &Tool, args: &Value) -> Result<(), ToolOutcome> {
    let schema = &tool.definition["inputSchema"];
    let Value::Object(args) = args else {
        return Err(ToolOutcome::error("invalid_type", "", "arguments must be an object"));
    };
    let properties = schema["properties"].as_object();
    for key in args.keys() {
        if !properties.is_some_and(|p| p.contains_key(key)) {
            let allowed: Vec<&str> = properties.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
            return Err(ToolOutcome::error(
                "unknown_field",
                &format!("/{key}"),
                format!("unknown member '{}' (allowed: {})", curbi::error::excerpt(key), allowed.join(", ")),
            ));
        }
    }
    for required in schema["required"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let name = required.as_str().unwrap_or_default();
        if !args.contains_key(name) {
            return Err(ToolOutcome::error("missing_field", &format!("/{name}"), format!("'{name}' is required")));
        }
    }
    for (key, value) in args {
        let spec = &schema["properties"][key];
        if spec["type"] == "string" {
            let Some(s) = value.as_str() else {
                return Err(ToolOutcome::error(
                    "invalid_type",
                    &format!("/{key}"),
                    format!("'{key}' must be a string"),
                ));
            };
            let chars = s.chars().count() as u64;
            if spec["maxLength"].as_u64().is_some_and(|max| chars > max) {
                return Err(ToolOutcome::error(
                    "too_long",
                    &format!("/{key}"),
                    format!("'{key}' is longer than {} characters", spec["maxLength"]),
                ));
            }
            if spec["minLength"].as_u64().is_some_and(|min| chars < min) {
                return Err(ToolOutcome::error("too_short", &format!("/{key}"), format!("'{key}' is too short")));
            }
        }
    }
    Ok(())
}

/// Runs a tool on its arguments.
pub fn run(tool: &Tool, args: &Value, config: &crate::config::Config) -> ToolOutcome {
    if let Err(e) = check_arguments(tool, args) {
        return e;
    }
    let bytes = args.to_string();
    match tool.name.as_str() {
        // Bounded while it is built: past the output limit the check stops and the tool error says so.
        "policy_check" => {
            match curbi::api::check_json_within(bytes.as_bytes(), config.receipt_keys.as_ref(), config.max_tool_output)
            {
                Ok(text) => ToolOutcome::ok(text),
                Err(e) if e.code == curbi::ErrorCode::OutputTooLarge => output_too_large(None, config.max_tool_output),
                Err(e) => ToolOutcome::core_error(&e),
            }
        }
        "validate_policy" => ToolOutcome::ok(curbi::lint::validate_policy_arguments(args).to_json_string()),
        "export_regression" => export_regression(bytes.as_bytes()),
        "verify_bundle" => verify_bundle(args, bytes, config.clock),
        "search" => ToolOutcome::ok(catalog::search(args["query"].as_str().unwrap_or_default()).to_string()),
        "fetch" => match catalog::fetch(args["id"].as_str().unwrap_or_default()) {
            Some(doc) => ToolOutcome::ok(doc.to_string()),
            None => ToolOutcome::error(
                curbi::ErrorCode::UnknownId.as_str(),
                "/id",
                "no document with this id; use an id returned by search",
            ),
        },
        "verify_checkout" => ToolOutcome::ok(curbi::purchase::verify_checkout_request(args).to_json_string()),
        "verify_agent" => ToolOutcome::ok(curbi::purchase::verify_action_request(args).to_json_string()),
        "fetch_signed_receipt" => match args["sequence"].as_u64() {
            Some(sequence) => match &config.recorder {
                // The merchant's own log: a read of the recorder, never the demo log.
                Some(r) => match crate::receipts::fetch_recorded(r, sequence) {
                    Ok(doc) => ToolOutcome::ok(doc.to_string()),
                    Err(e) => ToolOutcome::core_error(&e),
                },
                None => match crate::receipts::fetch(sequence) {
                    Ok(doc) => ToolOutcome::ok(doc.to_string()),
                    Err(message) => ToolOutcome::error("not_found", "/sequence", message),
                },
            },
            None => ToolOutcome::error("invalid_type", "/sequence", "'sequence' must be a whole number ≥ 0"),
        },
        other => ToolOutcome::error(curbi::ErrorCode::UnknownTool.as_str(), "", format!("no handler for {other}")),
    }
}

/// `verify_bundle`: the core verifier on the arguments. In fresh mode the verifier needs the instant to check keys
/// and receipts' expiry at; seed 000's schema has no `now` (a caller's is refused as an unknown member), so it is
/// the server's clock, read here once per call. Archival mode reads no clock.
fn verify_bundle(args: &Value, mut request: String, clock: Clock) -> ToolOutcome {
    if args["mode"] == "fresh" {
        let mut with_now = args.clone();
        if let Some(now) = Timestamp::from_unix(clock.now(), 0) {
            with_now["now"] = now.to_rfc3339().into();
        }
        request = with_now.to_string();
    }
    match curbi::api::verify_bundle_json(request.as_bytes()) {
        Ok(text) => {
            // Unreadable input is an argument error; any other verdict (ok or not) is the answer.
            let malformed =
                serde_json::from_str::<Value>(&text).is_ok_and(|v| v["reason"] == "malformed" && v["ok"] == false);
            ToolOutcome { text, is_error: malformed }
        }
        Err(e) => ToolOutcome::core_error(&e),
    }
}

/// The tool error of an output over the limit: `output_too_large`, naming the size when it is known (a tool whose
/// output was built) and the limit.
pub fn output_too_large(size: Option<usize>, max_output: usize) -> ToolOutcome {
    let size = match size {
        Some(n) => format!("the tool output is {n} bytes"),
        None => "the tool output would be larger (the check stopped there)".to_owned(),
    };
    ToolOutcome::error(
        curbi::ErrorCode::OutputTooLarge.as_str(),
        "",
        format!("{size}, over this server's {max_output}-byte limit; send fewer cases or a smaller input"),
    )
}

/// `export_regression`'s answer (docs/MCP.md): `{"regression": <curbi.regression document>, "nodeTest": {"path":
/// "regression.test.mjs", "text": <the node:test file>}}`. The pytest file of the CLI export is left out (the
/// tool's description promises the node:test file, and the output limit is 24 KiB).
fn export_regression(request: &[u8]) -> ToolOutcome {
    let text = match curbi::api::export_regression_json(request) {
        Ok(text) => text,
        Err(e) => return ToolOutcome::core_error(&e),
    };
    let Ok(mut doc) = serde_json::from_str::<Value>(&text) else {
        return ToolOutcome::error("internal", "", "the regression export could not be read back");
    };
    let out = json!({
        "regression": doc["regression"].take(),
        "nodeTest": {"path": curbi::regression::NODE_TEST_FILE, "text": doc["nodeTest"].take()},
    });
    ToolOutcome::ok(out.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 000's definitions are kept verbatim but for one list that grows: policy_check's `version` enum names
    /// every checker version this build has, so a client that validates arguments against it can pin any of them.
    #[test]
    fn policy_check_lists_every_checker_version() {
        let tool = find("policy_check").expect("policy_check");
        let listed: Vec<&str> = tool.definition["inputSchema"]["properties"]["version"]["enum"]
            .as_array()
            .expect("enum")
            .iter()
            .map(|v| v.as_str().expect("string"))
            .collect();
        let ours: Vec<&str> = curbi::CheckerVersion::ALL.iter().map(|v| v.as_str()).collect();
        assert_eq!(listed, ours);
    }
}
