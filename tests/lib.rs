//! End-to-end test fixtures that span crates: the MCP conformance suite's fixtures
//! ([`conformance`]), an extension of the server that only test binaries load.

#[path = "conformance/fixtures.rs"]
pub mod conformance;
