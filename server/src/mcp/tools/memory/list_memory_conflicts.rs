//! list_memory_conflicts: the conflicts harmonization found, with their resolutions.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::domain_of;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::memory::{Conflict, Resolution};

pub const DECL: Decl = Decl {
    name: "list_memory_conflicts",
    title: "List memory conflicts",
    description: "List the conflicts harmonize_memory detected, oldest first, each with both facts, what differs and how it was resolved (open, policy, supersession); optionally of one domain or one resolution.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListMemoryConflictsArgs {
    /// Only this domain's.
    #[schemars(length(min = 1, max = 64))]
    pub domain: Option<String>,
    /// Only those resolved this way.
    pub resolution: Option<Resolution>,
}

#[derive(Serialize, JsonSchema)]
pub struct ListMemoryConflictsOut {
    pub conflicts: Vec<Conflict>,
}

pub async fn list_memory_conflicts(
    ctx: Ctx<String>,
    a: ListMemoryConflictsArgs,
) -> Result<ListMemoryConflictsOut, ToolError> {
    let domain = match &a.domain {
        Some(d) => Some(domain_of(&ctx, d, "/domain").await?.id),
        None => None,
    };
    Ok(ListMemoryConflictsOut {
        conflicts: ctx.services.store.memory().conflicts(&ctx.workspace, domain.as_deref(), a.resolution).await?,
    })
}
