//! Review diagrams — sequence, entity-relation, state machine — and [`verify`], which checks
//! each element against the repository's call graph: "here is what I drew; which of it does
//! the code say, which does it deny, and which can it not tell?"
//!
//! Every element gets one [`Status`]:
//!
//! - **verified**: the graph says it, from facts only (resolved edges, never a guess).
//! - **contradicted**: the graph denies it: a name that means no symbol, or two symbols the
//!   graph does not link by any edge within the depth asked — not even a possible edge, a
//!   reference or an unresolved call that could be it.
//! - **unverified**: the graph can neither confirm nor deny: a name that means several
//!   symbols (each reading is checked, and one that links makes the element unverified, not
//!   verified), a link only through possible edges (a call with several candidates) or
//!   references (the symbol passed as a value: whoever receives it may call it), an
//!   unresolved call on the way that may be it (its name is one of the other side's, or it
//!   calls a parameter of the caller: a callback), a walk cut at [`WALK_NODES`] symbols, a
//!   side that names nothing (that element is contradicted on its own), or a transition
//!   without a `symbol`.
//!
//! Names are read as every code tool reads one ([`crate::ops::find`]): an id, a qualified
//! name, a qualified suffix (`Class.method`, `mod::f`), a plain name, a file's path (its top
//! level), `name(params)` for an overload; `path` narrows a name to a file or folder.
//!
//! The elements:
//!
//! - A **participant**, **entity** or **state** names a symbol (its `symbol`, else its
//!   `name`): verified when that is one symbol, unverified when several, contradicted when
//!   none.
//! - A **call** from A to B claims that some symbol of A (A itself, or a member of A: what
//!   its qualified name prefixes, and everything in a file when A is a file's top level)
//!   calls some symbol of B — or, with `symbol`, that symbol (which must be B or a member of
//!   B) — directly or through at most `depth` calls. Verified by a path of facts (calls,
//!   constructors, inherited dispatch and the other implicit calls; no references, no
//!   possible edges); contradicted, when both sides are one symbol each, by no path at all.
//! - A **relation** between two entities is verified when a symbol of one refers to a symbol
//!   of the other directly: an edge of any kind but a guess (a call, a constructor, a
//!   reference), or a type annotation in its body naming the other entity (a field's type,
//!   a parameter's) that resolves to it alone. Contradicted when neither refers to the other
//!   in any way, possible edges and type names that may mean it included.
//! - A **transition** is verified when its `symbol` (the function or method that makes it)
//!   is one symbol and relates to both states that are symbols: it is defined on the state,
//!   reaches the state's symbols within `depth` (calls, constructors, references), or names
//!   the state in its body (`self.status = Status.PAID`). Contradicted when its symbol
//!   names nothing, or relates to neither state in any way; unverified when it relates to
//!   one of them only, or a state is not one symbol.
//!
//! Relations and mentions in bodies read the records of the files involved (references,
//! type annotations) once per [`verify`], only when an element needs them.

use std::collections::HashSet;
use std::fmt::Write as _;

use cc_graph::{CallGraph, Direction, EdgeKind, Follow, Limits, NodeRef, SymbolInfo, Walk};
use cc_indexer::{FileRecord, RefKind, SymbolId};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::Loaded;
use crate::ops::{self, Found};

/// The most symbols one walk of a check visits; past it a link not yet found is unverified.
pub const WALK_NODES: usize = 10_000;

/// A diagram of a review's cohort, by kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum Diagram {
    /// Who calls whom, in order: participants (symbols) and the calls between them.
    #[serde(rename_all = "snake_case")]
    Sequence {
        /// The lifelines: each a symbol (a class, a module, a function).
        participants: Vec<Participant>,
        /// The call arrows, in the order drawn.
        calls: Vec<Call>,
    },
    /// Entities (types) and the relations between them.
    #[serde(rename_all = "snake_case")]
    EntityRelation {
        /// The entities: each a type (a class, a struct, a table's model).
        entities: Vec<Entity>,
        /// The relations between entities.
        relations: Vec<Relation>,
    },
    /// States and the transitions between them.
    #[serde(rename_all = "snake_case")]
    StateMachine {
        /// The states: each a symbol (a state class, an enum member, a constant).
        states: Vec<State>,
        /// The transitions between states.
        transitions: Vec<Transition>,
    },
}

/// A lifeline of a sequence diagram.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Participant {
    /// The participant's name in the diagram, unique in it: what calls' `from` and `to`
    /// name. It is also the symbol it stands for unless `symbol` is given.
    #[schemars(length(min = 1, max = 500))]
    pub name: String,
    /// The symbol it stands for, as the code tools read a name: an id, a qualified name
    /// (`shop.orders.Order`), a suffix (`Order.pay`), a plain name, a file's path.
    #[schemars(length(min = 1, max = 500))]
    pub symbol: Option<String>,
    /// A file or folder the symbol is in: narrows a name that means several symbols.
    #[schemars(length(min = 1, max = 1000))]
    pub path: Option<String>,
}

/// A call arrow of a sequence diagram: some symbol of `from` calls some symbol of `to`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Call {
    /// The calling participant's `name`.
    #[schemars(length(min = 1, max = 500))]
    pub from: String,
    /// The called participant's `name` (may be `from`: a call within one participant).
    #[schemars(length(min = 1, max = 500))]
    pub to: String,
    /// The message as drawn (`pay(amount)`); shown, not checked.
    #[schemars(length(max = 500))]
    pub label: Option<String>,
    /// The symbol called, when the arrow means one (a method of `to`, or `to` itself): the
    /// arrow then claims that this symbol is called. Read as a participant's `symbol`.
    #[schemars(length(min = 1, max = 500))]
    pub symbol: Option<String>,
}

/// An entity of an entity-relation diagram.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entity {
    /// The entity's name in the diagram, unique in it: what relations' `from` and `to`
    /// name. It is also the symbol it stands for unless `symbol` is given.
    #[schemars(length(min = 1, max = 500))]
    pub name: String,
    /// The type it stands for, as the code tools read a name (a qualified name, a plain
    /// name, an id).
    #[schemars(length(min = 1, max = 500))]
    pub symbol: Option<String>,
    /// A file or folder the symbol is in: narrows a name that means several symbols.
    #[schemars(length(min = 1, max = 1000))]
    pub path: Option<String>,
}

/// A relation between two entities (either may refer to the other).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Relation {
    /// One entity's `name`.
    #[schemars(length(min = 1, max = 500))]
    pub from: String,
    /// The other entity's `name`.
    #[schemars(length(min = 1, max = 500))]
    pub to: String,
    /// The relation as drawn (`has many`, `1..*`); shown, not checked.
    #[schemars(length(max = 500))]
    pub label: Option<String>,
}

/// A state of a state machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// The state's name in the diagram, unique in it: what transitions' `from` and `to`
    /// name. It is also the symbol it stands for unless `symbol` is given.
    #[schemars(length(min = 1, max = 500))]
    pub name: String,
    /// The symbol it stands for (a state class, an enum member `Status.PAID`, a constant),
    /// as the code tools read a name.
    #[schemars(length(min = 1, max = 500))]
    pub symbol: Option<String>,
    /// A file or folder the symbol is in: narrows a name that means several symbols.
    #[schemars(length(min = 1, max = 1000))]
    pub path: Option<String>,
}

/// A transition between two states.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Transition {
    /// The state left: a state's `name`.
    #[schemars(length(min = 1, max = 500))]
    pub from: String,
    /// The state entered: a state's `name` (may be `from`).
    #[schemars(length(min = 1, max = 500))]
    pub to: String,
    /// What triggers it as drawn (`paid`, `timeout`); shown, not checked.
    #[schemars(length(max = 500))]
    pub event: Option<String>,
    /// The function or method that makes the transition, as the code tools read a name.
    /// Without it the transition cannot be checked (unverified).
    #[schemars(length(min = 1, max = 500))]
    pub symbol: Option<String>,
}

/// What the graph says of one element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The graph says it, from facts.
    Verified,
    /// The graph can neither confirm nor deny it.
    Unverified,
    /// The graph denies it.
    Contradicted,
}

/// A symbol an element resolved to (or, for a link, a symbol on the path found).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct SymbolRef {
    /// The symbol's id (16 hex digits).
    pub id: String,
    pub qualified_name: String,
    /// function, method, class, …
    pub kind: String,
    /// Its file, repository-relative.
    pub path: String,
    /// Its first line (1-based).
    pub line: u32,
}

impl SymbolRef {
    fn of(s: &SymbolInfo) -> SymbolRef {
        SymbolRef {
            id: s.id.to_string(),
            qualified_name: s.qualified_name.clone(),
            kind: s.kind.to_string(),
            path: s.path.clone(),
            line: s.span.start_line,
        }
    }
}

/// One element's check.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct ElementCheck {
    /// The element, as a JSON pointer into the diagram (`/participants/0`, `/calls/2`).
    pub pointer: String,
    pub status: Status,
    /// Why, in words: what it resolved to, the path found, or what is missing.
    pub detail: String,
    /// What it resolved to: a node's symbol (every candidate when ambiguous); a link's path
    /// from the first symbol to the last.
    pub symbols: Vec<SymbolRef>,
}

/// Every element's check, in the diagram's order (nodes, then links), and the counts.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct DiagramCheck {
    pub elements: Vec<ElementCheck>,
    pub verified: usize,
    pub unverified: usize,
    pub contradicted: usize,
}

/// A diagram that does not hold together, whatever the code: the element by JSON pointer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{pointer}: {message}")]
pub struct DiagramError {
    pub pointer: String,
    pub message: String,
}

/// A node of any kind: (name, symbol, path).
fn node_parts<'d>(name: &'d str, symbol: &'d Option<String>, path: &'d Option<String>) -> Node<'d> {
    Node { name, symbol: symbol.as_deref().unwrap_or(name), path: path.as_deref() }
}

#[derive(Clone, Copy)]
struct Node<'d> {
    name: &'d str,
    symbol: &'d str,
    path: Option<&'d str>,
}

/// The parts of a diagram as [`verify`] walks them.
struct Parts<'d> {
    /// `participants`, `entities` or `states`.
    nodes_field: &'static str,
    /// `calls`, `relations` or `transitions`.
    links_field: &'static str,
    /// `participant`, `entity` or `state`.
    noun: &'static str,
    nodes: Vec<Node<'d>>,
    /// (from, to) of each link.
    links: Vec<(&'d str, &'d str)>,
}

impl Diagram {
    fn parts(&self) -> Parts<'_> {
        match self {
            Diagram::Sequence { participants, calls } => Parts {
                nodes_field: "participants",
                links_field: "calls",
                noun: "participant",
                nodes: participants.iter().map(|p| node_parts(&p.name, &p.symbol, &p.path)).collect(),
                links: calls.iter().map(|c| (c.from.as_str(), c.to.as_str())).collect(),
            },
            Diagram::EntityRelation { entities, relations } => Parts {
                nodes_field: "entities",
                links_field: "relations",
                noun: "entity",
                nodes: entities.iter().map(|p| node_parts(&p.name, &p.symbol, &p.path)).collect(),
                links: relations.iter().map(|c| (c.from.as_str(), c.to.as_str())).collect(),
            },
            Diagram::StateMachine { states, transitions } => Parts {
                nodes_field: "states",
                links_field: "transitions",
                noun: "state",
                nodes: states.iter().map(|p| node_parts(&p.name, &p.symbol, &p.path)).collect(),
                links: transitions.iter().map(|c| (c.from.as_str(), c.to.as_str())).collect(),
            },
        }
    }

    /// The diagram's kind as its `kind` tag says it.
    pub fn kind(&self) -> &'static str {
        match self {
            Diagram::Sequence { .. } => "sequence",
            Diagram::EntityRelation { .. } => "entityRelation",
            Diagram::StateMachine { .. } => "stateMachine",
        }
    }

    /// Whether the diagram holds together, whatever the code says: at least one node, names
    /// unique, every link's `from` and `to` naming a node of it. The first problem, by
    /// JSON pointer (`/calls/1/to`).
    pub fn validate(&self) -> Result<(), DiagramError> {
        let p = self.parts();
        if p.nodes.is_empty() {
            return Err(DiagramError {
                pointer: format!("/{}", p.nodes_field),
                message: format!("a {} diagram needs at least one {}", self.kind(), p.noun),
            });
        }
        for (i, n) in p.nodes.iter().enumerate() {
            if n.name.trim().is_empty() {
                return Err(DiagramError {
                    pointer: format!("/{}/{i}/name", p.nodes_field),
                    message: format!("expected a {}'s name, found an empty string", p.noun),
                });
            }
            if let Some(j) = p.nodes[..i].iter().position(|m| m.name == n.name) {
                return Err(DiagramError {
                    pointer: format!("/{}/{i}/name", p.nodes_field),
                    message: format!("`{}` is already the name of /{}/{j}: names are unique", n.name, p.nodes_field),
                });
            }
        }
        for (i, (from, to)) in p.links.iter().enumerate() {
            for (field, name) in [("from", from), ("to", to)] {
                if !p.nodes.iter().any(|n| n.name == *name) {
                    return Err(DiagramError {
                        pointer: format!("/{}/{i}/{field}", p.links_field),
                        message: format!(
                            "expected the name of one of the {} ({}), found `{name}`",
                            p.nodes_field,
                            names_list(&p.nodes)
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

fn names_list(nodes: &[Node<'_>]) -> String {
    let mut s = String::new();
    for (i, n) in nodes.iter().enumerate().take(20) {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "`{}`", n.name);
    }
    if nodes.len() > 20 {
        let _ = write!(s, ", … {} more", nodes.len() - 20);
    }
    s
}

/// Checks every element of `diagram` against `repo`'s call graph, links within `depth`
/// hops (at least 1). The rules are the module's. A link whose `from` or `to` names no node
/// of the diagram is contradicted (see [`Diagram::validate`] to refuse it instead).
/// Fails when the call graph cannot be loaded.
pub fn verify(repo: &Loaded, diagram: &Diagram, depth: usize) -> Result<DiagramCheck, String> {
    let c = Checker { repo, g: repo.call_graph()?, depth: depth.max(1), records: std::cell::OnceCell::new() };
    let parts = diagram.parts();
    let mut elements = Vec::new();
    let resolved: Vec<Res> = parts.nodes.iter().map(|n| c.resolve(n.symbol, n.path)).collect();
    for (i, (n, r)) in parts.nodes.iter().zip(&resolved).enumerate() {
        elements.push(node_check(format!("/{}/{i}", parts.nodes_field), parts.noun, n, r, &repo.repo.meta.name));
    }
    let node = |name: &str| parts.nodes.iter().position(|n| n.name == name);
    for (i, &(from, to)) in parts.links.iter().enumerate() {
        let pointer = format!("/{}/{i}", parts.links_field);
        let (Some(a), Some(b)) = (node(from), node(to)) else {
            let (field, name) = if node(from).is_none() { ("from", from) } else { ("to", to) };
            elements.push(ElementCheck {
                pointer,
                status: Status::Contradicted,
                detail: format!("`{field}` names `{name}`, which is no {} of this diagram", parts.noun),
                symbols: Vec::new(),
            });
            continue;
        };
        let sides = Sides { pointer: &parts, a, b, ra: &resolved[a], rb: &resolved[b] };
        let check = match diagram {
            Diagram::Sequence { calls, .. } => c.call(&sides, calls[i].symbol.as_deref()),
            Diagram::EntityRelation { .. } => c.relation(&sides),
            Diagram::StateMachine { transitions, .. } => c.transition(&sides, transitions[i].symbol.as_deref()),
        };
        elements.push(ElementCheck { pointer, status: check.0, detail: check.1, symbols: check.2 });
    }
    let count = |s: Status| elements.iter().filter(|e| e.status == s).count();
    Ok(DiagramCheck {
        verified: count(Status::Verified),
        unverified: count(Status::Unverified),
        contradicted: count(Status::Contradicted),
        elements,
    })
}

/// One thing a name means: a symbol, or a module or file (its symbols) that has no node of
/// its own.
struct Reading {
    what: SymbolRef,
    /// The symbol, when it is one.
    id: Option<SymbolId>,
    /// Its plain name (the last segment).
    name: String,
    /// It and its members (see [`Checker::members`]).
    members: HashSet<SymbolId>,
}

/// What a name means in the graph.
enum Res {
    One(Reading),
    Many(Vec<Reading>),
    /// Nothing: why, in words.
    None(String),
}

impl Res {
    fn readings(&self) -> &[Reading] {
        match self {
            Res::One(s) => std::slice::from_ref(s),
            Res::Many(v) => v,
            Res::None(_) => &[],
        }
    }
}

fn node_check(pointer: String, noun: &str, n: &Node<'_>, r: &Res, repo: &str) -> ElementCheck {
    let (status, detail, symbols) = match r {
        Res::One(s) => (Status::Verified, format!("`{}` is {}", n.symbol, describe(s)), vec![s.what.clone()]),
        Res::Many(v) => (
            Status::Unverified,
            format!(
                "`{}` names {} symbols ({}): give the {noun} a qualified `symbol` or a `path`",
                n.symbol,
                v.len(),
                v.iter().take(10).map(describe).collect::<Vec<_>>().join("; ")
            ),
            v.iter().map(|s| s.what.clone()).collect(),
        ),
        Res::None(why) => (Status::Contradicted, format!("{why} in repository '{repo}'"), Vec::new()),
    };
    ElementCheck { pointer, status, detail, symbols }
}

fn describe(s: &Reading) -> String {
    let w = &s.what;
    format!("{} {} ({}:{})", w.kind, w.qualified_name, w.path, w.line)
}

/// The two ends of a link and what their nodes resolved to.
struct Sides<'p, 'd> {
    pointer: &'p Parts<'d>,
    a: usize,
    b: usize,
    ra: &'p Res,
    rb: &'p Res,
}

impl Sides<'_, '_> {
    fn at(&self, i: usize) -> String {
        format!("/{}/{i}", self.pointer.nodes_field)
    }
    fn name(&self, i: usize) -> &str {
        self.pointer.nodes[i].name
    }
}

/// What links one symbol to a set of others.
enum Link {
    /// A path of facts: the nodes from the first to the last, and how.
    Fact(Vec<NodeRef>, String),
    /// A link the graph does not assert: a path through possible edges or references, an
    /// unresolved call that may be it, a walk cut short. How, in words, and the path if any.
    Maybe(Vec<NodeRef>, String),
    /// No link.
    None,
}

impl Link {
    fn rank(&self) -> u8 {
        match self {
            Link::Fact(..) => 2,
            Link::Maybe(..) => 1,
            Link::None => 0,
        }
    }
}

/// The better of two links (facts over guesses over nothing); the first on a tie.
fn better(a: Link, b: impl FnOnce() -> Link) -> Link {
    if a.rank() == 2 {
        return a;
    }
    let b = b();
    if b.rank() > a.rank() {
        b
    } else {
        a
    }
}

/// Everything a check reads, the records loaded at most once.
struct Checker<'a> {
    repo: &'a Loaded,
    g: &'a CallGraph,
    depth: usize,
    records: std::cell::OnceCell<Result<Vec<FileRecord>, String>>,
}

impl<'a> Checker<'a> {
    /// [`ops::find`] in this graph (in memory: it answers every read).
    fn find(&self, spec: &str) -> Found<'a> {
        ops::find(&[self.g], spec).expect("a graph in memory answers every read")
    }

    fn resolve(&self, spec: &str, path: Option<&str>) -> Res {
        let found: Vec<&SymbolInfo> = match self.find(spec) {
            Found::None => Vec::new(),
            Found::One(_, s) => vec![self.g.borrowed(s)],
            Found::Many(v) => v.into_iter().map(|(_, s)| self.g.borrowed(s)).collect(),
        };
        let under = |p: &str| {
            path.is_none_or(|dir| {
                let dir = dir.trim_matches('/');
                p == dir || (p.starts_with(dir) && p.as_bytes().get(dir.len()) == Some(&b'/'))
            })
        };
        let all = found.len();
        let mut found: Vec<Reading> = found.into_iter().filter(|s| under(&s.path)).map(|s| self.reading(s)).collect();
        if all == 0 {
            found.extend(self.scope(spec.trim()).filter(|r| under(&r.what.path)));
        }
        match found.len() {
            0 if all > 0 => Res::None(format!(
                "`{spec}` names {all} symbol{} but none in `{}`",
                if all == 1 { "" } else { "s" },
                path.unwrap_or_default()
            )),
            0 => Res::None(format!("`{spec}` names no symbol")),
            1 => Res::One(found.remove(0)),
            _ => Res::Many(found),
        }
    }

    fn reading(&self, s: &SymbolInfo) -> Reading {
        Reading { what: SymbolRef::of(s), id: Some(s.id), name: s.name.clone(), members: self.members(s) }
    }

    /// A module (`shop.payments`: the symbols its qualified name prefixes) or a file
    /// (`shop/payments.py`: its symbols) with no symbol of its own.
    fn scope(&self, spec: &str) -> Option<Reading> {
        if spec.is_empty() {
            return None;
        }
        let in_file: Vec<&SymbolInfo> = self.g.symbols().filter(|s| s.path == spec).collect();
        let (kind, members) = if !in_file.is_empty() {
            ("file", in_file)
        } else {
            let v: Vec<&SymbolInfo> = self
                .g
                .symbols()
                .filter(|s| {
                    s.qualified_name
                        .strip_prefix(spec)
                        .is_some_and(|rest| rest.starts_with('.') || rest.starts_with("::") || rest.starts_with('\\'))
                })
                .collect();
            ("module", v)
        };
        let first = members.iter().min_by_key(|s| (&s.path, s.span.start_line))?;
        let name = spec.rsplit(['.', ':', '\\', '/']).next().unwrap_or(spec).to_string();
        Some(Reading {
            what: SymbolRef {
                id: String::new(),
                qualified_name: spec.to_string(),
                kind: kind.to_string(),
                path: if kind == "file" { spec.to_string() } else { first.path.clone() },
                line: if kind == "file" { 1 } else { first.span.start_line },
            },
            id: None,
            name,
            members: members.iter().map(|s| s.id).collect(),
        })
    }

    /// `s` and its members: what its qualified name prefixes (`Order.pay` of `Order`,
    /// `shop::orders::f` of `shop::orders`), and for a file's top level every symbol of the
    /// file.
    fn members(&self, s: &SymbolInfo) -> HashSet<SymbolId> {
        let top = s.name == cc_graph::TOP_LEVEL_NAME;
        let q = s.qualified_name.as_str();
        let mut out: HashSet<SymbolId> = self
            .g
            .symbols()
            .filter(|m| {
                m.lang == s.lang
                    && ((top && m.path == s.path)
                        || m.qualified_name.strip_prefix(q).is_some_and(|rest| {
                            rest.starts_with('.') || rest.starts_with("::") || rest.starts_with('\\')
                        }))
            })
            .map(|m| m.id)
            .collect();
        out.insert(s.id);
        out
    }

    fn node_id(&self, n: &NodeRef) -> Option<SymbolId> {
        match n {
            NodeRef::Symbol(id) => Some(*id),
            NodeRef::File(p) => self.g.find(&cc_graph::top_level_qualified(p)).first().map(|s| s.id),
            NodeRef::External(_) => None,
        }
    }

    fn path_symbols(&self, path: &[NodeRef]) -> Vec<SymbolRef> {
        path.iter().filter_map(|n| self.node_id(n)).filter_map(|id| self.g.symbol(id)).map(SymbolRef::of).collect()
    }

    fn label(&self, n: &NodeRef) -> String {
        self.g.node_id_and_name(n).1
    }

    fn path_text(&self, path: &[NodeRef]) -> String {
        path.iter().map(|n| self.label(n)).collect::<Vec<_>>().join(" -> ")
    }

    fn walk(&self, start: SymbolId, dir: Direction, depth: usize, follow: Follow) -> Walk {
        self.g.walk(start, dir, Limits { depth, nodes: WALK_NODES }, follow)
    }

    /// What links `from` (any of its members) to any symbol of `to` within `depth` calls:
    /// facts along the edges `facts` follows, else anything a wider walk finds (possible
    /// edges, references, and with `unresolved` an unresolved call named as one of `to`'s
    /// symbols or calling a parameter), else nothing.
    fn link(&self, from: &Reading, to: &HashSet<SymbolId>, depth: usize, facts: Follow, unresolved: bool) -> Link {
        let dir = Direction::Outgoing;
        let mut starts: Vec<SymbolId> = from.members.iter().copied().collect();
        starts.sort_by_key(|id| {
            let s = self.g.symbol(*id);
            (s.map(|s| (s.path.clone(), s.span.start_line)), id.0)
        });
        let hit_in = |w: &Walk| {
            w.hits.iter().find_map(|h| {
                let id = self.node_id(&h.node)?;
                to.contains(&id).then(|| (h.path.clone(), h.kind))
            })
        };
        let mut cut = false;
        for &s in &starts {
            let w = self.walk(s, dir, depth, facts);
            if let Some((path, kind)) = hit_in(&w) {
                let how = if path.len() == 2 {
                    format!("a {} edge", kind.as_str())
                } else {
                    format!("a path of {} facts", path.len() - 1)
                };
                return Link::Fact(path, how);
            }
            cut |= w.truncated_nodes;
        }
        let wide = Follow { references: true, possible: true };
        let names: HashSet<&str> = to.iter().filter_map(|id| self.g.symbol(*id)).map(|s| s.name.as_str()).collect();
        for &s in &starts {
            let w = self.walk(s, dir, depth, wide);
            if let Some((path, kind)) = hit_in(&w) {
                let how = if kind == EdgeKind::Reference {
                    "only through a reference (passed or stored as a value: whoever holds it may call it)"
                } else {
                    "only through possible edges (calls with several candidates) or references"
                };
                return Link::Maybe(path, how.to_string());
            }
            cut |= w.truncated_nodes;
            if unresolved {
                for h in &w.hits {
                    let NodeRef::External(x) = &h.node else { continue };
                    let tail = x.rsplit(['.', ':', '\\']).next().unwrap_or(x);
                    let caller = h.path.len().checked_sub(2).and_then(|i| self.node_id(&h.path[i]));
                    let caller = caller.and_then(|id| self.g.symbol(id));
                    let site = h.sites.first().map(|s| format!(" at {}:{}", s.path, s.line)).unwrap_or_default();
                    if names.contains(tail) {
                        return Link::Maybe(
                            h.path.clone(),
                            format!("only through the unresolved call `{x}`{site}, which may be it"),
                        );
                    }
                    if !x.contains(['.', ':'])
                        && caller.is_some_and(|c| parameter_names(&c.signature).contains(x.as_str()))
                    {
                        return Link::Maybe(
                            h.path.clone(),
                            format!("only through the call of the parameter `{x}`{site} (a callback the graph cannot follow)"),
                        );
                    }
                }
            }
        }
        if cut {
            return Link::Maybe(Vec::new(), format!("a walk was cut at {WALK_NODES} symbols before finding it"));
        }
        Link::None
    }

    fn records(&self) -> Result<&[FileRecord], &str> {
        self.records
            .get_or_init(|| self.repo.repo.records().map_err(|e| e.to_string()))
            .as_deref()
            .map_err(|e| e.as_str())
    }

    /// A reference in the body of `from` (any member) naming `to`: of the kinds `kinds`,
    /// whose name (with its qualifier when it has one) resolves to `to` alone (a fact) or
    /// among others (a guess).
    fn mention(&self, from: &Reading, to: &Reading, kinds: &[RefKind]) -> Link {
        let members = &from.members;
        let paths: HashSet<&str> =
            members.iter().filter_map(|id| self.g.symbol(*id)).map(|s| s.path.as_str()).collect();
        let records = match self.records() {
            Ok(r) => r,
            Err(e) => return Link::Maybe(Vec::new(), format!("the records cannot be read ({e})")),
        };
        let mut maybe = Link::None;
        for f in records.iter().filter(|f| paths.contains(f.path.as_str())) {
            for r in &f.references {
                if !kinds.contains(&r.kind) || !r.enclosing.is_some_and(|e| members.contains(&e)) || r.name != to.name {
                    continue;
                }
                let written = match r.receiver.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
                    Some(q) if !matches!(q, "self" | "this" | "cls" | "Self") => format!("{q}.{}", r.name),
                    _ => r.name.to_string(),
                };
                let enclosing = r.enclosing.and_then(|e| self.g.symbol(e));
                let site = format!("`{written}` ({}) at {}:{}", r.kind.as_str(), f.path, r.span.start_line);
                let path = |s: &SymbolInfo| {
                    enclosing.map(|e| vec![NodeRef::Symbol(e.id), NodeRef::Symbol(s.id)]).unwrap_or_default()
                };
                match self.find(&written) {
                    Found::One(_, s) if to.members.contains(&s.id) => {
                        return Link::Fact(path(&s), format!("the {site}"))
                    }
                    Found::Many(v) if maybe.rank() == 0 && v.iter().any(|(_, s)| to.members.contains(&s.id)) => {
                        let s = v.iter().find(|(_, s)| to.members.contains(&s.id)).expect("one is").1.clone();
                        let path = path(&s);
                        maybe = Link::Maybe(
                            path,
                            format!("the {site}, which names {} symbols, this one among them", v.len()),
                        );
                    }
                    _ => {}
                }
            }
        }
        maybe
    }

    fn link_check(&self, l: Link, what: &str) -> (Status, String, Vec<SymbolRef>) {
        match l {
            Link::Fact(path, how) => {
                let text = if path.is_empty() { String::new() } else { format!(": {}", self.path_text(&path)) };
                (Status::Verified, format!("{what}: {how}{text}"), self.path_symbols(&path))
            }
            Link::Maybe(path, how) => {
                let text = if path.is_empty() { String::new() } else { format!(": {}", self.path_text(&path)) };
                (Status::Unverified, format!("{what} {how}{text}"), self.path_symbols(&path))
            }
            Link::None => unreachable!("callers handle no link"),
        }
    }

    /// A call arrow: some symbol of `a` calls `symbol` (or some symbol of `b`) within depth.
    fn call(&self, s: &Sides<'_, '_>, symbol: Option<&str>) -> (Status, String, Vec<SymbolRef>) {
        let (an, bn) = (s.name(s.a), s.name(s.b));
        // The callee: the arrow's `symbol`, which must be `b` or a member of it.
        let target_res;
        let rb: &Res = match symbol {
            None => s.rb,
            Some(sym) => {
                target_res = self.resolve(sym, None);
                match (&target_res, s.rb) {
                    (Res::None(why), _) => return (Status::Contradicted, format!("`symbol`: {why}"), Vec::new()),
                    (Res::One(t), Res::One(b)) if !t.members.is_subset(&b.members) => {
                        return (
                            Status::Contradicted,
                            format!(
                                "`symbol` is {}, which is not {bn} ({}) nor a member of it",
                                describe(t),
                                s.at(s.b)
                            ),
                            vec![t.what.clone(), b.what.clone()],
                        )
                    }
                    _ => &target_res,
                }
            }
        };
        for (i, r) in [(s.a, s.ra), (s.b, rb)] {
            if let Res::None(_) = r {
                let whose = if i == s.b && symbol.is_some() {
                    "its `symbol`".to_string()
                } else {
                    format!("{} ({})", s.name(i), s.at(i))
                };
                return (
                    Status::Unverified,
                    format!("{whose} names no symbol: the call cannot be checked"),
                    Vec::new(),
                );
            }
        }
        let what = match symbol {
            Some(sym) => format!("{an} calls `{sym}` of {bn}"),
            None => format!("{an} calls {bn}"),
        };
        let unique = s.ra.readings().len() == 1 && rb.readings().len() == 1;
        let mut best: Option<(Link, &Reading, &Reading)> = None;
        for f in s.ra.readings() {
            for t in rb.readings() {
                let l = self.link(f, &t.members, self.depth, Follow::default(), true);
                if best.as_ref().is_none_or(|(b, ..)| l.rank() > b.rank()) {
                    best = Some((l, f, t));
                }
                if best.as_ref().is_some_and(|(b, ..)| b.rank() == 2) {
                    break;
                }
            }
        }
        let (link, f, t) = best.expect("both sides have readings");
        match link {
            Link::None if unique => (
                Status::Contradicted,
                format!(
                    "no path of at most {} call{} from {} (or its members) to {}, not even through possible edges, references or unresolved calls",
                    self.depth,
                    if self.depth == 1 { "" } else { "s" },
                    f.what.qualified_name,
                    t.what.qualified_name
                ),
                vec![f.what.clone(), t.what.clone()],
            ),
            Link::None => (
                Status::Contradicted,
                format!(
                    "no reading of {an} reaches any reading of {} within {} call{}, not even through possible edges",
                    if symbol.is_some() { "its `symbol`" } else { bn },
                    self.depth,
                    if self.depth == 1 { "" } else { "s" }
                ),
                Vec::new(),
            ),
            l if !unique => {
                let (_, detail, syms) =
                    self.link_check(l, &format!("{} -> {}", f.what.qualified_name, t.what.qualified_name));
                (
                    Status::Unverified,
                    format!("a side names several symbols; one reading links ({detail})"),
                    syms,
                )
            }
            l => self.link_check(l, &what),
        }
    }

    /// A relation: one entity's symbols refer to the other's, either way, directly.
    fn relation(&self, s: &Sides<'_, '_>) -> (Status, String, Vec<SymbolRef>) {
        let (an, bn) = (s.name(s.a), s.name(s.b));
        for i in [s.a, s.b] {
            if let Res::None(_) = if i == s.a { s.ra } else { s.rb } {
                return (
                    Status::Unverified,
                    format!("{} ({}) names no symbol: the relation cannot be checked", s.name(i), s.at(i)),
                    Vec::new(),
                );
            }
        }
        let unique = s.ra.readings().len() == 1 && s.rb.readings().len() == 1;
        let facts = Follow { references: true, possible: false };
        let mut best: Option<(Link, &Reading, &Reading)> = None;
        'all: for x in s.ra.readings() {
            for y in s.rb.readings() {
                let one_way = |p: &Reading, q: &Reading| {
                    let l = self.link(p, &q.members, 1, facts, false);
                    better(l, || self.mention(p, q, &[RefKind::Type]))
                };
                let l = one_way(x, y);
                let l = if l.rank() == 2 { l } else { better(l, || one_way(y, x)) };
                if best.as_ref().is_none_or(|(b, ..)| l.rank() > b.rank()) {
                    best = Some((l, x, y));
                }
                if best.as_ref().is_some_and(|(b, ..)| b.rank() == 2) {
                    break 'all;
                }
            }
        }
        let (link, x, y) = best.expect("both sides have readings");
        match link {
            Link::None => (
                Status::Contradicted,
                format!(
                    "neither {} nor {} (or their members) refers to the other: no call, constructor, reference or type annotation, not even a possible one",
                    x.what.qualified_name, y.what.qualified_name
                ),
                vec![x.what.clone(), y.what.clone()],
            ),
            l if !unique => {
                let (_, detail, syms) =
                    self.link_check(l, &format!("{} — {}", x.what.qualified_name, y.what.qualified_name));
                (Status::Unverified, format!("a side names several symbols; one reading links ({detail})"), syms)
            }
            l => self.link_check(l, &format!("{an} and {bn} are related")),
        }
    }

    /// A transition: its symbol exists and relates to the states that are symbols.
    fn transition(&self, s: &Sides<'_, '_>, symbol: Option<&str>) -> (Status, String, Vec<SymbolRef>) {
        let Some(sym) = symbol else {
            return (
                Status::Unverified,
                "no `symbol` (the function or method making the transition): nothing in the graph to check it against"
                    .into(),
                Vec::new(),
            );
        };
        let m = match self.resolve(sym, None) {
            Res::None(why) => return (Status::Contradicted, format!("`symbol`: {why}"), Vec::new()),
            Res::Many(v) => {
                return (
                    Status::Unverified,
                    format!(
                        "`symbol` `{sym}` names {} symbols ({}): give a qualified name",
                        v.len(),
                        v.iter().take(10).map(describe).collect::<Vec<_>>().join("; ")
                    ),
                    v.iter().map(|s| s.what.clone()).collect(),
                )
            }
            Res::One(m) => m,
        };
        let mut symbols = vec![m.what.clone()];
        let (mut related, mut unrelated, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
        let facts = Follow { references: true, possible: false };
        let ends: &[(usize, &Res)] = if s.a == s.b { &[(s.a, s.ra)] } else { &[(s.a, s.ra), (s.b, s.rb)] };
        for &(i, r) in ends {
            let name = s.name(i);
            let Res::One(st) = r else {
                unknown.push(format!("{name} ({}) is not one symbol", s.at(i)));
                continue;
            };
            let l = if m.id.is_some_and(|id| st.members.contains(&id)) {
                Link::Fact(Vec::new(), format!("{} is defined on it", m.what.qualified_name))
            } else {
                let l = self.link(&m, &st.members, self.depth, facts, false);
                better(l, || self.mention(&m, st, &[RefKind::Value, RefKind::Call, RefKind::Type, RefKind::Callback]))
            };
            match l {
                Link::Fact(path, how) => {
                    symbols.extend(self.path_symbols(&path).into_iter().skip(1));
                    let text = if path.is_empty() { String::new() } else { format!(" ({})", self.path_text(&path)) };
                    related.push(format!("{name}: {how}{text}"));
                }
                Link::Maybe(path, how) => {
                    symbols.extend(self.path_symbols(&path).into_iter().skip(1));
                    unknown.push(format!("{name}: {how}"));
                }
                Link::None => unrelated.push(format!("{name} ({})", st.what.qualified_name)),
            }
        }
        let head = format!("`symbol` is {}", describe(&m));
        if related.is_empty() && unknown.is_empty() {
            return (
                Status::Contradicted,
                format!(
                    "{head}, which relates to neither state: it is not defined on, does not reach within {} hop{} and does not name {}",
                    self.depth,
                    if self.depth == 1 { "" } else { "s" },
                    unrelated.join(" nor ")
                ),
                symbols,
            );
        }
        let mut detail = head;
        if !related.is_empty() {
            let _ = write!(detail, "; relates to {}", related.join("; "));
        }
        if !unknown.is_empty() {
            let _ = write!(detail, "; cannot tell: {}", unknown.join("; "));
        }
        if !unrelated.is_empty() {
            let _ = write!(detail, "; no link to {}", unrelated.join(", "));
        }
        let status = if unknown.is_empty() && unrelated.is_empty() { Status::Verified } else { Status::Unverified };
        (status, detail, symbols)
    }
}

/// The names of the parameters in a signature's first parameter list (`f(cb, *args)`,
/// `fn f(cb: F)`, `void f(Runnable cb)`): every identifier in it, types included (a
/// superset: it only widens what may be a callback).
fn parameter_names(signature: &str) -> HashSet<&str> {
    let Some(open) = signature.find('(') else { return HashSet::new() };
    let mut depth = 0usize;
    let mut end = signature.len();
    for (i, ch) in signature[open..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    signature[open + 1..end]
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty() && !w.starts_with(|c: char| c.is_ascii_digit()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small shop, indexed and loaded: orders call payments, construct line items, send
    /// through one of two senders (a possible edge), and move through `Status`.
    const SHOP: &str = r#"
//- /shop/__init__.py
//- /shop/models.py
from enum import Enum


class Status(Enum):
    PENDING = 1
    PAID = 2
    CANCELLED = 3


class LineItem:
    def __init__(self, sku):
        self.sku = sku
        self.price = 1


class Customer:
    def __init__(self, name):
        self.name = name


class Receipt:
    def __init__(self, order: "Order", total: int):
        self.total = total
//- /shop/payments.py
def charge(card, amount):
    log(amount)
    return gateway_send(card, amount)


def log(amount):
    return amount


def save(record):
    return record
//- /shop/audit.py
def save(record):
    return record
//- /shop/mail.py
class Mailer:
    def send(self, msg):
        return msg


class Pager:
    def send(self, msg):
        return msg
//- /shop/orders.py
from shop.models import LineItem, Status
from shop.payments import charge


class Order:
    def __init__(self, sender):
        self.items = []
        self.sender = sender
        self.status = Status.PENDING

    def add(self, sku):
        self.items.append(LineItem(sku))

    def pay(self, card):
        if self.status != Status.PENDING:
            raise ValueError(self.status)
        charge(card, self.total())
        self.status = Status.PAID

    def total(self):
        return sum(i.price for i in self.items)

    def cancel(self):
        self.status = Status.CANCELLED

    def ship(self, sender):
        sender.send("shipped")

    def notify(self, callback):
        callback(self)
//- /shop/flow.py
class Draft:
    def submit(self):
        return Submitted()


class Submitted:
    def approve(self):
        return Approved()


class Approved:
    pass
"#;

    fn shop() -> (tempfile::TempDir, Loaded) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("shop");
        let mut current: Option<std::path::PathBuf> = None;
        let mut text = String::new();
        let flush = |p: &Option<std::path::PathBuf>, t: &mut String| {
            if let Some(p) = p {
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, std::mem::take(t)).unwrap();
            }
        };
        for line in SHOP.lines() {
            if let Some(p) = line.strip_prefix("//- /") {
                flush(&current, &mut text);
                current = Some(root.join(p));
            } else if current.is_some() {
                text.push_str(line);
                text.push('\n');
            }
        }
        flush(&current, &mut text);
        let data = cc_indexer::DataDir::new(tmp.path().join("data"));
        let opts = cc_indexer::IndexOptions::new(&root);
        let run = crate::engine::index_with(&data, &opts, &cc_indexer::NoProgress, None, None).unwrap();
        let loaded = Loaded::open(&data, &run.index.name).unwrap();
        (tmp, loaded)
    }

    fn check(l: &Loaded, diagram: serde_json::Value, depth: usize, expected: &[(&str, Status)]) -> DiagramCheck {
        let d: Diagram = serde_json::from_value(diagram).unwrap();
        d.validate().unwrap();
        let c = verify(l, &d, depth).unwrap();
        let got: Vec<(&str, Status)> = c.elements.iter().map(|e| (e.pointer.as_str(), e.status)).collect();
        assert_eq!(got, expected, "{}", serde_json::to_string_pretty(&c.elements).unwrap());
        let n = |s| expected.iter().filter(|e| e.1 == s).count();
        assert_eq!((c.verified, c.unverified, c.contradicted), (n(Verified), n(Unverified), n(Contradicted)));
        c
    }

    fn detail<'c>(c: &'c DiagramCheck, pointer: &str) -> &'c str {
        &c.elements.iter().find(|e| e.pointer == pointer).unwrap().detail
    }

    use serde_json::json;
    use Status::*;

    #[test]
    fn a_sequence_diagram_is_checked_call_by_call() {
        let (_t, l) = shop();
        let c = check(
            &l,
            json!({"kind": "sequence",
            "participants": [
                {"name": "Order", "symbol": "shop.orders.Order"},
                {"name": "Payments", "symbol": "shop.payments"},
                {"name": "Ledger", "symbol": "save"},
                {"name": "Ghost", "symbol": "Nope"},
                {"name": "Mailer"},
                {"name": "LineItem"},
                {"name": "Audit", "symbol": "save", "path": "shop/audit.py"},
            ],
            "calls": [
                {"from": "Order", "to": "Payments", "symbol": "charge", "label": "charge(card)"},
                {"from": "Payments", "to": "Order"},
                {"from": "Order", "to": "Mailer", "label": "send"},
                {"from": "Order", "to": "Ghost"},
                {"from": "Order", "to": "LineItem"},
                {"from": "Order", "to": "Ledger"},
                {"from": "Order", "to": "Payments", "symbol": "shop.audit.save"},
                {"from": "Payments", "to": "Audit"},
                {"from": "Order", "to": "Order", "symbol": "Order.total"},
            ]}),
            1,
            &[
                ("/participants/0", Verified),
                ("/participants/1", Verified),
                ("/participants/2", Unverified),
                ("/participants/3", Contradicted),
                ("/participants/4", Verified),
                ("/participants/5", Verified),
                ("/participants/6", Verified),
                ("/calls/0", Verified),
                ("/calls/1", Contradicted),
                ("/calls/2", Unverified),
                ("/calls/3", Unverified),
                ("/calls/4", Verified),
                ("/calls/5", Unverified),
                ("/calls/6", Contradicted),
                ("/calls/7", Contradicted),
                ("/calls/8", Verified),
            ],
        );
        assert_eq!(
            detail(&c, "/calls/0"),
            "Order calls `charge` of Payments: a call edge: shop.orders.Order.pay -> shop.payments.charge"
        );
        let names = |p: &str| -> Vec<String> {
            c.elements
                .iter()
                .find(|e| e.pointer == p)
                .unwrap()
                .symbols
                .iter()
                .map(|s| s.qualified_name.clone())
                .collect()
        };
        assert_eq!(names("/calls/0"), ["shop.orders.Order.pay", "shop.payments.charge"]);
        assert_eq!(names("/participants/2"), ["shop.audit.save", "shop.payments.save"]);
        assert_eq!(names("/participants/1"), ["shop.payments"]);
        assert!(
            detail(&c, "/calls/1").starts_with("no path of at most 1 call from shop.payments"),
            "{}",
            detail(&c, "/calls/1")
        );
        assert!(detail(&c, "/calls/2").contains("possible edges"), "{}", detail(&c, "/calls/2"));
        assert!(
            detail(&c, "/calls/3").contains("Ghost (/participants/3) names no symbol"),
            "{}",
            detail(&c, "/calls/3")
        );
        assert!(detail(&c, "/calls/4").contains("a constructor edge"), "{}", detail(&c, "/calls/4"));
        // Order.notify calls its parameter `callback`: it may be anything.
        assert!(detail(&c, "/calls/5").contains("the parameter `callback`"), "{}", detail(&c, "/calls/5"));
        assert!(
            detail(&c, "/calls/6").contains("not Payments (/participants/1) nor a member of it"),
            "{}",
            detail(&c, "/calls/6")
        );
        assert_eq!(detail(&c, "/participants/3"), "`Nope` names no symbol in repository 'shop'");
    }

    #[test]
    fn a_call_through_others_is_verified_within_the_depth_and_contradicted_short_of_it() {
        let (_t, l) = shop();
        let d = json!({"kind": "sequence",
            "participants": [{"name": "pay", "symbol": "Order.pay"}, {"name": "log", "symbol": "shop.payments.log"}],
            "calls": [{"from": "pay", "to": "log"}]});
        let short = check(
            &l,
            d.clone(),
            1,
            &[("/participants/0", Verified), ("/participants/1", Verified), ("/calls/0", Contradicted)],
        );
        assert!(detail(&short, "/calls/0").contains("at most 1 call "), "{}", detail(&short, "/calls/0"));
        let deep =
            check(&l, d, 2, &[("/participants/0", Verified), ("/participants/1", Verified), ("/calls/0", Verified)]);
        assert_eq!(
            detail(&deep, "/calls/0"),
            "pay calls log: a path of 2 facts: shop.orders.Order.pay -> shop.payments.charge -> shop.payments.log"
        );
    }

    #[test]
    fn an_entity_relation_diagram_is_checked_by_edges_and_type_annotations() {
        let (_t, l) = shop();
        let c = check(
            &l,
            json!({"kind": "entityRelation",
            "entities": [
                {"name": "Order"}, {"name": "LineItem"}, {"name": "Customer"}, {"name": "Receipt"},
                {"name": "Invoice"}, {"name": "Mailer", "symbol": "shop.mail.Mailer"},
            ],
            "relations": [
                {"from": "Order", "to": "LineItem", "label": "has many"},
                {"from": "Order", "to": "Receipt"},
                {"from": "Order", "to": "Customer"},
                {"from": "Order", "to": "Invoice"},
                {"from": "Order", "to": "Mailer"},
            ]}),
            1,
            &[
                ("/entities/0", Verified),
                ("/entities/1", Verified),
                ("/entities/2", Verified),
                ("/entities/3", Verified),
                ("/entities/4", Contradicted),
                ("/entities/5", Verified),
                ("/relations/0", Verified),
                ("/relations/1", Verified),
                ("/relations/2", Contradicted),
                ("/relations/3", Unverified),
                ("/relations/4", Unverified),
            ],
        );
        assert!(
            detail(&c, "/relations/0")
                .contains("a constructor edge: shop.orders.Order.add -> shop.models.LineItem.__init__"),
            "{}",
            detail(&c, "/relations/0")
        );
        assert!(
            detail(&c, "/relations/1").contains("the `Order` (type) at shop/models.py:"),
            "{}",
            detail(&c, "/relations/1")
        );
        assert!(
            detail(&c, "/relations/2").starts_with("neither shop.orders.Order nor shop.models.Customer"),
            "{}",
            detail(&c, "/relations/2")
        );
    }

    #[test]
    fn a_state_machine_is_checked_by_what_its_transitions_touch() {
        let (_t, l) = shop();
        let c = check(
            &l,
            json!({"kind": "stateMachine",
            "states": [
                {"name": "Pending", "symbol": "Status.PENDING"}, {"name": "Paid", "symbol": "Status.PAID"},
                {"name": "Cancelled", "symbol": "Status.CANCELLED"}, {"name": "Refunded", "symbol": "Status.REFUNDED"},
                {"name": "Draft"}, {"name": "Submitted"}, {"name": "Approved"},
            ],
            "transitions": [
                {"from": "Draft", "to": "Submitted", "event": "submit", "symbol": "Draft.submit"},
                {"from": "Submitted", "to": "Approved", "symbol": "Submitted.approve"},
                {"from": "Pending", "to": "Paid", "symbol": "Order.pay"},
                {"from": "Paid", "to": "Cancelled", "symbol": "LineItem.__init__"},
                {"from": "Pending", "to": "Cancelled"},
                {"from": "Paid", "to": "Refunded", "symbol": "refund_all"},
            ]}),
            1,
            &[
                ("/states/0", Verified),
                ("/states/1", Verified),
                ("/states/2", Verified),
                ("/states/3", Contradicted),
                ("/states/4", Verified),
                ("/states/5", Verified),
                ("/states/6", Verified),
                ("/transitions/0", Verified),
                ("/transitions/1", Verified),
                ("/transitions/2", Unverified),
                ("/transitions/3", Contradicted),
                ("/transitions/4", Unverified),
                ("/transitions/5", Contradicted),
            ],
        );
        let t0 = detail(&c, "/transitions/0");
        assert!(t0.contains("Draft: shop.flow.Draft.submit is defined on it"), "{t0}");
        assert!(t0.contains("Submitted: a constructor edge"), "{t0}");
        let t2 = detail(&c, "/transitions/2");
        assert!(t2.contains("Paid: the `Status.PAID` (value) at shop/orders.py:"), "{t2}");
        assert!(t2.contains("no link to Pending (shop.models.Status.PENDING)"), "{t2}");
        assert!(detail(&c, "/transitions/3").contains("relates to neither state"), "{}", detail(&c, "/transitions/3"));
        assert_eq!(detail(&c, "/transitions/5"), "`symbol`: `refund_all` names no symbol");
    }

    #[test]
    fn a_diagram_that_does_not_hold_together_is_refused_by_pointer() {
        let bad = |v: serde_json::Value| serde_json::from_value::<Diagram>(v).unwrap().validate().unwrap_err();
        let e = bad(json!({"kind": "sequence", "participants": [{"name": "A"}, {"name": "B"}],
            "calls": [{"from": "A", "to": "B"}, {"from": "A", "to": "C"}]}));
        assert_eq!(e.pointer, "/calls/1/to");
        assert_eq!(e.message, "expected the name of one of the participants (`A`, `B`), found `C`");
        let e = bad(json!({"kind": "stateMachine", "states": [{"name": "S"}, {"name": "S"}], "transitions": []}));
        assert_eq!(e.to_string(), "/states/1/name: `S` is already the name of /states/0: names are unique");
        let e = bad(json!({"kind": "entityRelation", "entities": [], "relations": []}));
        assert_eq!(e.pointer, "/entities");
        let unknown = serde_json::from_value::<Diagram>(json!({"kind": "sequence",
            "participants": [{"name": "A", "colour": "red"}], "calls": []}));
        assert!(unknown.unwrap_err().to_string().contains("unknown field `colour`"));
        let unknown =
            serde_json::from_value::<Diagram>(json!({"kind": "sequence", "participants": [], "calls": [], "notes": 1}));
        assert!(unknown.unwrap_err().to_string().contains("unknown field `notes`"));
        let kind = serde_json::from_value::<Diagram>(json!({"kind": "flowchart"}));
        assert!(kind.unwrap_err().to_string().contains("unknown variant `flowchart`"));
    }

    #[test]
    fn the_schema_names_the_kinds_and_documents_the_fields() {
        let schema = serde_json::to_string(&schemars::schema_for!(Diagram)).unwrap();
        for needle in [
            "\"sequence\"",
            "\"entityRelation\"",
            "\"stateMachine\"",
            "The function or method that makes the transition",
        ] {
            assert!(schema.contains(needle), "{needle} in {schema}");
        }
    }
}
