//! create_goal: an organizational goal at one of four levels.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::tickets::caller;
use crate::store::{Goal, GoalLevel, NewGoal, StoreError};

pub const DECL: Decl = Decl {
    name: "create_goal",
    title: "Create a goal",
    description: "Create an organizational goal at company, team, agent or task level, optionally under a parent goal (parent_goal_id; at the goal's level or above), with an owner and a target (what meeting it means). A parent's progress is computed from its children's.",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateGoalArgs {
    /// Where the goal sits: company, team, agent or task.
    pub level: GoalLevel,
    /// The goal, in one line.
    #[schemars(length(min = 1, max = 500))]
    pub title: String,
    /// The goal it serves.
    #[schemars(length(min = 1, max = 100))]
    pub parent_goal_id: Option<String>,
    /// Who owns it (an agent's or a team's name).
    #[schemars(length(min = 1, max = 100))]
    pub owner: Option<String>,
    /// What meeting it means (a measure, a date).
    #[schemars(length(min = 1, max = 2000))]
    pub target: Option<String>,
}

pub async fn create_goal(ctx: Ctx<String>, a: CreateGoalArgs) -> Result<Goal, ToolError> {
    let g = NewGoal {
        level: a.level,
        parent_id: a.parent_goal_id,
        owner: a.owner,
        title: a.title,
        target: a.target,
        created_by: caller(&ctx).0,
        conversation: None,
    };
    ctx.services.store.goals().create(&ctx.workspace, g).await.map_err(|e| match e {
        StoreError::NotFound { .. } => ToolError::not_found(
            "/parent_goal_id",
            format!("/parent_goal_id: {e}; list_goals lists the workspace's goals"),
        ),
        StoreError::Invalid(m) => ToolError::invalid("/level", format!("/level: {m}")),
        e => e.into(),
    })
}
