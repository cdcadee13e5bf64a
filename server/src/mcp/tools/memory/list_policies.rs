//! list_policies: the active policies, of one domain or all.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::domain_of;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::Entry;

pub const DECL: Decl = Decl {
    name: "list_policies",
    title: "List policies",
    description: "List the workspace's active policies by domain, oldest first, optionally of one domain only.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListPoliciesArgs {
    /// Only this domain's.
    #[schemars(length(min = 1, max = 64))]
    pub domain: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ListPoliciesOut {
    pub policies: Vec<Entry>,
}

pub async fn list_policies(ctx: Ctx<String>, a: ListPoliciesArgs) -> Result<ListPoliciesOut, ToolError> {
    let domain = match &a.domain {
        Some(d) => Some(domain_of(&ctx, d, "/domain").await?.id),
        None => None,
    };
    let policies = ctx.services.store.memory().policies(&ctx.workspace, domain.as_deref()).await?;
    Ok(ListPoliciesOut { policies })
}
