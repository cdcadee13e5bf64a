//! Plans and playbooks: "what does this conversation propose to do, and which templates make
//! plans like it?" A submitted plan is kept per conversation (the principal and the
//! conversation's lasting name: one plan each, a unique index) and every resubmission is a
//! new version, numbered in the transaction that writes it; a plan a playbook produced has no
//! conversation, names the playbook version it came from and the board approval it waits on.
//! A playbook is a name with versions: saving the same name again adds one. Documents are
//! stored as JSON text; their shape and rules are the tools' (`mcp::tools::plans`).

use serde::Serialize;

use super::{now, Result, Store, StoreError};

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Plan {
    pub id: String,
    pub workspace_id: String,
    /// The plan's title (its latest version's).
    pub title: String,
    /// Its latest version (1, 2, 3, …: one per submission).
    pub version: i64,
    /// The playbook version it was made from (run_playbook), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub playbook_id: Option<String>,
    /// The board approval it waits on (run_playbook), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    pub created_by: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// What it is kept under (the principal and the conversation's lasting name).
    #[serde(skip)]
    pub conversation: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PlanVersion {
    pub plan_id: String,
    pub version: i64,
    /// The PlanDocument.
    pub document: serde_json::Value,
    pub author: String,
    pub created_at: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Playbook {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    /// 1, 2, 3, … per name.
    pub version: i64,
    pub description: String,
    /// The declared parameters: name -> {type, values, required, default, description}.
    pub params: serde_json::Value,
    /// The PlanDocument template, its strings holding {{param}} placeholders.
    pub plan: serde_json::Value,
    pub author: String,
    pub created_at: i64,
}

const COLUMNS: &str =
    "id, workspace_id, conversation, title, version, playbook_id, approval_id, created_by, created_at, updated_at";
const PLAYBOOK_COLUMNS: &str = "id, workspace_id, name, version, description, params, plan, author, created_at";

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    workspace_id: String,
    conversation: Option<String>,
    title: String,
    version: i64,
    playbook_id: Option<String>,
    approval_id: Option<String>,
    created_by: String,
    created_at: i64,
    updated_at: i64,
}

impl From<Row> for Plan {
    fn from(r: Row) -> Plan {
        Plan {
            id: r.id,
            workspace_id: r.workspace_id,
            conversation: r.conversation,
            title: r.title,
            version: r.version,
            playbook_id: r.playbook_id,
            approval_id: r.approval_id,
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

#[derive(sqlx::FromRow)]
struct PlaybookRow {
    id: String,
    workspace_id: String,
    name: String,
    version: i64,
    description: String,
    params: String,
    plan: String,
    author: String,
    created_at: i64,
}

fn json(text: &str, what: &str) -> Result<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| StoreError::Invalid(format!("a stored {what}: {e}")))
}

impl PlaybookRow {
    fn into_playbook(self) -> Result<Playbook> {
        Ok(Playbook {
            params: json(&self.params, "playbook's params")?,
            plan: json(&self.plan, "playbook's plan")?,
            id: self.id,
            workspace_id: self.workspace_id,
            name: self.name,
            version: self.version,
            description: self.description,
            author: self.author,
            created_at: self.created_at,
        })
    }
}

/// The plans area of a [`Store`].
pub struct Plans<'a> {
    pub(super) store: &'a Store,
}

impl Plans<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        self.store.err(e)
    }

    async fn insert_version(&self, tx: &mut sqlx::Transaction<'static, sqlx::Any>, v: &PlanVersion) -> Result<()> {
        sqlx::query(
            "INSERT INTO plan_versions (plan_id, version, document, author, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&v.plan_id)
        .bind(v.version)
        .bind(v.document.to_string())
        .bind(&v.author)
        .bind(v.created_at)
        .execute(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Submits `document` as the next version of the plan kept under `conversation` (its
    /// first version when there is none yet).
    pub async fn submit(
        &self,
        workspace: &str,
        conversation: &str,
        title: &str,
        document: &serde_json::Value,
        by: &str,
    ) -> Result<(Plan, PlanVersion)> {
        let at = now();
        let mut tx = self.store.begin().await?;
        // The first submission makes the plan (version 0 until the update below); a racing
        // first submission elsewhere waits on the unique index and does nothing.
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO plans ({COLUMNS}) VALUES ($1, $2, $3, $4, 0, NULL, NULL, $5, $6, $6) ON CONFLICT DO NOTHING"
        )))
        .bind(format!("pl-{}", uuid::Uuid::now_v7().simple()))
        .bind(workspace)
        .bind(conversation)
        .bind(title)
        .bind(by)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let (id, version): (String, i64) = sqlx::query_as(
            "UPDATE plans SET version = version + 1, title = $3, updated_at = $4 \
             WHERE workspace_id = $1 AND conversation = $2 RETURNING id, version",
        )
        .bind(workspace)
        .bind(conversation)
        .bind(title)
        .bind(at)
        .fetch_one(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let v = PlanVersion {
            plan_id: id.clone(),
            version,
            document: document.clone(),
            author: by.to_string(),
            created_at: at,
        };
        self.insert_version(&mut tx, &v).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok((self.get(&id).await?.expect("just written"), v))
    }

    /// A plan made from playbook version `playbook_id` (version 1, no conversation).
    pub async fn create_from_playbook(
        &self,
        workspace: &str,
        playbook_id: &str,
        title: &str,
        document: &serde_json::Value,
        by: &str,
    ) -> Result<(Plan, PlanVersion)> {
        let id = format!("pl-{}", uuid::Uuid::now_v7().simple());
        let at = now();
        let mut tx = self.store.begin().await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO plans ({COLUMNS}) VALUES ($1, $2, NULL, $3, 1, $4, NULL, $5, $6, $6)"
        )))
        .bind(&id)
        .bind(workspace)
        .bind(title)
        .bind(playbook_id)
        .bind(by)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let v = PlanVersion {
            plan_id: id.clone(),
            version: 1,
            document: document.clone(),
            author: by.to_string(),
            created_at: at,
        };
        self.insert_version(&mut tx, &v).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok((self.get(&id).await?.expect("just written"), v))
    }

    /// Records the board approval plan `id` waits on.
    pub async fn set_approval(&self, id: &str, approval_id: &str) -> Result<Plan> {
        let n = sqlx::query("UPDATE plans SET approval_id = $2, updated_at = $3 WHERE id = $1")
            .bind(id)
            .bind(approval_id)
            .bind(now())
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::NotFound { what: format!("plan '{id}'") });
        }
        Ok(self.get(id).await?.expect("it exists"))
    }

    pub async fn get(&self, id: &str) -> Result<Option<Plan>> {
        let row: Option<Row> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM plans WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        Ok(row.map(Plan::from))
    }

    /// The plan kept under `conversation`, if one was submitted.
    pub async fn of_conversation(&self, workspace: &str, conversation: &str) -> Result<Option<Plan>> {
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM plans WHERE workspace_id = $1 AND conversation = $2"
        )))
        .bind(workspace)
        .bind(conversation)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(row.map(Plan::from))
    }

    /// Version `version` of plan `id`.
    pub async fn version(&self, id: &str, version: i64) -> Result<Option<PlanVersion>> {
        let row: Option<(String, i64, String, String, i64)> = sqlx::query_as(
            "SELECT plan_id, version, document, author, created_at FROM plan_versions WHERE plan_id = $1 AND version = $2",
        )
        .bind(id)
        .bind(version)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        row.map(|(plan_id, version, document, author, created_at)| {
            Ok(PlanVersion { plan_id, version, document: json(&document, "plan")?, author, created_at })
        })
        .transpose()
    }

    /// Saves `name` as a playbook: version 1, or one past its latest.
    pub async fn save_playbook(
        &self,
        workspace: &str,
        name: &str,
        description: &str,
        params: &serde_json::Value,
        plan: &serde_json::Value,
        by: &str,
    ) -> Result<Playbook> {
        let id = format!("pb-{}", uuid::Uuid::now_v7().simple());
        // Two racing saves of one name may compute the same next version on PostgreSQL: the
        // unique index refuses the second, which computes again.
        for _ in 0..8 {
            let mut tx = self.store.begin().await?;
            let r = sqlx::query(sqlx::AssertSqlSafe(format!(
                "INSERT INTO playbooks ({PLAYBOOK_COLUMNS}) SELECT $1, $2, $3, COALESCE(MAX(version), 0) + 1, $4, $5, $6, $7, $8 \
                 FROM playbooks WHERE workspace_id = $2 AND name = $3"
            )))
            .bind(&id)
            .bind(workspace)
            .bind(name)
            .bind(description)
            .bind(params.to_string())
            .bind(plan.to_string())
            .bind(by)
            .bind(now())
            .execute(&mut *tx)
            .await;
            match r {
                Ok(_) => {
                    tx.commit().await.map_err(|e| self.err(e))?;
                    return Ok(self.playbook_by_id(&id).await?.expect("just written"));
                }
                Err(e) if e.as_database_error().is_some_and(|d| d.is_unique_violation()) => continue,
                Err(e) => return Err(self.err(e)),
            }
        }
        Err(StoreError::Conflict(format!("playbook '{name}' is being saved by others at the same time: save it again")))
    }

    pub async fn playbook_by_id(&self, id: &str) -> Result<Option<Playbook>> {
        let row: Option<PlaybookRow> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {PLAYBOOK_COLUMNS} FROM playbooks WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        row.map(PlaybookRow::into_playbook).transpose()
    }

    /// Playbook `name` of `workspace` at `version` (its latest without one).
    pub async fn playbook(&self, workspace: &str, name: &str, version: Option<i64>) -> Result<Option<Playbook>> {
        let row: Option<PlaybookRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {PLAYBOOK_COLUMNS} FROM playbooks WHERE workspace_id = $1 AND name = $2 AND ($3 IS NULL OR version = $3) \
             ORDER BY version DESC LIMIT 1"
        )))
        .bind(workspace)
        .bind(name)
        .bind(version)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        row.map(PlaybookRow::into_playbook).transpose()
    }

    /// The versions playbook `name` has, first to last.
    pub async fn playbook_versions(&self, workspace: &str, name: &str) -> Result<Vec<i64>> {
        sqlx::query_scalar("SELECT version FROM playbooks WHERE workspace_id = $1 AND name = $2 ORDER BY version")
            .bind(workspace)
            .bind(name)
            .fetch_all(self.store.reader())
            .await
            .map_err(|e| self.err(e))
    }

    /// The names of a workspace's playbooks.
    pub async fn playbook_names(&self, workspace: &str) -> Result<Vec<String>> {
        sqlx::query_scalar("SELECT DISTINCT name FROM playbooks WHERE workspace_id = $1 ORDER BY name")
            .bind(workspace)
            .fetch_all(self.store.reader())
            .await
            .map_err(|e| self.err(e))
    }
}
