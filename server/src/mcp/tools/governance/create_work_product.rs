//! create_work_product: a durable deliverable of a ticket, with its first revision.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::tickets::{caller, ticket_of};
use crate::store::{Revision, WorkProduct};

pub const DECL: Decl = Decl {
    name: "create_work_product",
    title: "Create a work product",
    description: "Create a durable deliverable attached to a ticket (ticket_id: id or key): a kind (document, code, design, report, … in a word), a title and its content, which is revision 1. Later revisions are saved with save_work_product_revision.",
    set: ToolSet::Governance,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWorkProductArgs {
    /// The ticket it belongs to: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// What it is, in a word (document, code, design, report, …).
    #[schemars(length(min = 1, max = 50), regex(pattern = r"^[a-z][a-z0-9_-]*$"))]
    pub kind: String,
    /// The work product's title.
    #[schemars(length(min = 1, max = 500))]
    pub title: String,
    /// The first revision's content.
    #[schemars(length(max = 1000000))]
    pub content: String,
}

#[derive(Serialize, JsonSchema)]
pub struct CreateWorkProductOut {
    pub work_product: WorkProduct,
    pub revision: Revision,
}

pub async fn create_work_product(
    ctx: Ctx<String>,
    a: CreateWorkProductArgs,
) -> Result<CreateWorkProductOut, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    let by = caller(&ctx).0;
    let (work_product, revision) =
        ctx.services.store.work_products().create(&ctx.workspace, &t.id, &a.kind, &a.title, &a.content, &by).await?;
    Ok(CreateWorkProductOut { work_product, revision })
}
