//! ticket_relation: add or remove a relation between two tickets (and its inverse).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{caller, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{RelationKind, StoreError};

pub const DECL: Decl = Decl {
    name: "ticket_relation",
    title: "Relate two tickets",
    description: "Add or remove (action: add | remove) a relation between two tickets: blocked_by, blocking, related_to, duplicate_of, duplicated_by, sub_issue_of, parent_of. The other ticket gets the inverse (blocked_by <-> blocking, duplicate_of <-> duplicated_by, sub_issue_of <-> parent_of, related_to both ways) in the same transaction. A sub_issue_of or blocked_by that would close a cycle is refused, naming it; a ticket has one parent.",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Add,
    Remove,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TicketRelationArgs {
    /// add or remove the relation.
    pub action: Action,
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// How ticket_id relates to other_ticket_id.
    pub kind: RelationKind,
    /// The other ticket: its id or its key.
    #[schemars(length(min = 1, max = 100))]
    pub other_ticket_id: String,
}

#[derive(Serialize, JsonSchema)]
pub struct TicketRelationOut {
    pub ticket_id: String,
    pub kind: RelationKind,
    pub other_ticket_id: String,
    /// Whether anything changed (false: it was there already, or was not there to remove).
    pub changed: bool,
}

pub async fn ticket_relation(ctx: Ctx<String>, a: TicketRelationArgs) -> Result<TicketRelationOut, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    let o = ticket_of(&ctx, &a.other_ticket_id, "/other_ticket_id").await?;
    if t.id == o.id {
        return Err(ToolError::invalid(
            "/other_ticket_id",
            format!("/other_ticket_id: a ticket cannot be {} itself", a.kind.as_str()),
        ));
    }
    let tickets = ctx.services.store.tickets();
    let changed = match a.action {
        Action::Add => tickets.relate(&ctx.workspace, &t.id, a.kind, &o.id, &caller(&ctx).0).await,
        Action::Remove => tickets.unrelate(&ctx.workspace, &t.id, a.kind, &o.id).await,
    }
    .map_err(|e| {
        let pointer = if matches!(e, StoreError::Conflict(_)) { "/kind" } else { "/ticket_id" };
        ToolError::from(e).at(pointer)
    })?;
    Ok(TicketRelationOut { ticket_id: t.key, kind: a.kind, other_ticket_id: o.key, changed })
}
