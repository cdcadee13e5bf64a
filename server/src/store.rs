//! The workspace store: workspaces and the repositories registered in them.
//!
//! Behind the [`Store`] trait so a team server can put it in PostgreSQL; the default
//! is SQLite (`<data_dir>/workspace.sqlite3`). Later areas (tickets, memory, agents,
//! …) add their tables through [`MIGRATIONS`].

use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

/// The workspace that exists from the first start.
pub const DEFAULT_WORKSPACE: &str = "default";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Workspace {
    pub id: String,
    pub name: String,
    /// Seconds since the epoch.
    pub created_at: i64,
}

/// Storage of workspace data.
pub trait Store: Send + Sync {
    fn workspaces(&self) -> Result<Vec<Workspace>>;
    fn workspace(&self, id: &str) -> Result<Option<Workspace>>;
    /// Creates the workspace if it does not exist; `true` when it was created.
    fn ensure_workspace(&self, id: &str, name: &str) -> Result<bool>;
    /// Registers an indexed repository (by index name) in a workspace.
    fn add_repo(&self, workspace: &str, repo: &str) -> Result<()>;
    fn repos(&self, workspace: &str) -> Result<Vec<String>>;

    /// Records an approval (pending, or already decided by the client).
    fn insert_approval(&self, a: &Approval) -> Result<()>;
    /// Approvals, newest first; `pending_only` for the operator's queue.
    fn approvals(&self, pending_only: bool) -> Result<Vec<Approval>>;
    fn approval(&self, id: &str) -> Result<Option<Approval>>;
    /// Decides a pending approval; an error when there is none with that id, or it is
    /// decided already.
    fn decide_approval(&self, id: &str, approve: bool, by: &str, reason: Option<&str>) -> Result<Approval>;
    /// The newest unconsumed approval of this exact call (principal, tool, workspace,
    /// canonical arguments), whatever its status.
    fn open_approval(
        &self,
        principal: &str,
        tool: &str,
        workspace: Option<&str>,
        arguments: &str,
    ) -> Result<Option<Approval>>;
    /// Marks a decided approval used; `true` for the one caller that did (an approval
    /// runs its call once).
    fn consume_approval(&self, id: &str) -> Result<bool>;
    /// How many approvals of `principal` wait for a decision.
    fn pending_approvals_of(&self, principal: &str) -> Result<usize>;
}

/// A tool call waiting for (or given) an operator's or a user's decision.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
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
    /// `pending`, `approved` or `rejected`.
    pub status: String,
    pub decided_at: Option<i64>,
    pub decided_by: Option<String>,
    pub reason: Option<String>,
    /// When the call it approved (or the refusal) was delivered; then it is spent.
    pub consumed_at: Option<i64>,
}

/// Schema migrations, applied in order; the index is the schema version.
pub const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL);
    CREATE TABLE workspace_repos (
        workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        repo TEXT NOT NULL,
        added_at INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, repo)
    );
",
    "
    CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL,
        tool TEXT NOT NULL,
        arguments TEXT NOT NULL,
        workspace_id TEXT,
        conversation TEXT NOT NULL,
        principal TEXT NOT NULL,
        why TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
        decided_at INTEGER,
        decided_by TEXT,
        reason TEXT,
        consumed_at INTEGER
    );
    CREATE INDEX approvals_open ON approvals (principal, tool, consumed_at);
",
];

const APPROVAL_COLUMNS: &str = "id, created_at, tool, arguments, workspace_id, conversation, principal, why, status, decided_at, decided_by, reason, consumed_at";

fn approval_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Approval> {
    let args: String = r.get(3)?;
    Ok(Approval {
        id: r.get(0)?,
        created_at: r.get(1)?,
        tool: r.get(2)?,
        arguments: serde_json::from_str(&args).unwrap_or(serde_json::Value::String(args)),
        workspace: r.get(4)?,
        conversation: r.get(5)?,
        principal: r.get(6)?,
        why: r.get(7)?,
        status: r.get(8)?,
        decided_at: r.get(9)?,
        decided_by: r.get(10)?,
        reason: r.get(11)?,
        consumed_at: r.get(12)?,
    })
}

pub struct SqliteStore {
    conn: Mutex<Connection>,
}

pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

impl SqliteStore {
    /// Opens (creating and migrating) the store at `path`, with the default workspace.
    pub fn open(path: &Path) -> Result<SqliteStore> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let conn = Connection::open(path).with_context(|| format!("opening {}", path.display()))?;
        Self::init(conn)
    }

    /// An in-memory store (tests).
    pub fn memory() -> Result<SqliteStore> {
        Self::init(Connection::open_in_memory()?)
    }

    fn init(mut conn: Connection) -> Result<SqliteStore> {
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let tx = conn.transaction()?;
        for (i, m) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            tx.execute_batch(m).with_context(|| format!("workspace store migration {}", i + 1))?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        }
        tx.commit()?;
        let store = SqliteStore { conn: Mutex::new(conn) };
        store.ensure_workspace(DEFAULT_WORKSPACE, "Default")?;
        Ok(store)
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.lock().expect("store lock")
    }
}

impl Store for SqliteStore {
    fn workspaces(&self) -> Result<Vec<Workspace>> {
        let c = self.conn();
        let mut st = c.prepare("SELECT id, name, created_at FROM workspaces ORDER BY id")?;
        let rows = st.query_map([], |r| Ok(Workspace { id: r.get(0)?, name: r.get(1)?, created_at: r.get(2)? }))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn workspace(&self, id: &str) -> Result<Option<Workspace>> {
        let c = self.conn();
        Ok(c.query_row("SELECT id, name, created_at FROM workspaces WHERE id = ?1", [id], |r| {
            Ok(Workspace { id: r.get(0)?, name: r.get(1)?, created_at: r.get(2)? })
        })
        .optional()?)
    }

    fn ensure_workspace(&self, id: &str, name: &str) -> Result<bool> {
        let c = self.conn();
        let n = c.execute(
            "INSERT OR IGNORE INTO workspaces (id, name, created_at) VALUES (?1, ?2, ?3)",
            params![id, name, now()],
        )?;
        Ok(n > 0)
    }

    fn add_repo(&self, workspace: &str, repo: &str) -> Result<()> {
        let c = self.conn();
        c.execute(
            "INSERT OR IGNORE INTO workspace_repos (workspace_id, repo, added_at) VALUES (?1, ?2, ?3)",
            params![workspace, repo, now()],
        )?;
        Ok(())
    }

    fn repos(&self, workspace: &str) -> Result<Vec<String>> {
        let c = self.conn();
        let mut st = c.prepare("SELECT repo FROM workspace_repos WHERE workspace_id = ?1 ORDER BY repo")?;
        let rows = st.query_map([workspace], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn insert_approval(&self, a: &Approval) -> Result<()> {
        let c = self.conn();
        c.execute(
            &format!("INSERT INTO approvals ({APPROVAL_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"),
            params![
                a.id,
                a.created_at,
                a.tool,
                a.arguments.to_string(),
                a.workspace,
                a.conversation,
                a.principal,
                a.why,
                a.status,
                a.decided_at,
                a.decided_by,
                a.reason,
                a.consumed_at
            ],
        )?;
        Ok(())
    }

    fn approvals(&self, pending_only: bool) -> Result<Vec<Approval>> {
        let c = self.conn();
        let filter = if pending_only { "WHERE status = 'pending'" } else { "" };
        let mut st = c.prepare(&format!(
            "SELECT {APPROVAL_COLUMNS} FROM approvals {filter} ORDER BY created_at DESC, rowid DESC"
        ))?;
        let rows = st.query_map([], approval_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn approval(&self, id: &str) -> Result<Option<Approval>> {
        let c = self.conn();
        Ok(c.query_row(&format!("SELECT {APPROVAL_COLUMNS} FROM approvals WHERE id = ?1"), [id], approval_row)
            .optional()?)
    }

    fn decide_approval(&self, id: &str, approve: bool, by: &str, reason: Option<&str>) -> Result<Approval> {
        let status = if approve { "approved" } else { "rejected" };
        let n = {
            let c = self.conn();
            c.execute(
                "UPDATE approvals SET status = ?2, decided_at = ?3, decided_by = ?4, reason = ?5 WHERE id = ?1 AND status = 'pending'",
                params![id, status, now(), by, reason],
            )?
        };
        match self.approval(id)? {
            None => anyhow::bail!("no approval '{id}' (cc-server approvals list shows the pending ones)"),
            Some(a) if n == 0 => anyhow::bail!("approval '{id}' is already {}", a.status),
            Some(a) => Ok(a),
        }
    }

    fn open_approval(
        &self,
        principal: &str,
        tool: &str,
        workspace: Option<&str>,
        arguments: &str,
    ) -> Result<Option<Approval>> {
        let c = self.conn();
        Ok(c.query_row(
            &format!(
                "SELECT {APPROVAL_COLUMNS} FROM approvals WHERE principal = ?1 AND tool = ?2 AND workspace_id IS ?3 \
                 AND arguments = ?4 AND consumed_at IS NULL ORDER BY created_at DESC, rowid DESC LIMIT 1"
            ),
            params![principal, tool, workspace, arguments],
            approval_row,
        )
        .optional()?)
    }

    fn consume_approval(&self, id: &str) -> Result<bool> {
        let c = self.conn();
        let n = c.execute(
            "UPDATE approvals SET consumed_at = ?2 WHERE id = ?1 AND consumed_at IS NULL AND status != 'pending'",
            params![id, now()],
        )?;
        Ok(n == 1)
    }

    fn pending_approvals_of(&self, principal: &str) -> Result<usize> {
        let c = self.conn();
        let n: i64 = c.query_row(
            "SELECT COUNT(*) FROM approvals WHERE principal = ?1 AND status = 'pending'",
            [principal],
            |r| r.get(0),
        )?;
        Ok(n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_workspace_and_repos() {
        let s = SqliteStore::memory().unwrap();
        assert_eq!(s.workspaces().unwrap()[0].id, DEFAULT_WORKSPACE);
        assert!(s.ensure_workspace("team", "Team").unwrap());
        assert!(!s.ensure_workspace("team", "Team").unwrap());
        s.add_repo("team", "shop").unwrap();
        s.add_repo("team", "shop").unwrap();
        assert_eq!(s.repos("team").unwrap(), ["shop"]);
        assert!(s.repos(DEFAULT_WORKSPACE).unwrap().is_empty());
        assert!(s.workspace("nope").unwrap().is_none());
    }

    #[test]
    fn approvals_are_decided_once_and_consumed_once() {
        let s = SqliteStore::memory().unwrap();
        let a = Approval {
            id: "a1".into(),
            created_at: now(),
            tool: "t".into(),
            arguments: serde_json::json!({"k": 1}),
            workspace: None,
            conversation: "c".into(),
            principal: "p".into(),
            why: "because".into(),
            status: "pending".into(),
            decided_at: None,
            decided_by: None,
            reason: None,
            consumed_at: None,
        };
        s.insert_approval(&a).unwrap();
        assert_eq!(s.pending_approvals_of("p").unwrap(), 1);
        assert_eq!(s.open_approval("p", "t", None, r#"{"k":1}"#).unwrap().unwrap().id, "a1");
        assert!(s.open_approval("p", "t", Some("w"), r#"{"k":1}"#).unwrap().is_none());
        assert!(s.open_approval("q", "t", None, r#"{"k":1}"#).unwrap().is_none());
        assert!(!s.consume_approval("a1").unwrap(), "a pending approval is not spent");
        let d = s.decide_approval("a1", true, "operator", None).unwrap();
        assert_eq!(d.status, "approved");
        assert!(s.decide_approval("a1", false, "operator", None).unwrap_err().to_string().contains("already approved"));
        assert!(s.decide_approval("nope", true, "operator", None).unwrap_err().to_string().contains("no approval"));
        assert!(s.consume_approval("a1").unwrap());
        assert!(!s.consume_approval("a1").unwrap(), "consumed once");
        assert!(s.open_approval("p", "t", None, r#"{"k":1}"#).unwrap().is_none());
        assert_eq!(s.approvals(true).unwrap().len(), 0);
        assert_eq!(s.approvals(false).unwrap().len(), 1);
    }
}
