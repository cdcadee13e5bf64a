//! delegate_task: a task handed to another agent as a tracked child ticket, gated
//! server-side (depth cap, cycle detection, budget envelope, autonomy cap).

use schemars::JsonSchema;
use serde::Deserialize;

use super::target;
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::tickets::{delegate, ticket_of, Delegated, Handover};
use crate::store::Priority;

pub const DECL: Decl = Decl {
    name: "delegate_task",
    title: "Delegate a task",
    description: "Delegate a task to another agent (to_agent_id or to_agent_name) as a tracked child ticket (answered as child_ticket_id and child_key), dispatched to that agent (its run has CC_TICKET_ID). The parent is ticket_id, or the ticket this run was dispatched for (a run delegates only from its own ticket). Gated server-side, each refusal naming its gate and numbers: depth_cap (the lineage is at most [delegation] max_depth deep), cycle (an agent cannot receive work its own delegation chain handed down), budget_envelope (under a ticket with a budget, give budget, at most what it has left), autonomy_cap (an agent of autonomy 0 delegates nothing, and none delegates to an agent of higher autonomy than its own). The child's close or fail is reported into the parent's space.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelegateTaskArgs {
    /// The task, in a line (the child ticket's title).
    #[schemars(length(min = 1, max = 500))]
    pub task: String,
    /// The brief: what is to be done, what is known, what done looks like.
    #[schemars(length(max = 100000))]
    pub description: Option<String>,
    /// The agent (see list_agents).
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_id: Option<String>,
    /// The agent, by its exact name.
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_name: Option<String>,
    /// The parent ticket (id or key); default: the ticket this run was dispatched for.
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: Option<String>,
    /// The child's budget, drawn from the parent's (required when the parent has one).
    #[schemars(range(min = 0))]
    pub budget: Option<i64>,
    /// The child ticket's priority: none, low, medium, high or urgent.
    pub priority: Option<Priority>,
}

pub async fn delegate_task(ctx: Ctx<String>, a: DelegateTaskArgs) -> Result<Delegated, ToolError> {
    let dispatched = match ctx.principal.agent.as_ref().and_then(|x| x.run_id.clone()) {
        Some(run) => ctx.services.store.agents().run(&run).await?.and_then(|r| r.ticket_id),
        None => None,
    };
    let from = match (&a.ticket_id, &dispatched) {
        (Some(given), Some(mine)) => {
            let t = ticket_of(&ctx, given, "/ticket_id").await?;
            if t.id != *mine {
                let mine = ctx.services.store.tickets().get(mine).await?.map_or_else(|| mine.clone(), |t| t.key);
                return Err(ToolError::new(
                    ErrorKind::Conflict,
                    format!(
                        "/ticket_id: this run was dispatched for {mine} and delegates only from it, not from {}",
                        t.key
                    ),
                )
                .at("/ticket_id"));
            }
            Some(t)
        }
        (Some(given), None) => Some(ticket_of(&ctx, given, "/ticket_id").await?),
        (None, Some(mine)) => Some(ticket_of(&ctx, mine, "/ticket_id").await?),
        (None, None) => None,
    };
    let to = target(&ctx, a.to_agent_id.as_deref(), a.to_agent_name.as_deref()).await?;
    let h = Handover {
        from,
        to,
        to_pointer: if a.to_agent_id.is_some() { "/to_agent_id" } else { "/to_agent_name" },
        title: a.task,
        description: a.description.unwrap_or_default(),
        priority: a.priority.unwrap_or_default(),
        budget: a.budget,
    };
    delegate(&ctx, h).await
}
