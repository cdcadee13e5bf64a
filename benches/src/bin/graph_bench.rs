//! Call-graph figures of an indexed repository: build time and memory from its records,
//! load time of the persisted graph, and callers / callees / impact latency percentiles
//! over symbols picked at random (seeded, so every run asks the same questions).
//!
//! ```text
//! graph_bench --data DIR --repo NAME [--samples 3000] [--seed 42] [--print-sample]
//! ```
//!
//! Prints `key=value` lines: one `build` line, then one line per query kind.
//! `--print-sample` prints the sampled symbols (`sample ID NAME`) instead of querying.

use std::path::PathBuf;
use std::time::Instant;

use cc_benches::{percentile, rss_kib, Rng};
use cc_graph::{CallGraph, Limits, Walk};
use cc_indexer::{DataDir, Repo, SymbolId};

fn usage() -> ! {
    eprintln!("usage: graph_bench --data DIR --repo NAME [--samples N] [--seed S] [--print-sample]");
    std::process::exit(2)
}

fn main() {
    let mut data: Option<PathBuf> = None;
    let mut name: Option<String> = None;
    let mut samples = 3000usize;
    let mut seed = 42u64;
    let mut print_sample = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--data" => data = Some(val().into()),
            "--repo" => name = Some(val()),
            "--samples" => samples = val().parse().unwrap_or_else(|_| usage()),
            "--seed" => seed = val().parse().unwrap_or_else(|_| usage()),
            "--print-sample" => print_sample = true,
            _ => usage(),
        }
    }
    let (Some(data), Some(name)) = (data, name) else { usage() };
    let data = DataDir::new(data);
    let repo = match Repo::open(&data, &name) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("graph_bench: cannot open '{name}': {e}");
            std::process::exit(1)
        }
    };

    let (rss0, _) = rss_kib();
    let t = Instant::now();
    let records = repo.records().expect("records readable");
    let records_s = t.elapsed().as_secs_f64();
    let (rss_records, _) = rss_kib();
    let t = Instant::now();
    let graph = CallGraph::build(&records);
    let build_s = t.elapsed().as_secs_f64();
    let (rss_built, hwm) = rss_kib();
    let refs: usize = records.iter().map(|f| f.references.len()).sum();
    let syms: usize = records.iter().map(|f| f.symbols.len()).sum();
    drop(records);
    let (rss_graph_only, _) = rss_kib();
    let t = Instant::now();
    let load_s = match CallGraph::load(&repo.dir) {
        Ok(g) => {
            let s = t.elapsed().as_secs_f64();
            drop(g);
            format!("{s:.3}")
        }
        Err(_) => "-".into(),
    };
    println!(
        "build files={} symbols={syms} references={refs} nodes={} edges={} records_s={records_s:.3} build_s={build_s:.3} \
         load_s={load_s} rss_start_mb={:.1} rss_records_mb={:.1} rss_built_mb={:.1} rss_graph_only_mb={:.1} peak_mb={:.1}",
        repo.meta.stats.files,
        graph.node_count(),
        graph.edge_count(),
        rss0 as f64 / 1024.0,
        rss_records as f64 / 1024.0,
        rss_built as f64 / 1024.0,
        rss_graph_only as f64 / 1024.0,
        hwm as f64 / 1024.0,
    );

    let mut ids: Vec<SymbolId> = graph.symbols().map(|s| s.id).collect();
    ids.sort();
    if ids.is_empty() {
        eprintln!("graph_bench: no symbols");
        return;
    }
    let mut rng = Rng::new(seed);
    let picks: Vec<SymbolId> = (0..samples).map(|_| ids[rng.below(ids.len())]).collect();
    if print_sample {
        // The sampled symbols (id, then name), for comparing query answers across builds.
        for id in &picks {
            println!("sample {id} {}", graph.symbol(*id).map_or("", |s| s.name.as_str()));
        }
        return;
    }

    type Op = fn(&CallGraph, SymbolId, Limits) -> Walk;
    let ops: [(&str, Op, usize, usize); 6] = [
        ("callers_d1", CallGraph::callers, 1, 500),
        ("callees_d1", CallGraph::callees, 1, 500),
        ("callers_d3", CallGraph::callers, 3, 500),
        ("callees_d3", CallGraph::callees, 3, 500),
        ("impact_d3", CallGraph::impact, 3, 1000),
        ("impact_d6", CallGraph::impact, 6, 1000),
    ];
    for (label, op, depth, nodes) in ops {
        let limits = Limits { depth, nodes };
        // One untimed pass warms caches the way a long-running server has them warm.
        for &id in picks.iter().take(200) {
            std::hint::black_box(op(&graph, id, limits));
        }
        let mut us = Vec::with_capacity(picks.len());
        let (mut hits, mut truncated) = (0usize, 0usize);
        for &id in &picks {
            let t = Instant::now();
            let w = std::hint::black_box(op(&graph, id, limits));
            us.push(t.elapsed().as_secs_f64() * 1e6);
            hits += w.hits.len();
            truncated += usize::from(w.truncated_nodes);
        }
        us.sort_by(f64::total_cmp);
        println!(
            "query op={label} samples={} p50_us={:.1} p99_us={:.1} max_us={:.1} mean_hits={:.1} node_limit_hit={:.1}%",
            us.len(),
            percentile(&us, 50.0),
            percentile(&us, 99.0),
            us.last().copied().unwrap_or(f64::NAN),
            hits as f64 / picks.len() as f64,
            100.0 * truncated as f64 / picks.len() as f64,
        );
    }
}
