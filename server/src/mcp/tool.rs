//! A tool, declared where it lives: "what is this tool, what may it do, and who may call it?"
//!
//! Each tool is one file under `mcp/tools/<area>/`: a [`Decl`] (every fact the policy and
//! the surface need: name, title, description, tool set, workspace scope, action classes,
//! approval, modes, hints), its typed arguments and result (serde + schemars; unknown fields
//! refused), and a named async handler `async fn NAME(ctx: Ctx<W>, args: A) -> Result<R,
//! ToolError>`. Its area's `tools()` adds it with one line, `r.add(DECL, handler)`. The
//! tables of tool sets, approvals and mode allow-lists are derived from the declarations
//! ([`super::policy`]), never written beside them.
//!
//! The workspace scope is also in the handler's type: `Ctx<String>` for a tool that needs a
//! workspace (the dispatcher has checked it: the principal sees it and it exists),
//! `Ctx<Option<String>>` for one that may take one, `Ctx<()>` for a global tool; adding a
//! tool whose declaration and handler disagree fails when the registry is built (tested).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::dispatch::Conversation;
use super::policy::Mode;
use super::principal::Principal;
use super::surface::Surface;
use crate::services::Services;

/// The tool sets: what `--tools` selects. Every tool is on exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolSet {
    /// Finding tools: search_tool_bm25, list_my_tools.
    Discovery,
    /// The conversation's mode.
    Conversation,
    /// Workspaces and their repositories.
    Workspace,
    /// Code search and the call graph.
    Code,
    /// Disposable machines: browsers, desktops, Android devices, iOS simulators.
    Rigs,
    /// Agents, their runtimes and their runs.
    Agents,
    /// Spaces and their messages.
    Messaging,
    /// The owner's news feeds and their articles.
    Feeds,
    /// Tickets, their relations and pull requests.
    Tickets,
    /// Goals, the approvals board and work products.
    Governance,
    /// Skills: installed from git behind the scan gate, locked by content hash.
    Skills,
    /// Facts, policies, working memory and their reconciliation.
    Memory,
    /// Team and pipeline tools: pipeline triggers, runs' outputs, team leads' activity.
    Pipelines,
    /// Orchestration: multi-agent plans proposed for approval.
    Orchestration,
    /// Code reviews on the call graph: areas from the diff and its impact, findings, verdicts.
    Reviews,
    /// Plans, playbooks and artifacts.
    Plans,
    /// A set an extension adds (the conformance fixtures; bridged servers), by name.
    Extra(&'static str),
}

impl Serialize for ToolSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl ToolSet {
    pub const ALL: [ToolSet; 16] = [
        ToolSet::Discovery,
        ToolSet::Conversation,
        ToolSet::Workspace,
        ToolSet::Code,
        ToolSet::Rigs,
        ToolSet::Agents,
        ToolSet::Messaging,
        ToolSet::Feeds,
        ToolSet::Tickets,
        ToolSet::Governance,
        ToolSet::Skills,
        ToolSet::Memory,
        ToolSet::Pipelines,
        ToolSet::Orchestration,
        ToolSet::Reviews,
        ToolSet::Plans,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ToolSet::Discovery => "discovery",
            ToolSet::Conversation => "conversation",
            ToolSet::Workspace => "workspace",
            ToolSet::Code => "code",
            ToolSet::Rigs => "rigs",
            ToolSet::Agents => "agents",
            ToolSet::Messaging => "messaging",
            ToolSet::Feeds => "feeds",
            ToolSet::Tickets => "tickets",
            ToolSet::Governance => "governance",
            ToolSet::Skills => "skills",
            ToolSet::Memory => "memory",
            ToolSet::Pipelines => "pipelines",
            ToolSet::Orchestration => "orchestration",
            ToolSet::Reviews => "reviews",
            ToolSet::Plans => "plans",
            ToolSet::Extra(name) => name,
        }
    }

    pub fn parse(s: &str) -> Option<ToolSet> {
        ToolSet::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl std::fmt::Display for ToolSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a tool takes `workspace_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Must be given; a missing, unknown or mismatching id is an error.
    Required,
    /// May be given (discovery tools use it to judge callability).
    Optional,
    /// Must not be given: the tool reads no workspace data.
    Global,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Required => "required",
            Scope::Optional => "optional",
            Scope::Global => "global",
        }
    }
}

/// What a tool may do to the world; the guardrails (`policy::GUARDRAILS`) decide per class
/// and mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub enum ActionClass {
    EnclosureControl,
    NetworkEgress,
    ProcessSpawn,
    PackageInstall,
    WorkspaceWrite,
}

impl ActionClass {
    pub const ALL: [ActionClass; 5] = [
        ActionClass::EnclosureControl,
        ActionClass::NetworkEgress,
        ActionClass::ProcessSpawn,
        ActionClass::PackageInstall,
        ActionClass::WorkspaceWrite,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ActionClass::EnclosureControl => "enclosureControl",
            ActionClass::NetworkEgress => "networkEgress",
            ActionClass::ProcessSpawn => "processSpawn",
            ActionClass::PackageInstall => "packageInstall",
            ActionClass::WorkspaceWrite => "workspaceWrite",
        }
    }
}

/// The conversation modes that may call a tool (chat may call every tool).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modes {
    /// Chat only: on no mode's allow-list.
    Chat,
    /// Every mode (the spec's "allowed in every mode" sets).
    Always,
    /// Chat and these restricted modes.
    In(&'static [Mode]),
}

impl Modes {
    pub fn allows(self, mode: Mode) -> bool {
        match self {
            Modes::Always => true,
            Modes::Chat => mode == Mode::Chat,
            Modes::In(list) => mode == Mode::Chat || list.contains(&mode),
        }
    }
}

/// The annotation hints a client sees (MCP `ToolAnnotations`); hints only: the guardrails
/// decide by the action classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hints {
    /// Changes nothing.
    pub read_only: bool,
    /// May destroy or overwrite state (only meaningful when not read-only).
    pub destructive: bool,
    /// The same call made twice has the effect of one.
    pub idempotent: bool,
    /// Reaches beyond this server and its machine (the network, other hosts).
    pub open_world: bool,
}

impl Hints {
    /// Reads only.
    pub const READ: Hints = Hints { read_only: true, destructive: false, idempotent: true, open_world: false };
    /// Adds or changes workspace data without destroying any.
    pub const WRITE: Hints = Hints { read_only: false, destructive: false, idempotent: false, open_world: false };
}

/// Everything the server knows about a tool but its code.
#[derive(Clone, Copy, Debug)]
pub struct Decl {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub set: ToolSet,
    pub scope: Scope,
    pub classes: &'static [ActionClass],
    /// Asks the confirmation port before it runs (spec: "Approval-gated tools").
    pub approval: bool,
    pub modes: Modes,
    pub hints: Hints,
}

/// A tool's failure kind: the `error` field of an error result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// An argument is wrong: `pointer` names it.
    InvalidInput,
    /// `workspace_id` is missing, unknown, foreign or superfluous.
    Workspace,
    /// What the arguments name does not exist.
    NotFound,
    /// A name matches several things: `data.candidates` lists them.
    Ambiguous,
    /// It exists, but not in a state that allows this (decided already, a stale revision).
    Conflict,
    /// The conversation's mode does not allow the tool.
    Mode,
    /// An action class of the tool is denied in this mode.
    Guardrail,
    /// An operator must approve the call first: `data.approval_id`.
    ApprovalPending,
    /// The approval was refused, or nobody can give one.
    ApprovalDenied,
    /// The call took longer than it may.
    Timeout,
    /// The caller cancelled it.
    Cancelled,
    /// The answer is larger than a result may be.
    ResultTooLarge,
    /// Something the tool needs is not there (a driver, a device, a model).
    Unavailable,
    /// A rig: an element ref from an older snapshot.
    StaleRef,
    /// A rig: no rig with that id in the workspace.
    NoRig,
    /// A rig: the pool is at its limit.
    RigLimit,
    /// A rig: navigation outside the rig's allowed origins.
    BlockedOrigin,
    /// A rig: the machine did not start.
    RigStart,
    /// A rig: the machine died (the conversation's next call replaces it).
    RigFailed,
    /// A rig: its driver (WebDriver, Docker, ADB, WebDriverAgent) failed.
    Driver,
    /// A rig: the server is shutting down.
    ShutDown,
    /// The server failed; nothing the caller did.
    Internal,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "invalid_input",
            ErrorKind::Workspace => "workspace",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Ambiguous => "ambiguous",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Mode => "mode",
            ErrorKind::Guardrail => "guardrail",
            ErrorKind::ApprovalPending => "approval_pending",
            ErrorKind::ApprovalDenied => "approval_denied",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::ResultTooLarge => "result_too_large",
            ErrorKind::Unavailable => "unavailable",
            ErrorKind::StaleRef => "stale_ref",
            ErrorKind::NoRig => "no_rig",
            ErrorKind::RigLimit => "rig_limit",
            ErrorKind::BlockedOrigin => "blocked_origin",
            ErrorKind::RigStart => "rig_start",
            ErrorKind::RigFailed => "rig_failed",
            ErrorKind::Driver => "driver",
            ErrorKind::ShutDown => "shut_down",
            ErrorKind::Internal => "internal",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for ErrorKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// A tool's failure, shown to the caller as an `isError` result.
#[derive(Debug, Clone, Serialize)]
pub struct ToolError {
    pub error: ErrorKind,
    /// JSON pointer of the argument at fault, when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
    pub message: String,
    /// Extra data (candidates of an ambiguous name, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ToolError {
    pub fn new(error: ErrorKind, message: impl Into<String>) -> ToolError {
        ToolError { error, pointer: None, message: message.into(), data: None }
    }
    pub fn invalid(pointer: &str, message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::InvalidInput, message).at(pointer)
    }
    pub fn workspace(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Workspace, message).at("/workspace_id")
    }
    pub fn not_found(pointer: &str, message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::NotFound, message).at(pointer)
    }
    pub fn internal(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Internal, message)
    }
    pub fn cancelled() -> ToolError {
        ToolError::new(ErrorKind::Cancelled, "the call was cancelled")
    }
    /// The argument at fault.
    pub fn at(mut self, pointer: &str) -> ToolError {
        self.pointer = Some(pointer.to_string());
        self
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

/// A graph that cannot be read (a damaged `graph.map`): the server's fault, not the caller's.
impl From<cc_graph::Error> for ToolError {
    fn from(e: cc_graph::Error) -> Self {
        ToolError::internal(e.to_string())
    }
}

impl From<crate::store::StoreError> for ToolError {
    fn from(e: crate::store::StoreError) -> Self {
        use crate::store::StoreError as S;
        let kind = match &e {
            S::NotFound { .. } => ErrorKind::NotFound,
            S::Conflict(_) => ErrorKind::Conflict,
            S::Invalid(_) => ErrorKind::InvalidInput,
            S::Refused { gate, data, .. } => {
                let mut data = data.clone();
                if let Some(o) = data.as_object_mut() {
                    o.insert("gate".into(), Value::from(*gate));
                }
                return ToolError::new(ErrorKind::Conflict, e.to_string()).with_data(data);
            }
            S::Backend { .. } | S::Migrate { .. } | S::Url(_) => ErrorKind::Internal,
        };
        ToolError::new(kind, e.to_string())
    }
}

/// Progress of a long call, sent as MCP progress notifications when the client asked.
pub type ProgressFn = Arc<dyn Fn(f64, Option<f64>, Option<String>) + Send + Sync>;

/// What a call carries besides its workspace, shared by the typed and the raw context.
pub struct CallState {
    /// The arguments as the client sent them, without workspace_id.
    pub arguments: Value,
    pub progress: Option<ProgressFn>,
    /// The client, for server-to-client requests (elicitation, sampling, logging).
    pub peer: Option<rmcp::Peer<rmcp::RoleServer>>,
    /// The client declared elicitation and its protocol has server-to-client requests.
    pub can_elicit: bool,
    /// Content blocks besides the typed JSON (an image, a resource link): [`Ctx::attach`].
    attachments: Mutex<Vec<rmcp::model::ContentBlock>>,
    /// The tools, for the discovery tools.
    pub catalog: Arc<Registry>,
}

impl CallState {
    pub fn new(
        arguments: Value,
        progress: Option<ProgressFn>,
        peer: Option<rmcp::Peer<rmcp::RoleServer>>,
        can_elicit: bool,
        catalog: Arc<Registry>,
    ) -> CallState {
        CallState { arguments, progress, peer, can_elicit, attachments: Mutex::new(Vec::new()), catalog }
    }

    pub(crate) fn take_attachments(&self) -> Vec<rmcp::model::ContentBlock> {
        std::mem::take(&mut *self.attachments.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

/// What a handler knows about its call: the checked workspace (`W`, see the module doc),
/// who calls, in which conversation, the services it may use, and the call's mechanics.
pub struct Ctx<W = ()> {
    pub workspace: W,
    /// The tool being called.
    pub tool: &'static str,
    pub conversation: Arc<Conversation>,
    pub principal: Principal,
    pub services: Arc<Services>,
    /// The tools this conversation is served.
    pub surface: Surface,
    pub cancel: CancellationToken,
    pub call: Arc<CallState>,
}

impl<W: Clone> Clone for Ctx<W> {
    fn clone(&self) -> Self {
        Ctx {
            workspace: self.workspace.clone(),
            tool: self.tool,
            conversation: self.conversation.clone(),
            principal: self.principal.clone(),
            services: self.services.clone(),
            surface: self.surface.clone(),
            cancel: self.cancel.clone(),
            call: self.call.clone(),
        }
    }
}

impl<W> Ctx<W> {
    /// Adds a content block to the result, after the typed JSON (one image at most, by
    /// the rigs' rule).
    pub fn attach(&self, block: rmcp::model::ContentBlock) {
        self.call.attachments.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(block);
    }

    /// The arguments as the client sent them (without workspace_id).
    pub fn arguments(&self) -> &Value {
        &self.call.arguments
    }

    /// Reports progress when the client asked for it.
    pub fn progress(&self, done: f64, total: Option<f64>, message: Option<String>) {
        if let Some(p) = &self.call.progress {
            p(done, total, message);
        }
    }

    /// The workspace the call acts in, when it has one.
    pub fn workspace_id(&self) -> Option<&str>
    where
        W: ScopeKind,
    {
        self.workspace.id()
    }

    /// Asks the confirmation port to approve this call (`arguments` as the client sent
    /// them); `Ok(())` when it may go on.
    pub async fn confirm(&self, arguments: &Value, why: String) -> Result<(), ToolError>
    where
        W: ScopeKind,
    {
        let payload = super::approvals::ApprovalPayload {
            tool: self.tool.to_string(),
            arguments: arguments.clone(),
            workspace: self.workspace_id().map(str::to_string),
            conversation: self.conversation.id.clone(),
            principal: self.principal.name.to_string(),
            why,
        };
        let who = super::approvals::Approvers { elicit: self.call.peer.as_ref().filter(|_| self.call.can_elicit) };
        let workspace = payload.workspace.clone();
        let r = super::approvals::confirm(&self.services.store, &self.services.policy.approvals, payload, who).await;
        // A call waiting in the operator's queue: the console shows it as it comes.
        if let Some(e) = r.as_ref().err().filter(|e| e.error == ErrorKind::ApprovalPending) {
            if let Some(id) = e.data.as_ref().and_then(|d| d.get("approval_id")).and_then(|v| v.as_str()) {
                let event = crate::bus::Event::Approval {
                    workspace_id: workspace,
                    approval_id: id.to_string(),
                    board: false,
                    status: "pending".into(),
                };
                self.services.bus.publish(&self.services.store, event).await;
            }
        }
        r
    }

    /// The same call with another workspace type (the dispatcher's step from the raw context).
    fn with_workspace<V>(self, workspace: V) -> Ctx<V> {
        Ctx {
            workspace,
            tool: self.tool,
            conversation: self.conversation,
            principal: self.principal,
            services: self.services,
            surface: self.surface,
            cancel: self.cancel,
            call: self.call,
        }
    }
}

/// The workspace a handler's context holds, by scope: `String` (required), `Option<String>`
/// (optional), `()` (global).
pub trait ScopeKind: Sized + Send + Sync + 'static {
    const SCOPE: Scope;
    /// From the dispatcher's checked workspace; `None` when the scope needs one it lacks.
    fn from_checked(workspace: Option<String>) -> Option<Self>;
    fn id(&self) -> Option<&str>;
}

impl ScopeKind for String {
    const SCOPE: Scope = Scope::Required;
    fn from_checked(workspace: Option<String>) -> Option<Self> {
        workspace
    }
    fn id(&self) -> Option<&str> {
        Some(self)
    }
}

impl ScopeKind for Option<String> {
    const SCOPE: Scope = Scope::Optional;
    fn from_checked(workspace: Option<String>) -> Option<Self> {
        Some(workspace)
    }
    fn id(&self) -> Option<&str> {
        self.as_deref()
    }
}

impl ScopeKind for () {
    const SCOPE: Scope = Scope::Global;
    fn from_checked(workspace: Option<String>) -> Option<Self> {
        workspace.is_none().then_some(())
    }
    fn id(&self) -> Option<&str> {
        None
    }
}

/// A tool's result: the JSON that becomes `structuredContent` (and its text) — `null` for
/// content blocks only — plus its content blocks.
pub struct Output {
    pub value: Value,
    pub extra: Vec<rmcp::model::ContentBlock>,
}

impl Output {
    pub fn json(value: Value) -> Output {
        Output { value, extra: Vec::new() }
    }
}

pub type HandlerFuture = Pin<Box<dyn Future<Output = Result<Output, ToolError>> + Send>>;
/// A type-erased handler: the raw context (its workspace as checked), the arguments.
pub type Handler = Arc<dyn Fn(Ctx<Option<String>>, Value) -> HandlerFuture + Send + Sync>;

/// One registered tool: its declaration, its schemas, its handler.
#[derive(Clone)]
pub struct ToolDef {
    pub decl: Decl,
    pub input_schema: Map<String, Value>,
    /// Empty: the tool answers with content blocks only (no `outputSchema`).
    pub output_schema: Map<String, Value>,
    pub handler: Handler,
}

impl ToolDef {
    pub fn name(&self) -> &'static str {
        self.decl.name
    }
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef").field("name", &self.decl.name).finish_non_exhaustive()
    }
}

/// Tools that would run caller-supplied code. Never served, under any flag; calling one
/// answers "unknown tool". (None is registered; this is the gate if one ever is.)
pub const NEVER_SERVED: &[&str] = &["run_script", "execute_command", "eval_javascript"];

/// Every tool, by name.
#[derive(Default, Clone)]
pub struct Registry {
    tools: BTreeMap<&'static str, ToolDef>,
}

impl Registry {
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds a tool: `f` is its named async handler; its input and output schemas are
    /// generated from its argument and result types, so they cannot drift from the code.
    pub fn add<W, A, R, F, Fut>(&mut self, decl: Decl, f: F)
    where
        W: ScopeKind,
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: Serialize + JsonSchema + 'static,
        F: Fn(Ctx<W>, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ToolError>> + Send + 'static,
    {
        assert_eq!(
            decl.scope,
            W::SCOPE,
            "{}: declared workspace scope {:?}, but its handler takes the context of scope {:?}",
            decl.name,
            decl.scope,
            W::SCOPE
        );
        let f = Arc::new(f);
        let handler: Handler = Arc::new(move |ctx: Ctx<Option<String>>, args: Value| {
            let f = f.clone();
            Box::pin(async move {
                let ws = ctx.workspace.clone();
                let Some(w) = W::from_checked(ws) else {
                    return Err(ToolError::workspace(format!("/workspace_id: required by {}", ctx.tool)));
                };
                let a: A = from_args(args)?;
                let state = ctx.call.clone();
                let r = f(ctx.with_workspace(w), a).await?;
                let value = serde_json::to_value(r).map_err(|e| ToolError::internal(e.to_string()))?;
                Ok(Output { value, extra: state.take_attachments() })
            })
        });
        self.add_raw(decl, schema_of::<A>(), schema_of::<R>(), handler);
    }

    /// Adds a tool with hand-written schemas and a raw handler: for tools whose surface is
    /// data (the conformance fixtures, bridged servers). Its scope's `workspace_id` is added
    /// to the input schema here, as for typed tools.
    pub fn add_raw(&mut self, decl: Decl, input: Map<String, Value>, output: Map<String, Value>, handler: Handler) {
        assert!(!self.tools.contains_key(decl.name), "tool {} registered twice", decl.name);
        assert!(!NEVER_SERVED.contains(&decl.name), "tool {} runs caller code: never registered", decl.name);
        let mut input = input;
        if decl.scope != Scope::Global {
            add_workspace_property(&mut input, decl.scope == Scope::Required);
        }
        self.tools.insert(decl.name, ToolDef { decl, input_schema: input, output_schema: output, handler });
    }

    pub fn get(&self, name: &str) -> Option<&ToolDef> {
        self.tools.get(name)
    }

    /// Every tool, by name.
    pub fn all(&self) -> impl Iterator<Item = &ToolDef> {
        self.tools.values()
    }
}

/// A tool's arguments as `A`; a value that does not fit names the JSON pointer of the field
/// at fault (the input schema catches most first; this is what it cannot say).
pub fn from_args<A: DeserializeOwned>(args: Value) -> Result<A, ToolError> {
    serde_path_to_error::deserialize(args).map_err(|e| {
        let mut pointer = String::new();
        for seg in e.path().iter() {
            use serde_path_to_error::Segment;
            match seg {
                Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
                Segment::Map { key } => pointer.push_str(&format!("/{}", key.replace('~', "~0").replace('/', "~1"))),
                Segment::Enum { .. } | Segment::Unknown => {}
            }
        }
        let shown = if pointer.is_empty() { "/".to_string() } else { pointer.clone() };
        ToolError::invalid(&shown, format!("{shown}: {}", e.inner()))
    })
}

/// Rewrites schemars' non-standard number formats (`uint32`, `int64`, `double`, …) as
/// standard JSON Schema: integer formats become `minimum` / `maximum` bounds (so a value
/// out of a field's range is refused with that field's pointer), float formats go.
pub fn standard_formats(v: &mut Value) {
    match v {
        Value::Object(o) => {
            let bounds: Option<(i128, u128)> = match o.get("format").and_then(Value::as_str) {
                Some("uint8") => Some((0, u8::MAX as u128)),
                Some("uint16") => Some((0, u16::MAX as u128)),
                Some("uint32") => Some((0, u32::MAX as u128)),
                Some("uint64" | "uint" | "usize") => Some((0, u64::MAX as u128)),
                Some("int8") => Some((i8::MIN as i128, i8::MAX as u128)),
                Some("int16") => Some((i16::MIN as i128, i16::MAX as u128)),
                Some("int32") => Some((i32::MIN as i128, i32::MAX as u128)),
                Some("int64" | "int" | "isize") => Some((i64::MIN as i128, i64::MAX as u128)),
                _ => None,
            };
            if let Some((min, max)) = bounds {
                o.remove("format");
                o.entry("minimum").or_insert_with(|| serde_json::json!(min as i64));
                if !o.contains_key("maximum") {
                    let max = if max > u64::MAX as u128 { u64::MAX } else { max as u64 };
                    o.insert("maximum".into(), serde_json::json!(max));
                }
            } else if matches!(o.get("format").and_then(Value::as_str), Some("float" | "double")) {
                o.remove("format");
            }
            for x in o.values_mut() {
                standard_formats(x);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(standard_formats),
        _ => {}
    }
}

/// The JSON Schema of `T` as an object, inlined (no `$ref`s), draft 2020-12, in standard
/// formats only ([`standard_formats`]).
pub fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut v = serde_json::to_value(schema).expect("schema serializes");
    standard_formats(&mut v);
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
        if !o.contains_key("type") {
            o.insert("type".into(), Value::String("object".into()));
        }
        if !o.contains_key("properties") && o.get("type") == Some(&Value::String("object".into())) {
            o.insert("properties".into(), Value::Object(Map::new()));
        }
    }
    match v {
        Value::Object(o) => o,
        _ => unreachable!("a root schema is an object"),
    }
}

fn add_workspace_property(schema: &mut Map<String, Value>, required: bool) {
    let props = schema.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    if let Some(p) = props.as_object_mut() {
        p.insert(
            "workspace_id".into(),
            serde_json::json!({
                "type": "string",
                "minLength": 1,
                "description": "The workspace this call acts in (see list_workspaces)."
            }),
        );
    }
    if required {
        let req = schema.entry("required").or_insert_with(|| Value::Array(vec![]));
        if let Some(r) = req.as_array_mut() {
            r.insert(0, Value::String("workspace_id".into()));
        }
    }
}

/// Arguments of a tool that takes none (besides workspace_id).
#[derive(serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}
