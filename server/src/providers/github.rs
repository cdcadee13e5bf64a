//! A GitHub REST client for issues: create, update (title, body, state, labels, assignees),
//! comment, and the two paginated listings the sync uses to find what an interrupted
//! attempt did (issues, an issue's comments; `Link: <…>; rel="next"` followed). Secondary
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
    fn validation_errors_name_resource_field_and_code() {
        let v = json!({"message": "Validation Failed", "errors": [
            {"resource": "Issue", "field": "title", "code": "missing_field"},
            {"resource": "Label", "field": "name", "code": "invalid", "message": "too long"}, "plain"]});
        assert_eq!(validation_errors(&v), "Issue.title missing_field; Label.name invalid (too long); plain");
    }
}
