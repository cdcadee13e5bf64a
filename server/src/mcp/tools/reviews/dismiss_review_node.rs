//! dismiss_review_node: a finding that does not apply, leaving a suppression fact in memory.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, at, closed, node_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::memory::owner;
use crate::mcp::tools::messaging::post;
use crate::store::memory::NewEntry;
use crate::store::reviews::{Closing, Node, NodeStatus, ReviewStatus, Suppression};
use crate::store::{Entry, EntryKind};

/// The memory domain of suppression facts.
pub const DOMAIN: &str = "reviews";

pub const DECL: Decl = Decl {
    name: "dismiss_review_node",
    title: "Dismiss a review finding",
    description: "Dismiss an open finding that does not apply, with the reason. A suppression fact is proposed into the workspace's memory domain 'reviews' (keyed by repository, file, the lines around the finding and its title), so that the same finding at the same place raised again, in this review or a later one, comes back from add_review_node flagged suppressed: true with that fact's id. Superseding the fact lifts the suppression.",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DismissReviewNodeArgs {
    /// The finding.
    #[schemars(length(min = 1, max = 100))]
    pub node_id: String,
    /// Why it does not apply.
    #[schemars(length(min = 1, max = 4000))]
    pub reason: String,
}

#[derive(Serialize, JsonSchema)]
pub struct DismissReviewNodeOut {
    pub node: Node,
    /// The suppression fact (memory domain 'reviews').
    pub fact: Entry,
}

pub async fn dismiss_review_node(
    ctx: Ctx<String>,
    a: DismissReviewNodeArgs,
) -> Result<DismissReviewNodeOut, ToolError> {
    let (node, review) = node_of(&ctx, &a.node_id, "/node_id").await?;
    if review.status != ReviewStatus::Open {
        return Err(closed(&review, "/node_id"));
    }
    if node.status != NodeStatus::Open {
        return Err(ToolError::new(
            crate::mcp::tool::ErrorKind::Conflict,
            format!("/node_id: finding {} is {} already", node.id, node.status.as_str()),
        )
        .at("/node_id"));
    }
    let reason = a.reason.trim();
    if reason.is_empty() {
        return Err(ToolError::invalid("/reason", "/reason: say why the finding does not apply (it is empty)"));
    }
    // The fact first (memory's own transaction): the dismissal below names it. A dismissal
    // refused after it (a racing one) leaves a fact that suppresses the same place, which is
    // what the winner's fact does too.
    let (key, who) = owner(&ctx);
    let memory = ctx.services.store.memory();
    let (d, _) = memory.ensure_domain(&ctx.workspace, DOMAIN, &key, &who).await?;
    let text = format!(
        "Review finding suppressed: \"{}\" at {}:{} of {} does not apply — {reason} (dismissed in review {}, finding {}; suppression key {})",
        node.title, node.file, node.line, review.repo, review.id, node.id, node.suppression_key
    );
    let source = format!("review:{}/{}", review.id, node.id);
    let fact = memory
        .propose(
            &ctx.workspace,
            &d.id,
            NewEntry { kind: EntryKind::Fact, text: &text, author: &who, author_key: &key, source: &source },
        )
        .await?;
    let me = actor(&ctx);
    let suppression = Suppression {
        key: node.suppression_key.clone(),
        fact_id: fact.id.clone(),
        repo: review.repo.clone(),
        file: node.file.clone(),
        title: node.title.clone(),
        node_id: node.id.clone(),
    };
    let (node, trace) = ctx
        .services
        .store
        .reviews()
        .close(&a.node_id, Closing::Dismissed { reason, suppression }, &me)
        .await
        .map_err(|e| at(e, "/node_id"))?;
    post(&ctx, &review.space_id, &format!("trace {}: {} — {}", node.id, trace.text, me.name), None).await?;
    Ok(DismissReviewNodeOut { node, fact })
}
