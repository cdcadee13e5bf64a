//! Throughput per language of the three layers of indexing one file: tree-sitter
//! parsing alone, parsing plus the tags query (matches iterated, nothing built), and
//! the indexer's whole `Extractor::extract` (symbols and references built).
//!
//! Input: the language's fixture files under `indexer/tests/fixtures/`, repeated as
//! separate files (so each stays valid source) to at least 256 KB.
//!
//! `cargo bench -p cc-benches --bench extract [-- FILTER]`

use std::time::Duration;

use cc_benches::{fixtures, repeat_to, total_bytes};
use cc_indexer::Extractor;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tree_sitter::{Parser, QueryCursor, StreamingIterator};

const MIN_BYTES: usize = 256 * 1024;

fn bench(c: &mut Criterion) {
    let langs = fixtures();
    for (layer, label) in [(0, "parse"), (1, "parse+tags"), (2, "extract")] {
        let mut g = c.benchmark_group(label);
        g.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
        for (lang, files) in &langs {
            let input = repeat_to(files, MIN_BYTES);
            g.throughput(Throughput::Bytes(total_bytes(&input)));
            g.bench_with_input(BenchmarkId::from_parameter(lang.name()), &input, |b, input| match layer {
                0 => {
                    let mut parser = Parser::new();
                    parser.set_language(&lang.grammar()).expect("grammar");
                    b.iter(|| {
                        for f in input {
                            std::hint::black_box(parser.parse(&f.bytes, None));
                        }
                    })
                }
                1 => {
                    let mut parser = Parser::new();
                    parser.set_language(&lang.grammar()).expect("grammar");
                    let mut cursor = QueryCursor::new();
                    let query = lang.tags_query();
                    b.iter(|| {
                        let mut n = 0usize;
                        for f in input {
                            let tree = parser.parse(&f.bytes, None).expect("parse");
                            let mut m = cursor.matches(query, tree.root_node(), f.bytes.as_slice());
                            while let Some(m) = m.next() {
                                n += m.captures.len();
                            }
                        }
                        std::hint::black_box(n)
                    })
                }
                _ => {
                    let mut ex = Extractor::new();
                    b.iter(|| {
                        for f in input {
                            std::hint::black_box(ex.extract(*lang, &f.path, &f.bytes));
                        }
                    })
                }
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
