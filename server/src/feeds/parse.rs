//! A fetched document as articles: "what does this feed say, and which of it is one article?"
//!
//! feed-rs reads RSS 0.9x, 1.0 and 2.0, Atom and JSON Feed (its encoding from the XML
//! prolog: the bytes go in as they came). Each entry becomes a [`NewArticle`]: its key is
//! the entry's id / guid, else its link, else a hash of its title and content (feed-rs's own
//! made-up ids are turned off, so a missing guid is seen as missing); its title and author
//! are plain text; its content is the entry's content, else its summary, as the feed gave
//! it (HTML is made text when an article is read: [`super::text`]).

use crate::store::feeds::NewArticle;

use super::text;

/// The most an article's stored content may hold (its text is cut there, on a character).
pub const MAX_CONTENT_BYTES: usize = 512 * 1024;
/// The longest title kept (characters).
const MAX_TITLE_CHARS: usize = 500;
/// The most entries taken from one document.
pub const MAX_ENTRIES: usize = 2_000;

/// A parsed document: the feed's title and site, and its entries in document order.
#[derive(Debug)]
pub struct Parsed {
    pub title: Option<String>,
    pub site_link: Option<String>,
    pub articles: Vec<NewArticle>,
}

/// Parses `body` (fetched from `url`, which relative links resolve against).
pub fn parse(body: &[u8], url: &str) -> Result<Parsed, String> {
    let parser = feed_rs::parser::Builder::new()
        .base_uri(Some(url))
        // No made-up ids: an entry without one is keyed by its link or its text here.
        .id_generator(|_, _, _| String::new())
        .build();
    let feed = parser.parse(body).map_err(|e| format!("not a feed this server reads (RSS, Atom, JSON Feed): {e}"))?;
    let title = feed.title.as_ref().map(title_text).filter(|t| !t.is_empty());
    let site_link = pick_link(&feed.links);
    let articles = feed.entries.iter().take(MAX_ENTRIES).map(article).collect();
    Ok(Parsed { title, site_link, articles })
}

fn is_html(media_type: &str) -> bool {
    let m = media_type.to_ascii_lowercase();
    m.starts_with("text/html") || m.starts_with("application/xhtml") || m == "html" || m == "xhtml"
}

fn title_text(t: &feed_rs::model::Text) -> String {
    let s = if is_html(t.content_type.as_str()) { text::html_to_line(&t.content) } else { text::one_line(&t.content) };
    cut_chars(&s, MAX_TITLE_CHARS)
}

fn cut_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

fn cut_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The page an entry or a feed links to: the first link without a relation or with
/// `alternate`, else the first link.
fn pick_link(links: &[feed_rs::model::Link]) -> Option<String> {
    links
        .iter()
        .find(|l| l.rel.as_deref().is_none_or(|r| r.eq_ignore_ascii_case("alternate")))
        .or(links.first())
        .map(|l| l.href.trim().to_string())
        .filter(|h| !h.is_empty())
}

fn article(e: &feed_rs::model::Entry) -> NewArticle {
    let guid = Some(e.id.trim().to_string()).filter(|g| !g.is_empty());
    let link = pick_link(&e.links);
    let mut title = e.title.as_ref().map(title_text).unwrap_or_default();
    let author = {
        let names: Vec<String> =
            e.authors.iter().filter_map(|p| p.name.as_deref()).map(text::one_line).filter(|n| !n.is_empty()).collect();
        Some(cut_chars(&names.join(", "), MAX_TITLE_CHARS)).filter(|a| !a.is_empty())
    };
    // The content, else the summary; a content that is not text (an inline image) does not count.
    let (content, content_html) = match &e.content {
        Some(c) if c.body.as_deref().is_some_and(|b| !b.trim().is_empty()) && is_textual(c.content_type.as_str()) => {
            (c.body.clone().unwrap_or_default(), is_html(c.content_type.as_str()))
        }
        _ => match &e.summary {
            Some(s) => (s.content.clone(), is_html(s.content_type.as_str())),
            None => (String::new(), false),
        },
    };
    let content = cut_bytes(&content, MAX_CONTENT_BYTES).to_string();
    if title.is_empty() {
        // A title-less item (RSS allows one): the start of its text.
        let words = if content_html { text::html_to_line(&content) } else { text::one_line(&content) };
        title = cut_chars(&words, 80);
    }
    let published_at = e.published.map(|d| d.timestamp());
    let updated_at = e.updated.map(|d| d.timestamp());
    let content_hash = hash(&[
        guid.as_deref().unwrap_or(""),
        &title,
        link.as_deref().unwrap_or(""),
        author.as_deref().unwrap_or(""),
        &published_at.map(|t| t.to_string()).unwrap_or_default(),
        &updated_at.map(|t| t.to_string()).unwrap_or_default(),
        if content_html { "html" } else { "text" },
        &content,
    ]);
    let dedup_key = match (&guid, &link) {
        (Some(g), _) => format!("id:{g}"),
        (None, Some(l)) => format!("link:{l}"),
        (None, None) => format!("hash:{}", hash(&[&title, &content])),
    };
    NewArticle { dedup_key, guid, title, link, author, published_at, updated_at, content, content_html, content_hash }
}

fn is_textual(media_type: &str) -> bool {
    let m = media_type.to_ascii_lowercase();
    m.starts_with("text/") || is_html(&m) || m == "text"
}

/// blake3 of the parts, each length-prefixed (no two lists of parts hash alike).
fn hash(parts: &[&str]) -> String {
    let mut h = blake3::Hasher::new();
    for p in parts {
        h.update(&(p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().to_hex()[..32].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_guid_then_link_then_hash() {
        let rss = r#"<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://s.example/</link>
            <item><guid>g-1</guid><title>One</title><link>https://s.example/1</link></item>
            <item><title>Two</title><link>https://s.example/2</link></item>
            <item><description>only text here</description></item>
            </channel></rss>"#;
        let p = parse(rss.as_bytes(), "https://s.example/feed.xml").unwrap();
        let keys: Vec<&str> = p.articles.iter().map(|a| a.dedup_key.as_str()).collect();
        assert_eq!(keys[0], "id:g-1");
        assert_eq!(keys[1], "link:https://s.example/2");
        assert!(keys[2].starts_with("hash:"), "{}", keys[2]);
        assert_eq!(p.articles[2].title, "only text here");
        assert_eq!(p.title.as_deref(), Some("T"));
        assert_eq!(p.site_link.as_deref(), Some("https://s.example/"));
    }

    #[test]
    fn malformed_documents_are_errors() {
        assert!(parse(b"<rss version=\"2.0\"><channel><item><title>x</item></rss>", "https://x.example/").is_err());
        assert!(parse(b"hello", "https://x.example/").is_err());
        assert!(parse(b"<html><body>not a feed</body></html>", "https://x.example/").is_err());
    }
}
