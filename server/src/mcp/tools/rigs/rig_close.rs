//! rig_close: destroy a rig.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{rig_error, rig_out, RigOut};
use crate::mcp::tool::{ActionClass, Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "rig_close",
    title: "Close a rig",
    description: "Destroy a rig and discard the machine state it owns (browser, driver processes and profile; desktop container; a device rig's session, the Android apps it started and the emulator it booted).",
    set: ToolSet::Rigs,
    scope: Scope::Required,
    classes: &[ActionClass::EnclosureControl],
    approval: false,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: true, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RigCloseArgs {
    /// The rig to destroy (see rig_list); without it, the one rig this conversation controls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String", length(min = 1, max = 100))]
    pub rig_id: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct RigCloseOut {
    pub closed: RigOut,
}

pub async fn rig_close(ctx: Ctx<String>, a: RigCloseArgs) -> Result<RigCloseOut, ToolError> {
    let pool = ctx.services.rigs.pool().map_err(rig_error)?;
    let id = match a.rig_id {
        Some(id) => id,
        None => {
            let mine: Vec<String> = pool
                .list(Some(&ctx.workspace))
                .into_iter()
                .filter(|r| r.controller == ctx.conversation.id)
                .map(|r| r.id)
                .collect();
            match mine.as_slice() {
                [one] => one.clone(),
                [] => {
                    return Err(ToolError::invalid(
                        "/rig_id",
                        "/rig_id: this conversation controls no rig; name one of the workspace's (rig_list)",
                    ))
                }
                many => {
                    let message = format!(
                        "/rig_id: this conversation controls {} rigs ({}); name one",
                        many.len(),
                        many.join(", ")
                    );
                    return Err(ToolError::invalid("/rig_id", message));
                }
            }
        }
    };
    let info = pool.close(&ctx.workspace, &id).await.map_err(rig_error)?;
    Ok(RigCloseOut { closed: rig_out(info) })
}
