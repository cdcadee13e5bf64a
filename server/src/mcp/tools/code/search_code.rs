//! search_code: BM25 and embeddings over the workspace's symbols.

use cc_indexer::{Lang, SearchQuery, SymbolKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{blocking, parse_filters, repos_for, symbol_out, SearchMode, SymbolOut};
use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "search_code",
    title: "Search code",
    description: "Search indexed symbols by name, signature, doc comment and body: the identifiers and calls in it (BM25 over identifier words; hybrid with semantic ranking when embeddings are available). Answers file:line, signature and a resource link for each symbol.",
    set: ToolSet::Code,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Always,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Words to look for in symbol names, qualified names, signatures and doc comments.
    /// Identifiers are split into words: `parse json` finds `parseJSONValue`.
    #[schemars(length(min = 1, max = 1000))]
    pub query: String,
    /// Only this repository of the workspace (see list_repos).
    pub repo: Option<String>,
    /// Only symbols of these kinds: function, method, class, struct, interface, trait, enum, module, constant, type, macro, field, variable, label.
    pub kind: Option<Vec<String>>,
    /// Only these languages: python, rust, go, typescript, …
    pub lang: Option<Vec<String>>,
    /// Only files under this repository-relative folder or path.
    pub path: Option<String>,
    /// At most this many results (default 20).
    #[schemars(range(min = 1, max = 200))]
    pub limit: Option<u32>,
    /// Ranking: `hybrid` (default: BM25 and embeddings fused, weighted by how identifier-like
    /// the query is), `keyword` (BM25 over identifier words), `semantic` (embeddings only).
    pub mode: Option<SearchMode>,
}

#[derive(Serialize, JsonSchema)]
pub struct SearchHitOut {
    pub rank: u32,
    /// The fused score (hybrid), the BM25 score (keyword) or the vector score (semantic).
    pub score: f32,
    /// Rank in the BM25 list (absent: not in its top results).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25_rank: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25_score: Option<f32>,
    /// Rank in the vector list (absent: not in its top results, or semantic ranking unavailable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_rank: Option<u32>,
    /// Cosine similarity of the symbol's embedding to the query's, plus its prior: test code
    /// -0.10, private -0.05, documented +0.05 (none when the query mentions tests).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_score: Option<f32>,
    pub symbol: SymbolOut,
}

#[derive(Serialize, JsonSchema)]
pub struct SearchOut {
    pub results: Vec<SearchHitOut>,
    /// `available`, `not used (mode keyword)`, or `unavailable: <why>` (then the results are BM25's).
    pub semantic: String,
    /// The ranking the results used: hybrid, keyword or semantic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    pub repos: Vec<String>,
    /// An agent's run: files of its worktrees changed since the index was built.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub worktree_changes: Vec<super::WorktreeChanges>,
}

pub async fn search_code(ctx: Ctx<String>, a: SearchArgs) -> Result<SearchOut, ToolError> {
    let ws = ctx.workspace.clone();
    if a.query.trim().is_empty() {
        return Err(ToolError::invalid("/query", "/query: give at least one word to search for"));
    }
    let kinds = parse_filters(&a.kind, "kind", SymbolKind::parse, &SymbolKind::ALL.map(|k| k.as_str()))?;
    let all_langs: Vec<&str> = Lang::all().map(Lang::name).collect();
    let langs = parse_filters(&a.lang, "lang", Lang::from_name, &all_langs)?;
    let repos = repos_for(&ctx, a.repo.as_deref()).await?;
    let limit = a.limit.unwrap_or(20) as usize;
    let q = SearchQuery { text: a.query.clone(), kinds, langs, path_prefix: a.path.clone(), limit };
    let asked: cc_indexer::Mode = a.mode.map_or(cc_indexer::Mode::Hybrid, Into::into);
    let (mut mode, mut semantic) = (asked, String::new());
    let mut hits = Vec::new();
    for (name, l) in &repos {
        let q = q.clone();
        let l2 = l.clone();
        // Embedding the query is CPU work: off the async workers.
        let res = blocking(move || l2.search(&q, asked).map_err(|e| ToolError::internal(e.to_string()))).await?;
        if res.mode != asked || semantic.is_empty() {
            (mode, semantic) = (
                res.mode,
                if repos.len() > 1 && res.mode != asked { format!("{name}: {}", res.semantic) } else { res.semantic },
            );
        }
        hits.extend(res.hits.into_iter().map(|h| (name.clone(), h)));
    }
    hits.sort_by(|x, y| y.1.score.total_cmp(&x.1.score).then(x.1.symbol.id.cmp(&y.1.symbol.id)));
    hits.truncate(limit);
    let rank = |r: Option<usize>| r.map(|r| r as u32);
    Ok(SearchOut {
        results: hits
            .iter()
            .enumerate()
            .map(|(i, (repo, h))| SearchHitOut {
                rank: i as u32 + 1,
                score: h.score,
                bm25_rank: rank(h.bm25_rank),
                bm25_score: h.bm25_score,
                vector_rank: rank(h.vector_rank),
                vector_score: h.vector_score,
                symbol: symbol_out(&ws, repo, &h.symbol),
            })
            .collect(),
        semantic,
        mode: Some(mode.as_str().to_string()),
        worktree_changes: super::worktree_changes(&ctx, &repos.iter().map(|r| r.0.as_str()).collect::<Vec<_>>()).await,
        repos: repos.into_iter().map(|r| r.0).collect(),
    })
}
