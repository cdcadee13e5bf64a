//! list_my_tools: the tools callable in this conversation now.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::callability;
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "list_my_tools",
    title: "List my tools",
    description: "List the tools callable in this conversation (filtered by its mode and the server's tool sets).",
    set: ToolSet::Discovery,
    scope: Scope::Optional,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListToolsArgs {}

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

pub async fn list_my_tools(ctx: Ctx<Option<String>>, _: ListToolsArgs) -> Result<MyToolsOut, ToolError> {
    let catalog = ctx.call.catalog.clone();
    let mut blocked = 0;
    let mut tools = Vec::new();
    for t in ctx.surface.served(&catalog) {
        let (callable, needs_approval, reason) = callability(&ctx, t);
        if !callable {
            blocked += 1;
            continue;
        }
        tools.push(MyTool {
            name: t.decl.name.to_string(),
            description: t.decl.description.to_string(),
            toolsets: vec![t.decl.set.as_str().to_string()],
            workspace_scope: t.decl.scope.as_str().to_string(),
            needs_approval: if needs_approval { reason } else { None },
        });
    }
    Ok(MyToolsOut { mode: ctx.conversation.mode(), tools, blocked })
}
