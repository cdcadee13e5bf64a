//! confirm_review_node: a peer's confirmation of a finding (never its author's).

use schemars::JsonSchema;
use serde::Deserialize;

use super::{actor, at, closed, node_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::post;
use crate::store::reviews::{Node, ReviewStatus};

pub const DECL: Decl = Decl {
    name: "confirm_review_node",
    title: "Confirm a review finding",
    description: "Confirm a peer's finding (node_id) of an open review: you looked and agree. The finding's author can never confirm it (refused: error conflict, data.gate author_confirms); confirming twice counts once. finalize_review counts only confirmed findings.",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfirmReviewNodeArgs {
    /// The finding (add_review_node's node_id).
    #[schemars(length(min = 1, max = 100))]
    pub node_id: String,
}

pub async fn confirm_review_node(ctx: Ctx<String>, a: ConfirmReviewNodeArgs) -> Result<Node, ToolError> {
    let (_, review) = node_of(&ctx, &a.node_id, "/node_id").await?;
    if review.status != ReviewStatus::Open {
        return Err(closed(&review, "/node_id"));
    }
    let me = actor(&ctx);
    let before = ctx.services.store.reviews().node(&a.node_id).await?.map_or(0, |n| n.confirmed_by.len());
    let n = ctx.services.store.reviews().confirm(&a.node_id, &me).await.map_err(|e| at(e, "/node_id"))?;
    if n.confirmed_by.len() > before {
        post(&ctx, &review.space_id, &format!("confirmed {} ({}) — {}", n.id, n.title, me.name), None).await?;
    }
    Ok(n)
}
