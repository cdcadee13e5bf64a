//! `graph.delta`: an update's changes laid over `graph.map`, so that an update writes what
//! it changed instead of the whole map, and a reader ([`LayeredGraph`]) answers as the map of
//! a cold build would.
//!
//! What a delta holds is always relative to the map it names (by its header's checksum):
//! the files whose part of the graph changed since that map was written (`dirty`, which
//! grows with each update until the graph is written whole again), and for them:
//!
//! - every node their symbols and top levels have now. A symbol the map has under the same
//!   id keeps its node number (a replaced node); a new one gets a number past the map's.
//!   Their nodes in the map that are gone are hidden.
//! - every edge whose caller is one of those nodes (a caller's edges all come from its own
//!   file's references), as the cold build makes them.
//! - for each node at either end of those edges, now or in the map, its edges: the map's
//!   whose other end is not one of the dirty files' nodes, and the delta's. An external name
//!   nobody calls any more is hidden.
//!
//! Every other node and edge is the map's, unchanged. Node and edge numbers differ from a
//! cold build's; nothing a query answers depends on them ([`GraphView`]).
//!
//! Layout: magic `CCGDELTA`, format version (u32), CRC-32 of the rest, then the [`Delta`]
//! (postcard). Written through a temporary file and a rename, like every index file.
//!
//! Not taken by a delta (the update writes the graph whole): files added or deleted, a
//! change that involves a macro (what a macro's body calls is called by every function that
//! invokes it, in other files), more dirty files than [`MAX_DIRTY`], a delta past
//! [`MAX_BYTES`], or a map or delta not of the graph the update started from.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use cc_indexer::{FileRecord, SymbolId, SymbolKind};
use petgraph::Direction;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::{Deserialize, Serialize};

use crate::graph::{
    add_file_edges, by_place, finish_edges, top_level_info, top_level_qualified, EdgeData, FileEntry, NodeRef, Site,
    SymbolInfo, GRAPH_FORMAT_VERSION, TOP_LEVEL_NAME,
};
use crate::mapped::MappedGraph;
use crate::resolve::EdgeKind;
use crate::view::{within, EdgeMeta, GraphView};
use crate::{Error, Result};

/// The file's name in an index folder.
pub(crate) const DELTA_FILE: &str = "graph.delta";

const MAGIC: &[u8; 8] = b"CCGDELTA";

/// Past this many dirty files, an update writes the graph whole.
pub(crate) const MAX_DIRTY: usize = 512;
/// Past this size, an update writes the graph whole: every query process reads the delta
/// whole when it opens the graph (spring-framework's `StringUtils.java` edited: 126 KB).
pub(crate) const MAX_BYTES: usize = 2 << 20;

#[derive(Serialize, Deserialize)]
struct Delta {
    /// The CRC-32 of the header of the `graph.map` this lies over.
    base_crc: u32,
    records_generation: u64,
    /// The files whose part of the graph is here, sorted.
    dirty: Vec<String>,
    base_nodes: u32,
    base_edges: u32,
    /// The counts of the graph it makes.
    nodes: u32,
    edges: u32,
    symbols: u32,
    /// Nodes of the map that are gone, sorted.
    hidden: Vec<u32>,
    /// Nodes whose node or edges are here, by number.
    changed: Vec<Changed>,
    /// Edges whose caller is a node of a dirty file; edge `base_edges + i` is `edges[i]`.
    edge_list: Vec<(u32, u32, EdgeData)>,
}

#[derive(Serialize, Deserialize)]
struct Changed {
    n: u32,
    /// `None`: the map's node.
    what: Option<What>,
    /// Edge numbers (below `base_edges`: the map's); `None`: the map's edges.
    out: Option<Vec<u32>>,
    into: Option<Vec<u32>>,
}

#[derive(Clone, Serialize, Deserialize)]
enum What {
    Symbol(SymbolInfo),
    /// A file's top level.
    File(SymbolInfo),
    External(String),
}

impl What {
    fn symbol(&self) -> Option<&SymbolInfo> {
        match self {
            What::Symbol(s) | What::File(s) => Some(s),
            What::External(_) => None,
        }
    }

    fn node(&self) -> NodeRef {
        match self {
            What::Symbol(s) => NodeRef::Symbol(s.id),
            What::File(s) => NodeRef::File(s.path.clone()),
            What::External(x) => NodeRef::External(x.clone()),
        }
    }
}

/// The delta in `dir`, when there is one that reads whole.
fn read(dir: &Path) -> Option<Delta> {
    let bytes = std::fs::read(dir.join(DELTA_FILE)).ok()?;
    if bytes.len() < 16 || &bytes[..8] != MAGIC {
        return None;
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().ok()?);
    let crc = u32::from_le_bytes(bytes[12..16].try_into().ok()?);
    if version != GRAPH_FORMAT_VERSION || crc32fast::hash(&bytes[16..]) != crc {
        return None;
    }
    postcard::from_bytes(&bytes[16..]).ok()
}

/// The generation of the records the graph a reader of `dir` sees was resolved from: the
/// delta's over the map it names, else the map's.
pub(crate) fn saved_generation(dir: &Path) -> Option<u64> {
    let (generation, crc) = crate::mapped::header_of(dir)?;
    match read(dir) {
        Some(d) if d.base_crc == crc => Some(d.records_generation),
        _ => Some(generation),
    }
}

/// The graph a reader of `dir` sees: the map with its delta over it (when the delta is of
/// this map), and the generation of the records it was resolved from.
pub(crate) fn open_layers(dir: &Path) -> Result<(Box<dyn GraphView>, u64)> {
    let base = MappedGraph::open(dir)?;
    Ok(match read(dir) {
        Some(d) if d.base_crc == base.header_crc() => {
            let generation = d.records_generation;
            (Box::new(LayeredGraph::new(base, d)), generation)
        }
        _ => {
            let generation = base.records_generation();
            (Box::new(base), generation)
        }
    })
}

/// One update, as a delta is written from it.
pub(crate) struct Update<'a> {
    /// Every file's entry after the update.
    pub files: &'a BTreeMap<Arc<str>, FileEntry>,
    pub records: &'a [FileRecord],
    /// The files whose entry the update changed.
    pub dirty: Vec<String>,
    /// The generation the saved graph was of before the update, and after it.
    pub before: u64,
    pub generation: u64,
}

/// Writes the delta that brings the map in `dir` to `u`: its node and edge counts, or
/// `None` when the update is not one a delta takes (the caller writes the graph whole).
pub(crate) fn save(dir: &Path, mut u: Update<'_>) -> Result<Option<(usize, usize)>> {
    let Ok(base) = MappedGraph::open(dir) else { return Ok(None) };
    let mut dirty: Vec<String> = std::mem::take(&mut u.dirty);
    match read(dir) {
        Some(d) if d.base_crc == base.header_crc() => {
            if d.records_generation != u.before {
                return Ok(None);
            }
            dirty.extend(d.dirty);
        }
        _ if base.records_generation() != u.before => return Ok(None),
        _ => {}
    }
    dirty.sort_unstable();
    dirty.dedup();
    if dirty.len() > MAX_DIRTY {
        return Ok(None);
    }
    let Some(delta) = make(&base, &u, dirty)? else { return Ok(None) };
    let payload = postcard::to_stdvec(&delta).map_err(|e| Error::Corrupt(e.to_string()))?;
    if payload.len() > MAX_BYTES {
        return Ok(None);
    }
    let mut bytes = Vec::with_capacity(16 + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&GRAPH_FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    let (path, tmp) = (dir.join(DELTA_FILE), dir.join("graph.delta.tmp"));
    let written = (|| {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_data()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::Io { path: tmp, error: e });
    }
    std::fs::rename(&tmp, &path).map_err(|e| Error::Io { path, error: e })?;
    Ok(Some((delta.nodes as usize, delta.edges as usize)))
}

/// The delta of `dirty` over `base` (`None`: one a delta does not take).
fn make(base: &MappedGraph, u: &Update<'_>, dirty: Vec<String>) -> Result<Option<Delta>> {
    let (b_nodes, b_edges) = (base.node_count() as u32, base.edge_count() as u32);
    let records: HashMap<&str, &FileRecord> = u.records.iter().map(|f| (f.path.as_str(), f)).collect();
    // The dirty files' nodes in the map: their symbols and top levels.
    let mut old: HashSet<u32> = HashSet::default();
    for p in &dirty {
        for k in base.positions_in(p)? {
            if base.symbol_at(k)?.path == *p {
                old.insert(k);
            }
        }
        old.extend(base.qualified(&top_level_qualified(p))?);
    }
    for &k in &old {
        if base.symbol_at(k)?.kind == SymbolKind::Macro {
            return Ok(None);
        }
    }
    // Their nodes now: the map's number for an id it has, else a new one.
    let mut l = Layout { next: b_nodes, nodes: BTreeMap::new(), ids: HashMap::default() };
    for p in &dirty {
        let Some(f) = records.get(p.as_str()) else { continue };
        for s in &f.symbols {
            if s.kind == SymbolKind::Macro || !l.place(base, &old, What::Symbol(crate::graph::info(s.clone())))? {
                return Ok(None);
            }
        }
    }
    // Top levels: of a file whose top level uses something (a reference whose source is
    // no symbol of the graph).
    let is_symbol = |id: SymbolId, l: &Layout| -> Result<bool> {
        Ok(l.ids.contains_key(&id) || base.position(id)?.is_some_and(|k| !old.contains(&k)))
    };
    let mut tops: HashMap<&str, u32> = HashMap::default();
    for p in &dirty {
        let (Some(e), Some(f)) = (u.files.get(p.as_str()), records.get(p.as_str())) else { continue };
        let mut needs = false;
        for r in &e.refs {
            if !r.source.map(|id| is_symbol(id, &l)).transpose()?.unwrap_or(false) {
                needs = true;
                break;
            }
        }
        if needs {
            let top = top_level_info(p, f.lang);
            let id = top.id;
            if !l.place(base, &old, What::File(top))? {
                return Ok(None);
            }
            tops.insert(p.as_str(), l.ids[&id]);
        }
    }
    let replaced: HashSet<u32> = l.ids.values().copied().filter(|&n| n < b_nodes).collect();
    let hidden_symbol = |k: u32| old.contains(&k) && !replaced.contains(&k);
    // Where each target the dirty files' references name is now.
    let mut targets: HashMap<SymbolId, Option<u32>> = HashMap::default();
    // The external names the dirty files' calls name, found in the map below.
    let mut wanted: HashSet<&str> = HashSet::default();
    for p in &dirty {
        let Some(e) = u.files.get(p.as_str()) else { continue };
        for r in &e.refs {
            for t in &r.resolution.targets {
                if let std::collections::hash_map::Entry::Vacant(v) = targets.entry(t.id) {
                    v.insert(match l.ids.get(&t.id) {
                        Some(&n) => Some(n),
                        None => base.position(t.id)?.filter(|&k| !hidden_symbol(k)),
                    });
                }
            }
            if let (true, Some(x)) = (r.resolution.targets.is_empty(), &r.resolution.external) {
                wanted.insert(x);
            }
        }
    }
    let externals = if wanted.is_empty() { HashMap::default() } else { external_nodes(base, &wanted)? };
    let mut new_externals: HashMap<String, u32> = HashMap::default();
    // The dirty files' edges, as the cold build makes them.
    let mut edges: HashMap<(u32, u32, EdgeKind), EdgeData> = HashMap::default();
    for p in &dirty {
        let Some((path, e)) = u.files.get_key_value(p.as_str()) else { continue };
        let top = tops.get(p.as_str()).copied();
        let ids = &l.ids;
        let next = &mut l.next;
        add_file_edges(
            &mut edges,
            path,
            e,
            |source| source.and_then(|id| ids.get(&id).copied()).or(top).unwrap_or(u32::MAX),
            |id| targets.get(&id).copied().flatten(),
            |x| match externals.get(x) {
                Some(&k) => k,
                None => *new_externals.entry(x.to_string()).or_insert_with(|| {
                    *next += 1;
                    *next - 1
                }),
            },
        );
    }
    for (x, n) in new_externals {
        l.nodes.insert(n, What::External(x));
    }
    let edge_list = finish_edges(edges);
    if edge_list.iter().any(|((a, _, _), _)| *a == u32::MAX) {
        return Ok(None); // a source with no node: not as the cold build (never expected)
    }
    // A macro called from a dirty file: its body's calls are the caller's too.
    let mut seen: HashSet<u32> = HashSet::default();
    for ((_, b, _), _) in &edge_list {
        if *b < b_nodes
            && !l.nodes.contains_key(b)
            && seen.insert(*b)
            && matches!(base.node(*b)?, NodeRef::Symbol(_))
            && base.symbol_at(*b)?.kind == SymbolKind::Macro
        {
            return Ok(None);
        }
    }
    // Every node at an end of an edge that changed: the dirty files' nodes, then and now,
    // and what their edges reached, then and now.
    let mut touched: HashSet<u32> = old.iter().copied().collect();
    touched.extend(l.nodes.keys().copied());
    let mut removed_edges = 0u32;
    let mut metas = Vec::new();
    for &k in &old {
        metas.clear();
        base.edges_of(k, Direction::Outgoing, &mut metas)?;
        removed_edges += metas.len() as u32;
        touched.extend(metas.iter().map(|m| m.other));
    }
    let mut out: HashMap<u32, Vec<u32>> = HashMap::default();
    let mut into: HashMap<u32, Vec<u32>> = HashMap::default();
    for (i, ((a, b, _), _)) in edge_list.iter().enumerate() {
        out.entry(*a).or_default().push(b_edges + i as u32);
        into.entry(*b).or_default().push(b_edges + i as u32);
        touched.insert(*b);
    }
    let mut touched: Vec<u32> = touched.into_iter().collect();
    touched.sort_unstable();
    let mut hidden = Vec::new();
    let mut changed = Vec::new();
    for t in touched {
        if t < b_nodes && hidden_symbol(t) {
            // Gone: what called it is a dirty file's (else the update left a resolution to
            // a symbol that is no more: never expected, and not laid over the map).
            metas.clear();
            base.edges_of(t, Direction::Incoming, &mut metas)?;
            if metas.iter().any(|m| !old.contains(&m.other)) {
                return Ok(None);
            }
            hidden.push(t);
            continue;
        }
        let mut ins = Vec::new();
        if t < b_nodes {
            metas.clear();
            base.edges_of(t, Direction::Incoming, &mut metas)?;
            for m in &metas {
                if old.contains(&m.other) {
                    continue;
                }
                ins.push(m.edge);
            }
        }
        ins.extend(into.remove(&t).unwrap_or_default());
        let what = l.nodes.remove(&t);
        let external = match &what {
            Some(w) => matches!(w, What::External(_)),
            None => matches!(base.node(t)?, NodeRef::External(_)),
        };
        if external && ins.is_empty() {
            hidden.push(t); // an external name nobody calls any more
            continue;
        }
        // A node of a dirty file (or a new external name) has its edges out here.
        let own = t >= b_nodes || what.is_some();
        let outs = own.then(|| out.remove(&t).unwrap_or_default());
        changed.push(Changed { n: t, what, out: outs, into: Some(ins) });
    }
    let added = l.next - b_nodes;
    let base_symbols = base.symbol_count() as u32;
    let hidden_symbols = hidden.iter().filter(|&&k| k < base_symbols).count() as u32;
    let new_symbols =
        changed.iter().filter(|c| c.n >= b_nodes && c.what.as_ref().is_some_and(|w| w.symbol().is_some())).count();
    Ok(Some(Delta {
        base_crc: base.header_crc(),
        records_generation: u.generation,
        dirty,
        base_nodes: b_nodes,
        base_edges: b_edges,
        nodes: b_nodes - hidden.len() as u32 + added,
        edges: b_edges - removed_edges + edge_list.len() as u32,
        symbols: base_symbols - hidden_symbols + new_symbols as u32,
        hidden,
        changed,
        edge_list: edge_list.into_iter().map(|((a, b, _), d)| (a, b, d)).collect(),
    }))
}

/// The dirty files' nodes as they are numbered in a delta.
struct Layout {
    /// The next new node's number.
    next: u32,
    nodes: BTreeMap<u32, What>,
    ids: HashMap<SymbolId, u32>,
}

impl Layout {
    /// Numbers a symbol of a dirty file: the map's node of its id (one of the file's nodes
    /// there, `old`), else a new one. `false`: the map has the id at another file's node.
    fn place(&mut self, base: &MappedGraph, old: &HashSet<u32>, w: What) -> Result<bool> {
        let Some(s) = w.symbol() else { return Ok(false) };
        if self.ids.contains_key(&s.id) {
            return Ok(true); // (ids are unique; were one not, the first wins)
        }
        let n = match base.position(s.id)? {
            Some(k) if old.contains(&k) => k,
            Some(_) => return Ok(false),
            None => {
                self.next += 1;
                self.next - 1
            }
        };
        self.ids.insert(s.id, n);
        self.nodes.insert(n, w);
        Ok(true)
    }
}

/// The nodes of the map's external names among `wanted` (its names read in place: a map
/// has tens of thousands).
fn external_nodes<'w>(base: &MappedGraph, wanted: &HashSet<&'w str>) -> Result<HashMap<&'w str, u32>> {
    let mut m = HashMap::default();
    for n in base.symbol_count() as u32..base.node_count() as u32 {
        if let Some(x) = base.external_name(n)? {
            if let Some(&w) = wanted.get(x) {
                m.insert(w, n);
            }
        }
    }
    Ok(m)
}

/// `graph.map` with `graph.delta` laid over it: the graph after the updates since the map
/// was written, answering as that graph's own map would.
pub struct LayeredGraph {
    base: MappedGraph,
    d: Delta,
    /// Changed nodes by number (positions in `d.changed`).
    at: HashMap<u32, usize>,
    ids: HashMap<SymbolId, u32>,
    hidden: HashSet<u32>,
}

impl std::fmt::Debug for LayeredGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayeredGraph")
            .field("base", &self.base)
            .field("dirty", &self.d.dirty.len())
            .field("changed", &self.d.changed.len())
            .finish()
    }
}

impl LayeredGraph {
    /// `graph.map` of `dir` with its `graph.delta` over it ([`Error::Missing`] when there is
    /// no delta of that map).
    pub fn open(dir: &Path) -> Result<LayeredGraph> {
        let base = MappedGraph::open(dir)?;
        match read(dir) {
            Some(d) if d.base_crc == base.header_crc() => Ok(LayeredGraph::new(base, d)),
            _ => Err(Error::Missing),
        }
    }

    fn new(base: MappedGraph, d: Delta) -> LayeredGraph {
        let at = d.changed.iter().enumerate().map(|(i, c)| (c.n, i)).collect();
        let ids =
            d.changed.iter().filter_map(|c| c.what.as_ref().and_then(What::symbol).map(|s| (s.id, c.n))).collect();
        let hidden = d.hidden.iter().copied().collect();
        LayeredGraph { base, d, at, ids, hidden }
    }

    /// The generation of the records this graph was resolved from.
    pub fn records_generation(&self) -> u64 {
        self.d.records_generation
    }

    fn changed(&self, n: u32) -> Option<&Changed> {
        self.at.get(&n).map(|&i| &self.d.changed[i])
    }

    fn check(&self, n: u32) -> Result<()> {
        if self.hidden.contains(&n) || (n >= self.d.base_nodes && !self.at.contains_key(&n)) {
            return Err(Error::Corrupt(format!("{}: node {n} is not in the graph", DELTA_FILE)));
        }
        Ok(())
    }

    /// Whether the map's answer `k` (a symbol position) stands: not gone, not replaced.
    fn base_stands(&self, k: u32) -> bool {
        !self.hidden.contains(&k) && self.changed(k).is_none_or(|c| c.what.is_none())
    }

    /// The delta's symbols for which `keep` holds.
    fn own_symbols<'a>(&'a self, keep: impl Fn(&SymbolInfo) -> bool + 'a) -> impl Iterator<Item = u32> + 'a {
        self.d
            .changed
            .iter()
            .filter_map(move |c| c.what.as_ref().and_then(What::symbol).filter(|s| keep(s)).map(|_| c.n))
    }

    fn meta(&self, e: u32, dir: Direction) -> Result<EdgeMeta> {
        if e < self.d.base_edges {
            return self.base.edge(e, dir);
        }
        let Some((a, b, d)) = self.d.edge_list.get((e - self.d.base_edges) as usize) else {
            return Err(Error::Corrupt(format!("{DELTA_FILE}: edge {e} is not in it")));
        };
        Ok(EdgeMeta {
            other: if dir == Direction::Outgoing { *b } else { *a },
            confidence: d.confidence,
            ambiguous: d.ambiguous,
            rung: d.rung,
            kind: d.kind,
            candidates: d.candidates,
            edge: e,
        })
    }
}

impl GraphView for LayeredGraph {
    fn node_count(&self) -> usize {
        self.d.nodes as usize
    }

    fn edge_count(&self) -> usize {
        self.d.edges as usize
    }

    fn symbol_count(&self) -> usize {
        self.d.symbols as usize
    }

    fn symbol_positions(&self) -> Result<Vec<u32>> {
        let mut v: Vec<u32> = (0..self.base.symbol_count() as u32).filter(|k| !self.hidden.contains(k)).collect();
        v.extend(self.own_symbols(|_| true).filter(|&n| n >= self.d.base_nodes));
        Ok(v)
    }

    fn position(&self, id: SymbolId) -> Result<Option<u32>> {
        if let Some(&n) = self.ids.get(&id) {
            return Ok(Some(n));
        }
        Ok(self.base.position(id)?.filter(|&k| self.base_stands(k)))
    }

    fn node(&self, n: u32) -> Result<NodeRef> {
        self.check(n)?;
        match self.changed(n).and_then(|c| c.what.as_ref()) {
            Some(w) => Ok(w.node()),
            None => self.base.node(n),
        }
    }

    fn symbol_at(&self, pos: u32) -> Result<Cow<'_, SymbolInfo>> {
        self.check(pos)?;
        match self.changed(pos).and_then(|c| c.what.as_ref()) {
            Some(w) => w
                .symbol()
                .map(Cow::Borrowed)
                .ok_or_else(|| Error::Corrupt(format!("{DELTA_FILE}: node {pos} is no symbol"))),
            None => self.base.symbol_at(pos),
        }
    }

    fn edges_of(&self, n: u32, dir: Direction, out: &mut Vec<EdgeMeta>) -> Result<()> {
        self.check(n)?;
        let own =
            self.changed(n).and_then(|c| if dir == Direction::Outgoing { c.out.as_ref() } else { c.into.as_ref() });
        match own {
            Some(list) => {
                for &e in list {
                    out.push(self.meta(e, dir)?);
                }
                Ok(())
            }
            None => self.base.edges_of(n, dir, out),
        }
    }

    fn sites(&self, e: &EdgeMeta) -> Result<Vec<Site>> {
        if e.edge < self.d.base_edges {
            return self.base.sites(e);
        }
        match self.d.edge_list.get((e.edge - self.d.base_edges) as usize) {
            Some((_, _, d)) => Ok(d.sites.to_vec()),
            None => Err(Error::Corrupt(format!("{DELTA_FILE}: edge {} is not in it", e.edge))),
        }
    }

    fn named(&self, name: &str) -> Result<Vec<u32>> {
        let mut v: Vec<u32> = self.base.named(name)?.into_iter().filter(|&k| self.base_stands(k)).collect();
        v.extend(self.own_symbols(|s| s.name == name));
        Ok(v)
    }

    fn qualified(&self, qualified: &str) -> Result<Vec<u32>> {
        let mut v: Vec<u32> = self.base.qualified(qualified)?.into_iter().filter(|&k| self.base_stands(k)).collect();
        v.extend(self.own_symbols(|s| s.qualified_name == qualified));
        Ok(v)
    }

    fn positions_in(&self, path: &str) -> Result<Vec<u32>> {
        let dir = path.trim_matches('/');
        let mut v: Vec<u32> = self.base.positions_in(path)?.into_iter().filter(|&k| self.base_stands(k)).collect();
        v.extend(self.own_symbols(|s| s.name != TOP_LEVEL_NAME && within(dir, &s.path)));
        let mut keyed = Vec::with_capacity(v.len());
        for p in v {
            keyed.push((self.symbol_at(p)?.into_owned(), p));
        }
        keyed.sort_by(|(x, _), (y, _)| by_place(x, y));
        Ok(keyed.into_iter().map(|(_, p)| p).collect())
    }
}
