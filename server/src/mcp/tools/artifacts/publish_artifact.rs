//! publish_artifact: an ordered list of typed blocks, checked, as revision 1 of a new artifact.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{checked, ArtifactOut};
use crate::artifacts::Block;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::tickets::caller;

pub const DECL: Decl = Decl {
    name: "publish_artifact",
    title: "Publish an artifact",
    description: "Publish an artifact: a title and an ordered list of typed blocks, each with its `type` — markdown {text}, table {columns, rows: each row one cell per column}, chart {kind: bar|line|scatter, series: [{name, points: [[x, y], …]}], x_label, y_label}, mermaid {text: flowchart/graph and sequenceDiagram are drawn}, code {language, text}, json {value}. Every problem is named by its JSON pointer (/blocks/1/rows/2). It is revision 1; the result's page (/artifacts/{artifact_id}) renders it as HTML. revise_artifact replaces its content.",
    set: ToolSet::Plans,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PublishArtifactArgs {
    /// The artifact's title.
    #[schemars(length(min = 1, max = 500))]
    pub title: String,
    /// The blocks, in the order they are shown.
    #[schemars(length(min = 1, max = 200))]
    pub blocks: Vec<Block>,
}

pub async fn publish_artifact(ctx: Ctx<String>, a: PublishArtifactArgs) -> Result<ArtifactOut, ToolError> {
    let blocks = checked(&a.blocks)?;
    let (artifact, revision) =
        ctx.services.store.artifacts().create(&ctx.workspace, &a.title, &blocks, &caller(&ctx).0).await?;
    Ok(ArtifactOut::new(artifact, revision))
}
