//! update_my_notes: replace the caller's scratchpad.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::owner;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::memory::OwnNotes;

pub const DECL: Decl = Decl {
    name: "update_my_notes",
    title: "Update my notes",
    description: "Replace the calling agent's working-memory scratchpad with content (markdown; send the whole document). Only the caller reads it, with get_my_notes.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints { read_only: false, destructive: true, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMyNotesArgs {
    /// The whole scratchpad.
    #[schemars(length(max = 100000))]
    pub content: String,
}

#[derive(Serialize, JsonSchema)]
pub struct UpdateMyNotesOut {
    pub notes: OwnNotes,
}

pub async fn update_my_notes(ctx: Ctx<String>, a: UpdateMyNotesArgs) -> Result<UpdateMyNotesOut, ToolError> {
    let notes = ctx.services.store.memory().set_notes(&ctx.workspace, &owner(&ctx).0, &a.content).await?;
    Ok(UpdateMyNotesOut { notes })
}
