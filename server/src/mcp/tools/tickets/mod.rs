//! Ticket tools: create_ticket, get_ticket, list_tickets, update_ticket, assign_ticket,
//! reassign_ticket, add_ticket_collaborator, comment_on_ticket, close_ticket, fail_ticket,
//! delegate_ticket, ticket_relation, list_ticket_relations, ticket_pr_link (and the
//! delegation delegate_task shares). A ticket is named by `ticket_id`,
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
mod delegate_ticket;
mod fail_ticket;
mod get_ticket;
mod list_ticket_relations;
mod list_tickets;
mod reassign_ticket;
mod ticket_pr_link;
mod ticket_relation;
mod update_ticket;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use crate::agents::Brief;
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, ErrorKind, Registry, ToolError};
use crate::mcp::tools::agents::{caller_name, dispatch_error, run_out, RunOut};
use crate::mcp::tools::messaging::post;
use crate::store::{Agent, Delegation, Member, NewTicket, Priority, StoreError, Ticket, TicketStatus};

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
    r.add(delegate_ticket::DECL, delegate_ticket::delegate_ticket);
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

/// Mirrors ticket `t` on its workspace's provider right away (bounded by the mirror's
/// timeout; whatever does not go through waits in the outbox for the next attempt), and
/// answers the ticket as stored then (its provider number, its sync state).
pub(crate) async fn mirrored(ctx: &Ctx<String>, t: Ticket) -> Result<Ticket, ToolError> {
    let Some(m) = &ctx.services.mirror else { return Ok(t) };
    if t.sync.is_none() {
        return Ok(t);
    }
    if let Err(e) =
        tokio::time::timeout(m.call_timeout(), m.sync(&t.id)).await.unwrap_or(Ok(crate::providers::Synced::Skipped))
    {
        tracing::warn!(ticket = t.id, "mirroring a ticket: {e:#}");
    }
    Ok(ctx.services.store.tickets().get(&t.id).await?.unwrap_or(t))
}

/// A hand-over, as delegate_ticket and delegate_task ask it.
pub(crate) struct Handover {
    /// The ticket delegated from (none: the child roots a lineage of its own).
    pub from: Option<Ticket>,
    pub to: Agent,
    /// The argument that named the agent (`/to_agent_id` or `/to_agent_name`).
    pub to_pointer: &'static str,
    pub title: String,
    pub description: String,
    pub priority: Priority,
    pub budget: Option<i64>,
}

/// A delegation made: the tracked child ticket and its run.
#[derive(Serialize, JsonSchema)]
pub struct Delegated {
    /// The child ticket (assigned to the agent; a sub-issue of the ticket delegated from).
    pub child_ticket_id: String,
    /// Its key (T-N).
    pub child_key: String,
    /// The ticket it was delegated from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_ticket_id: Option<String>,
    /// Its depth in the delegation lineage (1 under a ticket that was not delegated).
    pub depth: i64,
    /// Its budget, drawn from the parent's envelope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<i64>,
    /// The run started for it: its environment has CC_TICKET_ID, the child's id.
    pub run: RunOut,
}

/// Delegates through the store's gates (depth cap, cycle, budget envelope, autonomy cap:
/// each refusal names its gate and numbers), tells the parent's space, and dispatches the
/// child to its agent. A child whose run cannot start is cancelled (its budget goes back)
/// and the error names it.
pub(crate) async fn delegate(ctx: &Ctx<String>, h: Handover) -> Result<Delegated, ToolError> {
    let store = &ctx.services.store;
    let (creator, creator_agent_id) = caller(ctx);
    let mut members = vec![ctx.principal.as_member()];
    if creator_agent_id.as_deref() != Some(h.to.id.as_str()) {
        members.push(member_of(&h.to));
    }
    let t = NewTicket {
        title: h.title,
        description: h.description,
        priority: h.priority,
        creator,
        creator_agent_id: creator_agent_id.clone(),
        budget: h.budget,
        members,
        ..NewTicket::default()
    };
    let d = Delegation {
        from: h.from.as_ref().map(|t| t.id.clone()),
        by_agent_id: creator_agent_id,
        to_agent_id: h.to.id.clone(),
        max_depth: ctx.services.config.delegation.max_depth,
    };
    let child = store.tickets().delegate(&ctx.workspace, t, &d).await.map_err(|e| {
        let pointer = match &e {
            StoreError::Refused { gate: "budget_envelope", .. } => "/budget",
            StoreError::Refused { gate: "depth_cap", .. } => "/ticket_id",
            StoreError::Refused { .. } => h.to_pointer,
            _ => "/ticket_id",
        };
        ToolError::from(e).at(pointer)
    })?;
    crate::pipelines::ticket_event(&ctx.services, None, &child).await;
    let by = caller_name(ctx);
    let budget = child.budget.map(|b| format!(" (budget {b})")).unwrap_or_default();
    if let Some(p) = &h.from {
        let text = format!("{by} delegated {} to {}{budget}: {}", child.key, h.to.name, child.title);
        post(ctx, &p.space_id, &text, None).await?;
    }
    let parent = h.from.as_ref().map(|p| format!(" It is a sub-issue of {} ({}).", p.key, p.title)).unwrap_or_default();
    let brief = format!(
        "{by} delegated {key} to you{budget}: {title}\n\n{desc}\n\n{parent} Its space is {space}. When it is done, \
         close_ticket (ticket_id {key}) with your output; if it cannot be done, fail_ticket with the error. Either is \
         reported to the ticket it came from.",
        key = child.key,
        title = child.title,
        desc = child.description,
        space = child.space_id,
    );
    let brief = Brief {
        reason: "delegate",
        text: brief,
        space_id: Some(child.space_id.clone()),
        message_id: None,
        ticket_id: Some(child.id.clone()),
    };
    let run = match ctx.services.runtime.dispatch(&h.to, brief).await {
        Ok(r) => r,
        Err(e) => {
            let e = dispatch_error(e);
            let why = format!("the delegated run could not start: {}", e.message);
            store.tickets().finish(&child.id, TicketStatus::Cancelled, None, Some(&why)).await?;
            if let Some(p) = &h.from {
                post(ctx, &p.space_id, &format!("{} was cancelled: {why}", child.key), None).await?;
            }
            return Err(ToolError {
                message: format!("{} was cancelled: {why}", child.key),
                data: Some(json!({ "child_ticket_id": child.id })),
                ..e
            });
        }
    };
    mirrored(ctx, child.clone()).await?;
    Ok(Delegated {
        child_ticket_id: child.id.clone(),
        child_key: child.key.clone(),
        parent_ticket_id: child.delegated_from.clone(),
        depth: child.delegation_depth,
        budget: child.budget,
        run: run_out(&run, &h.to),
    })
}

/// A delegated ticket that has just ended (done, failed, cancelled) is reported into the
/// space of the ticket it was delegated from.
pub(crate) async fn report_end(ctx: &Ctx<String>, t: &Ticket) -> Result<(), ToolError> {
    let Some(from) = &t.delegated_from else { return Ok(()) };
    if !t.status.is_final() {
        return Ok(());
    }
    let Some(parent) = ctx.services.store.tickets().get(from).await? else { return Ok(()) };
    let to = match &t.assignee_id {
        Some(a) => ctx.services.store.agents().get(a).await?.map_or_else(|| a.clone(), |a| a.name),
        None => "nobody".into(),
    };
    let text = match t.status {
        TicketStatus::Done => format!(
            "{} ({}), delegated to {to}, is done{}",
            t.key,
            t.title,
            t.output.as_deref().map(|o| format!(": {o}")).unwrap_or_default()
        ),
        TicketStatus::Failed => format!(
            "{} ({}), delegated to {to}, failed: {}",
            t.key,
            t.title,
            t.error.as_deref().unwrap_or("no error given")
        ),
        _ => format!("{} ({}), delegated to {to}, was cancelled", t.key, t.title),
    };
    post(ctx, &parent.space_id, &text, None).await?;
    Ok(())
}
