//! The dispatcher: every `tools/call`, on every transport, passes through [`Dispatcher::call`]:
//! surface check, the argument size limit, validation against the input schema, workspace
//! scoping (by the principal's workspaces), the policy gate (conversation mode allow-list,
//! action-class guardrails, then approvals through the confirmation port), then the
//! handler, isolated so a panic becomes that call's error, and the result size limit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::policy::{self, Gate, Mode};
use super::principal::Principal;
use super::surface::Surface;
use super::tool::{CallState, Ctx, Output, Registry, Scope, ToolDef, NEVER_SERVED};
pub use super::tool::{ErrorKind, ProgressFn, ToolError};
use crate::services::Services;

/// How long a call of a name no tool has waits for bridged servers still starting.
const BRIDGE_FIRST_CONNECT: Duration = Duration::from_secs(20);

/// Largest arguments object a call may carry, as JSON bytes.
pub const MAX_ARGS_BYTES: usize = 1 << 20;
/// Largest result a tool may answer with, as JSON bytes (its content blocks included).
pub const MAX_RESULT_BYTES: usize = 4 << 20;

/// A conversation: one MCP session (stdio, an HTTP session, an SSE stream), or one
/// stateless request. It holds the mode; no call's arguments can change it.
#[derive(Debug)]
pub struct Conversation {
    pub id: String,
    mode: Mutex<Option<Mode>>,
    default: Mode,
    /// One stateless request (protocol 2026-07-28 over HTTP): nothing outlives it.
    ephemeral: std::sync::atomic::AtomicBool,
    /// The client's own name for the conversation (the `Cc-Conversation` header), which
    /// outlives a reconnect: what persisted conversation state (the todo list) is keyed by.
    key: Mutex<Option<String>>,
}

impl Conversation {
    pub fn new(default: Mode) -> Arc<Conversation> {
        Arc::new(Conversation {
            id: uuid::Uuid::new_v4().to_string(),
            mode: Mutex::new(None),
            default,
            ephemeral: Default::default(),
            key: Mutex::new(None),
        })
    }

    /// Names the conversation as the client does (the `Cc-Conversation` header).
    pub fn set_key(&self, key: String) {
        *self.key.lock().expect("key") = Some(key);
    }

    /// The client's name for the conversation, when it gave one.
    pub fn key(&self) -> Option<String> {
        self.key.lock().expect("key").clone()
    }

    pub fn ephemeral(&self) -> bool {
        self.ephemeral.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn mark_ephemeral(&self) {
        self.ephemeral.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn mode(&self) -> Mode {
        self.mode.lock().expect("mode").unwrap_or(self.default)
    }

    /// Sets the mode the conversation opens in (from the connection), once.
    pub fn open_in(&self, mode: Mode) {
        let mut m = self.mode.lock().expect("mode");
        if m.is_none() {
            *m = Some(mode);
        }
    }

    /// Whether the opening mode was set (or the mode changed) already.
    pub fn opened(&self) -> bool {
        self.mode.lock().expect("mode").is_some()
    }

    /// Changes the mode; returns the previous one.
    pub fn set_mode(&self, mode: Mode) -> Mode {
        let mut m = self.mode.lock().expect("mode");
        let before = m.unwrap_or(self.default);
        *m = Some(mode);
        before
    }
}

/// Who makes a call: the conversation, the authenticated principal, and the client.
#[derive(Clone)]
pub struct Caller {
    pub conversation: Arc<Conversation>,
    pub principal: Principal,
    /// The client, for server-to-client requests (elicitation, sampling, logging).
    pub peer: Option<rmcp::Peer<rmcp::RoleServer>>,
    /// The client declared `elicitation` and its protocol has server-to-client requests.
    pub can_elicit: bool,
}

impl Caller {
    /// A caller without a client (tests, the CLI).
    pub fn local(mode: Mode) -> Caller {
        Caller { conversation: Conversation::new(mode), principal: Principal::local(), peer: None, can_elicit: false }
    }
}

/// The result of a call, ready for the wire.
pub enum CallOutcome {
    Ok(Output),
    Err(ToolError),
    /// Not a tool of this surface: a protocol error ("unknown tool").
    Unknown(String),
}

/// One per server; shared by every session. It knows the tools and runs calls; the
/// services a call uses are handed to it (it does not own them).
pub struct Dispatcher {
    pub registry: Arc<Registry>,
    /// The bridged servers (`mcp::bridge`): the dynamic layer over `registry`.
    pub bridge: Option<Arc<super::bridge::Bridge>>,
    validators: Mutex<HashMap<&'static str, Arc<jsonschema::Validator>>>,
    /// The bridge's catalog the validators were compiled for (a changed list drops them).
    validators_of: std::sync::atomic::AtomicU64,
    /// Debug builds check each result against its tool's output schema (clients such as
    /// the Python SDK refuse a result that does not match it).
    #[cfg(debug_assertions)]
    output_validators: Mutex<HashMap<&'static str, Arc<jsonschema::Validator>>>,
}

impl Dispatcher {
    pub fn new(registry: Registry) -> Dispatcher {
        Dispatcher {
            registry: Arc::new(registry),
            bridge: None,
            validators: Mutex::new(HashMap::new()),
            validators_of: std::sync::atomic::AtomicU64::new(0),
            #[cfg(debug_assertions)]
            output_validators: Mutex::new(HashMap::new()),
        }
    }

    /// Every tool as of now: the registry, and the bridged servers' tools mounted over it.
    pub fn catalog(&self) -> Arc<Registry> {
        match &self.bridge {
            Some(b) => b.catalog(),
            None => self.registry.clone(),
        }
    }

    fn validator(&self, tool: &ToolDef) -> Arc<jsonschema::Validator> {
        let mut cache = self.validators.lock().expect("validators");
        if let Some(b) = &self.bridge {
            let now = b.generation();
            if self.validators_of.swap(now, std::sync::atomic::Ordering::Relaxed) != now {
                cache.clear();
            }
        }
        cache
            .entry(tool.decl.name)
            .or_insert_with(|| {
                Arc::new(
                    jsonschema::validator_for(&Value::Object(tool.input_schema.clone()))
                        .unwrap_or_else(|e| panic!("input schema of {} does not compile: {e}", tool.decl.name)),
                )
            })
            .clone()
    }

    /// A result that breaks its tool's output schema, as an internal error (debug builds).
    #[cfg(debug_assertions)]
    fn check_output(&self, tool: &ToolDef, out: &Output) -> Result<(), ToolError> {
        if tool.output_schema.is_empty() || !out.value.is_object() {
            return Ok(());
        }
        let v = {
            let mut cache = self.output_validators.lock().expect("output validators");
            cache
                .entry(tool.decl.name)
                .or_insert_with(|| {
                    Arc::new(
                        jsonschema::validator_for(&Value::Object(tool.output_schema.clone()))
                            .unwrap_or_else(|e| panic!("output schema of {} does not compile: {e}", tool.decl.name)),
                    )
                })
                .clone()
        };
        let first = v.iter_errors(&out.value).next().map(|e| format!("at '{}': {e}", e.instance_path()));
        match first {
            None => Ok(()),
            Some(why) => {
                Err(ToolError::internal(format!("{}'s result breaks its output schema {why}", tool.decl.name)))
            }
        }
    }

    /// Runs one call.
    #[allow(clippy::too_many_arguments)]
    pub async fn call(
        &self,
        services: Arc<Services>,
        surface: &Surface,
        caller: &Caller,
        name: &str,
        args: Option<Map<String, Value>>,
        cancel: CancellationToken,
        progress: Option<ProgressFn>,
    ) -> CallOutcome {
        let mut catalog = self.catalog();
        // A bridged server still starting (the server waits for them only a moment before
        // serving): a call of a name nothing serves yet waits for it to be reached first.
        if catalog.get(name).is_none() {
            if let Some(b) = self.bridge.as_ref().filter(|b| b.connecting()) {
                b.settle(BRIDGE_FIRST_CONNECT).await;
                catalog = self.catalog();
            }
        }
        let Some(tool) = catalog.get(name).filter(|t| surface.serves(t) && !NEVER_SERVED.contains(&t.decl.name)) else {
            return CallOutcome::Unknown(name.to_string());
        };
        let mut args = args.unwrap_or_default();
        // An agent works in its one workspace: the server supplies it (the spec: "when the
        // server dispatches an agent, the workspace is enforced server-side"); a foreign id
        // it sends is refused by the scoping below.
        if let Some(agent) = &caller.principal.agent {
            if tool.decl.scope != Scope::Global && !args.contains_key("workspace_id") {
                args.insert("workspace_id".into(), Value::String(agent.workspace.clone()));
            }
        }
        let args = Value::Object(args);
        if let Err(e) = check_args_size(&args) {
            return CallOutcome::Err(e);
        }
        if let Err(e) = self.validate(tool, &args) {
            return CallOutcome::Err(e);
        }
        let mut args = args;
        let workspace = match self.scope(&services, &caller.principal, tool, &mut args).await {
            Ok(w) => w,
            Err(e) => return CallOutcome::Err(e),
        };
        // Policy: the conversation's mode allow-list and the guardrails refuse; a
        // requires-approval tool or a prompted action class asks the confirmation port.
        let mode = caller.conversation.mode();
        let approval = match policy::gate(mode, tool) {
            Gate::Allowed => None,
            Gate::NeedsApproval { why } => Some(why),
            Gate::Blocked { error, reason, allowed_in } => {
                return CallOutcome::Err(
                    ToolError::new(error, reason).with_data(json!({"mode": mode, "allowed_in": allowed_in})),
                );
            }
        };
        let state = CallState::new(args.clone(), progress, caller.peer.clone(), caller.can_elicit, catalog.clone());
        let ctx = Ctx {
            workspace,
            tool: tool.decl.name,
            conversation: caller.conversation.clone(),
            principal: caller.principal.clone(),
            services,
            surface: surface.clone(),
            cancel: cancel.clone(),
            call: Arc::new(state),
        };
        let handler = tool.handler.clone();
        let run = async move {
            if let Some(why) = approval {
                ctx.confirm(&args, why).await?;
            }
            handler(ctx, args).await
        };
        let fut = std::panic::AssertUnwindSafe(run).catch_unwind();
        let result = tokio::select! {
            r = fut => r,
            _ = cancel.cancelled() => return CallOutcome::Err(ToolError::cancelled()),
        };
        match result {
            Ok(Ok(out)) => {
                #[cfg(debug_assertions)]
                if let Err(e) = self.check_output(tool, &out) {
                    return CallOutcome::Err(e);
                }
                match check_result_size(&out) {
                    Ok(()) => CallOutcome::Ok(out),
                    Err(e) => CallOutcome::Err(e),
                }
            }
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
            K::Required { property } if top_level(property) && tool.decl.scope == Scope::Required => {
                return Err(ToolError::workspace(format!(
                    "/workspace_id: required by {}; call list_workspaces for the ids",
                    tool.decl.name
                )));
            }
            K::AdditionalProperties { unexpected }
                if pointer.is_empty()
                    && tool.decl.scope == Scope::Global
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

    /// Workspace scoping from the tool's declaration; removes `workspace_id` from the
    /// arguments the handler sees.
    async fn scope(
        &self,
        services: &Services,
        principal: &Principal,
        tool: &ToolDef,
        args: &mut Value,
    ) -> Result<Option<String>, ToolError> {
        let given = args.as_object_mut().and_then(|o| o.remove("workspace_id"));
        let given = match given {
            None => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => return Err(ToolError::workspace(format!("/workspace_id: expected a string, got {other}"))),
        };
        match (tool.decl.scope, given) {
            (Scope::Global, None) => Ok(None),
            (Scope::Global, Some(_)) => Err(global_takes_none(tool)),
            (Scope::Required, None) => Err(ToolError::workspace(format!(
                "/workspace_id: required by {}; call list_workspaces for the ids",
                tool.decl.name
            ))),
            // A workspace the principal may not see is answered as one that does not exist.
            (_, Some(id)) if !principal.sees(&id) => Err(ToolError::workspace(format!(
                "/workspace_id: no workspace '{id}'; call list_workspaces for the ids"
            ))),
            (_, Some(id)) => match services.store.workspaces().get(&id).await {
                Ok(Some(_)) => Ok(Some(id)),
                Ok(None) => Err(ToolError::workspace(format!(
                    "/workspace_id: no workspace '{id}'; call list_workspaces for the ids"
                ))),
                Err(e) => Err(ToolError::internal(format!("{e}"))),
            },
            (Scope::Optional, None) => Ok(None),
        }
    }
}

/// The arguments must fit [`MAX_ARGS_BYTES`] (checked before anything else reads them).
pub fn check_args_size(args: &Value) -> Result<(), ToolError> {
    let n = json_len(args, MAX_ARGS_BYTES);
    if n > MAX_ARGS_BYTES {
        return Err(ToolError::invalid(
            "/",
            format!("/: the arguments are larger than {MAX_ARGS_BYTES} bytes (the limit); send less"),
        ));
    }
    Ok(())
}

fn check_result_size(out: &Output) -> Result<(), ToolError> {
    let mut n = json_len(&out.value, MAX_RESULT_BYTES);
    for block in &out.extra {
        n += serde_json::to_vec(block).map_or(0, |v| v.len());
    }
    if n > MAX_RESULT_BYTES {
        return Err(ToolError::new(
            ErrorKind::ResultTooLarge,
            format!(
                "the result is larger than {MAX_RESULT_BYTES} bytes (the limit); ask for less (a smaller limit, a line range)"
            ),
        ));
    }
    Ok(())
}

/// The JSON length of `v`, counting no further than just past `cap` (a writer that stops).
pub fn json_len(v: &Value, cap: usize) -> usize {
    struct Counter {
        n: usize,
        cap: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.n += buf.len();
            if self.n > self.cap {
                return Err(std::io::Error::other("over the limit"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Counter { n: 0, cap };
    let _ = serde_json::to_writer(&mut c, v);
    c.n
}

fn global_takes_none(tool: &ToolDef) -> ToolError {
    ToolError::workspace(format!("/workspace_id: {} is global and takes no workspace_id", tool.decl.name))
}

/// The wire form of an error result.
pub fn error_value(e: &ToolError) -> Value {
    json!(e)
}
