//! revise_artifact: new content for an artifact, on the revision its writer read.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{artifact_of, checked, ArtifactOut};
use crate::artifacts::Block;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::tickets::caller;
use crate::store::StoreError;

pub const DECL: Decl = Decl {
    name: "revise_artifact",
    title: "Revise an artifact",
    description: "Replace an artifact's blocks (and its title, when given) with a new revision. base_revision is the revision the new content was written on (get_artifact's artifact.current_revision_id); if another revision was saved since, it is refused with the current one (error conflict, data.current_revision_id): read it, merge, and revise again. Every revision is kept, numbered.",
    set: ToolSet::Plans,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviseArtifactArgs {
    /// The artifact to revise.
    #[schemars(length(min = 1, max = 100))]
    pub artifact_id: String,
    /// The revision this content was written on (its id).
    #[schemars(length(min = 1, max = 100))]
    pub base_revision: String,
    /// A new title (default: the current one).
    #[schemars(length(min = 1, max = 500))]
    pub title: Option<String>,
    /// The whole new list of blocks.
    #[schemars(length(min = 1, max = 200))]
    pub blocks: Vec<Block>,
}

pub async fn revise_artifact(ctx: Ctx<String>, a: ReviseArtifactArgs) -> Result<ArtifactOut, ToolError> {
    let art = artifact_of(&ctx, &a.artifact_id, "/artifact_id").await?;
    let blocks = checked(&a.blocks)?;
    let store = ctx.services.store.artifacts();
    match store.revise(&art.id, &a.base_revision, a.title.as_deref(), &blocks, &caller(&ctx).0).await {
        Ok(revision) => {
            let artifact = store.get(&art.id).await?.ok_or_else(|| ToolError::internal("the artifact went away"))?;
            Ok(ArtifactOut::new(artifact, revision))
        }
        Err(e @ StoreError::Conflict(_)) => {
            let current = store.get(&art.id).await?.map(|w| w.current_revision_id);
            Err(ToolError::from(e)
                .at("/base_revision")
                .with_data(serde_json::json!({ "current_revision_id": current })))
        }
        Err(e) => Err(e.into()),
    }
}
