//! The operations every front end (CLI, MCP) shares: index a repository and bring its
//! call graph up to date; open a repository with its graph for queries.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Result;
use cc_graph::CallGraph;
use cc_indexer::{DataDir, IndexOptions, IndexReport, Progress, Repo};
use serde::Serialize;

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
}

#[derive(Clone, Debug, Serialize)]
pub struct Indexed {
    #[serde(flatten)]
    pub index: IndexReport,
    pub graph: GraphReport,
    /// Peak resident memory of this process so far, MB (Linux; `None` elsewhere).
    pub peak_rss_mb: Option<f64>,
}

/// This process's peak resident memory so far, MB (`VmHWM`; Linux only).
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    crate::bench::vm_hwm_kib(&status).map(|k| k as f64 / 1024.0)
}

/// Indexes a repository, then builds or updates its call graph next to the index.
pub fn index(
    data: &DataDir,
    opts: &IndexOptions,
    progress: &dyn Progress,
    cancel: Option<&AtomicBool>,
) -> Result<Indexed> {
    let (report, records) = cc_indexer::index_repository_records(data, opts, progress, cancel)?;
    let started = Instant::now();
    let dir = data.repo_dir(&report.name);
    // An incremental run updates the saved graph; a rebuilt index, or a graph that
    // cannot be read (missing, another version, corrupt), is built anew.
    let n = records.iter().map(|f| f.references.len()).sum();
    let (graph, update) = match report.rebuilt {
        None => CallGraph::load_updated(&dir, records),
        Some(_) => (CallGraph::build_owned(records), None),
    };
    let (full, refs_resolved) = match update {
        Some(s) => (false, s.refs_resolved),
        None => (true, n),
    };
    graph.save(&dir)?;
    let graph_report = GraphReport {
        nodes: graph.node_count(),
        edges: graph.edge_count(),
        refs_resolved,
        full,
        seconds: started.elapsed().as_secs_f64(),
    };
    Ok(Indexed { index: report, graph: graph_report, peak_rss_mb: peak_rss_mb() })
}

/// An indexed repository with its call graph, ready for queries.
pub struct Loaded {
    #[allow(dead_code)] // read by the MCP tools (issue 4)
    pub repo: Repo,
    pub graph: CallGraph,
}

impl Loaded {
    pub fn open(data: &DataDir, name: &str) -> Result<Loaded> {
        let repo = Repo::open(data, name)?;
        let graph = CallGraph::load(&repo.dir)?;
        Ok(Loaded { repo, graph })
    }
}
