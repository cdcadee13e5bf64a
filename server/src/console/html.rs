//! The console's HTML: the page layout (header, navigation, workspace switcher, live
//! indicator), the embedded stylesheet and script, escaping, links with query strings,
//! pagination, times, status pills, and the error page. Every value shown goes through
//! [`esc`] (or `crate::artifacts`' sanitizer for markdown).

use std::collections::HashMap;
use std::fmt::Write;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::auth::Session;
use super::{Console, Fail};
use crate::store::Workspace;

const CSS: &str = include_str!("console.css");
const JS: &str = include_str!("console.js");

/// What a console page may load and do: its own stylesheet and script, its own requests, its
/// own forms; nothing from elsewhere, never framed.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
     connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Escapes text for HTML content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    crate::artifacts::escape(s)
}

/// The query string's fields.
pub(crate) struct Params(HashMap<String, String>);

impl Params {
    pub fn of(q: axum::extract::RawQuery) -> Params {
        Params(q.0.map(|q| super::auth::form_fields(q.as_bytes())).unwrap_or_default())
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str).filter(|v| !v.is_empty())
    }

    /// Page `name` of a list (1 when absent or not a number ≥ 1), `per` rows a page.
    pub fn pager(&self, name: &'static str, per: u32) -> Pager {
        let page = self.get(name).and_then(|p| p.parse::<u32>().ok()).filter(|p| *p >= 1).unwrap_or(1).min(100_000);
        Pager { name, page, per }
    }
}

/// `path` with a query string of `params` (empty values left out), encoded.
pub(crate) fn link(path: &str, params: &[(&str, &str)]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in params.iter().filter(|(_, v)| !v.is_empty()) {
        s.append_pair(k, v);
    }
    let q = s.finish();
    if q.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{q}")
    }
}

/// One list's page: which page, how many rows each.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pager {
    /// The query parameter naming it (several lists on one page page on their own).
    pub name: &'static str,
    pub page: u32,
    pub per: u32,
}

impl Pager {
    pub fn offset(&self) -> i64 {
        (self.page as i64 - 1) * self.per as i64
    }

    /// Rows to fetch: one more than a page, to know whether another follows.
    pub fn fetch(&self) -> i64 {
        self.per as i64 + 1
    }

    /// Cuts `rows` (fetched with [`Pager::fetch`]) to the page; whether more follow.
    pub fn cut<T>(&self, rows: &mut Vec<T>) -> bool {
        let more = rows.len() > self.per as usize;
        rows.truncate(self.per as usize);
        more
    }

    /// This page of a list held whole.
    pub fn slice<'a, T>(&self, all: &'a [T]) -> (&'a [T], bool) {
        let start = (self.offset() as usize).min(all.len());
        let end = (start + self.per as usize).min(all.len());
        (&all[start..end], end < all.len())
    }

    /// The links to the previous and next pages (`path` and the other parameters kept).
    pub fn nav(&self, path: &str, params: &[(&str, &str)], more: bool) -> String {
        if self.page == 1 && !more {
            return String::new();
        }
        let at = |page: u32| {
            let p = page.to_string();
            let mut all: Vec<(&str, &str)> = params.iter().filter(|(k, _)| *k != self.name).copied().collect();
            all.push((self.name, &p));
            link(path, &all)
        };
        let prev = if self.page > 1 {
            format!("<a rel=\"prev\" href=\"{}\">← Previous</a>", esc(&at(self.page - 1)))
        } else {
            "<span class=\"off\">← Previous</span>".into()
        };
        let next = if more {
            format!("<a rel=\"next\" href=\"{}\">Next →</a>", esc(&at(self.page + 1)))
        } else {
            "<span class=\"off\">Next →</span>".into()
        };
        format!("<nav class=\"pager\" data-list=\"{}\">{prev}<span>Page {}</span>{next}</nav>", self.name, self.page)
    }
}

/// A time as "3 min ago", with the exact time as its title.
pub(crate) fn when(ts: i64) -> String {
    if ts <= 0 {
        return "<span class=\"muted\">—</span>".into();
    }
    let exact = humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_secs(ts as u64));
    let ago = (crate::store::now() - ts).max(0);
    let rel = match ago {
        0..=59 => "just now".to_string(),
        60..=3599 => format!("{} min ago", ago / 60),
        3600..=86_399 => format!("{} h ago", ago / 3600),
        _ => format!("{} d ago", ago / 86_400),
    };
    format!("<time datetime=\"{exact}\" title=\"{exact}\">{rel}</time>")
}

/// A status as a coloured pill (`s-<status>` in the stylesheet).
pub(crate) fn pill(status: &str) -> String {
    let class: String = status.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("<span class=\"pill s-{class}\">{}</span>", esc(&status.replace('_', " ")))
}

/// Shortened text (on a character boundary) with an ellipsis.
pub(crate) fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

/// Pretty JSON, escaped, in a `<pre>`.
pub(crate) fn json_block(v: &serde_json::Value) -> String {
    format!("<pre class=\"json\">{}</pre>", esc(&serde_json::to_string_pretty(v).unwrap_or_default()))
}

/// The sections of the navigation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Nav {
    Overview,
    Tickets,
    Approvals,
    Agents,
    Spaces,
    Artifacts,
    Reviews,
    Code,
}

impl Nav {
    const ALL: [Nav; 8] = [
        Nav::Overview,
        Nav::Tickets,
        Nav::Approvals,
        Nav::Agents,
        Nav::Spaces,
        Nav::Artifacts,
        Nav::Reviews,
        Nav::Code,
    ];

    fn label(self) -> &'static str {
        match self {
            Nav::Overview => "Overview",
            Nav::Tickets => "Tickets",
            Nav::Approvals => "Approvals",
            Nav::Agents => "Agents",
            Nav::Spaces => "Spaces",
            Nav::Artifacts => "Artifacts",
            Nav::Reviews => "Reviews",
            Nav::Code => "Code index",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Nav::Overview => "/ui",
            Nav::Tickets => "/ui/tickets",
            Nav::Approvals => "/ui/approvals",
            Nav::Agents => "/ui/agents",
            Nav::Spaces => "/ui/spaces",
            Nav::Artifacts => "/ui/artifacts",
            Nav::Reviews => "/ui/reviews",
            Nav::Code => "/ui/code",
        }
    }
}

/// What every page of one request knows: the workspaces, the one shown, the form token, and
/// how many approvals wait (the navigation's badge).
pub(crate) struct View {
    pub ws: String,
    workspaces: Vec<Workspace>,
    csrf: Option<String>,
    waiting: i64,
}

impl View {
    /// The view of workspace `ws` (the default one, else the first, when none is asked for).
    pub async fn new(c: &Console, session: &Session, ws: Option<&str>) -> Result<View, Fail> {
        let store = &c.app.services.store;
        let workspaces = store.workspaces().list().await?;
        let ws = match ws {
            Some(w) if workspaces.iter().any(|x| x.id == w) => w.to_string(),
            Some(w) => return Err(Fail::not_found(format!("no workspace '{w}'"))),
            None => workspaces
                .iter()
                .find(|w| w.id == crate::store::DEFAULT_WORKSPACE)
                .or(workspaces.first())
                .map(|w| w.id.clone())
                .ok_or_else(|| Fail::not_found("no workspace yet"))?,
        };
        let waiting = super::queries::waiting(store, &ws).await?;
        Ok(View { ws, workspaces, csrf: session.csrf.clone(), waiting })
    }

    /// The hidden form field every POST form carries.
    pub fn csrf_field(&self) -> String {
        match &self.csrf {
            Some(t) => format!("<input type=\"hidden\" name=\"csrf\" value=\"{}\">", esc(t)),
            None => String::new(),
        }
    }

    /// `path` in this workspace, with `params`.
    pub fn url(&self, path: &str, params: &[(&str, &str)]) -> String {
        let mut all = vec![("ws", self.ws.as_str())];
        all.extend_from_slice(params);
        link(path, &all)
    }

    /// A whole page: `live` names the events that refresh it (`message approval run ticket`),
    /// `space` narrows message events to one space.
    pub fn page(&self, active: Nav, title: &str, live: &str, space: Option<&str>, body: &str) -> Response {
        let mut h = String::with_capacity(body.len() + 4096);
        head(&mut h, title);
        let _ = write!(
            h,
            "<body data-ws=\"{}\" data-live=\"{}\" data-space=\"{}\"><header class=\"top\"><a class=\"brand\" href=\"{}\">cc-server</a><nav class=\"main\">",
            esc(&self.ws),
            esc(live),
            esc(space.unwrap_or("")),
            esc(&self.url("/ui", &[]))
        );
        for n in Nav::ALL {
            let cur = if n == active { " aria-current=\"page\" class=\"cur\"" } else { "" };
            let badge = if n == Nav::Approvals && self.waiting > 0 {
                format!(" <span class=\"badge\" id=\"waiting\">{}</span>", self.waiting)
            } else {
                String::new()
            };
            let _ = write!(h, "<a href=\"{}\"{cur}>{}{badge}</a>", esc(&self.url(n.path(), &[])), n.label());
        }
        h.push_str("</nav><div class=\"tools\">");
        let _ = write!(
            h,
            "<form class=\"ws\" method=\"get\" action=\"{}\"><label>Workspace <select name=\"ws\">",
            active.path()
        );
        for w in &self.workspaces {
            let sel = if w.id == self.ws { " selected" } else { "" };
            let _ = write!(h, "<option value=\"{}\"{sel}>{}</option>", esc(&w.id), esc(&w.name));
        }
        h.push_str("</select></label><button type=\"submit\">Go</button></form>");
        if !live.is_empty() {
            h.push_str("<span id=\"live\" class=\"live\" title=\"This page updates by itself\">connecting…</span>");
        }
        if self.csrf.is_some() {
            let _ = write!(
                h,
                "<form method=\"post\" action=\"/ui/logout\">{}<button type=\"submit\" class=\"link\">Log out</button></form>",
                self.csrf_field()
            );
        }
        let _ = write!(h, "</div></header>\n<main><h1>{}</h1>\n{body}</main></body></html>\n", esc(title));
        respond(StatusCode::OK, h)
    }
}

fn head(h: &mut String, title: &str) {
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{} · cc-server</title><link rel=\"stylesheet\" href=\"/ui/static/console.css\"><script src=\"/ui/static/console.js\" defer></script></head>",
        esc(title)
    );
}

/// A page without the navigation (the login, an error).
pub(crate) fn bare_page(status: StatusCode, title: &str, body: &str) -> Response {
    let mut h = String::with_capacity(body.len() + 1024);
    head(&mut h, title);
    let _ = writeln!(h, "<body class=\"bare\"><main>{body}</main></body></html>");
    respond(status, h)
}

/// The page that says what went wrong.
pub(crate) fn error_page(status: StatusCode, message: &str) -> Response {
    let body = format!(
        "<div class=\"error\"><h1>{}</h1><p id=\"problem\">{}</p><p><a href=\"/ui\">Back to the console</a></p></div>",
        esc(&status.to_string()),
        esc(message)
    );
    bare_page(status, &status.to_string(), &body)
}

fn respond(status: StatusCode, html: String) -> Response {
    let mut r = (status, html).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    secure(h);
    r
}

fn secure(h: &mut axum::http::HeaderMap) {
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
}

/// A redirect after a form (303: the browser GETs `to`).
pub(crate) fn see_other(to: &str) -> Response {
    let mut r = StatusCode::SEE_OTHER.into_response();
    r.headers_mut().insert(header::LOCATION, HeaderValue::from_str(to).unwrap_or(HeaderValue::from_static("/ui")));
    r
}

fn asset(body: &'static str, kind: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("max-age=300"));
    r
}

/// `GET /ui/static/console.css`.
pub(crate) async fn stylesheet() -> Response {
    asset(CSS, "text/css; charset=utf-8")
}

/// `GET /ui/static/console.js`.
pub(crate) async fn script() -> Response {
    asset(JS, "text/javascript; charset=utf-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_and_links() {
        let p = Pager { name: "page", page: 2, per: 3 };
        assert_eq!((p.offset(), p.fetch()), (3, 4));
        let all = [1, 2, 3, 4, 5, 6, 7];
        assert_eq!(p.slice(&all), (&all[3..6], true));
        let p3 = Pager { page: 3, ..p };
        assert_eq!(p3.slice(&all), (&all[6..7], false));
        let nav = p.nav("/ui/tickets", &[("ws", "a b"), ("page", "2")], true);
        assert!(nav.contains("href=\"/ui/tickets?ws=a+b&amp;page=1\""), "{nav}");
        assert!(nav.contains("href=\"/ui/tickets?ws=a+b&amp;page=3\""), "{nav}");
        assert_eq!(Pager { page: 1, ..p }.nav("/x", &[], false), "");
        assert_eq!(link("/ui", &[("ws", ""), ("q", "<x>&")]), "/ui?q=%3Cx%3E%26");
    }

    #[test]
    fn pills_and_clips_are_escaped() {
        assert_eq!(pill("in_progress"), "<span class=\"pill s-in_progress\">in progress</span>");
        assert_eq!(pill("<b>"), "<span class=\"pill s-_b_\">&lt;b&gt;</span>");
        assert_eq!(clip("héllo wörld", 5), "héllo…");
        assert_eq!(clip("short", 10), "short");
    }
}
