//! The MCP façade: the registry, the dispatcher, the policy (modes, guardrails,
//! approvals, principals), the tools, and the transports (stdio, Streamable HTTP, legacy
//! HTTP+SSE). Only this module knows MCP and JSON-RPC.
pub mod approvals;
pub mod dispatch;
pub mod http;
pub mod policy;
pub mod principal;
pub mod registry;
pub mod resources;
pub mod service;
pub mod sessions;
pub mod sse;
pub mod tools;
