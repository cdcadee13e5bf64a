//! list_goals: the workspace's goals with their rolled-up progress.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{Goal, GoalLevel, GoalStatus};

pub const DECL: Decl = Decl {
    name: "list_goals",
    title: "List goals",
    description: "List the workspace's goals, oldest first, with level, status and progress: a goal without children has the progress set on it (100 once met); a parent has the mean of its children's, rounded down (computed: true). Optionally only one level or status.",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Orchestrate]),
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListGoalsArgs {
    /// Only goals of this level.
    pub level: Option<GoalLevel>,
    /// Only goals in this state.
    pub status: Option<GoalStatus>,
}

#[derive(Serialize, JsonSchema)]
pub struct ListGoalsOut {
    pub goals: Vec<Goal>,
}

pub async fn list_goals(ctx: Ctx<String>, a: ListGoalsArgs) -> Result<ListGoalsOut, ToolError> {
    let mut goals = ctx.services.store.goals().list(&ctx.workspace).await?;
    goals.retain(|g| a.level.is_none_or(|l| g.level == l) && a.status.is_none_or(|s| g.status == s));
    Ok(ListGoalsOut { goals })
}
