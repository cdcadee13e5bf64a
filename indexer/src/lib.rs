//! cc-indexer: walk a repository, parse it with tree-sitter, extract symbols and
//! references, and keep a persistent tantivy symbol index.
//!
//! Main types: [`Extractor`] (one file: bytes in, [`Symbol`]s and [`Reference`]s out),
//! [`index_repository`] (a whole tree, in parallel, incrementally), [`DataDir`] and
//! [`Repo`] (the persisted index of each repository: records and BM25 search).
//!
//! ```no_run
//! use cc_indexer::{index_repository, DataDir, IndexOptions, NoProgress, Repo, SearchQuery};
//! let data = DataDir::new("/tmp/cc-data");
//! let report = index_repository(&data, &IndexOptions::new("."), &NoProgress, None)?;
//! let repo = Repo::open(&data, &report.name)?;
//! let hits = repo.symbols.search(&SearchQuery { text: "parse json".into(), limit: 10, ..Default::default() })?;
//! # Ok::<(), cc_indexer::Error>(())
//! ```
pub mod error;
pub mod extract;
pub mod fixture;
pub mod index;
pub mod record;
pub mod search;
pub mod store;
pub mod tokenize;
pub mod walk;
pub mod watch;

pub use error::{Error, Result};
pub use extract::{Extracted, Extractor};
pub use index::{index_repository, index_repository_records, IndexOptions, IndexReport, NoProgress, Progress, Repo};
pub use record::*;
pub use search::{SearchHit, SearchQuery, SymbolDoc, SymbolIndex};
pub use store::{DataDir, IndexStats, LangStats, RepoMeta, FORMAT_VERSION};
pub use walk::{SkipReason, WalkOptions};
