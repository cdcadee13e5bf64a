//! A feed's HTML as text a model may read: "what would a person see of this article?"
//!
//! html5ever parses the HTML (through html2text, which renders it as Markdown-like plain
//! text: headings, emphasis, lists, quotes, reference-style links). Before rendering, what a
//! person would not see or what is not text is taken out of the tree: scripts, styles,
//! templates, frames, embedded objects, SVG and MathML, form controls, and every element
//! hidden by the `hidden` attribute, `aria-hidden="true"` or an inline style (`display:
//! none`, `visibility: hidden`, `opacity: 0`, a zero font size, height or width, or a
//! position far off screen). Link targets other than http(s) and mailto go. The rendered
//! text then loses control characters and the invisible ones (zero-width, bidirectional
//! overrides, Unicode tag characters) that can hide instructions from a reader.
//!
//! Not applied: a `<style>` sheet's rules (class-based hiding). html2text's CSS support
//! would bring a second major version of nom into the build; such text stays visible, which
//! errs on the side of showing more, never of running anything.

use html2text::{local_name, Element, Handle};

/// Elements whose content is never shown as text.
const DROPPED: &[&str] = &[
    "script", "style", "noscript", "template", "iframe", "frame", "frameset", "object", "embed", "applet", "svg",
    "math", "canvas", "head", "meta", "link", "base", "input", "select", "textarea", "button", "dialog", "datalist",
];

/// The width text is wrapped at.
const WIDTH: usize = 100;

/// The deepest nesting rendered. html5ever's tree builder scans the stack of open elements
/// for most start tags, so its time grows with the square of the depth (50,000 nested
/// `<div>`s took a minute); real articles nest a few dozen deep. Deeper HTML is not
/// rendered: its text says so.
pub const MAX_DEPTH: usize = 256;

/// Characters of HTML a one-line text (a title) is made from.
const MAX_LINE_INPUT: usize = 16 * 1024;

/// `html` as Markdown-like plain text, hidden content removed (see the module doc).
pub fn html_to_text(html: &str) -> String {
    if nesting_depth(html) > MAX_DEPTH {
        return format!(
            "(not shown: this article's HTML nests deeper than {MAX_DEPTH} elements; open its link to read it)"
        );
    }
    let cfg = html2text::config::plain().link_footnotes(true).no_link_wrapping();
    let rendered = (|| {
        let dom = cfg.parse_html(html.as_bytes()).ok()?;
        prune(&dom.document);
        let tree = cfg.dom_to_render_tree(&dom).ok()?;
        cfg.render_to_string(tree, WIDTH).ok()
    })();
    clean(&rendered.unwrap_or_default())
}

/// `html` (a title, an author) as one line of plain text.
pub fn html_to_line(html: &str) -> String {
    let html = match html.char_indices().nth(MAX_LINE_INPUT) {
        Some((i, _)) => &html[..i],
        None => html,
    };
    if nesting_depth(html) > MAX_DEPTH {
        return String::new();
    }
    let cfg = html2text::config::plain_no_decorate().no_link_wrapping();
    let rendered = (|| {
        let dom = cfg.parse_html(html.as_bytes()).ok()?;
        prune(&dom.document);
        let tree = cfg.dom_to_render_tree(&dom).ok()?;
        cfg.render_to_string(tree, usize::MAX / 4).ok()
    })();
    one_line(&rendered.unwrap_or_default())
}

/// Plain text from a feed (a `text/plain` content): invisible characters out, lines kept.
pub fn plain(text: &str) -> String {
    clean(text)
}

/// `text` on one line: whitespace runs as one space, invisible characters out.
pub fn one_line(text: &str) -> String {
    clean(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How deep `html` nests, by html5ever's tokenizer (linear time): start tags open, end
/// tags close, except elements that close themselves (void ones) or are closed implicitly
/// (`p`, `li`, table cells…), so that a long list of unclosed `<li>`s is not deep. Script,
/// style and other raw-text elements are tokenized as the tree builder would.
fn nesting_depth(html: &str) -> usize {
    use html5ever::tokenizer::states::RawKind;
    use html5ever::tokenizer::{BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer};
    use std::cell::Cell;

    struct Depth {
        now: Cell<usize>,
        max: Cell<usize>,
    }
    const NOT_COUNTED: &[&str] = &[
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
        "p", "li", "dt", "dd", "tr", "td", "th", "option", "optgroup", "rb", "rt", "rtc", "rp", "thead", "tbody",
        "tfoot", "colgroup", "caption", "html", "head", "body",
    ];
    impl TokenSink for Depth {
        type Handle = ();
        fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
            let Token::TagToken(Tag { kind, name, self_closing, .. }) = token else { return TokenSinkResult::Continue };
            let raw = match &*name {
                "script" => Some(RawKind::ScriptData),
                "style" | "xmp" | "iframe" | "noembed" | "noframes" => Some(RawKind::Rawtext),
                "textarea" | "title" => Some(RawKind::Rcdata),
                _ => None,
            };
            if NOT_COUNTED.contains(&&*name) || self_closing {
                return TokenSinkResult::Continue;
            }
            match kind {
                TagKind::StartTag => {
                    self.now.set(self.now.get() + 1);
                    self.max.set(self.max.get().max(self.now.get()));
                    if let Some(k) = raw {
                        return TokenSinkResult::RawData(k);
                    }
                }
                TagKind::EndTag => self.now.set(self.now.get().saturating_sub(1)),
            }
            TokenSinkResult::Continue
        }
    }
    let tok = Tokenizer::new(Depth { now: Cell::new(0), max: Cell::new(0) }, Default::default());
    let input = BufferQueue::default();
    input.push_back(html.into());
    let _ = tok.feed(&input);
    tok.end();
    tok.sink.max.get()
}

/// Removes, depth-first without recursion (a deeply nested page cannot overflow the
/// stack), every element that shows no text or is hidden; drops unsafe link targets.
fn prune(root: &Handle) {
    let mut stack = vec![root.clone()];
    while let Some(node) = stack.pop() {
        node.children.borrow_mut().retain(|child| !hidden(child));
        for child in node.children.borrow().iter() {
            if let Element { name, attrs, .. } = &child.data {
                if name.local == local_name!("a") {
                    attrs.borrow_mut().retain(|a| a.name.local != local_name!("href") || safe_href(&a.value));
                }
            }
            stack.push(child.clone());
        }
    }
}

/// Whether a link target may be shown: http(s), mailto, or relative.
fn safe_href(href: &str) -> bool {
    let h: String = href.chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect::<String>();
    match h.split_once(':') {
        // A colon after a slash, `?` or `#` is no scheme: relative.
        Some((scheme, _)) if !scheme.contains(['/', '?', '#']) => {
            matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https" | "mailto")
        }
        _ => true,
    }
}

fn hidden(node: &Handle) -> bool {
    let Element { name, attrs, .. } = &node.data else { return false };
    if DROPPED.contains(&&*name.local) {
        return true;
    }
    for a in attrs.borrow().iter() {
        match &*a.name.local {
            "hidden" => return true,
            "aria-hidden" if a.value.trim().eq_ignore_ascii_case("true") => return true,
            "style" if style_hides(&a.value) => return true,
            _ => {}
        }
    }
    false
}

/// Whether an inline style hides its element.
fn style_hides(style: &str) -> bool {
    style.split(';').any(|decl| {
        let Some((prop, value)) = decl.split_once(':') else { return false };
        let prop = prop.trim().to_ascii_lowercase();
        let value: String = value.to_ascii_lowercase().replace("!important", "").split_whitespace().collect();
        let zero = || {
            let n = value.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
            !n.is_empty() && n.parse::<f64>().is_ok_and(|v| v == 0.0)
        };
        let far_off = || {
            let n = value.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '%');
            n.parse::<f64>().is_ok_and(|v| v <= -999.0)
        };
        match prop.as_str() {
            "display" => value == "none",
            "visibility" => value == "hidden" || value == "collapse",
            "opacity" => zero(),
            "font-size" | "height" | "max-height" | "width" | "max-width" => zero(),
            "left" | "top" | "right" | "text-indent" | "margin-left" | "margin-top" => far_off(),
            "clip-path" => value.starts_with("inset(50%") || value.starts_with("inset(100%"),
            _ => false,
        }
    })
}

/// Whether a character is invisible or controls layout: control characters (but newline
/// and tab), zero-width and joiner characters, bidirectional controls, the byte-order mark,
/// and the Unicode tag block (which can spell text no reader sees).
fn invisible(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c,
            '\u{00AD}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{3164}' | '\u{FEFF}' | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}')
}

/// Invisible characters out, trailing spaces off each line, at most one blank line in a row.
fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line: String = line.chars().filter(|c| !invisible(*c)).collect();
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_styles_and_hidden_elements_are_not_text() {
        let t = html_to_text(
            "<p>Visible <b>bold</b></p><script>alert('x')</script><style>p{}</style>\
             <div hidden>HIDDEN1</div><span style=\"display: none\">HIDDEN2</span>\
             <p style=\"font-size:0px\">HIDDEN3</p><p aria-hidden=\"true\">HIDDEN4</p>\
             <p style=\"position:absolute; left:-9999px\">HIDDEN5</p><template>HIDDEN6</template>\
             <iframe src=\"https://x\">HIDDEN7</iframe><p style=\"visibility:hidden !important\">HIDDEN8</p>\
             <noscript>HIDDEN9</noscript><svg><text>HIDDEN10</text></svg><p>end</p>",
        );
        assert!(t.contains("Visible **bold**"), "{t}");
        assert!(t.contains("end"), "{t}");
        assert!(!t.contains("HIDDEN") && !t.contains("alert"), "{t}");
    }

    #[test]
    fn links_keep_http_targets_only() {
        let t = html_to_text(
            "<p><a href=\"https://example.com/a\">one</a> <a href=\"javascript:alert(1)\">two</a> \
             <a href=\" JaVa\tScript:x\">three</a> <a href=\"/rel?x=a:b\">four</a></p>",
        );
        assert!(t.contains("https://example.com/a"), "{t}");
        assert!(t.contains("/rel?x=a:b"), "{t}");
        assert!(!t.to_ascii_lowercase().contains("javascript") && !t.to_ascii_lowercase().contains("script:"), "{t}");
        assert!(t.contains("two") && t.contains("three"), "{t}");
    }

    #[test]
    fn invisible_characters_go() {
        let tag_text: String = "ignore".chars().map(|c| char::from_u32(0xE0000 + c as u32).unwrap()).collect();
        let t = html_to_text(&format!("<p>a\u{200B}b\u{202E}c{tag_text}\u{1b}[31md</p>"));
        assert_eq!(t, "abc[31md");
        assert_eq!(one_line("  Hello\n\t <world>\u{FEFF} "), "Hello <world>");
        assert_eq!(html_to_line("<b>Big</b> &amp; <i>small</i>"), "Big & small");
    }

    #[test]
    fn deep_nesting_is_measured_and_refused() {
        let nested = |n: usize| format!("{}deep{}", "<div>".repeat(n), "</div>".repeat(n));
        assert_eq!(nesting_depth(&nested(300)), 300);
        assert!(html_to_text(&nested(MAX_DEPTH)).contains("deep"));
        let refused = html_to_text(&nested(50_000));
        assert!(refused.contains("nests deeper than") && !refused.contains("deep\n"), "{refused}");
        // Implicitly closed and void elements, and markup inside a script, are not depth.
        let flat = format!("<ul>{}</ul><script>{}</script>", "<li>item<br>".repeat(5_000), "<div>".repeat(5_000));
        assert_eq!(nesting_depth(&flat), 1);
        assert!(html_to_text(&flat).contains("item"));
    }

    #[test]
    fn styles_that_show_stay() {
        assert!(!style_hides("display: block; color: red"));
        assert!(!style_hides("font-size: 12px; opacity: 0.5; left: -10px"));
        assert!(style_hides("DISPLAY : NONE"));
        assert!(style_hides("max-height:0;overflow:hidden"));
    }
}
