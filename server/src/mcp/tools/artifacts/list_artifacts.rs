//! list_artifacts: a workspace's artifacts, newest first, a page at a time.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::Artifact;

pub const DECL: Decl = Decl {
    name: "list_artifacts",
    title: "List artifacts",
    description: "List the workspace's artifacts, newest first: at most `limit` (default 50, up to 200) after `cursor` (an earlier call's next_cursor). get_artifact reads one with its blocks.",
    set: ToolSet::Plans,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArtifactsArgs {
    /// Where the previous page ended (its next_cursor).
    #[schemars(length(min = 1, max = 100))]
    pub cursor: Option<String>,
    /// At most this many artifacts (default 50).
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
pub struct ListArtifactsOut {
    pub artifacts: Vec<Artifact>,
    /// The cursor of the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

pub async fn list_artifacts(ctx: Ctx<String>, a: ListArtifactsArgs) -> Result<ListArtifactsOut, ToolError> {
    if let Some(c) = &a.cursor {
        if !c.starts_with("ar-") {
            return Err(ToolError::invalid(
                "/cursor",
                format!("/cursor: '{c}' is not a cursor; pass an earlier call's next_cursor"),
            ));
        }
    }
    let limit = a.limit.unwrap_or(50);
    let mut artifacts = ctx.services.store.artifacts().list(&ctx.workspace, a.cursor.as_deref(), limit + 1).await?;
    let more = artifacts.len() > limit as usize;
    artifacts.truncate(limit as usize);
    let next_cursor = if more { artifacts.last().map(|x| x.id.clone()) } else { None };
    Ok(ListArtifactsOut { artifacts, next_cursor })
}
