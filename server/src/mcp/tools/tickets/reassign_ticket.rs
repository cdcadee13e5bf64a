//! reassign_ticket: an assigned ticket to another agent.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{member_of, mirrored, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::agents::target;
use crate::mcp::tools::messaging::post_as;
use crate::store::{Sender, Ticket, TicketPatch};

pub const DECL: Decl = Decl {
    name: "reassign_ticket",
    title: "Reassign a ticket",
    description: "Reassign an assigned ticket to another agent (to_agent_id or to_agent_name), with an optional reason; the new assignee joins the ticket's space and the change is posted there. An unassigned ticket is given with assign_ticket.",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReassignTicketArgs {
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// The new assignee (see list_agents).
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_id: Option<String>,
    /// The new assignee, by its exact name.
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_name: Option<String>,
    /// Why (posted in the ticket's space).
    #[schemars(length(min = 1, max = 2000))]
    pub reason: Option<String>,
}

pub async fn reassign_ticket(ctx: Ctx<String>, a: ReassignTicketArgs) -> Result<Ticket, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    let agent = target(&ctx, a.to_agent_id.as_deref(), a.to_agent_name.as_deref()).await?;
    let Some(from) = t.assignee_id.clone() else {
        return Err(ToolError::new(ErrorKind::Conflict, format!("{} is not assigned; assign_ticket gives it", t.key))
            .at("/ticket_id"));
    };
    if from == agent.id {
        return Err(ToolError::new(ErrorKind::Conflict, format!("{} is assigned to {} already", t.key, agent.name))
            .at(if a.to_agent_id.is_some() { "/to_agent_id" } else { "/to_agent_name" }));
    }
    let store = &ctx.services.store;
    store.spaces().add_member(&t.space_id, &member_of(&agent)).await?;
    let p = TicketPatch { assignee_id: Some(Some(agent.id.clone())), ..TicketPatch::default() };
    let out = store.tickets().update(&t.id, &p).await?;
    let from_name = store.agents().get(&from).await?.map_or(from, |g| g.name);
    let text = format!(
        "{} reassigned {} from {from_name} to {}{}",
        ctx.principal.as_sender().name,
        t.key,
        agent.name,
        a.reason.map(|r| format!(": {r}")).unwrap_or_default()
    );
    let system = Sender { kind: "system".into(), name: "tickets".into(), agent_id: None };
    post_as(&ctx, &t.space_id, &system, &text, None).await?;
    mirrored(&ctx, out).await
}
