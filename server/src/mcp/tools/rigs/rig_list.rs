//! rig_list: a workspace's rigs.

use schemars::JsonSchema;
use serde::Serialize;

use super::{rig_error, rig_out, RigOut};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "rig_list",
    title: "List rigs",
    description: "List a workspace's rigs with their surface, engine, status, display size, controller (conversation), created and last-used times.",
    set: ToolSet::Rigs,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Serialize, JsonSchema)]
pub struct RigListOut {
    pub workspace_id: String,
    pub rigs: Vec<RigOut>,
    /// The pool's limits.
    pub max_rigs: usize,
    pub idle_timeout_secs: u64,
}

pub async fn rig_list(ctx: Ctx<String>, _: NoArgs) -> Result<RigListOut, ToolError> {
    let pool = ctx.services.rigs.pool().map_err(rig_error)?;
    Ok(RigListOut {
        rigs: pool.list(Some(&ctx.workspace)).into_iter().map(rig_out).collect(),
        workspace_id: ctx.workspace,
        max_rigs: pool.config().max_rigs,
        idle_timeout_secs: pool.config().idle_timeout.as_secs(),
    })
}
