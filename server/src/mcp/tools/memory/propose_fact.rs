//! propose_fact: a short markdown fact into a domain (made by the first fact proposed into it).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{domain_name, owner};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::memory::NewEntry;
use crate::store::{Entry, EntryKind};

pub const DECL: Decl = Decl {
    name: "propose_fact",
    title: "Propose a fact",
    description: "Save a short markdown fact into a memory domain of the workspace, with its author (the caller), source and time. A domain that does not exist yet is made by its first fact, its proposer its first writer. A fact that replaces another is linked with supersede_fact.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposeFactArgs {
    /// The domain: 1 to 64 lower-case letters, digits, '.', '-' and '_' (see list_memory_domains).
    #[schemars(length(min = 1, max = 64))]
    pub domain: String,
    /// The fact, in short markdown.
    #[schemars(length(min = 1, max = 4000))]
    pub text: String,
    /// Where it comes from: a URL, a ticket, a file, a conversation.
    #[schemars(length(max = 500))]
    pub source: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ProposeFactOut {
    pub fact: Entry,
    /// The domain was made by this fact.
    pub domain_created: bool,
}

/// The trimmed text, or an error naming `/text`.
pub(crate) fn text_of(text: &str) -> Result<&str, ToolError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ToolError::invalid("/text", "/text: write the entry (it is empty)"));
    }
    Ok(t)
}

pub async fn propose_fact(ctx: Ctx<String>, a: ProposeFactArgs) -> Result<ProposeFactOut, ToolError> {
    let name = domain_name(&a.domain, "/domain")?;
    let text = text_of(&a.text)?;
    let (key, who) = owner(&ctx);
    let memory = ctx.services.store.memory();
    let (d, domain_created) = memory.ensure_domain(&ctx.workspace, name, &key, &who).await?;
    let e = NewEntry {
        kind: EntryKind::Fact,
        text,
        author: &who,
        author_key: &key,
        source: a.source.as_deref().unwrap_or("").trim(),
    };
    let fact = memory.propose(&ctx.workspace, &d.id, e).await?;
    Ok(ProposeFactOut { fact, domain_created })
}
