//! The baseline of `peers.sh`: pure tree-sitter work on exactly the files `cc-server
//! index` parses — the same walk (`cc_indexer::walk`), the same content checks, the same
//! grammars, one parser per rayon worker — without building records or writing anything.
//!
//! ```text
//! parse_only [--mode parse|tags] [--threads N] [--list FILE] [--slowest N] [--max-file-size BYTES] [--libc-malloc] PATH
//! ```
//!
//! tree-sitter allocates from mimalloc here as in `cc-server`
//! (`cc_indexer::memory::tree_sitter_uses_mimalloc`), so the two are compared on the same
//! allocator; `--libc-malloc` keeps tree-sitter on the C library's malloc (its default).
//!
//! `--mode parse` (default) only parses; `--mode tags` also runs each language's tags
//! query over the tree (iterating every match and capture, as the extractor does) but
//! builds nothing from them. `--list FILE` writes the absolute paths of the parsed files,
//! one a line (for `ctags -L`); `--slowest N` lists the N slowest files on stderr. Prints one line: `files=… bytes=… skipped=… captures=…
//! seconds=…`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use cc_indexer::walk::{self, WalkOptions};
use cc_indexer::Lang;
use rayon::prelude::*;
use tree_sitter::{Parser, QueryCursor, StreamingIterator};

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Parse,
    Tags,
}

struct Worker {
    parser: Parser,
    cursor: QueryCursor,
    current: Option<Lang>,
    /// Files are read into this buffer (reused, as the indexer does).
    buf: Vec<u8>,
}

fn read_into(path: &std::path::Path, buf: &mut Vec<u8>) -> std::io::Result<()> {
    use std::io::Read;
    buf.clear();
    let mut file = std::fs::File::open(path)?;
    if let Ok(m) = file.metadata() {
        buf.reserve(m.len() as usize);
    }
    file.read_to_end(buf)?;
    Ok(())
}

fn usage() -> ! {
    eprintln!(
        "usage: parse_only [--mode parse|tags] [--threads N] [--list FILE] [--slowest N] [--max-file-size BYTES] [--libc-malloc] PATH"
    );
    std::process::exit(2)
}

fn main() {
    let mut mode = Mode::Parse;
    let mut threads = None;
    let mut list: Option<PathBuf> = None;
    let mut slowest = 0usize;
    let mut max_file_size = walk::DEFAULT_MAX_FILE_SIZE;
    let mut root: Option<PathBuf> = None;
    let mut libc_malloc = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--mode" => {
                mode = match args.next().as_deref() {
                    Some("parse") => Mode::Parse,
                    Some("tags") | Some("parse+tags") => Mode::Tags,
                    _ => usage(),
                }
            }
            "--threads" | "-j" => {
                threads = Some(args.next().and_then(|v| v.parse::<usize>().ok()).unwrap_or_else(|| usage()))
            }
            "--list" => list = Some(args.next().unwrap_or_else(|| usage()).into()),
            "--slowest" => slowest = args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage()),
            "--max-file-size" => max_file_size = args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage()),
            "--libc-malloc" => libc_malloc = true,
            "-h" | "--help" => usage(),
            _ if root.is_none() && !a.starts_with('-') => root = Some(a.into()),
            _ => usage(),
        }
    }
    let Some(root) = root else { usage() };
    if !libc_malloc {
        // SAFETY: only the arguments were read so far; no tree-sitter object exists yet.
        #[allow(unsafe_code)]
        unsafe {
            cc_indexer::memory::tree_sitter_uses_mimalloc();
        }
    }
    let root = std::fs::canonicalize(&root).unwrap_or_else(|e| {
        eprintln!("{}: {e}", root.display());
        std::process::exit(2)
    });
    // The pool first: `WalkOptions::default()` would start the global pool at its default size.
    if let Some(t) = threads {
        rayon::ThreadPoolBuilder::new().num_threads(t.max(1)).build_global().expect("rayon pool");
    }
    let wopts = WalkOptions { max_file_size, threads: rayon::current_num_threads() };

    let started = Instant::now();
    let walked = walk::walk(&root, &wopts);
    let captures = AtomicU64::new(0);
    let parsed: Vec<Option<(PathBuf, u64, f64)>> = walked
        .files
        .par_iter()
        .map_init(
            || Worker { parser: Parser::new(), cursor: QueryCursor::new(), current: None, buf: Vec::new() },
            |w, f| {
                let t = Instant::now();
                read_into(&f.abs, &mut w.buf).ok()?;
                let bytes = &w.buf;
                if walk::classify_content(&f.rel, bytes).is_some() {
                    return None;
                }
                if w.current != Some(f.lang) {
                    w.parser.set_language(&f.lang.grammar()).ok()?;
                    w.current = Some(f.lang);
                }
                let tree = w.parser.parse(bytes, None)?;
                if mode == Mode::Tags {
                    let query = f.lang.try_tags_query().ok()?;
                    let mut n = 0u64;
                    let mut matches = w.cursor.matches(query, tree.root_node(), bytes.as_slice());
                    while let Some(m) = matches.next() {
                        n += m.captures.len() as u64;
                    }
                    captures.fetch_add(n, Ordering::Relaxed);
                }
                Some((f.abs.clone(), bytes.len() as u64, t.elapsed().as_secs_f64()))
            },
        )
        .collect();
    let seconds = started.elapsed().as_secs_f64();
    let files: Vec<&(PathBuf, u64, f64)> = parsed.iter().flatten().collect();
    let bytes: u64 = files.iter().map(|f| f.1).sum();
    let skipped = walked.files.len() - files.len();
    if let Some(list) = list {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&list).expect("--list writable"));
        for f in &files {
            writeln!(out, "{}", f.0.display()).expect("write list");
        }
    }
    if slowest > 0 {
        let mut by_time = files.clone();
        by_time.sort_by(|a, b| b.2.total_cmp(&a.2));
        for f in by_time.iter().take(slowest) {
            eprintln!("{:8.3}s {:9} bytes {}", f.2, f.1, f.0.display());
        }
    }
    println!(
        "files={} bytes={} skipped={} captures={} seconds={seconds:.3}",
        files.len(),
        bytes,
        skipped,
        captures.load(Ordering::Relaxed)
    );
}
