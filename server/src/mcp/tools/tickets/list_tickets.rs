//! list_tickets: a workspace's tickets, newest first, filtered, a page at a time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{status_of, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::tickets::parse_key;
use crate::store::{Ticket, TicketFilter};

pub const DECL: Decl = Decl {
    name: "list_tickets",
    title: "List tickets",
    description: "List a workspace's tickets, newest first, optionally filtered by status (aliases accepted), assignee (an agent's id or exact name), label and parent (parent_ticket_id); at most `limit` (default 50, up to 200) after `cursor` (an earlier call's next_cursor).",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Plan, Mode::Review, Mode::Orchestrate]),
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTicketsArgs {
    /// Only tickets in this status (or an alias of it).
    #[schemars(length(min = 1, max = 50))]
    pub status: Option<String>,
    /// Only tickets assigned to this agent (its id or exact name).
    #[schemars(length(min = 1, max = 100))]
    pub assignee: Option<String>,
    /// Only tickets with this label.
    #[schemars(length(min = 1, max = 100))]
    pub label: Option<String>,
    /// Only the sub-issues of this ticket (id or key).
    #[schemars(length(min = 1, max = 100))]
    pub parent_ticket_id: Option<String>,
    /// Where the previous page ended (its next_cursor).
    #[schemars(length(min = 1, max = 100))]
    pub cursor: Option<String>,
    /// At most this many tickets (default 50).
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
pub struct ListTicketsOut {
    pub tickets: Vec<Ticket>,
    /// The cursor of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

pub async fn list_tickets(ctx: Ctx<String>, a: ListTicketsArgs) -> Result<ListTicketsOut, ToolError> {
    let status = a.status.as_deref().map(|s| status_of(s, "/status")).transpose()?;
    let assignee_id = match &a.assignee {
        None => None,
        Some(x) => {
            let agents = ctx.services.store.agents();
            match agents.get(x).await?.filter(|g| g.workspace_id == ctx.workspace) {
                Some(g) => Some(g.id),
                None => match agents.by_name(&ctx.workspace, x).await? {
                    Some(g) => Some(g.id),
                    None => {
                        return Err(ToolError::not_found(
                            "/assignee",
                            format!(
                            "/assignee: no agent '{x}' (id or exact name) in workspace '{}'; list_agents lists them",
                            ctx.workspace
                        ),
                        ))
                    }
                },
            }
        }
    };
    let parent_id = match &a.parent_ticket_id {
        Some(p) => Some(ticket_of(&ctx, p, "/parent_ticket_id").await?.id),
        None => None,
    };
    let before_number = match &a.cursor {
        None => None,
        Some(c) => Some(parse_key(c).ok_or_else(|| {
            ToolError::invalid("/cursor", format!("/cursor: '{c}' is not a cursor; pass an earlier call's next_cursor"))
        })?),
    };
    let limit = a.limit.unwrap_or(50);
    let f = TicketFilter { status, assignee_id, label: a.label, parent_id, before_number, limit: limit + 1 };
    let mut tickets = ctx.services.store.tickets().list(&ctx.workspace, &f).await?;
    let more = tickets.len() > limit as usize;
    tickets.truncate(limit as usize);
    let next_cursor = if more { tickets.last().map(|t| t.key.clone()) } else { None };
    Ok(ListTicketsOut { tickets, next_cursor })
}
