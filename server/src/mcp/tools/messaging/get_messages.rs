//! get_messages: a space's messages, oldest first, after a cursor.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::space_of;
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::Message;

pub const DECL: Decl = Decl {
    name: "get_messages",
    title: "Get messages",
    description: "Fetch a space's messages, oldest first: after the message `after` (a message id, from an earlier call's next_after) or from the start, at most `limit` (default 50, up to 200). An unknown cursor is an error.",
    set: ToolSet::Messaging,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review, Mode::Orchestrate]),
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetMessagesArgs {
    /// The space (see list_spaces).
    #[schemars(length(min = 1, max = 100))]
    pub space_id: String,
    /// Only messages after this one (a message id of this space).
    #[schemars(length(min = 1, max = 100))]
    pub after: Option<String>,
    /// At most this many messages (default 50).
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
pub struct GetMessagesOut {
    pub space_id: String,
    pub messages: Vec<Message>,
    /// The cursor for the next call (the last message's id), when there were any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_after: Option<String>,
    /// Whether more messages follow.
    pub more: bool,
}

pub async fn get_messages(ctx: Ctx<String>, a: GetMessagesArgs) -> Result<GetMessagesOut, ToolError> {
    let space = space_of(&ctx, &a.space_id, "/space_id").await?;
    let spaces = ctx.services.store.spaces();
    let after = match &a.after {
        None => 0,
        Some(id) => match spaces.message(id).await? {
            Some(m) if m.space_id == space.id => m.seq,
            _ => {
                return Err(ToolError::not_found(
                    "/after",
                    format!(
                        "/after: no message '{id}' in space '{}'; pass a message id an earlier call returned",
                        space.id
                    ),
                ))
            }
        },
    };
    let limit = a.limit.unwrap_or(50);
    let mut messages = spaces.messages(&space.id, after, limit + 1).await?;
    let more = messages.len() > limit as usize;
    messages.truncate(limit as usize);
    Ok(GetMessagesOut { next_after: messages.last().map(|m| m.id.clone()), space_id: space.id, messages, more })
}
