//! get_org_chart: the reporting tree.

use schemars::JsonSchema;
use serde::Serialize;

use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};
use crate::store::Agent;

pub const DECL: Decl = Decl {
    name: "get_org_chart",
    title: "Org chart",
    description: "Read the workspace's reporting tree: the agents that report to nobody at the root (the CEO), each with the agents that report to it, nested by reports_to.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Orchestrate]),
    hints: Hints::READ,
};

#[derive(Serialize, JsonSchema)]
pub struct OrgNode {
    pub agent_id: String,
    pub name: String,
    pub description: String,
    pub skills: Vec<String>,
    /// The agents that report to this one.
    #[schemars(with = "Vec<serde_json::Value>")]
    pub reports: Vec<OrgNode>,
}

#[derive(Serialize, JsonSchema)]
pub struct OrgChartOut {
    /// Agents that report to nobody, each with its tree.
    #[schemars(with = "Vec<serde_json::Value>")]
    pub roots: Vec<OrgNode>,
    pub agents: usize,
}

fn node(a: &Agent, all: &[Agent], depth: usize) -> OrgNode {
    OrgNode {
        agent_id: a.id.clone(),
        name: a.name.clone(),
        description: a.description.clone(),
        skills: a.skills.clone(),
        // Cycles are refused when reports_to is set; the depth bound is a guard all the same.
        reports: if depth > 64 {
            Vec::new()
        } else {
            all.iter().filter(|b| b.reports_to.as_deref() == Some(&a.id)).map(|b| node(b, all, depth + 1)).collect()
        },
    }
}

pub async fn get_org_chart(ctx: Ctx<String>, _: NoArgs) -> Result<OrgChartOut, ToolError> {
    let all = ctx.services.store.agents().list(&ctx.workspace).await?;
    let roots = all
        .iter()
        .filter(|a| a.reports_to.as_ref().is_none_or(|m| !all.iter().any(|b| &b.id == m)))
        .map(|a| node(a, &all, 0))
        .collect();
    Ok(OrgChartOut { roots, agents: all.len() })
}
