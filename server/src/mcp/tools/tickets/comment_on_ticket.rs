//! comment_on_ticket: a message in the ticket's space, as the caller.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{mirrored, plan_allows, ticket_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::post;
use crate::store::Message;

pub const DECL: Decl = Decl {
    name: "comment_on_ticket",
    title: "Comment on a ticket",
    description: "Comment on a ticket: a message in the ticket's space, signed by the caller (get_messages with the ticket's space_id reads them). In plan mode only on the ticket the conversation was dispatched for.",
    set: ToolSet::Tickets,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Plan, Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentOnTicketArgs {
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// The comment (markdown).
    #[schemars(length(min = 1, max = 100000))]
    pub text: String,
}

pub async fn comment_on_ticket(ctx: Ctx<String>, a: CommentOnTicketArgs) -> Result<Message, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    plan_allows(&ctx, &t).await?;
    ctx.services.store.spaces().add_member(&t.space_id, &ctx.principal.as_member()).await?;
    let m = post(&ctx, &t.space_id, &a.text, None).await?;
    mirrored(&ctx, t).await?;
    Ok(m)
}
