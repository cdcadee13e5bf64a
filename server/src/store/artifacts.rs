//! Artifacts and their revisions: "what did this workspace publish, and how did it get
//! there?" An artifact is an ordered list of typed blocks (their shape and rules are
//! `crate::artifacts`'); a revision replaces title and blocks, saved against the revision its
//! writer read (`base_revision_id`): the current revision moves by compare and set, so of two
//! racing writers one wins and the other is refused with the revision that is current now.
//! Every accepted revision is kept, numbered.

use serde::Serialize;

use super::{now, Result, Store, StoreError};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, sqlx::FromRow)]
pub struct Artifact {
    pub id: String,
    pub workspace_id: String,
    /// The current revision's title.
    pub title: String,
    /// The revision it is at.
    pub current_revision_id: String,
    /// How many revisions it has.
    pub revisions: i64,
    pub created_by: String,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ArtifactRevision {
    pub id: String,
    pub artifact_id: String,
    /// 1, 2, 3, … in its artifact.
    pub number: i64,
    /// The revision it was written on (none for the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_revision_id: Option<String>,
    pub title: String,
    /// The blocks, in order.
    pub blocks: serde_json::Value,
    pub author: String,
    pub created_at: i64,
}

const COLUMNS: &str = "id, workspace_id, title, current_revision_id, revisions, created_by, created_at, updated_at";
const REVISION_COLUMNS: &str = "id, artifact_id, number, base_revision_id, title, blocks, author, created_at";

#[derive(sqlx::FromRow)]
struct RevisionRow {
    id: String,
    artifact_id: String,
    number: i64,
    base_revision_id: Option<String>,
    title: String,
    blocks: String,
    author: String,
    created_at: i64,
}

impl RevisionRow {
    fn into_revision(self) -> Result<ArtifactRevision> {
        Ok(ArtifactRevision {
            blocks: serde_json::from_str(&self.blocks)
                .map_err(|e| StoreError::Invalid(format!("a stored artifact revision: {e}")))?,
            id: self.id,
            artifact_id: self.artifact_id,
            number: self.number,
            base_revision_id: self.base_revision_id,
            title: self.title,
            author: self.author,
            created_at: self.created_at,
        })
    }
}

/// The artifacts area of a [`Store`].
pub struct Artifacts<'a> {
    pub(super) store: &'a Store,
}

impl Artifacts<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        self.store.err(e)
    }

    async fn insert_revision(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Any>,
        r: &ArtifactRevision,
    ) -> Result<()> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO artifact_revisions ({REVISION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        )))
        .bind(&r.id)
        .bind(&r.artifact_id)
        .bind(r.number)
        .bind(&r.base_revision_id)
        .bind(&r.title)
        .bind(r.blocks.to_string())
        .bind(&r.author)
        .bind(r.created_at)
        .execute(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Publishes an artifact with its first revision.
    pub async fn create(
        &self,
        workspace: &str,
        title: &str,
        blocks: &serde_json::Value,
        by: &str,
    ) -> Result<(Artifact, ArtifactRevision)> {
        let id = format!("ar-{}", uuid::Uuid::now_v7().simple());
        let rev = ArtifactRevision {
            id: format!("arv-{}", uuid::Uuid::now_v7().simple()),
            artifact_id: id.clone(),
            number: 1,
            base_revision_id: None,
            title: title.to_string(),
            blocks: blocks.clone(),
            author: by.to_string(),
            created_at: now(),
        };
        let mut tx = self.store.begin().await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO artifacts ({COLUMNS}) VALUES ($1, $2, $3, $4, 1, $5, $6, $6)"
        )))
        .bind(&id)
        .bind(workspace)
        .bind(title)
        .bind(&rev.id)
        .bind(by)
        .bind(rev.created_at)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        self.insert_revision(&mut tx, &rev).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok((self.get(&id).await?.expect("just created"), rev))
    }

    /// Saves a revision written on `base_revision_id`, which must be the current one
    /// ([`StoreError::Conflict`] naming the current revision otherwise); `title` keeps the
    /// current title when `None`.
    pub async fn revise(
        &self,
        id: &str,
        base_revision_id: &str,
        title: Option<&str>,
        blocks: &serde_json::Value,
        by: &str,
    ) -> Result<ArtifactRevision> {
        let new_id = format!("arv-{}", uuid::Uuid::now_v7().simple());
        let at = now();
        let mut tx = self.store.begin().await?;
        let moved: Option<(i64, String)> = sqlx::query_as(
            "UPDATE artifacts SET current_revision_id = $3, revisions = revisions + 1, updated_at = $4, \
             title = COALESCE($5, title) WHERE id = $1 AND current_revision_id = $2 RETURNING revisions, title",
        )
        .bind(id)
        .bind(base_revision_id)
        .bind(&new_id)
        .bind(at)
        .bind(title)
        .fetch_optional(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let Some((number, title)) = moved else {
            let current: Option<(String, i64)> =
                sqlx::query_as("SELECT current_revision_id, revisions FROM artifacts WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(|e| self.err(e))?;
            return Err(match current {
                None => StoreError::NotFound { what: format!("artifact '{id}'") },
                Some((cur, n)) => StoreError::Conflict(format!(
                    "base_revision {base_revision_id} is stale: the current revision is {cur} (number {n}); read it with get_artifact, merge, and revise on it"
                )),
            });
        };
        let r = ArtifactRevision {
            id: new_id,
            artifact_id: id.to_string(),
            number,
            base_revision_id: Some(base_revision_id.to_string()),
            title,
            blocks: blocks.clone(),
            author: by.to_string(),
            created_at: at,
        };
        self.insert_revision(&mut tx, &r).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(r)
    }

    pub async fn get(&self, id: &str) -> Result<Option<Artifact>> {
        sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM artifacts WHERE id = $1")))
            .bind(id)
            .fetch_optional(self.store.reader())
            .await
            .map_err(|e| self.err(e))
    }

    /// Revision `number` of artifact `id` (its current one without a number).
    pub async fn revision(&self, id: &str, number: Option<i64>) -> Result<Option<ArtifactRevision>> {
        let row: Option<RevisionRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {REVISION_COLUMNS} FROM artifact_revisions WHERE artifact_id = $1 AND ($2 IS NULL OR number = $2) \
             ORDER BY number DESC LIMIT 1"
        )))
        .bind(id)
        .bind(number)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        row.map(RevisionRow::into_revision).transpose()
    }

    /// A workspace's artifacts, newest first, those created before artifact `before` (a
    /// page's last id) when given; at most `limit`.
    pub async fn list(&self, workspace: &str, before: Option<&str>, limit: u32) -> Result<Vec<Artifact>> {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM artifacts WHERE workspace_id = $1 AND ($2 IS NULL OR id < $2) ORDER BY id DESC LIMIT $3"
        )))
        .bind(workspace)
        .bind(before)
        .bind(limit as i64)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))
    }
}
