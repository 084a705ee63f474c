//! Curbi's HTTP server, behind `curbi serve` (DESIGN.md §2, §7): the Check API (`POST /v1/check`) and the demo MCP
//! endpoint (`POST /mcp`, `GET /ai.json`, `GET /agent-start.json`) on one router, with one body reader and limit.
//!
//! - [`app`]: the router of every route, and running it. [`http`]: what every route shares (the bounded JSON
//!   POST reader, media types, the JSON response helper). [`config`]: keys, limits, hosts, and the per-server state.
//! - [`check_api`]: `POST /v1/check`, answering exactly like `curbi check` (docs/CHECK_API.md).
//! - MCP (docs/MCP.md), both protocol eras on one endpoint, JSON responses only (never an event stream, never a
//!   session): [`transport`] (the HTTP rules of `POST /mcp`), [`protocol`] (the JSON-RPC layer, written for this
//!   server), [`rpc`] (its error answers), [`tools`] (calling the core crate), [`auth`] (keys, scopes, rate limits),
//!   [`catalog`] and [`receipts`] (the data behind `search`/`fetch` and `fetch_signed_receipt`), and [`discovery`]
//!   (`/ai.json`, `/agent-start.json`). [`stdio`]: the same dispatcher over stdin and stdout (`curbi mcp --stdio`).
//!   `GET /health` answers `{"status":"ok"}` for probes.
//!   - **2025-06-18 and earlier** (legacy): `initialize`, `notifications/initialized`, `ping`, `tools/list`,
//!     `tools/call`. A request without `MCP-Protocol-Version` is taken as 2025-03-26.
//!   - **2026-07-28** (modern, stateless): `server/discover`, `tools/list`, `tools/call`, each carrying
//!     `params._meta["io.modelcontextprotocol/protocolVersion"]` equal to the `MCP-Protocol-Version` header, plus
//!     `Mcp-Method` (and `Mcp-Name` on `tools/call`) equal to the body.
//!
//! Modules depend on one another in one direction only (no module imports one that imports it back); this file only
//! declares them and re-exports what embedders and tests use.

// `RpcError` is the whole HTTP answer of a refused request (status, JSON-RPC error, headers), built at most once per
// request; boxing it would only add an allocation.
#![allow(clippy::result_large_err)]

pub mod app;
pub mod auth;
pub mod catalog;
pub mod check_api;
pub mod config;
pub mod discovery;
pub mod http;
pub mod protocol;
pub mod receipts;
pub mod rpc;
pub mod stdio;
pub mod tools;
pub mod transport;
pub mod work;

pub use app::{DEFAULT_ADDR, Limits, check_api_router, router, run, serve, serve_with, shutdown_signal};
pub use auth::{ApiKey, Caller, KeySet, Partition, RateLimiter, Scope, TEST_KEY_PREFIX};
pub use config::{
    Config, DEFAULT_AUTH_FAILURES_PER_MINUTE, DEFAULT_CHECK_RATE_PER_MINUTE, DEFAULT_RATE_PER_MINUTE,
    DEFAULT_TOOL_RATE_PER_MINUTE, MAX_CHECK_RESPONSE, MAX_TOOL_OUTPUT, Server,
};
pub use http::MAX_BODY;
pub use rpc::{RpcError, code};
