//! The integration tests of cc-graph, one binary.
mod export;
mod incremental;
mod suite;
mod support;
mod walk;
