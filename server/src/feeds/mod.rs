//! News feeds: "fetch the owner's feeds, keep what is new, and show articles as safe text".
//!
//! The owner registers feeds (`cc-server feeds add`); no request ever adds one, so every URL
//! fetched here is trusted input. [`refresh`] fetches every active feed at once, at most
//! [`FeedPolicy::concurrency`] at a time ([`fetch`]: conditional GET, timeout, redirects,
//! body cap, gzip), parses each ([`parse`]) off the async workers, and stores each feed's
//! articles in a transaction of its own ([`crate::store::feeds`]): one feed failing marks
//! that feed's last error and nothing else. [`background`] runs it at the owner's interval
//! (`serve --feed-refresh-secs`); the refresh_feeds tool runs it now. [`text`] turns an
//! article's HTML into fenced, sanitised text.

pub mod cli;
pub mod fetch;
pub mod parse;
pub mod text;

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use schemars::JsonSchema;
use serde::Serialize;

use crate::store::feeds::{Feed, FetchedFeed};
use crate::store::Store;

/// How feeds are fetched: the server's settings, the same for every feed.
#[derive(Clone, Debug)]
pub struct FeedPolicy {
    /// The whole exchange of one feed: connect, redirects, headers, body.
    pub timeout: Duration,
    /// The largest body read (after decompression).
    pub max_bytes: usize,
    /// Redirects followed per fetch.
    pub max_redirects: usize,
    /// Feeds fetched at once.
    pub concurrency: usize,
}

impl Default for FeedPolicy {
    fn default() -> Self {
        FeedPolicy { timeout: Duration::from_secs(20), max_bytes: 8 << 20, max_redirects: 5, concurrency: 8 }
    }
}

/// What a refresh did to one feed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Fetched and parsed: `new` and `updated` say what changed (maybe nothing).
    Fetched,
    /// 304 Not Modified: nothing changed.
    NotModified,
    /// The fetch or the parse failed: `error` says why; the feed's articles are as they were.
    Failed,
}

/// An article a refresh found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FoundArticle {
    pub article_id: String,
    /// Plain text, from the feed.
    pub title: String,
}

/// One feed's part of a refresh.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct FeedRefresh {
    pub feed_id: String,
    pub url: String,
    pub title: String,
    pub outcome: Outcome,
    /// The HTTP status, when the server answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// How many articles were new.
    pub new: usize,
    /// How many articles were edited upstream and updated in place.
    pub updated: usize,
    /// The new articles, the first [`MAX_LISTED`] of them.
    pub new_articles: Vec<FoundArticle>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a refresh did, feed by feed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RefreshReport {
    /// Every active feed, in the order they were added.
    pub feeds: Vec<FeedRefresh>,
    /// New articles, over all feeds.
    pub new: usize,
    /// Articles updated in place, over all feeds.
    pub updated: usize,
    pub not_modified: usize,
    pub failed: usize,
    /// Wall time of the whole refresh, in milliseconds.
    pub elapsed_ms: u64,
}

/// The most new articles a report lists per feed (`new` counts them all).
pub const MAX_LISTED: usize = 20;
/// The longest error message kept for a feed.
const MAX_ERROR_CHARS: usize = 500;

/// One refresh at a time in this process (the background one and a tool call's).
static REFRESHING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Fetches every active feed now and stores what is new; `progress(done, total)` after each.
/// Waits for a refresh already running in this process first.
pub async fn refresh(
    store: &Store,
    policy: &FeedPolicy,
    progress: impl Fn(usize, usize) + Send + Sync,
) -> crate::store::Result<RefreshReport> {
    let _one = REFRESHING.lock().await;
    let start = Instant::now();
    let feeds = store.feeds().active().await?;
    let total = feeds.len();
    let client = match fetch::client(policy) {
        Ok(c) => Arc::new(c),
        Err(e) => return Err(crate::store::StoreError::Invalid(e)),
    };
    let done = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, FeedRefresh)> = futures::stream::iter(feeds.into_iter().enumerate())
        .map(|(i, feed)| {
            let client = client.clone();
            let (done, progress) = (&done, &progress);
            async move {
                let r = refresh_one(store, policy, &client, &feed).await;
                progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
                (i, r)
            }
        })
        .buffer_unordered(policy.concurrency.max(1))
        .collect()
        .await;
    results.sort_by_key(|(i, _)| *i);
    let feeds: Vec<FeedRefresh> = results.into_iter().map(|(_, r)| r).collect();
    Ok(RefreshReport {
        new: feeds.iter().map(|f| f.new).sum(),
        updated: feeds.iter().map(|f| f.updated).sum(),
        not_modified: feeds.iter().filter(|f| f.outcome == Outcome::NotModified).count(),
        failed: feeds.iter().filter(|f| f.outcome == Outcome::Failed).count(),
        feeds,
        elapsed_ms: start.elapsed().as_millis() as u64,
    })
}

fn one_line_error(e: &str) -> String {
    let line = text::one_line(e);
    match line.char_indices().nth(MAX_ERROR_CHARS) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line,
    }
}

/// Fetches, parses and stores one feed; never fails (a failure is the feed's outcome).
async fn refresh_one(store: &Store, policy: &FeedPolicy, client: &reqwest::Client, feed: &Feed) -> FeedRefresh {
    let mut out = FeedRefresh {
        feed_id: feed.id.clone(),
        url: feed.url.clone(),
        title: feed.display_title().to_string(),
        outcome: Outcome::Failed,
        http_status: None,
        new: 0,
        updated: 0,
        new_articles: Vec::new(),
        error: None,
    };
    let fail = |out: &mut FeedRefresh, status: Option<u16>, e: &str| {
        out.outcome = Outcome::Failed;
        out.http_status = status;
        out.error = Some(one_line_error(e));
    };
    let fetched = fetch::fetch(client, policy, &feed.url, feed.etag.as_deref(), feed.last_modified.as_deref()).await;
    let stored = match fetched {
        Err(e) => {
            fail(&mut out, e.status, &e.message);
            store.feeds().failed(&feed.id, e.status, out.error.as_deref().unwrap_or_default()).await
        }
        Ok(fetch::Fetched::NotModified) => {
            out.outcome = Outcome::NotModified;
            out.http_status = Some(304);
            store.feeds().not_modified(&feed.id).await
        }
        Ok(fetch::Fetched::Body { status, url, body, etag, last_modified }) => {
            out.http_status = Some(status);
            // Parsing is CPU work: off the async workers.
            let parsed = tokio::task::spawn_blocking(move || parse::parse(&body, &url))
                .await
                .unwrap_or_else(|e| Err(format!("the parser failed: {e}")));
            match parsed {
                Err(e) => {
                    fail(&mut out, Some(status), &e);
                    store.feeds().failed(&feed.id, Some(status), out.error.as_deref().unwrap_or_default()).await
                }
                Ok(p) => {
                    let meta = FetchedFeed { status, etag, last_modified, feed_title: p.title, site_link: p.site_link };
                    match store.feeds().apply(&feed.id, &meta, &p.articles).await {
                        Ok(applied) => {
                            out.outcome = Outcome::Fetched;
                            if feed.title.is_none() {
                                if let Some(t) = &meta.feed_title {
                                    out.title = t.clone();
                                }
                            }
                            out.new = applied.new.len();
                            out.updated = applied.updated.len();
                            out.new_articles = applied
                                .new
                                .into_iter()
                                .take(MAX_LISTED)
                                .map(|(article_id, title)| FoundArticle { article_id, title })
                                .collect();
                            Ok(())
                        }
                        Err(e) => Err(e),
                    }
                }
            }
        }
    };
    if let Err(e) = stored {
        let status = out.http_status;
        fail(&mut out, status, &format!("storing the feed: {e}"));
    }
    out
}

/// Refreshes every `every` (the first one right away) until `stop` is cancelled; each
/// refresh's failures are logged, never fatal.
pub async fn background(store: Store, policy: FeedPolicy, every: Duration, stop: tokio_util::sync::CancellationToken) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        let run = refresh(&store, &policy, |_, _| {});
        let report = tokio::select! {
            _ = stop.cancelled() => return,
            r = run => r,
        };
        match report {
            Ok(r) if r.feeds.is_empty() => {}
            Ok(r) => tracing::info!(
                feeds = r.feeds.len(),
                new = r.new,
                updated = r.updated,
                not_modified = r.not_modified,
                failed = r.failed,
                elapsed_ms = r.elapsed_ms,
                "feeds refreshed"
            ),
            Err(e) => tracing::warn!("refreshing the feeds: {e}"),
        }
    }
}

/// An article's content as text for a reader: HTML rendered (see [`text`]), plain text
/// cleaned of invisible characters.
pub fn article_text(content: &str, html: bool) -> String {
    if html {
        text::html_to_text(content)
    } else {
        text::plain(content)
    }
}

/// Checks a URL the owner gives `feeds add`: http or https, with a host. The normalised
/// URL, or why not.
pub fn check_url(url: &str) -> Result<String, String> {
    let u = url::Url::parse(url.trim()).map_err(|e| format!("'{url}' is not a URL: {e}"))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(format!("'{url}': only http and https feeds are fetched"));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err(format!("'{url}' has no host"));
    }
    Ok(u.to_string())
}
