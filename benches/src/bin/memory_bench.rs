//! Memory figures through the MCP dispatcher: search_memory latency per mode over a workspace
//! of `--entries` facts and policies, propose_fact throughput (one client, then `--clients`
//! concurrent clients), and harmonize_memory's time over a domain of `--harmonize` facts of
//! ten agents with contradictions planted.
//!
//! ```text
//! memory_bench [--entries 100000] [--samples 300] [--proposals 2000] [--clients 8]
//!              [--harmonize 10000] [--seed 42] [--embed-model DIR] [--postgres ADMIN_URL]
//! ```
//!
//! The entries are sentences an engineering team would keep (a service, an attribute, a value
//! with its unit; an owner; a technology and its version), generated from a seed, written
//! through the store. The first search builds the index (BM25 and, with a model — `--embed-model`
//! or `CC_EMBED_MODEL` —, every entry's vector, stored back): its time is printed apart.
//! The queries are the relevance set's (`tests/data/memory/relevance.json`) and questions in
//! the generator's vocabulary, none asked twice (a repeated query's vector would be cached). SQLite in a temporary folder unless `--postgres` names a
//! server. Prints `key=value` lines.

use std::time::Instant;

use cc_benches::{call_tool as call, percentile, tool_value as ok, BenchStore, Rng};
use cc_indexer::DataDir;
use cc_server::mcp::dispatch::Caller;
use cc_server::mcp::policy::Mode;
use cc_server::store::memory::NewEntry;
use cc_server::store::{EntryKind, Store};
use serde_json::{json, Value};

fn usage() -> ! {
    eprintln!(
        "usage: memory_bench [--entries N] [--samples N] [--proposals N] [--clients N] [--harmonize N] [--seed S] [--embed-model DIR] [--postgres ADMIN_URL]"
    );
    std::process::exit(2)
}

struct Opts {
    entries: usize,
    samples: usize,
    proposals: usize,
    clients: usize,
    harmonize: usize,
    seed: u64,
    postgres: Option<String>,
}

const SERVICES: &[&str] = &[
    "payments service",
    "search cluster",
    "staging database",
    "orders API",
    "checkout flow",
    "inventory service",
    "email worker",
    "image resizer",
    "recommendation model",
    "analytics warehouse",
    "session store",
    "CDN edge",
    "ingress controller",
    "build pipeline",
    "feature flag server",
    "notification service",
    "billing job",
    "fraud scorer",
    "pricing engine",
    "catalogue importer",
    "login service",
    "audit log",
    "metrics stack",
    "backup job",
    "webhook relay",
    "partner gateway",
    "mobile backend",
    "admin console",
    "report generator",
    "shipping service",
    "tax calculator",
    "coupon service",
    "review moderation",
    "chat support bridge",
    "data exporter",
    "cache tier",
    "queue broker",
    "scheduler",
    "secrets sync",
    "DNS resolver",
];
const ATTRIBUTES: &[(&str, &str)] = &[
    ("timeout", "seconds"),
    ("retry limit", "attempts"),
    ("rate limit", "requests per minute"),
    ("replica count", "replicas"),
    ("cache TTL", "minutes"),
    ("batch size", "records"),
    ("log retention", "days"),
    ("memory limit", "GiB"),
    ("connection pool", "connections"),
    ("alert threshold", "percent"),
    ("deploy window", "hours"),
    ("error budget", "minutes per month"),
];
const OWNERS: &[&str] = &["Platform", "Payments", "Search", "Growth", "Data", "Mobile", "Security", "Core"];
const TECH: &[(&str, &[&str])] = &[
    ("PostgreSQL", &["13", "14", "15", "16"]),
    ("Redis", &["6.2", "7.0", "7.2"]),
    ("Kafka", &["3.5", "3.6", "3.7"]),
    ("Go", &["1.21", "1.22", "1.23"]),
    ("Python", &["3.10", "3.11", "3.12"]),
    ("Node", &["18", "20", "22"]),
];

const CODENAMES: &[&str] = &[
    "amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "iris", "juniper", "kestrel", "lagoon",
    "maple", "nimbus", "onyx", "pebble", "quartz", "raven", "sierra", "tundra", "umber", "violet", "willow", "yarrow",
];

/// One generated fact: a service (of one of 24 x 24 projects) and an attribute with its
/// value, its owner, or its technology and version.
fn sentence(r: &mut Rng) -> String {
    let s = format!(
        "{} of project {} {}",
        SERVICES[r.below(SERVICES.len())],
        CODENAMES[r.below(CODENAMES.len())],
        CODENAMES[r.below(CODENAMES.len())]
    );
    match r.below(4) {
        0 | 1 => {
            let (a, unit) = ATTRIBUTES[r.below(ATTRIBUTES.len())];
            format!("The {a} of the {s} is {} {unit}.", 1 + r.below(500))
        }
        2 => format!("The {s} is owned by the {} team.", OWNERS[r.below(OWNERS.len())]),
        _ => {
            let (t, versions) = TECH[r.below(TECH.len())];
            format!("The {s} runs on {t} {}.", versions[r.below(versions.len())])
        }
    }
}

fn main() {
    let mut o = Opts {
        entries: 100_000,
        samples: 300,
        proposals: 2000,
        clients: 8,
        harmonize: 10_000,
        seed: 42,
        postgres: None,
    };
    let mut model = std::env::var("CC_EMBED_MODEL").ok();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        let num = |v: String| v.parse::<usize>().unwrap_or_else(|_| usage());
        match a.as_str() {
            "--entries" => o.entries = num(val()),
            "--samples" => o.samples = num(val()).max(1),
            "--proposals" => o.proposals = num(val()).max(1),
            "--clients" => o.clients = num(val()).max(1),
            "--harmonize" => o.harmonize = num(val()),
            "--seed" => o.seed = num(val()) as u64,
            "--embed-model" => model = Some(val()),
            "--postgres" => o.postgres = Some(val()),
            _ => usage(),
        }
    }
    println!("model={}", model.as_deref().map_or("none", |_| "configured"));
    cc_server::embedding::configure(model);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    rt.block_on(async {
        let db = BenchStore::open("memory", o.postgres.as_deref()).await;
        run(&o, &db.store).await;
        db.close().await;
    });
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

/// Writes `n` generated entries into `workspace` through the store, from 4 tasks; `authors`
/// agents write them in turn; one in twenty is a policy.
async fn fill(store: &Store, workspace: &str, n: usize, authors: usize, seed: u64, policies: bool) -> f64 {
    let t = Instant::now();
    let mut domains = Vec::new();
    for name in ["backend", "infra", "data", "release", "security", "oncall", "frontend", "team"] {
        let (d, _) = store.memory().ensure_domain(workspace, name, "principal:bench", "bench").await.expect("domain");
        domains.push(d.id);
    }
    let per_task = n.div_ceil(4);
    let mut tasks = Vec::new();
    for w in 0..4 {
        let (store, ws, domains) = (store.clone(), workspace.to_string(), domains.clone());
        let (from, to) = ((w * per_task).min(n), ((w + 1) * per_task).min(n));
        tasks.push(tokio::spawn(async move {
            let mut r = Rng::new(seed + w as u64);
            for i in from..to {
                let text = sentence(&mut r);
                let kind = if policies && i % 20 == 0 { EntryKind::Policy } else { EntryKind::Fact };
                let author = format!("agent-{}", i % authors);
                let key = format!("agent:{author}");
                let domain = if policies { &domains[i % domains.len()] } else { &domains[0] };
                let e = NewEntry { kind, text: &text, author: &author, author_key: &key, source: "bench" };
                store.memory().propose(&ws, domain, e).await.expect("propose");
            }
        }));
    }
    for t in tasks {
        t.await.expect("filler");
    }
    t.elapsed().as_secs_f64()
}

async fn run(o: &Opts, store: &Store) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let data = DataDir::new(tmp.path().join("data"));
    std::fs::create_dir_all(&data.root).expect("the data folder");
    let app = cc_server::serve::app_of(data, store.clone(), None, None, |_| Ok(())).expect("the app");
    let chat = Caller::local(Mode::Chat);
    let secs = fill(store, "default", o.entries, 10, o.seed, true).await;
    println!("entries={} fill_s={secs:.1} fill_per_s={:.0}", o.entries, o.entries as f64 / secs);
    // The index: built by the first search (with a model: every entry embedded and stored).
    let t = Instant::now();
    let first = ok(
        "search_memory",
        call(&app, &chat, "search_memory", &json!({"workspace_id": "default", "query": "payments timeout"})).await,
    );
    println!("index_build_s={:.1} semantic={}", t.elapsed().as_secs_f64(), first["semantic"]);
    // Queries: the relevance set's and generated ones.
    let set: Value = serde_json::from_str(
        &std::fs::read_to_string(
            cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("../tests/data/memory/relevance.json"),
        )
        .expect("the relevance set"),
    )
    .expect("JSON");
    let relevance: Vec<String> = set["queries"]
        .as_array()
        .expect("queries")
        .iter()
        .map(|q| q["query"].as_str().expect("a query").to_string())
        .collect();
    let mut r = Rng::new(o.seed ^ 0xA5);
    for mode in ["keyword", "semantic", "hybrid"] {
        // Queries no mode asked before (a repeated query's vector is cached): the relevance
        // set's in the first mode that embeds, then generated ones.
        let mut queries: Vec<String> = if mode == "semantic" { relevance.clone() } else { Vec::new() };
        while queries.len() < o.samples {
            let s = SERVICES[r.below(SERVICES.len())];
            let (a, _) = ATTRIBUTES[r.below(ATTRIBUTES.len())];
            let (c1, c2) = (CODENAMES[r.below(CODENAMES.len())], CODENAMES[r.below(CODENAMES.len())]);
            queries.push(format!("what is the {a} of the {s} of project {c1} {c2} ({mode} {})", queries.len()));
        }
        let mut ms = Vec::with_capacity(o.samples);
        let mut used = String::new();
        for q in &queries {
            let a = json!({"workspace_id": "default", "query": q, "mode": mode});
            let t = Instant::now();
            let v = ok("search_memory", call(&app, &chat, "search_memory", &a).await);
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            used = v["mode"].as_str().unwrap_or("").to_string();
        }
        report(&format!("search_memory mode={mode} ranked_by={used} entries={}", o.entries), &mut ms);
    }
    // propose_fact: one client, then several at once.
    let mut ms = Vec::with_capacity(o.proposals);
    let t = Instant::now();
    for i in 0..o.proposals {
        let a = json!({"workspace_id": "default", "domain": "backend", "text": format!("{} (proposal {i})", sentence(&mut r))});
        let t = Instant::now();
        ok("propose_fact", call(&app, &chat, "propose_fact", &a).await);
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "propose_fact clients=1 calls={} per_s={:.0}",
        o.proposals,
        o.proposals as f64 / t.elapsed().as_secs_f64()
    );
    report("propose_fact clients=1", &mut ms);
    let t = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..o.clients {
        let (app, n) = (app.clone(), o.proposals / o.clients);
        tasks.push(tokio::spawn(async move {
            let chat = Caller::local(Mode::Chat);
            let mut r = Rng::new(c as u64 + 7);
            for i in 0..n {
                let a = json!({"workspace_id": "default", "domain": "infra", "text": format!("{} (client {c}, {i})", sentence(&mut r))});
                ok("propose_fact", call(&app, &chat, "propose_fact", &a).await);
            }
        }));
    }
    for t in tasks {
        t.await.expect("client");
    }
    let n = o.proposals / o.clients * o.clients;
    println!("propose_fact clients={} calls={n} per_s={:.0}", o.clients, n as f64 / t.elapsed().as_secs_f64());
    // harmonize_memory over one domain of `--harmonize` facts by ten agents.
    if o.harmonize > 0 {
        store.workspaces().ensure("harmony", "Harmony").await.expect("workspace");
        let secs = fill(store, "harmony", o.harmonize, 10, o.seed ^ 0x5A, false).await;
        let t = Instant::now();
        let n = app.services.memory.refresh(store, "harmony").await.expect("refresh");
        println!("harmonize_facts={n} fill_s={secs:.1} index_build_s={:.1}", t.elapsed().as_secs_f64());
        let a = json!({"workspace_id": "harmony"});
        let t = Instant::now();
        let v = ok("harmonize_memory", call(&app, &chat, "harmonize_memory", &a).await);
        println!(
            "harmonize_memory facts={} pairs_compared={} conflicts={} similarity={} wall_s={:.2} elapsed_ms={}",
            v["facts"],
            v["pairs_compared"],
            v["conflicts"].as_array().map_or(0, Vec::len),
            v["similarity"],
            t.elapsed().as_secs_f64(),
            v["elapsed_ms"]
        );
        let t = Instant::now();
        let v = ok("harmonize_memory", call(&app, &chat, "harmonize_memory", &a).await);
        println!(
            "harmonize_memory again (nothing new) conflicts={} wall_s={:.2}",
            v["conflicts"].as_array().map_or(0, Vec::len),
            t.elapsed().as_secs_f64()
        );
    }
}
