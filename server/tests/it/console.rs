//! The operator console (`/ui`): its refusals over plain HTTP (no token, a wrong token, a form
//! without its CSRF token or with another's, a foreign Origin, a wrong Host, a server without
//! an operator token), and a person's session in real Chromium — log in with the operator
//! token, approve a tool call waiting in the queue and see the same MCP call run, ask the board
//! for a revision, open a ticket from the board, watch a message arrive live — with a
//! screenshot of every page kept in `$CARGO_TARGET_DIR/test-artifacts/console/`.

use std::sync::Arc;
use std::time::Duration;

use cc_rigs::browser::{BrowserAction, BrowserOptions, BrowserRig, Engine, Target, WaitFor};
use cc_rigs::Rig;
use cc_server::agents::admin::{self, AgentSpec};
use cc_server::app::App;
use cc_server::config::Config;
use cc_server::mcp::http::{HttpOptions, MAX_BODY};
use cc_server::mcp::principal::Principals;
use cc_server::mcp::sessions::SessionLimits;
use cc_server::mcp::surface::{ExtraSet, Surface};
use cc_server::store::agents::Ended;
use cc_server::store::reviews::{Cohort, NewNode, NewReview, NodePriority, Verdict};
use cc_server::store::{
    Actor, BoardKind, Family, NewTicket, RelationKind, Run, RunStatus, RuntimeProfile, Sender, SpaceKind, TicketStatus,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::common::{shop_fixture, Fixture, Mcp};

const OPERATOR: &str = "operator-secret-console";

fn surface() -> Surface {
    Surface::parse_with(Some("default,conformance"), &[ExtraSet { name: "conformance", explicit_only: true }]).unwrap()
}

/// Serves `app` on 127.0.0.1 with `operator` as the operator token; the base URL.
async fn serve(app: &Arc<App>, operator: Option<&str>) -> (String, CancellationToken) {
    let opts = HttpOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        principals: Principals::default(),
        operator_token: operator.map(str::to_string),
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
        max_body: MAX_BODY,
        sessions: SessionLimits::default(),
    };
    let stop = CancellationToken::new();
    let router = cc_server::mcp::http::router(app.clone(), surface(), &opts, stop.clone());
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

fn http() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// The value of cookie `name` among a response's Set-Cookie headers, and the whole header.
fn set_cookie(r: &reqwest::Response, name: &str) -> Option<(String, String)> {
    r.headers().get_all("set-cookie").iter().filter_map(|v| v.to_str().ok()).find_map(|v| {
        let first = v.split(';').next()?;
        let (k, val) = first.split_once('=')?;
        (k == name).then(|| (val.to_string(), v.to_string()))
    })
}

/// The value of the hidden field `name` in a page.
fn hidden(html: &str, name: &str) -> Option<String> {
    let at = html.find(&format!("name=\"{name}\" value=\""))?;
    let rest = &html[at + name.len() + 15..];
    Some(rest[..rest.find('"')?].to_string())
}

/// Logs in over plain HTTP: the session cookie's value and the page's CSRF token.
async fn login(base: &str) -> (String, String) {
    let c = http();
    let r = c.get(format!("{base}/ui/login")).send().await.unwrap();
    let (nonce, _) = set_cookie(&r, "cc_console_login").expect("the login form's cookie");
    let form = r.text().await.unwrap();
    assert_eq!(hidden(&form, "csrf").as_deref(), Some(nonce.as_str()));
    let r = c
        .post(format!("{base}/ui/login"))
        .header("cookie", format!("cc_console_login={nonce}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("csrf={nonce}&next=%2Fui&token={OPERATOR}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    let (session, header) = set_cookie(&r, "cc_console").expect("a session cookie");
    for attr in ["HttpOnly", "SameSite=Strict", "Path=/ui"] {
        assert!(header.contains(attr), "{attr} in {header}");
    }
    let page = c.get(format!("{base}/ui")).header("cookie", format!("cc_console={session}")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    let csrf = hidden(&page.text().await.unwrap(), "csrf").expect("a CSRF token in the page's forms");
    (session, csrf)
}

/// A workspace with something on every page: agents in a chart (one with a heartbeat, one with
/// runs), tickets in several statuses with a relation and a comment, a board approval, an
/// artifact. Returns (the ticket with the relation's key, its space, the board approval's id).
async fn seed(app: &Arc<App>) -> (String, String, String) {
    let store = &app.services.store;
    let mut config = Config::default();
    config.runtimes.allow = vec!["python3".into()];
    let profile = RuntimeProfile {
        id: RuntimeProfile::new_id(),
        workspace_id: "default".into(),
        name: "py".into(),
        family: Family::McpCli,
        command: String::new(),
        args: Vec::new(),
        wake_on_message: false,
        timeout_secs: 60,
        created_by: "operator".into(),
        created_at: 0,
    };
    admin::add_profile(store, &config, profile, &["python3".into(), "agent.py".into()]).await.unwrap();
    let spec = |boss: Option<&str>, what: &str| AgentSpec {
        runtime: Some("py".into()),
        reports_to: boss.map(|b| Some(b.to_string())),
        description: Some(what.into()),
        ..AgentSpec::default()
    };
    let (lead, _) = admin::add(store, &config, "default", "lead", spec(None, "Plans the release")).await.unwrap();
    let (dev, _) =
        admin::add(store, &config, "default", "dev", spec(Some("lead"), "Writes the importer")).await.unwrap();
    admin::add(store, &config, "default", "tester", spec(Some("lead"), "Runs the suites")).await.unwrap();
    store.agents().heartbeat(&dev.id, "active", Some("parsing the fixtures")).await.unwrap();
    for (i, status) in [RunStatus::Queued, RunStatus::Done].into_iter().enumerate() {
        let run = Run {
            id: format!("run-console-{i}"),
            workspace_id: "default".into(),
            agent_id: dev.id.clone(),
            status: RunStatus::Queued,
            reason: "manual".into(),
            brief: "Import the fixtures".into(),
            space_id: None,
            message_id: None,
            ticket_id: None,
            created_at: cc_server::store::now() - 60 * (i as i64 + 1),
            started_at: None,
            ended_at: None,
            host: None,
            server_pid: None,
            server_started: None,
            pid: None,
            proc_started: None,
            exit_code: None,
            error: None,
            log_tail: None,
            kept: Vec::new(),
        };
        store.agents().add_run(&run, &format!("hash-{i}")).await.unwrap();
        if status == RunStatus::Done {
            let end = Ended {
                status,
                exit_code: Some(0),
                error: None,
                log_tail: Some("importing 12 fixtures\nok: 12 imported\n".into()),
                kept: Vec::new(),
            };
            store.agents().end_run(&run.id, &end).await.unwrap();
        }
    }
    let new = |title: &str, status: Option<TicketStatus>| NewTicket {
        title: title.into(),
        description: "The importer must read **every** fixture.\n\n- CSV\n- JSON".into(),
        status,
        assignee_id: Some(dev.id.clone()),
        creator: "operator".into(),
        ..NewTicket::default()
    };
    let tickets = store.tickets();
    let main = tickets.create("default", new("Import the fixtures", Some(TicketStatus::InProgress))).await.unwrap();
    let blocker = tickets.create("default", new("Pin the CSV parser", None)).await.unwrap();
    tickets.create("default", new("Write the release notes", Some(TicketStatus::Done))).await.unwrap();
    tickets.create("default", new("Review the schema", Some(TicketStatus::InReview))).await.unwrap();
    tickets.relate("default", &main.id, RelationKind::BlockedBy, &blocker.id, "operator").await.unwrap();
    let lead_sender = Sender { kind: "agent".into(), name: "lead".into(), agent_id: Some(lead.id.clone()) };
    store.spaces().post(&main.space_id, &lead_sender, "Started on the CSV fixtures.", None).await.unwrap();
    let by = Actor { id: dev.id.clone(), name: "dev".into() };
    let board = store
        .board()
        .create(
            "default",
            BoardKind::Merge,
            "Merge the importer",
            &json!({"branch": "importer", "files": 4}),
            &by,
            None,
        )
        .await
        .unwrap();
    let blocks = json!([
        {"type": "markdown", "text": "## Import report\n\n12 fixtures imported, **0** failed."},
        {"type": "table", "columns": ["Fixture", "Rows"], "rows": [["users.csv", 120], ["orders.json", 48]]}
    ]);
    store.artifacts().create("default", "Import report", &blocks, "dev").await.unwrap();
    // A review with an area, findings of two priorities (entered P2 first) and a verdict.
    let review_space = store.spaces().create("default", SpaceKind::Review, "review: shop", &[]).await.unwrap();
    let area = Cohort {
        area: "shop.cart".into(),
        modules: vec!["shop.cart".into()],
        files: vec!["shop/cart.py".into()],
        symbols: Vec::new(),
        callers: 3,
        caller_files: vec!["shop/api.py".into()],
        summary: None,
        summary_by: None,
    };
    let review = store
        .reviews()
        .create(NewReview {
            workspace: "default",
            repo: "shop",
            base_rev: "main",
            head_rev: "importer",
            base_sha: "1111111111111111111111111111111111111111",
            head_sha: "2222222222222222222222222222222222222222",
            pr: Some(7),
            space_id: &review_space.id,
            walkthrough: &json!([]),
            cohorts: &[area],
            by: &by,
        })
        .await
        .unwrap();
    for (priority, title) in
        [(NodePriority::P2, "Name the retry constant"), (NodePriority::P0, "Checkout charges twice")]
    {
        let node = NewNode {
            area: "shop.cart",
            file: "shop/cart.py",
            line: 4,
            priority,
            title,
            body: "charge() runs again when the payment retries.",
            suppression_key: title,
            suppressed_by: None,
        };
        store.reviews().add_node(&review.id, node, &by).await.unwrap();
    }
    store.reviews().submit_verdict(&review.id, Verdict::Block, 0.9, "Double charge on retry.", &by).await.unwrap();
    (main.key, main.space_id, board.id)
}

fn test_artifacts() -> std::path::PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().to_path_buf());
    let dir = target.join("test-artifacts").join("console");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fixture() -> Fixture {
    shop_fixture(
        &[(
            "shop/cart.py",
            "class Cart:\n    def checkout(self, payment):\n        \"\"\"Charge the payment and empty the cart.\"\"\"\n        return charge(payment)\n\n\ndef charge(payment):\n    return payment\n",
        )],
        true,
    )
}

#[test]
fn the_console_refuses_what_is_not_the_operators() {
    let f = fixture();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let (base, stop) = serve(&f.app, Some(OPERATOR)).await;
        let c = http();
        // No token: the login form, 401, and nothing of the page.
        let r = c.get(format!("{base}/ui")).send().await.unwrap();
        assert_eq!(r.status(), 401);
        let body = r.text().await.unwrap();
        assert!(body.contains("name=\"token\"") && !body.contains("Waiting for a decision"), "{body}");
        let r = c.get(format!("{base}/ui/tickets")).bearer_auth("not-the-token").send().await.unwrap();
        assert_eq!(r.status(), 401);
        let r = c.get(format!("{base}/ui/tickets")).header("cookie", "cc_console=forged").send().await.unwrap();
        assert_eq!(r.status(), 401);
        // The operator token as a bearer is the operator.
        let r = c.get(format!("{base}/ui")).bearer_auth(OPERATOR).send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert!(r.headers()["content-security-policy"].to_str().unwrap().contains("script-src 'self'"));
        assert!(r.text().await.unwrap().contains("Waiting for a decision"));

        // Every page answers the operator.
        seed(&f.app).await;
        for path in [
            "/ui",
            "/ui/tickets",
            "/ui/tickets?status=open",
            "/ui/tickets/T-1",
            "/ui/approvals",
            "/ui/agents",
            "/ui/spaces",
            "/ui/artifacts",
            "/ui/reviews",
            "/ui/code",
            "/ui/code?q=checkout",
            "/ui/runs/run-console-1",
        ] {
            let t = std::time::Instant::now();
            let r = c.get(format!("{base}{path}")).bearer_auth(OPERATOR).send().await.unwrap();
            let status = r.status();
            let body = r.text().await.unwrap();
            eprintln!("{path}: {status} in {:?}", t.elapsed());
            assert_eq!(status, 200, "{path}: {body}");
        }

        // The login: its own CSRF token, then the operator token.
        let r = c.get(format!("{base}/ui/login")).send().await.unwrap();
        let (nonce, _) = set_cookie(&r, "cc_console_login").unwrap();
        let post_login = |cookie: String, body: String| {
            let c = c.clone();
            let base = base.clone();
            async move {
                c.post(format!("{base}/ui/login"))
                    .header("cookie", cookie)
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(body)
                    .send()
                    .await
                    .unwrap()
            }
        };
        let r = post_login(format!("cc_console_login={nonce}"), format!("csrf=other&token={OPERATOR}")).await;
        assert_eq!(r.status(), 403, "a login form without its CSRF token");
        let r = post_login(String::new(), format!("csrf={nonce}&token={OPERATOR}")).await;
        assert_eq!(r.status(), 403, "a login form without its cookie");
        let r = post_login(format!("cc_console_login={nonce}"), format!("csrf={nonce}&token=guess")).await;
        assert_eq!(r.status(), 401);
        assert!(set_cookie(&r, "cc_console").is_none());
        let (session, csrf) = login(&base).await;

        // A waiting tool call, decided by forms.
        let mut mcp = Mcp::connect(&base, "console-test").await;
        let out = mcp.call("test_approval_counter", json!({"key": "plain"})).await;
        assert_eq!(out["isError"], true, "{out}");
        let id =
            out["structuredContent"]["data"]["approval_id"].as_str().unwrap_or_else(|| panic!("{out}")).to_string();
        let decide =
            |cookie: Option<String>, origin: Option<&'static str>, host: Option<&'static str>, body: String| {
                let c = c.clone();
                let url = format!("{base}/ui/approvals/{id}/decide");
                async move {
                    let mut r = c.post(url).header("content-type", "application/x-www-form-urlencoded").body(body);
                    if let Some(k) = cookie {
                        r = r.header("cookie", k);
                    }
                    if let Some(o) = origin {
                        r = r.header("origin", o);
                    }
                    if let Some(h) = host {
                        r = r.header("host", h);
                    }
                    r.send().await.unwrap()
                }
            };
        let cookie = Some(format!("cc_console={session}"));
        let r = decide(None, None, None, format!("csrf={csrf}&decision=approve")).await;
        assert_eq!(r.status(), 401, "a form without the session");
        let r = decide(cookie.clone(), None, None, "decision=approve".into()).await;
        assert_eq!(r.status(), 403, "a form without its CSRF token");
        assert!(r.text().await.unwrap().contains("CSRF"));
        let r = decide(cookie.clone(), None, None, "csrf=0123&decision=approve".into()).await;
        assert_eq!(r.status(), 403, "a form with another CSRF token");
        let r =
            decide(cookie.clone(), Some("http://evil.example"), None, format!("csrf={csrf}&decision=approve")).await;
        assert_eq!(r.status(), 403, "a foreign Origin");
        let r = decide(cookie.clone(), None, Some("evil.example"), format!("csrf={csrf}&decision=approve")).await;
        assert_eq!(r.status(), 403, "a foreign Host");
        let store = &f.app.services.store;
        assert_eq!(
            store.approvals().get(&id).await.unwrap().unwrap().status.as_str(),
            "pending",
            "nothing refused decided it"
        );
        let r = decide(
            cookie.clone(),
            Some("http://localhost"),
            None,
            format!("csrf={csrf}&decision=reject&reason=not+now"),
        )
        .await;
        assert_eq!(r.status(), 303);
        let a = store.approvals().get(&id).await.unwrap().unwrap();
        assert_eq!((a.status.as_str(), a.reason.as_deref()), ("rejected", Some("not now")));
        let r = decide(cookie.clone(), None, None, format!("csrf={csrf}&decision=approve")).await;
        assert_eq!(r.status(), 409, "decided already");
        let out = mcp.call("test_approval_counter", json!({"key": "plain"})).await;
        assert!(out.to_string().contains("rejected"), "{out}");

        // Logged out, the cookie is nothing.
        let r = c
            .post(format!("{base}/ui/logout"))
            .header("cookie", format!("cc_console={session}"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("csrf={csrf}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 303);
        let r = c.get(format!("{base}/ui")).header("cookie", format!("cc_console={session}")).send().await.unwrap();
        assert_eq!(r.status(), 401);
        stop.cancel();

        // Without --operator-token there is no console, and it says why.
        let (base, stop) = serve(&f.app, None).await;
        let r = c.get(format!("{base}/ui")).send().await.unwrap();
        assert_eq!(r.status(), 404);
        assert!(r.text().await.unwrap().contains("--operator-token"));
        stop.cancel();
    });
}

/// One step of the browser: panics with what went wrong.
async fn act(rig: &BrowserRig, a: BrowserAction) -> cc_rigs::browser::ActOutput {
    let what = format!("{a:?}");
    rig.act(a).await.unwrap_or_else(|e| panic!("{what}: {e}"))
}

async fn wait_for(rig: &BrowserRig, what: WaitFor) {
    act(rig, BrowserAction::Wait { what, timeout: Duration::from_secs(15) }).await;
}

async fn text(rig: &BrowserRig, selector: &str) -> String {
    let out =
        act(rig, BrowserAction::Text { target: Some(Target::Selector(selector.into())), max_chars: 200_000 }).await;
    out.content.unwrap().fenced
}

async fn click(rig: &BrowserRig, selector: &str) {
    act(rig, BrowserAction::Click { target: Target::Selector(selector.into()) }).await;
}

async fn shot(rig: &BrowserRig, name: &str) {
    let out = act(rig, BrowserAction::Screenshot { target: None }).await;
    let png = out.image.unwrap().png;
    assert!(png.starts_with(b"\x89PNG"));
    let path = test_artifacts().join(format!("{name}.png"));
    std::fs::write(&path, &png).unwrap();
    eprintln!("screenshot: {}", path.display());
}

#[test]
fn an_operator_decides_in_chromium_and_sees_it_live() {
    let f = fixture();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let (ticket, space, board) = seed(&f.app).await;
        let (base, stop) = serve(&f.app, Some(OPERATOR)).await;
        let mut mcp = Mcp::connect(&base, "console-test").await;
        let out = mcp.call("test_approval_counter", json!({"key": "console"})).await;
        assert_eq!(out["isError"], true, "{out}");
        let id =
            out["structuredContent"]["data"]["approval_id"].as_str().unwrap_or_else(|| panic!("{out}")).to_string();

        let mut opts = BrowserOptions::new(Engine::Chromium);
        (opts.width, opts.height) = (1366, 1000);
        let rig = BrowserRig::launch(opts).await.unwrap_or_else(|e| {
            panic!("chromium and chromedriver are needed (apt install chromium chromium-driver): {e}")
        });
        // Log in with the operator token.
        act(&rig, BrowserAction::Navigate { url: format!("{base}/ui") }).await;
        wait_for(&rig, WaitFor::Selector("#token".into())).await;
        shot(&rig, "login").await;
        act(&rig, BrowserAction::Fill { target: Target::Selector("#token".into()), text: OPERATOR.into() }).await;
        click(&rig, "#login").await;
        wait_for(&rig, WaitFor::Selector("#pending".into())).await;
        let overview = text(&rig, "main").await;
        for seen in [
            "Waiting for a decision",
            "test_approval_counter",
            "Merge the importer",
            "lead",
            "dev",
            "Started on the CSV fixtures.",
        ] {
            assert!(overview.contains(seen), "{seen:?} not on the overview:\n{overview}");
        }
        shot(&rig, "overview").await;

        // Approve the waiting call: the same call then runs, once.
        click(&rig, "header nav a[href^='/ui/approvals']").await;
        wait_for(&rig, WaitFor::Selector(format!("[id='{id}']"))).await;
        shot(&rig, "approvals").await;
        click(&rig, &format!("[id='{id}'] button[value=approve]")).await;
        wait_for(&rig, WaitFor::Text("No tool call waits.".into())).await;
        let decided = text(&rig, "#calls-decided").await;
        assert!(decided.contains("test_approval_counter") && decided.contains("approved"), "{decided}");
        let out = mcp.call("test_approval_counter", json!({"key": "console"})).await;
        assert_ne!(out["isError"], true, "the approved call runs: {out}");
        let again = mcp.call("test_approval_counter", json!({"key": "console"})).await;
        assert_eq!(again["isError"], true, "an approval runs its call once: {again}");
        // That refused call waits for approval again: the page shows it live (and has swapped
        // its content before the note is typed).
        wait_for(&rig, WaitFor::Selector("#calls .approval.waiting[data-tool=test_approval_counter]".into())).await;
        // The board: ask for a revision, with a note.
        act(
            &rig,
            BrowserAction::Fill {
                target: Target::Selector(format!("[id='{board}'] input[name=note]")),
                text: "Split the commit".into(),
            },
        )
        .await;
        click(&rig, &format!("[id='{board}'] button[value=request_revision]")).await;
        wait_for(&rig, WaitFor::Text("revision requested".into())).await;
        let a = f.app.services.store.board().get(&board).await.unwrap().unwrap();
        assert_eq!(a.status.as_str(), "revision_requested");
        let events = f.app.services.store.board().events(&board).await.unwrap();
        assert_eq!(events.last().unwrap().note.as_deref(), Some("Split the commit"));

        // A new waiting call appears on the approvals page without a reload.
        act(&rig, BrowserAction::Navigate { url: format!("{base}/ui/approvals") }).await;
        wait_for(&rig, WaitFor::Selector("#live.on".into())).await;
        let out = mcp.call("test_approval_counter", json!({"key": "live"})).await;
        let live_id = out["structuredContent"]["data"]["approval_id"].as_str().unwrap().to_string();
        wait_for(&rig, WaitFor::Selector(format!("[id='{live_id}']"))).await;
        shot(&rig, "approvals-live").await;

        // The tickets board, then a ticket with its relation and comment.
        click(&rig, "header nav a[href^='/ui/tickets']").await;
        wait_for(&rig, WaitFor::Selector("#col-in_progress".into())).await;
        let col = text(&rig, "#col-in_progress").await;
        assert!(col.contains("Import the fixtures"), "{col}");
        shot(&rig, "tickets").await;
        click(&rig, "#col-in_progress a.ticket-card").await;
        wait_for(&rig, WaitFor::Selector("#relations".into())).await;
        let page = text(&rig, "main").await;
        for seen in [
            ticket.as_str(),
            "Import the fixtures",
            "blocked by",
            "Pin the CSV parser",
            "Started on the CSV fixtures.",
            "every",
        ] {
            assert!(page.contains(seen), "{seen:?} not on the ticket page:\n{page}");
        }
        shot(&rig, "ticket").await;

        // A message arrives live in its space.
        act(&rig, BrowserAction::Navigate { url: format!("{base}/ui/spaces/{space}") }).await;
        wait_for(&rig, WaitFor::Selector("#live.on".into())).await;
        let sent = mcp
            .call(
                "send_message",
                json!({"workspace_id": "default", "space_id": space, "text": "The CSV fixtures are in."}),
            )
            .await;
        assert_ne!(sent["isError"], true, "{sent}");
        wait_for(&rig, WaitFor::Text("The CSV fixtures are in.".into())).await;
        let msgs = text(&rig, "#messages").await;
        let (new, old) =
            (msgs.find("The CSV fixtures are in.").unwrap(), msgs.find("Started on the CSV fixtures.").unwrap());
        assert!(new < old, "newest first: {msgs}");
        shot(&rig, "space-live").await;

        // The other pages.
        for (nav, ready, name, seen) in [
            ("/ui/agents", "#org", "agents", "Writes the importer"),
            ("/ui/spaces", "main table", "spaces", "ticket"),
            ("/ui/artifacts", "main table", "artifacts", "Import report"),
            ("/ui/reviews", "main table", "reviews", "PR #7"),
            ("/ui/code", "#repos", "code", "shop"),
        ] {
            click(&rig, &format!("header nav a[href^='{nav}']")).await;
            wait_for(&rig, WaitFor::Selector(ready.into())).await;
            let t = text(&rig, "main").await;
            assert!(t.contains(seen), "{seen:?} not on {nav}:\n{t}");
            shot(&rig, name).await;
        }
        // A review: findings by priority (P0 first), the verdict.
        click(&rig, "header nav a[href^='/ui/reviews']").await;
        wait_for(&rig, WaitFor::Selector("main table a".into())).await;
        click(&rig, "main table a").await;
        wait_for(&rig, WaitFor::Selector("#findings".into())).await;
        let t = text(&rig, "#findings").await;
        let (p0, p2) = (t.find("Checkout charges twice"), t.find("Name the retry constant"));
        assert!(p0.is_some() && p2.is_some() && p0 < p2, "P0 first: {t}");
        assert!(text(&rig, "#verdicts").await.contains("Double charge on retry."));
        assert!(text(&rig, "main").await.contains("shop.cart"), "the area is shown");
        shot(&rig, "review").await;
        click(&rig, "header nav a[href^='/ui/agents']").await;
        wait_for(&rig, WaitFor::Selector("#org".into())).await;
        click(&rig, "#org a[href*='/ui/agents/']").await;
        wait_for(&rig, WaitFor::Selector("#agent".into())).await;
        shot(&rig, "agent").await;
        act(&rig, BrowserAction::Navigate { url: format!("{base}/ui/runs/run-console-1") }).await;
        wait_for(&rig, WaitFor::Selector("#log".into())).await;
        assert!(text(&rig, "#log").await.contains("ok: 12 imported"));
        shot(&rig, "run").await;
        click(&rig, "header nav a[href^='/ui/artifacts']").await;
        click(&rig, "main table a").await;
        wait_for(&rig, WaitFor::Selector("#artifact".into())).await;
        let t = text(&rig, "#artifact").await;
        assert!(t.contains("12 fixtures imported") && t.contains("orders.json"), "{t}");
        shot(&rig, "artifact").await;
        act(&rig, BrowserAction::Navigate { url: format!("{base}/ui/code?q=checkout") }).await;
        wait_for(&rig, WaitFor::Selector("#search table".into())).await;
        assert!(text(&rig, "#search").await.contains("Cart.checkout"));
        shot(&rig, "code-search").await;
        rig.close().await;
        stop.cancel();
    });
}
