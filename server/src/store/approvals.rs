//! Approvals of tool calls: "may this exact call run?" — asked by the confirmation port
//! (`mcp::approvals`), decided by the operator (`cc-server approvals`, `/approvals`) or by
//! the client (elicitation), and used once.

use serde::{Deserialize, Serialize};

use super::{now, Result, Store, StoreError};

/// Where an approval stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalStatus {
    Pending,
    Approved,
    Rejected,
}

impl ApprovalStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalStatus::Pending => "pending",
            ApprovalStatus::Approved => "approved",
            ApprovalStatus::Rejected => "rejected",
        }
    }

    fn parse(s: &str) -> Result<ApprovalStatus> {
        match s {
            "pending" => Ok(ApprovalStatus::Pending),
            "approved" => Ok(ApprovalStatus::Approved),
            "rejected" => Ok(ApprovalStatus::Rejected),
            other => Err(StoreError::Invalid(format!("an approval with the unknown status '{other}'"))),
        }
    }
}

impl std::fmt::Display for ApprovalStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool call waiting for (or given) an operator's or a user's decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Approval {
    pub id: String,
    /// Seconds since the epoch.
    pub created_at: i64,
    pub tool: String,
    /// The call's arguments (without workspace_id), as canonical JSON.
    pub arguments: serde_json::Value,
    pub workspace: Option<String>,
    pub conversation: String,
    pub principal: String,
    /// Why the call needs an approval.
    pub why: String,
    pub status: ApprovalStatus,
    pub decided_at: Option<i64>,
    pub decided_by: Option<String>,
    pub reason: Option<String>,
    /// When the call it approved (or the refusal) was delivered; then it is spent.
    pub consumed_at: Option<i64>,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    created_at: i64,
    tool: String,
    arguments: String,
    workspace_id: Option<String>,
    conversation: String,
    principal: String,
    why: String,
    status: String,
    decided_at: Option<i64>,
    decided_by: Option<String>,
    reason: Option<String>,
    consumed_at: Option<i64>,
}

impl Row {
    fn into_approval(self) -> Result<Approval> {
        Ok(Approval {
            arguments: serde_json::from_str(&self.arguments).unwrap_or(serde_json::Value::String(self.arguments)),
            status: ApprovalStatus::parse(&self.status)?,
            id: self.id,
            created_at: self.created_at,
            tool: self.tool,
            workspace: self.workspace_id,
            conversation: self.conversation,
            principal: self.principal,
            why: self.why,
            decided_at: self.decided_at,
            decided_by: self.decided_by,
            reason: self.reason,
            consumed_at: self.consumed_at,
        })
    }
}

const COLUMNS: &str = "id, created_at, tool, arguments, workspace_id, conversation, principal, why, status, decided_at, decided_by, reason, consumed_at";

/// The approvals area of a [`Store`].
pub struct Approvals<'a> {
    pub(super) store: &'a Store,
}

impl Approvals<'_> {
    fn all(rows: Vec<Row>) -> Result<Vec<Approval>> {
        rows.into_iter().map(Row::into_approval).collect()
    }

    /// Records an approval (pending, or already decided by the client).
    pub async fn insert(&self, a: &Approval) -> Result<()> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO approvals ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        )))
        .bind(&a.id)
        .bind(a.created_at)
        .bind(&a.tool)
        .bind(a.arguments.to_string())
        .bind(&a.workspace)
        .bind(&a.conversation)
        .bind(&a.principal)
        .bind(&a.why)
        .bind(a.status.as_str())
        .bind(a.decided_at)
        .bind(&a.decided_by)
        .bind(&a.reason)
        .bind(a.consumed_at)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// Approvals, newest first; `pending_only` for the operator's queue.
    pub async fn list(&self, pending_only: bool) -> Result<Vec<Approval>> {
        let filter = if pending_only { "WHERE status = 'pending'" } else { "" };
        let rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM approvals {filter} ORDER BY created_at DESC, id DESC"
        )))
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))?;
        Self::all(rows)
    }

    pub async fn get(&self, id: &str) -> Result<Option<Approval>> {
        let row: Option<Row> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM approvals WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.store.err(e))?;
        row.map(Row::into_approval).transpose()
    }

    /// Decides a pending approval: [`StoreError::NotFound`] when there is none with that id,
    /// [`StoreError::Conflict`] when it is decided already. The decision and the answer are
    /// one transaction: what it answers is what it decided.
    pub async fn decide(&self, id: &str, approve: bool, by: &str, reason: Option<&str>) -> Result<Approval> {
        let status = if approve { ApprovalStatus::Approved } else { ApprovalStatus::Rejected };
        let mut tx = self.store.begin().await?;
        let n = sqlx::query(
            "UPDATE approvals SET status = $2, decided_at = $3, decided_by = $4, reason = $5 WHERE id = $1 AND status = 'pending'",
        )
        .bind(id)
        .bind(status.as_str())
        .bind(now())
        .bind(by)
        .bind(reason)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.store.err(e))?
        .rows_affected();
        let row: Option<Row> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM approvals WHERE id = $1")))
                .bind(id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.store.err(e))?;
        tx.commit().await.map_err(|e| self.store.err(e))?;
        match row.map(Row::into_approval).transpose()? {
            None => Err(StoreError::NotFound {
                what: format!("approval '{id}' (cc-server approvals list shows the pending ones)"),
            }),
            Some(a) if n == 0 => Err(StoreError::Conflict(format!("approval '{id}' is already {}", a.status))),
            Some(a) => Ok(a),
        }
    }

    /// The newest unconsumed approval of this exact call (principal, tool, workspace,
    /// canonical arguments), whatever its status.
    pub async fn open_for(
        &self,
        principal: &str,
        tool: &str,
        workspace: Option<&str>,
        arguments: &str,
    ) -> Result<Option<Approval>> {
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM approvals WHERE principal = $1 AND tool = $2 AND workspace_id IS NOT DISTINCT FROM $3 \
             AND arguments = $4 AND consumed_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1"
        )))
        .bind(principal)
        .bind(tool)
        .bind(workspace)
        .bind(arguments)
        .fetch_optional(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?;
        row.map(Row::into_approval).transpose()
    }

    /// Marks a decided approval used; `true` for the one caller that did (an approval runs
    /// its call once).
    pub async fn consume(&self, id: &str) -> Result<bool> {
        let n = sqlx::query(
            "UPDATE approvals SET consumed_at = $2 WHERE id = $1 AND consumed_at IS NULL AND status <> 'pending'",
        )
        .bind(id)
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?
        .rows_affected();
        Ok(n == 1)
    }

    /// How many approvals of `principal` wait for a decision.
    pub async fn pending_of(&self, principal: &str) -> Result<usize> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM approvals WHERE principal = $1 AND status = 'pending'")
            .bind(principal)
            .fetch_one(self.store.reader())
            .await
            .map_err(|e| self.store.err(e))?;
        Ok(n as usize)
    }
}
