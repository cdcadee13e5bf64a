//! propose_policy: a normative rule into a domain the caller may write to.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::propose_fact::text_of;
use super::{domain_of, may_write, owner, refused};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::memory::NewEntry;
use crate::store::{Entry, EntryKind};

pub const DECL: Decl = Decl {
    name: "propose_policy",
    title: "Propose a policy",
    description: "Save a normative rule (a policy) into a memory domain. Requires write access to that domain (its writers are granted by the operator with `cc-server memory domains grant`); a caller without it is refused, and told who may write. A policy outranks a fact when harmonize_memory reconciles them.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposePolicyArgs {
    /// The domain (it must exist: see list_memory_domains).
    #[schemars(length(min = 1, max = 64))]
    pub domain: String,
    /// The rule, in short markdown.
    #[schemars(length(min = 1, max = 4000))]
    pub text: String,
    /// Where it comes from: a decision record, a ticket, a URL.
    #[schemars(length(max = 500))]
    pub source: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ProposePolicyOut {
    pub policy: Entry,
}

pub async fn propose_policy(ctx: Ctx<String>, a: ProposePolicyArgs) -> Result<ProposePolicyOut, ToolError> {
    let d = domain_of(&ctx, &a.domain, "/domain").await?;
    if !may_write(&ctx, &d) {
        return Err(refused(&ctx, &d, "/domain", "propose_policy"));
    }
    let text = text_of(&a.text)?;
    let (key, who) = owner(&ctx);
    let e = NewEntry {
        kind: EntryKind::Policy,
        text,
        author: &who,
        author_key: &key,
        source: a.source.as_deref().unwrap_or("").trim(),
    };
    let policy = ctx.services.store.memory().propose(&ctx.workspace, &d.id, e).await?;
    Ok(ProposePolicyOut { policy })
}
