//! Goals: "what are we trying to reach, and how far along are we?" Four levels — company,
//! team, agent, task — nested by parent, a child at its parent's level or below.
//!
//! Progress (0..100) rolls up: a goal without children has the progress set on it (100 once
//! met); a goal with children has the mean of its children's progress, each computed by the
//! same rule, rounded down — so a parent reaches 100 exactly when every child does. Setting
//! a parent's progress is refused: it is computed.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{now, Result, Store, StoreError};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GoalLevel {
    Company,
    Team,
    Agent,
    Task,
}

impl GoalLevel {
    pub const ALL: [GoalLevel; 4] = [GoalLevel::Company, GoalLevel::Team, GoalLevel::Agent, GoalLevel::Task];

    pub fn as_str(self) -> &'static str {
        match self {
            GoalLevel::Company => "company",
            GoalLevel::Team => "team",
            GoalLevel::Agent => "agent",
            GoalLevel::Task => "task",
        }
    }

    fn parse(s: &str) -> Result<GoalLevel> {
        GoalLevel::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| StoreError::Invalid(format!("a goal of the unknown level '{s}'")))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GoalStatus {
    Active,
    Met,
}

impl GoalStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            GoalStatus::Active => "active",
            GoalStatus::Met => "met",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Goal {
    pub id: String,
    pub workspace_id: String,
    pub level: GoalLevel,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    pub status: GoalStatus,
    /// 0..100: its own (no children) or rolled up from its children.
    pub progress: i64,
    /// Whether `progress` is computed from children.
    pub computed: bool,
    pub children: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    pub created_by: String,
    pub created_at: i64,
    pub updated_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub met_at: Option<i64>,
    /// The conversation it is the goal of (`principal|run:<id>`, `|key:<Cc-Conversation>` or
    /// `|session:<id>`), when a prompt started it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// The prompt that started it as a conversation's goal: goal or loop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    workspace_id: String,
    level: String,
    parent_id: Option<String>,
    owner: Option<String>,
    title: String,
    target: Option<String>,
    status: String,
    progress: i64,
    evidence: Option<String>,
    created_by: String,
    created_at: i64,
    updated_at: i64,
    met_at: Option<i64>,
    conversation: Option<String>,
    prompt: Option<String>,
}

const COLUMNS: &str = "id, workspace_id, level, parent_id, owner, title, target, status, progress, evidence, \
     created_by, created_at, updated_at, met_at, conversation, prompt";

/// What a new goal is made of.
#[derive(Clone, Debug)]
pub struct NewGoal {
    pub level: GoalLevel,
    pub parent_id: Option<String>,
    pub owner: Option<String>,
    pub title: String,
    pub target: Option<String>,
    pub created_by: String,
    /// The conversation it is the active goal of, and the prompt that started it (see
    /// [`Goals::start`]).
    pub conversation: Option<(String, String)>,
}

/// The goals area of a [`Store`].
pub struct Goals<'a> {
    pub(super) store: &'a Store,
}

impl Goals<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        self.store.err(e)
    }

    async fn rows(&self, workspace: &str) -> Result<Vec<Row>> {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM goals WHERE workspace_id = $1 ORDER BY created_at, id"
        )))
        .bind(workspace)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))
    }

    /// Creates a goal; a parent must be of the workspace and at the goal's level or above.
    pub async fn create(&self, workspace: &str, g: NewGoal) -> Result<Goal> {
        if let Some(p) = &g.parent_id {
            let parent = self
                .get(workspace, p)
                .await?
                .ok_or_else(|| StoreError::NotFound { what: format!("goal '{p}' in workspace '{workspace}'") })?;
            if parent.level > g.level {
                return Err(StoreError::Invalid(format!(
                    "a {} goal cannot be under a {} goal (company > team > agent > task)",
                    g.level.as_str(),
                    parent.level.as_str()
                )));
            }
        }
        let id = format!("goal-{}", uuid::Uuid::now_v7().simple());
        let at = now();
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO goals ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, 'active', 0, NULL, $8, $9, $9, NULL, $10, $11)"
        )))
        .bind(&id)
        .bind(workspace)
        .bind(g.level.as_str())
        .bind(&g.parent_id)
        .bind(&g.owner)
        .bind(&g.title)
        .bind(&g.target)
        .bind(&g.created_by)
        .bind(at)
        .bind(g.conversation.as_ref().map(|c| c.0.clone()))
        .bind(g.conversation.as_ref().map(|c| c.1.clone()))
        .execute(self.store.writer())
        .await
        .map_err(|e| {
            if g.conversation.is_some() && is_unique_violation(&e) {
                StoreError::Conflict("this conversation has an active goal already; complete_goal it first".into())
            } else {
                self.err(e)
            }
        })?;
        Ok(self.get(workspace, &id).await?.expect("just created"))
    }

    /// Starts `g` as the active goal of conversation `g.conversation` (the goal and loop
    /// prompts); a conversation with an active goal already is a [`StoreError::Conflict`]
    /// naming it.
    pub async fn start(&self, workspace: &str, g: NewGoal) -> Result<Goal> {
        let conversation = g.conversation.as_ref().map(|c| c.0.clone()).unwrap_or_default();
        if let Some(a) = self.active(workspace, &conversation).await? {
            return Err(StoreError::Conflict(format!(
                "this conversation's goal '{}' ({}) is active already: complete_goal it first, with its evidence",
                a.title, a.id
            )));
        }
        self.create(workspace, g).await
    }

    /// The active goal of `conversation`, if any.
    pub async fn active(&self, workspace: &str, conversation: &str) -> Result<Option<Goal>> {
        let id: Option<String> = sqlx::query_scalar(
            "SELECT id FROM goals WHERE workspace_id = $1 AND conversation = $2 AND status = 'active'",
        )
        .bind(workspace)
        .bind(conversation)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        match id {
            Some(id) => self.get(workspace, &id).await,
            None => Ok(None),
        }
    }

    /// Marks goal `id` met with `evidence` (progress 100), once ([`StoreError::Conflict`]
    /// when it is met already).
    pub async fn complete(&self, workspace: &str, id: &str, evidence: &str) -> Result<Goal> {
        let at = now();
        let n = sqlx::query(
            "UPDATE goals SET status = 'met', evidence = $3, progress = 100, met_at = $4, updated_at = $4 \
             WHERE id = $1 AND workspace_id = $2 AND status = 'active'",
        )
        .bind(id)
        .bind(workspace)
        .bind(evidence)
        .bind(at)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        if n == 0 {
            return Err(match self.get(workspace, id).await? {
                None => StoreError::NotFound { what: format!("goal '{id}' in workspace '{workspace}'") },
                Some(g) => StoreError::Conflict(format!("goal '{}' ({id}) is met already", g.title)),
            });
        }
        Ok(self.get(workspace, id).await?.expect("it exists"))
    }

    /// A workspace's goals, oldest first, with their progress rolled up.
    pub async fn list(&self, workspace: &str) -> Result<Vec<Goal>> {
        let rows = self.rows(workspace).await?;
        let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, r) in rows.iter().enumerate() {
            if let Some(p) = &r.parent_id {
                children.entry(p.as_str()).or_default().push(i);
            }
        }
        fn progress(
            i: usize,
            rows: &[Row],
            children: &HashMap<&str, Vec<usize>>,
            memo: &mut HashMap<usize, i64>,
        ) -> i64 {
            if let Some(p) = memo.get(&i) {
                return *p;
            }
            let r = &rows[i];
            let p = match children.get(r.id.as_str()) {
                Some(kids) if !kids.is_empty() => {
                    let sum: i64 = kids.iter().map(|k| progress(*k, rows, children, memo)).sum();
                    sum / kids.len() as i64
                }
                _ if r.status == "met" => 100,
                _ => r.progress,
            };
            memo.insert(i, p);
            p
        }
        let mut memo = HashMap::new();
        let mut out = Vec::with_capacity(rows.len());
        for i in 0..rows.len() {
            let p = progress(i, &rows, &children, &mut memo);
            let n = children.get(rows[i].id.as_str()).map_or(0, Vec::len) as i64;
            let r = &rows[i];
            out.push(Goal {
                id: r.id.clone(),
                workspace_id: r.workspace_id.clone(),
                level: GoalLevel::parse(&r.level)?,
                parent_id: r.parent_id.clone(),
                owner: r.owner.clone(),
                title: r.title.clone(),
                target: r.target.clone(),
                status: if r.status == "met" { GoalStatus::Met } else { GoalStatus::Active },
                progress: p,
                computed: n > 0,
                children: n,
                evidence: r.evidence.clone(),
                created_by: r.created_by.clone(),
                created_at: r.created_at,
                updated_at: r.updated_at,
                met_at: r.met_at,
                conversation: r.conversation.clone(),
                prompt: r.prompt.clone(),
            });
        }
        Ok(out)
    }

    /// One goal of `workspace`, its progress rolled up.
    pub async fn get(&self, workspace: &str, id: &str) -> Result<Option<Goal>> {
        Ok(self.list(workspace).await?.into_iter().find(|g| g.id == id))
    }

    /// Sets the progress of a goal without children ([`StoreError::Conflict`] on a parent).
    pub async fn set_progress(&self, workspace: &str, id: &str, progress: i64) -> Result<Goal> {
        let mut tx = self.store.begin().await?;
        let kids: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM goals WHERE parent_id = $1")
            .bind(id)
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        if kids > 0 {
            return Err(StoreError::Conflict(format!(
                "goal {id} has {kids} child goal(s): its progress is computed from theirs (their mean), not set"
            )));
        }
        let n = sqlx::query("UPDATE goals SET progress = $3, updated_at = $4 WHERE id = $1 AND workspace_id = $2")
            .bind(id)
            .bind(workspace)
            .bind(progress)
            .bind(now())
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?
            .rows_affected();
        if n == 0 {
            return Err(StoreError::NotFound { what: format!("goal '{id}' in workspace '{workspace}'") });
        }
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(self.get(workspace, id).await?.expect("it exists"))
    }
}

fn is_unique_violation(e: &sqlx::Error) -> bool {
    e.as_database_error().is_some_and(|d| d.is_unique_violation())
}
