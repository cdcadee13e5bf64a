//! The code-graph operations every front end shares (the CLI's `callers`/`callees`/`impact`
//! and the MCP tools code_callers/code_callees/code_impact): "find this name across these
//! repositories, say when it is ambiguous, and walk from it" — with one set of defaults.
//!
//! Defaults: callers and callees walk 1 hop, impact 3; an answer holds at most
//! [`DEFAULT_LIMIT`] symbols (a walk past it says `truncated_nodes`); a walk follows calls,
//! implicit calls and inherited dispatch, and neither references nor possible edges unless
//! asked ([`Follow`]).

pub use cc_graph::Follow;
use cc_graph::{CallGraph, Limits, SymbolInfo, Walk};
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
    One(usize, &'a SymbolInfo),
    /// None in any repository.
    None,
    /// Several: each with its repository's index, in the repositories' order.
    Many(Vec<(usize, &'a SymbolInfo)>),
}

/// Finds `name` (an id, a qualified name, a qualified suffix or a plain name) in each of
/// `graphs`, in order.
pub fn find<'a>(graphs: &[&'a CallGraph], name: &str) -> Found<'a> {
    let mut all: Vec<(usize, &SymbolInfo)> = Vec::new();
    for (i, g) in graphs.iter().enumerate() {
        all.extend(g.find(name).into_iter().map(|s| (i, s)));
    }
    match all.len() {
        0 => Found::None,
        1 => {
            let (i, s) = all[0];
            Found::One(i, s)
        }
        _ => Found::Many(all),
    }
}

/// Walks `op` from `start`, `depth` hops (default: the op's) and at most `limit` symbols
/// (default [`DEFAULT_LIMIT`]), along the edges `follow` takes; answers the walk and the
/// depth used.
pub fn walk(
    graph: &CallGraph,
    op: GraphOp,
    start: &SymbolInfo,
    depth: Option<usize>,
    limit: Option<usize>,
    follow: Follow,
) -> (Walk, usize) {
    use cc_graph::Direction;
    let depth = depth.unwrap_or(op.default_depth());
    let limits = Limits { depth, nodes: limit.unwrap_or(DEFAULT_LIMIT) };
    let w = match op {
        GraphOp::Callers => graph.walk(start.id, Direction::Incoming, limits, follow),
        GraphOp::Callees => graph.walk(start.id, Direction::Outgoing, limits, follow),
        GraphOp::Impact => graph.impact_with(start.id, limits, follow),
    };
    (w, depth)
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
pub fn symbols_in<'a>(graph: &'a CallGraph, path: &str, name: Option<&'a str>) -> impl Iterator<Item = SymbolDoc> + 'a {
    graph
        .symbols_in(path)
        .into_iter()
        .filter(move |s| name.is_none_or(|n| s.name == n || s.qualified_name == n))
        .map(symbol_doc)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_defaults_are_the_graphs() {
        assert_eq!(cc_graph::Limits::default().nodes, super::DEFAULT_LIMIT);
        assert_eq!(cc_graph::Limits::default().depth, super::DEFAULT_DEPTH);
    }
}
