//! One feed over HTTP(S): "has it changed since we last looked, and if so what does it say?"
//!
//! A conditional GET (the validators of the last 200: If-None-Match, If-Modified-Since),
//! gzip accepted, at most [`FeedPolicy::max_redirects`] redirects (http and https only; a
//! loop is refused when it comes back to a URL it has been to), the whole exchange under
//! [`FeedPolicy::timeout`], and the body read chunk by chunk and given up as soon as it
//! passes [`FeedPolicy::max_bytes`] (counted after decompression, so a small gzip body
//! cannot grow past the cap in memory).

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED};

use super::FeedPolicy;

/// What one fetch got.
#[derive(Debug)]
pub enum Fetched {
    /// 304: nothing changed since the validators were given.
    NotModified,
    /// 200 with the whole body (under the cap).
    Body {
        status: u16,
        /// The URL the body came from, after redirects (relative links resolve against it).
        url: String,
        body: Vec<u8>,
        etag: Option<String>,
        last_modified: Option<String>,
    },
}

/// A fetch that failed, with the HTTP status when there was one.
#[derive(Debug)]
pub struct FetchError {
    pub status: Option<u16>,
    pub message: String,
}

impl FetchError {
    fn new(message: impl Into<String>) -> FetchError {
        FetchError { status: None, message: message.into() }
    }
}

/// The client every feed of a refresh shares.
pub fn client(policy: &FeedPolicy) -> Result<reqwest::Client, String> {
    let max = policy.max_redirects;
    let redirects = reqwest::redirect::Policy::custom(move |attempt| {
        if !matches!(attempt.url().scheme(), "http" | "https") {
            let msg = format!("redirected to a {} URL (only http and https are followed)", attempt.url().scheme());
            return attempt.error(msg);
        }
        if attempt.previous().iter().any(|u| u == attempt.url()) {
            let msg = format!("a redirect loop (back to {})", attempt.url());
            return attempt.error(msg);
        }
        // `previous` holds the first URL too.
        if attempt.previous().len() > max {
            return attempt.error(format!("more than {max} redirects"));
        }
        attempt.follow()
    });
    reqwest::Client::builder()
        .user_agent(concat!("cc-server/", env!("CARGO_PKG_VERSION"), " (news feeds)"))
        .redirect(redirects)
        .timeout(policy.timeout)
        .connect_timeout(policy.timeout.min(Duration::from_secs(10)))
        .gzip(true)
        // The owner's URLs, fetched as given: no proxy taken from the environment.
        .no_proxy()
        .build()
        .map_err(|e| format!("the HTTP client: {e}"))
}

/// Fetches `url`, conditionally when validators are given.
pub async fn fetch(
    client: &reqwest::Client,
    policy: &FeedPolicy,
    url: &str,
    etag: Option<&str>,
    last_modified: Option<&str>,
) -> Result<Fetched, FetchError> {
    let mut headers = HeaderMap::new();
    headers.insert(
        reqwest::header::ACCEPT,
        HeaderValue::from_static(
            "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, \
             application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5",
        ),
    );
    if let Some(v) = etag.and_then(|e| HeaderValue::from_str(e).ok()) {
        headers.insert(IF_NONE_MATCH, v);
    }
    if let Some(v) = last_modified.and_then(|e| HeaderValue::from_str(e).ok()) {
        headers.insert(IF_MODIFIED_SINCE, v);
    }
    let mut resp = client.get(url).headers(headers).send().await.map_err(|e| describe(&e, policy))?;
    let status = resp.status();
    if status == reqwest::StatusCode::NOT_MODIFIED {
        return Ok(Fetched::NotModified);
    }
    if !status.is_success() {
        // The canonical reason, not the server's words.
        let reason = status.canonical_reason().unwrap_or("");
        return Err(FetchError {
            status: Some(status.as_u16()),
            message: format!("HTTP {} {reason}", status.as_u16()),
        });
    }
    let header = |name| {
        resp.headers()
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_string)
            .filter(|s| s.len() <= 1024)
    };
    let (new_etag, new_last_modified) = (header(ETAG), header(LAST_MODIFIED));
    let final_url = resp.url().to_string();
    let cap = policy.max_bytes;
    let too_big = || FetchError {
        status: Some(status.as_u16()),
        message: format!("the body is larger than {cap} bytes (the cap); nothing of it was kept"),
    };
    if resp.content_length().is_some_and(|n| n > cap as u64) && !gzipped(resp.headers()) {
        return Err(too_big());
    }
    let mut body = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > cap {
                    return Err(too_big());
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => {
                let mut err = describe(&e, policy);
                if e.is_timeout() {
                    // It answered, but its body was still coming when the time was up.
                    let secs = policy.timeout.as_secs_f64();
                    err.message = format!("the body did not arrive within {secs}s (the timeout)");
                }
                err.status = Some(status.as_u16());
                return Err(err);
            }
        }
    }
    Ok(Fetched::Body {
        status: status.as_u16(),
        url: final_url,
        body,
        etag: new_etag,
        last_modified: new_last_modified,
    })
}

fn gzipped(h: &HeaderMap) -> bool {
    h.get(reqwest::header::CONTENT_ENCODING).is_some()
}

/// A reqwest error as one line a person acts on: what failed, with its causes.
fn describe(e: &reqwest::Error, policy: &FeedPolicy) -> FetchError {
    if e.is_timeout() {
        return FetchError::new(format!("no answer within {}s (the timeout)", policy.timeout.as_secs_f64()));
    }
    let mut causes = Vec::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let text = s.to_string();
        if !causes.contains(&text) {
            causes.push(text);
        }
        source = s.source();
    }
    let what = if e.is_redirect() {
        "redirects"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_decode() {
        "could not decode the body"
    } else if e.is_body() {
        "reading the body"
    } else {
        "the request failed"
    };
    let detail = if causes.is_empty() { String::new() } else { format!(": {}", causes.join(": ")) };
    FetchError { status: e.status().map(|s| s.as_u16()), message: format!("{what}{detail}") }
}
