//! Work products and their revisions: "what did this ticket produce, and how did it get
//! there?" A revision is saved against the revision its writer read (`base_revision_id`):
//! the work product's current revision moves by compare and set, so of two racing writers
//! one wins and the other is refused with the revision that is current now — nothing is
//! overwritten unseen, and every accepted revision is kept.

use serde::Serialize;

use super::{now, Result, Store, StoreError};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct WorkProduct {
    pub id: String,
    pub workspace_id: String,
    pub ticket_id: String,
    pub kind: String,
    pub title: String,
    /// The revision it is at.
    pub current_revision_id: String,
    /// How many revisions it has.
    pub revisions: i64,
    pub created_by: String,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, sqlx::FromRow)]
pub struct Revision {
    pub id: String,
    pub work_product_id: String,
    /// 1, 2, 3, … in its work product.
    pub number: i64,
    /// The revision it was written on (none for the first).
    pub base_revision_id: Option<String>,
    pub content: String,
    pub author: String,
    pub created_at: i64,
}

const COLUMNS: &str =
    "id, workspace_id, ticket_id, kind, title, current_revision_id, revisions, created_by, created_at, updated_at";
const REVISION_COLUMNS: &str = "id, work_product_id, number, base_revision_id, content, author, created_at";

#[derive(sqlx::FromRow)]
struct Row {
    id: String,
    workspace_id: String,
    ticket_id: String,
    kind: String,
    title: String,
    current_revision_id: String,
    revisions: i64,
    created_by: String,
    created_at: i64,
    updated_at: i64,
}

impl From<Row> for WorkProduct {
    fn from(r: Row) -> WorkProduct {
        WorkProduct {
            id: r.id,
            workspace_id: r.workspace_id,
            ticket_id: r.ticket_id,
            kind: r.kind,
            title: r.title,
            current_revision_id: r.current_revision_id,
            revisions: r.revisions,
            created_by: r.created_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// The work products area of a [`Store`].
pub struct WorkProducts<'a> {
    pub(super) store: &'a Store,
}

impl WorkProducts<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        self.store.err(e)
    }

    /// Creates a work product of ticket `ticket_id` with its first revision.
    pub async fn create(
        &self,
        workspace: &str,
        ticket_id: &str,
        kind: &str,
        title: &str,
        content: &str,
        by: &str,
    ) -> Result<(WorkProduct, Revision)> {
        let id = format!("wp-{}", uuid::Uuid::now_v7().simple());
        let rev = Revision {
            id: format!("rev-{}", uuid::Uuid::now_v7().simple()),
            work_product_id: id.clone(),
            number: 1,
            base_revision_id: None,
            content: content.to_string(),
            author: by.to_string(),
            created_at: now(),
        };
        let mut tx = self.store.begin().await?;
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO work_products ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $8)"
        )))
        .bind(&id)
        .bind(workspace)
        .bind(ticket_id)
        .bind(kind)
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

    async fn insert_revision(&self, tx: &mut sqlx::Transaction<'static, sqlx::Any>, r: &Revision) -> Result<()> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO work_product_revisions ({REVISION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)"
        )))
        .bind(&r.id)
        .bind(&r.work_product_id)
        .bind(r.number)
        .bind(&r.base_revision_id)
        .bind(&r.content)
        .bind(&r.author)
        .bind(r.created_at)
        .execute(&mut **tx)
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Saves a revision written on `base_revision_id`, which must be the current one
    /// ([`StoreError::Conflict`] naming the current revision otherwise).
    pub async fn save_revision(&self, id: &str, base_revision_id: &str, content: &str, by: &str) -> Result<Revision> {
        let new_id = format!("rev-{}", uuid::Uuid::now_v7().simple());
        let at = now();
        let mut tx = self.store.begin().await?;
        let number: Option<i64> = sqlx::query_scalar(
            "UPDATE work_products SET current_revision_id = $3, revisions = revisions + 1, updated_at = $4 \
             WHERE id = $1 AND current_revision_id = $2 RETURNING revisions",
        )
        .bind(id)
        .bind(base_revision_id)
        .bind(&new_id)
        .bind(at)
        .fetch_optional(&mut *tx)
        .await
        .map_err(|e| self.err(e))?;
        let Some(number) = number else {
            let current: Option<(String, i64)> =
                sqlx::query_as("SELECT current_revision_id, revisions FROM work_products WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(|e| self.err(e))?;
            return Err(match current {
                None => StoreError::NotFound { what: format!("work product '{id}'") },
                Some((cur, n)) => StoreError::Conflict(format!(
                    "base_revision_id {base_revision_id} is stale: the current revision is {cur} (number {n}); read it with get_work_product, merge, and save on it"
                )),
            });
        };
        let r = Revision {
            id: new_id,
            work_product_id: id.to_string(),
            number,
            base_revision_id: Some(base_revision_id.to_string()),
            content: content.to_string(),
            author: by.to_string(),
            created_at: at,
        };
        self.insert_revision(&mut tx, &r).await?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(r)
    }

    pub async fn get(&self, id: &str) -> Result<Option<WorkProduct>> {
        let row: Option<Row> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {COLUMNS} FROM work_products WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.err(e))?;
        Ok(row.map(WorkProduct::from))
    }

    /// A workspace's work products (one ticket's, with `ticket_id`), oldest first.
    pub async fn list(&self, workspace: &str, ticket_id: Option<&str>) -> Result<Vec<WorkProduct>> {
        let rows: Vec<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLUMNS} FROM work_products WHERE workspace_id = $1 AND ($2 IS NULL OR ticket_id = $2) ORDER BY created_at, id"
        )))
        .bind(workspace)
        .bind(ticket_id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))?;
        Ok(rows.into_iter().map(WorkProduct::from).collect())
    }

    /// A work product's revisions, first to last.
    pub async fn revisions(&self, id: &str) -> Result<Vec<Revision>> {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {REVISION_COLUMNS} FROM work_product_revisions WHERE work_product_id = $1 ORDER BY number"
        )))
        .bind(id)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.err(e))
    }
}
