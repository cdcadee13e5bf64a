//! search_memory: facts and policies by keyword (BM25), meaning (embeddings) or both.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::domain_of;
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::code::SearchMode;
use crate::memory::{Hit, SearchQuery};
use crate::store::EntryKind;

pub const DECL: Decl = Decl {
    name: "search_memory",
    title: "Search memory",
    description: "Search the workspace's facts and policies: hybrid (default: BM25 and embeddings fused as search_code fuses them), keyword (BM25 over their words) or semantic (embeddings only). Each hit has its ranks and scores. Superseded and retired entries are left out unless include_superseded is true. Without an embedding model the answer comes from keyword ranking and `semantic` says why.",
    set: ToolSet::Memory,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

/// An entry's kind.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum KindArg {
    Fact,
    Policy,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchMemoryArgs {
    /// What to look for, in words.
    #[schemars(length(min = 1, max = 1000))]
    pub query: String,
    /// Ranking: `hybrid` (default), `keyword` or `semantic`.
    pub mode: Option<SearchMode>,
    /// Only this domain (see list_memory_domains).
    #[schemars(length(min = 1, max = 64))]
    pub domain: Option<String>,
    /// Only these kinds: fact, policy (default both).
    pub kinds: Option<Vec<KindArg>>,
    /// At most this many results (default 10).
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
    /// Superseded facts and retired policies too (their `superseded_by` names what replaced them).
    pub include_superseded: Option<bool>,
}

#[derive(Serialize, JsonSchema)]
pub struct SearchMemoryOut {
    pub results: Vec<Hit>,
    /// The ranking used: hybrid, keyword or semantic.
    pub mode: String,
    /// `available`, `not used (mode keyword)`, or `unavailable: <why>` (then the results are BM25's).
    pub semantic: String,
}

pub async fn search_memory(ctx: Ctx<String>, a: SearchMemoryArgs) -> Result<SearchMemoryOut, ToolError> {
    if a.query.trim().is_empty() {
        return Err(ToolError::invalid("/query", "/query: give at least one word to search for"));
    }
    let domain_id = match &a.domain {
        Some(d) => Some(domain_of(&ctx, d, "/domain").await?.id),
        None => None,
    };
    let kinds = a
        .kinds
        .unwrap_or_default()
        .into_iter()
        .map(|k| match k {
            KindArg::Fact => EntryKind::Fact,
            KindArg::Policy => EntryKind::Policy,
        })
        .collect();
    let q = SearchQuery {
        text: a.query,
        mode: a.mode.map_or(cc_indexer::Mode::Hybrid, Into::into),
        domain_id,
        kinds,
        include_inactive: a.include_superseded.unwrap_or(false),
        limit: a.limit.unwrap_or(10) as usize,
    };
    let ans = ctx.services.memory.search(&ctx.services.store, &ctx.workspace, &q).await?;
    Ok(SearchMemoryOut { results: ans.hits, mode: ans.mode.as_str().to_string(), semantic: ans.semantic })
}
