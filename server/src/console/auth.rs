//! Who may use the console: the operator. A login form posts the operator token (compared in
//! constant time); a match opens a session — an opaque random id in a cookie (HttpOnly,
//! SameSite=Strict, Path=/ui), kept in memory under its blake3 hash with an absolute expiry —
//! and every POST made with the cookie carries the session's CSRF token as the form field
//! `csrf` (checked here, before any handler, so no form can forget it). The login form has a
//! token of its own (double submit: a short-lived cookie and the same value in the form).
//! A request bearing the operator token itself (`Authorization: Bearer`) is the operator
//! too, with no CSRF token: no browser sends that header on its own.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::html::{self, esc};
use super::Console;
use crate::mcp::principal::constant_time_eq;

/// The session cookie.
pub const COOKIE: &str = "cc_console";
/// The login form's double-submit cookie.
const LOGIN_COOKIE: &str = "cc_console_login";
/// How long a session lasts from its login.
const SESSION_TTL: Duration = Duration::from_secs(12 * 3600);
/// How long a login form may wait before it is posted.
const LOGIN_TTL_SECS: u64 = 600;
/// Most sessions at once (the oldest goes first past it).
const MAX_SESSIONS: usize = 1000;

/// A logged-in request: the form token to embed (none for a bearer request, which needs none).
#[derive(Clone, Debug)]
pub(crate) struct Session {
    pub csrf: Option<String>,
}

struct Stored {
    csrf: String,
    expires: Instant,
}

/// The operator token and the open sessions.
pub(crate) struct Auth {
    token: String,
    sessions: Mutex<HashMap<[u8; 32], Stored>>,
}

/// 32 random bytes as hex (two v4 UUIDs: the OS's random source).
fn random_token() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

fn key(id: &str) -> [u8; 32] {
    *blake3::hash(id.as_bytes()).as_bytes()
}

impl Auth {
    pub fn new(token: &str) -> Auth {
        Auth { token: token.to_string(), sessions: Mutex::new(HashMap::new()) }
    }

    fn is_operator_token(&self, t: &str) -> bool {
        constant_time_eq(t.as_bytes(), self.token.as_bytes())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Stored>> {
        self.sessions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Opens a session: its cookie value.
    fn open(&self) -> String {
        let id = random_token();
        let now = Instant::now();
        let mut s = self.lock();
        s.retain(|_, v| v.expires > now);
        if s.len() >= MAX_SESSIONS {
            if let Some(oldest) = s.iter().min_by_key(|(_, v)| v.expires).map(|(k, _)| *k) {
                s.remove(&oldest);
            }
        }
        s.insert(key(&id), Stored { csrf: random_token(), expires: now + SESSION_TTL });
        id
    }

    /// The CSRF token of a live session.
    fn csrf_of(&self, id: &str) -> Option<String> {
        let s = self.lock();
        s.get(&key(id)).filter(|v| v.expires > Instant::now()).map(|v| v.csrf.clone())
    }

    fn close(&self, id: &str) {
        self.lock().remove(&key(id));
    }
}

/// The value of cookie `name` in the request's Cookie headers.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// A form body's fields (`application/x-www-form-urlencoded`).
pub(crate) fn form_fields(body: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(body).into_owned().collect()
}

fn refused(status: StatusCode, message: &str) -> Response {
    html::error_page(status, message)
}

/// In front of every console route: static assets and the login pass; anything else needs the
/// operator (a session cookie or the bearer token), and a POST with the cookie needs the
/// session's CSRF token. The [`Session`] goes into the request's extensions.
pub(crate) async fn authenticate(State(c): State<Console>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path();
    if path.starts_with("/ui/static/") || path == "/ui/login" {
        return next.run(req).await;
    }
    let headers = req.headers();
    let bearer = crate::mcp::http::bearer(headers);
    let session = if let Some(t) = bearer {
        if !c.auth.is_operator_token(t) {
            return refused(StatusCode::UNAUTHORIZED, "Unauthorized: the bearer token is not the operator's.");
        }
        Session { csrf: None }
    } else if let Some(csrf) = cookie(headers, COOKIE).and_then(|id| c.auth.csrf_of(id)) {
        Session { csrf: Some(csrf) }
    } else if req.method() == Method::GET || req.method() == Method::HEAD {
        let next_path = req.uri().path_and_query().map_or("/ui", |p| p.as_str()).to_string();
        return login_form(StatusCode::UNAUTHORIZED, &next_path, None);
    } else {
        return refused(StatusCode::UNAUTHORIZED, "Unauthorized: log in with the operator token first (/ui/login).");
    };
    if req.method() == Method::POST {
        if let Some(want) = &session.csrf {
            let (parts, body) = req.into_parts();
            let Ok(bytes) = axum::body::to_bytes(body, c.max_body).await else {
                return refused(StatusCode::PAYLOAD_TOO_LARGE, "The form is larger than the server accepts.");
            };
            let ok =
                form_fields(&bytes).get("csrf").is_some_and(|got| constant_time_eq(got.as_bytes(), want.as_bytes()));
            if !ok {
                return refused(
                    StatusCode::FORBIDDEN,
                    "Forbidden: the form's CSRF token is missing or wrong (reload the page and try again).",
                );
            }
            req = Request::from_parts(parts, axum::body::Body::from(bytes));
        }
    }
    req.extensions_mut().insert(session);
    next.run(req).await
}

/// Where a login goes afterwards: a console path, never elsewhere.
fn safe_next(next: Option<&str>) -> &str {
    next.filter(|n| super::is_console_path(n.split('?').next().unwrap_or("")) && !n.contains("//") && !n.contains('\\'))
        .unwrap_or("/ui")
}

/// The login page (`status` 401 when it stands in for the page asked for), with its form token.
fn login_form(status: StatusCode, next: &str, problem: Option<&str>) -> Response {
    let nonce = random_token();
    let problem = problem.map(|p| format!("<p class=\"flash bad\">{}</p>", esc(p))).unwrap_or_default();
    let body = format!(
        "<div class=\"login\"><h1>cc-server console</h1><p class=\"muted\">Log in with the server's operator token \
         (<code>--operator-token</code>).</p>{problem}<form method=\"post\" action=\"/ui/login\">\
         <input type=\"hidden\" name=\"csrf\" value=\"{nonce}\"><input type=\"hidden\" name=\"next\" value=\"{next}\">\
         <label>Operator token <input type=\"password\" name=\"token\" id=\"token\" autocomplete=\"current-password\" \
         required autofocus></label><button type=\"submit\" id=\"login\">Log in</button></form></div>",
        next = esc(safe_next(Some(next))),
    );
    let mut r = html::bare_page(status, "Log in · cc-server", &body);
    let c = format!("{LOGIN_COOKIE}={nonce}; HttpOnly; SameSite=Strict; Path=/ui/login; Max-Age={LOGIN_TTL_SECS}");
    r.headers_mut().append(header::SET_COOKIE, HeaderValue::from_str(&c).expect("a cookie of hex"));
    r
}

/// `GET /ui/login`.
pub(crate) async fn login_page(q: axum::extract::RawQuery) -> Response {
    let q = q.0.map(|q| form_fields(q.as_bytes())).unwrap_or_default();
    login_form(StatusCode::OK, safe_next(q.get("next").map(String::as_str)), None)
}

/// `POST /ui/login`: the token, the form's token, where to go next.
pub(crate) async fn login(State(c): State<Console>, headers: HeaderMap, body: axum::body::Bytes) -> Response {
    let f = form_fields(&body);
    let next = safe_next(f.get("next").map(String::as_str)).to_string();
    let nonce_ok = f
        .get("csrf")
        .zip(cookie(&headers, LOGIN_COOKIE))
        .is_some_and(|(got, want)| constant_time_eq(got.as_bytes(), want.as_bytes()));
    if !nonce_ok {
        return refused(
            StatusCode::FORBIDDEN,
            "Forbidden: the login form's CSRF token is missing or wrong (open /ui/login again).",
        );
    }
    if !f.get("token").is_some_and(|t| c.auth.is_operator_token(t)) {
        return login_form(StatusCode::UNAUTHORIZED, &next, Some("That is not the operator token."));
    }
    let id = c.auth.open();
    let mut r = (StatusCode::SEE_OTHER, [(header::LOCATION, next)]).into_response();
    let h = r.headers_mut();
    let session = format!("{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/ui; Max-Age={}", SESSION_TTL.as_secs());
    h.append(header::SET_COOKIE, HeaderValue::from_str(&session).expect("a cookie of hex"));
    let spent = format!("{LOGIN_COOKIE}=; HttpOnly; SameSite=Strict; Path=/ui/login; Max-Age=0");
    h.append(header::SET_COOKIE, HeaderValue::from_str(&spent).expect("a plain cookie"));
    r
}

/// `POST /ui/logout`.
pub(crate) async fn logout(State(c): State<Console>, headers: HeaderMap) -> Response {
    if let Some(id) = cookie(&headers, COOKIE) {
        c.auth.close(id);
    }
    let mut r = (StatusCode::SEE_OTHER, [(header::LOCATION, "/ui/login")]).into_response();
    let gone = format!("{COOKIE}=; HttpOnly; SameSite=Strict; Path=/ui; Max-Age=0");
    r.headers_mut().append(header::SET_COOKIE, HeaderValue::from_str(&gone).expect("a plain cookie"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_stays_in_the_console() {
        assert_eq!(safe_next(Some("/ui/tickets?ws=default")), "/ui/tickets?ws=default");
        for bad in ["https://evil.example", "//evil.example/ui", "/uix", "/mcp", "/ui/..\\x", "/ui//evil"] {
            assert_eq!(safe_next(Some(bad)), "/ui", "{bad}");
        }
    }

    #[test]
    fn sessions_expire_and_close() {
        let a = Auth::new("operator-secret");
        let id = a.open();
        assert!(a.csrf_of(&id).is_some());
        assert!(a.csrf_of("not-a-session").is_none());
        a.close(&id);
        assert!(a.csrf_of(&id).is_none());
        let id = a.open();
        a.lock().get_mut(&key(&id)).unwrap().expires = Instant::now() - Duration::from_secs(1);
        assert!(a.csrf_of(&id).is_none(), "an expired session is no session");
    }

    #[test]
    fn cookies_are_read_by_name() {
        let mut h = HeaderMap::new();
        h.append(header::COOKIE, HeaderValue::from_static("a=1; cc_console=abc"));
        h.append(header::COOKIE, HeaderValue::from_static("b=2"));
        assert_eq!(cookie(&h, COOKIE), Some("abc"));
        assert_eq!(cookie(&h, "b"), Some("2"));
        assert_eq!(cookie(&h, "cc"), None);
    }
}
