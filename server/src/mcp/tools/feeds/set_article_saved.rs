//! set_article_saved: save or unsave an article.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::at;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "set_article_saved",
    title: "Save an article",
    description: "Save an article (saved: true) or unsave it (saved: false). Idempotent: `changed` says whether it was otherwise before.",
    set: ToolSet::Feeds,
    scope: Scope::Global,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetArticleSavedArgs {
    /// The article (see list_articles).
    #[schemars(length(min = 1, max = 100))]
    pub article_id: String,
    /// true: saved; false: not saved.
    pub saved: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct SetArticleSavedOut {
    pub article_id: String,
    pub saved: bool,
    /// Whether the article was otherwise before this call.
    pub changed: bool,
}

pub async fn set_article_saved(ctx: Ctx<()>, a: SetArticleSavedArgs) -> Result<SetArticleSavedOut, ToolError> {
    let changed =
        ctx.services.store.feeds().set_saved(&a.article_id, a.saved).await.map_err(|e| at("/article_id", e))?;
    Ok(SetArticleSavedOut { article_id: a.article_id, saved: a.saved, changed })
}
