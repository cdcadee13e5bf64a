//! request_peer_review: a second look at a finding from another reviewer agent.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{area_of, at, choose, closed, dispatch_to, node_of, reviewers};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::agents::{caller_name, RunOut};
use crate::store::reviews::ReviewStatus;

pub const DECL: Decl = Decl {
    name: "request_peer_review",
    title: "Request a peer review of a finding",
    description: "Ask another reviewer agent for a second look at a finding (node_id): the agent named (agent), or else the workspace's reviewer agent whose skills best match the finding's area, never the finding's author nor one who confirmed it already. It is added to the review's space and started with a brief about that finding (confirm it with confirm_review_node, or say why not).",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestPeerReviewArgs {
    /// The finding.
    #[schemars(length(min = 1, max = 100))]
    pub node_id: String,
    /// The agent to ask, by exact name (default: the best-matching reviewer).
    #[schemars(length(min = 1, max = 100))]
    pub agent: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct RequestPeerReviewOut {
    pub node_id: String,
    pub agent: String,
    pub agent_id: String,
    /// Why this agent.
    pub why: String,
    pub run: RunOut,
}

pub async fn request_peer_review(
    ctx: Ctx<String>,
    a: RequestPeerReviewArgs,
) -> Result<RequestPeerReviewOut, ToolError> {
    let (node, review) = node_of(&ctx, &a.node_id, "/node_id").await?;
    if review.status != ReviewStatus::Open {
        return Err(closed(&review, "/node_id"));
    }
    let store = &ctx.services.store;
    let (agent, why) = match &a.agent {
        Some(name) => {
            let Some(agent) = store.agents().by_name(&ctx.workspace, name).await? else {
                let names: Vec<String> =
                    store.agents().list(&ctx.workspace).await?.into_iter().map(|a| a.name).collect();
                return Err(ToolError::not_found(
                    "/agent",
                    format!(
                        "/agent: no agent named exactly '{name}' in workspace '{}'; its agents: {}",
                        ctx.workspace,
                        names.join(", ")
                    ),
                )
                .with_data(serde_json::json!({ "candidates": names })));
            };
            if agent.id == node.author_id {
                return Err(ToolError::new(
                    ErrorKind::Conflict,
                    format!("/agent: {name} raised finding {}: a peer review is another reviewer's look", node.id),
                )
                .at("/agent")
                .with_data(serde_json::json!({ "gate": "author_peer_review", "author": node.author })));
            }
            (agent, "named by the caller".to_string())
        }
        None => {
            let cohort = area_of(&ctx, &review, &node.area, "/node_id").await?;
            let agents = reviewers(&ctx).await?;
            let mut exclude = vec![node.author_id.clone()];
            exclude.extend(agents.iter().filter(|g| node.confirmed_by.contains(&g.name)).map(|g| g.id.clone()));
            match choose(&agents, std::slice::from_ref(&cohort), &exclude).remove(0).1 {
                Some((agent, why)) => (agent.clone(), why),
                None => {
                    return Err(ToolError::new(
                        ErrorKind::Unavailable,
                        format!(
                            "/node_id: workspace '{}' has no other reviewer agent (a skill 'review') than the finding's author and its confirmers; name one with agent",
                            ctx.workspace
                        ),
                    )
                    .at("/node_id"))
                }
            }
        }
    };
    let text = format!("{} asks {} for a second look at {}", caller_name(&ctx), agent.name, node.id);
    store
        .reviews()
        .record(&review.id, Some(&node.id), "peer_review", &caller_name(&ctx), &text)
        .await
        .map_err(|e| at(e, "/node_id"))?;
    let brief = format!(
        "{} asks you for a second look at a finding of review {} (space {}).\n\nreview_id: {}\narea: {}\nnode_id: {}\nfinding: {} {}:{} {}\nraised by: {}\n\n{}\n\nRead the code at the review's head ({}). If it holds, confirm it with confirm_review_node (node_id {}); if not, say why in the space with send_message.",
        caller_name(&ctx),
        review.id,
        review.space_id,
        review.id,
        node.area,
        node.id,
        node.priority.as_str(),
        node.file,
        node.line,
        node.title,
        node.author,
        node.body,
        review.head_sha,
        node.id
    );
    let run = dispatch_to(&ctx, &review, &agent, brief).await?;
    Ok(RequestPeerReviewOut { node_id: node.id, agent: agent.name.clone(), agent_id: agent.id.clone(), why, run })
}
