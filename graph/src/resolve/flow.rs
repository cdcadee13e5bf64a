//! Value flow: which functions, classes, instances and modules a variable, an attribute,
//! a parameter or a function's result can hold (Python and JavaScript: [`super::flows`]).
//! JavaScript's facts come from the same captures as Python's (`grammars/queries/
//! javascript/tags.scm`, "Value flow"): `this` in a class's methods is an instance of the
//! class, an arrow function's one bare parameter and a rest parameter (`...xs`) are
//! parameters, functions passed, returned or stored without a name of their own are
//! symbols (`<lambdaN>`); a capitalised function is a constructor (ES5 classes: `new
//! Animal()` is an instance, `Animal.prototype.speak = f` a method of it, `this` in it an
//! instance; `Dog.prototype = Object.create(Animal.prototype)` and `Object.setPrototypeOf(
//! Dog.prototype, Animal.prototype)` chain Dog's prototype to Animal's); an object
//! literal is a record of its own ([`Value::Obj`]: `o = {a: f, m() {…}}` holds `f` under
//! `a`, so `o.a()` calls `f` and `o[k]()` any of its entries; `Object.create(o)` finds
//! what `o` holds; `Base.prototype = {…}` gives Base's instances its entries). Not
//! modelled: `eval`.
//!
//! Flow-insensitive and context-insensitive, the approach of the static call-graph
//! builders for dynamic languages: every assignment, container literal, argument, return,
//! `for` target, `with` target and decorator of the repository adds a constraint
//! "this key holds at least what that expression holds", and the constraints are applied
//! until nothing changes. Keys are a scope's variable (a function's, parameters included,
//! or a module's), a class's attribute (`self.x = …` in its methods, `x = …` in its body),
//! a function's result (`return`, `yield`), and what a decorated definition's name holds.
//! Containers are not told apart from what they hold (`d = {"a": A}; d[k]()` calls `A`).
//! Bounded: a key holding more than [`MAX_VALUES`] values holds "anything" and stops
//! propagating, and the worklist (a constraint is evaluated again only when a key it read
//! changed) stops after [`MAX_EVALS_PER_CONSTRAINT`] evaluations per constraint on
//! average, so a pathological file cannot blow up the index time.
//!
//! What the flow decides is the `flow` rung of the ladder: a call the ladder leaves
//! unknown or only guesses at (an unknown receiver, a bare name that is a local) resolves to
//! what its callee expression holds; a call of a decorated definition goes to what its
//! decorators return; `for`/`with` run the iterator and context methods of what the
//! expression holds.

use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use smallvec::SmallVec;

use cc_indexer::{Lang, RefKind, Reference, Slot, SymbolKind};

use super::{Rung, Tables};

/// Methods that put their arguments into the container they are called on.
const MUTATORS: &[&str] =
    &["append", "add", "extend", "insert", "appendleft", "setdefault", "update", "put", "push", "unshift", "set"];

/// Methods that give back what the container they are called on holds (`handlers.pop()()`,
/// `registry.get(k)()`): a function in a container is one of its elements (a function has
/// no such methods of its own).
const ACCESSORS: &[&str] = &["pop", "popleft", "shift", "get", "at", "find", "setdefault"];

/// The field of a JavaScript constructor function that holds the prototype its
/// prototype inherits from (what `Object.create(P)` / `Object.setPrototypeOf(_, P)` set).
const PROTO: &str = "[[Prototype]]";

/// The attribute a value stored under a name not known is in (`setattr(o, expr, f)`, an
/// object literal's computed key): `getattr(o, "a")` may find it.
const ANY_ATTR: &str = "*";
/// Every attribute stored from outside a class's methods (`o.a = f`, `setattr`): what
/// `getattr(o, expr)` may find.
const ALL_ATTRS: &str = "[[all]]";

/// More values than this and a key holds "anything" (an unknown).
pub(crate) const MAX_VALUES: usize = 8;
/// Evaluations of one constraint at most (on average), before the solver stops.
const MAX_EVALS_PER_CONSTRAINT: usize = 24;

/// What a key can hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Value {
    /// A function, method or lambda (a bound method is its method).
    Func(u32),
    /// A class object.
    Class(u32),
    /// An instance of a class.
    Inst(u32),
    /// A module (a file).
    Module(u32),
    /// A JavaScript object literal (a record), by the id of its [`Key::Lit`]: what it holds
    /// under a key is [`Key::Prop`], all it holds [`Key::Elems`].
    Obj(u32),
}

pub(crate) type Values = SmallVec<[Value; 2]>;

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Scope {
    /// A function's locals and parameters.
    Sym(u32),
    /// A module's top level.
    File(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key<'a> {
    Var(Scope, &'a str),
    /// An attribute of a class or of its instances.
    Field(u32, &'a str),
    /// What a function returns (or yields).
    Ret(u32),
    /// What a decorated definition's name holds.
    Dec(u32),
    /// An object literal, by its file and its `{`'s line and column: its key's id is the
    /// record's identity ([`Value::Obj`]; it holds nothing itself).
    Lit(u32, u32, u32),
    /// What a record holds under a key.
    Prop(u32, &'a str),
    /// Everything a record holds (what `o[k]` reads).
    Elems(u32),
}

#[derive(Clone, Debug, Default)]
struct Pts {
    values: Values,
    /// More than [`MAX_VALUES`]: anything.
    top: bool,
}

/// An expression, its names looked up.
#[derive(Clone, Debug)]
pub(crate) enum Expr<'a> {
    /// Symbols as the ladder found them (a decorated one stands for what it is decorated into).
    Values(Values),
    /// Symbols themselves (what a decorator is applied to).
    Raw(Values),
    Key(u32),
    /// `e.name`
    Attr(Box<Expr<'a>>, &'a str),
    /// `e(…)`
    Call(Box<Expr<'a>>),
    /// The elements `for x in e` gives.
    Iter(Box<Expr<'a>>),
    /// What `with e as x` binds.
    Enter(Box<Expr<'a>>),
    /// `e[k]`: an element of a container (the flow does not tell a container from what it
    /// holds) or of a record (any of its entries).
    Index(Box<Expr<'a>>),
    Union(Vec<Expr<'a>>),
    Unknown,
}

/// Where a value goes.
#[derive(Clone, Debug)]
enum Sink<'a> {
    Key(u32),
    /// A parameter of whatever `callee` calls.
    Param {
        callee: Expr<'a>,
        slot: Slot,
        keyword: Option<&'a str>,
    },
    /// `obj.attr = …` for an `obj` other than `self`.
    Field {
        obj: Expr<'a>,
        name: &'a str,
    },
}

/// A parameter of a Python function.
#[derive(Clone, Debug)]
struct Param<'a> {
    name: &'a str,
    kind: ParamKind,
    default: Option<&'a str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ParamKind {
    Positional,
    KeywordOnly,
    Star,
    StarStar,
}

/// The solved flow: what each key holds.
#[derive(Default)]
pub(crate) struct Flow<'a> {
    keys: HashMap<Key<'a>, u32>,
    pts: Vec<Pts>,
    /// The (scope, name) pairs a Python file assigns.
    bound: HashSet<(Scope, &'a str)>,
    /// Class attributes assigned in a class body: (class, name).
    class_bound: HashSet<(u32, &'a str)>,
    /// Decorated definitions -> their `Dec` key.
    decorated: HashMap<u32, u32>,
    /// Each Python function's parameters.
    params: HashMap<u32, Box<[Param<'a>]>>,
    /// A name bound to a lambda (`sq = lambda x: …`, the symbol calls of `sq` reach) -> the
    /// lambda, whose parameters and result they are.
    lambdas: HashMap<u32, u32>,
}

impl<'a> Flow<'a> {
    fn key(&mut self, k: Key<'a>) -> u32 {
        let n = self.keys.len() as u32;
        *self.keys.entry(k).or_insert_with(|| {
            self.pts.push(Pts::default());
            n
        })
    }

    fn get(&self, k: &Key<'a>) -> Option<u32> {
        self.keys.get(k).copied()
    }

    /// The function that runs when `f` is called: the lambda a name is bound to, else `f`.
    fn body(&self, f: u32) -> u32 {
        self.lambdas.get(&f).copied().unwrap_or(f)
    }

    fn params(&self, f: u32) -> &[Param<'a>] {
        self.params.get(&f).map_or(&[], |p| p)
    }

    /// Adds `vals` to key `k`; whether it changed.
    fn add(&mut self, k: u32, vals: &[Value]) -> bool {
        let p = &mut self.pts[k as usize];
        if p.top {
            return false;
        }
        let mut changed = false;
        for v in vals {
            if !p.values.contains(v) {
                p.values.push(*v);
                changed = true;
            }
        }
        if p.values.len() > MAX_VALUES {
            p.values = SmallVec::new();
            p.top = true;
        }
        changed
    }
}

/// How expressions get their keys: made while the constraints are built (with a cache of
/// the ladder's answers), only looked up once the flow is solved (resolution runs on
/// every core, reading it).
enum Cx<'f, 'a> {
    /// One file's constraints being made (on any core): the keys they name are made in
    /// `Made`, numbered apart from the flow's.
    Build(&'f Flow<'a>, &'f mut Made<'a>, &'f mut HashMap<(u32, Option<u32>, &'a str), Expr<'a>>),
    Read(&'f Flow<'a>),
}

impl<'a> Cx<'_, 'a> {
    fn flow(&self) -> &Flow<'a> {
        match self {
            Cx::Build(f, ..) => f,
            Cx::Read(f) => f,
        }
    }

    fn key(&mut self, k: Key<'a>) -> Option<u32> {
        match self {
            Cx::Build(_, made, _) => Some(made.key(k)),
            Cx::Read(f) => f.get(&k),
        }
    }
}

/// What making one file's constraints made: keys numbered in the order they were first
/// named, and the decorated definitions' keys. Merged file by file in the files' order
/// ([`Made::merge_into`]), the keys get the numbers one core making every file's
/// constraints in turn gave them, so the solve is the same however the files were shared.
#[derive(Default)]
struct Made<'a> {
    ids: HashMap<Key<'a>, u32>,
    keys: Vec<Key<'a>>,
    decorated: Vec<(u32, u32)>,
}

impl<'a> Made<'a> {
    fn key(&mut self, k: Key<'a>) -> u32 {
        let n = self.keys.len() as u32;
        *self.ids.entry(k).or_insert_with(|| {
            self.keys.push(k);
            n
        })
    }

    /// Makes these keys in `flow` and renumbers `constraints` (made with them) to the flow's.
    fn merge_into(self, flow: &mut Flow<'a>, constraints: &mut [(Sink<'a>, Expr<'a>)]) {
        let mut ids: Vec<u32> = Vec::with_capacity(self.keys.len());
        for k in self.keys {
            // A record's keys name the record's own key, made before them.
            let k = match k {
                Key::Prop(o, name) => Key::Prop(ids[o as usize], name),
                Key::Elems(o) => Key::Elems(ids[o as usize]),
                k => k,
            };
            ids.push(flow.key(k));
        }
        for (def, dec) in self.decorated {
            flow.decorated.insert(def, ids[dec as usize]);
        }
        for (sink, expr) in constraints {
            sink.renumber(&ids);
            expr.renumber(&ids);
        }
    }
}

impl Sink<'_> {
    fn renumber(&mut self, ids: &[u32]) {
        match self {
            Sink::Key(k) => *k = ids[*k as usize],
            Sink::Param { callee: e, .. } | Sink::Field { obj: e, .. } => e.renumber(ids),
        }
    }
}

impl Expr<'_> {
    /// The keys (and records) it names, by `ids` (old number -> new).
    fn renumber(&mut self, ids: &[u32]) {
        match self {
            Expr::Values(v) | Expr::Raw(v) => {
                for x in v.iter_mut() {
                    if let Value::Obj(o) = x {
                        *o = ids[*o as usize];
                    }
                }
            }
            Expr::Key(k) => *k = ids[*k as usize],
            Expr::Attr(e, _) | Expr::Call(e) | Expr::Iter(e) | Expr::Enter(e) | Expr::Index(e) => e.renumber(ids),
            Expr::Union(es) => es.iter_mut().for_each(|e| e.renumber(ids)),
            Expr::Unknown => {}
        }
    }
}

/// Where `eval` reads keys: the solver makes a key it does not have yet and notes what was
/// read (a constraint is evaluated again when a key it read changes); the solved flow only
/// looks keys up.
trait Reader<'a> {
    fn flow(&self) -> &Flow<'a>;
    fn id(&mut self, k: Key<'a>) -> Option<u32>;
    fn note(&mut self, _id: u32) {}
}

struct Solving<'f, 'a> {
    flow: &'f mut Flow<'a>,
    reads: Vec<u32>,
}

impl<'a> Reader<'a> for Solving<'_, 'a> {
    fn flow(&self) -> &Flow<'a> {
        self.flow
    }
    fn id(&mut self, k: Key<'a>) -> Option<u32> {
        Some(self.flow.key(k))
    }
    fn note(&mut self, id: u32) {
        self.reads.push(id);
    }
}

struct Solved<'f, 'a>(&'f Flow<'a>);

impl<'a> Reader<'a> for Solved<'_, 'a> {
    fn flow(&self) -> &Flow<'a> {
        self.0
    }
    fn id(&mut self, k: Key<'a>) -> Option<u32> {
        self.0.get(&k)
    }
}

/// Python parameters from a signature (`def f(self, a, b=x, *args, c, **kw) -> T`).
fn py_params(sig: &str) -> Vec<Param<'_>> {
    if let Some(rest) = sig.strip_prefix("lambda") {
        return split_params(rest.trim_end_matches(':'));
    }
    // A JavaScript arrow function of one parameter without parentheses (`x => …`,
    // `const f = async x => …`): the word before the arrow.
    if let Some((head, _)) = sig.split_once("=>") {
        if !head.contains('(') {
            let p = head.trim().rsplit([' ', '=']).next().unwrap_or_default();
            return split_params(p);
        }
    }
    let Some(open) = sig.find('(') else { return Vec::new() };
    let mut depth = 0i32;
    let mut close = None;
    for (i, c) in sig[open..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(close) = close else { return Vec::new() };
    split_params(&sig[open + 1..close])
}

/// A parameter list's parameters (`a, b=x, *args, c, **kw`).
fn split_params(inner: &str) -> Vec<Param<'_>> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    let mut out = Vec::new();
    let mut keyword_only = false;
    for p in parts.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
        if p == "*" {
            keyword_only = true;
            continue;
        }
        if p == "/" {
            continue;
        }
        let (head, default) = match p.split_once('=') {
            Some((h, d)) => (h.trim(), Some(d.trim())),
            None => (p, None),
        };
        let head = head.split(':').next().unwrap_or(head).trim();
        let (kind, name) = if let Some(n) = head.strip_prefix("**") {
            (ParamKind::StarStar, n)
        } else if let Some(n) = head.strip_prefix("...") {
            // JavaScript's rest parameter: the arguments left over.
            (ParamKind::Star, n)
        } else if let Some(n) = head.strip_prefix('*') {
            keyword_only = true;
            (ParamKind::Star, n)
        } else if keyword_only {
            (ParamKind::KeywordOnly, head)
        } else {
            (ParamKind::Positional, head)
        };
        if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            out.push(Param { name: name.trim(), kind, default });
        }
    }
    out
}

/// A postfix chain of a Python expression: a head name, then `.attr`, `(…)`, `[…]`.
enum Step<'a> {
    Attr(&'a str),
    Call,
    Index,
}

fn parse_chain(text: &str) -> Option<(&str, Vec<Step<'_>>)> {
    let t = text.trim();
    let t = t.strip_prefix("await ").unwrap_or(t).trim();
    let b = t.as_bytes();
    let end = ident_end(b, 0);
    if end == 0 || b[0].is_ascii_digit() {
        return None;
    }
    let head = &t[..end];
    Some((head, parse_steps(t, end)?))
}

/// Where the identifier starting at byte `from` of `b` ends.
fn ident_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
        i += 1;
    }
    i
}

/// The postfix steps of `t` from byte `i` on (`.attr`, `(…)`, `[…]`).
fn parse_steps(t: &str, mut i: usize) -> Option<Vec<Step<'_>>> {
    let b = t.as_bytes();
    let mut steps = Vec::new();
    while i < b.len() {
        match b[i] {
            b'.' => {
                let e = ident_end(b, i + 1);
                if e == i + 1 {
                    return None;
                }
                steps.push(Step::Attr(&t[i + 1..e]));
                i = e;
            }
            b'(' | b'[' => {
                let (open, close) = if b[i] == b'(' { (b'(', b')') } else { (b'[', b']') };
                let mut depth = 0i32;
                let mut j = i;
                loop {
                    if j >= b.len() {
                        return None;
                    }
                    if b[j] == open {
                        depth += 1;
                    } else if b[j] == close {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    j += 1;
                }
                steps.push(if open == b'(' { Step::Call } else { Step::Index });
                i = j + 1;
            }
            b' ' | b'\t' => i += 1,
            _ => return None,
        }
    }
    Some(steps)
}

/// `getattr(obj, key[, default])` at the start of `t`: the object's text, the key (a string
/// literal's words, else `None`: an expression), and where the call ends.
fn parse_getattr(t: &str) -> Option<(&str, Option<&str>, usize)> {
    let inner = t.strip_prefix("getattr(")?;
    let (mut depth, mut close, mut commas) = (1i32, None, Vec::new());
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            ',' if depth == 1 => commas.push(i),
            _ => {}
        }
    }
    let close = close?;
    let obj = inner[..*commas.first()?].trim();
    let key = inner[commas[0] + 1..commas.get(1).copied().unwrap_or(close)].trim();
    let word = |k: &str| !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_');
    let key = ['"', '\''].iter().find_map(|&q| key.strip_prefix(q)?.strip_suffix(q)).filter(|k| word(k));
    Some((obj, key, "getattr(".len() + close + 1))
}

/// A member lookup cache: (class, name) -> the values its members are.
type Members<'a> = HashMap<(u32, &'a str), Values>;

fn push_new(out: &mut Values, v: Value) {
    if !out.contains(&v) {
        out.push(v);
    }
}

impl<'a> Tables<'a> {
    /// The scope an assignment made in `enclosing` binds in: a function's, the module's,
    /// or (second field) a class body's, whose names are the class's attributes.
    fn assign_scope(&self, file: u32, enclosing: Option<u32>) -> (Option<Scope>, Option<u32>) {
        let mut cur = enclosing;
        while let Some(e) = cur {
            let s = &self.syms[e as usize];
            if s.kind.is_callable() {
                return (Some(Scope::Sym(e)), None);
            }
            if s.kind.is_type_like() {
                return (None, Some(e));
            }
            cur = s.parent.and_then(|p| self.by_id.get(&p).copied());
        }
        (Some(Scope::File(file)), None)
    }

    fn parent_of(&self, e: u32) -> Option<u32> {
        self.syms[e as usize].parent.and_then(|p| self.by_id.get(&p).copied())
    }

    /// The key a read of `name` in `enclosing` means when it is a variable (Python
    /// scoping: the innermost function that assigns it or has it as a parameter, then the
    /// module; class bodies are not seen from their methods). `Err`: a local or parameter
    /// that has no key (nothing flows into it).
    fn var_key(
        &self,
        cx: &mut Cx<'_, 'a>,
        file: u32,
        enclosing: Option<u32>,
        name: &'a str,
    ) -> Result<Option<u32>, ()> {
        let mut cur = enclosing;
        let mut first = true;
        while let Some(e) = cur {
            let s = &self.syms[e as usize];
            if s.kind.is_callable() {
                let flow = cx.flow();
                if flow.bound.contains(&(Scope::Sym(e), name)) || flow.params(e).iter().any(|p| p.name == name) {
                    return cx.key(Key::Var(Scope::Sym(e), name)).map(Some).ok_or(());
                }
            } else if s.kind.is_type_like() && first && cx.flow().class_bound.contains(&(e, name)) {
                return cx.key(Key::Field(e, name)).map(Some).ok_or(());
            }
            first = false;
            cur = self.parent_of(e);
        }
        if cx.flow().bound.contains(&(Scope::File(file), name)) {
            return cx.key(Key::Var(Scope::File(file), name)).map(Some).ok_or(());
        }
        Ok(None)
    }

    /// The first parameter of the method around `enclosing` (the innermost function that is
    /// a class's member, lambdas and nested functions seeing it through their closure).
    fn receiver_param(&self, flow: &Flow<'a>, enclosing: Option<u32>) -> Option<&'a str> {
        let mut cur = enclosing;
        while let Some(e) = cur {
            let s = &self.syms[e as usize];
            if s.kind == SymbolKind::Method {
                return flow.params(e).first().map(|p| p.name).filter(|n| matches!(*n, "self" | "cls"));
            }
            if s.kind.is_type_like() {
                return None;
            }
            cur = self.parent_of(e);
        }
        None
    }

    /// What a symbol is as a value.
    fn value_of(&self, i: u32) -> Option<Value> {
        let s = &self.syms[i as usize];
        if s.kind.is_type_like() {
            Some(Value::Class(i))
        } else if s.kind.is_callable() {
            Some(Value::Func(i))
        } else {
            None
        }
    }

    /// A bare name as an expression.
    fn name_expr(&self, cx: &mut Cx<'_, 'a>, file: u32, enclosing: Option<u32>, name: &'a str) -> Expr<'a> {
        let one = |v: Value| Expr::Values(SmallVec::from_elem(v, 1));
        match name {
            // JavaScript's `this` in a class's method (or a function inside one): an
            // instance of the class.
            "this" if self.lang_of(file) == Lang::JavaScript => {
                let c = enclosing.and_then(|e| self.this_class(e));
                return c.map_or(Expr::Unknown, |c| one(Value::Inst(c)));
            }
            // A method's first parameter (`cls` of a class method): its class or instance.
            "self" | "cls" if self.receiver_param(cx.flow(), enclosing) == Some(name) => {
                let c = enclosing.and_then(|e| self.class_of(e));
                return c.map_or(Expr::Unknown, |c| one(if name == "self" { Value::Inst(c) } else { Value::Class(c) }));
            }
            "super" | "None" | "True" | "False" => return Expr::Unknown,
            _ => {}
        }
        let var = match self.var_key(cx, file, enclosing, name) {
            Ok(v) => v,
            Err(()) => return Expr::Unknown,
        };
        // A module-level variable that a definition of the same name may also be.
        let module_var = var.is_some() && cx.flow().bound.contains(&(Scope::File(file), name));
        let mut parts: Vec<Expr<'a>> = Vec::new();
        if let Some(k) = var {
            parts.push(Expr::Key(k));
        }
        if var.is_none() || module_var {
            if let Cx::Build(_, _, cache) = cx {
                if let Some(e) = cache.get(&(file, enclosing, name)) {
                    parts.push(e.clone());
                    return union(parts);
                }
            }
            let found = self.looked_up(cx, file, enclosing, name, var.is_none());
            if let Cx::Build(_, _, cache) = cx {
                cache.insert((file, enclosing, name), found.clone());
            }
            parts.push(found);
        }
        union(parts)
    }

    /// What the ladder (or an import of a module or of a module's variable) says `name` is.
    fn looked_up(
        &self,
        cx: &mut Cx<'_, 'a>,
        file: u32,
        enclosing: Option<u32>,
        name: &'a str,
        imports: bool,
    ) -> Expr<'a> {
        let ok = |s: &super::Sym<'_>| s.kind.is_callable() || s.kind.is_type_like();
        match self.lookup_name(file, enclosing, name, ok) {
            Some((rung, v)) if rung != Rung::Ambiguous => {
                let vals: Values = v.iter().filter_map(|&i| self.value_of(i)).collect();
                if vals.is_empty() {
                    Expr::Unknown
                } else {
                    Expr::Values(vals)
                }
            }
            None if imports => {
                let mut parts = Vec::new();
                for imp in &self.imports[file as usize] {
                    if imp.binding != name || imp.files.is_empty() {
                        continue;
                    }
                    imp.used();
                    match imp.member {
                        // `import a.b` binds `a`, not the module `a.b`.
                        None if imp.module.contains('.') && imp.module.split('.').next() == Some(name) => {}
                        None => parts.push(Expr::Values(imp.files.iter().map(|&f| Value::Module(f)).collect())),
                        Some(m) if m != "*" => {
                            let m = m.rsplit('.').next().unwrap_or(m);
                            for &f in &imp.files {
                                if cx.flow().bound.contains(&(Scope::File(f), m)) {
                                    if let Some(k) = cx.key(Key::Var(Scope::File(f), m)) {
                                        parts.push(Expr::Key(k));
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                }
                union(parts)
            }
            _ => Expr::Unknown,
        }
    }

    /// An expression as written (`a.b(c)[d].e`).
    fn text_expr(&self, cx: &mut Cx<'_, 'a>, file: u32, enclosing: Option<u32>, text: &'a str) -> Expr<'a> {
        // `getattr(o, "a")`: `o.a`, or what was stored under a name not known; `getattr(o,
        // name)`: any attribute stored from outside.
        let t = text.trim();
        let (mut e, steps) = match parse_getattr(t) {
            Some((obj, key, end)) => {
                let Some(steps) = parse_steps(t, end) else { return Expr::Unknown };
                let obj = self.text_expr(cx, file, enclosing, obj);
                if obj.is_unknown() {
                    return Expr::Unknown;
                }
                let e = match key {
                    Some(k) => union(vec![Expr::Attr(Box::new(obj.clone()), k), Expr::Attr(Box::new(obj), ANY_ATTR)]),
                    None => Expr::Attr(Box::new(obj), ALL_ATTRS),
                };
                (e, steps)
            }
            None => {
                let Some((head, steps)) = parse_chain(t) else { return Expr::Unknown };
                (self.name_expr(cx, file, enclosing, head), steps)
            }
        };
        for s in steps {
            if matches!(e, Expr::Unknown) {
                return e;
            }
            e = match s {
                Step::Attr(n) => Expr::Attr(Box::new(e), n),
                Step::Call => Expr::Call(Box::new(e)),
                Step::Index => Expr::Index(Box::new(e)),
            };
        }
        e
    }

    /// The expression a reference's name and receiver make (`recv.name`, `name`, or a name
    /// that is an expression itself: `engines[k]`, `make()`).
    fn ref_expr(&self, cx: &mut Cx<'_, 'a>, file: u32, enclosing: Option<u32>, r: &'a Reference) -> Expr<'a> {
        let name = r.name.as_str();
        // A JavaScript object literal (named by its `{`): the record it makes.
        if name == "{" {
            return match cx.key(Key::Lit(file, r.span.start_line, r.span.start_col)) {
                Some(id) => Expr::Values(SmallVec::from_elem(Value::Obj(id), 1)),
                None => Expr::Unknown,
            };
        }
        match r.receiver.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(rcv) => match self.text_expr(cx, file, enclosing, rcv) {
                Expr::Unknown => Expr::Unknown,
                obj => Expr::Attr(Box::new(obj), name),
            },
            None if name.contains(['[', '(', '.']) => self.text_expr(cx, file, enclosing, name),
            None => self.name_expr(cx, file, enclosing, name),
        }
    }

    /// What a value flowing into `alias` (written in `enclosing`) goes to.
    fn alias_sinks(&self, cx: &mut Cx<'_, 'a>, file: u32, enclosing: Option<u32>, alias: &'a str) -> Vec<Sink<'a>> {
        let alias = alias.trim();
        if alias == "return" {
            let mut cur = enclosing;
            while let Some(e) = cur {
                if self.syms[e as usize].kind.is_callable() {
                    return cx.key(Key::Ret(e)).map(Sink::Key).into_iter().collect();
                }
                cur = self.parent_of(e);
            }
            return Vec::new();
        }
        // Several targets (`for k, v in …`): each gets the elements.
        if alias.contains(',') {
            let parts: Vec<&'a str> =
                alias.trim_matches(|c| c == '(' || c == ')' || c == '[' || c == ']').split(',').collect();
            return parts.into_iter().flat_map(|p| self.alias_sinks(cx, file, enclosing, p)).collect();
        }
        // `d[k] = …`, `self.d[k] = …`: into `d`.
        // `setattr(o, expr, f)`: into `o`'s attribute of a name not known.
        if let Some(obj_text) = alias.strip_suffix(".*") {
            return match self.text_expr(cx, file, enclosing, obj_text) {
                Expr::Unknown => Vec::new(),
                obj => vec![Sink::Field { obj, name: ANY_ATTR }],
            };
        }
        let base = match alias.find('[') {
            Some(i) => alias[..i].trim_end(),
            None => alias,
        };
        let subscript = base.len() != alias.len();
        let Some((head, steps)) = parse_chain(base) else { return Vec::new() };
        if steps.is_empty() {
            if subscript {
                return self.var_key(cx, file, enclosing, head).ok().flatten().map(Sink::Key).into_iter().collect();
            }
            let k = match self.assign_scope(file, enclosing) {
                (Some(scope), _) => cx.key(Key::Var(scope, head)),
                (None, Some(class)) => cx.key(Key::Field(class, head)),
                _ => None,
            };
            return k.map(Sink::Key).into_iter().collect();
        }
        let Some(Step::Attr(last)) = steps.last() else { return Vec::new() };
        let this = head == "this" && self.lang_of(file) == Lang::JavaScript;
        if steps.len() == 1 && (matches!(head, "self" | "cls") || this) {
            let class = |e| if this { self.this_class(e) } else { self.class_of(e) };
            return enclosing
                .and_then(class)
                .and_then(|c| cx.key(Key::Field(c, last)))
                .map(Sink::Key)
                .into_iter()
                .collect();
        }
        let obj_text = &base[..base.rfind('.').unwrap_or(0)];
        match self.text_expr(cx, file, enclosing, obj_text) {
            Expr::Unknown => Vec::new(),
            obj => vec![Sink::Field { obj, name: last }],
        }
    }

    /// What a decorator reference applies: its name (`@dec`), or what calling it gives
    /// (`@dec(args)`, alias `@@name`).
    fn decorator_expr(
        &self,
        cx: &mut Cx<'_, 'a>,
        file: u32,
        enclosing: Option<u32>,
        r: &'a Reference,
        alias: &str,
    ) -> Expr<'a> {
        let e = self.ref_expr(cx, file, enclosing, r);
        if alias.starts_with("@@") {
            Expr::Call(Box::new(e))
        } else {
            e
        }
    }

    /// The definition a decorator in `enclosing` at `line` decorates: the first
    /// definition named `name` in that scope at or after the line.
    fn decorated_def(&self, file: u32, enclosing: Option<u32>, name: &str, line: u32) -> Option<u32> {
        let enc = enclosing.map(|e| self.syms[e as usize].id);
        let f = &self.files[file as usize];
        f.symbols
            .iter()
            .filter(|s| s.name == name && s.parent == enc && s.span.start_line >= line)
            .min_by_key(|s| s.span.start_line)
            .and_then(|s| self.by_id.get(&s.id).copied())
    }

    /// Builds and solves the flow of the repository's Python files.
    pub(crate) fn solve_flow(&self) -> Flow<'a> {
        // Each step's end is logged at debug level (`CC_LOG=cc_graph=debug`).
        let started = std::time::Instant::now();
        let mut flow = Flow::default();
        let python: Vec<u32> =
            (0..self.files.len() as u32).filter(|&f| super::flows(self.files[f as usize].lang)).collect();
        // Parameters, and where names are assigned.
        let mut stored: Vec<(u32, Option<u32>, &'a str)> = Vec::new();
        for &fi in &python {
            let f = &self.files[fi as usize];
            for s in &f.symbols {
                let Some(&i) = self.by_id.get(&s.id) else { continue };
                if s.kind.is_callable() {
                    flow.params.insert(i, py_params(&s.signature).into_boxed_slice());
                    if s.signature.starts_with("lambda") {
                        if let Some(p) = self.parent_of(i) {
                            let b = &self.syms[p as usize];
                            if b.kind.is_callable() && b.signature.contains("= lambda") {
                                flow.lambdas.insert(p, i);
                            }
                        }
                    }
                } else if matches!(s.kind, SymbolKind::Constant | SymbolKind::Variable | SymbolKind::Field) {
                    // `REGISTRY = []` records no value; `REGISTRY.append(f)` fills it.
                    match self.assign_scope(fi, self.parent_of(i)) {
                        (Some(scope), _) => {
                            flow.bound.insert((scope, s.name.as_str()));
                        }
                        (None, Some(class)) => {
                            flow.class_bound.insert((class, s.name.as_str()));
                        }
                        _ => {}
                    }
                }
            }
            for r in &f.references {
                if !matches!(r.kind, RefKind::Value | RefKind::Call | RefKind::Iteration | RefKind::Context)
                    || r.arg().is_some()
                {
                    continue;
                }
                let Some(alias) = r.alias() else { continue };
                let enclosing = r.enclosing.and_then(|e| self.by_id.get(&e).copied());
                // `d[k] = f` binds nothing; it stores into a `d` bound elsewhere.
                if let Some((base, _)) = alias.split_once('[') {
                    let base = base.trim();
                    if !base.is_empty() && base.chars().all(|c| c.is_alphanumeric() || c == '_') {
                        stored.push((fi, enclosing, base));
                    }
                    continue;
                }
                if alias == "return" || alias.starts_with('@') || alias.contains('.') {
                    continue;
                }
                let scope = self.assign_scope(fi, enclosing);
                for name in alias.split(',').map(|a| a.trim().trim_matches(|c| c == '(' || c == ')')) {
                    match scope {
                        _ if name.is_empty() => {}
                        (Some(scope), _) => {
                            flow.bound.insert((scope, name));
                        }
                        (None, Some(class)) => {
                            flow.class_bound.insert((class, name));
                        }
                        _ => {}
                    }
                }
            }
        }
        // A container stored into (`d[k] = f`) that no function around the store and not the
        // module binds as far as the references tell (`d = {}` records no value): Python reads
        // such a name from the module, so it is the module's variable, and what is stored into
        // it is what a read of it (`d[k]()`) gets.
        for (fi, enclosing, base) in stored {
            let mut cur = enclosing;
            let mut local = false;
            while let Some(e) = cur {
                if self.syms[e as usize].kind.is_callable()
                    && (flow.bound.contains(&(Scope::Sym(e), base)) || flow.params(e).iter().any(|p| p.name == base))
                {
                    local = true;
                    break;
                }
                cur = self.parent_of(e);
            }
            if !local {
                flow.bound.insert((Scope::File(fi), base));
            }
        }
        tracing::debug!(secs = started.elapsed().as_secs_f64(), "flow: names bound");
        // Each file's constraints on any core; their keys renumbered into the flow's in the
        // files' order.
        let made: Vec<(Made<'a>, Vec<(Sink<'a>, Expr<'a>)>)> = python
            .par_iter()
            .map(|&fi| {
                let (mut made, mut lookups, mut out) = (Made::default(), HashMap::default(), Vec::new());
                self.file_constraints(&mut Cx::Build(&flow, &mut made, &mut lookups), fi, &mut out);
                (made, out)
            })
            .collect();
        let mut constraints: Vec<(Sink<'a>, Expr<'a>)> = Vec::with_capacity(made.iter().map(|m| m.1.len()).sum());
        for (m, mut cs) in made {
            m.merge_into(&mut flow, &mut cs);
            constraints.append(&mut cs);
        }
        // A callee known already whose parameter nothing reads: nothing to follow (every
        // read is a key by now).
        constraints.retain(|(sink, _)| match sink {
            Sink::Param { callee: Expr::Values(v), slot, keyword } => {
                v.iter().any(|&c| !self.param_keys(&flow, c, *slot, *keyword).is_empty())
            }
            _ => true,
        });
        tracing::debug!(
            secs = started.elapsed().as_secs_f64(),
            constraints = constraints.len(),
            keys = flow.keys.len(),
            "flow: constraints made"
        );
        self.propagate(&mut flow, &constraints);
        tracing::debug!(secs = started.elapsed().as_secs_f64(), "flow: solved");
        flow
    }

    /// The constraints of one file: assignments, arguments, returns, decorators, loop and
    /// `with` targets, annotated variables, parameter defaults.
    fn file_constraints(&self, cx: &mut Cx<'_, 'a>, fi: u32, out: &mut Vec<(Sink<'a>, Expr<'a>)>) {
        let f = &self.files[fi as usize];
        let refs = &f.references;
        // Stacked decorators: each one's definition, and the decorator below it (applied
        // first: `@a @b def f` is `f = a(b(f))`), by reference index.
        let mut decorators: Vec<(u32, u32, usize)> = Vec::new();
        for (ri, r) in refs.iter().enumerate() {
            let Some(alias) = r.alias().filter(|a| a.starts_with('@') && r.kind == RefKind::Call) else { continue };
            if r.arg().is_some() {
                continue;
            }
            let enclosing = r.enclosing.and_then(|e| self.by_id.get(&e).copied());
            let name = alias.trim_start_matches('@');
            if let Some(def) = self.decorated_def(fi, enclosing, name, r.span.start_line) {
                decorators.push((def, r.span.start_line, ri));
            }
        }
        decorators.sort_unstable();
        let stacked: HashMap<usize, (u32, Option<usize>, bool)> = decorators
            .iter()
            .enumerate()
            .map(|(i, &(def, _, ri))| {
                let below = decorators.get(i + 1).filter(|d| d.0 == def).map(|d| d.2);
                let outermost = i == 0 || decorators[i - 1].0 != def;
                (ri, (def, below, outermost))
            })
            .collect();
        for (ri, r) in refs.iter().enumerate() {
            let enclosing = r.enclosing.and_then(|e| self.by_id.get(&e).copied());
            // A call (a `raise`, a loop, a `with`) reads the variables its expression names even
            // when its result goes nowhere (`cb()` as a statement): their keys are made here, or
            // what flows into them (an argument for a parameter) would be dropped as read by
            // nobody.
            match r.kind {
                RefKind::Call | RefKind::Raise => {
                    self.ref_expr(cx, fi, enclosing, r);
                }
                RefKind::Iteration | RefKind::Context | RefKind::Operator => {
                    self.text_expr(cx, fi, enclosing, r.name.as_str());
                }
                _ => {}
            }
            let sinks: Vec<Sink<'a>> = match (r.arg(), r.alias()) {
                (Some(a), kw) if matches!(r.kind, RefKind::Value | RefKind::Callback | RefKind::Call) => {
                    let Some(call) = refs.get(a.call as usize) else { continue };
                    let callee = self.ref_expr(cx, fi, enclosing, call);
                    if callee.is_unknown() {
                        continue;
                    }
                    let keyword = if a.slot == Slot::Keyword { kw } else { None };
                    vec![Sink::Param { callee, slot: a.slot, keyword }]
                }
                // A decorator: the name holds what applying the outermost one gives; each one
                // is applied to what the one below it gives, the lowest to the definition.
                (None, Some(alias)) if alias.starts_with('@') => {
                    if r.kind != RefKind::Call {
                        continue;
                    }
                    let Some(&(def, below, outermost)) = stacked.get(&ri) else { continue };
                    let Some(v) = self.value_of(def) else { continue };
                    let Some(dec) = cx.key(Key::Dec(def)) else { continue };
                    if let Cx::Build(_, made, _) = cx {
                        made.decorated.push((def, dec));
                    }
                    let callee = self.decorator_expr(cx, fi, enclosing, r, alias);
                    let arg = match below.and_then(|b| refs.get(b)) {
                        Some(b) => {
                            let b_enclosing = b.enclosing.and_then(|e| self.by_id.get(&e).copied());
                            let b_alias = b.alias().unwrap_or_default();
                            Expr::Call(Box::new(self.decorator_expr(cx, fi, b_enclosing, b, b_alias)))
                        }
                        None => Expr::Raw(SmallVec::from_elem(v, 1)),
                    };
                    out.push((Sink::Param { callee: callee.clone(), slot: Slot::Position(0), keyword: None }, arg));
                    if outermost {
                        out.push((Sink::Key(dec), Expr::Call(Box::new(callee))));
                    }
                    continue;
                }
                (None, Some(alias))
                    if matches!(
                        r.kind,
                        RefKind::Value | RefKind::Call | RefKind::Iteration | RefKind::Context | RefKind::Type
                    ) =>
                {
                    self.alias_sinks(cx, fi, enclosing, alias)
                }
                _ => continue,
            };
            if sinks.is_empty() {
                continue;
            }
            let src = match r.kind {
                RefKind::Call => match self.ref_expr(cx, fi, enclosing, r) {
                    Expr::Unknown => continue,
                    e => Expr::Call(Box::new(e)),
                },
                RefKind::Iteration => Expr::Iter(Box::new(self.text_expr(cx, fi, enclosing, r.name.as_str()))),
                RefKind::Context => Expr::Enter(Box::new(self.text_expr(cx, fi, enclosing, r.name.as_str()))),
                RefKind::Type => {
                    let q = r.receiver.as_deref().filter(|x| !x.is_empty());
                    match self.type_named(fi, enclosing, q, &r.name, r.span.start_line, 0) {
                        Some(v) if v.len() == 1 => Expr::Values(SmallVec::from_elem(Value::Inst(v[0]), 1)),
                        _ => continue,
                    }
                }
                _ => self.ref_expr(cx, fi, enclosing, r),
            };
            if src.is_unknown() {
                continue;
            }
            for s in sinks {
                out.push((s, src.clone()));
            }
        }
        // Parameter defaults (`def f(on_done=report)`), seen in the scope around the function.
        for s in &f.symbols {
            if !s.kind.is_callable() || !s.signature.contains('=') {
                continue;
            }
            let Some(&fsym) = self.by_id.get(&s.id) else { continue };
            let outer = self.parent_of(fsym);
            let defaults: Vec<(&'a str, &'a str)> = cx
                .flow()
                .params(fsym)
                .iter()
                .filter_map(|p| Some((p.name, p.default.filter(|d| parse_chain(d).is_some())?)))
                .collect();
            for (name, d) in defaults {
                let src = self.text_expr(cx, fi, outer, d);
                if !src.is_unknown() {
                    if let Some(k) = cx.key(Key::Var(Scope::Sym(fsym), name)) {
                        out.push((Sink::Key(k), src));
                    }
                }
            }
        }
    }

    /// Applies the constraints until nothing changes: a worklist of constraints, each
    /// evaluated again when a key it read last time changed (bounded).
    fn propagate(&self, flow: &mut Flow<'a>, constraints: &[(Sink<'a>, Expr<'a>)]) {
        let mut deps: Vec<Vec<u32>> = Vec::new();
        let mut reads_of: Vec<SmallVec<[u32; 4]>> = vec![SmallVec::new(); constraints.len()];
        let mut queued = vec![true; constraints.len()];
        let mut queue: std::collections::VecDeque<u32> = (0..constraints.len() as u32).collect();
        let mut members: Members<'a> = HashMap::default();
        let mut budget = constraints.len().saturating_mul(MAX_EVALS_PER_CONSTRAINT);
        let mut changed_keys: Vec<u32> = Vec::new();
        while let Some(c) = queue.pop_front() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            queued[c as usize] = false;
            let (sink, src) = &constraints[c as usize];
            let mut rd = Solving { flow, reads: Vec::new() };
            let vals = self.eval(&mut rd, src, &mut members, 0);
            changed_keys.clear();
            if !vals.is_empty() {
                match sink {
                    Sink::Key(k) => {
                        if rd.flow.add(*k, &vals) {
                            changed_keys.push(*k);
                        }
                    }
                    Sink::Param { callee, slot, keyword } => {
                        // `handlers.append(f)`, `self.routes.setdefault(k, f)`: into the container.
                        if let Expr::Attr(obj, m) = callee {
                            if MUTATORS.contains(m) {
                                for k in self.container_keys(&mut rd, obj, &mut members) {
                                    if rd.flow.add(k, &vals) {
                                        changed_keys.push(k);
                                    }
                                }
                            }
                        }
                        for callee in self.eval(&mut rd, callee, &mut members, 0) {
                            for k in self.param_keys(rd.flow, callee, *slot, *keyword) {
                                if rd.flow.add(k, &vals) {
                                    changed_keys.push(k);
                                }
                            }
                        }
                    }
                    Sink::Field { obj, name } => {
                        for o in self.eval(&mut rd, obj, &mut members, 0) {
                            let k = match o {
                                Value::Inst(cl) | Value::Class(cl) => {
                                    // (What `getattr(o, expr)` may find.)
                                    let all = rd.flow.key(Key::Field(cl, ALL_ATTRS));
                                    if rd.flow.add(all, &vals) {
                                        changed_keys.push(all);
                                    }
                                    Key::Field(cl, name)
                                }
                                // `Dog.prototype = Object.create(Animal.prototype)`: the
                                // prototype Dog's instances go on to.
                                Value::Func(f) if *name == "prototype" && self.constructor_function(f) => {
                                    Key::Field(f, PROTO)
                                }
                                // A record's entry: under its key, and among all it holds.
                                Value::Obj(o) => {
                                    let all = rd.flow.key(Key::Elems(o));
                                    if rd.flow.add(all, &vals) {
                                        changed_keys.push(all);
                                    }
                                    Key::Prop(o, name)
                                }
                                _ => continue,
                            };
                            let k = rd.flow.key(k);
                            if rd.flow.add(k, &vals) {
                                changed_keys.push(k);
                            }
                        }
                    }
                }
            }
            let mut reads = std::mem::take(&mut rd.reads);
            reads.sort_unstable();
            reads.dedup();
            if deps.len() < flow.pts.len() {
                deps.resize(flow.pts.len(), Vec::new());
            }
            for &k in &reads {
                if !reads_of[c as usize].contains(&k) {
                    deps[k as usize].push(c);
                    reads_of[c as usize].push(k);
                }
            }
            for &k in &changed_keys {
                for &d in deps.get(k as usize).into_iter().flatten() {
                    if !queued[d as usize] {
                        queued[d as usize] = true;
                        queue.push_back(d);
                    }
                }
            }
        }
    }

    /// The keys a container expression is: a variable, or an attribute of the instances or
    /// classes an expression holds.
    fn container_keys<R: Reader<'a>>(&self, rd: &mut R, e: &Expr<'a>, members: &mut Members<'a>) -> Vec<u32> {
        match e {
            Expr::Key(k) => vec![*k],
            Expr::Union(parts) => parts.iter().flat_map(|p| self.container_keys(rd, p, members)).collect(),
            Expr::Attr(obj, name) => {
                let objs = self.eval(rd, obj, members, 0);
                objs.into_iter()
                    .filter_map(|o| match o {
                        Value::Inst(c) | Value::Class(c) => rd.id(Key::Field(c, name)),
                        Value::Module(f) => rd.id(Key::Var(Scope::File(f), name)),
                        Value::Obj(o) => rd.id(Key::Prop(o, name)),
                        Value::Func(_) => None,
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The parameter keys a value passed in `slot` to `callee` lands in.
    fn param_keys(&self, flow: &Flow<'a>, callee: Value, slot: Slot, keyword: Option<&str>) -> Vec<u32> {
        let f = match callee {
            Value::Func(f) => f,
            Value::Class(c) => match self.constructor(c) {
                Some(f) if self.syms[f as usize].kind.is_callable() => f,
                _ => return Vec::new(),
            },
            _ => return Vec::new(),
        };
        let f = flow.body(f);
        let params = flow.params(f);
        // A method called on an instance or a class: its first parameter is that.
        let skip = usize::from(params.first().is_some_and(|p| matches!(p.name, "self" | "cls")));
        let mut positional = params.iter().skip(skip).filter(|p| p.kind == ParamKind::Positional);
        let star = || params.iter().find(|p| p.kind == ParamKind::Star);
        let target = match slot {
            Slot::Position(i) => positional.nth(i as usize).or_else(star),
            Slot::Keyword => keyword.and_then(|kw| {
                params
                    .iter()
                    .find(|p| p.name == kw && matches!(p.kind, ParamKind::Positional | ParamKind::KeywordOnly))
                    .or_else(|| params.iter().find(|p| p.kind == ParamKind::StarStar))
            }),
            Slot::Star => star(),
            Slot::StarStar => params.iter().find(|p| p.kind == ParamKind::StarStar),
        };
        let Some(name) = target.map(|p| p.name) else { return Vec::new() };
        // A parameter that nothing reads has no key (every read was made a key while the
        // constraints were built): nothing to follow.
        flow.get(&Key::Var(Scope::Sym(f), name)).into_iter().collect()
    }

    fn key_values<R: Reader<'a>>(&self, rd: &mut R, k: Key<'a>) -> Values {
        let Some(id) = rd.id(k) else { return Values::new() };
        rd.note(id);
        let p = &rd.flow().pts[id as usize];
        if p.top {
            Values::new()
        } else {
            p.values.clone()
        }
    }

    /// What `e` can hold now.
    fn eval<R: Reader<'a>>(&self, rd: &mut R, e: &Expr<'a>, members: &mut Members<'a>, depth: u8) -> Values {
        if depth > 6 {
            return Values::new();
        }
        let mut out = Values::new();
        match e {
            Expr::Values(v) => return self.undecorate(rd, v),
            Expr::Raw(v) => return v.clone(),
            // What a key holds is already what the values are (decorated or not).
            Expr::Key(k) => {
                rd.note(*k);
                let p = &rd.flow().pts[*k as usize];
                if !p.top {
                    out = p.values.clone();
                }
            }
            Expr::Union(parts) => {
                for p in parts {
                    for v in self.eval(rd, p, members, depth + 1) {
                        push_new(&mut out, v);
                    }
                }
            }
            Expr::Attr(obj, name) => {
                for o in self.eval(rd, obj, members, depth + 1) {
                    for v in self.attr_values(rd, o, name, members) {
                        push_new(&mut out, v);
                    }
                }
            }
            Expr::Call(callee) => {
                if let Expr::Attr(obj, m) = &**callee {
                    if ACCESSORS.contains(m) {
                        for v in self.eval(rd, obj, members, depth + 1) {
                            if let Value::Func(_) = v {
                                push_new(&mut out, v);
                            }
                        }
                    }
                }
                for c in self.eval(rd, callee, members, depth + 1) {
                    match c {
                        Value::Func(f) => {
                            // `new Animal()` of a JavaScript constructor function: an instance.
                            if self.constructor_function(f) {
                                push_new(&mut out, Value::Inst(f));
                            }
                            let f = rd.flow().body(f);
                            for v in self.key_values(rd, Key::Ret(f)) {
                                push_new(&mut out, v);
                            }
                        }
                        Value::Class(c) => push_new(&mut out, Value::Inst(c)),
                        Value::Inst(c) => {
                            for m in self.member(c, "__call__", true) {
                                for v in self.key_values(rd, Key::Ret(m)) {
                                    push_new(&mut out, v);
                                }
                            }
                        }
                        Value::Module(_) | Value::Obj(_) => {}
                    }
                }
            }
            Expr::Index(inner) => {
                for v in self.eval(rd, inner, members, depth + 1) {
                    match v {
                        Value::Obj(o) => {
                            for x in self.key_values(rd, Key::Elems(o)) {
                                push_new(&mut out, x);
                            }
                        }
                        v => push_new(&mut out, v),
                    }
                }
            }
            Expr::Iter(inner) => {
                for v in self.eval(rd, inner, members, depth + 1) {
                    // An iterable class gives what its iterator returns; an instance in a
                    // container (the flow does not tell them apart) is an element.
                    let Value::Inst(c) = v else {
                        push_new(&mut out, v);
                        continue;
                    };
                    let iterators: Vec<u32> =
                        ["__iter__", "__next__"].into_iter().flat_map(|m| self.member(c, m, true)).collect();
                    if iterators.is_empty() {
                        push_new(&mut out, v);
                    }
                    for m in iterators {
                        for x in self.key_values(rd, Key::Ret(m)) {
                            if x != v {
                                push_new(&mut out, x);
                            }
                        }
                    }
                }
            }
            Expr::Enter(inner) => {
                for v in self.eval(rd, inner, members, depth + 1) {
                    if let Value::Inst(c) = v {
                        for m in self.member(c, "__enter__", true) {
                            for x in self.key_values(rd, Key::Ret(m)) {
                                push_new(&mut out, x);
                            }
                        }
                    }
                }
            }
            Expr::Unknown => {}
        }
        out
    }

    /// A decorated definition stands for what its decorators return (itself when they are
    /// not the repository's).
    fn undecorate<R: Reader<'a>>(&self, rd: &mut R, vals: &[Value]) -> Values {
        let mut out = Values::new();
        for v in vals {
            let dec = match v {
                Value::Func(f) | Value::Class(f) => rd.flow().decorated.get(f).copied(),
                _ => None,
            };
            let Some(dec) = dec else {
                push_new(&mut out, *v);
                continue;
            };
            rd.note(dec);
            let p = &rd.flow().pts[dec as usize];
            if !p.top && !p.values.is_empty() {
                for x in p.values.clone() {
                    push_new(&mut out, x);
                }
            } else {
                push_new(&mut out, *v);
            }
        }
        out
    }

    /// What `o.name` can hold.
    fn attr_values<R: Reader<'a>>(&self, rd: &mut R, o: Value, name: &'a str, members: &mut Members<'a>) -> Values {
        match o {
            Value::Inst(c) | Value::Class(c) => {
                let found = match members.get(&(c, name)) {
                    Some(v) => v.clone(),
                    // (A constructor function's nested functions are no methods of it.)
                    None if self.syms[c as usize].kind.is_callable() => Values::new(),
                    None => {
                        let v: Values =
                            self.member(c, name, true).into_iter().filter_map(|m| self.value_of(m)).collect();
                        members.insert((c, name), v.clone());
                        v
                    }
                };
                let mut out = self.undecorate(rd, &found);
                // Attributes assigned on the class or a base.
                let mut queue = vec![c];
                let mut seen = HashSet::default();
                while let Some(x) = queue.pop() {
                    if !seen.insert(x) || seen.len() > 64 {
                        continue;
                    }
                    // (The solver makes the key if it has to, so that this read is told when
                    // something assigns it later.)
                    for v in self.key_values(rd, Key::Field(x, name)) {
                        push_new(&mut out, v);
                    }
                    queue.extend(self.bases(&x).into_iter().flatten().copied());
                    // A JavaScript constructor's prototype chain (`Object.create`,
                    // `Object.setPrototypeOf`).
                    if self.constructor_function(x) {
                        for v in self.key_values(rd, Key::Field(x, PROTO)) {
                            match v {
                                Value::Class(y) => queue.push(y),
                                // `Base.prototype = {m: f}`: the record's entries.
                                Value::Obj(o) => {
                                    for v in self.key_values(rd, Key::Prop(o, name)) {
                                        push_new(&mut out, v);
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                }
                out
            }
            Value::Module(f) => {
                let ok = |s: &super::Sym<'_>| s.kind.is_callable() || s.kind.is_type_like();
                let found: Values =
                    self.exported(&[f], name, &ok, 0).into_iter().filter_map(|i| self.value_of(i)).collect();
                let mut out = self.undecorate(rd, &found);
                for v in self.key_values(rd, Key::Var(Scope::File(f), name)) {
                    push_new(&mut out, v);
                }
                out
            }
            // `Animal.prototype`: what its instances find their methods in.
            Value::Func(f) if name == "prototype" && self.constructor_function(f) => {
                SmallVec::from_elem(Value::Class(f), 1)
            }
            Value::Func(_) => Values::new(),
            Value::Obj(o) => self.key_values(rd, Key::Prop(o, name)),
        }
    }

    /// A JavaScript function that is a constructor (ES5 classes): named with a capital
    /// (`function Animal() {}`, `new Animal()`, `Animal.prototype.speak = …`), the
    /// language's convention; a call of one gives an instance of it.
    fn constructor_function(&self, f: u32) -> bool {
        let s = &self.syms[f as usize];
        s.lang == Lang::JavaScript
            && s.kind == SymbolKind::Function
            && s.name.starts_with(|c: char| c.is_ascii_uppercase())
    }

    /// What JavaScript's `this` is an instance of in `enclosing`: the class around it, else
    /// the constructor function around it, or the one whose prototype a function is
    /// assigned to (`Animal.prototype.speak = function () { this.… }`).
    fn this_class(&self, enclosing: u32) -> Option<u32> {
        if let Some(c) = self.class_of(enclosing) {
            return Some(c);
        }
        let mut cur = Some(enclosing);
        while let Some(e) = cur {
            let s = &self.syms[e as usize];
            if s.kind.is_callable() {
                if self.constructor_function(e) {
                    return Some(e);
                }
                if let Some((owner, _)) = s.signature.split_once(".prototype.") {
                    let owner = owner.trim();
                    return self
                        .top_level_in(&[s.file], owner, &|x| x.kind.is_callable())
                        .into_iter()
                        .find(|&o| self.constructor_function(o));
                }
            }
            cur = self.parent_of(e);
        }
        None
    }

    /// What the ladder's targets stand for once decorated: a decorated definition is what
    /// its decorators returned (`None`: none of them is decorated into something else).
    pub(crate) fn decorated_targets(&self, targets: &[u32]) -> Option<Vec<u32>> {
        // Whether a definition is decorated is its own file's fact; only what a decorated
        // one became is the whole flow's.
        let flow = self.flow_state.as_ref()?;
        if !targets.iter().any(|t| flow.decorated.contains_key(t)) {
            for &t in targets {
                self.note_file(self.syms[t as usize].file);
            }
            return None;
        }
        let flow = self.flow()?;
        let vals: Values = targets.iter().filter_map(|&t| self.value_of(t)).collect();
        let mut out: Vec<u32> = self
            .undecorate(&mut Solved(flow), &vals)
            .into_iter()
            .filter_map(|v| match v {
                Value::Func(f) | Value::Class(f) => Some(f),
                _ => None,
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        let mut same = targets.to_vec();
        same.sort_unstable();
        (out != same && !out.is_empty()).then_some(out)
    }

    /// Whether `name` read in `enclosing` is a variable of a function there (assigned in
    /// it or a parameter), which hides any module-level name.
    pub(crate) fn flow_local(&self, enclosing: Option<u32>, name: &'a str) -> bool {
        // The enclosing functions' assignments and parameters: the reading file's own facts,
        // which no other file's change alters (nothing to note).
        let Some(flow) = self.flow_state.as_ref() else { return false };
        let mut cur = enclosing;
        while let Some(e) = cur {
            if self.syms[e as usize].kind.is_callable()
                && (flow.bound.contains(&(Scope::Sym(e), name)) || flow.params(e).iter().any(|p| p.name == name))
            {
                return true;
            }
            cur = self.parent_of(e);
        }
        false
    }

    /// The symbols a Python reference's value can be, after the flow is solved: what a
    /// call calls (functions, classes; an instance's `__call__`), what a value names.
    pub(crate) fn flow_targets(&self, file: u32, r: &'a Reference) -> Vec<u32> {
        let Some(flow) = self.flow() else { return Vec::new() };
        let enclosing = r.enclosing.and_then(|e| self.by_id.get(&e).copied());
        let e = self.ref_expr(&mut Cx::Read(flow), file, enclosing, r);
        if e.is_unknown() {
            return Vec::new();
        }
        let mut members = HashMap::default();
        let mut out = Vec::new();
        for v in self.eval(&mut Solved(flow), &e, &mut members, 0) {
            match v {
                Value::Func(f) | Value::Class(f) => out.push(f),
                Value::Inst(c) if r.kind == RefKind::Call => out.extend(self.member(c, "__call__", true)),
                _ => {}
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// What a decorator factory's call (`@route("/")`: `route("/")`) gives, as far as the
    /// flow knows: the functions applied to the definition (an instance: its `__call__`).
    pub(crate) fn flow_applied(&self, file: u32, r: &'a Reference) -> Vec<u32> {
        let Some(flow) = self.flow() else { return Vec::new() };
        let enclosing = r.enclosing.and_then(|e| self.by_id.get(&e).copied());
        let e = self.ref_expr(&mut Cx::Read(flow), file, enclosing, r);
        if e.is_unknown() {
            return Vec::new();
        }
        let mut members = HashMap::default();
        let mut out = Vec::new();
        for v in self.eval(&mut Solved(flow), &Expr::Call(Box::new(e)), &mut members, 0) {
            match v {
                Value::Func(f) => out.push(f),
                Value::Inst(c) => out.extend(self.member(c, "__call__", true)),
                _ => {}
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The classes an implicit call's expression (`for x in e`, `with e`) is an instance of.
    pub(crate) fn flow_instances(&self, file: u32, r: &'a Reference) -> Vec<u32> {
        let Some(flow) = self.flow() else { return Vec::new() };
        let enclosing = r.enclosing.and_then(|e| self.by_id.get(&e).copied());
        let e = self.text_expr(&mut Cx::Read(flow), file, enclosing, r.name.as_str());
        let mut members = HashMap::default();
        let mut out: Vec<u32> = self
            .eval(&mut Solved(flow), &e, &mut members, 0)
            .into_iter()
            .filter_map(|v| if let Value::Inst(c) = v { Some(c) } else { None })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl Expr<'_> {
    fn is_unknown(&self) -> bool {
        match self {
            Expr::Unknown => true,
            Expr::Attr(e, _) | Expr::Call(e) | Expr::Iter(e) | Expr::Enter(e) | Expr::Index(e) => e.is_unknown(),
            Expr::Union(parts) => parts.iter().all(Expr::is_unknown),
            _ => false,
        }
    }
}

fn union(mut parts: Vec<Expr<'_>>) -> Expr<'_> {
    parts.retain(|p| !p.is_unknown());
    match parts.len() {
        0 => Expr::Unknown,
        1 => parts.pop().expect("one"),
        _ => Expr::Union(parts),
    }
}
