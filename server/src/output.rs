//! What the command line prints: progress, reports, result tables, JSON.

use anyhow::Result;
use cc_indexer::{DataDir, IndexReport, RepoMeta, SymbolDoc};
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Progress on stderr: a bar when it is a terminal; else (a log, CI) a line every
/// [`LINE_EVERY`], so a long run is not silent.
pub struct Bar {
    bar: Option<ProgressBar>,
    lines: Option<Lines>,
}

/// How often progress is printed as a line when stderr is no terminal (CC_PROGRESS_EVERY,
/// in seconds, changes it).
pub const LINE_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

struct Lines {
    started: std::time::Instant,
    every_ms: u64,
    /// Milliseconds after `started` of the last line printed.
    last: AtomicU64,
    done: AtomicU64,
    total: AtomicU64,
    files: AtomicU64,
    /// 0: indexing (bytes), 1: embedding (symbols).
    phase: AtomicU64,
}

impl Lines {
    fn tick(&self) {
        let now = self.started.elapsed().as_millis() as u64;
        let last = self.last.load(Relaxed);
        if now < last + self.every_ms || self.last.compare_exchange(last, now, Relaxed, Relaxed).is_err() {
            return;
        }
        let (done, total) = (self.done.load(Relaxed), self.total.load(Relaxed).max(1));
        let pct = (done as f64 / total as f64 * 100.0).min(100.0);
        if self.phase.load(Relaxed) == 0 {
            let files = self.files.load(Relaxed);
            eprintln!(
                "indexing: {} of {} parsed ({pct:.0}%, {files} files), {:.0} s",
                mb(done),
                mb(total),
                now as f64 / 1e3
            );
        } else {
            eprintln!("embedding: {done} of {total} symbols ({pct:.0}%), {:.0} s", now as f64 / 1e3);
        }
    }
}

impl Bar {
    /// Progress, unless `show` is false (--quiet, --json).
    pub fn new(show: bool) -> Bar {
        use std::io::IsTerminal;
        let terminal = std::io::stderr().is_terminal();
        let bar = (show && terminal).then(|| {
            let b = ProgressBar::new(0);
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} indexing [{bar:30}] {decimal_bytes}/{decimal_total_bytes} {decimal_bytes_per_sec} eta {eta} {msg}",
                )
                .expect("template")
                .progress_chars("=> "),
            );
            b
        });
        let every = std::env::var("CC_PROGRESS_EVERY").ok().and_then(|v| v.parse::<f64>().ok()).filter(|s| *s >= 0.0);
        let lines = (show && !terminal).then(|| Lines {
            started: std::time::Instant::now(),
            every_ms: every.map_or(LINE_EVERY.as_millis() as u64, |s| (s * 1000.0) as u64),
            last: AtomicU64::new(0),
            done: AtomicU64::new(0),
            total: AtomicU64::new(0),
            files: AtomicU64::new(0),
            phase: AtomicU64::new(0),
        });
        Bar { bar, lines }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl cc_indexer::Progress for Bar {
    fn start(&self, files: u64, bytes: u64) {
        if let Some(b) = &self.bar {
            b.set_length(bytes);
            b.set_message(format!("{files} files"));
        }
        if let Some(l) = &self.lines {
            l.total.store(bytes, Relaxed);
            l.files.store(files, Relaxed);
        }
    }

    fn advance(&self, bytes: u64) {
        if let Some(b) = &self.bar {
            b.inc(bytes);
        }
        if let Some(l) = &self.lines {
            l.done.fetch_add(bytes, Relaxed);
            l.tick();
        }
    }
}

impl cc_indexer::vectors::EmbedProgress for Bar {
    fn embed_start(&self, texts: u64) {
        if let Some(b) = &self.bar {
            b.set_style(
                ProgressStyle::with_template("{spinner} embedding [{bar:30}] {pos}/{len} symbols {per_sec} eta {eta}")
                    .expect("template")
                    .progress_chars("=> "),
            );
            b.set_position(0);
            b.set_length(texts);
        }
        if let Some(l) = &self.lines {
            l.phase.store(1, Relaxed);
            l.done.store(0, Relaxed);
            l.total.store(texts, Relaxed);
        }
    }

    fn embed_advance(&self, texts: u64) {
        if let Some(b) = &self.bar {
            b.inc(texts);
        }
        if let Some(l) = &self.lines {
            l.done.fetch_add(texts, Relaxed);
            l.tick();
        }
    }
}

pub fn mb(bytes: u64) -> String {
    if bytes >= 1_000_000 {
        format!("{:.1} MB", bytes as f64 / 1e6)
    } else {
        format!("{:.1} kB", bytes as f64 / 1e3)
    }
}

/// How a run brought the call graph up to date.
fn how(g: &crate::engine::GraphReport) -> &'static str {
    match (g.full, g.layered) {
        (true, _) => "full build",
        (false, true) => "incremental, laid over the saved graph",
        (false, false) => "incremental",
    }
}

/// The closing summary of an index run.
/// One line for a `--watch` run after the first: what changed, how long it took.
pub fn print_change(run: &crate::engine::Indexed) {
    let r: &IndexReport = &run.index;
    println!(
        "re-indexed '{}' in {:.2} s: {} added, {} changed, {} deleted; {} symbols; call graph {} edges ({})",
        r.name,
        r.seconds,
        r.added,
        r.changed,
        r.deleted,
        r.stats.symbols,
        run.graph.edges,
        how(&run.graph)
    );
}

pub fn print_report(run: &crate::engine::Indexed, short: bool) {
    let r: &IndexReport = &run.index;
    let s = &r.stats;
    if let Some(why) = &r.rebuilt {
        eprintln!("note: rebuilt from scratch: {why}");
    }
    println!(
        "indexed '{}' ({}) in {:.2} s: {} files, {}, {} symbols, {} references",
        r.name,
        r.root,
        r.seconds,
        s.files,
        mb(s.bytes),
        s.symbols,
        s.references
    );
    println!(
        "  this run: parsed {} files ({}, {:.1} MB/s, {:.0} files/s); {} added, {} changed, {} deleted, {} unchanged",
        r.parsed,
        mb(r.parsed_bytes),
        r.mb_per_sec(),
        if r.seconds > 0.0 { r.parsed as f64 / r.seconds } else { 0.0 },
        r.added,
        r.changed,
        r.deleted,
        r.unchanged
    );
    let g = &run.graph;
    println!(
        "  call graph: {} nodes, {} edges; {} references resolved in {:.2} s ({})",
        g.nodes,
        g.edges,
        g.refs_resolved,
        g.seconds,
        how(g)
    );
    match &run.embeddings {
        crate::engine::EmbedOutcome::Done(e) => println!(
            "  embeddings: {} symbols, {} embedded ({:.0} symbols/s), {} reused; model {}",
            e.symbols, e.embedded, e.symbols_per_sec, e.reused, e.model
        ),
        crate::engine::EmbedOutcome::Skipped { reason } => println!("  embeddings: skipped ({reason})"),
        crate::engine::EmbedOutcome::Unavailable { reason } => {
            println!("  embeddings: unavailable ({reason}); search answers by keyword only")
        }
    }
    if short {
        return;
    }
    if !s.languages.is_empty() {
        println!("  {:<12} {:>8} {:>10} {:>10} {:>11}", "language", "files", "size", "symbols", "references");
        for (lang, l) in &s.languages {
            println!(
                "  {:<12} {:>8} {:>10} {:>10} {:>11}",
                lang.spec().display,
                l.files,
                mb(l.bytes),
                l.symbols,
                l.references
            );
        }
    }
    let skipped: Vec<String> = s.skipped.iter().map(|(k, v)| format!("{v} {}", k.as_str())).collect();
    if !skipped.is_empty() {
        println!("  skipped: {}", skipped.join(", "));
    }
    if r.other_files > 0 {
        println!("  {} files of other languages ignored", r.other_files);
    }
    let ratio = if s.bytes > 0 { s.index_bytes as f64 / s.bytes as f64 } else { 0.0 };
    println!("  index: {} on disk ({ratio:.2}x the source)", mb(s.index_bytes));
    if !r.diagnostics.is_empty() {
        println!("  {} diagnostics:", r.diagnostics.len());
        for d in r.diagnostics.iter().take(10) {
            println!("    {d}");
        }
        if r.diagnostics.len() > 10 {
            println!("    … and {} more (see --json)", r.diagnostics.len() - 10);
        }
    }
}

fn location(s: &SymbolDoc) -> String {
    format!("{}:{}", s.path, s.span.start_line)
}

/// Hybrid search results: each with its BM25 rank, vector rank and fused score.
pub fn print_ranked(
    hits: &[(String, cc_indexer::HybridHit)],
    show_repo: bool,
    json: bool,
    mode: cc_indexer::Mode,
    semantic: &str,
) -> Result<()> {
    if json {
        let v: Vec<_> = hits
            .iter()
            .map(|(repo, h)| {
                serde_json::json!({"repo": repo, "rank": h.rank, "score": shortest(h.score), "mode": mode,
                    "bm25_rank": h.bm25_rank, "bm25_score": h.bm25_score.map(shortest),
                    "vector_rank": h.vector_rank, "vector_score": h.vector_score.map(shortest), "symbol": h.symbol})
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        if hits.is_empty() {
            println!("no matches");
        }
        let rank = |r: Option<usize>| r.map_or("-".to_string(), |r| format!("#{r}"));
        for (repo, h) in hits {
            let s = &h.symbol;
            let repo = if show_repo { format!("{repo}: ") } else { String::new() };
            println!(
                "{:>3}. {repo}{}  [{} {}]  score {:.4} (bm25 {}, vector {})",
                h.rank,
                location(s),
                s.kind,
                s.qualified_name,
                h.score,
                rank(h.bm25_rank),
                rank(h.vector_rank)
            );
            println!("       {}", s.signature);
        }
    }
    if let Some(why) = semantic.strip_prefix("unavailable: ") {
        // The reason's first clause (search_code's answer carries all of it).
        let why = why.split_once(": ").map_or(why, |(head, _)| head);
        eprintln!("mode: {} (semantic unavailable: {why}; see --embed-model)", mode.as_str());
    }
    Ok(())
}

/// An f32 as the f64 of its shortest decimal form: `0.95`, not the `0.949999988079071` a
/// plain widening gives in JSON.
pub fn shortest(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(x as f64)
}

pub fn print_symbols(found: &[(String, SymbolDoc)], show_repo: bool, json: bool) -> Result<()> {
    if json {
        let v: Vec<_> = found.iter().map(|(repo, s)| serde_json::json!({"repo": repo, "symbol": s})).collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    for (repo, s) in found {
        let repo = if show_repo { format!("{repo}: ") } else { String::new() };
        println!("{repo}{}  [{} {}]", location(s), s.kind, s.qualified_name);
        println!("    {}", s.signature);
    }
    Ok(())
}

pub fn print_repos(data: &DataDir, metas: &[cc_indexer::Result<RepoMeta>], json: bool) -> Result<()> {
    if json {
        let v: Vec<_> = metas
            .iter()
            .map(|m| match m {
                Ok(m) => serde_json::to_value(m).expect("meta"),
                Err(e) => serde_json::json!({"error": e.to_string()}),
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    if metas.is_empty() {
        println!("nothing indexed in {} yet; run `cc-server index PATH`", data.root.display());
        return Ok(());
    }
    println!("{:<24} {:>8} {:>10} {:>9} {:>10} {:<16} root", "name", "files", "source", "symbols", "index", "indexed");
    let now = std::time::SystemTime::now();
    for m in metas {
        match m {
            Ok(m) if m.format_version != cc_indexer::FORMAT_VERSION => {
                println!(
                    "{:<24} format version {} (this build reads {}): re-index {}",
                    m.name,
                    m.format_version,
                    cc_indexer::FORMAT_VERSION,
                    m.root
                );
            }
            Ok(m) => {
                let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(m.indexed_at);
                let ago =
                    now.duration_since(when).map(|d| std::time::Duration::from_secs(d.as_secs())).unwrap_or_default();
                println!(
                    "{:<24} {:>8} {:>10} {:>9} {:>10} {:<16} {}",
                    m.name,
                    m.stats.files,
                    mb(m.stats.bytes),
                    m.stats.symbols,
                    mb(m.stats.index_bytes),
                    format!("{} ago", humantime::format_duration(ago)),
                    m.root
                );
            }
            Err(e) => println!("(unreadable) {e}"),
        }
    }
    Ok(())
}

/// Callers, callees or impact: one row per symbol with its file:line, then the calls the
/// graph could not decide. `--json` prints what the MCP tools answer.
pub fn print_walk(op: crate::cli::GraphOp, out: &crate::mcp::tools::code::GraphOut, json: bool) -> Result<()> {
    use crate::cli::GraphOp;
    if json {
        println!("{}", serde_json::to_string_pretty(out)?);
        return Ok(());
    }
    let what = match op {
        GraphOp::Callers => "callers of",
        GraphOp::Callees => "callees of",
        GraphOp::Impact => "impact of",
    };
    let (start, depth) = (&out.symbol, out.depth);
    println!("{what} {} ({}), depth {depth}:", start.qualified_name, start.location);
    if out.results.is_empty() {
        println!("  none found");
    }
    let sites = |v: &[String]| {
        let more = if v.len() > 3 { format!(" +{}", v.len() - 3) } else { String::new() };
        format!("{}{more}", v.iter().take(3).cloned().collect::<Vec<_>>().join(", "))
    };
    for h in &out.results {
        let mut marks: Vec<&str> = Vec::new();
        if h.kind != "call" {
            marks.push(&h.kind);
        }
        if h.ambiguous {
            marks.push("possible");
        }
        if h.recursive {
            marks.push("recursive");
        }
        let marks = if marks.is_empty() { String::new() } else { format!(" [{}]", marks.join(", ")) };
        let via =
            if h.path.len() > 2 { format!(" via {}", h.path[1..h.path.len() - 1].join(" > ")) } else { String::new() };
        println!(
            "  {:>2}  {}  {}  ({:.2}){marks} at {}{via}",
            h.distance,
            h.location,
            h.name,
            h.confidence,
            sites(&h.sites)
        );
    }
    if out.truncated_depth {
        println!("  (stopped at depth {depth}: there is more further out; raise --depth)");
    }
    if out.truncated_nodes {
        println!("  (stopped at the --limit of symbols: the answer is incomplete)");
    }
    if !out.possible.is_empty() {
        println!("  undecided calls, not followed (--possible walks them):");
        for p in &out.possible {
            let ends: Vec<String> = p.symbols.iter().map(|e| format!("{} ({})", e.name, e.location)).collect();
            match op {
                GraphOp::Callees => {
                    println!(
                        "  {:>2}  {} at {}: one of {}: {}",
                        p.distance,
                        p.via,
                        sites(&p.sites),
                        p.candidates,
                        ends.join(", ")
                    )
                }
                GraphOp::Callers | GraphOp::Impact => println!(
                    "  {:>2}  {} at {}: may call {} (one of {} candidates)",
                    p.distance,
                    ends.join(", "),
                    sites(&p.sites),
                    p.via,
                    p.candidates
                ),
            }
        }
    }
    Ok(())
}
