//! submit_reviewer_verdict: a reviewer's ship / hold / block, with a confidence.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, at, open_review};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::post;
use crate::store::reviews::{ReviewerVerdict, Verdict};

pub const DECL: Decl = Decl {
    name: "submit_reviewer_verdict",
    title: "Submit a reviewer verdict",
    description: "Record your verdict on an open review: ship, hold or block, a confidence from 0 to 1 and an explanation. One verdict per reviewer counts: a later one replaces yours (the earlier ones are kept in the history, answered here). finalize_review weighs the current verdicts by their confidence.",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitReviewerVerdictArgs {
    /// The review.
    #[schemars(length(min = 1, max = 100))]
    pub review_id: String,
    /// ship (merge it), hold (not as is), block (must not merge).
    pub verdict: Verdict,
    /// How sure you are, 0 to 1.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: f64,
    /// Why.
    #[schemars(length(min = 1, max = 20000))]
    pub explanation: String,
}

#[derive(Serialize, JsonSchema)]
pub struct SubmitReviewerVerdictOut {
    pub verdict: ReviewerVerdict,
    /// Your verdicts on this review, oldest first (the last is current).
    pub history: Vec<ReviewerVerdict>,
}

pub async fn submit_reviewer_verdict(
    ctx: Ctx<String>,
    a: SubmitReviewerVerdictArgs,
) -> Result<SubmitReviewerVerdictOut, ToolError> {
    let review = open_review(&ctx, &a.review_id, "/review_id").await?;
    if !(0.0..=1.0).contains(&a.confidence) || !a.confidence.is_finite() {
        return Err(ToolError::invalid("/confidence", format!("/confidence: {} is not between 0 and 1", a.confidence)));
    }
    let me = actor(&ctx);
    let store = ctx.services.store.reviews();
    let v = store
        .submit_verdict(&review.id, a.verdict, a.confidence, a.explanation.trim(), &me)
        .await
        .map_err(|e| at(e, "/review_id"))?;
    post(
        &ctx,
        &review.space_id,
        &format!("verdict {} (confidence {:.2}) — {}: {}", v.verdict.as_str(), v.confidence, me.name, v.explanation),
        None,
    )
    .await?;
    let history = store.verdicts(&review.id, true).await?.into_iter().filter(|h| h.reviewer_id == me.id).collect();
    Ok(SubmitReviewerVerdictOut { verdict: v, history })
}
