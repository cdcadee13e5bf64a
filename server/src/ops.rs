//! The code-graph operations every front end shares (the CLI's `callers`/`callees`/`impact`
//! and the MCP tools code_callers/code_callees/code_impact): "find this name across these
//! repositories, say when it is ambiguous, and walk from it" — with one set of defaults.
//!
//! Defaults: callers and callees walk 1 hop, impact 3; an answer holds at most
//! [`DEFAULT_LIMIT`] symbols (a walk past it says `truncated_nodes`); a walk follows calls,
//! implicit calls and inherited dispatch, and neither references nor possible edges unless
//! asked ([`Follow`]).

pub use cc_graph::Follow;
use std::borrow::Cow;

use cc_graph::{GraphView, Limits, SymbolInfo, Walk};
use cc_indexer::SymbolDoc;

/// Hops callers and callees follow when not told.
pub const DEFAULT_DEPTH: usize = 1;
/// Hops impact follows when not told.
pub const IMPACT_DEPTH: usize = 3;
/// Symbols an answer holds when not told (the graph's own default).
pub const DEFAULT_LIMIT: usize = 500;

/// Which walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphOp {
    Callers,
    Callees,
    Impact,
}

impl GraphOp {
    pub fn default_depth(self) -> usize {
        match self {
            GraphOp::Impact => IMPACT_DEPTH,
            GraphOp::Callers | GraphOp::Callees => DEFAULT_DEPTH,
        }
    }
}

/// What a name found.
#[derive(Debug)]
pub enum Found<'a> {
    /// One symbol: the index of its repository in the list given, and the symbol.
    One(usize, Cow<'a, SymbolInfo>),
    /// None in any repository.
    None,
    /// Several: each with its repository's index, in the repositories' order.
    Many(Vec<(usize, Cow<'a, SymbolInfo>)>),
}

/// Finds `name` in each of `graphs`, in order, read as every command and tool reads a name:
/// an id, a qualified name, a plain name, a file's top level, a qualified suffix
/// (`Class.method`, `mod::f`), and when none of those matches, a name in another case.
/// Fails only when a graph cannot be read (a damaged `graph.map`).
pub fn find<'a>(graphs: &[&'a dyn GraphView], name: &str) -> cc_graph::Result<Found<'a>> {
    // `name(params)`: the overload whose parameters these are (`toJson(Object)`, `f(self, x)`).
    if let Some((base, wanted)) = name.trim().strip_suffix(')').and_then(|n| n.split_once('(')) {
        let wanted = split_params(wanted);
        return Ok(match find(graphs, base)? {
            Found::One(i, s) if params_match(&s, &wanted) => Found::One(i, s),
            Found::One(..) | Found::None => Found::None,
            Found::Many(v) => {
                let mut v: Vec<_> = v.into_iter().filter(|(_, s)| params_match(s, &wanted)).collect();
                match v.len() {
                    0 => Found::None,
                    1 => {
                        let (i, s) = v.remove(0);
                        Found::One(i, s)
                    }
                    _ => Found::Many(v),
                }
            }
        });
    }
    let mut all: Vec<(usize, Cow<'a, SymbolInfo>)> = Vec::new();
    for (i, g) in graphs.iter().enumerate() {
        all.extend(g.find(name)?.into_iter().map(|s| (i, s)));
    }
    if all.is_empty() {
        for (i, g) in graphs.iter().enumerate() {
            all.extend(g.find_any_case(name.trim())?.into_iter().map(|s| (i, s)));
        }
    }
    Ok(match all.len() {
        0 => Found::None,
        1 => {
            let (i, s) = all.remove(0);
            Found::One(i, s)
        }
        _ => Found::Many(all),
    })
}

/// The comma-separated parts of a parameter list, outside any brackets, trimmed.
fn split_params(list: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in list.chars() {
        match c {
            '(' | '[' | '<' | '{' => depth += 1,
            ')' | ']' | '>' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() || !out.is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Whether `s`'s signature has as many parameters as `wanted`, each containing the text asked
/// for (a type, a name, or both: `Object`, `src`, `Object src`).
fn params_match(s: &SymbolInfo, wanted: &[String]) -> bool {
    let sig = &s.signature;
    let Some(open) = sig.find('(') else { return false };
    let mut depth = 0;
    let Some(close) = sig[open..].char_indices().find_map(|(i, c)| {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        (depth == 0).then_some(open + i)
    }) else {
        return false;
    };
    let have = split_params(&sig[open + 1..close]);
    have.len() == wanted.len() && have.iter().zip(wanted).all(|(h, w)| h.contains(w.as_str()))
}

/// Walks `op` from `start`, `depth` hops (default: the op's) and at most `limit` symbols
/// (default [`DEFAULT_LIMIT`]), along the edges `follow` takes; answers the walk and the
/// depth used.
pub fn walk(
    graph: &dyn GraphView,
    op: GraphOp,
    start: &SymbolInfo,
    depth: Option<usize>,
    limit: Option<usize>,
    follow: Follow,
) -> cc_graph::Result<(Walk, usize)> {
    use cc_graph::Direction;
    let depth = depth.unwrap_or(op.default_depth());
    let limits = Limits { depth, nodes: limit.unwrap_or(DEFAULT_LIMIT) };
    let from = |id| match op {
        GraphOp::Callers => graph.walk(id, Direction::Incoming, limits, follow),
        GraphOp::Callees => graph.walk(id, Direction::Outgoing, limits, follow),
        GraphOp::Impact => graph.impact_with(id, limits, follow),
    };
    let mut w = from(start.id)?;
    // Who calls a class calls its constructor: `Flask(...)` is an edge to `Flask.__init__`.
    // Those callers are the class's too, reached through the constructor.
    if op != GraphOp::Callees && start.kind.is_type_like() {
        let start_node = cc_graph::NodeRef::Symbol(start.id);
        for ctor in constructors(graph, start)? {
            let more = from(ctor.id)?;
            let ctor_node = cc_graph::NodeRef::Symbol(ctor.id);
            for mut h in more.hits {
                if h.node == start_node || w.hits.iter().any(|x| x.node == h.node) || w.hits.len() >= limits.nodes {
                    w.truncated_nodes |= w.hits.len() >= limits.nodes;
                    continue;
                }
                h.path.insert(0, start_node.clone());
                debug_assert_eq!(h.path.get(1), Some(&ctor_node));
                w.hits.push(h);
            }
            w.possible.extend(more.possible);
            w.truncated_depth |= more.truncated_depth;
            w.truncated_nodes |= more.truncated_nodes;
        }
        w.hits.sort_by(|a, b| a.distance.cmp(&b.distance).then(b.confidence.total_cmp(&a.confidence)));
    }
    Ok((w, depth))
}

/// The constructors a type defines (`__init__`, `constructor`, `new`, a method of the type's
/// own name), as the graph resolves constructor calls to them.
fn constructors(graph: &dyn GraphView, class: &SymbolInfo) -> cc_graph::Result<Vec<SymbolInfo>> {
    let names: Vec<&str> = cc_graph::resolve::constructor_names(class.lang, &class.name).collect();
    let mut v: Vec<SymbolInfo> = graph.symbols_in(&class.path)?.into_iter().map(Cow::into_owned).collect();
    v.retain(|s| {
        s.kind.is_callable()
            && names.contains(&s.name.as_str())
            && s.span.start_line >= class.span.start_line
            && s.span.end_line <= class.span.end_line
            && s.id != class.id
            && (s.qualified_name.strip_suffix(s.name.as_str()).is_some_and(|q| {
                q.strip_suffix('.').or_else(|| q.strip_suffix("::")) == Some(class.qualified_name.as_str())
            }))
    });
    Ok(v)
}

/// The symbols `name` means in `repo`, from its symbol index alone: an id, a plain name, a
/// qualified name, a plain name in another case. When this finds nothing,
/// [`lookup_in_graph`] reads the forms only the graph knows (the same as [`find`]'s).
pub fn lookup_indexed(repo: &cc_indexer::Repo, name: &str, limit: usize) -> cc_indexer::Result<Vec<SymbolDoc>> {
    if let Some(id) = cc_indexer::SymbolId::parse(name.trim()) {
        if let Some(doc) = repo.symbols.get(id)? {
            return Ok(vec![doc]);
        }
    }
    repo.symbols.lookup(name, limit)
}

/// What [`find`] finds in `graph` for `name`, with each symbol's doc from the symbol index.
pub fn lookup_in_graph(
    repo: &cc_indexer::Repo,
    graph: &dyn GraphView,
    name: &str,
    limit: usize,
) -> anyhow::Result<Vec<SymbolDoc>> {
    let found = match find(&[graph], name)? {
        Found::None => Vec::new(),
        Found::One(_, s) => vec![s],
        Found::Many(v) => v.into_iter().map(|(_, s)| s).collect(),
    };
    found.into_iter().take(limit).map(|s| Ok(repo.symbols.get(s.id)?.unwrap_or_else(|| symbol_doc(&s)))).collect()
}

/// A graph symbol as the symbol index gives one (the graph keeps no doc comments).
pub fn symbol_doc(s: &SymbolInfo) -> SymbolDoc {
    SymbolDoc {
        id: s.id,
        name: s.name.clone(),
        kind: s.kind,
        qualified_name: s.qualified_name.clone(),
        lang: s.lang,
        path: s.path.clone(),
        span: s.span,
        signature: s.signature.clone(),
        doc: None,
    }
}

/// The symbols defined in the file or folder `path` (`""`: all), in path and line order;
/// with `name`, only those whose name or qualified name it is.
pub fn symbols_in(graph: &dyn GraphView, path: &str, name: Option<&str>) -> cc_graph::Result<Vec<SymbolDoc>> {
    Ok(graph
        .symbols_in(path)?
        .into_iter()
        .filter(|s| name.is_none_or(|n| s.name == n || s.qualified_name == n))
        .map(|s| symbol_doc(&s))
        .collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_defaults_are_the_graphs() {
        assert_eq!(cc_graph::Limits::default().nodes, super::DEFAULT_LIMIT);
        assert_eq!(cc_graph::Limits::default().depth, super::DEFAULT_DEPTH);
    }
}
