//! Discovery tools: search_tool_bm25 (BM25 over tool names, descriptions, argument
//! names and argument descriptions) and list_my_tools. Both answer from the tools this
//! conversation is served, and say whether each is callable now, from the same
//! `policy::gate` the dispatcher enforces.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::mcp::dispatch::CallCtx;
use crate::mcp::policy::{self, Gate, Mode};
use crate::mcp::registry::{Registry, Scope, Spec, ToolDef};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchToolsArgs {
    /// Keywords: what you want to do, in your words.
    #[schemars(length(min = 1, max = 1000))]
    pub query: String,
    /// At most this many tools (default 5).
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListToolsArgs {}

#[derive(Serialize, JsonSchema)]
pub struct ToolHit {
    pub name: String,
    pub description: String,
    pub score: f32,
    /// Whether this conversation may call it now.
    pub callable: bool,
    /// Why not, when it may not (or what it needs first: an approval, a workspace_id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// It asks for an approval before it runs.
    pub needs_approval: bool,
    /// Its input schema, so it can be called next.
    pub input_schema: Map<String, Value>,
}

#[derive(Serialize, JsonSchema)]
pub struct SearchToolsOut {
    /// The conversation's mode, which decides what is callable.
    pub mode: Mode,
    pub tools: Vec<ToolHit>,
}

#[derive(Serialize, JsonSchema)]
pub struct MyTool {
    pub name: String,
    pub description: String,
    pub toolsets: Vec<String>,
    /// required / optional / global
    pub workspace_scope: String,
    /// It asks for an approval before it runs (why, when it does).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub needs_approval: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct MyToolsOut {
    /// The conversation's mode, which decides what is callable.
    pub mode: Mode,
    pub tools: Vec<MyTool>,
    /// How many served tools the mode blocks (search_tool_bm25 says why for each).
    pub blocked: usize,
}

/// The words BM25 indexes for a tool: its name, description, argument names and
/// argument descriptions.
fn tool_text(t: &ToolDef) -> String {
    let mut s = format!("{} {} {}", t.name, t.title, t.description);
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
fn bm25<'a>(tools: &[&'a ToolDef], query: &str) -> Vec<(&'a ToolDef, f32)> {
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
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.name.cmp(b.0.name)));
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
fn callability(ctx: &CallCtx, t: &ToolDef) -> (bool, bool, Option<String>) {
    match policy::gate(ctx.conversation.mode(), t) {
        Gate::Blocked { reason, .. } => (false, false, Some(reason)),
        Gate::NeedsApproval { why } => (true, true, Some(format!("{why}: the call asks for an approval first"))),
        Gate::Allowed if t.scope == Scope::Required && ctx.workspace.is_none() => {
            (true, false, Some("needs workspace_id (see list_workspaces)".into()))
        }
        Gate::Allowed => (true, false, None),
    }
}

pub fn register(r: &mut Registry) {
    r.add(
        Spec {
            name: "search_tool_bm25",
            title: "Search tools",
            description: "Search the tool catalog by keyword (BM25 over tool names, descriptions, argument names and argument descriptions); returns the matching tools with their input schemas and whether each is callable right now.",
            scope: Scope::Optional,
            action_classes: &[],
            read_only: true,
        },
        |ctx: CallCtx, a: SearchToolsArgs| async move {
            let app = ctx.app.clone();
            let served: Vec<&ToolDef> = app.dispatcher.served(&ctx.surface).collect();
            let hits = bm25(&served, &a.query);
            let tools = hits
                .into_iter()
                .take(a.limit.unwrap_or(5) as usize)
                .map(|(t, score)| {
                    let (callable, needs_approval, reason) = callability(&ctx, t);
                    ToolHit {
                        name: t.name.to_string(),
                        description: t.description.to_string(),
                        score,
                        callable,
                        reason,
                        needs_approval,
                        input_schema: t.input_schema.clone(),
                    }
                })
                .collect();
            Ok(SearchToolsOut { mode: ctx.conversation.mode(), tools })
        },
    );
    r.add(
        Spec {
            name: "list_my_tools",
            title: "List my tools",
            description:
                "List the tools callable in this conversation (filtered by its mode and the server's tool sets).",
            scope: Scope::Optional,
            action_classes: &[],
            read_only: true,
        },
        |ctx: CallCtx, _: ListToolsArgs| async move {
            let app = ctx.app.clone();
            let mut blocked = 0;
            let mut tools = Vec::new();
            for t in app.dispatcher.served(&ctx.surface) {
                let (callable, needs_approval, reason) = callability(&ctx, t);
                if !callable {
                    blocked += 1;
                    continue;
                }
                tools.push(MyTool {
                    name: t.name.to_string(),
                    description: t.description.to_string(),
                    toolsets: t.toolsets.iter().map(|s| s.to_string()).collect(),
                    workspace_scope: serde_json::to_value(t.scope)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    needs_approval: if needs_approval { reason } else { None },
                });
            }
            Ok(MyToolsOut { mode: ctx.conversation.mode(), tools, blocked })
        },
    );
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
