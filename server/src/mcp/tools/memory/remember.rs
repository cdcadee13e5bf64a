//! remember: an item of the session's hot memory, bounded by a TTL and a count.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::owner;
use super::propose_fact::text_of;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::store::memory::{Evicted, HotItem};

/// Items a session's hot memory holds; past it the oldest goes.
pub const MAX_ITEMS: i64 = 32;
/// How long an item stays by default (seconds).
pub const DEFAULT_TTL_SECS: i64 = 3600;

pub const DECL: Decl = Decl {
    name: "remember",
    title: "Remember for this session",
    description: "Add a note to the calling agent's hot memory for this session: it expires after ttl_secs (default 3600) and the session holds at most 32 (the oldest goes first); the result says what was evicted. consolidate_memory promotes items marked durable, or seen again in another session, to facts.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RememberArgs {
    /// What to keep in mind.
    #[schemars(length(min = 1, max = 2000))]
    pub text: String,
    /// Worth keeping: consolidate_memory promotes it to a fact.
    pub durable: Option<bool>,
    /// Seconds it stays (default 3600, at most 7 days).
    #[schemars(range(min = 1, max = 604800))]
    pub ttl_secs: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
pub struct RememberOut {
    pub item: HotItem,
    /// Items that left hot memory now: expired (`ttl`) or the oldest past the count (`count`).
    pub evicted: Vec<Evicted>,
    /// Items this session's hot memory holds now.
    pub held: usize,
    pub max_items: i64,
}

pub async fn remember(ctx: Ctx<String>, a: RememberArgs) -> Result<RememberOut, ToolError> {
    let text = text_of(&a.text)?;
    let key = owner(&ctx).0;
    let ttl = a.ttl_secs.map_or(DEFAULT_TTL_SECS, i64::from);
    let m = ctx.services.store.memory();
    let session = &ctx.conversation.id;
    let (item, evicted) =
        m.remember(&ctx.workspace, &key, session, text, a.durable.unwrap_or(false), ttl, MAX_ITEMS).await?;
    let held = m.hot(&ctx.workspace, &key, session).await?.len();
    Ok(RememberOut { item, evicted, held, max_items: MAX_ITEMS })
}
