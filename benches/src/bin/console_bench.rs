//! The operator console's overview (`GET /ui`) with a workspace of `--tickets` tickets and
//! `--agents` agents (a chart three levels deep, one in three with a heartbeat, one in five
//! with a queued run), a pending tool-call approval and a few hundred messages: time to
//! first byte (the request written on a fresh connection to the first byte of the answer)
//! and full load (the whole HTML page, then its stylesheet and its script, as a browser
//! loads them), over loopback to the real router (guard, session cookie, store).
//!
//! ```text
//! console_bench [--tickets 10000] [--agents 100] [--samples 200] [--postgres ADMIN_URL]
//! ```
//!
//! Prints `key=value` lines.

use std::time::Instant;

use cc_benches::{percentile, BenchStore};
use cc_indexer::DataDir;
use cc_server::agents::admin::{self, AgentSpec};
use cc_server::mcp::http::{HttpOptions, MAX_BODY};
use cc_server::mcp::principal::Principals;
use cc_server::mcp::sessions::SessionLimits;
use cc_server::store::{Family, NewTicket, Run, RunStatus, RuntimeProfile, Sender, SpaceKind, Store};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const OPERATOR: &str = "operator-secret-bench";

fn usage() -> ! {
    eprintln!("usage: console_bench [--tickets N] [--agents N] [--samples N] [--postgres ADMIN_URL]");
    std::process::exit(2)
}

fn main() {
    let (mut tickets, mut agents, mut samples, mut postgres) = (10_000usize, 100usize, 200usize, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        let num = |v: String| v.parse::<usize>().unwrap_or_else(|_| usage());
        match a.as_str() {
            "--tickets" => tickets = num(val()),
            "--agents" => agents = num(val()),
            "--samples" => samples = num(val()).max(1),
            "--postgres" => postgres = Some(val()),
            _ => usage(),
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    rt.block_on(async {
        let db = BenchStore::open("console", postgres.as_deref()).await;
        run(&db.store, tickets, agents, samples).await;
        db.close().await;
    });
}

async fn fill(store: &Store, tickets: usize, agents: usize) {
    let t = Instant::now();
    let mut config = cc_server::config::Config::default();
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
        created_by: "bench".into(),
        created_at: 0,
    };
    admin::add_profile(store, &config, profile, &["python3".into(), "agent.py".into()]).await.expect("profile");
    let mut ids = Vec::new();
    for i in 0..agents {
        // agent 0 leads; 1..10 report to it; the rest to one of those.
        let boss = match i {
            0 => None,
            1..=9 => Some("agent-0".to_string()),
            _ => Some(format!("agent-{}", 1 + i % 9)),
        };
        let spec = AgentSpec {
            runtime: Some("py".into()),
            reports_to: boss.map(Some),
            description: Some(format!("agent {i} of the bench")),
            ..AgentSpec::default()
        };
        let (a, _) = admin::add(store, &config, "default", &format!("agent-{i}"), spec).await.expect("agent");
        if i % 3 == 0 {
            store.agents().heartbeat(&a.id, "active", None).await.expect("heartbeat");
        }
        if i % 5 == 0 {
            let run = Run {
                id: format!("run-bench-{i}"),
                workspace_id: "default".into(),
                agent_id: a.id.clone(),
                status: RunStatus::Queued,
                reason: "manual".into(),
                brief: "bench".into(),
                space_id: None,
                message_id: None,
                ticket_id: None,
                created_at: cc_server::store::now(),
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
            store.agents().add_run(&run, &format!("bench-{i}")).await.expect("run");
        }
        ids.push(a.id);
    }
    let statuses = ["open", "in_progress", "blocked", "in_review", "done"];
    let mut tasks = Vec::new();
    let per_task = tickets.div_ceil(4);
    for w in 0..4 {
        let (store, ids) = (store.clone(), ids.clone());
        let (from, to) = (w * per_task, ((w + 1) * per_task).min(tickets));
        tasks.push(tokio::spawn(async move {
            for i in from..to {
                let n = NewTicket {
                    title: format!("ticket {i}: the checkout page times out under load"),
                    description: "Steps: open the cart, pay. Expected: a receipt. Seen: a 504.".into(),
                    status: cc_server::store::TicketStatus::parse_input(statuses[i % statuses.len()]).ok(),
                    assignee_id: (!ids.is_empty()).then(|| ids[i % ids.len()].clone()),
                    creator: "bench".into(),
                    ..NewTicket::default()
                };
                store.tickets().create("default", n).await.expect("create");
            }
        }));
    }
    for t in tasks {
        t.await.expect("a filler");
    }
    let space = store.spaces().create("default", SpaceKind::Free, "general", &[]).await.expect("space");
    let sender = Sender { kind: "principal".into(), name: "bench".into(), agent_id: None };
    for i in 0..300 {
        store.spaces().post(&space.id, &sender, &format!("message {i}"), None).await.expect("post");
    }
    println!("fill_secs={:.1} tickets={tickets} agents={agents}", t.elapsed().as_secs_f64());
}

/// One GET on a fresh connection: (first byte, whole answer) in ms, and the answer's length.
async fn get(addr: std::net::SocketAddr, path: &str, cookie: &str) -> (f64, f64, usize) {
    let t = Instant::now();
    let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
    s.set_nodelay(true).expect("nodelay");
    let req =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: cc_console={cookie}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.expect("write");
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = Vec::new();
    let n = s.read(&mut buf).await.expect("read");
    let first = t.elapsed().as_secs_f64() * 1e3;
    total.extend_from_slice(&buf[..n]);
    loop {
        let n = s.read(&mut buf).await.expect("read");
        if n == 0 {
            break;
        }
        total.extend_from_slice(&buf[..n]);
    }
    let all = t.elapsed().as_secs_f64() * 1e3;
    assert!(total.starts_with(b"HTTP/1.1 200"), "{path}: {}", String::from_utf8_lossy(&total[..total.len().min(300)]));
    (first, all, total.len())
}

/// Logs in as a browser does: the session cookie's value.
async fn login(addr: std::net::SocketAddr) -> String {
    let send = |req: String| async move {
        let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
        s.write_all(req.as_bytes()).await.expect("write");
        let mut out = String::new();
        s.read_to_string(&mut out).await.expect("read");
        out
    };
    let page = send("GET /ui/login HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".into()).await;
    let nonce = page.split("cc_console_login=").nth(1).and_then(|r| r.split(';').next()).expect("the login cookie");
    let body = format!("csrf={nonce}&next=%2Fui&token={OPERATOR}");
    let answer = send(format!(
        "POST /ui/login HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: cc_console_login={nonce}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ))
    .await;
    answer.split("cc_console=").nth(1).and_then(|r| r.split(';').next()).expect("a session cookie").to_string()
}

fn report(label: &str, ms: &mut [f64]) {
    ms.sort_by(f64::total_cmp);
    println!(
        "{label} samples={} p50_ms={:.2} p95_ms={:.2} p99_ms={:.2} max_ms={:.2}",
        ms.len(),
        percentile(ms, 50.0),
        percentile(ms, 95.0),
        percentile(ms, 99.0),
        ms.last().copied().unwrap_or(0.0)
    );
}

async fn run(store: &Store, tickets: usize, agents: usize, samples: usize) {
    fill(store, tickets, agents).await;
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let data = DataDir::new(tmp.path().join("data"));
    std::fs::create_dir_all(&data.root).expect("the data folder");
    let app = cc_server::serve::app_of(data, store.clone(), None, None, |_| Ok(())).expect("the app");
    let opts = HttpOptions {
        addr: "127.0.0.1:0".parse().expect("an address"),
        principals: Principals::default(),
        operator_token: Some(OPERATOR.into()),
        allowed_hosts: Vec::new(),
        allowed_origins: Vec::new(),
        max_body: MAX_BODY,
        sessions: SessionLimits::default(),
    };
    let stop = tokio_util::sync::CancellationToken::new();
    let surface = app.surface(None).expect("the surface");
    let router = cc_server::mcp::http::router(app, surface, &opts, stop.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("an address");
    let s = stop.clone();
    tokio::spawn(async move {
        axum::serve(listener, router.into_make_service())
            .with_graceful_shutdown(async move { s.cancelled().await })
            .await
            .expect("serve")
    });
    let cookie = login(addr).await;
    // Warm: the first page opens the store's connections.
    for _ in 0..5 {
        get(addr, "/ui", &cookie).await;
    }
    let (mut ttfb, mut html, mut full) = (Vec::new(), Vec::new(), Vec::new());
    let mut bytes = 0;
    for _ in 0..samples {
        let t = Instant::now();
        let (first, all, n) = get(addr, "/ui?ws=default", &cookie).await;
        get(addr, "/ui/static/console.css", &cookie).await;
        get(addr, "/ui/static/console.js", &cookie).await;
        full.push(t.elapsed().as_secs_f64() * 1e3);
        ttfb.push(first);
        html.push(all);
        bytes = n;
    }
    println!("overview_bytes={bytes}");
    report("overview_ttfb", &mut ttfb);
    report("overview_html", &mut html);
    report("overview_full_load", &mut full);
    let (mut board, mut list) = (Vec::new(), Vec::new());
    for _ in 0..samples.min(100) {
        board.push(get(addr, "/ui/tickets?ws=default", &cookie).await.1);
        list.push(get(addr, "/ui/tickets?ws=default&status=open&page=40", &cookie).await.1);
    }
    report("tickets_board_html", &mut board);
    report("tickets_open_page_40_html", &mut list);
    stop.cancel();
}
