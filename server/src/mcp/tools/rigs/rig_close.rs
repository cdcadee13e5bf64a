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
    /// The rig to destroy (see rig_list).
    #[schemars(length(min = 1, max = 100))]
    pub rig_id: String,
}

#[derive(Serialize, JsonSchema)]
pub struct RigCloseOut {
    pub closed: RigOut,
}

pub async fn rig_close(ctx: Ctx<String>, a: RigCloseArgs) -> Result<RigCloseOut, ToolError> {
    let pool = ctx.services.rigs.pool().map_err(rig_error)?;
    let info = pool.close(&ctx.workspace, &a.rig_id).await.map_err(rig_error)?;
    Ok(RigCloseOut { closed: rig_out(info) })
}
