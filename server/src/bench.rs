//! `cc-server bench PATH`: index and query performance of one repository, measured
//! side by side with the tools people use instead.
//!
//! The repository is never modified: the bench works on a mirror of it (hard links,
//! copies across file systems) in a work folder, with its own data directory. Phases:
//!
//! 1. index cold (fresh data directory), warm (nothing changed), and after touching
//!    `--touch` files (one byte appended to each, breaking their links first) — each a
//!    child `cc-server index` process, so its wall time and peak RSS are its own;
//! 2. a query workload drawn from the repository's own symbols with a seeded generator
//!    (the same seed picks the same queries): exact lookups, keyword search, callers,
//!    callees, impact at depth 3 and 6;
//! 3. with `--against`, the peers installed here on the same tree: universal-ctags
//!    (`ctags -R`, definitions only) for indexing, ripgrep (`rg -n -w NAME`) for finding
//!    a symbol without an index; a peer that is not installed is listed as not run.
//!
//! Output: a table, `--json FILE` (schema: `cc-server bench --schema`), `--plot FILE.svg`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use cc_indexer::{DataDir, SearchQuery};
use clap::Args;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Version of the JSON document; bump when a field changes meaning or goes away.
pub const BENCH_SCHEMA: &str = "cc-server-bench/1";

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The repository to measure (never modified: the bench works on a mirror of it); required
    /// unless --schema
    #[arg(required_unless_present = "schema")]
    pub path: Option<PathBuf>,

    /// Files changed (one byte appended) for the incremental-update measurement
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub touch: usize,

    /// Queries per query kind
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub queries: usize,

    /// Seed of the workload: the same seed picks the same queries and touched files
    #[arg(long, default_value_t = 42)]
    pub seed: u64,

    /// Also run the peers installed here (universal-ctags, ripgrep, CodeGraphContext) on the same tree
    #[arg(long)]
    pub against: bool,

    /// Write the results as JSON to FILE (`-`: standard output, instead of the table)
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Draw the latency distribution of each query kind into FILE.svg
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// Work folder for the mirror and the data directory [default: a temporary folder, removed afterwards]
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,

    /// Worker threads of the index runs [default: one per core]
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Print the JSON schema of the `--json` document and exit
    #[arg(long)]
    pub schema: bool,
}

/// The whole result, as `--json` writes it.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct BenchReport {
    /// Always `cc-server-bench/1`.
    pub schema: String,
    pub cc_server_version: String,
    pub machine: Machine,
    pub repo: RepoInfo,
    pub seed: u64,
    pub index: Vec<IndexRun>,
    pub queries: Vec<QueryStats>,
    pub peers: Vec<PeerRun>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Machine {
    pub cores: usize,
    pub os: String,
    pub cpu: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct RepoInfo {
    pub path: String,
    /// `git rev-parse HEAD` of the repository, when it is a git work tree.
    pub commit: Option<String>,
    /// Indexed files and their bytes (what the indexer selected).
    pub files: u64,
    pub bytes: u64,
    pub symbols: u64,
    pub references: u64,
}

/// One `cc-server index` run.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct IndexRun {
    /// `cold`, `warm`, `touched` (`--touch` files each with a newline appended) or `edit` (one
    /// function appended to one other file).
    pub phase: String,
    /// Files parsed in this run.
    pub parsed: u64,
    pub wall_s: f64,
    /// Indexed megabytes (of the whole repository) per wall second.
    pub mb_per_s: f64,
    pub files_per_s: f64,
    pub peak_rss_mb: Option<f64>,
    pub index_bytes: u64,
    /// Index size on disk as a multiple of the indexed source.
    pub index_to_source: f64,
    /// For `touched`: wall time per changed file.
    pub per_changed_file_ms: Option<f64>,
    /// Where the run's time went: the index phase (walk, hash, parse, records, search index),
    /// the graph phase (load, re-resolve, assemble, save) and, of it, the save.
    pub index_s: f64,
    pub graph_s: f64,
    pub graph_save_s: f64,
    /// References the graph phase resolved (all of them on a full build).
    pub refs_resolved: u64,
    /// Whether the update was laid over the saved graph rather than written whole.
    pub graph_layered: bool,
}

/// Latencies of one query kind, in milliseconds.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct QueryStats {
    /// `exact`, `keyword`, `semantic`, `hybrid`, `callers`, `callees`, `impact_d3`, `impact_d6`
    /// (in this process, the graph opened once), `callers_process` and `impact_d3_process`
    /// (`cc-server callers ID` / `impact ID --depth 3` each as a fresh process, start to exit).
    pub kind: String,
    pub count: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub mean_hits: f64,
    /// The queries, in order (symbol names or query text): same seed, same list.
    pub workload: Vec<String>,
    /// Every latency, in the workload's order (for plots and other statistics).
    pub samples_ms: Vec<f64>,
    /// Why a kind was not measured (semantic search without a model).
    pub note: Option<String>,
    /// For the fresh-process kinds: the largest peak resident memory of one process, MB.
    pub peak_rss_mb: Option<f64>,
}

/// A peer tool measured on the same tree.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct PeerRun {
    pub peer: String,
    /// What it was measured on: `index` (whole tree) or `find_symbol` (per query).
    pub task: String,
    /// `ran`, `not run` (not installed) or `failed`.
    pub status: String,
    /// Why it did not run, and how to install it; or how it failed.
    pub note: Option<String>,
    pub wall_s: Option<f64>,
    pub peak_rss_mb: Option<f64>,
    /// For `find_symbol`: per-query latency.
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    /// The peer's figure divided by cc-server's (wall time for `index`, p50 for
    /// `find_symbol`): above 1, cc-server is faster.
    pub ratio: Option<f64>,
}

/// Runs the bench and prints or writes its results.
pub fn run(a: BenchArgs, quiet: bool) -> Result<()> {
    if a.schema {
        println!("{}", serde_json::to_string_pretty(&schemars::schema_for!(BenchReport))?);
        return Ok(());
    }
    let src = a.path.clone().expect("clap requires PATH unless --schema");
    let meta = std::fs::metadata(&src).with_context(|| format!("{}: cannot read the repository", src.display()))?;
    if !meta.is_dir() {
        bail!("{}: is a file; cc-server bench takes a repository folder", src.display());
    }
    anyhow::ensure!(a.queries >= 1, "--queries must be at least 1");
    if let Some(p) = &a.plot {
        anyhow::ensure!(
            p.extension().is_some_and(|e| e == "svg"),
            "--plot {}: the plot is an SVG file; name it FILE.svg",
            p.display()
        );
    }
    let src = src.canonicalize().with_context(|| format!("{}", src.display()))?;
    let temp;
    let work = match &a.work_dir {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("--work-dir {}", d.display()))?;
            d.clone()
        }
        None => {
            temp = tempfile::Builder::new().prefix("cc-bench-").tempdir()?;
            temp.path().to_path_buf()
        }
    };
    let say = |m: &str| {
        if !quiet {
            eprintln!("bench: {m}");
        }
    };
    let tree = work.join("tree");
    let data_dir = work.join("data");
    let _ = std::fs::remove_dir_all(&tree);
    let _ = std::fs::remove_dir_all(&data_dir);
    say(&format!("mirroring {} into {}", src.display(), tree.display()));
    mirror(&src, &tree)?;

    let mut runs = Vec::new();
    say("index, cold");
    let cold = index_child(&tree, &data_dir, a.threads)?;
    runs.push(cold.run("cold", None));
    say("index, warm (nothing changed)");
    runs.push(index_child(&tree, &data_dir, a.threads)?.run("warm", None));
    let data = DataDir::new(&data_dir);
    let records = cc_indexer::store::read_records(&data.repo_dir(NAME))?;
    let mut paths: Vec<&str> = records.iter().map(|f| f.path.as_str()).collect();
    paths.sort_unstable();
    let mut rng = fastrand::Rng::with_seed(a.seed);
    let touched: Vec<String> = sample(&mut rng, &paths, a.touch).into_iter().map(String::from).collect();
    // The file the `edit` phase appends a function to: one not touched, of a language it can
    // write a function in (its own seeded choice: the query workload stays the seed's).
    let mut editable: Vec<&str> = paths
        .iter()
        .copied()
        .filter(|p| !touched.iter().any(|t| t == p) && with_added_function(p, "").is_some())
        .collect();
    fastrand::Rng::with_seed(a.seed ^ 0xed17).shuffle(&mut editable);
    let edited = editable.first().map(|p| p.to_string());
    drop(records);
    for p in &touched {
        touch(&tree.join(p))?;
    }
    if !touched.is_empty() {
        say(&format!("index after touching {} files", touched.len()));
        let t = index_child(&tree, &data_dir, a.threads)?;
        anyhow::ensure!(
            t.report.changed as usize == touched.len(),
            "the index run saw {} changed files, {} were touched",
            t.report.changed,
            touched.len()
        );
        let per = t.wall_s * 1000.0 / touched.len() as f64;
        runs.push(t.run("touched", Some(per)));
    }

    // One function appended to one file: what an agent's edit costs the next run.
    if let Some(p) = &edited {
        say(&format!("index after appending a function to {p}"));
        let file = tree.join(p);
        let text = std::fs::read_to_string(&file).with_context(|| format!("{}", file.display()))?;
        let text = with_added_function(p, &text).expect("chosen for it");
        // A new file in the mirror: the repository's own (hard-linked) file is left alone.
        std::fs::remove_file(&file)?;
        std::fs::write(&file, text).with_context(|| format!("{}", file.display()))?;
        let t = index_child(&tree, &data_dir, a.threads)?;
        anyhow::ensure!(t.report.changed == 1, "the index run saw {} changed files, 1 was edited", t.report.changed);
        runs.push(t.run("edit", None));
    }
    say(&format!("queries: {} per kind, seed {}", a.queries, a.seed));
    let mut queries = query_workload(&data, a.queries, &mut rng)?;
    queries.extend(process_queries(&data_dir, &queries, a.queries.min(PROCESS_QUERIES))?);

    let mut peers = Vec::new();
    if a.against {
        say("peers");
        peers = run_peers(&tree, &cold, &queries)?;
    }
    let report = BenchReport {
        schema: BENCH_SCHEMA.into(),
        cc_server_version: env!("CARGO_PKG_VERSION").into(),
        machine: machine(),
        repo: RepoInfo {
            path: src.display().to_string(),
            commit: git_commit(&src),
            files: cold.report.stats.files,
            bytes: cold.report.stats.bytes,
            symbols: cold.report.stats.symbols,
            references: cold.report.stats.references,
        },
        seed: a.seed,
        index: runs,
        queries,
        peers,
    };
    if let Some(p) = &a.plot {
        plot(&report, p)?;
        say(&format!("plot written to {}", p.display()));
    }
    match a.json.as_deref() {
        Some(p) if p == Path::new("-") => println!("{}", serde_json::to_string_pretty(&report)?),
        Some(p) => {
            std::fs::write(p, serde_json::to_string_pretty(&report)?)
                .with_context(|| format!("--json {}", p.display()))?;
            print!("{}", table(&report));
        }
        None => print!("{}", table(&report)),
    }
    Ok(())
}

/// Name of the repository in the bench's own data directory.
const NAME: &str = "bench";

/// Recreates `src` under `dst`: hard links where the file system allows, else copies;
/// symbolic links as links.
fn mirror(src: &Path, dst: &Path) -> Result<()> {
    std::fs::create_dir_all(dst).with_context(|| format!("{}", dst.display()))?;
    let mut stack = vec![(src.to_path_buf(), dst.to_path_buf())];
    while let Some((from, to)) = stack.pop() {
        let entries = std::fs::read_dir(&from).with_context(|| format!("{}", from.display()))?;
        for e in entries {
            let e = e?;
            let (s, d) = (e.path(), to.join(e.file_name()));
            let ft = e.file_type()?;
            if ft.is_dir() {
                std::fs::create_dir(&d).with_context(|| format!("{}", d.display()))?;
                stack.push((s, d));
            } else if ft.is_symlink() {
                #[cfg(unix)]
                std::os::unix::fs::symlink(std::fs::read_link(&s)?, &d)?;
            } else if std::fs::hard_link(&s, &d).is_err() {
                // Unreadable files stay unreadable in the mirror: the indexer reports them.
                if std::fs::copy(&s, &d).is_err() {
                    std::fs::write(&d, b"")?;
                    #[cfg(unix)]
                    std::fs::set_permissions(&d, std::os::unix::fs::PermissionsExt::from_mode(0o000))?;
                }
            }
        }
    }
    Ok(())
}

/// Appends one newline to `path` in the mirror, after breaking its hard link (the
/// repository's own file is left as it was).
fn touch(path: &Path) -> Result<()> {
    let mut bytes = std::fs::read(path).with_context(|| format!("{}", path.display()))?;
    bytes.push(b'\n');
    std::fs::remove_file(path)?;
    std::fs::write(path, bytes).with_context(|| format!("{}", path.display()))
}

/// `text` of the file `path` with one function added (at the end, or inside the last class
/// where functions cannot be top-level); `None` for a language it does not write.
fn with_added_function(path: &str, text: &str) -> Option<String> {
    let ext = path.rsplit_once('.')?.1;
    let top = match ext {
        "py" => "\n\ndef cc_bench_added_function():\n    return 1\n",
        "rs" => "\npub fn cc_bench_added_function() -> u32 {\n    1\n}\n",
        "go" => "\nfunc ccBenchAddedFunction() int {\n\treturn 1\n}\n",
        "ts" | "tsx" | "js" | "jsx" | "mjs" => "\nexport function ccBenchAddedFunction() {\n  return 1;\n}\n",
        "kt" => "\nfun ccBenchAddedFunction(): Int = 1\n",
        "c" | "cc" | "cpp" => "\nint cc_bench_added_function(void) { return 1; }\n",
        "rb" => "\ndef cc_bench_added_function\n  1\nend\n",
        "java" | "cs" => {
            let at = text.rfind('}').unwrap_or(0);
            let method = "\n    static int ccBenchAddedFunction() {\n        return 1;\n    }\n";
            return Some(format!("{}{method}{}", &text[..at], &text[at..]));
        }
        _ => return None,
    };
    Some(format!("{text}{top}"))
}

/// How many symbols the fresh-process kinds run (each query is a process: slow to repeat).
const PROCESS_QUERIES: usize = 30;

/// `cc-server callers ID` and `cc-server impact ID --depth 3`, each query a fresh process
/// (start, open the graph, walk, print, exit), over the first `n` symbols of the in-process
/// callers and impact workloads. Peak memory from `/usr/bin/time` where it is installed.
fn process_queries(data_dir: &Path, queries: &[QueryStats], n: usize) -> Result<Vec<QueryStats>> {
    let exe = std::env::current_exe().context("cannot find the cc-server binary")?;
    let time = Path::new("/usr/bin/time");
    let mut out = Vec::new();
    for (kind, from, args) in [
        ("callers_process", "callers", &["callers"][..]),
        ("impact_d3_process", "impact_d3", &["impact", "--depth", "3"][..]),
    ] {
        let Some(q) = queries.iter().find(|q| q.kind == from) else { continue };
        let workload: Vec<String> = q.workload.iter().take(n).cloned().collect();
        let run = |id: &str, rss: Option<&Path>| -> Result<std::process::Output> {
            let mut cmd = match rss {
                Some(f) => {
                    let mut c = Command::new(time);
                    c.arg("-f").arg("%M").arg("-o").arg(f).arg(&exe);
                    c
                }
                None => Command::new(&exe),
            };
            cmd.arg("--data-dir").arg(data_dir).arg("--quiet").args(&args[..1]).arg(id).args(&args[1..]).arg("--json");
            let o = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).output()?;
            anyhow::ensure!(
                o.status.success(),
                "cc-server {} {id}: {}",
                args[0],
                String::from_utf8_lossy(&o.stderr).trim()
            );
            Ok(o)
        };
        let hits = |o: std::process::Output| -> Result<usize> {
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).context("the query's --json")?;
            Ok(v["results"].as_array().map_or(0, Vec::len))
        };
        let mut st = time_kind(kind, workload.clone(), |id| hits(run(id, None)?))?;
        if time.is_file() {
            let f = tempfile::NamedTempFile::new()?;
            let mut peak: Option<f64> = None;
            for id in workload.iter().take(5) {
                run(id, Some(f.path()))?;
                let kib: Option<f64> =
                    std::fs::read_to_string(f.path())?.trim().lines().last().and_then(|l| l.parse().ok());
                peak = match (peak, kib.map(|k| k / 1024.0)) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
            }
            st.peak_rss_mb = peak;
        } else {
            st.note = Some("peak memory not measured: /usr/bin/time is not installed (apt-get install time)".into());
        }
        out.push(st);
    }
    Ok(out)
}

/// `n` distinct items of `items`, seeded.
fn sample<'a>(rng: &mut fastrand::Rng, items: &[&'a str], n: usize) -> Vec<&'a str> {
    let mut idx: Vec<usize> = (0..items.len()).collect();
    rng.shuffle(&mut idx);
    idx.truncate(n);
    idx.sort_unstable();
    idx.into_iter().map(|i| items[i]).collect()
}

/// What the bench reads of `cc-server index --json`.
#[derive(Deserialize)]
struct ChildReport {
    parsed: u64,
    peak_rss_mb: Option<f64>,
    changed: u64,
    stats: ChildStats,
    seconds: f64,
    graph: ChildGraph,
}

#[derive(Deserialize)]
struct ChildGraph {
    seconds: f64,
    save_seconds: f64,
    refs_resolved: u64,
    #[serde(default)]
    layered: bool,
}

#[derive(Deserialize)]
struct ChildStats {
    files: u64,
    bytes: u64,
    symbols: u64,
    references: u64,
}

/// One `cc-server index` child process.
struct Child {
    report: ChildReport,
    wall_s: f64,
    peak_rss_mb: Option<f64>,
    /// The repository's folder on disk after the run: search index, records, graph and
    /// vectors (the run's own `index_bytes` is taken before the graph and vectors are written).
    index_bytes: u64,
}

impl Child {
    fn run(&self, phase: &str, per_changed_file_ms: Option<f64>) -> IndexRun {
        let s = &self.report.stats;
        IndexRun {
            phase: phase.into(),
            parsed: self.report.parsed,
            wall_s: self.wall_s,
            mb_per_s: s.bytes as f64 / 1e6 / self.wall_s.max(1e-9),
            files_per_s: s.files as f64 / self.wall_s.max(1e-9),
            peak_rss_mb: self.peak_rss_mb,
            index_bytes: self.index_bytes,
            index_to_source: self.index_bytes as f64 / (s.bytes.max(1)) as f64,
            per_changed_file_ms,
            index_s: self.report.seconds,
            graph_s: self.report.graph.seconds,
            graph_save_s: self.report.graph.save_seconds,
            refs_resolved: self.report.graph.refs_resolved,
            graph_layered: self.report.graph.layered,
        }
    }
}

fn index_child(tree: &Path, data_dir: &Path, threads: Option<usize>) -> Result<Child> {
    let exe = std::env::current_exe().context("cannot find the cc-server binary")?;
    let mut cmd = Command::new(exe);
    cmd.arg("--data-dir").arg(data_dir).arg("--quiet").arg("index").arg(tree).args(["--name", NAME, "--json"]);
    if let Some(t) = threads {
        cmd.arg("--threads").arg(t.to_string());
    }
    // The child embeds with the model this process was given (flag or environment).
    if let Some(spec) = crate::embedding::global().spec() {
        cmd.env("CC_EMBED_MODEL", spec);
    }
    let (out, wall_s, sampled) = measure(cmd)?;
    if !out.status.success() {
        bail!("cc-server index failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let report: ChildReport =
        serde_json::from_slice(&out.stdout).context("cc-server index --json printed something unexpected")?;
    let peak_rss_mb = report.peak_rss_mb.or(sampled);
    let index_bytes = cc_indexer::store::dir_size(&DataDir::new(data_dir).repo_dir(NAME));
    Ok(Child { report, wall_s, peak_rss_mb, index_bytes })
}

/// Runs `cmd` to the end: its output, wall seconds and peak RSS in MB. The peak is the
/// child's `VmHWM` (its high-water mark, from `/proc`), read every few milliseconds while
/// it runs: growth in its last milliseconds can be missed, so `cc-server index` reports
/// its own peak instead (`peak_rss_mb` of its `--json`), which the bench prefers.
fn measure(mut cmd: Command) -> Result<(std::process::Output, f64, Option<f64>)> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let child = cmd.spawn().with_context(|| format!("cannot start {:?}", cmd.get_program()))?;
    let status_file = PathBuf::from(format!("/proc/{}/status", child.id()));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut peak: Option<u64> = None;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if let Some(kib) = std::fs::read_to_string(&status_file).ok().as_deref().and_then(vm_hwm_kib) {
                    peak = Some(peak.map_or(kib, |p| p.max(kib)));
                }
                std::thread::sleep(std::time::Duration::from_millis(3));
            }
            peak
        })
    };
    let out = child.wait_with_output();
    let wall = started.elapsed().as_secs_f64();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak = sampler.join().ok().flatten().map(|k| k as f64 / 1024.0);
    Ok((out?, wall, peak))
}

/// `VmHWM` (peak resident set, KiB) of a `/proc/<pid>/status` text.
pub fn vm_hwm_kib(status: &str) -> Option<u64> {
    status_kib(status, "VmHWM:")
}

/// A `/proc/<pid>/status` field in KiB (`field` with its colon: `VmRSS:`).
pub fn status_kib(status: &str, field: &str) -> Option<u64> {
    status.lines().find(|l| l.starts_with(field))?.split_whitespace().nth(1)?.parse().ok()
}

/// The query workload on the bench's index: each kind over symbols drawn with `rng`.
fn query_workload(data: &DataDir, n: usize, rng: &mut fastrand::Rng) -> Result<Vec<QueryStats>> {
    let loaded = crate::engine::Loaded::open(data, NAME)?;
    // The graph as the server walks it (`graph.map` in place).
    let graph = &*loaded.graph;
    let mut all = Vec::with_capacity(graph.symbol_count());
    for p in graph.symbol_positions()? {
        all.push(graph.symbol_at(p)?.into_owned());
    }
    let mut symbols: Vec<&cc_graph::SymbolInfo> = all.iter().collect();
    if symbols.is_empty() {
        bail!("the repository has no symbols to query");
    }
    symbols.sort_by_key(|s| s.id);
    let mut pick = || -> Vec<&cc_graph::SymbolInfo> { (0..n).map(|_| symbols[rng.usize(..symbols.len())]).collect() };
    let mut out = Vec::new();

    let exact = pick();
    out.push(time_kind("exact", exact.iter().map(|s| s.name.clone()).collect(), |q| {
        Ok(loaded.repo.symbols.lookup(q, 10)?.len())
    })?);
    // Search queries: the words of a symbol's name, as a person would type them, in each
    // mode. Semantic and hybrid need the embedding model (`--embed-model`): without it
    // they are listed as not measured, with the reason.
    let words = |s: &cc_graph::SymbolInfo| {
        let w: Vec<String> = cc_indexer::tokenize::split_identifier(&s.name).into_iter().map(|(_, w)| w).collect();
        if w.is_empty() {
            s.name.clone()
        } else {
            w.join(" ")
        }
    };
    for mode in [cc_indexer::Mode::Keyword, cc_indexer::Mode::Semantic, cc_indexer::Mode::Hybrid] {
        let queries: Vec<String> = pick().into_iter().map(words).collect();
        let search = |q: &str| {
            let sq = SearchQuery { text: q.to_string(), limit: 10, ..Default::default() };
            crate::engine::hybrid_search(&loaded.repo, loaded.vectors(), &sq, mode)
        };
        // One query first: does this mode run as asked (semantic needs vectors and a model)?
        let probe = search(&queries[0])?;
        if probe.mode != mode {
            let mut st = stats(mode.as_str(), queries, Vec::new(), 0);
            st.note = Some(format!("not measured: semantic {}", probe.semantic));
            out.push(st);
            continue;
        }
        out.push(time_kind(mode.as_str(), queries, |q| Ok(search(q)?.hits.len()))?);
    }
    use cc_graph::Direction::{Incoming, Outgoing};
    let walks =
        [("callers", 1, Incoming), ("callees", 1, Outgoing), ("impact_d3", 3, Incoming), ("impact_d6", 6, Incoming)];
    for (kind, depth, dir) in walks {
        let picked = pick();
        let ids: std::collections::HashMap<String, cc_indexer::SymbolId> =
            picked.iter().map(|s| (s.id.to_string(), s.id)).collect();
        let limits = cc_graph::Limits { depth, nodes: cc_graph::Limits::default().nodes };
        out.push(time_kind(kind, picked.iter().map(|s| s.id.to_string()).collect(), |q| {
            let follow = cc_graph::Follow::default();
            let w = if kind.starts_with("impact") {
                graph.impact_with(ids[q], limits, follow)?
            } else {
                graph.walk(ids[q], dir, limits, follow)?
            };
            Ok(w.hits.len())
        })?);
    }
    Ok(out)
}

/// Runs `f` on every query of `workload`, timing each.
fn time_kind(kind: &str, workload: Vec<String>, mut f: impl FnMut(&str) -> Result<usize>) -> Result<QueryStats> {
    let mut samples = Vec::with_capacity(workload.len());
    let mut hits = 0usize;
    for q in &workload {
        let t = Instant::now();
        hits += f(q)?;
        samples.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    Ok(stats(kind, workload, samples, hits))
}

fn stats(kind: &str, workload: Vec<String>, samples_ms: Vec<f64>, hits: usize) -> QueryStats {
    let mut sorted = samples_ms.clone();
    sorted.sort_by(f64::total_cmp);
    QueryStats {
        kind: kind.into(),
        count: samples_ms.len(),
        p50_ms: percentile(&sorted, 50.0),
        p95_ms: percentile(&sorted, 95.0),
        p99_ms: percentile(&sorted, 99.0),
        max_ms: sorted.last().copied().unwrap_or(0.0),
        peak_rss_mb: None,
        mean_hits: hits as f64 / samples_ms.len().max(1) as f64,
        workload,
        samples_ms,
        note: None,
    }
}

/// The `p`-th percentile (0..=100) of sorted values, nearest rank.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Whether `program` is on PATH.
fn installed(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

fn not_run(peer: &str, task: &str, how: &str) -> PeerRun {
    PeerRun {
        peer: peer.into(),
        task: task.into(),
        status: "not run".into(),
        note: Some(format!("not installed: {how}")),
        wall_s: None,
        peak_rss_mb: None,
        p50_ms: None,
        p99_ms: None,
        ratio: None,
    }
}

fn failed(peer: &str, task: &str, why: String) -> PeerRun {
    PeerRun { status: "failed".into(), note: Some(why), ..not_run(peer, task, "") }
}

/// An indexing peer: `program args… TREE`, timed against cc-server's cold index.
struct IndexPeer {
    peer: &'static str,
    program: &'static str,
    args: &'static [&'static str],
    note: &'static str,
    install: &'static str,
}

const INDEX_PEERS: &[IndexPeer] = &[
    IndexPeer {
        peer: "universal-ctags",
        program: "ctags",
        // The tags file goes to standard output (discarded): definitions only, one core.
        args: &["-R", "-f", "-"],
        note: "ctags -R: definitions only",
        install: "apt-get install universal-ctags",
    },
    IndexPeer {
        peer: "CodeGraphContext",
        program: "cgc",
        args: &["index"],
        note: "cgc index",
        install: "pip install codegraphcontext",
    },
];

fn run_index_peer(p: &IndexPeer, tree: &Path, cold: &Child) -> Result<PeerRun> {
    if !installed(p.program) {
        return Ok(not_run(p.peer, "index", p.install));
    }
    let mut cmd = Command::new(p.program);
    cmd.args(p.args).arg(tree);
    let (out, wall, rss) = measure(cmd)?;
    if !out.status.success() {
        return Ok(failed(p.peer, "index", String::from_utf8_lossy(&out.stderr).trim().to_string()));
    }
    Ok(PeerRun {
        peer: p.peer.into(),
        task: "index".into(),
        status: "ran".into(),
        note: Some(p.note.into()),
        wall_s: Some(wall),
        peak_rss_mb: rss,
        p50_ms: None,
        p99_ms: None,
        ratio: Some(wall / cold.wall_s.max(1e-9)),
    })
}

fn run_peers(tree: &Path, cold: &Child, queries: &[QueryStats]) -> Result<Vec<PeerRun>> {
    let mut peers = Vec::new();
    for p in INDEX_PEERS {
        peers.push(run_index_peer(p, tree, cold)?);
    }
    // ripgrep: finding a symbol by name without an index (the first 50 exact queries).
    let exact = queries.iter().find(|q| q.kind == "exact");
    if !installed("rg") {
        peers.push(not_run("ripgrep", "find_symbol", "apt-get install ripgrep"));
        return Ok(peers);
    }
    let mut samples = Vec::new();
    let names: Vec<String> = exact.map(|q| q.workload.iter().take(50).cloned().collect()).unwrap_or_default();
    for name in &names {
        let mut cmd = Command::new("rg");
        cmd.args(["-n", "-w", "--no-messages", "-e"]).arg(name).arg(tree);
        let (out, wall, _) = measure(cmd)?;
        // rg exits 1 when nothing matched: still a completed search.
        if out.status.code().is_none_or(|c| c > 1) {
            peers.push(failed("ripgrep", "find_symbol", String::from_utf8_lossy(&out.stderr).trim().to_string()));
            return Ok(peers);
        }
        samples.push(wall * 1000.0);
    }
    let s = stats("rg", names, samples, 0);
    let ours = exact.map(|q| q.p50_ms).unwrap_or(0.0);
    peers.push(PeerRun {
        peer: "ripgrep".into(),
        task: "find_symbol".into(),
        status: "ran".into(),
        note: Some(format!("rg -n -w NAME over the tree, {} queries", s.count)),
        wall_s: None,
        peak_rss_mb: None,
        p50_ms: Some(s.p50_ms),
        p99_ms: Some(s.p99_ms),
        ratio: (ours > 0.0).then(|| s.p50_ms / ours),
    });
    Ok(peers)
}

fn machine() -> Machine {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
    });
    Machine { cores: std::thread::available_parallelism().map_or(1, |n| n.get()), os: std::env::consts::OS.into(), cpu }
}

fn git_commit(path: &Path) -> Option<String> {
    let out =
        Command::new("git").arg("-C").arg(path).args(["rev-parse", "HEAD"]).stderr(Stdio::null()).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The report as a table a person reads at a glance.
pub fn table(r: &BenchReport) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let mb = r.repo.bytes as f64 / 1e6;
    let _ = writeln!(
        t,
        "{}  ({}{} files, {:.1} MB, {} symbols, {} references; {} cores; cc-server {}; seed {})\n",
        r.repo.path,
        r.repo.commit.as_deref().map(|c| format!("commit {}, ", &c[..c.len().min(12)])).unwrap_or_default(),
        r.repo.files,
        mb,
        r.repo.symbols,
        r.repo.references,
        r.machine.cores,
        r.cc_server_version,
        r.seed
    );
    let _ = writeln!(
        t,
        "{:<10} {:>7} {:>9} {:>8} {:>9} {:>8} {:>9} {:>10} {:>11} {:>8} {:>8} {:>8} {:>9} {:>8}",
        "index",
        "parsed",
        "wall_s",
        "MB/s",
        "files/s",
        "RSS_MB",
        "size_MB",
        "size/src",
        "ms/changed",
        "index_s",
        "graph_s",
        "save_s",
        "refs",
        "layered"
    );
    for i in &r.index {
        let _ = writeln!(
            t,
            "{:<10} {:>7} {:>9.3} {:>8.1} {:>9.0} {:>8} {:>9.1} {:>10.2} {:>11} {:>8.3} {:>8.3} {:>8.3} {:>9} {:>8}",
            i.phase,
            i.parsed,
            i.wall_s,
            i.mb_per_s,
            i.files_per_s,
            i.peak_rss_mb.map_or("-".into(), |m| format!("{m:.0}")),
            i.index_bytes as f64 / 1e6,
            i.index_to_source,
            i.per_changed_file_ms.map_or("-".into(), |m| format!("{m:.1}")),
            i.index_s,
            i.graph_s,
            i.graph_save_s,
            i.refs_resolved,
            if i.graph_layered { "yes" } else { "no" }
        );
    }
    let _ = writeln!(
        t,
        "\n{:<17} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8}",
        "query", "count", "p50_ms", "p95_ms", "p99_ms", "max_ms", "mean_hits", "RSS_MB"
    );
    for q in &r.queries {
        if let Some(note) = q.note.as_deref().filter(|_| q.count == 0) {
            let _ = writeln!(t, "{:<17} {:>7}  {note}", q.kind, 0);
            continue;
        }
        let _ = writeln!(
            t,
            "{:<17} {:>7} {:>10.3} {:>10.3} {:>10.3} {:>10.3} {:>10.1} {:>8}",
            q.kind,
            q.count,
            q.p50_ms,
            q.p95_ms,
            q.p99_ms,
            q.max_ms,
            q.mean_hits,
            q.peak_rss_mb.map_or("-".into(), |m| format!("{m:.1}"))
        );
    }
    if !r.peers.is_empty() {
        let _ = writeln!(
            t,
            "\n{:<18} {:<12} {:<8} {:>9} {:>8} {:>9} {:>9} {:>8}  note",
            "peer", "task", "status", "wall_s", "RSS_MB", "p50_ms", "p99_ms", "ratio"
        );
        let f = |v: Option<f64>, p: usize| v.map_or("-".into(), |v| format!("{v:.p$}"));
        for p in &r.peers {
            let _ = writeln!(
                t,
                "{:<18} {:<12} {:<8} {:>9} {:>8} {:>9} {:>9} {:>8}  {}",
                p.peer,
                p.task,
                p.status,
                f(p.wall_s, 3),
                f(p.peak_rss_mb, 0),
                f(p.p50_ms, 3),
                f(p.p99_ms, 3),
                p.ratio.map_or("-".into(), significant),
                p.note.as_deref().unwrap_or("")
            );
        }
        let _ = writeln!(
            t,
            "(ratio: the peer's time over cc-server's — index: cold wall time; find_symbol: exact-lookup p50)"
        );
    }
    t
}

/// Draws each query kind's latency distribution (min–p99 line, p25–p75 box, p50 mark,
/// on a log scale) into an SVG file.
fn plot(r: &BenchReport, path: &Path) -> Result<()> {
    use plotters::prelude::*;
    let kinds: Vec<&QueryStats> = r.queries.iter().filter(|q| !q.samples_ms.is_empty()).collect();
    let all = kinds.iter().flat_map(|q| q.samples_ms.iter().copied());
    let lo = all.clone().fold(f64::INFINITY, f64::min).max(1e-4);
    let hi = all.fold(0.0f64, f64::max).max(lo * 10.0);
    let height = 120 + 60 * kinds.len() as u32;
    let root = SVGBackend::new(path, (900, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("plot: {e}"))?;
    let name = Path::new(&r.repo.path).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("cc-server bench: query latency, {name}"), ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(90)
        .build_cartesian_2d((lo / 1.5..hi * 1.5).log_scale(), -0.5f64..kinds.len() as f64 - 0.5)
        .map_err(|e| anyhow::anyhow!("plot: {e}"))?;
    let labels: Vec<String> = kinds.iter().map(|q| q.kind.clone()).collect();
    chart
        .configure_mesh()
        .x_desc("milliseconds (log scale)")
        .y_labels(kinds.len().max(1))
        .y_label_formatter(&|y| {
            let i = y.round() as i64;
            if (y - i as f64).abs() < 0.01 && i >= 0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .disable_y_mesh()
        .draw()
        .map_err(|e| anyhow::anyhow!("plot: {e}"))?;
    for (i, q) in kinds.iter().enumerate() {
        let mut s = q.samples_ms.clone();
        s.sort_by(f64::total_cmp);
        let y = i as f64;
        let p = |x| percentile(&s, x).max(lo);
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(s[0].max(lo), y), (p(99.0), y)],
                color.stroke_width(2),
            )))
            .map_err(|e| anyhow::anyhow!("plot: {e}"))?;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(p(25.0), y - 0.25), (p(75.0), y + 0.25)],
                color.mix(0.4).filled(),
            )))
            .map_err(|e| anyhow::anyhow!("plot: {e}"))?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(p(50.0), y - 0.3), (p(50.0), y + 0.3)],
                BLACK.stroke_width(3),
            )))
            .map_err(|e| anyhow::anyhow!("plot: {e}"))?;
    }
    root.present().map_err(|e| anyhow::anyhow!("plot: {e}"))?;
    Ok(())
}

/// A ratio with three significant digits (`0.00209`, `0.59`, `1523`): a peer can be a
/// thousand times faster or slower, and two decimals would print both ends as nonsense.
fn significant(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return format!("{v}");
    }
    let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 8) as usize;
    format!("{v:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::{percentile, significant};

    #[test]
    fn percentiles() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&v, 100.0), 100.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }

    #[test]
    fn ratios_keep_three_significant_digits() {
        assert_eq!(significant(0.002093), "0.00209");
        assert_eq!(significant(0.5912), "0.591");
        assert_eq!(significant(12.34), "12.3");
        assert_eq!(significant(1523.03), "1523");
        assert_eq!(significant(0.0), "0");
    }
}
