//! Conversation tools: set_mode and exit_plan_mode. A conversation's mode is held by the
//! server; these are the only ways a call changes it, and leaving a restricted mode asks
//! the confirmation port first (entering one from chat narrows what may be called, so
//! it needs no approval).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::mcp::dispatch::{CallCtx, ToolError};
use crate::mcp::policy::Mode;
use crate::mcp::registry::{Registry, Scope, Spec};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetModeArgs {
    /// The mode to switch to: chat (every tool), plan, review or orchestrate (curated allow-lists).
    pub mode: Mode,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Serialize, JsonSchema)]
pub struct ModeOut {
    /// The conversation's mode now.
    pub mode: Mode,
    pub previous: Mode,
    pub changed: bool,
}

fn persistent(ctx: &CallCtx) -> Result<(), ToolError> {
    if ctx.conversation.ephemeral() {
        return Err(ToolError {
            error: "mode",
            pointer: None,
            message: "this request has no session to hold a mode (protocol 2026-07-28 over HTTP is stateless): \
                      its mode is the connection's (the Cc-Mode header, else the server's --mode)"
                .into(),
            data: None,
        });
    }
    Ok(())
}

/// Changes the mode, asking first when it leaves a restricted one; tells the client its
/// tool list changed.
async fn switch(ctx: &CallCtx, to: Mode, why: String) -> Result<ModeOut, ToolError> {
    persistent(ctx)?;
    let from = ctx.conversation.mode();
    if from == to {
        return Ok(ModeOut { mode: to, previous: from, changed: false });
    }
    ctx.app.check_ceiling(to).map_err(|message| ToolError {
        error: "mode",
        pointer: None,
        message,
        data: Some(json!({"mode": from, "max_mode": ctx.app.max_mode})),
    })?;
    if from.restricted() {
        // The approval is of this conversation's change (not any of the principal's).
        ctx.confirm(&json!({"mode": to, "conversation": ctx.conversation.id}), why).await?;
    }
    let previous = ctx.conversation.set_mode(to);
    if let Some(peer) = &ctx.peer {
        let _ = peer.notify_tool_list_changed().await;
    }
    Ok(ModeOut { mode: to, previous, changed: previous != to })
}

pub fn register(r: &mut Registry) {
    r.add(
        Spec {
            name: "set_mode",
            title: "Set the conversation mode",
            description: "Switch this conversation's mode (chat, plan, review, orchestrate), which decides the tools it may call. Entering a restricted mode from chat is immediate; leaving a restricted mode asks for an approval first.",
            scope: Scope::Global,
            action_classes: &[],
            read_only: false,
        },
        |ctx: CallCtx, a: SetModeArgs| async move {
            let from = ctx.conversation.mode();
            switch(&ctx, a.mode, format!("leaving {from} mode for {} widens what this conversation may call", a.mode))
                .await
        },
    );
    r.add(
        Spec {
            name: "exit_plan_mode",
            title: "Exit plan mode",
            description: "Take this conversation out of plan mode (into chat) once the plan is approved: raises a plan_exit approval and, once it is approved, consumes it.",
            scope: Scope::Global,
            action_classes: &[],
            read_only: false,
        },
        |ctx: CallCtx, _: NoArgs| async move {
            persistent(&ctx)?;
            let mode = ctx.conversation.mode();
            if mode != Mode::Plan {
                return Err(ToolError {
                    error: "mode",
                    pointer: None,
                    message: format!("exit_plan_mode: this conversation is in {mode} mode, not plan"),
                    data: Some(json!({"mode": mode})),
                });
            }
            switch(&ctx, Mode::Chat, "plan_exit: leaving plan mode for chat (every tool)".into()).await
        },
    );
}
