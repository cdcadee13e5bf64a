//! The operations every front end (CLI, MCP) shares: index a repository and bring its
//! call graph up to date; open a repository with its graph for queries.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, Result};
use cc_graph::{CallGraph, GraphView};
use cc_indexer::vectors::EmbedProgress;
use cc_indexer::{DataDir, IndexOptions, IndexReport, Progress, Repo, VectorIndex, VectorReport};
use serde::Serialize;

/// Progress of a whole run: files (parsing), then texts (embedding).
pub trait RunProgress {
    fn files(&self) -> &dyn Progress;
    fn embedding(&self) -> &dyn EmbedProgress;
}

impl<T: Progress + EmbedProgress> RunProgress for T {
    fn files(&self) -> &dyn Progress {
        self
    }
    fn embedding(&self) -> &dyn EmbedProgress {
        self
    }
}

/// What the run did about embeddings.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum EmbedOutcome {
    /// Vectors are current: `embedded` texts were embedded in this run.
    Done(VectorReport),
    /// Not asked for (`--no-embed`) or no model configured; vectors of an earlier run are kept.
    Skipped { reason: String },
    /// A model was asked for but could not be used; the index is complete without vectors.
    Unavailable { reason: String },
}

/// What building the call graph did.
#[derive(Clone, Debug, Serialize)]
pub struct GraphReport {
    pub nodes: usize,
    pub edges: usize,
    /// Re-resolved references (all of them on a full build).
    pub refs_resolved: usize,
    /// `false` when an existing graph was updated incrementally.
    pub full: bool,
    pub seconds: f64,
    /// Of `seconds`, writing graph.bin and graph.map, or the update laid over them (0 when
    /// nothing changed).
    pub save_seconds: f64,
    /// Whether the update was laid over the saved graph (`graph.jnl`, `graph.delta`)
    /// rather than written whole.
    pub layered: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Indexed {
    #[serde(flatten)]
    pub index: IndexReport,
    pub graph: GraphReport,
    pub embeddings: EmbedOutcome,
    /// Peak resident memory of this process so far, MB (Linux; `None` elsewhere).
    pub peak_rss_mb: Option<f64>,
}

/// This process's peak resident memory so far, MB (`VmHWM`; Linux only).
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    crate::bench::vm_hwm_kib(&status).map(|k| k as f64 / 1024.0)
}

/// Indexes a repository, then builds or updates its call graph next to the index, then
/// its vectors with the process's embedding model when one is configured, else with the one
/// the repository's index remembers ([`crate::embedding::for_repo`]).
pub fn index(
    data: &DataDir,
    opts: &IndexOptions,
    progress: &dyn RunProgress,
    cancel: Option<&AtomicBool>,
) -> Result<Indexed> {
    index_with(data, opts, progress, cancel, Some(crate::embedding::global()))
}

/// [`index`] with the embedding model to use (`None`: do not embed).
pub fn index_with(
    data: &DataDir,
    opts: &IndexOptions,
    progress: &dyn RunProgress,
    cancel: Option<&AtomicBool>,
    embed: Option<&crate::embedding::Embeddings>,
) -> Result<Indexed> {
    let (report, records) = cc_indexer::index_repository_records(data, opts, progress.files(), cancel)?;
    // The parse trees and tantivy's buffers are gone: give them back before the graph.
    cc_indexer::memory::return_freed();
    tracing::debug!(peak_rss_mb = ?peak_rss_mb(), "indexed: walk, parse, tantivy, records.bin");
    let dir = data.repo_dir(&report.name);
    // The process's model, else the one this repository's vectors were made with.
    let embed = embed.map(|e| if e.spec().is_none() { crate::embedding::for_repo(&dir) } else { e });
    // Embeddings first: the graph build below consumes the records.
    let embeddings = match embed {
        None => EmbedOutcome::Skipped { reason: "--no-embed".into() },
        Some(e) if e.spec().is_none() => EmbedOutcome::Skipped { reason: crate::embedding::NOT_CONFIGURED.into() },
        Some(e) => match e.model() {
            Err(reason) => EmbedOutcome::Unavailable { reason },
            // The model is locked one batch at a time: searches go on meanwhile.
            Ok(m) => match cc_indexer::vectors::update(&dir, &records, m, progress.embedding(), cancel) {
                Ok(r) => {
                    if let Some(spec) = e.spec() {
                        if let Err(err) = crate::embedding::remember(&dir, spec) {
                            tracing::warn!(%err, "could not record the repository's embedding model");
                        }
                    }
                    EmbedOutcome::Done(r)
                }
                Err(cc_indexer::Error::Cancelled) => return Err(cc_indexer::Error::Cancelled.into()),
                Err(e) => EmbedOutcome::Unavailable { reason: e.to_string() },
            },
        },
    };
    let started = Instant::now();
    // Nothing changed and the saved graph is current: report it without loading it.
    let unchanged = report.rebuilt.is_none() && report.parsed == 0 && report.deleted == 0;
    if let Some((nodes, edges)) = unchanged.then(|| CallGraph::saved_counts(&dir, report.generation)).flatten() {
        drop(records);
        let seconds = started.elapsed().as_secs_f64();
        let graph =
            GraphReport { nodes, edges, refs_resolved: 0, full: false, seconds, save_seconds: 0.0, layered: false };
        return Ok(Indexed { index: report, graph, embeddings, peak_rss_mb: peak_rss_mb() });
    }
    // An incremental run updates the saved graph (laying its changes over it when it can);
    // a rebuilt index, files whose module or imports changed with their bytes the same (the
    // graph tells files apart by content), or a graph that cannot be read (missing, another
    // version, corrupt), is built anew.
    let n = records.iter().map(|f| f.references.len()).sum();
    let rebuild = report.rebuilt.is_some() || report.reread > 0;
    let saving = CallGraph::save_current(&dir, records, report.generation, rebuild)?;
    tracing::debug!(peak_rss_mb = ?peak_rss_mb(), layered = saving.layered, "graph saved");
    let (full, refs_resolved) = match &saving.update {
        Some(s) => (false, s.refs_resolved),
        None => (true, n),
    };
    // The graph and the vectors are part of the index on disk too.
    let mut report = report;
    report.stats.index_bytes = cc_indexer::store::refresh_index_bytes(&dir)?;
    let graph_report = GraphReport {
        nodes: saving.nodes,
        edges: saving.edges,
        refs_resolved,
        full,
        seconds: started.elapsed().as_secs_f64(),
        save_seconds: saving.save_seconds,
        layered: saving.layered,
    };
    let peak_rss_mb = peak_rss_mb();
    Ok(Indexed { index: report, graph: graph_report, embeddings, peak_rss_mb })
}

/// The vectors of a repository as read: `Ok(None)` when it has none, `Err` when they cannot be read.
pub type Vectors = std::result::Result<Option<VectorIndex>, String>;

/// An indexed repository with its call graph, ready for queries. Opening one reads no more
/// than headers: the graph is walked in place (`graph.map`), the search index is mapped, and
/// the vectors are read on the first search that needs them.
pub struct Loaded {
    pub repo: Repo,
    pub graph: Box<dyn GraphView>,
    vectors: std::sync::OnceLock<Vectors>,
    in_memory: std::sync::OnceLock<std::result::Result<CallGraph, String>>,
}

impl Loaded {
    pub fn open(data: &DataDir, name: &str) -> Result<Loaded> {
        let repo = Repo::open(data, name)?;
        let graph = open_graph(&repo)?;
        Ok(Loaded { repo, graph, vectors: std::sync::OnceLock::new(), in_memory: std::sync::OnceLock::new() })
    }

    /// The whole graph in memory, loaded once, for work that reads all of it (a review's
    /// analysis and diagram checks); queries use [`Loaded::graph`].
    pub fn call_graph(&self) -> std::result::Result<&CallGraph, String> {
        let loaded = self.in_memory.get_or_init(|| {
            let name = &self.repo.meta.name;
            CallGraph::load(&self.repo.dir).map_err(|e| format!("the call graph of '{name}': {e}"))
        });
        loaded.as_ref().map_err(Clone::clone)
    }

    /// The repository's vectors, read once.
    pub fn vectors(&self) -> &Vectors {
        self.vectors.get_or_init(|| VectorIndex::read(&self.repo.dir).map_err(|e| e.to_string()))
    }

    /// Searches in `mode`, embedding the query with the process's model when the mode needs it.
    pub fn search(
        &self,
        q: &cc_indexer::SearchQuery,
        mode: cc_indexer::Mode,
    ) -> cc_indexer::Result<cc_indexer::HybridResult> {
        hybrid_search(&self.repo, self.vectors(), q, mode)
    }
}

/// The call graph of `repo` for queries ([`cc_graph::open`]), with an error that says how to
/// rebuild it.
pub fn open_graph(repo: &Repo) -> Result<Box<dyn GraphView>> {
    let name = &repo.meta.name;
    cc_graph::open(&repo.dir).with_context(|| {
        format!("the call graph of '{name}': rebuild it with `cc-server index {} --name {name}`", repo.meta.root)
    })
}

/// [`Loaded::search`] for a repository opened without its graph (the CLI).
pub fn hybrid_search(
    repo: &Repo,
    vectors: &Vectors,
    q: &cc_indexer::SearchQuery,
    mode: cc_indexer::Mode,
) -> cc_indexer::Result<cc_indexer::HybridResult> {
    let embeddings = crate::embedding::for_repo(&repo.dir);
    // Embedded on demand: in hybrid mode while the BM25 side runs.
    let embed = || match vectors {
        Err(e) => Err(format!("the repository's vectors cannot be read ({e})")),
        Ok(None) if embeddings.spec().is_none() => Err(crate::embedding::NOT_CONFIGURED.into()),
        Ok(None) => Err(format!(
            "repository '{}' has no vectors: re-index it with an embedding model (--embed-model or CC_EMBED_MODEL)",
            repo.meta.name
        )),
        Ok(Some(_)) => embeddings.query(&q.text),
    };
    let vi = vectors.as_ref().ok().and_then(Option::as_ref);
    cc_indexer::hybrid::search_embedding(&repo.symbols, vi, embed, q, mode)
}
