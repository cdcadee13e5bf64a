//! list_agents: the workspace's agents.

use schemars::JsonSchema;
use serde::Serialize;

use super::{health, Health};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "list_agents",
    title: "List agents",
    description: "List the agents registered in a workspace: id, name, skills, description, whom each reports to, its capacity (runs at once) and its runtime health.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review, Mode::Orchestrate]),
    hints: Hints::READ,
};

#[derive(Serialize, JsonSchema)]
pub struct AgentOut {
    pub id: String,
    pub name: String,
    pub skills: Vec<String>,
    pub description: String,
    /// The name of the agent it reports to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reports_to: Option<String>,
    pub capacity: u32,
    pub autonomy: u8,
    pub health: Health,
}

#[derive(Serialize, JsonSchema)]
pub struct ListAgentsOut {
    pub agents: Vec<AgentOut>,
}

pub async fn list_agents(ctx: Ctx<String>, _: NoArgs) -> Result<ListAgentsOut, ToolError> {
    let store = &ctx.services.store;
    let agents = store.agents().list(&ctx.workspace).await?;
    let beats = store.agents().heartbeats(&ctx.workspace).await?;
    let name_of = |id: &str| agents.iter().find(|a| a.id == id).map(|a| a.name.clone());
    Ok(ListAgentsOut {
        agents: agents
            .iter()
            .map(|a| AgentOut {
                id: a.id.clone(),
                name: a.name.clone(),
                skills: a.skills.clone(),
                description: a.description.clone(),
                reports_to: a.reports_to.as_deref().and_then(name_of),
                capacity: a.capacity,
                autonomy: a.autonomy,
                health: health(&ctx, beats.iter().find(|b| b.agent_id == a.id)),
            })
            .collect(),
    })
}
