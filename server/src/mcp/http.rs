//! The HTTP server: Streamable HTTP at `/mcp` (rmcp), the legacy HTTP+SSE pair at
//! `/sse` + `/messages`, one guard in front of every route (Host and Origin against DNS
//! rebinding, the bearer token, the body limit), and graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::registry::Surface;
use super::service::Session;
use crate::app::App;

/// Largest request body accepted, bytes.
pub const MAX_BODY: usize = 4 << 20;

#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Bearer token required on every request, when set.
    pub token: Option<String>,
    /// Extra Host names accepted besides loopback (for a server bound beyond it).
    pub allowed_hosts: Vec<String>,
    /// Extra Origins accepted besides loopback ones (`https://app.example.com`).
    pub allowed_origins: Vec<String>,
    pub max_body: usize,
}

/// What every route checks.
#[derive(Clone)]
pub struct Guard {
    token: Option<Arc<str>>,
    hosts: Arc<Vec<String>>,
    origins: Arc<Vec<String>>,
    max_body: usize,
}

const LOOPBACK: &[&str] = &["localhost", "127.0.0.1", "[::1]", "::1"];

impl Guard {
    pub fn new(opts: &HttpOptions) -> Guard {
        Guard {
            token: opts.token.as_deref().map(Arc::from),
            hosts: Arc::new(opts.allowed_hosts.clone()),
            origins: Arc::new(opts.allowed_origins.clone()),
            max_body: opts.max_body,
        }
    }

    fn host_ok(&self, host: &str) -> bool {
        let name = strip_port(host);
        LOOPBACK.contains(&name) || self.hosts.iter().any(|h| h == name || h == host)
    }

    fn origin_ok(&self, origin: &str) -> bool {
        if self.origins.iter().any(|o| o == origin) {
            return true;
        }
        let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else {
            return false;
        };
        LOOPBACK.contains(&strip_port(rest))
    }
}

fn strip_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        // [::1]:9030
        return rest.split_once(']').map_or(host, |(h, _)| if h == "::1" { "[::1]" } else { h });
    }
    host.rsplit_once(':').filter(|(_, p)| p.chars().all(|c| c.is_ascii_digit())).map_or(host, |(h, _)| h)
}

fn deny(status: StatusCode, message: &str) -> Response {
    jsonrpc_error(status, -32000, message, serde_json::Value::Null)
}

fn jsonrpc_error(status: StatusCode, code: i64, message: &str, id: serde_json::Value) -> Response {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// In front of `/mcp`: a JSON POST body must be JSON (else 400 with -32700, parse error)
/// and a JSON-RPC message (else 400 with -32600, invalid request). rmcp answers both with
/// 415 and plain text, which no JSON-RPC client reads as what went wrong. The body is read
/// here (up to the limit: 413 past it) and handed on unchanged.
async fn jsonrpc_body(State(max_body): State<usize>, req: Request, next: Next) -> Response {
    let json = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"));
    if req.method() != axum::http::Method::POST || !json {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let mut data = body.into_data_stream();
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = futures::StreamExt::next(&mut data).await {
        let Ok(chunk) = chunk else {
            return deny(StatusCode::BAD_REQUEST, "Bad Request: the request body could not be read");
        };
        if buf.len() + chunk.len() > max_body {
            return deny(StatusCode::PAYLOAD_TOO_LARGE, &format!("Payload Too Large: the limit is {max_body} bytes"));
        }
        buf.extend_from_slice(&chunk);
    }
    let value: serde_json::Value = match serde_json::from_slice(&buf) {
        Ok(v) => v,
        Err(e) => {
            return jsonrpc_error(
                StatusCode::BAD_REQUEST,
                -32700,
                &format!("Parse error: {e}"),
                serde_json::Value::Null,
            )
        }
    };
    if let Err(e) = <rmcp::model::ClientJsonRpcMessage as serde::Deserialize>::deserialize(&value) {
        // Echo the id when it could be read (JSON-RPC 2.0 §5), else null.
        let id = match value.get("id") {
            Some(id @ (serde_json::Value::String(_) | serde_json::Value::Number(_))) => id.clone(),
            _ => serde_json::Value::Null,
        };
        return jsonrpc_error(StatusCode::BAD_REQUEST, -32600, &format!("Invalid Request: {e}"), id);
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(buf))).await
}

/// Host, Origin, token and size checks, in front of every route (the SSE pair too).
pub async fn guard(State(g): State<Guard>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !g.host_ok(host) {
        return deny(StatusCode::FORBIDDEN, "Forbidden: Host header is not allowed (DNS rebinding protection)");
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| g.origin_ok(o));
        if !ok {
            return deny(StatusCode::FORBIDDEN, "Forbidden: Origin is not allowed (DNS rebinding protection)");
        }
    }
    if let Some(token) = &g.token {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        if !given.is_some_and(|t| constant_time_eq(t.as_bytes(), token.as_bytes())) {
            let mut r = deny(StatusCode::UNAUTHORIZED, "Unauthorized: a bearer token is required");
            r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"cc-server\""));
            return r;
        }
    }
    if let Some(len) =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok())
    {
        if len > g.max_body {
            return deny(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("Payload Too Large: the limit is {} bytes", g.max_body),
            );
        }
    }
    next.run(req).await
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The router: `/mcp`, `/sse`, `/messages`, behind the guard.
pub fn router(app: Arc<App>, surface: Surface, opts: &HttpOptions, shutdown: CancellationToken) -> Router {
    let hosts: Vec<String> = LOOPBACK.iter().map(|s| s.to_string()).chain(opts.allowed_hosts.iter().cloned()).collect();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .disable_allowed_origins() // the guard checks Origin on every route
        .with_max_request_body_bytes(opts.max_body)
        .with_cancellation_token(shutdown.child_token());
    let factory_app = app.clone();
    let factory_surface = surface.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(Session::new(factory_app.clone(), factory_surface.clone())),
        LocalSessionManager::default().into(),
        config,
    );
    let sse = super::sse::SseState::new(app, surface, opts.max_body, shutdown);
    let guard_state = Guard::new(opts);
    let mcp = Router::new()
        .nest_service("/mcp", mcp)
        .layer(axum::middleware::from_fn_with_state(opts.max_body, jsonrpc_body));
    Router::new()
        .merge(mcp)
        .merge(super::sse::routes(sse))
        .fallback(|| async { deny(StatusCode::NOT_FOUND, "Not Found: the MCP endpoints are /mcp, /sse and /messages") })
        .layer(axum::extract::DefaultBodyLimit::max(opts.max_body))
        .layer(axum::middleware::from_fn_with_state(guard_state, guard))
}

/// Serves until SIGINT/SIGTERM (or `shutdown`): stops accepting, cancels sessions, lets
/// in-flight requests finish.
pub async fn serve(
    app: Arc<App>,
    surface: Surface,
    opts: HttpOptions,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", opts.addr))?;
    let local = listener.local_addr()?;
    eprintln!("cc-server: serving MCP on http://{local}/mcp (Streamable HTTP) and http://{local}/sse (HTTP+SSE)");
    let router = router(app, surface, &opts, shutdown.clone());
    let stop = shutdown.clone();
    tokio::spawn(async move {
        crate::signals::wait().await;
        stop.cancel();
    });
    // No Nagle: a response is several small writes (SSE framing), and waiting for the
    // peer's delayed ACK between them costs ~40 ms a call.
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router.into_make_service())
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        Guard::new(&HttpOptions {
            addr: "127.0.0.1:0".parse().unwrap(),
            token: None,
            allowed_hosts: vec!["cc.internal".into()],
            allowed_origins: vec!["https://app.example.com".into()],
            max_body: MAX_BODY,
        })
    }

    #[test]
    fn hosts_and_origins() {
        let g = guard();
        for ok in ["localhost", "localhost:9030", "127.0.0.1:9030", "[::1]:9030", "cc.internal:80"] {
            assert!(g.host_ok(ok), "{ok}");
        }
        for bad in ["evil.example.com", "evil.example.com:9030", "", "localhost.evil.com"] {
            assert!(!g.host_ok(bad), "{bad}");
        }
        for ok in ["http://localhost:3000", "https://127.0.0.1", "http://[::1]:8080", "https://app.example.com"] {
            assert!(g.origin_ok(ok), "{ok}");
        }
        for bad in ["http://evil.example.com", "null", "file://", "http://localhost.evil.com"] {
            assert!(!g.origin_ok(bad), "{bad}");
        }
    }
}
