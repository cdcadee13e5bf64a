//! The dispatcher, called directly: validation with JSON pointers, workspace scoping,
//! unknown tools, panics isolated per call, and the code tools on an indexed fixture.

use std::sync::Arc;

use cc_indexer::DataDir;
use cc_server::app::App;
use cc_server::mcp::dispatch::{CallOutcome, Caller};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::surface::Surface;
use cc_server::mcp::tool::{Ctx, Decl, Hints, Modes, Registry, Scope, ToolSet};
use serde_json::{json, Value};

use super::common::{err, ok_value as ok, shop_fixture, Fixture};
use tokio_util::sync::CancellationToken;

/// The `shop` repository of the code-tool tests.
fn fixture() -> Fixture {
    shop_fixture(
        &[
            ("billing/invoice.py", "from billing.tax import compute_tax\n\nclass Invoice:\n    def total(self):\n        return compute_tax(self.subtotal())\n\n    def subtotal(self):\n        return 1\n"),
            ("billing/tax.py", "def compute_tax(x):\n    \"\"\"Tax for an amount.\"\"\"\n    return x * 0.2\n"),
            ("web/render.py", "def total():\n    return 0\n"),
        ],
        false,
    )
}

fn call(app: &Arc<App>, name: &str, args: Value) -> CallOutcome {
    let surface = Surface::parse(None, true).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(app.dispatcher.call(
        app.services.clone(),
        &surface,
        &Caller::local(Mode::Chat),
        name,
        args.as_object().cloned(),
        CancellationToken::new(),
        None,
    ))
}

#[test]
fn bad_input_names_the_json_pointer() {
    let f = fixture();
    let cases = [
        (json!({"workspace_id": "default", "query": 5}), "/query"),
        (json!({"workspace_id": "default"}), "/query"),
        (json!({"workspace_id": "default", "query": "x", "bogus": 1}), "/bogus"),
        (json!({"workspace_id": "default", "query": "x", "limit": 0}), "/limit"),
        (json!({"workspace_id": "default", "query": "x", "kind": ["function", 3]}), "/kind/1"),
        (json!({"workspace_id": "default", "query": "x", "kind": ["gizmo"]}), "/kind/0"),
    ];
    for (args, pointer) in cases {
        let e = err(call(&f.app, "search_code", args.clone()));
        assert_eq!(e.pointer.as_deref(), Some(pointer), "{args}: {e:?}");
        assert!(e.message.starts_with(pointer), "{args}: {}", e.message);
    }
    let e = err(call(&f.app, "code_callers", json!({"workspace_id": "default", "symbol": "total", "depth": -1})));
    assert_eq!(e.pointer.as_deref(), Some("/depth"));
}

#[test]
fn workspace_scoping_is_explicit() {
    let f = fixture();
    let e = err(call(&f.app, "search_code", json!({"query": "tax"})));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("workspace", Some("/workspace_id")));
    assert!(e.message.contains("list_workspaces"), "{}", e.message);
    let e = err(call(&f.app, "search_code", json!({"workspace_id": "nope", "query": "tax"})));
    assert_eq!(e.error, "workspace");
    assert!(e.message.contains("no workspace 'nope'"), "{}", e.message);
    let e = err(call(&f.app, "list_workspaces", json!({"workspace_id": "default"})));
    assert!(e.message.contains("global"), "{}", e.message);
    let e = err(call(&f.app, "search_code", json!({"workspace_id": "default", "query": "tax", "repo": "other"})));
    assert_eq!(e.pointer.as_deref(), Some("/repo"));
    // Discovery tools take it optionally.
    ok(call(&f.app, "list_my_tools", json!({})));
    ok(call(&f.app, "list_my_tools", json!({"workspace_id": "default"})));
}

#[test]
fn unknown_and_never_served_tools_are_unknown() {
    let f = fixture();
    assert!(matches!(call(&f.app, "no_such_tool", json!({})), CallOutcome::Unknown(_)));
    assert!(matches!(call(&f.app, "run_script", json!({})), CallOutcome::Unknown(_)));
    assert!(
        matches!(call(&f.app, "test_simple_text", json!({})), CallOutcome::Unknown(_)),
        "conformance fixtures need --tools conformance"
    );
}

#[test]
fn code_tools_answer_from_the_index_and_graph() {
    let f = fixture();
    let v = ok(call(&f.app, "search_code", json!({"workspace_id": "default", "query": "compute tax"})));
    assert_eq!(v["results"][0]["symbol"]["qualified_name"], "billing.tax.compute_tax");
    assert_eq!(v["results"][0]["symbol"]["location"], "billing/tax.py:1");
    assert!(v["semantic"].as_str().unwrap().starts_with("unavailable"));
    let v = ok(call(
        &f.app,
        "code_symbol",
        json!({"workspace_id": "default", "name": "compute_tax", "include_source": true}),
    ));
    assert_eq!(v["matches"][0]["doc"], "Tax for an amount.");
    assert!(v["matches"][0]["source"].as_str().unwrap().contains("return x * 0.2"));
    let v = ok(call(&f.app, "code_callers", json!({"workspace_id": "default", "symbol": "compute_tax"})));
    assert_eq!(v["results"][0]["name"], "billing.invoice.Invoice.total");
    assert_eq!(v["results"][0]["sites"][0], "billing/invoice.py:5");
    assert_eq!((v["results"][0]["kind"].as_str(), v["results"][0]["recursive"].as_bool()), (Some("call"), Some(false)));
    assert!(v["possible"].as_array().unwrap().is_empty(), "{v}");
    // A file's symbols without a query; neither a name nor a path is an error at /name.
    let v = ok(call(&f.app, "code_symbol", json!({"workspace_id": "default", "path": "billing/tax.py"})));
    let names: Vec<&str> =
        v["matches"].as_array().unwrap().iter().map(|m| m["qualified_name"].as_str().unwrap()).collect();
    assert_eq!(names, ["billing.tax.compute_tax"]);
    // `symbol`, as the graph tools call it, is the same argument.
    let v = ok(call(&f.app, "code_symbol", json!({"workspace_id": "default", "symbol": "compute_tax"})));
    assert_eq!(v["matches"][0]["qualified_name"], "billing.tax.compute_tax");
    let e = err(call(&f.app, "code_symbol", json!({"workspace_id": "default", "symbol": "a", "name": "b"})));
    assert_eq!(e.pointer.as_deref(), Some("/symbol"), "{}", e.message);
    let e = err(call(&f.app, "code_symbol", json!({"workspace_id": "default"})));
    assert_eq!(e.pointer.as_deref(), Some("/name"), "{}", e.message);
    let e = err(call(&f.app, "code_symbol", json!({"workspace_id": "default", "path": "../etc"})));
    assert_eq!(e.pointer.as_deref(), Some("/path"), "{}", e.message);
    let v =
        ok(call(&f.app, "code_callees", json!({"workspace_id": "default", "symbol": "billing.invoice.Invoice.total"})));
    let names: Vec<&str> = v["results"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert!(
        names.contains(&"billing.tax.compute_tax") && names.contains(&"billing.invoice.Invoice.subtotal"),
        "{names:?}"
    );
    let v = ok(call(
        &f.app,
        "code_impact",
        json!({"workspace_id": "default", "symbol": "billing.invoice.Invoice.subtotal", "depth": 2}),
    ));
    assert_eq!(v["results"][0]["name"], "billing.invoice.Invoice.total");
    // A plain name with two symbols answers with the candidates.
    let e = err(call(&f.app, "code_callers", json!({"workspace_id": "default", "symbol": "total"})));
    assert_eq!(e.error, "ambiguous");
    assert_eq!(e.data.unwrap()["candidates"].as_array().unwrap().len(), 2);
    let v = ok(call(
        &f.app,
        "code_read",
        json!({"workspace_id": "default", "path": "billing/tax.py", "start_line": 2, "end_line": 3}),
    ));
    assert_eq!(v["text"], "    \"\"\"Tax for an amount.\"\"\"\n    return x * 0.2");
    let e = err(call(&f.app, "code_read", json!({"workspace_id": "default", "path": "../etc/passwd"})));
    assert_eq!(e.pointer.as_deref(), Some("/path"));
    let v = ok(call(&f.app, "search_tool_bm25", json!({"query": "who calls a function", "limit": 20})));
    let ranked: Vec<String> =
        v["tools"].as_array().unwrap().iter().map(|t| format!("{} {}", t["name"], t["score"])).collect();
    assert_eq!(v["tools"][0]["name"], "code_callers", "{ranked:?}");
    assert!(v["tools"][0]["input_schema"]["properties"]["symbol"].is_object());
}

/// Found by the memory soak (benches/mcp/soak.sh): a start_line past the end of the file
/// sliced the file's lines backwards, and the handler panicked (an `internal` error).
#[test]
fn code_read_past_the_end_of_a_file_names_its_length() {
    let f = fixture();
    let read = |start: u32, end: Option<u32>| {
        let mut args = json!({"workspace_id": "default", "path": "billing/tax.py", "start_line": start});
        if let Some(end) = end {
            args["end_line"] = json!(end);
        }
        call(&f.app, "code_read", args)
    };
    for (start, end) in [(4, None), (50, Some(80)), (4, Some(4))] {
        let e = err(read(start, end));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/start_line")), "{e:?}");
        assert!(e.message.contains("past the end of billing/tax.py (3 lines)"), "{}", e.message);
    }
    let v = ok(read(3, Some(90)));
    assert_eq!((v["text"].as_str(), v["end_line"].as_u64()), (Some("    return x * 0.2"), Some(3)));
}

#[test]
fn a_panic_in_a_handler_is_an_error_for_that_call_only() {
    let (_tmp, app) = one_tool_app("boom", || async {
        if true {
            panic!("kaboom");
        }
    });
    let e = err(call(&app, "boom", json!({})));
    assert_eq!(e.error, "internal");
    assert!(e.message.contains("kaboom"), "{}", e.message);
    let e = err(call(&app, "boom", json!({})));
    assert_eq!(e.error, "internal", "the dispatcher still serves after a panic");
}

/// A session bound to a repository that has no index yet indexes it on first use: a
/// long call, which reports MCP progress.
#[test]
fn first_use_of_a_bound_repository_indexes_it_with_progress() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("proj");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    for i in 0..20 {
        let j = (i + 1) % 20;
        std::fs::write(
            repo.join(format!("src/m{i}.py")),
            format!("from src.m{j} import f{j}\n\ndef f{i}():\n    return f{j}()\n"),
        )
        .unwrap();
    }
    let data = DataDir::new(tmp.path().join("data"));
    let store = cc_server::serve::open_store(&data).unwrap();
    cc_server::serve::block_on(store.workspaces().add_repo("default", "proj")).unwrap();
    let app = cc_server::serve::build_app(data, Some("proj".into())).unwrap();
    app.services.repos.set_bound_root(repo.canonicalize().unwrap(), "proj".into());
    // Asked first, list_repos says the bound repository will be indexed, not that it is missing.
    let listed = ok(call(&app, "list_repos", json!({"workspace_id": "default"})));
    let problem = listed["repos"][0]["problem"].as_str().unwrap_or_default().to_string();
    assert!(problem.starts_with("not indexed yet: the first code tool call"), "{listed}");
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let progress: cc_server::mcp::dispatch::ProgressFn = {
        let seen = seen.clone();
        Arc::new(move |p, total, _| seen.lock().unwrap().push((p, total)))
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let out = rt.block_on(app.dispatcher.call(
        app.services.clone(),
        &Surface::parse(None, false).unwrap(),
        &Caller::local(Mode::Chat),
        "code_callers",
        json!({"workspace_id": "default", "symbol": "f3"}).as_object().cloned(),
        CancellationToken::new(),
        Some(progress),
    ));
    let v = ok(out);
    assert_eq!(v["results"][0]["name"], "src.m2.f2");
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= 2, "progress: {seen:?}");
    assert_eq!(seen.last().unwrap().0, seen.last().unwrap().1.unwrap(), "the last report is complete: {seen:?}");
}

#[test]
fn a_cancelled_call_ends_with_a_cancelled_error() {
    let (_tmp, app) = one_tool_app("forever", std::future::pending::<()>);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let token = CancellationToken::new();
    let out = rt.block_on(async {
        let t = token.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            t.cancel();
        });
        app.dispatcher
            .call(
                app.services.clone(),
                &Surface::parse(None, false).unwrap(),
                &Caller::local(Mode::Chat),
                "forever",
                None,
                token.clone(),
                None,
            )
            .await
    });
    assert_eq!(err(out).error, "cancelled");
}

/// An app whose registry holds one global tool running `body`.
fn one_tool_app<F, Fut>(name: &'static str, body: F) -> (tempfile::TempDir, Arc<App>)
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct NoArgs {}
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Nothing {}
    let tmp = tempfile::tempdir().unwrap();
    let mut r = Registry::new();
    let body = Arc::new(body);
    r.add(
        Decl {
            name,
            title: name,
            description: "A test tool.",
            set: ToolSet::Code,
            scope: Scope::Global,
            classes: &[],
            approval: false,
            modes: Modes::Chat,
            hints: Hints::READ,
        },
        move |_: Ctx<()>, _: NoArgs| {
            let body = body.clone();
            async move {
                body().await;
                Ok(Nothing {})
            }
        },
    );
    let data = DataDir::new(tmp.path());
    let store = cc_server::serve::open_store(&data).unwrap();
    let services = cc_server::services::Services::new(data, store, None);
    (tmp, Arc::new(App::new(services, r, None)))
}

#[test]
fn search_code_modes_without_a_model_answer_by_keyword_and_say_why() {
    let f = fixture();
    let v =
        ok(call(&f.app, "search_code", json!({"workspace_id": "default", "query": "compute tax", "mode": "keyword"})));
    assert_eq!(v["mode"], "keyword");
    assert_eq!(v["semantic"], "not used (mode keyword)");
    assert_eq!(v["results"][0]["symbol"]["qualified_name"], "billing.tax.compute_tax");
    assert_eq!(v["results"][0]["bm25_rank"], 1);
    assert!(v["results"][0].get("vector_rank").is_none());
    for mode in ["semantic", "hybrid"] {
        let v =
            ok(call(&f.app, "search_code", json!({"workspace_id": "default", "query": "compute tax", "mode": mode})));
        // Never an error for the whole call, never a silent downgrade.
        assert_eq!(v["mode"], "keyword", "{mode}");
        let why = v["semantic"].as_str().unwrap();
        assert!(
            why.starts_with("unavailable: no embedding model is configured") && why.contains("--embed-model"),
            "{why}"
        );
        assert_eq!(v["results"][0]["symbol"]["qualified_name"], "billing.tax.compute_tax");
    }
    let e = err(call(&f.app, "search_code", json!({"workspace_id": "default", "query": "tax", "mode": "dense"})));
    assert_eq!(e.pointer.as_deref(), Some("/mode"), "{e:?}");
}
