//! harmonize_memory: cross-agent belief reconciliation.

use schemars::JsonSchema;
use serde::Deserialize;

use super::domain_of;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::memory::Harmony;

pub const DECL: Decl = Decl {
    name: "harmonize_memory",
    title: "Harmonize memory",
    description: "Run cross-agent belief reconciliation: find pairs of active facts by different authors in a domain that contradict each other (near-duplicates by embedding — by shared words without a model — that differ in a number, a negation, a date or a name), record each conflict with both facts and the resolution applied: a policy of the domain agreeing with one side outranks the other (superseded by the policy); an explicit supersession wins (a fact restating what another superseded is superseded by it); otherwise the conflict stays open for the operator. Earlier open conflicts decided by a supersession since are resolved. list_memory_conflicts lists them.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HarmonizeMemoryArgs {
    /// Only this domain (default every domain).
    #[schemars(length(min = 1, max = 64))]
    pub domain: Option<String>,
}

pub async fn harmonize_memory(ctx: Ctx<String>, a: HarmonizeMemoryArgs) -> Result<Harmony, ToolError> {
    let domain = match &a.domain {
        Some(d) => Some(domain_of(&ctx, d, "/domain").await?.id),
        None => None,
    };
    Ok(ctx.services.memory.harmonize(&ctx.services.store, &ctx.workspace, domain.as_deref()).await?)
}
