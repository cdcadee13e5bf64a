//! The dispatcher: every `tools/call`, on every transport, passes through [`Dispatcher::call`]:
//! surface check, argument validation against the input schema, workspace scoping,
//! the policy hook (modes, approvals, guardrails: the next issue), then the handler,
//! isolated so a panic becomes that call's error.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::FutureExt;
use serde::Serialize;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::registry::{Output, Registry, Scope, Surface, ToolDef, NEVER_SERVED};
use crate::app::App;

/// A tool's failure, shown to the caller as an `isError` result.
#[derive(Debug, Clone, Serialize)]
pub struct ToolError {
    /// `invalid_input`, `workspace`, `not_found`, `ambiguous`, `internal`, `cancelled`, …
    pub error: &'static str,
    /// JSON pointer of the argument at fault, when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    pub message: String,
    /// Extra data (candidates of an ambiguous name, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ToolError {
    pub fn invalid(pointer: &str, message: impl Into<String>) -> ToolError {
        ToolError { error: "invalid_input", pointer: Some(pointer.to_string()), message: message.into(), data: None }
    }
    pub fn workspace(message: impl Into<String>) -> ToolError {
        ToolError { error: "workspace", pointer: Some("/workspace_id".into()), message: message.into(), data: None }
    }
    pub fn not_found(pointer: &str, message: impl Into<String>) -> ToolError {
        ToolError { error: "not_found", pointer: Some(pointer.to_string()), message: message.into(), data: None }
    }
    pub fn internal(message: impl Into<String>) -> ToolError {
        ToolError { error: "internal", pointer: None, message: message.into(), data: None }
    }
    pub fn with_data(mut self, data: Value) -> ToolError {
        self.data = Some(data);
        self
    }
}

impl From<anyhow::Error> for ToolError {
    fn from(e: anyhow::Error) -> Self {
        ToolError::internal(format!("{e:#}"))
    }
}

/// Progress of a long call, sent as MCP progress notifications when the client asked.
pub type ProgressFn = Arc<dyn Fn(f64, Option<f64>, Option<String>) + Send + Sync>;

/// What a handler knows about its call.
#[derive(Clone)]
pub struct CallCtx {
    pub app: Arc<App>,
    /// The checked workspace, for scoped tools.
    pub workspace: Option<String>,
    /// The conversation (MCP session) the call belongs to.
    pub conversation: String,
    /// The tools this conversation is served (for discovery tools).
    pub surface: Surface,
    pub cancel: CancellationToken,
    pub progress: Option<ProgressFn>,
    /// The client, for server-to-client requests (elicitation, sampling, logging).
    pub peer: Option<rmcp::Peer<rmcp::RoleServer>>,
}

/// The result of a call, ready for the wire.
pub enum CallOutcome {
    Ok(Output),
    Err(ToolError),
    /// Not a tool of this surface: a protocol error ("unknown tool").
    Unknown(String),
}

/// One per server; shared by every session.
pub struct Dispatcher {
    pub registry: Registry,
    validators: Mutex<HashMap<&'static str, Arc<jsonschema::Validator>>>,
}

impl Dispatcher {
    pub fn new(registry: Registry) -> Dispatcher {
        Dispatcher { registry, validators: Mutex::new(HashMap::new()) }
    }

    /// The tools `surface` serves, sorted by name.
    pub fn served<'a>(&'a self, surface: &'a Surface) -> impl Iterator<Item = &'a ToolDef> + 'a {
        self.registry.all().filter(move |t| surface.serves(t))
    }

    fn validator(&self, tool: &ToolDef) -> Arc<jsonschema::Validator> {
        let mut cache = self.validators.lock().expect("validators");
        cache
            .entry(tool.name)
            .or_insert_with(|| {
                Arc::new(
                    jsonschema::validator_for(&Value::Object(tool.input_schema.clone()))
                        .unwrap_or_else(|e| panic!("input schema of {} does not compile: {e}", tool.name)),
                )
            })
            .clone()
    }

    /// Runs one call.
    #[allow(clippy::too_many_arguments)]
    pub async fn call(
        &self,
        app: Arc<App>,
        surface: &Surface,
        conversation: &str,
        name: &str,
        args: Option<Map<String, Value>>,
        cancel: CancellationToken,
        progress: Option<ProgressFn>,
        peer: Option<rmcp::Peer<rmcp::RoleServer>>,
    ) -> CallOutcome {
        let Some(tool) = self.registry.get(name).filter(|t| surface.serves(t) && !NEVER_SERVED.contains(&t.name))
        else {
            return CallOutcome::Unknown(name.to_string());
        };
        let args = Value::Object(args.unwrap_or_default());
        if let Err(e) = self.validate(tool, &args) {
            return CallOutcome::Err(e);
        }
        let mut args = args;
        let workspace = match self.scope(&app, tool, &mut args) {
            Ok(w) => w,
            Err(e) => return CallOutcome::Err(e),
        };
        // Policy (conversation modes, approvals, action-class guardrails) goes here: it
        // sees the tool's value, the checked workspace and the conversation.
        let ctx = CallCtx {
            app,
            workspace,
            conversation: conversation.to_string(),
            surface: surface.clone(),
            cancel: cancel.clone(),
            progress,
            peer,
        };
        let fut = std::panic::AssertUnwindSafe((tool.handler)(ctx, args)).catch_unwind();
        let result = tokio::select! {
            r = fut => r,
            _ = cancel.cancelled() => {
                return CallOutcome::Err(ToolError { error: "cancelled", pointer: None, message: "the call was cancelled".into(), data: None });
            }
        };
        match result {
            Ok(Ok(out)) => CallOutcome::Ok(out),
            Ok(Err(e)) => CallOutcome::Err(e),
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".into());
                tracing::error!(tool = name, "handler panicked: {msg}");
                CallOutcome::Err(ToolError::internal(format!(
                    "the tool failed unexpectedly ({msg}); the server is unaffected"
                )))
            }
        }
    }

    /// Checks arguments against the tool's input schema; the first error names its
    /// JSON pointer and what was expected.
    pub fn validate(&self, tool: &ToolDef, args: &Value) -> Result<(), ToolError> {
        let v = self.validator(tool);
        let mut errors: Vec<_> = v.iter_errors(args).collect();
        if errors.is_empty() {
            return Ok(());
        }
        errors.sort_by_key(|e| e.instance_path().to_string());
        let e = &errors[0];
        let mut pointer = e.instance_path().to_string();
        let message = e.to_string();
        use jsonschema::error::ValidationErrorKind as K;
        // A missing or a superfluous workspace_id is a workspace error, with the hint the
        // scoping step gives (the schema catches it first). For any other missing or
        // unexpected property, the validator points at the parent: name the property itself.
        let top_level = |p: &Value| pointer.is_empty() && p.as_str() == Some("workspace_id");
        match e.kind() {
            K::Required { property } if top_level(property) && tool.scope == Scope::Required => {
                return Err(ToolError::workspace(format!(
                    "/workspace_id: required by {}; call list_workspaces for the ids",
                    tool.name
                )));
            }
            K::AdditionalProperties { unexpected }
                if pointer.is_empty()
                    && tool.scope == Scope::Global
                    && unexpected.iter().any(|p| p == "workspace_id") =>
            {
                return Err(global_takes_none(tool));
            }
            K::Required { property } => {
                if let Some(p) = property.as_str() {
                    pointer = format!("{pointer}/{p}");
                }
                return Err(ToolError::invalid(&pointer, format!("{pointer}: required property is missing")));
            }
            K::AdditionalProperties { unexpected } => {
                if let Some(p) = unexpected.first() {
                    pointer = format!("{pointer}/{p}");
                }
                return Err(ToolError::invalid(
                    &pointer,
                    format!("{pointer}: unknown property (not in the tool's input schema)"),
                ));
            }
            _ => {}
        }
        let shown = if pointer.is_empty() { "/".to_string() } else { pointer.clone() };
        Err(ToolError::invalid(&shown, format!("{shown}: {message}")))
    }

    /// Workspace scoping from the registry data; removes `workspace_id` from the
    /// arguments the handler sees.
    fn scope(&self, app: &App, tool: &ToolDef, args: &mut Value) -> Result<Option<String>, ToolError> {
        let given = args.as_object_mut().and_then(|o| o.remove("workspace_id"));
        let given = match given {
            None => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => return Err(ToolError::workspace(format!("/workspace_id: expected a string, got {other}"))),
        };
        match (tool.scope, given) {
            (Scope::Global, None) => Ok(None),
            (Scope::Global, Some(_)) => Err(global_takes_none(tool)),
            (Scope::Required, None) => Err(ToolError::workspace(format!(
                "/workspace_id: required by {}; call list_workspaces for the ids",
                tool.name
            ))),
            (_, Some(id)) => match app.store.workspace(&id) {
                Ok(Some(_)) => Ok(Some(id)),
                Ok(None) => Err(ToolError::workspace(format!(
                    "/workspace_id: no workspace '{id}'; call list_workspaces for the ids"
                ))),
                Err(e) => Err(ToolError::internal(format!("workspace store: {e:#}"))),
            },
            (Scope::Optional, None) => Ok(None),
        }
    }
}

fn global_takes_none(tool: &ToolDef) -> ToolError {
    ToolError::workspace(format!("/workspace_id: {} is global and takes no workspace_id", tool.name))
}

/// The wire form of an error result.
pub fn error_value(e: &ToolError) -> Value {
    json!(e)
}
