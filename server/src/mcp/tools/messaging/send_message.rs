//! send_message: a message in a space, as the calling agent.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{post_as, space_of};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::Message;

pub const DECL: Decl = Decl {
    name: "send_message",
    title: "Send a message",
    description: "Send a message to a space, signed by the caller: an agent's token sends as that agent (sender_name, if given, must be its own name); the operator may name another sender with sender_name (an agent of the workspace, whose message it then is, or a name of its own). reply_to names the message it answers (ask_agent waits for one).",
    set: ToolSet::Messaging,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMessageArgs {
    /// The space (see list_spaces).
    #[schemars(length(min = 1, max = 100))]
    pub space_id: String,
    /// The message (markdown).
    #[schemars(length(min = 1, max = 100000))]
    pub text: String,
    /// The message of this space it answers.
    #[schemars(length(min = 1, max = 100))]
    pub reply_to: Option<String>,
    /// Who sends it: the operator may name a sender; anyone else may only name themselves.
    #[schemars(length(min = 1, max = 100))]
    pub sender_name: Option<String>,
}

pub async fn send_message(ctx: Ctx<String>, a: SendMessageArgs) -> Result<Message, ToolError> {
    let space = space_of(&ctx, &a.space_id, "/space_id").await?;
    let mut sender = ctx.principal.as_sender();
    if let Some(name) = &a.sender_name {
        if ctx.principal.operator {
            // The operator relays for someone: an agent of the workspace by its name (the
            // message is then the agent's), else a name of its own choosing.
            sender = match ctx.services.store.agents().by_name(&ctx.workspace, name).await? {
                Some(a) => crate::store::Sender { kind: "agent".into(), name: a.name, agent_id: Some(a.id) },
                None => crate::store::Sender { kind: "operator".into(), name: name.clone(), agent_id: None },
            };
        } else if *name != sender.name {
            return Err(ToolError::invalid(
                "/sender_name",
                format!("/sender_name: this call comes from '{}'; it may send only as itself", sender.name),
            ));
        }
    }
    if let Some(r) = &a.reply_to {
        match ctx.services.store.spaces().message(r).await? {
            Some(m) if m.space_id == space.id => {}
            _ => {
                return Err(ToolError::not_found(
                    "/reply_to",
                    format!("/reply_to: no message '{r}' in space '{}'", space.id),
                ))
            }
        }
    }
    post_as(&ctx, &space.id, &sender, &a.text, a.reply_to.as_deref()).await
}
