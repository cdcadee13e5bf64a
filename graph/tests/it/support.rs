//! Records from inline multi-file fixtures (`//- /path` headers), and the edges a
//! graph resolved, by qualified name.

use cc_graph::{CallGraph, EdgeKind, NodeRef};
use cc_indexer::{Extractor, FileRecord};

pub use cc_indexer::fixture::parse as parse_fixture;

/// Extracts each file of a fixture, as the indexer would.
pub fn records(fixture: &str) -> Vec<FileRecord> {
    let mut ex = Extractor::new();
    let mut files: Vec<FileRecord> = parse_fixture(fixture)
        .into_iter()
        .map(|(path, text)| {
            let lang = cc_grammars::detect(&path, text.as_bytes()).unwrap_or_else(|| panic!("{path}: no language"));
            let out = ex.extract(lang, &path, text.as_bytes());
            assert!(out.diagnostics.is_empty(), "{path}: {:?}", out.diagnostics);
            FileRecord {
                module: cc_indexer::extract::module_path(lang, &path),
                path,
                lang,
                hash: *blake3_hash(text.as_bytes()),
                size: text.len() as u64,
                mtime_ns: 0,
                symbols: out.symbols,
                references: out.references,
                diagnostics: vec![],
            }
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
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
