//! todo_write: replace this conversation's checklist.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{todo_key, TodosOut};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::Todo;

pub const DECL: Decl = Decl {
    name: "todo_write",
    title: "Write the checklist",
    description: "Replace this conversation's task checklist in a single call: send the full list (up to 200 items, each with content and status pending, in_progress or completed, and an optional id of yours). An empty list clears it. todo_read reads it back, after a reconnect (the same Cc-Conversation header) or a restart too.",
    set: ToolSet::Conversation,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteArgs {
    /// The whole checklist, in order.
    #[schemars(length(max = 200))]
    pub todos: Vec<Todo>,
}

pub async fn todo_write(ctx: Ctx<String>, a: TodoWriteArgs) -> Result<TodosOut, ToolError> {
    let key = todo_key(&ctx)?;
    // Ids, when given, name one item each.
    let mut seen = std::collections::HashSet::new();
    for (i, t) in a.todos.iter().enumerate() {
        if let Some(id) = &t.id {
            if !seen.insert(id.as_str()) {
                return Err(ToolError::invalid(
                    &format!("/todos/{i}/id"),
                    format!("/todos/{i}/id: '{id}' names an earlier item too; ids are one per item"),
                ));
            }
        }
    }
    ctx.services.store.spaces().set_todos(&ctx.workspace, &ctx.principal.name, &key, &a.todos).await?;
    Ok(TodosOut::new(key, a.todos))
}
