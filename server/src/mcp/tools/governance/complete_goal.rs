//! complete_goal: the conversation's active goal (started with the goal or loop prompt)
//! declared met, with the caller's evidence.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::conversation::goal_key;
use crate::store::Goal;

pub const DECL: Decl = Decl {
    name: "complete_goal",
    title: "Complete the conversation's goal",
    description: "Declare that this conversation's active persistent goal — started with the goal or loop prompt (/goal, /loop) — has been met, with your evidence (what shows it: tests passing, links, output). The goal is marked met (progress 100) and the loop, if any, ends. With no active goal it is an error saying how to start one.",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompleteGoalArgs {
    /// What shows the goal is met (markdown).
    #[schemars(length(min = 1, max = 100000))]
    pub evidence: String,
}

pub async fn complete_goal(ctx: Ctx<String>, a: CompleteGoalArgs) -> Result<Goal, ToolError> {
    if a.evidence.trim().is_empty() {
        return Err(ToolError::invalid("/evidence", "/evidence: say what shows the goal is met"));
    }
    let key = goal_key(&ctx.principal, &ctx.conversation).map_err(|m| ToolError::new(ErrorKind::Mode, m))?;
    let goals = ctx.services.store.goals();
    let Some(g) = goals.active(&ctx.workspace, &key).await? else {
        return Err(ToolError::new(
            ErrorKind::NotFound,
            format!(
                "this conversation has no active goal in workspace '{}': start one with the goal or loop prompt \
                 (prompts/get goal or loop; clients show them as /goal and /loop)",
                ctx.workspace
            ),
        ));
    };
    Ok(goals.complete(&ctx.workspace, &g.id, a.evidence.trim()).await?)
}
