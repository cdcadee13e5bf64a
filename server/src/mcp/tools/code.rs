//! The code tools: search_code, code_symbol, code_callers, code_callees, code_impact,
//! code_read — over the repositories of the call's workspace (`repo` narrows).

use std::sync::Arc;

use cc_graph::{Limits, NodeRef, Walk};
use cc_indexer::{Lang, SearchQuery, SymbolDoc, SymbolKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::Loaded;
use crate::mcp::dispatch::{CallCtx, ToolError};
use crate::mcp::registry::{Registry, Scope, Spec};
use crate::mcp::resources;

// ---------------------------------------------------------------- arguments

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

/// How search_code ranks.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    Hybrid,
    Keyword,
    Semantic,
}

impl From<SearchMode> for cc_indexer::Mode {
    fn from(m: SearchMode) -> cc_indexer::Mode {
        match m {
            SearchMode::Hybrid => cc_indexer::Mode::Hybrid,
            SearchMode::Keyword => cc_indexer::Mode::Keyword,
            SearchMode::Semantic => cc_indexer::Mode::Semantic,
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SymbolArgs {
    /// An exact name (`parse_json`) or qualified name (`pkg.mod.parse_json`, `crate::a::f`).
    #[schemars(length(min = 1, max = 1000))]
    pub name: String,
    /// Only this repository of the workspace.
    pub repo: Option<String>,
    /// Also return each match's source text.
    pub include_source: Option<bool>,
    /// At most this many matches (default 50).
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphArgs {
    /// The symbol: an id (16 hex digits, from another code tool), a qualified name, or a
    /// plain name. A plain name that matches several symbols answers with the candidates.
    #[schemars(length(min = 1, max = 1000))]
    pub symbol: String,
    /// Only this repository of the workspace.
    pub repo: Option<String>,
    /// Hops to follow (default 1; code_impact: 3).
    #[schemars(range(min = 1, max = 10))]
    pub depth: Option<u32>,
    /// At most this many symbols in the answer (default 200).
    #[schemars(range(min = 1, max = 5000))]
    pub limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// Only this repository of the workspace (needed when it has several and `path` is given).
    pub repo: Option<String>,
    /// A repository-relative file path.
    pub path: Option<String>,
    /// A symbol id (16 hex digits): reads that symbol's source.
    pub symbol: Option<String>,
    /// First line to read (1-based, default 1).
    #[schemars(range(min = 1))]
    pub start_line: Option<u32>,
    /// Last line to read (default: start_line + 199).
    #[schemars(range(min = 1))]
    pub end_line: Option<u32>,
}

// ---------------------------------------------------------------- results

/// A symbol in a result.
#[derive(Serialize, JsonSchema, Clone)]
pub struct SymbolOut {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub qualified_name: String,
    pub lang: String,
    pub repo: String,
    pub path: String,
    pub line: u32,
    pub end_line: u32,
    /// `path:line`
    pub location: String,
    pub signature: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// Resource address of the symbol's source (resources/read, or code_read with `symbol`).
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
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
}

#[derive(Serialize, JsonSchema)]
pub struct SymbolResult {
    pub matches: Vec<SymbolOut>,
}

#[derive(Serialize, JsonSchema)]
pub struct GraphRow {
    /// Qualified name, or the external name as written (`json.loads`).
    pub name: String,
    /// `path:line` of the symbol, or `(external)`.
    pub location: String,
    /// Absent for external names and file top levels.
    pub symbol: Option<SymbolOut>,
    pub external: bool,
    pub distance: u32,
    /// Product of the edge confidences along the path (0..1).
    pub confidence: f32,
    /// The last hop had several candidates.
    pub ambiguous: bool,
    /// The call sites of the last hop, `path:line`.
    pub sites: Vec<String>,
    /// Qualified names from the start to this symbol.
    pub path: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct GraphOut {
    pub symbol: SymbolOut,
    pub depth: u32,
    pub results: Vec<GraphRow>,
    /// A limit cut the answer short: see truncated_depth / truncated_nodes.
    pub truncated: bool,
    pub truncated_depth: bool,
    pub truncated_nodes: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct ReadOut {
    pub repo: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// Lines in the file.
    pub total_lines: u32,
    pub text: String,
    pub uri: String,
}

// ---------------------------------------------------------------- helpers

/// The repositories a call may use: the workspace's, narrowed by `repo`. Loading one (and
/// indexing the bound repository on first use) runs on the blocking pool.
pub async fn repos_for(ctx: &CallCtx, repo: Option<&str>) -> Result<Vec<(String, Arc<Loaded>)>, ToolError> {
    let ws = ctx.workspace.as_deref().expect("scoped tool");
    let names = ctx.app.store.repos(ws).map_err(ToolError::from)?;
    let names: Vec<String> = match repo {
        Some(r) if names.iter().any(|n| n == r) => vec![r.to_string()],
        Some(r) => {
            return Err(ToolError::not_found(
                "/repo",
                format!("/repo: '{r}' is not a repository of workspace '{ws}'; it has: {}", list_or_none(&names)),
            ))
        }
        None => names,
    };
    if names.is_empty() {
        return Err(ToolError::not_found(
            "/workspace_id",
            format!(
                "workspace '{ws}' has no indexed repositories; index one with `cc-server index PATH --workspace {ws}`"
            ),
        ));
    }
    // Loading may index the bound repository first: report progress, honour cancellation.
    let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let (cancel, token) = (cancel.clone(), ctx.cancel.clone());
        tokio::spawn(async move {
            token.cancelled().await;
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        })
    };
    let progress = CallProgress::new(ctx.progress.clone());
    let app = ctx.app.clone();
    let out = blocking(move || {
        names
            .into_iter()
            .map(|n| {
                let l = app.repo_with(&n, &progress, Some(&cancel)).map_err(|e| {
                    if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                        ToolError {
                            error: "cancelled",
                            pointer: None,
                            message: "the call was cancelled".into(),
                            data: None,
                        }
                    } else {
                        ToolError::internal(format!("repository '{n}': {e:#}"))
                    }
                })?;
                Ok((n, l))
            })
            .collect()
    })
    .await;
    watcher.abort();
    out
}

/// Indexing progress as MCP progress notifications: bytes done of bytes to do, at most
/// one notification per percent.
struct CallProgress {
    report: Option<crate::mcp::dispatch::ProgressFn>,
    total: std::sync::atomic::AtomicU64,
    done: std::sync::atomic::AtomicU64,
    /// The last percent reported; reports are made under this lock, so they never go back.
    last_percent: std::sync::Mutex<Option<u64>>,
    embedded: std::sync::atomic::AtomicU64,
    embed_total: std::sync::atomic::AtomicU64,
}

impl CallProgress {
    fn new(report: Option<crate::mcp::dispatch::ProgressFn>) -> CallProgress {
        CallProgress {
            report,
            total: Default::default(),
            done: Default::default(),
            last_percent: std::sync::Mutex::new(None),
            embedded: Default::default(),
            embed_total: Default::default(),
        }
    }
}

impl cc_indexer::vectors::EmbedProgress for CallProgress {
    // Progress only grows: embedding continues from where parsing ended (bytes, then texts).
    fn embed_start(&self, texts: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        self.embed_total.store(texts, Relaxed);
        if let Some(r) = &self.report {
            let base = self.total.load(Relaxed);
            r(base as f64, Some((base + texts) as f64), Some(format!("embedding {texts} symbols")));
        }
    }

    fn embed_advance(&self, texts: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        let done = self.embedded.fetch_add(texts, Relaxed) + texts;
        if let Some(r) = &self.report {
            let base = self.total.load(Relaxed);
            r((base + done) as f64, Some((base + self.embed_total.load(Relaxed)) as f64), None);
        }
    }
}

impl cc_indexer::Progress for CallProgress {
    fn start(&self, files: u64, bytes: u64) {
        self.total.store(bytes, std::sync::atomic::Ordering::Relaxed);
        if let Some(r) = &self.report {
            r(0.0, Some(bytes as f64), Some(format!("indexing {files} files")));
        }
    }

    // Parse workers call this concurrently. `done` is read again under the lock: a worker
    // that added its bytes first but got the lock last would otherwise report an older
    // figure after a newer one, and the last report would not be the complete one.
    fn advance(&self, bytes: u64) {
        use std::sync::atomic::Ordering::Relaxed;
        self.done.fetch_add(bytes, Relaxed);
        let Some(r) = &self.report else { return };
        let total = self.total.load(Relaxed).max(1);
        let mut last = self.last_percent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let done = self.done.load(Relaxed);
        let percent = done * 100 / total;
        if *last != Some(percent) {
            *last = Some(percent);
            r(done as f64, Some(total as f64), None);
        }
    }
}

fn list_or_none(v: &[String]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

fn symbol_out(ws: &str, repo: &str, s: &SymbolDoc) -> SymbolOut {
    SymbolOut {
        id: s.id.to_string(),
        name: s.name.clone(),
        kind: s.kind.as_str().to_string(),
        qualified_name: s.qualified_name.clone(),
        lang: s.lang.name().to_string(),
        repo: repo.to_string(),
        path: s.path.clone(),
        line: s.span.start_line,
        end_line: s.span.end_line,
        location: format!("{}:{}", s.path, s.span.start_line),
        signature: s.signature.clone(),
        doc: s.doc.clone(),
        uri: resources::symbol_uri(ws, repo, &s.id.to_string()),
        source: None,
    }
}

fn graph_symbol_out(ws: &str, repo: &str, s: &cc_graph::SymbolInfo) -> SymbolOut {
    symbol_out(
        ws,
        repo,
        &SymbolDoc {
            id: s.id,
            name: s.name.clone(),
            kind: s.kind,
            qualified_name: s.qualified_name.clone(),
            lang: s.lang,
            path: s.path.clone(),
            span: s.span,
            signature: s.signature.clone(),
            doc: None,
        },
    )
}

fn parse_filters<T>(
    values: &Option<Vec<String>>,
    field: &str,
    parse: impl Fn(&str) -> Option<T>,
    all: &[&str],
) -> Result<Vec<T>, ToolError> {
    let mut out = Vec::new();
    for (i, v) in values.iter().flatten().enumerate() {
        match parse(v) {
            Some(x) => out.push(x),
            None => {
                return Err(ToolError::invalid(
                    &format!("/{field}/{i}"),
                    format!("/{field}/{i}: unknown {field} '{v}'; expected one of: {}", all.join(", ")),
                ))
            }
        }
    }
    Ok(out)
}

/// Largest file `code_read` (and a `cc://` file resource) reads, counted in bytes read; a
/// line range of it is answered, within the dispatcher's result limit.
pub const MAX_READ_BYTES: u64 = 32 << 20;

/// How long one file read may take before the call gives up on it (a read never blocks
/// on a FIFO or a device, which are refused; this bounds a slow file system).
pub const READ_DEADLINE: std::time::Duration = std::time::Duration::from_secs(20);

/// Runs blocking work (file system, index, graph loads) on tokio's blocking pool, never
/// on the async workers that serve every session.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| ToolError::internal(format!("the task failed: {e}")))?
}

/// Reads lines `start..=end` of a repository file through [`cc_indexer::files::read_file`]
/// (confined to the root: no `..`, no symlink on the way, regular files only, the walk's
/// rules unless the server widens them, capped by bytes read), off the async workers and
/// within [`READ_DEADLINE`]. Answers (text, start, end, lines in the file).
pub async fn read_lines(
    policy: cc_indexer::files::ReadPolicy,
    root: &str,
    path: &str,
    start: u32,
    end: u32,
) -> Result<(String, u32, u32, u32), ToolError> {
    use cc_indexer::files::FileError;
    let (root_owned, rel) = (std::path::PathBuf::from(root), path.to_string());
    let read = blocking(move || {
        cc_indexer::files::read_file(&root_owned, &rel, &policy).map_err(|e| match e {
            FileError::BadPath(_) => ToolError::invalid("/path", format!("/path: {e}")),
            FileError::TooLarge { .. } => ToolError::invalid("/path", format!("/path: {e}")),
            FileError::Io { .. } => ToolError::internal(format!("/path: {e}")),
            _ => ToolError::not_found("/path", format!("/path: {e}")),
        })
    });
    let bytes = tokio::time::timeout(READ_DEADLINE, read).await.map_err(|_| ToolError {
        error: "timeout",
        pointer: Some("/path".into()),
        message: format!("/path: reading {path} took longer than {} s", READ_DEADLINE.as_secs()),
        data: None,
    })??;
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len() as u32;
    let start = start.max(1);
    let end = end.max(start).min(total.max(1));
    let body = if total == 0 { String::new() } else { lines[(start - 1) as usize..end.min(total) as usize].join("\n") };
    Ok((body, start, end, total))
}

fn walk_out(ws: &str, repo: &str, l: &Loaded, start: &cc_graph::SymbolInfo, depth: u32, walk: Walk) -> GraphOut {
    let label = |n: &NodeRef| -> String {
        match n {
            NodeRef::Symbol(id) => l.graph.symbol(*id).map_or_else(|| id.to_string(), |s| s.qualified_name.clone()),
            NodeRef::File(p) => format!("<top level of {p}>"),
            NodeRef::External(x) => x.clone(),
        }
    };
    let results = walk
        .hits
        .iter()
        .map(|h| {
            let sym = match &h.node {
                NodeRef::Symbol(id) => l.graph.symbol(*id).map(|s| graph_symbol_out(ws, repo, s)),
                _ => None,
            };
            GraphRow {
                name: label(&h.node),
                location: match (&h.node, &sym) {
                    (_, Some(s)) => s.location.clone(),
                    (NodeRef::File(p), _) => format!("{p}:1"),
                    _ => "(external)".into(),
                },
                symbol: sym,
                external: matches!(h.node, NodeRef::External(_)),
                distance: h.distance as u32,
                confidence: h.confidence,
                ambiguous: h.ambiguous,
                sites: h.sites.iter().map(|s| format!("{}:{}", s.path, s.line)).collect(),
                path: h.path.iter().map(label).collect(),
            }
        })
        .collect();
    GraphOut {
        symbol: graph_symbol_out(ws, repo, start),
        depth,
        results,
        truncated: walk.truncated_depth || walk.truncated_nodes,
        truncated_depth: walk.truncated_depth,
        truncated_nodes: walk.truncated_nodes,
    }
}

#[derive(Clone, Copy)]
enum Op {
    Callers,
    Callees,
    Impact,
}

async fn graph_tool(ctx: CallCtx, a: GraphArgs, op: Op) -> Result<GraphOut, ToolError> {
    let ws = ctx.workspace.clone().expect("scoped");
    let repos = repos_for(&ctx, a.repo.as_deref()).await?;
    let mut found = Vec::new();
    for (name, l) in &repos {
        for s in l.graph.find(&a.symbol) {
            found.push((name.clone(), l.clone(), s.clone()));
        }
    }
    if found.is_empty() {
        return Err(ToolError::not_found(
            "/symbol",
            format!(
                "/symbol: no symbol '{}' in {}; search_code finds symbols by words",
                a.symbol,
                repos.iter().map(|r| r.0.as_str()).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    if found.len() > 1 {
        let candidates: Vec<SymbolOut> = found.iter().take(50).map(|(r, _, s)| graph_symbol_out(&ws, r, s)).collect();
        return Err(ToolError {
            error: "ambiguous",
            pointer: Some("/symbol".into()),
            message: format!(
                "/symbol: '{}' matches {} symbols; call again with one's id or qualified name",
                a.symbol,
                found.len()
            ),
            data: Some(serde_json::json!({ "candidates": candidates })),
        });
    }
    let (repo, l, start) = found.pop().expect("one");
    let default_depth = if matches!(op, Op::Impact) { 3 } else { 1 };
    let depth = a.depth.unwrap_or(default_depth);
    let limits = Limits { depth: depth as usize, nodes: a.limit.unwrap_or(200) as usize };
    let walk = match op {
        Op::Callers => l.graph.callers(start.id, limits),
        Op::Callees => l.graph.callees(start.id, limits),
        Op::Impact => l.graph.impact(start.id, limits),
    };
    Ok(walk_out(&ws, &repo, &l, &start, depth, walk))
}

// ---------------------------------------------------------------- registration

pub fn register(r: &mut Registry) {
    r.add(
        Spec {
            name: "search_code",
            title: "Search code",
            description: "Search indexed symbols by name, signature and doc comment (BM25 over identifier words; hybrid with semantic ranking when embeddings are available). Answers file:line, signature and a resource link for each symbol.",
            scope: Scope::Required,
            action_classes: &[],
            read_only: true,
        },
        |ctx: CallCtx, a: SearchArgs| async move {
            let ws = ctx.workspace.clone().expect("scoped");
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
                let res = tokio::task::spawn_blocking(move || l2.search(&q, asked))
                    .await
                    .map_err(|e| ToolError::internal(e.to_string()))?
                    .map_err(|e| ToolError::internal(e.to_string()))?;
                if res.mode != asked || semantic.is_empty() {
                    (mode, semantic) = (res.mode, if repos.len() > 1 && res.mode != asked { format!("{name}: {}", res.semantic) } else { res.semantic });
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
                repos: repos.into_iter().map(|r| r.0).collect(),
            })
        },
    );
    r.add(
        Spec {
            name: "code_symbol",
            title: "Look up a symbol",
            description: "Look up symbols by exact name (or qualified name); returns file:line, the signature and a resource link for each match, and their source with include_source.",
            scope: Scope::Required,
            action_classes: &[],
            read_only: true,
        },
        |ctx: CallCtx, a: SymbolArgs| async move {
            let ws = ctx.workspace.clone().expect("scoped");
            let repos = repos_for(&ctx, a.repo.as_deref()).await?;
            let limit = a.limit.unwrap_or(50) as usize;
            let mut matches = Vec::new();
            for (name, l) in &repos {
                let (l2, wanted) = (l.clone(), a.name.clone());
                let found = blocking(move || l2.repo.symbols.lookup(&wanted, limit).map_err(|e| ToolError::internal(e.to_string()))).await?;
                for s in found {
                    let mut out = symbol_out(&ws, name, &s);
                    if a.include_source == Some(true) {
                        out.source = Some(read_lines(ctx.app.read_policy, &l.repo.meta.root, &s.path, s.span.start_line, s.span.end_line).await?.0);
                    }
                    matches.push(out);
                }
            }
            matches.truncate(limit);
            Ok(SymbolResult { matches })
        },
    );
    for (name, title, description, op) in [
        ("code_callers", "Callers", "Who calls this function or method: list the symbols that call or depend on a symbol (incoming edges), breadth-first up to depth, each with its distance, call sites (file:line), the path back and a confidence.", Op::Callers),
        ("code_callees", "Callees", "What this function or method calls: list the symbols that a symbol calls or depends on (outgoing edges), external names included (`json.loads`), breadth-first up to depth.", Op::Callees),
        ("code_impact", "Impact", "What breaks if this function, method or class changes: its transitive blast radius, every symbol that reaches it through calls, up to depth (default 3), nearest first.", Op::Impact),
    ] {
        r.add(
            Spec { name, title, description, scope: Scope::Required, action_classes: &[], read_only: true },
            move |ctx: CallCtx, a: GraphArgs| graph_tool(ctx, a, op),
        );
    }
    r.add(
        Spec {
            name: "code_read",
            title: "Read source",
            description: "Read a repository file (a line range) or a symbol's source by id: the same text the cc:// resources return, for clients that do not read resources.",
            scope: Scope::Required,
            action_classes: &[],
            read_only: true,
        },
        |ctx: CallCtx, a: ReadArgs| async move {
            let ws = ctx.workspace.clone().expect("scoped");
            let repos = repos_for(&ctx, a.repo.as_deref()).await?;
            let (repo, l, path, start, end) = match (&a.symbol, &a.path) {
                (Some(id), None) => {
                    let sid = cc_indexer::SymbolId::parse(id)
                        .ok_or_else(|| ToolError::invalid("/symbol", "/symbol: expected a 16-hex-digit symbol id"))?;
                    let (repo, l, s) = repos
                        .iter()
                        .find_map(|(n, l)| l.graph.symbol(sid).map(|s| (n.clone(), l.clone(), s.clone())))
                        .ok_or_else(|| ToolError::not_found("/symbol", format!("/symbol: no symbol {id} in this workspace")))?;
                    (repo, l, s.path.clone(), a.start_line.unwrap_or(s.span.start_line), a.end_line.unwrap_or(s.span.end_line))
                }
                (None, Some(p)) => {
                    if repos.len() > 1 && a.repo.is_none() {
                        return Err(ToolError::invalid("/repo", "/repo: the workspace has several repositories; name one"));
                    }
                    let (repo, l) = repos[0].clone();
                    let start = a.start_line.unwrap_or(1);
                    (repo, l, p.clone(), start, a.end_line.unwrap_or(start + 199))
                }
                _ => return Err(ToolError::invalid("/path", "/path: give either path or symbol")),
            };
            if end < start {
                return Err(ToolError::invalid("/end_line", "/end_line: must not be before start_line"));
            }
            let (text, start, end, total) = read_lines(ctx.app.read_policy, &l.repo.meta.root, &path, start, end).await?;
            Ok(ReadOut { uri: resources::file_uri(&ws, &repo, &path), repo, path, start_line: start, end_line: end, total_lines: total, text })
        },
    );
}

#[cfg(test)]
mod tests {
    use super::CallProgress;
    use cc_indexer::Progress;
    use std::sync::{Arc, Mutex};

    /// Parse workers report at once; what the caller sees never goes back and ends complete.
    #[test]
    fn progress_from_concurrent_workers_only_grows_and_ends_complete() {
        let (threads, per) = (4u64, 20_000u64);
        for _ in 0..20 {
            let seen = Arc::new(Mutex::new(Vec::new()));
            let s = seen.clone();
            let p = CallProgress::new(Some(Arc::new(move |done, _, _| s.lock().unwrap().push(done))));
            p.start(10, threads * per);
            std::thread::scope(|sc| {
                for _ in 0..threads {
                    sc.spawn(|| (0..per).for_each(|_| p.advance(1)));
                }
            });
            let seen = seen.lock().unwrap();
            assert!(seen.windows(2).all(|w| w[0] <= w[1]), "went back: {seen:?}");
            assert_eq!(seen.last().copied(), Some((threads * per) as f64));
        }
    }
}
