//! cc-server: the binary crate's library — the command line, the MCP façade (registry,
//! dispatcher, transports, tools), the workspace store, and the operations shared by
//! every front end. It is the only crate that knows the wire (MCP, JSON-RPC, HTTP) and
//! prints; the engines (`cc-indexer`, `cc-graph`, `cc-rigs`) expose plain Rust types.
pub mod agents;
pub mod app;
pub mod artifacts;
pub mod bench;
pub mod bus;
pub mod cli;
pub mod config;
pub mod console;
pub mod embedding;
pub mod engine;
pub mod feeds;
pub mod mcp;
pub mod memory;
pub mod ops;
pub mod output;
pub mod pipelines;
pub mod providers;
pub mod rank;
pub mod replicas;
pub mod reviews;
pub mod serve;
pub mod services;
pub mod signals;
pub mod skills;
pub mod store;
pub mod webdriver;
