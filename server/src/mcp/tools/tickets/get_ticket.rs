//! get_ticket: one ticket, by its id or its key, with its pull requests.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ticket_of;
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::pipelines::TeamActivity;
use crate::store::tickets::PrLink;
use crate::store::Ticket;

pub const DECL: Decl = Decl {
    name: "get_ticket",
    title: "Get a ticket",
    description: "Fetch a ticket by its id or its key (T-12): every field, its space, the pull requests linked to it and its team leads' activity entries (list_ticket_relations gives its relations).",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Plan, Mode::Review, Mode::Orchestrate]),
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetTicketArgs {
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
}

#[derive(Serialize, JsonSchema)]
pub struct GetTicketOut {
    pub ticket: Ticket,
    pub prs: Vec<PrLink>,
    /// Its team leads' activity entries, oldest first (record_team_activity); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub team_activity: Vec<TeamActivity>,
}

pub async fn get_ticket(ctx: Ctx<String>, a: GetTicketArgs) -> Result<GetTicketOut, ToolError> {
    let ticket = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    let prs = ctx.services.store.tickets().prs(&ticket.id).await?;
    let team_activity = ctx.services.store.pipelines().activity(&ticket.id).await?;
    Ok(GetTicketOut { ticket, prs, team_activity })
}
