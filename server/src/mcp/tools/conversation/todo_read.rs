//! todo_read: this conversation's checklist.

use super::{todo_key, TodosOut};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "todo_read",
    title: "Read the checklist",
    description: "Read this conversation's task checklist (what todo_write last saved): items with content and status pending, in_progress or completed. It is kept by the server: it survives a reconnect of the same conversation (send the same Cc-Conversation header) and a restart; an agent's run is its conversation.",
    set: ToolSet::Conversation,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

pub async fn todo_read(ctx: Ctx<String>, _: NoArgs) -> Result<TodosOut, ToolError> {
    let key = todo_key(&ctx)?;
    let todos = ctx.services.store.spaces().todos(&ctx.workspace, &ctx.principal.name, &key).await?;
    Ok(TodosOut::new(key, todos))
}
