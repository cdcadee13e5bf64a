//! The code tools: search_code, code_symbol, code_callers, code_callees, code_impact,
//! code_read — over the repositories of the call's workspace (`repo` narrows). What they share
//! is here: the symbol in a result, the repositories a call may use (loaded, or indexed on
//! first use, off the async workers), confined file reads, the graph walk's rows.

mod code_callees;
mod code_callers;
mod code_impact;
mod code_read;
mod code_symbol;
mod search_code;

use std::sync::Arc;

use cc_graph::{NodeRef, Walk};
use cc_indexer::SymbolDoc;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::Loaded;
use crate::mcp::resources;
use crate::mcp::tool::{Ctx, ErrorKind, Registry, ToolError};
use crate::ops::{self, GraphOp};

pub use code_read::ReadArgs;
pub use search_code::SearchArgs;

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(search_code::DECL, search_code::search_code);
    r.add(code_symbol::DECL, code_symbol::code_symbol);
    r.add(code_callers::DECL, code_callers::code_callers);
    r.add(code_callees::DECL, code_callees::code_callees);
    r.add(code_impact::DECL, code_impact::code_impact);
    r.add(code_read::DECL, code_read::code_read);
}

/// How search_code and search_memory rank: the modes of `cc_indexer::Mode`.
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
    /// At most this many symbols in the answer (default 500).
    #[schemars(range(min = 1, max = 5000))]
    pub limit: Option<u32>,
    /// Also follow references: a function or class passed, stored or returned as a value
    /// (`sorted(xs, key=k)`, `register("x", C)`), which is not a call by the site's symbol
    /// (default false).
    pub include_references: Option<bool>,
    /// Also walk the possible edges: calls the graph cannot decide (a method of a receiver
    /// of unknown type, several symbols of that name), which are otherwise listed apart in
    /// `possible` (default false).
    pub include_possible: Option<bool>,
}

impl GraphArgs {
    pub fn follow(&self) -> ops::Follow {
        ops::Follow { references: self.include_references == Some(true), possible: self.include_possible == Some(true) }
    }
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
    /// The last hop is a possible edge: its call had several candidates (only with
    /// include_possible).
    pub ambiguous: bool,
    /// What the last hop is: `call`; an implicit call (`constructor`, `raise`, `iteration`,
    /// `context`, `property`, `operator`); `inherited` (dispatch to an implementation or a
    /// subclass's method); `reference` (a value, not a call: only with include_references).
    pub kind: String,
    /// How the last hop was resolved: `receiver`, `scope`, `same-file`, `import`, `package`,
    /// `global`, `flow` (value flow), `ambiguous`, `external`.
    pub resolution: String,
    /// This row is the start symbol itself, reached again: it calls itself, directly or
    /// through the path.
    pub recursive: bool,
    /// The call sites of the last hop, `path:line`.
    pub sites: Vec<String>,
    /// Qualified names from the start to this symbol.
    pub path: Vec<String>,
}

/// A call the graph cannot decide, not walked: its call sites and the symbols it may mean.
#[derive(Serialize, JsonSchema)]
pub struct PossibleRow {
    /// The symbol the walk reached that this call hangs off (the caller, for callees; the
    /// candidate callee, for callers and impact).
    pub via: String,
    /// The call sites, `path:line`.
    pub sites: Vec<String>,
    /// Hops from the start, this call included.
    pub distance: u32,
    /// As in results.
    pub kind: String,
    /// How many symbols the call could mean.
    pub candidates: u32,
    /// The other ends listed here: the candidates (callees), or the caller (callers).
    pub symbols: Vec<PossibleEnd>,
}

#[derive(Serialize, JsonSchema)]
pub struct PossibleEnd {
    /// Qualified name.
    pub name: String,
    /// `path:line`, or `(external)`.
    pub location: String,
    /// Its id (16 hex digits); absent for external names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Product of the edge confidences along the path, this call's included.
    pub confidence: f32,
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
    /// Calls the graph cannot decide, grouped by call site, that the walk did not follow
    /// (include_possible walks them): what the answer may be missing.
    pub possible: Vec<PossibleRow>,
    /// An agent's run: files of its worktrees changed since the index was built.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub worktree_changes: Vec<WorktreeChanges>,
}

/// Files of a run's worktree that differ from what the index was built from: the answer
/// does not know of their changes.
#[derive(Serialize, JsonSchema)]
pub struct WorktreeChanges {
    pub repo: String,
    /// The worktree's path.
    pub worktree: String,
    /// How many files changed.
    pub count: usize,
    /// The first 50 of them, repository-relative.
    pub files: Vec<String>,
    pub note: String,
}

/// The call's worktrees' changes, for an agent's run that made worktrees of `repos`.
pub(crate) async fn worktree_changes(ctx: &Ctx<String>, repos: &[&str]) -> Vec<WorktreeChanges> {
    let Some(run) = ctx.principal.agent.as_ref().and_then(|a| a.run_id.as_deref()) else { return Vec::new() };
    let mut out = Vec::new();
    for &repo in repos {
        let Some(w) = ctx.services.runtime.worktree_of(run, repo) else { continue };
        let files = ctx.services.runtime.changed_files(&w).await;
        if files.is_empty() {
            continue;
        }
        out.push(WorktreeChanges {
            repo: repo.to_string(),
            worktree: w.path.display().to_string(),
            count: files.len(),
            files: files.iter().take(50).cloned().collect(),
            note: format!(
                "{} file(s) of your worktree changed since the index of {repo} was built: what this answer says of them may be out of date (code_read reads your worktree)",
                files.len()
            ),
        });
    }
    out
}

/// Where a call reads `repo`'s files: an agent's run reads its own worktree, when it made one.
pub(crate) fn read_root(ctx: &Ctx<String>, repo: &str, l: &Loaded) -> String {
    ctx.principal
        .agent
        .as_ref()
        .and_then(|a| a.run_id.as_deref())
        .and_then(|run| ctx.services.runtime.worktree_of(run, repo))
        .map_or_else(|| l.repo.meta.root.clone(), |w| w.path.display().to_string())
}

/// The repositories a call may use: the workspace's, narrowed by `repo`. Loading one (and
/// indexing the bound repository on first use) runs on the blocking pool.
pub async fn repos_for(ctx: &Ctx<String>, repo: Option<&str>) -> Result<Vec<(String, Arc<Loaded>)>, ToolError> {
    let ws = ctx.workspace.as_str();
    let names = ctx.services.store.workspaces().repos(ws).await?;
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
    let progress = CallProgress::new(ctx.call.progress.clone());
    let services = ctx.services.clone();
    let out = blocking(move || {
        names
            .into_iter()
            .map(|n| {
                let l = services.repos.get_with(&n, &progress, Some(&cancel)).map_err(|e| {
                    if cancel.load(std::sync::atomic::Ordering::Relaxed) {
                        ToolError::cancelled()
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
    report: Option<crate::mcp::tool::ProgressFn>,
    total: std::sync::atomic::AtomicU64,
    done: std::sync::atomic::AtomicU64,
    /// The last percent reported; reports are made under this lock, so they never go back.
    last_percent: std::sync::Mutex<Option<u64>>,
    embedded: std::sync::atomic::AtomicU64,
    embed_total: std::sync::atomic::AtomicU64,
}

impl CallProgress {
    fn new(report: Option<crate::mcp::tool::ProgressFn>) -> CallProgress {
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
    symbol_out(ws, repo, &ops::symbol_doc(s))
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
/// within [`READ_DEADLINE`]. Answers (text, start, end, lines in the file); `end` is cut
/// to the file's end, a `start` past it is an invalid `/start_line` naming the file's length.
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
    let bytes = tokio::time::timeout(READ_DEADLINE, read).await.map_err(|_| {
        ToolError::new(
            ErrorKind::Timeout,
            format!("/path: reading {path} took longer than {} s", READ_DEADLINE.as_secs()),
        )
        .at("/path")
    })??;
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len() as u32;
    let start = start.max(1);
    if start > total.max(1) {
        let message = format!("/start_line: line {start} is past the end of {path} ({total} lines)");
        return Err(ToolError::invalid("/start_line", message));
    }
    let end = end.max(start).min(total.max(1));
    let body = if total == 0 { String::new() } else { lines[(start - 1) as usize..end as usize].join("\n") };
    Ok((body, start, end, total))
}

/// A walk as the code tools and the CLI's `--json` give it: each node with its symbol
/// (a file's top level is the symbol `<path>`), the possible calls grouped by call site.
pub(crate) fn walk_out(
    ws: &str,
    repo: &str,
    graph: &dyn cc_graph::GraphView,
    start: &cc_graph::SymbolInfo,
    depth: u32,
    walk: Walk,
) -> Result<GraphOut, cc_graph::Error> {
    // Each node of the walk once: its symbol (a file's top level is the symbol `<path>`) and label.
    let mut nodes: std::collections::HashMap<&NodeRef, (Option<cc_graph::SymbolInfo>, String)> =
        std::collections::HashMap::new();
    let all = walk.hits.iter().flat_map(|h| h.path.iter().chain([&h.node]));
    for n in all.chain(walk.possible.iter().flat_map(|p| [&p.node, &p.via])) {
        if nodes.contains_key(n) {
            continue;
        }
        let symbol = match n {
            NodeRef::Symbol(id) => graph.symbol(*id)?.map(std::borrow::Cow::into_owned),
            NodeRef::File(p) => {
                graph.find(&cc_graph::top_level_qualified(p))?.into_iter().next().map(|s| s.into_owned())
            }
            NodeRef::External(_) => None,
        };
        nodes.insert(n, (symbol, graph.node_id_and_name(n)?.1));
    }
    let symbol_of = |n: &NodeRef| nodes[n].0.as_ref();
    let label = |n: &NodeRef| nodes[n].1.clone();
    let location = |n: &NodeRef| match (n, symbol_of(n)) {
        (_, Some(s)) => format!("{}:{}", s.path, s.span.start_line),
        (NodeRef::File(p), None) => format!("{p}:1"),
        _ => "(external)".to_string(),
    };
    // (Several calls on one line are one `path:line`: the sites come sorted.)
    let sites = |v: &[cc_graph::Site]| {
        let mut at: Vec<String> = v.iter().map(|s| format!("{}:{}", s.path, s.line)).collect();
        at.dedup();
        at
    };
    let results = walk
        .hits
        .iter()
        .map(|h| GraphRow {
            name: label(&h.node),
            location: location(&h.node),
            symbol: symbol_of(&h.node).map(|s| graph_symbol_out(ws, repo, s)),
            external: matches!(h.node, NodeRef::External(_)),
            distance: h.distance as u32,
            confidence: cc_graph::rounded(h.confidence) as f32,
            ambiguous: h.ambiguous,
            kind: h.kind.as_str().to_string(),
            resolution: h.rung.as_str().to_string(),
            recursive: h.recursive,
            sites: sites(&h.sites),
            path: h.path.iter().map(label).collect(),
        })
        .collect();
    // The walk keeps a call site's candidates adjacent.
    let mut possible: Vec<PossibleRow> = Vec::new();
    for p in &walk.possible {
        let end = PossibleEnd {
            name: label(&p.node),
            location: location(&p.node),
            id: symbol_of(&p.node).map(|s| s.id.to_string()),
            confidence: cc_graph::rounded(p.confidence) as f32,
        };
        let (via, at, kind) = (label(&p.via), sites(&p.sites), p.kind.as_str());
        match possible.last_mut() {
            Some(last) if last.via == via && last.sites == at && last.kind == kind => last.symbols.push(end),
            _ => possible.push(PossibleRow {
                via,
                sites: at,
                distance: p.distance as u32,
                kind: kind.to_string(),
                candidates: p.candidates as u32,
                symbols: vec![end],
            }),
        }
    }
    Ok(GraphOut {
        symbol: graph_symbol_out(ws, repo, start),
        depth,
        results,
        truncated: walk.truncated_depth || walk.truncated_nodes,
        truncated_depth: walk.truncated_depth,
        truncated_nodes: walk.truncated_nodes,
        possible,
        worktree_changes: Vec::new(),
    })
}

/// code_callers, code_callees and code_impact: the symbol found across the workspace's
/// repositories (an ambiguous name answers with its candidates), then the walk.
pub(crate) async fn graph_tool(ctx: Ctx<String>, a: GraphArgs, op: GraphOp) -> Result<GraphOut, ToolError> {
    let ws = ctx.workspace.clone();
    let repos = repos_for(&ctx, a.repo.as_deref()).await?;
    let graphs: Vec<&dyn cc_graph::GraphView> = repos.iter().map(|(_, l)| &*l.graph).collect();
    let (i, start) = match ops::find(&graphs, &a.symbol)? {
        ops::Found::One(i, s) => (i, s),
        ops::Found::None => {
            return Err(ToolError::not_found(
                "/symbol",
                format!(
                    "/symbol: no symbol '{}' in {}; search_code finds symbols by words",
                    a.symbol,
                    repos.iter().map(|r| r.0.as_str()).collect::<Vec<_>>().join(", ")
                ),
            ))
        }
        ops::Found::Many(found) => {
            let candidates: Vec<SymbolOut> =
                found.iter().take(50).map(|(i, s)| graph_symbol_out(&ws, &repos[*i].0, s)).collect();
            return Err(ToolError::new(
                ErrorKind::Ambiguous,
                format!(
                    "/symbol: '{}' matches {} symbols; call again with one's id or qualified name",
                    a.symbol,
                    found.len()
                ),
            )
            .at("/symbol")
            .with_data(serde_json::json!({ "candidates": candidates })));
        }
    };
    let (repo, l) = &repos[i];
    let (walk, depth) =
        ops::walk(&*l.graph, op, &start, a.depth.map(|d| d as usize), a.limit.map(|n| n as usize), a.follow())?;
    let mut out = walk_out(&ws, repo, &*l.graph, &start, depth as u32, walk)?;
    out.worktree_changes = worktree_changes(&ctx, &[repo.as_str()]).await;
    Ok(out)
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
