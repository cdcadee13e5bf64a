//! cc-graph: the call graph of an indexed repository.
//!
//! [`CallGraph::build`] resolves every call and callback reference of the indexer's
//! records to symbol ids (the ladder in [`resolve`]) and builds a petgraph graph;
//! [`CallGraph::update`] re-resolves only what a change can affect;
//! [`CallGraph::callers`], [`CallGraph::callees`] and [`CallGraph::impact`] walk it
//! breadth-first. It is persisted next to the index as `graph.bin` (each file's
//! resolutions) and `graph.map` (laid out for queries in place); an index run's update
//! ([`CallGraph::save_current`]) lays its changes over them (`graph.jnl`, `graph.delta`:
//! [`LayeredGraph`]).
//!
//! ```
//! use cc_graph::{CallGraph, Limits};
//! let records = vec![]; // from cc_indexer::Repo::records()
//! let graph = CallGraph::build(&records);
//! assert!(graph.find("main").is_empty());
//! # let _ = Limits::default();
//! ```
mod delta;
mod export;
mod graph;
mod keys;
mod mapped;
pub mod resolve;
mod view;

pub use delta::LayeredGraph;
pub use export::{rounded, ExportFormat};
pub use graph::{
    top_level_qualified, CallGraph, EdgeData, Follow, Hit, Limits, NodeRef, Possible, RefEdge, Saving, Site,
    SymbolInfo, UpdateStats, Walk, GRAPH_FORMAT_VERSION, TOP_LEVEL_NAME,
};
pub use mapped::{open, MappedGraph, MAP_FILE};
pub use petgraph::Direction;
pub use resolve::{EdgeKind, Resolution, Rung, Target};
pub use view::{EdgeMeta, GraphView, Place};

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no call graph yet: run `cc-server index` on the repository")]
    Missing,
    #[error("the call graph was written in format version {found}; this cc-server reads {expected}. Re-index the repository")]
    Version { found: u32, expected: u32 },
    #[error("corrupt call graph ({0}); re-index the repository")]
    Corrupt(String),
    /// The I/O error is not the `source` of this one: its text is already in this one's.
    #[error("{}: {error}{}", path.display(), cc_indexer::error::io_hint(error))]
    Io { path: PathBuf, error: std::io::Error },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
