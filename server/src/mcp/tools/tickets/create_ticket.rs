//! create_ticket: a ticket on the configured provider (the store, mirrored on GitHub Issues
//! where configured), with its key and space.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{caller, labels_of, member_of, mirrored, status_of, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::agents::target;
use crate::store::{NewTicket, Priority, Ticket};

pub const DECL: Decl = Decl {
    name: "create_ticket",
    title: "Create a ticket",
    description: "Create a ticket on the configured provider (the store; and, where the operator configured it, mirrored as a GitHub issue: the answer has provider_number, and sync says how the mirroring stands — an outage keeps the ticket and retries): its key (T-1, T-2, … per workspace) and its space come with it. Optional: status (default open; aliases such as todo, doing, completed are accepted), priority, labels, an assignee (to_agent_id or to_agent_name), a team, a parent (parent_ticket_id: the new ticket is its sub-issue), a budget (the envelope its delegations draw from).",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTicketArgs {
    /// What is to be done, in a line.
    #[schemars(length(min = 1, max = 500))]
    pub title: String,
    /// The details (markdown).
    #[schemars(length(max = 100000))]
    pub description: Option<String>,
    /// open, in_progress, blocked, in_review, done, failed, cancelled (or an alias).
    #[schemars(length(min = 1, max = 50))]
    pub status: Option<String>,
    /// none, low, medium, high or urgent (default none).
    pub priority: Option<Priority>,
    /// Labels (each once).
    #[schemars(length(max = 50), inner(length(min = 1, max = 100)))]
    pub labels: Option<Vec<String>>,
    /// The agent it is assigned to (see list_agents).
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_id: Option<String>,
    /// The agent it is assigned to, by its exact name.
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_name: Option<String>,
    /// The team it belongs to.
    #[schemars(length(min = 1, max = 100))]
    pub team: Option<String>,
    /// The ticket (id or key) it is a sub-issue of.
    #[schemars(length(min = 1, max = 100))]
    pub parent_ticket_id: Option<String>,
    /// What it and the work delegated from it may spend, in the workspace's unit (tokens,
    /// cents, …): each delegation from it takes its share, and none may take more than is left.
    #[schemars(range(min = 0))]
    pub budget: Option<i64>,
}

pub async fn create_ticket(ctx: Ctx<String>, a: CreateTicketArgs) -> Result<Ticket, ToolError> {
    let status = a.status.as_deref().map(|s| status_of(s, "/status")).transpose()?;
    let labels = labels_of(a.labels.as_deref().unwrap_or_default(), "/labels")?;
    let assignee = match (&a.to_agent_id, &a.to_agent_name) {
        (None, None) => None,
        (id, name) => Some(target(&ctx, id.as_deref(), name.as_deref()).await?),
    };
    let parent = match &a.parent_ticket_id {
        Some(p) => Some(ticket_of(&ctx, p, "/parent_ticket_id").await?),
        None => None,
    };
    let (creator, creator_agent_id) = caller(&ctx);
    let mut members = vec![ctx.principal.as_member()];
    if let Some(x) = &assignee {
        if creator_agent_id.as_deref() != Some(x.id.as_str()) {
            members.push(member_of(x));
        }
    }
    let t = NewTicket {
        title: a.title,
        description: a.description.unwrap_or_default(),
        status,
        priority: a.priority.unwrap_or_default(),
        labels,
        assignee_id: assignee.map(|x| x.id),
        team: a.team,
        parent_id: parent.map(|p| p.id),
        creator,
        creator_agent_id,
        budget: a.budget,
        members,
    };
    let t = ctx.services.store.tickets().create(&ctx.workspace, t).await?;
    crate::pipelines::ticket_event(&ctx.services, None, &t).await;
    mirrored(&ctx, t).await
}
