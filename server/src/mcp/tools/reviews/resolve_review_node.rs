//! resolve_review_node: a finding resolved after the change, with its trace in the space.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, at, closed, node_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::post;
use crate::store::reviews::{Closing, Node, NodeStatus, ReviewEvent, ReviewStatus};

pub const DECL: Decl = Decl {
    name: "resolve_review_node",
    title: "Resolve a review finding",
    description: "Mark an open finding resolved, after actually making the change: give the commit that resolves it (checked to exist in the repository) or an explanation (or both). The trace (what changed, by whom) is recorded in the review and posted into its space.",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveReviewNodeArgs {
    /// The finding.
    #[schemars(length(min = 1, max = 100))]
    pub node_id: String,
    /// The commit that resolves it (any revision naming a commit of the repository).
    #[schemars(length(min = 1, max = 200))]
    pub commit: Option<String>,
    /// What was done, when there is no commit or to say more.
    #[schemars(length(min = 1, max = 20000))]
    pub explanation: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ResolveReviewNodeOut {
    pub node: Node,
    /// The trace recorded in the review (and posted into its space).
    pub trace: ReviewEvent,
}

pub async fn resolve_review_node(
    ctx: Ctx<String>,
    a: ResolveReviewNodeArgs,
) -> Result<ResolveReviewNodeOut, ToolError> {
    let (node, review) = node_of(&ctx, &a.node_id, "/node_id").await?;
    if review.status != ReviewStatus::Open {
        return Err(closed(&review, "/node_id"));
    }
    if node.status != NodeStatus::Open {
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!("/node_id: finding {} is {} already", node.id, node.status.as_str()),
        )
        .at("/node_id"));
    }
    let explanation = a.explanation.as_deref().map(str::trim).filter(|s| !s.is_empty());
    if a.commit.is_none() && explanation.is_none() {
        return Err(ToolError::invalid("/commit", "/commit: give the commit that resolves it, or an explanation"));
    }
    let commit = match &a.commit {
        None => None,
        Some(c) => {
            let meta = ctx.services.data.meta(&review.repo).map_err(|e| ToolError::internal(e.to_string()))?;
            let (root, c2) = (std::path::PathBuf::from(meta.root), c.clone());
            let sha = tokio::task::spawn_blocking(move || crate::reviews::git::commit_of(&root, &c2))
                .await
                .map_err(|e| ToolError::internal(e.to_string()))?
                .map_err(|m| ToolError::invalid("/commit", format!("/commit: {m} ({})", review.repo)))?;
            Some(sha)
        }
    };
    let me = actor(&ctx);
    let (node, trace) = ctx
        .services
        .store
        .reviews()
        .close(&a.node_id, Closing::Resolved { commit: commit.as_deref(), explanation }, &me)
        .await
        .map_err(|e| at(e, "/node_id"))?;
    post(&ctx, &review.space_id, &format!("trace {}: {} — {}", node.id, trace.text, me.name), None).await?;
    Ok(ResolveReviewNodeOut { node, trace })
}
