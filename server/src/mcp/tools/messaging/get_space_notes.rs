//! get_space_notes: a space's shared handoff document.

use schemars::JsonSchema;
use serde::Deserialize;

use super::space_of;
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::Notes;

pub const DECL: Decl = Decl {
    name: "get_space_notes",
    title: "Get space notes",
    description: "Read a space's shared handoff document, with its version (send it back as base_version to update_space_notes to refuse a concurrent edit).",
    set: ToolSet::Messaging,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpaceArgs {
    /// The space (see list_spaces).
    #[schemars(length(min = 1, max = 100))]
    pub space_id: String,
}

pub async fn get_space_notes(ctx: Ctx<String>, a: SpaceArgs) -> Result<Notes, ToolError> {
    let space = space_of(&ctx, &a.space_id, "/space_id").await?;
    Ok(ctx.services.store.spaces().notes(&space.id).await?.expect("the space exists"))
}
