//! Artifacts, on SQLite and on PostgreSQL, through their tools (blocks checked by pointer,
//! revisions numbered, a stale base refused with the current revision, paging), and the page
//! `GET /artifacts/{id}` serves: behind the guard (no token, another workspace's principal),
//! with a CSP that lets nothing load or run, and loaded in a real Chromium (the rigs' browser
//! over WebDriver) to check what a person sees — the heading, a table cell, the chart with its
//! series, highlighted code, the mermaid diagrams' labels, and a script payload that did not
//! run. The screenshot is kept as `$CARGO_TARGET_DIR/test-artifacts/artifact-page.png`.

use std::sync::Arc;
use std::time::Duration;

use cc_rigs::browser::{BrowserAction, BrowserOptions, BrowserRig, Engine, Target};
use cc_rigs::Rig;
use cc_server::app::App;
use cc_server::mcp::dispatch::Caller;
use cc_server::mcp::http::{HttpOptions, MAX_BODY};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::principal::Principals;
use cc_server::mcp::sessions::SessionLimits;
use cc_server::mcp::surface::Surface;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::common::{err, ok_value, on_each_backend};
use crate::plans::{app, call};

/// The XSS payloads a markdown block carries: none may run or survive as markup.
const PAYLOAD: &str =
    "Text with <script>document.title='pwned'</script> and <img src=x onerror=\"document.title='pwned'\"> \
and [a link](javascript:document.title='pwned') and <a href=\"https://example.com\" onclick=\"x()\">fine</a>.";

/// An artifact of every block kind.
fn blocks() -> Value {
    json!([
        {"type": "markdown", "text": format!("## Findings\n\nThe importer is **fast** now.\n\n{PAYLOAD}\n\n| a | b |\n|---|---|\n| 1 | 2 |")},
        {"type": "table", "columns": ["Repository", "Files", "Seconds"], "rows": [["sqlalchemy", 640, 12.5], ["<b>flask</b>", 83, 1.25], ["tiny", null, true]]},
        {"type": "chart", "kind": "line", "x_label": "files", "y_label": "seconds",
         "series": [{"name": "before", "points": [[0, 0], [100, 4.5], [640, 30]]}, {"name": "after", "points": [[0, 0], [100, 1.5], [640, 12.5]]}]},
        {"type": "chart", "kind": "bar", "series": [{"name": "p50", "points": [[1, 3], [2, 5], [3, 4]]}, {"name": "p99", "points": [[1, 9], [2, 12], [3, 8]]}]},
        {"type": "mermaid", "text": "flowchart LR\n  Parse[Parse files] -->|records| Index{Index ready?}\n  Index -- yes --> Serve((Serve))\n  Index -. no .-> Parse"},
        {"type": "mermaid", "text": "sequenceDiagram\n  participant C as Client\n  participant S as Server\n  C->>S: tools/call\n  Note over S: validate\n  S-->>C: result"},
        {"type": "mermaid", "text": "gantt\n  title Release\n  section A\n  Build :a1, 2026-01-01, 3d"},
        {"type": "code", "language": "rust", "text": "fn main() {\n    let greeting = \"hello\";\n    println!(\"{greeting}\"); // say it\n}\n"},
        {"type": "code", "language": "haskell", "text": "main = putStrLn \"<hi>\""},
        {"type": "json", "value": {"ok": true, "files": [1, 2, 3], "note": "<not markup>"}}
    ])
}

#[test]
fn blocks_are_checked_with_each_problem_named_by_its_pointer() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let c = Caller::local(Mode::Plan);
        // The artifact tools run in every mode.
        let ok =
            ok_value(call(&app, &c, "publish_artifact", json!({"title": "Every block", "blocks": blocks()})).await);
        assert_eq!(ok["revision"]["number"], 1);
        // (the blocks, the pointers refused, a part of the first message)
        let cases: Vec<(Value, &[&str], &str)> = vec![
            (
                json!([{"type": "markdown", "text": "x"}, {"type": "table", "columns": ["a", "b", "c"], "rows": [["1", "2", "3"], ["1", "2"]]}]),
                &["/blocks/1/rows/1"],
                "the row has 2 cells; the table has 3 columns (a, b, c)",
            ),
            (
                json!([{"type": "chart", "kind": "line", "series": [{"name": "s", "points": [[0, 1]]}, {"name": "s", "points": [[1, 2]]}]}]),
                &["/blocks/0/series/1/name"],
                "'s' is already the name of series 0",
            ),
            (
                json!([{"type": "chart", "kind": "bar", "series": [{"name": "s", "points": [[1, 1], [2, 2], [1, 3]]}]}]),
                &["/blocks/0/series/0/points/2"],
                "x = 1 is already point 0 of this series",
            ),
            (
                json!([{"type": "mermaid", "text": "graph TD\n  A --> B\n  B -> C"}]),
                &["/blocks/0/text"],
                "mermaid line 3: expected an edge",
            ),
            (
                json!([{"type": "mermaid", "text": "sequenceDiagram\n  A->>B: hi\n  end"}]),
                &["/blocks/0/text"],
                "mermaid line 3: 'end' closes no frame",
            ),
            (
                json!([{"type": "table", "columns": ["a"], "rows": [["1", "2"]]}, {"type": "mermaid", "text": "flowchart XY\nA-->B"}]),
                &["/blocks/0/rows/0", "/blocks/1/text"],
                "2 errors",
            ),
        ];
        for (blocks, want, text) in cases {
            let e = err(call(&app, &c, "publish_artifact", json!({"title": "t", "blocks": blocks.clone()})).await);
            assert_eq!(e.error, "invalid_input", "{blocks}");
            let got: Vec<String> = match e.data.as_ref().and_then(|d| d.get("errors")).and_then(Value::as_array) {
                Some(l) => l.iter().map(|x| x["pointer"].as_str().unwrap().to_string()).collect(),
                None => vec![e.pointer.clone().unwrap()],
            };
            assert_eq!(got, want, "{}", e.message);
            assert!(e.message.contains(text), "{}", e.message);
        }
        // What the schema says is the dispatcher's, by pointer.
        for (blocks, pointer) in [
            (json!([{"type": "markdown", "text": "x"}, {"type": "pie", "text": "x"}]), "/blocks/1"),
            (json!([{"type": "chart", "kind": "pie", "series": [{"name": "s", "points": [[0, 1]]}]}]), "/blocks/0"),
            (json!([{"type": "table", "columns": [], "rows": []}]), "/blocks/0"),
            (json!([]), "/blocks"),
        ] {
            let e = err(call(&app, &c, "publish_artifact", json!({"title": "t", "blocks": blocks.clone()})).await);
            assert_eq!(e.error, "invalid_input", "{blocks}");
            assert!(
                e.pointer.as_deref().is_some_and(|p| p.starts_with(pointer)),
                "{blocks}: {:?} {}",
                e.pointer,
                e.message
            );
        }
    });
}

#[test]
fn revisions_are_numbered_and_a_stale_base_is_refused_with_the_current_one() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        store.workspaces().ensure("team", "Team").await.unwrap();
        let c = Caller::local(Mode::Chat);
        let md = |t: &str| json!([{"type": "markdown", "text": t}]);
        let a = ok_value(call(&app, &c, "publish_artifact", json!({"title": "Report", "blocks": md("v1")})).await);
        let id = a["artifact"]["id"].as_str().unwrap().to_string();
        assert_eq!(a["page"], format!("/artifacts/{id}"));
        let r1 = a["revision"]["id"].as_str().unwrap().to_string();
        let revise = |base: String, text: &'static str, title: Option<&'static str>| {
            let (app, c, id) = (app.clone(), c.clone(), id.clone());
            async move {
                let mut args = json!({"artifact_id": id, "base_revision": base, "blocks": md(text)});
                if let Some(t) = title {
                    args["title"] = json!(t);
                }
                call(&app, &c, "revise_artifact", args).await
            }
        };
        let b = ok_value(revise(r1.clone(), "v2", Some("Report, revised")).await);
        assert_eq!(
            (b["revision"]["number"].as_i64(), b["revision"]["base_revision_id"].as_str()),
            (Some(2), Some(r1.as_str()))
        );
        assert_eq!(
            (b["artifact"]["revisions"].as_i64(), b["artifact"]["title"].as_str()),
            (Some(2), Some("Report, revised"))
        );
        let r2 = b["revision"]["id"].as_str().unwrap().to_string();
        // The stale base: refused, naming the current revision; nothing written.
        let e = err(revise(r1.clone(), "v2 from someone else", None).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/base_revision")));
        assert_eq!(e.data.unwrap()["current_revision_id"], r2.as_str());
        assert!(e.message.contains(&format!("the current revision is {r2} (number 2)")), "{}", e.message);
        let c3 = ok_value(revise(r2.clone(), "v3", None).await);
        assert_eq!(
            (c3["revision"]["number"].as_i64(), c3["artifact"]["title"].as_str()),
            (Some(3), Some("Report, revised"))
        );
        // Every revision is kept.
        for (n, text, title) in [(1, "v1", "Report"), (2, "v2", "Report, revised"), (3, "v3", "Report, revised")] {
            let g = ok_value(call(&app, &c, "get_artifact", json!({"artifact_id": id, "revision": n})).await);
            assert_eq!(
                (g["revision"]["blocks"][0]["text"].as_str(), g["revision"]["title"].as_str()),
                (Some(text), Some(title))
            );
        }
        let g = ok_value(call(&app, &c, "get_artifact", json!({"artifact_id": id})).await);
        assert_eq!(g["revision"]["number"], 3);
        let e = err(call(&app, &c, "get_artifact", json!({"artifact_id": id, "revision": 4})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/revision")));
        // Another workspace's artifact does not exist there.
        let e = err(call(&app, &c, "get_artifact", json!({"workspace_id": "team", "artifact_id": id})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/artifact_id")));
        let e = err(revise("arv-x".into(), "x", None).await);
        assert_eq!(e.pointer.as_deref(), Some("/base_revision"));
        // Paging, newest first.
        for i in 0..4 {
            ok_value(call(&app, &c, "publish_artifact", json!({"title": format!("n{i}"), "blocks": md("x")})).await);
        }
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut args = json!({"limit": 2});
            if let Some(cur) = &cursor {
                args["cursor"] = json!(cur);
            }
            let page = ok_value(call(&app, &c, "list_artifacts", args).await);
            seen.extend(page["artifacts"].as_array().unwrap().iter().map(|a| a["title"].as_str().unwrap().to_string()));
            match page["next_cursor"].as_str() {
                Some(n) => cursor = Some(n.to_string()),
                None => break,
            }
        }
        assert_eq!(seen, ["n3", "n2", "n1", "n0", "Report, revised"]);
        let l = ok_value(call(&app, &c, "list_artifacts", json!({"workspace_id": "team"})).await);
        assert_eq!(l["artifacts"], json!([]));
        let e = err(call(&app, &c, "list_artifacts", json!({"cursor": "T-3"})).await);
        assert_eq!(e.pointer.as_deref(), Some("/cursor"));
    });
}

/// Serves `app`'s router on 127.0.0.1 (tokens from `tokens`, a tokens file's lines, when given).
async fn serve(app: &Arc<App>, tokens: Option<&str>, dir: &std::path::Path) -> (String, CancellationToken) {
    let mut principals = Principals::default();
    if let Some(t) = tokens {
        let path = dir.join(format!("tokens-{}", uuid::Uuid::new_v4().simple()));
        std::fs::write(&path, t).unwrap();
        principals.add_file(&path).unwrap();
    }
    let opts = HttpOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        principals,
        operator_token: None,
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
        max_body: MAX_BODY,
        sessions: SessionLimits::default(),
    };
    let stop = CancellationToken::new();
    let router = cc_server::mcp::http::router(app.clone(), Surface::parse(None, true).unwrap(), &opts, stop.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = stop.clone();
    tokio::spawn(async move {
        axum::serve(listener, router.into_make_service())
            .with_graceful_shutdown(async move { s.cancelled().await })
            .await
            .unwrap();
    });
    (format!("http://{addr}"), stop)
}

/// Where test artifacts are kept: `$CARGO_TARGET_DIR/test-artifacts` (or the target folder's).
fn test_artifacts() -> std::path::PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().to_path_buf());
    let dir = target.join("test-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_artifact_page_behind_the_guard_and_in_chromium() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let t = crate::common::test_store(crate::common::Backend::Sqlite).await;
        let (tmp, app) = app(&t.store);
        t.store.workspaces().ensure("team", "Team").await.unwrap();
        let c = Caller::local(Mode::Chat);
        let a =
            ok_value(call(&app, &c, "publish_artifact", json!({"title": "Importer report", "blocks": blocks()})).await);
        let page = a["page"].as_str().unwrap().to_string();

        // Behind the guard: a token is needed, and only a principal that sees the workspace sees it.
        let (base, stop) = serve(&app, Some("alice alice-secret default\nbob bob-secret team\n"), tmp.path()).await;
        let http = reqwest::Client::new();
        let get = |token: Option<&'static str>, path: String| {
            let (http, base) = (http.clone(), base.clone());
            async move {
                let mut r = http.get(format!("{base}{path}"));
                if let Some(t) = token {
                    r = r.bearer_auth(t);
                }
                r.send().await.unwrap()
            }
        };
        assert_eq!(get(None, page.clone()).await.status(), 401);
        assert_eq!(get(Some("wrong"), page.clone()).await.status(), 401);
        let r = get(Some("bob-secret"), page.clone()).await;
        assert_eq!(r.status(), 404, "bob sees only workspace team");
        assert!(!r.text().await.unwrap().contains("Importer report"));
        assert_eq!(get(Some("alice-secret"), "/artifacts/ar-none".into()).await.status(), 404);
        let r = get(Some("alice-secret"), page.clone()).await;
        assert_eq!(r.status(), 200);
        let csp = r.headers()["content-security-policy"].to_str().unwrap().to_string();
        assert!(csp.starts_with("default-src 'none'") && !csp.contains("script-src"), "{csp}");
        assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
        let html = r.text().await.unwrap();
        // Sanitized: nothing of the payload is markup, no script anywhere, nothing loaded.
        for absent in ["<script", "onerror", "onclick", "javascript:", "<b>flask", "src=\"http", "<link", "@import"] {
            assert!(!html.contains(absent), "{absent} in the page");
        }
        assert!(html.contains("&lt;b&gt;flask&lt;/b&gt;"), "a table cell is escaped");
        assert!(
            html.contains("<a href=\"https://example.com\" rel=\"noopener noreferrer nofollow\">fine</a>"),
            "{html}"
        );
        assert!(html.contains("<span class=\"hl-keyword\">fn</span>"), "rust is highlighted");
        assert!(html.contains("<pre class=\"code plain lang-haskell\">"), "haskell is plain, and says so");
        assert!(html.contains("mermaid &#39;gantt&#39; diagrams are not drawn here"));
        assert!(html.contains("&lt;not markup&gt;"));
        let r = get(Some("alice-secret"), format!("{page}?revision=2")).await;
        assert_eq!(r.status(), 404);
        stop.cancel();

        // In Chromium (a server without tokens: WebDriver navigation sends no header).
        let (base, stop) = serve(&app, None, tmp.path()).await;
        let mut opts = BrowserOptions::new(Engine::Chromium);
        (opts.width, opts.height) = (1100, 3200);
        let rig = BrowserRig::launch(opts).await.unwrap_or_else(|e| {
            panic!("chromium and chromedriver are needed (apt install chromium chromium-driver): {e}")
        });
        let nav = rig.act(BrowserAction::Navigate { url: format!("{base}{page}") }).await.unwrap();
        assert_eq!(nav.title, "Importer report", "the payload did not retitle the page");
        let text_of = |selector: Option<&str>| {
            let target = selector.map(|s| Target::Selector(s.to_string()));
            let rig = &rig;
            async move {
                let out = rig.act(BrowserAction::Text { target, max_chars: 100_000 }).await.unwrap();
                out.content.unwrap().fenced
            }
        };
        let body = text_of(None).await;
        for seen in [
            "Importer report",
            "Findings",
            "The importer is fast now.",
            "sqlalchemy",
            "<b>flask</b>",
            "12.5",
            "fn main()",
            "Not highlighted (no grammar for 'haskell')",
            "mermaid 'gantt' diagrams are not drawn here",
        ] {
            assert!(body.contains(seen), "{seen:?} is not on the page:\n{body}");
        }
        assert!(!body.contains("pwned"), "{body}");
        assert!(text_of(Some("h1")).await.contains("Importer report"));
        assert!(text_of(Some("section.table td")).await.contains("sqlalchemy"));
        assert!(text_of(Some("pre.highlighted span.hl-keyword")).await.contains("fn"));
        let legend = text_of(Some("svg.chart-line g.legend")).await;
        assert!(legend.contains("before") && legend.contains("after"), "{legend}");
        let flow = text_of(Some("svg.flowchart")).await;
        for label in ["Parse files", "Index ready?", "Serve", "records", "yes", "no"] {
            assert!(flow.contains(label), "{label:?} not in the flowchart: {flow}");
        }
        let seq = text_of(Some("svg.sequence")).await;
        for label in ["Client", "Server", "tools/call", "validate", "result"] {
            assert!(seq.contains(label), "{label:?} not in the sequence diagram: {seq}");
        }
        // Still untitled by any payload after everything rendered.
        let again = rig
            .act(BrowserAction::Wait {
                what: cc_rigs::browser::WaitFor::Selector("svg.sequence".into()),
                timeout: Duration::from_secs(5),
            })
            .await
            .unwrap();
        assert_eq!(again.title, "Importer report");
        let shot = rig.act(BrowserAction::Screenshot { target: None }).await.unwrap();
        let png = shot.image.unwrap().png;
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        std::fs::write(test_artifacts().join("artifact-page.png"), &png).unwrap();
        rig.close().await;
        stop.cancel();
        drop(t);
    });
}
