//! Orchestration plans: "this multi-agent plan was approved — now make its tickets, once".
//!
//! propose_orchestration stores a clean plan with a board approval (kind orchestration,
//! the plan as its payload). Nothing else happens until the board decides: the board's
//! decide path calls [`Orchestration::decided`] once the approval is approved or rejected.
//! Approved, the plan is decomposed deterministically — a parent ticket for the plan (its
//! budget the envelope), then one ticket per task in the plan's order, assigned to its agent,
//! a sub-issue of the parent, with the task's budget, then a `blocked_by` relation per
//! `depends_on` — and the outcome (the keys, or why it failed) is a comment on the approval.
//! Rejected, nothing is made. Each step is a compare and set on the plan's status
//! (proposed → decomposing → decomposed | failed; proposed → rejected), so two deciders or
//! two replicas decompose it once.

use serde::{Deserialize, Serialize};

use super::{now, Actor, BoardApproval, BoardKind, Member, NewTicket, RelationKind, Result, Store, StoreError};

/// A multi-agent plan (propose_orchestration's `plan`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The plan in a line: its parent ticket's title (default: "Orchestration plan: N tasks").
    #[schemars(length(min = 1, max = 500))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for: its parent ticket's description.
    #[schemars(length(max = 100000))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The workspace's agents the plan uses, by name (see list_agents); none is hired.
    #[schemars(length(max = 200), inner(length(min = 1, max = 100)))]
    pub agents: Vec<String>,
    /// The tasks: each becomes one ticket, assigned to its agent, after the approval.
    #[schemars(length(min = 1, max = 500))]
    pub tasks: Vec<PlanTask>,
    /// The envelope: what all the tasks together may spend, in the workspace's unit (the
    /// parent ticket's budget).
    #[schemars(range(min = 0))]
    pub budget: i64,
}

/// One task of a plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanTask {
    /// Unique in the plan; what `depends_on` names.
    #[schemars(length(min = 1, max = 100))]
    pub id: String,
    /// Its ticket's title.
    #[schemars(length(min = 1, max = 500))]
    pub title: String,
    /// Its ticket's description.
    #[schemars(length(max = 100000))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The agent that does it: one of the plan's `agents`.
    #[schemars(length(min = 1, max = 100))]
    pub agent: String,
    /// The skills it needs: its agent must have each.
    #[schemars(length(max = 50), inner(length(min = 1, max = 100)))]
    #[serde(default)]
    pub skills: Vec<String>,
    /// The ids of the tasks it waits for (its ticket is blocked_by theirs).
    #[schemars(length(max = 100), inner(length(min = 1, max = 100)))]
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// What it may spend, from the plan's envelope (default 0).
    #[schemars(range(min = 0))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<i64>,
    /// How much its agent is to decide alone, 0..3: at most the agent's autonomy (the
    /// operator's cap, the one delegation checks).
    #[schemars(range(min = 0, max = 3))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autonomy: Option<u8>,
}

/// A plan as stored.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct OrchestrationPlan {
    pub id: String,
    pub workspace_id: String,
    /// Its board approval.
    pub approval_id: String,
    pub title: String,
    pub plan: Plan,
    /// proposed, decomposing, decomposed, rejected or failed.
    pub status: String,
    pub proposer: String,
    /// The plan's parent ticket, once decomposed.
    pub parent_ticket_id: Option<String>,
    /// Why decomposition failed.
    pub error: Option<String>,
    /// (task id, ticket id), in the plan's order, once decomposed.
    pub tickets: Vec<(String, String)>,
    pub created_at: i64,
    pub decided_at: Option<i64>,
}

type PlanRow = (
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
    i64,
    Option<i64>,
);

const COLUMNS: &str = "id, workspace_id, approval_id, title, plan, status, proposer, proposer_name, proposer_kind, \
     parent_ticket_id, error, created_at, decided_at";

/// The orchestration area of a [`Store`].
pub struct Orchestration<'a> {
    pub(super) store: &'a Store,
}

impl Orchestration<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        self.store.err(e)
    }

    /// Puts a (checked) plan on the board: its approval (kind orchestration, requested by
    /// `by`, the plan as payload) and the plan, proposed.
    pub async fn propose(
        &self,
        workspace: &str,
        plan: &Plan,
        by: &Actor,
        by_kind: &str,
        conversation: Option<&str>,
    ) -> Result<(BoardApproval, OrchestrationPlan)> {
        let title = plan.title.clone().unwrap_or_else(|| format!("Orchestration plan: {} tasks", plan.tasks.len()));
        let payload = serde_json::to_value(plan).map_err(|e| StoreError::Invalid(e.to_string()))?;
        let approval =
            self.store.board().create(workspace, BoardKind::Orchestration, &title, &payload, by, conversation).await?;
        let id = format!("op-{}", uuid::Uuid::now_v7().simple());
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO orchestration_plans ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, 'proposed', $6, $7, $8, NULL, NULL, $9, NULL)"
        )))
        .bind(&id)
        .bind(workspace)
        .bind(&approval.id)
        .bind(&title)
        .bind(payload.to_string())
        .bind(&by.id)
        .bind(&by.name)
        .bind(by_kind)
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?;
        let p = self.by_approval(&approval.id).await?.expect("just stored");
        Ok((approval, p))
    }

    async fn row(&self, approval_id: &str) -> Result<Option<PlanRow>> {
        sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM orchestration_plans WHERE approval_id = $1")))
            .bind(approval_id)
            .fetch_optional(self.store.reader())
            .await
            .map_err(|e| self.err(e))
    }

    /// The plan of board approval `approval_id`.
    pub async fn by_approval(&self, approval_id: &str) -> Result<Option<OrchestrationPlan>> {
        let Some(r) = self.row(approval_id).await? else { return Ok(None) };
        let tickets: Vec<(String, String)> =
            sqlx::query_as("SELECT task_id, ticket_id FROM orchestration_tasks WHERE plan_id = $1 ORDER BY position")
                .bind(&r.0)
                .fetch_all(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        let plan: Plan =
            serde_json::from_str(&r.4).map_err(|e| StoreError::Invalid(format!("a stored orchestration plan: {e}")))?;
        Ok(Some(OrchestrationPlan {
            id: r.0,
            workspace_id: r.1,
            approval_id: r.2,
            title: r.3,
            plan,
            status: r.5,
            proposer: r.7,
            parent_ticket_id: r.9,
            error: r.10,
            tickets,
            created_at: r.11,
            decided_at: r.12,
        }))
    }

    /// Moves plan `id` from `from` to `to`; false when it was not in `from`.
    async fn step(&self, id: &str, from: &str, to: &str) -> Result<bool> {
        let n = sqlx::query(
            "UPDATE orchestration_plans SET status = $3, decided_at = COALESCE(decided_at, $4) WHERE id = $1 AND status = $2",
        )
        .bind(id)
        .bind(from)
        .bind(to)
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        Ok(n == 1)
    }

    /// The board decided approval `approval_id` (approved or rejected, by `by`): an approved
    /// plan is decomposed, a rejected one marked so; an approval without a plan, or a plan
    /// decided already, is left as it is. A decomposition that fails is recorded on the plan
    /// and on the approval; it is not the decision's error.
    pub async fn decided(&self, approval_id: &str, approved: bool) -> Result<()> {
        let Some(p) = self.by_approval(approval_id).await? else { return Ok(()) };
        let bot = Actor { id: "orchestration".into(), name: "orchestration".into() };
        if !approved {
            if self.step(&p.id, "proposed", "rejected").await? {
                self.store.board().comment(approval_id, &bot, "rejected: nothing was decomposed").await?;
            }
            return Ok(());
        }
        if !self.step(&p.id, "proposed", "decomposing").await? {
            return Ok(());
        }
        let row = self.row(approval_id).await?.expect("it exists");
        let proposer = Member { member: row.6.clone(), kind: row.8.clone(), name: row.7.clone() };
        match self.decompose(&p, &proposer).await {
            Ok(keys) => {
                self.step(&p.id, "decomposing", "decomposed").await?;
                let note = format!("decomposed: {} (the plan), {}", keys[0], keys[1..].join(", "));
                self.store.board().comment(approval_id, &bot, &note).await?;
            }
            Err(e) => {
                sqlx::query("UPDATE orchestration_plans SET status = 'failed', error = $2 WHERE id = $1")
                    .bind(&p.id)
                    .bind(e.to_string())
                    .execute(self.store.writer())
                    .await
                    .map_err(|e| self.err(e))?;
                self.store.board().comment(approval_id, &bot, &format!("decomposition failed: {e}")).await?;
            }
        }
        Ok(())
    }

    /// Plans still proposed whose approval was decided (a server that stopped between the
    /// decision and its follow-up): each handled as [`Orchestration::decided`] would have.
    /// Answers how many. (A plan left decomposing by a server that died mid-way stays so, with
    /// the tickets made until then: the operator sees it on the board.)
    pub async fn resume(&self) -> Result<usize> {
        let due: Vec<(String, String)> = sqlx::query_as(
            "SELECT p.approval_id, a.status FROM orchestration_plans p JOIN board_approvals a ON a.id = p.approval_id \
             WHERE p.status = 'proposed' AND a.status IN ('approved', 'rejected') ORDER BY p.created_at, p.id",
        )
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        for (approval, status) in &due {
            self.decided(approval, status == "approved").await?;
        }
        Ok(due.len())
    }

    /// The tickets of plan `p`: the parent, then one per task, then the relations; answers
    /// their keys (the parent's first).
    async fn decompose(&self, p: &OrchestrationPlan, proposer: &Member) -> Result<Vec<String>> {
        let ws = &p.workspace_id;
        let tickets = self.store.tickets();
        let mut agents = std::collections::HashMap::new();
        for t in &p.plan.tasks {
            if !agents.contains_key(&t.agent) {
                let a = self.store.agents().by_name(ws, &t.agent).await?.ok_or_else(|| StoreError::NotFound {
                    what: format!(
                        "agent '{}' in workspace '{ws}' (task {}; it was there when proposed)",
                        t.agent, t.id
                    ),
                })?;
                agents.insert(t.agent.clone(), a);
            }
        }
        let creator_agent = (proposer.kind == "agent").then(|| proposer.member.clone());
        let list: Vec<String> = p.plan.tasks.iter().map(|t| format!("- {} ({}): {}", t.id, t.agent, t.title)).collect();
        let description = format!(
            "{}{}Approved on the board ({}). Tasks:\n{}",
            p.plan.summary.as_deref().unwrap_or_default(),
            if p.plan.summary.is_some() { "\n\n" } else { "" },
            p.approval_id,
            list.join("\n")
        );
        let parent = tickets
            .create(
                ws,
                NewTicket {
                    title: p.title.clone(),
                    description,
                    creator: proposer.name.clone(),
                    creator_agent_id: creator_agent.clone(),
                    budget: Some(p.plan.budget),
                    members: vec![proposer.clone()],
                    ..NewTicket::default()
                },
            )
            .await?;
        sqlx::query("UPDATE orchestration_plans SET parent_ticket_id = $2 WHERE id = $1")
            .bind(&p.id)
            .bind(&parent.id)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?;
        let mut keys = vec![parent.key.clone()];
        let mut ids: std::collections::HashMap<&str, String> = std::collections::HashMap::new();
        for (i, t) in p.plan.tasks.iter().enumerate() {
            let a = &agents[&t.agent];
            let mut members = vec![proposer.clone()];
            if proposer.member != a.id {
                members.push(Member { member: a.id.clone(), kind: "agent".into(), name: a.name.clone() });
            }
            let child = tickets
                .create(
                    ws,
                    NewTicket {
                        title: t.title.clone(),
                        description: t.description.clone().unwrap_or_default(),
                        assignee_id: Some(a.id.clone()),
                        parent_id: Some(parent.id.clone()),
                        creator: proposer.name.clone(),
                        creator_agent_id: creator_agent.clone(),
                        budget: t.budget,
                        members,
                        ..NewTicket::default()
                    },
                )
                .await?;
            sqlx::query(
                "INSERT INTO orchestration_tasks (plan_id, task_id, ticket_id, position) VALUES ($1, $2, $3, $4)",
            )
            .bind(&p.id)
            .bind(&t.id)
            .bind(&child.id)
            .bind(i as i64)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?;
            keys.push(child.key.clone());
            ids.insert(t.id.as_str(), child.id);
        }
        for t in &p.plan.tasks {
            for d in &t.depends_on {
                let (Some(a), Some(b)) = (ids.get(t.id.as_str()), ids.get(d.as_str())) else { continue };
                tickets.relate(ws, a, RelationKind::BlockedBy, b, "orchestration").await?;
            }
        }
        Ok(keys)
    }
}
