//! The browser scenario per engine, and the pool with real rigs.

use std::sync::Arc;
use std::time::Duration;

use cc_rigs::browser::{ActOutput, BrowserAction, BrowserOptions, BrowserRig, Engine, TabOp, Target, WaitFor};
use cc_rigs::pool::{Acquire, Lease, Pool, PoolConfig};
use cc_rigs::procs::groups_alive;
use cc_rigs::{RigError, SurfaceKind};

pub(crate) fn pool(max: usize) -> Pool {
    Pool::new(PoolConfig { max_rigs: max, ..PoolConfig::default() }).unwrap()
}

pub(crate) fn want(ws: &str, conv: &str, engine: Engine) -> Acquire {
    Acquire::new(ws, conv, SurfaceKind::Browser, Some(engine.as_str()))
}

pub(crate) async fn acquire(p: &Pool, want: Acquire, opts: BrowserOptions) -> Result<Lease, RigError> {
    p.acquire(want, move |_| BrowserRig::launch_boxed(opts)).await
}

pub(crate) async fn act(p: &Pool, lease: &Lease, action: BrowserAction) -> Result<ActOutput, RigError> {
    p.run(
        lease,
        move |rig| async move { cc_rigs::downcast::<BrowserRig>(rig).expect("a browser rig").act(action).await },
    )
    .await
}

pub(crate) async fn ok(p: &Pool, lease: &Lease, action: BrowserAction) -> ActOutput {
    let what = format!("{action:?}");
    act(p, lease, action).await.unwrap_or_else(|e| panic!("{what}: {e}"))
}

fn content(o: &ActOutput) -> &str {
    &o.content.as_ref().expect("fenced content").fenced
}

/// The ref a snapshot gave the first line containing `needle`.
pub(crate) fn ref_of(snapshot: &str, needle: &str) -> String {
    let line = snapshot.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("no '{needle}' in:\n{snapshot}"));
    let at = line.find("[ref=").unwrap_or_else(|| panic!("no ref on '{line}'"));
    line[at + 5..].split(']').next().unwrap().to_string()
}

/// Waits (up to 10 s) until none of `groups` has a live process; returns what is left.
async fn settle(groups: &[i32]) -> Vec<(i32, i32, String)> {
    for _ in 0..200 {
        if groups_alive(groups).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    groups_alive(groups)
}

async fn scenario(engine: Engine) {
    let port = crate::site::serve();
    let home = format!("http://127.0.0.1:{port}/");
    let p = pool(4);
    let lease = match acquire(&p, want("w", "c1", engine), BrowserOptions::new(engine)).await {
        Ok(l) => l,
        Err(e) => panic!("{} cannot start here: {e}", engine.as_str()),
    };
    assert!(lease.created);
    let groups = p.process_groups();
    assert_eq!(groups.len(), 1);
    assert!(!groups_alive(&groups).is_empty(), "the driver runs in the rig's group");
    let profile = cc_rigs::downcast::<BrowserRig>(lease.rig()).unwrap().profile_dir().unwrap();
    assert!(profile.is_dir());

    let nav = ok(&p, &lease, BrowserAction::Navigate { url: home.clone() }).await;
    assert_eq!(nav.title, "Fixture home");
    assert_eq!(nav.url, home);
    if engine == Engine::Chromium {
        // Chromium's singleton socket folder (left behind when a browser is killed) is in
        // the rig's folder, which close removes; not in the system's temporary folder.
        let socket = std::fs::read_link(profile.join("browser").join("SingletonSocket")).unwrap();
        assert!(socket.starts_with(&profile), "{socket:?} is outside {profile:?}");
    }

    // Snapshot: roles, names, refs; fill and click by ref.
    let snap = ok(&p, &lease, BrowserAction::Snapshot { max_lines: 400 }).await;
    let s1 = content(&snap).to_string();
    assert!(s1.starts_with("<untrusted-data source=\"snapshot of "), "{s1}");
    assert!(s1.contains("- heading \"Fixture home\" [level=1]"), "{s1}");
    assert!(s1.contains("- link \"Second page\" [ref=s1e"), "{s1}");
    let name = ref_of(&s1, "textbox \"Name\"");
    let greet = ref_of(&s1, "button \"Greet\"");
    let add = ref_of(&s1, "button \"Add\"");
    let link = ref_of(&s1, "link \"Second page\"");
    ok(&p, &lease, BrowserAction::Fill { target: Target::Ref(name.clone()), text: "Ada".into() }).await;
    ok(&p, &lease, BrowserAction::Type { target: Some(Target::Ref(name.clone())), text: " Lovelace".into() }).await;
    ok(&p, &lease, BrowserAction::Click { target: Target::Ref(greet.clone()) }).await;
    let text =
        ok(&p, &lease, BrowserAction::Text { target: Some(Target::Selector("#out".into())), max_chars: 1000 }).await;
    assert!(content(&text).contains("\nHello, Ada Lovelace\n"), "{}", content(&text));

    // The DOM changes on click; console messages are captured.
    ok(&p, &lease, BrowserAction::Click { target: Target::Ref(add.clone()) }).await;
    ok(&p, &lease, BrowserAction::Wait { what: WaitFor::Selector("#added".into()), timeout: Duration::from_secs(5) })
        .await;
    let page = ok(&p, &lease, BrowserAction::Text { target: None, max_chars: 10_000 }).await;
    assert!(content(&page).contains("Added by click"), "{}", content(&page));
    let console = ok(&p, &lease, BrowserAction::Console { max_chars: 10_000 }).await;
    assert!(content(&console).contains("[log] greeted Ada Lovelace"), "{}", content(&console));
    assert!(content(&console).contains("[warn] added a paragraph"), "{}", content(&console));
    let again = ok(&p, &lease, BrowserAction::Console { max_chars: 10_000 }).await;
    assert!(again.summary.starts_with("0 console messages"), "{}", again.summary);

    // Select, then a new snapshot shows it; the old refs are stale and say what to do.
    ok(&p, &lease, BrowserAction::Select { target: Target::Selector("#color".into()), value: "Green".into() }).await;
    let snap2 = ok(&p, &lease, BrowserAction::Snapshot { max_lines: 400 }).await;
    let s2 = content(&snap2).to_string();
    let color = s2.lines().find(|l| l.contains("combobox \"Color\"")).unwrap_or_else(|| panic!("{s2}"));
    assert!(color.contains("[ref=s2e") && color.ends_with(": \"Green\""), "{s2}");
    assert!(s2.contains("Added by click"), "{s2}");
    let e = act(&p, &lease, BrowserAction::Click { target: Target::Ref(greet.clone()) }).await.unwrap_err();
    assert!(matches!(e, RigError::StaleRef(_)) && e.to_string().contains("take a new snapshot"), "{e}");
    let e = act(&p, &lease, BrowserAction::Click { target: Target::Selector("#nope".into()) }).await.unwrap_err();
    assert!(matches!(e, RigError::NotFound(_)) && e.to_string().contains("#nope"), "{e}");

    // Screenshot: the viewport's size, scaled to fit, with the red box where it is.
    let shot = ok(&p, &lease, BrowserAction::Screenshot { target: None }).await;
    let img = shot.image.as_ref().expect("an image");
    assert!(shot.summary.ends_with("; click with x, y takes points of this image)"), "{}", shot.summary);
    let (vw, vh) = lease.rig().display();
    assert_eq!((img.real_width, img.real_height), (vw, vh), "the capture is the viewport");
    assert!(img.width <= 1366 && img.height <= 768);
    let png = image::load_from_memory(&img.png).unwrap().to_rgb8();
    assert_eq!(png.dimensions(), (img.width, img.height));
    let at = |x: f64, y: f64| png.get_pixel((x * img.scale) as u32, (y * img.scale) as u32).0;
    assert_eq!(at(150.0, 400.0), [255, 0, 0], "inside the red box");
    assert_eq!(at(600.0, 150.0), [255, 255, 255], "the white page");
    let el = ok(&p, &lease, BrowserAction::Screenshot { target: Some(Target::Selector("#red".into())) }).await;
    let el_img = el.image.as_ref().unwrap();
    assert_eq!((el_img.real_width, el_img.real_height), (300, 200));
    let el_png = image::load_from_memory(&el_img.png).unwrap().to_rgb8();
    assert_eq!(el_png.get_pixel(150, 100).0, [255, 0, 0]);

    // A point of the (scaled) screenshot maps back to the real pixel it shows.
    ok(&p, &lease, BrowserAction::ClickAt { x: 150.0 * img.scale, y: 400.0 * img.scale }).await;
    let red =
        ok(&p, &lease, BrowserAction::Text { target: Some(Target::Selector("#red".into())), max_chars: 100 }).await;
    assert!(content(&red).contains("\nred clicked\n"), "{}", content(&red));
    // Clipboard: written and read back through the browser's own clipboard.
    let words = "clip: héllo wörld ✓";
    ok(&p, &lease, BrowserAction::ClipboardWrite { text: words.into() }).await;
    let clip = ok(&p, &lease, BrowserAction::ClipboardRead).await;
    assert!(content(&clip).contains(&format!("\n{words}\n")), "{}", content(&clip));
    assert!(content(&clip).starts_with("<untrusted-data source=\"clipboard\""));
    // Paste it into the page with a key press.
    ok(&p, &lease, BrowserAction::Fill { target: Target::Selector("#name".into()), text: String::new() }).await;
    ok(&p, &lease, BrowserAction::Press { target: Some(Target::Selector("#name".into())), key: "Control+v".into() })
        .await;
    let snap3 = ok(&p, &lease, BrowserAction::Snapshot { max_lines: 400 }).await;
    let name3 = content(&snap3).lines().find(|l| l.contains("textbox \"Name\"")).unwrap().to_string();
    assert!(name3.ends_with(&format!(": \"{words}\"")), "{}", content(&snap3));

    // Forms as pages write them: every control with its accessible name and value, refs
    // that act on it; nothing a person cannot see.
    ok(&p, &lease, BrowserAction::Navigate { url: format!("{home}forms") }).await;
    let forms = ok(&p, &lease, BrowserAction::Snapshot { max_lines: 400 }).await;
    let f = content(&forms).to_string();
    let line = |needle: &str| -> String {
        f.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("no '{needle}' in:\n{f}")).trim().to_string()
    };
    assert!(line("form \"Sign up\"").starts_with("- form \"Sign up\""), "{f}");
    let email = line("textbox \"Email\"");
    assert!(email.contains("[required]") && email.contains("[ref=") && email.ends_with(": \"ada@example.org\""), "{f}");
    assert!(line("textbox \"Bio\"").ends_with(": \"Counts engines\""), "{f}");
    let pw = line("textbox \"Password\"");
    assert!(pw.contains("[ref=") && !f.contains("secret-value"), "a password's value is never shown:\n{f}");
    assert!(line("textbox \"City\"").ends_with(": \"London\""), "{f}");
    assert!(line("searchbox \"Search the docs\"").contains("[ref="), "{f}");
    assert!(line("group \"Plan\"").starts_with("- group"), "{f}");
    assert!(line("radio \"Free\"").contains("[checked]"), "{f}");
    assert!(!line("radio \"Pro\"").contains("[checked]"), "{f}");
    assert!(line("checkbox \"I agree\"").contains("[ref="), "{f}");
    assert!(line("button \"Custom action\"").contains("[ref="), "{f}");
    assert!(line("button \"Create account\"").contains("[ref="), "{f}");
    assert!(line("group \"More\"").contains("[expanded=false]"), "{f}");
    assert!(line("button \"More\"").contains("[ref="), "{f}");
    for unseen in ["Hidden button", "Invisible text", "csrf", "Inside the details"] {
        assert!(!f.contains(unseen), "'{unseen}' is not on the page a person sees:\n{f}");
    }
    // The refs of wrapped controls act on them.
    let bio = ref_of(&f, "textbox \"Bio\"");
    ok(&p, &lease, BrowserAction::Fill { target: Target::Ref(bio), text: "Wrote the notes".into() }).await;
    let agree = ref_of(&f, "checkbox \"I agree\"");
    ok(&p, &lease, BrowserAction::Click { target: Target::Ref(agree) }).await;
    let after = ok(&p, &lease, BrowserAction::Snapshot { max_lines: 400 }).await;
    let a = content(&after);
    assert!(a.contains(": \"Wrote the notes\"") && a.contains("checkbox \"I agree\" [checked]"), "{a}");
    ok(&p, &lease, BrowserAction::Back).await;
    let snap3 = ok(&p, &lease, BrowserAction::Snapshot { max_lines: 400 }).await;

    // Link by ref, back, forward, waits.
    let e = act(&p, &lease, BrowserAction::Click { target: Target::Ref(link.clone()) }).await.unwrap_err();
    assert!(matches!(e, RigError::StaleRef(_)), "{e}");
    let link3 = ref_of(content(&snap3), "link \"Second page\"");
    let second = ok(&p, &lease, BrowserAction::Click { target: Target::Ref(link3.clone()) }).await;
    let second = if second.title == "Second page" {
        second
    } else {
        ok(
            &p,
            &lease,
            BrowserAction::Wait { what: WaitFor::Navigation(Some("/second".into())), timeout: Duration::from_secs(10) },
        )
        .await
    };
    assert!(second.url.ends_with("/second"), "{}", second.url);
    let e = act(&p, &lease, BrowserAction::Click { target: Target::Ref(link3) }).await.unwrap_err();
    assert!(matches!(e, RigError::StaleRef(_)) && e.to_string().contains("no longer on the page"), "{e}");
    let back = ok(&p, &lease, BrowserAction::Back).await;
    assert_eq!(back.url, home);
    let fwd = ok(&p, &lease, BrowserAction::Forward).await;
    assert!(fwd.url.ends_with("/second"));
    ok(&p, &lease, BrowserAction::Wait { what: WaitFor::Text("You made it".into()), timeout: Duration::from_secs(5) })
        .await;
    let e = act(
        &p,
        &lease,
        BrowserAction::Wait { what: WaitFor::Selector("#never".into()), timeout: Duration::from_millis(300) },
    )
    .await
    .unwrap_err();
    assert!(matches!(e, RigError::Timeout(_)) && e.to_string().contains("#never"), "{e}");
    ok(&p, &lease, BrowserAction::Reload).await;
    ok(&p, &lease, BrowserAction::Scroll { target: None, dx: 0, dy: 100 }).await;
    ok(&p, &lease, BrowserAction::Hover { target: Target::Selector("h1".into()) }).await;

    // Tabs.
    let opened = ok(&p, &lease, BrowserAction::Tabs(TabOp::Open(Some(home.clone())))).await;
    let tabs = opened.tabs.unwrap();
    assert_eq!(tabs.len(), 2, "{tabs:?}");
    assert!(tabs[1].current && tabs[1].title == "Fixture home", "{tabs:?}");
    let sw = ok(&p, &lease, BrowserAction::Tabs(TabOp::Switch(0))).await;
    assert!(sw.url.ends_with("/second"), "{}", sw.url);
    let closed = ok(&p, &lease, BrowserAction::Tabs(TabOp::Close(Some(1)))).await;
    assert_eq!(closed.tabs.unwrap().len(), 1);
    let e = act(&p, &lease, BrowserAction::Tabs(TabOp::Switch(5))).await.unwrap_err();
    assert!(e.to_string().contains("no tab 5"), "{e}");

    // Bad URLs are refused before the browser sees them.
    for bad in ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,<script>1</script>", "not a url"] {
        let e = act(&p, &lease, BrowserAction::Navigate { url: bad.into() }).await.unwrap_err();
        assert!(matches!(e, RigError::Invalid { field: "url", .. }), "{bad}: {e}");
    }

    // The same conversation reuses the rig; close removes every process and the profile.
    let again = acquire(&p, want("w", "c1", engine), BrowserOptions::new(engine)).await.unwrap();
    assert_eq!((again.id(), again.created), (lease.id(), false));
    let family = lease.rig().processes();
    assert!(family.len() >= 2, "a driver and a browser: {family:?}");
    p.close("w", lease.id()).await.unwrap();
    assert_eq!(settle(&groups).await, vec![], "processes left after rig_close");
    assert_eq!(cc_rigs::procs::pids_alive(&family), vec![], "descendants left after rig_close");
    assert!(!profile.exists(), "the profile folder is removed");
    assert!(p.list(None).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_scenario() {
    scenario(Engine::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firefox_scenario() {
    scenario(Engine::Firefox).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webkit_scenario() {
    scenario(Engine::Webkit).await;
}

/// Several rigs at once, kept apart by conversation and workspace; the limit; shutdown
/// leaves no process behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rigs_are_per_conversation_and_workspace_and_shutdown_leaves_nothing() {
    let port = crate::site::serve();
    let p = Arc::new(pool(3));
    let keys = [("w1", "c1"), ("w1", "c2"), ("w2", "c1")];
    let mut tasks = Vec::new();
    for (ws, conv) in keys {
        let p = p.clone();
        tasks.push(tokio::spawn(async move {
            let l = acquire(&p, want(ws, conv, Engine::Chromium), BrowserOptions::new(Engine::Chromium)).await.unwrap();
            let url = format!("http://127.0.0.1:{port}/{}", if conv == "c2" { "second" } else { "" });
            let o = ok(&p, &l, BrowserAction::Navigate { url }).await;
            (l.id().to_string(), o.title)
        }));
    }
    let mut ids = Vec::new();
    for t in tasks {
        ids.push(t.await.unwrap());
    }
    assert_eq!(ids[1].1, "Second page");
    let mut unique: Vec<&String> = ids.iter().map(|(id, _)| id).collect();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 3, "three conversations, three rigs");
    assert_eq!(p.list(Some("w1")).len(), 2);
    assert_eq!(p.list(Some("w2")).len(), 1);
    // Each rig kept its own page.
    let l = acquire(&p, want("w1", "c1", Engine::Chromium), BrowserOptions::new(Engine::Chromium)).await.unwrap();
    assert_eq!(l.id(), ids[0].0);
    assert_eq!(ok(&p, &l, BrowserAction::Reload).await.title, "Fixture home");
    let e = acquire(&p, want("w1", "c3", Engine::Chromium), BrowserOptions::new(Engine::Chromium)).await.unwrap_err();
    assert!(matches!(e, RigError::Limit(_)) && e.to_string().contains("rig_close"), "{e}");
    let groups = p.process_groups();
    assert_eq!(groups.len(), 3);
    assert!(groups_alive(&groups).len() >= 6, "drivers and browsers run: {:?}", groups_alive(&groups));
    p.shutdown();
    assert_eq!(settle(&groups).await, vec![], "processes left after shutdown");
    let e = acquire(&p, want("w1", "c1", Engine::Chromium), BrowserOptions::new(Engine::Chromium)).await.unwrap_err();
    assert!(matches!(e, RigError::ShutDown));
}

/// A driver killed under a rig: the next action fails and marks the rig failed (the
/// browser it leaves is killed with the group); the next call starts a new rig and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_driver_fails_the_rig_and_the_next_call_replaces_it() {
    let port = crate::site::serve();
    let p = pool(2);
    let l = acquire(&p, want("w", "c", Engine::Chromium), BrowserOptions::new(Engine::Chromium)).await.unwrap();
    ok(&p, &l, BrowserAction::Navigate { url: format!("http://127.0.0.1:{port}/") }).await;
    let pgid = p.process_groups()[0];
    // The group leader is the driver: kill it alone, as a crash would.
    rustix::process::kill_process(rustix::process::Pid::from_raw(pgid).unwrap(), rustix::process::Signal::KILL)
        .unwrap();
    let e = act(&p, &l, BrowserAction::Reload).await.unwrap_err();
    assert!(matches!(e, RigError::Dead(_)) && e.to_string().contains("next call starts a new rig"), "{e}");
    assert_eq!(p.list(None)[0].status, cc_rigs::pool::Status::Failed);
    let l2 = acquire(&p, want("w", "c", Engine::Chromium), BrowserOptions::new(Engine::Chromium)).await.unwrap();
    assert!(l2.created);
    assert_eq!(l2.replaced.as_ref().unwrap().0, l.id());
    assert_eq!(settle(&[pgid]).await, vec![], "the dead driver's browser was killed");
    assert_eq!(
        ok(&p, &l2, BrowserAction::Navigate { url: format!("http://127.0.0.1:{port}/second") }).await.title,
        "Second page"
    );
    p.shutdown();
    assert_eq!(settle(&p.process_groups()).await, vec![]);
}

/// Allowed origins hold for navigation and for redirects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_origins_hold_for_navigation_and_redirects() {
    let port = crate::site::serve();
    let p = pool(2);
    let mut opts = BrowserOptions::new(Engine::Chromium);
    opts.allowed_origins = Some(vec![format!("http://127.0.0.1:{port}")]);
    let l = acquire(&p, want("w", "c", Engine::Chromium), opts).await.unwrap();
    ok(&p, &l, BrowserAction::Navigate { url: format!("http://127.0.0.1:{port}/") }).await;
    let e = act(&p, &l, BrowserAction::Navigate { url: format!("http://localhost:{port}/") }).await.unwrap_err();
    assert!(matches!(e, RigError::Blocked(_)) && e.to_string().contains("not in this rig's allowed origins"), "{e}");
    let e = act(&p, &l, BrowserAction::Navigate { url: format!("http://127.0.0.1:{port}/redirect-out") })
        .await
        .unwrap_err();
    assert!(matches!(e, RigError::Blocked(_)) && e.to_string().contains("about:blank"), "{e}");
    let o = ok(&p, &l, BrowserAction::Tabs(TabOp::List)).await;
    assert_eq!(o.url, "about:blank");
    p.shutdown();
}
