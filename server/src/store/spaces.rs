//! Messaging spaces, their members, messages and handoff notes, and each conversation's
//! checklist: "what has been said here, and what is left to do?"

use serde::{Deserialize, Serialize};

use super::{now, Result, Store, StoreError};

/// What a space is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SpaceKind {
    /// Two agents' direct messages (one space per pair).
    Dm,
    /// A ticket's space.
    Ticket,
    /// A review's space.
    Review,
    /// Any other conversation.
    Free,
}

impl SpaceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SpaceKind::Dm => "dm",
            SpaceKind::Ticket => "ticket",
            SpaceKind::Review => "review",
            SpaceKind::Free => "free",
        }
    }

    fn parse(s: &str) -> Result<SpaceKind> {
        Ok(match s {
            "dm" => SpaceKind::Dm,
            "ticket" => SpaceKind::Ticket,
            "review" => SpaceKind::Review,
            "free" => SpaceKind::Free,
            other => return Err(StoreError::Invalid(format!("a space of the unknown kind '{other}'"))),
        })
    }
}

/// A member of a space.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Member {
    /// An agent's id, or `principal:NAME` for a person or a token's principal.
    pub member: String,
    /// agent or principal.
    pub kind: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Space {
    pub id: String,
    pub workspace_id: String,
    pub kind: SpaceKind,
    pub name: String,
    /// Messages posted so far.
    pub messages: i64,
    pub notes_version: i64,
    pub created_at: i64,
    pub members: Vec<Member>,
}

#[derive(sqlx::FromRow)]
struct SpaceRow {
    id: String,
    workspace_id: String,
    kind: String,
    name: String,
    next_seq: i64,
    notes_version: i64,
    created_at: i64,
}

/// Who wrote a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sender {
    /// agent, principal, operator or system.
    pub kind: String,
    pub name: String,
    /// The agent's id, when an agent wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Message {
    pub id: String,
    pub space_id: String,
    /// Its place in the space: 1, 2, 3, …
    pub seq: i64,
    pub sender: Sender,
    pub text: String,
    /// The message it answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply_to: Option<String>,
    pub created_at: i64,
}

#[derive(sqlx::FromRow)]
struct MessageRow {
    id: String,
    space_id: String,
    seq: i64,
    sender_kind: String,
    sender_name: String,
    sender_agent_id: Option<String>,
    text: String,
    reply_to: Option<String>,
    created_at: i64,
}

impl From<MessageRow> for Message {
    fn from(r: MessageRow) -> Message {
        Message {
            id: r.id,
            space_id: r.space_id,
            seq: r.seq,
            sender: Sender { kind: r.sender_kind, name: r.sender_name, agent_id: r.sender_agent_id },
            text: r.text,
            reply_to: r.reply_to,
            created_at: r.created_at,
        }
    }
}

const MESSAGE_COLUMNS: &str =
    "id, space_id, seq, sender_kind, sender_name, sender_agent_id, text, reply_to, created_at";

/// A space's handoff document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Notes {
    pub space_id: String,
    pub text: String,
    /// Bumped by every update (send it back as `base_version` to refuse a concurrent edit).
    pub version: i64,
    pub updated_by: Option<String>,
    pub updated_at: Option<i64>,
}

/// One item of a conversation's checklist.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Todo {
    /// A caller's id for the item (kept as given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 100))]
    pub id: Option<String>,
    /// What to do.
    #[schemars(length(min = 1, max = 2000))]
    pub content: String,
    pub status: TodoStatus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

/// The spaces area of a [`Store`].
pub struct Spaces<'a> {
    pub(super) store: &'a Store,
}

impl Spaces<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        self.store.err(e)
    }

    async fn members(&self, space_id: &str) -> Result<Vec<Member>> {
        let rows: Vec<(String, String, String)> = sqlx::query_as(
            "SELECT member, kind, name FROM space_members WHERE space_id = $1 ORDER BY added_at, member",
        )
        .bind(space_id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().map(|(member, kind, name)| Member { member, kind, name }).collect())
    }

    async fn with_members(&self, r: SpaceRow) -> Result<Space> {
        let members = self.members(&r.id).await?;
        Ok(Space {
            kind: SpaceKind::parse(&r.kind)?,
            id: r.id,
            workspace_id: r.workspace_id,
            name: r.name,
            messages: r.next_seq,
            notes_version: r.notes_version,
            created_at: r.created_at,
            members,
        })
    }

    /// Creates a space with its first members.
    pub async fn create(&self, workspace: &str, kind: SpaceKind, name: &str, members: &[Member]) -> Result<Space> {
        let id = format!("sp-{}", uuid::Uuid::now_v7().simple());
        self.insert(&id, workspace, kind, name, None, members).await?;
        Ok(self.get(&id).await?.expect("just created"))
    }

    async fn insert(
        &self,
        id: &str,
        workspace: &str,
        kind: SpaceKind,
        name: &str,
        dm_key: Option<&str>,
        members: &[Member],
    ) -> Result<bool> {
        let mut tx = self.store.begin().await?;
        let n = insert_space(&mut tx, id, workspace, kind, name, dm_key, members).await.map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(n)
    }

    /// The DM space of two agents, created on first use.
    pub async fn dm(&self, workspace: &str, a: &Member, b: &Member) -> Result<Space> {
        let mut pair = [a.member.as_str(), b.member.as_str()];
        pair.sort();
        let key = pair.join(" ");
        if let Some(s) = self.by_dm_key(&key).await? {
            return Ok(s);
        }
        let id = format!("sp-{}", uuid::Uuid::now_v7().simple());
        let mut names = [a.name.as_str(), b.name.as_str()];
        names.sort();
        let name = names.join(" / ");
        // Two racing first messages: one insert wins, both answer its space.
        self.insert(&id, workspace, SpaceKind::Dm, &name, Some(&key), &[a.clone(), b.clone()]).await?;
        self.by_dm_key(&key).await?.ok_or_else(|| StoreError::Conflict("the DM space vanished".into()))
    }

    async fn by_dm_key(&self, key: &str) -> Result<Option<Space>> {
        let row: Option<SpaceRow> = sqlx::query_as(
            "SELECT id, workspace_id, kind, name, next_seq, notes_version, created_at FROM spaces WHERE dm_key = $1",
        )
        .bind(key)
        .fetch_optional(self.store.writer())
        .await
        .map_err(|e| self.err(e))?;
        match row {
            Some(r) => Ok(Some(self.with_members(r).await?)),
            None => Ok(None),
        }
    }

    pub async fn get(&self, id: &str) -> Result<Option<Space>> {
        let row: Option<SpaceRow> = sqlx::query_as(
            "SELECT id, workspace_id, kind, name, next_seq, notes_version, created_at FROM spaces WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        match row {
            Some(r) => Ok(Some(self.with_members(r).await?)),
            None => Ok(None),
        }
    }

    /// A workspace's spaces, oldest first.
    pub async fn list(&self, workspace: &str) -> Result<Vec<Space>> {
        let rows: Vec<SpaceRow> = sqlx::query_as(
            "SELECT id, workspace_id, kind, name, next_seq, notes_version, created_at FROM spaces WHERE workspace_id = $1 ORDER BY created_at, id",
        )
        .bind(workspace)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            out.push(self.with_members(r).await?);
        }
        Ok(out)
    }

    pub async fn add_member(&self, space_id: &str, m: &Member) -> Result<()> {
        sqlx::query(
            "INSERT INTO space_members (space_id, member, kind, name, added_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
        )
        .bind(space_id)
        .bind(&m.member)
        .bind(&m.kind)
        .bind(&m.name)
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Posts a message: the next number of its space, in one transaction with it.
    pub async fn post(&self, space_id: &str, sender: &Sender, text: &str, reply_to: Option<&str>) -> Result<Message> {
        let mut tx = self.store.begin().await?;
        let seq: Option<i64> =
            sqlx::query_scalar("UPDATE spaces SET next_seq = next_seq + 1 WHERE id = $1 RETURNING next_seq")
                .bind(space_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.err(e))?;
        let Some(seq) = seq else { return Err(StoreError::NotFound { what: format!("space '{space_id}'") }) };
        let m = Message {
            id: format!("msg-{}", uuid::Uuid::now_v7().simple()),
            space_id: space_id.to_string(),
            seq,
            sender: sender.clone(),
            text: text.to_string(),
            reply_to: reply_to.map(str::to_string),
            created_at: now(),
        };
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO messages ({MESSAGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        )))
        .bind(&m.id)
        .bind(&m.space_id)
        .bind(m.seq)
        .bind(&m.sender.kind)
        .bind(&m.sender.name)
        .bind(&m.sender.agent_id)
        .bind(&m.text)
        .bind(&m.reply_to)
        .bind(m.created_at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(m)
    }

    pub async fn message(&self, id: &str) -> Result<Option<Message>> {
        let row: Option<MessageRow> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        Ok(row.map(Message::from))
    }

    /// A space's messages after number `after_seq`, oldest first, at most `limit`.
    pub async fn messages(&self, space_id: &str, after_seq: i64, limit: u32) -> Result<Vec<Message>> {
        let rows: Vec<MessageRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages WHERE space_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
        )))
        .bind(space_id)
        .bind(after_seq)
        .bind(limit as i64)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().map(Message::from).collect())
    }

    /// A space's last `limit` messages, oldest first.
    pub async fn latest(&self, space_id: &str, limit: u32) -> Result<Vec<Message>> {
        let rows: Vec<MessageRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages WHERE space_id = $1 ORDER BY seq DESC LIMIT $2"
        )))
        .bind(space_id)
        .bind(limit as i64)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().rev().map(Message::from).collect())
    }

    /// The first answer to message `id`, if any.
    pub async fn reply_to(&self, id: &str) -> Result<Option<Message>> {
        let row: Option<MessageRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages WHERE reply_to = $1 ORDER BY seq LIMIT 1"
        )))
        .bind(id)
        .fetch_optional(self.store.writer())
        .await
        .map_err(|e| self.err(e))?;
        Ok(row.map(Message::from))
    }

    pub async fn notes(&self, space_id: &str) -> Result<Option<Notes>> {
        let row: Option<(String, i64, Option<String>, Option<i64>)> =
            sqlx::query_as("SELECT notes, notes_version, notes_updated_by, notes_updated_at FROM spaces WHERE id = $1")
                .bind(space_id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        Ok(row.map(|(text, version, updated_by, updated_at)| Notes {
            space_id: space_id.to_string(),
            text,
            version,
            updated_by,
            updated_at,
        }))
    }

    /// Replaces a space's notes; with `base_version`, only if that is still the version
    /// ([`StoreError::Conflict`] naming the current one otherwise).
    pub async fn set_notes(&self, space_id: &str, text: &str, by: &str, base_version: Option<i64>) -> Result<Notes> {
        let n = sqlx::query(
            "UPDATE spaces SET notes = $2, notes_version = notes_version + 1, notes_updated_by = $3, notes_updated_at = $4 \
             WHERE id = $1 AND ($5 IS NULL OR notes_version = $5)",
        )
        .bind(space_id)
        .bind(text)
        .bind(by)
        .bind(now())
        .bind(base_version)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        let current =
            self.notes(space_id).await?.ok_or_else(|| StoreError::NotFound { what: format!("space '{space_id}'") })?;
        if n == 0 {
            return Err(StoreError::Conflict(format!(
                "the notes are at version {} (base_version {} is stale): read them again and merge",
                current.version,
                base_version.unwrap_or_default()
            )));
        }
        Ok(current)
    }

    // ------------------------------------------------------------ todos

    /// A conversation's checklist (empty when it has none).
    pub async fn todos(&self, workspace: &str, principal: &str, conversation: &str) -> Result<Vec<Todo>> {
        let items: Option<String> = sqlx::query_scalar(
            "SELECT items FROM todos WHERE workspace_id = $1 AND principal = $2 AND conversation = $3",
        )
        .bind(workspace)
        .bind(principal)
        .bind(conversation)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        match items {
            None => Ok(Vec::new()),
            Some(s) => serde_json::from_str(&s).map_err(|e| StoreError::Invalid(format!("stored todos: {e}"))),
        }
    }

    /// Replaces a conversation's checklist.
    pub async fn set_todos(&self, workspace: &str, principal: &str, conversation: &str, items: &[Todo]) -> Result<()> {
        sqlx::query(
            "INSERT INTO todos (workspace_id, principal, conversation, items, updated_at) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (workspace_id, principal, conversation) DO UPDATE SET items = excluded.items, updated_at = excluded.updated_at",
        )
        .bind(workspace)
        .bind(principal)
        .bind(conversation)
        .bind(serde_json::to_string(items).expect("todos serialize"))
        .bind(now())
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }
}

/// Inserts a space with its first members inside `tx` (another area's transaction, such as
/// a ticket's); false when `id` (or the DM key) exists already.
pub(super) async fn insert_space(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    id: &str,
    workspace: &str,
    kind: SpaceKind,
    name: &str,
    dm_key: Option<&str>,
    members: &[Member],
) -> std::result::Result<bool, sqlx::Error> {
    let n = sqlx::query(
        "INSERT INTO spaces (id, workspace_id, kind, name, dm_key, next_seq, notes, notes_version, created_at) \
             VALUES ($1, $2, $3, $4, $5, 0, '', 0, $6) ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(workspace)
    .bind(kind.as_str())
    .bind(name)
    .bind(dm_key)
    .bind(now())
    .execute(&mut **tx)
    .await?
    .rows_affected();
    if n == 1 {
        for m in members {
            sqlx::query(
                    "INSERT INTO space_members (space_id, member, kind, name, added_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                )
                .bind(id)
                .bind(&m.member)
                .bind(&m.kind)
                .bind(&m.name)
                .bind(now())
                .execute(&mut **tx)
                .await?;
        }
    }
    Ok(n == 1)
}
