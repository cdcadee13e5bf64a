//! The MCP façade: the registry, the dispatcher, the tools, and the transports (stdio,
//! Streamable HTTP, legacy HTTP+SSE). Only this module knows MCP and JSON-RPC.
pub mod dispatch;
pub mod http;
pub mod registry;
pub mod resources;
pub mod service;
pub mod sse;
pub mod tools;
