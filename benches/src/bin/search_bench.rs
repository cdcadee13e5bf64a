//! Embedding and search figures: embedding throughput per model, relevance and latency per
//! search mode on real repositories, and vector search at a million symbols.
//!
//! ```text
//! search_bench throughput --model DIR --repo PATH [--n 3000]
//! search_bench relevance  --model DIR|FILE --queries tests/data/relevance/bench-queries.json --repos-root DIR --data DIR [--split even|odd]
//! search_bench synthetic  --model DIR|FILE --data DIR --repo NAME --queries FILE [--n 1000000]
//! ```
//!
//! `throughput` embeds the same symbol texts (of PATH) with `model.onnx` (fp32) and
//! `model_int8.onnx`. `relevance` indexes each repository of the query set (at
//! `<repos-root>/<name>`, which must be at the pinned commit), embeds it, prints MRR@10 and
//! recall@10 per mode and latency p50/p99 per mode (query embedding included); `--split` keeps
//! every other query (`even`: the 0th, 2nd, …; `odd`: the others), the halves a set is tuned
//! on and held out with. `synthetic`
//! grows the vectors of an indexed repository to `--n` rows (each a stored vector plus
//! noise, renormalised), then times exact and prefiltered vector search at several sizes
//! (the crossover), the prefilter's top-10 overlap with exact, memory, and hybrid search
//! at `--n` (query embedding + vector search + BM25 over the real repository + fusion).
//! Benchmarks, not tests: nothing here asserts a time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use cc_benches::{percentile, Rng};
use cc_indexer::hybrid::{self, Mode};
use cc_indexer::relevance::{evaluate, table, QuerySet};
use cc_indexer::vectors::{self, quantize, Strategy, VectorFilter};
use cc_indexer::{
    index_repository_records, DataDir, Embedder, IndexOptions, NoProgress, Repo, SearchQuery, SymbolId, VectorIndex,
};

fn usage() -> ! {
    eprintln!("usage: search_bench throughput|relevance|synthetic --model M [--repo P] [--queries F] [--repos-root D] [--data D] [--n N]");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let cmd = args.next().unwrap_or_else(|| usage());
    let mut opt: BTreeMap<String, String> = BTreeMap::new();
    while let Some(k) = args.next() {
        let v = args.next().unwrap_or_else(|| usage());
        opt.insert(k.trim_start_matches("--").to_string(), v);
    }
    let get = |k: &str| opt.get(k).cloned().unwrap_or_else(|| usage());
    match cmd.as_str() {
        "throughput" => throughput(
            Path::new(&get("model")),
            Path::new(&get("repo")),
            opt.get("n").map_or(3000, |n| n.parse().unwrap()),
        ),
        "relevance" => {
            let split = opt.get("split").map(|s| match s.as_str() {
                "even" => 0,
                "odd" => 1,
                _ => usage(),
            });
            relevance(
                &get("model"),
                Path::new(&get("queries")),
                Path::new(&get("repos-root")),
                Path::new(&get("data")),
                split,
            )
        }
        "diagnose" => diagnose(&get("model"), Path::new(&get("queries")), Path::new(&get("data"))),
        "synthetic" => synthetic(
            &get("model"),
            Path::new(&get("data")),
            &get("repo"),
            Path::new(&get("queries")),
            opt.get("n").map_or(1_000_000, |n| n.parse().unwrap()),
        ),
        _ => usage(),
    }
}

fn load(spec: &str) -> Embedder {
    Embedder::load(spec).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    })
}

fn ms(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (percentile(v, 50.0), percentile(v, 99.0))
}

fn throughput(model: &Path, repo: &Path, n: usize) {
    let tmp = std::env::temp_dir().join(format!("search-bench-{}", std::process::id()));
    let data = DataDir::new(&tmp);
    let mut opts = IndexOptions::new(repo);
    opts.name = Some("t".into());
    let (_, files) = index_repository_records(&data, &opts, &NoProgress, None).unwrap();
    let texts: Vec<String> =
        files.iter().flat_map(|f| &f.symbols).map(cc_indexer::embed::symbol_text).take(n).collect();
    let avg = texts.iter().map(String::len).sum::<usize>() as f64 / texts.len().max(1) as f64;
    println!(
        "throughput: {} symbol texts of {} (mean {avg:.0} bytes), batches of {} sorted by token count",
        texts.len(),
        repo.display(),
        cc_indexer::embed::BATCH
    );
    for file in ["model.onnx", "model_int8.onnx"] {
        let mut e = load(model.join(file).to_str().unwrap());
        let t = Instant::now();
        let v = e.embed(&texts, &mut |_| {}).unwrap();
        let s = t.elapsed().as_secs_f64();
        println!("  {file:<16} {:>8.0} symbols/s  ({} in {s:.1} s, dim {})", v.len() as f64 / s, v.len(), e.dim);
    }
    let _ = std::fs::remove_dir_all(tmp);
}

/// The repository a query is over: its own, or the set's only one.
fn repo_of<'a>(set: &'a QuerySet, q: &'a cc_indexer::relevance::LabeledQuery) -> &'a str {
    q.repo.as_deref().unwrap_or_else(|| set.repos.keys().next().expect("a repository"))
}

fn relevance(model: &str, queries: &Path, repos_root: &Path, data: &Path, split: Option<usize>) {
    let mut set = QuerySet::parse(&std::fs::read_to_string(queries).unwrap()).unwrap();
    if let Some(half) = split {
        set.queries = std::mem::take(&mut set.queries).into_iter().skip(half).step_by(2).collect();
    }
    let wrong: Vec<&str> = set.mislabelled().iter().map(|q| q.query.as_str()).collect();
    if !wrong.is_empty() {
        eprintln!("warning: no_shared_word is wrong for {wrong:?}");
    }
    let data = DataDir::new(data);
    let model = std::sync::Mutex::new(load(model));
    let mut repos: BTreeMap<String, (Repo, VectorIndex)> = BTreeMap::new();
    for name in set.repos.keys() {
        let root = repos_root.join(name);
        let mut opts = IndexOptions::new(&root);
        opts.name = Some(name.clone());
        let t = Instant::now();
        let (_, files) = index_repository_records(&data, &opts, &NoProgress, None).unwrap();
        let r = vectors::update(&data.repo_dir(name), &files, &model, &NoProgress, None).unwrap();
        println!(
            "{name}: {} symbols, {} embedded ({:.0}/s), indexed + embedded in {:.1} s",
            r.symbols,
            r.embedded,
            r.symbols_per_sec,
            t.elapsed().as_secs_f64()
        );
        let repo = Repo::open(&data, name).unwrap();
        let v = VectorIndex::read(&repo.dir).unwrap().unwrap();
        for q in set.queries.iter().filter(|q| repo_of(&set, q) == name) {
            for e in &q.expect {
                if repo.symbols.lookup(e, 1).unwrap().is_empty() {
                    eprintln!("warning: query '{}': no symbol {e} in {name}", q.query);
                }
            }
        }
        repos.insert(name.clone(), (repo, v));
    }
    let mut m = model.into_inner().expect("the model is not poisoned");
    let mut lat: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let report = evaluate(&set, |q, mode| {
        let (repo, v) = &repos[repo_of(&set, q)];
        let sq = SearchQuery { text: q.query.clone(), limit: 10, ..Default::default() };
        let mut out = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            let qv = if mode == Mode::Keyword { Vec::new() } else { m.embed_query(&q.query).unwrap() };
            let r = hybrid::search(&repo.symbols, Some(v), Ok((&qv, &m.model_id)), &sq, mode).unwrap();
            lat.entry(mode.as_str()).or_default().push(t.elapsed().as_secs_f64() * 1e3);
            out = r.hits.into_iter().map(|h| h.symbol.qualified_name).collect();
        }
        out
    });
    println!(
        "\nrelevance ({} queries, {} sharing no word with the answer), model {}",
        set.queries.len(),
        set.queries.iter().filter(|q| q.no_shared_word).count(),
        m.model_id
    );
    print!("{}", table(&report));
    println!("\nlatency per query (ms, query embedding included; 3 runs of each query):");
    for (mode, v) in &mut lat {
        let (p50, p99) = ms(v);
        println!("  {mode:<9} p50 {p50:>7.2}  p99 {p99:>7.2}");
    }
}

/// Per query: where the first expected answer ranks in each mode (up to 200 deep), so a
/// change to ranking can be judged query by query. Needs `relevance` run first (`--data`).
fn diagnose(model: &str, queries: &Path, data: &Path) {
    let set = QuerySet::parse(&std::fs::read_to_string(queries).unwrap()).unwrap();
    let data = DataDir::new(data);
    let mut m = load(model);
    let mut repos: BTreeMap<String, (Repo, VectorIndex)> = BTreeMap::new();
    for name in set.repos.keys() {
        let repo = Repo::open(&data, name).unwrap();
        let v = VectorIndex::read(&repo.dir).unwrap().unwrap();
        repos.insert(name.clone(), (repo, v));
    }
    println!("{:>8} {:>8} {:>8}  no-shared  query", "keyword", "semantic", "hybrid");
    for q in &set.queries {
        let (repo, v) = &repos[repo_of(&set, q)];
        let qv = m.embed_query(&q.query).unwrap();
        let mut cols = Vec::new();
        for mode in [Mode::Keyword, Mode::Semantic, Mode::Hybrid] {
            let sq = SearchQuery { text: q.query.clone(), limit: 200, ..Default::default() };
            let r = hybrid::search(&repo.symbols, Some(v), Ok((&qv, &m.model_id)), &sq, mode).unwrap();
            let at = r.hits.iter().position(|h| q.expect.contains(&h.symbol.qualified_name));
            cols.push(at.map_or("-".to_string(), |i| (i + 1).to_string()));
        }
        println!("{:>8} {:>8} {:>8}  {:<9}  {}", cols[0], cols[1], cols[2], q.no_shared_word, q.query);
    }
}

fn synthetic(model: &str, data: &Path, name: &str, queries: &Path, n: usize) {
    let data = DataDir::new(data);
    let repo = Repo::open(&data, name).unwrap();
    let real = VectorIndex::read(&repo.dir).unwrap().expect("the repository has vectors: run `relevance` first");
    let set = QuerySet::parse(&std::fs::read_to_string(queries).unwrap()).unwrap();
    let mut m = load(model);
    assert_eq!(m.model_id, real.header.model_id, "the same model as the index");
    let qs: Vec<(String, Vec<f32>)> =
        set.queries.iter().map(|q| (q.query.clone(), m.embed_query(&q.query).unwrap())).collect();
    let d = real.dim();
    let mut rng = Rng::new(7);
    let t = Instant::now();
    let base: Vec<Vec<f32>> = (0..real.len()).map(|r| real.vector(r)).collect();
    let mut rows = Vec::with_capacity(n);
    for i in 0..n {
        let src = &base[i % base.len()];
        // The real vector itself first, then noisy copies (cosine ~0.9 to the source).
        let mut v: Vec<f32> = if i < base.len() {
            src.clone()
        } else {
            src.iter().map(|x| x + 0.02 * ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 3.46).collect()
        };
        cc_indexer::embed::normalize(&mut v);
        let (c, s) = quantize(&v);
        let flags = real.header.priors.get(i % base.len()).copied().unwrap_or(0);
        rows.push((SymbolId(i as u64), 0u64, "function", "python", "synthetic.py", c, s, flags));
    }
    let big = VectorIndex::build(&real.header.model_id, d, rows);
    println!("synthetic: {} vectors of dim {d} from {} real ones of '{name}', built in {:.1} s; vector memory {:.0} MB ({} bytes/vector: int8 codes + scale + 1-bit code + id, hash, kind, lang, path)",
        big.len(), real.len(), t.elapsed().as_secs_f64(), big.memory_bytes() as f64 / 1e6, big.memory_bytes() / big.len().max(1));
    let f = VectorFilter::default();
    println!("\nvector search, k = 10 (ms; {} queries):", qs.len());
    println!(
        "  {:>9} {:>12} {:>12} {:>16} {:>16} {:>14}",
        "vectors", "exact p50", "exact p99", "prefilter p50", "prefilter p99", "top-10 overlap"
    );
    for size in [10_000usize, 50_000, 100_000, 200_000, 300_000, 500_000, 1_000_000].into_iter().filter(|&s| s <= n) {
        let sub = if size == big.len() {
            big.clone()
        } else {
            let rows = (0..size).map(|r| {
                (
                    SymbolId(big.header.ids[r]),
                    0u64,
                    "function",
                    "python",
                    "synthetic.py",
                    big.codes[r * d..(r + 1) * d].to_vec(),
                    big.scales[r],
                    big.header.priors[r],
                )
            });
            VectorIndex::build(&real.header.model_id, d, rows)
        };
        let (mut te, mut tp, mut overlap) = (Vec::new(), Vec::new(), 0usize);
        for (_, q) in &qs {
            let t = Instant::now();
            let exact = sub.search(q, 10, &f, Strategy::Exact);
            te.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let pre = sub.search(q, 10, &f, Strategy::Prefilter(2000));
            tp.push(t.elapsed().as_secs_f64() * 1e3);
            overlap += pre.iter().filter(|h| exact.iter().any(|e| e.0 == h.0)).count();
        }
        let (e50, e99) = ms(&mut te);
        let (p50, p99) = ms(&mut tp);
        println!(
            "  {size:>9} {e50:>12.2} {e99:>12.2} {p50:>16.2} {p99:>16.2} {:>14.3}",
            overlap as f64 / (10 * qs.len()) as f64
        );
    }
    println!(
        "\nsearch at {} vectors (ms, Strategy::Auto; BM25 over the real '{name}' index; query embedding included):",
        big.len()
    );
    for mode in Mode::ALL {
        let mut lat = Vec::new();
        let mut embed_in_loop = Vec::new();
        for _ in 0..3 {
            for (text, _) in &qs {
                let t = Instant::now();
                let sq = SearchQuery { text: text.clone(), limit: 10, ..Default::default() };
                let model_id = m.model_id.clone();
                let mut embed_ms = None;
                let embed = || {
                    let t = Instant::now();
                    let v = m.embed_query(text).map_err(|e| e.to_string());
                    embed_ms = Some(t.elapsed().as_secs_f64() * 1e3);
                    Ok((v?, model_id))
                };
                // Vector ids of the synthetic index are not in the real BM25 index; the fusion and
                // the loading of BM25 hits run as they would, vector-only hits are skipped unloaded.
                // The query is embedded inside, as the server does (in hybrid mode while BM25 runs).
                let r = hybrid::search_embedding(&repo.symbols, Some(&big), embed, &sq, mode).unwrap();
                embed_in_loop.extend(embed_ms);
                std::hint::black_box(r);
                lat.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        let (p50, p99) = ms(&mut lat);
        // The embedding share of each query, measured in place: after the previous query's
        // scan has been through the caches it costs more than in the tight loop below.
        let (e50, _) = ms(&mut embed_in_loop);
        let embed = if mode == Mode::Keyword { String::new() } else { format!("  (its embedding p50 {e50:.2})") };
        println!("  {:<9} p50 {p50:>7.2}  p99 {p99:>7.2}{embed}", mode.as_str());
    }
    let mut embed_only = Vec::new();
    for (text, _) in &qs {
        let t = Instant::now();
        std::hint::black_box(m.embed_query(text).unwrap());
        embed_only.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let (p50, p99) = ms(&mut embed_only);
    println!("  (query embedding alone: p50 {p50:.2}  p99 {p99:.2})");
    // Hybrid side by side in this one build, interleaved query by query (the order of the
    // two alternating): the query embedded first and then searched (the code before
    // `search_embedding`), and embedded while the BM25 side runs.
    let (mut seq, mut overlap) = (Vec::new(), Vec::new());
    for round in 0..5 {
        for (i, (text, _)) in qs.iter().enumerate() {
            let sq = SearchQuery { text: text.clone(), limit: 10, ..Default::default() };
            for variant in if (i + round) % 2 == 0 { [0, 1] } else { [1, 0] } {
                let t = Instant::now();
                let r = if variant == 0 {
                    let qv = m.embed_query(text).unwrap();
                    hybrid::search(&repo.symbols, Some(&big), Ok((&qv, &m.model_id)), &sq, Mode::Hybrid)
                } else {
                    let model_id = m.model_id.clone();
                    let embed = || Ok((m.embed_query(text).map_err(|e| e.to_string())?, model_id));
                    hybrid::search_embedding(&repo.symbols, Some(&big), embed, &sq, Mode::Hybrid)
                };
                std::hint::black_box(r.unwrap());
                [&mut seq, &mut overlap][variant].push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    let ((s50, s99), (o50, o99)) = (ms(&mut seq), ms(&mut overlap));
    println!(
        "  hybrid, interleaved x{}: embed then search p50 {s50:.2} p99 {s99:.2}; BM25 while embedding p50 {o50:.2} p99 {o99:.2} ({:.2}x at p50)",
        seq.len(),
        o50 / s50
    );
    let _: Option<PathBuf> = None;
}
