//! What the dispatcher tests share: the outcome of a call as a value, an output or an
//! error (each panicking with what came instead), one call on a runtime of its own, and
//! an app with no repository for the rig tests.

use std::sync::Arc;

use cc_indexer::{DataDir, IndexOptions, NoProgress};
use cc_server::app::App;
use cc_server::mcp::approvals::ApprovalConfig;
use cc_server::mcp::dispatch::{CallOutcome, Caller, ToolError};
use cc_server::mcp::surface::Surface;
use cc_server::mcp::tool::Output;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// The result of a call that must succeed.
pub(crate) fn ok(o: CallOutcome) -> Output {
    match o {
        CallOutcome::Ok(out) => out,
        CallOutcome::Err(e) => panic!("tool error: {e:?}"),
        CallOutcome::Unknown(n) => panic!("unknown tool {n}"),
    }
}

/// The structured value of a call that must succeed.
pub(crate) fn ok_value(o: CallOutcome) -> Value {
    ok(o).value
}

/// The error of a call that must fail.
pub(crate) fn err(o: CallOutcome) -> ToolError {
    match o {
        CallOutcome::Err(e) => e,
        CallOutcome::Ok(out) => panic!("expected an error, got {}", out.value),
        CallOutcome::Unknown(n) => panic!("unknown tool {n}"),
    }
}

/// One call with every tool served, on a runtime of its own that ends with the call (rigs
/// must outlive it).
pub(crate) fn call(app: &Arc<App>, caller: &Caller, name: &str, args: Value) -> CallOutcome {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(app.dispatcher.call(
        app.services.clone(),
        &Surface::parse(None, true).unwrap(),
        caller,
        name,
        args.as_object().cloned(),
        CancellationToken::new(),
        None,
    ))
}

pub(crate) struct Fixture {
    /// The folder of the repository and the data directory (removed with the fixture).
    pub(crate) tmp: tempfile::TempDir,
    pub(crate) app: Arc<App>,
}

/// An app whose workspace `default` has the repository `shop`, made of `files` (path,
/// text) and indexed, and a workspace `team` with none; `queue` turns the operator's
/// approval queue on.
pub(crate) fn shop_fixture(files: &[(&str, &str)], queue: bool) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    std::fs::create_dir_all(&repo).unwrap();
    for (p, t) in files {
        std::fs::create_dir_all(repo.join(p).parent().unwrap()).unwrap();
        std::fs::write(repo.join(p), t).unwrap();
    }
    let data = DataDir::new(tmp.path().join("data"));
    let run = cc_server::engine::index(&data, &IndexOptions::new(&repo), &NoProgress, None).unwrap();
    let store = cc_server::serve::open_store(&data).unwrap();
    cc_server::serve::register(&store, "default", &run.index.name, true).unwrap();
    cc_server::serve::block_on(store.workspaces().ensure("team", "Team")).unwrap();
    Fixture { tmp, app: app_with_fixtures(data, store, queue) }
}

/// An app with the workspaces `default` and `team` and no repository; `queue` turns the
/// operator's approval queue on.
pub(crate) fn rig_fixture(queue: bool) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path().join("data"));
    std::fs::create_dir_all(&data.root).unwrap();
    let store = cc_server::serve::open_store(&data).unwrap();
    cc_server::serve::block_on(store.workspaces().ensure("team", "Team")).unwrap();
    Fixture { tmp, app: app_with_fixtures(data, store, queue) }
}

/// The product's app with the conformance fixtures (test_approval_counter, …) as its
/// extension, as the test binary has them; `queue` turns the operator's queue on.
pub(crate) fn app_with_fixtures(data: DataDir, store: cc_server::store::Store, queue: bool) -> Arc<App> {
    cc_server::serve::app_of(data, store, None, Some(Arc::new(cc_tests::conformance::Fixtures)), |p| {
        p.approvals = ApprovalConfig { queue, ..ApprovalConfig::default() };
        Ok(())
    })
    .unwrap()
}

/// A store for a test, on one backend: a fresh SQLite file, or a fresh database on the
/// test command's PostgreSQL server (`CC_TEST_POSTGRES_URL`, started by tests/run through
/// tests/postgres.sh; dropped when the value is).
pub(crate) struct TestStore {
    pub(crate) store: cc_server::store::Store,
    pub(crate) url: String,
    _tmp: Option<tempfile::TempDir>,
    drop_db: Option<(String, String)>,
}

impl Drop for TestStore {
    fn drop(&mut self) {
        if let Some((admin, db)) = self.drop_db.take() {
            // Best effort, on a runtime of its own: the test's may be gone.
            let _ = std::thread::spawn(move || {
                cc_server::serve::block_on(async {
                    use sqlx::Connection;
                    if let Ok(mut c) = sqlx::PgConnection::connect(&admin).await {
                        let _ = sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)")))
                            .execute(&mut c)
                            .await;
                    }
                })
            })
            .join();
        }
    }
}

/// The backends every store test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Backend {
    Sqlite,
    Postgres,
}

pub(crate) const BACKENDS: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];

/// The test command's PostgreSQL server, or a failure saying how to get one.
pub(crate) fn postgres_admin_url() -> String {
    std::env::var("CC_TEST_POSTGRES_URL").unwrap_or_else(|_| {
        panic!(
            "CC_TEST_POSTGRES_URL is not set: the store tests run on PostgreSQL too. `bash tests/run` starts a \
             throwaway server; by hand: eval \"$(bash tests/postgres.sh start)\""
        )
    })
}

/// A migrated, empty store on `backend`.
pub(crate) async fn test_store(backend: Backend) -> TestStore {
    match backend {
        Backend::Sqlite => {
            let tmp = tempfile::tempdir().unwrap();
            let path = tmp.path().join("workspace.sqlite3");
            let url = format!("sqlite://{}?mode=rwc", path.display());
            let store = cc_server::store::Store::open(&url).await.unwrap();
            TestStore { store, url, _tmp: Some(tmp), drop_db: None }
        }
        Backend::Postgres => {
            use sqlx::Connection;
            let admin = postgres_admin_url();
            let db = format!("cc_test_{}", uuid::Uuid::new_v4().simple());
            let mut c = sqlx::PgConnection::connect(&admin).await.unwrap();
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}"))).execute(&mut c).await.unwrap();
            let url = format!("{}/{db}", admin.rsplit_once('/').unwrap().0);
            let store = cc_server::store::Store::open(&url).await.unwrap();
            TestStore { store, url, _tmp: None, drop_db: Some((admin, db)) }
        }
    }
}

/// Runs `body` on a migrated, empty store of every backend, each on a runtime of its own.
pub(crate) fn on_each_backend<F, Fut>(body: F)
where
    F: Fn(Backend, cc_server::store::Store) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for backend in BACKENDS {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(async {
            let t = test_store(backend).await;
            body(backend, t.store.clone()).await;
            drop(t);
        });
    }
}
