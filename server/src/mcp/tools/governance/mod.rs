//! Governance tools: work products (create_work_product, save_work_product_revision,
//! list_work_products, get_work_product) — a ticket's durable deliverables, revised against
//! the revision a writer read. A work product is named by `work_product_id`, a revision by
//! `revision_id`, a ticket by `ticket_id` (id or key), all of the call's workspace.

mod create_work_product;
mod get_work_product;
mod list_work_products;
mod save_work_product_revision;

use crate::mcp::tool::{Ctx, Registry, ToolError};
use crate::store::WorkProduct;

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(create_work_product::DECL, create_work_product::create_work_product);
    r.add(save_work_product_revision::DECL, save_work_product_revision::save_work_product_revision);
    r.add(list_work_products::DECL, list_work_products::list_work_products);
    r.add(get_work_product::DECL, get_work_product::get_work_product);
}

/// The work product `id` of the call's workspace, or an error naming `pointer`.
pub(crate) async fn work_product_of(ctx: &Ctx<String>, id: &str, pointer: &str) -> Result<WorkProduct, ToolError> {
    match ctx.services.store.work_products().get(id).await? {
        Some(w) if w.workspace_id == ctx.workspace => Ok(w),
        _ => Err(ToolError::not_found(
            pointer,
            format!(
                "{pointer}: no work product '{id}' in workspace '{}'; list_work_products lists them",
                ctx.workspace
            ),
        )),
    }
}
