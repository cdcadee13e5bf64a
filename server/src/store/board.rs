//! The approvals board: "may this governed action go ahead, and who said so?" A board
//! approval (plan exit, merge, publish, hire, custom) is opened by a requester and moves by
//! decisions — a state machine that refuses illegal steps:
//!
//! | from               | approve  | reject   | request_revision   | resubmit (requester only) |
//! |--------------------|----------|----------|--------------------|---------------------------|
//! | pending            | approved | rejected | revision_requested | —                         |
//! | revision_requested | —        | rejected | —                  | pending                   |
//! | approved, rejected | —        | —        | —                  | —                         |
//!
//! The requester never decides its own request (approve, reject, request_revision); only
//! the requester resubmits. Every step and comment is an event, numbered per approval, in
//! the transaction that makes it (a step is a compare-and-set on the status: two deciders
//! racing get one decision).

use serde::{Deserialize, Serialize};

use super::{now, Result, Store, StoreError};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BoardKind {
    PlanExit,
    Merge,
    Publish,
    Hire,
    Custom,
    // A multi-agent plan (propose_orchestration): decomposed into tickets once approved.
    // (Plain comments: a doc comment would turn the kinds' enum schema into a oneOf.)
    Orchestration,
    // A plan a playbook produced (run_playbook), waiting for the operator.
    Plan,
}

impl BoardKind {
    pub const ALL: [BoardKind; 7] = [
        BoardKind::PlanExit,
        BoardKind::Merge,
        BoardKind::Publish,
        BoardKind::Hire,
        BoardKind::Custom,
        BoardKind::Orchestration,
        BoardKind::Plan,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BoardKind::PlanExit => "plan_exit",
            BoardKind::Merge => "merge",
            BoardKind::Publish => "publish",
            BoardKind::Hire => "hire",
            BoardKind::Custom => "custom",
            BoardKind::Orchestration => "orchestration",
            BoardKind::Plan => "plan",
        }
    }

    fn parse(s: &str) -> Result<BoardKind> {
        BoardKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| StoreError::Invalid(format!("a board approval of the unknown kind '{s}'")))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BoardStatus {
    Pending,
    Approved,
    Rejected,
    RevisionRequested,
}

impl BoardStatus {
    pub const ALL: [BoardStatus; 4] =
        [BoardStatus::Pending, BoardStatus::Approved, BoardStatus::Rejected, BoardStatus::RevisionRequested];

    pub fn as_str(self) -> &'static str {
        match self {
            BoardStatus::Pending => "pending",
            BoardStatus::Approved => "approved",
            BoardStatus::Rejected => "rejected",
            BoardStatus::RevisionRequested => "revision_requested",
        }
    }

    pub fn parse(s: &str) -> Result<BoardStatus> {
        BoardStatus::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| StoreError::Invalid(format!("a board approval with the unknown status '{s}'")))
    }
}

/// A step of the state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Approve,
    Reject,
    RequestRevision,
    Resubmit,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Approve => "approve",
            Decision::Reject => "reject",
            Decision::RequestRevision => "request_revision",
            Decision::Resubmit => "resubmit",
        }
    }

    /// Where `self` takes an approval in status `from`, if it may.
    pub fn step(self, from: BoardStatus) -> Option<BoardStatus> {
        use BoardStatus as S;
        match (from, self) {
            (S::Pending, Decision::Approve) => Some(S::Approved),
            (S::Pending | S::RevisionRequested, Decision::Reject) => Some(S::Rejected),
            (S::Pending, Decision::RequestRevision) => Some(S::RevisionRequested),
            (S::RevisionRequested, Decision::Resubmit) => Some(S::Pending),
            _ => None,
        }
    }
}

/// Who acts: an id that compares (a principal's name, an agent's id) and a name to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BoardApproval {
    pub id: String,
    pub workspace_id: String,
    pub kind: BoardKind,
    pub title: String,
    pub payload: serde_json::Value,
    pub status: BoardStatus,
    /// Who asked (a principal's name or an agent's name).
    pub requester: String,
    #[serde(skip)]
    pub requester_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    /// When an approved plan_exit took its conversation out of plan mode (it is used once).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumed_at: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BoardEvent {
    pub seq: i64,
    /// create, approve, reject, request_revision, resubmit, comment.
    pub action: String,
    pub actor: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub at: i64,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    workspace_id: String,
    kind: String,
    title: String,
    payload: String,
    status: String,
    requester: String,
    requester_name: String,
    conversation: Option<String>,
    decided_by: Option<String>,
    decided_at: Option<i64>,
    created_at: i64,
    updated_at: i64,
    consumed_at: Option<i64>,
}

const COLUMNS: &str = "id, workspace_id, kind, title, payload, status, requester, requester_name, conversation, \
     decided_by, decided_at, created_at, updated_at, consumed_at";

impl Row {
    fn into_approval(self) -> Result<BoardApproval> {
        Ok(BoardApproval {
            kind: BoardKind::parse(&self.kind)?,
            status: BoardStatus::parse(&self.status)?,
            payload: serde_json::from_str(&self.payload)
                .map_err(|e| StoreError::Invalid(format!("a stored board payload: {e}")))?,
            id: self.id,
            workspace_id: self.workspace_id,
            title: self.title,
            requester: self.requester_name,
            requester_id: self.requester,
            conversation: self.conversation,
            decided_by: self.decided_by,
            decided_at: self.decided_at,
            created_at: self.created_at,
            updated_at: self.updated_at,
            consumed_at: self.consumed_at,
        })
    }
}

/// The board area of a [`Store`].
pub struct Board<'a> {
    pub(super) store: &'a Store,
}

impl Board<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        self.store.err(e)
    }

    async fn event(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Any>,
        id: &str,
        action: &str,
        by: &Actor,
        note: Option<&str>,
    ) -> Result<()> {
        let seq: i64 =
            sqlx::query_scalar("UPDATE board_approvals SET next_seq = next_seq + 1 WHERE id = $1 RETURNING next_seq")
                .bind(id)
                .fetch_one(&mut **tx)
                .await
                .map_err(|e| self.err(e))?;
        sqlx::query(
            "INSERT INTO board_events (approval_id, seq, action, actor, actor_name, note, at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(id)
        .bind(seq)
        .bind(action)
        .bind(&by.id)
        .bind(&by.name)
        .bind(note)
        .bind(now())
        .execute(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Opens a board approval (pending).
    pub async fn create(
        &self,
        workspace: &str,
        kind: BoardKind,
        title: &str,
        payload: &serde_json::Value,
        by: &Actor,
        conversation: Option<&str>,
    ) -> Result<BoardApproval> {
        let id = format!("ba-{}", uuid::Uuid::now_v7().simple());
        let at = now();
        let mut tx = self.store.begin().await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO board_approvals ({COLUMNS}, next_seq) VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, NULL, NULL, $9, $9, NULL, 0)"
        )))
        .bind(&id)
        .bind(workspace)
        .bind(kind.as_str())
        .bind(title)
        .bind(payload.to_string())
        .bind(&by.id)
        .bind(&by.name)
        .bind(conversation)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        self.event(&mut tx, &id, "create", by, None).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(self.get(&id).await?.expect("just created"))
    }

    pub async fn get(&self, id: &str) -> Result<Option<BoardApproval>> {
        let row: Option<Row> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM board_approvals WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        row.map(Row::into_approval).transpose()
    }

    /// A workspace's board approvals (in `status`, when given), newest first.
    pub async fn list(&self, workspace: &str, status: Option<BoardStatus>, limit: u32) -> Result<Vec<BoardApproval>> {
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM board_approvals WHERE workspace_id = $1 AND ($2 IS NULL OR status = $2) \
             ORDER BY created_at DESC, id DESC LIMIT $3"
        )))
        .bind(workspace)
        .bind(status.map(|s| s.as_str()))
        .bind(limit as i64)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter().map(Row::into_approval).collect()
    }

    /// Takes `decision` on approval `id`: refused ([`StoreError::Conflict`]) when the state
    /// machine has no such step from its status, when the requester decides its own request,
    /// or when someone else resubmits it.
    pub async fn decide(&self, id: &str, decision: Decision, by: &Actor, note: Option<&str>) -> Result<BoardApproval> {
        let a = self.get(id).await?.ok_or_else(|| StoreError::NotFound { what: format!("board approval '{id}'") })?;
        let own = a.requester_id == by.id;
        if decision == Decision::Resubmit && !own {
            return Err(StoreError::Conflict(format!(
                "only its requester ({}) resubmits board approval {id}",
                a.requester
            )));
        }
        if decision != Decision::Resubmit && own {
            return Err(StoreError::Conflict(format!(
                "{} requested board approval {id}: a requester cannot {} its own request",
                by.name,
                decision.as_str()
            )));
        }
        let Some(to) = decision.step(a.status) else {
            return Err(StoreError::Conflict(illegal(id, a.status, decision)));
        };
        let at = now();
        let decided = matches!(to, BoardStatus::Approved | BoardStatus::Rejected);
        let mut tx = self.store.begin().await?;
        let n = sqlx::query(
            "UPDATE board_approvals SET status = $3, updated_at = $4, decided_by = CASE WHEN $5 = 1 THEN $6 ELSE decided_by END, \
             decided_at = CASE WHEN $5 = 1 THEN $4 ELSE decided_at END WHERE id = $1 AND status = $2",
        )
        .bind(id)
        .bind(a.status.as_str())
        .bind(to.as_str())
        .bind(at)
        .bind(decided as i64)
        .bind(&by.name)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        if n == 0 {
            // Someone else moved it first.
            drop(tx);
            let now_status = self.get(id).await?.map_or(a.status, |a| a.status);
            return Err(StoreError::Conflict(illegal(id, now_status, decision)));
        }
        self.event(&mut tx, id, decision.as_str(), by, note).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        // What a decision sets going, by kind (after it is committed: the decision stands
        // whatever follows; each follow-up is idempotent).
        if a.kind == BoardKind::Orchestration && decided {
            self.store.orchestration().decided(id, to == BoardStatus::Approved).await?;
        }
        Ok(self.get(id).await?.expect("it exists"))
    }

    /// The newest approval of `kind` opened in `conversation`, if any.
    pub async fn latest_of(
        &self,
        workspace: &str,
        kind: BoardKind,
        conversation: &str,
    ) -> Result<Option<BoardApproval>> {
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM board_approvals WHERE workspace_id = $1 AND kind = $2 AND conversation = $3 \
             ORDER BY created_at DESC, id DESC LIMIT 1"
        )))
        .bind(workspace)
        .bind(kind.as_str())
        .bind(conversation)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        row.map(Row::into_approval).transpose()
    }

    /// Uses approved approval `id` once; false when it is not approved or was used already.
    pub async fn consume(&self, id: &str) -> Result<bool> {
        let n = sqlx::query(
            "UPDATE board_approvals SET consumed_at = $2 WHERE id = $1 AND status = 'approved' AND consumed_at IS NULL",
        )
        .bind(id)
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        Ok(n == 1)
    }

    /// Adds a comment to approval `id` (in any status).
    pub async fn comment(&self, id: &str, by: &Actor, text: &str) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let there: Option<i64> = sqlx::query_scalar("SELECT 1 FROM board_approvals WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        if there.is_none() {
            return Err(StoreError::NotFound { what: format!("board approval '{id}'") });
        }
        self.event(&mut tx, id, "comment", by, Some(text)).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Approval `id`'s steps and comments, in order.
    pub async fn events(&self, id: &str) -> Result<Vec<BoardEvent>> {
        let rows: Vec<(i64, String, String, Option<String>, i64)> = sqlx::query_as(
            "SELECT seq, action, actor_name, note, at FROM board_events WHERE approval_id = $1 ORDER BY seq",
        )
        .bind(id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().map(|(seq, action, actor, note, at)| BoardEvent { seq, action, actor, note, at }).collect())
    }
}

fn illegal(id: &str, from: BoardStatus, d: Decision) -> String {
    let allowed: Vec<&str> = [Decision::Approve, Decision::Reject, Decision::RequestRevision, Decision::Resubmit]
        .into_iter()
        .filter(|x| x.step(from).is_some())
        .map(Decision::as_str)
        .collect();
    format!(
        "board approval {id} is {}: {} is not a step from there (allowed: {})",
        from.as_str(),
        d.as_str(),
        if allowed.is_empty() { "none, it is decided".to_string() } else { allowed.join(", ") }
    )
}
