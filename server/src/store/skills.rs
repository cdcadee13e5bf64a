//! The history of a workspace's skills: "who installed this skill, from where, and what did
//! the scan gate refuse?" The skills themselves are files in the workspace's skills folder,
//! locked by its `skills-lock.json` ([`crate::skills`]); this area keeps one event per
//! creation, install, update and pin (the commit and content hash it locked) and per refusal
//! of the scan gate (each finding's file, line and rule), in the order they happened.

use serde::Serialize;

use super::{now, Result, Store, StoreError};

/// What happened to a skill.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SkillAction {
    /// create_skill wrote it from markdown.
    Created,
    /// install_skill installed it from a git repository.
    Installed,
    /// update_skill moved it to another commit.
    Updated,
    /// pin_skill hashed what is on disk into the lock.
    Pinned,
    /// The scan gate refused it: nothing was written.
    Refused,
}

impl SkillAction {
    pub fn as_str(self) -> &'static str {
        match self {
            SkillAction::Created => "created",
            SkillAction::Installed => "installed",
            SkillAction::Updated => "updated",
            SkillAction::Pinned => "pinned",
            SkillAction::Refused => "refused",
        }
    }

    fn parse(s: &str) -> Result<SkillAction> {
        Ok(match s {
            "created" => SkillAction::Created,
            "installed" => SkillAction::Installed,
            "updated" => SkillAction::Updated,
            "pinned" => SkillAction::Pinned,
            "refused" => SkillAction::Refused,
            other => return Err(StoreError::Invalid(format!("skill event action '{other}'"))),
        })
    }
}

/// One event of a skill's history.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkillEvent {
    pub id: String,
    pub workspace_id: String,
    pub slug: String,
    pub action: SkillAction,
    /// The git repository, for installs and updates.
    pub repository: Option<String>,
    /// The skill's folder inside the repository.
    pub path: Option<String>,
    /// The ref asked for (a tag, a branch or a commit).
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    /// The commit it was resolved to and pinned at.
    pub commit: Option<String>,
    /// The content hash written into the lock (`blake3:…`).
    pub hash: Option<String>,
    /// The scan gate's findings, when it refused.
    pub refusals: serde_json::Value,
    /// Who did it: an agent's id or `principal:<name>`.
    pub actor: String,
    pub created_at: i64,
}

/// An event to record.
#[derive(Clone, Debug, Default)]
pub struct NewSkillEvent {
    pub slug: String,
    pub repository: Option<String>,
    pub path: Option<String>,
    pub git_ref: Option<String>,
    pub commit: Option<String>,
    pub hash: Option<String>,
    pub refusals: Option<serde_json::Value>,
    pub actor: String,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    workspace_id: String,
    slug: String,
    action: String,
    repository: Option<String>,
    path: Option<String>,
    #[sqlx(rename = "ref")]
    git_ref: Option<String>,
    commit_id: Option<String>,
    hash: Option<String>,
    refusals: String,
    actor: String,
    created_at: i64,
}

impl TryFrom<Row> for SkillEvent {
    type Error = StoreError;
    fn try_from(r: Row) -> Result<SkillEvent> {
        Ok(SkillEvent {
            id: r.id,
            workspace_id: r.workspace_id,
            slug: r.slug,
            action: SkillAction::parse(&r.action)?,
            repository: r.repository,
            path: r.path,
            git_ref: r.git_ref,
            commit: r.commit_id,
            hash: r.hash,
            refusals: serde_json::from_str(&r.refusals)
                .map_err(|e| StoreError::Invalid(format!("skill event refusals: {e}")))?,
            actor: r.actor,
            created_at: r.created_at,
        })
    }
}

const COLUMNS: &str =
    "id, workspace_id, slug, action, repository, path, ref, commit_id, hash, refusals, actor, created_at";

/// The skills area of a [`Store`].
pub struct Skills<'a> {
    pub(super) store: &'a Store,
}

impl Skills<'_> {
    /// Records that `action` happened to a skill of `workspace`.
    pub async fn record(&self, workspace: &str, action: SkillAction, e: NewSkillEvent) -> Result<SkillEvent> {
        let ev = SkillEvent {
            id: format!("skev-{}", uuid::Uuid::now_v7().simple()),
            workspace_id: workspace.to_string(),
            slug: e.slug,
            action,
            repository: e.repository,
            path: e.path,
            git_ref: e.git_ref,
            commit: e.commit,
            hash: e.hash,
            refusals: e.refusals.unwrap_or_else(|| serde_json::Value::Array(Vec::new())),
            actor: e.actor,
            created_at: now(),
        };
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO skill_events ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
        )))
        .bind(&ev.id)
        .bind(&ev.workspace_id)
        .bind(&ev.slug)
        .bind(ev.action.as_str())
        .bind(&ev.repository)
        .bind(&ev.path)
        .bind(&ev.git_ref)
        .bind(&ev.commit)
        .bind(&ev.hash)
        .bind(ev.refusals.to_string())
        .bind(&ev.actor)
        .bind(ev.created_at)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?;
        Ok(ev)
    }

    /// The events of `workspace`'s skills (only `slug`'s when given), oldest first.
    pub async fn history(&self, workspace: &str, slug: Option<&str>) -> Result<Vec<SkillEvent>> {
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM skill_events WHERE workspace_id = $1 AND ($2 IS NULL OR slug = $2) \
             ORDER BY id"
        )))
        .bind(workspace)
        .bind(slug)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))?;
        rows.into_iter().map(SkillEvent::try_from).collect()
    }
}
