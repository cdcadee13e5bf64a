//! save_work_product_revision: a new revision, on the revision its writer read.

use schemars::JsonSchema;
use serde::Deserialize;

use super::work_product_of;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::tickets::caller;
use crate::store::{Revision, StoreError};

pub const DECL: Decl = Decl {
    name: "save_work_product_revision",
    title: "Save a work product revision",
    description: "Save a new revision of a work product: base_revision_id is the revision the content was written on (get_work_product's current_revision_id). If another revision was saved since, it is rejected with the current revision's id (error conflict, data.current_revision_id): read it, merge, and save again.",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveWorkProductRevisionArgs {
    /// The work product to revise.
    #[schemars(length(min = 1, max = 100))]
    pub work_product_id: String,
    /// The revision this content was written on.
    #[schemars(length(min = 1, max = 100))]
    pub base_revision_id: String,
    /// The whole new content.
    #[schemars(length(max = 1000000))]
    pub content: String,
}

pub async fn save_work_product_revision(
    ctx: Ctx<String>,
    a: SaveWorkProductRevisionArgs,
) -> Result<Revision, ToolError> {
    let w = work_product_of(&ctx, &a.work_product_id, "/work_product_id").await?;
    let store = ctx.services.store.work_products();
    match store.save_revision(&w.id, &a.base_revision_id, &a.content, &caller(&ctx).0).await {
        Ok(r) => Ok(r),
        Err(e @ StoreError::Conflict(_)) => {
            let current = store.get(&w.id).await?.map(|w| w.current_revision_id);
            Err(ToolError::from(e)
                .at("/base_revision_id")
                .with_data(serde_json::json!({ "current_revision_id": current })))
        }
        Err(e) => Err(e.into()),
    }
}
