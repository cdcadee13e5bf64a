//! create_approval: open a board approval for a governed action.

use schemars::JsonSchema;
use serde::Deserialize;

use super::actor;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{BoardApproval, BoardKind};

pub const DECL: Decl = Decl {
    name: "create_approval",
    title: "Open a board approval",
    description: "Open a board approval for a governed action (kind: plan_exit, merge, publish, hire, custom) with a title and an optional JSON payload (what is to be approved). It starts pending; someone other than the requester decides it with decide_approval.",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateApprovalArgs {
    /// What is to be decided: plan_exit, merge, publish, hire or custom.
    pub kind: BoardKind,
    /// One line the operator sees on the board.
    #[schemars(length(min = 1, max = 500))]
    pub title: String,
    /// What is to be approved (any JSON: a plan, a PR, a candidate).
    pub payload: Option<serde_json::Value>,
}

pub async fn create_approval(ctx: Ctx<String>, a: CreateApprovalArgs) -> Result<BoardApproval, ToolError> {
    let payload = a.payload.unwrap_or(serde_json::Value::Null);
    let by = actor(&ctx);
    Ok(ctx
        .services
        .store
        .board()
        .create(&ctx.workspace, a.kind, &a.title, &payload, &by, Some(&ctx.conversation.id))
        .await?)
}
