//! Markdown blocks: CommonMark (with tables, strikethrough and task lists) to HTML by
//! pulldown-cmark, then sanitized by ammonia — the text may hold any HTML, and what comes out
//! has no script, style, iframe or form, no event-handler attribute and no URL but http(s),
//! mailto or a fragment; links get `rel="noopener noreferrer nofollow"`.

use std::collections::HashSet;
use std::sync::OnceLock;

fn sanitizer() -> &'static ammonia::Builder<'static> {
    static B: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    B.get_or_init(|| {
        let mut b = ammonia::Builder::default();
        b.url_schemes(HashSet::from(["http", "https", "mailto"]))
            .url_relative(ammonia::UrlRelative::Deny)
            .link_rel(Some("noopener noreferrer nofollow"));
        b
    })
}

/// `text` as sanitized HTML.
pub fn render(text: &str) -> String {
    use pulldown_cmark::{Options, Parser};
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut html = String::with_capacity(text.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, Parser::new_ext(text, options));
    sanitizer().clean(&html).to_string()
}
