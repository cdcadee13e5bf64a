//! agent_heartbeat: an agent reports that it is alive, and how it is doing.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{health, Health};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "agent_heartbeat",
    title: "Heartbeat",
    description: "Report the calling agent's liveness (active, idle, stuck) with an optional note. An agent that goes silent moves to newly_missing after the server's missing_after_secs, then to offline after offline_after_secs (list_runtime_health). Only an agent (its token or its run's) heartbeats.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BeatStatus {
    /// Working.
    Active,
    /// Waiting for work.
    Idle,
    /// Unable to go on without help.
    Stuck,
}

impl BeatStatus {
    fn as_str(self) -> &'static str {
        match self {
            BeatStatus::Active => "active",
            BeatStatus::Idle => "idle",
            BeatStatus::Stuck => "stuck",
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeartbeatArgs {
    /// active (working), idle (waiting for work) or stuck (unable to go on without help).
    pub status: BeatStatus,
    /// What it is doing, or what it is stuck on.
    #[schemars(length(max = 2000))]
    pub note: Option<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct HeartbeatOut {
    pub agent: String,
    pub status: BeatStatus,
    /// Seconds since the epoch.
    pub at: i64,
    pub health: Health,
}

pub async fn agent_heartbeat(ctx: Ctx<String>, a: HeartbeatArgs) -> Result<HeartbeatOut, ToolError> {
    let Some(agent) = ctx.principal.agent.clone() else {
        return Err(ToolError::invalid(
            "/",
            "/: only an agent heartbeats: call with an agent's token (or its run's CC_MCP_TOKEN)",
        ));
    };
    let beat = ctx.services.store.agents().heartbeat(&agent.agent_id, a.status.as_str(), a.note.as_deref()).await?;
    Ok(HeartbeatOut { agent: agent.name.clone(), status: a.status, at: beat.at, health: health(&ctx, Some(&beat)) })
}
