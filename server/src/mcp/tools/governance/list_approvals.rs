//! list_approvals: the workspace's board approvals, newest first.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{BoardApproval, BoardStatus};

pub const DECL: Decl = Decl {
    name: "list_approvals",
    title: "List board approvals",
    description: "List the workspace's board approvals, newest first, optionally only those in one status (pending, approved, rejected, revision_requested); at most `limit` (default 50, up to 200).",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListApprovalsArgs {
    /// Only items in this state (default: every state).
    pub status: Option<BoardStatus>,
    /// At most this many items, newest first (default 50).
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
pub struct ListApprovalsOut {
    pub approvals: Vec<BoardApproval>,
}

pub async fn list_approvals(ctx: Ctx<String>, a: ListApprovalsArgs) -> Result<ListApprovalsOut, ToolError> {
    let approvals = ctx.services.store.board().list(&ctx.workspace, a.status, a.limit.unwrap_or(50)).await?;
    Ok(ListApprovalsOut { approvals })
}
