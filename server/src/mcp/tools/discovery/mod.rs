//! Discovery tools: search_tool_bm25 (BM25 over tool names, descriptions, argument
//! names and argument descriptions) and list_my_tools. Both answer from the tools this
//! conversation is served, and say whether each is callable now, from the same
//! `policy::gate` the dispatcher enforces.

mod list_my_tools;
mod search_tool_bm25;

use std::collections::HashMap;

use serde_json::Value;

use crate::mcp::policy::{self, Gate};
use crate::mcp::tool::{Ctx, Registry, Scope, ToolDef};

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(search_tool_bm25::DECL, search_tool_bm25::search_tool_bm25);
    r.add(list_my_tools::DECL, list_my_tools::list_my_tools);
}

/// The words BM25 indexes for a tool: its name, description, argument names and
/// argument descriptions.
fn tool_text(t: &ToolDef) -> String {
    let d = &t.decl;
    let mut s = format!("{} {} {}", d.name, d.title, d.description);
    if let Some(Value::Object(props)) = t.input_schema.get("properties") {
        for (name, p) in props {
            s.push(' ');
            s.push_str(name);
            if let Some(Value::String(d)) = p.get("description") {
                s.push(' ');
                s.push_str(d);
            }
        }
    }
    s
}

/// Okapi BM25 (k1 = 1.2, b = 0.75) over the served tools.
pub(crate) fn bm25<'a>(tools: &[&'a ToolDef], query: &str) -> Vec<(&'a ToolDef, f32)> {
    let docs: Vec<Vec<String>> = tools
        .iter()
        .map(|t| {
            let mut v = Vec::new();
            cc_indexer::tokenize::tokens(&tool_text(t), |_, _, tok| v.push(stem(&tok)));
            v
        })
        .collect();
    let n = docs.len() as f32;
    let avg = docs.iter().map(Vec::len).sum::<usize>() as f32 / n.max(1.0);
    let mut df: HashMap<&str, f32> = HashMap::new();
    for d in &docs {
        let mut seen: Vec<&str> = d.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for w in seen {
            *df.entry(w).or_default() += 1.0;
        }
    }
    let terms: Vec<String> = cc_indexer::tokenize::query_terms(query).iter().map(|t| stem(t)).collect();
    let mut out: Vec<(&ToolDef, f32)> = tools
        .iter()
        .zip(&docs)
        .map(|(t, d)| {
            let len = d.len() as f32;
            let score = terms
                .iter()
                .map(|q| {
                    let tf = d.iter().filter(|w| *w == q).count() as f32;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let df = df.get(q.as_str()).copied().unwrap_or(0.0);
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / avg.max(1.0)))
                })
                .sum();
            (*t, score)
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.decl.name.cmp(b.0.decl.name)));
    out
}

/// A light plural/verb-form fold, so `callers` matches `caller` and `searching` `search`.
fn stem(w: &str) -> String {
    for suf in ["ing", "ers", "es", "er", "s"] {
        if w.len() > suf.len() + 3 {
            if let Some(s) = w.strip_suffix(suf) {
                return s.to_string();
            }
        }
    }
    w.to_string()
}

/// Whether `tool` can be called in this conversation now (the dispatcher's gate), and
/// why not or what it needs first.
pub(crate) fn callability(ctx: &Ctx<Option<String>>, t: &ToolDef) -> (bool, bool, Option<String>) {
    match policy::gate(ctx.conversation.mode(), t) {
        Gate::Blocked { reason, .. } => (false, false, Some(reason)),
        Gate::NeedsApproval { why } => (true, true, Some(format!("{why}: the call asks for an approval first"))),
        Gate::Allowed if t.decl.scope == Scope::Required && ctx.workspace.is_none() => {
            (true, false, Some("needs workspace_id (see list_workspaces)".into()))
        }
        Gate::Allowed => (true, false, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        assert_eq!(stem("callers"), "call");
        assert_eq!(stem("searching"), "search");
        assert_eq!(stem("code"), "code");
    }
}
