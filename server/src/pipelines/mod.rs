//! Pipelines: "when this happens, start these agents, and hold each to the output it
//! declared". The operator declares them in config.toml (`[[pipelines]]`, see
//! [`crate::config`]): triggers — an event type of [`events::EVENT_TYPES`] and filters on its
//! fields ([`matching`]) — and runs, each an agent to start with a brief (a template over the
//! event) and an output JSON Schema (2020-12), all checked and compiled when the file is
//! loaded ([`compile`]: an error names the pipeline and the key, a bad schema the JSON
//! pointer inside it).
//!
//! Lifecycle: [`background`] hears the bus; each event that matches a trigger starts each of
//! its pipeline's runs ([`fire`]) — recorded first (`store::pipelines`: pipeline, trigger,
//! run, event, the schema as it is now), claimed once per (pipeline, trigger, run, event) so
//! that every replica hearing the event starts one run between them, then dispatched through
//! [`crate::agents::Runtime::dispatch`] (reason `pipeline`; a ticket's event gives the run its
//! ticket). The run calls submit_output once with a payload valid under its schema
//! ([`validate_output`]). A `run.ended` of a run a pipeline started does not trigger that
//! same pipeline (no pipeline feeds itself). [`preview`] answers what an event would start,
//! and why not, reading only.
//!
//! [`orchestration`] checks a multi-agent plan (propose_orchestration) before it goes to the
//! board.

pub mod events;
pub mod matching;
pub mod orchestration;

use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::agents::Brief;
use crate::bus::Event;
use crate::config::PipelineDecl;
use crate::services::Services;
use crate::store::pipelines::NewPipelineRun;
use crate::store::Ticket;
use events::TriggerEvent;
use matching::{Filter, Miss, Test};

/// A pipeline as compiled from its `[[pipelines]]` table.
#[derive(Clone, Debug)]
pub struct Pipeline {
    pub name: String,
    pub description: String,
    /// The workspaces whose events it hears (empty: every workspace's).
    pub workspaces: Vec<String>,
    pub triggers: Vec<Trigger>,
    pub runs: Vec<RunSpec>,
}

impl Pipeline {
    pub fn hears(&self, workspace: &str) -> bool {
        self.workspaces.is_empty() || self.workspaces.iter().any(|w| w == workspace)
    }
}

#[derive(Clone, Debug)]
pub struct Trigger {
    pub name: Option<String>,
    /// An [`events::EVENT_TYPES`] name.
    pub event: &'static str,
    /// All must hold, in this order (the first that does not is the reason).
    pub filters: Vec<Filter>,
}

#[derive(Clone, Debug)]
pub struct RunSpec {
    pub agent: String,
    pub brief: Option<String>,
    /// The output's JSON Schema (it compiles: checked at load).
    pub output_schema: Value,
}

/// The most errors one submit_output lists.
pub const MAX_OUTPUT_ERRORS: usize = 50;

fn valid_name(s: &str) -> bool {
    !s.is_empty() && s.len() <= 100 && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// Checks and compiles the `[[pipelines]]` tables; relative schema paths are read from
/// `base` (the config file's folder). Each error names the pipeline and the key.
pub fn compile(decls: &[PipelineDecl], base: &Path) -> Result<Vec<Pipeline>, String> {
    let mut out: Vec<Pipeline> = Vec::new();
    for (pi, d) in decls.iter().enumerate() {
        let at = format!("pipelines[{pi}] '{}'", d.name);
        if !valid_name(&d.name) {
            return Err(format!(
                "pipelines[{pi}].name: '{}' is not a pipeline name (1 to 100 letters, digits, '-', '_', '.')",
                d.name
            ));
        }
        if out.iter().any(|p| p.name == d.name) {
            return Err(format!("{at}: name: another pipeline is named '{}' already", d.name));
        }
        if d.triggers.is_empty() {
            return Err(format!("{at}: triggers: a pipeline needs at least one [[pipelines.triggers]]"));
        }
        if d.runs.is_empty() {
            return Err(format!("{at}: runs: a pipeline needs at least one [[pipelines.runs]]"));
        }
        let mut triggers = Vec::new();
        for (ti, t) in d.triggers.iter().enumerate() {
            let Some(spec) = events::spec(&t.event) else {
                return Err(format!(
                    "{at}: triggers[{ti}].type: unknown event type '{}'; the types: {}",
                    t.event,
                    events::names()
                ));
            };
            let mut filters = Vec::new();
            for (field, v) in &t.filters {
                let key = format!("{at}: triggers[{ti}].filters.{field}");
                if !spec.fields.iter().any(|(f, _)| f == field) {
                    let known: Vec<&str> = spec.fields.iter().map(|(f, _)| *f).collect();
                    return Err(format!(
                        "{key}: {} has no field '{field}'; its fields: {}",
                        spec.name,
                        known.join(", ")
                    ));
                }
                filters.push(Filter { field: field.clone(), test: test_of(&key, v)? });
            }
            triggers.push(Trigger { name: t.name.clone(), event: spec.name, filters });
        }
        let mut runs = Vec::new();
        for (ri, r) in d.runs.iter().enumerate() {
            let key = format!("{at}: runs[{ri}]");
            if r.agent.trim().is_empty() {
                return Err(format!("{key}.agent: the name of the agent to start (see cc-server agents list)"));
            }
            if let Some(b) = &r.brief {
                check_template(b, &triggers).map_err(|e| format!("{key}.brief: {e}"))?;
            }
            let schema = schema_of(&r.output_schema, base).map_err(|e| format!("{key}.output_schema: {e}"))?;
            compile_schema(&schema).map_err(|(ptr, e)| {
                format!("{key}.output_schema: not a valid JSON Schema (2020-12) at '{ptr}': {e}")
            })?;
            runs.push(RunSpec { agent: r.agent.clone(), brief: r.brief.clone(), output_schema: schema });
        }
        out.push(Pipeline {
            name: d.name.clone(),
            description: d.description.clone(),
            workspaces: d.workspaces.clone(),
            triggers,
            runs,
        });
    }
    Ok(out)
}

fn scalar(key: &str, v: &toml::Value) -> Result<Value, String> {
    match v {
        toml::Value::String(s) => Ok(Value::from(s.clone())),
        toml::Value::Integer(i) => Ok(Value::from(*i)),
        toml::Value::Boolean(b) => Ok(Value::from(*b)),
        toml::Value::Float(f) => Ok(serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)),
        other => Err(format!("{key}: expected a string, a number or a boolean, got {}", other.type_str())),
    }
}

fn test_of(key: &str, v: &toml::Value) -> Result<Test, String> {
    let toml::Value::Table(t) = v else { return Ok(Test::Equals(scalar(key, v)?)) };
    let mut keys = t.keys();
    let (Some(k), None) = (keys.next(), keys.next()) else {
        return Err(format!(
            "{key}: a filter is a value (equality), {{ one_of = [values] }} or {{ glob = \"pattern\" }}: one key, not {}",
            t.len()
        ));
    };
    match (k.as_str(), &t[k]) {
        ("one_of", toml::Value::Array(items)) if !items.is_empty() => Ok(Test::OneOf(
            items
                .iter()
                .enumerate()
                .map(|(i, x)| scalar(&format!("{key}.one_of[{i}]"), x))
                .collect::<Result<_, _>>()?,
        )),
        ("one_of", _) => Err(format!("{key}.one_of: expected a non-empty list of values")),
        ("glob", toml::Value::String(p)) => {
            let matcher = matching::glob(p).map_err(|e| format!("{key}.glob: '{p}' is not a glob: {e}"))?;
            Ok(Test::Glob { pattern: p.clone(), matcher })
        }
        ("glob", other) => Err(format!("{key}.glob: expected a pattern (a string), got {}", other.type_str())),
        (other, _) => Err(format!("{key}: unknown filter '{other}'; a filter is a value, one_of or glob")),
    }
}

/// The placeholders of a template: `{{…}}`, trimmed.
fn placeholders(template: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        let after = &rest[i + 2..];
        let Some(j) = after.find("}}") else { break };
        out.push(after[..j].trim());
        rest = &after[j + 2..];
    }
    out
}

fn check_template(t: &str, triggers: &[Trigger]) -> Result<(), String> {
    for p in placeholders(t) {
        match p {
            "pipeline" | "trigger" | "event" | "event.type" => {}
            _ => {
                let Some(field) = p.strip_prefix("event.") else {
                    return Err(format!(
                        "unknown placeholder {{{{{p}}}}}; the placeholders: {{{{event.FIELD}}}}, {{{{event}}}}, {{{{pipeline}}}}, {{{{trigger}}}}"
                    ));
                };
                for t in triggers {
                    let spec = events::spec(t.event).expect("checked");
                    if !spec.fields.iter().any(|(f, _)| *f == field) {
                        let known: Vec<&str> = spec.fields.iter().map(|(f, _)| *f).collect();
                        return Err(format!(
                            "{{{{{p}}}}}: {} (a trigger's type) has no field '{field}'; its fields: {}",
                            spec.name,
                            known.join(", ")
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// An output schema as written: a TOML table (inline), or a JSON file's path relative to
/// `base`.
fn schema_of(v: &toml::Value, base: &Path) -> Result<Value, String> {
    match v {
        toml::Value::Table(_) => serde_json::to_value(v).map_err(|e| format!("the inline schema as JSON: {e}")),
        toml::Value::String(p) => {
            let path = base.join(p);
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("reading '{p}' ({}): {e}", path.display()))?;
            serde_json::from_str(&text).map_err(|e| format!("'{p}' is not JSON: {e}"))
        }
        other => Err(format!("expected a schema (a table) or a JSON file's path (a string), got {}", other.type_str())),
    }
}

/// `schema` compiled as JSON Schema 2020-12; `Err((pointer in the schema, why))`.
pub fn compile_schema(schema: &Value) -> Result<jsonschema::Validator, (String, String)> {
    jsonschema::draft202012::new(schema).map_err(|e| {
        let p = e.instance_path().to_string();
        (if p.is_empty() { "/".into() } else { p }, e.to_string())
    })
}

/// One way an output breaks its schema.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct SchemaError {
    /// The JSON pointer of the value at fault, in the output ("" is the whole output).
    pub instance_path: String,
    /// The JSON pointer of the schema keyword it breaks.
    pub schema_path: String,
    /// The keyword (type, required, minimum, …).
    pub keyword: String,
    pub message: String,
}

/// Every way `output` breaks `schema` (at most `cap`, in the validator's order), and
/// whether there were more.
pub fn validate_output(schema: &Value, output: &Value, cap: usize) -> Result<(Vec<SchemaError>, bool), String> {
    let v =
        compile_schema(schema).map_err(|(p, e)| format!("the run's output schema does not compile at '{p}': {e}"))?;
    let mut errors = Vec::new();
    let mut more = false;
    for e in v.iter_errors(output) {
        if errors.len() == cap {
            more = true;
            break;
        }
        errors.push(SchemaError {
            instance_path: e.instance_path().to_string(),
            schema_path: e.schema_path().to_string(),
            keyword: e.kind().keyword().to_string(),
            message: e.to_string(),
        });
    }
    Ok((errors, more))
}

/// The brief of a run for event `e`: its template (default: the event) with the
/// placeholders filled, then how to hand the output back.
pub fn brief_of(p: &Pipeline, trigger: usize, r: &RunSpec, e: &TriggerEvent) -> String {
    let event = e.to_json();
    let trigger_name = p.triggers[trigger].name.clone().unwrap_or_else(|| trigger.to_string());
    let body = match &r.brief {
        None => format!("Pipeline {} started you for this {} event:\n{event}", p.name, e.kind),
        Some(t) => {
            let mut out = String::new();
            let mut rest = t.as_str();
            while let Some(i) = rest.find("{{") {
                out.push_str(&rest[..i]);
                let after = &rest[i + 2..];
                let Some(j) = after.find("}}") else {
                    rest = &rest[i..];
                    break;
                };
                let name = after[..j].trim();
                let v = match name {
                    "pipeline" => Value::from(p.name.clone()),
                    "trigger" => Value::from(trigger_name.clone()),
                    "event" => event.clone(),
                    "event.type" => Value::from(e.kind),
                    _ => name.strip_prefix("event.").and_then(|f| e.fields.get(f)).cloned().unwrap_or(Value::Null),
                };
                match v {
                    Value::String(s) => out.push_str(&s),
                    Value::Null => {}
                    other => out.push_str(&other.to_string()),
                }
                rest = &after[j + 2..];
            }
            out.push_str(rest);
            out
        }
    };
    format!(
        "{body}\n\nWhen you are done, call submit_output once with `output`: a JSON value valid under this JSON Schema \
         (2020-12):\n{}",
        r.output_schema
    )
}

/// What preview_trigger says of one trigger.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Verdict {
    pub pipeline: String,
    /// The trigger's index in its pipeline.
    pub trigger: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger_name: Option<String>,
    /// The event type the trigger hears.
    pub trigger_type: String,
    pub matched: bool,
    /// Why it matched, or why not (in a line).
    pub reason: String,
    /// The first filter that did not hold (field, filter, expected, actual).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_filter: Option<Miss>,
    /// The runs it would start (empty when it did not match).
    pub runs: Vec<RunVerdict>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RunVerdict {
    /// The run's index in its pipeline.
    pub run: usize,
    pub agent: String,
    /// Whether it would start (its agent exists in the workspace).
    pub starts: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Which runs `e` would start and why, trigger by trigger; reads agents, writes nothing.
pub async fn preview(services: &Services, e: &TriggerEvent) -> crate::store::Result<Vec<Verdict>> {
    let agents = services.store.agents().list(&e.workspace_id).await?;
    let mut out = Vec::new();
    for p in &services.config.pipelines {
        for (ti, t) in p.triggers.iter().enumerate() {
            let mut v = Verdict {
                pipeline: p.name.clone(),
                trigger: ti,
                trigger_name: t.name.clone(),
                trigger_type: t.event.to_string(),
                matched: false,
                reason: String::new(),
                failed_filter: None,
                runs: Vec::new(),
            };
            if !p.hears(&e.workspace_id) {
                v.reason = format!(
                    "pipeline {} hears the workspaces {} only, not {}",
                    p.name,
                    p.workspaces.join(", "),
                    e.workspace_id
                );
            } else if t.event != e.kind {
                v.reason = format!("the trigger hears {}, not {}", t.event, e.kind);
            } else if let Some(m) = matching::first_miss(&t.filters, &e.fields) {
                v.reason = format!("filter {} ({}) does not hold: {}", m.field, m.filter, m.say());
                v.failed_filter = Some(m);
            } else {
                v.matched = true;
                v.reason = if t.filters.is_empty() {
                    format!("a {} event, and the trigger has no filters", e.kind)
                } else {
                    let f: Vec<String> = t.filters.iter().map(|f| format!("{} ({})", f.field, f.test.kind())).collect();
                    format!("a {} event, and every filter holds: {}", e.kind, f.join(", "))
                };
                v.runs = p
                    .runs
                    .iter()
                    .enumerate()
                    .map(|(ri, r)| {
                        let there = agents.iter().any(|a| a.name == r.agent);
                        RunVerdict {
                            run: ri,
                            agent: r.agent.clone(),
                            starts: there,
                            reason: (!there)
                                .then(|| format!("no agent named '{}' in workspace '{}'", r.agent, e.workspace_id)),
                        }
                    })
                    .collect();
            }
            out.push(v);
        }
    }
    Ok(out)
}

/// Starts the runs event `e` triggers (each once across replicas: the store's claim), and
/// answers the pipeline runs this call recorded.
pub async fn fire(services: &Arc<Services>, e: &TriggerEvent) -> crate::store::Result<Vec<String>> {
    let store = &services.store;
    // No pipeline is triggered by the end of a run it started itself.
    let own = match (e.kind, e.fields.get("run_id").and_then(Value::as_str)) {
        ("run.ended", Some(run)) => store.pipelines().by_run(run).await?.map(|r| r.pipeline),
        _ => None,
    };
    let mut started = Vec::new();
    for p in services.config.pipelines.iter().filter(|p| p.hears(&e.workspace_id)) {
        if own.as_deref() == Some(p.name.as_str()) {
            continue;
        }
        for (ti, t) in p.triggers.iter().enumerate() {
            if t.event != e.kind || matching::first_miss(&t.filters, &e.fields).is_some() {
                continue;
            }
            for (ri, r) in p.runs.iter().enumerate() {
                let new = NewPipelineRun {
                    workspace_id: &e.workspace_id,
                    pipeline: &p.name,
                    trigger_index: ti as i64,
                    run_index: ri as i64,
                    agent: &r.agent,
                    event_type: e.kind,
                    event_key: &e.key,
                    event: &e.to_json(),
                    output_schema: &r.output_schema,
                };
                let Some(id) = store.pipelines().claim(&new).await? else { continue };
                started.push(id.clone());
                let Some(agent) = store.agents().by_name(&e.workspace_id, &r.agent).await? else {
                    let why = format!("no agent named '{}' in workspace '{}'", r.agent, e.workspace_id);
                    tracing::warn!(pipeline = p.name, "a pipeline run did not start: {why}");
                    store.pipelines().not_started(&id, &why).await?;
                    continue;
                };
                let brief = Brief {
                    reason: "pipeline",
                    text: brief_of(p, ti, r, e),
                    // The event is in the brief; the run is not the answer to a message
                    // (CC_MESSAGE_ID would make a test agent reply, and its reply post again).
                    space_id: None,
                    message_id: None,
                    ticket_id: e.ticket_id().map(str::to_string),
                };
                match services.runtime.dispatch(&agent, brief).await {
                    Ok(run) => store.pipelines().started(&id, &run.id).await?,
                    Err(err) => {
                        tracing::warn!(pipeline = p.name, "a pipeline run did not start: {err}");
                        store.pipelines().not_started(&id, &err.to_string()).await?;
                    }
                }
            }
        }
    }
    Ok(started)
}

/// Hears the bus until `stop`: each event's triggers fire ([`fire`]). Nothing to do without
/// pipelines.
pub async fn background(services: Arc<Services>, stop: CancellationToken) {
    if services.config.pipelines.is_empty() {
        return;
    }
    let mut rx = services.bus.subscribe();
    loop {
        let e = tokio::select! {
            _ = stop.cancelled() => return,
            e = rx.recv() => e,
        };
        match e {
            Ok(e) => match events::from_bus(&services.store, &e).await {
                Ok(list) => {
                    for te in list {
                        if let Err(err) = fire(&services, &te).await {
                            tracing::warn!("pipelines: {} {}: {err}", te.kind, te.key);
                        }
                    }
                }
                Err(err) => tracing::warn!("pipelines: reading an event's fields: {err}"),
            },
            Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                tracing::warn!("pipelines: {n} events were missed (the bus ran ahead)");
            }
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
        }
    }
}

/// Tells the bus a ticket was created (`before` none) or changed status; nothing for a
/// change that left the status as it was.
pub async fn ticket_event(services: &Services, before: Option<&Ticket>, after: &Ticket) {
    if before.is_some_and(|b| b.status == after.status) {
        return;
    }
    let e = Event::Ticket {
        workspace_id: after.workspace_id.clone(),
        ticket_id: after.id.clone(),
        version: after.version,
        status: after.status.as_str().to_string(),
        previous_status: before.map(|b| b.status.as_str().to_string()),
    };
    services.bus.publish(&services.store, e).await;
}
