//! add_review_diagram: a diagram of an area, checked against the head's call graph.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, area_of, at, open_review};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::post;
use crate::reviews::diagram::{verify, Diagram, DiagramCheck, Status};
use crate::store::reviews::StoredDiagram;

/// Hops a call arrow may take when not told.
pub const DEFAULT_DEPTH: usize = 2;

pub const DECL: Decl = Decl {
    name: "add_review_diagram",
    title: "Add a review diagram",
    description: "Attach a structured diagram to an area of an open review — sequence (participants and calls), entityRelation (entities and relations) or stateMachine (states and transitions) — checked against the call graph of the review's head: each element is marked verified (the graph says it, from facts), unverified (it can neither confirm nor deny: several candidates, only possible edges or references) or contradicted (a name that means no symbol, a call with no path within depth hops), by JSON pointer into the diagram. A diagram with contradicted elements is refused (error conflict, data.check) unless force: true, and then stored with its marks.",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddReviewDiagramArgs {
    /// The review.
    #[schemars(length(min = 1, max = 100))]
    pub review_id: String,
    /// The area the diagram explains.
    #[schemars(length(min = 1, max = 500))]
    pub area: String,
    /// The diagram: {"kind": "sequence", "participants": [...], "calls": [...]}, {"kind":
    /// "entityRelation", "entities", "relations"} or {"kind": "stateMachine", "states", "transitions"}.
    pub diagram: Diagram,
    /// Store it even when elements are contradicted (they stay marked).
    pub force: Option<bool>,
    /// Hops a call arrow may take through other code (default 2, at most 6).
    #[schemars(range(min = 1, max = 6))]
    pub depth: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
pub struct AddReviewDiagramOut {
    pub diagram_id: String,
    pub stored: StoredDiagram,
    pub check: DiagramCheck,
}

pub async fn add_review_diagram(ctx: Ctx<String>, a: AddReviewDiagramArgs) -> Result<AddReviewDiagramOut, ToolError> {
    let review = open_review(&ctx, &a.review_id, "/review_id").await?;
    area_of(&ctx, &review, &a.area, "/area").await?;
    a.diagram.validate().map_err(|e| {
        ToolError::invalid(&format!("/diagram{}", e.pointer), format!("/diagram{}: {}", e.pointer, e.message))
    })?;
    let meta = ctx.services.data.meta(&review.repo).map_err(|e| ToolError::internal(e.to_string()))?;
    let (data, root, repo, head) =
        (ctx.services.data.clone(), std::path::PathBuf::from(meta.root), review.repo.clone(), review.head_sha.clone());
    let depth = a.depth.unwrap_or(DEFAULT_DEPTH as u32).clamp(1, 6) as usize;
    let diagram = a.diagram.clone();
    let check = tokio::task::spawn_blocking(move || {
        crate::reviews::change::loaded(&data, &root, &repo, &head).and_then(|l| verify(&l, &diagram, depth))
    })
    .await
    .map_err(|e| ToolError::internal(e.to_string()))?
    .map_err(|m| ToolError::new(ErrorKind::Unavailable, format!("the head's call graph: {m}")))?;
    let check_json = serde_json::to_value(&check).expect("a check serializes");
    if check.contradicted > 0 && !a.force.unwrap_or(false) {
        let first = check.elements.iter().find(|e| e.status == Status::Contradicted).expect("one is");
        let pointer = format!("/diagram{}", first.pointer);
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!(
                "{pointer}: the call graph contradicts {} element(s) of the diagram, first this one: {}; fix them, or store it marked with force: true",
                check.contradicted, first.detail
            ),
        )
        .at(&pointer)
        .with_data(serde_json::json!({ "check": check_json })));
    }
    let diagram_json = serde_json::to_value(&a.diagram).expect("a diagram serializes");
    let stored = ctx
        .services
        .store
        .reviews()
        .add_diagram(
            &review.id,
            &a.area,
            a.diagram.kind(),
            &diagram_json,
            &check_json,
            check.contradicted > 0,
            &actor(&ctx),
        )
        .await
        .map_err(|e| at(e, "/review_id"))?;
    post(
        &ctx,
        &review.space_id,
        &format!(
            "diagram {} ({} of {}): {} verified, {} unverified, {} contradicted{}",
            stored.id,
            stored.kind,
            a.area,
            check.verified,
            check.unverified,
            check.contradicted,
            if stored.forced { " (forced)" } else { "" }
        ),
        None,
    )
    .await?;
    Ok(AddReviewDiagramOut { diagram_id: stored.id.clone(), stored, check })
}
