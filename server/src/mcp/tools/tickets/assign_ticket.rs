//! assign_ticket: a ticket to an agent and/or a team.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{member_of, mirrored, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::agents::target;
use crate::store::{Ticket, TicketPatch};

pub const DECL: Decl = Decl {
    name: "assign_ticket",
    title: "Assign a ticket",
    description: "Assign a ticket to an agent (to_agent_id or to_agent_name; it joins the ticket's space) and/or a team. A ticket assigned to another agent is moved with reassign_ticket instead.",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AssignTicketArgs {
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// The agent (see list_agents).
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_id: Option<String>,
    /// The agent, by its exact name.
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_name: Option<String>,
    /// The team.
    #[schemars(length(min = 1, max = 100))]
    pub team: Option<String>,
}

pub async fn assign_ticket(ctx: Ctx<String>, a: AssignTicketArgs) -> Result<Ticket, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    if a.to_agent_id.is_none() && a.to_agent_name.is_none() && a.team.is_none() {
        return Err(ToolError::invalid("/to_agent_id", "/to_agent_id: give to_agent_id, to_agent_name or team"));
    }
    let mut p = TicketPatch { team: a.team.map(Some), ..TicketPatch::default() };
    if a.to_agent_id.is_some() || a.to_agent_name.is_some() {
        let agent = target(&ctx, a.to_agent_id.as_deref(), a.to_agent_name.as_deref()).await?;
        match &t.assignee_id {
            Some(cur) if *cur != agent.id => {
                return Err(ToolError::new(
                    ErrorKind::Conflict,
                    format!("{} is assigned to another agent ({cur}); reassign_ticket moves it", t.key),
                )
                .at("/ticket_id"))
            }
            _ => {}
        }
        ctx.services.store.spaces().add_member(&t.space_id, &member_of(&agent)).await?;
        p.assignee_id = Some(Some(agent.id));
    }
    let u = ctx.services.store.tickets().update(&t.id, &p).await?;
    mirrored(&ctx, u).await
}
