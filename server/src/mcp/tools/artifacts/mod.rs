//! Artifact tools: publish_artifact (an ordered list of typed blocks: markdown, table, chart,
//! mermaid, code, json), revise_artifact (new content on the revision the writer read: a
//! stale `base_revision` is refused with the current one; every revision kept, numbered),
//! list_artifacts and get_artifact. An artifact is named by `artifact_id`; its current
//! revision is a page at `GET /artifacts/{artifact_id}` (`crate::artifacts` renders it). The
//! blocks' shape is their JSON Schema; what it cannot say (a table row's length, bar charts'
//! one bar per x, a mermaid diagram that does not parse) is checked here, each problem named
//! by its JSON pointer.

mod get_artifact;
mod list_artifacts;
mod publish_artifact;
mod revise_artifact;

use schemars::JsonSchema;
use serde::Serialize;

use crate::artifacts::Block;
use crate::mcp::tool::{Ctx, Registry, ToolError};
use crate::mcp::tools::plans::{problems_error, Problem};
use crate::store::{Artifact, ArtifactRevision};

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(publish_artifact::DECL, publish_artifact::publish_artifact);
    r.add(revise_artifact::DECL, revise_artifact::revise_artifact);
    r.add(list_artifacts::DECL, list_artifacts::list_artifacts);
    r.add(get_artifact::DECL, get_artifact::get_artifact);
}

/// The artifact `id` of the call's workspace, or an error naming `pointer`.
pub(crate) async fn artifact_of(ctx: &Ctx<String>, id: &str, pointer: &str) -> Result<Artifact, ToolError> {
    match ctx.services.store.artifacts().get(id).await? {
        Some(a) if a.workspace_id == ctx.workspace => Ok(a),
        _ => Err(ToolError::not_found(
            pointer,
            format!("{pointer}: no artifact '{id}' in workspace '{}'; list_artifacts lists them", ctx.workspace),
        )),
    }
}

/// The blocks checked beyond their schema, as the JSON stored.
pub(crate) fn checked(blocks: &[Block]) -> Result<serde_json::Value, ToolError> {
    let problems: Vec<Problem> =
        crate::artifacts::validate(blocks, "/blocks").into_iter().map(|(p, m)| Problem::new(p, m)).collect();
    if !problems.is_empty() {
        return Err(problems_error(&problems));
    }
    serde_json::to_value(blocks).map_err(|e| ToolError::internal(e.to_string()))
}

/// An artifact with one of its revisions, and where its page is.
#[derive(Serialize, JsonSchema)]
pub struct ArtifactOut {
    pub artifact: Artifact,
    pub revision: ArtifactRevision,
    /// The current revision as an HTML page on this server (GET, with the same bearer token as /mcp).
    pub page: String,
}

impl ArtifactOut {
    pub fn new(artifact: Artifact, revision: ArtifactRevision) -> ArtifactOut {
        let page = format!("/artifacts/{}", artifact.id);
        ArtifactOut { artifact, revision, page }
    }
}
