//! mcp_soak: a memory soak of `cc-server serve` — a benchmark, not a test.
//!
//! `mcp_soak URL PID [SESSIONS] [SECONDS]` opens SESSIONS (default 64) MCP sessions over
//! Streamable HTTP at URL (`http://127.0.0.1:PORT/mcp`) and has each call tools in a loop
//! for SECONDS (default 600): a mix of search_code (varied queries: the query-vector cache
//! churns), code_symbol, code_callers, code_callees, code_impact, code_read, list_repos,
//! list_workspaces, tools/list and resources/read, over symbols found in the served
//! repository by a first round of searches. Every `CC_SOAK_CHURN` calls (default 500) a
//! session is closed (DELETE) and a new one opened, so session setup and expiry are soaked
//! too. It samples the server's resident memory (VmRSS of PID) at the start (sessions
//! open, before the first call), after the warm-up (`CC_SOAK_WARMUP` seconds, default 60)
//! and every minute, and prints the growth from the warm-up, with throughput, latency
//! percentiles and the failures (an error answer or a non-2xx status). Run by `soak.sh`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cc_benches::mcp_http::{self, delete, post, tool_call, HttpClient};
use serde_json::{json, Value};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    cc_server::bench::status_kib(&status, "VmRSS:").unwrap_or(0)
}

async fn open_session(client: &HttpClient, url: &str) -> String {
    mcp_http::open_session(client, url, "mcp_soak").await
}

/// What the calls are about: symbols (id, name, path) found by a first round of searches.
struct Targets {
    symbols: Vec<(String, String, String)>,
    words: Vec<String>,
}

/// The `n`th call of the mix.
fn call(t: &Targets, rng: &mut fastrand::Rng, id: u64) -> (&'static str, Value) {
    let ws = "default";
    let (sym_id, sym_name, path) = &t.symbols[rng.usize(..t.symbols.len())];
    let word = |rng: &mut fastrand::Rng| t.words[rng.usize(..t.words.len())].clone();
    match rng.u32(..100) {
        0..=29 => {
            let q = (0..rng.usize(1..4)).map(|_| word(rng)).collect::<Vec<_>>().join(" ");
            let limit = rng.u32(1..=20);
            ("search_code", tool_call("search_code", json!({"workspace_id": ws, "query": q, "limit": limit}), id))
        }
        30..=44 => ("code_symbol", tool_call("code_symbol", json!({"workspace_id": ws, "name": sym_name}), id)),
        45..=59 => (
            "code_callers",
            tool_call("code_callers", json!({"workspace_id": ws, "symbol": sym_id, "depth": rng.u32(1..=3)}), id),
        ),
        60..=69 => ("code_callees", tool_call("code_callees", json!({"workspace_id": ws, "symbol": sym_id}), id)),
        70..=74 => ("code_impact", tool_call("code_impact", json!({"workspace_id": ws, "symbol": sym_id}), id)),
        75..=84 => {
            let start = rng.u32(1..200);
            let args = json!({"workspace_id": ws, "repo": "soak", "path": path, "start_line": start, "end_line": start + rng.u32(0..80)});
            ("code_read", tool_call("code_read", args, id))
        }
        85..=88 => ("list_repos", tool_call("list_repos", json!({"workspace_id": ws}), id)),
        89..=91 => ("list_workspaces", tool_call("list_workspaces", json!({}), id)),
        92..=95 => ("tools/list", json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"})),
        _ => {
            let uri = format!("cc://{ws}/repos/soak/files/{path}");
            ("resources/read", json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": uri}}))
        }
    }
}

#[derive(Default)]
struct Stats {
    latencies_ms: Vec<f64>,
    /// No answer, a non-2xx status or a JSON-RPC error (the first few in full).
    failures: Vec<String>,
    /// Answers that are tool errors (`isError`: a symbol not found, a line past the end),
    /// by tool and error kind.
    tool_errors: std::collections::BTreeMap<String, u64>,
}

// `u64::is_multiple_of` is newer than the workspace's rust-version.
#[allow(clippy::manual_is_multiple_of)]
#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(url), Some(pid)) = (args.get(1).cloned(), args.get(2).and_then(|p| p.parse::<u32>().ok())) else {
        eprintln!("usage: mcp_soak URL SERVER_PID [SESSIONS] [SECONDS]");
        std::process::exit(2);
    };
    let sessions: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(64);
    let seconds: u64 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(600);
    let warmup = env_u64("CC_SOAK_WARMUP", 60);
    let churn = env_u64("CC_SOAK_CHURN", 500);
    let client: HttpClient = mcp_http::client(sessions);

    // The targets: symbols found by searching common words.
    let sid = open_session(&client, &url).await;
    let words: Vec<String> = [
        "new", "read", "write", "spawn", "poll", "error", "config", "buffer", "close", "send", "recv", "task", "time",
        "handle", "join", "stream", "parse", "session", "query", "connect", "lock", "drop", "run", "shutdown",
        "runtime", "timeout", "channel", "file", "test", "engine", "value", "event", "state",
    ]
    .iter()
    .map(|w| w.to_string())
    .collect();
    let mut symbols = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let (_, _, msg) = post(
            &client,
            &url,
            Some(&sid),
            &tool_call("search_code", json!({"workspace_id": "default", "query": w, "limit": 20}), i as u64),
        )
        .await;
        let hits = msg["result"]["structuredContent"]["results"].as_array().cloned().unwrap_or_default();
        for h in hits {
            let s = &h["symbol"];
            if let (Some(id), Some(name), Some(path)) = (s["id"].as_str(), s["name"].as_str(), s["path"].as_str()) {
                symbols.push((id.to_string(), name.to_string(), path.to_string()));
            }
        }
    }
    delete(&client, &url, &sid).await;
    assert!(!symbols.is_empty(), "the first searches found no symbols; is the repository indexed?");
    let targets = Arc::new(Targets { symbols, words });
    eprintln!("{} target symbols; {sessions} sessions for {seconds} s", targets.symbols.len());

    let mut open = Vec::with_capacity(sessions);
    for _ in 0..sessions {
        open.push(open_session(&client, &url).await);
    }
    let start_rss = rss_kib(pid);
    let started = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicU64::new(0));
    let stats = Arc::new(Mutex::new(Stats::default()));
    let by_tool: Arc<Mutex<std::collections::BTreeMap<&'static str, u64>>> = Default::default();
    let mut workers = Vec::new();
    for (i, sid) in open.into_iter().enumerate() {
        let (client, url, targets, stop, calls, stats, by_tool) =
            (client.clone(), url.clone(), targets.clone(), stop.clone(), calls.clone(), stats.clone(), by_tool.clone());
        workers.push(tokio::spawn(async move {
            let mut rng = fastrand::Rng::with_seed(i as u64);
            let mut sid = sid;
            let mut n = 0u64;
            let mut local = Stats::default();
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                if churn > 0 && n % churn == 0 {
                    delete(&client, &url, &sid).await;
                    sid = open_session(&client, &url).await;
                }
                let (tool, body) = call(&targets, &mut rng, n);
                let t = Instant::now();
                let (status, _, msg) = post(&client, &url, Some(&sid), &body).await;
                local.latencies_ms.push(t.elapsed().as_secs_f64() * 1000.0);
                let failed = !(200..300).contains(&status) || msg.get("result").is_none();
                if failed {
                    let shown = local.failures.len() < 20;
                    local.failures.push(if shown {
                        format!("{tool}: {status} {}", msg.to_string().chars().take(300).collect::<String>())
                    } else {
                        String::new()
                    });
                } else if msg["result"]["isError"] == json!(true) {
                    let kind = msg["result"]["structuredContent"]["error"].as_str().unwrap_or("?");
                    *local.tool_errors.entry(format!("{tool}: {kind}")).or_default() += 1;
                }
                calls.fetch_add(1, Ordering::Relaxed);
                *by_tool.lock().unwrap().entry(tool).or_default() += 1;
            }
            delete(&client, &url, &sid).await;
            let mut s = stats.lock().unwrap();
            s.latencies_ms.extend(local.latencies_ms);
            s.failures.extend(local.failures);
            for (k, n) in local.tool_errors {
                *s.tool_errors.entry(k).or_default() += n;
            }
        }));
    }

    println!("{:>8} {:>10} {:>10} {:>10}", "seconds", "calls", "rss_MB", "vs_warm");
    println!("{:>8} {:>10} {:>10.1} {:>10}", 0, 0, start_rss as f64 / 1024.0, "-");
    let mut warm_rss = None;
    let mut next_sample = Duration::from_secs(warmup.min(seconds));
    let total = Duration::from_secs(seconds);
    loop {
        let now = started.elapsed();
        if now >= next_sample {
            let rss = rss_kib(pid);
            let warm = *warm_rss.get_or_insert(rss);
            println!(
                "{:>8} {:>10} {:>10.1} {:>+9.1}%",
                now.as_secs(),
                calls.load(Ordering::Relaxed),
                rss as f64 / 1024.0,
                (rss as f64 / warm as f64 - 1.0) * 100.0
            );
            if now >= total {
                break;
            }
            next_sample = (next_sample + Duration::from_secs(60)).min(total);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        let _ = w.await;
    }
    let s = stats.lock().unwrap();
    let mut lat = s.latencies_ms.clone();
    lat.sort_by(f64::total_cmp);
    let n = lat.len();
    let secs = started.elapsed().as_secs_f64();
    println!(
        "\n{n} calls in {secs:.0} s ({:.0}/s); latency p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; {} failed, {} tool errors",
        n as f64 / secs,
        cc_server::bench::percentile(&lat, 50.0),
        cc_server::bench::percentile(&lat, 99.0),
        lat.last().copied().unwrap_or(0.0),
        s.failures.len(),
        s.tool_errors.values().sum::<u64>()
    );
    println!("tool errors: {:?}", s.tool_errors);
    println!("calls by tool: {:?}", by_tool.lock().unwrap());
    for f in s.failures.iter().filter(|f| !f.is_empty()).take(10) {
        println!("  failed: {f}");
    }
    let end = rss_kib(pid);
    let warm = warm_rss.unwrap_or(start_rss);
    println!(
        "rss: start {:.1} MB, after warm-up {:.1} MB, end {:.1} MB: {:+.1}% since the warm-up",
        start_rss as f64 / 1024.0,
        warm as f64 / 1024.0,
        end as f64 / 1024.0,
        (end as f64 / warm as f64 - 1.0) * 100.0
    );
}
