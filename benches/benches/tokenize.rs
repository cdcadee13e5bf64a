//! The code tokenizer (`cc_indexer::tokenize`): over source text (every fixture file,
//! concatenated), over identifiers alone (the names, qualified names and signatures the
//! index stores), and through tantivy's token stream as indexing uses it.
//!
//! `cargo bench -p cc-benches --bench tokenize`

use std::time::Duration;

use cc_benches::fixtures;
use cc_indexer::tokenize::{query_terms, split_identifier, tokens, CodeTokenizer};
use cc_indexer::Extractor;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tantivy::tokenizer::{TokenStream, Tokenizer};

fn bench(c: &mut Criterion) {
    let langs = fixtures();
    let mut text = String::new();
    let mut fields: Vec<String> = Vec::new();
    let mut ex = Extractor::new();
    for (lang, files) in &langs {
        for f in files {
            text.push_str(&String::from_utf8_lossy(&f.bytes));
            text.push('\n');
            for s in ex.extract(*lang, &f.path, &f.bytes).symbols {
                fields.push(s.name);
                fields.push(s.qualified_name);
                fields.push(s.signature);
            }
        }
    }
    // Repeat to a useful size.
    let text = text.repeat((1 << 20) / text.len().max(1) + 1);
    let fields_bytes: usize = fields.iter().map(String::len).sum();
    let names: Vec<&str> = fields.iter().step_by(3).map(String::as_str).collect();
    let names_bytes: usize = names.iter().map(|n| n.len()).sum();

    let mut g = c.benchmark_group("tokenize");
    g.sample_size(30).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("tokens/source", |b| {
        b.iter(|| {
            let mut n = 0;
            tokens(&text, |_, _, t| n += t.len());
            n
        })
    });
    g.throughput(Throughput::Bytes(fields_bytes as u64));
    g.bench_function("tokens/symbol-fields", |b| {
        b.iter(|| {
            let mut n = 0;
            for f in &fields {
                tokens(f, |_, _, t| n += t.len());
            }
            n
        })
    });
    g.bench_function("token-stream/symbol-fields", |b| {
        let mut tk = CodeTokenizer::default();
        b.iter(|| {
            let mut n = 0;
            for f in &fields {
                let mut s = tk.token_stream(f);
                while s.advance() {
                    n += s.token().text.len();
                }
            }
            n
        })
    });
    g.throughput(Throughput::Bytes(names_bytes as u64));
    g.bench_function("split_identifier/names", |b| {
        b.iter(|| names.iter().map(|n| split_identifier(n).len()).sum::<usize>())
    });
    g.bench_function("query_terms/names", |b| b.iter(|| names.iter().map(|n| query_terms(n).len()).sum::<usize>()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
