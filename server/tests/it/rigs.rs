//! The rig tools through the dispatcher, as a client calls them: browser_use on a real
//! chromium against a local page, rig_list, rig_close; reuse per conversation, separation
//! across conversations and workspaces, takeover by rig_id after a reconnect, the policy
//! gate, bad input with pointers, and no process left after shutdown; and browser_use on a
//! remote WebDriver endpoint configured in config.toml (a real chromedriver the test starts,
//! behind the recording proxy double): a dropped session replaced with a notice.

use std::sync::Arc;
use std::time::Duration;

use cc_server::app::App;
use cc_server::mcp::dispatch::Caller;
use cc_server::mcp::policy::Mode;
use serde_json::{json, Value};

use super::common::{call, err, ok, rig_fixture};

const PAGE: &str = r#"<!doctype html><html><head><title>Rig page</title></head>
<body style="margin:0;background:#fff"><h1>Rig page</h1><input id="q" aria-label="Query">
<button onclick="document.getElementById('out').textContent='Searched '+document.getElementById('q').value">Search</button>
<p id="out"></p><div style="width:100px;height:100px;background:#00f"></div></body></html>"#;

fn site() -> u16 {
    cc_rigs::testing::serve_page(PAGE)
}

fn browser(app: &Arc<App>, caller: &Caller, ws: &str, args: Value) -> Value {
    let mut args = args;
    args["workspace_id"] = json!(ws);
    ok(call(app, caller, "browser_use", args)).value
}

#[test]
fn browser_use_rig_list_and_rig_close_through_the_dispatcher() {
    let port = site();
    let url = format!("http://127.0.0.1:{port}/");
    let f = rig_fixture(false);
    let app = &f.app;
    let alice = Caller::local(Mode::Chat);

    // The first call starts the conversation's rig; later ones reuse it.
    let nav = browser(app, &alice, "default", json!({"action": "navigate", "url": url}));
    assert_eq!(nav["created"], true);
    assert_eq!(nav["engine"], "chromium");
    assert_eq!(nav["title"], "Rig page");
    let rig = nav["rig_id"].as_str().unwrap().to_string();
    let snap = browser(app, &alice, "default", json!({"action": "extract", "what": "snapshot"}));
    assert_eq!((snap["created"].as_bool(), snap["rig_id"].as_str()), (Some(false), Some(rig.as_str())));
    let text = snap["content"].as_str().unwrap();
    assert!(text.starts_with("<untrusted-data source=\"snapshot of "), "{text}");
    let query = text.lines().find(|l| l.contains("textbox \"Query\"")).unwrap();
    let query_ref = query.split("[ref=").nth(1).unwrap().split(']').next().unwrap();
    let search = text.lines().find(|l| l.contains("button \"Search\"")).unwrap();
    let search_ref = search.split("[ref=").nth(1).unwrap().split(']').next().unwrap();
    browser(app, &alice, "default", json!({"action": "fill", "ref": query_ref, "text": "rigs"}));
    browser(app, &alice, "default", json!({"action": "click", "ref": search_ref}));
    let out = browser(app, &alice, "default", json!({"action": "extract", "what": "text", "selector": "#out"}));
    assert!(out["content"].as_str().unwrap().contains("\nSearched rigs\n"), "{out}");

    // A screenshot is one PNG image block, described in the structured result.
    let shot = ok(call(app, &alice, "browser_use", json!({"workspace_id": "default", "action": "screenshot"})));
    assert_eq!(shot.extra.len(), 1);
    let block = serde_json::to_value(&shot.extra[0]).unwrap();
    assert_eq!(block["type"], "image");
    assert_eq!(block["mimeType"], "image/png");
    let img = &shot.value["image"];
    assert!(img["width"].as_u64().unwrap() <= 1366 && img["height"].as_u64().unwrap() <= 768, "{img}");
    assert!(img["scale"].as_f64().unwrap() > 0.0);

    // rig_list answers from the pool; the rig is alice's.
    let list = ok(call(app, &alice, "rig_list", json!({"workspace_id": "default"}))).value;
    let rigs = list["rigs"].as_array().unwrap();
    assert_eq!(rigs.len(), 1, "{list}");
    assert_eq!(rigs[0]["id"], rig.as_str());
    assert_eq!(rigs[0]["surface"], "browser");
    assert_eq!(rigs[0]["status"], "ready");
    assert_eq!(rigs[0]["controller"], alice.conversation.id.as_str());
    assert!(rigs[0]["display_width"].as_u64().unwrap() > 0 && rigs[0]["created"].as_u64().unwrap() > 0);

    // Another conversation, and another workspace, get rigs of their own.
    let bob = Caller::local(Mode::Chat);
    let b = browser(app, &bob, "default", json!({"action": "navigate", "url": url}));
    assert_ne!(b["rig_id"], rig.as_str());
    let t = browser(app, &alice, "team", json!({"action": "navigate", "url": url, "engine": "chromium"}));
    assert_ne!(t["rig_id"], rig.as_str());
    assert_ne!(t["rig_id"], b["rig_id"]);
    assert_eq!(
        ok(call(app, &alice, "rig_list", json!({"workspace_id": "default"}))).value["rigs"].as_array().unwrap().len(),
        2
    );
    assert_eq!(
        ok(call(app, &alice, "rig_list", json!({"workspace_id": "team"}))).value["rigs"].as_array().unwrap().len(),
        1
    );

    // A reconnected client (a new conversation) takes its rig over by id; the page is as it was.
    let again = Caller::local(Mode::Chat);
    let r = browser(
        app,
        &again,
        "default",
        json!({"action": "extract", "what": "text", "selector": "#out", "rig_id": rig}),
    );
    assert_eq!((r["rig_id"].as_str(), r["created"].as_bool()), (Some(rig.as_str()), Some(false)));
    assert!(r["content"].as_str().unwrap().contains("Searched rigs"));
    // Another workspace cannot reach it.
    let e = err(call(app, &again, "browser_use", json!({"workspace_id": "team", "action": "reload", "rig_id": rig})));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("no_rig", Some("/rig_id")));

    // Bad input names the field and what was expected.
    let bad = |args: Value| err(call(app, &again, "browser_use", args));
    let e = bad(json!({"workspace_id": "default", "action": "teleport"}));
    assert_eq!(e.pointer.as_deref(), Some("/action"), "{e:?}");
    let e = bad(json!({"workspace_id": "default", "action": "navigate"}));
    assert_eq!((e.pointer.as_deref(), e.message.as_str()), (Some("/url"), "/url: required by action navigate"));
    // An argument the action does not take is refused, not ignored.
    let e = bad(json!({"workspace_id": "default", "action": "navigate", "url": url, "text": "hello"}));
    assert_eq!((e.pointer.as_deref(), e.message.as_str()), (Some("/text"), "/text: action navigate takes no text"));
    let e = bad(json!({"workspace_id": "default", "action": "fill", "ref": "s9e1", "text": "x", "value": "y"}));
    assert_eq!(e.pointer.as_deref(), Some("/value"), "{e:?}");
    let e = bad(json!({"workspace_id": "default", "action": "navigate", "url": url, "engine": "safari"}));
    assert_eq!(e.pointer.as_deref(), Some("/engine"), "{e:?}");
    let e = bad(json!({"workspace_id": "default", "action": "click"}));
    assert_eq!(e.pointer.as_deref(), Some("/ref"), "{e:?}");
    assert!(e.message.contains("ref") && e.message.contains("selector"), "{}", e.message);
    let e = bad(json!({"workspace_id": "default", "action": "click", "ref": "s9e1"}));
    assert_eq!(e.error, "stale_ref", "{e:?}");
    assert!(e.message.contains("take a new snapshot"), "{}", e.message);
    let e = bad(json!({"workspace_id": "default", "action": "press", "key": "Hyper+Q"}));
    assert_eq!(e.pointer.as_deref(), Some("/key"), "{e:?}");
    let e = bad(json!({"action": "back"}));
    assert_eq!(e.error, "workspace", "{e:?}");

    // Read-only modes refuse the rig tools.
    let planner = Caller::local(Mode::Plan);
    let e = err(call(app, &planner, "browser_use", json!({"workspace_id": "default", "action": "back"})));
    assert_eq!(e.error, "mode", "{e:?}");

    // rig_close destroys it; its id is gone for every call.
    let groups = app.services.rigs.pool().unwrap().process_groups();
    let closed = ok(call(app, &alice, "rig_close", json!({"workspace_id": "default", "rig_id": rig}))).value;
    assert_eq!(closed["closed"]["id"], rig.as_str());
    let e = err(call(app, &alice, "rig_close", json!({"workspace_id": "default", "rig_id": rig})));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("no_rig", Some("/rig_id")));
    assert!(e.message.contains("rig_list"));
    let e =
        err(call(app, &alice, "browser_use", json!({"workspace_id": "default", "action": "reload", "rig_id": rig})));
    assert_eq!(e.error, "no_rig");
    assert_eq!(
        ok(call(app, &alice, "rig_list", json!({"workspace_id": "default"}))).value["rigs"].as_array().unwrap().len(),
        1
    );

    // Server shutdown: every rig closed, no process of any rig left.
    let groups: Vec<i32> = groups.into_iter().chain(app.services.rigs.pool().unwrap().process_groups()).collect();
    assert!(!cc_rigs::procs::groups_alive(&groups).is_empty());
    app.services.rigs.shutdown();
    for _ in 0..200 {
        if cc_rigs::procs::groups_alive(&groups).is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(cc_rigs::procs::groups_alive(&groups), vec![]);
    let e = err(call(app, &alice, "browser_use", json!({"workspace_id": "default", "action": "reload"})));
    assert_eq!(e.error, "shut_down", "{e:?}");
}

/// browser_use with `[webdriver.chromium]` in the configuration: the session is made at the
/// endpoint with the configured header (never in a result), nothing starts here, a session
/// the grid dropped fails the call and the conversation's next call gets a new one saying
/// which it replaced, rig_close ends the session there.
#[test]
fn browser_use_on_a_remote_webdriver_endpoint_from_the_configuration() {
    use cc_rigs::testing::webdriver::{RemoteDriver, WebDriverProxy};
    let port = site();
    let url = format!("http://127.0.0.1:{port}/");
    let d = RemoteDriver::start(cc_rigs::browser::Engine::Chromium)
        .unwrap_or_else(|e| panic!("the remote chromedriver cannot start here: {e}"));
    let proxy = WebDriverProxy::start(d.port);
    let tmp = tempfile::tempdir().unwrap();
    let data = cc_indexer::DataDir::new(tmp.path().join("data"));
    std::fs::create_dir_all(&data.root).unwrap();
    let caps = serde_json::Value::Object(d.node_capabilities()).to_string();
    std::fs::write(
        data.root.join("config.toml"),
        format!(
            "[webdriver.chromium]\nurl = \"{}\"\nheaders = {{ Authorization = \"Bearer srv-secret-42\" }}\ncapabilities = '{caps}'\n",
            proxy.url()
        ),
    )
    .unwrap();
    let config = cc_server::config::Config::load(None, &data.root).unwrap();
    let store = cc_server::serve::open_store(&data).unwrap();
    let services = cc_server::services::Services::with_config(data, store, None, config);
    let app = Arc::new(App::new(services, cc_server::mcp::tools::registry(), None));
    let alice = Caller::local(Mode::Chat);

    let nav = browser(&app, &alice, "default", json!({"action": "navigate", "url": url}));
    assert_eq!((nav["created"].as_bool(), nav["title"].as_str()), (Some(true), Some("Rig page")), "{nav}");
    let rig = nav["rig_id"].as_str().unwrap().to_string();
    let pool = app.services.rigs.pool().unwrap();
    assert!(pool.process_groups().is_empty(), "no driver started here");
    let again = browser(&app, &alice, "default", json!({"action": "extract", "what": "text"}));
    assert_eq!((again["rig_id"].as_str(), again["created"].as_bool()), (Some(rig.as_str()), Some(false)));
    let list = ok(call(&app, &alice, "rig_list", json!({"workspace_id": "default"}))).value;
    assert_eq!(list["rigs"][0]["id"], rig.as_str());
    assert!(!list.to_string().contains("srv-secret"), "{list}");
    let seen = proxy.seen();
    assert!(seen.iter().all(|s| s.header("authorization") == Some("Bearer srv-secret-42")), "{seen:?}");

    // The grid drops the session: the call that meets it fails, the next gets a new session.
    let sid =
        seen.iter().find_map(|s| s.path.strip_prefix("/session/").map(|r| r.split('/').next().unwrap().to_string()));
    let sid = sid.expect("a session id on the wire");
    let dropped = d.request("DELETE", &format!("/session/{sid}")).unwrap();
    assert_eq!(dropped.0, 200, "{dropped:?}");
    let e = err(call(&app, &alice, "browser_use", json!({"workspace_id": "default", "action": "reload"})));
    assert_eq!(e.error, "rig_failed", "{e:?}");
    assert!(e.message.contains(&proxy.url()) && !e.message.contains("srv-secret"), "{}", e.message);
    let next = browser(&app, &alice, "default", json!({"action": "navigate", "url": url}));
    assert_eq!(next["created"], true, "{next}");
    assert_eq!(next["replaced"]["rig_id"], rig.as_str(), "{next}");
    assert!(next["notice"].as_str().unwrap().contains(&format!("rig {rig} had failed")), "{next}");
    assert_eq!(next["title"], "Rig page");
    let new_rig = next["rig_id"].as_str().unwrap().to_string();

    // rig_close ends the session at the endpoint.
    let before = proxy.seen().len();
    ok(call(&app, &alice, "rig_close", json!({"workspace_id": "default", "rig_id": new_rig})));
    let seen = proxy.seen();
    assert!(
        seen[before..].iter().any(|s| s.method == "DELETE"
            && s.path.starts_with("/session/")
            && s.header("authorization") == Some("Bearer srv-secret-42")),
        "{:?}",
        &seen[before..]
    );
    app.services.rigs.shutdown();
}
