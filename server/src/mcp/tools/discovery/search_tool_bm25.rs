//! search_tool_bm25: the tool catalog searched by keyword.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{bm25, callability};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolDef, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "search_tool_bm25",
    title: "Search tools",
    description: "Search the tool catalog by keyword (BM25 over tool names, descriptions, argument names and argument descriptions); returns the matching tools with their input schemas and whether each is callable right now.",
    set: ToolSet::Discovery,
    scope: Scope::Optional,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

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

pub async fn search_tool_bm25(ctx: Ctx<Option<String>>, a: SearchToolsArgs) -> Result<SearchToolsOut, ToolError> {
    let catalog = ctx.call.catalog.clone();
    let served: Vec<&ToolDef> = ctx.surface.served(&catalog).collect();
    let hits = bm25(&served, &a.query);
    let tools = hits
        .into_iter()
        .take(a.limit.unwrap_or(5) as usize)
        .map(|(t, score)| {
            let (callable, needs_approval, reason) = callability(&ctx, t);
            ToolHit {
                name: t.decl.name.to_string(),
                description: t.decl.description.to_string(),
                score,
                callable,
                reason,
                needs_approval,
                input_schema: t.input_schema.clone(),
            }
        })
        .collect();
    Ok(SearchToolsOut { mode: ctx.conversation.mode(), tools })
}
