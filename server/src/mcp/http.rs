//! The HTTP server: Streamable HTTP at `/mcp` (rmcp), the legacy HTTP+SSE pair at
//! `/sse` + `/messages`, the operator's approval queue at `/approvals`, artifacts as
//! pages at `/artifacts/{id}` (for a principal that sees the artifact's workspace), the
//! operator console at `/ui` (`crate::console`), one guard in
//! front of every route (Host and Origin against DNS rebinding, the bearer token of a
//! principal — or the operator's on `/approvals` —, the body limit), MCP sessions bound
//! to the principal that opened them, and graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::principal::{constant_time_eq, Principal, Principals};
use super::service::Session;
use super::sessions::{BoundedSessions, SessionLimits, Sessions};
use super::surface::Surface;
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
    /// Caps on open Streamable HTTP sessions and their idle expiry.
    pub sessions: SessionLimits,
}

/// What every route checks.
#[derive(Clone)]
pub struct Guard {
    principals: Arc<Principals>,
    /// Where agents' and runs' tokens are looked up (by their hash).
    store: Option<crate::store::Store>,
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
            store: None,
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

pub(crate) fn deny(status: StatusCode, message: &str) -> Response {
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

/// The JSON-RPC layer of both HTTP transports: a body is JSON without a duplicate key in
/// any object, and a client message — read from the bytes as rmcp reads them, so what rmcp
/// would refuse is refused here with a JSON-RPC error instead of rmcp's 415 and plain text.
/// rmcp itself refuses a duplicate field of its own structs only; where it keeps a map (a
/// tool's arguments, the params of a method it does not know) the last value would win,
/// and a reader keeping the first (a proxy, a log) would see another message.
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
    if let Some(key) = duplicate_key(body) {
        let message = format!("Invalid Request: the key '{key}' appears twice in one object");
        return Err(JsonRpcReject { code: -32600, message, id });
    }
    serde_json::from_slice(body).map_err(|e| JsonRpcReject {
        code: -32600,
        message: format!("Invalid Request: {e}"),
        id,
    })
}

/// The first key that appears twice in one object of `body` (a JSON text), if any.
/// `serde_json::Value` keeps the last silently; a message with one is refused, and this
/// says why.
pub fn duplicate_key(body: &[u8]) -> Option<String> {
    use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
    struct Check;
    impl<'de> DeserializeSeed<'de> for Check {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Check {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
            let mut seen = std::collections::HashSet::new();
            while let Some(k) = m.next_key::<String>()? {
                if !seen.insert(k.clone()) {
                    return Err(serde::de::Error::custom(format!("\u{0}{k}")));
                }
                m.next_value_seed(Check)?;
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
            while s.next_element_seed(Check)?.is_some() {}
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    let msg = Check.deserialize(&mut de).err()?.to_string();
    // The marker (NUL, which no key of a parsed text holds raw) sets ours apart from a parse error.
    let rest = msg.strip_prefix('\u{0}')?;
    Some(rest.rsplit_once(" at line ").map_or(rest, |(k, _)| k).to_string())
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

/// The token of an `Authorization: Bearer TOKEN` header (the scheme is case-insensitive,
/// RFC 9110 §11.1).
pub(crate) fn bearer(headers: &axum::http::HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim_start();
    let (scheme, token) = v.split_once(char::is_whitespace)?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

fn unauthorized(message: &str) -> Response {
    let mut r = deny(StatusCode::UNAUTHORIZED, message);
    r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"cc-server\""));
    r
}

/// Whether `origin` is the request's own (`http(s)://` + its Host): a same-origin form post
/// of a console served under an allowed Host name.
fn same_origin(origin: &str, host: &str) -> bool {
    origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")).is_some_and(|rest| rest == host)
}

/// The checks every route shares, in one place: Host and Origin (DNS rebinding), and the
/// declared body size. `console`: the operator console's routes, where an Origin equal to the
/// request's own (allowed) Host is accepted too. The refusal, when one fails.
fn shared_checks(g: &Guard, headers: &axum::http::HeaderMap, console: bool) -> Result<(), Box<Response>> {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !g.host_ok(host) {
        return Err(Box::new(deny(
            StatusCode::FORBIDDEN,
            "Forbidden: Host header is not allowed (DNS rebinding protection)",
        )));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(|o| g.origin_ok(o) || (console && same_origin(o, host)));
        if !ok {
            return Err(Box::new(deny(
                StatusCode::FORBIDDEN,
                "Forbidden: Origin is not allowed (DNS rebinding protection)",
            )));
        }
    }
    if let Some(len) =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok())
    {
        if len > g.max_body {
            return Err(Box::new(deny(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("Payload Too Large: the limit is {} bytes", g.max_body),
            )));
        }
    }
    Ok(())
}

/// Host, Origin, token and size checks, in front of every route (the SSE pair too). The
/// authenticated principal goes into the request's extensions, where the MCP handlers
/// read it (every request is authenticated; a session never is the authentication). The
/// console (`/ui`) passes the shared checks here and authenticates its own requests (the
/// operator's session cookie or token: `crate::console`).
pub async fn guard(State(g): State<Guard>, mut req: Request, next: Next) -> Response {
    let console = crate::console::is_console_path(req.uri().path());
    if let Err(r) = shared_checks(&g, req.headers(), console) {
        return *r;
    }
    if console {
        if g.operator.is_none() {
            return crate::console::off();
        }
        return next.run(req).await;
    }
    let headers = req.headers();
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
    } else if let Some(p) = bearer(headers)
        .zip(g.operator.as_deref())
        .filter(|(t, op)| constant_time_eq(t.as_bytes(), op.as_bytes()))
        .map(|_| Principal::operator())
    {
        // The operator's token names the operator on every route.
        Some(p)
    } else if let Some(p) = bearer(headers).and_then(|t| g.principals.authenticate(t)) {
        Some(p.clone())
    } else if let Some(token) = bearer(headers) {
        // An agent's token, or one of its runs' (live runs only).
        match agent_principal(&g, token).await {
            Ok(Some(p)) => Some(p),
            Ok(None) => return unauthorized("Unauthorized: the bearer token is not known to this server"),
            Err(e) => return deny(StatusCode::SERVICE_UNAVAILABLE, &format!("Service Unavailable: {e}")),
        }
    } else if g.principals.is_empty() {
        Some(Principal::local())
    } else {
        return unauthorized("Unauthorized: a bearer token is required");
    };
    if let Some(p) = principal {
        req.extensions_mut().insert(p);
    }
    next.run(req).await
}

/// The agent a token names: a live run's token (the run's agent, from that run), else an
/// agent's own token.
async fn agent_principal(g: &Guard, token: &str) -> Result<Option<Principal>, crate::store::StoreError> {
    let Some(store) = &g.store else { return Ok(None) };
    let hash = crate::agents::hash_token(token);
    let agents = store.agents();
    if let Some(run) = agents.run_by_token(&hash).await? {
        return Ok(agents.get(&run.agent_id).await?.map(|a| Principal::agent(&a, Some(run.id))));
    }
    Ok(agents.by_token(&hash).await?.map(|a| Principal::agent(&a, None)))
}

/// The router: `/mcp`, `/sse`, `/messages`, `/approvals`, behind the guard.
pub fn router(app: Arc<App>, surface: Surface, opts: &HttpOptions, shutdown: CancellationToken) -> Router {
    router_with(app, surface, opts, shutdown).0
}

/// [`router`], and the open sessions (tests read them).
pub fn router_with(
    app: Arc<App>,
    surface: Surface,
    opts: &HttpOptions,
    shutdown: CancellationToken,
) -> (Router, Sessions) {
    let hosts: Vec<String> = LOOPBACK.iter().map(|s| s.to_string()).chain(opts.allowed_hosts.iter().cloned()).collect();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .disable_allowed_origins() // the guard checks Origin on every route
        .with_max_request_body_bytes(opts.max_body)
        .with_cancellation_token(shutdown.child_token());
    let factory_app = app.clone();
    let factory_surface = surface.clone();
    let sessions = Sessions::new(opts.sessions);
    let manager = Arc::new(BoundedSessions::new(sessions.clone()));
    manager.spawn_reaper(shutdown.child_token());
    let mcp = StreamableHttpService::new(
        move || Ok(Session::new(factory_app.clone(), factory_surface.clone())),
        manager,
        config,
    );
    let console = crate::console::routes(app.clone(), opts, shutdown.child_token());
    let sse = super::sse::SseState::new(app.clone(), surface, opts.max_body, shutdown);
    let mut guard_state = Guard::new(opts);
    guard_state.store = Some(app.services.store.clone());
    let mcp = Router::new()
        .nest_service("/mcp", mcp)
        .layer(axum::middleware::from_fn_with_state(opts.max_body, jsonrpc_body))
        .layer(axum::middleware::from_fn_with_state(sessions.clone(), super::sessions::bind));
    let router = Router::new()
        .merge(mcp)
        .merge(super::sse::routes(sse))
        .merge(approval_routes(app.clone()))
        .merge(artifact_routes(app))
        .merge(console)
        .fallback(|| async {
            deny(StatusCode::NOT_FOUND, "Not Found: the MCP endpoints are /mcp, /sse and /messages (and /approvals)")
        })
        .layer(axum::extract::DefaultBodyLimit::max(opts.max_body))
        .layer(axum::middleware::from_fn_with_state(guard_state, guard));
    (router, sessions)
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

fn store_error(e: crate::store::StoreError) -> Response {
    use crate::store::StoreError as S;
    let status = match &e {
        S::NotFound { .. } => StatusCode::NOT_FOUND,
        S::Conflict(_) => StatusCode::CONFLICT,
        S::Invalid(_) => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    json_response(status, serde_json::json!({"error": e.to_string()}))
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
    match app.services.store.approvals().list(pending_only).await {
        Ok(list) => json_response(StatusCode::OK, serde_json::json!({ "approvals": list })),
        Err(e) => store_error(e),
    }
}

async fn get_approval(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.services.store.approvals().get(&id).await {
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
    match super::approvals::decide(&app.services, &id, approve, &by, body.reason.as_deref()).await {
        Ok(a) => json_response(StatusCode::OK, serde_json::json!(a)),
        Err(e) => store_error(e),
    }
}

async fn approve(State(app): State<Arc<App>>, Path(id): Path<String>, body: axum::body::Bytes) -> Response {
    decide(app, id, true, body).await
}

async fn reject(State(app): State<Arc<App>>, Path(id): Path<String>, body: axum::body::Bytes) -> Response {
    decide(app, id, false, body).await
}

// ---------------------------------------------------------------- artifacts as pages

fn artifact_routes(app: Arc<App>) -> Router {
    use axum::routing::get;
    Router::new().route("/artifacts/{id}", get(artifact_page)).with_state(app)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PageQuery {
    /// An earlier revision (1, 2, …) instead of the current one.
    revision: Option<i64>,
}

fn page_error(status: StatusCode, message: &str) -> Response {
    let body = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{status}</title></head><body><h1>{status}</h1><p>{}</p></body></html>",
        crate::artifacts::escape(message)
    );
    page_response(status, body)
}

fn page_response(status: StatusCode, body: String) -> Response {
    let mut r = (status, body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(crate::artifacts::CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    r
}

/// `GET /artifacts/{id}[?revision=N]`: the artifact's current revision (or revision N) as one
/// HTML page. Another workspace's artifact is answered as one that does not exist.
async fn artifact_page(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    query: Result<axum::extract::Query<PageQuery>, axum::extract::rejection::QueryRejection>,
    principal: Option<axum::Extension<Principal>>,
) -> Response {
    let Ok(axum::extract::Query(q)) = query else {
        return page_error(StatusCode::BAD_REQUEST, "the query takes only revision=N (a revision number)");
    };
    let Some(axum::Extension(principal)) = principal else {
        return page_error(StatusCode::UNAUTHORIZED, "a bearer token is required");
    };
    let store = &app.services.store;
    let missing = || page_error(StatusCode::NOT_FOUND, &format!("no artifact '{id}'"));
    let artifact = match store.artifacts().get(&id).await {
        Ok(Some(a)) if principal.sees(&a.workspace_id) => a,
        Ok(_) => return missing(),
        Err(e) => return page_error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let revision = match store.artifacts().revision(&artifact.id, q.revision).await {
        Ok(Some(r)) => r,
        Ok(None) => {
            return page_error(
                StatusCode::NOT_FOUND,
                &format!(
                    "artifact '{id}' has no revision {} (its revisions: 1 to {})",
                    q.revision.unwrap_or(0),
                    artifact.revisions
                ),
            )
        }
        Err(e) => return page_error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let blocks: Vec<crate::artifacts::Block> = match serde_json::from_value(revision.blocks) {
        Ok(b) => b,
        Err(e) => return page_error(StatusCode::INTERNAL_SERVER_ERROR, &format!("a stored artifact revision: {e}")),
    };
    let html = crate::artifacts::render_page(&revision.title, revision.number, revision.created_at, &blocks);
    page_response(StatusCode::OK, html)
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
    // Listening before saying so: a SIGTERM sent as soon as the line is read stops the server.
    let signals = crate::signals::listen();
    eprintln!("cc-server: serving MCP on http://{local}/mcp (Streamable HTTP) and http://{local}/sse (HTTP+SSE)");
    // The address the agents this server starts call back to: itself, over loopback when it
    // listens on every interface.
    let mut callback = local;
    if callback.ip().is_unspecified() {
        callback.set_ip(if local.is_ipv6() {
            std::net::Ipv6Addr::LOCALHOST.into()
        } else {
            std::net::Ipv4Addr::LOCALHOST.into()
        });
    }
    app.services.runtime.set_endpoint(format!("http://{callback}/mcp"));
    let router = router(app, surface, &opts, shutdown.clone());
    let stop = shutdown.clone();
    tokio::spawn(async move {
        signals.await;
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
            sessions: SessionLimits::default(),
        })
    }

    #[test]
    fn duplicate_keys_are_found_at_any_depth() {
        assert_eq!(duplicate_key(br#"{"id":1,"id":2}"#).as_deref(), Some("id"));
        assert_eq!(duplicate_key(br#"{"p":[{"x":{"b":1,"b":2}}]}"#).as_deref(), Some("b"));
        assert_eq!(duplicate_key(br#"{"a":1,"b":{"a":2}}"#), None);
        assert_eq!(duplicate_key(b"{\"a\":"), None);
        let e = parse_jsonrpc(br#"{"jsonrpc":"2.0","id":4,"id":5,"method":"ping"}"#).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (-32600, "Invalid Request: the key 'id' appears twice in one object"));
    }

    /// Found by the `jsonrpc` fuzz target: a duplicate key where rmcp keeps a map (a tool's
    /// arguments, any params of a method it does not know) was taken, the last value winning,
    /// while a reader that keeps the first (a proxy, a log) saw another call.
    #[test]
    fn a_duplicate_key_is_refused_at_any_depth() {
        for (body, key) in [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"code_read","arguments":{"path":"a","path":"b"}}}"#,
                "path",
            ),
            (r#"{"jsonrpc":"2.0","id":2,"method":"x/y","params":{"method":"a","method":"b"}}"#, "method"),
            (r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"a":[{"k":1,"k":2}]}}"#, "k"),
        ] {
            let e = parse_jsonrpc(body.as_bytes()).expect_err(body);
            assert_eq!(e.code, -32600, "{body}");
            assert_eq!(e.message, format!("Invalid Request: the key '{key}' appears twice in one object"), "{body}");
        }
        assert!(parse_jsonrpc(br#"{"jsonrpc":"2.0","id":3,"method":"x/y","params":{"a":{"a":1}}}"#).is_ok());
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        let mut h = axum::http::HeaderMap::new();
        for (v, want) in [
            ("Bearer abc", Some("abc")),
            ("bearer abc", Some("abc")),
            ("BEARER  abc ", Some("abc")),
            ("Basic abc", None),
            ("Bearer", None),
            ("Bearerabc", None),
        ] {
            h.insert(header::AUTHORIZATION, HeaderValue::from_str(v).unwrap());
            assert_eq!(bearer(&h), want, "{v}");
        }
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
