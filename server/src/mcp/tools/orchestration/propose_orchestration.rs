//! propose_orchestration: a multi-agent plan, checked, onto the board.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::governance::actor;
use crate::pipelines::orchestration::{check, Violation};
use crate::store::orchestration::Plan;

pub const DECL: Decl = Decl {
    name: "propose_orchestration",
    title: "Propose an orchestration plan",
    description: "Publish a structured multi-agent orchestration plan for up-front approval; validates it and returns any violations. `plan`: agents (the workspace's, by name), tasks [{id, title, agent, skills, depends_on, budget, autonomy}], budget (the envelope). Every violation is returned, each with a code (unknown_agent, missing_skill, dependency_cycle, unknown_dependency, duplicate_task, budget_exceeded, autonomy_exceeded), a JSON pointer and a message; a clean plan goes to the board (approval_id, violations []). Nothing is hired, decomposed or completed in the call: once the board approves, the plan becomes a parent ticket and one ticket per task, assigned, blocked_by its dependencies.",
    set: ToolSet::Orchestration,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Orchestrate]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeOrchestrationArgs {
    /// The plan: agents, tasks (with their dependencies, budgets and autonomy), the envelope.
    pub plan: Plan,
}

#[derive(Serialize, JsonSchema)]
pub struct ProposeOrchestrationOut {
    /// Every violation (empty: the plan is on the board).
    pub violations: Vec<Violation>,
    /// The board approval that waits for a decision (decide_approval, cc-server board).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// The stored plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_id: Option<String>,
    /// pending_approval (on the board) or invalid (violations: nothing was stored).
    pub status: String,
}

pub async fn propose_orchestration(
    ctx: Ctx<String>,
    a: ProposeOrchestrationArgs,
) -> Result<ProposeOrchestrationOut, ToolError> {
    let store = &ctx.services.store;
    let agents = store.agents().list(&ctx.workspace).await?;
    let violations = check(&a.plan, &ctx.workspace, &agents);
    if !violations.is_empty() {
        return Ok(ProposeOrchestrationOut { violations, approval_id: None, plan_id: None, status: "invalid".into() });
    }
    let kind = if ctx.principal.agent.is_some() { "agent" } else { "principal" };
    let (approval, plan) =
        store.orchestration().propose(&ctx.workspace, &a.plan, &actor(&ctx), kind, Some(&ctx.conversation.id)).await?;
    Ok(ProposeOrchestrationOut {
        violations,
        approval_id: Some(approval.id),
        plan_id: Some(plan.id),
        status: "pending_approval".into(),
    })
}
