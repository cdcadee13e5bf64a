//! What each pattern of a language's tags query costs tree-sitter's query matching.
//!
//! ```text
//! cargo run --release -p cc-grammars --example query_cost -- LANG FILE_LIST [RUNS]
//! ```
//!
//! FILE_LIST names one source file per line. The files are parsed once; then the whole
//! query is matched over every tree (best of RUNS, default 3), and again with each pattern
//! disabled in turn: a pattern's share is the time its absence saves. `QUERY=path` matches
//! another query source instead of the built-in one (to try a rewrite); `ONLY=1` times the
//! whole query alone; `ROOTS=1` disables the patterns that start at one kind of node
//! together, kind by kind; `COMPILE=1` times compiling each pattern alone instead (a process
//! compiles a language's query once, before its first file of that language). The numbers
//! are of this machine and this sitting: compare rewrites side by side, in one run.
use std::time::Instant;
use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator, Tree};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: query_cost LANG FILE_LIST [RUNS]";
    let lang = args.get(1).and_then(|l| cc_grammars::Lang::from_name(l)).expect(usage);
    let list = std::fs::read_to_string(args.get(2).expect(usage)).expect("FILE_LIST cannot be read");
    let runs: usize = args.get(3).map(|a| a.parse().expect("RUNS is a number")).unwrap_or(3);
    let source = match std::env::var("QUERY") {
        Ok(path) => std::fs::read_to_string(&path).expect("QUERY cannot be read"),
        Err(_) => lang.tags_source().to_string(),
    };
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).expect("the grammar loads");
    let trees: Vec<(Vec<u8>, Tree)> = list
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|path| {
            let text = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let tree = parser.parse(&text, None).expect("parsed");
            (text, tree)
        })
        .collect();
    let time = |query: &Query| -> (f64, usize) {
        let (mut best, mut matched) = (f64::MAX, 0);
        let mut cursor = QueryCursor::new();
        for _ in 0..runs {
            let started = Instant::now();
            matched = 0;
            for (text, tree) in &trees {
                let mut matches = cursor.matches(query, tree.root_node(), text.as_slice());
                while matches.next().is_some() {
                    matched += 1;
                }
            }
            best = best.min(started.elapsed().as_secs_f64());
        }
        (best, matched)
    };
    let compile = || Query::new(&lang.grammar(), &source).expect("the query compiles");
    let started = Instant::now();
    let whole = compile();
    println!("compiled in {:.3} s", started.elapsed().as_secs_f64());
    let (all, matched) = time(&whole);
    println!("{} files, whole query: {all:.3} s, {matched} matches", trees.len());
    if std::env::var_os("ONLY").is_some() {
        return;
    }
    if std::env::var_os("ROOTS").is_some() {
        // Patterns grouped by the node they start at (`(call`, `([`): each group disabled.
        let mut groups: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
        for i in 0..whole.pattern_count() {
            let text = source[whole.start_byte_for_pattern(i)..].trim_start_matches(['(', ' ', '\n']);
            let root: String = text.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '[').collect();
            groups.entry(root).or_default().push(i);
        }
        let mut rows: Vec<(f64, String, usize)> = groups
            .into_iter()
            .map(|(root, patterns)| {
                let mut query = compile();
                for &i in &patterns {
                    query.disable_pattern(i);
                }
                (all - time(&query).0, root, patterns.len())
            })
            .collect();
        rows.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (saved, root, n) in rows.iter().take(15) {
            println!("{:6.1}%  {n:3} patterns at ({root}", 100.0 * saved / all);
        }
        return;
    }
    if std::env::var_os("COMPILE").is_some() {
        let mut rows: Vec<(f64, usize, usize)> = (0..whole.pattern_count())
            .map(|i| {
                let (from, to) = (
                    whole.start_byte_for_pattern(i),
                    if i + 1 < whole.pattern_count() { whole.start_byte_for_pattern(i + 1) } else { source.len() },
                );
                let started = Instant::now();
                let _ = Query::new(&lang.grammar(), &source[from..to]);
                (started.elapsed().as_secs_f64(), i, source[..from].lines().count() + 1)
            })
            .collect();
        rows.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (secs, i, line) in rows.iter().take(15) {
            println!("{secs:.3} s  pattern {i:3} (line {line}) compiled alone");
        }
        return;
    }
    let mut rows: Vec<(f64, usize, usize)> = (0..whole.pattern_count())
        .map(|i| {
            let mut query = compile();
            query.disable_pattern(i);
            let line = source[..whole.start_byte_for_pattern(i)].lines().count() + 1;
            (all - time(&query).0, i, line)
        })
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    for (saved, i, line) in rows.iter().take(25) {
        println!("{:6.1}%  pattern {i:3} (line {line})", 100.0 * saved / all);
    }
}
