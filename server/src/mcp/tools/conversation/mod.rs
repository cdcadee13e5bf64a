//! Conversation tools: set_mode and exit_plan_mode. A conversation's mode is held by the
//! server; these are the only ways a call changes it, and leaving a restricted mode asks
//! the confirmation port first (entering one from chat narrows what may be called, so
//! it needs no approval).

mod exit_plan_mode;
mod set_mode;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, ErrorKind, Registry, ToolError};

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(set_mode::DECL, set_mode::set_mode);
    r.add(exit_plan_mode::DECL, exit_plan_mode::exit_plan_mode);
}

#[derive(Serialize, JsonSchema)]
pub struct ModeOut {
    /// The conversation's mode now.
    pub mode: Mode,
    pub previous: Mode,
    pub changed: bool,
}

fn persistent(ctx: &Ctx<()>) -> Result<(), ToolError> {
    if ctx.conversation.ephemeral() {
        return Err(ToolError::new(
            ErrorKind::Mode,
            "this request has no session to hold a mode (protocol 2026-07-28 over HTTP is stateless): \
             its mode is the connection's (the Cc-Mode header, else the server's --mode)",
        ));
    }
    Ok(())
}

/// Changes the mode, asking first when it leaves a restricted one; tells the client its
/// tool list changed.
async fn switch(ctx: &Ctx<()>, to: Mode, why: String) -> Result<ModeOut, ToolError> {
    persistent(ctx)?;
    let from = ctx.conversation.mode();
    if from == to {
        return Ok(ModeOut { mode: to, previous: from, changed: false });
    }
    ctx.services.policy.check_ceiling(to).map_err(|message| {
        ToolError::new(ErrorKind::Mode, message)
            .with_data(json!({"mode": from, "max_mode": ctx.services.policy.max_mode}))
    })?;
    if from.restricted() {
        // The approval is of this conversation's change (not any of the principal's).
        ctx.confirm(&json!({"mode": to, "conversation": ctx.conversation.id}), why).await?;
    }
    let previous = ctx.conversation.set_mode(to);
    if let Some(peer) = &ctx.call.peer {
        let _ = peer.notify_tool_list_changed().await;
    }
    Ok(ModeOut { mode: to, previous, changed: previous != to })
}
