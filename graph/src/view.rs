//! What a query reads of a call graph, whichever form it is in: [`CallGraph`] in memory
//! (built, updated, saved by an index run) or [`MappedGraph`] (`graph.map` walked in place
//! by a process that only asks). The walks and the name lookups are written once, here,
//! over the few reads [`GraphView`] requires.
//!
//! [`CallGraph`]: crate::CallGraph
//! [`MappedGraph`]: crate::MappedGraph

use std::borrow::Cow;
use std::collections::VecDeque;

use cc_indexer::SymbolId;
use petgraph::Direction;
use rustc_hash::FxHashSet as HashSet;

use crate::graph::{top_level_qualified, Follow, Hit, Limits, NodeRef, Possible, Site, SymbolInfo, Walk};
use crate::resolve::{EdgeKind, Rung};
use crate::Result;

/// One edge as a walk sees it from one of its ends: the other end, what the edge is, and a
/// handle its sites are read through ([`GraphView::sites`]) when the walk keeps it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeMeta {
    /// The node at the other end.
    pub other: u32,
    pub confidence: f32,
    pub ambiguous: bool,
    pub rung: Rung,
    pub kind: EdgeKind,
    pub candidates: u8,
    /// The edge's number in its graph.
    pub edge: u32,
}

/// The reads every query is made of. A node is a symbol (a file's top level among them, as
/// the node [`NodeRef::File`]) or an external name. Answers never depend on how nodes are
/// numbered: a graph updated in layers ([`crate::LayeredGraph`]) numbers them otherwise than
/// a cold build, and answers the same.
///
/// A [`MappedGraph`](crate::MappedGraph) checks what it reads against the file's checksums
/// as it reads, so every read can fail (a damaged file); a [`CallGraph`](crate::CallGraph)'s
/// never do.
pub trait GraphView: Send + Sync {
    fn node_count(&self) -> usize;
    fn edge_count(&self) -> usize;
    /// Symbols, top levels included.
    fn symbol_count(&self) -> usize;
    /// Every symbol's node, top levels included.
    fn symbol_positions(&self) -> Result<Vec<u32>> {
        Ok((0..self.symbol_count() as u32).collect())
    }
    /// The node of the symbol `id`.
    fn position(&self, id: SymbolId) -> Result<Option<u32>>;
    fn node(&self, n: u32) -> Result<NodeRef>;
    /// The symbol at node `pos` (one of [`GraphView::symbol_positions`]).
    fn symbol_at(&self, pos: u32) -> Result<Cow<'_, SymbolInfo>>;
    /// The edges of node `n` in direction `dir`, appended to `out`.
    fn edges_of(&self, n: u32, dir: Direction, out: &mut Vec<EdgeMeta>) -> Result<()>;
    /// Every site of the edge `e` (sorted).
    fn sites(&self, e: &EdgeMeta) -> Result<Vec<Site>>;
    /// The symbols whose name is `name`, in no particular order.
    fn named(&self, name: &str) -> Result<Vec<u32>>;
    /// The symbols whose qualified name is `qualified`, in no particular order.
    fn qualified(&self, qualified: &str) -> Result<Vec<u32>>;
    /// The positions of the symbols defined in the file `path`, or in the folder `path` and
    /// below (`""`: every file), sorted by path, line, column and id, top levels left out.
    fn positions_in(&self, path: &str) -> Result<Vec<u32>>;

    /// The symbol `id`.
    fn symbol(&self, id: SymbolId) -> Result<Option<Cow<'_, SymbolInfo>>> {
        self.position(id)?.map(|p| self.symbol_at(p)).transpose()
    }

    /// [`GraphView::positions_in`], the symbols themselves.
    fn symbols_in(&self, path: &str) -> Result<Vec<Cow<'_, SymbolInfo>>> {
        self.positions_in(path)?.into_iter().map(|p| self.symbol_at(p)).collect()
    }

    /// Finds what a caller means by `spec`: a 16-hex-digit id, a qualified name
    /// (`pkg.mod.Class.method`, `crate::m::f`), a file's top level (`<app/main.py>` or
    /// `app/main.py`), or a plain name. Several matches are all returned, sorted by path and
    /// line, for the caller to choose from.
    fn find(&self, spec: &str) -> Result<Vec<Cow<'_, SymbolInfo>>> {
        let spec = spec.trim();
        if let Some(id) = SymbolId::parse(spec) {
            if let Some(s) = self.symbol(id)? {
                return Ok(vec![s]);
            }
        }
        let all =
            |v: Vec<u32>| -> Result<Vec<Cow<'_, SymbolInfo>>> { v.into_iter().map(|p| self.symbol_at(p)).collect() };
        let mut v = all(self.qualified(spec)?)?;
        if v.is_empty() {
            v = all(self.named(spec)?)?;
        }
        if v.is_empty() && !spec.starts_with('<') {
            // A file's path: its top level.
            v = all(self.qualified(&top_level_qualified(spec))?)?;
        }
        if v.is_empty() {
            // A qualified-name suffix: `Class.method`, `mod::f`.
            let tail = spec.rsplit(['.', ':', '\\']).next().unwrap_or(spec);
            v = all(self.named(tail)?)?;
            v.retain(|s| {
                let q = &s.qualified_name;
                q.ends_with(spec) && q.len() > spec.len() && q[..q.len() - spec.len()].ends_with(['.', ':', '\\'])
            });
        }
        v.sort_by(|a, b| (&a.path, a.span.start_line, a.id).cmp(&(&b.path, b.span.start_line, b.id)));
        Ok(v)
    }

    /// The symbols whose name or qualified name is `name` in another case (a scan of every
    /// symbol: for when nothing matched as written).
    fn find_any_case(&self, name: &str) -> Result<Vec<Cow<'_, SymbolInfo>>> {
        let mut v = Vec::new();
        for p in self.symbol_positions()? {
            let s = self.symbol_at(p)?;
            if s.name.eq_ignore_ascii_case(name) || s.qualified_name.eq_ignore_ascii_case(name) {
                v.push(s);
            }
        }
        v.sort_by(|a, b| (&a.path, a.span.start_line, a.id).cmp(&(&b.path, b.span.start_line, b.id)));
        Ok(v)
    }

    /// The id (16 hex digits, empty for an external name) and the name of a node.
    fn node_id_and_name(&self, n: &NodeRef) -> Result<(String, String)> {
        Ok(match n {
            NodeRef::Symbol(id) => {
                (id.to_string(), self.symbol(*id)?.map_or_else(String::new, |s| s.qualified_name.clone()))
            }
            NodeRef::File(p) => {
                let q = top_level_qualified(p);
                let id = self.qualified(&q)?.first().map(|&p| self.symbol_at(p)).transpose()?;
                (id.map_or_else(String::new, |s| s.id.to_string()), q)
            }
            NodeRef::External(x) => (String::new(), x.clone()),
        })
    }

    /// Breadth-first walk from `start` against or along the edges `follow` takes. A path
    /// back to `start` adds it once, marked `recursive`. The possible edges not followed, of
    /// every node reached short of the depth limit, are listed in [`Walk::possible`].
    fn walk(&self, start: SymbolId, dir: Direction, limits: Limits, follow: Follow) -> Result<Walk> {
        let mut out = Walk::default();
        let Some(s) = self.position(start)? else {
            return Ok(out);
        };
        let mut seen: HashSet<u32> = HashSet::default();
        seen.insert(s);
        let mut recursive = false;
        let mut queue: VecDeque<(u32, usize, f32, Vec<NodeRef>)> = VecDeque::new();
        queue.push_back((s, 0, 1.0, vec![self.node(s)?]));
        let mut next = Vec::new();
        while let Some((n, dist, conf, path)) = queue.pop_front() {
            next.clear();
            self.edges_of(n, dir, &mut next)?;
            if dist >= limits.depth {
                if next.iter().any(|e| follow.admits(e.kind, e.ambiguous)) {
                    out.truncated_depth = true;
                }
                continue;
            }
            // Ties in the order of where the nodes are (not of their numbers, which differ
            // between a graph built whole and one updated in layers).
            let mut keyed = Vec::with_capacity(next.len());
            for e in next.drain(..) {
                let node = self.node(e.other)?;
                let place = self.place(e.other, &node)?;
                keyed.push((place, node, e));
            }
            keyed.sort_by(|(x, _, a), (y, _, b)| {
                b.confidence.total_cmp(&a.confidence).then_with(|| x.cmp(y)).then(a.kind.cmp(&b.kind))
            });
            for (_, node, e) in &keyed {
                if !follow.admits(e.kind, e.ambiguous) {
                    if e.ambiguous && (follow.references || e.kind != EdgeKind::Reference) {
                        out.possible.push(Possible {
                            via: self.node(n)?,
                            node: node.clone(),
                            distance: dist + 1,
                            sites: self.sites(e)?,
                            candidates: e.candidates as usize,
                            confidence: conf * e.confidence,
                            kind: e.kind,
                        });
                    }
                    continue;
                }
                let recursion = e.other == s;
                if (recursion && recursive) || (!recursion && seen.contains(&e.other)) {
                    continue;
                }
                if out.hits.len() >= limits.nodes {
                    out.truncated_nodes = true;
                    break;
                }
                let node = node.clone();
                let mut p = path.clone();
                p.push(node.clone());
                let c = conf * e.confidence;
                out.hits.push(Hit {
                    node: node.clone(),
                    distance: dist + 1,
                    sites: self.sites(e)?,
                    confidence: c,
                    ambiguous: e.ambiguous,
                    kind: e.kind,
                    rung: e.rung,
                    recursive: recursion,
                    path: p.clone(),
                });
                if recursion {
                    // The start is where the walk began: not walked again.
                    recursive = true;
                    continue;
                }
                seen.insert(e.other);
                // Externals and files are leaves: nothing is known beyond them.
                if matches!(node, NodeRef::Symbol(_)) {
                    queue.push_back((e.other, dist + 1, c, p));
                }
            }
            if out.truncated_nodes {
                break;
            }
        }
        out.hits.sort_by(|a, b| a.distance.cmp(&b.distance).then(b.confidence.total_cmp(&a.confidence)));
        // A call site's candidates together.
        out.possible.sort_by(|a, b| a.distance.cmp(&b.distance).then(a.sites.first().cmp(&b.sites.first())));
        out.possible.truncate(limits.nodes);
        Ok(out)
    }

    /// Where node `n` (`node`) is, for ordering: a symbol by path, line, column and id, then
    /// files' top levels by path, then external names.
    fn place(&self, n: u32, node: &NodeRef) -> Result<Place> {
        Ok(match node {
            NodeRef::Symbol(id) => {
                let s = self.symbol_at(n)?;
                Place::Symbol(s.path.clone(), s.span.start_line, s.span.start_col, *id)
            }
            NodeRef::File(p) => Place::File(p.clone()),
            NodeRef::External(x) => Place::External(x.clone()),
        })
    }

    /// What may break if `id` changes: its transitive callers (externals excluded), along
    /// the edges `follow` takes.
    fn impact_with(&self, id: SymbolId, limits: Limits, follow: Follow) -> Result<Walk> {
        let mut w = self.walk(id, Direction::Incoming, limits, follow)?;
        w.hits.retain(|h| !matches!(h.node, NodeRef::External(_)));
        Ok(w)
    }
}

/// Where a node is, ordered: see [`GraphView::place`].
#[derive(PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    Symbol(String, u32, u32, SymbolId),
    File(String),
    External(String),
}

/// Whether `symbol_path` is the file `dir` or under the folder `dir` (`""`: every path).
pub(crate) fn within(dir: &str, symbol_path: &str) -> bool {
    dir.is_empty()
        || symbol_path == dir
        || (symbol_path.len() > dir.len() && symbol_path.starts_with(dir) && symbol_path.as_bytes()[dir.len()] == b'/')
}
