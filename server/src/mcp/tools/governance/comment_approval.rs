//! comment_approval: a comment on a board approval.

use schemars::JsonSchema;
use serde::Deserialize;

use super::decide_approval::DecideApprovalOut;
use super::{actor, approval_of};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "comment_approval",
    title: "Comment on a board approval",
    description:
        "Comment on a board approval (in any status); answers the approval with its steps and comments in order.",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentApprovalArgs {
    /// The board item to comment on (from create_approval or list_approvals).
    #[schemars(length(min = 1, max = 100))]
    pub approval_id: String,
    /// The comment, markdown.
    #[schemars(length(min = 1, max = 10000))]
    pub text: String,
}

pub async fn comment_approval(ctx: Ctx<String>, a: CommentApprovalArgs) -> Result<DecideApprovalOut, ToolError> {
    let ap = approval_of(&ctx, &a.approval_id, "/approval_id").await?;
    let board = ctx.services.store.board();
    board.comment(&ap.id, &actor(&ctx), &a.text).await?;
    Ok(DecideApprovalOut { approval: ap, events: board.events(&a.approval_id).await? })
}
