//! submit_output: a pipeline run's output, held to the schema its pipeline declared.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::mcp::policy::Mode;
use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::pipelines::{validate_output, MAX_OUTPUT_ERRORS};

pub const DECL: Decl = Decl {
    name: "submit_output",
    title: "Submit a pipeline run's output",
    description: "Submit the structured output payload for the caller's current pipeline run (the run whose token calls): it is validated against the run's declared output schema (JSON Schema 2020-12) and stored once. A payload that breaks the schema is refused with every error (up to 50), each by JSON pointer (instance_path under /output, and the schema keyword), and may be submitted again; once one is accepted, another is a conflict. A caller that is not a pipeline's run is told so.",
    set: ToolSet::Pipelines,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::In(&[Mode::Plan]),
    hints: Hints::WRITE,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitOutputArgs {
    /// The run's output: any JSON, valid under its pipeline's output_schema (the run's brief
    /// shows the schema).
    pub output: Value,
}

#[derive(Serialize, JsonSchema)]
pub struct SubmitOutputOut {
    /// The pipeline run (pr-…).
    pub pipeline_run_id: String,
    pub pipeline: String,
    /// The agent run that submitted it.
    pub run_id: String,
    /// When it was stored (seconds since the epoch).
    pub submitted_at: i64,
}

pub async fn submit_output(ctx: Ctx<String>, a: SubmitOutputArgs) -> Result<SubmitOutputOut, ToolError> {
    let store = &ctx.services.store;
    let Some(run_id) = ctx.principal.agent.as_ref().and_then(|x| x.run_id.clone()) else {
        return Err(ToolError::new(
            ErrorKind::NotFound,
            format!(
                "submit_output is a pipeline run's: {} calls without a run's token, so it has no current pipeline run",
                ctx.principal.name
            ),
        ));
    };
    let Some(pr) = store.pipelines().by_run(&run_id).await?.filter(|r| r.workspace_id == ctx.workspace) else {
        return Err(ToolError::new(
            ErrorKind::NotFound,
            format!("run {run_id} was not started by a pipeline: it has no output schema to submit against"),
        ));
    };
    if let Some(at) = pr.output_at {
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!(
                "pipeline run {} ({}) has its output already (accepted at {at}); it is submitted once",
                pr.id, pr.pipeline
            ),
        )
        .with_data(json!({ "pipeline_run_id": pr.id, "submitted_at": at })));
    }
    let (errors, more) =
        validate_output(&pr.output_schema, &a.output, MAX_OUTPUT_ERRORS).map_err(ToolError::internal)?;
    if !errors.is_empty() {
        store.pipelines().reject_output(&pr.id).await?;
        let first = format!("/output{}", errors[0].instance_path);
        let lines: Vec<String> = errors
            .iter()
            .map(|e| format!("/output{} ({} at {}): {}", e.instance_path, e.keyword, e.schema_path, e.message))
            .collect();
        let message = format!(
            "{first}: the output breaks pipeline {}'s output schema in {}{} place(s): {}",
            pr.pipeline,
            errors.len(),
            if more { "+" } else { "" },
            lines.join("; ")
        );
        return Err(ToolError::invalid(&first, message).with_data(json!({
            "errors": errors.iter().map(|e| json!({
                "pointer": format!("/output{}", e.instance_path),
                "instance_path": e.instance_path,
                "schema_path": e.schema_path,
                "keyword": e.keyword,
                "message": e.message,
            })).collect::<Vec<_>>(),
            "truncated": more,
            "max_errors": MAX_OUTPUT_ERRORS,
        })));
    }
    if !store.pipelines().accept_output(&pr.id, &a.output).await? {
        return Err(ToolError::new(
            ErrorKind::Conflict,
            format!("pipeline run {} ({}) has its output already; it is submitted once", pr.id, pr.pipeline),
        ));
    }
    let pr = store.pipelines().get(&pr.id).await?.expect("it exists");
    Ok(SubmitOutputOut {
        pipeline_run_id: pr.id,
        pipeline: pr.pipeline,
        run_id,
        submitted_at: pr.output_at.unwrap_or_default(),
    })
}
