//! ticket_pr_link: link or unlink a pull request, by its node id.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{caller, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::tickets::PrLink;

pub const DECL: Decl = Decl {
    name: "ticket_pr_link",
    title: "Link a pull request",
    description: "Link or unlink (action: link | unlink) a ticket and a pull request by the PR's GraphQL node id (PR_kwDO…, or the legacy MDExOlB1bGxSZXF1ZXN0…); answers the PRs linked to the ticket now.",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LinkAction {
    Link,
    Unlink,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TicketPrLinkArgs {
    /// link or unlink the pull request.
    pub action: LinkAction,
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// The pull request's GraphQL node id.
    #[schemars(length(min = 1, max = 200))]
    pub pr_node_id: String,
}

#[derive(Serialize, JsonSchema)]
pub struct TicketPrLinkOut {
    pub ticket_id: String,
    /// Whether anything changed.
    pub changed: bool,
    pub prs: Vec<PrLink>,
}

/// Whether `id` has the shape of a pull request's node id: the current `PR_` + base64url
/// form, or the legacy base64 of `011:PullRequest…`.
pub fn is_pr_node_id(id: &str) -> bool {
    let body_ok =
        |s: &str, extra: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || extra.contains(c));
    match id.strip_prefix("PR_") {
        Some(rest) => rest.len() >= 4 && body_ok(rest, "-_"),
        None => id.starts_with("MDExOlB1bGxSZXF1ZXN0") && body_ok(id, "+/="),
    }
}

pub async fn ticket_pr_link(ctx: Ctx<String>, a: TicketPrLinkArgs) -> Result<TicketPrLinkOut, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    if !is_pr_node_id(&a.pr_node_id) {
        return Err(ToolError::invalid(
            "/pr_node_id",
            format!(
                "/pr_node_id: '{}' is not a pull request's node id (PR_… or MDExOlB1bGxSZXF1ZXN0…; a PR's `node_id` in the REST API, `id` in GraphQL)",
                a.pr_node_id
            ),
        ));
    }
    let tickets = ctx.services.store.tickets();
    let changed = match a.action {
        LinkAction::Link => tickets.link_pr(&t.id, &a.pr_node_id, &caller(&ctx).0).await?,
        LinkAction::Unlink => tickets.unlink_pr(&t.id, &a.pr_node_id).await?,
    };
    Ok(TicketPrLinkOut { ticket_id: t.id.clone(), changed, prs: tickets.prs(&t.id).await? })
}
