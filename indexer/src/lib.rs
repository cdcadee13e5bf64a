//! cc-indexer: walk a repository, parse it with tree-sitter, extract symbols and
//! references, and keep a persistent tantivy symbol index.
//!
//! Main types: [`Extractor`] (one file: bytes in, [`Symbol`]s and [`Reference`]s out),
//! [`index_repository`] (a whole tree, in parallel, incrementally), [`DataDir`] and
//! [`Repo`] (the persisted index of each repository: records and BM25 search),
//! [`Embedder`] and [`VectorIndex`] (symbol embeddings, [`vectors::update`] keeps them
//! current), [`hybrid::search`] (BM25 and vector rankings fused).
//!
//! ```no_run
//! use cc_indexer::{index_repository, DataDir, IndexOptions, NoProgress, Repo, SearchQuery};
//! let data = DataDir::new("/tmp/cc-data");
//! let report = index_repository(&data, &IndexOptions::new("."), &NoProgress, None)?;
//! let repo = Repo::open(&data, &report.name)?;
//! let hits = repo.symbols.search(&SearchQuery { text: "parse json".into(), limit: 10, ..Default::default() })?;
//! # Ok::<(), cc_indexer::Error>(())
//! ```
pub mod embed;
pub mod error;
pub mod extract;
pub mod files;
pub mod fixture;
pub mod hybrid;
pub mod imports;
pub mod index;
pub mod memory;
pub mod modules;
pub mod record;
pub mod relevance;
pub mod search;
pub mod store;
pub mod tokenize;
pub mod vectors;
pub mod walk;
pub mod watch;

pub use embed::{EmbedError, Embedder};
pub use error::{Error, Result};
pub use extract::{Extracted, Extractor};
pub use hybrid::{HybridHit, HybridResult, Mode};
pub use index::{index_repository, index_repository_records, IndexOptions, IndexReport, NoProgress, Progress, Repo};
pub use record::*;
pub use search::{SearchHit, SearchQuery, SymbolDoc, SymbolIndex};
pub use store::{DataDir, IndexStats, LangStats, RepoMeta, FORMAT_VERSION};
pub use vectors::{VectorIndex, VectorReport};
pub use walk::{SkipReason, WalkOptions};
