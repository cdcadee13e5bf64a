//! The workspace store on both backends (SQLite, and the test command's PostgreSQL): an
//! empty database migrates to the checked-in schema, a database written by the release of
//! 2026-12-01 opens and keeps its data, every area's queries behave the same, and
//! concurrent writers lose nothing.

use std::sync::Arc;

use cc_server::store::{now, Approval, ApprovalStatus, Store, StoreError, AREAS, DEFAULT_WORKSPACE, MIGRATIONS};
use serde_json::json;

use super::common::{on_each_backend, test_store, Backend};

fn testdata(name: &str) -> std::path::PathBuf {
    cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("testdata/store").join(name)
}

fn check_schema(backend: Backend, schema: &str) {
    let path = testdata(&format!("schema.{}.txt", if backend == Backend::Sqlite { "sqlite" } else { "postgres" }));
    if std::env::var("CC_UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, schema).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; write it with CC_UPDATE_GOLDEN=1", path.display()));
    assert_eq!(
        schema, want,
        "the {backend:?} schema changed: a migration is on purpose (regenerate with CC_UPDATE_GOLDEN=1)"
    );
}

#[test]
fn an_empty_database_migrates_to_the_schema_snapshot() {
    on_each_backend(|backend, store| async move {
        check_schema(backend, &store.schema().await.unwrap());
        assert_eq!(store.workspaces().list().await.unwrap()[0].id, DEFAULT_WORKSPACE);
    });
}

#[test]
fn every_migration_folder_is_an_ordered_area() {
    for m in MIGRATIONS {
        assert!(AREAS.contains(&m.area), "server/migrations/{} is not in store::AREAS", m.area);
    }
    for a in AREAS {
        assert!(MIGRATIONS.iter().any(|m| m.area == *a), "area {a} has no migration");
    }
}

/// The store of the release of 2026-12-01 (schema version 2, one table list, no migration
/// tables; `testdata/store/workspace-2026-12-01.sqlite3`, written by that release's binary:
/// `index --workspace team` of a repository `shop`, three approvals of which the operator
/// approved one and rejected one) opens, keeps everything, and ends at today's schema.
#[test]
fn a_store_written_by_the_release_of_2026_12_01_opens_and_keeps_its_data() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("workspace.sqlite3");
    std::fs::copy(testdata("workspace-2026-12-01.sqlite3"), &path).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let store = Store::open_sqlite(&path).await.unwrap();
        let ids: Vec<String> = store.workspaces().list().await.unwrap().into_iter().map(|w| w.id).collect();
        assert_eq!(ids, ["default", "team"]);
        assert_eq!(store.workspaces().repos("team").await.unwrap(), ["shop"]);
        let all = store.approvals().list(false).await.unwrap();
        let mut statuses: Vec<ApprovalStatus> = all.iter().map(|a| a.status).collect();
        statuses.sort_by_key(|s| s.as_str());
        assert_eq!(statuses, [ApprovalStatus::Approved, ApprovalStatus::Pending, ApprovalStatus::Rejected]);
        let pending = store.approvals().list(true).await.unwrap();
        assert_eq!(pending.len(), 1);
        assert_eq!((pending[0].tool.as_str(), &pending[0].arguments), ("test_approval_counter", &json!({"key": "k0"})));
        let approved = all.iter().find(|a| a.status == ApprovalStatus::Approved).unwrap();
        assert_eq!(
            (approved.decided_by.as_deref(), approved.reason.as_deref()),
            (Some("operator (cli)"), Some("looks fine"))
        );
        // The migrated schema is today's: the same tables, columns (name, nullability, key)
        // and indexes as a new store's (the release spelled BIGINT as INTEGER, the same
        // affinity in SQLite).
        let fresh = test_store(Backend::Sqlite).await;
        let fresh_path = fresh.url.trim_start_matches("sqlite://").trim_end_matches("?mode=rwc").to_string();
        assert_eq!(columns(&path).await, columns(std::path::Path::new(&fresh_path)).await);
        // And it takes writes.
        store.workspaces().add_repo("team", "web").await.unwrap();
        assert_eq!(store.workspaces().repos("team").await.unwrap(), ["shop", "web"]);
        drop(store);
        let again = Store::open_sqlite(&path).await.unwrap();
        assert_eq!(again.approvals().list(false).await.unwrap().len(), 3);
    });
}

/// Every table's columns (name, not null, primary-key position) and every index, of the
/// SQLite file at `path`.
async fn columns(path: &std::path::Path) -> Vec<String> {
    use sqlx::Row;
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    let mut out = Vec::new();
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_migrations_%' ORDER BY name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    for t in tables {
        for r in sqlx::query(sqlx::AssertSqlSafe(format!("PRAGMA table_info({t})"))).fetch_all(&pool).await.unwrap() {
            let (name, notnull, pk): (String, i64, i64) = (r.get(1), r.get(3), r.get(5));
            out.push(format!("{t}.{name} notnull={notnull} pk={pk}"));
        }
        for r in sqlx::query(sqlx::AssertSqlSafe(format!("PRAGMA index_list({t})"))).fetch_all(&pool).await.unwrap() {
            let (name, unique): (String, i64) = (r.get(1), r.get(2));
            out.push(format!("{t} index {name} unique={unique}"));
        }
    }
    out
}

#[test]
fn workspaces_and_their_repositories() {
    on_each_backend(|_, s| async move {
        let w = s.workspaces();
        assert_eq!(w.list().await.unwrap()[0].id, DEFAULT_WORKSPACE);
        assert!(w.ensure("team", "Team").await.unwrap());
        assert!(!w.ensure("team", "Team").await.unwrap());
        w.add_repo("team", "shop").await.unwrap();
        w.add_repo("team", "shop").await.unwrap();
        assert_eq!(w.repos("team").await.unwrap(), ["shop"]);
        assert!(w.repos(DEFAULT_WORKSPACE).await.unwrap().is_empty());
        assert!(w.get("nope").await.unwrap().is_none());
        assert_eq!(w.get("team").await.unwrap().unwrap().name, "Team");
        // A repository of no workspace is refused by the foreign key.
        assert!(matches!(w.add_repo("nope", "x").await, Err(StoreError::Backend { .. })));
    });
}

fn approval(id: &str, principal: &str, key: &str) -> Approval {
    Approval {
        id: id.into(),
        created_at: now(),
        tool: "t".into(),
        arguments: json!({ "k": key }),
        workspace: None,
        conversation: "c".into(),
        principal: principal.into(),
        why: "because".into(),
        status: ApprovalStatus::Pending,
        decided_at: None,
        decided_by: None,
        reason: None,
        consumed_at: None,
    }
}

#[test]
fn approvals_are_decided_once_and_consumed_once() {
    on_each_backend(|_, s| async move {
        let ap = s.approvals();
        ap.insert(&approval("a1", "p", "1")).await.unwrap();
        assert_eq!(ap.pending_of("p").await.unwrap(), 1);
        assert_eq!(ap.open_for("p", "t", None, r#"{"k":"1"}"#).await.unwrap().unwrap().id, "a1");
        assert!(ap.open_for("p", "t", Some("w"), r#"{"k":"1"}"#).await.unwrap().is_none());
        assert!(ap.open_for("q", "t", None, r#"{"k":"1"}"#).await.unwrap().is_none());
        assert!(!ap.consume("a1").await.unwrap(), "a pending approval is not spent");
        let d = ap.decide("a1", true, "operator", None).await.unwrap();
        assert_eq!(d.status, ApprovalStatus::Approved);
        let again = ap.decide("a1", false, "operator", None).await.unwrap_err();
        assert!(matches!(&again, StoreError::Conflict(m) if m.contains("already approved")), "{again}");
        let missing = ap.decide("nope", true, "operator", None).await.unwrap_err();
        assert!(
            matches!(&missing, StoreError::NotFound { .. }) && missing.to_string().contains("no approval"),
            "{missing}"
        );
        assert!(ap.consume("a1").await.unwrap());
        assert!(!ap.consume("a1").await.unwrap(), "consumed once");
        assert!(ap.open_for("p", "t", None, r#"{"k":"1"}"#).await.unwrap().is_none());
        assert_eq!(ap.list(true).await.unwrap().len(), 0);
        assert_eq!(ap.list(false).await.unwrap().len(), 1);
        // A workspace's approval is found by its workspace.
        let mut w = approval("a2", "p", "2");
        w.workspace = Some("team".into());
        ap.insert(&w).await.unwrap();
        assert_eq!(ap.open_for("p", "t", Some("team"), r#"{"k":"2"}"#).await.unwrap().unwrap().id, "a2");
        assert!(ap.open_for("p", "t", None, r#"{"k":"2"}"#).await.unwrap().is_none());
    });
}

/// 16 writers x 200 writes on each backend: every insert is there, each of 200 contended
/// decisions has exactly one winner, and no caller sees "database is locked".
#[test]
fn sixteen_concurrent_writers_lose_nothing() {
    on_each_backend(|backend, s| async move {
        let s = Arc::new(s);
        let contended = 200;
        for i in 0..contended {
            s.approvals().insert(&approval(&format!("shared-{i}"), "shared", &i.to_string())).await.unwrap();
        }
        let mut tasks = Vec::new();
        for w in 0..16 {
            let s = s.clone();
            tasks.push(tokio::spawn(async move {
                let mut won = 0;
                for i in 0..200 {
                    s.approvals().insert(&approval(&format!("w{w}-{i}"), &format!("p{w}"), &i.to_string())).await?;
                    match s.approvals().decide(&format!("shared-{i}"), w % 2 == 0, &format!("writer {w}"), None).await {
                        Ok(_) => won += 1,
                        Err(StoreError::Conflict(_)) => {}
                        Err(e) => return Err(e),
                    }
                }
                Ok::<usize, StoreError>(won)
            }));
        }
        let mut won = 0;
        for t in tasks {
            won += t.await.unwrap().unwrap_or_else(|e| panic!("{backend:?}: a writer failed: {e}"));
        }
        assert_eq!(won, contended, "{backend:?}: each contended approval is decided by exactly one writer");
        let all = s.approvals().list(false).await.unwrap();
        assert_eq!(all.len(), contended + 16 * 200, "{backend:?}: every write is there");
        for w in 0..16 {
            assert_eq!(s.approvals().pending_of(&format!("p{w}")).await.unwrap(), 200);
        }
        assert!(all.iter().filter(|a| a.principal == "shared").all(|a| a.status != ApprovalStatus::Pending));
    });
}

#[test]
fn a_bad_store_url_says_what_is_expected() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let e = rt.block_on(Store::open("mysql://x@y/z")).unwrap_err().to_string();
    assert!(e.contains("expected postgres://") && e.contains("sqlite:"), "{e}");
    let e = rt.block_on(Store::open("postgres://u:secret@127.0.0.1:1/db")).unwrap_err().to_string();
    assert!(!e.contains("secret"), "the password is not shown: {e}");
    assert_eq!(cc_server::store::redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
}

/// Opening a migrated store again applies nothing and keeps its data, on both backends.
#[test]
fn reopening_a_store_migrates_nothing() {
    for backend in super::common::BACKENDS {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(async {
            let t = test_store(backend).await;
            t.store.workspaces().ensure("team", "Team").await.unwrap();
            let schema = t.store.schema().await.unwrap();
            let again = Store::open(&t.url).await.unwrap();
            assert_eq!(again.schema().await.unwrap(), schema);
            assert!(again.workspaces().get("team").await.unwrap().is_some());
        });
    }
}
