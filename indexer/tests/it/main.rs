//! The integration tests of cc-indexer, one binary.
mod fixtures;
mod incremental;
mod robustness;
mod support;
