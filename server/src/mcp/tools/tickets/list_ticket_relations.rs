//! list_ticket_relations: a ticket's parent, sub-tickets and dependency links.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ticket_of;
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{RelationKind, TicketStatus};

pub const DECL: Decl = Decl {
    name: "list_ticket_relations",
    title: "List a ticket's relations",
    description: "List a ticket's parent, its sub-tickets, and its other links (blocked_by, blocking, duplicate_of, duplicated_by, related_to), each with the other ticket's key, title and status.",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTicketRelationsArgs {
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
}

/// Another ticket, in short.
#[derive(Serialize, JsonSchema)]
pub struct TicketRef {
    pub ticket_id: String,
    pub key: String,
    pub title: String,
    pub status: TicketStatus,
}

#[derive(Serialize, JsonSchema)]
pub struct Link {
    pub kind: RelationKind,
    pub ticket: TicketRef,
}

#[derive(Serialize, JsonSchema)]
pub struct ListTicketRelationsOut {
    pub ticket_id: String,
    pub key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<TicketRef>,
    pub sub_tickets: Vec<TicketRef>,
    /// The dependency and other links (not parent / sub-issue).
    pub links: Vec<Link>,
}

pub async fn list_ticket_relations(
    ctx: Ctx<String>,
    a: ListTicketRelationsArgs,
) -> Result<ListTicketRelationsOut, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    let tickets = ctx.services.store.tickets();
    let mut out = ListTicketRelationsOut {
        ticket_id: t.id.clone(),
        key: t.key.clone(),
        parent: None,
        sub_tickets: Vec::new(),
        links: Vec::new(),
    };
    for r in tickets.relations(&t.id).await? {
        let Some(o) = tickets.get(&r.other_id).await? else { continue };
        let o = TicketRef { ticket_id: o.id, key: o.key, title: o.title, status: o.status };
        match r.kind {
            RelationKind::SubIssueOf => out.parent = Some(o),
            RelationKind::ParentOf => out.sub_tickets.push(o),
            kind => out.links.push(Link { kind, ticket: o }),
        }
    }
    Ok(out)
}
