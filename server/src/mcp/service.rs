//! The rmcp `ServerHandler`: one [`Session`] per MCP session (stdio, one HTTP session,
//! one SSE stream), all sharing the [`App`] and its dispatcher. A session is one
//! conversation: it holds the mode (opened from the connection's `Cc-Mode` header or the
//! server's `--mode`); every request names its principal (the HTTP guard authenticated it).

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestMethod, CompleteRequestParams,
    CompleteResult, ContentBlock, GetPromptRequestParams, GetPromptResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListToolsResult, MetaObject,
    PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
    SetLevelRequestMethod, SubscribeRequestParams, Tool, ToolAnnotations, UnsubscribeRequestMethod,
    UnsubscribeRequestParams,
};
// Logging is deprecated in rmcp (SEP-2577); only the conformance fixtures have it.
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;

use super::dispatch::{error_value, CallOutcome, Caller, Conversation, ProgressFn, ToolError};
use super::extension::{Extension, SessionState};
use super::policy::{self, Mode};
use super::principal::Principal;
use super::resources::{self, Address};
use super::surface::Surface;
use super::tool::ToolDef;
use crate::app::App;

/// The HTTP header naming the mode a conversation opens in (read when the session opens;
/// never from a call's arguments).
pub const MODE_HEADER: &str = "cc-mode";
/// The client's name for its conversation, kept across reconnects (todo lists are keyed by it).
pub const CONVERSATION_HEADER: &str = "cc-conversation";

/// One MCP session: its conversation and the surface it is served.
#[derive(Clone)]
pub struct Session {
    pub app: Arc<App>,
    pub surface: Surface,
    pub conversation: Arc<Conversation>,
    /// The principal of a transport without per-request HTTP parts (stdio, SSE).
    principal: Option<Principal>,
    /// The extension this session's surface uses (prompts, completions, logging,
    /// subscriptions, more resources), and its per-session state, kept as long as the session.
    extension: Option<(Arc<dyn Extension>, Option<SessionState>)>,
    /// The resources this session subscribed to, and the task telling it of their changes.
    subscriptions: Arc<Subscriptions>,
    /// Closes the conversation's rigs when the session ends.
    _end: Arc<SessionEnd>,
}

/// The end of a session, when its last handle is dropped (DELETE /mcp, the idle reaper, the
/// end of the stdio stream or of the SSE stream): the rigs its conversation controls close,
/// but those a call asked to keep (`keep`) or another conversation took over. A stateless
/// request is a conversation of its own whose rigs are found again by id: they stay, until
/// rig_close or the idle timeout.
struct SessionEnd {
    app: Arc<App>,
    conversation: Arc<Conversation>,
}

impl Drop for SessionEnd {
    fn drop(&mut self) {
        if self.conversation.ephemeral() {
            return;
        }
        if let Some(pool) = self.app.services.rigs.started() {
            let closed = pool.close_conversation(&self.conversation.id);
            if !closed.is_empty() {
                tracing::info!(conversation = %self.conversation.id, rigs = ?closed, "session ended: its rigs close");
            }
        }
    }
}

/// A session's subscriptions: each resource's notifying task, stopped with the session.
#[derive(Default)]
struct Subscriptions(std::sync::Mutex<std::collections::HashMap<String, tokio::task::AbortHandle>>);

impl Subscriptions {
    fn insert(&self, uri: String, task: tokio::task::AbortHandle) {
        if let Some(old) = self.0.lock().expect("subscriptions").insert(uri, task) {
            old.abort();
        }
    }

    fn remove(&self, uri: &str) {
        if let Some(task) = self.0.lock().expect("subscriptions").remove(uri) {
            task.abort();
        }
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        for (_, task) in self.0.get_mut().expect("subscriptions").drain() {
            task.abort();
        }
    }
}

impl Session {
    pub fn new(app: Arc<App>, surface: Surface) -> Session {
        let conversation = Conversation::new(app.services.policy.default_mode);
        let extension = app.extension_for(&surface).map(|e| (e.clone(), e.open_session(&conversation.id)));
        let end = Arc::new(SessionEnd { app: app.clone(), conversation: conversation.clone() });
        Session { app, surface, conversation, principal: None, extension, subscriptions: Default::default(), _end: end }
    }

    /// A session whose every request comes from `principal` (stdio, one SSE stream).
    pub fn with_principal(mut self, principal: Principal) -> Session {
        self.principal = Some(principal);
        self
    }

    /// The HTTP request of this call, when it came over Streamable HTTP.
    fn parts(context: &RequestContext<RoleServer>) -> Option<&axum::http::request::Parts> {
        context.extensions.get::<axum::http::request::Parts>()
    }

    /// Who sent this request: the principal the HTTP guard authenticated, else the
    /// session's own, else the local one.
    pub fn principal(&self, context: &RequestContext<RoleServer>) -> Principal {
        Self::parts(context)
            .and_then(|p| p.extensions.get::<Principal>().cloned())
            .or_else(|| self.principal.clone())
            .unwrap_or_else(Principal::local)
    }

    /// Opens the conversation in the connection's mode (the `Cc-Mode` header), once; a
    /// stateless request (2026-07-28 over HTTP) is a conversation of its own.
    fn open(&self, context: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let parts = Self::parts(context);
        if parts.is_some() && context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28) {
            self.conversation.mark_ephemeral();
        }
        if let Some(v) = parts.and_then(|p| p.headers.get(CONVERSATION_HEADER)) {
            let key = v.to_str().ok().filter(|k| !k.is_empty() && k.len() <= 200).ok_or_else(|| {
                ErrorData::invalid_request("Cc-Conversation header: expected 1 to 200 characters of text", None)
            })?;
            self.conversation.set_key(key.to_string());
        }
        if self.conversation.opened() {
            return Ok(());
        }
        let header = parts.and_then(|p| p.headers.get(MODE_HEADER));
        let mode = match header {
            None => self.app.services.policy.default_mode,
            Some(v) => v
                .to_str()
                .map_err(|_| "not text".to_string())
                .and_then(Mode::parse)
                .map_err(|e| ErrorData::invalid_request(format!("Cc-Mode header: {e}"), None))?,
        };
        self.app
            .services
            .policy
            .check_ceiling(mode)
            .map_err(|e| ErrorData::invalid_request(format!("Cc-Mode header: {e}"), None))?;
        self.conversation.open_in(mode);
        Ok(())
    }

    /// Whether the client can be asked by elicitation now: it declared form elicitation,
    /// and its protocol version has server-to-client requests (before 2026-07-28).
    fn can_elicit(context: &RequestContext<RoleServer>) -> bool {
        let old_enough = context.protocol_version().is_some_and(|v| v < ProtocolVersion::V_2026_07_28);
        old_enough && context.peer.supported_elicitation_modes().contains(&rmcp::service::ElicitationMode::Form)
    }
}

/// The wire form of a registry tool: annotations and `_meta` derived from its value
/// (the hints from the same guardrail table the dispatcher reads).
pub fn wire_tool(t: &ToolDef) -> Tool {
    let d = &t.decl;
    let (read_only, destructive, open_world) = policy::hints(t);
    let annotations = ToolAnnotations::new()
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(d.hints.idempotent)
        .open_world(open_world);
    let mut meta = MetaObject::default();
    meta.0.insert("toolsets".into(), json!([d.set]));
    meta.0.insert("workspaceScope".into(), json!(d.scope));
    meta.0.insert("actionClasses".into(), json!(d.classes));
    meta.0.insert("requiresApproval".into(), json!(d.approval));
    let tool = Tool::new(d.name, d.description, Arc::new(t.input_schema.clone()))
        .with_title(d.title)
        .with_annotations(annotations)
        .with_meta(meta);
    // An empty output schema: the tool answers with content blocks only (the
    // conformance fixtures); no `outputSchema` then.
    if t.output_schema.is_empty() {
        tool
    } else {
        tool.with_raw_output_schema(Arc::new(t.output_schema.clone()))
    }
}

fn result_of(outcome: CallOutcome) -> Result<CallToolResult, ErrorData> {
    match outcome {
        // A `null` value: content blocks only, no `structuredContent` (the conformance fixtures).
        CallOutcome::Ok(out) if out.value.is_null() => Ok(CallToolResult::success(out.extra)),
        CallOutcome::Ok(out) => {
            let mut r = CallToolResult::structured(out.value);
            r.content.extend(out.extra);
            Ok(r)
        }
        CallOutcome::Err(e) => Ok(error_result(&e)),
        CallOutcome::Unknown(name) => Err(ErrorData::invalid_params(format!("unknown tool: {name}"), None)),
    }
}

fn error_result(e: &ToolError) -> CallToolResult {
    let mut r = CallToolResult::structured_error(error_value(e));
    // The message first, for clients that show only the first text block.
    r.content.insert(0, ContentBlock::text(e.message.clone()));
    r
}

impl ServerHandler for Session {
    fn get_info(&self) -> ServerConfig {
        // Prompts are the product's (goal, loop) plus an extension's; completions and logging
        // exist only where an extension has them.
        #[allow(deprecated)]
        let caps = if self.extension.is_some() {
            ServerCapabilities::builder()
                .enable_logging()
                .enable_completions()
                .enable_prompts()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_tools()
                .enable_tool_list_changed()
                .build()
        } else {
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_tools()
                .enable_tool_list_changed()
                .build()
        };
        let instructions = match &self.app.services.repos.bound {
            Some(r) => format!(
                "cc-server: code search and call graph over indexed repositories. This session is bound to repository '{r}' in workspace '{}'. Pass workspace_id on every workspace tool (list_workspaces lists them).",
                crate::store::DEFAULT_WORKSPACE
            ),
            None => "cc-server: code search and call graph over indexed repositories. Pass workspace_id on every workspace tool (list_workspaces lists them); search_tool_bm25 finds the right tool.".to_string(),
        };
        ServerConfig::new(caps)
            .with_server_info(Implementation::new("cc-server", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions)
    }

    /// A session hears `notifications/tools/list_changed` when a bridged server's tools change.
    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if let Some(b) = &self.app.dispatcher.bridge {
            b.notify(context.peer.clone());
        }
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.open(&context)?;
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    /// The tools this conversation may call now (its mode's gate; blocked tools are
    /// refused in tools/call too, with the reason).
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.open(&context)?;
        let mode = self.conversation.mode();
        let catalog = self.app.dispatcher.catalog();
        let tools = self.surface.served(&catalog).filter(|t| policy::gate(mode, t).callable()).map(wire_tool).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.open(&context)?;
        let caller = Caller {
            conversation: self.conversation.clone(),
            principal: self.principal(&context),
            peer: Some(context.peer.clone()),
            can_elicit: Self::can_elicit(&context),
        };
        // Progress goes through one queue drained by one task: notifications arrive in
        // order, and all of them before the result.
        let mut drain = None;
        let progress: Option<ProgressFn> = context.meta.get_progress_token().map(|token| {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(f64, Option<f64>, Option<String>)>();
            let peer = context.peer.clone();
            drain = Some(tokio::spawn(async move {
                while let Some((progress, total, message)) = rx.recv().await {
                    let mut p = ProgressNotificationParam::new(token.clone(), progress);
                    p.total = total;
                    p.message = message;
                    let _ = peer.notify_progress(p).await;
                }
            }));
            let f: ProgressFn = Arc::new(move |progress, total, message| {
                let _ = tx.send((progress, total, message));
            });
            f
        });
        let outcome = self
            .app
            .dispatcher
            .call(
                self.app.services.clone(),
                &self.surface,
                &caller,
                &request.name,
                request.arguments,
                context.ct.clone(),
                progress,
            )
            .await;
        if let Some(d) = drain {
            // The call's context (and the sender with it) is gone: the queue ends. A
            // handler that leaked a clone into a task of its own does not hold the result.
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), d).await;
        }
        // Clients from 2025-06-18 on read `resource_link` blocks: give them a link to every
        // cc:// address the result names (older clients get the same addresses in the JSON).
        let links = context
            .protocol_version()
            .and_then(|v| serde_json::to_value(v).ok())
            .and_then(|v| v.as_str().map(|s| s >= "2025-06-18"))
            .unwrap_or(false);
        result_of(outcome)
            .map(|mut r| {
                if links && r.is_error != Some(true) {
                    if let Some(v) = &r.structured_content {
                        r.content.extend(resource_links(v));
                    }
                }
                r
            })
            .map(Into::into)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let mut templates: Vec<ResourceTemplate> = resources::TEMPLATES
            .iter()
            .map(|(uri, name, desc)| {
                let mut t = ResourceTemplate::new(*uri, *name);
                t.description = Some(desc.to_string());
                t.mime_type = Some("text/plain".into());
                t
            })
            .collect();
        if let Some(e) = self.ext() {
            templates.extend(e.resource_templates());
        }
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        let mut list = Vec::new();
        if let Some(e) = self.ext() {
            list.extend(e.resources());
        }
        if let Some(b) = &self.app.dispatcher.bridge {
            list.extend(b.resources(&self.surface, &self.principal(&context)));
        }
        Ok(rmcp::model::ListResourcesResult::with_all_items(list))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.as_str();
        if let Some(read) = self.ext().and_then(|e| e.read(uri)) {
            return read.map(Into::into);
        }
        let principal = self.principal(&context);
        if let Some(b) = &self.app.dispatcher.bridge {
            if let Some(read) = b.read(&self.surface, &principal, uri).await {
                return read.map(Into::into);
            }
        }
        let text = read_cc(&self.app.services, &principal, uri).await?;
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)]).into())
    }

    // Prompts: the product's (goal, loop, in `mcp::prompts`) and an extension's. Completion,
    // logging and subscriptions: only an extension has them; otherwise "method not found", as
    // when the capability is not advertised.

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mut all = crate::mcp::prompts::prompts();
        if let Some(e) = self.ext() {
            all.extend(e.prompts());
        }
        if let Some(b) = &self.app.dispatcher.bridge {
            all.extend(b.prompts(&self.surface, &self.principal(&context)));
        }
        Ok(ListPromptsResult::with_all_items(all))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if crate::mcp::prompts::NAMES.contains(&request.name.as_str()) {
            let principal = self.principal(&context);
            let r = crate::mcp::prompts::get(
                &self.app.services,
                &principal,
                &self.conversation,
                &request.name,
                request.arguments.as_ref(),
            )
            .await?;
            return Ok(r.into());
        }
        if let Some(b) = &self.app.dispatcher.bridge {
            let principal = self.principal(&context);
            if let Some(r) = b.get_prompt(&self.surface, &principal, &request.name, request.arguments.clone()).await {
                return r.map(Into::into);
            }
        }
        match self.ext() {
            Some(e) => e.get_prompt(&request.name, request.arguments.as_ref()).map(Into::into),
            None => Err(ErrorData::invalid_params(
                format!("no prompt '{}'; prompts/list lists them", request.name),
                Some(serde_json::json!({ "name": request.name })),
            )),
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.require_extension::<CompleteRequestMethod>()?.complete(&request)
    }

    /// A request rmcp could not read as one of the methods it knows lands here: a known
    /// method with bad params is invalid params (-32602, saying what is wrong), not
    /// "method not found".
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        Err(malformed(&request.method, request.params.as_ref()))
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.require_extension::<SetLevelRequestMethod>()?.set_level(&self.conversation.id, request.level);
        Ok(())
    }

    /// A space's messages are subscribed to here (each new one, posted through any replica,
    /// is a `notifications/resources/updated`), and a bridged server's resources (through
    /// the bridge); anything else is the extension's.
    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Some(b) = self.app.dispatcher.bridge.as_ref().filter(|_| request.uri.starts_with("bridge:")) {
            self.open(&context)?;
            if self.conversation.ephemeral() {
                return Err(stateless_subscription());
            }
            let principal = self.principal(&context);
            if let Some(r) = b.subscribe(&self.surface, &principal, &request.uri, context.peer.clone()).await {
                self.subscriptions.insert(request.uri, r?);
                return Ok(());
            }
        }
        let Some(Address::Messages { space }) = resources::parse(&request.uri) else {
            return match self.ext() {
                Some(e) => e.subscribe(&self.conversation.id, &request.uri),
                None => Err(ErrorData::invalid_params(
                    format!("{} cannot be subscribed to: only cc://spaces/{{space_id}}/messages can", request.uri),
                    None,
                )),
            };
        };
        self.open(&context)?;
        if self.conversation.ephemeral() {
            return Err(stateless_subscription());
        }
        let principal = self.principal(&context);
        let space = visible_space(&self.app.services, &principal, space).await?;
        let mut events = self.app.services.bus.subscribe();
        let (peer, uri) = (context.peer.clone(), request.uri.clone());
        // An agent's run listening here needs no run started for a new message.
        let listening = principal
            .agent
            .as_ref()
            .filter(|a| a.run_id.is_some())
            .map(|a| self.app.services.runtime.listen(&a.agent_id, &space.id));
        let task = tokio::spawn(async move {
            let _listening = listening;
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match events.recv().await {
                    Ok(crate::bus::Event::Message { space_id, .. }) if space_id == space.id => {}
                    Ok(_) => continue,
                    // Missed some: one notification covers them (the client reads the resource).
                    Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => return,
                }
                let params = rmcp::model::ResourceUpdatedNotificationParam::new(uri.clone());
                if peer.notify_resource_updated(params).await.is_err() {
                    return; // the client is gone
                }
            }
        });
        self.subscriptions.insert(request.uri, task.abort_handle());
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let bridged = request.uri.starts_with("bridge:") && self.app.dispatcher.bridge.is_some();
        if bridged || matches!(resources::parse(&request.uri), Some(Address::Messages { .. })) {
            self.subscriptions.remove(&request.uri);
            return Ok(());
        }
        self.require_extension::<UnsubscribeRequestMethod>()?.unsubscribe(&self.conversation.id, &request.uri)
    }
}

/// A subscription asked by a request that has no session to notify.
fn stateless_subscription() -> ErrorData {
    ErrorData::invalid_request(
        "a stateless request (protocol 2026-07-28 over HTTP) has no session to notify; subscribe over a session",
        None,
    )
}

impl Session {
    /// The extension this session uses.
    fn ext(&self) -> Option<&Arc<dyn Extension>> {
        self.extension.as_ref().map(|(e, _)| e)
    }

    /// The extension, when this session uses one; else "method not found" for `M`.
    fn require_extension<M: rmcp::model::ConstString>(&self) -> Result<&Arc<dyn Extension>, ErrorData> {
        self.ext().ok_or_else(|| ErrorData::method_not_found::<M>())
    }
}

/// The methods a client may send (MCP 2024-11-05 … 2025-11-25) whose params rmcp reads.
const CLIENT_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
];

/// The error for a request rmcp could not read: -32602 naming the bad params of a known
/// method, -32601 for an unknown one.
pub fn malformed(method: &str, params: Option<&serde_json::Value>) -> ErrorData {
    if !CLIENT_METHODS.contains(&method) {
        return ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, method.to_string(), None);
    }
    let why = match method {
        "tools/call" => match params {
            None => "params: expected an object with the tool's `name`".to_string(),
            Some(p) if !p.is_object() => "params: expected an object with the tool's `name`".to_string(),
            Some(p) => match (p.get("name"), p.get("arguments")) {
                (None, _) => "params.name: missing (the tool to call)".to_string(),
                (Some(n), _) if !n.is_string() => format!("params.name: expected a string, got {n}"),
                (_, Some(a)) if !a.is_object() && !a.is_null() => {
                    format!("params.arguments: expected an object, got {}", json_kind(a))
                }
                _ => "params: not a tools/call request (see the MCP schema)".to_string(),
            },
        },
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => match params.and_then(|p| p.get("uri")) {
            None => "params.uri: missing".to_string(),
            Some(u) if !u.is_string() => format!("params.uri: expected a string, got {}", json_kind(u)),
            _ => format!("params: not a {method} request (see the MCP schema)"),
        },
        _ => format!("params: not a {method} request (see the MCP schema)"),
    };
    ErrorData::invalid_params(format!("{method}: {why}"), params.map(|_| json!({ "method": method })))
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// At most this many resource links per result.
const MAX_LINKS: usize = 20;

/// Every object in a result with a `cc://` `uri`, as a `resource_link` block named by its
/// qualified name (or path).
pub fn resource_links(v: &serde_json::Value) -> Vec<ContentBlock> {
    fn walk(v: &serde_json::Value, out: &mut Vec<ContentBlock>, seen: &mut std::collections::HashSet<String>) {
        if out.len() >= MAX_LINKS {
            return;
        }
        match v {
            serde_json::Value::Object(o) => {
                if let Some(uri) = o.get("uri").and_then(|u| u.as_str()).filter(|u| u.starts_with("cc://")) {
                    if seen.insert(uri.to_string()) {
                        let name = ["qualified_name", "path", "name"]
                            .iter()
                            .find_map(|k| o.get(*k).and_then(|x| x.as_str()))
                            .unwrap_or(uri);
                        let mut r = rmcp::model::Resource::new(uri, name);
                        r.mime_type = Some("text/plain".into());
                        r.description = o.get("location").and_then(|x| x.as_str()).map(str::to_string);
                        out.push(ContentBlock::resource_link(r));
                    }
                }
                for x in o.values() {
                    walk(x, out, seen);
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out, seen)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut out, &mut std::collections::HashSet::new());
    out
}

/// Reads a `cc://` resource: the same text `code_read` returns. A workspace the
/// principal may not see is answered as one without that repository.
/// The space `id`, when `principal` may see its workspace (another's is answered as one
/// that does not exist).
async fn visible_space(
    services: &crate::services::Services,
    principal: &Principal,
    id: &str,
) -> Result<crate::store::Space, ErrorData> {
    match services.store.spaces().get(id).await {
        Ok(Some(s)) if principal.sees(&s.workspace_id) => Ok(s),
        Ok(_) => Err(ErrorData::resource_not_found(
            format!("no space '{id}'"),
            Some(json!({ "uri": resources::messages_uri(id) })),
        )),
        Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
    }
}

pub async fn read_cc(
    services: &Arc<crate::services::Services>,
    principal: &Principal,
    uri: &str,
) -> Result<String, ErrorData> {
    let not_found = |m: String| ErrorData::resource_not_found(m, Some(json!({ "uri": uri })));
    let addr = resources::parse(uri).ok_or_else(|| not_found(format!("no resource template matches {uri}")))?;
    let (ws, repo) = match &addr {
        Address::File { workspace, repo, .. } | Address::Symbol { workspace, repo, .. } => (*workspace, *repo),
        Address::Plan { workspace, id, version } => {
            return super::tools::plans::read_resource(services, principal, workspace, id, *version)
                .await
                .map_err(not_found);
        }
        Address::Messages { space } => {
            let space = visible_space(services, principal, space).await?;
            let messages = services
                .store
                .spaces()
                .latest(&space.id, 50)
                .await
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            return Ok(serde_json::to_string_pretty(&json!({ "space": space, "messages": messages }))
                .expect("messages serialize"));
        }
    };
    let repos = if principal.sees(ws) {
        services.store.workspaces().repos(ws).await.map_err(|e| ErrorData::internal_error(e.to_string(), None))?
    } else {
        Vec::new()
    };
    if !repos.iter().any(|r| r == repo) {
        return Err(not_found(format!("no repository '{repo}' in workspace '{ws}'")));
    }
    let (services2, name) = (services.clone(), repo.to_string());
    let l = super::tools::code::blocking(move || services2.repos.get(&name).map_err(ToolError::from))
        .await
        .map_err(|e| ErrorData::internal_error(e.message, None))?;
    let root = l.repo.meta.root.clone();
    let (path, start, end) = match addr {
        Address::File { path, .. } => (path.to_string(), 1, u32::MAX),
        Address::Messages { .. } | Address::Plan { .. } => unreachable!("answered above"),
        Address::Symbol { id, .. } => {
            let sym = match cc_indexer::SymbolId::parse(id).map(|sid| l.graph.symbol(sid)) {
                Some(Err(e)) => return Err(ErrorData::internal_error(e.to_string(), None)),
                Some(Ok(s)) => s,
                None => None,
            };
            let sym = sym.ok_or_else(|| not_found(format!("no symbol {id} in {repo}")))?;
            (sym.path.clone(), sym.span.start_line, sym.span.end_line)
        }
    };
    super::tools::code::read_lines(services.policy.read_policy, &root, &path, start, end)
        .await
        .map(|(text, ..)| text)
        .map_err(|e| not_found(e.message))
}
