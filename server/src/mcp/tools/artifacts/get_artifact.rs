//! get_artifact: an artifact with its current revision's blocks, or an earlier revision's.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{artifact_of, ArtifactOut};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "get_artifact",
    title: "Get an artifact",
    description: "Read an artifact with the blocks of its current revision, or of revision `revision` (1, 2, …; artifact.revisions says how many there are).",
    set: ToolSet::Plans,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetArtifactArgs {
    /// The artifact (from publish_artifact or list_artifacts).
    #[schemars(length(min = 1, max = 100))]
    pub artifact_id: String,
    /// Which revision (default: the current one).
    #[schemars(range(min = 1))]
    pub revision: Option<u32>,
}

pub async fn get_artifact(ctx: Ctx<String>, a: GetArtifactArgs) -> Result<ArtifactOut, ToolError> {
    let artifact = artifact_of(&ctx, &a.artifact_id, "/artifact_id").await?;
    let Some(revision) = ctx.services.store.artifacts().revision(&artifact.id, a.revision.map(i64::from)).await? else {
        return Err(ToolError::not_found(
            "/revision",
            format!(
                "/revision: artifact '{}' has no revision {} (its revisions: 1 to {})",
                artifact.id,
                a.revision.unwrap_or(0),
                artifact.revisions
            ),
        ));
    };
    Ok(ArtifactOut::new(artifact, revision))
}
