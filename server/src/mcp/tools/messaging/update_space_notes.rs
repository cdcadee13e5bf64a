//! update_space_notes: replace a space's handoff document.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::space_of;
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{Notes, StoreError};

pub const DECL: Decl = Decl {
    name: "update_space_notes",
    title: "Update space notes",
    description: "Replace a space's shared handoff document. With base_version (the version get_space_notes gave), an edit made meanwhile by someone else is refused with the current version instead of being overwritten.",
    set: ToolSet::Messaging,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints { read_only: false, destructive: true, idempotent: false, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateNotesArgs {
    /// The space (see list_spaces).
    #[schemars(length(min = 1, max = 100))]
    pub space_id: String,
    /// The whole new document (markdown).
    #[schemars(length(max = 200000))]
    pub text: String,
    /// The version this edit starts from: refused if the notes moved on since.
    #[schemars(range(min = 0))]
    pub base_version: Option<i64>,
}

pub async fn update_space_notes(ctx: Ctx<String>, a: UpdateNotesArgs) -> Result<Notes, ToolError> {
    let space = space_of(&ctx, &a.space_id, "/space_id").await?;
    let spaces = ctx.services.store.spaces();
    let by = ctx.principal.as_sender().name;
    match spaces.set_notes(&space.id, &a.text, &by, a.base_version).await {
        Ok(n) => Ok(n),
        Err(StoreError::Conflict(m)) => {
            let current = spaces.notes(&space.id).await?.map(|n| n.version);
            Err(ToolError::new(crate::mcp::tool::ErrorKind::Conflict, format!("/base_version: {m}"))
                .at("/base_version")
                .with_data(json!({ "current_version": current })))
        }
        Err(e) => Err(e.into()),
    }
}
