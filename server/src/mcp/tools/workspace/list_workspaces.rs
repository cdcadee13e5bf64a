//! list_workspaces: the workspaces the caller may see.

use schemars::JsonSchema;
use serde::Serialize;

use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};
use crate::store::Workspace;

pub const DECL: Decl = Decl {
    name: "list_workspaces",
    title: "List workspaces",
    description: "List all workspaces with their IDs and names (global; takes no workspace_id). With tokens configured, the workspaces the caller's token may see.",
    set: ToolSet::Workspace,
    scope: Scope::Global,
    classes: &[],
    approval: false,
    // A read-only context fetch every mode needs.
    modes: Modes::In(&[Mode::Plan, Mode::Review, Mode::Orchestrate]),
    hints: Hints::READ,
};

#[derive(Serialize, JsonSchema)]
pub struct WorkspacesOut {
    pub workspaces: Vec<Workspace>,
}

pub async fn list_workspaces(ctx: Ctx<()>, _: NoArgs) -> Result<WorkspacesOut, ToolError> {
    let all = ctx.services.store.workspaces().list().await?;
    Ok(WorkspacesOut { workspaces: all.into_iter().filter(|w| ctx.principal.sees(&w.id)).collect() })
}
