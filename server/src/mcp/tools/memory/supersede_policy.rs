//! supersede_policy: a policy retired (or replaced by another); kept for audit.

use schemars::JsonSchema;
use serde::Deserialize;

use super::supersede_fact::SupersedeOut;
use super::{domain_of, entry_of, may_write, refused};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{EntryKind, EntryStatus};

pub const DECL: Decl = Decl {
    name: "supersede_policy",
    title: "Retire a policy",
    description: "Retire the policy old_id: it becomes inactive and is kept for audit (search_memory shows it with include_superseded). With new_id (an active policy, proposed first with propose_policy) it is superseded by that policy and the chain is answered. Requires write access to the policy's domain.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SupersedePolicyArgs {
    /// The policy to retire.
    #[schemars(length(min = 1, max = 100))]
    pub old_id: String,
    /// The policy that replaces it (none: retired without a replacement).
    #[schemars(length(min = 1, max = 100))]
    pub new_id: Option<String>,
}

pub async fn supersede_policy(ctx: Ctx<String>, a: SupersedePolicyArgs) -> Result<SupersedeOut, ToolError> {
    let old = entry_of(&ctx, &a.old_id, EntryKind::Policy, "/old_id").await?;
    let d = domain_of(&ctx, &old.domain, "/old_id").await?;
    if !may_write(&ctx, &d) {
        return Err(refused(&ctx, &d, "/old_id", "supersede_policy"));
    }
    let new = match &a.new_id {
        Some(id) => {
            let n = entry_of(&ctx, id, EntryKind::Policy, "/new_id").await?;
            if n.id == old.id {
                return Err(ToolError::invalid("/new_id", "/new_id: a policy cannot supersede itself"));
            }
            if n.status != EntryStatus::Active {
                return Err(ToolError::invalid(
                    "/new_id",
                    format!("/new_id: {} is {}, not active", n.id, n.status.as_str()),
                ));
            }
            Some(n.id)
        }
        None => None,
    };
    let status = if new.is_some() { EntryStatus::Superseded } else { EntryStatus::Retired };
    let memory = ctx.services.store.memory();
    let superseded = memory.supersede(&ctx.workspace, &old.id, new.as_deref(), status).await?;
    let chain = memory.chain(&old.id).await?;
    Ok(SupersedeOut { superseded, chain })
}
