//! The application behind `curbi serve`: every route on one router (the Check API, the MCP endpoint, its discovery
//! documents, the JSON 404), and running it on a listener until Ctrl-C or SIGTERM.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::routing::{any, get};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::Semaphore;
use tokio::time::Sleep;
use tower_service::Service;

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

/// A line on stderr that cannot stop the server: with stderr closed or on a full disk it is lost, where the
/// printing macro would panic and take the server down before it served a request (issue 43).
fn log(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Binds `addr`, prints the listening address on stderr and serves [`router`] (configured from the environment,
/// docs/MCP.md) until Ctrl-C or SIGTERM.
pub async fn run(addr: impl ToSocketAddrs) -> io::Result<()> {
    let config = Config::from_env().map_err(io::Error::other)?;
    let listener = TcpListener::bind(addr).await?;
    log(&format!("curbi: listening on http://{}", listener.local_addr()?));
    let limits = Limits::from(&config);
    serve_with(listener, router(config), limits, shutdown_signal()).await?;
    log("curbi: stopped");
    Ok(())
}

/// What one connection may cost: how many are served at once, and how long each may take to send its headers, sit
/// idle, or leave a response unread (docs/SECURITY.md).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub write_timeout: Duration,
}

impl From<&Config> for Limits {
    fn from(c: &Config) -> Limits {
        Limits {
            max_connections: c.max_connections,
            header_timeout: c.header_timeout,
            idle_timeout: c.idle_timeout,
            write_timeout: c.write_timeout,
        }
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::from(&Config::default())
    }
}

/// Serves `app` on `listener` with the default [`Limits`] until `shutdown` resolves, then lets in-flight requests
/// finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    serve_with(listener, app, Limits::default(), shutdown).await
}

/// Serves `app` on `listener` (HTTP/1.1) within `limits`: at most `max_connections` at once (more wait in the
/// listen backlog), the headers of each request within `header_timeout`, no connection silent for longer than
/// `idle_timeout` while the server waits to read, and no response write stalled for longer than `write_timeout`
/// (a client that never reads is dropped with its response). Each request carries its client's address
/// ([`ConnectInfo`]) for the per-client limits. Ends when `shutdown` resolves, once open connections finish.
pub async fn serve_with(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            () = &mut shutdown => break,
            slot = Arc::clone(&slots).acquire_owned() => slot.map_err(io::Error::other)?,
        };
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of descriptors or a connection reset before it was accepted: wait a little, go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let io = TokioIo::new(Deadlines::new(stream, limits.idle_timeout, limits.write_timeout));
            let service = hyper::service::service_fn(move |mut req: hyper::Request<hyper::body::Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                let mut app = app.clone();
                async move { app.call(req.map(Body::new)).await }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .max_buf_size(READ_BUFFER)
                .serve_connection(io, service);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stopped.changed() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
    let _ = stop.send(true);
    // Every slot back: every connection has finished.
    let all = u32::try_from(limits.max_connections.max(1)).unwrap_or(u32::MAX);
    let _ = slots.acquire_many(all).await;
    Ok(())
}

/// The largest read buffer of a connection, in bytes: request headers larger than this are refused (431).
pub const READ_BUFFER: usize = 64 * 1024;

/// A connection with two deadlines: a read that waits `idle` with nothing received, or a write (or flush) that
/// makes no progress for `write`, fails with `TimedOut`, and hyper closes the connection.
struct Deadlines {
    stream: TcpStream,
    idle: Duration,
    write: Duration,
    read_deadline: Option<Pin<Box<Sleep>>>,
    write_deadline: Option<Pin<Box<Sleep>>>,
}

impl Deadlines {
    fn new(stream: TcpStream, idle: Duration, write: Duration) -> Deadlines {
        Deadlines { stream, idle, write, read_deadline: None, write_deadline: None }
    }
}

/// `Pending` while `deadline` (armed now + `after` on the first wait) has not passed, `TimedOut` once it has; the
/// deadline is cleared when the operation is ready.
fn wait<T>(
    result: Poll<io::Result<T>>,
    deadline: &mut Option<Pin<Box<Sleep>>>,
    after: Duration,
    cx: &mut Context<'_>,
    what: &str,
) -> Poll<io::Result<T>> {
    if result.is_ready() {
        *deadline = None;
        return result;
    }
    let sleep = deadline.get_or_insert_with(|| Box::pin(tokio::time::sleep(after)));
    match sleep.as_mut().poll(cx) {
        Poll::Ready(()) => {
            *deadline = None;
            Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, format!("{what} timed out"))))
        }
        Poll::Pending => Poll::Pending,
    }
}

impl AsyncRead for Deadlines {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.stream).poll_read(cx, buf);
        wait(result, &mut this.read_deadline, this.idle, cx, "idle connection")
    }
}

impl AsyncWrite for Deadlines {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.stream).poll_write(cx, buf);
        wait(result, &mut this.write_deadline, this.write, cx, "response write")
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        wait(result, &mut this.write_deadline, this.write, cx, "response write")
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.stream).poll_flush(cx);
        wait(result, &mut this.write_deadline, this.write, cx, "response write")
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let result = Pin::new(&mut this.stream).poll_shutdown(cx);
        wait(result, &mut this.write_deadline, this.write, cx, "response write")
    }
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
    log("curbi: shutting down");
}
