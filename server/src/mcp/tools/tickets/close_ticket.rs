//! close_ticket: a ticket done, with an optional output.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{mirrored, plan_allows, report_end, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{Ticket, TicketStatus};

pub const DECL: Decl = Decl {
    name: "close_ticket",
    title: "Close a ticket",
    description: "Close a ticket: it is done, with an optional output. Final: closing or failing it again is refused until update_ticket reopens it. In plan mode only the ticket the conversation was dispatched for.",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::In(&[Mode::Plan, Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseTicketArgs {
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// What came of it (markdown).
    #[schemars(length(max = 100000))]
    pub output: Option<String>,
}

pub async fn close_ticket(ctx: Ctx<String>, a: CloseTicketArgs) -> Result<Ticket, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    plan_allows(&ctx, &t).await?;
    let out = ctx.services.store.tickets().finish(&t.id, TicketStatus::Done, a.output.as_deref(), None).await;
    let before = t;
    let t = out.map_err(|e| ToolError::from(e).at("/ticket_id"))?;
    crate::pipelines::ticket_event(&ctx.services, Some(&before), &t).await;
    report_end(&ctx, &t).await?;
    mirrored(&ctx, t).await
}
