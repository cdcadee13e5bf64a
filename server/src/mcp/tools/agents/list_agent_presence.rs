//! list_agent_presence: each agent's health, what it is doing, and its load.

use schemars::JsonSchema;
use serde::Serialize;

use super::{health, Health};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "list_agent_presence",
    title: "Agent presence",
    description: "List each agent's presence: its runtime health, its lifecycle (working: a run is running; queued: runs wait for it; idle), its running and queued run counts and its capacity.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    Working,
    Queued,
    Idle,
}

#[derive(Serialize, JsonSchema)]
pub struct Presence {
    pub agent_id: String,
    pub name: String,
    pub health: Health,
    pub lifecycle: Lifecycle,
    pub running: u32,
    pub queued: u32,
    pub capacity: u32,
}

#[derive(Serialize, JsonSchema)]
pub struct PresenceOut {
    pub agents: Vec<Presence>,
}

pub async fn list_agent_presence(ctx: Ctx<String>, _: NoArgs) -> Result<PresenceOut, ToolError> {
    let store = &ctx.services.store;
    let beats = store.agents().heartbeats(&ctx.workspace).await?;
    let mut out = Vec::new();
    for a in store.agents().list(&ctx.workspace).await? {
        let (running, queued) = store.agents().counts(&a.id).await?;
        let lifecycle = if running > 0 {
            Lifecycle::Working
        } else if queued > 0 {
            Lifecycle::Queued
        } else {
            Lifecycle::Idle
        };
        out.push(Presence {
            health: health(&ctx, beats.iter().find(|b| b.agent_id == a.id)),
            agent_id: a.id,
            name: a.name,
            lifecycle,
            running,
            queued,
            capacity: a.capacity,
        });
    }
    Ok(PresenceOut { agents: out })
}
