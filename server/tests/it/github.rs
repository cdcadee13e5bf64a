//! The GitHub Issues provider against a local GitHub API double, on SQLite and PostgreSQL:
//! each change mirrored (create, update, labels and assignees, comments, close, reopen), the
//! ticket keeping the issue's number; secondary and primary rate limits honoured; a 422
//! surfaced with GitHub's validation errors; an outage (and an answer lost in one) keeping the
//! local ticket and its changes in the outbox until a retry pushes them, never twice.
//!
//! [`Double`] is a protocol-faithful double of the part of GitHub's REST API the provider
//! uses, because GitHub's API cannot be reached from the tests: `POST /repos/{o}/{r}/issues`,
//! `PATCH /repos/{o}/{r}/issues/{n}`, `GET /repos/{o}/{r}/issues` (state, sort, direction,
//! per_page, page; `Link` headers with rel next, last, prev, first), `POST` and `GET
//! /repos/{o}/{r}/issues/{n}/comments`, the bearer token (401 "Bad credentials"), the 256
//! character title limit (422 "Validation Failed" with GitHub's `errors` shape), 403/429
//! secondary limits with `Retry-After` and 403 primary limits with `x-ratelimit-remaining: 0`
//! and `x-ratelimit-reset`, and an outage (its listener closed: connection refused) or an
//! answer lost after the change was made (502 after the write). For pull requests (the
//! reviews' side, tested in `github_reviews.rs`): `GET /repos/{o}/{r}/pulls/{n}` (number,
//! title, html_url, base and head with ref and sha), `GET …/pulls/{n}/files` (filename,
//! status, patch; per_page, page and `Link` headers as the issues listing), `POST
//! …/pulls/{n}/reviews` (commit_id, body, event COMMENT | REQUEST_CHANGES | APPROVE, comments
//! with path, line, side LEFT | RIGHT, body), refused whole as GitHub does — 422
//! "Unprocessable Entity" with `errors: ["Line could not be resolved"]` when a comment's line
//! is not in its file's hunks on its side (computed from the seeded patches by the double's
//! own walk), 422 "Validation Failed" for an unknown event or side or a missing body on a
//! REQUEST_CHANGES; a test seeds a pull request with [`Double::add_pull`] and reads the stored
//! reviews back with [`Double::reviews`].

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch};
use axum::{Json, Router};
use cc_server::app::App;
use cc_server::config::{Config, GitHub as GitHubConfig};
use cc_server::mcp::approvals::ApprovalConfig;
use cc_server::mcp::dispatch::{CallOutcome, Caller};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::surface::Surface;
use cc_server::providers::{Mirror, Synced};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::common::{err, ok_value, on_each_backend};

pub(crate) const TOKEN: &str = "ghp_double_token";
pub(crate) const REPO: &str = "acme/shop";

/// A pull request of the double.
#[derive(Clone, Debug)]
pub(crate) struct Pull {
    pub(crate) number: i64,
    pub(crate) title: String,
    pub(crate) base_sha: String,
    pub(crate) head_sha: String,
    /// (filename, status, patch).
    pub(crate) files: Vec<(String, String, Option<String>)>,
}

#[derive(Clone, Debug)]
struct Issue {
    number: i64,
    title: String,
    body: String,
    state: String,
    state_reason: Option<String>,
    labels: Vec<String>,
    assignees: Vec<String>,
    comments: Vec<String>,
}

/// What the next request meets instead of an answer.
#[derive(Clone, Debug)]
pub(crate) enum Fault {
    /// 403 or 429 with Retry-After (seconds).
    RetryAfter(u16, u64),
    /// 403 with x-ratelimit-remaining 0, reset in this many seconds.
    PrimaryLimit(i64),
    /// The next POST's write is made, and its answer lost (502).
    LoseAnswer,
}

#[derive(Default)]
struct Repo {
    issues: Vec<Issue>,
    pulls: Vec<Pull>,
    /// (pull number, the review as GitHub stores it) of every review accepted.
    reviews: Vec<(i64, Value)>,
    faults: VecDeque<Fault>,
    /// (method path, when) of every request.
    log: Vec<(String, Instant)>,
}

#[derive(Clone)]
struct Shared(Arc<Mutex<Repo>>, SocketAddr);

pub(crate) struct Double {
    state: Arc<Mutex<Repo>>,
    addr: SocketAddr,
    stop: Option<CancellationToken>,
}

impl Double {
    pub(crate) async fn start() -> Double {
        let mut d = Double { state: Arc::default(), addr: "127.0.0.1:0".parse().unwrap(), stop: None };
        d.listen().await;
        d
    }

    async fn listen(&mut self) {
        let listener = tokio::net::TcpListener::bind(self.addr).await.unwrap();
        self.addr = listener.local_addr().unwrap();
        let shared = Shared(self.state.clone(), self.addr);
        let app = Router::new()
            .route("/repos/{owner}/{repo}/issues", get(list_issues).post(create_issue))
            .route("/repos/{owner}/{repo}/issues/{number}", patch(update_issue))
            .route("/repos/{owner}/{repo}/issues/{number}/comments", get(list_comments).post(create_comment))
            .route("/repos/{owner}/{repo}/pulls/{number}", get(get_pull))
            .route("/repos/{owner}/{repo}/pulls/{number}/files", get(list_pull_files))
            .route("/repos/{owner}/{repo}/pulls/{number}/reviews", axum::routing::post(create_review))
            .with_state(shared);
        let stop = CancellationToken::new();
        let s = stop.clone();
        tokio::spawn(async move {
            axum::serve(listener, app).with_graceful_shutdown(async move { s.cancelled().await }).await.unwrap();
        });
        self.stop = Some(stop);
    }

    /// An outage: the listener is closed (connections are refused).
    async fn down(&mut self) {
        if let Some(s) = self.stop.take() {
            s.cancel();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    /// Back, on the same address.
    async fn up(&mut self) {
        self.listen().await;
    }

    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub(crate) fn fault(&self, f: Fault) {
        self.state.lock().unwrap().faults.push_back(f);
    }

    fn issue(&self, number: i64) -> Issue {
        self.state.lock().unwrap().issues.iter().find(|i| i.number == number).cloned().unwrap()
    }

    fn issues(&self) -> Vec<Issue> {
        self.state.lock().unwrap().issues.clone()
    }

    /// Issues someone else opened.
    fn add_issues(&self, n: usize) {
        let mut r = self.state.lock().unwrap();
        for _ in 0..n {
            let number = r.issues.len() as i64 + 1;
            r.issues.push(Issue {
                number,
                title: format!("someone's issue {number}"),
                body: "unrelated".into(),
                state: "open".into(),
                state_reason: None,
                labels: vec![],
                assignees: vec![],
                comments: vec![],
            });
        }
    }

    pub(crate) fn log(&self) -> Vec<(String, Instant)> {
        self.state.lock().unwrap().log.clone()
    }

    /// Seeds a pull request of `REPO`: its base and head commits and its files, each with
    /// its status and patch (GitHub's hunks without the file header; `None`: binary).
    pub(crate) fn add_pull(&self, pull: Pull) {
        let mut r = self.state.lock().unwrap();
        r.pulls.retain(|p| p.number != pull.number);
        r.pulls.push(pull);
    }

    /// The reviews accepted on pull request `number`, as GitHub stores them (id, commit_id,
    /// body, state, and the comments with path, line, side, body), oldest first.
    pub(crate) fn reviews(&self, number: i64) -> Vec<Value> {
        self.state.lock().unwrap().reviews.iter().filter(|(n, _)| *n == number).map(|(_, v)| v.clone()).collect()
    }
}

fn gh_error(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({"message": message, "documentation_url": "https://docs.github.com/rest"}))).into_response()
}

/// The checks every request meets, in GitHub's order: the token, then a scripted fault.
#[allow(clippy::result_large_err)]
fn gate(s: &Shared, h: &HeaderMap, what: String, repo: (&str, &str)) -> Result<Option<Fault>, Response> {
    let mut r = s.0.lock().unwrap();
    r.log.push((what, Instant::now()));
    if h.get("authorization").and_then(|v| v.to_str().ok()) != Some(&format!("Bearer {TOKEN}")) {
        return Err(gh_error(StatusCode::UNAUTHORIZED, "Bad credentials"));
    }
    if format!("{}/{}", repo.0, repo.1) != REPO {
        return Err(gh_error(StatusCode::NOT_FOUND, "Not Found"));
    }
    // A lost answer is a POST's (what creates something twice when retried blindly).
    let lose_only = matches!(r.faults.front(), Some(Fault::LoseAnswer))
        && !r.log.last().is_some_and(|(w, _)| w.starts_with("POST"));
    if lose_only {
        return Ok(None);
    }
    match r.faults.pop_front() {
        Some(Fault::RetryAfter(status, secs)) => {
            let mut resp = gh_error(
                StatusCode::from_u16(status).unwrap(),
                "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
            );
            resp.headers_mut().insert("retry-after", secs.to_string().parse().unwrap());
            Err(resp)
        }
        Some(Fault::PrimaryLimit(in_secs)) => {
            let mut resp = gh_error(StatusCode::FORBIDDEN, "API rate limit exceeded for user ID 1.");
            let h = resp.headers_mut();
            h.insert("x-ratelimit-limit", "5000".parse().unwrap());
            h.insert("x-ratelimit-remaining", "0".parse().unwrap());
            h.insert("x-ratelimit-reset", (cc_server::store::now() + in_secs).to_string().parse().unwrap());
            Err(resp)
        }
        other => Ok(other),
    }
}

fn issue_json(s: &Shared, i: &Issue) -> Value {
    json!({
        "id": 1000 + i.number,
        "node_id": format!("I_kwDO{}", i.number),
        "number": i.number,
        "html_url": format!("https://github.example/{REPO}/issues/{}", i.number),
        "url": format!("http://{}/repos/{REPO}/issues/{}", s.1, i.number),
        "title": i.title,
        "body": i.body,
        "state": i.state,
        "state_reason": i.state_reason,
        "labels": i.labels.iter().map(|l| json!({"name": l})).collect::<Vec<_>>(),
        "assignees": i.assignees.iter().map(|l| json!({"login": l})).collect::<Vec<_>>(),
        "comments": i.comments.len(),
    })
}

#[allow(clippy::result_large_err)]
fn validate(v: &Value, creating: bool) -> Result<(), Response> {
    let mut errors = Vec::new();
    match v.get("title") {
        None | Some(Value::Null) if creating => {
            errors.push(json!({"resource": "Issue", "field": "title", "code": "missing_field"}))
        }
        Some(Value::String(t)) if t.chars().count() > 256 => errors.push(json!({"resource": "Issue", "field": "title",
            "code": "custom", "message": "title is too long (maximum is 256 characters)"})),
        _ => {}
    }
    if let Some(st) = v.get("state").and_then(Value::as_str) {
        if st != "open" && st != "closed" {
            errors.push(json!({"resource": "Issue", "field": "state", "code": "invalid"}));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err((
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"message": "Validation Failed", "errors": errors,
            "documentation_url": "https://docs.github.com/rest/issues/issues"})),
        )
            .into_response())
    }
}

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
}

async fn create_issue(
    State(s): State<Shared>,
    Path((o, r)): Path<(String, String)>,
    h: HeaderMap,
    Json(v): Json<Value>,
) -> Response {
    let fault = match gate(&s, &h, "POST issues".into(), (&o, &r)) {
        Ok(f) => f,
        Err(e) => return e,
    };
    if let Err(e) = validate(&v, true) {
        return e;
    }
    let mut repo = s.0.lock().unwrap();
    let i = Issue {
        number: repo.issues.len() as i64 + 1,
        title: v["title"].as_str().unwrap_or_default().into(),
        body: v["body"].as_str().unwrap_or_default().into(),
        state: "open".into(),
        state_reason: None,
        labels: strings(&v["labels"]).unwrap_or_default(),
        assignees: strings(&v["assignees"]).unwrap_or_default(),
        comments: vec![],
    };
    repo.issues.push(i.clone());
    if matches!(fault, Some(Fault::LoseAnswer)) {
        return gh_error(StatusCode::BAD_GATEWAY, "Server Error");
    }
    (StatusCode::CREATED, Json(issue_json(&s, &i))).into_response()
}

async fn update_issue(
    State(s): State<Shared>,
    Path((o, r, n)): Path<(String, String, i64)>,
    h: HeaderMap,
    Json(v): Json<Value>,
) -> Response {
    if let Err(e) = gate(&s, &h, format!("PATCH issues/{n}"), (&o, &r)) {
        return e;
    }
    if let Err(e) = validate(&v, false) {
        return e;
    }
    let mut repo = s.0.lock().unwrap();
    let Some(i) = repo.issues.iter_mut().find(|i| i.number == n) else {
        return gh_error(StatusCode::NOT_FOUND, "Not Found");
    };
    if let Some(t) = v["title"].as_str() {
        i.title = t.into();
    }
    if let Some(b) = v["body"].as_str() {
        i.body = b.into();
    }
    if let Some(st) = v["state"].as_str() {
        i.state = st.into();
        i.state_reason = match (st, v["state_reason"].as_str()) {
            ("closed", r) => Some(r.unwrap_or("completed").into()),
            ("open", _) if i.state_reason.is_some() => Some("reopened".into()),
            _ => None,
        };
    }
    if let Some(l) = strings(&v["labels"]) {
        i.labels = l;
    }
    if let Some(a) = strings(&v["assignees"]) {
        i.assignees = a;
    }
    let i = i.clone();
    (StatusCode::OK, Json(issue_json(&s, &i))).into_response()
}

#[derive(serde::Deserialize)]
struct Page {
    state: Option<String>,
    direction: Option<String>,
    per_page: Option<usize>,
    page: Option<usize>,
}

/// One page of `items`, with GitHub's Link header.
fn paged(s: &Shared, path: &str, extra: &str, items: Vec<Value>, q: &Page) -> Response {
    let per = q.per_page.unwrap_or(30).clamp(1, 100);
    let page = q.page.unwrap_or(1).max(1);
    let last = items.len().div_ceil(per).max(1);
    let chunk: Vec<Value> = items.into_iter().skip((page - 1) * per).take(per).collect();
    let link = |p: usize, rel: &str| format!("<http://{}{path}?{extra}per_page={per}&page={p}>; rel=\"{rel}\"", s.1);
    let mut rels = Vec::new();
    if page < last {
        rels.push(link(page + 1, "next"));
        rels.push(link(last, "last"));
    }
    if page > 1 {
        rels.push(link(1, "first"));
        rels.push(link(page - 1, "prev"));
    }
    let mut resp = (StatusCode::OK, Json(Value::Array(chunk))).into_response();
    if !rels.is_empty() {
        resp.headers_mut().insert("link", rels.join(", ").parse().unwrap());
    }
    resp
}

async fn list_issues(
    State(s): State<Shared>,
    Path((o, r)): Path<(String, String)>,
    Query(q): Query<Page>,
    h: HeaderMap,
) -> Response {
    if let Err(e) = gate(&s, &h, format!("GET issues page {}", q.page.unwrap_or(1)), (&o, &r)) {
        return e;
    }
    let repo = s.0.lock().unwrap();
    let state = q.state.clone().unwrap_or_else(|| "open".into());
    let mut items: Vec<Issue> = repo.issues.iter().filter(|i| state == "all" || i.state == state).cloned().collect();
    // sort=created: the number order; direction desc is GitHub's default.
    if q.direction.as_deref() != Some("asc") {
        items.reverse();
    }
    let items = items.iter().map(|i| issue_json(&s, i)).collect();
    let extra = format!("state={state}&sort=created&direction={}&", q.direction.as_deref().unwrap_or("desc"));
    paged(&s, &format!("/repos/{REPO}/issues"), &extra, items, &q)
}

async fn list_comments(
    State(s): State<Shared>,
    Path((o, r, n)): Path<(String, String, i64)>,
    Query(q): Query<Page>,
    h: HeaderMap,
) -> Response {
    if let Err(e) = gate(&s, &h, format!("GET issues/{n}/comments page {}", q.page.unwrap_or(1)), (&o, &r)) {
        return e;
    }
    let repo = s.0.lock().unwrap();
    let Some(i) = repo.issues.iter().find(|i| i.number == n) else {
        return gh_error(StatusCode::NOT_FOUND, "Not Found");
    };
    let items = i.comments.iter().enumerate().map(|(k, b)| json!({"id": k + 1, "body": b})).collect();
    paged(&s, &format!("/repos/{REPO}/issues/{n}/comments"), "", items, &q)
}

async fn create_comment(
    State(s): State<Shared>,
    Path((o, r, n)): Path<(String, String, i64)>,
    h: HeaderMap,
    Json(v): Json<Value>,
) -> Response {
    let fault = match gate(&s, &h, format!("POST issues/{n}/comments"), (&o, &r)) {
        Ok(f) => f,
        Err(e) => return e,
    };
    let Some(body) = v["body"].as_str().filter(|b| !b.is_empty()) else {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"message": "Validation Failed",
            "errors": [{"resource": "IssueComment", "field": "body", "code": "missing_field"}]})),
        )
            .into_response();
    };
    let mut repo = s.0.lock().unwrap();
    let Some(i) = repo.issues.iter_mut().find(|i| i.number == n) else {
        return gh_error(StatusCode::NOT_FOUND, "Not Found");
    };
    i.comments.push(body.to_string());
    let id = i.comments.len();
    if matches!(fault, Some(Fault::LoseAnswer)) {
        return gh_error(StatusCode::BAD_GATEWAY, "Server Error");
    }
    (StatusCode::CREATED, Json(json!({"id": id, "body": body}))).into_response()
}

/// The lines of `patch` a comment may be on, per side: (LEFT: old line numbers of removed and
/// context lines, RIGHT: new line numbers of added and context lines). The double's own walk
/// of the hunks, not the product's.
fn commentable(patch: &str) -> (Vec<u32>, Vec<u32>) {
    let (mut left, mut right) = (Vec::new(), Vec::new());
    // (old, new) line numbers of the next line, inside a hunk.
    let mut at: Option<(u32, u32)> = None;
    for l in patch.lines() {
        if let Some(h) = l.strip_prefix("@@ -") {
            // @@ -o[,n] +n[,m] @@ heading
            let mut parts = h.split(' ');
            let mut num =
                || -> u32 { parts.next().unwrap().trim_start_matches('+').split(',').next().unwrap().parse().unwrap() };
            at = Some((num(), num()));
            continue;
        }
        let Some((old, new)) = at.as_mut() else { continue };
        if l.starts_with('+') {
            right.push(*new);
            *new += 1;
        } else if l.starts_with('-') {
            left.push(*old);
            *old += 1;
        } else if !l.starts_with('\\') {
            left.push(*old);
            right.push(*new);
            *old += 1;
            *new += 1;
        }
    }
    (left, right)
}

fn pull_json(p: &Pull) -> Value {
    json!({
        "id": 5000 + p.number,
        "number": p.number,
        "state": "open",
        "title": p.title,
        "html_url": format!("https://github.example/{REPO}/pull/{}", p.number),
        "base": {"ref": "main", "sha": p.base_sha, "repo": {"full_name": REPO}},
        "head": {"ref": format!("feature-{}", p.number), "sha": p.head_sha, "repo": {"full_name": REPO}},
        "changed_files": p.files.len(),
    })
}

async fn get_pull(State(s): State<Shared>, Path((o, r, n)): Path<(String, String, i64)>, h: HeaderMap) -> Response {
    if let Err(e) = gate(&s, &h, format!("GET pulls/{n}"), (&o, &r)) {
        return e;
    }
    let repo = s.0.lock().unwrap();
    match repo.pulls.iter().find(|p| p.number == n) {
        Some(p) => (StatusCode::OK, Json(pull_json(p))).into_response(),
        None => gh_error(StatusCode::NOT_FOUND, "Not Found"),
    }
}

async fn list_pull_files(
    State(s): State<Shared>,
    Path((o, r, n)): Path<(String, String, i64)>,
    Query(q): Query<Page>,
    h: HeaderMap,
) -> Response {
    if let Err(e) = gate(&s, &h, format!("GET pulls/{n}/files page {}", q.page.unwrap_or(1)), (&o, &r)) {
        return e;
    }
    let repo = s.0.lock().unwrap();
    let Some(p) = repo.pulls.iter().find(|p| p.number == n) else {
        return gh_error(StatusCode::NOT_FOUND, "Not Found");
    };
    let items = p
        .files
        .iter()
        .map(|(f, st, patch)| {
            let mut v = json!({"sha": "0".repeat(40), "filename": f, "status": st});
            if let Some(patch) = patch {
                v["patch"] = json!(patch);
            }
            v
        })
        .collect();
    paged(&s, &format!("/repos/{REPO}/pulls/{n}/files"), "", items, &q)
}

fn unprocessable(message: &str, errors: Value) -> Response {
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        Json(json!({"message": message, "errors": errors,
            "documentation_url": "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"})),
    )
        .into_response()
}

async fn create_review(
    State(s): State<Shared>,
    Path((o, r, n)): Path<(String, String, i64)>,
    h: HeaderMap,
    Json(v): Json<Value>,
) -> Response {
    if let Err(e) = gate(&s, &h, format!("POST pulls/{n}/reviews"), (&o, &r)) {
        return e;
    }
    let mut repo = s.0.lock().unwrap();
    let Some(p) = repo.pulls.iter().find(|p| p.number == n).cloned() else {
        return gh_error(StatusCode::NOT_FOUND, "Not Found");
    };
    let event = v["event"].as_str().unwrap_or("PENDING");
    if !matches!(event, "COMMENT" | "REQUEST_CHANGES" | "APPROVE") {
        return unprocessable(
            "Validation Failed",
            json!([{"resource": "PullRequestReview", "field": "event", "code": "invalid"}]),
        );
    }
    let body = v["body"].as_str().unwrap_or_default();
    if event != "APPROVE" && body.is_empty() {
        return unprocessable("Unprocessable Entity", json!([format!("Body is required for {event} reviews")]));
    }
    let commit = v["commit_id"].as_str().unwrap_or(&p.head_sha).to_string();
    let mut comments = Vec::new();
    for c in v["comments"].as_array().cloned().unwrap_or_default() {
        let side = c["side"].as_str().unwrap_or("RIGHT");
        if side != "LEFT" && side != "RIGHT" {
            return unprocessable(
                "Validation Failed",
                json!([{"resource": "PullRequestReviewComment", "field": "side", "code": "invalid"}]),
            );
        }
        let line = c["line"].as_u64().unwrap_or(0) as u32;
        let in_diff =
            p.files.iter().find(|f| Some(f.0.as_str()) == c["path"].as_str()).and_then(|f| f.2.as_deref()).is_some_and(
                |patch| {
                    let (left, right) = commentable(patch);
                    if side == "LEFT" {
                        left.contains(&line)
                    } else {
                        right.contains(&line)
                    }
                },
            );
        if !in_diff {
            return unprocessable("Unprocessable Entity", json!(["Line could not be resolved"]));
        }
        comments.push(json!({"path": c["path"], "line": line, "side": side, "body": c["body"]}));
    }
    let id = 9000 + repo.reviews.len() as i64 + 1;
    let state = match event {
        "COMMENT" => "COMMENTED",
        "APPROVE" => "APPROVED",
        _ => "CHANGES_REQUESTED",
    };
    let review = json!({
        "id": id,
        "body": body,
        "state": state,
        "commit_id": commit,
        "html_url": format!("https://github.example/{REPO}/pull/{n}#pullrequestreview-{id}"),
        "comments": comments,
    });
    repo.reviews.push((n, review.clone()));
    (StatusCode::OK, Json(review)).into_response()
}

// ------------------------------------------------------------ the app under test

struct Setup {
    _tmp: tempfile::TempDir,
    app: Arc<App>,
    mirror: Arc<Mirror>,
}

fn github(double: &Double, max_wait: u64) -> GitHubConfig {
    GitHubConfig {
        repository: REPO.into(),
        workspaces: vec!["default".into()],
        base_url: double.url(),
        token: Some(TOKEN.into()),
        token_env: "CC_TEST_NO_SUCH_VARIABLE".into(),
        assignees: [("dev".to_string(), "octo-dev".to_string())].into(),
        timeout_secs: 5,
        sync_every_secs: 1,
        max_wait_secs: max_wait,
    }
}

async fn setup(store: cc_server::store::Store, double: &Double, max_wait: u64) -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let data = cc_indexer::DataDir::new(tmp.path().join("data"));
    std::fs::create_dir_all(&data.root).unwrap();
    let mut config = Config::default();
    config.runtimes.allow = vec!["python3".into()];
    config.tickets.github = Some(github(double, max_wait));
    let p = cc_server::store::RuntimeProfile {
        id: cc_server::store::RuntimeProfile::new_id(),
        workspace_id: "default".into(),
        name: "py".into(),
        family: cc_server::store::Family::McpCli,
        command: String::new(),
        args: Vec::new(),
        wake_on_message: false,
        timeout_secs: 60,
        created_by: "operator".into(),
        created_at: 0,
    };
    let argv = vec!["python3".to_string(), "a.py".to_string()];
    cc_server::agents::admin::add_profile(&store, &config, p, &argv).await.unwrap();
    let spec = cc_server::agents::admin::AgentSpec { runtime: Some("py".into()), ..Default::default() };
    cc_server::agents::admin::add(&store, &config, "default", "dev", spec).await.unwrap();
    let mirror = Arc::new(Mirror::new(store.clone(), config.tickets.github.as_ref().unwrap()).unwrap());
    mirror.register().await.unwrap();
    store.workspaces().ensure("team", "Team").await.unwrap();
    let mut services = cc_server::services::Services::with_config(data, store, None, config);
    services.policy.approvals = ApprovalConfig { queue: true, ..ApprovalConfig::default() };
    services.mirror = Some(mirror.clone());
    let app = Arc::new(App::new(services, cc_server::mcp::tools::registry(), None));
    Setup { _tmp: tmp, app, mirror }
}

impl Setup {
    async fn call(&self, name: &str, args: Value) -> CallOutcome {
        let c = Caller::local(Mode::Chat);
        let surface = Surface::parse(None, true).unwrap();
        let run = |args: Value| {
            self.app.dispatcher.call(
                self.app.services.clone(),
                &surface,
                &c,
                name,
                args.as_object().cloned(),
                CancellationToken::new(),
                None,
            )
        };
        match run(args.clone()).await {
            CallOutcome::Err(e) if e.error == "approval_pending" => {
                let id = e.data.unwrap()["approval_id"].as_str().unwrap().to_string();
                self.app.services.store.approvals().decide(&id, true, "operator (test)", None).await.unwrap();
                run(args).await
            }
            other => other,
        }
    }

    async fn ok(&self, name: &str, args: Value) -> Value {
        ok_value(self.call(name, args).await)
    }

    async fn ticket(&self, key: &str) -> Value {
        self.ok("get_ticket", json!({"workspace_id": "default", "ticket_id": key})).await["ticket"].clone()
    }
}

#[test]
fn each_change_is_mirrored_on_github_and_the_ticket_keeps_the_issue_number() {
    on_each_backend(|_, store| async move {
        let double = Double::start().await;
        let s = setup(store, &double, 60).await;
        let t = s
            .ok("create_ticket", json!({"workspace_id": "default", "title": "login 500s", "description": "on submit", "labels": ["bug"]}))
            .await;
        assert_eq!((t["provider_number"].as_i64(), t["sync"]["state"].as_str()), (Some(1), Some("synced")), "{t}");
        assert_eq!(t["provider_url"], format!("https://github.example/{REPO}/issues/1"));
        let i = double.issue(1);
        assert_eq!(
            (i.title.as_str(), i.state.as_str(), i.labels.clone()),
            ("T-1: login 500s", "open", vec!["bug".to_string()])
        );
        assert!(
            i.body.starts_with("on submit")
                && i.body.contains(&format!("cc-server ticket {}", t["id"].as_str().unwrap())),
            "{}",
            i.body
        );
        // Assignees by the configured logins; status and priority as labels.
        s.ok("assign_ticket", json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "dev"})).await;
        assert_eq!(double.issue(1).assignees, ["octo-dev"]);
        s.ok("update_ticket", json!({"workspace_id": "default", "ticket_id": "T-1", "status": "doing", "priority": "high", "title": "login fails"})).await;
        let i = double.issue(1);
        assert_eq!(i.title, "T-1: login fails");
        assert_eq!(i.labels, ["bug", "priority: high", "status: in progress"]);
        // Comments, attributed.
        s.ok("comment_on_ticket", json!({"workspace_id": "default", "ticket_id": "T-1", "text": "looking"})).await;
        let i = double.issue(1);
        assert_eq!(i.comments.len(), 1);
        assert!(i.comments[0].starts_with("**local:** looking"), "{:?}", i.comments);
        // Closed as completed, with its output; reopened; failed as not planned.
        s.ok("close_ticket", json!({"workspace_id": "default", "ticket_id": "T-1", "output": "fixed in #4"})).await;
        let i = double.issue(1);
        assert_eq!((i.state.as_str(), i.state_reason.as_deref()), ("closed", Some("completed")));
        assert!(i.body.contains("**Output:** fixed in #4"), "{}", i.body);
        s.ok("update_ticket", json!({"workspace_id": "default", "ticket_id": "T-1", "status": "reopened"})).await;
        assert_eq!(double.issue(1).state, "open");
        s.ok("fail_ticket", json!({"workspace_id": "default", "ticket_id": "T-1", "error": "cannot reproduce"})).await;
        let i = double.issue(1);
        assert_eq!((i.state.as_str(), i.state_reason.as_deref()), ("closed", Some("not_planned")));
        let t = s.ticket("T-1").await;
        assert_eq!((t["provider_number"].as_i64(), t["sync"]["state"].as_str()), (Some(1), Some("synced")), "{t}");
        // One issue, never a second.
        assert_eq!(double.issues().len(), 1);
        // A workspace that does not mirror has no sync.
        let other = s.ok("create_ticket", json!({"workspace_id": "team", "title": "local only"})).await;
        assert!(other.get("sync").is_none() && other["provider_number"].is_null(), "{other}");
        assert_eq!(double.issues().len(), 1);
    });
}

#[test]
fn rate_limits_are_honoured_waiting_or_scheduling_the_retry() {
    on_each_backend(|_, store| async move {
        let double = Double::start().await;
        let s = setup(store, &double, 2).await;
        // A secondary limit (429, Retry-After 1): waited in place, then created.
        double.fault(Fault::RetryAfter(429, 1));
        let t = s.ok("create_ticket", json!({"workspace_id": "default", "title": "a"})).await;
        assert_eq!(t["provider_number"].as_i64(), Some(1), "{t}");
        let log = double.log();
        let posts: Vec<&Instant> = log.iter().filter(|(w, _)| w == "POST issues").map(|(_, at)| at).collect();
        assert_eq!(posts.len(), 2);
        assert!(
            posts[1].duration_since(*posts[0]) >= Duration::from_millis(950),
            "{:?}",
            posts[1].duration_since(*posts[0])
        );
        // A 403 secondary limit and a spent primary limit: the same.
        double.fault(Fault::RetryAfter(403, 1));
        double.fault(Fault::PrimaryLimit(1));
        let t = s.ok("create_ticket", json!({"workspace_id": "default", "title": "b"})).await;
        assert_eq!(t["provider_number"].as_i64(), Some(2), "{t}");
        // Longer than the server waits in place: kept, and retried no sooner than asked.
        double.fault(Fault::RetryAfter(429, 30));
        let t = s.ok("create_ticket", json!({"workspace_id": "default", "title": "c"})).await;
        assert!(t["provider_number"].is_null(), "{t}");
        let sync = &t["sync"];
        assert_eq!(sync["state"], "pending");
        assert!(sync["last_error"].as_str().unwrap().contains("retry after 30 s"), "{sync}");
        let wait = sync["next_attempt_at"].as_i64().unwrap() - cc_server::store::now();
        assert!((28..=31).contains(&wait), "{wait}");
        assert_eq!(s.mirror.drain().await, 0, "retried before Retry-After");
        assert_eq!(double.issues().len(), 2);
    });
}

#[test]
fn a_422_is_surfaced_with_githubs_validation_errors_and_waits_for_a_change() {
    on_each_backend(|_, store| async move {
        let double = Double::start().await;
        let s = setup(store, &double, 60).await;
        let long = "x".repeat(300);
        let t = s.ok("create_ticket", json!({"workspace_id": "default", "title": long})).await;
        let sync = &t["sync"];
        assert_eq!(sync["state"], "refused", "{t}");
        let e = sync["last_error"].as_str().unwrap();
        assert!(
            e.contains("422 Validation Failed")
                && e.contains("Issue.title custom (title is too long (maximum is 256 characters))"),
            "{e}"
        );
        // The local ticket is kept, and a refusal is not retried as it is.
        assert_eq!(t["key"], "T-1");
        assert_eq!(s.mirror.drain().await, 0);
        assert!(double.issues().is_empty());
        // Changed, it goes.
        let t = s.ok("update_ticket", json!({"workspace_id": "default", "ticket_id": "T-1", "title": "short"})).await;
        assert_eq!((t["provider_number"].as_i64(), t["sync"]["state"].as_str()), (Some(1), Some("synced")), "{t}");
    });
}

#[test]
fn an_outage_keeps_the_ticket_and_its_changes_until_a_retry_pushes_them_once() {
    on_each_backend(|_, store| async move {
        let mut double = Double::start().await;
        let s = setup(store, &double, 60).await;
        double.down().await;
        let t = s.ok("create_ticket", json!({"workspace_id": "default", "title": "during the outage"})).await;
        assert_eq!((t["key"].as_str(), t["sync"]["state"].as_str()), (Some("T-1"), Some("pending")), "{t}");
        assert!(t["sync"]["last_error"].as_str().unwrap().contains("unreachable"), "{t}");
        s.ok("comment_on_ticket", json!({"workspace_id": "default", "ticket_id": "T-1", "text": "still here"})).await;
        s.ok("close_ticket", json!({"workspace_id": "default", "ticket_id": "T-1", "output": "done offline"})).await;
        let t = s.ticket("T-1").await;
        assert_eq!((t["status"].as_str(), t["sync"]["state"].as_str()), (Some("done"), Some("pending")), "{t}");
        assert!(t["sync"]["attempts"].as_i64().unwrap() >= 1);
        double.up().await;
        // The retry (as the background loop makes it) pushes everything, once.
        let id = t["id"].as_str().unwrap();
        assert_eq!(s.mirror.sync(id).await.unwrap(), Synced::Done { number: 1 });
        let i = double.issue(1);
        assert_eq!((i.state.as_str(), i.comments.len()), ("closed", 1));
        assert!(i.comments[0].contains("still here"));
        assert_eq!(s.ticket("T-1").await["sync"]["state"], "synced");
        // An answer lost after GitHub made the issue: the retry finds it by its marker (past
        // a page of others' issues), and never creates it twice; a lost comment likewise.
        double.fault(Fault::LoseAnswer);
        let t2 = s.ok("create_ticket", json!({"workspace_id": "default", "title": "lost answer"})).await;
        assert_eq!(t2["sync"]["state"], "pending", "{t2}");
        double.add_issues(150);
        let id2 = t2["id"].as_str().unwrap().to_string();
        let before = double.log().len();
        assert_eq!(s.mirror.sync(&id2).await.unwrap(), Synced::Done { number: 2 });
        assert_eq!(double.issues().iter().filter(|i| i.body.contains(&id2)).count(), 1);
        let pages: Vec<String> = double
            .log()
            .into_iter()
            .skip(before)
            .map(|(w, _)| w)
            .filter(|w| w.starts_with("GET issues page"))
            .collect();
        assert_eq!(pages, ["GET issues page 1", "GET issues page 2"]);
        assert_eq!(s.ticket("T-2").await["provider_number"], 2);
        double.fault(Fault::LoseAnswer);
        s.ok("comment_on_ticket", json!({"workspace_id": "default", "ticket_id": "T-2", "text": "once"})).await;
        assert_eq!(s.ticket("T-2").await["sync"]["state"], "pending");
        assert!(matches!(s.mirror.sync(&id2).await.unwrap(), Synced::Done { .. }));
        assert_eq!(double.issue(2).comments.iter().filter(|c| c.contains("once")).count(), 1);
        // A token GitHub does not take: refused, saying so (the token is the configuration's,
        // never a request's).
        double.down().await;
        let t3 = s.ok("create_ticket", json!({"workspace_id": "default", "title": "bad token"})).await;
        double.up().await;
        let mut bad = github(&double, 60);
        bad.token = Some("ghp_revoked".into());
        let wrong = Mirror::new(s.app.services.store.clone(), &bad).unwrap();
        match wrong.sync(t3["id"].as_str().unwrap()).await.unwrap() {
            Synced::Refused { error } => assert!(error.contains("401 Bad credentials"), "{error}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(s.ticket("T-3").await["sync"]["state"], "refused");
        let e =
            err(s.call("create_ticket", json!({"workspace_id": "default", "title": "x", "token": "ghp_mine"})).await);
        assert_eq!(e.pointer.as_deref(), Some("/token"));
    });
}
