//! list_memory_domains: the workspace's domains with their counts and writers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::Domain;

pub const DECL: Decl = Decl {
    name: "list_memory_domains",
    title: "List memory domains",
    description: "List the workspace's memory domains by name, each with its active fact and policy counts and who may write policies to it.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListMemoryDomainsArgs {}

#[derive(Serialize, JsonSchema)]
pub struct ListMemoryDomainsOut {
    pub domains: Vec<Domain>,
}

pub async fn list_memory_domains(
    ctx: Ctx<String>,
    _: ListMemoryDomainsArgs,
) -> Result<ListMemoryDomainsOut, ToolError> {
    Ok(ListMemoryDomainsOut { domains: ctx.services.store.memory().domains(&ctx.workspace).await? })
}
