//! MCP's discovery documents: `GET /ai.json` (the tools, their access and the limits) and `GET /agent-start.json`
//! (seed 000's agent-start document), both pointing at the address the caller reached.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header::HOST;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::auth::{Scope, TEST_KEY_PREFIX};
use crate::config::{Config, Server};
use crate::http::json_response;
use crate::transport::check_host_and_origin;
use crate::{catalog, protocol, tools};

/// What no result means (seed 000).
pub const MEANING: &str = "A pass means no configured rule fired. Lint is not completeness. Bundle verification is \
not independent provider proof. No result grants authority.";

/// `GET /ai.json`, behind the same Host and Origin rules as `POST /mcp`.
pub async fn ai_json(State(server): State<Arc<Server>>, headers: HeaderMap) -> Response {
    answer(&server, &headers, |base| ai_document(base, &server.config))
}

/// `GET /agent-start.json`, behind the same Host and Origin rules as `POST /mcp`.
pub async fn agent_start(State(server): State<Arc<Server>>, headers: HeaderMap) -> Response {
    answer(&server, &headers, agent_start_document)
}

fn answer(server: &Server, headers: &HeaderMap, document: impl FnOnce(&str) -> Value) -> Response {
    if let Err(e) = check_host_and_origin(headers, server.config.allowed_hosts.as_deref()) {
        return e.into_response();
    }
    json_response(StatusCode::OK, document(&base_url(headers)).to_string(), Vec::new())
}

/// The base URL callers reached us at, from `Host` (`http://127.0.0.1:8787`).
fn base_url(headers: &HeaderMap) -> String {
    let host = headers.get(HOST).and_then(|v| v.to_str().ok()).unwrap_or("127.0.0.1:8787");
    format!("http://{host}")
}

/// Seed 000's agent-start document, pointing at `base`.
pub fn agent_start_document(base: &str) -> Value {
    let tools: Vec<Value> = tools::all()
        .iter()
        .filter(|t| t.scope.is_none())
        .map(|t| json!({"name": t.name, "readOnly": true, "description": t.definition["description"]}))
        .collect();
    json!({
        "object": "curbi.agent.start",
        "version": 1,
        "endpoint": format!("{base}/mcp"),
        "transport": "Streamable HTTP, JSON responses; no sessions",
        "headers": {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-06-18"
        },
        "tools": tools,
        "example": {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "validate_policy", "arguments": {"policy": {}}}
        },
        "meaning": MEANING,
        "docs": catalog::url_of("docs/MCP.md"),
    })
}

/// The `/ai.json` document for a server configured with `config`, pointing at `base`.
pub fn ai_document(base: &str, config: &Config) -> Value {
    let tools: Vec<Value> = tools::all()
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "title": t.definition["title"],
                "readOnly": true,
                "access": match t.scope {
                    None => "public, no key".to_string(),
                    Some(Scope::AnyKey) => "any API key".to_string(),
                    Some(s) => format!("API key with the {} scope", s.as_str()),
                },
            })
        })
        .collect();
    json!({
        "object": "curbi.ai",
        "version": 1,
        "name": "Curbi",
        "description": "Deterministic checks of agent replies, policies, proof bundles, purchases and actions.",
        "mcp": {
            "endpoint": format!("{base}/mcp"),
            "transport": "Streamable HTTP, JSON responses; no sessions, no event stream",
            "protocolVersions": protocol::SUPPORTED,
            "agentStart": format!("{base}/agent-start.json"),
        },
        "checkApi": {"endpoint": format!("{base}/v1/check"), "method": "POST"},
        "tools": tools,
        "limits": {
            "requestBytes": config.max_body,
            "toolOutputBytes": config.max_tool_output,
            "requestsPerMinute": config.rate_per_minute,
            "toolCallsPerMinutePerTool": config.tool_rate_per_minute,
        },
        "keys": {
            "header": "Authorization: Bearer <key>",
            "testPrefix": TEST_KEY_PREFIX,
            "testPartition": "sandbox",
        },
        "meaning": MEANING,
        "docs": catalog::url_of("docs/MCP.md"),
    })
}
