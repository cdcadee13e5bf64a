//! rig_bench: browser rig timings on this machine — a benchmark, not a test.
//!
//! For each engine (or those named: `rig_bench chromium firefox`): time to a first
//! screenshot on a cold rig (start driver + browser, navigate, screenshot), then with a
//! reused rig (navigate + screenshot on the warm rig), over `CC_BENCH_COLD` cold starts
//! (default 3); then per-action latency p50/p99 over `CC_BENCH_N` rounds (default 30) on a
//! local page. Prints a table.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use cc_rigs::browser::{BrowserAction, BrowserOptions, BrowserRig, Engine, Target};
use cc_rigs::pool::{Acquire, Lease, Pool, PoolConfig};
use cc_rigs::SurfaceKind;

const PAGE: &str = r#"<!doctype html><html><head><title>Bench</title></head><body>
<h1>Bench</h1><input id="q" aria-label="Query"><button id="b" onclick="document.getElementById('o').textContent=document.getElementById('q').value">Go</button>
<p id="o"></p><ul>ITEMS</ul></body></html>"#;

fn site() -> u16 {
    let items: String = (0..200).map(|i| format!("<li><a href=\"#{i}\">item {i}</a></li>")).collect();
    let page = PAGE.replace("ITEMS", &items);
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let page = page.clone();
            std::thread::spawn(move || {
                let mut s = s;
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut line = String::new();
                while r.read_line(&mut line).unwrap_or(0) > 2 && !line.ends_with("\r\n\r\n") {}
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                );
            });
        }
    });
    port
}

fn pct(v: &mut [Duration], p: f64) -> f64 {
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i].as_secs_f64() * 1000.0
}

async fn act(pool: &Pool, lease: &Lease, a: BrowserAction) -> Duration {
    let t = Instant::now();
    let what = format!("{a:?}");
    pool.run(lease, move |rig| async move { cc_rigs::downcast::<BrowserRig>(rig).unwrap().act(a).await })
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    t.elapsed()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let engines: Vec<Engine> = if args.is_empty() {
        Engine::ALL.to_vec()
    } else {
        args.iter().map(|a| Engine::parse(a).unwrap_or_else(|e| panic!("{e}"))).collect()
    };
    let env = |k: &str, d: usize| std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d);
    let (cold_n, n) = (env("CC_BENCH_COLD", 3), env("CC_BENCH_N", 30));
    let url = format!("http://127.0.0.1:{}/", site());
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    println!("engine    measure                         n      p50 ms     p99 ms");
    for engine in engines {
        rt.block_on(async {
            let pool = Pool::new(PoolConfig { max_rigs: 2, ..PoolConfig::default() }).unwrap();
            let mut cold = Vec::new();
            let mut warm = Vec::new();
            for i in 0..cold_n {
                let t = Instant::now();
                let want = Acquire::new("bench", &format!("c{i}"), SurfaceKind::Browser, Some(engine.as_str()));
                let lease = pool
                    .acquire(want, move |_| BrowserRig::launch_boxed(BrowserOptions::new(engine)))
                    .await
                    .unwrap_or_else(|e| panic!("{}: {e}", engine.as_str()));
                act(&pool, &lease, BrowserAction::Navigate { url: url.clone() }).await;
                act(&pool, &lease, BrowserAction::Screenshot { target: None }).await;
                cold.push(t.elapsed());
                let t = Instant::now();
                act(&pool, &lease, BrowserAction::Navigate { url: url.clone() }).await;
                act(&pool, &lease, BrowserAction::Screenshot { target: None }).await;
                warm.push(t.elapsed());
                pool.close("bench", lease.id()).await.unwrap();
            }
            let row = |what: &str, v: &mut Vec<Duration>| {
                println!(
                    "{:<9} {:<30} {:>3} {:>10.1} {:>10.1}",
                    engine.as_str(),
                    what,
                    v.len(),
                    pct(v, 0.5),
                    pct(v, 0.99)
                );
            };
            row("first screenshot, cold rig", &mut cold);
            row("first screenshot, reused rig", &mut warm);
            let want = Acquire::new("bench", "actions", SurfaceKind::Browser, Some(engine.as_str()));
            let lease =
                pool.acquire(want, move |_| BrowserRig::launch_boxed(BrowserOptions::new(engine))).await.unwrap();
            act(&pool, &lease, BrowserAction::Navigate { url: url.clone() }).await;
            let mut times: Vec<(&str, Vec<Duration>)> =
                ["navigate", "snapshot", "fill", "click", "extract text", "screenshot", "clipboard write+read"]
                    .into_iter()
                    .map(|k| (k, Vec::new()))
                    .collect();
            for i in 0..n {
                let mut k = 0;
                let mut rec = |d: Duration| {
                    times[k].1.push(d);
                    k += 1;
                };
                rec(act(&pool, &lease, BrowserAction::Navigate { url: url.clone() }).await);
                rec(act(&pool, &lease, BrowserAction::Snapshot { max_lines: 400 }).await);
                let q = Target::Selector("#q".into());
                rec(act(&pool, &lease, BrowserAction::Fill { target: q, text: format!("round {i}") }).await);
                rec(act(&pool, &lease, BrowserAction::Click { target: Target::Selector("#b".into()) }).await);
                rec(act(&pool, &lease, BrowserAction::Text { target: None, max_chars: 20_000 }).await);
                rec(act(&pool, &lease, BrowserAction::Screenshot { target: None }).await);
                let t = Instant::now();
                act(&pool, &lease, BrowserAction::ClipboardWrite { text: format!("clip {i}") }).await;
                act(&pool, &lease, BrowserAction::ClipboardRead).await;
                rec(t.elapsed());
            }
            for (k, v) in times.iter_mut() {
                row(k, v);
            }
            pool.shutdown();
        });
    }
}
