//! decide_approval: a step of a board approval's state machine.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, approval_of};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::board::{BoardEvent, Decision};
use crate::store::BoardApproval;

pub const DECL: Decl = Decl {
    name: "decide_approval",
    title: "Decide a board approval",
    description: "Record a decision on a board approval: approve, reject or request_revision (a pending one; reject also one waiting for its revision) — never on one's own request — or resubmit (the requester, after a revision was requested). Any other step is refused, saying which steps the approval's status allows.",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecideApprovalArgs {
    /// The board item to decide (from create_approval or list_approvals).
    #[schemars(length(min = 1, max = 100))]
    pub approval_id: String,
    pub decision: Decision,
    /// Why (kept with the decision).
    #[schemars(length(min = 1, max = 10000))]
    pub note: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct DecideApprovalOut {
    pub approval: BoardApproval,
    pub events: Vec<BoardEvent>,
}

pub async fn decide_approval(ctx: Ctx<String>, a: DecideApprovalArgs) -> Result<DecideApprovalOut, ToolError> {
    let ap = approval_of(&ctx, &a.approval_id, "/approval_id").await?;
    let board = ctx.services.store.board();
    let approval = board
        .decide(&ap.id, a.decision, &actor(&ctx), a.note.as_deref())
        .await
        .map_err(|e| ToolError::from(e).at("/decision"))?;
    let events = board.events(&ap.id).await?;
    Ok(DecideApprovalOut { approval, events })
}
