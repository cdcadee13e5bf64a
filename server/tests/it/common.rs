//! What the dispatcher tests share: the outcome of a call as a value, an output or an
//! error (each panicking with what came instead), one call on a runtime of its own, and
//! an app with no repository for the rig tests.

use std::sync::Arc;

use cc_indexer::{DataDir, IndexOptions, NoProgress};
use cc_server::app::App;
use cc_server::mcp::approvals::ApprovalConfig;
use cc_server::mcp::dispatch::{CallOutcome, Caller, ToolError};
use cc_server::mcp::registry::{Output, Surface};
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
        app.clone(),
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
    cc_server::serve::register(&*store, "default", &run.index.name, true).unwrap();
    store.ensure_workspace("team", "Team").unwrap();
    let app = cc_server::serve::build_app_with(data, None, |app| {
        app.approvals = ApprovalConfig { queue, ..ApprovalConfig::default() };
    })
    .unwrap();
    Fixture { tmp, app }
}

/// An app with the workspaces `default` and `team` and no repository; `queue` turns the
/// operator's approval queue on.
pub(crate) fn rig_fixture(queue: bool) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path().join("data"));
    std::fs::create_dir_all(&data.root).unwrap();
    let store = cc_server::serve::open_store(&data).unwrap();
    store.ensure_workspace("team", "Team").unwrap();
    let app = cc_server::serve::build_app_with(data, None, |app| {
        app.approvals = ApprovalConfig { queue, ..ApprovalConfig::default() };
    })
    .unwrap();
    Fixture { tmp, app }
}
