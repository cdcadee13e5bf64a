//! cc-indexer: walk a repository, parse it with tree-sitter, extract symbols and
//! references, and keep a persistent tantivy symbol index.
pub mod extract;
pub mod record;

pub use extract::{Extracted, Extractor};
pub use record::*;
