//! Embeddings with the real model (../shared/models, or CC_TEST_EMBED_MODEL; ONNX Runtime
//! from ORT_DYLIB_PATH or the onnxruntime Python package — `tests/run` provides both):
//! incremental embedding, a model by name, and relevance on the fixture query set.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use cc_indexer::relevance::{evaluate, table, QuerySet};
use cc_indexer::vectors::{self, Strategy, VectorFilter};
use cc_indexer::{
    hybrid, index_repository_records, DataDir, Embedder, IndexOptions, Mode, NoProgress, Repo, SearchQuery, VectorIndex,
};

fn workspace() -> PathBuf {
    cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The model folder the tests use; fails saying what is missing.
fn model_dir() -> PathBuf {
    let dir = std::env::var_os("CC_TEST_EMBED_MODEL")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/models/all-MiniLM-L6-v2"));
    assert!(
        dir.join("model.onnx").is_file(),
        "no test embedding model at {} (model.onnx + tokenizer files): set CC_TEST_EMBED_MODEL or run tests/run",
        dir.display()
    );
    dir
}

fn load(spec: &Path) -> Embedder {
    Embedder::load(spec.to_str().unwrap()).unwrap_or_else(|e| panic!("{e} (tests/run installs onnxruntime)"))
}

fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&t).unwrap();
            copy_tree(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), t).unwrap();
        }
    }
}

/// Indexes `root` as `name` and brings its vectors up to date.
fn index_and_embed(data: &DataDir, root: &Path, name: &str, m: &Mutex<Embedder>) -> cc_indexer::VectorReport {
    let mut opts = IndexOptions::new(root);
    opts.name = Some(name.into());
    let (_, files) = index_repository_records(data, &opts, &NoProgress, None).unwrap();
    vectors::update(&data.repo_dir(name), &files, m, &NoProgress, None).unwrap()
}

#[test]
fn reindexing_embeds_only_changed_symbols() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    copy_tree(&workspace().join("tests/data/relevance/fixture"), &root);
    let data = DataDir::new(tmp.path().join("data"));
    let mut m = Mutex::new(load(&model_dir().join("model_int8.onnx")));
    assert_eq!(m.get_mut().unwrap().dim, 384);

    let first = index_and_embed(&data, &root, "repo", &m);
    assert!(first.symbols > 50, "{first:?}");
    assert_eq!((first.embedded, first.reused), (first.symbols, 0));
    let dir = data.repo_dir("repo");
    let v = VectorIndex::read(&dir).unwrap().unwrap();
    assert_eq!(v.len() as u64, first.symbols);
    // Stored vectors are unit length.
    for row in [0, v.len() / 2, v.len() - 1] {
        let n: f32 = v.vector(row).iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((n - 1.0).abs() < 0.02, "row {row} has norm {n}");
    }
    let written = std::fs::metadata(dir.join("vectors.bin")).unwrap().modified().unwrap();

    // Nothing changed: nothing embedded, nothing written.
    let again = index_and_embed(&data, &root, "repo", &m);
    assert_eq!((again.embedded, again.reused), (0, first.symbols));
    assert_eq!(std::fs::metadata(dir.join("vectors.bin")).unwrap().modified().unwrap(), written);

    // One doc comment changed, one function added, lines shifted: two texts embedded.
    let p = root.join("shop/text/strings.py");
    let src = std::fs::read_to_string(&p).unwrap();
    let src = src.replace("Edit distance between two strings", "Edit distance between two words").replace(
        "import unicodedata\n",
        "import unicodedata\n\n\ndef shout(s):\n    \"\"\"Upper-cases s.\"\"\"\n    return s.upper()\n",
    );
    std::fs::write(&p, src).unwrap();
    let third = index_and_embed(&data, &root, "repo", &m);
    assert_eq!((third.embedded, third.symbols), (2, first.symbols + 1), "{third:?}");

    // A deleted file: its vectors go, nothing is embedded.
    std::fs::remove_file(root.join("shop/net/ratelimit.py")).unwrap();
    let fourth = index_and_embed(&data, &root, "repo", &m);
    assert_eq!(fourth.embedded, 0);
    assert_eq!(fourth.symbols, third.symbols - 3);
    assert_eq!(VectorIndex::read(&dir).unwrap().unwrap().len() as u64, fourth.symbols);

    // Another model: every vector is re-made.
    let mut fp32 = Mutex::new(load(&model_dir()));
    assert_ne!(fp32.get_mut().unwrap().model_id, m.get_mut().unwrap().model_id);
    let fifth = index_and_embed(&data, &root, "repo", &fp32);
    assert_eq!(fifth.embedded, fourth.symbols);

    // A stored symbol's own text finds it first.
    let v = VectorIndex::read(&dir).unwrap().unwrap();
    let repo = Repo::open(&data, "repo").unwrap();
    let sym = repo.symbols.lookup("levenshtein", 1).unwrap().remove(0);
    let rec = repo.records().unwrap().into_iter().flat_map(|f| f.symbols).find(|s| s.id == sym.id).unwrap();
    let q = fp32.get_mut().unwrap().embed_query(&cc_indexer::embed::symbol_text(&rec)).unwrap();
    assert_eq!(v.search(&q, 1, &VectorFilter::default(), Strategy::Exact)[0].0, sym.id);
}

#[test]
fn model_by_fastembed_name_from_its_cache() {
    // A fastembed name resolves through the model hub's cache layout; filled here from the
    // local model, with the hub endpoint pointed at a closed local port, nothing is fetched.
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("models--Qdrant--all-MiniLM-L6-v2-onnx");
    let snap = repo.join("snapshots").join("0000000000000000000000000000000000000000");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs/main"), "0000000000000000000000000000000000000000").unwrap();
    let dir = model_dir();
    for f in ["model.onnx", "tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json"] {
        std::os::unix::fs::symlink(dir.join(f), snap.join(f)).unwrap();
    }
    std::env::set_var("FASTEMBED_CACHE_DIR", tmp.path());
    std::env::set_var("HF_ENDPOINT", "http://127.0.0.1:9");
    std::env::remove_var("HF_HOME");
    let mut by_name = Embedder::load("AllMiniLML6V2").unwrap();
    assert_eq!(by_name.model_id, "fastembed:AllMiniLML6V2");
    let mut by_dir = load(&dir);
    let a = by_name.embed_query("parse a JSON document").unwrap();
    let b = by_dir.embed_query("parse a JSON document").unwrap();
    let cos: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    assert!(cos > 0.999, "the same model by name and by folder: cosine {cos}");
    // A name not in the cache fails with the model's name in the message, not a hang.
    let e = Embedder::load("BGESmallENV15").err().expect("not cached, not reachable").to_string();
    assert!(e.contains("BGESmallENV15"), "{e}");
}

#[test]
fn hybrid_beats_keyword_and_semantic_on_the_fixture_set() {
    let ws = workspace();
    let set = QuerySet::parse(&std::fs::read_to_string(ws.join("tests/data/relevance/fixture-queries.json")).unwrap())
        .unwrap();
    assert!(set.queries.len() >= 40);
    let no_shared = set.queries.iter().filter(|q| q.no_shared_word).count();
    assert!(no_shared * 2 >= set.queries.len(), "{no_shared} of {} share no word", set.queries.len());
    let wrong: Vec<&str> = set.mislabelled().iter().map(|q| q.query.as_str()).collect();
    assert!(wrong.is_empty(), "no_shared_word is wrong for: {wrong:?}");

    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path());
    let mut m = Mutex::new(load(&model_dir()));
    let root = ws.join(set.repos["fixture"].path.as_deref().unwrap());
    index_and_embed(&data, &root, "fixture", &m);
    let repo = Repo::open(&data, "fixture").unwrap();
    let vectors = VectorIndex::read(&repo.dir).unwrap().unwrap();
    // Every expected name exists (a typo would silently lower every mode).
    for q in &set.queries {
        for e in &q.expect {
            assert!(!repo.symbols.lookup(e, 1).unwrap().is_empty(), "query '{}': no symbol {e}", q.query);
        }
    }
    let m = m.get_mut().unwrap();
    let report = evaluate(&set, |q, mode| {
        let v = m.embed_query(&q.query).unwrap();
        let sq = SearchQuery { text: q.query.clone(), limit: 10, ..Default::default() };
        let r = hybrid::search(&repo.symbols, Some(&vectors), Ok((&v, &m.model_id)), &sq, mode).unwrap();
        assert_eq!(r.mode, mode);
        // Embedding on demand (in hybrid mode while BM25 runs) answers the same, and
        // embeds only when the mode needs a vector.
        let mut embedded = false;
        let embed = || {
            embedded = true;
            Ok((v.clone(), m.model_id.clone()))
        };
        let same = hybrid::search_embedding(&repo.symbols, Some(&vectors), embed, &sq, mode).unwrap();
        assert_eq!(embedded, mode != Mode::Keyword, "{mode:?}");
        let ids = |r: &hybrid::HybridResult| {
            r.hits.iter().map(|h| (h.symbol.id, h.bm25_rank, h.vector_rank)).collect::<Vec<_>>()
        };
        assert_eq!(ids(&same), ids(&r), "'{}' {mode:?}", q.query);
        r.hits.into_iter().map(|h| h.symbol.qualified_name).collect()
    });
    println!("{}", table(&report));
    let (h, k, s) = (report["hybrid"].all, report["keyword"].all, report["semantic"].all);
    assert!(
        h.mrr > k.mrr && h.mrr > s.mrr,
        "hybrid MRR@10 {:.3} must beat keyword {:.3} and semantic {:.3}",
        h.mrr,
        k.mrr,
        s.mrr
    );
    assert!(
        h.recall >= k.recall && h.recall >= s.recall,
        "hybrid recall@10 {:.3} must be at least keyword's {:.3} and semantic's {:.3}",
        h.recall,
        k.recall,
        s.recall
    );
    let _ = Mode::Hybrid;
}

/// The priors through the real model: of two functions with the same text, the one in test
/// code ranks below the one in the library, unless the query is about tests; a private
/// helper below its public twin.
#[test]
fn semantic_ranking_puts_test_code_and_private_helpers_below_the_library() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let body = "    \"\"\"Retry a failed HTTP request with exponential backoff.\"\"\"\n    return None\n";
    for path in ["spec/client.py", "web/client.py"] {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, format!("def retry_request(url):\n{body}")).unwrap();
    }
    std::fs::write(root.join("web/pool.py"), format!("def _fetch_again(url):\n{body}\ndef fetch_again(url):\n{body}"))
        .unwrap();
    let data = DataDir::new(tmp.path().join("data"));
    let mut m = Mutex::new(load(&model_dir().join("model_int8.onnx")));
    index_and_embed(&data, &root, "repo", &m);
    let repo = Repo::open(&data, "repo").unwrap();
    let v = VectorIndex::read(&repo.dir).unwrap().unwrap();
    let m = m.get_mut().unwrap();
    let mut rank = |query: &str| -> Vec<(String, String, f32)> {
        let qv = m.embed_query(query).unwrap();
        let sq = SearchQuery { text: query.into(), limit: 10, ..Default::default() };
        let r = hybrid::search(&repo.symbols, Some(&v), Ok((&qv, &m.model_id)), &sq, Mode::Semantic).unwrap();
        r.hits.into_iter().map(|h| (h.symbol.path, h.symbol.name, h.score)).collect()
    };
    let find = |hits: &[(String, String, f32)], path: &str, name: &str| {
        hits.iter().enumerate().find(|(_, h)| h.0 == path && h.1 == name).map(|(i, h)| (i, h.2)).unwrap()
    };
    // (Without priors the spec copy, first in path order, would lead the tie.)
    let hits = rank("resend a request that failed, waiting longer each time");
    let (lib, lib_score) = find(&hits, "web/client.py", "retry_request");
    let (spec, spec_score) = find(&hits, "spec/client.py", "retry_request");
    assert!(lib < spec && lib_score - spec_score > 0.05, "{hits:?}");
    assert!(find(&hits, "web/pool.py", "fetch_again").0 < find(&hits, "web/pool.py", "_fetch_again").0, "{hits:?}");
    // Asked about tests, test code is not held back: the two copies score alike.
    let hits = rank("test that retries a failed request");
    let (_, lib_score) = find(&hits, "web/client.py", "retry_request");
    let (_, spec_score) = find(&hits, "spec/client.py", "retry_request");
    assert!((lib_score - spec_score).abs() < 0.05, "{hits:?}");
}

/// An index run's embedding holds the model one batch at a time: a query embedded through
/// the same model while the run goes on gets its turn. (Before, the run held it to the end,
/// so every search waited for the whole repository to be embedded.)
#[test]
fn a_query_gets_the_model_while_a_repository_is_embedded() {
    use std::sync::mpsc;
    use std::sync::Arc;
    use std::time::Duration;

    struct QueryMidway {
        model: Arc<Mutex<Embedder>>,
        answered: Mutex<Option<bool>>,
        total: Mutex<u64>,
        advanced: Mutex<u64>,
    }
    impl cc_indexer::vectors::EmbedProgress for QueryMidway {
        fn embed_start(&self, texts: u64) {
            *self.total.lock().unwrap() = texts;
        }
        fn embed_advance(&self, texts: u64) {
            *self.advanced.lock().unwrap() += texts;
            let mut answered = self.answered.lock().unwrap();
            if answered.is_some() {
                return;
            }
            // After the first batch: a search embeds its query on another thread. The
            // generous limit only bounds how long a failure takes to show.
            let (tx, rx) = mpsc::channel();
            let model = self.model.clone();
            std::thread::spawn(move || {
                let v = model.lock().unwrap().embed_query("wait until a duration has elapsed").unwrap();
                let _ = tx.send(v.len());
            });
            *answered = Some(rx.recv_timeout(Duration::from_secs(120)) == Ok(384));
        }
    }

    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    // Three batches of symbols.
    let source: String = (0..3 * cc_indexer::embed::BATCH)
        .map(|i| format!("def step_{i}(x):\n    \"\"\"Advance the counter by {i}.\"\"\"\n    return x + {i}\n\n"))
        .collect();
    std::fs::write(root.join("steps.py"), source).unwrap();
    let data = DataDir::new(tmp.path().join("data"));
    let mut opts = IndexOptions::new(&root);
    opts.name = Some("repo".into());
    let (_, files) = index_repository_records(&data, &opts, &NoProgress, None).unwrap();
    let p = QueryMidway {
        model: Arc::new(Mutex::new(load(&model_dir().join("model_int8.onnx")))),
        answered: Mutex::new(None),
        total: Mutex::new(0),
        advanced: Mutex::new(0),
    };
    let report = vectors::update(&data.repo_dir("repo"), &files, &p.model, &p, None).unwrap();
    assert!(report.embedded > cc_indexer::embed::BATCH as u64, "more than one batch: {}", report.embedded);
    assert_eq!(*p.answered.lock().unwrap(), Some(true), "the query got the model between two batches");
    assert_eq!(*p.advanced.lock().unwrap(), *p.total.lock().unwrap(), "progress adds up to the texts announced");
    assert_eq!(*p.total.lock().unwrap(), report.embedded);
}

/// A model folder that links the test model's files and states `conventions` (a
/// cc-embed.json), as a user with another model would.
fn model_with(tmp: &Path, name: &str, conventions: &str) -> PathBuf {
    let dir = tmp.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let src = model_dir();
    for f in ["model.onnx", "tokenizer.json", "config.json", "special_tokens_map.json", "tokenizer_config.json"] {
        std::os::unix::fs::symlink(src.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(dir.join(cc_indexer::embed::CONVENTIONS_FILE), conventions).unwrap();
    dir
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A model's conventions are its own: the pooling (mean, CLS, last token), the query and
/// document prefixes, and Matryoshka truncation each change the vectors as stated, and the
/// model's id with them (an index of other vectors is not searched with these).
#[test]
fn a_model_folder_states_its_pooling_prefixes_and_dimensions() {
    let tmp = tempfile::tempdir().unwrap();
    let mut mean = load(&model_with(tmp.path(), "mean", "{}"));
    let mut cls = load(&model_with(tmp.path(), "cls", r#"{"pooling": "cls"}"#));
    let mut last = load(&model_with(tmp.path(), "last", r#"{"pooling": "last_token"}"#));
    let mut e5 = load(&model_with(
        tmp.path(),
        "e5",
        r#"{"pooling": "cls", "query_prefix": "query: ", "document_prefix": "passage: ", "dimensions": 128}"#,
    ));
    assert_eq!((mean.dim, cls.dim, last.dim, e5.dim), (384, 384, 384, 128));
    let ids = [&mean.model_id, &cls.model_id, &last.model_id, &e5.model_id];
    for (i, a) in ids.iter().enumerate() {
        assert!(ids[i + 1..].iter().all(|b| a != b), "{ids:?}");
    }
    // The folder without a cc-embed.json is the test model as the product uses it.
    assert_eq!(
        mean.embed_query("retry with backoff").unwrap(),
        load(&model_dir()).embed_query("retry with backoff").unwrap()
    );
    let text = "retry a request with exponential backoff";
    let (m, c, l) = (mean.embed_query(text).unwrap(), cls.embed_query(text).unwrap(), last.embed_query(text).unwrap());
    assert!(
        cosine(&m, &c) < 0.99 && cosine(&m, &l) < 0.99 && cosine(&c, &l) < 0.99,
        "{} {} {}",
        cosine(&m, &c),
        cosine(&m, &l),
        cosine(&c, &l)
    );
    // Last-token pooling reads the mask: a short text padded in a batch is its own vector.
    let batch = last.embed_batch(&["backoff", text]).unwrap();
    assert!(cosine(&batch[0], &last.embed_batch(&["backoff"]).unwrap()[0]) > 0.9999);
    // The prefixes go before queries and documents; truncation keeps the first dimensions.
    let cut = |mut v: Vec<f32>| {
        v.truncate(128);
        cc_indexer::embed::normalize(&mut v);
        v
    };
    let q = e5.embed_query(text).unwrap();
    assert!(cosine(&q, &cut(cls.embed_query(&format!("query: {text}")).unwrap())) > 0.9999);
    let d = e5.embed_batch(&[text]).unwrap().remove(0);
    assert!(cosine(&d, &cut(cls.embed_query(&format!("passage: {text}")).unwrap())) > 0.9999);
    assert!(cosine(&q, &d) < 0.9999);
    // A wrong key is an error naming the file and the key.
    let bad = model_with(tmp.path(), "bad", r#"{"poolng": "cls"}"#);
    let e = Embedder::load(bad.to_str().unwrap()).err().unwrap().to_string();
    assert!(e.contains("cc-embed.json") && e.contains("poolng"), "{e}");
}
