//! update_ticket: a ticket's status, title, description, priority or labels.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{labels_of, mirrored, report_end, status_of, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{Priority, Ticket, TicketPatch};

pub const DECL: Decl = Decl {
    name: "update_ticket",
    title: "Update a ticket",
    description: "Update a ticket's status (aliases such as in-progress, doing, completed, todo are accepted; a status reopens a done, failed or cancelled ticket), title, description, priority or labels (replaced by the list given). At least one of them.",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateTicketArgs {
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// open, in_progress, blocked, in_review, done, failed, cancelled (or an alias).
    #[schemars(length(min = 1, max = 50))]
    pub status: Option<String>,
    /// The new title.
    #[schemars(length(min = 1, max = 500))]
    pub title: Option<String>,
    /// The new description, markdown (replaces the old one).
    #[schemars(length(max = 100000))]
    pub description: Option<String>,
    /// The new priority: none, low, medium, high or urgent.
    pub priority: Option<Priority>,
    /// The labels it has from now on.
    #[schemars(length(max = 50), inner(length(min = 1, max = 100)))]
    pub labels: Option<Vec<String>>,
}

pub async fn update_ticket(ctx: Ctx<String>, a: UpdateTicketArgs) -> Result<Ticket, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    let status = a.status.as_deref().map(|s| status_of(s, "/status")).transpose()?;
    let labels = a.labels.as_deref().map(|l| labels_of(l, "/labels")).transpose()?;
    if status.is_none() && a.title.is_none() && a.description.is_none() && a.priority.is_none() && labels.is_none() {
        return Err(ToolError::invalid(
            "/",
            "/: nothing to update; give status, title, description, priority or labels",
        ));
    }
    let p = TicketPatch {
        title: a.title,
        description: a.description,
        status,
        priority: a.priority,
        labels,
        ..TicketPatch::default()
    };
    let u = ctx.services.store.tickets().update(&t.id, &p).await?;
    crate::pipelines::ticket_event(&ctx.services, Some(&t), &u).await;
    if !t.status.is_final() {
        report_end(&ctx, &u).await?;
    }
    mirrored(&ctx, u).await
}
