//! Per-language fixtures: each `tests/fixtures/<lang>/` file is extracted and the symbols
//! and references it yields are compared with a snapshot (`snapshots/`), written as a
//! person reads them. Regenerate on purpose with `INSTA_UPDATE=always` or `cargo insta review`.

use std::fmt::Write;

use cc_indexer::{Extractor, Lang};

fn render(lang: Lang, rel: &str, source: &[u8]) -> String {
    let out = Extractor::new().extract(lang, rel, source);
    let mut s = String::new();
    writeln!(s, "# {rel} ({lang})").unwrap();
    writeln!(s, "symbols:").unwrap();
    let by_id: std::collections::HashMap<_, _> = out.symbols.iter().map(|x| (x.id, x)).collect();
    for sym in &out.symbols {
        let sp = sym.span;
        writeln!(
            s,
            "  {:<9} {}  [{}:{}-{}:{}]",
            sym.kind.as_str(),
            sym.qualified_name,
            sp.start_line,
            sp.start_col,
            sp.end_line,
            sp.end_col
        )
        .unwrap();
        writeln!(s, "            sig: {}", sym.signature).unwrap();
        if let Some(doc) = &sym.doc {
            writeln!(s, "            doc: {}", doc.replace('\n', " / ")).unwrap();
        }
        if let Some(p) = sym.parent.and_then(|p| by_id.get(&p)) {
            writeln!(s, "            parent: {}", p.qualified_name).unwrap();
        }
    }
    writeln!(s, "references:").unwrap();
    for r in &out.references {
        let within = r.enclosing.and_then(|e| by_id.get(&e)).map_or("<file>", |x| x.qualified_name.as_str());
        write!(s, "  {:<6} {}  @{}:{}  in {}", r.kind.as_str(), r.name, r.span.start_line, r.span.start_col, within)
            .unwrap();
        if let Some(x) = &r.receiver {
            write!(s, "  recv={x}").unwrap();
        }
        if let Some(x) = r.module() {
            write!(s, "  module={x}").unwrap();
        }
        if let Some(x) = r.alias() {
            write!(s, "  alias={x}").unwrap();
        }
        if let Some(a) = r.arg() {
            let call = &out.references[a.call as usize];
            write!(s, "  arg={:?} of {}@{}:{}", a.slot, call.name, call.span.start_line, call.span.start_col).unwrap();
        }
        writeln!(s).unwrap();
    }
    if !out.diagnostics.is_empty() {
        writeln!(s, "diagnostics:").unwrap();
        for d in &out.diagnostics {
            writeln!(s, "  {d}").unwrap();
        }
    }
    s
}

/// Extracts every file under `tests/fixtures/<dir>/` and snapshots the result.
fn check(dir: &str) {
    let root = cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixture files in {}", root.display());
    let mut text = String::new();
    for f in files {
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        let rel = format!("{dir}/{rel}");
        let lang = cc_grammars::detect(&f, &std::fs::read(&f).unwrap()).unwrap_or_else(|| panic!("{rel}: no language"));
        let source = std::fs::read(&f).unwrap();
        let rendered = render(lang, &rel, &source);
        assert!(!rendered.contains("diagnostics:"), "fixture {rel} has syntax errors:\n{rendered}");
        text.push_str(&rendered);
        text.push('\n');
    }
    insta::assert_snapshot!(dir, text);
}

macro_rules! fixtures {
    ($($name:ident),* $(,)?) => { $( #[test] fn $name() { check(stringify!($name)); } )* };
}

fixtures!(
    ada, asm, c, cpp, csharp, dart, go, java, javascript, kotlin, matlab, php, python, r, ruby, rust, swift, tsx,
    typescript, zig
);
