//! Workspaces and the repositories registered in them: "which repositories does this
//! workspace see?"

use serde::Serialize;

use super::{now, Result, Store};

/// The workspace that exists from the first start.
pub const DEFAULT_WORKSPACE: &str = "default";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, sqlx::FromRow)]
pub struct Workspace {
    pub id: String,
    pub name: String,
    /// Seconds since the epoch.
    pub created_at: i64,
}

/// The workspaces area of a [`Store`].
pub struct Workspaces<'a> {
    pub(super) store: &'a Store,
}

impl Workspaces<'_> {
    pub async fn list(&self) -> Result<Vec<Workspace>> {
        sqlx::query_as("SELECT id, name, created_at FROM workspaces ORDER BY id")
            .fetch_all(self.store.reader())
            .await
            .map_err(|e| self.store.err(e))
    }

    pub async fn get(&self, id: &str) -> Result<Option<Workspace>> {
        sqlx::query_as("SELECT id, name, created_at FROM workspaces WHERE id = $1")
            .bind(id)
            .fetch_optional(self.store.reader())
            .await
            .map_err(|e| self.store.err(e))
    }

    /// Creates the workspace if it does not exist; `true` when it was created.
    pub async fn ensure(&self, id: &str, name: &str) -> Result<bool> {
        let r = sqlx::query(
            "INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
        )
        .bind(id)
        .bind(name)
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?;
        Ok(r.rows_affected() > 0)
    }

    /// Registers an indexed repository (by index name) in a workspace.
    pub async fn add_repo(&self, workspace: &str, repo: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO workspace_repos (workspace_id, repo, added_at) VALUES ($1, $2, $3) \
             ON CONFLICT (workspace_id, repo) DO NOTHING",
        )
        .bind(workspace)
        .bind(repo)
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// Takes an index out of every workspace (its index was removed); answers the workspaces
    /// it was in.
    pub async fn forget_repo(&self, repo: &str) -> Result<Vec<String>> {
        let was: Vec<String> = sqlx::query_scalar("DELETE FROM workspace_repos WHERE repo = $1 RETURNING workspace_id")
            .bind(repo)
            .fetch_all(self.store.writer())
            .await
            .map_err(|e| self.store.err(e))?;
        let mut was = was;
        was.sort();
        Ok(was)
    }

    /// The repositories registered in `workspace`, by name.
    pub async fn repos(&self, workspace: &str) -> Result<Vec<String>> {
        sqlx::query_scalar("SELECT repo FROM workspace_repos WHERE workspace_id = $1 ORDER BY repo")
            .bind(workspace)
            .fetch_all(self.store.reader())
            .await
            .map_err(|e| self.store.err(e))
    }
}
