//! Ticket figures through the MCP dispatcher: create_ticket and list_tickets latency with a
//! workspace of `--tickets` tickets, and `--clients` concurrent clients updating a few hot
//! tickets (throughput, latency, and a check that no update was lost: every ticket's version
//! is 1 + the updates made to it, and its last title is one of them).
//!
//! ```text
//! tickets_bench [--tickets 100000] [--samples 500] [--clients 64] [--updates 50] [--hot 16]
//!               [--seed 42] [--postgres ADMIN_URL]
//! ```
//!
//! SQLite in a temporary folder unless `--postgres` names a server (a database is created
//! for the run and dropped after: the URL of tests/postgres.sh will do). create_ticket and
//! update_ticket are approval-gated: each timed call is one whose approval the operator gave
//! beforehand (its pending approval made and decided before the clock starts), so the
//! figure is an approved call's — the approval looked up and used once, then the change.
//! The workspace is filled through the store (what create_ticket does after its approval).
//! Prints `key=value` lines.

use std::sync::Arc;
use std::time::Instant;

use cc_benches::{call_tool as call, percentile, tool_value as ok, BenchStore, Rng};
use cc_indexer::DataDir;
use cc_server::app::App;
use cc_server::mcp::approvals::ApprovalConfig;
use cc_server::mcp::dispatch::{CallOutcome, Caller};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::principal::Principal;
use cc_server::store::{NewTicket, Store};
use serde_json::{json, Value};

fn usage() -> ! {
    eprintln!(
        "usage: tickets_bench [--tickets N] [--samples N] [--clients N] [--updates N] [--hot N] [--seed S] [--postgres ADMIN_URL]"
    );
    std::process::exit(2)
}

struct Opts {
    tickets: usize,
    samples: usize,
    clients: usize,
    updates: usize,
    hot: usize,
    seed: u64,
    postgres: Option<String>,
}

fn main() {
    let mut o = Opts { tickets: 100_000, samples: 500, clients: 64, updates: 50, hot: 16, seed: 42, postgres: None };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        let num = |v: String| v.parse::<usize>().unwrap_or_else(|_| usage());
        match a.as_str() {
            "--tickets" => o.tickets = num(val()),
            "--samples" => o.samples = num(val()).max(1),
            "--clients" => o.clients = num(val()).max(1),
            "--updates" => o.updates = num(val()).max(1),
            "--hot" => o.hot = num(val()).max(1),
            "--seed" => o.seed = num(val()) as u64,
            "--postgres" => o.postgres = Some(val()),
            _ => usage(),
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    rt.block_on(async {
        let db = BenchStore::open("tickets", o.postgres.as_deref()).await;
        run(&o, &db.store).await;
        db.close().await;
    });
}

/// Makes call `name(args)` of `caller` approved: its pending approval made and decided.
async fn approve(app: &Arc<App>, caller: &Caller, name: &str, args: &Value) {
    match call(app, caller, name, args).await {
        CallOutcome::Err(e) if e.error == "approval_pending" => {
            let id = e.data.expect("data")["approval_id"].as_str().expect("an approval id").to_string();
            app.services.store.approvals().decide(&id, true, "operator (bench)", None).await.expect("decide");
        }
        other => panic!("{name}: expected a pending approval, got {:?}", ok(name, other)),
    }
}

/// The arguments of one sampled call.
type ArgsFn = Box<dyn Fn(&mut Rng) -> Value>;

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

async fn run(o: &Opts, store: &Store) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let data = DataDir::new(tmp.path().join("data"));
    std::fs::create_dir_all(&data.root).expect("the data folder");
    let app = cc_server::serve::app_of(data, store.clone(), None, None, |p| {
        p.approvals = ApprovalConfig { queue: true, max_pending: 100_000, ..ApprovalConfig::default() };
        Ok(())
    })
    .expect("the app");
    let mut rng = Rng::new(o.seed);
    // The workspace's tickets, through the store: a label on one in ten, a parent for one in
    // a hundred, statuses spread.
    let t = Instant::now();
    let statuses = ["open", "in_progress", "blocked", "in_review", "done"];
    let mut tasks = Vec::new();
    let per_task = o.tickets.div_ceil(4);
    for w in 0..4 {
        let store = store.clone();
        let (from, to) = (w * per_task, ((w + 1) * per_task).min(o.tickets));
        tasks.push(tokio::spawn(async move {
            for i in from..to {
                let n = NewTicket {
                    title: format!("ticket {i}: the checkout page times out under load"),
                    description: "Steps: open the cart, pay. Expected: a receipt. Seen: a 504.".into(),
                    status: cc_server::store::TicketStatus::parse_input(statuses[i % statuses.len()]).ok(),
                    labels: if i % 10 == 0 { vec!["bug".into()] } else { vec![] },
                    creator: "bench".into(),
                    ..NewTicket::default()
                };
                store.tickets().create("default", n).await.expect("create");
            }
        }));
    }
    for t in tasks {
        t.await.expect("filler");
    }
    let fill = t.elapsed().as_secs_f64();
    println!("tickets={} fill_s={fill:.1} fill_per_s={:.0}", o.tickets, o.tickets as f64 / fill);
    let chat = Caller::local(Mode::Chat);
    // create_ticket, approved beforehand.
    let creates: Vec<Value> = (0..o.samples)
        .map(|i| json!({"workspace_id": "default", "title": format!("bench create {i}"), "labels": ["bench"], "priority": "high"}))
        .collect();
    for a in &creates {
        approve(&app, &chat, "create_ticket", a).await;
    }
    let mut ms = Vec::with_capacity(o.samples);
    for a in &creates {
        let t = Instant::now();
        let v = ok("create_ticket", call(&app, &chat, "create_ticket", a).await);
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(v);
    }
    report("create_ticket", &mut ms);
    // list_tickets: first page, filters, random cursors.
    let total = (o.tickets + o.samples) as i64;
    let lists: [(&str, ArgsFn); 5] = [
        ("list_tickets=first_page_limit50", Box::new(|_| json!({"workspace_id": "default"}))),
        (
            "list_tickets=random_cursor_limit50",
            Box::new(
                move |r: &mut Rng| json!({"workspace_id": "default", "cursor": format!("T-{}", 1 + r.below(total as usize))}),
            ),
        ),
        ("list_tickets=status_blocked", Box::new(|_| json!({"workspace_id": "default", "status": "blocked"}))),
        ("list_tickets=label_bug", Box::new(|_| json!({"workspace_id": "default", "label": "bug"}))),
        (
            "list_tickets=status_random_cursor",
            Box::new(
                move |r: &mut Rng| json!({"workspace_id": "default", "status": "in_review", "cursor": format!("T-{}", 1 + r.below(total as usize))}),
            ),
        ),
    ];
    for (label, args) in &lists {
        let mut ms = Vec::with_capacity(o.samples);
        for _ in 0..o.samples {
            let a = args(&mut rng);
            let t = Instant::now();
            let v = ok("list_tickets", call(&app, &chat, "list_tickets", &a).await);
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(v);
        }
        report(label, &mut ms);
    }
    // Concurrent clients, each its own principal, updating `hot` tickets: every call
    // approved beforehand, then all at once.
    let hot: Vec<String> = (1..=o.hot).map(|n| format!("T-{n}")).collect();
    let mut plans: Vec<(Caller, Vec<Value>)> = Vec::new();
    for c in 0..o.clients {
        let mut caller = Caller::local(Mode::Chat);
        caller.principal = Principal::new(&format!("client-{c}"), None);
        let calls: Vec<Value> = (0..o.updates)
            .map(|u| {
                json!({"workspace_id": "default", "ticket_id": hot[(c * o.updates + u) % hot.len()],
                       "title": format!("c{c} u{u}"), "labels": [format!("c{c}")]})
            })
            .collect();
        for a in &calls {
            approve(&app, &caller, "update_ticket", a).await;
        }
        plans.push((caller, calls));
    }
    let before: Vec<i64> = {
        let mut v = Vec::new();
        for k in &hot {
            v.push(store.tickets().find("default", k).await.expect("find").expect("hot").version);
        }
        v
    };
    let t = Instant::now();
    let mut tasks = Vec::new();
    for (caller, calls) in plans {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            let mut ms = Vec::with_capacity(calls.len());
            for a in &calls {
                let t = Instant::now();
                ok("update_ticket", call(&app, &caller, "update_ticket", a).await);
                ms.push(t.elapsed().as_secs_f64() * 1e3);
            }
            ms
        }));
    }
    let mut ms = Vec::new();
    for t in tasks {
        ms.extend(t.await.expect("a client"));
    }
    let wall = t.elapsed().as_secs_f64();
    let n = ms.len();
    println!(
        "concurrent clients={} updates={n} hot_tickets={} wall_s={wall:.2} throughput_per_s={:.0}",
        o.clients,
        hot.len(),
        n as f64 / wall
    );
    report("update_ticket_concurrent", &mut ms);
    // No update lost: each hot ticket's version rose by the updates made to it.
    let mut lost = 0i64;
    for (i, k) in hot.iter().enumerate() {
        let made = (0..o.clients * o.updates).filter(|j| j % hot.len() == i).count() as i64;
        let t = store.tickets().find("default", k).await.expect("find").expect("hot");
        lost += (before[i] + made) - t.version;
        assert!(t.title.starts_with('c') && t.labels.len() == 1, "{k}: {} {:?}", t.title, t.labels);
    }
    println!("lost_updates={lost}");
    assert_eq!(lost, 0, "updates were lost");
}
