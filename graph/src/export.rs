//! Every edge of a graph, written out for other tools: JSON lines, CSV or Graphviz DOT.
//!
//! JSON lines and CSV carry one row per (edge, call site) with both ends' ids (the 16 hex
//! digits the commands accept; empty for an external name) and names (qualified names,
//! `<path>` for a file's top level, the name as written for an external one), the kind,
//! its family (`call`, `reference`, `implicit`, `inherited`), the confidence (3 decimals),
//! the resolution rung that found it (its provenance), whether it is only possible at that
//! site (one candidate of a call with several), and the site (path, line, column). DOT has one edge per
//! (caller, callee, kind), possible ones dashed.

use std::io::{self, Write};

use cc_indexer::SymbolId;
use rustc_hash::FxHashSet as HashSet;

use crate::graph::{CallGraph, EdgeData, NodeRef, Site};
use crate::resolve::EdgeKind;

/// The formats [`CallGraph::export`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    Jsonl,
    Csv,
    Dot,
}

impl ExportFormat {
    pub fn parse(s: &str) -> Option<ExportFormat> {
        match s {
            "jsonl" => Some(ExportFormat::Jsonl),
            "csv" => Some(ExportFormat::Csv),
            "dot" => Some(ExportFormat::Dot),
            _ => None,
        }
    }
}

/// The CSV columns, in order.
const COLUMNS: [&str; 13] = [
    "from",
    "from_name",
    "to",
    "to_name",
    "kind",
    "family",
    "confidence",
    "rung",
    "possible",
    "path",
    "line",
    "column",
    "external",
];

/// A confidence as shown: 3 decimals, no float noise (`0.95`, not `0.949999988079071`).
pub fn rounded(c: f32) -> f64 {
    (c as f64 * 1000.0).round() / 1000.0
}

impl CallGraph {
    /// Writes every edge of the graph to `w` in `format`, sorted by the names of its ends.
    pub fn export(&self, w: &mut dyn Write, format: ExportFormat) -> io::Result<()> {
        struct Row {
            from: (String, String),
            to: (String, String),
            target: Option<SymbolId>,
            external: bool,
            data: EdgeData,
        }
        let mut rows: Vec<Row> = self
            .edges()
            .into_iter()
            .map(|(a, b, data)| Row {
                from: self.node_id_and_name(&a),
                to: self.node_id_and_name(&b),
                target: match b {
                    NodeRef::Symbol(id) => Some(id),
                    _ => None,
                },
                external: matches!(b, NodeRef::External(_)),
                data,
            })
            .collect();
        // An edge that is a fact somewhere may be only a guess at one of its sites (`x.run()`
        // where `x` is one of several classes' objects, in a caller that calls `Command.run`
        // surely elsewhere): such a site's row says possible.
        let mut guessed: HashSet<(&str, u32, u32, SymbolId, EdgeKind)> = HashSet::default();
        let mut sure: HashSet<(&str, u32, u32, SymbolId, EdgeKind)> = HashSet::default();
        for (path, e) in self.file_entries() {
            for r in &e.refs {
                for t in &r.resolution.targets {
                    let key = (&**path, r.line, r.column, t.id, t.kind);
                    if t.possible {
                        guessed.insert(key);
                    } else {
                        sure.insert(key);
                    }
                }
            }
        }
        let possible_at = |r: &Row, s: &Site| {
            r.data.ambiguous
                || r.target.is_some_and(|id| {
                    let key = (&*s.path, s.line, s.column, id, r.data.kind);
                    guessed.contains(&key) && !sure.contains(&key)
                })
        };
        rows.sort_by(|a, b| (&a.from.1, &a.to.1, a.data.kind).cmp(&(&b.from.1, &b.to.1, b.data.kind)));
        if format == ExportFormat::Csv {
            let mut c = csv::Writer::from_writer(w);
            c.write_record(COLUMNS)?;
            for r in &rows {
                let d = &r.data;
                for s in &d.sites {
                    c.write_record([
                        r.from.0.as_str(),
                        &r.from.1,
                        &r.to.0,
                        &r.to.1,
                        d.kind.as_str(),
                        d.kind.family(),
                        &rounded(d.confidence).to_string(),
                        d.rung.as_str(),
                        if possible_at(r, s) { "true" } else { "false" },
                        &s.path,
                        &s.line.to_string(),
                        &s.column.to_string(),
                        if r.external { "true" } else { "false" },
                    ])?;
                }
            }
            return c.flush();
        }
        let mut out = io::BufWriter::new(w);
        if format == ExportFormat::Jsonl {
            for r in &rows {
                let d = &r.data;
                for s in &d.sites {
                    let row = serde_json::json!({
                        "from": r.from.0, "from_name": r.from.1, "to": r.to.0, "to_name": r.to.1,
                        "kind": d.kind.as_str(), "family": d.kind.family(),
                        "confidence": rounded(d.confidence), "rung": d.rung.as_str(),
                        "possible": possible_at(r, s), "path": &*s.path, "line": s.line, "column": s.column,
                        "external": r.external,
                    });
                    serde_json::to_writer(&mut out, &row)?;
                    out.write_all(b"\n")?;
                }
            }
            return out.flush();
        }
        writeln!(out, "digraph calls {{")?;
        let key = |(id, name): &(String, String)| if id.is_empty() { format!("external:{name}") } else { id.clone() };
        let mut nodes: Vec<(&str, String)> =
            rows.iter().flat_map(|r| [(r.from.1.as_str(), key(&r.from)), (r.to.1.as_str(), key(&r.to))]).collect();
        nodes.sort();
        nodes.dedup();
        for (label, id) in &nodes {
            writeln!(out, "  {} [label={}];", dot_quote(id), dot_quote(label))?;
        }
        for r in &rows {
            let style = if r.data.ambiguous { ", style=dashed" } else { "" };
            let (a, b) = (key(&r.from), key(&r.to));
            writeln!(
                out,
                "  {} -> {} [label={}{style}];",
                dot_quote(&a),
                dot_quote(&b),
                dot_quote(r.data.kind.as_str())
            )?;
        }
        writeln!(out, "}}")?;
        out.flush()
    }
}

fn dot_quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}
