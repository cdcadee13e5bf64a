//! The operator console: "show me what the agents are doing, and let me decide." Web pages
//! served by `cc-server serve` at `/ui` on the MCP listener — server-rendered HTML, one
//! stylesheet and one small script (live updates), both embedded in the binary.
//!
//! - Behind the same guard as every route (`mcp::http::guard`: Host, Origin, body size); off
//!   without `--operator-token` (404 saying so). [`auth`] then admits only the operator: a
//!   session cookie (opaque, random, HttpOnly, SameSite=Strict, Path=/ui) made by logging in
//!   with the operator token, or the token itself as a bearer; every POST made with the
//!   cookie carries the session's CSRF token.
//! - Pages, one file per group: [`overview`], [`tickets`], [`approvals`] (the tool-call queue
//!   and the board, decided here), [`agents`], [`spaces`], [`artifacts`] (rendered by
//!   `crate::artifacts`), [`reviews`], [`code`] (the code index, through the same tools an
//!   agent calls). Every list paginates ([`html::Pager`]); everything shown is escaped.
//! - Live: [`live`] streams the server's bus (`crate::bus`) as server-sent events; the script
//!   re-reads the page's `<main>` when an event it listens to arrives.
//! - [`queries`]: the read-only aggregates the pages need (counts by status, pages of rows);
//!   every write goes through the store's areas.

mod agents;
mod approvals;
mod artifacts;
pub(crate) mod auth;
mod code;
mod html;
mod live;
mod overview;
mod queries;
mod reviews;
mod spaces;
mod tickets;

use std::sync::Arc;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;
use tokio_util::sync::CancellationToken;

use crate::app::App;
use crate::mcp::http::HttpOptions;

/// Where the console is mounted.
pub const PREFIX: &str = "/ui";

/// Whether `path` is one of the console's.
pub fn is_console_path(path: &str) -> bool {
    path == PREFIX || path.strip_prefix(PREFIX).is_some_and(|rest| rest.starts_with('/'))
}

/// The answer on `/ui` of a server without `--operator-token`.
pub(crate) fn off() -> Response {
    html::error_page(
        StatusCode::NOT_FOUND,
        "The operator console is served only with --operator-token (it is the operator's; \
         without it use the CLI: `cc-server approvals`, `cc-server agents`, `cc-server board`).",
    )
}

/// What every console handler holds.
#[derive(Clone)]
pub(crate) struct Console {
    pub app: Arc<App>,
    pub auth: Arc<auth::Auth>,
    /// Ends the live streams when the server shuts down.
    pub shutdown: CancellationToken,
    pub max_body: usize,
}

/// The console's routes (none without an operator token: the guard answers those requests).
pub fn routes(app: Arc<App>, opts: &HttpOptions, shutdown: CancellationToken) -> Router {
    use axum::routing::{get, post};
    let Some(token) = opts.operator_token.as_deref() else { return Router::new() };
    let c = Console { app, auth: Arc::new(auth::Auth::new(token)), shutdown, max_body: opts.max_body };
    Router::new()
        .route("/ui", get(overview::page))
        .route("/ui/login", get(auth::login_page).post(auth::login))
        .route("/ui/logout", post(auth::logout))
        .route("/ui/static/console.css", get(html::stylesheet))
        .route("/ui/static/console.js", get(html::script))
        .route("/ui/events", get(live::events))
        .route("/ui/tickets", get(tickets::board))
        .route("/ui/tickets/{key}", get(tickets::ticket))
        .route("/ui/approvals", get(approvals::page))
        .route("/ui/approvals/{id}/decide", post(approvals::decide_call))
        .route("/ui/board/{id}/decide", post(approvals::decide_board))
        .route("/ui/agents", get(agents::page))
        .route("/ui/agents/{id}", get(agents::agent))
        .route("/ui/runs/{id}", get(agents::run))
        .route("/ui/spaces", get(spaces::list))
        .route("/ui/spaces/{id}", get(spaces::space))
        .route("/ui/artifacts", get(artifacts::list))
        .route("/ui/artifacts/{id}", get(artifacts::artifact))
        .route("/ui/reviews", get(reviews::list))
        .route("/ui/reviews/{id}", get(reviews::review))
        .route("/ui/code", get(code::page))
        .route("/ui/{*rest}", get(not_found).post(not_found))
        .layer(axum::middleware::from_fn_with_state(c.clone(), auth::authenticate))
        .with_state(c)
}

async fn not_found(uri: axum::http::Uri) -> Response {
    html::error_page(StatusCode::NOT_FOUND, &format!("The console has no page {}.", uri.path()))
}

/// Why a page could not be made, as the page that says so.
#[derive(Debug)]
pub(crate) struct Fail {
    status: StatusCode,
    message: String,
}

impl Fail {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Fail {
        Fail { status, message: message.into() }
    }

    pub fn not_found(message: impl Into<String>) -> Fail {
        Fail::new(StatusCode::NOT_FOUND, message)
    }

    pub fn bad_request(message: impl Into<String>) -> Fail {
        Fail::new(StatusCode::BAD_REQUEST, message)
    }
}

impl From<crate::store::StoreError> for Fail {
    fn from(e: crate::store::StoreError) -> Fail {
        use crate::store::StoreError as S;
        let status = match &e {
            S::NotFound { .. } => StatusCode::NOT_FOUND,
            S::Conflict(_) | S::Refused { .. } => StatusCode::CONFLICT,
            S::Invalid(_) => StatusCode::BAD_REQUEST,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Fail::new(status, e.to_string())
    }
}

impl IntoResponse for Fail {
    fn into_response(self) -> Response {
        html::error_page(self.status, &self.message)
    }
}

/// What a page handler answers.
pub(crate) type Answer = Result<Response, Fail>;
