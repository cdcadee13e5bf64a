//! publish_review_to_github: a finalized review posted as a pull-request review.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::review_of;
use crate::mcp::tool::{ActionClass, Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::providers::github::{GhError, GitHub, NewReview, ReviewComment, ReviewEvent, Side};
use crate::reviews::consensus::{node_consensus, Consensus};
use crate::reviews::publish::{place, summary_body};
use crate::store::reviews::{ReviewStatus, Verdict};

pub const DECL: Decl = Decl {
    name: "publish_review_to_github",
    title: "Publish a review to GitHub",
    description: "Post a finalized review to its GitHub pull request (the pr start_ai_review was given, or pr) as a pull-request review: the review's summary as its body, each open finding (confirmed or not) as an inline comment on its file and line of the head (RIGHT side). A finding on a line outside the pull request's diff goes into the body, under 'Findings outside the diff', instead of failing the whole review. A block verdict requests changes; hold and ship comment. Through the server's GitHub client ([tickets.github] in config.toml: base URL and token from the configuration only).",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[ActionClass::NetworkEgress],
    approval: false,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: false, idempotent: false, open_world: true },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PublishReviewToGithubArgs {
    /// The review (finalized).
    #[schemars(length(min = 1, max = 100))]
    pub review_id: String,
    /// The pull request's number (default: the one the review was started for).
    #[schemars(range(min = 1))]
    pub pr: Option<i64>,
}

#[derive(Serialize, JsonSchema)]
pub struct PublishReviewToGithubOut {
    pub review_id: String,
    pub pr: i64,
    /// GitHub's review id and page.
    pub github_review_id: i64,
    pub html_url: String,
    /// COMMENT or REQUEST_CHANGES.
    pub event: ReviewEvent,
    /// The findings posted inline.
    pub inline: Vec<ReviewComment>,
    /// The findings put into the body (outside the diff).
    pub in_summary: Vec<ReviewComment>,
}

fn gh_error(e: GhError) -> ToolError {
    match e {
        GhError::Refused(m) => ToolError::new(ErrorKind::Conflict, format!("GitHub refused: {m}")),
        GhError::Transient(m, _) => ToolError::new(ErrorKind::Unavailable, format!("GitHub: {m}; try again later")),
    }
}

pub async fn publish_review_to_github(
    ctx: Ctx<String>,
    a: PublishReviewToGithubArgs,
) -> Result<PublishReviewToGithubOut, ToolError> {
    let review = review_of(&ctx, &a.review_id, "/review_id").await?;
    if review.status != ReviewStatus::Finalized {
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!(
                "/review_id: review {} is open: finalize_review first (only a finalized review is published)",
                review.id
            ),
        )
        .at("/review_id"));
    }
    let Some(pr) = a.pr.or(review.pr) else {
        return Err(ToolError::invalid(
            "/pr",
            format!("/pr: review {} was not started from a pull request: give the pull request's number", review.id),
        ));
    };
    let Some(config) = ctx.services.config.tickets.github.as_ref() else {
        return Err(ToolError::new(
            ErrorKind::Unavailable,
            "this server has no GitHub client: the operator configures [tickets.github] (repository, token) in config.toml",
        ));
    };
    let gh = GitHub::from_config(config, None).map_err(|m| ToolError::new(ErrorKind::Unavailable, m))?;
    let files = gh.pull_request_files(pr).await.map_err(|e| gh_error(e).at("/pr"))?;
    let nodes = ctx.services.store.reviews().nodes(&review.id).await?;
    let comments: Vec<ReviewComment> = nodes
        .iter()
        .filter(|n| matches!(node_consensus(n), Consensus::Confirmed | Consensus::Unconfirmed))
        .map(|n| {
            let who = if n.confirmed_by.is_empty() {
                format!("raised by {}, unconfirmed", n.author)
            } else {
                format!("raised by {}, confirmed by {}", n.author, n.confirmed_by.join(", "))
            };
            let mut body = format!("**{} {}** ({who})", n.priority.as_str(), n.title);
            if !n.body.trim().is_empty() {
                body.push_str("\n\n");
                body.push_str(n.body.trim());
            }
            ReviewComment { path: n.file.clone(), line: n.line.max(1) as u32, side: Side::Right, body }
        })
        .collect();
    let placed = place(comments, &files);
    let event = if review.verdict == Some(Verdict::Block) { ReviewEvent::RequestChanges } else { ReviewEvent::Comment };
    let body = summary_body(review.summary.as_deref().unwrap_or(""), &placed.outside);
    let posted = gh
        .create_review(
            pr,
            &NewReview { commit_id: review.head_sha.clone(), body, event, comments: placed.inline.clone() },
        )
        .await
        .map_err(|e| gh_error(e).at("/pr"))?;
    Ok(PublishReviewToGithubOut {
        review_id: review.id,
        pr,
        github_review_id: posted.id,
        html_url: posted.html_url,
        event,
        inline: placed.inline,
        in_summary: placed.outside,
    })
}
