//! The integration tests of cc-graph, one binary.
mod incremental;
mod suite;
mod support;
