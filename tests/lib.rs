//! End-to-end tests that span crates.
