//! rig_list: a workspace's rigs, on every replica of the store (this one's from its pool,
//! the others' from their records).

use schemars::JsonSchema;
use serde::Serialize;

use super::{record_out, rig_error, rig_out, RigOut};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "rig_list",
    title: "List rigs",
    description: "List a workspace's rigs with their surface, engine, status, display size, controller (conversation), created and last-used times, and the replica (server process) holding each.",
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
    let here = &ctx.services.replica;
    let mut rigs: Vec<RigOut> = pool.list(Some(&ctx.workspace)).into_iter().map(|r| rig_out(r, here)).collect();
    // The other replicas' (this one's records are its pool, listed above as it is now).
    let records = ctx
        .services
        .store
        .replicas()
        .rigs(&ctx.workspace)
        .await
        .map_err(|e| ToolError::internal(format!("the rig records: {e}")))?;
    rigs.extend(records.into_iter().filter(|l| l.replica.id != here.id).map(|l| record_out(l, here)));
    rigs.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
    Ok(RigListOut {
        rigs,
        workspace_id: ctx.workspace,
        max_rigs: pool.config().max_rigs,
        idle_timeout_secs: pool.config().idle_timeout.as_secs(),
    })
}
