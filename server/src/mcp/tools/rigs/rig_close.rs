//! rig_close: destroy a rig — of this replica's pool, or of another replica's, which is
//! asked to close it (and waited for, at most `replicas::REMOTE_CLOSE_WAIT`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{record_out, rig_error, rig_out, RigOut};
use crate::mcp::tool::{ActionClass, Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::replicas::RemoteCloseError;

pub const DECL: Decl = Decl {
    name: "rig_close",
    title: "Close a rig",
    description: "Destroy a rig and discard the machine state it owns (browser, driver processes and profile; desktop container; a device rig's session, the Android apps it started and the emulator it booted). A rig of another replica is closed by that replica.",
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
    let here = ctx.services.replica.clone();
    let not_here = match pool.close(&ctx.workspace, &id).await {
        Ok(info) => return Ok(RigCloseOut { closed: rig_out(info, &here) }),
        Err(cc_rigs::RigError::NoRig(why)) => why,
        Err(e) => return Err(rig_error(e)),
    };
    // Not in this replica's pool: another replica's, if its records say so.
    let store_err = |e: crate::store::StoreError| ToolError::internal(format!("the rig records: {e}"));
    let listed = ctx.services.store.replicas().rig(&ctx.workspace, &id).await.map_err(store_err)?;
    let Some(listed) = listed.filter(|l| l.replica.id != here.id) else {
        return Err(rig_error(cc_rigs::RigError::NoRig(not_here)));
    };
    let owner = listed.replica.clone();
    match crate::replicas::close_remote(&ctx.services, listed.clone(), crate::replicas::REMOTE_CLOSE_WAIT).await {
        Ok(_) => Ok(RigCloseOut { closed: record_out(listed, &here) }),
        Err(e) => {
            let (kind, message) = match e {
                RemoteCloseError::Lost(m) | RemoteCloseError::NotShared(m) => (ErrorKind::Unavailable, m),
                RemoteCloseError::NoAnswer(m) => (ErrorKind::Timeout, m),
                RemoteCloseError::Store(e) => return Err(store_err(e)),
            };
            let data = serde_json::json!({
                "rig_id": id,
                "replica_id": owner.id,
                "replica": crate::replicas::describe_host(&owner),
            });
            Err(ToolError { error: kind, pointer: Some("/rig_id".into()), message, data: Some(data) })
        }
    }
}
