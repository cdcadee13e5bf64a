//! Rank fusion: weighted RRF of two 50-deep and two 200-deep rankings, and the query's weights.

use cc_indexer::hybrid::{fuse, weights, RRF_K};
use cc_indexer::SymbolId;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};

fn lists(depth: usize) -> (Vec<SymbolId>, Vec<SymbolId>) {
    // Half of each list is in the other, as for a query both rankings partly agree on.
    let a = (0..depth as u64).map(SymbolId).collect();
    let b = (depth as u64 / 2..depth as u64 * 3 / 2).rev().map(SymbolId).collect();
    (a, b)
}

fn bench(c: &mut Criterion) {
    for depth in [50, 200] {
        let (a, b) = lists(depth);
        c.bench_function(&format!("rrf_fuse_{depth}"), |bench| {
            bench.iter(|| fuse(black_box(&a), black_box(&b), 0.2, 1.0, RRF_K))
        });
    }
    c.bench_function("fusion_weights", |bench| {
        bench.iter(|| weights(black_box("where do we retry failed HTTP requests in HttpClient.send")))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
