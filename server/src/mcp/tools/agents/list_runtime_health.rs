//! list_runtime_health: each agent's runtime health, from its heartbeats.

use schemars::JsonSchema;
use serde::Serialize;

use super::{health, Health};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};
use crate::store::now;

pub const DECL: Decl = Decl {
    name: "list_runtime_health",
    title: "Runtime health",
    description: "List each agent's runtime health from its heartbeats: healthy, newly_missing (silent past missing_after_secs) or offline (past offline_after_secs, or never seen), with its last status, note and when it was last heard from.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Serialize, JsonSchema)]
pub struct AgentHealth {
    pub agent_id: String,
    pub name: String,
    pub health: Health,
    /// active, idle or stuck: what it last said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_status: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_note: Option<String>,
    /// Seconds since the epoch of its last heartbeat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub silent_secs: Option<i64>,
}

#[derive(Serialize, JsonSchema)]
pub struct RuntimeHealthOut {
    pub agents: Vec<AgentHealth>,
    pub missing_after_secs: u64,
    pub offline_after_secs: u64,
}

pub async fn list_runtime_health(ctx: Ctx<String>, _: NoArgs) -> Result<RuntimeHealthOut, ToolError> {
    let store = &ctx.services.store;
    let agents = store.agents().list(&ctx.workspace).await?;
    let beats = store.agents().heartbeats(&ctx.workspace).await?;
    let h = &ctx.services.config.health;
    Ok(RuntimeHealthOut {
        agents: agents
            .iter()
            .map(|a| {
                let b = beats.iter().find(|b| b.agent_id == a.id);
                AgentHealth {
                    agent_id: a.id.clone(),
                    name: a.name.clone(),
                    health: health(&ctx, b),
                    last_status: b.map(|b| b.status.clone()),
                    last_note: b.and_then(|b| b.note.clone()),
                    last_seen: b.map(|b| b.at),
                    silent_secs: b.map(|b| (now() - b.at).max(0)),
                }
            })
            .collect(),
        missing_after_secs: h.missing_after_secs,
        offline_after_secs: h.offline_after_secs,
    })
}
