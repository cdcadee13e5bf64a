//! What the command line prints: progress, reports, result tables, JSON.

use anyhow::Result;
use cc_indexer::{DataDir, IndexReport, RepoMeta, SearchHit, SymbolDoc};
use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar on stderr when it is a terminal; nothing otherwise.
pub struct Bar(Option<ProgressBar>);

impl Bar {
    pub fn new(show: bool) -> Bar {
        Bar(show.then(|| {
            let b = ProgressBar::new(0);
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} indexing [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta} {msg}",
                )
                .expect("template")
                .progress_chars("=> "),
            );
            b
        }))
    }

    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

impl cc_indexer::Progress for Bar {
    fn start(&self, files: u64, bytes: u64) {
        if let Some(b) = &self.0 {
            b.set_length(bytes);
            b.set_message(format!("{files} files"));
        }
    }

    fn advance(&self, bytes: u64) {
        if let Some(b) = &self.0 {
            b.inc(bytes);
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

/// The closing summary of an index run.
pub fn print_report(r: &IndexReport, short: bool) {
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
    if short {
        return;
    }
    if !s.languages.is_empty() {
        println!(
            "  {:<12} {:>8} {:>10} {:>10} {:>11}",
            "language", "files", "size", "symbols", "references"
        );
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
    let skipped: Vec<String> = s
        .skipped
        .iter()
        .map(|(k, v)| format!("{v} {}", k.as_str()))
        .collect();
    if !skipped.is_empty() {
        println!("  skipped: {}", skipped.join(", "));
    }
    if r.other_files > 0 {
        println!("  {} files of other languages ignored", r.other_files);
    }
    let ratio = if s.bytes > 0 {
        s.index_bytes as f64 / s.bytes as f64
    } else {
        0.0
    };
    println!(
        "  index: {} on disk ({ratio:.2}x the source)",
        mb(s.index_bytes)
    );
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

pub fn print_hits(hits: &[(String, SearchHit)], show_repo: bool, json: bool) -> Result<()> {
    if json {
        let v: Vec<_> = hits
            .iter()
            .map(|(repo, h)| serde_json::json!({"repo": repo, "rank": h.rank, "score": h.score, "symbol": h.symbol}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    if hits.is_empty() {
        println!("no matches");
    }
    for (repo, h) in hits {
        let s = &h.symbol;
        let repo = if show_repo {
            format!("{repo}: ")
        } else {
            String::new()
        };
        println!(
            "{:>3}. {repo}{}  [{} {}]  score {:.2}",
            h.rank,
            location(s),
            s.kind,
            s.qualified_name,
            h.score
        );
        println!("       {}", s.signature);
    }
    Ok(())
}

pub fn print_symbols(found: &[(String, SymbolDoc)], show_repo: bool, json: bool) -> Result<()> {
    if json {
        let v: Vec<_> = found
            .iter()
            .map(|(repo, s)| serde_json::json!({"repo": repo, "symbol": s}))
            .collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    for (repo, s) in found {
        let repo = if show_repo {
            format!("{repo}: ")
        } else {
            String::new()
        };
        println!("{repo}{}  [{} {}]", location(s), s.kind, s.qualified_name);
        println!("    {}", s.signature);
    }
    Ok(())
}

pub fn print_repos(
    data: &DataDir,
    metas: &[cc_indexer::Result<RepoMeta>],
    json: bool,
) -> Result<()> {
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
        println!(
            "nothing indexed in {} yet; run `cc-server index PATH`",
            data.root.display()
        );
        return Ok(());
    }
    println!(
        "{:<24} {:>8} {:>10} {:>9} {:>10} {:<16} root",
        "name", "files", "source", "symbols", "index", "indexed"
    );
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
                let ago = now
                    .duration_since(when)
                    .map(|d| std::time::Duration::from_secs(d.as_secs()))
                    .unwrap_or_default();
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
