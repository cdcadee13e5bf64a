//! create_playbook: a plan saved as a named, versioned template with typed `{{param}}`
//! placeholders.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{problems_error, template_problems, ParamSpec, PlanDocument};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::tickets::caller;
use crate::store::Playbook;

pub const DECL: Decl = Decl {
    name: "create_playbook",
    title: "Create a playbook",
    description: "Save a plan as a named, versioned template: `plan` is a PlanDocument whose strings may hold {{param}} placeholders, `params` declares each one (type string, integer, boolean or enum with its values; required, or a default of its type). Every placeholder must be declared and every declared parameter used; each problem is named by its JSON pointer. Saving the same name again makes its next version. run_playbook fills it in.",
    set: ToolSet::Plans,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Orchestrate]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePlaybookArgs {
    /// The playbook's name (lower case, digits, '-', '_', '.'); the same name again makes a new version.
    #[schemars(length(min = 1, max = 100), regex(pattern = r"^[a-z0-9][a-z0-9_.-]*$"))]
    pub name: String,
    /// What the playbook is for.
    #[serde(default)]
    #[schemars(length(max = 2000))]
    pub description: String,
    /// The parameters its placeholders name: name -> {type, values, required, default, description}.
    #[serde(default)]
    pub params: BTreeMap<String, ParamSpec>,
    /// The plan template: a PlanDocument whose strings hold {{param}} placeholders.
    pub plan: PlanDocument,
}

#[derive(Serialize, JsonSchema)]
pub struct CreatePlaybookOut {
    pub playbook: Playbook,
}

pub async fn create_playbook(ctx: Ctx<String>, a: CreatePlaybookArgs) -> Result<CreatePlaybookOut, ToolError> {
    if a.params.len() > 50 {
        return Err(ToolError::invalid("/params", format!("/params: {} parameters; at most 50", a.params.len())));
    }
    let plan = serde_json::to_value(&a.plan).map_err(|e| ToolError::internal(e.to_string()))?;
    let problems = template_problems(&plan, &a.params);
    if !problems.is_empty() {
        return Err(problems_error(&problems));
    }
    let params = serde_json::to_value(&a.params).map_err(|e| ToolError::internal(e.to_string()))?;
    let playbook = ctx
        .services
        .store
        .plans()
        .save_playbook(&ctx.workspace, &a.name, &a.description, &params, &plan, &caller(&ctx).0)
        .await?;
    Ok(CreatePlaybookOut { playbook })
}
