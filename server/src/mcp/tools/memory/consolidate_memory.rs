//! consolidate_memory: the "sleep" pass over the caller's hot memory.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{domain_name, owner};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::memory::Consolidation;

pub const DECL: Decl = Decl {
    name: "consolidate_memory",
    title: "Consolidate memory",
    description: "Run a consolidation (\"sleep\") pass over the calling agent's hot memory: expired items are evicted; items marked durable, or remembered in two sessions or more, are promoted to facts of the domain given (made when new), each promotion recorded with its source items; evicted items never promoted are purged after 30 days.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConsolidateMemoryArgs {
    /// The domain promoted facts go to.
    #[schemars(length(min = 1, max = 64))]
    pub domain: String,
}

pub async fn consolidate_memory(ctx: Ctx<String>, a: ConsolidateMemoryArgs) -> Result<Consolidation, ToolError> {
    let name = domain_name(&a.domain, "/domain")?;
    let (key, who) = owner(&ctx);
    let m = ctx.services.store.memory();
    let (d, _) = m.ensure_domain(&ctx.workspace, name, &key, &who).await?;
    Ok(m.consolidate(&ctx.workspace, &key, &d.id, &who).await?)
}
