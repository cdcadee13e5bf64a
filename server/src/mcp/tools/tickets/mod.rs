//! Ticket tools: create_ticket, get_ticket, list_tickets, update_ticket, assign_ticket,
//! reassign_ticket, add_ticket_collaborator, comment_on_ticket, close_ticket, fail_ticket,
//! ticket_relation, list_ticket_relations, ticket_pr_link. A ticket is named by `ticket_id`,
//! its id or its key (T-12), of the call's workspace (another workspace's is answered as one
//! that does not exist); an agent by `to_agent_id` or its exact `to_agent_name`. Each ticket
//! has a space: its comments, its assignee and collaborators. In plan mode the completion
//! verbs (comment, close, fail) reach only the ticket the conversation's run was dispatched
//! for.

mod add_ticket_collaborator;
mod assign_ticket;
mod close_ticket;
mod comment_on_ticket;
mod create_ticket;
mod fail_ticket;
mod get_ticket;
mod list_ticket_relations;
mod list_tickets;
mod reassign_ticket;
mod ticket_pr_link;
mod ticket_relation;
mod update_ticket;

use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, ErrorKind, Registry, ToolError};
use crate::store::{Agent, Member, Ticket, TicketStatus};

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(create_ticket::DECL, create_ticket::create_ticket);
    r.add(get_ticket::DECL, get_ticket::get_ticket);
    r.add(list_tickets::DECL, list_tickets::list_tickets);
    r.add(update_ticket::DECL, update_ticket::update_ticket);
    r.add(assign_ticket::DECL, assign_ticket::assign_ticket);
    r.add(reassign_ticket::DECL, reassign_ticket::reassign_ticket);
    r.add(add_ticket_collaborator::DECL, add_ticket_collaborator::add_ticket_collaborator);
    r.add(comment_on_ticket::DECL, comment_on_ticket::comment_on_ticket);
    r.add(close_ticket::DECL, close_ticket::close_ticket);
    r.add(fail_ticket::DECL, fail_ticket::fail_ticket);
    r.add(ticket_relation::DECL, ticket_relation::ticket_relation);
    r.add(list_ticket_relations::DECL, list_ticket_relations::list_ticket_relations);
    r.add(ticket_pr_link::DECL, ticket_pr_link::ticket_pr_link);
}

/// The ticket `id_or_key` of the call's workspace, or an error naming `pointer`.
pub(crate) async fn ticket_of(ctx: &Ctx<String>, id_or_key: &str, pointer: &str) -> Result<Ticket, ToolError> {
    ctx.services.store.tickets().find(&ctx.workspace, id_or_key).await?.ok_or_else(|| {
        ToolError::not_found(
            pointer,
            format!("{pointer}: no ticket '{id_or_key}' in workspace '{}'; list_tickets lists them", ctx.workspace),
        )
    })
}

/// A status as a client spells it, or an error naming `pointer` and what is accepted.
pub(crate) fn status_of(s: &str, pointer: &str) -> Result<TicketStatus, ToolError> {
    TicketStatus::parse_input(s).map_err(|e| ToolError::invalid(pointer, format!("{pointer}: {e}")))
}

/// The space member an agent is.
pub(crate) fn member_of(a: &Agent) -> Member {
    Member { member: a.id.clone(), kind: "agent".into(), name: a.name.clone() }
}

/// Who the caller is, for `creator` and `created_by`.
pub(crate) fn caller(ctx: &Ctx<String>) -> (String, Option<String>) {
    match &ctx.principal.agent {
        Some(a) => (a.name.clone(), Some(a.agent_id.clone())),
        None => (ctx.principal.name.to_string(), None),
    }
}

/// Plan mode lets the completion verbs reach only the ticket the calling run was
/// dispatched for.
pub(crate) async fn plan_allows(ctx: &Ctx<String>, t: &Ticket) -> Result<(), ToolError> {
    if ctx.conversation.mode() != Mode::Plan {
        return Ok(());
    }
    let dispatched = match ctx.principal.agent.as_ref().and_then(|a| a.run_id.clone()) {
        Some(run) => ctx.services.store.agents().run(&run).await?.and_then(|r| r.ticket_id),
        None => None,
    };
    if dispatched.as_deref() == Some(t.id.as_str()) {
        return Ok(());
    }
    Err(ToolError::new(
        ErrorKind::Mode,
        format!(
            "{} may reach only the conversation's dispatched ticket in plan mode ({}), not {}; leave plan mode with exit_plan_mode",
            ctx.tool,
            dispatched.as_deref().unwrap_or("none: this conversation was not dispatched for a ticket"),
            t.key
        ),
    )
    .at("/ticket_id"))
}

/// Labels as given: trimmed, none empty, each once, in order.
pub(crate) fn labels_of(labels: &[String], pointer: &str) -> Result<Vec<String>, ToolError> {
    let mut out: Vec<String> = Vec::new();
    for (i, l) in labels.iter().enumerate() {
        let l = l.trim();
        if l.is_empty() {
            return Err(ToolError::invalid(&format!("{pointer}/{i}"), format!("{pointer}/{i}: a label is not empty")));
        }
        if !out.iter().any(|o| o == l) {
            out.push(l.to_string());
        }
    }
    Ok(out)
}
