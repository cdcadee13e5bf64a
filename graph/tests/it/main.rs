//! The integration tests of cc-graph, one binary.
mod export;
mod incremental;
mod incremental_prop;
mod mapped;
mod overloads;
mod suite;
mod support;
mod walk;
