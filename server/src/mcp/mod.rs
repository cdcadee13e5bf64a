//! The MCP façade: the tool declarations and registry, the dispatcher, the policy (modes,
//! guardrails, approvals, principals), the tools, and the transports (stdio, Streamable
//! HTTP, legacy HTTP+SSE). Only this module knows MCP and JSON-RPC.
pub mod approvals;
pub mod bridge;
pub mod dispatch;
pub mod extension;
pub mod http;
pub mod policy;
pub mod principal;
pub mod prompts;
pub mod resources;
pub mod service;
pub mod sessions;
pub mod sse;
pub mod surface;
pub mod tool;
pub mod tools;
