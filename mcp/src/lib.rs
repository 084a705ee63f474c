//! Curbi's demo MCP server (issue 9, DESIGN.md §7): `POST /mcp` serving both protocol eras on one endpoint, JSON
//! responses only (never an event stream, never a session), plus `GET /ai.json` and `GET /agent-start.json`.
//!
//! - **2025-06-18 and earlier** (legacy): `initialize`, `notifications/initialized`, `ping`, `tools/list`,
//!   `tools/call`. A request without `MCP-Protocol-Version` is taken as 2025-03-26.
//! - **2026-07-28** (modern, stateless): `server/discover`, `tools/list`, `tools/call`, each carrying
//!   `params._meta["io.modelcontextprotocol/protocolVersion"]` equal to the `MCP-Protocol-Version` header, plus
//!   `Mcp-Method` (and `Mcp-Name` on `tools/call`) equal to the body.
//!
//! [`transport`] holds the HTTP rules of `POST /mcp`, [`protocol`] the JSON-RPC layer (written for this server),
//! [`rpc`] its error answers, [`tools`] the tools (calling the core crate) and [`discovery`] `/ai.json` and
//! `/agent-start.json`. Modules depend on one another in one direction only; this file only declares them, mounts
//! the routes and re-exports. docs/MCP.md documents the endpoint, the tools, keys and limits.

// `RpcError` is the whole HTTP answer of a refused request (status, JSON-RPC error, headers), built at most once per
// request; boxing it would only add an allocation.
#![allow(clippy::result_large_err)]

pub mod auth;
pub mod catalog;
pub mod config;
pub mod discovery;
pub mod http;
pub mod protocol;
pub mod receipts;
pub mod rpc;
pub mod tools;
pub mod transport;

use std::sync::Arc;

use axum::Router;
use axum::routing::{any, get};

pub use auth::{ApiKey, Caller, KeySet, Partition, RateLimiter, Scope, TEST_KEY_PREFIX};
pub use config::{Config, DEFAULT_RATE_PER_MINUTE, DEFAULT_TOOL_RATE_PER_MINUTE, MAX_TOOL_OUTPUT, Server};
pub use http::{MAX_BODY, is_json_content_type};
pub use rpc::{RpcError, code};

/// The MCP routes without a fallback, to merge with the Check API's routes (`curbi_cli::serve::routes`):
/// `POST /mcp` (every other method 405), `GET /ai.json` and `GET /agent-start.json`.
pub fn routes(config: Config) -> Router {
    Router::new()
        .route("/mcp", any(transport::endpoint))
        .route("/ai.json", get(discovery::ai_json))
        .route("/agent-start.json", get(discovery::agent_start))
        .with_state(Arc::new(Server::new(config)))
}
