//! get_work_product: a work product with its revision history.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::work_product_of;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{Revision, WorkProduct};

pub const DECL: Decl = Decl {
    name: "get_work_product",
    title: "Get a work product",
    description: "Read a work product with its revision history, first to last (the last is current_revision_id).",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetWorkProductArgs {
    /// The work product (from create_work_product or a ticket's work products).
    #[schemars(length(min = 1, max = 100))]
    pub work_product_id: String,
}

#[derive(Serialize, JsonSchema)]
pub struct GetWorkProductOut {
    pub work_product: WorkProduct,
    pub revisions: Vec<Revision>,
}

pub async fn get_work_product(ctx: Ctx<String>, a: GetWorkProductArgs) -> Result<GetWorkProductOut, ToolError> {
    let work_product = work_product_of(&ctx, &a.work_product_id, "/work_product_id").await?;
    let revisions = ctx.services.store.work_products().revisions(&work_product.id).await?;
    Ok(GetWorkProductOut { work_product, revisions })
}
