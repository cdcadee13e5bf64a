//! set_cohort_summary: an area's plain-language summary.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{actor, area_of, at, open_review};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::reviews::Cohort;

pub const DECL: Decl = Decl {
    name: "set_cohort_summary",
    title: "Set a review area's summary",
    description: "Set the plain-language summary of an area (cohort) of an open review: what changed there and what it means for its callers. A later summary replaces it; finalize_review puts each area's summary into the review's summary.",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetCohortSummaryArgs {
    /// The review.
    #[schemars(length(min = 1, max = 100))]
    pub review_id: String,
    /// The area (start_ai_review's areas).
    #[schemars(length(min = 1, max = 500))]
    pub area: String,
    /// The summary, in plain language.
    #[schemars(length(min = 1, max = 20000))]
    pub summary: String,
}

pub async fn set_cohort_summary(ctx: Ctx<String>, a: SetCohortSummaryArgs) -> Result<Cohort, ToolError> {
    let review = open_review(&ctx, &a.review_id, "/review_id").await?;
    area_of(&ctx, &review, &a.area, "/area").await?;
    let summary = a.summary.trim();
    if summary.is_empty() {
        return Err(ToolError::invalid("/summary", "/summary: write the summary (it is empty)"));
    }
    ctx.services
        .store
        .reviews()
        .set_summary(&review.id, &a.area, summary, &actor(&ctx))
        .await
        .map_err(|e| at(e, "/review_id"))
}
