//! Bad input never aborts a run: each case is indexed, counted or reported.

use cc_indexer::{DataDir, Error, Repo, SearchQuery, SkipReason};

use crate::support::{index, indexed, TempRepo};

fn names(data: &std::path::Path) -> Vec<String> {
    let repo = Repo::open(&DataDir::new(data), "repo").unwrap();
    let mut v: Vec<String> =
        repo.records().unwrap().into_iter().flat_map(|f| f.symbols).map(|s| s.qualified_name).collect();
    v.sort();
    v
}

#[test]
fn non_utf8_files_are_indexed_with_a_diagnostic() {
    let repo = TempRepo::new("//- /ok.py\ndef fine():\n    pass\n");
    let mut bytes = b"def caf\xe9_latin1():\n    pass\n# \xff\xfe\n".to_vec();
    bytes.extend_from_slice(b"def after_bad_bytes():\n    pass\n");
    std::fs::write(repo.root().join("latin1.py"), bytes).unwrap();
    let data = tempfile::tempdir().unwrap();
    let r = index(data.path(), &repo.root());
    assert_eq!(r.stats.files, 2);
    assert!(names(data.path()).contains(&"latin1.after_bad_bytes".to_string()), "{:?}", names(data.path()));
    assert!(r.diagnostics.iter().any(|d| d.path == "latin1.py" && d.message.contains("UTF-8")), "{:?}", r.diagnostics);
}

#[test]
fn a_50_mb_generated_file_is_skipped_and_counted() {
    let repo = TempRepo::new("//- /small.py\ndef small():\n    pass\n");
    let line = "x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]\n";
    let big = line.repeat(50 * 1024 * 1024 / line.len());
    std::fs::write(repo.root().join("generated.py"), big).unwrap();
    let data = tempfile::tempdir().unwrap();
    let r = index(data.path(), &repo.root());
    assert_eq!(r.stats.files, 1);
    assert_eq!(r.stats.skipped.get(&SkipReason::TooLarge), Some(&1));
}

#[test]
fn binary_minified_and_vendored_files_are_skipped_and_counted() {
    let repo = TempRepo::new(
        "//- /src/a.js\nfunction realCode() { return 1; }\n//- /node_modules/lib/index.js\nfunction vendored() {}\n//- /vendor/x.go\npackage x\nfunc Vendored() {}\n//- /dist/app.min.js\nfunction minified(){}\n",
    );
    std::fs::write(repo.root().join("src/blob.py"), b"def x():\n\0\0\0binary").unwrap();
    let long_line = format!("function bundled(){{{}}}\n", "a=1;".repeat(3000));
    std::fs::write(repo.root().join("src/bundle.js"), long_line.repeat(3)).unwrap();
    let data = tempfile::tempdir().unwrap();
    let r = index(data.path(), &repo.root());
    assert_eq!(names(data.path()), ["realCode"]);
    assert_eq!(r.stats.skipped.get(&SkipReason::Binary), Some(&1));
    assert_eq!(r.stats.skipped.get(&SkipReason::Minified), Some(&2));
    assert_eq!(r.stats.skipped.get(&SkipReason::VendoredDir), Some(&2));
}

#[test]
fn gitignore_is_honoured_without_a_git_folder() {
    let repo = TempRepo::new("//- /.gitignore\nbuild/\nsecret.py\n//- /keep.py\ndef keep():\n    pass\n//- /secret.py\ndef secret():\n    pass\n//- /build/gen.py\ndef generated():\n    pass\n");
    let data = tempfile::tempdir().unwrap();
    index(data.path(), &repo.root());
    assert_eq!(names(data.path()), ["keep.keep"]);
}

#[test]
fn a_symlink_loop_does_not_hang_or_fail() {
    let repo = TempRepo::new("//- /a/b.py\ndef b():\n    pass\n");
    std::os::unix::fs::symlink("..", repo.root().join("a/loop")).unwrap();
    std::os::unix::fs::symlink("missing.py", repo.root().join("a/dangling.py")).unwrap();
    let data = tempfile::tempdir().unwrap();
    let r = index(data.path(), &repo.root());
    assert_eq!(r.stats.files, 1);
    assert_eq!(names(data.path()), ["a.b.b"]);
}

#[test]
fn syntax_errors_yield_partial_symbols_and_a_diagnostic() {
    let repo =
        TempRepo::new("//- /broken.py\ndef good():\n    pass\n\ndef bad(:\n    )))\n\ndef also_good():\n    pass\n");
    let data = tempfile::tempdir().unwrap();
    let r = index(data.path(), &repo.root());
    let n = names(data.path());
    assert!(n.contains(&"broken.good".to_string()), "{n:?}");
    assert!(r.diagnostics.iter().any(|d| d.path == "broken.py" && d.line.is_some()), "{:?}", r.diagnostics);
}

#[test]
fn an_empty_repository_is_an_empty_index() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("repo")).unwrap();
    let data = tempfile::tempdir().unwrap();
    let r = index(data.path(), &dir.path().join("repo"));
    assert_eq!((r.stats.files, r.stats.symbols), (0, 0));
    let repo = Repo::open(&DataDir::new(data.path()), "repo").unwrap();
    let hits = repo.symbols.search(&SearchQuery { text: "anything".into(), limit: 5, ..Default::default() }).unwrap();
    assert!(hits.is_empty());
}

#[test]
fn an_index_of_another_format_version_is_refused_then_rebuilt() {
    let repo = TempRepo::new("//- /a.py\ndef a():\n    pass\n");
    let data = tempfile::tempdir().unwrap();
    index(data.path(), &repo.root());
    let meta = data.path().join("repos/repo/meta.json");
    let text = std::fs::read_to_string(&meta).unwrap();
    let old =
        text.replacen(&format!("\"format_version\": {}", cc_indexer::FORMAT_VERSION), "\"format_version\": 999", 1);
    assert_ne!(text, old);
    std::fs::write(&meta, old).unwrap();
    match Repo::open(&DataDir::new(data.path()), "repo") {
        Err(e @ Error::FormatVersion { found: 999, .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("Re-index") && msg.contains("cc-server index"), "{msg}");
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("an index of format 999 was opened"),
    }
    // The vectors (their own format, keyed by text) outlive the rebuild; the rest does not.
    let dir = data.path().join("repos/repo");
    std::fs::write(dir.join(cc_indexer::vectors::VECTORS_FILE), b"kept").unwrap();
    std::fs::write(dir.join("stale.tmp"), b"gone").unwrap();
    let r = index(data.path(), &repo.root());
    assert!(r.rebuilt.is_some());
    assert!(Repo::open(&DataDir::new(data.path()), "repo").is_ok());
    assert_eq!(std::fs::read(dir.join(cc_indexer::vectors::VECTORS_FILE)).unwrap(), b"kept");
    assert!(!dir.join("stale.tmp").exists());
}

#[test]
fn unknown_repository_names_the_known_ones() {
    let repo = TempRepo::new("//- /a.py\ndef a():\n    pass\n");
    let data = tempfile::tempdir().unwrap();
    index(data.path(), &repo.root());
    let err = Repo::open(&DataDir::new(data.path()), "nope").err().unwrap();
    assert!(matches!(err, Error::UnknownRepo { .. }));
    assert!(err.to_string().contains("indexed: repo"), "{err}");
}

#[test]
fn filters_by_kind_language_and_path() {
    let (_repo, _data, r) = indexed(
        "//- /py/a.py\nclass Parser:\n    def parse(self):\n        pass\n//- /rs/b.rs\npub fn parse() {}\npub struct Parser;\n\
         //- /py/sub/d.py\ndef parse_sub():\n    pass\n//- /py-x/c.py\ndef parse():\n    pass\n//- /py.py\ndef parse():\n    pass\n",
    );
    let q = |kinds: Vec<cc_indexer::SymbolKind>, langs: Vec<cc_indexer::Lang>, path: Option<&str>| {
        r.symbols
            .search(&SearchQuery {
                text: "parse parser".into(),
                kinds,
                langs,
                path_prefix: path.map(str::to_string),
                limit: 10,
            })
            .unwrap()
            .into_iter()
            .map(|h| format!("{}:{}", h.symbol.path, h.symbol.name))
            .collect::<Vec<_>>()
    };
    use cc_indexer::{Lang, SymbolKind};
    let all = q(vec![], vec![], None);
    assert_eq!(all.len(), 7, "{all:?}");
    assert_eq!(q(vec![SymbolKind::Function], vec![Lang::Rust], None), ["rs/b.rs:parse"]);
    let mut rust = q(vec![], vec![Lang::Rust], None);
    rust.sort();
    assert_eq!(rust, ["rs/b.rs:Parser", "rs/b.rs:parse"]);
    assert_eq!(q(vec![SymbolKind::Method], vec![], Some("py/")), ["py/a.py:parse"]);
    assert!(q(vec![], vec![], Some("p")).is_empty(), "a prefix matches whole folder names only");
    // `py-x/` and `py.py` sort between `py` and `py/`: a folder's range must leave them out.
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(sorted(q(vec![], vec![], Some("py"))), ["py/a.py:Parser", "py/a.py:parse", "py/sub/d.py:parse_sub"]);
    assert_eq!(sorted(q(vec![], vec![], Some("./py/sub/"))), ["py/sub/d.py:parse_sub"]);
    assert_eq!(sorted(q(vec![], vec![], Some("py-x"))), ["py-x/c.py:parse"]);
    assert_eq!(sorted(q(vec![], vec![], Some("py.py"))), ["py.py:parse"], "a prefix can name one file");
    assert_eq!(sorted(q(vec![], vec![], Some("py/a.py"))), ["py/a.py:Parser", "py/a.py:parse"]);
}

/// A filter narrows the hits and leaves their scores alone: a filtered hit scores what it
/// scores unfiltered (filters used to add their own term's BM25, so with two kinds the
/// rarer kind's symbols were ranked up).
#[test]
fn filters_do_not_change_scores() {
    let (_repo, _data, r) = indexed(
        "//- /a.py
class ParseError:
    pass
def parse():
    pass
def parse_all():
    pass
def parse_one():
    pass
\
         //- /b.rs
pub fn parse() {}
pub struct Parser;
",
    );
    use cc_indexer::{Lang, SymbolKind};
    let scores = |kinds: Vec<SymbolKind>, langs: Vec<Lang>, path: Option<&str>| {
        let q = SearchQuery { text: "parse".into(), kinds, langs, path_prefix: path.map(str::to_string), limit: 20 };
        r.symbols
            .search(&q)
            .unwrap()
            .into_iter()
            .map(|h| (format!("{}:{}", h.symbol.path, h.symbol.name), h.score))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let all = scores(vec![], vec![], None);
    for filtered in [
        scores(vec![SymbolKind::Function, SymbolKind::Class], vec![], None),
        scores(vec![], vec![Lang::Python, Lang::Rust], None),
        scores(vec![SymbolKind::Function], vec![Lang::Python], Some("a.py")),
    ] {
        assert!(!filtered.is_empty());
        for (hit, score) in &filtered {
            let unfiltered = all[hit];
            assert!((score - unfiltered).abs() < 1e-4, "{hit}: {score} filtered, {unfiltered} unfiltered");
        }
    }
}

#[test]
fn exact_lookup_by_name_and_qualified_name() {
    let (_repo, _data, r) = indexed(
        "//- /m/a.py\ndef run():\n    pass\n//- /m/b.py\ndef run():\n    pass\ndef Runner():\n    pass\nclass Run:\n    def run(self):\n        pass\n//- /m/c.py\ndef RUN():\n    pass\n",
    );
    let lookup = |name: &str| -> Vec<String> {
        r.symbols.lookup(name, 10).unwrap().into_iter().map(|s| s.qualified_name).collect()
    };
    // A name as typed, case included; then a qualified name; then the name in any case.
    assert_eq!(lookup("run"), ["m.a.run", "m.b.run", "m.b.Run.run"]);
    assert_eq!(lookup("Run"), ["m.b.Run"]);
    assert_eq!(lookup("m.b.run"), ["m.b.run"]);
    assert_eq!(lookup("m.b.Run.run"), ["m.b.Run.run"]);
    assert_eq!(lookup("rUn"), ["m.a.run", "m.b.run", "m.b.Run", "m.b.Run.run", "m.c.RUN"]);
    // Every token of `b.run` is in `m.b.run`, but it is not its qualified name.
    assert!(lookup("b.run").is_empty());
    assert!(lookup("nothing_here").is_empty());
    assert!(lookup("m.b.nothing").is_empty());
}

/// `get` finds a symbol by id in the current documents only: after a re-index the
/// changed file's new document (same id, other lines), a deleted file's symbols not at
/// all, also through a reader opened before the re-index and reloaded.
#[test]
fn get_by_id_follows_reindexing() {
    let (repo, data, r) = indexed("//- /a.py\ndef run():\n    pass\n//- /b.py\ndef gone():\n    pass\n");
    let run = r.symbols.lookup("run", 1).unwrap().remove(0);
    let gone = r.symbols.lookup("gone", 1).unwrap().remove(0);
    assert_eq!(r.symbols.get(run.id).unwrap().unwrap(), run);
    assert_eq!(r.symbols.get(gone.id).unwrap().unwrap().name, "gone");
    assert!(r.symbols.get(cc_indexer::SymbolId(run.id.0 ^ 1)).unwrap().is_none());

    repo.write("a.py", "# moved down\n\ndef run():\n    pass\n");
    repo.remove("b.py");
    index(data.path(), &repo.root());
    r.symbols.reload().unwrap();
    let moved = r.symbols.get(run.id).unwrap().unwrap();
    assert_eq!((moved.id, moved.span.start_line), (run.id, 3));
    assert!(r.symbols.get(gone.id).unwrap().is_none());
    assert_eq!(r.symbols.len(), 1);
}

#[test]
fn code_tokens_find_camel_and_snake_parts() {
    let (_repo, _data, r) = indexed("//- /a.ts\nexport function parseJSONValue(s: string) { return s; }\n//- /b.py\ndef parse_json_value(s):\n    pass\ndef unrelated():\n    pass\n");
    let hits = r.symbols.search(&SearchQuery { text: "json value".into(), limit: 10, ..Default::default() }).unwrap();
    let mut names: Vec<_> = hits.iter().map(|h| h.symbol.name.clone()).collect();
    names.sort();
    assert_eq!(names, ["parseJSONValue", "parse_json_value"]);
    let hits =
        r.symbols.search(&SearchQuery { text: "parseJSONValue".into(), limit: 10, ..Default::default() }).unwrap();
    assert_eq!(hits[0].symbol.name, "parseJSONValue");
}

/// The body is searched too (its identifiers and the calls it makes), below the name: a
/// query of a name's words finds that name first, and a word only a body has finds the
/// functions whose body has it.
#[test]
fn keyword_search_reads_the_body_and_the_calls_below_the_name() {
    let (_repo, _data, r) = indexed("//- /a.py\ndef handle(request):\n    payload = jsonschema.validate(request.body, SCHEMA)\n    return payload\n\ndef validate_input(x):\n    \"\"\"Check x.\"\"\"\n    return x\n\ndef other():\n    pass\n");
    let names = |q: &str| -> Vec<String> {
        let hits = r.symbols.search(&SearchQuery { text: q.into(), limit: 10, ..Default::default() }).unwrap();
        hits.into_iter().map(|h| h.symbol.name).collect()
    };
    assert_eq!(names("jsonschema"), ["handle"]);
    assert_eq!(names("payload schema"), ["handle"]);
    assert_eq!(names("validate"), ["validate_input", "handle"]);
    assert_eq!(names("validate input"), ["validate_input", "handle"]);
    assert!(names("pass").is_empty(), "a keyword is no identifier");
}

/// The fuzz target `records` starts from these seeds; a seed of an older format version stops
/// at the version check and fuzzes nothing past it. After a `FORMAT_VERSION` bump, replace them
/// (benches/fuzz/README.md says how).
#[test]
fn the_records_fuzz_seeds_are_of_the_current_format() {
    let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../benches/fuzz/seeds/records");
    let mut n = 0;
    for e in std::fs::read_dir(&seeds).unwrap() {
        let seed = e.unwrap().path();
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(&seed, dir.path().join("records.bin")).unwrap();
        let records = cc_indexer::store::read_records(dir.path())
            .unwrap_or_else(|e| panic!("{}: {e} (re-make it: benches/fuzz/README.md)", seed.display()));
        assert!(!records.is_empty(), "{}", seed.display());
        n += 1;
    }
    assert!(n >= 2, "the seeds are gone: {}", seeds.display());
}
