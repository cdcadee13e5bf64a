//! The HTTP server: Streamable HTTP at `/mcp` (rmcp), the legacy HTTP+SSE pair at
//! `/sse` + `/messages`, the operator's approval queue at `/approvals`, one guard in
//! front of every route (Host and Origin against DNS rebinding, the bearer token of a
//! principal — or the operator's on `/approvals` —, the body limit), MCP sessions bound
//! to the principal that opened them, and graceful shutdown.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::principal::{constant_time_eq, Principal, Principals};
use super::registry::Surface;
use super::service::Session;
use crate::app::App;

/// Largest request body accepted, bytes.
pub const MAX_BODY: usize = 4 << 20;

#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Bearer tokens and the principals they name; when any is set, every MCP request
    /// needs one.
    pub principals: Principals,
    /// The operator's bearer token: required on `/approvals` (which is off without it).
    pub operator_token: Option<String>,
    /// Extra Host names accepted besides loopback (for a server bound beyond it).
    pub allowed_hosts: Vec<String>,
    /// Extra Origins accepted besides loopback ones (`https://app.example.com`).
    pub allowed_origins: Vec<String>,
    pub max_body: usize,
}

/// What every route checks.
#[derive(Clone)]
pub struct Guard {
    principals: Arc<Principals>,
    operator: Option<Arc<str>>,
    hosts: Arc<Vec<String>>,
    origins: Arc<Vec<String>>,
    max_body: usize,
}

const LOOPBACK: &[&str] = &["localhost", "127.0.0.1", "[::1]", "::1"];

impl Guard {
    pub fn new(opts: &HttpOptions) -> Guard {
        Guard {
            principals: Arc::new(opts.principals.clone()),
            operator: opts.operator_token.as_deref().map(Arc::from),
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

/// Why a body is not a JSON-RPC message a client may send.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonRpcReject {
    /// -32700 (not JSON) or -32600 (not a client JSON-RPC message).
    pub code: i64,
    pub message: String,
    /// The request's id when it could be read (JSON-RPC 2.0 §5), else null.
    pub id: serde_json::Value,
}

/// The JSON-RPC layer of both HTTP transports: a body is JSON, and a client message.
pub fn parse_jsonrpc(body: &[u8]) -> Result<rmcp::model::ClientJsonRpcMessage, JsonRpcReject> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| JsonRpcReject {
        code: -32700,
        message: format!("Parse error: {e}"),
        id: serde_json::Value::Null,
    })?;
    let id = match value.get("id") {
        Some(id @ (serde_json::Value::String(_) | serde_json::Value::Number(_))) => id.clone(),
        _ => serde_json::Value::Null,
    };
    serde_json::from_value(value).map_err(|e| JsonRpcReject {
        code: -32600,
        message: format!("Invalid Request: {e}"),
        id,
    })
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
    if let Err(e) = parse_jsonrpc(&buf) {
        return jsonrpc_error(StatusCode::BAD_REQUEST, e.code, &e.message, e.id);
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(buf))).await
}

fn bearer(headers: &axum::http::HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
}

fn unauthorized(message: &str) -> Response {
    let mut r = deny(StatusCode::UNAUTHORIZED, message);
    r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"cc-server\""));
    r
}

/// Host, Origin, token and size checks, in front of every route (the SSE pair too). The
/// authenticated principal goes into the request's extensions, where the MCP handlers
/// read it (every request is authenticated; a session never is the authentication).
pub async fn guard(State(g): State<Guard>, mut req: Request, next: Next) -> Response {
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
    let operator_route = req.uri().path() == "/approvals" || req.uri().path().starts_with("/approvals/");
    let principal = if operator_route {
        let Some(op) = &g.operator else {
            return deny(
                StatusCode::NOT_FOUND,
                "Not Found: the approval queue is served only with --operator-token (or use `cc-server approvals`)",
            );
        };
        if !bearer(headers).is_some_and(|t| constant_time_eq(t.as_bytes(), op.as_bytes())) {
            return unauthorized("Unauthorized: /approvals needs the operator's bearer token");
        }
        None
    } else if g.principals.is_empty() {
        Some(Principal::local())
    } else {
        match bearer(headers).and_then(|t| g.principals.authenticate(t)) {
            Some(p) => Some(p.clone()),
            None => return unauthorized("Unauthorized: a bearer token is required"),
        }
    };
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
    if let Some(p) = principal {
        req.extensions_mut().insert(p);
    }
    next.run(req).await
}

/// Which principal opened each Streamable HTTP session.
#[derive(Clone, Default)]
pub struct Bindings {
    sessions: Arc<Mutex<HashMap<String, Arc<str>>>>,
}

impl Bindings {
    pub fn len(&self) -> usize {
        self.sessions.lock().expect("bindings").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

const SESSION_HEADER: &str = "mcp-session-id";

/// In front of `/mcp`: a request naming a session must come from the principal that
/// opened it; another principal is answered as for a session that does not exist (404,
/// so it learns nothing about it). The binding is made when rmcp answers an initialize
/// with a new session id, and dropped when the session is deleted or gone.
async fn bind_sessions(State(b): State<Bindings>, req: Request, next: Next) -> Response {
    let who = req.extensions().get::<Principal>().map(|p| p.name.clone());
    let sid = req.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
    let delete = req.method() == axum::http::Method::DELETE;
    if let Some(sid) = &sid {
        let owner = b.sessions.lock().expect("bindings").get(sid).cloned();
        if let Some(owner) = owner {
            if Some(&owner) != who.as_ref() {
                return deny(StatusCode::NOT_FOUND, "Not Found: Session not found");
            }
        }
    }
    let resp = next.run(req).await;
    let mut map = b.sessions.lock().expect("bindings");
    match &sid {
        None => {
            if let (Some(new), Some(who)) = (resp.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()), who) {
                map.insert(new.to_string(), who);
            }
        }
        Some(sid) => {
            if (delete && resp.status().is_success()) || resp.status() == StatusCode::NOT_FOUND {
                map.remove(sid);
            }
        }
    }
    resp
}

/// The router: `/mcp`, `/sse`, `/messages`, `/approvals`, behind the guard.
pub fn router(app: Arc<App>, surface: Surface, opts: &HttpOptions, shutdown: CancellationToken) -> Router {
    router_with(app, surface, opts, shutdown).0
}

/// [`router`], and the session bindings (tests read them).
pub fn router_with(
    app: Arc<App>,
    surface: Surface,
    opts: &HttpOptions,
    shutdown: CancellationToken,
) -> (Router, Bindings) {
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
    let sse = super::sse::SseState::new(app.clone(), surface, opts.max_body, shutdown);
    let guard_state = Guard::new(opts);
    let bindings = Bindings::default();
    let mcp = Router::new()
        .nest_service("/mcp", mcp)
        .layer(axum::middleware::from_fn_with_state(opts.max_body, jsonrpc_body))
        .layer(axum::middleware::from_fn_with_state(bindings.clone(), bind_sessions));
    let router = Router::new()
        .merge(mcp)
        .merge(super::sse::routes(sse))
        .merge(approval_routes(app))
        .fallback(|| async {
            deny(StatusCode::NOT_FOUND, "Not Found: the MCP endpoints are /mcp, /sse and /messages (and /approvals)")
        })
        .layer(axum::extract::DefaultBodyLimit::max(opts.max_body))
        .layer(axum::middleware::from_fn_with_state(guard_state, guard));
    (router, bindings)
}

// ---------------------------------------------------------------- the operator's approval queue

fn approval_routes(app: Arc<App>) -> Router {
    use axum::routing::{get, post};
    Router::new()
        .route("/approvals", get(list_approvals))
        .route("/approvals/{id}", get(get_approval))
        .route("/approvals/{id}/approve", post(approve))
        .route("/approvals/{id}/reject", post(reject))
        .with_state(app)
}

fn json_response(status: StatusCode, v: serde_json::Value) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], v.to_string()).into_response()
}

fn store_error(e: anyhow::Error) -> Response {
    json_response(StatusCode::INTERNAL_SERVER_ERROR, serde_json::json!({"error": format!("{e:#}")}))
}

#[derive(serde::Deserialize)]
struct ListQuery {
    /// `all`: decided ones too.
    status: Option<String>,
}

/// `GET /approvals` (pending), `GET /approvals?status=all`.
async fn list_approvals(
    State(app): State<Arc<App>>,
    axum::extract::Query(q): axum::extract::Query<ListQuery>,
) -> Response {
    let pending_only = match q.status.as_deref() {
        None | Some("pending") => true,
        Some("all") => false,
        Some(other) => {
            return json_response(
                StatusCode::BAD_REQUEST,
                serde_json::json!({"error": format!("status: expected pending or all, got '{other}'")}),
            )
        }
    };
    match app.store.approvals(pending_only) {
        Ok(list) => json_response(StatusCode::OK, serde_json::json!({ "approvals": list })),
        Err(e) => store_error(e),
    }
}

async fn get_approval(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.store.approval(&id) {
        Ok(Some(a)) => json_response(StatusCode::OK, serde_json::json!(a)),
        Ok(None) => json_response(StatusCode::NOT_FOUND, serde_json::json!({"error": format!("no approval '{id}'")})),
        Err(e) => store_error(e),
    }
}

#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct DecideBody {
    reason: Option<String>,
    /// Who decides (shown in the approval), default `operator (http)`.
    by: Option<String>,
}

async fn decide(app: Arc<App>, id: String, approve: bool, body: axum::body::Bytes) -> Response {
    let body: DecideBody = if body.is_empty() {
        DecideBody::default()
    } else {
        match serde_json::from_slice(&body) {
            Ok(b) => b,
            Err(e) => {
                return json_response(
                    StatusCode::BAD_REQUEST,
                    serde_json::json!({"error": format!("body: expected {{\"reason\"?: string, \"by\"?: string}}: {e}")}),
                )
            }
        }
    };
    let by = body.by.unwrap_or_else(|| "operator (http)".into());
    match app.store.decide_approval(&id, approve, &by, body.reason.as_deref()) {
        Ok(a) => json_response(StatusCode::OK, serde_json::json!(a)),
        Err(e) => {
            let missing = app.store.approval(&id).ok().flatten().is_none();
            let status = if missing { StatusCode::NOT_FOUND } else { StatusCode::CONFLICT };
            json_response(status, serde_json::json!({"error": format!("{e:#}")}))
        }
    }
}

async fn approve(State(app): State<Arc<App>>, Path(id): Path<String>, body: axum::body::Bytes) -> Response {
    decide(app, id, true, body).await
}

async fn reject(State(app): State<Arc<App>>, Path(id): Path<String>, body: axum::body::Bytes) -> Response {
    decide(app, id, false, body).await
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
            principals: Principals::default(),
            operator_token: None,
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
