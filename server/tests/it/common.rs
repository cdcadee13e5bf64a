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

/// One MCP client over Streamable HTTP (JSON-RPC as the wire carries it), for the tests that
/// talk to a server listening on 127.0.0.1.
pub(crate) struct Mcp {
    pub(crate) base: String,
    pub(crate) session: String,
    http: reqwest::Client,
    next: u64,
}

/// The JSON-RPC message of a response: a JSON body, or the `data:` of an SSE stream.
pub(crate) async fn rpc_body(r: reqwest::Response) -> Value {
    let sse = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let text = r.text().await.unwrap();
    if !sse {
        return serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    }
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC answer in {text}"))
}

impl Mcp {
    /// Initializes a session at the server at `base` (`http://127.0.0.1:PORT`) as `client`.
    pub(crate) async fn connect(base: &str, client: &str) -> Mcp {
        let http = reqwest::Client::new();
        let init = serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": client, "version": "0"}}});
        let r = http
            .post(format!("{base}/mcp"))
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(init.to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let session = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        let v = rpc_body(r).await;
        assert!(v["result"]["serverInfo"].is_object(), "{v}");
        let m = Mcp { base: base.to_string(), session, http, next: 1 };
        let r = m.post(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        assert!(r.status().is_success(), "{}", r.status());
        m
    }

    /// POSTs `body` with this session's id to its server.
    pub(crate) async fn post(&self, body: &Value) -> reqwest::Response {
        self.post_to(&self.base, body).await
    }

    /// POSTs `body` with this session's id to the server at `base` (this one's, or another).
    pub(crate) async fn post_to(&self, base: &str, body: &Value) -> reqwest::Response {
        self.http
            .post(format!("{base}/mcp"))
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &self.session)
            .header("mcp-protocol-version", "2025-06-18")
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap()
    }

    /// tools/call: the result (`isError` true for a tool's error).
    pub(crate) async fn call(&mut self, tool: &str, args: Value) -> Value {
        self.next += 1;
        let body = serde_json::json!({"jsonrpc": "2.0", "id": self.next, "method": "tools/call", "params": {"name": tool, "arguments": args}});
        let v = rpc_body(self.post(&body).await).await;
        v.get("result").cloned().unwrap_or_else(|| panic!("{tool}: {v}"))
    }

    /// A call that must succeed: its structured result.
    pub(crate) async fn ok(&mut self, tool: &str, args: Value) -> Value {
        let out = self.call(tool, args).await;
        assert_ne!(out["isError"], true, "{tool}: {out}");
        out["structuredContent"].clone()
    }

    /// A call that must fail: its structured error.
    pub(crate) async fn err(&mut self, tool: &str, args: Value) -> Value {
        let out = self.call(tool, args).await;
        assert_eq!(out["isError"], true, "{tool} was expected to fail: {out}");
        out["structuredContent"].clone()
    }
}
