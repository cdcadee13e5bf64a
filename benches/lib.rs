//! Criterion benches and the peer comparison harness.
//!
//! - `benches/extract.rs`: parse, parse + tags query, and parse + extract throughput per
//!   language, on the indexer's fixture files repeated to a useful size.
//! - `benches/tokenize.rs`: the code tokenizer.
//! - `benches/graph.rs`: call-graph build and callers / callees / impact on the records
//!   of a real repository indexed beforehand (`CC_BENCH_DATA`, `CC_BENCH_REPO`).
//! - `peers.sh`: `cc-server index` side by side with pure tree-sitter parsing of the same
//!   files (`parse_only`), parse + tags, and universal-ctags; plus `graph_bench` (graph
//!   build time, memory and query latency percentiles).
//!
//! This library holds what they share: fixtures, a seeded RNG, percentiles, RSS, the store of
//! a run on SQLite or PostgreSQL, a tool call through the dispatcher, a bare MCP client over
//! Streamable HTTP (`mcp_http`, for the load generators `mcp_soak` and `mcp_load`).

use std::path::PathBuf;

use cc_grammars::Lang;

#[path = "src/mcp_http.rs"]
pub mod mcp_http;

/// One source file held in memory.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// `indexer/tests/fixtures/`.
pub fn fixtures_dir() -> PathBuf {
    cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("../indexer/tests/fixtures")
}

/// The fixture files of every language (language detected from the file name, as the
/// indexer does), sorted by language then path.
pub fn fixtures() -> Vec<(Lang, Vec<Source>)> {
    let mut by_lang: std::collections::BTreeMap<Lang, Vec<Source>> = Default::default();
    let mut stack = vec![fixtures_dir()];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let Some(lang) = cc_grammars::detect_by_name(&p) else { continue };
            let bytes = std::fs::read(&p).expect("fixture readable");
            let rel = p.strip_prefix(fixtures_dir()).unwrap_or(&p).to_string_lossy().replace('\\', "/");
            by_lang.entry(lang).or_default().push(Source { path: rel, bytes });
        }
    }
    by_lang
        .into_iter()
        .map(|(l, mut v)| {
            v.sort_by(|a, b| a.path.cmp(&b.path));
            (l, v)
        })
        .collect()
}

/// `files` repeated (as separate files, so each stays valid source) until they hold at
/// least `min_bytes`.
pub fn repeat_to(files: &[Source], min_bytes: usize) -> Vec<Source> {
    let mut out = Vec::new();
    let mut total = 0;
    let mut round = 0;
    while total < min_bytes && !files.is_empty() {
        for f in files {
            out.push(Source { path: format!("r{round}/{}", f.path), bytes: f.bytes.clone() });
            total += f.bytes.len();
        }
        round += 1;
    }
    out
}

pub fn total_bytes(files: &[Source]) -> u64 {
    files.iter().map(|f| f.bytes.len() as u64).sum()
}

/// xorshift64*: a small seeded generator, so sampled symbols are the same every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The same percentile `cc-server bench` reports with (nearest rank).
pub use cc_server::bench::percentile;

/// (current RSS, peak RSS) of this process in KiB, from `/proc/self/status`.
pub fn rss_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name| cc_server::bench::status_kib(&status, name).unwrap_or(0);
    (field("VmRSS:"), field("VmHWM:"))
}

/// The store of one run: a temporary SQLite file, or a database created on a PostgreSQL server.
pub struct BenchStore {
    pub store: cc_server::store::Store,
    _tmp: tempfile::TempDir,
    drop_db: Option<(String, String)>,
}

impl BenchStore {
    /// `bench` names the database made on PostgreSQL (`cc_<bench>_bench_<pid>`).
    pub async fn open(bench: &str, admin: Option<&str>) -> BenchStore {
        let tmp = tempfile::tempdir().expect("a temporary folder");
        match admin {
            None => {
                let store = cc_server::store::Store::open_sqlite(&tmp.path().join("workspace.sqlite3"))
                    .await
                    .expect("the SQLite store");
                println!("backend=sqlite");
                BenchStore { store, _tmp: tmp, drop_db: None }
            }
            Some(admin) => {
                use sqlx::Connection;
                let db = format!("cc_{bench}_bench_{}", std::process::id());
                let mut c = sqlx::PgConnection::connect(admin).await.expect("the PostgreSQL server");
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}")))
                    .execute(&mut c)
                    .await
                    .expect("create");
                let url = format!("{}/{db}", admin.rsplit_once('/').expect("a database in the URL").0);
                let store = cc_server::store::Store::open(&url).await.expect("the PostgreSQL store");
                println!("backend=postgres");
                BenchStore { store, _tmp: tmp, drop_db: Some((admin.to_string(), db)) }
            }
        }
    }

    /// Closes the store and drops the PostgreSQL database made for the run.
    pub async fn close(self) {
        drop(self.store);
        if let Some((admin, db)) = self.drop_db {
            use sqlx::Connection;
            if let Ok(mut c) = sqlx::PgConnection::connect(&admin).await {
                let _ = sqlx::query(sqlx::AssertSqlSafe(format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)")))
                    .execute(&mut c)
                    .await;
            }
        }
    }
}

/// A tool call through `app`'s dispatcher, as a client of the default surface makes it.
pub async fn call_tool(
    app: &std::sync::Arc<cc_server::app::App>,
    caller: &cc_server::mcp::dispatch::Caller,
    name: &str,
    args: &serde_json::Value,
) -> cc_server::mcp::dispatch::CallOutcome {
    app.dispatcher
        .call(
            app.services.clone(),
            &cc_server::mcp::surface::Surface::parse(None, false).expect("the surface"),
            caller,
            name,
            args.as_object().cloned(),
            tokio_util::sync::CancellationToken::new(),
            None,
        )
        .await
}

/// A call's answer; an error or an unknown tool stops the bench.
pub fn tool_value(name: &str, o: cc_server::mcp::dispatch::CallOutcome) -> serde_json::Value {
    use cc_server::mcp::dispatch::CallOutcome;
    match o {
        CallOutcome::Ok(o) => o.value,
        CallOutcome::Err(e) => panic!("{name}: {e:?}"),
        CallOutcome::Unknown(n) => panic!("unknown tool {n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_fixtures() {
        let f = fixtures();
        assert_eq!(f.len(), Lang::all().count(), "{:?}", f.iter().map(|x| x.0).collect::<Vec<_>>());
    }

    #[test]
    fn rng_is_seeded() {
        let a: Vec<u64> = (0..4).scan(Rng::new(7), |r, _| Some(r.next_u64())).collect();
        let b: Vec<u64> = (0..4).scan(Rng::new(7), |r, _| Some(r.next_u64())).collect();
        assert_eq!(a, b);
    }
}
