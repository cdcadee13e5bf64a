//! ask_agent: a question to another agent, and its answer (or the timeout).

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{caller_name, dispatch, run_out, target, RunOut};
use crate::agents::Brief;
use crate::bus::Event;
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::post;
use crate::store::Sender;

pub const DECL: Decl = Decl {
    name: "ask_agent",
    title: "Ask an agent",
    description: "Ask another agent a question (to_agent_id or its exact to_agent_name) and wait for its answer, at most timeout_seconds: the question goes into the two's direct-message space, a run of the agent is started for it unless one is listening to that space already (queued while the agent is at its capacity), and the first message replying to it is the answer. A timeout is a result saying so; the question stays in the space and a late answer can be read with get_messages.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskAgentArgs {
    /// The agent's id (see list_agents).
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_id: Option<String>,
    /// The agent's exact name (instead of to_agent_id).
    #[schemars(length(min = 1, max = 100))]
    pub to_agent_name: Option<String>,
    /// The question (markdown).
    #[schemars(length(min = 1, max = 100000))]
    pub question: String,
    /// How long to wait for the answer, seconds (1 to 600).
    #[schemars(range(min = 1, max = 600))]
    pub timeout_seconds: u32,
}

#[derive(Serialize, JsonSchema)]
pub struct AskAgentOut {
    /// Whether an answer came within the timeout.
    pub answered: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Who answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<Sender>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_id: Option<String>,
    pub question_id: String,
    pub space_id: String,
    /// The run the question started (none: a run of the agent was listening to the space).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunOut>,
    /// What happened, in words.
    pub summary: String,
}

pub async fn ask_agent(ctx: Ctx<String>, a: AskAgentArgs) -> Result<AskAgentOut, ToolError> {
    let to = target(&ctx, a.to_agent_id.as_deref(), a.to_agent_name.as_deref()).await?;
    let store = &ctx.services.store;
    let me = ctx.principal.as_member();
    if me.member == to.id {
        return Err(ToolError::invalid("/to_agent_id", "/to_agent_id: an agent cannot ask itself"));
    }
    let them = crate::store::Member { member: to.id.clone(), kind: "agent".into(), name: to.name.clone() };
    let space = store.spaces().dm(&ctx.workspace, &me, &them).await?;
    // Listen first, then ask: an answer cannot slip in between.
    let mut events = ctx.services.bus.subscribe();
    ctx.services.bus.ready(Duration::from_secs(5)).await;
    let q = post(&ctx, &space.id, &a.question, None).await?;
    // A run of the agent listening to the space hears the question; otherwise one is started
    // for it (queued while the agent is at its capacity).
    let run = if !ctx.services.runtime.listening(&to.id, &space.id) {
        let brief = format!(
            "{} asks you, in space {} (message {}):\n\n{}\n\nAnswer with send_message: space_id {}, reply_to {}, text your answer.",
            caller_name(&ctx),
            space.id,
            q.id,
            a.question,
            space.id,
            q.id
        );
        let brief = Brief {
            reason: "ask",
            text: brief,
            space_id: Some(space.id.clone()),
            message_id: Some(q.id.clone()),
            ticket_id: None,
        };
        Some(run_out(&dispatch(&ctx, &to, brief).await?, &to))
    } else {
        None
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(a.timeout_seconds as u64);
    let answer = loop {
        if let Some(m) = store.spaces().reply_to(&q.id).await? {
            break Some(m);
        }
        // Until a message replying to the question is posted (on any replica), or the deadline.
        let woke = tokio::time::timeout_at(deadline, async {
            loop {
                match events.recv().await {
                    Ok(Event::Message { reply_to: Some(r), .. }) if r == q.id => return,
                    Ok(_) => {}
                    // Lagged: look at the store again.
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => return,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                        std::future::pending::<()>().await;
                    }
                }
            }
        })
        .await;
        if woke.is_err() {
            break store.spaces().reply_to(&q.id).await?;
        }
    };
    Ok(match answer {
        Some(m) => AskAgentOut {
            answered: true,
            summary: format!("{} answered", m.sender.name),
            answer: Some(m.text),
            from: Some(m.sender),
            answer_id: Some(m.id),
            question_id: q.id,
            space_id: space.id,
            run,
        },
        None => AskAgentOut {
            answered: false,
            summary: format!(
                "no answer from {} within {} s; the question stays in space {} and a later answer can be read with get_messages",
                to.name, a.timeout_seconds, space.id
            ),
            answer: None,
            from: None,
            answer_id: None,
            question_id: q.id,
            space_id: space.id,
            run,
        },
    })
}
