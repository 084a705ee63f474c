//! The application behind `curbi serve`: every route on one router (the Check API, the MCP endpoint, its discovery
//! documents, the JSON 404), and running it on a listener until Ctrl-C or SIGTERM.

use std::future::Future;
use std::io;
use std::sync::Arc;

use axum::Router;
use axum::routing::{any, get};
use tokio::net::{TcpListener, ToSocketAddrs};

use crate::config::{Config, Server};
use crate::{check_api, discovery, transport};

/// The default listening address: loopback only, so `curbi serve` never exposes itself by accident.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8787";

/// Every route of `curbi serve`: `POST /v1/check` (docs/CHECK_API.md), `POST /mcp`, `GET /ai.json` and
/// `GET /agent-start.json` (docs/MCP.md), `GET /health`, and the JSON 404 for every other path.
pub fn router(config: Config) -> Router {
    check_api_routes()
        .route("/mcp", any(transport::endpoint))
        .route("/ai.json", get(discovery::ai_json))
        .route("/agent-start.json", get(discovery::agent_start))
        .route("/health", get(health))
        .fallback(check_api::not_found)
        .with_state(Arc::new(Server::new(config)))
}

/// `GET /health`: `{"status":"ok","version":…}` for load balancers and container probes; no state, no key.
async fn health() -> axum::response::Response {
    let body = serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}).to_string();
    crate::http::json_response(axum::http::StatusCode::OK, body, Vec::new())
}

/// The Check API alone (`POST /v1/check` and the JSON 404), for a host that does not want the MCP endpoint.
pub fn check_api_router(config: Config) -> Router {
    check_api_routes().fallback(check_api::not_found).with_state(Arc::new(Server::new(config)))
}

fn check_api_routes() -> Router<Arc<Server>> {
    Router::new().route("/v1/check", any(check_api::endpoint))
}

/// Binds `addr`, prints the listening address on stderr and serves [`router`] (configured from the environment,
/// docs/MCP.md) until Ctrl-C or SIGTERM.
pub async fn run(addr: impl ToSocketAddrs) -> io::Result<()> {
    let config = Config::from_env().map_err(io::Error::other)?;
    let listener = TcpListener::bind(addr).await?;
    eprintln!("curbi: listening on http://{}", listener.local_addr()?);
    serve(listener, router(config), shutdown_signal()).await?;
    eprintln!("curbi: stopped");
    Ok(())
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets in-flight requests finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
}

/// Resolves on Ctrl-C or, on Unix, SIGTERM. A signal that cannot be watched never resolves (rather than stopping
/// the server at once).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    eprintln!("curbi: shutting down");
}
