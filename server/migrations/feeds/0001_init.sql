-- The server owner's news feeds (registered from the command line only) and their articles.
--
-- feeds: `title` is the owner's (feeds add --title), `feed_title` the feed's own; `active`
-- is 1 when refreshed, 0 when paused by the owner; `etag` and `last_modified` are the
-- validators of the last 200 response, sent back as If-None-Match / If-Modified-Since.
CREATE TABLE feeds (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    title TEXT,
    feed_title TEXT,
    site_link TEXT,
    active BIGINT NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    added_at BIGINT NOT NULL,
    etag TEXT,
    last_modified TEXT,
    last_fetched_at BIGINT,
    last_ok_at BIGINT,
    last_status BIGINT,
    last_error TEXT
);
-- articles: `dedup_key` is 'id:<guid>', else 'link:<url>', else 'hash:<blake3 of title and
-- content>', unique per feed. `sort_at` orders list_articles (newest first): the published
-- date, else the updated one, else when it was first seen, never later than first seen;
-- set once. `content` is the feed's content (else its summary) as it came, HTML when
-- `content_html` is 1. `content_hash` covers everything the feed says of the article: a
-- different one on a refresh is an edit, stored in place (`edited_at`).
CREATE TABLE articles (
    id TEXT PRIMARY KEY,
    feed_id TEXT NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
    dedup_key TEXT NOT NULL,
    guid TEXT,
    title TEXT NOT NULL,
    link TEXT,
    author TEXT,
    published_at BIGINT,
    updated_at BIGINT,
    sort_at BIGINT NOT NULL,
    content TEXT NOT NULL,
    content_html BIGINT NOT NULL CHECK (content_html IN (0, 1)),
    content_hash TEXT NOT NULL,
    first_seen_at BIGINT NOT NULL,
    edited_at BIGINT,
    read_at BIGINT,
    saved_at BIGINT,
    UNIQUE (feed_id, dedup_key)
);
CREATE INDEX articles_newest ON articles (sort_at DESC, id DESC);
CREATE INDEX articles_feed_newest ON articles (feed_id, sort_at DESC, id DESC);
-- The unread and saved filters walk only their own articles, newest first (saved ones are
-- few; unread ones become few as a reader keeps up).
CREATE INDEX articles_unread ON articles (sort_at DESC, id DESC) WHERE read_at IS NULL;
CREATE INDEX articles_saved ON articles (sort_at DESC, id DESC) WHERE saved_at IS NOT NULL;
