//! Pipeline runs and team activity: "which runs did which event start, what did each hand
//! back, and what did the team's leads record on a ticket?"
//!
//! A pipeline run is claimed once per (workspace, pipeline, trigger, run, event key) — an
//! `INSERT … ON CONFLICT DO NOTHING` on that unique key, so every replica hearing one event
//! starts one run between them — with the event and the output schema as they were; then it
//! is `started` (the agent run's id) or `not_started` (why). Its output is accepted once
//! (compare and set on `output IS NULL`); refused outputs are counted, not kept.

use serde::Serialize;

use super::{now, Result, Store, StoreError};

/// A pipeline run as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PipelineRun {
    pub id: String,
    pub workspace_id: String,
    pub pipeline: String,
    /// The trigger's index in its pipeline.
    pub trigger_index: i64,
    /// The run's index in its pipeline.
    pub run_index: i64,
    pub agent: String,
    pub event_type: String,
    pub event_key: String,
    /// The event (its type and fields).
    pub event: serde_json::Value,
    /// The output's JSON Schema, as it was when the run started.
    pub output_schema: serde_json::Value,
    /// The agent run started for it.
    pub run_id: Option<String>,
    /// claimed, started or not_started.
    pub status: String,
    /// Why it did not start.
    pub error: Option<String>,
    /// The output submit_output accepted.
    pub output: Option<serde_json::Value>,
    pub output_at: Option<i64>,
    /// Outputs refused by the schema.
    pub rejected_outputs: i64,
    pub created_at: i64,
}

/// What a new pipeline run is made of.
pub struct NewPipelineRun<'a> {
    pub workspace_id: &'a str,
    pub pipeline: &'a str,
    pub trigger_index: i64,
    pub run_index: i64,
    pub agent: &'a str,
    pub event_type: &'a str,
    pub event_key: &'a str,
    pub event: &'a serde_json::Value,
    pub output_schema: &'a serde_json::Value,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    workspace_id: String,
    pipeline: String,
    trigger_index: i64,
    run_index: i64,
    agent: String,
    event_type: String,
    event_key: String,
    event: String,
    output_schema: String,
    run_id: Option<String>,
    status: String,
    error: Option<String>,
    output: Option<String>,
    output_at: Option<i64>,
    rejected_outputs: i64,
    created_at: i64,
}

const COLUMNS: &str = "id, workspace_id, pipeline, trigger_index, run_index, agent, event_type, event_key, event, \
     output_schema, run_id, status, error, output, output_at, rejected_outputs, created_at";

fn json(s: &str, what: &str) -> Result<serde_json::Value> {
    serde_json::from_str(s).map_err(|e| StoreError::Invalid(format!("a stored pipeline run's {what}: {e}")))
}

impl Row {
    fn into_run(self) -> Result<PipelineRun> {
        Ok(PipelineRun {
            event: json(&self.event, "event")?,
            output_schema: json(&self.output_schema, "output schema")?,
            output: self.output.as_deref().map(|o| json(o, "output")).transpose()?,
            id: self.id,
            workspace_id: self.workspace_id,
            pipeline: self.pipeline,
            trigger_index: self.trigger_index,
            run_index: self.run_index,
            agent: self.agent,
            event_type: self.event_type,
            event_key: self.event_key,
            run_id: self.run_id,
            status: self.status,
            error: self.error,
            output_at: self.output_at,
            rejected_outputs: self.rejected_outputs,
            created_at: self.created_at,
        })
    }
}

/// What a team lead recorded against a ticket.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TeamActivity {
    pub id: String,
    pub ticket_id: String,
    /// Who recorded it (an agent's or a principal's name).
    pub actor: String,
    /// assignment, decision, review, status_update, escalation or note.
    pub kind: String,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
    pub created_at: i64,
}

/// id, ticket_id, actor_name, kind, summary, details, created_at.
type ActivityRow = (String, String, String, String, String, Option<String>, i64);

/// The pipelines area of a [`Store`].
pub struct Pipelines<'a> {
    pub(super) store: &'a Store,
}

impl Pipelines<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        self.store.err(e)
    }

    /// Records a pipeline run for an event, unless one is recorded for the same key:
    /// `Some(id)` when this call claimed it.
    pub async fn claim(&self, r: &NewPipelineRun<'_>) -> Result<Option<String>> {
        let id = format!("pr-{}", uuid::Uuid::now_v7().simple());
        let n = sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO pipeline_runs ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, 'claimed', NULL, \
             NULL, NULL, 0, $11) ON CONFLICT DO NOTHING"
        )))
        .bind(&id)
        .bind(r.workspace_id)
        .bind(r.pipeline)
        .bind(r.trigger_index)
        .bind(r.run_index)
        .bind(r.agent)
        .bind(r.event_type)
        .bind(r.event_key)
        .bind(r.event.to_string())
        .bind(r.output_schema.to_string())
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        Ok((n == 1).then_some(id))
    }

    /// Pipeline run `id` started as agent run `run_id`.
    pub async fn started(&self, id: &str, run_id: &str) -> Result<()> {
        sqlx::query("UPDATE pipeline_runs SET status = 'started', run_id = $2 WHERE id = $1")
            .bind(id)
            .bind(run_id)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Pipeline run `id` could not start, for `why`.
    pub async fn not_started(&self, id: &str, why: &str) -> Result<()> {
        sqlx::query("UPDATE pipeline_runs SET status = 'not_started', error = $2 WHERE id = $1")
            .bind(id)
            .bind(why)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    pub async fn get(&self, id: &str) -> Result<Option<PipelineRun>> {
        let row: Option<Row> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM pipeline_runs WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        row.map(Row::into_run).transpose()
    }

    /// The pipeline run agent run `run_id` was started for, if one was.
    pub async fn by_run(&self, run_id: &str) -> Result<Option<PipelineRun>> {
        let row: Option<Row> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM pipeline_runs WHERE run_id = $1")))
                .bind(run_id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        row.map(Row::into_run).transpose()
    }

    /// A workspace's pipeline runs, oldest first.
    pub async fn list(&self, workspace: &str) -> Result<Vec<PipelineRun>> {
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM pipeline_runs WHERE workspace_id = $1 ORDER BY created_at, id"
        )))
        .bind(workspace)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter().map(Row::into_run).collect()
    }

    /// Accepts `output` for pipeline run `id` unless it has one: `Ok(false)` when it had.
    pub async fn accept_output(&self, id: &str, output: &serde_json::Value) -> Result<bool> {
        let n = sqlx::query("UPDATE pipeline_runs SET output = $2, output_at = $3 WHERE id = $1 AND output IS NULL")
            .bind(id)
            .bind(output.to_string())
            .bind(now())
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?
            .rows_affected();
        Ok(n == 1)
    }

    /// Counts an output the schema refused.
    pub async fn reject_output(&self, id: &str) -> Result<()> {
        sqlx::query("UPDATE pipeline_runs SET rejected_outputs = rejected_outputs + 1 WHERE id = $1")
            .bind(id)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Records a team lead's activity entry against ticket `ticket_id` (of `workspace`).
    pub async fn add_activity(
        &self,
        workspace: &str,
        ticket_id: &str,
        actor: &super::Actor,
        kind: &str,
        summary: &str,
        details: Option<&serde_json::Value>,
    ) -> Result<TeamActivity> {
        let id = format!("ta-{}", uuid::Uuid::now_v7().simple());
        let at = now();
        sqlx::query(
            "INSERT INTO team_activity (id, workspace_id, ticket_id, actor, actor_name, kind, summary, details, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&id)
        .bind(workspace)
        .bind(ticket_id)
        .bind(&actor.id)
        .bind(&actor.name)
        .bind(kind)
        .bind(summary)
        .bind(details.map(|d| d.to_string()))
        .bind(at)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?;
        Ok(TeamActivity {
            id,
            ticket_id: ticket_id.into(),
            actor: actor.name.clone(),
            kind: kind.into(),
            summary: summary.into(),
            details: details.cloned(),
            created_at: at,
        })
    }

    /// Ticket `ticket_id`'s team activity, oldest first.
    pub async fn activity(&self, ticket_id: &str) -> Result<Vec<TeamActivity>> {
        let rows: Vec<ActivityRow> = sqlx::query_as(
            "SELECT id, ticket_id, actor_name, kind, summary, details, created_at FROM team_activity \
             WHERE ticket_id = $1 ORDER BY created_at, id",
        )
        .bind(ticket_id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(id, ticket_id, actor, kind, summary, details, created_at)| {
                Ok(TeamActivity {
                    details: details.as_deref().map(|d| json(d, "team activity details")).transpose()?,
                    id,
                    ticket_id,
                    actor,
                    kind,
                    summary,
                    created_at,
                })
            })
            .collect()
    }

    /// How many pipeline runs and team activity entries the store holds (for checks).
    pub async fn counts(&self) -> Result<(i64, i64)> {
        let runs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM pipeline_runs")
            .fetch_one(self.store.reader())
            .await
            .map_err(|e| self.err(e))?;
        let activity: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM team_activity")
            .fetch_one(self.store.reader())
            .await
            .map_err(|e| self.err(e))?;
        Ok((runs, activity))
    }
}
