//! The legacy HTTP+SSE transport (protocol 2024-11-05), which rmcp dropped:
//! `GET /sse` opens a session whose first event names the endpoint to POST to
//! (`/messages?sessionId=…`); each POSTed JSON-RPC message is answered 202 and its
//! response arrives as an SSE `message` event. The guard in front of every route
//! checks Host, Origin and the token here as on `/mcp`; a session takes only messages
//! from the principal that opened its stream (another one gets 404).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use futures::{SinkExt, Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::ServiceExt;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::{CancellationToken, PollSender};

use super::principal::Principal;
use super::service::Session;
use super::surface::Surface;
use crate::app::App;

/// Most SSE sessions open at once; more are refused with 503.
pub const MAX_SESSIONS: usize = 1024;

#[derive(Clone)]
pub struct SseState {
    app: Arc<App>,
    surface: Surface,
    sessions: Arc<Mutex<HashMap<String, Entry>>>,
    max_body: usize,
    shutdown: CancellationToken,
}

impl SseState {
    pub fn new(app: Arc<App>, surface: Surface, max_body: usize, shutdown: CancellationToken) -> SseState {
        SseState { app, surface, sessions: Arc::new(Mutex::new(HashMap::new())), max_body, shutdown }
    }
}

/// One open SSE session: where its messages go, and who opened it.
type Entry = (mpsc::Sender<ClientJsonRpcMessage>, Arc<str>);

pub fn routes(state: SseState) -> Router {
    Router::new().route("/sse", get(open)).route("/messages", post(message)).with_state(state)
}

/// Removes the session from the map when its stream is dropped (the client left).
struct Cleanup {
    id: String,
    sessions: Arc<Mutex<HashMap<String, Entry>>>,
    ct: CancellationToken,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        self.sessions.lock().expect("sse sessions").remove(&self.id);
        self.ct.cancel();
    }
}

async fn open(
    State(s): State<SseState>,
    principal: Option<axum::Extension<Principal>>,
    headers: axum::http::HeaderMap,
) -> Response {
    let principal = principal.map(|p| p.0).unwrap_or_else(Principal::local);
    // The mode the conversation opens in: the stream's Cc-Mode header, else the server's.
    let mode = match headers.get(super::service::MODE_HEADER) {
        None => s.app.services.policy.default_mode,
        Some(v) => match v.to_str().map_err(|_| "not text".to_string()).and_then(super::policy::Mode::parse) {
            Ok(m) => m,
            Err(e) => return jsonrpc_error(StatusCode::BAD_REQUEST, -32600, &format!("Cc-Mode header: {e}")),
        },
    };
    if let Err(e) = s.app.services.policy.check_ceiling(mode) {
        return jsonrpc_error(StatusCode::BAD_REQUEST, -32600, &format!("Cc-Mode header: {e}"));
    }
    let id = uuid::Uuid::new_v4().simple().to_string();
    let (to_server, from_client) = mpsc::channel::<ClientJsonRpcMessage>(64);
    let (to_client, from_server) = mpsc::channel::<ServerJsonRpcMessage>(64);
    {
        let mut map = s.sessions.lock().expect("sse sessions");
        if map.len() >= MAX_SESSIONS {
            return (StatusCode::SERVICE_UNAVAILABLE, "too many SSE sessions").into_response();
        }
        map.insert(id.clone(), (to_server, principal.name.clone()));
    }
    let ct = s.shutdown.child_token();
    let session = Session::new(s.app.clone(), s.surface.clone()).with_principal(principal);
    session.conversation.open_in(mode);
    let sink = PollSender::new(to_client).sink_map_err(std::io::Error::other);
    let stream = ReceiverStream::new(from_client);
    let run_ct = ct.clone();
    tokio::spawn(async move {
        match session.serve_with_ct((sink, stream), run_ct).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(e) => tracing::debug!("sse session ended before initialize: {e}"),
        }
    });
    let cleanup = Cleanup { id: id.clone(), sessions: s.sessions.clone(), ct: ct.clone() };
    let endpoint = Event::default().event("endpoint").data(format!("/messages?sessionId={id}"));
    let messages = ReceiverStream::new(from_server).map(|m| {
        let json = serde_json::to_string(&m).unwrap_or_else(|_| "{}".into());
        Ok::<_, Infallible>(Event::default().event("message").data(json))
    });
    let stream = futures::stream::once(async move { Ok::<_, Infallible>(endpoint) })
        .chain(messages)
        .take_until(async move { ct.cancelled().await });
    let stream = Guarded { inner: Box::pin(stream), _cleanup: cleanup };
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

struct Guarded<S> {
    inner: std::pin::Pin<Box<S>>,
    _cleanup: Cleanup,
}

impl<S: Stream> Stream for Guarded<S> {
    type Item = S::Item;
    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<S::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

#[derive(serde::Deserialize)]
struct MessageQuery {
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

fn jsonrpc_error(status: StatusCode, code: i64, message: &str) -> Response {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    (status, [(axum::http::header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

async fn message(
    State(s): State<SseState>,
    Query(q): Query<MessageQuery>,
    principal: Option<axum::Extension<Principal>>,
    body: axum::body::Bytes,
) -> Response {
    let who = principal.map(|p| p.0.name.clone());
    let Some(id) = q.session_id else {
        return jsonrpc_error(StatusCode::BAD_REQUEST, -32600, "Bad Request: sessionId is required");
    };
    if body.len() > s.max_body {
        return jsonrpc_error(StatusCode::PAYLOAD_TOO_LARGE, -32600, "Payload Too Large");
    }
    let entry = s.sessions.lock().expect("sse sessions").get(&id).cloned();
    // Another principal's session is answered as one that does not exist.
    let Some(tx) = entry.filter(|(_, owner)| Some(owner) == who.as_ref()).map(|(tx, _)| tx) else {
        return jsonrpc_error(StatusCode::NOT_FOUND, -32001, "Not Found: no such session");
    };
    let msg = match super::http::parse_jsonrpc(&body) {
        Ok(m) => m,
        Err(e) => return jsonrpc_error(StatusCode::BAD_REQUEST, e.code, &e.message),
    };
    match tx.send(msg).await {
        Ok(()) => StatusCode::ACCEPTED.into_response(),
        Err(_) => jsonrpc_error(StatusCode::GONE, -32001, "Gone: the session has ended"),
    }
}
