//! The console's read-only queries: counts by status and pages of rows (LIMIT/OFFSET) that
//! the store's areas do not answer in one query. SQL both backends run, like the store's;
//! nothing here writes (decisions go through `store::Approvals`, `store::Board`).

use std::collections::HashMap;

use crate::store::{Message, Result, Sender, Store};

/// Tool calls waiting for the operator (of workspace `ws`, or of none) plus the board's
/// pending approvals of `ws`.
pub(crate) async fn waiting(store: &Store, ws: &str) -> Result<i64> {
    let n: i64 = sqlx::query_scalar(
        "SELECT (SELECT COUNT(*) FROM approvals WHERE status = 'pending' AND (workspace_id = $1 OR workspace_id IS NULL)) \
         + (SELECT COUNT(*) FROM board_approvals WHERE workspace_id = $1 AND status = 'pending')",
    )
    .bind(ws)
    .fetch_one(store.reader())
    .await
    .map_err(|e| store.err(e))?;
    Ok(n)
}

/// How many tickets of `ws` are in each status.
pub(crate) async fn ticket_counts(store: &Store, ws: &str) -> Result<HashMap<String, i64>> {
    let rows: Vec<(String, i64)> =
        sqlx::query_as("SELECT status, COUNT(*) FROM tickets WHERE workspace_id = $1 GROUP BY status")
            .bind(ws)
            .fetch_all(store.reader())
            .await
            .map_err(|e| store.err(e))?;
    Ok(rows.into_iter().collect())
}

/// A ticket as a list shows it.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct TicketLine {
    pub number: i64,
    pub title: String,
    pub priority: String,
    pub assignee_id: Option<String>,
    pub updated_at: i64,
}

/// Tickets of `ws` (in `status`, when given), newest first.
pub(crate) async fn tickets(
    store: &Store,
    ws: &str,
    status: Option<&str>,
    offset: i64,
    limit: i64,
) -> Result<Vec<TicketLine>> {
    sqlx::query_as(
        "SELECT number, title, priority, assignee_id, updated_at FROM tickets \
         WHERE workspace_id = $1 AND ($2 IS NULL OR status = $2) ORDER BY number DESC LIMIT $3 OFFSET $4",
    )
    .bind(ws)
    .bind(status)
    .bind(limit)
    .bind(offset)
    .fetch_all(store.reader())
    .await
    .map_err(|e| store.err(e))
}

/// Each agent's live runs in `ws`: agent id -> (running, queued).
pub(crate) async fn live_runs(store: &Store, ws: &str) -> Result<HashMap<String, (i64, i64)>> {
    let rows: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT agent_id, status, COUNT(*) FROM runs WHERE workspace_id = $1 AND status IN ('queued', 'running') \
         GROUP BY agent_id, status",
    )
    .bind(ws)
    .fetch_all(store.reader())
    .await
    .map_err(|e| store.err(e))?;
    let mut out: HashMap<String, (i64, i64)> = HashMap::new();
    for (agent, status, n) in rows {
        let e = out.entry(agent).or_default();
        if status == "running" {
            e.0 = n;
        } else {
            e.1 = n;
        }
    }
    Ok(out)
}

type MessageRow = (String, String, i64, String, String, Option<String>, String, Option<String>, i64);
/// A [`MessageRow`] and its space's name.
type MessageInSpace = (String, String, i64, String, String, Option<String>, String, Option<String>, i64, String);

fn message((id, space_id, seq, kind, name, agent_id, text, reply_to, created_at): MessageRow) -> Message {
    Message { id, space_id, seq, sender: Sender { kind, name, agent_id }, text, reply_to, created_at }
}

/// The newest messages of `ws`'s spaces, each with its space's name.
pub(crate) async fn recent_messages(
    store: &Store,
    ws: &str,
    offset: i64,
    limit: i64,
) -> Result<Vec<(Message, String)>> {
    let rows: Vec<MessageInSpace> = sqlx::query_as(
        "SELECT m.id, m.space_id, m.seq, m.sender_kind, m.sender_name, m.sender_agent_id, m.text, m.reply_to, \
             m.created_at, s.name FROM messages m JOIN spaces s ON s.id = m.space_id WHERE s.workspace_id = $1 \
             ORDER BY m.created_at DESC, m.id DESC LIMIT $2 OFFSET $3",
    )
    .bind(ws)
    .bind(limit)
    .bind(offset)
    .fetch_all(store.reader())
    .await
    .map_err(|e| store.err(e))?;
    Ok(rows
        .into_iter()
        .map(|(a, b, c, d, e, f, g, h, i, space)| (message((a, b, c, d, e, f, g, h, i)), space))
        .collect())
}

/// A space's messages, newest first.
pub(crate) async fn space_messages(store: &Store, space: &str, offset: i64, limit: i64) -> Result<Vec<Message>> {
    let rows: Vec<MessageRow> = sqlx::query_as(
        "SELECT id, space_id, seq, sender_kind, sender_name, sender_agent_id, text, reply_to, created_at \
         FROM messages WHERE space_id = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3",
    )
    .bind(space)
    .bind(limit)
    .bind(offset)
    .fetch_all(store.reader())
    .await
    .map_err(|e| store.err(e))?;
    Ok(rows.into_iter().map(message).collect())
}

/// Ids of tool-call approvals of `ws` (or of no workspace): pending ones oldest first, decided
/// ones newest first.
pub(crate) async fn call_approvals(
    store: &Store,
    ws: &str,
    pending: bool,
    offset: i64,
    limit: i64,
) -> Result<Vec<String>> {
    let (filter, order) = if pending {
        ("status = 'pending'", "created_at, id")
    } else {
        ("status <> 'pending'", "created_at DESC, id DESC")
    };
    let sql = format!(
        "SELECT id FROM approvals WHERE {filter} AND (workspace_id = $1 OR workspace_id IS NULL) \
         ORDER BY {order} LIMIT $2 OFFSET $3"
    );
    ids(store, sql, ws, offset, limit).await
}

/// Ids of `ws`'s board approvals: open ones (pending, revision requested) oldest first, decided
/// ones newest first.
pub(crate) async fn board_approvals(
    store: &Store,
    ws: &str,
    open: bool,
    offset: i64,
    limit: i64,
) -> Result<Vec<String>> {
    let (filter, order) = if open {
        ("status IN ('pending', 'revision_requested')", "created_at, id")
    } else {
        ("status IN ('approved', 'rejected')", "updated_at DESC, id DESC")
    };
    let sql = format!(
        "SELECT id FROM board_approvals WHERE workspace_id = $1 AND {filter} ORDER BY {order} LIMIT $2 OFFSET $3"
    );
    ids(store, sql, ws, offset, limit).await
}

/// Ids of `ws`'s runs (of `agent`, when given), newest first.
pub(crate) async fn runs(store: &Store, ws: &str, agent: Option<&str>, offset: i64, limit: i64) -> Result<Vec<String>> {
    sqlx::query_scalar(
        "SELECT id FROM runs WHERE workspace_id = $1 AND ($2 IS NULL OR agent_id = $2) \
         ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4",
    )
    .bind(ws)
    .bind(agent)
    .bind(limit)
    .bind(offset)
    .fetch_all(store.reader())
    .await
    .map_err(|e| store.err(e))
}

/// Ids of `ws`'s reviews, newest first.
pub(crate) async fn reviews(store: &Store, ws: &str, offset: i64, limit: i64) -> Result<Vec<String>> {
    let sql = "SELECT id FROM reviews WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3";
    ids(store, sql.to_string(), ws, offset, limit).await
}

/// Ids of `ws`'s artifacts, newest change first.
pub(crate) async fn artifacts(store: &Store, ws: &str, offset: i64, limit: i64) -> Result<Vec<String>> {
    let sql = "SELECT id FROM artifacts WHERE workspace_id = $1 ORDER BY updated_at DESC, id DESC LIMIT $2 OFFSET $3";
    ids(store, sql.to_string(), ws, offset, limit).await
}

/// The ids `sql` selects for workspace `$1`, `$2` rows from row `$3` (its filter and order
/// are the caller's constants, never a request's text).
async fn ids(store: &Store, sql: String, ws: &str, offset: i64, limit: i64) -> Result<Vec<String>> {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(ws)
        .bind(limit)
        .bind(offset)
        .fetch_all(store.reader())
        .await
        .map_err(|e| store.err(e))
}
