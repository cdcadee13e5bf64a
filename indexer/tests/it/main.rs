//! The integration tests of cc-indexer, one binary.
mod fixtures;
