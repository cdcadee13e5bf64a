//! Discovery tools: search_tool_bm25 (BM25 over tool names, descriptions, argument
//! names and argument descriptions) and list_my_tools. Both answer from the tools this
//! conversation is served, and say whether each is callable now, from the same
//! `policy::gate` the dispatcher enforces.

mod list_my_tools;
mod search_tool_bm25;

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

/// BM25 over the served tools' names, descriptions, argument names and descriptions.
pub(crate) fn bm25<'a>(tools: &[&'a ToolDef], query: &str) -> Vec<(&'a ToolDef, f32)> {
    let docs: Vec<Vec<String>> = tools.iter().map(|t| crate::rank::words(&tool_text(t))).collect();
    let mut out: Vec<(&ToolDef, f32)> =
        crate::rank::bm25(&docs, &crate::rank::query_terms(query)).into_iter().map(|(i, s)| (tools[i], s)).collect();
    // Ties by name (the catalog's order is by name already).
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.decl.name.cmp(b.0.decl.name)));
    out
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
