//! The integration tests of cc-indexer, one binary.
mod embedding;
mod fixtures;
mod incremental;
mod robustness;
mod support;
