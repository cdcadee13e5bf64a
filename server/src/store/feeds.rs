//! News feeds: "which feeds does the owner follow, what did they publish, and what has
//! been read or saved?" — the owner's feed list (`cc-server feeds`), each feed's
//! conditional-GET validators and last outcome, and the articles, deduplicated per feed by
//! guid, else link, else a hash of their text, and updated in place when edited upstream.

use serde::Serialize;

use super::{now, Result, Store, StoreError};

/// A feed of the owner's list, with its article counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Feed {
    pub id: String,
    pub url: String,
    /// The owner's title (`feeds add --title`), if any.
    pub title: Option<String>,
    /// The feed's own title, from its last successful fetch.
    pub feed_title: Option<String>,
    /// The site the feed belongs to, as the feed says.
    pub site_link: Option<String>,
    /// Refreshed (not paused by the owner).
    pub active: bool,
    /// Seconds since the epoch.
    pub added_at: i64,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub last_fetched_at: Option<i64>,
    pub last_ok_at: Option<i64>,
    /// The HTTP status of the last fetch that got one.
    pub last_status: Option<i64>,
    /// Why the last fetch failed; `None` once one succeeds.
    pub last_error: Option<String>,
    pub articles: i64,
    pub unread: i64,
}

impl Feed {
    /// The title to show: the owner's, else the feed's, else its URL.
    pub fn display_title(&self) -> &str {
        self.title.as_deref().or(self.feed_title.as_deref()).unwrap_or(&self.url)
    }
}

#[derive(sqlx::FromRow)]
struct FeedRow {
    id: String,
    url: String,
    title: Option<String>,
    feed_title: Option<String>,
    site_link: Option<String>,
    active: i64,
    added_at: i64,
    etag: Option<String>,
    last_modified: Option<String>,
    last_fetched_at: Option<i64>,
    last_ok_at: Option<i64>,
    last_status: Option<i64>,
    last_error: Option<String>,
    articles: i64,
    unread: i64,
}

impl From<FeedRow> for Feed {
    fn from(r: FeedRow) -> Feed {
        Feed {
            id: r.id,
            url: r.url,
            title: r.title,
            feed_title: r.feed_title,
            site_link: r.site_link,
            active: r.active != 0,
            added_at: r.added_at,
            etag: r.etag,
            last_modified: r.last_modified,
            last_fetched_at: r.last_fetched_at,
            last_ok_at: r.last_ok_at,
            last_status: r.last_status,
            last_error: r.last_error,
            articles: r.articles,
            unread: r.unread,
        }
    }
}

const FEED_SELECT: &str = "SELECT f.id, f.url, f.title, f.feed_title, f.site_link, f.active, f.added_at, f.etag, \
     f.last_modified, f.last_fetched_at, f.last_ok_at, f.last_status, f.last_error, \
     (SELECT COUNT(*) FROM articles a WHERE a.feed_id = f.id) AS articles, \
     (SELECT COUNT(*) FROM articles a WHERE a.feed_id = f.id AND a.read_at IS NULL) AS unread \
     FROM feeds f";

/// An article as a feed gave it, ready to store ([`crate::feeds`] makes them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewArticle {
    /// `id:<guid>`, `link:<url>` or `hash:<hex>`: unique per feed.
    pub dedup_key: String,
    pub guid: Option<String>,
    /// Plain text.
    pub title: String,
    pub link: Option<String>,
    pub author: Option<String>,
    pub published_at: Option<i64>,
    pub updated_at: Option<i64>,
    pub content: String,
    pub content_html: bool,
    /// Of all the fields above: a changed hash is an edit.
    pub content_hash: String,
}

/// What a successful fetch says about the feed itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FetchedFeed {
    pub status: u16,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub feed_title: Option<String>,
    pub site_link: Option<String>,
}

/// What storing one fetch's articles did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// New articles: (id, title), in the feed's order.
    pub new: Vec<(String, String)>,
    /// Articles edited upstream and updated in place: (id, title).
    pub updated: Vec<(String, String)>,
    pub unchanged: usize,
}

/// An article in a list: everything but its content.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArticleSummary {
    pub id: String,
    pub feed_id: String,
    pub feed_title: String,
    pub title: String,
    pub link: Option<String>,
    pub author: Option<String>,
    pub published_at: Option<i64>,
    pub updated_at: Option<i64>,
    pub sort_at: i64,
    pub read: bool,
    pub saved: bool,
}

/// An article with its content as the feed gave it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Article {
    #[serde(flatten)]
    pub summary: ArticleSummary,
    pub guid: Option<String>,
    pub content: String,
    pub content_html: bool,
    pub first_seen_at: i64,
    pub edited_at: Option<i64>,
}

#[derive(sqlx::FromRow)]
struct ArticleRow {
    id: String,
    feed_id: String,
    feed_title: String,
    title: String,
    link: Option<String>,
    author: Option<String>,
    published_at: Option<i64>,
    updated_at: Option<i64>,
    sort_at: i64,
    read_at: Option<i64>,
    saved_at: Option<i64>,
}

impl From<ArticleRow> for ArticleSummary {
    fn from(r: ArticleRow) -> ArticleSummary {
        ArticleSummary {
            id: r.id,
            feed_id: r.feed_id,
            feed_title: r.feed_title,
            title: r.title,
            link: r.link,
            author: r.author,
            published_at: r.published_at,
            updated_at: r.updated_at,
            sort_at: r.sort_at,
            read: r.read_at.is_some(),
            saved: r.saved_at.is_some(),
        }
    }
}

#[derive(sqlx::FromRow)]
struct FullRow {
    #[sqlx(flatten)]
    row: ArticleRow,
    guid: Option<String>,
    content: String,
    content_html: i64,
    first_seen_at: i64,
    edited_at: Option<i64>,
}

const ARTICLE_COLUMNS: &str =
    "a.id, a.feed_id, COALESCE(f.title, f.feed_title, f.url) AS feed_title, a.title, a.link, \
     a.author, a.published_at, a.updated_at, a.sort_at, a.read_at, a.saved_at";

/// Which articles a list shows; `None` is no filter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArticleFilter {
    pub feed_id: Option<String>,
    /// `Some(true)`: unread only; `Some(false)`: read only.
    pub unread: Option<bool>,
    /// `Some(true)`: saved only; `Some(false)`: not saved only.
    pub saved: Option<bool>,
}

/// Where a page of articles starts: after the article at (sort_at, id), newest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct After {
    pub sort_at: i64,
    pub id: String,
}

/// A new feed id: `fd-` and a UUIDv7 (sortable by creation).
fn feed_id() -> String {
    format!("fd-{}", uuid::Uuid::now_v7().simple())
}

/// A new article id: `ar-` and a UUIDv7.
fn article_id() -> String {
    format!("ar-{}", uuid::Uuid::now_v7().simple())
}

/// The feeds area of a [`Store`].
pub struct Feeds<'a> {
    pub(super) store: &'a Store,
}

impl Feeds<'_> {
    fn not_found_feed(id: &str) -> StoreError {
        StoreError::NotFound { what: format!("feed '{id}' (cc-server feeds list, or list_feeds, shows them)") }
    }

    fn not_found_article(id: &str) -> StoreError {
        StoreError::NotFound { what: format!("article '{id}' (list_articles lists them)") }
    }

    /// Registers a feed (the owner's: the URL is checked by the caller);
    /// [`StoreError::Conflict`] when the URL is registered already.
    pub async fn add(&self, url: &str, title: Option<&str>) -> Result<Feed> {
        let id = feed_id();
        let n = sqlx::query(
            "INSERT INTO feeds (id, url, title, active, added_at) VALUES ($1, $2, $3, 1, $4) ON CONFLICT (url) DO NOTHING",
        )
        .bind(&id)
        .bind(url)
        .bind(title)
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?
        .rows_affected();
        if n == 0 {
            let existing: Option<String> = sqlx::query_scalar("SELECT id FROM feeds WHERE url = $1")
                .bind(url)
                .fetch_optional(self.store.writer())
                .await
                .map_err(|e| self.store.err(e))?;
            return Err(StoreError::Conflict(format!(
                "{url} is registered already, as {}",
                existing.unwrap_or_else(|| "another feed".into())
            )));
        }
        self.get(&id).await?.ok_or_else(|| Self::not_found_feed(&id))
    }

    /// Every feed, in the order they were added.
    pub async fn list(&self) -> Result<Vec<Feed>> {
        let rows: Vec<FeedRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!("{FEED_SELECT} ORDER BY f.id")))
            .fetch_all(self.store.reader())
            .await
            .map_err(|e| self.store.err(e))?;
        Ok(rows.into_iter().map(Feed::from).collect())
    }

    /// The feeds a refresh fetches.
    pub async fn active(&self) -> Result<Vec<Feed>> {
        Ok(self.list().await?.into_iter().filter(|f| f.active).collect())
    }

    pub async fn get(&self, id: &str) -> Result<Option<Feed>> {
        let row: Option<FeedRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!("{FEED_SELECT} WHERE f.id = $1")))
            .bind(id)
            .fetch_optional(self.store.reader())
            .await
            .map_err(|e| self.store.err(e))?;
        Ok(row.map(Feed::from))
    }

    /// Whether a feed with this id exists (without counting its articles, as [`Feeds::get`] does).
    pub async fn exists(&self, id: &str) -> Result<bool> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM feeds WHERE id = $1")
            .bind(id)
            .fetch_one(self.store.reader())
            .await
            .map_err(|e| self.store.err(e))?;
        Ok(n > 0)
    }

    /// Removes a feed and its articles.
    pub async fn remove(&self, id: &str) -> Result<()> {
        let mut tx = self.store.begin().await?;
        // Articles first: a store opened without foreign keys enforced still loses nothing
        // half-way (one transaction).
        sqlx::query("DELETE FROM articles WHERE feed_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.store.err(e))?;
        let n = sqlx::query("DELETE FROM feeds WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.store.err(e))?
            .rows_affected();
        if n == 0 {
            return Err(Self::not_found_feed(id));
        }
        tx.commit().await.map_err(|e| self.store.err(e))
    }

    /// Pauses (`false`) or resumes (`true`) a feed's refreshes.
    pub async fn set_active(&self, id: &str, active: bool) -> Result<()> {
        let n = sqlx::query("UPDATE feeds SET active = $2 WHERE id = $1")
            .bind(id)
            .bind(active as i64)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.store.err(e))?
            .rows_affected();
        if n == 0 {
            return Err(Self::not_found_feed(id));
        }
        Ok(())
    }

    /// A fetch answered 304 Not Modified: the articles and validators stay; the feed was
    /// checked now and its last error is over.
    pub async fn not_modified(&self, id: &str) -> Result<()> {
        let t = now();
        sqlx::query(
            "UPDATE feeds SET last_fetched_at = $2, last_ok_at = $2, last_status = 304, last_error = NULL WHERE id = $1",
        )
        .bind(id)
        .bind(t)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// A fetch failed: the feed's last error (its articles and validators stay).
    pub async fn failed(&self, id: &str, status: Option<u16>, error: &str) -> Result<()> {
        sqlx::query("UPDATE feeds SET last_fetched_at = $2, last_status = $3, last_error = $4 WHERE id = $1")
            .bind(id)
            .bind(now())
            .bind(status.map(i64::from))
            .bind(error)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// Stores one successful fetch, in one transaction: new articles inserted, edited ones
    /// updated in place (their read and saved marks kept), the feed's validators and title.
    /// Two articles of one fetch with one key: the first counts.
    pub async fn apply(&self, feed_id: &str, fetched: &FetchedFeed, articles: &[NewArticle]) -> Result<Applied> {
        let t = now();
        let mut out = Applied::default();
        let mut tx = self.store.begin().await?;
        let n = sqlx::query(
            "UPDATE feeds SET etag = $2, last_modified = $3, feed_title = COALESCE($4, feed_title), \
             site_link = COALESCE($5, site_link), last_fetched_at = $6, last_ok_at = $6, last_status = $7, \
             last_error = NULL WHERE id = $1",
        )
        .bind(feed_id)
        .bind(&fetched.etag)
        .bind(&fetched.last_modified)
        .bind(&fetched.feed_title)
        .bind(&fetched.site_link)
        .bind(t)
        .bind(i64::from(fetched.status))
        .execute(&mut *tx)
        .await
        .map_err(|e| self.store.err(e))?
        .rows_affected();
        if n == 0 {
            // Removed while it was being fetched: nothing to keep.
            return Err(Self::not_found_feed(feed_id));
        }
        let mut seen = std::collections::HashSet::new();
        for a in articles {
            if !seen.insert(a.dedup_key.as_str()) {
                continue;
            }
            let existing: Option<(String, String)> =
                sqlx::query_as("SELECT id, content_hash FROM articles WHERE feed_id = $1 AND dedup_key = $2")
                    .bind(feed_id)
                    .bind(&a.dedup_key)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(|e| self.store.err(e))?;
            match existing {
                Some((_, hash)) if hash == a.content_hash => out.unchanged += 1,
                Some((id, _)) => {
                    sqlx::query(
                        "UPDATE articles SET guid = $2, title = $3, link = $4, author = $5, published_at = $6, \
                         updated_at = $7, content = $8, content_html = $9, content_hash = $10, edited_at = $11 WHERE id = $1",
                    )
                    .bind(&id)
                    .bind(&a.guid)
                    .bind(&a.title)
                    .bind(&a.link)
                    .bind(&a.author)
                    .bind(a.published_at)
                    .bind(a.updated_at)
                    .bind(&a.content)
                    .bind(a.content_html as i64)
                    .bind(&a.content_hash)
                    .bind(t)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| self.store.err(e))?;
                    out.updated.push((id, a.title.clone()));
                }
                None => {
                    let id = article_id();
                    let sort_at = a.published_at.or(a.updated_at).map_or(t, |d| d.min(t));
                    let n = sqlx::query(
                        "INSERT INTO articles (id, feed_id, dedup_key, guid, title, link, author, published_at, updated_at, \
                         sort_at, content, content_html, content_hash, first_seen_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
                         ON CONFLICT (feed_id, dedup_key) DO NOTHING",
                    )
                    .bind(&id)
                    .bind(feed_id)
                    .bind(&a.dedup_key)
                    .bind(&a.guid)
                    .bind(&a.title)
                    .bind(&a.link)
                    .bind(&a.author)
                    .bind(a.published_at)
                    .bind(a.updated_at)
                    .bind(sort_at)
                    .bind(&a.content)
                    .bind(a.content_html as i64)
                    .bind(&a.content_hash)
                    .bind(t)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| self.store.err(e))?
                    .rows_affected();
                    // 0: another replica stored it first (PostgreSQL, several servers).
                    if n == 1 {
                        out.new.push((id, a.title.clone()));
                    } else {
                        out.unchanged += 1;
                    }
                }
            }
        }
        tx.commit().await.map_err(|e| self.store.err(e))?;
        Ok(out)
    }

    /// One page of articles, newest first (`sort_at`, then id, both descending), after
    /// `after` when given; at most `limit`.
    pub async fn articles(
        &self,
        filter: &ArticleFilter,
        after: Option<&After>,
        limit: usize,
    ) -> Result<Vec<ArticleSummary>> {
        let mut conds: Vec<String> = Vec::new();
        let mut n = 0;
        let mut next = || {
            n += 1;
            format!("${n}")
        };
        if filter.feed_id.is_some() {
            conds.push(format!("a.feed_id = {}", next()));
        }
        match filter.unread {
            Some(true) => conds.push("a.read_at IS NULL".into()),
            Some(false) => conds.push("a.read_at IS NOT NULL".into()),
            None => {}
        }
        match filter.saved {
            Some(true) => conds.push("a.saved_at IS NOT NULL".into()),
            Some(false) => conds.push("a.saved_at IS NULL".into()),
            None => {}
        }
        if after.is_some() {
            // A row value: both backends walk the (sort_at, id) index from there.
            let (s, id) = (next(), next());
            conds.push(format!("(a.sort_at, a.id) < ({s}, {id})"));
        }
        let limit_at = next();
        let filter_sql = if conds.is_empty() { String::new() } else { format!("WHERE {}", conds.join(" AND ")) };
        let sql = format!(
            "SELECT {ARTICLE_COLUMNS} FROM articles a JOIN feeds f ON f.id = a.feed_id {filter_sql} \
             ORDER BY a.sort_at DESC, a.id DESC LIMIT {limit_at}"
        );
        let mut q = sqlx::query_as::<_, ArticleRow>(sqlx::AssertSqlSafe(sql));
        if let Some(f) = &filter.feed_id {
            q = q.bind(f.clone());
        }
        if let Some(a) = after {
            q = q.bind(a.sort_at).bind(a.id.clone());
        }
        let rows = q.bind(limit as i64).fetch_all(self.store.reader()).await.map_err(|e| self.store.err(e))?;
        Ok(rows.into_iter().map(ArticleSummary::from).collect())
    }

    /// The article `id`, with its content.
    pub async fn article(&self, id: &str) -> Result<Option<Article>> {
        let row: Option<FullRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {ARTICLE_COLUMNS}, a.guid, a.content, a.content_html, a.first_seen_at, a.edited_at \
             FROM articles a JOIN feeds f ON f.id = a.feed_id WHERE a.id = $1"
        )))
        .bind(id)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))?;
        Ok(row.map(|r| Article {
            summary: r.row.into(),
            guid: r.guid,
            content: r.content,
            content_html: r.content_html != 0,
            first_seen_at: r.first_seen_at,
            edited_at: r.edited_at,
        }))
    }

    /// Whether an article with this id exists.
    pub async fn article_exists(&self, id: &str) -> Result<bool> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM articles WHERE id = $1")
            .bind(id)
            .fetch_one(self.store.reader())
            .await
            .map_err(|e| self.store.err(e))?;
        Ok(n > 0)
    }

    /// Marks an article read or unread; `true` when that changed it (idempotent).
    pub async fn set_read(&self, id: &str, read: bool) -> Result<bool> {
        self.set_mark(id, "read_at", read).await
    }

    /// Saves or unsaves an article; `true` when that changed it (idempotent).
    pub async fn set_saved(&self, id: &str, saved: bool) -> Result<bool> {
        self.set_mark(id, "saved_at", saved).await
    }

    async fn set_mark(&self, id: &str, column: &'static str, on: bool) -> Result<bool> {
        let q = if on {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "UPDATE articles SET {column} = $2 WHERE id = $1 AND {column} IS NULL"
            )))
            .bind(id)
            .bind(now())
        } else {
            sqlx::query(sqlx::AssertSqlSafe(format!(
                "UPDATE articles SET {column} = NULL WHERE id = $1 AND {column} IS NOT NULL"
            )))
            .bind(id)
        };
        let n = q.execute(self.store.writer()).await.map_err(|e| self.store.err(e))?.rows_affected();
        if n == 1 {
            return Ok(true);
        }
        if self.article_exists_on_writer(id).await? {
            Ok(false)
        } else {
            Err(Self::not_found_article(id))
        }
    }

    async fn article_exists_on_writer(&self, id: &str) -> Result<bool> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM articles WHERE id = $1")
            .bind(id)
            .fetch_one(self.store.writer())
            .await
            .map_err(|e| self.store.err(e))?;
        Ok(n > 0)
    }
}
