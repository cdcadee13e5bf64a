//! supersede_fact: one fact replaced by another; the chain is kept.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{domain_of, entry_of, may_write, owner, refused};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{Entry, EntryKind, EntryStatus};

pub const DECL: Decl = Decl {
    name: "supersede_fact",
    title: "Supersede a fact",
    description: "Mark the fact old_id as superseded by the fact new_id (active, of the workspace; propose it first with propose_fact). The old fact is kept, out of search unless include_superseded is asked, and the whole chain is answered, first fact to last. Its author, a writer of its domain or the operator may do it.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SupersedeFactArgs {
    /// The fact that no longer holds.
    #[schemars(length(min = 1, max = 100))]
    pub old_id: String,
    /// The fact that replaces it.
    #[schemars(length(min = 1, max = 100))]
    pub new_id: String,
}

#[derive(Serialize, JsonSchema)]
pub struct SupersedeOut {
    /// The old entry, as it is now.
    pub superseded: Entry,
    /// The supersession chain, first entry to last.
    pub chain: Vec<Entry>,
}

pub async fn supersede_fact(ctx: Ctx<String>, a: SupersedeFactArgs) -> Result<SupersedeOut, ToolError> {
    let old = entry_of(&ctx, &a.old_id, EntryKind::Fact, "/old_id").await?;
    let new = entry_of(&ctx, &a.new_id, EntryKind::Fact, "/new_id").await?;
    if old.id == new.id {
        return Err(ToolError::invalid("/new_id", "/new_id: a fact cannot supersede itself"));
    }
    if new.status != EntryStatus::Active {
        return Err(ToolError::invalid(
            "/new_id",
            format!("/new_id: {} is {}, not active", new.id, new.status.as_str()),
        ));
    }
    if old.author_key != owner(&ctx).0 {
        let d = domain_of(&ctx, &old.domain, "/old_id").await?;
        if !may_write(&ctx, &d) {
            return Err(refused(&ctx, &d, "/old_id", "superseding another author's fact"));
        }
    }
    let memory = ctx.services.store.memory();
    let superseded = memory.supersede(&ctx.workspace, &old.id, Some(&new.id), EntryStatus::Superseded).await?;
    let chain = memory.chain(&new.id).await?;
    Ok(SupersedeOut { superseded, chain })
}
