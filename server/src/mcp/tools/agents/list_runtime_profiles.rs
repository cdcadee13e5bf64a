//! list_runtime_profiles: the workspace's runtime profiles.

use schemars::JsonSchema;
use serde::Serialize;

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, NoArgs, Scope, ToolError, ToolSet};
use crate::store::RuntimeProfile;

pub const DECL: Decl = Decl {
    name: "list_runtime_profiles",
    title: "List runtime profiles",
    description: "List the workspace's runtime profiles: name, family, command, fixed arguments, whether a message wakes its agents, its run time limit.",
    set: ToolSet::Agents,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Serialize, JsonSchema)]
pub struct ProfilesOut {
    pub profiles: Vec<RuntimeProfile>,
}

pub async fn list_runtime_profiles(ctx: Ctx<String>, _: NoArgs) -> Result<ProfilesOut, ToolError> {
    Ok(ProfilesOut { profiles: ctx.services.store.agents().profiles(&ctx.workspace).await? })
}
