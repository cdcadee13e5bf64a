//! A GitHub REST client for issues: create, update (title, body, state, labels, assignees),
//! comment, and the two paginated listings the sync uses to find what an interrupted
//! attempt did (issues, an issue's comments; `Link: <…>; rel="next"` followed); and for pull
//! requests: read one, list its files (paginated, with their patches), post a review with
//! inline comments (a comment on a line outside the diff is GitHub's 422, surfaced). Secondary
//! and primary rate limits (403/429 with `Retry-After`, or `x-ratelimit-remaining: 0` with
//! `x-ratelimit-reset`) are honoured: waited in place up to `max_wait`, else handed back as
//! the time to retry after. A 422 is a refusal naming GitHub's validation errors.

use std::time::Duration;

use reqwest::header::{HeaderMap, ACCEPT, AUTHORIZATION, LINK, RETRY_AFTER, USER_AGENT};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// Why a request did not go through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GhError {
    /// Try again later (unreachable, 5xx, rate limited): after this long, when GitHub said.
    Transient(String, Option<Duration>),
    /// GitHub refused the request as it is (422 validation, 401, 403, 404, 410).
    Refused(String),
}

impl std::fmt::Display for GhError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GhError::Transient(m, _) | GhError::Refused(m) => f.write_str(m),
        }
    }
}

/// An issue as it is pushed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueState {
    pub title: String,
    pub body: String,
    /// open or closed.
    pub state: &'static str,
    /// completed or not_planned, when closed.
    pub state_reason: Option<&'static str>,
    pub labels: Vec<String>,
    pub assignees: Vec<String>,
}

/// An issue as GitHub answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueRef {
    pub number: i64,
    pub url: String,
}

/// A pull request as GitHub answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequest {
    pub number: i64,
    /// The commit the PR is compared against (`base.sha`).
    pub base_sha: String,
    /// The PR's last commit (`head.sha`): what a review is of.
    pub head_sha: String,
    /// The branch it merges into (`base.ref`).
    pub base_ref: String,
    /// Its branch (`head.ref`).
    pub head_ref: String,
    pub html_url: String,
    pub title: String,
}

/// One file of a pull request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrFile {
    /// Its path in the head commit.
    pub filename: String,
    /// added, removed, modified, renamed, copied, changed, unchanged.
    pub status: String,
    /// The unified diff's hunks; `None` for a binary file or one too large for GitHub to show.
    pub patch: Option<String>,
}

/// The side of a diff a comment is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub enum Side {
    /// The old file: a removed or context line, by its old line number.
    #[serde(rename = "LEFT")]
    Left,
    /// The new file: an added or context line, by its new line number.
    #[serde(rename = "RIGHT")]
    Right,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Left => "LEFT",
            Side::Right => "RIGHT",
        }
    }
}

/// What a review does to the pull request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub enum ReviewEvent {
    #[serde(rename = "COMMENT")]
    Comment,
    #[serde(rename = "REQUEST_CHANGES")]
    RequestChanges,
    #[serde(rename = "APPROVE")]
    Approve,
}

impl ReviewEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewEvent::Comment => "COMMENT",
            ReviewEvent::RequestChanges => "REQUEST_CHANGES",
            ReviewEvent::Approve => "APPROVE",
        }
    }
}

/// An inline comment of a review: on `line` of `path`, on `side` of the diff.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ReviewComment {
    /// The file, repository-relative (the new path of a renamed file).
    pub path: String,
    /// 1-based, in the file of `side` (new file for RIGHT, old for LEFT).
    pub line: u32,
    /// RIGHT (the new file) or LEFT (the old).
    pub side: Side,
    /// The comment, Markdown.
    pub body: String,
}

/// A review to post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReview {
    /// The commit reviewed (the PR's head sha when it was read).
    pub commit_id: String,
    /// The summary.
    pub body: String,
    pub event: ReviewEvent,
    /// Inline comments; each must be on a line of the diff (see `reviews::publish::place`).
    pub comments: Vec<ReviewComment>,
}

/// A review as GitHub answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewRef {
    pub id: i64,
    pub html_url: String,
}

pub struct GitHub {
    http: reqwest::Client,
    base: String,
    token: String,
    repository: String,
    max_wait: Duration,
}

/// The most pages a listing reads (100 items each).
const MAX_PAGES: usize = 50;

impl GitHub {
    pub fn new(
        base_url: &str,
        repository: &str,
        token: String,
        timeout: Duration,
        max_wait: Duration,
    ) -> Result<GitHub, String> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()
            .map_err(|e| format!("the GitHub client: {e}"))?;
        Ok(GitHub {
            http,
            base: base_url.trim_end_matches('/').to_string(),
            token,
            repository: repository.to_string(),
            max_wait,
        })
    }

    /// The client `[tickets.github]` configures, for `repository` (owner/name; default the
    /// configured one): its base URL, timeouts and token — the configuration's or its
    /// environment variable's, never a request's.
    pub fn from_config(config: &crate::config::GitHub, repository: Option<&str>) -> Result<GitHub, String> {
        let token = config.resolve_token().map_err(|e| e.to_string())?;
        let repository = repository.unwrap_or(&config.repository);
        let valid = repository.split_once('/').is_some_and(|(o, n)| {
            let ok = |p: &str| {
                !p.is_empty()
                    && !p.starts_with('.')
                    && p.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            };
            ok(o) && ok(n) && !n.contains('/')
        });
        if !valid {
            return Err(format!("a GitHub repository is owner/name, not '{repository}'"));
        }
        GitHub::new(
            &config.base_url,
            repository,
            token,
            Duration::from_secs(config.timeout_secs.max(1)),
            Duration::from_secs(config.max_wait_secs),
        )
    }

    pub fn repository(&self) -> &str {
        &self.repository
    }

    fn url(&self, path: &str) -> String {
        format!("{}/repos/{}{path}", self.base, self.repository)
    }

    /// One request, rate limits honoured; the JSON answer and the next page's URL.
    async fn send(&self, method: Method, url: &str, body: Option<&Value>) -> Result<(Value, Option<String>), GhError> {
        let mut waited = 0;
        loop {
            let mut req = self
                .http
                .request(method.clone(), url)
                .header(AUTHORIZATION, format!("Bearer {}", self.token))
                .header(ACCEPT, "application/vnd.github+json")
                .header("X-GitHub-Api-Version", "2022-11-28")
                .header(USER_AGENT, concat!("cc-server/", env!("CARGO_PKG_VERSION")));
            if let Some(b) = body {
                req = req.header(reqwest::header::CONTENT_TYPE, "application/json").body(b.to_string());
            }
            let what = format!("{method} {}", url.strip_prefix(&self.base).unwrap_or(url));
            let resp = match req.send().await {
                Ok(r) => r,
                Err(e) => return Err(GhError::Transient(format!("GitHub is unreachable ({what}): {e}"), None)),
            };
            let status = resp.status();
            let headers = resp.headers().clone();
            let text = resp.text().await.unwrap_or_default();
            if status.is_success() {
                let v = if text.trim().is_empty() {
                    Value::Null
                } else {
                    serde_json::from_str(&text).unwrap_or(Value::Null)
                };
                return Ok((v, next_link(&headers)));
            }
            let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            let message = v["message"].as_str().unwrap_or(text.as_str()).to_string();
            if status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::FORBIDDEN {
                if let Some(wait) = rate_limit_wait(&headers) {
                    if wait <= self.max_wait && waited < 3 {
                        waited += 1;
                        tokio::time::sleep(wait).await;
                        continue;
                    }
                    return Err(GhError::Transient(
                        format!(
                            "GitHub rate-limited {what} ({} {message}): retry after {} s",
                            status.as_u16(),
                            wait.as_secs()
                        ),
                        Some(wait),
                    ));
                }
            }
            return Err(match status.as_u16() {
                422 => GhError::Refused(format!("GitHub refused {what} (422 {message}): {}", validation_errors(&v))),
                401 | 403 | 404 | 410 => {
                    GhError::Refused(format!("GitHub refused {what} ({} {message})", status.as_u16()))
                }
                s => GhError::Transient(format!("GitHub failed {what} ({s} {message})"), None),
            });
        }
    }

    fn issue_json(s: &IssueState) -> Value {
        let mut v = json!({
            "title": s.title,
            "body": s.body,
            "state": s.state,
            "labels": s.labels,
            "assignees": s.assignees,
        });
        if let Some(r) = s.state_reason {
            v["state_reason"] = json!(r);
        }
        v
    }

    fn issue_ref(v: &Value) -> Result<IssueRef, GhError> {
        match (v["number"].as_i64(), v["html_url"].as_str()) {
            (Some(number), Some(url)) => Ok(IssueRef { number, url: url.to_string() }),
            _ => Err(GhError::Transient(format!("GitHub answered an issue without number or html_url: {v}"), None)),
        }
    }

    /// POST /repos/{repo}/issues (an issue is created open; close it with an update).
    pub async fn create_issue(&self, s: &IssueState) -> Result<IssueRef, GhError> {
        let mut body = Self::issue_json(s);
        if let Some(o) = body.as_object_mut() {
            o.remove("state");
            o.remove("state_reason");
        }
        let (v, _) = self.send(Method::POST, &self.url("/issues"), Some(&body)).await?;
        Self::issue_ref(&v)
    }

    /// PATCH /repos/{repo}/issues/{number}: the whole state.
    pub async fn update_issue(&self, number: i64, s: &IssueState) -> Result<(), GhError> {
        self.send(Method::PATCH, &self.url(&format!("/issues/{number}")), Some(&Self::issue_json(s))).await?;
        Ok(())
    }

    /// POST /repos/{repo}/issues/{number}/comments.
    pub async fn comment(&self, number: i64, body: &str) -> Result<(), GhError> {
        self.send(Method::POST, &self.url(&format!("/issues/{number}/comments")), Some(&json!({ "body": body })))
            .await?;
        Ok(())
    }

    /// Every item of a paginated listing, following `rel="next"`.
    async fn all(&self, first: String) -> Result<Vec<Value>, GhError> {
        let mut out = Vec::new();
        let mut next = Some(first);
        let mut pages = 0;
        while let Some(url) = next.take() {
            let (v, n) = self.send(Method::GET, &url, None).await?;
            out.extend(v.as_array().cloned().unwrap_or_default());
            pages += 1;
            if pages < MAX_PAGES {
                next = n;
            }
        }
        Ok(out)
    }

    /// The newest issue whose body holds `marker`, if any (GET /repos/{repo}/issues, every
    /// state, newest first, paginated).
    pub async fn find_issue(&self, marker: &str) -> Result<Option<IssueRef>, GhError> {
        let items = self.all(self.url("/issues?state=all&sort=created&direction=desc&per_page=100")).await?;
        items
            .iter()
            .find(|i| i["pull_request"].is_null() && i["body"].as_str().is_some_and(|b| b.contains(marker)))
            .map(Self::issue_ref)
            .transpose()
    }

    /// The bodies of an issue's comments (GET …/issues/{number}/comments, paginated).
    pub async fn comment_bodies(&self, number: i64) -> Result<Vec<String>, GhError> {
        let items = self.all(self.url(&format!("/issues/{number}/comments?per_page=100"))).await?;
        Ok(items.iter().filter_map(|c| c["body"].as_str().map(str::to_string)).collect())
    }
}

impl GitHub {
    /// GET /repos/{repo}/pulls/{number}.
    pub async fn pull_request(&self, number: i64) -> Result<PullRequest, GhError> {
        let (v, _) = self.send(Method::GET, &self.url(&format!("/pulls/{number}")), None).await?;
        let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
        match (
            v["number"].as_i64(),
            text("/base/sha"),
            text("/head/sha"),
            text("/base/ref"),
            text("/head/ref"),
            text("/html_url"),
        ) {
            (Some(number), Some(base_sha), Some(head_sha), Some(base_ref), Some(head_ref), Some(html_url)) => {
                Ok(PullRequest {
                    number,
                    base_sha,
                    head_sha,
                    base_ref,
                    head_ref,
                    html_url,
                    title: text("/title").unwrap_or_default(),
                })
            }
            _ => Err(GhError::Transient(
                format!("GitHub answered pull request {number} without number, base, head or html_url: {v}"),
                None,
            )),
        }
    }

    /// GET /repos/{repo}/pulls/{number}/files, every page (GitHub lists at most 3000 files).
    pub async fn pull_request_files(&self, number: i64) -> Result<Vec<PrFile>, GhError> {
        let items = self.all(self.url(&format!("/pulls/{number}/files?per_page=100"))).await?;
        items
            .iter()
            .map(|f| match f["filename"].as_str() {
                Some(name) => Ok(PrFile {
                    filename: name.to_string(),
                    status: f["status"].as_str().unwrap_or("modified").to_string(),
                    patch: f["patch"].as_str().map(str::to_string),
                }),
                None => {
                    Err(GhError::Transient(format!("GitHub answered a pull request file without filename: {f}"), None))
                }
            })
            .collect()
    }

    /// POST /repos/{repo}/pulls/{number}/reviews: the summary, the event and the inline
    /// comments in one review. A comment on a line that is not in the diff makes GitHub
    /// refuse the whole review (422, its errors named).
    pub async fn create_review(&self, number: i64, review: &NewReview) -> Result<ReviewRef, GhError> {
        let comments: Vec<Value> = review
            .comments
            .iter()
            .map(|c| json!({"path": c.path, "line": c.line, "side": c.side.as_str(), "body": c.body}))
            .collect();
        let body = json!({
            "commit_id": review.commit_id,
            "body": review.body,
            "event": review.event.as_str(),
            "comments": comments,
        });
        let (v, _) = self.send(Method::POST, &self.url(&format!("/pulls/{number}/reviews")), Some(&body)).await?;
        match (v["id"].as_i64(), v["html_url"].as_str()) {
            (Some(id), Some(url)) => Ok(ReviewRef { id, html_url: url.to_string() }),
            _ => Err(GhError::Transient(format!("GitHub answered a review without id or html_url: {v}"), None)),
        }
    }
}

/// `Link: <url>; rel="next", <url>; rel="last"` -> the next page's URL.
fn next_link(h: &HeaderMap) -> Option<String> {
    let link = h.get(LINK)?.to_str().ok()?;
    link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        let is_next = params.split(';').any(|p| p.trim() == "rel=\"next\"");
        is_next.then(|| url.trim().trim_start_matches('<').trim_end_matches('>').to_string())
    })
}

/// How long GitHub asks to wait: `Retry-After` (seconds), else a spent primary limit until
/// `x-ratelimit-reset` (epoch seconds).
fn rate_limit_wait(h: &HeaderMap) -> Option<Duration> {
    if let Some(s) = h.get(RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok()) {
        return Some(Duration::from_secs(s));
    }
    let remaining = h.get("x-ratelimit-remaining").and_then(|v| v.to_str().ok())?;
    if remaining.trim() != "0" {
        return None;
    }
    let reset: i64 = h.get("x-ratelimit-reset").and_then(|v| v.to_str().ok())?.trim().parse().ok()?;
    Some(Duration::from_secs((reset - crate::store::now()).max(1) as u64))
}

/// GitHub's `errors` of a 422, each as `Resource.field code (message)`.
fn validation_errors(v: &Value) -> String {
    let errs: Vec<String> = v["errors"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| match e {
                    Value::String(s) => s.clone(),
                    e => {
                        let mut s = format!(
                            "{}.{} {}",
                            e["resource"].as_str().unwrap_or("?"),
                            e["field"].as_str().unwrap_or("?"),
                            e["code"].as_str().unwrap_or("invalid")
                        );
                        if let Some(m) = e["message"].as_str() {
                            s.push_str(&format!(" ({m})"));
                        }
                        s
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    if errs.is_empty() {
        "no details given".into()
    } else {
        errs.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_link_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert(
            LINK,
            "<https://x/repos/o/r/issues?page=3>; rel=\"last\", <https://x/repos/o/r/issues?page=2>; rel=\"next\""
                .parse()
                .unwrap(),
        );
        assert_eq!(next_link(&h).as_deref(), Some("https://x/repos/o/r/issues?page=2"));
        h.insert(LINK, "<https://x/repos/o/r/issues?page=1>; rel=\"prev\"".parse().unwrap());
        assert_eq!(next_link(&h), None);
    }

    #[test]
    fn a_client_from_the_configuration_takes_its_token_from_there_and_checks_the_repository() {
        let mut c: crate::config::GitHub =
            toml::from_str("repository = \"acme/shop\"\ntoken_env = \"CC_TEST_GH_TOKEN_UNSET\"\n").unwrap();
        let e = GitHub::from_config(&c, None).err().unwrap();
        assert!(e.contains("CC_TEST_GH_TOKEN_UNSET"), "{e}");
        c.token = Some("ghp_x".into());
        c.base_url = "http://127.0.0.1:9/api/v3/".into();
        let gh = GitHub::from_config(&c, None).unwrap();
        assert_eq!(
            (gh.repository(), gh.url("/pulls/1").as_str()),
            ("acme/shop", "http://127.0.0.1:9/api/v3/repos/acme/shop/pulls/1")
        );
        assert_eq!(GitHub::from_config(&c, Some("octo/cat")).unwrap().repository(), "octo/cat");
        for bad in ["octo", "octo/cat/x", "../x", "o/"] {
            let e = GitHub::from_config(&c, Some(bad)).err().unwrap();
            assert_eq!(e, format!("a GitHub repository is owner/name, not '{bad}'"));
        }
    }

    #[test]
    fn validation_errors_name_resource_field_and_code() {
        let v = json!({"message": "Validation Failed", "errors": [
            {"resource": "Issue", "field": "title", "code": "missing_field"},
            {"resource": "Label", "field": "name", "code": "invalid", "message": "too long"}, "plain"]});
        assert_eq!(validation_errors(&v), "Issue.title missing_field; Label.name invalid (too long); plain");
    }
}
