//! Reviews on the call graph: "what changed, who looked at it, what did they find, and what
//! was decided?" A review (of base..head of a workspace repository, or of a GitHub pull
//! request) has areas (cohorts: changed symbols grouped by module and shared impact, each
//! with its blast radius), findings (nodes: file, line, P0–P3) that peers confirm — never
//! their author — and that are resolved (with a trace: a commit or an explanation) or
//! dismissed (leaving a suppression keyed by the place, so the same finding raised again is
//! flagged), reviewers' verdicts (one current per reviewer; the earlier ones kept), diagrams
//! per area with their marks, and a trace of events.
//!
//! A review is `open` until finalize_review sets its verdict and summary (`finalized`); every
//! change of an open review begins with a compare-and-set on its status in the change's own
//! transaction (`UPDATE reviews … WHERE status = 'open'`: a row lock on PostgreSQL, the write
//! lock on SQLite), so nothing lands in a review after it was finalized, even from another
//! replica.

use serde::{Deserialize, Serialize};
use sqlx::{Any, Transaction};

use super::{now, Result, Store, StoreError};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReviewStatus {
    Open,
    Finalized,
}

impl ReviewStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewStatus::Open => "open",
            ReviewStatus::Finalized => "finalized",
        }
    }
    fn parse(s: &str) -> Result<ReviewStatus> {
        match s {
            "open" => Ok(ReviewStatus::Open),
            "finalized" => Ok(ReviewStatus::Finalized),
            _ => Err(StoreError::Invalid(format!("a review with the unknown status '{s}'"))),
        }
    }
}

/// A reviewer's verdict, and a review's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Ship,
    Hold,
    Block,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Ship, Verdict::Hold, Verdict::Block];
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Ship => "ship",
            Verdict::Hold => "hold",
            Verdict::Block => "block",
        }
    }
    fn parse(s: &str) -> Result<Verdict> {
        Verdict::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| StoreError::Invalid(format!("the unknown verdict '{s}'")))
    }
}

/// A finding's priority: P0 (must not ship) to P3 (a nit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub enum NodePriority {
    P0,
    P1,
    P2,
    P3,
}

impl NodePriority {
    pub const ALL: [NodePriority; 4] = [NodePriority::P0, NodePriority::P1, NodePriority::P2, NodePriority::P3];
    pub fn as_str(self) -> &'static str {
        match self {
            NodePriority::P0 => "P0",
            NodePriority::P1 => "P1",
            NodePriority::P2 => "P2",
            NodePriority::P3 => "P3",
        }
    }
    fn parse(s: &str) -> Result<NodePriority> {
        NodePriority::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| StoreError::Invalid(format!("the unknown priority '{s}'")))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeStatus {
    Open,
    Resolved,
    Dismissed,
}

impl NodeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeStatus::Open => "open",
            NodeStatus::Resolved => "resolved",
            NodeStatus::Dismissed => "dismissed",
        }
    }
    fn parse(s: &str) -> Result<NodeStatus> {
        match s {
            "open" => Ok(NodeStatus::Open),
            "resolved" => Ok(NodeStatus::Resolved),
            "dismissed" => Ok(NodeStatus::Dismissed),
            _ => Err(StoreError::Invalid(format!("a finding with the unknown status '{s}'"))),
        }
    }
}

/// How a symbol changed between base and head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    Added,
    Removed,
    Modified,
}

/// A changed symbol of an area.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChangedSymbol {
    /// The symbol's id (16 hex digits; the same in base and head when it was kept).
    pub id: String,
    pub name: String,
    pub qualified_name: String,
    pub kind: String,
    pub file: String,
    /// Its first line: in head (in base when removed).
    pub line: u32,
    pub change: Change,
    /// Its transitive callers (3 hops: head's graph, base's for a removed symbol).
    pub callers: usize,
}

/// A review area: changed symbols of one module (or of modules with a shared impact).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Cohort {
    /// Its name (`area` in the tools): the module, or modules joined by `+`.
    pub area: String,
    pub modules: Vec<String>,
    /// The changed files of the area.
    pub files: Vec<String>,
    pub symbols: Vec<ChangedSymbol>,
    /// The blast radius: distinct transitive callers of the area's changed symbols, outside them.
    pub callers: usize,
    /// The files those callers are in.
    pub caller_files: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_by: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Review {
    pub id: String,
    pub workspace_id: String,
    pub repo: String,
    pub base_rev: String,
    pub head_rev: String,
    pub base_sha: String,
    pub head_sha: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pr: Option<i64>,
    pub space_id: String,
    pub status: ReviewStatus,
    /// The walkthrough's steps, as start_ai_review wrote them.
    pub walkthrough: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finalized_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finalized_at: Option<i64>,
    pub created_by: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Node {
    pub id: String,
    pub review_id: String,
    pub area: String,
    pub file: String,
    pub line: i64,
    pub priority: NodePriority,
    pub title: String,
    pub body: String,
    /// Who raised it.
    pub author: String,
    #[serde(skip)]
    pub author_id: String,
    pub status: NodeStatus,
    /// The names of those who confirmed it.
    pub confirmed_by: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_commit: Option<String>,
    /// The resolution's explanation, or the dismissal's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_by: Option<String>,
    #[serde(skip)]
    pub suppression_key: String,
    /// The memory fact (a dismissal of the same finding at the same place) that suppresses it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressed_by: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// What add_review_node gives.
#[derive(Clone, Debug)]
pub struct NewNode<'a> {
    pub area: &'a str,
    pub file: &'a str,
    pub line: i64,
    pub priority: NodePriority,
    pub title: &'a str,
    pub body: &'a str,
    pub suppression_key: &'a str,
    pub suppressed_by: Option<&'a str>,
}

/// A reviewer's verdict.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ReviewerVerdict {
    pub id: String,
    pub reviewer: String,
    #[serde(skip)]
    pub reviewer_id: String,
    pub verdict: Verdict,
    pub confidence: f64,
    pub explanation: String,
    /// The reviewer's latest (an earlier one was replaced by a later one).
    pub current: bool,
    pub at: i64,
}

/// One step of a review's trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, sqlx::FromRow)]
pub struct ReviewEvent {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<String>,
    pub action: String,
    pub actor: String,
    pub text: String,
    pub at: i64,
}

/// A diagram of an area, with its marks from the check against the head's graph.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StoredDiagram {
    pub id: String,
    pub review_id: String,
    pub area: String,
    pub kind: String,
    pub diagram: serde_json::Value,
    pub marks: serde_json::Value,
    /// Stored although elements were contradicted (`force`).
    pub forced: bool,
    pub created_by: String,
    pub created_at: i64,
}

/// A suppression: a dismissed finding's place and the memory fact recording it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppression {
    pub key: String,
    pub fact_id: String,
    pub repo: String,
    pub file: String,
    pub title: String,
    pub node_id: String,
}

/// Who acts: an id that compares (an agent's id, `principal:NAME`) and a name to show.
pub use super::board::Actor;

const REVIEW_COLUMNS: &str = "id, workspace_id, repo, base_rev, head_rev, base_sha, head_sha, pr, space_id, status, \
     walkthrough, verdict, summary, finalized_by, finalized_at, created_by, created_at, updated_at";
const NODE_COLUMNS: &str = "id, review_id, area, file, line, priority, title, body, author_id, author, status, \
     resolved_commit, resolution, closed_by, suppression_key, suppressed_by, created_at, updated_at";

#[derive(sqlx::FromRow)]
struct ReviewRow {
    id: String,
    workspace_id: String,
    repo: String,
    base_rev: String,
    head_rev: String,
    base_sha: String,
    head_sha: String,
    pr: Option<i64>,
    space_id: String,
    status: String,
    walkthrough: String,
    verdict: Option<String>,
    summary: Option<String>,
    finalized_by: Option<String>,
    finalized_at: Option<i64>,
    created_by: String,
    created_at: i64,
    updated_at: i64,
}

impl ReviewRow {
    fn into_review(self) -> Result<Review> {
        Ok(Review {
            status: ReviewStatus::parse(&self.status)?,
            verdict: self.verdict.as_deref().map(Verdict::parse).transpose()?,
            walkthrough: serde_json::from_str(&self.walkthrough).unwrap_or(serde_json::Value::Null),
            id: self.id,
            workspace_id: self.workspace_id,
            repo: self.repo,
            base_rev: self.base_rev,
            head_rev: self.head_rev,
            base_sha: self.base_sha,
            head_sha: self.head_sha,
            pr: self.pr,
            space_id: self.space_id,
            summary: self.summary,
            finalized_by: self.finalized_by,
            finalized_at: self.finalized_at,
            created_by: self.created_by,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

#[derive(sqlx::FromRow)]
struct NodeRow {
    id: String,
    review_id: String,
    area: String,
    file: String,
    line: i64,
    priority: String,
    title: String,
    body: String,
    author_id: String,
    author: String,
    status: String,
    resolved_commit: Option<String>,
    resolution: Option<String>,
    closed_by: Option<String>,
    suppression_key: String,
    suppressed_by: Option<String>,
    created_at: i64,
    updated_at: i64,
}

impl NodeRow {
    fn into_node(self, confirmed_by: Vec<String>) -> Result<Node> {
        Ok(Node {
            priority: NodePriority::parse(&self.priority)?,
            status: NodeStatus::parse(&self.status)?,
            id: self.id,
            review_id: self.review_id,
            area: self.area,
            file: self.file,
            line: self.line,
            title: self.title,
            body: self.body,
            author: self.author,
            author_id: self.author_id,
            confirmed_by,
            resolved_commit: self.resolved_commit,
            resolution: self.resolution,
            closed_by: self.closed_by,
            suppression_key: self.suppression_key,
            suppressed_by: self.suppressed_by,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

#[derive(sqlx::FromRow)]
struct CohortRow {
    area: String,
    modules: String,
    files: String,
    symbols: String,
    callers: i64,
    caller_files: String,
    summary: Option<String>,
    summary_by: Option<String>,
}

impl CohortRow {
    fn into_cohort(self) -> Result<Cohort> {
        let bad = |what: &str, e: serde_json::Error| {
            StoreError::Invalid(format!("review area '{}': its {what} cannot be read: {e}", self.area))
        };
        Ok(Cohort {
            modules: serde_json::from_str(&self.modules).map_err(|e| bad("modules", e))?,
            files: serde_json::from_str(&self.files).map_err(|e| bad("files", e))?,
            symbols: serde_json::from_str(&self.symbols).map_err(|e| bad("symbols", e))?,
            caller_files: serde_json::from_str(&self.caller_files).map_err(|e| bad("caller files", e))?,
            callers: self.callers.max(0) as usize,
            summary: self.summary.clone(),
            summary_by: self.summary_by.clone(),
            area: self.area,
        })
    }
}

#[derive(sqlx::FromRow)]
struct VerdictRow {
    id: String,
    reviewer_id: String,
    reviewer: String,
    verdict: String,
    confidence: f64,
    explanation: String,
    current: i64,
    at: i64,
}

#[derive(sqlx::FromRow)]
struct DiagramRow {
    id: String,
    review_id: String,
    area: String,
    kind: String,
    diagram: String,
    marks: String,
    forced: i64,
    created_by: String,
    created_at: i64,
}

/// What start_ai_review records.
#[derive(Clone, Debug)]
pub struct NewReview<'a> {
    pub workspace: &'a str,
    pub repo: &'a str,
    pub base_rev: &'a str,
    pub head_rev: &'a str,
    pub base_sha: &'a str,
    pub head_sha: &'a str,
    pub pr: Option<i64>,
    pub space_id: &'a str,
    pub walkthrough: &'a serde_json::Value,
    pub cohorts: &'a [Cohort],
    pub by: &'a Actor,
}

/// The reviews area of a [`Store`].
pub struct Reviews<'a> {
    pub(super) store: &'a Store,
}

impl Reviews<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        self.store.err(e)
    }

    /// Records a review with its areas (in the order given) and its first event.
    pub async fn create(&self, r: NewReview<'_>) -> Result<Review> {
        let id = format!("rv-{}", uuid::Uuid::now_v7().simple());
        let at = now();
        let mut tx = self.store.begin().await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO reviews ({REVIEW_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'open', $10, NULL, NULL, NULL, NULL, $11, $12, $12)"
        )))
        .bind(&id)
        .bind(r.workspace)
        .bind(r.repo)
        .bind(r.base_rev)
        .bind(r.head_rev)
        .bind(r.base_sha)
        .bind(r.head_sha)
        .bind(r.pr)
        .bind(r.space_id)
        .bind(r.walkthrough.to_string())
        .bind(&r.by.name)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        for (i, c) in r.cohorts.iter().enumerate() {
            sqlx::query(
                "INSERT INTO review_cohorts (review_id, area, position, modules, files, symbols, callers, caller_files, \
                 summary, summary_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, NULL, $9)",
            )
            .bind(&id)
            .bind(&c.area)
            .bind(i as i64)
            .bind(json(&c.modules))
            .bind(json(&c.files))
            .bind(json(&c.symbols))
            .bind(c.callers as i64)
            .bind(json(&c.caller_files))
            .bind(at)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        }
        let text =
            format!("review of {} {}..{} ({} areas)", r.repo, short(r.base_sha), short(r.head_sha), r.cohorts.len());
        self.event(&mut tx, &id, None, "start", &r.by.name, &text, at).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(self.get(&id).await?.expect("just created"))
    }

    pub async fn get(&self, id: &str) -> Result<Option<Review>> {
        let row: Option<ReviewRow> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {REVIEW_COLUMNS} FROM reviews WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        row.map(ReviewRow::into_review).transpose()
    }

    /// A review's areas, in start_ai_review's order.
    pub async fn cohorts(&self, review_id: &str) -> Result<Vec<Cohort>> {
        let rows: Vec<CohortRow> = sqlx::query_as(
            "SELECT area, modules, files, symbols, callers, caller_files, summary, summary_by FROM review_cohorts \
             WHERE review_id = $1 ORDER BY position",
        )
        .bind(review_id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter().map(CohortRow::into_cohort).collect()
    }

    /// Appends an event to a review's trace, in `tx`.
    #[allow(clippy::too_many_arguments)]
    async fn event(
        &self,
        tx: &mut Transaction<'static, Any>,
        review_id: &str,
        node_id: Option<&str>,
        action: &str,
        actor: &str,
        text: &str,
        at: i64,
    ) -> Result<ReviewEvent> {
        let e = ReviewEvent {
            id: format!("re-{}", uuid::Uuid::now_v7().simple()),
            node_id: node_id.map(str::to_string),
            action: action.to_string(),
            actor: actor.to_string(),
            text: text.to_string(),
            at,
        };
        sqlx::query(
            "INSERT INTO review_events (id, review_id, node_id, action, actor, text, at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&e.id)
        .bind(review_id)
        .bind(&e.node_id)
        .bind(&e.action)
        .bind(&e.actor)
        .bind(&e.text)
        .bind(at)
        .execute(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        Ok(e)
    }

    /// The first step of every change of a review: it must be open (a compare-and-set on its
    /// status that also takes its row's lock).
    async fn open_for_change(&self, tx: &mut Transaction<'static, Any>, review_id: &str, what: &str) -> Result<()> {
        let n = sqlx::query("UPDATE reviews SET updated_at = $2 WHERE id = $1 AND status = 'open'")
            .bind(review_id)
            .bind(now())
            .execute(&mut **tx)
            .await
            .map_err(|e| self.err(e))?
            .rows_affected();
        if n == 1 {
            return Ok(());
        }
        let status: Option<String> = sqlx::query_scalar("SELECT status FROM reviews WHERE id = $1")
            .bind(review_id)
            .fetch_optional(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
        Err(match status {
            None => StoreError::NotFound { what: format!("review '{review_id}'") },
            Some(s) => StoreError::Conflict(format!("review {review_id} is {s}: it takes no more {what}")),
        })
    }

    /// Records an event of an open review in a transaction of its own (request_peer_review's).
    pub async fn record(
        &self,
        review_id: &str,
        node_id: Option<&str>,
        action: &str,
        actor: &str,
        text: &str,
    ) -> Result<ReviewEvent> {
        let mut tx = self.store.begin().await?;
        self.open_for_change(&mut tx, review_id, "requests").await?;
        let e = self.event(&mut tx, review_id, node_id, action, actor, text, now()).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(e)
    }

    /// A review's trace, first to last.
    pub async fn events(&self, review_id: &str) -> Result<Vec<ReviewEvent>> {
        sqlx::query_as(
            "SELECT id, node_id, action, actor, text, at FROM review_events WHERE review_id = $1 ORDER BY id",
        )
        .bind(review_id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))
    }

    // ---- findings

    /// Adds a finding to an open review.
    pub async fn add_node(&self, review_id: &str, n: NewNode<'_>, by: &Actor) -> Result<Node> {
        let id = format!("nd-{}", uuid::Uuid::now_v7().simple());
        let at = now();
        let mut tx = self.store.begin().await?;
        self.open_for_change(&mut tx, review_id, "findings").await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO review_nodes ({NODE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'open', NULL, NULL, NULL, $11, $12, $13, $13)"
        )))
        .bind(&id)
        .bind(review_id)
        .bind(n.area)
        .bind(n.file)
        .bind(n.line)
        .bind(n.priority.as_str())
        .bind(n.title)
        .bind(n.body)
        .bind(&by.id)
        .bind(&by.name)
        .bind(n.suppression_key)
        .bind(n.suppressed_by)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let text = format!("{} {}:{} {}", n.priority.as_str(), n.file, n.line, n.title);
        self.event(&mut tx, review_id, Some(&id), "node", &by.name, &text, at).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(self.node(&id).await?.expect("just added"))
    }

    pub async fn node(&self, id: &str) -> Result<Option<Node>> {
        let row: Option<NodeRow> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {NODE_COLUMNS} FROM review_nodes WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        match row {
            None => Ok(None),
            Some(r) => {
                let by = self.confirmers(&r.id).await?;
                r.into_node(by).map(Some)
            }
        }
    }

    async fn confirmers(&self, node_id: &str) -> Result<Vec<String>> {
        sqlx::query_scalar("SELECT confirmer FROM review_confirmations WHERE node_id = $1 ORDER BY at, confirmer")
            .bind(node_id)
            .fetch_all(self.store.reader())
            .await
            .map_err(|e| self.err(e))
    }

    /// A review's findings, oldest first.
    pub async fn nodes(&self, review_id: &str) -> Result<Vec<Node>> {
        let rows: Vec<NodeRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {NODE_COLUMNS} FROM review_nodes WHERE review_id = $1 ORDER BY created_at, id"
        )))
        .bind(review_id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        let confirmations: Vec<(String, String)> = sqlx::query_as(
            "SELECT c.node_id, c.confirmer FROM review_confirmations c JOIN review_nodes n ON n.id = c.node_id \
             WHERE n.review_id = $1 ORDER BY c.at, c.confirmer",
        )
        .bind(review_id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|r| {
                let by = confirmations.iter().filter(|(n, _)| *n == r.id).map(|(_, c)| c.clone()).collect();
                r.into_node(by)
            })
            .collect()
    }

    /// The finding `node_id` in `tx`, or not found.
    async fn node_in(&self, tx: &mut Transaction<'static, Any>, node_id: &str) -> Result<NodeRow> {
        sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {NODE_COLUMNS} FROM review_nodes WHERE id = $1")))
            .bind(node_id)
            .fetch_optional(&mut **tx)
            .await
            .map_err(|e| self.err(e))?
            .ok_or_else(|| StoreError::NotFound { what: format!("finding '{node_id}'") })
    }

    /// Confirms a finding as `by`, who must not be its author ([`StoreError::Refused`], gate
    /// `author_confirms`); confirming twice is one confirmation.
    pub async fn confirm(&self, node_id: &str, by: &Actor) -> Result<Node> {
        let review_id = self.review_of(node_id).await?;
        let mut tx = self.store.begin().await?;
        self.open_for_change(&mut tx, &review_id, "confirmations").await?;
        let n = self.node_in(&mut tx, node_id).await?;
        if n.author_id == by.id {
            return Err(StoreError::Refused {
                gate: "author_confirms",
                message: format!(
                    "{} raised finding {node_id}: its author cannot confirm it; another reviewer must (request_peer_review asks one)",
                    by.name
                ),
                data: serde_json::json!({ "author": n.author }),
            });
        }
        if n.status != "open" {
            return Err(StoreError::Conflict(format!(
                "finding {node_id} is {}: only an open finding is confirmed",
                n.status
            )));
        }
        let at = now();
        let added = sqlx::query(
            "INSERT INTO review_confirmations (node_id, confirmer_id, confirmer, at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (node_id, confirmer_id) DO NOTHING",
        )
        .bind(node_id)
        .bind(&by.id)
        .bind(&by.name)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        if added == 1 {
            sqlx::query("UPDATE review_nodes SET updated_at = $2 WHERE id = $1")
                .bind(node_id)
                .bind(at)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
            self.event(&mut tx, &review_id, Some(node_id), "confirm", &by.name, &format!("confirmed: {}", n.title), at)
                .await?;
        }
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(self.node(node_id).await?.expect("there"))
    }

    async fn review_of(&self, node_id: &str) -> Result<String> {
        sqlx::query_scalar("SELECT review_id FROM review_nodes WHERE id = $1")
            .bind(node_id)
            .fetch_optional(self.store.reader())
            .await
            .map_err(|e| self.err(e))?
            .ok_or_else(|| StoreError::NotFound { what: format!("finding '{node_id}'") })
    }

    /// Closes an open finding as resolved (with the commit that resolved it, or an
    /// explanation) or dismissed (with the reason and the suppression it leaves), and traces it.
    pub async fn close(&self, node_id: &str, how: Closing<'_>, by: &Actor) -> Result<(Node, ReviewEvent)> {
        let review_id = self.review_of(node_id).await?;
        let mut tx = self.store.begin().await?;
        self.open_for_change(&mut tx, &review_id, "resolutions or dismissals").await?;
        let at = now();
        let (status, commit, text) = match &how {
            Closing::Resolved { commit, explanation } => ("resolved", *commit, explanation.unwrap_or("")),
            Closing::Dismissed { reason, .. } => ("dismissed", None, *reason),
        };
        let n = sqlx::query(
            "UPDATE review_nodes SET status = $2, resolved_commit = $3, resolution = $4, closed_by = $5, updated_at = $6 \
             WHERE id = $1 AND status = 'open'",
        )
        .bind(node_id)
        .bind(status)
        .bind(commit)
        .bind(text)
        .bind(&by.name)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        let row = self.node_in(&mut tx, node_id).await?;
        if n == 0 {
            return Err(StoreError::Conflict(format!(
                "finding {node_id} is {} already (by {})",
                row.status,
                row.closed_by.as_deref().unwrap_or("?")
            )));
        }
        let trace = match &how {
            Closing::Resolved { commit: Some(c), explanation } => format!(
                "resolved {} ({}:{}) in commit {c}{}",
                row.title,
                row.file,
                row.line,
                explanation.map(|e| format!(": {e}")).unwrap_or_default()
            ),
            Closing::Resolved { commit: None, explanation } => {
                format!("resolved {} ({}:{}): {}", row.title, row.file, row.line, explanation.unwrap_or(""))
            }
            Closing::Dismissed { reason, suppression } => {
                sqlx::query(
                    "INSERT INTO review_suppressions (workspace_id, key, fact_id, repo, file, title, node_id, created_at) \
                     SELECT workspace_id, $2, $3, $4, $5, $6, $7, $8 FROM reviews WHERE id = $1 \
                     ON CONFLICT (workspace_id, key) DO UPDATE SET fact_id = $3, node_id = $7, created_at = $8",
                )
                .bind(&review_id)
                .bind(&suppression.key)
                .bind(&suppression.fact_id)
                .bind(&suppression.repo)
                .bind(&suppression.file)
                .bind(&suppression.title)
                .bind(node_id)
                .bind(at)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
                format!(
                    "dismissed {} ({}:{}): {reason}; suppressed from now on by memory fact {}",
                    row.title, row.file, row.line, suppression.fact_id
                )
            }
        };
        let action = if status == "resolved" { "resolve" } else { "dismiss" };
        let e = self.event(&mut tx, &review_id, Some(node_id), action, &by.name, &trace, at).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok((self.node(node_id).await?.expect("there"), e))
    }

    /// The suppression of workspace `workspace` with `key`, when a finding was dismissed there.
    pub async fn suppression(&self, workspace: &str, key: &str) -> Result<Option<Suppression>> {
        let row: Option<(String, String, String, String, String, String)> = sqlx::query_as(
            "SELECT key, fact_id, repo, file, title, node_id FROM review_suppressions WHERE workspace_id = $1 AND key = $2",
        )
        .bind(workspace)
        .bind(key)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(row.map(|(key, fact_id, repo, file, title, node_id)| Suppression {
            key,
            fact_id,
            repo,
            file,
            title,
            node_id,
        }))
    }

    // ---- verdicts

    /// Records `by`'s verdict on an open review; an earlier verdict of theirs stops being current.
    pub async fn submit_verdict(
        &self,
        review_id: &str,
        verdict: Verdict,
        confidence: f64,
        explanation: &str,
        by: &Actor,
    ) -> Result<ReviewerVerdict> {
        let mut tx = self.store.begin().await?;
        self.open_for_change(&mut tx, review_id, "verdicts").await?;
        let at = now();
        sqlx::query("UPDATE review_verdicts SET current = 0 WHERE review_id = $1 AND reviewer_id = $2 AND current = 1")
            .bind(review_id)
            .bind(&by.id)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        let v = ReviewerVerdict {
            id: format!("vd-{}", uuid::Uuid::now_v7().simple()),
            reviewer: by.name.clone(),
            reviewer_id: by.id.clone(),
            verdict,
            confidence,
            explanation: explanation.to_string(),
            current: true,
            at,
        };
        sqlx::query(
            "INSERT INTO review_verdicts (id, review_id, reviewer_id, reviewer, verdict, confidence, explanation, current, at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8)",
        )
        .bind(&v.id)
        .bind(review_id)
        .bind(&v.reviewer_id)
        .bind(&v.reviewer)
        .bind(verdict.as_str())
        .bind(confidence)
        .bind(explanation)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let text = format!("verdict {} (confidence {confidence:.2}): {explanation}", verdict.as_str());
        self.event(&mut tx, review_id, None, "verdict", &by.name, &text, at).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(v)
    }

    /// A review's verdicts, oldest first: every one (`history`), or each reviewer's current one.
    pub async fn verdicts(&self, review_id: &str, history: bool) -> Result<Vec<ReviewerVerdict>> {
        let rows: Vec<VerdictRow> = sqlx::query_as(
            "SELECT id, reviewer_id, reviewer, verdict, confidence, explanation, current, at FROM review_verdicts \
             WHERE review_id = $1 AND ($2 = 1 OR current = 1) ORDER BY at, id",
        )
        .bind(review_id)
        .bind(i64::from(history))
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|r| {
                Ok(ReviewerVerdict {
                    verdict: Verdict::parse(&r.verdict)?,
                    id: r.id,
                    reviewer: r.reviewer,
                    reviewer_id: r.reviewer_id,
                    confidence: r.confidence,
                    explanation: r.explanation,
                    current: r.current == 1,
                    at: r.at,
                })
            })
            .collect()
    }

    // ---- areas

    /// Sets an area's summary.
    pub async fn set_summary(&self, review_id: &str, area: &str, summary: &str, by: &Actor) -> Result<Cohort> {
        let mut tx = self.store.begin().await?;
        self.open_for_change(&mut tx, review_id, "summaries").await?;
        let at = now();
        let n = sqlx::query(
            "UPDATE review_cohorts SET summary = $3, summary_by = $4, updated_at = $5 WHERE review_id = $1 AND area = $2",
        )
        .bind(review_id)
        .bind(area)
        .bind(summary)
        .bind(&by.name)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        if n == 0 {
            return Err(StoreError::NotFound { what: format!("area '{area}' in review {review_id}") });
        }
        self.event(&mut tx, review_id, None, "summary", &by.name, &format!("{area}: {summary}"), at).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        let all = self.cohorts(review_id).await?;
        Ok(all.into_iter().find(|c| c.area == area).expect("just updated"))
    }

    /// Stores a diagram of an area with its marks (`forced`: stored although contradicted).
    #[allow(clippy::too_many_arguments)]
    pub async fn add_diagram(
        &self,
        review_id: &str,
        area: &str,
        kind: &str,
        diagram: &serde_json::Value,
        marks: &serde_json::Value,
        forced: bool,
        by: &Actor,
    ) -> Result<StoredDiagram> {
        let mut tx = self.store.begin().await?;
        self.open_for_change(&mut tx, review_id, "diagrams").await?;
        let d = StoredDiagram {
            id: format!("dg-{}", uuid::Uuid::now_v7().simple()),
            review_id: review_id.to_string(),
            area: area.to_string(),
            kind: kind.to_string(),
            diagram: diagram.clone(),
            marks: marks.clone(),
            forced,
            created_by: by.name.clone(),
            created_at: now(),
        };
        sqlx::query(
            "INSERT INTO review_diagrams (id, review_id, area, kind, diagram, marks, forced, created_by, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(&d.id)
        .bind(review_id)
        .bind(area)
        .bind(kind)
        .bind(diagram.to_string())
        .bind(marks.to_string())
        .bind(i64::from(forced))
        .bind(&d.created_by)
        .bind(d.created_at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let text =
            format!("{kind} diagram of {area}{}", if forced { " (forced: it has contradicted elements)" } else { "" });
        self.event(&mut tx, review_id, None, "diagram", &by.name, &text, d.created_at).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(d)
    }

    /// A review's diagrams, oldest first.
    pub async fn diagrams(&self, review_id: &str) -> Result<Vec<StoredDiagram>> {
        let rows: Vec<DiagramRow> = sqlx::query_as(
            "SELECT id, review_id, area, kind, diagram, marks, forced, created_by, created_at FROM review_diagrams \
             WHERE review_id = $1 ORDER BY created_at, id",
        )
        .bind(review_id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .map(|r| StoredDiagram {
                id: r.id,
                review_id: r.review_id,
                area: r.area,
                kind: r.kind,
                diagram: serde_json::from_str(&r.diagram).unwrap_or(serde_json::Value::Null),
                marks: serde_json::from_str(&r.marks).unwrap_or(serde_json::Value::Null),
                forced: r.forced == 1,
                created_by: r.created_by,
                created_at: r.created_at,
            })
            .collect())
    }

    // ---- the end

    /// Finalizes an open review with its verdict and summary; a finalized one is a conflict.
    pub async fn finalize(&self, review_id: &str, verdict: Verdict, summary: &str, by: &Actor) -> Result<Review> {
        let mut tx = self.store.begin().await?;
        let at = now();
        let n = sqlx::query(
            "UPDATE reviews SET status = 'finalized', verdict = $2, summary = $3, finalized_by = $4, finalized_at = $5, \
             updated_at = $5 WHERE id = $1 AND status = 'open'",
        )
        .bind(review_id)
        .bind(verdict.as_str())
        .bind(summary)
        .bind(&by.name)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        if n == 0 {
            return Err(match self.get(review_id).await? {
                None => StoreError::NotFound { what: format!("review '{review_id}'") },
                Some(r) => StoreError::Conflict(format!(
                    "review {review_id} was finalized already (verdict {}, by {})",
                    r.verdict.map_or("?", Verdict::as_str),
                    r.finalized_by.as_deref().unwrap_or("?")
                )),
            });
        }
        self.event(&mut tx, review_id, None, "finalize", &by.name, &format!("verdict {}", verdict.as_str()), at)
            .await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(self.get(review_id).await?.expect("there"))
    }
}

/// How a finding is closed.
#[derive(Clone, Debug)]
pub enum Closing<'a> {
    Resolved { commit: Option<&'a str>, explanation: Option<&'a str> },
    Dismissed { reason: &'a str, suppression: Suppression },
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

/// JSON text of a value the store keeps as text.
fn json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("plain data serializes")
}
