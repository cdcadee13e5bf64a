//! delegate_ticket: a ticket's work handed to an agent as a tracked child ticket, dispatched.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{delegate, ticket_of, Delegated, Handover};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::agents::target;

pub const DECL: Decl = Decl {
    name: "delegate_ticket",
    title: "Delegate a ticket",
    description: "Delegate a ticket to an agent (to_agent_id or to_agent_name): a tracked child ticket (a sub-issue, assigned to the agent, key answered as child_key, id as child_ticket_id) is created and dispatched to the agent (its run has CC_TICKET_ID). Gated like delegate_task: the lineage's depth cap, no cycle (the agent is not already in the ticket's delegation chain), the budget envelope (under a ticket with a budget, give budget, at most what it has left) and the delegating agent's autonomy cap; a refusal names its gate and numbers. The child's close or fail is reported into this ticket's space.",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelegateTicketArgs {
    /// The ticket delegated: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// The agent (see list_agents).
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_id: Option<String>,
    /// The agent, by its exact name.
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_name: Option<String>,
    /// The child's title (default: the ticket's).
    #[schemars(length(min = 1, max = 500))]
    pub title: Option<String>,
    /// The brief: what the agent is to do (default: the ticket's description).
    #[schemars(length(max = 100000))]
    pub description: Option<String>,
    /// The child's budget, drawn from the ticket's (required when the ticket has one).
    #[schemars(range(min = 0))]
    pub budget: Option<i64>,
}

pub async fn delegate_ticket(ctx: Ctx<String>, a: DelegateTicketArgs) -> Result<Delegated, ToolError> {
    let from = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    let to = target(&ctx, a.to_agent_id.as_deref(), a.to_agent_name.as_deref()).await?;
    let h = Handover {
        title: a.title.unwrap_or_else(|| from.title.clone()),
        description: a.description.unwrap_or_else(|| from.description.clone()),
        priority: from.priority,
        from: Some(from),
        to,
        to_pointer: if a.to_agent_id.is_some() { "/to_agent_id" } else { "/to_agent_name" },
        budget: a.budget,
    };
    delegate(&ctx, h).await
}
