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
}

/// Schema migrations, applied in order; the index is the schema version.
pub const MIGRATIONS: &[&str] = &["
    CREATE TABLE workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL);
    CREATE TABLE workspace_repos (
        workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        repo TEXT NOT NULL,
        added_at INTEGER NOT NULL,
        PRIMARY KEY (workspace_id, repo)
    );
"];

pub struct SqliteStore {
    conn: Mutex<Connection>,
}

fn now() -> i64 {
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
}
