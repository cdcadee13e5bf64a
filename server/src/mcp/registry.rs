//! The tool registry as data: each tool is one [`ToolDef`] value; tool sets, the
//! approval list and the never-served list are each one table.
//!
//! Areas register their tools in one place each (`tools/*.rs`, one `register`
//! function per area). The registry fills `toolset` and `requires_approval` of every
//! value from the tables, and refuses at start-up a table naming a tool that is not
//! registered (tests assert it), so the tables grow with the tools.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use super::dispatch::{CallCtx, ToolError};

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

/// What a tool may do to the world; the guardrails (`policy::GUARDRAILS`) decide per
/// class and mode.
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
}

/// A tool's result: the JSON that becomes `structuredContent` (and its text), plus
/// optional extra content blocks (a resource link, an image).
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
pub type Handler = Arc<dyn Fn(CallCtx, Value) -> HandlerFuture + Send + Sync>;

/// One tool: everything the server knows about it.
#[derive(Clone)]
pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: Map<String, Value>,
    pub output_schema: Map<String, Value>,
    pub scope: Scope,
    pub action_classes: &'static [ActionClass],
    /// Filled from [`TOOLSETS`].
    pub toolsets: Vec<&'static str>,
    /// Filled from [`APPROVALS`].
    pub requires_approval: bool,
    pub read_only: bool,
    pub handler: Handler,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef").field("name", &self.name).finish_non_exhaustive()
    }
}

/// The tool sets: which tools each set serves. A tool on no set is always served.
/// `conformance` holds the MCP conformance suite's fixtures and is served only when
/// named explicitly (never by `--all-tools`).
pub const TOOLSETS: &[(&str, &[&str])] = &[
    ("discovery", &["search_tool_bm25", "list_my_tools"]),
    ("conversation", &["set_mode", "exit_plan_mode"]),
    ("workspace", &["list_workspaces", "list_repos"]),
    ("code", &["search_code", "code_symbol", "code_callers", "code_callees", "code_impact", "code_read"]),
    (
        "conformance",
        &[
            "test_simple_text",
            "test_image_content",
            "test_audio_content",
            "test_embedded_resource",
            "test_multiple_content_types",
            "test_tool_with_logging",
            "test_tool_with_progress",
            "test_error_handling",
            "test_sampling",
            "test_elicitation",
            "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums",
            "test_reconnection",
            "json_schema_2020_12_tool",
            "test_approval_counter",
            "test_action_class_prompt",
        ],
    ),
];

/// Sets served when `--tools` is not given.
pub const DEFAULT_TOOLSETS: &[&str] = &["discovery", "conversation", "workspace", "code"];

/// Sets `--all-tools` does not include: they must be named.
pub const EXPLICIT_ONLY_TOOLSETS: &[&str] = &["conformance"];

/// Tools that raise an approval before they run (spec: "Approval-gated tools"; the
/// spec's names not registered yet are in `policy::SPEC_NOT_YET_REGISTERED`). Today only
/// the conformance set's `test_approval_counter`, served only when named.
pub const APPROVALS: &[&str] = &["test_approval_counter"];

/// Tools that would run caller-supplied code. Never served, under any flag; calling one
/// answers "unknown tool". (None is registered; the table is the gate if one ever is.)
pub const NEVER_SERVED: &[&str] = &["run_script", "execute_command", "eval_javascript"];

/// Builds the registry from every area's `register`.
#[derive(Default)]
pub struct Registry {
    tools: BTreeMap<&'static str, ToolDef>,
}

impl Registry {
    pub fn new() -> Registry {
        Registry { tools: BTreeMap::new() }
    }

    /// Adds a tool whose arguments are `A` and whose result is `R`: the input and
    /// output schemas are generated from the types, so they cannot drift from the code.
    #[allow(clippy::too_many_arguments)]
    pub fn add<A, R, F, Fut>(&mut self, spec: Spec, f: F)
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        R: Serialize + JsonSchema + 'static,
        F: Fn(CallCtx, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ToolError>> + Send + 'static,
    {
        let f = Arc::new(f);
        let handler: Handler = Arc::new(move |ctx: CallCtx, args: Value| {
            let f = f.clone();
            Box::pin(async move {
                let a: A = from_args(args)?;
                let r = f(ctx, a).await?;
                let value = serde_json::to_value(r).map_err(|e| ToolError::internal(e.to_string()))?;
                Ok(Output::json(value))
            })
        });
        self.add_raw(spec, schema_of::<A>(), schema_of::<R>(), handler);
    }

    /// Adds a tool with hand-written schemas and a raw handler (content beyond JSON).
    pub fn add_raw(&mut self, spec: Spec, input: Map<String, Value>, output: Map<String, Value>, handler: Handler) {
        assert!(!self.tools.contains_key(spec.name), "tool {} registered twice", spec.name);
        let mut input = input;
        if spec.scope != Scope::Global {
            add_workspace_property(&mut input, spec.scope == Scope::Required);
        }
        let toolsets = TOOLSETS.iter().filter(|(_, tools)| tools.contains(&spec.name)).map(|(s, _)| *s).collect();
        self.tools.insert(
            spec.name,
            ToolDef {
                name: spec.name,
                title: spec.title,
                description: spec.description,
                input_schema: input,
                output_schema: output,
                scope: spec.scope,
                action_classes: spec.action_classes,
                toolsets,
                requires_approval: APPROVALS.contains(&spec.name),
                read_only: spec.read_only,
                handler,
            },
        );
    }

    pub fn get(&self, name: &str) -> Option<&ToolDef> {
        self.tools.get(name)
    }

    pub fn all(&self) -> impl Iterator<Item = &ToolDef> {
        self.tools.values()
    }

    /// Names in a table that no registered tool has.
    pub fn unknown_names_in_tables(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (set, tools) in TOOLSETS {
            for t in *tools {
                if !self.tools.contains_key(t) {
                    out.push(format!("TOOLSETS[{set}]: {t}"));
                }
            }
        }
        for t in APPROVALS {
            if !self.tools.contains_key(t) {
                out.push(format!("APPROVALS: {t}"));
            }
        }
        for (table, t) in super::policy::table_names() {
            if !self.tools.contains_key(t) {
                out.push(format!("{table}: {t}"));
            }
        }
        out
    }
}

/// The static part of a tool's value.
pub struct Spec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub scope: Scope,
    pub action_classes: &'static [ActionClass],
    pub read_only: bool,
}

/// Which tools a server serves: the sets selected by `--tools` / `--all-tools`.
#[derive(Clone, Debug)]
pub struct Surface {
    pub sets: Vec<String>,
}

impl Surface {
    /// `--tools a,b` (unknown names are an error listing the known ones), or
    /// `--all-tools` (every set but the explicit-only ones), or the defaults.
    pub fn parse(tools: Option<&str>, all: bool) -> Result<Surface, String> {
        let known: Vec<&str> = TOOLSETS.iter().map(|(s, _)| *s).collect();
        let mut sets: Vec<String> = if all {
            known.iter().filter(|s| !EXPLICIT_ONLY_TOOLSETS.contains(s)).map(|s| s.to_string()).collect()
        } else if tools.is_none() {
            DEFAULT_TOOLSETS.iter().map(|s| s.to_string()).collect()
        } else {
            Vec::new()
        };
        for s in tools.unwrap_or_default().split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let s = if s == "default" {
                sets.extend(DEFAULT_TOOLSETS.iter().map(|d| d.to_string()));
                continue;
            } else {
                s
            };
            if !known.contains(&s) {
                return Err(format!("unknown tool set '{s}'; known sets: {}, default", known.join(", ")));
            }
            sets.push(s.to_string());
        }
        sets.sort();
        sets.dedup();
        Ok(Surface { sets })
    }

    /// Whether this surface serves `tool`.
    pub fn serves(&self, tool: &ToolDef) -> bool {
        if NEVER_SERVED.contains(&tool.name) {
            return false;
        }
        tool.toolsets.is_empty() || tool.toolsets.iter().any(|s| self.sets.iter().any(|x| x == s))
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
