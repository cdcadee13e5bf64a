//! set_mode: switch this conversation's mode.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{switch, ModeOut};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "set_mode",
    title: "Set the conversation mode",
    description: "Switch this conversation's mode (chat, plan, review, orchestrate), which decides the tools it may call. Entering a restricted mode from chat is immediate; leaving a restricted mode asks for an approval first.",
    set: ToolSet::Conversation,
    scope: Scope::Global,
    classes: &[],
    approval: false,
    // Every mode must reach it: it is how a conversation changes mode.
    modes: Modes::Always,
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetModeArgs {
    /// The mode to switch to: chat (every tool), plan, review or orchestrate (curated allow-lists).
    pub mode: Mode,
}

pub async fn set_mode(ctx: Ctx<()>, a: SetModeArgs) -> Result<ModeOut, ToolError> {
    let from = ctx.conversation.mode();
    switch(&ctx, a.mode, format!("leaving {from} mode for {} widens what this conversation may call", a.mode)).await
}
