//! The workspace store: "keep this workspace's data, for one server or for several".
//!
//! One area of the registry, one module here ([`workspaces`], [`approvals`], [`agents`],
//! [`spaces`], [`feeds`], [`tickets`], [`work_products`], [`board`], [`goals`], [`skills`], [`memory`], [`pipelines`], [`orchestration`], [`reviews`], [`plans`], [`artifacts`], [`replicas`]; each later area adds its own), with its numbered migrations in
//! `server/migrations/<area>/` (embedded by build.rs; [`AREAS`] orders them) and every query
//! written once, in SQL both backends run, over sqlx's Any driver:
//!
//! - SQLite (`sqlite:<data>/workspace.sqlite3`, the default): WAL, so readers never wait
//!   for the writer; one writer connection, so writes queue in process instead of meeting
//!   "database is locked", and write transactions begin IMMEDIATE (another process, such as
//!   `cc-server approvals approve`, is waited for by the busy timeout);
//! - PostgreSQL (`--store postgres://…`, `CC_STORE_URL`), for teams that run several
//!   replicas against one database.
//!
//! Portable SQL: `$1` placeholders, `ON CONFLICT … DO NOTHING`, `RETURNING`, `BIGINT`
//! seconds, text ids, JSON as text; where the two must differ a migration has a `.sqlite.sql`
//! and a `.postgres.sql` text. Everything at the boundary is async and typed; a query's
//! failure is a [`StoreError`] whose kind the MCP layer maps onto its errors.

pub mod agents;
pub mod approvals;
pub mod artifacts;
pub mod board;
pub mod feeds;
pub mod goals;
pub mod memory;
pub mod orchestration;
pub mod pipelines;
pub mod plans;
pub mod replicas;
pub mod reviews;
pub mod skills;
pub mod spaces;
pub mod tickets;
pub mod work_products;
pub mod workspaces;

use std::path::Path;
use std::time::Duration;

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{Any, AnyPool, Executor, Transaction};

pub use agents::{Agent, Agents, Family, Heartbeat, Run, RunStatus, RuntimeProfile};
pub use approvals::{Approval, ApprovalStatus, Approvals};
pub use artifacts::{Artifact, ArtifactRevision, Artifacts};
pub use board::{Actor, Board, BoardApproval, BoardKind, BoardStatus};
pub use feeds::Feeds;
pub use goals::{Goal, GoalLevel, GoalStatus, Goals, NewGoal};
pub use memory::{Domain, Entry, EntryKind, EntryStatus, MemoryStore};
pub use plans::{Plan, PlanVersion, Plans, Playbook};
pub use skills::{NewSkillEvent, SkillAction, SkillEvent, Skills};
pub use spaces::{Member, Message, Notes, Sender, Space, SpaceKind, Spaces, Todo, TodoStatus};
pub use tickets::{
    Delegation, NewTicket, Outbox, Priority, RelationKind, SyncStatus, Ticket, TicketFilter, TicketPatch, TicketStatus,
    Tickets,
};
pub use work_products::{Revision, WorkProduct, WorkProducts};
pub use workspaces::{Workspace, Workspaces, DEFAULT_WORKSPACE};

/// The areas, in the order their migrations run (a later area may refer to an earlier one's
/// tables). A migration folder not listed here is refused (a test checks).
pub const AREAS: &[&str] = &[
    "workspaces",
    "approvals",
    "agents",
    "spaces",
    "feeds",
    "tickets",
    "work_products",
    "board",
    "goals",
    "skills",
    "memory",
    "pipelines",
    "orchestration",
    "reviews",
    "plans",
    "artifacts",
    "replicas",
];

/// How long SQLite waits for another process's write before it gives up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// One migration, as embedded (build.rs).
#[derive(Clone, Copy, Debug)]
pub struct Embedded {
    pub area: &'static str,
    pub version: i64,
    pub name: &'static str,
    pub sqlite: &'static str,
    pub postgres: &'static str,
}

/// Every migration under `server/migrations/`, by area folder and number.
pub const MIGRATIONS: &[Embedded] = include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// Which database holds the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The thing asked for does not exist (`what` names it: "approval 'ap-1'").
    #[error("no {what}")]
    NotFound { what: String },
    /// It exists, but not in a state that allows this (decided already, a stale revision).
    #[error("{0}")]
    Conflict(String),
    /// The request itself is wrong (an id of the wrong shape).
    #[error("{0}")]
    Invalid(String),
    /// A gate refused it (a delegation's depth cap, cycle, budget envelope, autonomy cap):
    /// `message` says which and the numbers, `data` holds them.
    #[error("{message}")]
    Refused { gate: &'static str, message: String, data: serde_json::Value },
    /// The database refused or failed.
    #[error("the workspace store ({backend}): {source}")]
    Backend { backend: &'static str, source: sqlx::Error },
    /// The schema could not be brought up to date.
    #[error("migrating the workspace store's {area} area: {source}")]
    Migrate { area: &'static str, source: sqlx::migrate::MigrateError },
    /// The store URL is not one this server opens.
    #[error("{0}")]
    Url(String),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// The database behind the store, shared by every area.
#[derive(Clone)]
pub struct Store {
    backend: Backend,
    /// The URL it was opened with (password included: never shown; see `location`).
    url: String,
    /// Where it is, with any password left out (for messages).
    pub location: String,
    read: AnyPool,
    write: AnyPool,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("backend", &self.backend)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

impl Store {
    /// The SQLite store at `path` (created with its folder when missing), migrated.
    pub async fn open_sqlite(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Url(format!("creating {}: {e}", dir.display())))?;
        }
        let url = format!("sqlite://{}?mode=rwc", path.display());
        Store::open(&url).await
    }

    /// Opens and migrates the store at `url`: `sqlite://PATH?mode=rwc`, `sqlite:PATH`, or
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…]`.
    pub async fn open(url: &str) -> Result<Store> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            return Err(StoreError::Url(format!(
                "--store {}: expected postgres://USER@HOST/DATABASE, or sqlite:PATH",
                redact(url)
            )));
        };
        let location = redact(url);
        let err = |source| StoreError::Backend { backend: backend.as_str(), source };
        let (read, write) = match backend {
            Backend::Sqlite => {
                let pragmas = |max: u32| {
                    AnyPoolOptions::new().max_connections(max).after_connect(|conn, _| {
                        Box::pin(async move {
                            conn.execute(sqlx::AssertSqlSafe(format!(
                                "PRAGMA busy_timeout = {}; PRAGMA foreign_keys = ON;",
                                BUSY_TIMEOUT.as_millis()
                            )))
                            .await?;
                            Ok(())
                        })
                    })
                };
                let write = pragmas(1).connect(url).await.map_err(err)?;
                // WAL is a property of the file: set once, by the writer.
                sqlx::query("PRAGMA journal_mode = WAL").execute(&write).await.map_err(err)?;
                let read = pragmas(4).connect(url).await.map_err(err)?;
                (read, write)
            }
            Backend::Postgres => {
                // One connection first: a server that is not there (or refuses us) is an
                // error now, not after the pool's retries.
                let first = tokio::time::timeout(
                    Duration::from_secs(10),
                    <sqlx::AnyConnection as sqlx::Connection>::connect(url),
                )
                .await
                .map_err(|_| err(sqlx::Error::PoolTimedOut))?
                .map_err(err)?;
                drop(first);
                let pool = AnyPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(Duration::from_secs(30))
                    .connect(url)
                    .await
                    .map_err(err)?;
                (pool.clone(), pool)
            }
        };
        let store = Store { backend, url: url.to_string(), location, read, write };
        store.migrate().await?;
        store.workspaces().ensure(DEFAULT_WORKSPACE, "Default").await?;
        if backend == Backend::Sqlite {
            // The migrations of a new store are a megabyte of WAL (every area's tables and
            // indexes): written back into the database now instead of kept beside it until
            // SQLite's automatic checkpoint.
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&store.write).await.map_err(|e| store.err(e))?;
        }
        Ok(store)
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The URL the store was opened with (for a second connection to it, such as a
    /// PostgreSQL listener). It may hold a password: show `location` instead.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// `pg_notify(channel, payload)` on PostgreSQL; nothing on SQLite.
    pub async fn notify(&self, channel: &str, payload: &str) -> Result<()> {
        if self.backend == Backend::Postgres {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(channel)
                .bind(payload)
                .execute(&self.write)
                .await
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// The pool for reads (several connections on SQLite: WAL lets them run beside the writer).
    pub(crate) fn reader(&self) -> &AnyPool {
        &self.read
    }

    /// The pool for writes (one connection on SQLite).
    pub(crate) fn writer(&self) -> &AnyPool {
        &self.write
    }

    /// A write transaction: `BEGIN IMMEDIATE` on SQLite (it takes the write lock first, so
    /// a read inside it never meets a writer that came later), `BEGIN` on PostgreSQL.
    pub(crate) async fn begin(&self) -> Result<Transaction<'static, Any>> {
        let t = match self.backend {
            Backend::Sqlite => self.write.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.write.begin().await,
        };
        t.map_err(|e| self.err(e))
    }

    pub(crate) fn err(&self, source: sqlx::Error) -> StoreError {
        StoreError::Backend { backend: self.backend.as_str(), source }
    }

    /// Brings every area's schema up to date, each area tracked in its own table
    /// (`_migrations_<area>`), in [`AREAS`] order.
    async fn migrate(&self) -> Result<()> {
        use sqlx::migrate::{Migration, MigrationType, Migrator};
        for area in AREAS {
            let migrations: Vec<Migration> = MIGRATIONS
                .iter()
                .filter(|m| m.area == *area)
                .map(|m| {
                    let sql = match self.backend {
                        Backend::Sqlite => m.sqlite,
                        Backend::Postgres => m.postgres,
                    };
                    Migration::new(
                        m.version,
                        m.name.into(),
                        MigrationType::Simple,
                        sqlx::SqlSafeStr::into_sql_str(sql),
                        false,
                    )
                })
                .collect();
            let mut migrator = Migrator::with_migrations(migrations);
            migrator.dangerous_set_table_name(format!("_migrations_{area}"));
            migrator.run(&self.write).await.map_err(|source| StoreError::Migrate { area, source })?;
        }
        Ok(())
    }

    /// The schema as text (tables, columns, indexes), for the checked-in snapshot.
    pub async fn schema(&self) -> Result<String> {
        use sqlx::Row;
        let rows: Vec<AnyRow> = match self.backend {
            Backend::Sqlite => sqlx::query(
                "SELECT type || ' ' || name || ': ' || sql FROM sqlite_master \
                 WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_migrations_%' ORDER BY type, name",
            )
            .fetch_all(&self.read)
            .await,
            Backend::Postgres => sqlx::query(
                "SELECT 'column ' || table_name || '.' || column_name || ': ' || data_type || \
                 CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE '' END \
                 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name NOT LIKE '\\_migrations\\_%' \
                 UNION ALL SELECT 'index ' || indexname || ': ' || indexdef FROM pg_indexes \
                 WHERE schemaname = current_schema() AND tablename NOT LIKE '\\_migrations\\_%' ORDER BY 1",
            )
            .fetch_all(&self.read)
            .await,
        }
        .map_err(|e| self.err(e))?;
        let mut out = String::new();
        for r in rows {
            let line: String = r.try_get(0).map_err(|e| self.err(e))?;
            // One line per object: whitespace inside a CREATE statement is the author's.
            out.push_str(&line.split_whitespace().collect::<Vec<_>>().join(" "));
            out.push('\n');
        }
        Ok(out)
    }

    pub fn workspaces(&self) -> Workspaces<'_> {
        Workspaces { store: self }
    }

    pub fn approvals(&self) -> Approvals<'_> {
        Approvals { store: self }
    }

    pub fn agents(&self) -> Agents<'_> {
        Agents { store: self }
    }

    pub fn spaces(&self) -> Spaces<'_> {
        Spaces { store: self }
    }

    pub fn feeds(&self) -> Feeds<'_> {
        Feeds { store: self }
    }

    pub fn tickets(&self) -> Tickets<'_> {
        Tickets { store: self }
    }

    pub fn goals(&self) -> Goals<'_> {
        Goals { store: self }
    }

    pub fn board(&self) -> Board<'_> {
        Board { store: self }
    }

    pub fn skills(&self) -> Skills<'_> {
        Skills { store: self }
    }

    pub fn work_products(&self) -> WorkProducts<'_> {
        WorkProducts { store: self }
    }

    pub fn memory(&self) -> MemoryStore<'_> {
        MemoryStore { store: self }
    }

    pub fn pipelines(&self) -> pipelines::Pipelines<'_> {
        pipelines::Pipelines { store: self }
    }

    pub fn orchestration(&self) -> orchestration::Orchestration<'_> {
        orchestration::Orchestration { store: self }
    }

    pub fn reviews(&self) -> reviews::Reviews<'_> {
        reviews::Reviews { store: self }
    }

    pub fn plans(&self) -> Plans<'_> {
        Plans { store: self }
    }

    pub fn artifacts(&self) -> Artifacts<'_> {
        Artifacts { store: self }
    }

    pub fn replicas(&self) -> replicas::Replicas<'_> {
        replicas::Replicas { store: self }
    }
}

/// `url` with its password replaced by `***`.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..s + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}
