//! Conversation tools: set_mode, exit_plan_mode, todo_read, todo_write. A conversation's
//! mode is held by the server; set_mode and exit_plan_mode are the only ways a call changes
//! it, and leaving a restricted mode asks the confirmation port first (entering one from
//! chat narrows what may be called, so it needs no approval). Its checklist is in the store,
//! keyed by the conversation's lasting name ([`todo_key`]).

mod exit_plan_mode;
mod set_mode;
mod todo_read;
mod todo_write;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use crate::mcp::dispatch::Conversation;
use crate::mcp::policy::Mode;
use crate::mcp::principal::Principal;
use crate::mcp::tool::{Ctx, ErrorKind, Registry, ToolError};

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(set_mode::DECL, set_mode::set_mode);
    r.add(exit_plan_mode::DECL, exit_plan_mode::exit_plan_mode);
    r.add(todo_read::DECL, todo_read::todo_read);
    r.add(todo_write::DECL, todo_write::todo_write);
}

/// The lasting name of the call's conversation, which its checklist is kept under (with the
/// principal and the workspace): an agent's run (`run:<id>`), else the client's
/// `Cc-Conversation` header (`key:<name>`), else the MCP session (`session:<id>`, which a
/// reconnect does not keep). A stateless request without the header has none.
pub(crate) fn todo_key(ctx: &Ctx<String>) -> Result<String, ToolError> {
    conversation_key(&ctx.principal, &ctx.conversation).map_err(|m| ToolError::new(ErrorKind::Mode, m))
}

/// The lasting name of a conversation (see [`todo_key`]), or why a stateless request has none.
pub(crate) fn conversation_key(principal: &Principal, conversation: &Conversation) -> Result<String, String> {
    if let Some(run) = principal.agent.as_ref().and_then(|a| a.run_id.as_ref()) {
        return Ok(format!("run:{run}"));
    }
    if let Some(key) = conversation.key() {
        return Ok(format!("key:{key}"));
    }
    if conversation.ephemeral() {
        return Err("this request has no conversation to keep state for (protocol 2026-07-28 over HTTP is \
             stateless): name it with the Cc-Conversation header"
            .to_string());
    }
    Ok(format!("session:{}", conversation.id))
}

/// What a conversation's goal is kept under: its principal and its lasting name.
pub(crate) fn goal_key(principal: &Principal, conversation: &Conversation) -> Result<String, String> {
    Ok(format!("{}|{}", principal.name, conversation_key(principal, conversation)?))
}

#[derive(Serialize, JsonSchema)]
pub struct TodosOut {
    /// What the checklist is kept under: run:<id>, key:<Cc-Conversation>, or session:<id>.
    pub conversation: String,
    pub todos: Vec<crate::store::Todo>,
    /// How many items are pending, in progress, completed.
    pub counts: TodoCounts,
}

#[derive(Serialize, JsonSchema)]
pub struct TodoCounts {
    pub pending: usize,
    pub in_progress: usize,
    pub completed: usize,
}

impl TodosOut {
    pub fn new(conversation: String, todos: Vec<crate::store::Todo>) -> TodosOut {
        use crate::store::TodoStatus as S;
        let n = |s: S| todos.iter().filter(|t| t.status == s).count();
        let counts = TodoCounts { pending: n(S::Pending), in_progress: n(S::InProgress), completed: n(S::Completed) };
        TodosOut { conversation, todos, counts }
    }
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
