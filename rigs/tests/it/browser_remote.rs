//! Browser rigs on a remote WebDriver endpoint. Real: the "remote" drivers — chromedriver and
//! geckodriver started by the test on 127.0.0.1 apart from any rig, as a grid's node runs them
//! — their browsers, the fixture site, a session ended behind the rig's back, a killed driver,
//! a closed port, chromedriver refusing bad capabilities and geckodriver refusing a second
//! session. A double: the recording proxy put in front of a driver to see the wire (headers,
//! the session's DELETE) and to answer as a Selenium Grid with no free slot.

use std::time::Duration;

use cc_rigs::browser::{BrowserAction, BrowserOptions, BrowserRig, Engine, Remote, Target};
use cc_rigs::pool::{Acquire, Lease, Pool, PoolConfig, Status};
use cc_rigs::testing::webdriver::{RemoteDriver, WebDriverProxy};
use cc_rigs::RigError;

use crate::browser::{acquire, act, ok, pool, ref_of};

fn want(conv: &str, engine: Engine) -> Acquire {
    crate::browser::want("w", conv, engine)
}

fn driver(engine: Engine) -> RemoteDriver {
    RemoteDriver::start(engine)
        .unwrap_or_else(|e| panic!("the remote {} driver cannot start here: {e}", engine.as_str()))
}

/// Options for a rig of `engine` at `url`, with what the node's browser needs passed through.
fn remote(engine: Engine, url: String, d: &RemoteDriver, headers: &[(&str, &str)]) -> BrowserOptions {
    let mut o = BrowserOptions::new(engine);
    o.remote = Some(Remote {
        url,
        headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
        capabilities: d.node_capabilities(),
    });
    o
}

fn browser(lease: &Lease) -> std::sync::Arc<BrowserRig> {
    cc_rigs::downcast::<BrowserRig>(lease.rig()).expect("a browser rig")
}

/// This test process's children, by command name (the remote driver, and nothing a rig
/// started).
fn children() -> Vec<String> {
    let mut c: Vec<String> =
        cc_rigs::procs::children(std::process::id() as i32).into_iter().map(|(_, name)| name).collect();
    c.sort();
    c
}

/// One request straight to the driver, behind the rig's back.
fn raw(d: &RemoteDriver, method: &str, path: &str) -> (u16, String) {
    d.request(method, path).unwrap_or_else(|e| panic!("{method} {path}: {e}"))
}

const SECRET: &str = "Bearer grid-secret-3141";

/// A chromium session on the "remote" chromedriver through the recording proxy: driven on a
/// page of the test's own site, reused by its conversation, listed, closed. Nothing starts
/// here; the configured headers are on every request (the new session, each command, the
/// DELETE) and in no Debug string; rig_close ends the session at the driver.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_chromium_session_carries_its_headers_and_starts_nothing_here() {
    let site = crate::site::serve();
    let home = format!("http://127.0.0.1:{site}/");
    let d = driver(Engine::Chromium);
    let proxy = WebDriverProxy::start(d.port);
    let before = children();
    assert_eq!(before.len(), 1, "only the remote driver: {before:?}");
    let p = pool(2);
    let opts = remote(Engine::Chromium, proxy.url(), &d, &[("Authorization", SECRET), ("X-Grid-Team", "rigs")]);
    let shown = format!("{opts:?}");
    assert!(!shown.contains("grid-secret") && shown.contains("Authorization"), "{shown}");
    let lease = acquire(&p, want("c1", Engine::Chromium), opts.clone())
        .await
        .unwrap_or_else(|e| panic!("a remote chromium session: {e}"));
    assert!(lease.created);
    let rig = browser(&lease);
    assert_eq!(rig.remote_endpoint(), Some(proxy.url().as_str()));
    assert!(lease.rig().process_groups().is_empty() && p.process_groups().is_empty(), "no process group of its own");
    assert!(rig.profile_dir().is_none(), "no profile here");
    assert_eq!(children(), before, "the rig started no driver or browser here");
    let dbg = format!("{rig:?}");
    assert!(dbg.contains("remote") && !dbg.contains("grid-secret"), "{dbg}");

    let nav = ok(&p, &lease, BrowserAction::Navigate { url: home.clone() }).await;
    assert_eq!((nav.title.as_str(), nav.url.as_str()), ("Fixture home", home.as_str()));
    let snap = ok(&p, &lease, BrowserAction::Snapshot { max_lines: 400 }).await;
    let s = snap.content.as_ref().unwrap().fenced.clone();
    ok(&p, &lease, BrowserAction::Fill { target: Target::Ref(ref_of(&s, "textbox \"Name\"")), text: "Ada".into() })
        .await;
    ok(&p, &lease, BrowserAction::Click { target: Target::Ref(ref_of(&s, "button \"Greet\"")) }).await;
    let out =
        ok(&p, &lease, BrowserAction::Text { target: Some(Target::Selector("#out".into())), max_chars: 100 }).await;
    assert!(out.content.unwrap().fenced.contains("\nHello, Ada\n"));
    let shot = ok(&p, &lease, BrowserAction::Screenshot { target: None }).await;
    assert_eq!(shot.image.as_ref().map(|i| (i.real_width, i.real_height)), Some(lease.rig().display()));

    // The conversation's next call reuses the session; rig_list shows it like a local one.
    let again = acquire(&p, want("c1", Engine::Chromium), opts).await.unwrap();
    assert_eq!((again.id(), again.created), (lease.id(), false));
    let list = p.list(None);
    assert_eq!(list.len(), 1);
    assert_eq!((list[0].engine.as_str(), &list[0].status), ("chromium", &Status::Ready));
    assert!(!format!("{list:?}").contains("grid-secret"));

    let sid = rig.session_id().await.expect("a session id");
    let seen = proxy.seen();
    assert_eq!((seen[0].method.as_str(), seen[0].path.as_str()), ("POST", "/session"), "{seen:?}");
    assert!(seen.len() > 10, "{} requests", seen.len());
    for s in &seen {
        assert_eq!(s.header("authorization"), Some(SECRET), "{} {}", s.method, s.path);
        assert_eq!(s.header("x-grid-team"), Some("rigs"), "{} {}", s.method, s.path);
    }
    assert!(seen.iter().any(|s| s.path.starts_with(&format!("/session/{sid}/"))));

    // rig_close ends the session at the endpoint (the grid frees the slot).
    p.close("w", lease.id()).await.unwrap();
    let seen = proxy.seen();
    let del = seen.iter().find(|s| s.method == "DELETE" && s.path == format!("/session/{sid}"));
    let del = del.unwrap_or_else(|| panic!("no DELETE /session/{sid} in {seen:?}"));
    assert_eq!(del.header("authorization"), Some(SECRET));
    let (status, body) = raw(&d, "GET", &format!("/session/{sid}/url"));
    assert!(status == 404 && body.contains("invalid session id"), "{status} {body}");
    assert!(p.list(None).is_empty());
    assert_eq!(children(), before);
}

/// A firefox session on the "remote" geckodriver (no proxy). geckodriver holds one session at
/// a time: a second rig is a refused new session, as a grid with no free slot refuses it, and
/// the error names the endpoint and says what the driver said; once the first is closed the
/// slot is free again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_firefox_session_and_a_second_one_refused_for_want_of_a_slot() {
    let site = crate::site::serve();
    let d = driver(Engine::Firefox);
    let before = children();
    let p = pool(3);
    let opts = remote(Engine::Firefox, d.url(), &d, &[]);
    let lease = acquire(&p, want("c1", Engine::Firefox), opts.clone())
        .await
        .unwrap_or_else(|e| panic!("a remote firefox session: {e}"));
    assert_eq!(lease.rig().process_groups(), Vec::<i32>::new());
    assert_eq!(children(), before, "the rig started no driver or browser here");
    let nav = ok(&p, &lease, BrowserAction::Navigate { url: format!("http://127.0.0.1:{site}/") }).await;
    assert_eq!(nav.title, "Fixture home");
    let snap = ok(&p, &lease, BrowserAction::Snapshot { max_lines: 400 }).await;
    let link = ref_of(&snap.content.unwrap().fenced, "link \"Second page\"");
    ok(&p, &lease, BrowserAction::Click { target: Target::Ref(link) }).await;
    let text = ok(&p, &lease, BrowserAction::Text { target: None, max_chars: 1000 }).await;
    assert!(text.content.unwrap().fenced.contains("You made it"), "the click navigated");

    let e = acquire(&p, want("c2", Engine::Firefox), opts.clone()).await.unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, RigError::Start(_)), "{e:?}");
    assert!(m.contains(&format!("the WebDriver endpoint {} refused a new session", d.url())), "{m}");
    assert!(m.contains("no free slot") && m.to_lowercase().contains("session is already started"), "{m}");
    assert_eq!(p.list(None).len(), 1, "a refused session is no rig");

    p.close("w", lease.id()).await.unwrap();
    let second = acquire(&p, want("c2", Engine::Firefox), opts).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ok(&p, &second, BrowserAction::Reload).await.url, "about:blank");
    p.shutdown();
    assert_eq!(children(), before);
}

/// A session the grid dropped: ended behind the rig's back, the next action fails as a dead
/// rig naming the endpoint, the pool marks it failed, and the conversation's next call gets a
/// new session in its place; then the node itself goes away (the driver killed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_remote_session_fails_the_rig_and_the_next_call_replaces_it() {
    let site = crate::site::serve();
    let d = driver(Engine::Chromium);
    let p = pool(2);
    let opts = remote(Engine::Chromium, d.url(), &d, &[]);
    let first = acquire(&p, want("c", Engine::Chromium), opts.clone()).await.unwrap_or_else(|e| panic!("{e}"));
    ok(&p, &first, BrowserAction::Navigate { url: format!("http://127.0.0.1:{site}/") }).await;
    let sid = browser(&first).session_id().await.unwrap();
    let (status, body) = raw(&d, "DELETE", &format!("/session/{sid}"));
    assert_eq!(status, 200, "{body}");

    let e = act(&p, &first, BrowserAction::Reload).await.unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, RigError::Dead(_)), "{e:?}");
    assert!(m.contains("invalid session id") && m.contains(&d.url()), "{m}");
    assert!(m.contains("the next call starts a new rig"), "{m}");
    assert_eq!(p.list(None)[0].status, Status::Failed);

    let second = acquire(&p, want("c", Engine::Chromium), opts.clone()).await.unwrap_or_else(|e| panic!("{e}"));
    assert!(second.created);
    let (old, why) = second.replaced.clone().expect("it replaced the failed rig");
    assert_eq!(old, first.id());
    assert!(why.contains("invalid session id"), "{why}");
    assert_ne!(browser(&second).session_id().await.unwrap(), sid);
    let o = ok(&p, &second, BrowserAction::Navigate { url: format!("http://127.0.0.1:{site}/second") }).await;
    assert_eq!(o.title, "Second page");

    // With a probe before reuse (what the pool does for a rig idle past `probe_after`), a
    // session dropped while the rig was idle is replaced by the next call itself.
    let probing = Pool::new(PoolConfig { probe_after: Duration::ZERO, ..PoolConfig::default() }).unwrap();
    let idle = acquire(&probing, want("c", Engine::Chromium), opts.clone()).await.unwrap_or_else(|e| panic!("{e}"));
    let sid = browser(&idle).session_id().await.unwrap();
    assert_eq!(raw(&d, "DELETE", &format!("/session/{sid}")).0, 200);
    let fresh = acquire(&probing, want("c", Engine::Chromium), opts.clone()).await.unwrap_or_else(|e| panic!("{e}"));
    assert!(fresh.created);
    let (old, why) = fresh.replaced.clone().expect("it replaced the dropped session's rig");
    assert!(old == idle.id() && why.contains("stopped answering while unused"), "{old} {why}");
    ok(&probing, &fresh, BrowserAction::Reload).await;
    probing.shutdown();

    // The node goes away: the rig is dead, and nothing answers a new session there.
    d.kill();
    let e = act(&p, &second, BrowserAction::Reload).await.unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, RigError::Dead(_)) && m.contains(&d.url()), "{m}");
    let e = acquire(&p, want("c", Engine::Chromium), remote(Engine::Chromium, d.url(), &d, &[])).await.unwrap_err();
    let m = e.to_string();
    assert!(
        matches!(e, RigError::Start(_)) && m.contains(&format!("the WebDriver endpoint {} did not answer", d.url())),
        "{m}"
    );
    assert!(m.to_lowercase().contains("connection refused"), "{m}");
    p.shutdown();
}

/// New sessions an endpoint does not make: a grid with no free slot (the proxy double, as
/// Selenium Grid answers), a closed port, and chromedriver refusing capabilities. Each is a
/// start error naming the endpoint — without the URL's password or a header's value — and
/// saying what the endpoint said.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_new_session_names_the_endpoint_and_what_it_said() {
    let d = driver(Engine::Chromium);
    let p = pool(3);

    let full = WebDriverProxy::full();
    let url = format!("http://ada:pw-2718@127.0.0.1:{}/", full.port);
    let e =
        acquire(&p, want("c1", Engine::Chromium), remote(Engine::Chromium, url, &d, &[("X-Grid-Token", "tok-1618")]))
            .await
            .unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, RigError::Start(_)), "{e:?}");
    assert!(m.contains(&format!("the WebDriver endpoint {} refused a new session", full.url())), "{m}");
    assert!(m.contains("no free slot") && m.contains("No slots available"), "{m}");
    for secret in ["pw-2718", "ada", "tok-1618"] {
        assert!(!m.contains(secret) && !format!("{e:?}").contains(secret), "{secret} in {m}");
    }
    let seen = full.seen();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].header("x-grid-token"), Some("tok-1618"));
    assert_eq!(
        seen[0].header("authorization"),
        Some("Basic YWRhOnB3LTI3MTg="),
        "the URL's user as Basic authentication"
    );

    let closed = cc_rigs::procs::free_port().unwrap();
    let url = format!("http://127.0.0.1:{closed}/");
    let e =
        acquire(&p, want("c2", Engine::Chromium), remote(Engine::Chromium, url.clone(), &d, &[])).await.unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, RigError::Start(_)), "{e:?}");
    assert!(m.contains(&format!("the WebDriver endpoint {url} did not answer")), "{m}");
    assert!(m.to_lowercase().contains("connection refused"), "{m}");

    let mut bad = remote(Engine::Chromium, d.url(), &d, &[]);
    let caps = &mut bad.remote.as_mut().unwrap().capabilities;
    caps.insert("goog:chromeOptions".into(), serde_json::json!({"binary": "/nonexistent/cc-chrome"}));
    let e = acquire(&p, want("c3", Engine::Chromium), bad).await.unwrap_err();
    let m = e.to_string();
    assert!(m.contains(&format!("the WebDriver endpoint {} refused a new session", d.url())), "{m}");
    assert!(m.contains("/nonexistent/cc-chrome"), "the driver's message: {m}");

    assert!(p.list(None).is_empty());
    assert!(p.process_groups().is_empty());
    p.shutdown();
}

/// An idle remote rig is reaped like a local one: the reaper ends its session at the endpoint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_remote_rig_is_reaped_and_its_session_ended() {
    let d = driver(Engine::Chromium);
    let proxy = WebDriverProxy::start(d.port);
    let p = Pool::new(PoolConfig {
        max_rigs: 2,
        idle_timeout: Duration::from_millis(500),
        reap_every: Duration::from_millis(100),
        ..PoolConfig::default()
    })
    .unwrap();
    let lease = acquire(
        &p,
        want("c", Engine::Chromium),
        remote(Engine::Chromium, proxy.url(), &d, &[("Authorization", SECRET)]),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    let sid = browser(&lease).session_id().await.unwrap();
    drop(lease);
    for _ in 0..100 {
        if p.list(None).is_empty() && proxy.seen().iter().any(|s| s.method == "DELETE") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(p.list(None).is_empty(), "reaped");
    let seen = proxy.seen();
    let del = seen.iter().find(|s| s.method == "DELETE" && s.path == format!("/session/{sid}"));
    assert_eq!(del.and_then(|s| s.header("authorization")), Some(SECRET), "{seen:?}");
    p.shutdown();
}
