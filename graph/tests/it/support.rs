//! Records from inline multi-file fixtures (`//- /path` headers), and the edges a
//! graph resolved, by qualified name.

use cc_graph::{CallGraph, Direction, EdgeKind, Follow, GraphView, Limits, NodeRef};
use cc_indexer::{Extractor, FileRecord};

pub use cc_indexer::fixture::parse as parse_fixture;

/// Extracts each file of a fixture, as the indexer would. A file of no language is a
/// manifest (`go.mod`, `tsconfig.json`, `package.json`): not a record, but read, with the
/// sources, into the import map the indexer rewrites imports through
/// ([`cc_indexer::imports`]).
pub fn records(fixture: &str) -> Vec<FileRecord> {
    let mut ex = Extractor::new();
    let parsed = parse_fixture(fixture);
    let detect = |path: &str, text: &str| cc_grammars::detect(path, text.as_bytes());
    let manifests = ["go.mod", "tsconfig.json", "jsconfig.json", "package.json"];
    let tmp = tempfile::tempdir().unwrap();
    let mut walked = Vec::new();
    for (path, text) in &parsed {
        let abs = tmp.path().join(path);
        std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
        std::fs::write(&abs, text).unwrap();
        match detect(path, text) {
            Some(lang) => walked.push(cc_indexer::walk::WalkedFile {
                rel: path.clone(),
                abs,
                lang,
                size: text.len() as u64,
                mtime_ns: 0,
            }),
            None => {
                let name = path.rsplit('/').next().unwrap_or(path);
                assert!(manifests.contains(&name), "{path}: no language, and no manifest the import map reads");
            }
        }
    }
    // (`.h` headers are C or C++ by the files around them, as the walk settles them.)
    cc_indexer::walk::settle_headers(&mut walked);
    let langs: std::collections::HashMap<String, cc_indexer::Lang> =
        walked.iter().map(|w| (w.rel.clone(), w.lang)).collect();
    let imports = cc_indexer::imports::ImportMap::build(tmp.path(), &walked);
    let mut files: Vec<FileRecord> = parsed
        .into_iter()
        .filter(|(path, _)| langs.contains_key(path))
        .map(|(path, text)| {
            let lang = langs[&path];
            let mut out = ex.extract(lang, &path, text.as_bytes());
            imports.apply(lang, &path, &mut out.references);
            assert!(out.diagnostics.is_empty(), "{path}: {:?}", out.diagnostics);
            FileRecord {
                module: cc_indexer::extract::module_path(lang, &path),
                path,
                lang,
                hash: *blake3_hash(text.as_bytes()),
                size: text.len() as u64,
                mtime_ns: 0,
                symbols: out.symbols,
                references: out.references.into(),
                diagnostics: vec![],
            }
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// `files` written to a records.bin and read back as an update reads them: the plain calls
/// of each file left encoded until something reads them (`cc_indexer::References`).
pub fn read_back(files: &[FileRecord]) -> Vec<FileRecord> {
    let tmp = tempfile::tempdir().unwrap();
    cc_indexer::store::write_records(tmp.path(), files, 1).unwrap();
    cc_indexer::store::read_records_lazily(tmp.path()).unwrap()
}

fn blake3_hash(b: &[u8]) -> Box<[u8; 32]> {
    // A stable stand-in for the content hash: FNV over the bytes, spread over 32 bytes.
    let mut h: u64 = 0xcbf29ce484222325;
    for &x in b {
        h ^= x as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    let mut out = [0u8; 32];
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&(h.rotate_left(i as u32 * 13)).to_le_bytes());
    }
    Box::new(out)
}

/// Symbol-to-symbol edges, as `caller -> callee` qualified names, followed by ` [kind]`
/// for every kind but `call`, and ` [possible]` for a possible edge (a call with several
/// candidates) whatever its kind.
pub fn resolved_edges(g: &CallGraph) -> Vec<String> {
    let name = |n: &NodeRef| match n {
        NodeRef::Symbol(id) => g.symbol(*id).map(|s| s.qualified_name.clone()),
        NodeRef::File(p) => Some(format!("<{p}>")),
        NodeRef::External(_) => None,
    };
    let mut v: Vec<String> = g
        .edges()
        .into_iter()
        .filter_map(|(a, b, d)| {
            let edge = format!("{} -> {}", name(&a)?, name(&b)?);
            Some(match (d.ambiguous, d.kind) {
                (true, _) => format!("{edge} [possible]"),
                (false, EdgeKind::Call) => edge,
                (false, k) => format!("{edge} [{k}]"),
            })
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The kind an edge line of [`resolved_edges`] names: `call`, `possible` or the bracketed kind.
pub fn edge_kind(line: &str) -> &str {
    match line.rsplit_once(" [") {
        Some((_, k)) if k.ends_with(']') => &k[..k.len() - 1],
        _ => "call",
    }
}

/// Every query of `g` and `m` over `g`'s symbols, compared (`m`: the graph as saved and
/// read back).
pub fn same_answers(case: &str, g: &CallGraph, m: &dyn GraphView) {
    assert_eq!(GraphView::node_count(m), g.node_count(), "{case}: nodes");
    assert_eq!(GraphView::edge_count(m), g.edge_count(), "{case}: edges");
    assert_eq!(m.symbol_count(), GraphView::symbol_count(g), "{case}: symbols");
    assert_eq!(m.symbol_positions().unwrap().len(), GraphView::symbol_count(g), "{case}: symbol positions");
    let follows = [
        Follow::default(),
        Follow { references: true, possible: false },
        Follow { references: false, possible: true },
        Follow { references: true, possible: true },
    ];
    let mut paths = vec![String::new()];
    for s in g.symbols() {
        let id = s.id;
        assert_eq!(m.symbol(id).unwrap().as_deref(), Some(s), "{case}: symbol {}", s.qualified_name);
        for follow in follows {
            for depth in [1, 3] {
                let limits = Limits { depth, nodes: 500 };
                for dir in [Direction::Incoming, Direction::Outgoing] {
                    assert_eq!(
                        m.walk(id, dir, limits, follow).unwrap(),
                        g.walk(id, dir, limits, follow),
                        "{case}: walk {dir:?} {follow:?} depth {depth} from {}",
                        s.qualified_name
                    );
                }
                assert_eq!(
                    m.impact_with(id, limits, follow).unwrap(),
                    g.impact_with(id, limits, follow),
                    "{case}: impact"
                );
            }
        }
        // A small node limit cuts the walk at the same place.
        let tight = Limits { depth: 3, nodes: 1 };
        assert_eq!(
            m.walk(id, Direction::Incoming, tight, Follow::default()).unwrap(),
            g.walk(id, Direction::Incoming, tight, Follow::default())
        );
        for spec in [s.name.clone(), s.qualified_name.clone(), s.id.to_string(), s.path.clone(), s.name.to_uppercase()]
        {
            let want: Vec<_> = g.find(&spec).into_iter().cloned().collect();
            let got: Vec<_> = GraphView::find(m, &spec).unwrap().into_iter().map(|c| c.into_owned()).collect();
            assert_eq!(got, want, "{case}: find {spec}");
            let want: Vec<_> =
                GraphView::find_any_case(g, &spec).unwrap().into_iter().map(|c| c.into_owned()).collect();
            let got: Vec<_> = m.find_any_case(&spec).unwrap().into_iter().map(|c| c.into_owned()).collect();
            assert_eq!(got, want, "{case}: find in any case {spec}");
        }
        for n in [NodeRef::Symbol(id), NodeRef::File(s.path.clone())] {
            assert_eq!(GraphView::node_id_and_name(m, &n).unwrap(), g.node_id_and_name(&n), "{case}: {n:?}");
        }
        let mut p = s.path.as_str();
        paths.push(p.to_string());
        while let Some((dir, _)) = p.rsplit_once('/') {
            paths.push(dir.to_string());
            paths.push(format!("/{dir}/"));
            p = dir;
        }
    }
    paths.extend(["nowhere".to_string(), "a".to_string()]);
    paths.sort();
    paths.dedup();
    for p in &paths {
        let want: Vec<_> = g.symbols_in(p).into_iter().cloned().collect();
        let got: Vec<_> = GraphView::symbols_in(m, p).unwrap().into_iter().map(|c| c.into_owned()).collect();
        assert_eq!(got, want, "{case}: symbols in '{p}'");
    }
    assert_eq!(m.symbol(cc_indexer::SymbolId(0x1234)).unwrap(), None);
    assert!(GraphView::find(m, "no_such_name_anywhere").unwrap().is_empty());
}
