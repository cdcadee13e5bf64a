//! add_review_node: a finding (file, line, priority, title, body) in an area of an open review;
//! one dismissed before at the same place comes back flagged suppressed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{actor, area_of, at, open_review};
use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::messaging::post;
use crate::store::reviews::{NewNode, Node, NodePriority};
use crate::store::EntryStatus;

pub const DECL: Decl = Decl {
    name: "add_review_node",
    title: "Add a review finding",
    description: "Add a finding to an open review: its area (start_ai_review's areas), file and line at the review's head, priority P0 (must not ship) to P3 (a nit), title and body. It is posted into the review's space. When the same finding (same title) at the same place (the same lines around it) was dismissed before in this workspace, it is flagged suppressed: true, with the memory fact that records the dismissal (suppressed_by).",
    set: ToolSet::Reviews,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Review]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AddReviewNodeArgs {
    /// The review (start_ai_review's review_id).
    #[schemars(length(min = 1, max = 100))]
    pub review_id: String,
    /// The area the finding belongs to.
    #[schemars(length(min = 1, max = 500))]
    pub area: String,
    /// The file, repository-relative, as it is at the review's head.
    #[schemars(length(min = 1, max = 1000))]
    pub file: String,
    /// The line (1-based) at the review's head.
    #[schemars(range(min = 1))]
    pub line: u32,
    /// P0 (must not ship), P1 (should not ship as is), P2, P3 (a nit).
    pub priority: NodePriority,
    /// What is wrong, in a line.
    #[schemars(length(min = 1, max = 300))]
    pub title: String,
    /// Why, and what to do about it.
    #[schemars(length(max = 20000))]
    pub body: String,
}

#[derive(Serialize, JsonSchema)]
pub struct AddReviewNodeOut {
    pub node_id: String,
    pub node: Node,
    /// The same finding at the same place was dismissed before (see suppressed_by).
    pub suppressed: bool,
    /// The memory fact recording that dismissal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressed_by: Option<String>,
}

pub async fn add_review_node(ctx: Ctx<String>, a: AddReviewNodeArgs) -> Result<AddReviewNodeOut, ToolError> {
    let review = open_review(&ctx, &a.review_id, "/review_id").await?;
    area_of(&ctx, &review, &a.area, "/area").await?;
    let meta = ctx.services.data.meta(&review.repo).map_err(|e| ToolError::internal(e.to_string()))?;
    let root = std::path::PathBuf::from(&meta.root);
    let (r2, head, file) = (root.clone(), review.head_sha.clone(), a.file.clone());
    let text = tokio::task::spawn_blocking(move || crate::reviews::git::show(&r2, &head, &file))
        .await
        .map_err(|e| ToolError::internal(e.to_string()))?;
    let Some(text) = text.map(|b| String::from_utf8_lossy(&b).into_owned()) else {
        return Err(ToolError::invalid(
            "/file",
            format!("/file: '{}' is not a file of {} at the review's head {}", a.file, review.repo, review.head_sha),
        ));
    };
    let lines = text.lines().count();
    if a.line as usize > lines.max(1) {
        return Err(ToolError::invalid(
            "/line",
            format!("/line: {} is past the end of {} ({lines} lines at the review's head)", a.line, a.file),
        ));
    }
    let context = crate::reviews::suppress::context(&text, a.line as usize);
    let key = crate::reviews::suppress::key_of(&review.repo, &a.file, &context, &a.title);
    let store = ctx.services.store.reviews();
    // A suppression counts while its fact is active (a retired or superseded fact lifts it).
    let mut suppressed_by = None;
    if let Some(s) = store.suppression(&ctx.workspace, &key).await? {
        if let Some(f) = ctx.services.store.memory().get(&s.fact_id).await? {
            if f.status == EntryStatus::Active {
                suppressed_by = Some(f.id);
            }
        }
    }
    let me = actor(&ctx);
    let node = store
        .add_node(
            &review.id,
            NewNode {
                area: &a.area,
                file: &a.file,
                line: i64::from(a.line),
                priority: a.priority,
                title: a.title.trim(),
                body: &a.body,
                suppression_key: &key,
                suppressed_by: suppressed_by.as_deref(),
            },
            &me,
        )
        .await
        .map_err(|e| at(e, "/review_id"))?;
    let mut text = format!(
        "finding {} {} {}:{} [{}] {} (by {})",
        node.id,
        node.priority.as_str(),
        node.file,
        node.line,
        node.area,
        node.title,
        node.author
    );
    if let Some(f) = &suppressed_by {
        text.push_str(&format!(" — suppressed: dismissed before at this place (memory fact {f})"));
    }
    if !node.body.is_empty() {
        text.push_str("\n\n");
        text.push_str(&node.body);
    }
    post(&ctx, &review.space_id, &text, None).await?;
    Ok(AddReviewNodeOut { node_id: node.id.clone(), suppressed: suppressed_by.is_some(), suppressed_by, node })
}
