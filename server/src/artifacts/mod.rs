//! Artifacts: "show this to a person as a page." An artifact is an ordered list of typed
//! [`Block`]s — markdown, table, chart, mermaid, code, json — checked by [`validate`] beyond
//! what their JSON Schema says, and rendered by [`render_page`] into one self-contained HTML
//! page: markdown through pulldown-cmark and then ammonia (whatever HTML the text holds is
//! sanitized: no script, no event handler, no `javascript:` URL), tables as escaped HTML
//! tables, charts as inline SVG drawn here ([`chart`]), code highlighted by tree-sitter with
//! the grammars the indexer uses ([`highlight`]; a language without a highlighter is escaped
//! plain text, marked so), mermaid flowcharts and sequence diagrams parsed and laid out here
//! as SVG ([`mermaid`]; any other mermaid kind is shown as its source with a note). The page
//! has no JavaScript and loads nothing: `/artifacts/{id}` serves it with a [`CSP`] that says so.

pub mod chart;
pub mod highlight;
pub mod markdown;
pub mod mermaid;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The Content-Security-Policy the page is served with: nothing is loaded and nothing runs
/// (styles are the page's own, inline; images only as data: URLs).
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// One block of an artifact, by its `type`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Block {
    /// Markdown (CommonMark with tables); any HTML in it is sanitized.
    Markdown {
        /// The markdown text.
        #[schemars(length(max = 200000))]
        text: String,
    },
    /// A table: column headers and rows of cells, each row as long as `columns`.
    Table {
        /// The column headers.
        #[schemars(length(min = 1, max = 50), inner(length(max = 500)))]
        columns: Vec<String>,
        /// The rows, each a list of cells (strings, numbers, booleans or null), one per column.
        #[schemars(length(max = 5000))]
        rows: Vec<Vec<Cell>>,
    },
    /// A chart of numeric series.
    Chart {
        /// bar (one bar per series at each x), line or scatter.
        kind: ChartKind,
        /// The series, each a name and its [x, y] points.
        #[schemars(length(min = 1, max = 20))]
        series: Vec<Series>,
        /// What the x axis measures.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 200))]
        x_label: Option<String>,
        /// What the y axis measures.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(length(max = 200))]
        y_label: Option<String>,
    },
    /// A mermaid diagram: flowchart/graph and sequenceDiagram are drawn; other kinds are shown as source.
    Mermaid {
        /// The mermaid source.
        #[schemars(length(min = 1, max = 50000))]
        text: String,
    },
    /// Source code, highlighted when its language has a highlighter.
    Code {
        /// The language (rust, python, typescript, go, java, c, cpp, …).
        #[schemars(length(min = 1, max = 50))]
        language: String,
        /// The code.
        #[schemars(length(max = 200000))]
        text: String,
    },
    /// Any JSON value, shown pretty-printed.
    Json {
        /// The value.
        value: serde_json::Value,
    },
}

/// A table cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Cell {
    Text(String),
    Number(f64),
    Bool(bool),
    Empty(()),
}

impl Cell {
    fn text(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Number(n) => number(*n),
            Cell::Bool(b) => b.to_string(),
            Cell::Empty(()) => String::new(),
        }
    }
}

/// A number as people write it: integers without a fraction.
pub(crate) fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        let s = format!("{n:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChartKind {
    Bar,
    Line,
    Scatter,
}

/// One series of a chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Series {
    /// Its name, in the legend.
    #[schemars(length(min = 1, max = 200))]
    pub name: String,
    /// Its points, [x, y] each.
    #[schemars(length(min = 1, max = 5000))]
    pub points: Vec<[f64; 2]>,
}

/// What the blocks' schema cannot say, each problem with its JSON pointer under `at`
/// (`/blocks`) and what is wrong: a table row of the wrong length, two series of one name, a
/// bar chart with two bars at one x, a mermaid flowchart or sequence diagram that does not parse.
pub fn validate(blocks: &[Block], at: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let here = format!("{at}/{i}");
        match b {
            Block::Table { columns, rows } => {
                for (r, row) in rows.iter().enumerate() {
                    if row.len() != columns.len() {
                        out.push((
                            format!("{here}/rows/{r}"),
                            format!(
                                "the row has {} cell{}; the table has {} column{} ({})",
                                row.len(),
                                if row.len() == 1 { "" } else { "s" },
                                columns.len(),
                                if columns.len() == 1 { "" } else { "s" },
                                columns.join(", ")
                            ),
                        ));
                    }
                }
            }
            Block::Chart { kind, series, .. } => {
                let mut names = std::collections::HashMap::new();
                for (s, ser) in series.iter().enumerate() {
                    if let Some(first) = names.insert(ser.name.as_str(), s) {
                        out.push((
                            format!("{here}/series/{s}/name"),
                            format!("'{}' is already the name of series {first}; series names are unique", ser.name),
                        ));
                    }
                    if *kind == ChartKind::Bar {
                        let mut xs = std::collections::HashMap::new();
                        for (k, p) in ser.points.iter().enumerate() {
                            if let Some(first) = xs.insert(p[0].to_bits(), k) {
                                out.push((
                                    format!("{here}/series/{s}/points/{k}"),
                                    format!(
                                        "x = {} is already point {first} of this series; a bar chart has one bar per series at each x",
                                        number(p[0])
                                    ),
                                ));
                            }
                        }
                    }
                }
            }
            Block::Mermaid { text } => {
                if let Err(e) = mermaid::parse(text) {
                    out.push((format!("{here}/text"), e.to_string()));
                }
            }
            Block::Markdown { .. } | Block::Code { .. } | Block::Json { .. } => {}
        }
    }
    out
}

/// Escapes text for HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    escape_into(&mut out, s);
    out
}

pub(crate) fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// One block as HTML.
pub fn render_block(b: &Block, out: &mut String) {
    match b {
        Block::Markdown { text } => {
            out.push_str("<section class=\"block markdown\">");
            out.push_str(&markdown::render(text));
            out.push_str("</section>\n");
        }
        Block::Table { columns, rows } => {
            out.push_str("<section class=\"block table\"><table><thead><tr>");
            for c in columns {
                out.push_str("<th>");
                escape_into(out, c);
                out.push_str("</th>");
            }
            out.push_str("</tr></thead><tbody>");
            for row in rows {
                out.push_str("<tr>");
                for c in row {
                    out.push_str(if matches!(c, Cell::Number(_)) { "<td class=\"num\">" } else { "<td>" });
                    escape_into(out, &c.text());
                    out.push_str("</td>");
                }
                out.push_str("</tr>");
            }
            out.push_str("</tbody></table></section>\n");
        }
        Block::Chart { kind, series, x_label, y_label } => {
            out.push_str("<figure class=\"block chart\">");
            chart::render(*kind, series, x_label.as_deref(), y_label.as_deref(), out);
            out.push_str("</figure>\n");
        }
        Block::Mermaid { text } => {
            out.push_str("<figure class=\"block mermaid\">");
            mermaid::render(text, out);
            out.push_str("</figure>\n");
        }
        Block::Code { language, text } => {
            out.push_str("<figure class=\"block code\"><figcaption>");
            escape_into(out, language);
            out.push_str("</figcaption>");
            highlight::render(language, text, out);
            out.push_str("</figure>\n");
        }
        Block::Json { value } => {
            out.push_str("<section class=\"block json\"><pre class=\"json\"><code>");
            escape_into(out, &serde_json::to_string_pretty(value).unwrap_or_default());
            out.push_str("</code></pre></section>\n");
        }
    }
}

/// The whole page: title, which revision, the blocks in order, the page's own style.
pub fn render_page(title: &str, revision: i64, updated_at: i64, blocks: &[Block]) -> String {
    let mut out = String::with_capacity(16 * 1024);
    out.push_str("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>");
    escape_into(&mut out, title);
    out.push_str("</title><style>");
    out.push_str(STYLE);
    out.push_str(highlight::STYLE);
    out.push_str("</style></head>\n<body><header><h1>");
    escape_into(&mut out, title);
    out.push_str("</h1><p class=\"meta\">Revision ");
    out.push_str(&revision.to_string());
    out.push_str(" · updated ");
    out.push_str(
        &humantime::format_rfc3339_seconds(
            std::time::UNIX_EPOCH + std::time::Duration::from_secs(updated_at.max(0) as u64),
        )
        .to_string(),
    );
    out.push_str("</p></header>\n<main>\n");
    for b in blocks {
        render_block(b, &mut out);
    }
    out.push_str("</main></body></html>\n");
    out
}

const STYLE: &str = r#"
:root{color-scheme:light;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg2:#f6f8fa}
body{font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);margin:0 auto;max-width:960px;padding:24px}
header h1{margin:0 0 4px;font-size:28px}
.meta{color:var(--muted);margin:0 0 20px;font-size:13px}
.block{margin:0 0 24px}
figure{margin:0 0 24px}
figcaption{font-size:12px;color:var(--muted);margin-bottom:4px}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{border:1px solid var(--line);padding:6px 10px;text-align:left;vertical-align:top}
th{background:var(--bg2)}
td.num{text-align:right;font-variant-numeric:tabular-nums}
pre{background:var(--bg2);border:1px solid var(--line);border-radius:6px;padding:12px;overflow:auto;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.note{color:var(--muted);font-size:13px;margin:4px 0}
svg{max-width:100%;height:auto;background:#fff}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.markdown img{max-width:100%}
"#;
