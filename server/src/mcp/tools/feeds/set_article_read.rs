//! set_article_read: mark an article read or unread.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::at;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "set_article_read",
    title: "Mark an article read",
    description: "Mark an article as read (read: true) or unread (read: false). Idempotent: `changed` says whether it was otherwise before.",
    set: ToolSet::Feeds,
    scope: Scope::Global,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetArticleReadArgs {
    /// The article (see list_articles).
    #[schemars(length(min = 1, max = 100))]
    pub article_id: String,
    /// true: read; false: unread.
    pub read: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct SetArticleReadOut {
    pub article_id: String,
    pub read: bool,
    /// Whether the article was otherwise before this call.
    pub changed: bool,
}

pub async fn set_article_read(ctx: Ctx<()>, a: SetArticleReadArgs) -> Result<SetArticleReadOut, ToolError> {
    let changed = ctx.services.store.feeds().set_read(&a.article_id, a.read).await.map_err(|e| at("/article_id", e))?;
    Ok(SetArticleReadOut { article_id: a.article_id, read: a.read, changed })
}
