//! The MCP conformance suite's fixtures (`--tools conformance`): tools, resources and
//! prompts with the fixed names `@modelcontextprotocol/conformance` calls. Never served
//! unless that set is named.

use rmcp::model::{ReadResourceResult, Resource, ResourceTemplate};
use rmcp::ErrorData;

use crate::mcp::registry::Registry;

pub fn register(_r: &mut Registry) {}

pub fn resource_templates() -> Vec<ResourceTemplate> {
    Vec::new()
}

pub fn resources() -> Vec<Resource> {
    Vec::new()
}

pub fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    Err(ErrorData::resource_not_found(format!("no conformance resource {uri}"), None))
}
