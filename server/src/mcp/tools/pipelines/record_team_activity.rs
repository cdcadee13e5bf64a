//! record_team_activity: a team lead's activity entry against a ticket.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::mcp::tool::{Ctx, Decl, ErrorKind, Hints, Modes, Scope, ToolError, ToolSet};
use crate::mcp::tools::governance::actor;
use crate::mcp::tools::tickets::ticket_of;
use crate::store::pipelines::TeamActivity;

pub const DECL: Decl = Decl {
    name: "record_team_activity",
    title: "Record team activity",
    description: "Record a team-lead activity entry against a ticket (ticket_id: id or key): its kind (assignment, decision, review, status_update, escalation, note), a one-line summary and optional details (any JSON). A team lead is an agent with reports in the org chart (get_org_chart), or the operator; anyone else is refused. get_ticket lists a ticket's entries (team_activity).",
    set: ToolSet::Pipelines,
    scope: Scope::Required,
    classes: &[],
    approval: false,
    modes: Modes::Chat,
    hints: Hints::WRITE,
};

/// What a lead's entry records.
#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ActivityKind {
    Assignment,
    Decision,
    Review,
    StatusUpdate,
    Escalation,
    Note,
}

impl ActivityKind {
    fn as_str(self) -> &'static str {
        match self {
            ActivityKind::Assignment => "assignment",
            ActivityKind::Decision => "decision",
            ActivityKind::Review => "review",
            ActivityKind::StatusUpdate => "status_update",
            ActivityKind::Escalation => "escalation",
            ActivityKind::Note => "note",
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordTeamActivityArgs {
    /// The ticket: its id or its key (T-12).
    #[schemars(length(min = 1, max = 100))]
    pub ticket_id: String,
    /// assignment, decision, review, status_update, escalation or note.
    pub kind: ActivityKind,
    /// What happened, in a line.
    #[schemars(length(min = 1, max = 1000))]
    pub summary: String,
    /// More about it (any JSON: text, a list of who does what, …).
    pub details: Option<Value>,
}

#[derive(Serialize, JsonSchema)]
pub struct RecordTeamActivityOut {
    pub activity: TeamActivity,
    /// The ticket's key.
    pub ticket_key: String,
}

pub async fn record_team_activity(
    ctx: Ctx<String>,
    a: RecordTeamActivityArgs,
) -> Result<RecordTeamActivityOut, ToolError> {
    let t = ticket_of(&ctx, &a.ticket_id, "/ticket_id").await?;
    let store = &ctx.services.store;
    match &ctx.principal.agent {
        Some(me) => {
            let reports = store.agents().list(&ctx.workspace).await?;
            let n = reports.iter().filter(|x| x.reports_to.as_deref() == Some(me.agent_id.as_str())).count();
            if n == 0 {
                return Err(ToolError::new(
                    ErrorKind::Conflict,
                    format!(
                        "record_team_activity is a team lead's, and {} leads no one: no agent reports to it in the org chart \
                         (get_org_chart; the operator sets reports_to with cc-server agents update --reports-to)",
                        me.name
                    ),
                )
                .with_data(json!({ "agent": me.name, "reports": 0 })));
            }
        }
        None if ctx.principal.operator => {}
        None => {
            return Err(ToolError::new(
                ErrorKind::Conflict,
                format!(
                    "record_team_activity is a team lead's: the operator, or an agent with reports; {} is neither",
                    ctx.principal.name
                ),
            ))
        }
    }
    let activity = store
        .pipelines()
        .add_activity(&ctx.workspace, &t.id, &actor(&ctx), a.kind.as_str(), &a.summary, a.details.as_ref())
        .await?;
    Ok(RecordTeamActivityOut { activity, ticket_key: t.key })
}
