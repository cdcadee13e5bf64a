//! `cc-server feeds add|list|remove|pause|resume|refresh`: the owner's feed list, on the store.

use anyhow::Result;
use cc_indexer::DataDir;
use clap::{Args, Subcommand};
use serde_json::json;

use crate::serve::{block_on, open_store_at, Setup};
use crate::store::StoreError;

#[derive(Args, Debug)]
pub struct FeedsArgs {
    #[command(subcommand)]
    pub command: FeedsCommand,
}

#[derive(Subcommand, Debug)]
pub enum FeedsCommand {
    /// Register a feed (RSS 0.9x/1.0/2.0, Atom or JSON Feed) by its http(s) URL
    ///
    /// It is fetched by the next refresh (`feeds refresh`, the refresh_feeds tool, or the
    /// server's background refresh). Prints the feed's id.
    Add {
        /// The feed's URL (http or https)
        url: String,
        /// A title to show instead of the feed's own
        #[arg(long)]
        title: Option<String>,
    },
    /// The registered feeds, with their last fetch and article counts
    List {
        /// JSON output
        #[arg(long)]
        json: bool,
    },
    /// Remove a feed and its articles
    Remove {
        /// The feed's id (see `feeds list`)
        id: String,
    },
    /// Stop refreshing a feed (its articles stay)
    Pause {
        /// The feed's id (see `feeds list`)
        id: String,
    },
    /// Refresh a paused feed again
    Resume {
        /// The feed's id (see `feeds list`)
        id: String,
    },
    /// Fetch every active feed now and print what was new and what failed
    Refresh {
        /// JSON output (the refresh_feeds tool's result)
        #[arg(long)]
        json: bool,
    },
}

use crate::cli::BadInput;

fn bad(e: StoreError) -> anyhow::Error {
    match e {
        StoreError::NotFound { .. } | StoreError::Conflict(_) | StoreError::Invalid(_) => {
            BadInput(e.to_string()).into()
        }
        other => other.into(),
    }
}

fn when(t: Option<i64>) -> String {
    match t {
        None => "never".into(),
        Some(t) => {
            let ago = (crate::store::now() - t).max(0) as u64;
            format!("{} ago", humantime::format_duration(std::time::Duration::from_secs(ago)))
        }
    }
}

pub fn run(data: &DataDir, setup: &Setup, a: FeedsArgs) -> Result<()> {
    block_on(async {
        let store = open_store_at(data, setup.store_url.as_deref()).await?;
        let feeds = store.feeds();
        match a.command {
            FeedsCommand::Add { url, title } => {
                let url = super::check_url(&url).map_err(BadInput)?;
                let title = title.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
                let f = feeds.add(&url, title.as_deref()).await.map_err(bad)?;
                println!("{}", f.id);
                eprintln!("added {} ({}); the next refresh fetches it", f.url, f.display_title());
            }
            FeedsCommand::List { json } => {
                let list = feeds.list().await?;
                if json {
                    println!("{}", serde_json::to_string_pretty(&json!({ "feeds": list }))?);
                } else if list.is_empty() {
                    println!("no feeds; add one with `cc-server feeds add URL`");
                } else {
                    for f in list {
                        let state = if f.active { "active" } else { "paused" };
                        println!("{}  {state}  {}  {}", f.id, f.url, f.display_title());
                        println!(
                            "    {} articles, {} unread; last fetched {}, last worked {}",
                            f.articles,
                            f.unread,
                            when(f.last_fetched_at),
                            when(f.last_ok_at)
                        );
                        if let Some(e) = f.last_error {
                            println!("    last error: {e}");
                        }
                    }
                }
            }
            FeedsCommand::Remove { id } => {
                let f = feeds.get(&id).await?;
                feeds.remove(&id).await.map_err(bad)?;
                let what = f.map(|f| format!(" ({}, {} articles)", f.url, f.articles)).unwrap_or_default();
                println!("removed {id}{what}");
            }
            FeedsCommand::Pause { id } => {
                feeds.set_active(&id, false).await.map_err(bad)?;
                println!("paused {id}");
            }
            FeedsCommand::Resume { id } => {
                feeds.set_active(&id, true).await.map_err(bad)?;
                println!("resumed {id}");
            }
            FeedsCommand::Refresh { json } => {
                let r = super::refresh(&store, &super::FeedPolicy::default(), |_, _| {}).await?;
                if json {
                    println!("{}", serde_json::to_string_pretty(&r)?);
                } else {
                    for f in &r.feeds {
                        match &f.error {
                            Some(e) => println!("{}  failed: {e}", f.feed_id),
                            None => println!(
                                "{}  {}: {} new, {} updated",
                                f.feed_id,
                                if f.outcome == super::Outcome::NotModified { "not modified" } else { "fetched" },
                                f.new,
                                f.updated
                            ),
                        }
                    }
                    println!(
                        "{} feeds: {} new, {} updated, {} not modified, {} failed ({} ms)",
                        r.feeds.len(),
                        r.new,
                        r.updated,
                        r.not_modified,
                        r.failed,
                        r.elapsed_ms
                    );
                }
            }
        }
        Ok(())
    })
}
