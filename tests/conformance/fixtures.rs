//! The MCP conformance suite's fixtures (`--tools conformance`): tools, resources and
//! prompts with the fixed names `@modelcontextprotocol/conformance` calls, as an
//! [`Extension`] of the server. Not in the product: the test binary `cc-server-conformance`
//! (tests/conformance/server.rs) is the product's command line with this extension, and
//! serves the set only when it is named.
//!
//! What each fixture returns follows the suite's scenario texts and its reference
//! "everything server" (conformance repo `examples/servers/typescript/everything-server.ts`;
//! rust-sdk `conformance/src/bin/server.rs`). Tools answer with content blocks only
//! (`Output.value` is `null`: no `structuredContent`, no output schema), as the
//! reference does. `tests/conformance/run.sh` runs the suite against these.
//!
//! Logging, sampling and elicitation are deprecated in rmcp (SEP-2577) but are what the
//! 2025-11-25 suite exercises, hence the module-wide `allow(deprecated)`.
#![allow(deprecated)]

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock, CreateMessageRequestParams,
    ElicitRequestParams, ElicitationSchema, GetPromptResult, JsonObject, LoggingLevel, LoggingMessageNotificationParam,
    Prompt, PromptArgument, PromptMessage, ReadResourceResult, Reference, Resource, ResourceContents, ResourceTemplate,
    Role, SamplingMessage,
};
use rmcp::ErrorData;
use serde_json::{json, Map, Value};

use cc_server::mcp::extension::{Extension, SessionState as ExtSession};
use cc_server::mcp::surface::{ExtraSet, Surface};
use cc_server::mcp::tool::{
    ActionClass, Ctx, Decl, ErrorKind, Handler, Hints, Modes, Output, Registry, Scope, ToolError, ToolSet,
};

/// The fixtures' tool set.
pub const SET: ToolSet = ToolSet::Extra("conformance");

/// The conformance fixtures, as an extension of the server.
pub struct Fixtures;

impl Extension for Fixtures {
    fn sets(&self) -> Vec<ExtraSet> {
        vec![ExtraSet { name: SET.as_str(), explicit_only: true }]
    }

    fn register(&self, registry: &mut Registry) {
        register(registry);
    }

    fn active(&self, surface: &Surface) -> bool {
        surface.has(SET.as_str())
    }

    fn open_session(&self, conversation: &str) -> Option<ExtSession> {
        Some(SessionGuard::start(conversation))
    }

    fn prompts(&self) -> Vec<Prompt> {
        prompts()
    }

    fn get_prompt(&self, name: &str, arguments: Option<&JsonObject>) -> Result<GetPromptResult, ErrorData> {
        get_prompt(name, arguments)
    }

    fn complete(&self, request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
        complete(request)
    }

    fn set_level(&self, conversation: &str, level: LoggingLevel) {
        set_level(conversation, level)
    }

    fn subscribe(&self, conversation: &str, uri: &str) -> Result<(), ErrorData> {
        subscribe(conversation, uri)
    }

    fn unsubscribe(&self, conversation: &str, uri: &str) -> Result<(), ErrorData> {
        unsubscribe(conversation, uri)
    }

    fn resources(&self) -> Vec<Resource> {
        resources()
    }

    fn resource_templates(&self) -> Vec<ResourceTemplate> {
        resource_templates()
    }

    fn read(&self, uri: &str) -> Option<Result<ReadResourceResult, ErrorData>> {
        uri.starts_with("test://").then(|| read(uri))
    }
}

type CallCtx = Ctx<Option<String>>;

fn decl(name: &'static str, title: &'static str, description: &'static str) -> Decl {
    Decl {
        name,
        title,
        description,
        set: SET,
        scope: Scope::Global,
        classes: &[],
        approval: false,
        modes: Modes::Chat,
        hints: Hints::READ,
    }
}

/// A 1x1 red PNG (the reference server's).
pub const TEST_IMAGE_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV file: PCM 8 kHz mono 16-bit, one sample of silence. (The reference
/// server's declares two data bytes it does not hold, and a wrong byte rate.)
pub const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

const TEMPLATE: &str = "test://template/{id}/data";
const WATCHED: &str = "test://watched-resource";

// ---------------------------------------------------------------- tools

/// Registers one fixture tool: global, read-only, answering with content blocks.
fn tool<F, Fut>(r: &mut Registry, name: &'static str, description: &'static str, input: Value, f: F)
where
    F: Fn(CallCtx, Map<String, Value>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<ContentBlock>, ToolError>> + Send + 'static,
{
    let f = Arc::new(f);
    let handler: Handler = Arc::new(move |ctx: CallCtx, args: Value| {
        let f = f.clone();
        Box::pin(async move {
            let args = match args {
                Value::Object(o) => o,
                _ => Map::new(),
            };
            let content = f(ctx, args).await?;
            Ok(Output { value: Value::Null, extra: content })
        })
    });
    let Value::Object(input) = input else { unreachable!("fixture input schemas are objects") };
    r.add_raw(decl(name, name, description), input, Map::new(), handler);
}

fn no_args() -> Value {
    json!({ "type": "object", "properties": {} })
}

fn one_string(name: &str, description: &str) -> Value {
    json!({
        "type": "object",
        "properties": { name: { "type": "string", "description": description } },
        "required": [name]
    })
}

fn text_resource(uri: &str, mime: &str, text: &str) -> ContentBlock {
    ContentBlock::resource(ResourceContents::TextResourceContents {
        uri: uri.into(),
        mime_type: Some(mime.into()),
        text: text.into(),
        meta: None,
    })
}

fn fixture_error(message: impl Into<String>) -> ToolError {
    ToolError::new(ErrorKind::Internal, message)
}

fn str_arg(args: &Map<String, Value>, name: &str) -> String {
    args.get(name).and_then(Value::as_str).unwrap_or_default().to_string()
}

async fn sleep_ms(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

/// The client, and whether it declared a capability (`None`: unknown, e.g. a session
/// without an initialize handshake; the request is tried and its error reported).
fn peer(ctx: &CallCtx, capability: &str) -> Result<rmcp::Peer<rmcp::RoleServer>, ToolError> {
    let peer = ctx.call.peer.clone().ok_or_else(|| fixture_error("no client to send a request to"))?;
    if let Some(info) = peer.peer_info() {
        let declared = match capability {
            "sampling" => info.capabilities.sampling.is_some(),
            "elicitation" => info.capabilities.elicitation.is_some(),
            _ => true,
        };
        if !declared {
            return Err(fixture_error(format!("the client did not declare the {capability} capability")));
        }
    }
    Ok(peer)
}

/// Sends `elicitation/create` with a form schema and describes the answer.
async fn elicit(ctx: &CallCtx, message: &str, schema: Value, answer_prefix: &str) -> Result<String, ToolError> {
    let peer = peer(ctx, "elicitation")?;
    let requested_schema: ElicitationSchema =
        serde_json::from_value(schema).map_err(|e| ToolError::internal(format!("elicitation schema: {e}")))?;
    let params = ElicitRequestParams::FormElicitationParams { meta: None, message: message.into(), requested_schema };
    let result =
        peer.create_elicitation(params).await.map_err(|e| fixture_error(format!("elicitation failed: {e}")))?;
    let action = serde_json::to_value(result.action).ok().and_then(|v| v.as_str().map(str::to_string));
    let content = result.content.unwrap_or_else(|| json!({}));
    Ok(format!("{answer_prefix}: action={}, content={content}", action.unwrap_or_default()))
}

/// The schema `test_elicitation` asks for (the scenario's text).
pub fn elicitation_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "username": { "type": "string", "description": "User's response" },
            "email": { "type": "string", "description": "User's email address" }
        },
        "required": ["username", "email"]
    })
}

/// SEP-1034: a default for every primitive type.
pub fn sep1034_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "description": "User name", "default": "John Doe" },
            "age": { "type": "integer", "description": "User age", "default": 30 },
            "score": { "type": "number", "description": "User score", "default": 95.5 },
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": { "type": "boolean", "description": "Verification status", "default": true }
        },
        "required": []
    })
}

/// SEP-1330: the five enum shapes.
pub fn sep1330_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": [
                    { "const": "value1", "title": "First Option" },
                    { "const": "value2", "title": "Second Option" },
                    { "const": "value3", "title": "Third Option" }
                ]
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] }
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "anyOf": [
                        { "const": "value1", "title": "First Choice" },
                        { "const": "value2", "title": "Second Choice" },
                        { "const": "value3", "title": "Third Choice" }
                    ]
                }
            }
        },
        "required": []
    })
}

/// SEP-1613: an input schema using JSON Schema 2020-12 keywords, served verbatim.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" }
        },
        "additionalProperties": false
    })
}

pub fn register(r: &mut Registry) {
    tool(r, "test_simple_text", "Tests simple text content response", no_args(), |_, _| async {
        Ok(vec![ContentBlock::text("This is a simple text response for testing.")])
    });
    tool(r, "test_image_content", "Tests image content response", no_args(), |_, _| async {
        Ok(vec![ContentBlock::image(TEST_IMAGE_BASE64, "image/png")])
    });
    tool(r, "test_audio_content", "Tests audio content response", no_args(), |_, _| async {
        Ok(vec![ContentBlock::audio(TEST_AUDIO_BASE64, "audio/wav")])
    });
    tool(r, "test_embedded_resource", "Tests embedded resource content response", no_args(), |_, _| async {
        Ok(vec![text_resource("test://embedded-resource", "text/plain", "This is an embedded resource content.")])
    });
    tool(
        r,
        "test_multiple_content_types",
        "Tests response with multiple content types (text, image, resource)",
        no_args(),
        |_, _| async {
            Ok(vec![
                ContentBlock::text("Multiple content types test:"),
                ContentBlock::image(TEST_IMAGE_BASE64, "image/png"),
                text_resource("test://mixed-content-resource", "application/json", r#"{"test":"data","value":123}"#),
            ])
        },
    );
    tool(
        r,
        "test_tool_with_logging",
        "Tests tool that emits log messages during execution",
        no_args(),
        |ctx, _| async move {
            let peer = ctx.call.peer.clone().ok_or_else(|| fixture_error("no client to log to"))?;
            let steps = ["Tool execution started", "Tool processing data", "Tool execution completed"];
            for (i, message) in steps.into_iter().enumerate() {
                if i > 0 {
                    sleep_ms(50).await;
                }
                if enabled(&ctx.conversation.id, LoggingLevel::Info) {
                    let p = LoggingMessageNotificationParam::new(LoggingLevel::Info, json!(message))
                        .with_logger("cc-server-conformance");
                    peer.notify_logging_message(p).await.map_err(|e| fixture_error(format!("logging: {e}")))?;
                }
            }
            Ok(vec![ContentBlock::text("Tool with logging executed successfully")])
        },
    );
    tool(
        r,
        "test_tool_with_progress",
        "Tests tool that reports progress notifications",
        no_args(),
        |ctx, _| async move {
            for step in [0.0, 50.0, 100.0] {
                ctx.progress(step, Some(100.0), Some(format!("Completed step {step} of 100")));
                // Also lets the last notification (sent from a spawned task) leave before
                // the result, after which the client drops progress for this request.
                sleep_ms(50).await;
            }
            Ok(vec![ContentBlock::text("Tool with progress executed successfully")])
        },
    );
    tool(r, "test_error_handling", "Tests error response handling", no_args(), |_, _| async {
        Err(fixture_error("This tool intentionally returns an error for testing"))
    });
    tool(
        r,
        "test_reconnection",
        "Tests SSE stream disconnection and client reconnection (SEP-1699): answers after a short delay (this server does not close the stream mid-call)",
        no_args(),
        |_, _| async {
            sleep_ms(100).await;
            Ok(vec![ContentBlock::text("Reconnection test completed successfully.")])
        },
    );
    tool(
        r,
        "test_sampling",
        "Tests server-initiated sampling (LLM completion request)",
        one_string("prompt", "The prompt to send to the LLM"),
        |ctx, args| async move {
            let peer = peer(&ctx, "sampling")?;
            let params =
                CreateMessageRequestParams::new(vec![SamplingMessage::user_text(str_arg(&args, "prompt"))], 100);
            let result =
                peer.create_message(params).await.map_err(|e| fixture_error(format!("sampling failed: {e}")))?;
            let text = result
                .message
                .content
                .first()
                .and_then(|c| c.as_text())
                .map(|t| t.text.clone())
                .unwrap_or_else(|| "No response".into());
            Ok(vec![ContentBlock::text(format!("LLM response: {text}"))])
        },
    );
    tool(
        r,
        "test_elicitation",
        "Tests server-initiated elicitation (user input request)",
        one_string("message", "The message to show the user"),
        |ctx, args| async move {
            let text = elicit(&ctx, &str_arg(&args, "message"), elicitation_schema(), "User response").await?;
            Ok(vec![ContentBlock::text(text)])
        },
    );
    tool(
        r,
        "test_elicitation_sep1034_defaults",
        "Tests elicitation with default values per SEP-1034",
        no_args(),
        |ctx, _| async move {
            let message = "Please review and update the form fields with defaults";
            let text = elicit(&ctx, message, sep1034_schema(), "Elicitation completed").await?;
            Ok(vec![ContentBlock::text(text)])
        },
    );
    tool(
        r,
        "test_elicitation_sep1330_enums",
        "Tests elicitation with enum schema improvements per SEP-1330",
        no_args(),
        |ctx, _| async move {
            let message = "Please select options from the enum fields";
            let text = elicit(&ctx, message, sep1330_schema(), "Elicitation completed").await?;
            Ok(vec![ContentBlock::text(text)])
        },
    );
    tool(
        r,
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
        json_schema_2020_12(),
        |_, args| async move {
            Ok(vec![ContentBlock::text(format!("JSON Schema 2020-12 tool called with: {}", Value::Object(args)))])
        },
    );
    register_policy_fixtures(r);
}

// ---------------------------------------------------------------- policy fixtures

/// Counters of the policy fixtures, by key: a call that ran is one that counted.
static COUNTERS: LazyLock<Mutex<HashMap<String, u64>>> = LazyLock::new(Default::default);

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CounterArgs {
    /// Which counter to add one to.
    #[schemars(length(min = 1, max = 200))]
    pub key: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct CounterOut {
    pub key: String,
    /// The counter after this call: how many calls with this key have run.
    pub count: u64,
}

async fn approval_counter(_: Ctx<()>, a: CounterArgs) -> Result<CounterOut, ToolError> {
    Ok(count(a.key))
}

async fn action_class_prompt(_: Ctx<()>, a: CounterArgs) -> Result<CounterOut, ToolError> {
    Ok(count(a.key))
}

fn count(key: String) -> CounterOut {
    let mut c = COUNTERS.lock().unwrap_or_else(|e| e.into_inner());
    let n = c.entry(key.clone()).or_default();
    *n += 1;
    CounterOut { key, count: *n }
}

/// Fixtures of the policy tests: a tool that requires approval (on `APPROVALS`) and one
/// that declares an action class the guardrails prompt for in chat. Each adds one to a
/// named counter, so a test sees whether a call ran.
fn register_policy_fixtures(r: &mut Registry) {
    r.add(
        Decl {
            approval: true,
            hints: Hints::WRITE,
            ..decl(
                "test_approval_counter",
                "Approval-gated counter (test fixture)",
                "Adds one to a named counter and returns it; requires an approval before it runs (a fixture of the approval tests).",
            )
        },
        approval_counter,
    );
    r.add(
        Decl {
            classes: &[ActionClass::PackageInstall],
            hints: Hints { read_only: false, destructive: true, idempotent: false, open_world: true },
            ..decl(
                "test_action_class_prompt",
                "Guardrail-prompted counter (test fixture)",
                "Adds one to a named counter and returns it; declares the packageInstall action class, which chat mode allows only when confirmed and read-only modes deny (a fixture of the guardrail tests; installs nothing).",
            )
        },
        action_class_prompt,
    );
}

// ---------------------------------------------------------------- per-session state

/// What a session set: its logging level and the resources it subscribed to.
#[derive(Default, Debug)]
struct SessionState {
    level: Option<LoggingLevel>,
    subscriptions: BTreeSet<String>,
}

/// Keyed by conversation (one per MCP session); an entry lives as long as the
/// session's [`SessionGuard`].
static SESSIONS: LazyLock<Mutex<HashMap<String, SessionState>>> = LazyLock::new(Default::default);

/// Runs `f` on a live session's state; `None` when the session has no guard (it ended).
fn with_session<R>(conversation: &str, f: impl FnOnce(&mut SessionState) -> R) -> Option<R> {
    let mut sessions = SESSIONS.lock().unwrap_or_else(|e| e.into_inner());
    sessions.get_mut(conversation).map(f)
}

/// Held by a session serving the conformance set; dropping it forgets the session's state.
#[derive(Debug)]
pub struct SessionGuard {
    conversation: String,
}

impl SessionGuard {
    pub fn start(conversation: &str) -> ExtSession {
        Arc::new(Self::open(conversation))
    }

    fn open(conversation: &str) -> SessionGuard {
        SESSIONS.lock().unwrap_or_else(|e| e.into_inner()).insert(conversation.to_string(), SessionState::default());
        SessionGuard { conversation: conversation.to_string() }
    }
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        SESSIONS.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.conversation);
    }
}

fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// Whether a message at `level` reaches the client: at or above the level it set
/// (`logging/setLevel`); everything until it sets one.
pub fn enabled(conversation: &str, level: LoggingLevel) -> bool {
    let min = with_session(conversation, |s| s.level).flatten();
    min.is_none_or(|min| severity(level) >= severity(min))
}

/// `logging/setLevel`.
pub fn set_level(conversation: &str, level: LoggingLevel) {
    with_session(conversation, |s| s.level = Some(level));
}

/// `resources/subscribe`: known `test://` resources only.
pub fn subscribe(conversation: &str, uri: &str) -> Result<(), ErrorData> {
    read(uri)?;
    with_session(conversation, |s| s.subscriptions.insert(uri.to_string()));
    Ok(())
}

/// `resources/unsubscribe`: idempotent.
pub fn unsubscribe(conversation: &str, uri: &str) -> Result<(), ErrorData> {
    with_session(conversation, |s| s.subscriptions.remove(uri));
    Ok(())
}

/// The URIs a session is subscribed to.
pub fn subscriptions(conversation: &str) -> Vec<String> {
    with_session(conversation, |s| s.subscriptions.iter().cloned().collect()).unwrap_or_default()
}

// ---------------------------------------------------------------- resources

pub fn resource_templates() -> Vec<ResourceTemplate> {
    vec![ResourceTemplate::new(TEMPLATE, "template")
        .with_title("Resource Template")
        .with_description("A resource template with parameter substitution")
        .with_mime_type("application/json")]
}

pub fn resources() -> Vec<Resource> {
    vec![
        Resource::new("test://static-text", "static-text")
            .with_title("Static Text Resource")
            .with_description("A static text resource for testing")
            .with_mime_type("text/plain"),
        Resource::new("test://static-binary", "static-binary")
            .with_title("Static Binary Resource")
            .with_description("A static binary resource (image) for testing")
            .with_mime_type("image/png"),
        Resource::new(WATCHED, "watched-resource")
            .with_title("Watched Resource")
            .with_description("A resource clients may subscribe to")
            .with_mime_type("text/plain"),
    ]
}

/// The `{id}` of `test://template/{id}/data`: one non-empty segment. A hand split,
/// linear in the URI's length.
pub fn template_id(uri: &str) -> Option<&str> {
    let id = uri.strip_prefix("test://template/")?.strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

pub fn read(uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let text = |mime: &str, text: String| {
        ReadResourceResult::new(vec![ResourceContents::text(text, uri).with_mime_type(mime)])
    };
    match uri {
        "test://static-text" => Ok(text("text/plain", "This is the content of the static text resource.".into())),
        "test://static-binary" => {
            Ok(ReadResourceResult::new(
                vec![ResourceContents::blob(TEST_IMAGE_BASE64, uri).with_mime_type("image/png")],
            ))
        }
        WATCHED => Ok(text("text/plain", "Watched resource content".into())),
        _ => match template_id(uri) {
            Some(id) => {
                let body = json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
                Ok(text("application/json", body.to_string()))
            }
            None => Err(ErrorData::resource_not_found(
                format!("no conformance resource {uri}"),
                Some(json!({ "uri": uri })),
            )),
        },
    }
}

// ---------------------------------------------------------------- prompts

pub fn prompts() -> Vec<Prompt> {
    let arg =
        |name: &str, description: &str| PromptArgument::new(name).with_description(description).with_required(true);
    vec![
        Prompt::new("test_simple_prompt", Some("A simple prompt without arguments"), None)
            .with_title("Simple Test Prompt"),
        Prompt::new(
            "test_prompt_with_arguments",
            Some("A prompt with required arguments"),
            Some(vec![arg("arg1", "First test argument"), arg("arg2", "Second test argument")]),
        )
        .with_title("Prompt With Arguments"),
        Prompt::new(
            "test_prompt_with_embedded_resource",
            Some("A prompt that includes an embedded resource"),
            Some(vec![arg("resourceUri", "URI of the resource to embed")]),
        )
        .with_title("Prompt With Embedded Resource"),
        Prompt::new("test_prompt_with_image", Some("A prompt that includes image content"), None)
            .with_title("Prompt With Image"),
    ]
}

/// `prompts/get`: an unknown prompt or a missing required argument is -32602.
pub fn get_prompt(name: &str, arguments: Option<&JsonObject>) -> Result<GetPromptResult, ErrorData> {
    let prompt = prompts()
        .into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| ErrorData::invalid_params(format!("unknown prompt: {name}"), Some(json!({ "name": name }))))?;
    let empty = JsonObject::new();
    let args = arguments.unwrap_or(&empty);
    let mut values = HashMap::new();
    for a in prompt.arguments.iter().flatten() {
        match args.get(&a.name) {
            Some(Value::String(s)) => {
                values.insert(a.name.as_str(), s.clone());
            }
            Some(_) => {
                return Err(ErrorData::invalid_params(
                    format!("argument '{}' of {name} must be a string", a.name),
                    None,
                ))
            }
            None if a.required == Some(true) => {
                return Err(ErrorData::invalid_params(
                    format!("missing required argument '{}' of {name}", a.name),
                    None,
                ))
            }
            None => {}
        }
    }
    let messages = match name {
        "test_simple_prompt" => vec![PromptMessage::new_text(Role::User, "This is a simple prompt for testing.")],
        "test_prompt_with_arguments" => vec![PromptMessage::new_text(
            Role::User,
            format!("Prompt with arguments: arg1='{}', arg2='{}'", values["arg1"], values["arg2"]),
        )],
        "test_prompt_with_embedded_resource" => vec![
            PromptMessage::new(
                Role::User,
                text_resource(&values["resourceUri"], "text/plain", "Embedded resource content for testing."),
            ),
            PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
        ],
        "test_prompt_with_image" => vec![
            PromptMessage::new(Role::User, ContentBlock::image(TEST_IMAGE_BASE64, "image/png")),
            PromptMessage::new_text(Role::User, "Please analyze the image above."),
        ],
        _ => unreachable!("every listed prompt has messages"),
    };
    let mut result = GetPromptResult::new(messages);
    result.description = prompt.description;
    Ok(result)
}

// ---------------------------------------------------------------- completion

/// The values offered for a prompt argument or a template variable.
fn candidates(reference: &Reference, argument: &str) -> Option<&'static [&'static str]> {
    match (reference, argument) {
        (Reference::Prompt(p), "arg1") if p.name == "test_prompt_with_arguments" => {
            Some(&["hello", "help", "paris", "park", "party", "test", "testValue1"])
        }
        (Reference::Prompt(p), "arg2") if p.name == "test_prompt_with_arguments" => {
            Some(&["test", "testValue2", "word", "world"])
        }
        (Reference::Prompt(p), "resourceUri") if p.name == "test_prompt_with_embedded_resource" => {
            Some(&["test://static-text", "test://static-binary", WATCHED])
        }
        (Reference::Resource(r), "id") if r.uri == TEMPLATE => Some(&["1", "2", "3", "123"]),
        _ => None,
    }
}

/// `completion/complete`: the candidates starting with the typed value (ASCII
/// case-insensitive), in their order. An unknown prompt, template or argument is -32602.
pub fn complete(request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let arg = &request.argument;
    let known = match &request.r#ref {
        Reference::Prompt(p) => prompts().iter().any(|x| x.name == p.name),
        Reference::Resource(r) => r.uri == TEMPLATE,
        _ => false,
    };
    if !known {
        return Err(ErrorData::invalid_params("completion: unknown prompt or resource template", None));
    }
    let Some(all) = candidates(&request.r#ref, &arg.name) else {
        return Err(ErrorData::invalid_params(format!("completion: unknown argument '{}'", arg.name), None));
    };
    let typed = arg.value.to_ascii_lowercase();
    let values: Vec<String> =
        all.iter().filter(|c| c.to_ascii_lowercase().starts_with(&typed)).map(|c| c.to_string()).collect();
    let info = CompletionInfo::with_all_values(values).map_err(|e| ErrorData::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ArgumentInfo, PromptReference, ResourceTemplateReference};

    /// Standard base64, for checking the fixture payloads without a dependency.
    fn base64_decode(s: &str) -> Vec<u8> {
        let val = |c: u8| match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        };
        let bytes: Vec<u8> = s.bytes().filter(|&c| c != b'=').map(val).collect();
        let mut out = Vec::new();
        for chunk in bytes.chunks(4) {
            let mut n = 0u32;
            for (i, &b) in chunk.iter().enumerate() {
                n |= (b as u32) << (18 - 6 * i);
            }
            for i in 0..chunk.len().saturating_sub(1) {
                out.push((n >> (16 - 8 * i)) as u8);
            }
        }
        out
    }

    #[test]
    fn media_payloads_are_what_their_mime_types_say() {
        let png = base64_decode(TEST_IMAGE_BASE64);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 1, "width");
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 1, "height");
        assert_eq!(&png[png.len() - 8..png.len() - 4], b"IEND");

        let wav = base64_decode(TEST_AUDIO_BASE64);
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(u32::from_le_bytes(wav[4..8].try_into().unwrap()) as usize, wav.len() - 8, "RIFF size");
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        let le16 = |i: usize| u16::from_le_bytes(wav[i..i + 2].try_into().unwrap()) as u32;
        let le32 = |i: usize| u32::from_le_bytes(wav[i..i + 4].try_into().unwrap());
        let (channels, rate, bits) = (le16(22), le32(24), le16(34));
        assert_eq!((le16(20), channels, rate, bits), (1, 1, 8000, 16), "PCM 8 kHz mono 16-bit");
        assert_eq!(le32(28), rate * channels * bits / 8, "byte rate");
        assert_eq!(&wav[36..40], b"data");
        assert_eq!(le32(40) as usize, wav.len() - 44, "data size");
    }

    /// The typed rmcp schema must carry every keyword the SEP-1034/1330 scenarios
    /// check (defaults, enumNames, oneOf, anyOf, …) to the wire.
    #[test]
    fn elicitation_schemas_survive_the_typed_round_trip() {
        for schema in [elicitation_schema(), sep1034_schema(), sep1330_schema()] {
            let typed: ElicitationSchema = serde_json::from_value(schema.clone()).unwrap();
            let wire = serde_json::to_value(&typed).unwrap();
            let mut expected = schema.clone();
            // An empty `required` may be dropped; nothing else may change.
            if expected["required"] == json!([]) && wire.get("required").is_none() {
                expected.as_object_mut().unwrap().remove("required");
            }
            assert_eq!(wire, expected);
        }
    }

    #[test]
    fn template_ids_are_one_segment() {
        assert_eq!(template_id("test://template/123/data"), Some("123"));
        assert_eq!(template_id("test://template//data"), None);
        assert_eq!(template_id("test://template/a/b/data"), None);
        assert_eq!(template_id("test://template/123/datax"), None);
        assert_eq!(template_id("test://static-text"), None);
        let long = format!("test://template/{}/data", ",".repeat(1 << 20));
        assert!(template_id(&long).is_some());
    }

    #[test]
    fn resources_read_as_listed() {
        for r in resources() {
            let got = read(&r.uri).unwrap();
            let v = serde_json::to_value(&got.contents[0]).unwrap();
            assert_eq!(v["uri"], r.uri.as_str());
            assert_eq!(v["mimeType"], r.mime_type.as_deref().unwrap());
        }
        let t = serde_json::to_value(read("test://template/123/data").unwrap().contents[0].clone()).unwrap();
        let body: Value = serde_json::from_str(t["text"].as_str().unwrap()).unwrap();
        assert_eq!(body, json!({ "id": "123", "templateTest": true, "data": "Data for ID: 123" }));
        assert_eq!(read("test://nope").unwrap_err().code.0, -32002);
    }

    #[test]
    fn prompts_substitute_and_check_arguments() {
        let args: JsonObject = serde_json::from_value(json!({ "arg1": "hello", "arg2": "world" })).unwrap();
        let r = get_prompt("test_prompt_with_arguments", Some(&args)).unwrap();
        let v = serde_json::to_value(&r.messages).unwrap();
        assert_eq!(v[0]["content"]["text"], "Prompt with arguments: arg1='hello', arg2='world'");

        let only1: JsonObject = serde_json::from_value(json!({ "arg1": "hello" })).unwrap();
        assert!(get_prompt("test_prompt_with_arguments", Some(&only1)).unwrap_err().message.contains("arg2"));
        assert_eq!(get_prompt("nope", None).unwrap_err().code.0, -32602);

        let uri: JsonObject = serde_json::from_value(json!({ "resourceUri": "test://example-resource" })).unwrap();
        let r = get_prompt("test_prompt_with_embedded_resource", Some(&uri)).unwrap();
        let v = serde_json::to_value(&r.messages).unwrap();
        assert_eq!(v[0]["content"]["type"], "resource");
        assert_eq!(v[0]["content"]["resource"]["uri"], "test://example-resource");
        for p in prompts().iter().filter(|p| p.arguments.is_none()) {
            assert!(!get_prompt(&p.name, None).unwrap().messages.is_empty());
        }
    }

    #[test]
    fn completion_filters_by_prefix() {
        let req = |r: Reference, name: &str, value: &str| CompleteRequestParams::new(r, ArgumentInfo::new(name, value));
        let prompt = || Reference::Prompt(PromptReference::new("test_prompt_with_arguments"));
        let got = complete(&req(prompt(), "arg1", "PAR")).unwrap().completion;
        assert_eq!(got.values, ["paris", "park", "party"]);
        assert_eq!((got.total, got.has_more), (Some(3), Some(false)));
        assert_eq!(complete(&req(prompt(), "arg1", "test")).unwrap().completion.values, ["test", "testValue1"]);
        assert!(complete(&req(prompt(), "arg1", "zzz")).unwrap().completion.values.is_empty());
        let template = Reference::Resource(ResourceTemplateReference::new(TEMPLATE));
        assert_eq!(complete(&req(template, "id", "1")).unwrap().completion.values, ["1", "123"]);
        assert!(complete(&req(prompt(), "nope", "")).is_err());
        assert!(complete(&req(Reference::Prompt(PromptReference::new("nope")), "arg1", "")).is_err());
    }

    #[test]
    fn logging_level_and_subscriptions_are_per_session_and_forgotten() {
        let a = SessionGuard::open("conformance-test-a");
        let _b = SessionGuard::open("conformance-test-b");
        assert!(enabled("conformance-test-a", LoggingLevel::Debug), "everything before a level is set");
        set_level("conformance-test-a", LoggingLevel::Warning);
        assert!(!enabled("conformance-test-a", LoggingLevel::Info));
        assert!(enabled("conformance-test-a", LoggingLevel::Error));
        assert!(enabled("conformance-test-b", LoggingLevel::Info), "another session is unaffected");

        subscribe("conformance-test-a", WATCHED).unwrap();
        assert!(subscribe("conformance-test-a", "test://nope").is_err());
        assert_eq!(subscriptions("conformance-test-a"), [WATCHED]);
        assert!(subscriptions("conformance-test-b").is_empty());
        unsubscribe("conformance-test-a", WATCHED).unwrap();
        unsubscribe("conformance-test-a", WATCHED).unwrap();
        assert!(subscriptions("conformance-test-a").is_empty());

        set_level("conformance-test-a", LoggingLevel::Error);
        drop(a);
        assert!(!SESSIONS.lock().unwrap().contains_key("conformance-test-a"));
    }

    #[test]
    fn every_fixture_tool_is_in_the_conformance_set_only() {
        let mut r = Registry::new();
        Fixtures.register(&mut r);
        assert!(r.all().count() >= 16);
        for t in r.all() {
            assert_eq!(t.decl.set, SET, "{}", t.decl.name);
            // The suite's fixtures answer with content blocks only; the policy tests' own
            // fixtures with a typed counter.
            let policy_fixture = ["test_approval_counter", "test_action_class_prompt"].contains(&t.decl.name);
            assert_eq!(t.output_schema.is_empty(), !policy_fixture, "{}: content blocks only, or typed", t.decl.name);
        }
        // Served only when named.
        let sets = Fixtures.sets();
        let default = Surface::parse_with(None, &sets).unwrap();
        assert!(r.all().all(|t| !default.serves(t)), "the default surface serves no fixture");
        let named = Surface::parse_with(Some("default,conformance"), &sets).unwrap();
        assert!(r.all().all(|t| named.serves(t)));
        // And the product has none of them.
        let product = cc_server::mcp::tools::registry();
        assert!(product.all().all(|t| !t.decl.name.starts_with("test_")));
    }
}
