//! preview_trigger: a dry run of the operator's pipelines against a hypothetical event.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::mcp::tool::{Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};
use crate::pipelines::{self, events, Verdict};

pub const DECL: Decl = Decl {
    name: "preview_trigger",
    title: "Preview a pipeline trigger",
    description: "Dry-run which pipeline runs a hypothetical event would start, without recording anything: `event` is {type, fields…} (types: message.posted, run.ended, ticket.created, ticket.status_changed, ticket.closed; an unknown field is an error listing the type's fields). Per pipeline and trigger: matched (and the runs it would start: agent, whether it exists here), or why not — the trigger's other event type, or the first filter that fails with its field, expected and actual values.",
    set: ToolSet::Pipelines,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::READ,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PreviewTriggerArgs {
    /// The hypothetical event: `type` (message.posted, run.ended, ticket.created,
    /// ticket.status_changed, ticket.closed) and any of its fields (a field left out is null).
    pub event: Map<String, Value>,
}

#[derive(Serialize, JsonSchema)]
pub struct PreviewTriggerOut {
    /// The event as the triggers saw it (every field of its type).
    pub event: Value,
    /// How many runs it would start.
    pub would_start: usize,
    /// Every trigger of every pipeline, in the configuration's order.
    pub triggers: Vec<Verdict>,
}

pub async fn preview_trigger(ctx: Ctx<String>, a: PreviewTriggerArgs) -> Result<PreviewTriggerOut, ToolError> {
    let e = events::hypothetical(&ctx.workspace, &a.event, "/event").map_err(|(p, m)| ToolError::invalid(&p, m))?;
    let triggers = pipelines::preview(&ctx.services, &e).await?;
    let would_start = triggers.iter().flat_map(|t| &t.runs).filter(|r| r.starts).count();
    Ok(PreviewTriggerOut { event: e.to_json(), would_start, triggers })
}
