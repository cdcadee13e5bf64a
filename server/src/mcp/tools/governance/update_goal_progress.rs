//! update_goal_progress: the progress of a goal without children.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{Goal, StoreError};

pub const DECL: Decl = Decl {
    name: "update_goal_progress",
    title: "Update a goal's progress",
    description: "Set the progress (0..100) of a goal without children. A parent's progress is computed from its children's (their mean), so setting it is an error.",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateGoalProgressArgs {
    /// The goal (from create_goal or list_goals).
    #[schemars(length(min = 1, max = 100))]
    pub goal_id: String,
    /// Percent done, 0 to 100.
    #[schemars(range(min = 0, max = 100))]
    pub progress: u8,
}

pub async fn update_goal_progress(ctx: Ctx<String>, a: UpdateGoalProgressArgs) -> Result<Goal, ToolError> {
    ctx.services.store.goals().set_progress(&ctx.workspace, &a.goal_id, a.progress as i64).await.map_err(|e| match e {
        StoreError::NotFound { .. } => ToolError::not_found(
            "/goal_id",
            format!("/goal_id: no goal '{}' in workspace '{}'; list_goals lists them", a.goal_id, ctx.workspace),
        ),
        StoreError::Conflict(m) => ToolError::invalid("/progress", format!("/progress: {m}")),
        e => e.into(),
    })
}
