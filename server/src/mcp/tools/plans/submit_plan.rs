//! submit_plan: plan mode's output contract — a typed PlanDocument, checked, kept as the
//! conversation's plan (a new version on each submission).

use schemars::JsonSchema;
use serde::Deserialize;

use super::{plan_rules, problems_error, PlanDocument, PlanOut};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::conversation::goal_key;
use crate::mcp::tools::tickets::caller;

pub const DECL: Decl = Decl {
    name: "submit_plan",
    title: "Submit the plan",
    description: "Plan mode's output contract: publish this conversation's plan as a typed PlanDocument — title, summary, steps (each with an id unique in the plan, a title, details, owners and depends_on naming other steps' ids; no dependency cycle), risks and acceptance_criteria. Submitting again makes a new version of the same plan. Every problem is reported at once, each with its JSON pointer (/plan/steps/2/depends_on/0). The result's uri (cc://{workspace_id}/plans/{plan_id}) reads the plan as a resource.",
    set: ToolSet::Plans,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Plan]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitPlanArgs {
    /// The plan.
    pub plan: PlanDocument,
}

pub async fn submit_plan(ctx: Ctx<String>, a: SubmitPlanArgs) -> Result<PlanOut, ToolError> {
    let problems = plan_rules(&a.plan, "/plan");
    if !problems.is_empty() {
        return Err(problems_error(&problems));
    }
    let key = goal_key(&ctx.principal, &ctx.conversation).map_err(|m| ToolError::new(ErrorKind::Mode, m))?;
    let document = serde_json::to_value(&a.plan).map_err(|e| ToolError::internal(e.to_string()))?;
    let (plan, version) =
        ctx.services.store.plans().submit(&ctx.workspace, &key, &a.plan.title, &document, &caller(&ctx).0).await?;
    Ok(PlanOut::new(plan, version))
}
