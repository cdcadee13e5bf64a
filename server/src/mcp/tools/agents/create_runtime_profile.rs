//! create_runtime_profile: a reusable way to start an agent's runs (its command must be on
//! the operator's allow-list).

use schemars::JsonSchema;
use serde::Deserialize;

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{Family, RuntimeProfile};

pub const DECL: Decl = Decl {
    name: "create_runtime_profile",
    title: "Create a runtime profile",
    description: "Define a reusable runtime profile: a protocol family (mcp-cli: any MCP-speaking program, the brief on stdin; claude-code: `claude -p BRIEF --mcp-config FILE`), a command and fixed launch arguments, kept as argv (never a shell string). The command must be on the operator's allow-list; a call cannot add one. Requires approval.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: true,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateProfileArgs {
    /// The profile's name (unique in the workspace; agents name it as their runtime).
    #[schemars(length(min = 1, max = 64), regex(pattern = r"^[A-Za-z0-9._-]+$"))]
    pub name: String,
    pub family: Family,
    /// The program: a name on PATH or a path, as the operator's allow-list holds it.
    #[schemars(length(min = 1, max = 4096))]
    pub command: String,
    /// Fixed launch arguments, each one argument.
    #[schemars(length(max = 64))]
    pub args: Option<Vec<String>>,
    /// A message (send_to_agent) to an agent of this profile starts a run when it has none.
    pub wake_on_message: Option<bool>,
    /// A run's wall-clock limit, seconds (default: the server's run_timeout_secs).
    #[schemars(range(min = 1, max = 86400))]
    pub timeout_secs: Option<u32>,
}

pub async fn create_runtime_profile(ctx: Ctx<String>, a: CreateProfileArgs) -> Result<RuntimeProfile, ToolError> {
    let config = &ctx.services.config;
    crate::agents::admin::check_allowed(config, &a.command)
        .map_err(|m| ToolError::invalid("/command", format!("/command: {m}")))?;
    let p = RuntimeProfile {
        id: RuntimeProfile::new_id(),
        workspace_id: ctx.workspace.clone(),
        name: a.name,
        family: a.family,
        command: a.command,
        args: a.args.unwrap_or_default(),
        wake_on_message: a.wake_on_message.unwrap_or(false),
        timeout_secs: a.timeout_secs.map_or(config.runtimes.run_timeout_secs, u64::from),
        created_by: ctx.principal.name.to_string(),
        created_at: crate::store::now(),
    };
    ctx.services.store.agents().add_profile(&p).await.map_err(|e| ToolError::from(e).at("/name"))?;
    Ok(p)
}
