//! add_ticket_collaborator: an agent into a ticket's space.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{member_of, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::agents::target;
use crate::store::Member;

pub const DECL: Decl = Decl {
    name: "add_ticket_collaborator",
    title: "Add a ticket collaborator",
    description: "Invite an agent (to_agent_id or to_agent_name) to collaborate on a ticket: it is added to the ticket's space (once; adding it again changes nothing).",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddTicketCollaboratorArgs {
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// The agent (see list_agents).
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_id: Option<String>,
    /// The agent, by its exact name.
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_name: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct AddTicketCollaboratorOut {
    pub ticket_id: String,
    pub space_id: String,
    /// The space's members now.
    pub members: Vec<Member>,
}

pub async fn add_ticket_collaborator(
    ctx: Ctx<String>,
    a: AddTicketCollaboratorArgs,
) -> Result<AddTicketCollaboratorOut, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    let agent = target(&ctx, a.to_agent_id.as_deref(), a.to_agent_name.as_deref()).await?;
    let spaces = ctx.services.store.spaces();
    spaces.add_member(&t.space_id, &member_of(&agent)).await?;
    let members = spaces.get(&t.space_id).await?.map(|s| s.members).unwrap_or_default();
    Ok(AddTicketCollaboratorOut { ticket_id: t.id, space_id: t.space_id, members })
}
