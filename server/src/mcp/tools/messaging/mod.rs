//! Messaging tools: list_spaces, get_messages, send_message, get_space_notes,
//! update_space_notes. A space (a DM between two agents, a ticket's or a review's, a free
//! one) is of one workspace; its members are visible; every message is numbered in its space
//! and signed by its sender — the calling agent, or the principal. A client subscribed to
//! `cc://spaces/{space_id}/messages` hears of each new message.

mod get_messages;
mod get_space_notes;
mod list_spaces;
mod send_message;
mod update_space_notes;

use crate::bus::Event;
use crate::mcp::tool::{Ctx, Registry, ToolError};
use crate::store::{Message, Sender, Space};

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(list_spaces::DECL, list_spaces::list_spaces);
    r.add(get_messages::DECL, get_messages::get_messages);
    r.add(send_message::DECL, send_message::send_message);
    r.add(get_space_notes::DECL, get_space_notes::get_space_notes);
    r.add(update_space_notes::DECL, update_space_notes::update_space_notes);
}

/// The space `id` of the call's workspace (another workspace's is answered as one that does
/// not exist), or an error naming `pointer`.
pub(crate) async fn space_of(ctx: &Ctx<String>, id: &str, pointer: &str) -> Result<Space, ToolError> {
    match ctx.services.store.spaces().get(id).await? {
        Some(s) if s.workspace_id == ctx.workspace => Ok(s),
        _ => Err(ToolError::not_found(
            pointer,
            format!("{pointer}: no space '{id}' in workspace '{}'; list_spaces lists them", ctx.workspace),
        )),
    }
}

/// Posts `text` in `space_id` as the caller, and tells every waiter.
pub(crate) async fn post(
    ctx: &Ctx<String>,
    space_id: &str,
    text: &str,
    reply_to: Option<&str>,
) -> Result<Message, ToolError> {
    post_as(ctx, space_id, &ctx.principal.as_sender(), text, reply_to).await
}

pub(crate) async fn post_as(
    ctx: &Ctx<String>,
    space_id: &str,
    sender: &Sender,
    text: &str,
    reply_to: Option<&str>,
) -> Result<Message, ToolError> {
    let store = &ctx.services.store;
    let m = store.spaces().post(space_id, sender, text, reply_to).await?;
    let e = Event::Message {
        workspace_id: ctx.workspace.clone(),
        space_id: space_id.to_string(),
        message_id: m.id.clone(),
        seq: m.seq,
        reply_to: m.reply_to.clone(),
    };
    ctx.services.bus.publish(store, e).await;
    Ok(m)
}
