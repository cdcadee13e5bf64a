//! Criterion benches and the peer comparison harness.
