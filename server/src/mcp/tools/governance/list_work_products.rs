//! list_work_products: a workspace's work products, or one ticket's.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::tickets::ticket_of;
use crate::store::WorkProduct;

pub const DECL: Decl = Decl {
    name: "list_work_products",
    title: "List work products",
    description:
        "List the workspace's work products, oldest first, optionally only one ticket's (ticket_id: id or key).",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListWorkProductsArgs {
    /// Only this ticket's: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ListWorkProductsOut {
    pub work_products: Vec<WorkProduct>,
}

pub async fn list_work_products(ctx: Ctx<String>, a: ListWorkProductsArgs) -> Result<ListWorkProductsOut, ToolError> {
    let ticket = match &a.ticket_id {
        Some(t) => Some(ticket_of(&ctx, t, "/ticket_id").await?.id),
        None => None,
    };
    let work_products = ctx.services.store.work_products().list(&ctx.workspace, ticket.as_deref()).await?;
    Ok(ListWorkProductsOut { work_products })
}
