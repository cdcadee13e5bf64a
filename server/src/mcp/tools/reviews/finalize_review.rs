//! finalize_review: per-finding consensus and the review's verdict by the documented rule,
//! then the review is closed and its summary written.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, at, open_review};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::post;
use crate::reviews::consensus::{decide, node_consensus, Consensus, Decision};
use crate::store::reviews::{Node, Review, ReviewerVerdict};

pub const DECL: Decl = Decl {
    name: "finalize_review",
    title: "Finalize a review",
    description: "Compute each finding's consensus (dismissed, resolved, confirmed: open and confirmed by a reviewer other than its author, or unconfirmed) and the review's verdict by the first rule that applies: (1) an open confirmed P0 blocks; (2) an open confirmed P1 holds (blocks if rule 3 says block); (3) the reviewers' current verdicts weighed by confidence (summed per verdict), the heaviest wins, ties to the stricter (block > hold > ship); (4) no verdict and nothing confirmed: hold. Unconfirmed findings, P2 and P3 never decide. Then the review is closed (later findings, confirmations, verdicts, summaries: error conflict), and the summary (verdict, rule, areas with their summaries, findings) is stored, posted into the space and answered.",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FinalizeReviewArgs {
    /// The review.
    #[schemars(length(min = 1, max = 100))]
    pub review_id: String,
}

#[derive(Serialize, JsonSchema)]
pub struct NodeOut {
    #[serde(flatten)]
    pub node: Node,
    pub consensus: Consensus,
}

#[derive(Serialize, JsonSchema)]
pub struct FinalizeReviewOut {
    pub review: Review,
    pub decision: Decision,
    pub nodes: Vec<NodeOut>,
    /// The reviewers' current verdicts.
    pub verdicts: Vec<ReviewerVerdict>,
    /// The summary (markdown), as stored and posted.
    pub summary: String,
}

pub async fn finalize_review(ctx: Ctx<String>, a: FinalizeReviewArgs) -> Result<FinalizeReviewOut, ToolError> {
    let review = open_review(&ctx, &a.review_id, "/review_id").await?;
    let store = ctx.services.store.reviews();
    let nodes = store.nodes(&review.id).await?;
    let verdicts = store.verdicts(&review.id, false).await?;
    let cohorts = store.cohorts(&review.id).await?;
    let d = decide(&nodes, &verdicts);
    let mut s = format!(
        "## Review of {} {}..{}: {}\n\n{} (rule {}).\n",
        review.repo,
        &review.base_sha[..12.min(review.base_sha.len())],
        &review.head_sha[..12.min(review.head_sha.len())],
        d.verdict.as_str(),
        d.why,
        d.rule
    );
    s.push_str("\n### Areas\n");
    for c in &cohorts {
        s.push_str(&format!(
            "- **{}** ({} changed symbols; blast radius {} callers in {} files){}\n",
            c.area,
            c.symbols.len(),
            c.callers,
            c.caller_files.len(),
            c.summary.as_deref().map(|t| format!(": {t}")).unwrap_or_default()
        ));
    }
    if !nodes.is_empty() {
        s.push_str("\n### Findings\n");
        for n in &nodes {
            let c = node_consensus(n);
            s.push_str(&format!(
                "- {} {}:{} {} — {:?}{}{}\n",
                n.priority.as_str(),
                n.file,
                n.line,
                n.title,
                c,
                if n.confirmed_by.is_empty() { String::new() } else { format!(" by {}", n.confirmed_by.join(", ")) },
                n.suppressed_by.as_deref().map(|f| format!(" (suppressed: {f})")).unwrap_or_default()
            ));
        }
    }
    if !verdicts.is_empty() {
        s.push_str("\n### Verdicts\n");
        for v in &verdicts {
            s.push_str(&format!(
                "- {}: {} ({:.2}) — {}\n",
                v.reviewer,
                v.verdict.as_str(),
                v.confidence,
                v.explanation
            ));
        }
    }
    let review = store.finalize(&review.id, d.verdict, &s, &actor(&ctx)).await.map_err(|e| at(e, "/review_id"))?;
    post(&ctx, &review.space_id, &s, None).await?;
    let nodes = nodes.into_iter().map(|n| NodeOut { consensus: node_consensus(&n), node: n }).collect();
    Ok(FinalizeReviewOut { review, decision: d, nodes, verdicts, summary: s })
}
