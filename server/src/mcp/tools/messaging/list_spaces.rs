//! list_spaces: the workspace's messaging spaces and their members.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::{Space, SpaceKind};

pub const DECL: Decl = Decl {
    name: "list_spaces",
    title: "List spaces",
    description: "List a workspace's messaging spaces (direct messages between two agents, a ticket's or a review's space, free ones), each with its members and how many messages it holds; `mine` keeps those the caller is a member of.",
    set: ToolSet::Messaging,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review, Mode::Orchestrate]),
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListSpacesArgs {
    /// Only spaces of this kind.
    pub kind: Option<SpaceKind>,
    /// Only spaces the caller is a member of.
    pub mine: Option<bool>,
}

#[derive(Serialize, JsonSchema)]
pub struct SpaceOut {
    #[serde(flatten)]
    pub space: Space,
    /// Resource address of its messages (subscribe to hear of new ones).
    pub uri: String,
}

#[derive(Serialize, JsonSchema)]
pub struct ListSpacesOut {
    pub spaces: Vec<SpaceOut>,
}

pub async fn list_spaces(ctx: Ctx<String>, a: ListSpacesArgs) -> Result<ListSpacesOut, ToolError> {
    let me = ctx.principal.as_member().member;
    let spaces = ctx.services.store.spaces().list(&ctx.workspace).await?;
    Ok(ListSpacesOut {
        spaces: spaces
            .into_iter()
            .filter(|s| a.kind.is_none_or(|k| s.kind == k))
            .filter(|s| a.mine != Some(true) || s.members.iter().any(|m| m.member == me))
            .map(|s| SpaceOut { uri: crate::mcp::resources::messages_uri(&s.id), space: s })
            .collect(),
    })
}
