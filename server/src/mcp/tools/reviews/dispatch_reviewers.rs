//! dispatch_reviewers: the matching reviewer agents of every area (or the areas named), in parallel.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{dispatch_areas, open_review, Assignment};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "dispatch_reviewers",
    title: "Dispatch reviewers",
    description: "Dispatch to an open review's space, in parallel, the reviewer agent of each area (or of the areas named): the workspace's reviewer agent (a skill 'review') whose skills, description and name best match the area's packages, files, languages and symbols (BM25; when none matches, the reviewer with the fewest areas so far). Each is started with a brief naming its area, files, changed symbols and their callers. start_ai_review does this itself unless told dispatch: false.",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DispatchReviewersArgs {
    /// The review.
    #[schemars(length(min = 1, max = 100))]
    pub review_id: String,
    /// Only these areas (default: every area).
    #[schemars(length(min = 1, max = 100))]
    pub areas: Option<Vec<String>>,
}

#[derive(Serialize, JsonSchema)]
pub struct DispatchReviewersOut {
    pub review_id: String,
    pub reviewers: Vec<Assignment>,
    /// Areas no reviewer agent was found for.
    pub unassigned_areas: Vec<String>,
}

pub async fn dispatch_reviewers(ctx: Ctx<String>, a: DispatchReviewersArgs) -> Result<DispatchReviewersOut, ToolError> {
    let review = open_review(&ctx, &a.review_id, "/review_id").await?;
    let mut cohorts = ctx.services.store.reviews().cohorts(&review.id).await?;
    if let Some(wanted) = &a.areas {
        let names: Vec<String> = cohorts.iter().map(|c| c.area.clone()).collect();
        for (i, w) in wanted.iter().enumerate() {
            if !names.contains(w) {
                return Err(ToolError::not_found(
                    &format!("/areas/{i}"),
                    format!("/areas/{i}: review {} has no area '{w}'; its areas: {}", review.id, names.join(", ")),
                )
                .with_data(serde_json::json!({ "areas": names })));
            }
        }
        cohorts.retain(|c| wanted.contains(&c.area));
    }
    let (reviewers, unassigned_areas) = dispatch_areas(&ctx, &review, &cohorts).await?;
    Ok(DispatchReviewersOut { review_id: review.id, reviewers, unassigned_areas })
}
