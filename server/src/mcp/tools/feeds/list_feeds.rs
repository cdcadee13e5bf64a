//! list_feeds: the owner's feeds, with how each last fetch went.

use schemars::JsonSchema;
use serde::Serialize;

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "list_feeds",
    title: "List feeds",
    description: "List the registered RSS/Atom/JSON feeds (global; takes no workspace_id): each feed's id, URL, title, whether it is refreshed, when it was last fetched, its last error, and its article and unread counts. The server's owner adds and removes feeds (cc-server feeds add|remove); no tool does.",
    set: ToolSet::Feeds,
    scope: Scope::Global,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Serialize, JsonSchema)]
pub struct FeedOut {
    pub feed_id: String,
    pub url: String,
    /// The owner's title, else the feed's own, else its URL.
    pub title: String,
    /// The site the feed belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site_link: Option<String>,
    /// Refreshed by refresh_feeds and the background refresh (the owner may pause a feed).
    pub active: bool,
    /// Seconds since the epoch.
    pub added_at: i64,
    /// Seconds since the epoch of the last fetch, successful or not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_fetched_at: Option<i64>,
    /// Seconds since the epoch of the last fetch that worked (200 or 304).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ok_at: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_status: Option<i64>,
    /// Why the last fetch failed; absent once one works.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    pub articles: i64,
    pub unread: i64,
}

#[derive(Serialize, JsonSchema)]
pub struct FeedsOut {
    pub feeds: Vec<FeedOut>,
}

pub async fn list_feeds(ctx: Ctx<()>, _: NoArgs) -> Result<FeedsOut, ToolError> {
    let feeds = ctx.services.store.feeds().list().await?;
    Ok(FeedsOut {
        feeds: feeds
            .into_iter()
            .map(|f| FeedOut {
                title: f.display_title().to_string(),
                feed_id: f.id,
                url: f.url,
                site_link: f.site_link,
                active: f.active,
                added_at: f.added_at,
                last_fetched_at: f.last_fetched_at,
                last_ok_at: f.last_ok_at,
                last_status: f.last_status,
                last_error: f.last_error,
                articles: f.articles,
                unread: f.unread,
            })
            .collect(),
    })
}
