//! Code blocks: highlighted by tree-sitter-highlight with the grammars the indexer parses
//! with (cc-grammars) and the highlights queries their crates ship. Each capture becomes a
//! `<span class="hl-NAME">` (`hl-keyword`, `hl-string`, `hl-function-method`, …); a language
//! without a highlighter here is escaped plain text in `<pre class="code plain">`, with a
//! visible note saying so.

use std::sync::OnceLock;

use cc_grammars::Lang;
use tree_sitter_highlight::{HighlightConfiguration, HighlightEvent, Highlighter};

use super::escape_into;

/// The capture names recognized (a capture takes the longest that prefixes it).
pub const NAMES: &[&str] = &[
    "attribute",
    "boolean",
    "comment",
    "constant",
    "constant.builtin",
    "constructor",
    "embedded",
    "escape",
    "function",
    "function.builtin",
    "function.macro",
    "function.method",
    "keyword",
    "label",
    "module",
    "number",
    "operator",
    "property",
    "punctuation",
    "punctuation.bracket",
    "punctuation.delimiter",
    "punctuation.special",
    "string",
    "string.escape",
    "string.special",
    "tag",
    "type",
    "type.builtin",
    "variable",
    "variable.builtin",
    "variable.parameter",
];

/// The languages highlighted, with their highlights queries (a language's own first, then
/// the one it extends).
fn queries(lang: Lang) -> Option<&'static [&'static str]> {
    Some(match lang {
        Lang::Rust => &[tree_sitter_rust::HIGHLIGHTS_QUERY],
        Lang::Python => &[tree_sitter_python::HIGHLIGHTS_QUERY],
        Lang::JavaScript => &[tree_sitter_javascript::HIGHLIGHT_QUERY, tree_sitter_javascript::JSX_HIGHLIGHT_QUERY],
        Lang::TypeScript => &[tree_sitter_typescript::HIGHLIGHTS_QUERY, tree_sitter_javascript::HIGHLIGHT_QUERY],
        Lang::Tsx => &[
            tree_sitter_typescript::HIGHLIGHTS_QUERY,
            tree_sitter_javascript::HIGHLIGHT_QUERY,
            tree_sitter_javascript::JSX_HIGHLIGHT_QUERY,
        ],
        Lang::Go => &[tree_sitter_go::HIGHLIGHTS_QUERY],
        Lang::Java => &[tree_sitter_java::HIGHLIGHTS_QUERY],
        Lang::C => &[tree_sitter_c::HIGHLIGHT_QUERY],
        Lang::Cpp => &[tree_sitter_cpp::HIGHLIGHT_QUERY, tree_sitter_c::HIGHLIGHT_QUERY],
        Lang::Ruby => &[tree_sitter_ruby::HIGHLIGHTS_QUERY],
        Lang::CSharp => &[tree_sitter_c_sharp::HIGHLIGHTS_QUERY],
        _ => return None,
    })
}

/// The languages with a highlighter.
pub fn highlighted() -> impl Iterator<Item = Lang> {
    Lang::all().filter(|l| queries(*l).is_some())
}

/// `lang`'s configuration, built once; an error when its query does not compile.
pub fn config(lang: Lang) -> Option<Result<&'static HighlightConfiguration, String>> {
    static CACHE: [OnceLock<Result<HighlightConfiguration, String>>; 20] = [const { OnceLock::new() }; 20];
    let qs = queries(lang)?;
    let c = CACHE[lang as usize].get_or_init(|| {
        let mut c = HighlightConfiguration::new(lang.grammar(), lang.name(), &qs.join("\n"), "", "")
            .map_err(|e| format!("{lang}: the highlights query: {e}"))?;
        c.configure(NAMES);
        Ok(c)
    });
    Some(c.as_ref().map_err(Clone::clone))
}

/// The highlighted HTML of `text`, or why there is none.
pub fn spans(language: &str, text: &str) -> Result<String, String> {
    let lang = Lang::from_name(language).ok_or_else(|| format!("no grammar for '{language}'"))?;
    let config = config(lang).ok_or_else(|| format!("no highlighter for {lang}"))??;
    let mut h = Highlighter::new();
    let events = h.highlight(config, text.as_bytes(), None, |_| None).map_err(|e| format!("{e:?}"))?;
    let mut out = String::with_capacity(text.len() * 2);
    for e in events {
        match e.map_err(|e| format!("{e:?}"))? {
            HighlightEvent::Source { start, end } => escape_into(&mut out, &text[start..end]),
            HighlightEvent::HighlightStart(s) => {
                out.push_str("<span class=\"hl-");
                out.push_str(&NAMES[s.0].replace('.', "-"));
                out.push_str("\">");
            }
            HighlightEvent::HighlightEnd => out.push_str("</span>"),
        }
    }
    Ok(out)
}

/// A code block's `<pre>`: highlighted, or plain with a note.
pub fn render(language: &str, text: &str, out: &mut String) {
    let class: String = language.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '+').collect();
    match spans(language, text) {
        Ok(html) => {
            out.push_str("<pre class=\"code highlighted lang-");
            out.push_str(&class);
            out.push_str("\"><code>");
            out.push_str(&html);
            out.push_str("</code></pre>");
        }
        Err(why) => {
            out.push_str("<p class=\"note\">Not highlighted (");
            escape_into(out, &why);
            out.push_str("): shown as plain text.</p><pre class=\"code plain lang-");
            out.push_str(&class);
            out.push_str("\"><code>");
            escape_into(out, text);
            out.push_str("</code></pre>");
        }
    }
}

pub const STYLE: &str = r#"
.hl-keyword,.hl-function-macro{color:#cf222e}
.hl-string,.hl-string-special{color:#0a3069}
.hl-string-escape,.hl-escape{color:#116329}
.hl-comment{color:#6e7781;font-style:italic}
.hl-function,.hl-function-method,.hl-function-builtin,.hl-constructor{color:#8250df}
.hl-type,.hl-type-builtin,.hl-module{color:#953800}
.hl-number,.hl-constant,.hl-constant-builtin,.hl-boolean{color:#0550ae}
.hl-attribute,.hl-label,.hl-tag{color:#116329}
.hl-property,.hl-variable-builtin,.hl-variable-parameter{color:#953800}
.hl-operator,.hl-punctuation,.hl-punctuation-bracket,.hl-punctuation-delimiter{color:#57606a}
"#;
