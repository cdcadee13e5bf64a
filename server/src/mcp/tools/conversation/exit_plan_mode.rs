//! exit_plan_mode: leave plan mode once the plan is approved.

use serde_json::json;

use super::{persistent, switch, ModeOut};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "exit_plan_mode",
    title: "Exit plan mode",
    description: "Take this conversation out of plan mode (into chat) once the plan is approved: raises a plan_exit approval and, once it is approved, consumes it.",
    set: ToolSet::Conversation,
    scope: Scope::Global,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Plan]),
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

pub async fn exit_plan_mode(ctx: Ctx<()>, _: NoArgs) -> Result<ModeOut, ToolError> {
    persistent(&ctx)?;
    let mode = ctx.conversation.mode();
    if mode != Mode::Plan {
        return Err(ToolError::new(
            ErrorKind::Mode,
            format!("exit_plan_mode: this conversation is in {mode} mode, not plan"),
        )
        .with_data(json!({"mode": mode})));
    }
    switch(&ctx, Mode::Chat, "plan_exit: leaving plan mode for chat (every tool)".into()).await
}
