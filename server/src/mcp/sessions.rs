//! Streamable HTTP sessions, bounded: "who opened this session, is anyone still using it,
//! and is there room for another?"
//!
//! - Each session is bound to the principal that opened it: a request naming it from
//!   another principal is answered as for a session that does not exist (404).
//! - Open sessions are capped per principal and in total ([`SessionLimits`]); an
//!   initialize past a cap is answered 503 with a JSON-RPC error saying which cap.
//! - A session with no request in flight, no open stream and no request for
//!   [`SessionLimits::idle`] is closed by the reaper (rmcp's own session manager keeps a
//!   session's handle after its worker idles out, so 5,000 initializes were 245 MB kept
//!   for good); memory freed by a reap is handed back to the system (`malloc_trim`).
//!
//! [`BoundedSessions`] wraps rmcp's `LocalSessionManager` (which does the protocol work) and
//! records activity; [`bind`] is the middleware in front of `/mcp` that checks owners and caps.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::common::server_side_http::{ServerSseMessage, SessionId};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;

use super::principal::Principal;

/// How many sessions may be open, and how long an unused one lives.
#[derive(Clone, Copy, Debug)]
pub struct SessionLimits {
    pub max_total: usize,
    pub max_per_principal: usize,
    /// A session with nothing in flight and no request for this long is closed.
    pub idle: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        SessionLimits { max_total: 1024, max_per_principal: 256, idle: Duration::from_secs(300) }
    }
}

struct Entry {
    owner: Arc<str>,
    last: Instant,
    /// Requests in flight and open streams (a GET stream, a response stream).
    busy: usize,
}

#[derive(Default)]
struct Table {
    sessions: HashMap<String, Entry>,
    /// Initializes let through and not answered yet, per principal (the cap counts them).
    opening: HashMap<Arc<str>, usize>,
}

/// The sessions of one server, shared by the middleware, the session manager and the reaper.
#[derive(Clone)]
pub struct Sessions {
    table: Arc<Mutex<Table>>,
    pub limits: SessionLimits,
}

impl Sessions {
    pub fn new(limits: SessionLimits) -> Sessions {
        Sessions { table: Arc::new(Mutex::new(Table::default())), limits }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Open sessions.
    pub fn len(&self) -> usize {
        self.lock().sessions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Open sessions of `principal`.
    pub fn of(&self, principal: &str) -> usize {
        self.lock().sessions.values().filter(|e| &*e.owner == principal).count()
    }

    fn touch(&self, id: &str, busy: isize) {
        let mut t = self.lock();
        if let Some(e) = t.sessions.get_mut(id) {
            e.last = Instant::now();
            e.busy = e.busy.saturating_add_signed(busy);
        }
    }

    /// The sessions idle past the limit, removed from the table.
    fn take_idle(&self, now: Instant) -> Vec<String> {
        let mut t = self.lock();
        let idle: Vec<String> = t
            .sessions
            .iter()
            .filter(|(_, e)| e.busy == 0 && now.duration_since(e.last) >= self.limits.idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &idle {
            t.sessions.remove(id);
        }
        if !idle.is_empty() {
            t.sessions.shrink_to_fit();
        }
        idle
    }

    /// Room for one more session of `who`: reserved until [`Sessions::opened`].
    fn reserve(&self, who: &Arc<str>) -> Result<(), String> {
        let mut t = self.lock();
        let opening: usize = t.opening.values().sum();
        let mine = t.sessions.values().filter(|e| e.owner == *who).count() + t.opening.get(who).copied().unwrap_or(0);
        if t.sessions.len() + opening >= self.limits.max_total {
            return Err(format!(
                "the server has {} sessions open (its limit, --max-sessions); close one (DELETE /mcp) or wait for idle ones to expire ({} s)",
                self.limits.max_total,
                self.limits.idle.as_secs()
            ));
        }
        if mine >= self.limits.max_per_principal {
            return Err(format!(
                "principal '{who}' has {} sessions open (the limit per principal, --max-sessions-per-principal); close one (DELETE /mcp) or wait for idle ones to expire ({} s)",
                self.limits.max_per_principal,
                self.limits.idle.as_secs()
            ));
        }
        *t.opening.entry(who.clone()).or_default() += 1;
        Ok(())
    }

    /// The initialize reserved for `who` was answered, with a new session or without.
    fn opened(&self, who: &Arc<str>, id: Option<&str>) {
        let mut t = self.lock();
        if let Some(n) = t.opening.get_mut(who) {
            *n -= 1;
            if *n == 0 {
                t.opening.remove(who);
            }
        }
        if let Some(id) = id {
            t.sessions.insert(id.to_string(), Entry { owner: who.clone(), last: Instant::now(), busy: 0 });
        }
    }

    fn owner(&self, id: &str) -> Option<Arc<str>> {
        self.lock().sessions.get(id).map(|e| e.owner.clone())
    }

    fn forget(&self, id: &str) {
        self.lock().sessions.remove(id);
    }
}

/// rmcp's local session manager, with activity recorded in [`Sessions`] and idle sessions
/// closed by [`BoundedSessions::reap`].
pub struct BoundedSessions {
    inner: LocalSessionManager,
    sessions: Sessions,
}

impl BoundedSessions {
    pub fn new(sessions: Sessions) -> BoundedSessions {
        let mut inner = LocalSessionManager::default();
        // The reaper decides when a session is idle: rmcp's worker timer does not see a
        // long tool call in flight (ask_agent waits up to 600 s) as activity.
        inner.session_config.keep_alive = None;
        BoundedSessions { inner, sessions }
    }

    /// Closes the sessions idle past the limit; gives freed memory back when it closed any.
    pub async fn reap(&self) -> usize {
        let idle = self.sessions.take_idle(Instant::now());
        for id in &idle {
            let _ = self.inner.close_session(&SessionId::from(id.as_str())).await;
        }
        if !idle.is_empty() {
            // A burst of sessions leaves the maps' tables at the burst's size.
            self.inner.sessions.write().await.shrink_to_fit();
            tracing::debug!(closed = idle.len(), open = self.sessions.len(), "idle MCP sessions closed");
            cc_indexer::memory::return_freed();
        }
        idle.len()
    }

    /// Reaps every quarter of the idle limit (at least every 30 s) until `stop`. A closed
    /// session's worker lets go of its memory shortly after the close: the memory is handed
    /// back again on the next two ticks.
    pub fn spawn_reaper(self: &Arc<Self>, stop: tokio_util::sync::CancellationToken) {
        let me = self.clone();
        let every = (me.sessions.limits.idle / 4).clamp(Duration::from_millis(200), Duration::from_secs(30));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut trims_due = 0;
            loop {
                tokio::select! {
                    _ = tick.tick() => {
                        if me.reap().await > 0 {
                            trims_due = 2;
                        } else if trims_due > 0 {
                            trims_due -= 1;
                            cc_indexer::memory::return_freed();
                        }
                    }
                    _ = stop.cancelled() => return,
                }
            }
        });
    }

    fn tracked<S>(&self, id: &SessionId, inner: S) -> Tracked<S> {
        self.sessions.touch(id, 1);
        Tracked { inner: Box::pin(inner), sessions: self.sessions.clone(), id: id.to_string() }
    }
}

/// A response or GET stream: the session is busy while it is open.
pub struct Tracked<S> {
    inner: Pin<Box<S>>,
    sessions: Sessions,
    id: String,
}

impl<S: Stream> Stream for Tracked<S> {
    type Item = S::Item;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

impl<S> Drop for Tracked<S> {
    fn drop(&mut self) {
        self.sessions.touch(&self.id, -1);
    }
}

impl SessionManager for BoundedSessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.inner.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.sessions.touch(id, 0);
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.sessions.forget(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let s = self.inner.create_stream(id, message).await?;
        Ok(self.tracked(id, s))
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.sessions.touch(id, 0);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let s = self.inner.create_standalone_stream(id).await?;
        Ok(self.tracked(id, s))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let s = self.inner.resume(id, last_event_id).await?;
        Ok(self.tracked(id, s))
    }
}

const SESSION_HEADER: &str = "mcp-session-id";

/// The answer to a request naming a session this server does not hold (404, as the MCP
/// specification says, so a client starts a new one).
pub const UNKNOWN_SESSION: &str = "Not Found: Session not found on this server: an MCP session lives in the server \
     process (replica) that opened it, and it ended or was opened on another replica; behind a load balancer, keep \
     a session's requests on one replica (route by the Mcp-Session-Id header), or initialize a new session";

/// In front of `/mcp`: a request naming a session must come from the principal that opened
/// it (another one is answered as for a session that does not exist: 404, so it learns
/// nothing); a request opening one must fit the caps. DELETE answers 200 (rmcp says 202,
/// which the Python SDK logs as "Session termination failed" on every close).
pub async fn bind(State(s): State<Sessions>, req: Request, next: Next) -> Response {
    let who: Arc<str> = req.extensions().get::<Principal>().map_or_else(|| Arc::from("local"), |p| p.name.clone());
    let sid = req.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
    let method = req.method().clone();
    match &sid {
        Some(sid) => {
            let owner = s.owner(sid);
            if owner.as_ref().is_some_and(|owner| *owner != who) {
                return super::http::deny(StatusCode::NOT_FOUND, "Not Found: Session not found");
            }
            let mut resp = next.run(req).await;
            if resp.status() == StatusCode::NOT_FOUND {
                s.forget(sid);
                if owner.is_none() {
                    // Never opened here (another replica's, or one that ended): say what to do.
                    return super::http::deny(StatusCode::NOT_FOUND, UNKNOWN_SESSION);
                }
            }
            if method == axum::http::Method::DELETE && resp.status() == StatusCode::ACCEPTED {
                *resp.status_mut() = StatusCode::OK;
            }
            resp
        }
        None if method == axum::http::Method::POST => {
            if let Err(why) = s.reserve(&who) {
                let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": why}});
                return (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(axum::http::header::CONTENT_TYPE, "application/json"), (axum::http::header::RETRY_AFTER, "5")],
                    body.to_string(),
                )
                    .into_response();
            }
            let resp = next.run(req).await;
            let new = resp.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok());
            s.opened(&who, new);
            resp
        }
        None => next.run(req).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_count_open_and_opening_sessions() {
        let s = Sessions::new(SessionLimits { max_total: 3, max_per_principal: 2, idle: Duration::from_secs(60) });
        let (a, b): (Arc<str>, Arc<str>) = (Arc::from("a"), Arc::from("b"));
        s.reserve(&a).unwrap();
        s.reserve(&a).unwrap();
        assert!(s.reserve(&a).unwrap_err().contains("principal 'a' has 2 sessions"));
        s.opened(&a, Some("1"));
        s.opened(&a, None); // an initialize that made no session frees its place
        s.reserve(&a).unwrap();
        s.opened(&a, Some("2"));
        s.reserve(&b).unwrap();
        s.opened(&b, Some("3"));
        assert!(s.reserve(&b).unwrap_err().contains("3 sessions open"));
        assert_eq!((s.len(), s.of("a"), s.of("b")), (3, 2, 1));
    }

    #[test]
    fn only_sessions_with_nothing_in_flight_expire() {
        let s = Sessions::new(SessionLimits { max_total: 10, max_per_principal: 10, idle: Duration::from_secs(60) });
        let a: Arc<str> = Arc::from("a");
        for id in ["1", "2"] {
            s.reserve(&a).unwrap();
            s.opened(&a, Some(id));
        }
        s.touch("2", 1);
        let later = Instant::now() + Duration::from_secs(61);
        assert_eq!(s.take_idle(later), ["1"]);
        assert!(s.take_idle(later).is_empty(), "a busy session is kept");
        s.touch("2", -1);
        assert_eq!(s.take_idle(Instant::now() + Duration::from_secs(61)), ["2"]);
        assert!(s.is_empty());
    }
}
