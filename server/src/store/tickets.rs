//! Tickets, their relations and their pull requests: "what is there to do here, who does
//! it, and what does it wait for?"
//!
//! A ticket has an id (`tk-<UUIDv7>`) and a key of its workspace (`T-1`, `T-2`, …: the
//! number comes from `ticket_counters` in the ticket's own transaction, so two creators never
//! share one), and a space (kind ticket) created with it. Relations are stored both ways —
//! `blocked_by` ↔ `blocking`, `duplicate_of` ↔ `duplicated_by`, `sub_issue_of` ↔
//! `parent_of`, `related_to` both ways — written and removed in one transaction; a
//! `sub_issue_of` or `blocked_by` that would close a cycle is refused, and relation changes
//! of one workspace are serialized (a row lock on its counter), so two racing additions
//! cannot close one together. `sub_issue_of` is the ticket's `parent_id` too.

use std::collections::{HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};
use sqlx::{Any, Transaction};

use super::spaces::insert_space;
use super::{now, Member, Result, SpaceKind, Store, StoreError};

/// Where a ticket stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TicketStatus {
    Open,
    InProgress,
    Blocked,
    InReview,
    Done,
    Failed,
    Cancelled,
}

/// The usual spellings of each status an input may use (case, `-` and spaces aside).
const STATUS_ALIASES: &[(&str, TicketStatus)] = &[
    ("open", TicketStatus::Open),
    ("todo", TicketStatus::Open),
    ("to_do", TicketStatus::Open),
    ("backlog", TicketStatus::Open),
    ("new", TicketStatus::Open),
    ("reopened", TicketStatus::Open),
    ("in_progress", TicketStatus::InProgress),
    ("inprogress", TicketStatus::InProgress),
    ("doing", TicketStatus::InProgress),
    ("started", TicketStatus::InProgress),
    ("active", TicketStatus::InProgress),
    ("wip", TicketStatus::InProgress),
    ("blocked", TicketStatus::Blocked),
    ("on_hold", TicketStatus::Blocked),
    ("waiting", TicketStatus::Blocked),
    ("in_review", TicketStatus::InReview),
    ("review", TicketStatus::InReview),
    ("reviewing", TicketStatus::InReview),
    ("done", TicketStatus::Done),
    ("completed", TicketStatus::Done),
    ("complete", TicketStatus::Done),
    ("closed", TicketStatus::Done),
    ("resolved", TicketStatus::Done),
    ("finished", TicketStatus::Done),
    ("failed", TicketStatus::Failed),
    ("failure", TicketStatus::Failed),
    ("cancelled", TicketStatus::Cancelled),
    ("canceled", TicketStatus::Cancelled),
    ("wontfix", TicketStatus::Cancelled),
    ("wont_fix", TicketStatus::Cancelled),
];

impl TicketStatus {
    pub const ALL: [TicketStatus; 7] = [
        TicketStatus::Open,
        TicketStatus::InProgress,
        TicketStatus::Blocked,
        TicketStatus::InReview,
        TicketStatus::Done,
        TicketStatus::Failed,
        TicketStatus::Cancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TicketStatus::Open => "open",
            TicketStatus::InProgress => "in_progress",
            TicketStatus::Blocked => "blocked",
            TicketStatus::InReview => "in_review",
            TicketStatus::Done => "done",
            TicketStatus::Failed => "failed",
            TicketStatus::Cancelled => "cancelled",
        }
    }

    /// A status as a client may spell it (`In-Progress`, `doing`, `completed`, `todo`, …);
    /// an unknown one is an error listing what is accepted.
    pub fn parse_input(s: &str) -> std::result::Result<TicketStatus, String> {
        let norm: String =
            s.trim().to_ascii_lowercase().chars().map(|c| if c == '-' || c == ' ' { '_' } else { c }).collect();
        STATUS_ALIASES.iter().find(|(a, _)| *a == norm).map(|(_, st)| *st).ok_or_else(|| {
            format!(
                "unknown status '{s}'; accepted: {} (and the aliases {})",
                TicketStatus::ALL.map(|s| s.as_str()).join(", "),
                STATUS_ALIASES
                    .iter()
                    .filter(|(a, st)| *a != st.as_str())
                    .map(|(a, _)| *a)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    }

    fn parse(s: &str) -> Result<TicketStatus> {
        TicketStatus::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| StoreError::Invalid(format!("a ticket with the unknown status '{s}'")))
    }

    /// done, failed and cancelled: only update_ticket's status reopens such a ticket.
    pub fn is_final(self) -> bool {
        matches!(self, TicketStatus::Done | TicketStatus::Failed | TicketStatus::Cancelled)
    }
}

impl std::fmt::Display for TicketStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    #[default]
    None,
    Low,
    Medium,
    High,
    Urgent,
}

impl Priority {
    pub const ALL: [Priority; 5] = [Priority::None, Priority::Low, Priority::Medium, Priority::High, Priority::Urgent];

    pub fn as_str(self) -> &'static str {
        match self {
            Priority::None => "none",
            Priority::Low => "low",
            Priority::Medium => "medium",
            Priority::High => "high",
            Priority::Urgent => "urgent",
        }
    }

    fn parse(s: &str) -> Result<Priority> {
        Priority::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| StoreError::Invalid(format!("a ticket with the unknown priority '{s}'")))
    }
}

/// How one ticket relates to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RelationKind {
    /// It cannot go on before the other is done.
    BlockedBy,
    /// The other is blocked by it.
    Blocking,
    DuplicateOf,
    DuplicatedBy,
    /// The other is its parent.
    SubIssueOf,
    /// The other is one of its sub-issues.
    ParentOf,
    RelatedTo,
}

impl RelationKind {
    pub const ALL: [RelationKind; 7] = [
        RelationKind::BlockedBy,
        RelationKind::Blocking,
        RelationKind::DuplicateOf,
        RelationKind::DuplicatedBy,
        RelationKind::SubIssueOf,
        RelationKind::ParentOf,
        RelationKind::RelatedTo,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RelationKind::BlockedBy => "blocked_by",
            RelationKind::Blocking => "blocking",
            RelationKind::DuplicateOf => "duplicate_of",
            RelationKind::DuplicatedBy => "duplicated_by",
            RelationKind::SubIssueOf => "sub_issue_of",
            RelationKind::ParentOf => "parent_of",
            RelationKind::RelatedTo => "related_to",
        }
    }

    fn parse(s: &str) -> Result<RelationKind> {
        RelationKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| StoreError::Invalid(format!("a relation of the unknown kind '{s}'")))
    }

    /// The relation as the other ticket has it.
    pub fn inverse(self) -> RelationKind {
        match self {
            RelationKind::BlockedBy => RelationKind::Blocking,
            RelationKind::Blocking => RelationKind::BlockedBy,
            RelationKind::DuplicateOf => RelationKind::DuplicatedBy,
            RelationKind::DuplicatedBy => RelationKind::DuplicateOf,
            RelationKind::SubIssueOf => RelationKind::ParentOf,
            RelationKind::ParentOf => RelationKind::SubIssueOf,
            RelationKind::RelatedTo => RelationKind::RelatedTo,
        }
    }

    /// `a self b` as the one direction that is checked: blocked_by, duplicate_of,
    /// sub_issue_of or related_to, with the tickets swapped when needed.
    fn canonical<'a>(self, a: &'a str, b: &'a str) -> (&'a str, RelationKind, &'a str) {
        match self {
            RelationKind::Blocking | RelationKind::DuplicatedBy | RelationKind::ParentOf => (b, self.inverse(), a),
            _ => (a, self, b),
        }
    }

    /// Whether a cycle of this (canonical) kind is refused.
    fn acyclic(self) -> bool {
        matches!(self, RelationKind::BlockedBy | RelationKind::SubIssueOf)
    }
}

/// A ticket as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Ticket {
    pub id: String,
    pub workspace_id: String,
    /// Its key in the workspace: T-1, T-2, …
    pub key: String,
    pub title: String,
    pub description: String,
    pub status: TicketStatus,
    pub priority: Priority,
    pub labels: Vec<String>,
    /// The agent it is assigned to.
    pub assignee_id: Option<String>,
    pub team: Option<String>,
    /// The ticket it is a sub-issue of.
    pub parent_id: Option<String>,
    /// Who created it (a principal's or an agent's name).
    pub creator: String,
    pub creator_agent_id: Option<String>,
    /// Its space (comments, collaborators).
    pub space_id: String,
    /// What close_ticket recorded.
    pub output: Option<String>,
    /// What fail_ticket recorded.
    pub error: Option<String>,
    /// Bumped by every change.
    pub version: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub closed_at: Option<i64>,
    /// What it and its delegations may spend, in the workspace's unit (none declared: no
    /// envelope).
    pub budget: Option<i64>,
    /// The ticket it was delegated from (delegate_ticket, delegate_task).
    pub delegated_from: Option<String>,
    /// The agent that delegated it (none when a principal did, or it was not delegated).
    pub delegated_by_agent_id: Option<String>,
    /// Its depth in its delegation lineage: 0 when it was not delegated, 1 under such a
    /// ticket, and so on.
    pub delegation_depth: i64,
    /// Its number on the provider it is mirrored on (a GitHub issue's number).
    pub provider_number: Option<i64>,
    /// Its address there.
    pub provider_url: Option<String>,
    /// How its mirroring stands, when its workspace mirrors tickets on a provider.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncStatus>,
}

/// A mirrored ticket's sync, from its outbox row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SyncStatus {
    /// synced (the provider has every change), pending (changes wait: being pushed, or
    /// retried after an outage), refused (the provider refused it as it is; the next change
    /// retries).
    pub state: String,
    /// Changes not pushed yet.
    pub pending_changes: i64,
    pub attempts: i64,
    /// Why the last attempt failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    /// When the next attempt is due (seconds since the epoch), while pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<i64>,
}

/// A mirrored ticket's outbox row.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Outbox {
    pub ticket_id: String,
    pub changes: i64,
    pub synced_changes: i64,
    pub comments_synced: i64,
    pub attempts: i64,
    pub next_attempt_at: i64,
    pub refused: i64,
    pub last_error: Option<String>,
}

impl Outbox {
    fn status(&self, space_seq: i64) -> SyncStatus {
        let pending = self.changes - self.synced_changes + (space_seq - self.comments_synced).max(0);
        let state = if self.refused == 1 {
            "refused"
        } else if pending > 0 {
            "pending"
        } else {
            "synced"
        };
        SyncStatus {
            state: state.into(),
            pending_changes: pending,
            attempts: self.attempts,
            last_error: self.last_error.clone(),
            next_attempt_at: (state == "pending").then_some(self.next_attempt_at),
        }
    }
}

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    workspace_id: String,
    number: i64,
    title: String,
    description: String,
    status: String,
    priority: String,
    assignee_id: Option<String>,
    team: Option<String>,
    parent_id: Option<String>,
    creator: String,
    creator_agent_id: Option<String>,
    space_id: String,
    output: Option<String>,
    error: Option<String>,
    version: i64,
    created_at: i64,
    updated_at: i64,
    closed_at: Option<i64>,
    budget: Option<i64>,
    delegated_from: Option<String>,
    delegated_by_agent_id: Option<String>,
    delegation_depth: i64,
    provider_number: Option<i64>,
    provider_url: Option<String>,
}

const COLUMNS: &str = "id, workspace_id, number, title, description, status, priority, assignee_id, team, parent_id, \
     creator, creator_agent_id, space_id, output, error, version, created_at, updated_at, closed_at, \
     budget, delegated_from, delegated_by_agent_id, delegation_depth, provider_number, provider_url";

impl Row {
    fn into_ticket(self, labels: Vec<String>) -> Result<Ticket> {
        Ok(Ticket {
            key: key_of(self.number),
            status: TicketStatus::parse(&self.status)?,
            priority: Priority::parse(&self.priority)?,
            id: self.id,
            workspace_id: self.workspace_id,
            title: self.title,
            description: self.description,
            labels,
            assignee_id: self.assignee_id,
            team: self.team,
            parent_id: self.parent_id,
            creator: self.creator,
            creator_agent_id: self.creator_agent_id,
            space_id: self.space_id,
            output: self.output,
            error: self.error,
            version: self.version,
            created_at: self.created_at,
            updated_at: self.updated_at,
            closed_at: self.closed_at,
            budget: self.budget,
            delegated_from: self.delegated_from,
            delegated_by_agent_id: self.delegated_by_agent_id,
            delegation_depth: self.delegation_depth,
            provider_number: self.provider_number,
            provider_url: self.provider_url,
            sync: None,
        })
    }
}

/// The key of ticket number `n`.
pub fn key_of(n: i64) -> String {
    format!("T-{n}")
}

/// The number of a key (`T-12`, `t-12`), when `s` is one.
pub fn parse_key(s: &str) -> Option<i64> {
    let n = s.strip_prefix("T-").or_else(|| s.strip_prefix("t-"))?;
    if n.is_empty() || n.len() > 18 || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok().filter(|n| *n > 0)
}

/// What a new ticket is made of.
#[derive(Clone, Debug, Default)]
pub struct NewTicket {
    pub title: String,
    pub description: String,
    pub status: Option<TicketStatus>,
    pub priority: Priority,
    pub labels: Vec<String>,
    pub assignee_id: Option<String>,
    pub team: Option<String>,
    pub parent_id: Option<String>,
    pub creator: String,
    pub creator_agent_id: Option<String>,
    /// What it may spend (see [`Ticket::budget`]).
    pub budget: Option<i64>,
    /// The first members of its space (the creator, the assignee).
    pub members: Vec<Member>,
}

/// A change to a ticket: each `Some` field is set (`Some(None)` clears).
#[derive(Clone, Debug, Default)]
pub struct TicketPatch {
    pub title: Option<String>,
    pub description: Option<String>,
    pub status: Option<TicketStatus>,
    pub priority: Option<Priority>,
    pub labels: Option<Vec<String>>,
    pub assignee_id: Option<Option<String>>,
    pub team: Option<Option<String>>,
    pub output: Option<Option<String>>,
    pub error: Option<Option<String>>,
}

/// Which tickets list() answers, newest first.
#[derive(Clone, Debug, Default)]
pub struct TicketFilter {
    pub status: Option<TicketStatus>,
    pub assignee_id: Option<String>,
    pub label: Option<String>,
    pub parent_id: Option<String>,
    /// Only tickets numbered below this (the cursor).
    pub before_number: Option<i64>,
    pub limit: u32,
}

/// One relation, as the ticket `ticket_id` has it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Relation {
    pub ticket_id: String,
    pub kind: RelationKind,
    pub other_id: String,
    pub created_by: String,
    pub created_at: i64,
}

/// A pull request linked to a ticket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PrLink {
    /// The pull request's GraphQL node id.
    pub pr_node_id: String,
    pub linked_by: String,
    pub linked_at: i64,
}

/// A delegation's parties and limits (see [`Tickets::delegate`]).
#[derive(Clone, Debug, Default)]
pub struct Delegation {
    /// The ticket delegated from (none: the new ticket roots a lineage of its own).
    pub from: Option<String>,
    /// The delegating agent (none: a principal, who has no autonomy cap).
    pub by_agent_id: Option<String>,
    /// The agent receiving the work.
    pub to_agent_id: String,
    /// The deepest a delegated ticket may be.
    pub max_depth: u32,
}

/// One ticket of a delegation lineage.
#[derive(sqlx::FromRow)]
struct Link {
    id: String,
    number: i64,
    assignee_id: Option<String>,
    delegated_by_agent_id: Option<String>,
    delegated_from: Option<String>,
    delegation_depth: i64,
    budget: Option<i64>,
    status: String,
}

/// The tickets area of a [`Store`].
pub struct Tickets<'a> {
    pub(super) store: &'a Store,
}

impl Tickets<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        self.store.err(e)
    }

    /// Creates a ticket with its key, its space and (with `parent_id`) its sub_issue_of
    /// relation, in one transaction.
    pub async fn create(&self, workspace: &str, t: NewTicket) -> Result<Ticket> {
        let mut tx = self.store.begin().await?;
        let id = self.insert(&mut tx, workspace, &t, (None, None, 0)).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(self.get(&id).await?.expect("just created"))
    }

    /// Inserts ticket `t` inside `tx` with its lineage (delegated from, by, depth); answers
    /// its id.
    async fn insert(
        &self,
        tx: &mut Transaction<'static, Any>,
        workspace: &str,
        t: &NewTicket,
        (from, by, depth): (Option<&str>, Option<&str>, i64),
    ) -> Result<String> {
        let id = format!("tk-{}", uuid::Uuid::now_v7().simple());
        let space_id = format!("sp-{}", uuid::Uuid::now_v7().simple());
        let number: i64 = sqlx::query_scalar(
            "INSERT INTO ticket_counters (workspace_id, last_number, relations_seq) VALUES ($1, 1, 0) \
             ON CONFLICT (workspace_id) DO UPDATE SET last_number = ticket_counters.last_number + 1 RETURNING last_number",
        )
        .bind(workspace)
        .fetch_one(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        if let Some(p) = &t.parent_id {
            self.in_workspace(tx, workspace, p).await?;
        }
        let key = key_of(number);
        let name = format!("{key}: {}", t.title);
        insert_space(tx, &space_id, workspace, SpaceKind::Ticket, &name, None, &t.members)
            .await
            .map_err(|e| self.err(e))?;
        let at = now();
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO tickets ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, NULL, NULL, 1, $14, $14, NULL, \
             $15, $16, $17, $18, NULL, NULL)"
        )))
        .bind(&id)
        .bind(workspace)
        .bind(number)
        .bind(&t.title)
        .bind(&t.description)
        .bind(t.status.unwrap_or(TicketStatus::Open).as_str())
        .bind(t.priority.as_str())
        .bind(&t.assignee_id)
        .bind(&t.team)
        .bind(&t.parent_id)
        .bind(&t.creator)
        .bind(&t.creator_agent_id)
        .bind(&space_id)
        .bind(at)
        .bind(t.budget)
        .bind(from)
        .bind(by)
        .bind(depth)
        .execute(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        self.set_labels(tx, &id, &t.labels).await?;
        if let Some(p) = &t.parent_id {
            self.insert_pair(tx, &id, RelationKind::SubIssueOf, p, &t.creator).await?;
        }
        self.mark(tx, &id).await?;
        Ok(id)
    }

    // ------------------------------------------------------------ delegation

    /// Delegates: creates `t` (assigned to `d.to_agent_id`, a sub-issue of `d.from` when
    /// given) as a tracked child ticket, after the gates, in one transaction that holds the
    /// parent's row lock (so two racing delegations cannot both spend its last budget). Each
    /// refusal is a [`StoreError::Refused`] naming its gate and its numbers:
    ///
    /// - `depth_cap`: the child's depth in the lineage (the parent's + 1) is at most
    ///   `d.max_depth`;
    /// - `cycle`: the receiving agent is not in the lineage's chain — the delegating agent,
    ///   and every ancestor's assignee and delegator (an agent cannot receive work its own
    ///   chain handed down);
    /// - `budget_envelope`: under a parent that declares a budget, the child declares one, at
    ///   most what the parent has left (its budget less its children's, cancelled ones aside);
    /// - `autonomy_cap`: a delegating agent of autonomy 0 delegates nothing, and no agent
    ///   hands work to one of a higher autonomy than its own (delegation never widens what may
    ///   be decided alone). A principal (the operator, a user) has no autonomy cap.
    pub async fn delegate(&self, workspace: &str, mut t: NewTicket, d: &Delegation) -> Result<Ticket> {
        let mut tx = self.store.begin().await?;
        // The lineage, parent first, up to its root.
        let mut chain: Vec<Link> = Vec::new();
        if let Some(from) = &d.from {
            // The parent's row lock: delegations from one ticket queue here.
            let n = sqlx::query("UPDATE tickets SET version = version WHERE id = $1 AND workspace_id = $2")
                .bind(from)
                .bind(workspace)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.err(e))?
                .rows_affected();
            if n == 0 {
                return Err(StoreError::NotFound { what: format!("ticket '{from}' in workspace '{workspace}'") });
            }
            let mut at = Some(from.clone());
            while let Some(id) = at.take() {
                if chain.iter().any(|l| l.id == id) || chain.len() > 1000 {
                    break;
                }
                let row: Option<Link> = sqlx::query_as(
                    "SELECT id, number, assignee_id, delegated_by_agent_id, delegated_from, delegation_depth, budget, status \
                     FROM tickets WHERE id = $1",
                )
                .bind(&id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
                if let Some(l) = row {
                    at = l.delegated_from.clone();
                    chain.push(l);
                }
            }
        }
        let parent = chain.first();
        let parent_key = parent.map(|p| key_of(p.number));
        if let Some(p) = parent.filter(|p| TicketStatus::parse(&p.status).is_ok_and(TicketStatus::is_final)) {
            return Err(StoreError::Conflict(format!(
                "{} is {} already (final): nothing more is delegated from it until update_ticket reopens it",
                key_of(p.number),
                p.status
            )));
        }
        // The lineage as keys, root first, then the child.
        let path = {
            let mut keys: Vec<String> = chain.iter().rev().map(|l| key_of(l.number)).collect();
            keys.push("the new ticket".into());
            keys.join(" → ")
        };
        let depth = parent.map_or(1, |p| p.delegation_depth + 1);
        if depth > d.max_depth as i64 {
            return Err(StoreError::Refused {
                gate: "depth_cap",
                message: format!(
                    "depth cap: the new ticket would be at delegation depth {depth} ({path}), and the cap is {} \
                     ([delegation] max_depth of the server's config.toml); finish {} instead of delegating it further",
                    d.max_depth,
                    parent_key.as_deref().unwrap_or("it")
                ),
                data: serde_json::json!({ "depth": depth, "max_depth": d.max_depth }),
            });
        }
        // Who is in the chain: the delegating agent, then from the parent up each ticket's
        // assignee and delegator.
        let mut agents: Vec<(String, String)> = Vec::new();
        if let Some(by) = &d.by_agent_id {
            agents.push((by.clone(), "delegating".into()));
        }
        for l in &chain {
            if let Some(a) = &l.assignee_id {
                agents.push((a.clone(), format!("assignee of {}", key_of(l.number))));
            }
            if let Some(a) = &l.delegated_by_agent_id {
                agents.push((a.clone(), format!("delegator of {}", key_of(l.number))));
            }
        }
        if let Some((_, role)) = agents.iter().find(|(a, _)| *a == d.to_agent_id) {
            let to = self.agent_name(&mut tx, &d.to_agent_id).await?;
            let mut names: Vec<String> = Vec::new();
            for (a, _) in agents.iter().rev() {
                let n = self.agent_name(&mut tx, a).await?;
                if names.last() != Some(&n) {
                    names.push(n);
                }
            }
            return Err(StoreError::Refused {
                gate: "cycle",
                message: format!(
                    "cycle: {to} is in this delegation's chain already ({role}; the chain {} → {to}), and an agent \
                     cannot receive work its own delegation chain handed down",
                    names.join(" → ")
                ),
                data: serde_json::json!({ "agent_id": d.to_agent_id, "chain": names }),
            });
        }
        if let Some(by) = &d.by_agent_id {
            let autonomy = |id: &str| {
                sqlx::query_as::<_, (String, i64)>("SELECT name, autonomy FROM agents WHERE id = $1")
                    .bind(id.to_string())
            };
            let (by_name, by_a) = autonomy(by)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?
                .ok_or_else(|| StoreError::NotFound { what: format!("agent '{by}'") })?;
            let (to_name, to_a) = autonomy(&d.to_agent_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?
                .ok_or_else(|| StoreError::NotFound { what: format!("agent '{}'", d.to_agent_id) })?;
            if by_a == 0 || to_a > by_a {
                let why = if by_a == 0 {
                    format!("{by_name} has autonomy 0, which delegates nothing")
                } else {
                    format!(
                        "{by_name} (autonomy {by_a}) delegates only to agents of autonomy {by_a} or less, and {to_name} has autonomy {to_a}"
                    )
                };
                return Err(StoreError::Refused {
                    gate: "autonomy_cap",
                    message: format!(
                        "autonomy cap: {why}; the operator sets autonomy (cc-server agents update --autonomy)"
                    ),
                    data: serde_json::json!({ "autonomy": by_a, "to_autonomy": to_a }),
                });
            }
        }
        if let Some(p) = parent.filter(|p| p.budget.is_some()) {
            let total = p.budget.unwrap_or_default();
            let given: Vec<(i64, Option<i64>)> = sqlx::query_as(
                "SELECT number, budget FROM tickets WHERE delegated_from = $1 AND status <> 'cancelled' ORDER BY number",
            )
            .bind(&p.id)
            .fetch_all(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
            let spent: i64 = given.iter().filter_map(|(_, b)| *b).sum();
            let left = (total - spent).max(0);
            let to: Vec<String> = given.iter().map(|(n, _)| key_of(*n)).collect();
            let held = if to.is_empty() { String::new() } else { format!("; {spent} given to {}", to.join(", ")) };
            let key = key_of(p.number);
            let refuse = |message: String| StoreError::Refused {
                gate: "budget_envelope",
                message,
                data: serde_json::json!({ "budget": total, "left": left, "asked": t.budget }),
            };
            match t.budget {
                None => {
                    return Err(refuse(format!(
                        "budget envelope: {key} declares a budget of {total} ({left} left{held}); give the new ticket a budget of at most {left}"
                    )))
                }
                Some(b) if b > left => {
                    return Err(refuse(format!(
                        "budget envelope: the new ticket asks {b}, and {key} has {left} left of its {total}{held}"
                    )))
                }
                Some(_) => {}
            }
        }
        t.assignee_id = Some(d.to_agent_id.clone());
        t.parent_id = d.from.clone();
        // (A delegation from no ticket roots a lineage of its own, at depth 1.)
        let id = self.insert(&mut tx, workspace, &t, (d.from.as_deref(), d.by_agent_id.as_deref(), depth)).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(self.get(&id).await?.expect("just created"))
    }

    async fn agent_name(&self, tx: &mut Transaction<'static, Any>, id: &str) -> Result<String> {
        let n: Option<String> = sqlx::query_scalar("SELECT name FROM agents WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
        Ok(n.unwrap_or_else(|| id.to_string()))
    }

    /// The tickets delegated from ticket `id`, oldest first.
    pub async fn delegated_from(&self, id: &str) -> Result<Vec<Ticket>> {
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM tickets WHERE delegated_from = $1 ORDER BY number"
        )))
        .bind(id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        self.with_labels(rows).await
    }

    /// The ticket `id` of `workspace` inside `tx`, or not found.
    async fn in_workspace(&self, tx: &mut Transaction<'static, Any>, workspace: &str, id: &str) -> Result<i64> {
        let n: Option<i64> = sqlx::query_scalar("SELECT number FROM tickets WHERE id = $1 AND workspace_id = $2")
            .bind(id)
            .bind(workspace)
            .fetch_optional(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
        n.ok_or_else(|| StoreError::NotFound { what: format!("ticket '{id}' in workspace '{workspace}'") })
    }

    async fn set_labels(&self, tx: &mut Transaction<'static, Any>, id: &str, labels: &[String]) -> Result<()> {
        sqlx::query("DELETE FROM ticket_labels WHERE ticket_id = $1")
            .bind(id)
            .execute(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
        for l in labels {
            sqlx::query("INSERT INTO ticket_labels (ticket_id, label) VALUES ($1, $2) ON CONFLICT DO NOTHING")
                .bind(id)
                .bind(l)
                .execute(&mut **tx)
                .await
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    async fn labels(&self, ids: &[&str]) -> Result<HashMap<String, Vec<String>>> {
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        for chunk in ids.chunks(200) {
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT ticket_id, label FROM ticket_labels WHERE ticket_id IN ({}) ORDER BY ticket_id, label",
                marks.join(", ")
            );
            let mut q = sqlx::query_as::<_, (String, String)>(sqlx::AssertSqlSafe(sql));
            for id in chunk {
                q = q.bind(*id);
            }
            for (t, l) in q.fetch_all(self.store.reader()).await.map_err(|e| self.err(e))? {
                out.entry(t).or_default().push(l);
            }
        }
        Ok(out)
    }

    async fn with_labels(&self, rows: Vec<Row>) -> Result<Vec<Ticket>> {
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        let mut labels = self.labels(&ids).await?;
        let mut sync = self.sync_of(&ids).await?;
        rows.into_iter()
            .map(|r| {
                let l = labels.remove(&r.id).unwrap_or_default();
                let s = sync.remove(&r.id);
                r.into_ticket(l).map(|mut t| {
                    t.sync = s;
                    t
                })
            })
            .collect()
    }

    async fn sync_of(&self, ids: &[&str]) -> Result<HashMap<String, SyncStatus>> {
        let mut out = HashMap::new();
        for chunk in ids.chunks(200) {
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
            let sql = format!(
                "SELECT o.ticket_id, o.changes, o.synced_changes, o.comments_synced, o.attempts, o.next_attempt_at, o.refused, \
                 o.last_error, s.next_seq FROM ticket_outbox o JOIN tickets t ON t.id = o.ticket_id JOIN spaces s ON s.id = t.space_id \
                 WHERE o.ticket_id IN ({})",
                marks.join(", ")
            );
            type R = (String, i64, i64, i64, i64, i64, i64, Option<String>, i64);
            let mut q = sqlx::query_as::<_, R>(sqlx::AssertSqlSafe(sql));
            for id in chunk {
                q = q.bind(*id);
            }
            for r in q.fetch_all(self.store.reader()).await.map_err(|e| self.err(e))? {
                let o = Outbox {
                    ticket_id: r.0,
                    changes: r.1,
                    synced_changes: r.2,
                    comments_synced: r.3,
                    attempts: r.4,
                    next_attempt_at: r.5,
                    refused: r.6,
                    last_error: r.7,
                };
                out.insert(o.ticket_id.clone(), o.status(r.8));
            }
        }
        Ok(out)
    }

    // ------------------------------------------------------------ mirroring (the outbox)

    /// Marks ticket `id` changed in its outbox, inside the change's transaction, when its
    /// workspace mirrors tickets on a provider (a change clears an earlier refusal and is due
    /// now).
    async fn mark(&self, tx: &mut Transaction<'static, Any>, id: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO ticket_outbox (ticket_id, changes, synced_changes, comments_synced, attempts, next_attempt_at, refused, \
             last_error, lease_until, updated_at) \
             SELECT t.id, 1, 0, 0, 0, $2, 0, NULL, NULL, $2 FROM tickets t JOIN ticket_providers p ON p.workspace_id = t.workspace_id \
             WHERE t.id = $1 \
             ON CONFLICT (ticket_id) DO UPDATE SET changes = ticket_outbox.changes + 1, updated_at = $2, \
             next_attempt_at = CASE WHEN ticket_outbox.refused = 1 THEN $2 ELSE ticket_outbox.next_attempt_at END, refused = 0",
        )
        .bind(id)
        .bind(now())
        .execute(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Which workspaces mirror their tickets where: (workspace, provider, repository), as
    /// the server's configuration says (every other workspace stops mirroring).
    pub async fn set_providers(&self, providers: &[(String, String, String)]) -> Result<()> {
        let mut tx = self.store.begin().await?;
        sqlx::query("DELETE FROM ticket_providers").execute(&mut *tx).await.map_err(|e| self.err(e))?;
        for (w, p, r) in providers {
            sqlx::query("INSERT INTO ticket_providers (workspace_id, provider, repository) VALUES ($1, $2, $3)")
                .bind(w)
                .bind(p)
                .bind(r)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
        }
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The repository workspace `workspace` mirrors on, if it does.
    pub async fn provider_of(&self, workspace: &str) -> Result<Option<(String, String)>> {
        sqlx::query_as("SELECT provider, repository FROM ticket_providers WHERE workspace_id = $1")
            .bind(workspace)
            .fetch_optional(self.store.reader())
            .await
            .map_err(|e| self.err(e))
    }

    /// Mirrored tickets with something to push (a change, or a message of their space not
    /// mirrored as a comment yet) whose attempt is due, oldest change first.
    pub async fn due(&self, limit: u32) -> Result<Vec<String>> {
        sqlx::query_scalar(
            "SELECT o.ticket_id FROM ticket_outbox o JOIN tickets t ON t.id = o.ticket_id JOIN spaces s ON s.id = t.space_id \
             WHERE o.refused = 0 AND o.next_attempt_at <= $1 AND (o.changes > o.synced_changes OR s.next_seq > o.comments_synced) \
             AND (o.lease_until IS NULL OR o.lease_until < $1) ORDER BY o.updated_at LIMIT $2",
        )
        .bind(now())
        .bind(limit as i64)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))
    }

    /// Takes ticket `id`'s outbox row for `secs` (one syncer at a time, across replicas);
    /// the row as taken, or none when another holds it or it is not mirrored.
    pub async fn lease(&self, id: &str, secs: i64) -> Result<Option<Outbox>> {
        let at = now();
        let n = sqlx::query(
            "UPDATE ticket_outbox SET lease_until = $2 WHERE ticket_id = $1 AND (lease_until IS NULL OR lease_until < $3)",
        )
        .bind(id)
        .bind(at + secs)
        .bind(at)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        if n == 0 {
            return Ok(None);
        }
        sqlx::query_as(
            "SELECT ticket_id, changes, synced_changes, comments_synced, attempts, next_attempt_at, refused, last_error \
             FROM ticket_outbox WHERE ticket_id = $1",
        )
        .bind(id)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))
    }

    /// Records the provider's number and address of ticket `id` (as soon as it is created there).
    pub async fn set_provider_ref(&self, id: &str, number: i64, url: &str) -> Result<()> {
        sqlx::query("UPDATE tickets SET provider_number = $2, provider_url = $3 WHERE id = $1")
            .bind(id)
            .bind(number)
            .bind(url)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Records that the messages of ticket `id`'s space up to `seq` are mirrored.
    pub async fn comments_synced(&self, id: &str, seq: i64) -> Result<()> {
        sqlx::query("UPDATE ticket_outbox SET comments_synced = $2 WHERE ticket_id = $1 AND comments_synced < $2")
            .bind(id)
            .bind(seq)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Ends a sync of ticket `id`: `Ok` pushed the first `changes` changes; an error is kept
    /// with the next attempt `retry_in` seconds away (`None`: refused, not retried until the
    /// ticket changes). Releases the lease.
    pub async fn sync_ended(&self, id: &str, outcome: std::result::Result<i64, (String, Option<i64>)>) -> Result<()> {
        let at = now();
        let q = match &outcome {
            Ok(changes) => sqlx::query(
                "UPDATE ticket_outbox SET synced_changes = CASE WHEN synced_changes < $2 THEN $2 ELSE synced_changes END, \
                 attempts = 0, last_error = NULL, lease_until = NULL, next_attempt_at = $3 WHERE ticket_id = $1",
            )
            .bind(id)
            .bind(*changes)
            .bind(at),
            Err((error, retry_in)) => sqlx::query(
                "UPDATE ticket_outbox SET attempts = attempts + 1, last_error = $2, lease_until = NULL, next_attempt_at = $3, \
                 refused = $4 WHERE ticket_id = $1",
            )
            .bind(id)
            .bind(error.clone())
            .bind(at + retry_in.unwrap_or(0))
            .bind(retry_in.is_none() as i64),
        };
        q.execute(self.store.writer()).await.map_err(|e| self.err(e))?;
        Ok(())
    }

    pub async fn get(&self, id: &str) -> Result<Option<Ticket>> {
        let row: Option<Row> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM tickets WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        Ok(self.with_labels(row.into_iter().collect()).await?.pop())
    }

    /// The ticket with key number `number` in `workspace`.
    pub async fn by_number(&self, workspace: &str, number: i64) -> Result<Option<Ticket>> {
        let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM tickets WHERE workspace_id = $1 AND number = $2"
        )))
        .bind(workspace)
        .bind(number)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(self.with_labels(row.into_iter().collect()).await?.pop())
    }

    /// A ticket of `workspace` by its id or its key.
    pub async fn find(&self, workspace: &str, id_or_key: &str) -> Result<Option<Ticket>> {
        let t = match parse_key(id_or_key) {
            Some(n) => self.by_number(workspace, n).await?,
            None => self.get(id_or_key).await?,
        };
        Ok(t.filter(|t| t.workspace_id == workspace))
    }

    /// A workspace's tickets, newest first, filtered.
    pub async fn list(&self, workspace: &str, f: &TicketFilter) -> Result<Vec<Ticket>> {
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM tickets t WHERE workspace_id = $1 \
             AND ($2 IS NULL OR status = $2) AND ($3 IS NULL OR assignee_id = $3) AND ($4 IS NULL OR parent_id = $4) \
             AND ($5 IS NULL OR number < $5) \
             AND ($6 IS NULL OR EXISTS (SELECT 1 FROM ticket_labels l WHERE l.ticket_id = t.id AND l.label = $6)) \
             ORDER BY number DESC LIMIT $7"
        )))
        .bind(workspace)
        .bind(f.status.map(|s| s.as_str()))
        .bind(&f.assignee_id)
        .bind(&f.parent_id)
        .bind(f.before_number)
        .bind(&f.label)
        .bind(f.limit as i64)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        self.with_labels(rows).await
    }

    /// Applies `p` to ticket `id` in one statement (and its labels in the same transaction);
    /// a final status records `closed_at`, any other clears it.
    pub async fn update(&self, id: &str, p: &TicketPatch) -> Result<Ticket> {
        self.apply(id, p, false).await
    }

    /// Ends ticket `id` (done with an output, failed with an error, cancelled), unless it
    /// has ended already ([`StoreError::Conflict`] saying how).
    pub async fn finish(
        &self,
        id: &str,
        status: TicketStatus,
        output: Option<&str>,
        error: Option<&str>,
    ) -> Result<Ticket> {
        let p = TicketPatch {
            status: Some(status),
            output: Some(output.map(str::to_string)),
            error: Some(error.map(str::to_string)),
            ..TicketPatch::default()
        };
        self.apply(id, &p, true).await
    }

    async fn apply(&self, id: &str, p: &TicketPatch, only_if_open: bool) -> Result<Ticket> {
        enum B {
            Text(Option<String>),
            Int(Option<i64>),
        }
        let mut sets: Vec<String> = vec!["version = version + 1".into()];
        let mut binds: Vec<B> = vec![B::Text(Some(id.to_string()))];
        let mut set = |col: &str, b: B| {
            binds.push(b);
            sets.push(format!("{col} = ${}", binds.len()));
        };
        let at = now();
        set("updated_at", B::Int(Some(at)));
        if let Some(v) = &p.title {
            set("title", B::Text(Some(v.clone())));
        }
        if let Some(v) = &p.description {
            set("description", B::Text(Some(v.clone())));
        }
        if let Some(v) = p.status {
            set("status", B::Text(Some(v.as_str().into())));
            set("closed_at", B::Int(v.is_final().then_some(at)));
        }
        if let Some(v) = p.priority {
            set("priority", B::Text(Some(v.as_str().into())));
        }
        if let Some(v) = &p.assignee_id {
            set("assignee_id", B::Text(v.clone()));
        }
        if let Some(v) = &p.team {
            set("team", B::Text(v.clone()));
        }
        if let Some(v) = &p.output {
            set("output", B::Text(v.clone()));
        }
        if let Some(v) = &p.error {
            set("error", B::Text(v.clone()));
        }
        let guard = if only_if_open { " AND status NOT IN ('done', 'failed', 'cancelled')" } else { "" };
        let sql = format!("UPDATE tickets SET {} WHERE id = $1{guard}", sets.join(", "));
        let mut tx = self.store.begin().await?;
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for b in binds {
            q = match b {
                B::Text(v) => q.bind(v),
                B::Int(v) => q.bind(v),
            };
        }
        let n = q.execute(&mut *tx).await.map_err(|e| self.err(e))?.rows_affected();
        if n == 0 {
            let current: Option<(i64, String)> = sqlx::query_as("SELECT number, status FROM tickets WHERE id = $1")
                .bind(id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
            return Err(match current {
                None => StoreError::NotFound { what: format!("ticket '{id}'") },
                Some((n, status)) => StoreError::Conflict(format!(
                    "{} is {status} already (final); update_ticket with a status reopens it",
                    key_of(n)
                )),
            });
        }
        if let Some(labels) = &p.labels {
            self.set_labels(&mut tx, id, labels).await?;
        }
        self.mark(&mut tx, id).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        self.get(id).await?.ok_or_else(|| StoreError::NotFound { what: format!("ticket '{id}'") })
    }

    // ------------------------------------------------------------ relations

    /// Serializes relation changes of `workspace` (a row lock on PostgreSQL; SQLite's
    /// writer is one already).
    async fn lock_relations(&self, tx: &mut Transaction<'static, Any>, workspace: &str) -> Result<()> {
        sqlx::query("UPDATE ticket_counters SET relations_seq = relations_seq + 1 WHERE workspace_id = $1")
            .bind(workspace)
            .execute(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    async fn insert_pair(
        &self,
        tx: &mut Transaction<'static, Any>,
        a: &str,
        kind: RelationKind,
        b: &str,
        by: &str,
    ) -> Result<()> {
        for (x, k, y) in [(a, kind, b), (b, kind.inverse(), a)] {
            sqlx::query(
                "INSERT INTO ticket_relations (ticket_id, kind, other_id, created_by, created_at) VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(x)
            .bind(k.as_str())
            .bind(y)
            .bind(by)
            .bind(now())
            .execute(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Adds `a kind b` and its inverse; `Ok(false)` when it was there already. Refuses a
    /// ticket related to itself, a second parent, and a `sub_issue_of` / `blocked_by` (or
    /// their inverses) that would close a cycle, naming it.
    pub async fn relate(&self, workspace: &str, a: &str, kind: RelationKind, b: &str, by: &str) -> Result<bool> {
        if a == b {
            return Err(StoreError::Invalid(format!("a ticket cannot be {} itself", kind.as_str())));
        }
        let mut tx = self.store.begin().await?;
        self.lock_relations(&mut tx, workspace).await?;
        self.in_workspace(&mut tx, workspace, a).await?;
        self.in_workspace(&mut tx, workspace, b).await?;
        let (from, k, to) = kind.canonical(a, b);
        let there: Option<i64> =
            sqlx::query_scalar("SELECT 1 FROM ticket_relations WHERE ticket_id = $1 AND kind = $2 AND other_id = $3")
                .bind(from)
                .bind(k.as_str())
                .bind(to)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
        if there.is_some() {
            return Ok(false);
        }
        if k == RelationKind::SubIssueOf {
            let parent: Option<Option<String>> = sqlx::query_scalar("SELECT parent_id FROM tickets WHERE id = $1")
                .bind(from)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
            if let Some(Some(p)) = parent {
                let (child, other) = (self.key(&mut tx, from).await?, self.key(&mut tx, &p).await?);
                return Err(StoreError::Conflict(format!(
                    "{child} is a sub-issue of {other} already (one parent per ticket); remove that relation first"
                )));
            }
        }
        if k.acyclic() {
            if let Some(path) = self.path(&mut tx, to, k, from).await? {
                let mut keys = Vec::new();
                for id in std::iter::once(from).chain(path.iter().map(String::as_str)) {
                    keys.push(self.key(&mut tx, id).await?);
                }
                return Err(StoreError::Conflict(format!(
                    "{} {} {} would close the cycle {}",
                    keys[0],
                    k.as_str(),
                    keys[1],
                    keys.join(&format!(" {} ", k.as_str()))
                )));
            }
        }
        self.insert_pair(&mut tx, from, k, to, by).await?;
        if k == RelationKind::SubIssueOf {
            sqlx::query("UPDATE tickets SET parent_id = $2, version = version + 1, updated_at = $3 WHERE id = $1")
                .bind(from)
                .bind(to)
                .bind(now())
                .execute(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
        }
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(true)
    }

    /// Removes `a kind b` and its inverse; `Ok(false)` when it was not there.
    pub async fn unrelate(&self, workspace: &str, a: &str, kind: RelationKind, b: &str) -> Result<bool> {
        let mut tx = self.store.begin().await?;
        self.lock_relations(&mut tx, workspace).await?;
        self.in_workspace(&mut tx, workspace, a).await?;
        self.in_workspace(&mut tx, workspace, b).await?;
        let (from, k, to) = kind.canonical(a, b);
        let mut n = 0;
        for (x, k, y) in [(from, k, to), (to, k.inverse(), from)] {
            n += sqlx::query("DELETE FROM ticket_relations WHERE ticket_id = $1 AND kind = $2 AND other_id = $3")
                .bind(x)
                .bind(k.as_str())
                .bind(y)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.err(e))?
                .rows_affected();
        }
        if k == RelationKind::SubIssueOf {
            sqlx::query(
                "UPDATE tickets SET parent_id = NULL, version = version + 1, updated_at = $3 WHERE id = $1 AND parent_id = $2",
            )
            .bind(from)
            .bind(to)
            .bind(now())
            .execute(&mut *tx)
            .await
            .map_err(|e| self.err(e))?;
        }
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(n > 0)
    }

    async fn key(&self, tx: &mut Transaction<'static, Any>, id: &str) -> Result<String> {
        let n: Option<i64> = sqlx::query_scalar("SELECT number FROM tickets WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut **tx)
            .await
            .map_err(|e| self.err(e))?;
        Ok(n.map_or_else(|| id.to_string(), key_of))
    }

    /// A path `start kind … kind goal` (the tickets after `start`, `goal` last), if any.
    async fn path(
        &self,
        tx: &mut Transaction<'static, Any>,
        start: &str,
        kind: RelationKind,
        goal: &str,
    ) -> Result<Option<Vec<String>>> {
        let mut pred: HashMap<String, String> = HashMap::new();
        let mut seen: HashSet<String> = HashSet::from([start.to_string()]);
        let mut queue = VecDeque::from([start.to_string()]);
        while let Some(x) = queue.pop_front() {
            if x == goal {
                let mut path = vec![x.clone()];
                let mut at = x;
                while let Some(p) = pred.get(&at) {
                    path.push(p.clone());
                    at = p.clone();
                }
                path.reverse();
                return Ok(Some(path));
            }
            let next: Vec<String> =
                sqlx::query_scalar("SELECT other_id FROM ticket_relations WHERE ticket_id = $1 AND kind = $2")
                    .bind(&x)
                    .bind(kind.as_str())
                    .fetch_all(&mut **tx)
                    .await
                    .map_err(|e| self.err(e))?;
            for n in next {
                if seen.insert(n.clone()) {
                    pred.insert(n.clone(), x.clone());
                    queue.push_back(n);
                }
            }
        }
        Ok(None)
    }

    /// Every relation of ticket `id`, as it has them.
    pub async fn relations(&self, id: &str) -> Result<Vec<Relation>> {
        let rows: Vec<(String, String, String, String, i64)> = sqlx::query_as(
            "SELECT ticket_id, kind, other_id, created_by, created_at FROM ticket_relations WHERE ticket_id = $1 \
             ORDER BY kind, created_at, other_id",
        )
        .bind(id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(ticket_id, kind, other_id, created_by, created_at)| {
                Ok(Relation { ticket_id, kind: RelationKind::parse(&kind)?, other_id, created_by, created_at })
            })
            .collect()
    }

    /// Every relation row of a workspace (for checks).
    pub async fn all_relations(&self, workspace: &str) -> Result<Vec<Relation>> {
        let rows: Vec<(String, String, String, String, i64)> = sqlx::query_as(
            "SELECT r.ticket_id, r.kind, r.other_id, r.created_by, r.created_at FROM ticket_relations r \
             JOIN tickets t ON t.id = r.ticket_id WHERE t.workspace_id = $1 ORDER BY r.ticket_id, r.kind, r.other_id",
        )
        .bind(workspace)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(ticket_id, kind, other_id, created_by, created_at)| {
                Ok(Relation { ticket_id, kind: RelationKind::parse(&kind)?, other_id, created_by, created_at })
            })
            .collect()
    }

    // ------------------------------------------------------------ pull requests

    /// Links a pull request; `Ok(false)` when it was linked already.
    pub async fn link_pr(&self, id: &str, pr_node_id: &str, by: &str) -> Result<bool> {
        let n = sqlx::query(
            "INSERT INTO ticket_prs (ticket_id, pr_node_id, linked_by, linked_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        )
        .bind(id)
        .bind(pr_node_id)
        .bind(by)
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        Ok(n == 1)
    }

    /// Unlinks a pull request; `Ok(false)` when it was not linked.
    pub async fn unlink_pr(&self, id: &str, pr_node_id: &str) -> Result<bool> {
        let n = sqlx::query("DELETE FROM ticket_prs WHERE ticket_id = $1 AND pr_node_id = $2")
            .bind(id)
            .bind(pr_node_id)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?
            .rows_affected();
        Ok(n == 1)
    }

    /// The pull requests linked to ticket `id`, oldest link first.
    pub async fn prs(&self, id: &str) -> Result<Vec<PrLink>> {
        let rows: Vec<(String, String, i64)> = sqlx::query_as(
            "SELECT pr_node_id, linked_by, linked_at FROM ticket_prs WHERE ticket_id = $1 ORDER BY linked_at, pr_node_id",
        )
        .bind(id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .map(|(pr_node_id, linked_by, linked_at)| PrLink { pr_node_id, linked_by, linked_at })
            .collect())
    }
}
