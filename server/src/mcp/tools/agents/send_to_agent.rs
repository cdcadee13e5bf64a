//! send_to_agent: a one-way message to another agent, in their DM space.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{caller_name, dispatch, run_out, target, RunOut};
use crate::agents::Brief;
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::post;

pub const DECL: Decl = Decl {
    name: "send_to_agent",
    title: "Send to an agent",
    description: "Send a one-way message to another agent, addressed by to_agent_id or its exact to_agent_name: it lands in the two's direct-message space (created on first use), and wakes the agent (starts a run) when its runtime profile asks to be woken by messages, unless a run of it listens to that space or one queued for it will read it.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendToAgentArgs {
    /// The agent's id (see list_agents).
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_id: Option<String>,
    /// The agent's exact name (instead of to_agent_id).
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_name: Option<String>,
    /// The message (markdown).
    #[schemars(length(min = 1, max = 100000))]
    pub text: String,
}

#[derive(Serialize, JsonSchema)]
pub struct SendToAgentOut {
    pub space_id: String,
    pub message_id: String,
    /// The run this message started, when it woke the agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub woke: Option<RunOut>,
}

pub async fn send_to_agent(ctx: Ctx<String>, a: SendToAgentArgs) -> Result<SendToAgentOut, ToolError> {
    let to = target(&ctx, a.to_agent_id.as_deref(), a.to_agent_name.as_deref()).await?;
    let store = &ctx.services.store;
    let me = ctx.principal.as_member();
    let them = crate::store::Member { member: to.id.clone(), kind: "agent".into(), name: to.name.clone() };
    let space = store.spaces().dm(&ctx.workspace, &me, &them).await?;
    let m = post(&ctx, &space.id, &a.text, None).await?;
    let profile = store.agents().profile(&ctx.workspace, &to.profile_id).await?;
    // Woken (when its profile asks for it) unless a run of it listens to the space, or one
    // queued for the space will read it when it starts.
    let waiting = store.agents().queued(&to.id).await?.iter().any(|r| r.space_id.as_deref() == Some(space.id.as_str()));
    let woke = if profile.is_some_and(|p| p.wake_on_message)
        && !waiting
        && !ctx.services.runtime.listening(&to.id, &space.id)
    {
        let brief = format!(
            "{} sent you a message in space {} (message {}):\n\n{}\n\nRead the space with get_messages; answer with send_message (space_id {}, reply_to {}) if an answer is wanted.",
            caller_name(&ctx),
            space.id,
            m.id,
            a.text,
            space.id,
            m.id
        );
        let brief = Brief {
            reason: "message",
            text: brief,
            space_id: Some(space.id.clone()),
            message_id: Some(m.id.clone()),
            ticket_id: None,
        };
        Some(run_out(&dispatch(&ctx, &to, brief).await?, &to))
    } else {
        None
    };
    Ok(SendToAgentOut { space_id: space.id, message_id: m.id, woke })
}
