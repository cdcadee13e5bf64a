//! Replicas and their rigs: "which servers share this store, is each still there, and which
//! rigs does each hold?" Every server process is a replica with a heartbeat
//! (`crate::replicas`); the rigs of its pool are recorded here under it, so `rig_list` on any
//! replica shows the workspace's rigs of all of them and `rig_close` knows whom to ask. A
//! replica whose heartbeat stopped is *lost* (its rigs listed as such), and swept later with
//! its records (`ON DELETE CASCADE`).

use super::{Result, Store};

/// A server process sharing the store.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct ReplicaRow {
    pub id: String,
    /// `hostname/boot id`.
    pub host: String,
    pub pid: i64,
    pub started_at: i64,
    pub heartbeat_at: i64,
}

/// One rig of a replica's pool, as its owner last wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RigRecord {
    pub id: String,
    pub workspace_id: String,
    /// The conversation controlling it.
    pub conversation: String,
    pub surface: String,
    pub engine: String,
    pub replica_id: String,
    /// ready, busy or failed.
    pub status: String,
    pub failure: Option<String>,
    pub kept: bool,
    pub display_width: i64,
    pub display_height: i64,
    pub created_at: i64,
    pub last_used_at: i64,
    pub idle_expires_at: i64,
}

/// A rig record with its owner's heartbeat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedRig {
    pub rig: RigRecord,
    pub replica: ReplicaRow,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    workspace_id: String,
    conversation: String,
    surface: String,
    engine: String,
    replica_id: String,
    status: String,
    failure: Option<String>,
    kept: i64,
    display_width: i64,
    display_height: i64,
    created_at: i64,
    last_used_at: i64,
    idle_expires_at: i64,
    host: String,
    pid: i64,
    started_at: i64,
    heartbeat_at: i64,
}

impl Row {
    fn listed(self) -> ListedRig {
        ListedRig {
            replica: ReplicaRow {
                id: self.replica_id.clone(),
                host: self.host,
                pid: self.pid,
                started_at: self.started_at,
                heartbeat_at: self.heartbeat_at,
            },
            rig: RigRecord {
                id: self.id,
                workspace_id: self.workspace_id,
                conversation: self.conversation,
                surface: self.surface,
                engine: self.engine,
                replica_id: self.replica_id,
                status: self.status,
                failure: self.failure,
                kept: self.kept != 0,
                display_width: self.display_width,
                display_height: self.display_height,
                created_at: self.created_at,
                last_used_at: self.last_used_at,
                idle_expires_at: self.idle_expires_at,
            },
        }
    }
}

const LISTED: &str = "SELECT r.id, r.workspace_id, r.conversation, r.surface, r.engine, r.replica_id, r.status, \
     r.failure, r.kept, r.display_width, r.display_height, r.created_at, r.last_used_at, r.idle_expires_at, \
     p.host, p.pid, p.started_at, p.heartbeat_at FROM rigs r JOIN replicas p ON p.id = r.replica_id";

const UPSERT_RIG: &str = "INSERT INTO rigs (id, workspace_id, conversation, surface, engine, replica_id, status, \
     failure, kept, display_width, display_height, created_at, last_used_at, idle_expires_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
     ON CONFLICT (id) DO UPDATE SET conversation = excluded.conversation, status = excluded.status, \
     failure = excluded.failure, kept = excluded.kept, last_used_at = excluded.last_used_at, \
     idle_expires_at = excluded.idle_expires_at";

/// The replicas area of a [`Store`].
pub struct Replicas<'a> {
    pub(super) store: &'a Store,
}

impl Replicas<'_> {
    /// Records replica `r` (first call) or its heartbeat (later ones: its `heartbeat_at`).
    pub async fn heartbeat(&self, r: &ReplicaRow) -> Result<()> {
        sqlx::query(
            "INSERT INTO replicas (id, host, pid, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
        )
        .bind(&r.id)
        .bind(&r.host)
        .bind(r.pid)
        .bind(r.started_at)
        .bind(r.heartbeat_at)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?;
        Ok(())
    }

    pub async fn get(&self, id: &str) -> Result<Option<ReplicaRow>> {
        sqlx::query_as("SELECT id, host, pid, started_at, heartbeat_at FROM replicas WHERE id = $1")
            .bind(id)
            .fetch_optional(self.store.reader())
            .await
            .map_err(|e| self.store.err(e))
    }

    /// Every replica, the most recently heard first.
    pub async fn list(&self) -> Result<Vec<ReplicaRow>> {
        sqlx::query_as("SELECT id, host, pid, started_at, heartbeat_at FROM replicas ORDER BY heartbeat_at DESC, id")
            .fetch_all(self.store.reader())
            .await
            .map_err(|e| self.store.err(e))
    }

    /// A replica leaves (it stops): its row goes, and its rigs' records with it.
    pub async fn leave(&self, id: &str) -> Result<()> {
        let mut tx = self.store.begin().await?;
        for q in ["DELETE FROM rigs WHERE replica_id = $1", "DELETE FROM replicas WHERE id = $1"] {
            sqlx::query(q).bind(id).execute(&mut *tx).await.map_err(|e| self.store.err(e))?;
        }
        tx.commit().await.map_err(|e| self.store.err(e))
    }

    /// Removes the replicas last heard from before `before` (seconds since the epoch) and
    /// their rigs' records; returns how many replicas went.
    pub async fn sweep(&self, before: i64) -> Result<u64> {
        let mut tx = self.store.begin().await?;
        sqlx::query("DELETE FROM rigs WHERE replica_id IN (SELECT id FROM replicas WHERE heartbeat_at < $1)")
            .bind(before)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.store.err(e))?;
        let n = sqlx::query("DELETE FROM replicas WHERE heartbeat_at < $1")
            .bind(before)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.store.err(e))?
            .rows_affected();
        tx.commit().await.map_err(|e| self.store.err(e))?;
        Ok(n)
    }

    /// Records a rig (new, or its state now).
    pub async fn put_rig(&self, r: &RigRecord) -> Result<()> {
        bind_rig(sqlx::query(UPSERT_RIG), r).execute(self.store.writer()).await.map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// Removes a rig's record; whether there was one.
    pub async fn remove_rig(&self, id: &str) -> Result<bool> {
        let n = sqlx::query("DELETE FROM rigs WHERE id = $1")
            .bind(id)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.store.err(e))?
            .rows_affected();
        Ok(n > 0)
    }

    /// Makes replica `replica_id`'s records exactly `live` (its pool as it is now), in one
    /// transaction.
    pub async fn sync_rigs(&self, replica_id: &str, live: &[RigRecord]) -> Result<()> {
        let mut tx = self.store.begin().await?;
        let known: Vec<(String,)> = sqlx::query_as("SELECT id FROM rigs WHERE replica_id = $1")
            .bind(replica_id)
            .fetch_all(&mut *tx)
            .await
            .map_err(|e| self.store.err(e))?;
        for (id,) in known.iter().filter(|(id,)| !live.iter().any(|r| r.id == *id)) {
            sqlx::query("DELETE FROM rigs WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.store.err(e))?;
        }
        for r in live {
            debug_assert_eq!(r.replica_id, replica_id);
            bind_rig(sqlx::query(UPSERT_RIG), r).execute(&mut *tx).await.map_err(|e| self.store.err(e))?;
        }
        tx.commit().await.map_err(|e| self.store.err(e))
    }

    /// The workspace's rigs on every replica, oldest first.
    pub async fn rigs(&self, workspace: &str) -> Result<Vec<ListedRig>> {
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{LISTED} WHERE r.workspace_id = $1 ORDER BY r.created_at, r.id"
        )))
        .bind(workspace)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))?;
        Ok(rows.into_iter().map(Row::listed).collect())
    }

    /// Rig `id` of the workspace, wherever it is.
    pub async fn rig(&self, workspace: &str, id: &str) -> Result<Option<ListedRig>> {
        let row: Option<Row> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("{LISTED} WHERE r.workspace_id = $1 AND r.id = $2")))
                .bind(workspace)
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.store.err(e))?;
        Ok(row.map(Row::listed))
    }
}

fn bind_rig<'q>(
    q: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    r: &'q RigRecord,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments> {
    q.bind(&r.id)
        .bind(&r.workspace_id)
        .bind(&r.conversation)
        .bind(&r.surface)
        .bind(&r.engine)
        .bind(&r.replica_id)
        .bind(&r.status)
        .bind(&r.failure)
        .bind(i64::from(r.kept))
        .bind(r.display_width)
        .bind(r.display_height)
        .bind(r.created_at)
        .bind(r.last_used_at)
        .bind(r.idle_expires_at)
}
