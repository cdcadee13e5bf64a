//! get_my_notes: the caller's scratchpad, its session's hot memory and latest observations.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::owner;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::memory::{HotItem, Observation, OwnNotes};

pub const DECL: Decl = Decl {
    name: "get_my_notes",
    title: "Read my notes",
    description: "Read the calling agent's working memory: its scratchpad (update_my_notes writes it), this session's hot memory (remember adds to it) and its latest observations (record_observation), newest first.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetMyNotesArgs {
    /// At most this many observations (default 20).
    #[schemars(range(min = 0, max = 200))]
    pub observations: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
pub struct GetMyNotesOut {
    pub notes: OwnNotes,
    /// This session's hot memory, oldest first.
    pub hot: Vec<HotItem>,
    pub observations: Vec<Observation>,
}

pub async fn get_my_notes(ctx: Ctx<String>, a: GetMyNotesArgs) -> Result<GetMyNotesOut, ToolError> {
    let key = owner(&ctx).0;
    let m = ctx.services.store.memory();
    Ok(GetMyNotesOut {
        notes: m.notes(&ctx.workspace, &key).await?,
        hot: m.hot(&ctx.workspace, &key, &ctx.conversation.id).await?,
        observations: m.observations(&ctx.workspace, &key, i64::from(a.observations.unwrap_or(20))).await?,
    })
}
