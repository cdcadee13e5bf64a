//! The call graph on a real repository's records: build, then callers / callees /
//! impact at depth 3 and 6 from symbols picked at random (seeded).
//!
//! Needs an index made beforehand:
//! `cc-server --data-dir $CC_BENCH_DATA index /path/to/tokio --name tokio`, then
//! `CC_BENCH_DATA=… CC_BENCH_REPO=tokio cargo bench -p cc-benches --bench graph`.
//! Without one it prints why and measures nothing.

use std::time::Duration;

use cc_benches::Rng;
use cc_graph::{CallGraph, Limits};
use cc_indexer::{DataDir, Repo, SymbolId};
use criterion::{criterion_group, criterion_main, Criterion};

fn bench(c: &mut Criterion) {
    let Some(data) = std::env::var_os("CC_BENCH_DATA") else {
        eprintln!("graph bench skipped: set CC_BENCH_DATA (a --data-dir with an indexed repository) and CC_BENCH_REPO");
        return;
    };
    let name = std::env::var("CC_BENCH_REPO").unwrap_or_else(|_| "tokio".into());
    let repo = match Repo::open(&DataDir::new(data), &name) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("graph bench skipped: cannot open repository '{name}': {e}");
            return;
        }
    };
    let records = repo.records().expect("records readable");

    let mut g = c.benchmark_group(format!("graph/{name}"));
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    g.bench_function("build", |b| b.iter(|| CallGraph::build(&records)));
    g.finish();

    let graph = CallGraph::build(&records);
    let mut ids: Vec<SymbolId> = graph.symbols().map(|s| s.id).collect();
    ids.sort();
    if ids.is_empty() {
        eprintln!("graph bench: '{name}' has no symbols");
        return;
    }
    let mut rng = Rng::new(42);
    let picks: Vec<SymbolId> = (0..2000).map(|_| ids[rng.below(ids.len())]).collect();

    let mut g = c.benchmark_group(format!("graph/{name}"));
    g.sample_size(30).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    type Op = fn(&CallGraph, SymbolId, Limits) -> cc_graph::Walk;
    let ops: [(&str, Op, usize, usize); 6] = [
        ("callers/d3", CallGraph::callers, 3, 500),
        ("callees/d3", CallGraph::callees, 3, 500),
        ("impact/d3", CallGraph::impact, 3, 1000),
        ("callers/d6", CallGraph::callers, 6, 500),
        ("callees/d6", CallGraph::callees, 6, 500),
        ("impact/d6", CallGraph::impact, 6, 1000),
    ];
    for (label, op, depth, nodes) in ops {
        let limits = Limits { depth, nodes };
        // Each iteration asks about the next symbol: the mean over random symbols.
        let mut i = 0;
        g.bench_function(label, |b| {
            b.iter(|| {
                i = (i + 1) % picks.len();
                op(&graph, picks[i], limits)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
