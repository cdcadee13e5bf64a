//! fail_ticket: a ticket failed, with its error.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{mirrored, plan_allows, report_end, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{Ticket, TicketStatus};

pub const DECL: Decl = Decl {
    name: "fail_ticket",
    title: "Fail a ticket",
    description: "Mark a ticket as failed, with an error message. Final: closing or failing it again is refused until update_ticket reopens it. In plan mode only the ticket the conversation was dispatched for.",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Plan, Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailTicketArgs {
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// What went wrong.
    #[schemars(length(min = 1, max = 100000))]
    pub error: String,
}

pub async fn fail_ticket(ctx: Ctx<String>, a: FailTicketArgs) -> Result<Ticket, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    plan_allows(&ctx, &t).await?;
    let out = ctx.services.store.tickets().finish(&t.id, TicketStatus::Failed, None, Some(&a.error)).await;
    let before = t;
    let t = out.map_err(|e| ToolError::from(e).at("/ticket_id"))?;
    crate::pipelines::ticket_event(&ctx.services, Some(&before), &t).await;
    report_end(&ctx, &t).await?;
    mirrored(&ctx, t).await
}
