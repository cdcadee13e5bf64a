//! mcp_load: the latency of one tool under concurrent clients, on any Streamable HTTP MCP
//! server — a benchmark, not a test.
//!
//! `mcp_load URL TOOL ARGS_JSON [CLIENTS] [CALLS]` opens CLIENTS sessions (default 64) at
//! URL, has each make 5 warm-up calls of TOOL with ARGS_JSON, then CALLS calls (default 200)
//! one after another, all sessions at once; it prints the per-call p50, p99 and mean (ms),
//! the throughput, and the failures (a non-2xx status, an error answer, a tool error).
//! Compiled, so the clients are not what saturates the machine: benches/mcp/bridge_overhead.sh
//! runs it against an external server directly and through cc-server's bridge, interleaved.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use cc_benches::mcp_http::{self, post, tool_call};
use cc_benches::percentile;
use serde_json::Value;

/// What every client shares.
struct Load {
    http: mcp_http::HttpClient,
    url: String,
    tool: String,
    arguments: Value,
    failures: Mutex<Vec<String>>,
}

/// One call: its latency (ms); a failure is kept.
async fn call(load: Arc<Load>, sid: String, id: u64) -> f64 {
    let t = Instant::now();
    let (status, _, msg) =
        post(&load.http, &load.url, Some(&sid), &tool_call(&load.tool, load.arguments.clone(), id)).await;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    if !(200..300).contains(&status) || msg.get("result").is_none() || msg["result"]["isError"] == true {
        load.failures
            .lock()
            .unwrap()
            .push(format!("{status} {}", msg.to_string().chars().take(300).collect::<String>()));
    }
    ms
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: mcp_load URL TOOL ARGS_JSON [CLIENTS] [CALLS]");
        std::process::exit(2);
    }
    let arguments: Value = serde_json::from_str(&args[3]).unwrap_or_else(|e| {
        eprintln!("ARGS_JSON: {e}");
        std::process::exit(2)
    });
    let clients: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(64);
    let calls: usize = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(200);
    let load = Arc::new(Load {
        http: mcp_http::client(clients),
        url: args[1].clone(),
        tool: args[2].clone(),
        arguments,
        failures: Mutex::new(Vec::new()),
    });
    let mut sessions = Vec::with_capacity(clients);
    for _ in 0..clients {
        sessions.push(mcp_http::open_session(&load.http, &load.url, "mcp_load").await);
    }
    // Warm-up: every session, 5 calls each, all at once.
    let warm: Vec<_> = sessions
        .iter()
        .map(|sid| {
            let (load, sid) = (load.clone(), sid.clone());
            tokio::spawn(async move {
                for i in 0..5 {
                    call(load.clone(), sid.clone(), i).await;
                }
            })
        })
        .collect();
    for w in warm {
        w.await.expect("a warm-up task");
    }
    load.failures.lock().unwrap().clear();
    let started = Instant::now();
    let workers: Vec<_> = sessions
        .iter()
        .map(|sid| {
            let (load, sid) = (load.clone(), sid.clone());
            tokio::spawn(async move {
                let mut lat = Vec::with_capacity(calls);
                for i in 0..calls {
                    lat.push(call(load.clone(), sid.clone(), 10 + i as u64).await);
                }
                lat
            })
        })
        .collect();
    let mut lat = Vec::with_capacity(clients * calls);
    for w in workers {
        lat.extend(w.await.expect("a client task"));
    }
    let secs = started.elapsed().as_secs_f64();
    for sid in &sessions {
        mcp_http::delete(&load.http, &load.url, sid).await;
    }
    lat.sort_by(f64::total_cmp);
    let mean = lat.iter().sum::<f64>() / lat.len().max(1) as f64;
    let failed = load.failures.lock().unwrap();
    println!(
        "{} x {clients} clients x {calls} calls: p50 {:.2} ms  p99 {:.2} ms  mean {mean:.2} ms  {:.0} calls/s  failures {}",
        load.tool,
        percentile(&lat, 50.0),
        percentile(&lat, 99.0),
        lat.len() as f64 / secs,
        failed.len()
    );
    for f in failed.iter().take(5) {
        println!("  failed: {f}");
    }
}
