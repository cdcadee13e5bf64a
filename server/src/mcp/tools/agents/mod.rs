//! Agent tools: list_agents, send_to_agent, ask_agent, consult_agent, delegate_task, agent_heartbeat,
//! list_runtime_health, list_agent_presence, get_org_chart, create_runtime_profile,
//! list_runtime_profiles. Agents are registered by the operator (`cc-server agents add`); a
//! tool never hires, fires or edits one. What the tools share: finding an agent by id or
//! exact name (refusing another workspace's), an agent's health from its heartbeats, and
//! dispatching a run.

mod agent_heartbeat;
mod ask_agent;
mod consult_agent;
mod create_runtime_profile;
mod delegate_task;
mod get_org_chart;
mod list_agent_presence;
mod list_agents;
mod list_runtime_health;
mod list_runtime_profiles;
mod send_to_agent;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use crate::agents::{Brief, DispatchError};
use crate::mcp::tool::{Ctx, ErrorKind, Registry, ToolError};
use crate::store::{now, Agent, Heartbeat, Run};

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(list_agents::DECL, list_agents::list_agents);
    r.add(send_to_agent::DECL, send_to_agent::send_to_agent);
    r.add(ask_agent::DECL, ask_agent::ask_agent);
    r.add(consult_agent::DECL, consult_agent::consult_agent);
    r.add(delegate_task::DECL, delegate_task::delegate_task);
    r.add(agent_heartbeat::DECL, agent_heartbeat::agent_heartbeat);
    r.add(list_runtime_health::DECL, list_runtime_health::list_runtime_health);
    r.add(list_agent_presence::DECL, list_agent_presence::list_agent_presence);
    r.add(get_org_chart::DECL, get_org_chart::get_org_chart);
    r.add(create_runtime_profile::DECL, create_runtime_profile::create_runtime_profile);
    r.add(list_runtime_profiles::DECL, list_runtime_profiles::list_runtime_profiles);
}

/// The agent a call names: `to_agent_id`, else the exact `to_agent_name`, of the call's
/// workspace (another workspace's id is answered as one that does not exist). An unknown name
/// is an error listing the workspace's agents.
pub(crate) async fn target(ctx: &Ctx<String>, id: Option<&str>, name: Option<&str>) -> Result<Agent, ToolError> {
    let agents = ctx.services.store.agents();
    match (id, name) {
        (Some(id), _) => match agents.get(id).await? {
            Some(a) if a.workspace_id == ctx.workspace => Ok(a),
            _ => Err(ToolError::not_found(
                "/to_agent_id",
                format!("/to_agent_id: no agent '{id}' in workspace '{}'; list_agents lists them", ctx.workspace),
            )),
        },
        (None, Some(name)) => match agents.by_name(&ctx.workspace, name).await? {
            Some(a) => Ok(a),
            None => {
                let all = agents.list(&ctx.workspace).await?;
                let names: Vec<&str> = all.iter().map(|a| a.name.as_str()).collect();
                Err(ToolError::not_found(
                    "/to_agent_name",
                    format!(
                        "/to_agent_name: no agent named exactly '{name}' in workspace '{}'; its agents: {}",
                        ctx.workspace,
                        if names.is_empty() { "none".to_string() } else { names.join(", ") }
                    ),
                )
                .with_data(json!({ "candidates": names })))
            }
        },
        (None, None) => Err(ToolError::invalid("/to_agent_id", "/to_agent_id: give to_agent_id or to_agent_name")),
    }
}

/// An agent's runtime health, from its last heartbeat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Health {
    /// It heartbeated within the configuration's `missing_after_secs`.
    Healthy,
    /// Silent longer than that.
    NewlyMissing,
    /// Silent longer than `offline_after_secs`, or it never heartbeated.
    Offline,
}

pub(crate) fn health(ctx: &Ctx<String>, beat: Option<&Heartbeat>) -> Health {
    let h = &ctx.services.config.health;
    match beat {
        None => Health::Offline,
        Some(b) => {
            let silent = (now() - b.at).max(0) as u64;
            if silent >= h.offline_after_secs {
                Health::Offline
            } else if silent >= h.missing_after_secs {
                Health::NewlyMissing
            } else {
                Health::Healthy
            }
        }
    }
}

/// A dispatch's failure as a tool's error.
pub(crate) fn dispatch_error(e: DispatchError) -> ToolError {
    match e {
        DispatchError::Store(e) => e.into(),
        e => ToolError::new(ErrorKind::Unavailable, e.to_string()),
    }
}

/// Starts a run of `agent` for `brief` (queued when it is at its capacity).
pub(crate) async fn dispatch(ctx: &Ctx<String>, agent: &Agent, brief: Brief) -> Result<Run, ToolError> {
    ctx.services.runtime.dispatch(agent, brief).await.map_err(dispatch_error)
}

/// The calling agent's name for a brief, or the principal's.
pub(crate) fn caller_name(ctx: &Ctx<String>) -> String {
    ctx.principal.agent.as_ref().map_or_else(|| ctx.principal.name.to_string(), |a| a.name.clone())
}

/// A run as the tools show it.
#[derive(Serialize, JsonSchema)]
pub struct RunOut {
    pub run_id: String,
    pub agent: String,
    /// queued (the agent is at its capacity), running, done, failed, timed_out, cancelled, abandoned.
    pub status: String,
}

pub(crate) fn run_out(r: &Run, agent: &Agent) -> RunOut {
    RunOut { run_id: r.id.clone(), agent: agent.name.clone(), status: r.status.as_str().to_string() }
}
