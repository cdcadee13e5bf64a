//! What a server adds beside its tools: "these tool sets, and prompts, completions, logging,
//! subscriptions and resources for the sessions that serve them".
//!
//! The product registers no extension. The MCP conformance suite's fixtures are one (built
//! into a test binary of their own, `cc-server-conformance`, in the tests crate), so the
//! product's session handler has no fixture names in it: it asks the extension.

use std::sync::Arc;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptResult, JsonObject, Prompt, ReadResourceResult, Resource,
    ResourceTemplate,
};
use rmcp::ErrorData;

use super::surface::{ExtraSet, Surface};
use super::tool::Registry;

/// Per-session state an extension keeps alive as long as the session.
pub type SessionState = Arc<dyn std::any::Any + Send + Sync>;

/// An extension of the server (see the module doc). Every method but `sets`, `register` and
/// `active` has a default that adds nothing.
#[allow(deprecated)]
pub trait Extension: Send + Sync + 'static {
    /// The tool sets it adds.
    fn sets(&self) -> Vec<ExtraSet>;
    /// Adds its tools (each on one of its sets).
    fn register(&self, registry: &mut Registry);
    /// Whether a session serving `surface` has the extension's capabilities (prompts,
    /// completions, logging, subscriptions, resources).
    fn active(&self, surface: &Surface) -> bool;
    /// State kept for one session (`conversation` is its id), dropped when it ends.
    fn open_session(&self, _conversation: &str) -> Option<SessionState> {
        None
    }
    fn prompts(&self) -> Vec<Prompt> {
        Vec::new()
    }
    fn get_prompt(&self, name: &str, _arguments: Option<&JsonObject>) -> Result<GetPromptResult, ErrorData> {
        Err(ErrorData::invalid_params(format!("no prompt '{name}'"), None))
    }
    fn complete(&self, _request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
        Ok(CompleteResult::default())
    }
    fn set_level(&self, _conversation: &str, _level: rmcp::model::LoggingLevel) {}
    fn subscribe(&self, _conversation: &str, uri: &str) -> Result<(), ErrorData> {
        Err(ErrorData::invalid_params(format!("{uri} cannot be subscribed to"), None))
    }
    fn unsubscribe(&self, _conversation: &str, _uri: &str) -> Result<(), ErrorData> {
        Ok(())
    }
    fn resources(&self) -> Vec<Resource> {
        Vec::new()
    }
    fn resource_templates(&self) -> Vec<ResourceTemplate> {
        Vec::new()
    }
    /// Reads `uri` when it is one of the extension's; `None` when it is not.
    fn read(&self, _uri: &str) -> Option<Result<ReadResourceResult, ErrorData>> {
        None
    }
}
