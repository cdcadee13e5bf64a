//! Name resolution: which symbols a reference can mean.
//!
//! The ladder (first rung that finds something wins), written down in ARCHITECTURE.md:
//!
//! 1. **Receiver** — `self`/`this`/`cls`/`Self`/`$this`: a member of the enclosing class,
//!    then of its base classes; `super`/`base`/`parent`: a member of the base classes;
//!    a receiver naming an import, a class or a module: a member of what it names.
//! 2. **Enclosing scope** — functions nested in the enclosing symbol or its ancestors;
//!    then (languages with implicit `this`: Java, C#, Kotlin, Swift, Dart, C++, Ruby)
//!    members of the enclosing class and its bases.
//! 3. **Same file** — top-level symbols of the file.
//! 4. **Imports** — what the file imports by name or alias (`from m import f as g`,
//!    `import {f} from './m'`, `use a::b::f`), then whatever whole-module imports bring
//!    in (`#include`, `require`, Go packages, wildcard imports, `source()`).
//! 5. **Same package** — symbols of files in the same directory; MATLAB functions by file name.
//! 6. **Unique global name** — the only callable of that name in the repository's language.
//!
//! A name with several candidates at the last rung keeps them all (at most
//! [`MAX_CANDIDATES`]), marked ambiguous; one with none is an external name
//! (`json.loads`). Calls that resolve to a class go to its constructor when it has one.
//!
//! Overloads (candidates sharing one qualified name, in Java, C#, Kotlin, C++ and Swift)
//! are narrowed to those whose signature takes as many arguments as the call passes
//! (varargs and default values counted); one left is a fact on its rung. A constructor is
//! picked among a class's constructors the same way.
//!
//! Python, TypeScript, Go, Java and Rust follow their scoping rules more closely: rungs 5
//! and 6 apply only where the language has them (Go and Java packages; Rust macros);
//! receivers get a type from the bindings the tags query records (type references whose
//! `alias` is the variable: `Circle c`, `c: Circle`, `c := NewCircle()`, `self.c = C()`),
//! then from what a called function declares it returns; imports follow re-exports
//! (`export {f} from`, `pub use`, a package's `__init__`); Rust paths resolve by module
//! path (`crate::`, `super::`, `self::`); and a call that reaches an abstract method (an
//! interface or trait method without a body) goes to its implementation when there is
//! exactly one, and stays ambiguous among them otherwise.

pub(crate) mod deps;
mod flow;
pub(crate) mod macros;

pub(crate) use deps::FileDeps;
use deps::Kind;

use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use cc_indexer::{FileRecord, Lang, RefKind, Reference, SymbolId, SymbolKind};
use serde::{Deserialize, Serialize};

/// More candidates than this and a name is left external (`get`, `run`, …).
pub const MAX_CANDIDATES: usize = 8;

/// C and C++: at most this many files are followed through `#include`s (see
/// `Tables::included_ones`).
const MAX_INCLUDED: usize = 4096;

/// Which rung resolved a reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Rung {
    Receiver,
    Scope,
    SameFile,
    Import,
    Package,
    Global,
    /// Python and JavaScript: what the value flow says a variable, attribute, parameter or
    /// result holds.
    Flow,
    Ambiguous,
    External,
}

impl Rung {
    /// Confidence of an edge found on this rung: the precision measured for the rung
    /// against compilers' and language servers' call graphs (benches/accuracy: jedi,
    /// the TypeScript checker, javac and go/types on click, httpx, zod, mobx, jsoup, gson,
    /// pflag and toml at pinned commits; every exported edge whose caller the reference
    /// knows, right / wrong), rounded to two decimals and capped at 0.99:
    ///
    /// | rung | right / wrong | precision | confidence |
    /// |---|---|---|---|
    /// | same-file | 978 / 1 | 0.999 | 0.99 |
    /// | receiver | 4901 / 37 | 0.993 | 0.99 |
    /// | package | 33 / 0 (Go only) | 1.000 | 0.99 |
    /// | import | 1876 / 31 | 0.984 | 0.98 |
    /// | scope | 319 / 15 | 0.955 | 0.96 |
    /// | flow (Python only) | 25 / 6 | 0.806 | 0.81 |
    /// | global | not reached: only the non-strict languages use it | — | 0.7 (unchanged) |
    /// | ambiguous, 2 candidates | 1005 / 1426 | 0.413 | 0.41 |
    /// | ambiguous, 3 candidates | 281 / 649 | 0.302 | 0.30 |
    /// | ambiguous, 1 candidate | 94 / 509 | 0.156 | 0.16 |
    /// | ambiguous, 4 or more | 239 / 3297 | 0.068 | 0.07 |
    ///
    /// An ambiguous edge is one candidate of a call the graph cannot decide (a possible
    /// edge): its precision does not fall as 1/candidates. A single candidate is mostly a
    /// method of an unknown receiver that is not the repository's (Java 0.12, Python 0.22,
    /// TypeScript 0.13, Go 0.57); two are often a Java method's overloads (Java 0.44,
    /// Python 0.16, TypeScript 0.20, Go 0.11).
    /// `benches/accuracy/run.sh` reproduces the figures (README there).
    pub fn confidence(self, candidates: usize) -> f32 {
        match self {
            Rung::SameFile | Rung::Receiver | Rung::Package => 0.99,
            Rung::Import => 0.98,
            Rung::Scope => 0.96,
            Rung::Flow => 0.81,
            Rung::Global => 0.7,
            Rung::Ambiguous => match candidates {
                0 | 1 => 0.16,
                2 => 0.41,
                3 => 0.30,
                _ => 0.07,
            },
            Rung::External => 0.0,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Rung::Receiver => "receiver",
            Rung::Scope => "scope",
            Rung::SameFile => "same-file",
            Rung::Import => "import",
            Rung::Package => "package",
            Rung::Global => "global",
            Rung::Flow => "flow",
            Rung::Ambiguous => "ambiguous",
            Rung::External => "external",
        }
    }
}

/// A directory's path segments and its files.
type DirKey<'a> = (Vec<&'a str>, Vec<u32>);

/// A module string as a path: without quotes or angle brackets, a Dart `package:name/` prefix
/// dropped (`package:name/path` is `path` under lib/).
fn module_path(module: &str) -> &str {
    let m = module.trim().trim_matches(|c| c == '"' || c == '\'' || c == '<' || c == '>');
    match m.strip_prefix("package:") {
        Some(rest) => rest.split_once('/').map_or(rest, |(_, p)| p),
        None => m,
    }
}

/// Module paths and the files they name, as found while mapping imports.
type ModuleCache = HashMap<String, Vec<u32>>;

/// What happens between the two ends of an edge.
///
/// `call`: the site names the callee and calls it. `reference`: the site uses a function or
/// class as a value (passes, stores or returns it; `isinstance(o, C)`): not a call by the
/// site's symbol. `inherited`: reached through the class hierarchy: an implementation of
/// the abstract method the site calls, or the method a subclass defines that `self.m()`
/// in a base class dispatches to. The rest are implicit calls, run without being named:
/// `constructor` (a class called or instantiated runs its initialiser; a class without one
/// of its own runs its nearest base's, and with none in the repository the edge goes to
/// the class itself), `raise` (`raise E` constructs `E`), `iteration` (`for x in o`:
/// `__iter__`/`__next__`), `context` (`with o`: `__enter__`/`__exit__`), `property` (a
/// property read runs its getter) and `operator` (`a + b`: `__add__` of `a`'s class).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EdgeKind {
    Call,
    Reference,
    Inherited,
    Constructor,
    Raise,
    Iteration,
    Context,
    Property,
    Operator,
}

impl EdgeKind {
    pub const ALL: [EdgeKind; 9] = [
        EdgeKind::Call,
        EdgeKind::Reference,
        EdgeKind::Inherited,
        EdgeKind::Constructor,
        EdgeKind::Raise,
        EdgeKind::Iteration,
        EdgeKind::Context,
        EdgeKind::Property,
        EdgeKind::Operator,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Call => "call",
            EdgeKind::Reference => "reference",
            EdgeKind::Inherited => "inherited",
            EdgeKind::Constructor => "constructor",
            EdgeKind::Raise => "raise",
            EdgeKind::Iteration => "iteration",
            EdgeKind::Context => "context",
            EdgeKind::Property => "property",
            EdgeKind::Operator => "operator",
        }
    }

    pub fn parse(s: &str) -> Option<EdgeKind> {
        EdgeKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// An implicit call: the site runs the target without naming it.
    pub fn is_implicit(self) -> bool {
        !matches!(self, EdgeKind::Call | EdgeKind::Reference | EdgeKind::Inherited)
    }

    /// `call`, `reference`, `inherited` or `implicit`: the family walks filter on.
    pub fn family(self) -> &'static str {
        if self.is_implicit() {
            "implicit"
        } else {
            self.as_str()
        }
    }
}

impl std::fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One symbol a reference resolved to, and how the site reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Target {
    pub id: SymbolId,
    pub kind: EdgeKind,
    /// One of several candidates (a guess, not a fact): the site's call may mean it.
    pub possible: bool,
    /// A Rust macro invoked: the arm (1-based) its tokens match ([`macros::pick`]); 0 when
    /// not known or not a macro.
    pub arm: u8,
}

/// What one reference resolved to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    /// Most references resolve to one symbol or none: kept inline, no allocation each.
    /// With [`Rung::Ambiguous`] every target is a candidate (`possible`), not a fact.
    pub targets: smallvec::SmallVec<[Target; 1]>,
    pub rung: Rung,
    /// The name as the source wrote it, for external references (`json.loads`); inline up
    /// to 24 bytes (most are), so the many externals of a repository cost no allocation each.
    pub external: Option<cc_indexer::CompactString>,
}

/// One symbol, as the resolver sees it.
#[derive(Clone, Debug)]
pub(crate) struct Sym<'a> {
    pub id: SymbolId,
    pub name: &'a str,
    pub qualified: &'a str,
    pub kind: SymbolKind,
    pub lang: Lang,
    pub file: u32,
    pub parent: Option<SymbolId>,
    pub signature: &'a str,
    /// The key of its name, hashed once (see [`deps`]).
    pub name_key: deps::Key,
}

struct Import<'a> {
    /// The local name it binds.
    binding: String,
    /// The module's files.
    files: Vec<u32>,
    /// The member imported; `None` for a whole module, `*` for all of its names.
    member: Option<&'a str>,
    module: String,
    /// The keys the lookups that made it noted (a member that is a submodule).
    deps: Vec<deps::Key>,
}

impl Import<'_> {
    /// Its files, its keys noted: a lookup is about to use it.
    fn used(&self) -> &[u32] {
        deps::replay(&self.deps);
        &self.files
    }
}

/// A variable and what gives it its type: a type reference whose `alias` is the
/// variable (`Circle c`, `c: Circle`, `c := Circle{}`), or a call whose `alias` is the
/// variable holding its result (`c = Circle()`, `c := NewCircle()`, `let c = open()?`).
struct Binding<'a> {
    alias: &'a str,
    enclosing: Option<u32>,
    /// The type, or (`call`) the function or class whose call initialises the variable.
    name: &'a str,
    receiver: Option<&'a str>,
    line: u32,
    call: bool,
    /// A call's argument count (it picks among overloads).
    args: Option<usize>,
    /// The variable holds elements of the type (`repos: &[Repo]`, `Vec<Repo>`: the tags
    /// query's `@binding.elements`, an alias written `repos[]`); it is not one itself.
    elements: bool,
    /// The variable is an element of the expression `name` (`for r in repos`,
    /// `repos.iter().map(|r| …)`: an iteration reference's alias).
    element_of: bool,
    /// The last line the binding holds on: a type test's branch (`if (o instanceof Circle)
    /// o.area()`, the query's `@binding.scope`); `None`: to the end of its scope.
    until: Option<u32>,
    /// Kotlin: the declared type's arguments (`Cmd` of `List<Cmd>`).
    type_args: Option<&'a str>,
}

/// How deep typing an expression goes: each variable, call, field or type alias it passes
/// through is a level or two (`kdoc.ensure().toBuilder()`, where `val kdoc =
/// builder.kdoc.build()` and `builder` is a constructor's parameter, needs 9).
const MAX_TYPE_DEPTH: u8 = 12;

/// Kotlin's standard containers whose elements are their one type argument.
const KOTLIN_CONTAINERS: [&str; 14] = [
    "List",
    "MutableList",
    "ArrayList",
    "Set",
    "MutableSet",
    "HashSet",
    "LinkedHashSet",
    "Collection",
    "MutableCollection",
    "Iterable",
    "MutableIterable",
    "Array",
    "Sequence",
    "Iterator",
];

impl<'a> Binding<'a> {
    /// Kotlin: the type of the elements of a variable declared a standard container (`Cmd`
    /// of `List<out Cmd>?`): its qualifier and name.
    fn kotlin_element(&self) -> Option<(Option<&'a str>, &'a str)> {
        let args = self.type_args.filter(|_| !self.call && self.receiver.is_none())?;
        if !KOTLIN_CONTAINERS.contains(&self.name) || args.contains(',') {
            return None;
        }
        let arg = args.trim().trim_start_matches("out ").trim_end_matches('?');
        let arg = strip_generics(arg).trim_end_matches('?');
        (!arg.is_empty() && arg.split('.').all(is_ident)).then(|| split_last(arg))
    }
}

/// Everything the resolver looks things up in, built from all files' records.
pub(crate) struct Tables<'a> {
    pub files: &'a [FileRecord],
    pub syms: Vec<Sym<'a>>,
    pub by_id: HashMap<SymbolId, u32>,
    /// Most names are one symbol's: kept inline, no allocation each (nor a free).
    name_index: HashMap<&'a str, smallvec::SmallVec<[u32; 2]>>,
    qualified_index: HashMap<&'a str, smallvec::SmallVec<[u32; 2]>>,
    file_of_path: HashMap<&'a str, u32>,
    dir_files: HashMap<&'a str, Vec<u32>>,
    /// Module keys (path segments, variants) -> files, by last segment.
    module_keys: HashMap<&'a str, Vec<(Vec<&'a str>, u32)>>,
    /// Directory keys (path segments) -> the files in that directory, by last segment.
    dir_keys: HashMap<&'a str, Vec<DirKey<'a>>>,
    imports: Vec<Vec<Import<'a>>>,
    base_table: HashMap<u32, Vec<u32>>,
    /// The keys the lookups of each class's bases noted (see [`deps`]).
    base_deps: HashMap<u32, Vec<deps::Key>>,
    /// Per file: each class's header names, by the class's position.
    headers: Vec<Vec<(u32, &'a str)>>,
    /// Direct subclasses and implementations, the reverse of `bases`.
    derived_table: HashMap<u32, Vec<u32>>,
    /// Per file, made on first use: its typed bindings, and their indexes by alias.
    bindings: Vec<std::sync::OnceLock<FileBindings<'a>>>,
    /// Java, per file: (function, variable) -> the method references it is initialised
    /// with (`Supplier<T> s = obj::m`).
    method_values: Vec<HashMap<(Option<u32>, &'a str), Vec<&'a Reference>>>,
    /// Symbol -> the symbols whose parent it is.
    child_table: HashMap<u32, Vec<u32>>,
    /// `export default f` (TypeScript): the name a file exports as its default.
    default_table: HashMap<u32, &'a str>,
    /// Rust: each file's module path (`crate::net::http`), and every module path and
    /// item path prefix of the repository.
    rust_mod: Vec<String>,
    rust_mod_files: HashMap<String, Vec<u32>>,
    rust_prefixes: HashSet<String>,
    rust_crates: HashSet<String>,
    /// Rust methods of an `impl` in another module than their type: method -> type,
    /// and type -> those methods.
    impl_table: HashMap<u32, (u32, Vec<deps::Key>)>,
    /// Rust methods of an `impl` whose type is looked up in other modules, found or not: the
    /// keys the lookup noted (what can change whether it is in `impl_table`).
    impl_looked: HashMap<u32, Vec<deps::Key>>,
    extra_table: HashMap<u32, Vec<u32>>,
    /// Implementations of abstract methods, computed once each (a base class with
    /// hundreds of subclasses is called through often).
    impl_cache: std::sync::Mutex<HashMap<u32, (Implementations, Vec<deps::Key>)>>,
    /// The overrides of a method in its class's subclasses, with the keys finding them noted.
    override_cache: std::sync::Mutex<HashMap<u32, (Vec<u32>, Vec<deps::Key>)>>,
    /// Ada: the instances of each generic, by the generic's name lowercased (made on first
    /// use).
    ada_instances: std::sync::OnceLock<HashMap<String, Vec<u32>>>,
    /// C and C++: the files each file reaches through its `#include`s, with the keys noted.
    include_cache: std::sync::Mutex<HashMap<u32, (std::sync::Arc<HashSet<u32>>, Vec<deps::Key>)>>,
    /// Java: the names of the classes some code makes (`new X(…)`, `X::new`; by name, so a
    /// class of a name made anywhere counts as made).
    made: HashSet<&'a str>,
    /// Python's value flow, solved once the tables are built.
    flow_state: Option<flow::Flow<'a>>,
    /// Python classes with several bases somewhere above them: the method resolution
    /// order (C3), themselves first.
    mro_table: HashMap<u32, Vec<u32>>,
}

/// A file's typed bindings, and their indexes by alias.
type FileBindings<'a> = (Vec<Binding<'a>>, HashMap<&'a str, Vec<usize>>);

/// What an abstract method dispatches to.
#[derive(Clone)]
enum Implementations {
    /// Not abstract, or nothing implements it: the method itself.
    None,
    /// These: a call reaches the declaration, and through it each of these (`inherited`).
    Some(Vec<u32>),
    /// More than [`MAX_CANDIDATES`]: the declaration only.
    Many,
}

/// C and C++: whether `path` is a header (included into source files, not compiled alone).
fn c_header(path: &str) -> bool {
    const HEADERS: &[&str] = &[".h", ".hh", ".hpp", ".hxx", ".inc", ".inl", ".ipp", ".tcc"];
    HEADERS.iter().any(|h| path.ends_with(h))
}

/// Whether `path` is a generator's input named after what it makes (`lexer.in.cc`, whose
/// output is `lexer.cc`).
fn generator_input(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').is_some_and(|(stem, _)| stem.ends_with(".in"))
}

/// Whether values of `s` are typed by it: a type-like symbol, or a Go defined type (`type Key
/// []string`), which has methods as a struct does and whose call is a conversion to it.
fn types_values(s: &Sym<'_>) -> bool {
    s.kind.is_type_like() || (s.kind == SymbolKind::Type && s.lang == Lang::Go) || zig_type_function(s)
}

/// MATLAB: whether `path` is in a package folder (`+stats/max.m`).
fn matlab_in_package(path: &str) -> bool {
    path.starts_with('+') || path.contains("/+")
}

/// Zig: a function that returns a type (`pub fn Stack(comptime T: type) type { return struct
/// {…}; }`), a generic type whose methods are its children.
fn zig_type_function(s: &Sym<'_>) -> bool {
    s.lang == Lang::Zig
        && s.kind == SymbolKind::Function
        && s.signature.trim_end().trim_end_matches('{').trim_end().ends_with(") type")
}

/// Languages whose scoping rules the resolver follows closely (see the module doc).
fn strict(lang: Lang) -> bool {
    matches!(lang, Lang::Python | Lang::TypeScript | Lang::Tsx | Lang::Go | Lang::Java | Lang::Rust)
}

/// Languages whose variables' types the resolver reads ([`Binding`]): the strict ones, and
/// C++, C#, Kotlin, Swift, Dart and Zig (a local, a parameter or a member of a declared class
/// type, or one initialised by a call); Ruby's locals (of no type the resolver knows: that a
/// name is one is what matters, a bare `x` after `x = …` reads it and calls nothing).
fn binds(lang: Lang) -> bool {
    strict(lang)
        || matches!(
            lang,
            Lang::Cpp | Lang::CSharp | Lang::Kotlin | Lang::Swift | Lang::Dart | Lang::Zig | Lang::Ada | Lang::Ruby
        )
}

/// Languages whose repository-wide value flow ([`flow`]) is solved: names bound to
/// functions, classes and instances followed through assignments, containers, arguments
/// and returns.
pub(crate) fn flows(lang: Lang) -> bool {
    matches!(lang, Lang::Python | Lang::JavaScript)
}

/// The method a Python operator runs on the operand a `@reference.operator` names, by its
/// token (the alias): `+` `__add__`, `==` `__eq__`, `in` `__contains__`, `[` `__getitem__`,
/// `=` (a subscript assigned) `__setitem__`. (`not in` runs `__contains__` too; `!=` runs
/// `__ne__`, whose default, inverting `__eq__`, is Python's own and not followed.)
fn operator_method(token: &str) -> Option<&'static str> {
    const TABLE: &[(&str, &str)] = &[
        ("+", "__add__"),
        ("-", "__sub__"),
        ("*", "__mul__"),
        ("/", "__truediv__"),
        ("//", "__floordiv__"),
        ("%", "__mod__"),
        ("**", "__pow__"),
        ("@", "__matmul__"),
        ("&", "__and__"),
        ("|", "__or__"),
        ("^", "__xor__"),
        ("<<", "__lshift__"),
        (">>", "__rshift__"),
        ("<", "__lt__"),
        ("<=", "__le__"),
        ("==", "__eq__"),
        ("!=", "__ne__"),
        (">=", "__ge__"),
        (">", "__gt__"),
        ("in", "__contains__"),
        ("not in", "__contains__"),
        ("[", "__getitem__"),
        ("=", "__setitem__"),
    ];
    TABLE.iter().find(|(t, _)| *t == token).map(|&(_, m)| m)
}

/// Kotlin: the supertypes a class's header names (`TypeName(nullable), Comparable<ClassName>`
/// of `class ClassName(names: List<String>, …) : TypeName(nullable), Comparable<ClassName>`):
/// what follows its first `:` outside parentheses and angle brackets; empty without one.
fn kotlin_supertypes(sig: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in sig.char_indices() {
        match c {
            '(' | '<' => depth += 1,
            ')' => depth -= 1,
            // (Not the arrow of a function type, `(Int) -> Unit`.)
            '>' if !sig[..i].ends_with('-') => depth -= 1,
            ':' if depth == 0 => return &sig[i + 1..],
            _ => {}
        }
    }
    ""
}

/// Kotlin: the type a type alias names, without its arguments (`OptionWithValues` of
/// `typealias NullableOption<T, V> = OptionWithValues<T?, T, V>`); `None` for an alias of a
/// function type or for any other symbol.
fn kotlin_alias_target<'s>(s: &Sym<'s>) -> Option<&'s str> {
    let target = strip_generics(kotlin_alias_of_text(s)?.trim_end_matches('?')).trim();
    (!target.is_empty() && target.split('.').all(is_ident)).then_some(target)
}

/// Kotlin: what a type alias stands for, as written (`OptionCallTransformContext.(String) ->
/// ValueT`); `None` for any other symbol.
fn kotlin_alias_of_text<'s>(s: &Sym<'s>) -> Option<&'s str> {
    if s.kind != SymbolKind::Type || s.lang != Lang::Kotlin {
        return None;
    }
    let at = s.signature.find("typealias ")?;
    Some(s.signature[at..].split_once('=')?.1.trim())
}

/// Whether `text` has `word` as a whole identifier (not part of a longer one).
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
    text.match_indices(word)
        .any(|(at, _)| !ident(text[..at].chars().next_back()) && !ident(text[at + word.len()..].chars().next()))
}

fn is_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '#')
}

/// Go's standard library: an import path whose first segment is one of these is not in
/// the repository.
#[rustfmt::skip]
const GO_STD: &[&str] = &[
    "archive", "bufio", "bytes", "cmp", "compress", "container", "context", "crypto",
    "database", "debug", "embed", "encoding", "errors", "expvar", "flag", "fmt", "go",
    "hash", "html", "image", "index", "io", "iter", "log", "maps", "math", "mime", "net",
    "os", "path", "plugin", "reflect", "regexp", "runtime", "slices", "sort", "strconv",
    "strings", "sync", "syscall", "testing", "text", "time", "unicode", "unique", "unsafe",
];

/// The index of the `(` matching the `)` that ends `s`.
fn call_open(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if b.last() != Some(&b')') {
        return None;
    }
    let mut depth = 0i32;
    for i in (0..b.len()).rev() {
        match b[i] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The type a cast names in a receiver written as one: `(Circle) shape` (Java, C#; the
/// parentheses around the whole are stripped already), `shape as Circle` (TypeScript,
/// Kotlin, Swift: `as!`, `as?` too), `shape.(*Circle)` (Go).
fn cast_type(lang: Lang, rcv: &str) -> Option<&str> {
    let type_like = |t: &str| {
        let t = t.trim();
        !t.is_empty()
            && t.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && t.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '<' | '>' | ',' | ' ' | '?' | '*'))
    };
    match lang {
        Lang::Java | Lang::CSharp => {
            let rest = rcv.strip_prefix('(')?;
            let close = rest.find(')')?;
            let (ty, value) = (&rest[..close], rest[close + 1..].trim());
            // `(a) + b` is no cast; a cast's operand is a name, a call or a parenthesised one.
            (type_like(ty) && value.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '('))
                .then(|| ty.trim())
        }
        // Go's type assertion: `shape.(*Circle)`, `v.(pkg.Circle)`.
        Lang::Go => {
            let (value, ty) = rcv.strip_suffix(')')?.rsplit_once(".(")?;
            let ty = ty.trim().trim_start_matches('*');
            (!value.is_empty() && ty != "type" && type_like(ty)).then_some(ty)
        }
        Lang::TypeScript | Lang::Tsx | Lang::Kotlin | Lang::Swift => {
            let (_, ty) = rcv.rsplit_once(" as")?;
            let ty = ty.trim_start_matches(['!', '?']);
            (ty.starts_with(' ') && type_like(ty)).then(|| ty.trim())
        }
        _ => None,
    }
}

/// Splits `a.b.c` / `a::b::c` at its last separator outside brackets:
/// (`Some("a.b")`, `"c"`).
/// `s` split at the dots outside brackets and parentheses (`a[b.c].d` is `a[b.c]`, `d`),
/// each part trimmed.
fn split_dots(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '.' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// `xs[i]` as (`xs`, true): an element of `xs`; anything else as itself.
fn indexed(s: &str) -> (&str, bool) {
    match s.strip_suffix(']').and_then(|r| r.split_once('[')) {
        Some((base, _)) => (base.trim(), true),
        None => (s, false),
    }
}

fn split_last(s: &str) -> (Option<&str>, &str) {
    let b = s.as_bytes();
    let mut depth = 0i32;
    for i in (0..b.len()).rev() {
        match b[i] {
            b')' | b']' | b'>' => depth += 1,
            b'(' | b'[' | b'<' => depth -= 1,
            b'.' if depth == 0 => return (Some(&s[..i]), &s[i + 1..]),
            b':' if depth == 0 && i > 0 && b[i - 1] == b':' => return (Some(&s[..i - 1]), &s[i + 1..]),
            _ => {}
        }
    }
    (None, s)
}

/// Drops generic arguments at the end of a name: `collect::<Vec<_>>`, `List<T>`.
fn strip_generics(s: &str) -> &str {
    let s = s.trim();
    match s.find('<') {
        Some(i) if s.ends_with('>') => s[..i].trim_end_matches("::"),
        _ => s,
    }
}

/// Kotlin: the receiver type of an extension function's signature, without its generic
/// arguments and `?` (`fun <T> Option<T>.validate(): …` is `Option`, `fun a.B?.f()` `a.B`);
/// `None` for a function that extends nothing.
fn kotlin_extension_receiver(signature: &str) -> Option<&str> {
    let at = signature.find("fun ")? + "fun ".len();
    let rest = signature[at..].trim_start();
    let mut i = 0;
    let bytes = rest.as_bytes();
    // (`fun <T : Any> …`: the function's own type parameters.)
    if bytes.first() == Some(&b'<') {
        let mut depth = 0;
        for (k, &b) in bytes.iter().enumerate() {
            match b {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        i = k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    // The last `.` at depth 0 before the parameter list.
    let (mut depth, mut dot) = (0i32, None);
    for (k, &b) in bytes.iter().enumerate().skip(i) {
        match b {
            b'(' if depth == 0 => break,
            b'<' | b'(' => depth += 1,
            b'>' | b')' => depth -= 1,
            b'.' if depth == 0 => dot = Some(k),
            _ => {}
        }
    }
    let recv = rest[i..dot?].trim();
    let recv = recv.split('<').next().unwrap_or(recv).trim_end_matches('?').trim();
    (!recv.is_empty() && recv.split('.').all(is_ident)).then_some(recv)
}

/// Kotlin: the receiver type of the last parameter of the function `name`, where that is a
/// function type with a receiver (`fun buildCodeString(builderAction: CodeWriter.() -> Unit)`
/// is `CodeWriter`): what `this` is in a trailing lambda passed to it.
fn kotlin_lambda_receiver<'s>(signature: &'s str, name: &str) -> Option<&'s str> {
    let list = param_list(signature, name)?;
    let last = *top_level_parts(list)?.last()?;
    let (_, ty) = last.split_once(':')?;
    let ty = ty.trim().trim_start_matches("suspend ").trim_start();
    let at = ty.find(".(")?;
    let recv = ty[..at].split('<').next()?.trim().trim_end_matches('?');
    (!recv.is_empty() && recv.split('.').all(is_ident) && ty[at..].contains("->")).then_some(recv)
}

/// The type a type expression names, as (qualifier, name): `&mut pkg.T` -> (`pkg`, `T`),
/// `Box<dyn Shape>` -> (None, `Shape`), `Optional[Circle]` -> (None, `Circle`).
fn type_text(lang: Lang, t: &str) -> Option<(Option<String>, String)> {
    let mut t = t.trim();
    loop {
        let before = t;
        for p in ["&", "*", "mut ", "dyn ", "impl ", "[]", "...", "?", "'static ", "readonly "] {
            t = t.strip_prefix(p).unwrap_or(t).trim_start();
        }
        if t.starts_with('\'') {
            t = t.split_once(' ').map_or("", |(_, r)| r).trim_start();
        }
        t = t.trim_matches(|c| c == '"' || c == '\'');
        if t == before {
            break;
        }
    }
    let end =
        t.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == ':' || c == '$')).unwrap_or(t.len());
    let path = t[..end].trim_end_matches([':', '.']);
    if path.is_empty() {
        return None;
    }
    let (q, name) = split_last(path);
    let rest = t[end..].trim_start();
    // Wrappers whose methods are not the repository's: the wrapped type is what the
    // code calls (`Box<dyn Shape>`, `Promise<Repo>` awaited, `Option<Conn>` unwrapped).
    let wrapper = match lang {
        Lang::Rust => {
            matches!(name, "Box" | "Rc" | "Arc" | "Option" | "Result" | "Ref" | "RefMut" | "RefCell" | "Mutex")
        }
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            matches!(name, "Promise" | "Awaited" | "Readonly")
        }
        Lang::Python => matches!(name, "Optional"),
        Lang::Java => matches!(name, "Optional"),
        _ => false,
    };
    if wrapper && (rest.starts_with('<') || rest.starts_with('[')) {
        let inner = &rest[1..];
        let mut depth = 0i32;
        let mut stop = inner.len();
        for (i, c) in inner.char_indices() {
            match c {
                '<' | '[' | '(' => depth += 1,
                '>' | ']' | ')' if depth == 0 => {
                    stop = i;
                    break;
                }
                '>' | ']' | ')' => depth -= 1,
                ',' if depth == 0 => {
                    stop = i;
                    break;
                }
                _ => {}
            }
        }
        return type_text(lang, &inner[..stop]);
    }
    if matches!(name, "void" | "None" | "Self_" | "()" | "any" | "unknown" | "never") {
        return None;
    }
    Some((q.map(str::to_string), name.to_string()))
}

/// What a function's signature says it returns (its type's qualifier and name).
/// Kotlin: the expression of an expression body without a declared type (`fun Type.asTypeName()
/// = TypeName.get(this, map)` gives `TypeName.get(this, map)`), as its signature shows it (the
/// first line).
fn kotlin_expression_body(sig: &str) -> Option<&str> {
    let open = sig.find('(')?;
    let close = open + call_open_forward(&sig[open..])?;
    let e = sig[close + 1..].trim_start().strip_prefix('=')?.trim();
    (!e.is_empty()).then_some(e)
}

/// Kotlin: whether `s`'s expression body is one call of its own name (`fun builder(type:
/// KClass<*>) = builder(type.asClassName())`): a call of another overload, since calling
/// itself it would never return.
fn kotlin_delegates(s: &Sym<'_>) -> bool {
    s.lang == Lang::Kotlin
        && kotlin_expression_body(s.signature)
            .is_some_and(|b| b.starts_with(s.name) && call_open(b) == Some(s.name.len()))
}

fn return_type(lang: Lang, sig: &str, name: &str) -> Option<(Option<String>, String)> {
    let sig = sig.trim();
    let ret: &str = match lang {
        Lang::Python => sig.rsplit_once("->")?.1,
        Lang::Rust => {
            let r = sig.rsplit_once("->")?.1;
            r.split(" where ").next().unwrap_or(r)
        }
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Kotlin => {
            let open = sig.find('(')?;
            let close = open + call_open_forward(&sig[open..])?;
            let after = sig[close + 1..].trim_start();
            // Kotlin: an expression body without a declared type, `fun builder() = Builder()`:
            // a class's constructor called, `this`, `apply { … }` (the receiver). (Any other
            // call's result is the resolver's to type: `Tables::result_type`.)
            if lang == Lang::Kotlin && after.starts_with('=') {
                let e = kotlin_expression_body(sig)?;
                // (`if (isEmpty()) this else …`: one branch says it.)
                let then = e
                    .strip_prefix("if")
                    .map(str::trim_start)
                    .filter(|c| c.starts_with('('))
                    .and_then(|c| Some(c[call_open_forward(c)? + 1..].trim_start()));
                if e == "this"
                    || e.starts_with("this.apply")
                    || e.starts_with("apply")
                    || then.is_some_and(|t| t.starts_with("this else") || t.ends_with("else this"))
                {
                    return Some((None, "this".to_string()));
                }
                let open = e.find(['(', '{'])?;
                let callee = e[..open].trim();
                let (q, n) = split_last(callee);
                // (The call is the whole expression, `Builder(a, b)`, or a first line shown of
                // several opens it, `Builder(` and ` …`; not `Builder(a).build()`.)
                let rest = &e[open..];
                let one_call = call_open(e) == Some(open)
                    || (e.ends_with('…') && rest.starts_with('(') && call_open_forward(rest).is_none());
                let constructs = one_call && n.chars().next().is_some_and(|c| c.is_ascii_uppercase());
                return (constructs && callee.split('.').all(is_ident)).then(|| (q.map(str::to_string), n.to_string()));
            }
            let r = after.strip_prefix(':')?;
            // (Kotlin: `fun f(): T = …`, `fun f(): T {`.)
            r.split(['=', '{']).next().unwrap_or(r)
        }
        Lang::Swift => {
            let r = sig.rsplit_once("->")?.1;
            r.split(['{', ' ']).find(|x| !x.is_empty()).unwrap_or(r)
        }
        // `pub fn fromInt(i: u8) Color`, `fn next(self: *Self) !?*Node`.
        Lang::Zig => {
            let open = sig.find('(')?;
            let close = open + call_open_forward(&sig[open..])?;
            sig[close + 1..].trim().trim_start_matches(['!', '?', '*']).split(['{', ' ']).next()?
        }
        Lang::Go => {
            let mut rest = sig.strip_prefix("func")?.trim_start();
            if rest.starts_with('(') {
                rest = rest[call_open_forward(rest)? + 1..].trim_start();
            }
            let open = rest.find('(')?;
            let close = open + call_open_forward(&rest[open..])?;
            let r = rest[close + 1..].trim();
            match r.strip_prefix('(') {
                Some(inner) => inner.split(',').next()?,
                None => r,
            }
        }
        Lang::Java | Lang::CSharp | Lang::Dart => {
            let at = sig.find(&format!("{name}("))?;
            let before = strip_generics(sig[..at].trim());
            before.rsplit(char::is_whitespace).next()?
        }
        // `Version* current() const`, `virtual Status Get(…)`, `Status DBImpl::Get(…)` (out of
        // line: the class before the name is not the type), `const Slice& key() const`.
        Lang::Cpp => {
            let at = sig.find(&format!("{name}("))?;
            let mut before = sig[..at].trim_end();
            if let Some(q) = before.strip_suffix("::") {
                before = q.trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == ':').trim_end();
            }
            strip_generics(before).trim_end_matches(['*', '&', ' ']).rsplit(char::is_whitespace).next()?
        }
        _ => return None,
    };
    type_text(lang, ret)
}

/// Parameter names a signature declares (receivers included): names that shadow
/// module-level ones inside the function.
fn param_names(lang: Lang, sig: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = sig;
    let groups = if lang == Lang::Go && sig.starts_with("func (") { 2 } else { 1 };
    for _ in 0..groups {
        let Some(open) = rest.find('(') else { break };
        let Some(close) = call_open_forward(&rest[open..]) else {
            break;
        };
        let inner = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let mut parts: Vec<&str> = Vec::new();
        let (mut depth, mut start) = (0i32, 0usize);
        for (i, c) in inner.char_indices() {
            match c {
                '(' | '[' | '{' | '<' => depth += 1,
                ')' | ']' | '}' | '>' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&inner[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[start..]);
        let parts: Vec<&str> = parts.into_iter().map(str::trim).filter(|p| !p.is_empty()).collect();
        for (k, part) in parts.iter().enumerate() {
            let name: &str = match lang {
                Lang::Go => {
                    let toks: Vec<&str> = part.split_whitespace().collect();
                    let grouped = toks.len() == 1 && parts[k + 1..].iter().any(|p| p.split_whitespace().count() >= 2);
                    if toks.len() >= 2 || grouped {
                        toks[0]
                    } else {
                        continue;
                    }
                }
                Lang::Java => part.rsplit(char::is_whitespace).next().unwrap_or(""),
                _ => {
                    let mut p = part.trim_start_matches(['*', '&']);
                    for m in ["public ", "private ", "protected ", "readonly ", "override ", "mut ", "..."] {
                        p = p.strip_prefix(m).unwrap_or(p).trim_start();
                    }
                    p.split([':', '=', '?']).next().unwrap_or("").trim()
                }
            };
            if is_ident(name) && !self_word(lang, name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// The parameter types of the Rust function `name` in its signature, names left out
/// (`fn imp(_: &str)` and `fn imp(name: &str)` take `["&str"]`).
fn rust_param_types(sig: &str, name: &str) -> Option<Vec<String>> {
    let list = param_list(sig, name)?;
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let mut push = |part: &str| {
        let part = part.trim();
        if !part.is_empty() {
            let ty = part.split_once(':').map_or(part, |(_, t)| t);
            out.push(ty.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    };
    for (i, c) in list.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    push(&list[start..]);
    Some(out)
}

/// The index of the `)` matching the `(` that starts `s`.
fn call_open_forward(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// How many arguments a function accepts, by its signature: `params` parameters, of which
/// `min` must be passed (the others have default values, or are the variadic one), and
/// any number more when the last is `variadic`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Arity {
    min: usize,
    params: usize,
    variadic: bool,
}

impl Arity {
    fn admits(self, n: usize) -> bool {
        n >= self.min && (self.variadic || n <= self.params)
    }

    /// Takes `n` arguments without spreading them over a variadic parameter (its array
    /// passed as one): what every language prefers to an expanded call (Java's first two
    /// phases, C#'s normal form, Kotlin's and C++'s ranking).
    fn admits_unexpanded(self, n: usize) -> bool {
        n >= self.min + usize::from(self.variadic) && n <= self.params
    }
}

/// Languages where one name declares several functions told apart by their parameters,
/// so that a call's argument count picks among them (not Python or JavaScript, where a
/// second definition replaces the first).
/// An argument's type as far as a Java call's text says ([`Tables::arg_ty`]).
enum ArgTy {
    Unknown,
    Null,
    /// A type outside the repository, by name: a primitive, `String`, a declared type.
    Named(String),
    /// A class of the repository.
    Class(u32),
}

const JAVA_PRIMITIVES: [&str; 8] = ["byte", "short", "char", "int", "long", "float", "double", "boolean"];

/// Types no other type is below (a value of one is of no other type of this list): Java's
/// final classes a call's text shows, and C#'s sealed `StringBuilder` (as Java's).
const JAVA_FINAL: [&str; 12] = [
    "String",
    "Integer",
    "Long",
    "Character",
    "Double",
    "Float",
    "Boolean",
    "Short",
    "Byte",
    "Class",
    "StringBuilder",
    "StringBuffer",
];

/// Java's widening of primitives (`int` to `long`, `char` to `int`).
fn java_widens(from: &str, to: &str) -> bool {
    const ORDER: [&str; 6] = ["byte", "short", "int", "long", "float", "double"];
    let at = |t: &str| ORDER.iter().position(|x| *x == t);
    from == to
        || match (from, at(to)) {
            ("char", Some(t)) => t >= 2,
            (_, Some(t)) => at(from).is_some_and(|f| f < t),
            _ => false,
        }
}

/// A primitive's box (`int` → `Integer`).
fn java_box(p: &str) -> Option<&'static str> {
    Some(match p {
        "int" => "Integer",
        "long" => "Long",
        "char" => "Character",
        "double" => "Double",
        "float" => "Float",
        "boolean" => "Boolean",
        "short" => "Short",
        "byte" => "Byte",
        _ => return None,
    })
}

/// Kotlin: types of the standard library an argument may be of, each with its supertypes
/// among them (one of these is none of the others).
const KOTLIN_STD: [(&str, &[&str]); 16] = [
    ("List", &["Collection", "Iterable"]),
    ("MutableList", &["List", "MutableCollection", "Collection", "Iterable"]),
    ("Set", &["Collection", "Iterable"]),
    ("MutableSet", &["Set", "MutableCollection", "Collection", "Iterable"]),
    ("Collection", &["Iterable"]),
    ("MutableCollection", &["Collection", "Iterable"]),
    ("Iterable", &[]),
    ("Map", &[]),
    ("MutableMap", &["Map"]),
    ("Array", &[]),
    ("Sequence", &[]),
    ("Pair", &[]),
    ("Triple", &[]),
    ("Regex", &[]),
    ("String", &["CharSequence", "Comparable"]),
    ("KClass", &[]),
];

fn kotlin_std_type(t: &str) -> bool {
    KOTLIN_STD.iter().any(|(n, _)| *n == t) || matches!(t, "CharSequence" | "Comparable" | "Class")
}

/// Kotlin: what a call of the standard library gives, by the function's name, for the
/// types of [`KOTLIN_STD`] (`choices.toMap()`, `listOf(…)`, `argv.asList()`).
fn kotlin_std_result(call: &str) -> Option<&'static str> {
    let mut call = call.trim_end();
    // (A trailing lambda: `names.associateWith { it.length }`.)
    if call.ends_with('}') {
        call = call[..call.find('{')?].trim_end();
    }
    let callee = match call.strip_suffix(')') {
        Some(c) => &c[..c.find('(')?],
        None => call,
    };
    let name = callee.rsplit(['.', ' ']).next()?.trim_end_matches(['?', '!']);
    Some(match name {
        "listOf" | "emptyList" | "listOfNotNull" | "toList" | "asList" | "map" | "filter" | "mapNotNull" | "sorted"
        | "sortedBy" | "flatMap" | "distinct" | "reversed" | "drop" | "take" | "plus" | "minus" | "zip" => "List",
        "mutableListOf" | "arrayListOf" | "toMutableList" => "MutableList",
        "setOf" | "emptySet" | "toSet" => "Set",
        "mutableSetOf" | "toMutableSet" | "linkedSetOf" => "MutableSet",
        "mapOf" | "emptyMap" | "toMap" | "associate" | "associateBy" | "associateWith" | "groupBy" | "mapValues"
        | "mapKeys" | "filterKeys" | "filterValues" => "Map",
        "mutableMapOf" | "toMutableMap" | "linkedMapOf" | "hashMapOf" => "MutableMap",
        "arrayOf" | "toTypedArray" | "emptyArray" | "arrayOfNulls" => "Array",
        "asSequence" | "sequenceOf" | "generateSequence" => "Sequence",
        "toString" | "joinToString" | "trim" | "substring" | "replace" | "toUpperCase" | "toLowerCase"
        | "uppercase" | "lowercase" | "format" | "repeat" | "padStart" | "padEnd" => "String",
        "toRegex" | "fromLiteral" | "Regex" => "Regex",
        "to" | "Pair" => "Pair",
        _ => return None,
    })
}

/// Kotlin: `x` of `x.apply { … }` or `x?.also { … }` (which give their receiver); `expr` itself
/// otherwise.
fn kotlin_without_scope_call(expr: &str) -> &str {
    if !expr.ends_with('}') {
        return expr;
    }
    let mut depth = 0i32;
    for (i, c) in expr.char_indices().rev() {
        match c {
            '}' => depth += 1,
            '{' => {
                depth -= 1;
                if depth == 0 {
                    let head = expr[..i].trim_end();
                    return ["?.apply", ".apply", "?.also", ".also"]
                        .iter()
                        .find_map(|s| head.strip_suffix(s))
                        .map_or(expr, str::trim_end);
                }
            }
            _ => {}
        }
    }
    expr
}

/// Kotlin: a type's name as [`KotlinParam::ty`] writes it (`Int` is `int`).
fn kotlin_java_name(t: &str) -> &str {
    match t {
        "Int" => "int",
        "Long" => "long",
        "Short" => "short",
        "Byte" => "byte",
        "Char" => "char",
        "Double" => "double",
        "Float" => "float",
        "Boolean" => "boolean",
        "Any" => "Object",
        t => t,
    }
}

/// A Kotlin parameter, as [`kotlin_params`] reads it.
struct KotlinParam {
    /// Its type's name without generic arguments and `?`, by Java's name where Kotlin's
    /// stands for a primitive (`Int` is `int`), `Object` for `Any`; `fn` for a function type.
    ty: String,
    /// Its name (what a named argument says).
    name: String,
    default: bool,
    vararg: bool,
    /// It stands for the parameters a signature cut at its length bound leaves out.
    rest: bool,
}

/// Kotlin: the parameters of the function `name`'s signature (`fun emit(s: String, n: Int =
/// 0)`; `None` when it has no parameter list).
fn kotlin_params(signature: &str, name: &str) -> Option<Vec<KotlinParam>> {
    // (A signature cut at its length bound shows the parameters before its last whole comma;
    // one that takes anything stands for the rest.)
    let (parts, cut) = match param_list(signature, name) {
        Some(list) => (top_level_parts(list)?, false),
        None => {
            let shown = signature.strip_suffix('…')?;
            let mut list = &shown[shown.find(&format!("{name}("))? + name.len() + 1..];
            loop {
                list = &list[..list.rfind(',')?];
                if let Some(parts) = top_level_parts(list) {
                    break (parts, true);
                }
            }
        }
    };
    let rest = KotlinParam { ty: "Object".into(), name: String::new(), default: true, vararg: true, rest: true };
    Some(
        parts
            .into_iter()
            .filter(|p| !p.trim().is_empty())
            .map(|p| {
                let (mut depth, mut colon, mut eq) = (0i32, None, None);
                for (k, c) in p.char_indices() {
                    match c {
                        '(' | '<' | '[' | '{' => depth += 1,
                        ')' | '>' | ']' | '}' => depth -= 1,
                        ':' if depth == 0 && colon.is_none() => colon = Some(k),
                        '=' if depth == 0 && colon.is_some() && eq.is_none() && !p[k..].starts_with("=>") => {
                            eq = Some(k)
                        }
                        _ => {}
                    }
                }
                let head = &p[..colon.unwrap_or(0)];
                let vararg = head.split_whitespace().any(|w| w == "vararg");
                let name = head.split_whitespace().next_back().unwrap_or("").to_string();
                let ty = colon.map_or("", |c| p[c + 1..eq.unwrap_or(p.len())].trim());
                let ty = ty.trim_start_matches("suspend ").trim();
                let ty = if ty.contains("->") {
                    "fn".to_string()
                } else {
                    let t = ty.split('<').next().unwrap_or(ty).trim().trim_end_matches('?');
                    kotlin_java_name(t.rsplit('.').next().unwrap_or(t)).to_string()
                };
                KotlinParam { ty, name, default: eq.is_some(), vararg, rest: false }
            })
            .chain(cut.then_some(rest))
            .collect(),
    )
}

/// Java: a parameter's type as its signature writes it, without annotations, `final`, its
/// generic arguments and its name (`final List<String> xs` is `List`, `Object... args`
/// `Object...`, `int[] a` `int[]`).
/// A C# parameter as Java would write it, for [`java_param_type`]: without its attributes,
/// its modifiers (`this`, `ref`, `out`, `in`) and its default value; `params T[] xs` is
/// `T... xs`, a nullable `int?` an `Integer`, `string`/`object`/`bool` Java's names.
fn csharp_param_type(param: &str) -> String {
    let mut p = param.trim();
    while let Some(rest) = p.strip_prefix('[') {
        p = rest.split_once(']').map_or("", |(_, r)| r).trim_start();
    }
    let p = p.split_once('=').map_or(p, |(l, _)| l).trim();
    let mut words: Vec<&str> = p.split_whitespace().collect();
    let params = words.first() == Some(&"params");
    words.retain(|w| !matches!(*w, "this" | "ref" | "out" | "in" | "params" | "scoped"));
    let Some((&name, ty)) = words.split_last() else { return String::new() };
    let ty = ty.join(" ");
    let ty = match ty.as_str() {
        "string" => "String".to_string(),
        "object" => "Object".to_string(),
        "bool" => "boolean".to_string(),
        "int?" => "Integer".to_string(),
        "long?" => "Long".to_string(),
        "double?" => "Double".to_string(),
        "bool?" => "Boolean".to_string(),
        t => t.to_string(),
    };
    match ty.strip_suffix("[]") {
        Some(element) if params => format!("{element}... {name}"),
        _ => format!("{ty} {name}"),
    }
}

fn java_param_type(param: &str) -> String {
    let mut text = String::new();
    let mut depth = 0i32;
    for c in param.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            _ if depth == 0 => text.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = text.split_whitespace().filter(|w| !w.starts_with('@') && *w != "final").collect();
    match words.len() {
        0 => String::new(),
        1 => words[0].to_string(),
        n => {
            let ty = words[..n - 1].join("");
            // (`String ...args`: the ellipsis on the name's side.)
            if words[n - 1].starts_with("...") {
                format!("{ty}...")
            } else {
                ty
            }
        }
    }
}

fn overloads_by_arity(lang: Lang) -> bool {
    matches!(lang, Lang::Java | Lang::CSharp | Lang::Kotlin | Lang::Cpp | Lang::Swift)
}

/// The parameter list of the function `name` in its signature: the text between the
/// parentheses after the name (generic parameters between them skipped: `Get<T>(…)`).
fn param_list<'s>(sig: &'s str, name: &str) -> Option<&'s str> {
    if name.is_empty() {
        return None;
    }
    let b = sig.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'@' || c >= 0x80;
    let mut from = 0;
    while let Some(i) = sig[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        if at > 0 && ident(b[at - 1]) {
            continue;
        }
        let mut rest = sig[from..].trim_start();
        if rest.starts_with('<') {
            let mut depth = 0i32;
            let mut end = None;
            for (k, c) in rest.char_indices() {
                match c {
                    '<' => depth += 1,
                    '>' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(k);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            rest = rest[end? + 1..].trim_start();
        }
        if rest.starts_with('(') {
            let close = call_open_forward(rest)?;
            return Some(&rest[1..close]);
        }
    }
    None
}

/// `s` split at its top-level commas (outside brackets, generic arguments and string
/// literals), each part trimmed, empty parts dropped; `None` when the brackets or quotes
/// do not balance. A `<` opens generic arguments only right after a name (`Map<K, V>`, not
/// `a < b`), and a `>` closes them only right after a name or another `>`.
fn top_level_parts(s: &str) -> Option<Vec<&str>> {
    let b = s.as_bytes();
    let name_byte = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.' || c == b'?' || c >= 0x80;
    let mut parts = Vec::new();
    let (mut depth, mut angle, mut start, mut i) = (0i32, 0i32, 0usize, 0usize);
    while i < b.len() {
        let prev = if i > 0 { b[i - 1] } else { b' ' };
        match b[i] {
            q @ (b'"' | b'\'' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if i >= b.len() {
                    return None;
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'<' if name_byte(prev) => angle += 1,
            // (`Class<*>`, `vector<T*>`: a star before the close.)
            b'>' if angle > 0 && (name_byte(prev) || matches!(prev, b'>' | b']' | b'*')) => angle -= 1,
            b',' if depth == 0 && angle == 0 => {
                parts.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
        i += 1;
    }
    if depth != 0 || angle != 0 {
        return None;
    }
    parts.push(s[start..].trim());
    parts.retain(|p| !p.is_empty());
    Some(parts)
}

/// Whether a parameter has a default value: an `=` outside brackets (C#, Kotlin, C++,
/// Swift: `int x = 0`, `x: Int = 0`).
fn has_default(param: &str) -> bool {
    let b = param.as_bytes();
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b'>' if i > 0 && b[i - 1] == b'-' => {}
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b'=' if depth == 0 => {
                let prev = if i > 0 { b[i - 1] } else { b' ' };
                let next = b.get(i + 1).copied().unwrap_or(b' ');
                if !matches!(prev, b'=' | b'!' | b'<' | b'>') && !matches!(next, b'=' | b'>') {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// The arguments a function named `name` accepts, read from its signature; `None` when
/// the signature shows no parameter list (then nothing is concluded from a call's count).
/// Java `T... xs`, C# `params T[] xs`, Kotlin `vararg xs: T`, C++ `...`, Swift `xs: T...`
/// take any number of arguments; a parameter with a default value may be left out; a
/// C# extension method (`this T x` first) is also called with one argument fewer.
fn arity(lang: Lang, sig: &str, name: &str) -> Option<Arity> {
    let list = param_list(sig, name)?;
    let mut params = top_level_parts(list)?;
    if lang == Lang::Cpp && params.len() == 1 && params[0] == "void" {
        params.clear();
    }
    // Java's receiver parameter (`Foo this`) is no argument.
    if lang == Lang::Java && params.first().is_some_and(|p| p.ends_with(" this")) {
        params.remove(0);
    }
    let variadic = |p: &str| {
        p.contains("...")
            || (lang == Lang::CSharp && (p.starts_with("params ") || p.contains(" params ") || p.contains("] params ")))
            || (lang == Lang::Kotlin && (p.starts_with("vararg ") || p.contains(" vararg ")))
    };
    let mut min: usize = 0;
    let mut is_variadic = false;
    for p in &params {
        if variadic(p) {
            is_variadic = true;
        } else if !has_default(p) {
            min += 1;
        }
    }
    if lang == Lang::CSharp && params.first().is_some_and(|p| p.starts_with("this ")) {
        min = min.saturating_sub(1);
    }
    Some(Arity { min, params: params.len(), variadic: is_variadic })
}

/// Ada: the parameter groups of a subprogram's signature (`(A, B : Integer; C : Float :=
/// 0.0)`: `A, B : Integer` and `C : Float := 0.0`), empty without a parameter list. `None`
/// when the signature is no subprogram's, or an instance's (its parameters are its generic's).
fn ada_param_groups(sig: &str) -> Option<Vec<&str>> {
    let lower = sig.to_ascii_lowercase();
    let at = ["function ", "procedure ", "entry "].iter().filter_map(|k| lower.find(k).map(|i| i + k.len())).min()?;
    let rest = sig[at..].trim_start();
    let name_end = rest.find(|c: char| c.is_whitespace() || c == '(').unwrap_or(rest.len());
    let rest = rest[name_end..].trim_start();
    if rest.starts_with("is ") {
        return None;
    }
    if !rest.starts_with('(') {
        return Some(Vec::new());
    }
    let close = call_open_forward(rest)?;
    Some(split_outside_parens(&rest[1..close], ';'))
}

/// The parts of `s` between the `sep`s outside parentheses.
fn split_outside_parens(s: &str, sep: char) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0usize, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// Ada: how many names a parameter group declares (`A, B : Integer`: 2).
fn ada_group_names(group: &str) -> usize {
    group.split(':').next().unwrap_or("").split(',').filter(|n| !n.trim().is_empty()).count()
}

/// Ada: what a subprogram's signature (`function F (A, B : Integer; C : Float := 0.0)
/// return T`) says about the arguments it takes; no parameter list, none. `None` when the
/// signature is not a subprogram's.
fn ada_arity(sig: &str) -> Option<Arity> {
    let (mut min, mut params) = (0, 0);
    for g in ada_param_groups(sig)? {
        let names = ada_group_names(g);
        params += names;
        if !g.contains(":=") {
            min += names;
        }
    }
    Some(Arity { min, params, variadic: false })
}

/// Ada: each parameter's type in a subprogram's signature, one per name (`A, B : in out
/// Pkg.T'Class := X` is `t`, `t`), lowercased last names; `None` without a parameter list.
fn ada_param_types(sig: &str) -> Option<Vec<String>> {
    let groups = ada_param_groups(sig).filter(|g| !g.is_empty())?;
    let mut out = Vec::new();
    for g in groups {
        let Some(colon) = g.find(':') else { continue };
        let ty = g[colon + 1..].split(":=").next().unwrap_or("");
        let ty = ty
            .split_whitespace()
            .filter(|w| {
                !matches!(
                    w.to_ascii_lowercase().as_str(),
                    "in" | "out" | "access" | "aliased" | "not" | "null" | "constant"
                )
            })
            .last()
            .unwrap_or("");
        let ty = ty.split('\'').next().unwrap_or("").rsplit('.').next().unwrap_or("").to_ascii_lowercase();
        out.extend(std::iter::repeat_n(ty, ada_group_names(g)));
    }
    Some(out)
}

/// Ada: whether an argument (`hint`, see `Reference::arg_types`) can be passed as a
/// parameter of type `param` (a lowercased last name; empty: not known).
fn ada_arg_fits(hint: &str, param: &str) -> bool {
    const STRINGS: [&str; 3] = ["string", "wide_string", "wide_wide_string"];
    const CHARACTERS: [&str; 3] = ["character", "wide_character", "wide_wide_character"];
    match hint {
        "?" | "" => true,
        _ if param.is_empty() => true,
        "#str" => STRINGS.contains(&param),
        "#chr" => CHARACTERS.contains(&param),
        "#num" => {
            !STRINGS.contains(&param)
                && !CHARACTERS.contains(&param)
                && param != "boolean"
                && !param.ends_with("string")
        }
        t => t == param,
    }
}

/// Ada: the actual an instance (its signature, `procedure P is new G (A, Write => W)`) passes
/// for the formal `name` at `position`: named for it, or positional there.
fn ada_actual<'s>(sig: &'s str, name: &str, position: usize) -> Option<&'s str> {
    let lower = sig.to_ascii_lowercase();
    let at = lower.find(" is new ")?;
    let open = at + sig[at..].find('(')?;
    let close = open + call_open_forward(&sig[open..])?;
    let mut k = 0;
    for p in split_outside_parens(&sig[open + 1..close], ',') {
        match p.split_once("=>") {
            Some((formal, actual)) if formal.trim().eq_ignore_ascii_case(name) => return Some(actual.trim()),
            Some(_) => {}
            None if k == position => return Some(p.trim()),
            None => k += 1,
        }
    }
    None
}

/// Ada: the generic an instance's signature names (`package P is new Pkg.G (…)`: `Pkg.G`).
fn ada_generic_of(sig: &str) -> Option<&str> {
    let lower = sig.to_ascii_lowercase();
    let at = lower.find(" is new ")? + " is new ".len();
    let rest = sig[at..].trim_start();
    let end = rest.find(|c: char| c == '(' || c == ';' || c.is_whitespace()).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// How many arguments the call text `f(a, g(b, c))` passes, from its outer parentheses.
fn text_arg_count(call: &str) -> Option<usize> {
    let open = call_open(call)?;
    Some(top_level_parts(&call[open + 1..call.len() - 1])?.len())
}

/// `export default f`, recorded as `export { f as default }` without a module.
fn is_default_export(r: &Reference) -> bool {
    r.alias() == Some("default") && r.module().is_none()
}

fn self_word(lang: Lang, s: &str) -> bool {
    // (`cls` is Python's class method receiver; elsewhere a variable like any other, often
    // of a class named `Class`.)
    matches!(s, "self" | "this" | "Self" | "$this" | "@" | "me" | "static" | "this@")
        || (s == "cls" && lang == Lang::Python)
}

/// Whether a call with this receiver is dispatched on the receiver's class: not `super.m()`,
/// not `new Foo().m()` (whose class is known exactly), not `Foo::m` (a path).
fn virtual_call(lang: Lang, receiver: Option<&str>) -> bool {
    receiver.is_none_or(|r| !super_word(lang, r) && !r.starts_with("new ") && !r.contains("::"))
}

fn super_word(lang: Lang, s: &str) -> bool {
    // (`parent::` is PHP's and `base.` C#'s; elsewhere they are variables like any other, a
    // tree's `parent` node most often.)
    match s {
        "super" | "super()" | "self.super" => true,
        "parent" => lang == Lang::Php,
        "base" => lang == Lang::CSharp,
        _ => false,
    }
}

/// The local names an import reference binds, or may (`h` of `use a::helper as h`,
/// `helper` of `from a import helper`, `util` of `import util`; the whole path too).
pub(crate) fn import_names(r: &Reference) -> impl Iterator<Item = &str> {
    let last = r.name.rsplit(['.', '/', ':', '\\']).next().unwrap_or(&r.name);
    [Some(last), r.alias(), Some(r.name.as_str())].into_iter().flatten()
}

/// Java: the names of the classes `f` makes (`new X(…)` is a call named `X`; `X::new` a
/// value named `new` on `X`). Every call's name counts: a method call named like a class
/// only makes that class count as made, which keeps more of its implementations possible.
/// (Read without decoding the file's plain calls: their names are kept apart.)
fn made_in(f: &FileRecord) -> impl Iterator<Item = &str> {
    f.references
        .kept()
        .filter_map(|r| match r.kind {
            RefKind::Call => Some(r.name.as_str()),
            RefKind::Value if r.name == "new" => r.receiver.as_deref().map(|q| split_last(q).1),
            _ => None,
        })
        .chain(f.references.call_names())
}

/// The references the graph resolves: calls, values (callbacks included) and implicit calls.
pub(crate) fn resolvable(kind: RefKind) -> bool {
    !matches!(kind, RefKind::Import | RefKind::Type)
}

/// Languages whose member lookup walks a class's chain (its superclasses and their traits)
/// before its interfaces ([`Tables::member`]): PHP, where a trait's method is the class's
/// own, and Java, where a method a superclass inherits from its own superclass implements an
/// interface's declaration (javac's target).
fn classes_first(lang: Lang) -> bool {
    matches!(lang, Lang::Php | Lang::Java)
}

pub(crate) fn implicit_this(lang: Lang) -> bool {
    matches!(lang, Lang::Java | Lang::CSharp | Lang::Kotlin | Lang::Swift | Lang::Dart | Lang::Cpp | Lang::Ruby)
}

/// The names of the methods a call or instantiation of the type `class` runs, in the order
/// they are looked for. PHP's is `__construct` only (a method named `initialize` or `init`
/// there is an ordinary one).
pub fn constructor_names(lang: Lang, class: &str) -> impl Iterator<Item = &str> {
    const ANY: [&str; 6] = ["__init__", "constructor", "init", "initialize", "new", "__construct"];
    let names: &'static [&'static str] = if lang == Lang::Php { &["__construct"] } else { &ANY };
    names.iter().copied().chain((lang != Lang::Php).then_some(class))
}

fn split_segments(s: &str) -> Vec<&str> {
    s.split(['.', '/', ':', '\\']).filter(|x| !x.is_empty()).collect()
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

const KNOWN_EXTS: &[&str] = &[
    "py", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "h", "hpp", "hh", "c", "cc", "cpp", "rb", "php", "dart", "go",
    "rs", "zig", "r", "R", "m", "swift", "kt", "java", "cs", "adb", "ads", "s", "S", "asm",
];

/// Path segments of a file without its extension, plus the variant without an index
/// file name (`pkg/__init__.py` is also `pkg`).
fn file_keys(path: &str) -> Vec<Vec<&str>> {
    let stem = match path.rsplit_once('.') {
        Some((s, ext)) if !ext.contains('/') => s,
        _ => path,
    };
    // MATLAB package (`+pkg`) and class (`@cls`) folders name their module without the sigil.
    let segs: Vec<&str> = stem.split('/').map(|s| s.trim_start_matches(['+', '@'])).collect();
    let mut keys = vec![segs.clone()];
    if let Some(last) = segs.last() {
        if matches!(*last, "__init__" | "index" | "mod" | "lib" | "main") && segs.len() > 1 {
            keys.push(segs[..segs.len() - 1].to_vec());
        }
    }
    // Rust and Dart sources live under src/ or lib/: `tokio/src/sync/mod.rs` is `sync`.
    for k in keys.clone() {
        if let Some(i) = k.iter().rposition(|s| *s == "src" || *s == "lib") {
            if i + 1 < k.len() {
                keys.push(k[i + 1..].to_vec());
            }
        }
    }
    keys
}

impl<'a> Tables<'a> {
    pub fn new(files: &'a [FileRecord]) -> Tables<'a> {
        // Each step's end is logged at debug level (`CC_LOG=cc_graph=debug`).
        let started = std::time::Instant::now();
        let symbols: usize = files.iter().map(|f| f.symbols.len()).sum();
        let mut t = Tables {
            files,
            syms: Vec::with_capacity(symbols),
            by_id: HashMap::with_capacity_and_hasher(symbols, Default::default()),
            name_index: HashMap::with_capacity_and_hasher(symbols / 2, Default::default()),
            qualified_index: HashMap::with_capacity_and_hasher(symbols, Default::default()),
            file_of_path: HashMap::with_capacity_and_hasher(files.len(), Default::default()),
            dir_files: HashMap::default(),
            module_keys: HashMap::default(),
            dir_keys: HashMap::default(),
            imports: Vec::new(),
            base_table: HashMap::default(),
            base_deps: HashMap::default(),
            headers: Vec::new(),
            derived_table: HashMap::default(),
            bindings: Vec::new(),
            method_values: Vec::new(),
            child_table: HashMap::default(),
            default_table: HashMap::default(),
            rust_mod: Vec::new(),
            rust_mod_files: HashMap::default(),
            rust_prefixes: HashSet::default(),
            rust_crates: HashSet::default(),
            impl_table: HashMap::default(),
            impl_looked: HashMap::default(),
            extra_table: HashMap::default(),
            impl_cache: std::sync::Mutex::new(HashMap::default()),
            override_cache: std::sync::Mutex::new(HashMap::default()),
            ada_instances: std::sync::OnceLock::new(),
            include_cache: std::sync::Mutex::new(HashMap::default()),
            made: HashSet::default(),
            flow_state: None,
            mro_table: HashMap::default(),
        };
        for (fi, f) in files.iter().enumerate() {
            let fi = fi as u32;
            t.file_of_path.insert(&f.path, fi);
            t.dir_files.entry(dir_of(&f.path)).or_default().push(fi);
            for key in file_keys(&f.path) {
                if let Some(&last) = key.last() {
                    t.module_keys.entry(last).or_default().push((key, fi));
                }
            }
            for s in &f.symbols {
                let i = t.syms.len() as u32;
                t.by_id.insert(s.id, i);
                // (A Zig test, `test "parseParams" {…}`, is named by its string and called by
                // nothing: no lookup finds it, so that it hides no function of its name.)
                if !(s.lang == Lang::Zig && s.signature.starts_with("test ")) {
                    t.name_index.entry(&s.name).or_default().push(i);
                    t.qualified_index.entry(&s.qualified_name).or_default().push(i);
                }
                t.syms.push(Sym {
                    id: s.id,
                    name: &s.name,
                    qualified: &s.qualified_name,
                    kind: s.kind,
                    lang: s.lang,
                    file: fi,
                    parent: s.parent,
                    signature: &s.signature,
                    name_key: deps::key(Kind::Name, &s.name),
                });
            }
            // Rust: module paths of files and items.
            if f.lang == Lang::Rust {
                let m = f.module.clone();
                let mut prefix = String::new();
                for (i, seg) in m.split("::").enumerate() {
                    if i > 0 {
                        prefix.push_str("::");
                    } else {
                        t.rust_crates.insert(seg.to_string());
                    }
                    prefix.push_str(seg);
                    t.rust_prefixes.insert(prefix.clone());
                }
                for s in &f.symbols {
                    let mut end = 0;
                    while let Some(i) = s.qualified_name[end..].find("::") {
                        end += i;
                        t.rust_prefixes.insert(s.qualified_name[..end].to_string());
                        end += 2;
                    }
                }
                t.rust_mod_files.entry(m.clone()).or_default().push(fi);
                t.rust_mod.push(m);
            } else {
                t.rust_mod.push(String::new());
            }
        }
        tracing::debug!(secs = started.elapsed().as_secs_f64(), "tables: symbols indexed");
        for (i, s) in t.syms.iter().enumerate() {
            if let Some(&p) = s.parent.as_ref().and_then(|p| t.by_id.get(p)) {
                t.child_table.entry(p).or_default().push(i as u32);
            }
        }
        let dirs: Vec<(&str, Vec<u32>)> = t.dir_files.iter().map(|(d, f)| (*d, f.clone())).collect();
        for (d, fs) in dirs {
            let segs: Vec<&str> = d.split('/').filter(|s| !s.is_empty()).collect();
            if let Some(&last) = segs.last() {
                t.dir_keys.entry(last).or_default().push((segs, fs));
            }
        }
        // Each file's imports mapped to files, the files on every core.
        // (Files of a module path, by the path: spring-framework's 89,000 imports name 7,000.)
        let imports: Vec<Vec<Import<'a>>> = files
            .par_iter()
            .enumerate()
            .map_init(ModuleCache::default, |cache, (fi, f)| {
                f.references
                    .kept()
                    .filter(|r| r.kind == RefKind::Import && !is_default_export(r))
                    .map(|r| {
                        let (mut imp, keys) = deps::recorded(|| t.import(fi as u32, r, cache));
                        imp.deps = keys;
                        imp
                    })
                    .collect()
            })
            .collect();
        t.imports = imports;
        tracing::debug!(secs = started.elapsed().as_secs_f64(), "tables: imports mapped");
        for (fi, f) in files.iter().enumerate() {
            if let Some(r) = f.references.kept().rev().find(|r| r.kind == RefKind::Import && is_default_export(r)) {
                t.default_table.insert(fi as u32, &r.name);
            }
        }
        // Rust: `impl Circle` in a module that imports `Circle` from another.
        for i in 0..t.syms.len() as u32 {
            let s = &t.syms[i as usize];
            if s.lang != Lang::Rust || s.kind != SymbolKind::Method || s.parent.is_some() {
                continue;
            }
            let Some((container, _)) = s.qualified.rsplit_once("::") else {
                continue;
            };
            let (found, keys) = deps::recorded(|| {
                let local =
                    t.by_qualified(container).into_iter().flatten().any(|&c| t.syms[c as usize].kind.is_type_like());
                let ty = container.rsplit("::").next().unwrap_or(container);
                if local || !ty.starts_with(|c: char| c.is_uppercase()) {
                    return None;
                }
                t.lookup_name(s.file, None, ty, |x| x.kind.is_type_like())
            });
            t.impl_looked.insert(i, keys.clone());
            if let Some((rung, v)) = found {
                if rung != Rung::Ambiguous && v.len() == 1 {
                    t.impl_table.insert(i, (v[0], keys));
                    t.extra_table.entry(v[0]).or_default().push(i);
                }
            }
        }
        // Each file's typed bindings are read on first use ([`Tables::file_bindings`]): an
        // update reads those of the few files it resolves again.
        t.bindings = files.iter().map(|_| std::sync::OnceLock::new()).collect();
        tracing::debug!(secs = started.elapsed().as_secs_f64(), "tables: bindings read");
        t.made = files.iter().filter(|f| f.lang == Lang::Java).flat_map(|f| made_in(f)).collect();
        t.method_values = files
            .iter()
            .map(|f| {
                let mut m: HashMap<(Option<u32>, &'a str), Vec<&'a Reference>> = HashMap::default();
                if f.lang == Lang::Java {
                    for r in f.references.kept().filter(|r| r.kind == RefKind::Value) {
                        let Some(alias) = r.alias() else { continue };
                        let enclosing = r.enclosing.as_ref().and_then(|e| t.by_id.get(e).copied());
                        m.entry((enclosing, alias)).or_default().push(r);
                    }
                }
                m
            })
            .collect();
        // Base classes: type references in a class's own header, looked up on every core,
        // then taken in the files' order.
        type Found<'a> = (u32, Vec<deps::Key>, &'a str, Option<Vec<u32>>);
        let found_per_file: Vec<Vec<Found<'a>>> = files
            .par_iter()
            .enumerate()
            .map(|(fi, f)| {
                let mut out: Vec<Found<'a>> = Vec::new();
                for r in f.references.kept().filter(|r| r.kind == RefKind::Type) {
                    // A binding types a variable (Kotlin: a primary constructor's parameter,
                    // `class Spec(val name: ClassName)`); it names no base.
                    if r.alias().is_some() && binds(f.lang) {
                        continue;
                    }
                    let Some(&ci) = r.enclosing.as_ref().and_then(|e| t.by_id.get(e)) else {
                        continue;
                    };
                    if !t.syms[ci as usize].kind.is_type_like() {
                        continue;
                    }
                    let cls_span = f.symbols.iter().find(|s| s.id == t.syms[ci as usize].id).map(|s| s.span);
                    let Some(span) = cls_span else { continue };
                    // The class's own header: before its first member starts. A reference
                    // the class encloses from outside its span sits in the header of a scope
                    // standing for it (`impl Trait for Type`).
                    let line = r.span.start_line;
                    let outside = line < span.start_line || line > span.end_line;
                    let first_member = f
                        .symbols
                        .iter()
                        .filter(|s| s.parent == Some(t.syms[ci as usize].id))
                        .map(|s| s.span.start_line)
                        .filter(|&l| l >= span.start_line && l <= span.end_line)
                        .min()
                        .unwrap_or(u32::MAX);
                    // Go: embedded fields and interfaces anywhere in the type's body. Kotlin: a
                    // supertype the header names, however many lines its primary constructor takes
                    // (`class ClassName internal constructor(\n…\n) : TypeName(…)`; the signature is
                    // the whole header).
                    let in_header =
                        f.lang == Lang::Kotlin && has_word(kotlin_supertypes(t.syms[ci as usize].signature), &r.name);
                    if !outside
                        && !in_header
                        && f.lang != Lang::Go
                        && (line > first_member || line > span.start_line + 3)
                    {
                        continue;
                    }
                    // Looked up from where the class is declared: a nested class's base may be a
                    // sibling nested class (`class Token { class Tag {} class StartTag extends Tag
                    // {} }`), which a top-level class of that name does not shadow.
                    let around = t.syms[ci as usize].parent.as_ref().and_then(|p| t.by_id.get(p)).copied();
                    let (found, keys) =
                        deps::recorded(|| match r.receiver.as_deref().filter(|x| strict(f.lang) && !x.is_empty()) {
                            Some(q) => t
                                .type_named(fi as u32, around, Some(q), &r.name, r.span.start_line, 0)
                                .map(|v| (Rung::Import, v)),
                            // (Ruby: a module `include`d is a base too, a mixin.)
                            None => t.lookup_name(fi as u32, around, &r.name, |s| {
                                s.kind.is_type_like() || (f.lang == Lang::Ruby && s.kind == SymbolKind::Module)
                            }),
                        });
                    out.push((ci, keys, &r.name, found.map(|(_, targets)| targets)));
                }
                out
            })
            .collect();
        let mut bases: HashMap<u32, Vec<u32>> = HashMap::default();
        let mut base_deps: HashMap<u32, Vec<deps::Key>> = HashMap::default();
        let mut headers: Vec<Vec<(u32, &'a str)>> = vec![Vec::new(); files.len()];
        for (fi, found) in found_per_file.into_iter().enumerate() {
            for (ci, keys, name, targets) in found {
                base_deps.entry(ci).or_default().extend(keys);
                headers[fi].push((ci, name));
                for b in targets.into_iter().flatten() {
                    if b != ci {
                        bases.entry(ci).or_default().push(b);
                    }
                }
            }
        }
        tracing::debug!(secs = started.elapsed().as_secs_f64(), "tables: bases found");
        let mut derived: HashMap<u32, Vec<u32>> = HashMap::default();
        for (c, v) in bases.iter_mut() {
            // In the order the class names them (Python's method resolution order needs it).
            let mut seen = HashSet::default();
            v.retain(|b| seen.insert(*b));
            for &b in v.iter() {
                derived.entry(b).or_default().push(*c);
            }
        }
        for v in derived.values_mut() {
            v.sort_unstable();
        }
        t.base_table = bases;
        for v in base_deps.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        for h in &mut headers {
            h.sort_unstable();
            h.dedup();
        }
        t.base_deps = base_deps;
        t.headers = headers;
        t.derived_table = derived;
        let multiple: Vec<u32> = t
            .base_table
            .keys()
            .copied()
            .filter(|&c| t.syms[c as usize].lang == Lang::Python && t.has_multiple_bases_above(c))
            .collect();
        let mut memo = HashMap::default();
        for c in multiple {
            if let Some(order) = t.c3(c, &mut memo, 0) {
                t.mro_table.insert(c, order);
            }
        }
        if files.iter().any(|f| flows(f.lang)) {
            t.flow_state = Some(t.solve_flow());
        }
        t
    }

    // Reads of the tables, each noting the key it is under (see [`deps`]): a position of
    // another file is reached through a key that file provides.

    fn note_sym(&self, i: u32) {
        deps::note(self.syms[i as usize].name_key);
    }

    fn note_syms(&self, v: &[u32]) {
        for &i in v {
            self.note_sym(i);
        }
    }

    /// Notes the members of `c` (whatever file defines them) as read.
    fn note_members(&self, c: u32) {
        deps::note_str(Kind::Members, self.syms[c as usize].name);
    }

    fn note_file(&self, f: u32) {
        deps::note_str(Kind::File, &self.files[f as usize].path);
    }

    /// The symbols named `name`.
    pub(crate) fn by_name(&self, name: &str) -> Option<&[u32]> {
        deps::note_str(Kind::Name, name);
        self.name_index.get(name).map(|v| &v[..])
    }

    /// The symbols whose qualified name is `qualified`.
    pub(crate) fn by_qualified(&self, qualified: &str) -> Option<&[u32]> {
        deps::note_str(Kind::Qualified, qualified);
        self.qualified_index.get(qualified).map(|v| &v[..])
    }

    /// The direct bases of class `c`, in the order its header names them.
    pub(crate) fn bases(&self, c: &u32) -> Option<&Vec<u32>> {
        self.note_sym(*c);
        if let Some(k) = self.base_deps.get(c) {
            deps::replay(k);
        }
        let v = self.base_table.get(c);
        if let Some(v) = v {
            self.note_syms(v);
        }
        v
    }

    /// The direct subclasses and implementations of `c`.
    fn derived(&self, c: &u32) -> Option<&Vec<u32>> {
        self.note_sym(*c);
        let v = self.derived_table.get(c);
        if let Some(v) = v {
            self.note_syms(v);
        }
        v
    }

    /// The symbols whose parent `p` is (in its file).
    fn children(&self, p: &u32) -> Option<&Vec<u32>> {
        self.note_members(*p);
        self.child_table.get(p)
    }

    /// Rust: the methods of `impl`s of type `c` in other modules than its own.
    fn extra_members(&self, c: &u32) -> Option<&Vec<u32>> {
        self.note_members(*c);
        let v = self.extra_table.get(c);
        if let Some(v) = v {
            self.note_syms(v);
        }
        v
    }

    /// Rust: the type whose `impl` in another module method `m` is in.
    fn impl_of(&self, m: &u32) -> Option<&u32> {
        self.note_sym(*m);
        let (c, keys) = self.impl_table.get(m)?;
        deps::replay(keys);
        self.note_sym(*c);
        Some(c)
    }

    /// Python: the method resolution order of `c`, when it has several bases above it.
    fn mro(&self, c: &u32) -> Option<&Vec<u32>> {
        self.note_sym(*c);
        let v = self.mro_table.get(c)?;
        for x in v {
            self.note_sym(*x);
            if let Some(k) = self.base_deps.get(x) {
                deps::replay(k);
            }
        }
        Some(v)
    }

    /// The name file `f` exports as its default.
    fn default_exports(&self, f: &u32) -> Option<&&'a str> {
        self.note_file(*f);
        self.default_table.get(f)
    }

    /// File `f`'s imports, noted as read (their files are found by path; what a lookup
    /// in them finds, it notes itself).
    fn imports_of(&self, f: u32) -> &[Import<'a>] {
        self.note_file(f);
        &self.imports[f as usize]
    }

    /// File `f`'s typed bindings and their index by variable, read from its references on
    /// first use (they read only the symbols: no key is noted).
    fn file_bindings(&self, f: u32) -> &FileBindings<'a> {
        self.bindings[f as usize].get_or_init(|| self.bindings_in(&self.files[f as usize]))
    }

    fn bindings_in(&self, f: &'a FileRecord) -> FileBindings<'a> {
        // `mod = importlib.import_module("a.b")` binds `mod` as an import, which the
        // call's result is: no variable of unknown type to hide it.
        let imported: HashSet<(Option<&SymbolId>, &str)> = f
            .references
            .kept()
            .filter(|r| r.kind == RefKind::Import)
            .filter_map(|r| Some((r.enclosing.as_ref(), r.alias()?)))
            .collect();
        // (Bindings are kept references: a call binds the variable its alias names.)
        let bindings = f
            .references
            .kept()
            .filter(|r| matches!(r.kind, RefKind::Type | RefKind::Call | RefKind::Iteration) && binds(f.lang))
            .filter(|r| {
                imported.is_empty()
                    || r.kind != RefKind::Call
                    || !r.alias().is_some_and(|a| imported.contains(&(r.enclosing.as_ref(), a)))
            })
            .filter_map(|r| {
                let alias = r.alias()?;
                let (alias, elements) = match alias.strip_suffix("[]") {
                    Some(a) => (a, true),
                    None => (alias, false),
                };
                // A type test's branch: the binding holds to the end of the branch.
                let (alias, until) = match alias.strip_suffix('?') {
                    Some(a) => (a, Some(r.span.end_line)),
                    None => (alias, None),
                };
                let mut enclosing = r.enclosing.as_ref().and_then(|e| self.by_id.get(e).copied());
                // `static final Point ORIGIN = …`, `var cfg = load()`: the variable is
                // the definition itself; it is visible where that is.
                if let Some(e) = enclosing {
                    let es = &self.syms[e as usize];
                    if es.name == alias
                        && matches!(es.kind, SymbolKind::Constant | SymbolKind::Variable | SymbolKind::Field)
                    {
                        enclosing = es.parent.and_then(|p| self.by_id.get(&p).copied());
                    }
                }
                Some(Binding {
                    alias,
                    enclosing,
                    name: &r.name,
                    receiver: r.receiver.as_deref().filter(|x| !x.trim().is_empty()),
                    line: r.span.start_line,
                    call: r.kind == RefKind::Call,
                    args: r.arg_count(),
                    elements,
                    element_of: r.kind == RefKind::Iteration,
                    until,
                    type_args: (r.kind == RefKind::Type).then(|| r.arg_types()).flatten(),
                })
            })
            .collect::<Vec<Binding<'_>>>();
        let mut index: HashMap<&str, Vec<usize>> = HashMap::default();
        for (i, b) in bindings.iter().enumerate() {
            index.entry(b.alias).or_default().push(i);
        }
        (bindings, index)
    }

    /// File `f`'s typed bindings and their index by variable.
    fn bindings_of(&self, f: u32) -> (&[Binding<'a>], &HashMap<&'a str, Vec<usize>>) {
        self.note_file(f);
        let (b, index) = self.file_bindings(f);
        (b, index)
    }

    /// Rust: whether `p` is a module path or an item path's prefix.
    fn rust_prefix(&self, p: &str) -> bool {
        deps::note_str(Kind::Prefix, p);
        self.rust_prefixes.contains(p)
    }

    /// Python's value flow.
    pub(crate) fn flow(&self) -> Option<&flow::Flow<'a>> {
        deps::note(deps::FLOW);
        self.flow_state.as_ref()
    }

    /// The keys file `fi` provides, each with a fingerprint of what the file gives a lookup
    /// under it (sorted by key): an update compares them before and after a change, and a
    /// key whose fingerprint changed is one a lookup could now find otherwise.
    ///
    /// A symbol counts under its name and its qualified name (all a lookup reads of it: its
    /// id, names, kind, language, parent and signature, not its place in the file) and under
    /// its container's name (the members of a type, a Rust `impl` of another module's
    /// type among them, with the type it was found to be of); a class's bases (the names its header gives, the classes they
    /// resolved to) under its own name and theirs; an import under the names it binds; the
    /// file's own tables (imports, bindings, default export) and a Python file's part of
    /// the value flow under its content; a Rust path prefix by being there.
    pub(crate) fn provided(&self, fi: u32) -> Vec<(deps::Key, u32)> {
        use std::hash::{Hash, Hasher};
        let f = &self.files[fi as usize];
        let content = u32::from_le_bytes([f.hash[0], f.hash[1], f.hash[2], f.hash[3]]);
        let mut items: Vec<(deps::Key, u64)> = vec![(deps::key(Kind::File, &f.path), content as u64)];
        let item = |x: &dyn Fn(&mut rustc_hash::FxHasher)| {
            let mut h = rustc_hash::FxHasher::default();
            x(&mut h);
            h.finish()
        };
        for s in &f.symbols {
            let h = item(&|h| {
                (s.id, &s.name, &s.qualified_name, s.kind as u8, s.lang as u8, s.parent, &s.signature).hash(h)
            });
            items.push((deps::key(Kind::Name, &s.name), h));
            items.push((deps::key(Kind::Qualified, &s.qualified_name), h));
            // (Ada: an instance is what its generic's formals are looked up through.)
            if s.lang == Lang::Ada {
                if let Some(g) = ada_generic_of(&s.signature) {
                    items.push((deps::key(Kind::Made, &g.rsplit('.').next().unwrap_or(g).to_ascii_lowercase()), h));
                }
            }
            let sep = s.lang.spec().qualifier;
            if let Some((container, _)) = s.qualified_name.rsplit_once(sep) {
                let members = deps::key(Kind::Members, container.rsplit(sep).next().unwrap_or(container));
                items.push((members, h));
                // The type an `impl` in another module is of (the file's imports decide it).
                if let Some((c, _)) = self.by_id.get(&s.id).and_then(|p| self.impl_table.get(p)) {
                    items.push((members, item(&|h| (s.id, self.syms[*c as usize].id).hash(h))));
                }
            }
            if s.lang == Lang::Rust {
                let mut end = 0;
                while let Some(i) = s.qualified_name[end..].find("::") {
                    end += i;
                    items.push((deps::key(Kind::Prefix, &s.qualified_name[..end]), 0));
                    end += 2;
                }
            }
        }
        for r in f.references.kept().filter(|r| r.kind == RefKind::Import) {
            let h = item(&|h| (&r.name, r.alias(), r.module()).hash(h));
            for n in import_names(r) {
                items.push((deps::key(Kind::Name, n), h));
            }
        }
        for &(c, name) in &self.headers[fi as usize] {
            let cs = &self.syms[c as usize];
            let h = item(&|h| (cs.id, name).hash(h));
            items.push((deps::key(Kind::Name, name), h));
            items.push((deps::key(Kind::Name, cs.name), h));
            for &b in self.base_table.get(&c).into_iter().flatten() {
                let bs = &self.syms[b as usize];
                let h = item(&|h| (cs.id, bs.id).hash(h));
                items.push((deps::key(Kind::Name, bs.name), h));
                items.push((deps::key(Kind::Name, cs.name), h));
            }
        }
        if f.lang == Lang::Java {
            items.extend(made_in(f).map(|n| (deps::key(Kind::Made, n), 0)));
        }
        if flows(f.lang) {
            items.push((deps::FLOW, content as u64));
        }
        items.sort_unstable();
        items.dedup();
        // One fingerprint per key, whatever the order its items came in.
        let mut out: Vec<(deps::Key, u32)> = Vec::new();
        let mut sum = 0u64;
        for (i, &(k, h)) in items.iter().enumerate() {
            sum = sum.wrapping_add(h.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            if items.get(i + 1).is_none_or(|n| n.0 != k) {
                out.push((k, (sum >> 32) as u32 ^ sum as u32));
                sum = 0;
            }
        }
        out
    }

    /// Whether what file `fi` provides ([`Tables::provided`]) can differ from what it
    /// provided before a change that changed the fingerprints of `changed`, its content the
    /// same and no file added or deleted. Only the bases of the classes its headers name can
    /// (what their lookups found, which noted their keys, and which headers name the class:
    /// another file's `impl Trait for Type` too, which that file provides under the class's
    /// name), and what its Rust `impl`s of other modules' types were found to be of (those
    /// lookups noted their keys too).
    pub(crate) fn provided_may_change(&self, fi: u32, changed: &HashSet<deps::Key>) -> bool {
        let hit = |keys: &Vec<deps::Key>| keys.iter().any(|k| *k == deps::ANY || changed.contains(k));
        let f = &self.files[fi as usize];
        self.headers[fi as usize]
            .iter()
            .any(|(c, _)| changed.contains(&self.syms[*c as usize].name_key) || self.base_deps.get(c).is_some_and(hit))
            || (f.lang == Lang::Rust
                && f.symbols
                    .iter()
                    .any(|s| self.by_id.get(&s.id).and_then(|i| self.impl_looked.get(i)).is_some_and(hit)))
    }

    fn has_multiple_bases_above(&self, c: u32) -> bool {
        let mut stack = vec![c];
        let mut seen = HashSet::default();
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            let b = self.bases(&x).map_or(&[][..], Vec::as_slice);
            if b.len() > 1 {
                return true;
            }
            stack.extend(b.iter().copied());
        }
        false
    }

    /// Python's C3 linearization of `c` (`None` when the hierarchy has none).
    fn c3(&self, c: u32, memo: &mut HashMap<u32, Option<Vec<u32>>>, depth: u8) -> Option<Vec<u32>> {
        if depth > 32 {
            return None;
        }
        if let Some(v) = memo.get(&c) {
            return v.clone();
        }
        let bases = self.bases(&c).cloned().unwrap_or_default();
        let mut seqs: Vec<Vec<u32>> = Vec::with_capacity(bases.len() + 1);
        for &b in &bases {
            seqs.push(self.c3(b, memo, depth + 1)?);
        }
        seqs.push(bases);
        let mut out = vec![c];
        let result = loop {
            seqs.retain(|s| !s.is_empty());
            if seqs.is_empty() {
                break Some(out);
            }
            let Some(head) = seqs.iter().map(|s| s[0]).find(|&h| !seqs.iter().any(|s| s[1..].contains(&h))) else {
                break None;
            };
            out.push(head);
            for s in &mut seqs {
                if s[0] == head {
                    s.remove(0);
                }
            }
        };
        memo.insert(c, result.clone());
        result
    }

    fn lang_of(&self, file: u32) -> Lang {
        self.files[file as usize].lang
    }

    fn import(&self, file: u32, r: &'a Reference, cache: &mut ModuleCache) -> Import<'a> {
        let lang = self.lang_of(file);
        let module: &'a str = r.module().unwrap_or(&r.name);
        // (A Go import is always of a whole package; its path may have been rewritten to the
        // package's folder, see `cc_indexer::imports`.)
        let whole = r.module().is_none() || r.name == module || lang == Lang::Go;
        let member = if whole { None } else { Some(r.name.as_str()) };
        let binding = match (r.alias(), member) {
            (Some(a), _) => a.to_string(),
            (None, Some(m)) => split_segments(m).last().copied().unwrap_or(m).to_string(),
            (None, None) => {
                let segs = split_segments(module);
                let pick = if lang == Lang::Python { segs.first() } else { segs.last() };
                let b = pick.copied().unwrap_or(module);
                b.rsplit_once('.').filter(|(_, e)| KNOWN_EXTS.contains(e)).map_or(b, |(s, _)| s).to_string()
            }
        };
        let mut files = self.module_files_cached(file, module, cache);
        // `from pkg import mod`, `use crate::net::http`: a member that is a module.
        if let Some(m) = member.filter(|m| *m != "*") {
            if matches!(lang, Lang::Python | Lang::Rust) && self.top_level_in(&files, m, &|_| true).is_empty() {
                let sub = match lang {
                    Lang::Rust => format!("{module}::{m}"),
                    _ if module.ends_with('.') => format!("{module}{m}"),
                    _ => format!("{module}.{m}"),
                };
                let sub_files = self.module_files_cached(file, &sub, cache);
                // (`module_files` falls back to the module a name is in: that is no submodule.
                // A namespace package, a folder without `__init__.py`, is its files: one of
                // them may be the submodule itself.)
                let named = |f: &u32| {
                    file_keys(&self.files[*f as usize].path).iter().any(|k| k.last().is_some_and(|l| *l == m))
                };
                let namespace = lang == Lang::Python && sub_files.iter().all(named);
                if !sub_files.is_empty() && (sub_files != files || namespace) {
                    files = sub_files;
                    return Import { binding, files, member: None, module: sub, deps: Vec::new() };
                }
            }
        }
        Import { binding, files, member, module: module.to_string(), deps: Vec::new() }
    }

    /// [`Tables::module_files`], kept in `cache` for a module path whose files do not depend
    /// on the importing file's place (not relative, not C's, C++'s or Go's).
    fn module_files_cached(&self, from: u32, module: &str, cache: &mut ModuleCache) -> Vec<u32> {
        if module_path(module).starts_with('.') || matches!(self.lang_of(from), Lang::C | Lang::Cpp | Lang::Go) {
            return self.module_files(from, module);
        }
        if let Some(files) = cache.get(module) {
            return files.clone();
        }
        let files = self.module_files(from, module);
        cache.insert(module.to_string(), files.clone());
        files
    }

    /// Files a module string names, relative to the importing file where it is relative.
    fn module_files(&self, from: u32, module: &str) -> Vec<u32> {
        let from_path = &self.files[from as usize].path;
        let m = module_path(module);
        let mut base: Vec<&str> = dir_of(from_path).split('/').filter(|s| !s.is_empty()).collect();
        // C and C++: `#include "log.h"` is the file of that name beside the including one,
        // else one whose path ends with it (an include folder), and the sources of its stem
        // beside it (`log.c`, which defines what it declares); never another folder's `log.*`.
        if matches!(self.lang_of(from), Lang::C | Lang::Cpp) && m.contains('.') {
            let mut parts = base.clone();
            for part in m.split('/') {
                match part {
                    "." | "" => {}
                    ".." => {
                        parts.pop();
                    }
                    p => parts.push(p),
                }
            }
            let name = m.rsplit('/').next().unwrap_or(m);
            let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
            let mut headers: Vec<u32> = match self.file_of_path.get(parts.join("/").as_str()) {
                Some(&f) => vec![f],
                None => {
                    let tail = format!("/{}", m.trim_start_matches("./"));
                    self.module_keys
                        .get(stem)
                        .into_iter()
                        .flatten()
                        .map(|(_, f)| *f)
                        .filter(|&f| {
                            let p = &self.files[f as usize].path;
                            p.ends_with(&tail) || p == m
                        })
                        .collect()
                }
            };
            let sources: Vec<u32> = headers
                .iter()
                .flat_map(|&h| self.dir_files.get(dir_of(&self.files[h as usize].path)).into_iter().flatten())
                .copied()
                .filter(|&f| {
                    let p = &self.files[f as usize].path;
                    let file_name = p.rsplit('/').next().unwrap_or(p);
                    file_name.rsplit_once('.').is_some_and(|(s, _)| s == stem) && !c_header(p)
                })
                .collect();
            headers.extend(sources);
            headers.sort_unstable();
            headers.dedup();
            return headers;
        }
        let relative = m.starts_with('.');
        // Go: a path the import map rewrote (a module of the repository holds it) is exactly
        // the folder it names, relative to the importing file's.
        if self.lang_of(from) == Lang::Go && relative {
            for part in m.split('/') {
                match part {
                    "." | "" => {}
                    ".." => {
                        if base.pop().is_none() {
                            return Vec::new();
                        }
                    }
                    p => base.push(p),
                }
            }
            let dir = base.join("/");
            return self
                .dir_files
                .get(dir.as_str())
                .into_iter()
                .flatten()
                .copied()
                .filter(|&f| self.lang_of(f) == Lang::Go)
                .collect();
        }
        // Go, otherwise: an import path names a directory; the module path before it is not
        // part of the repository's paths (`example.com/app/util` is `util/`, matched by its
        // longest suffix).
        if self.lang_of(from) == Lang::Go && !relative {
            let segs: Vec<&str> = m.split('/').filter(|s| !s.is_empty()).collect();
            if segs.first().is_some_and(|s| GO_STD.contains(s)) {
                return Vec::new();
            }
            for k in 0..segs.len() {
                let suffix = &segs[k..];
                let Some(last) = suffix.last() else { break };
                let mut out: Vec<u32> = self
                    .dir_keys
                    .get(*last)
                    .into_iter()
                    .flatten()
                    .filter(|(key, _)| key.len() >= suffix.len() && key[key.len() - suffix.len()..] == *suffix)
                    .flat_map(|(_, fs)| fs.iter().copied())
                    .filter(|&f| self.lang_of(f) == Lang::Go)
                    .collect();
                if !out.is_empty() {
                    out.sort_unstable();
                    out.dedup();
                    return out;
                }
            }
            return Vec::new();
        }
        let mut segs: Vec<&str> = Vec::new();
        if relative && (m.starts_with("./") || m.starts_with("../") || m == "." || m == "..") {
            for part in m.split('/') {
                match part {
                    "." | "" => {}
                    ".." => {
                        base.pop();
                    }
                    p => segs.push(p),
                }
            }
        } else if relative {
            // Python: `.mod` is a sibling, `..mod` the parent package's.
            let dots = m.chars().take_while(|&c| c == '.').count();
            for _ in 1..dots {
                base.pop();
            }
            segs = split_segments(&m[dots..]);
        } else {
            segs = split_segments(m);
            while segs.first().is_some_and(|s| matches!(*s, "crate" | "self" | "super" | "@")) {
                segs.remove(0);
            }
        }
        if let Some(last) = segs.last_mut() {
            if let Some((stem, ext)) = last.rsplit_once('.') {
                if KNOWN_EXTS.contains(&ext) {
                    *last = stem;
                }
            }
        }
        let full: Vec<&str> = if relative { base.iter().chain(segs.iter()).copied().collect() } else { segs };
        let Some(last) = full.last() else {
            return Vec::new();
        };
        let ends_with = |key: &[&str]| key.len() >= full.len() && key[key.len() - full.len()..] == full[..];
        let exact = |key: &[&str]| key == &full[..];
        let mut out: Vec<u32> = self
            .module_keys
            .get(last)
            .into_iter()
            .flatten()
            .filter(|(k, _)| if relative { exact(k) } else { ends_with(k) })
            .map(|(_, f)| *f)
            .collect();
        if out.is_empty() {
            out = self
                .dir_keys
                .get(last)
                .into_iter()
                .flatten()
                .filter(|(k, _)| if relative { exact(k) } else { ends_with(k) })
                .flat_map(|(_, fs)| fs.iter().copied())
                .collect();
        }
        // `import a.b.C` (Java, Kotlin, Python `from a.b import C` handled elsewhere): the
        // module is a file when the last segment is a type in it.
        if out.is_empty() && full.len() > 1 {
            let parent = &full[..full.len() - 1];
            if let Some(plast) = parent.last() {
                out = self
                    .module_keys
                    .get(plast)
                    .into_iter()
                    .flatten()
                    .filter(|(k, _)| k.len() >= parent.len() && k[k.len() - parent.len()..] == parent[..])
                    .map(|(_, f)| *f)
                    .collect();
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn class_of(&self, sym: u32) -> Option<u32> {
        let mut cur = Some(sym);
        while let Some(c) = cur {
            let s = &self.syms[c as usize];
            // (Ruby: a module's methods are its includers' methods; `self.m` in one reaches the
            // module's `m`, as a class's does.)
            if s.kind.is_type_like()
                || (c != sym && zig_type_function(s))
                || (c != sym && s.lang == Lang::Ruby && s.kind == SymbolKind::Module)
            {
                return Some(c);
            }
            // Members of a scope that is not a symbol here (a Rust impl block; C++'s
            // `void Db::Get() {…}` in `namespace leveldb {…}`, whose parent is the namespace):
            // by qualified name.
            let parent = s.parent.and_then(|p| self.by_id.get(&p).copied());
            let sep = s.lang.spec().qualifier;
            let container = s.qualified.rsplit_once(sep).map(|(c, _)| c);
            if s.parent.is_none() || parent.is_some_and(|p| Some(self.syms[p as usize].qualified) != container) {
                if s.parent.is_none() {
                    if let Some(&c) = self.impl_of(&c) {
                        return Some(c);
                    }
                }
                let found = container.and_then(|container| {
                    self.by_qualified(container)
                        .into_iter()
                        .flatten()
                        .copied()
                        .find(|&i| self.syms[i as usize].kind.is_type_like())
                });
                if found.is_some() || s.parent.is_none() {
                    return found;
                }
            }
            cur = parent;
        }
        None
    }

    /// The symbols whose qualified name is `container`, `sep`, `name`. The key is built
    /// in a buffer each thread reuses: the resolver asks this on every scope and
    /// base-class hop, and a fresh string per ask was 1.6% of spring-framework's run.
    /// Ada: the packages a package name written inside `enclosing` may denote, nearest first:
    /// the name inside each unit around (`Co_Defs` in `HAC_Sys.Parser` is `HAC_Sys.Parser.Co_Defs`
    /// or `HAC_Sys.Co_Defs`: a parent's children are visible by their own names), then the
    /// name as written.
    fn ada_scoped(&self, enclosing: Option<u32>, package: &str) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(e) = enclosing {
            let q = self.syms[e as usize].qualified;
            let mut end = q.len();
            loop {
                out.push(format!("{}.{package}", &q[..end]));
                match q[..end].rfind('.') {
                    Some(i) => end = i,
                    None => break,
                }
            }
        }
        out.push(package.to_string());
        out
    }

    fn qualified_member(&self, container: &str, sep: &str, name: &str) -> &[u32] {
        thread_local! {
            static KEY: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        KEY.with_borrow_mut(|key| {
            key.clear();
            key.push_str(container);
            key.push_str(sep);
            key.push_str(name);
            self.by_qualified(key.as_str()).unwrap_or_default()
        })
    }

    /// Members named `name` of `class`, then of its bases (breadth-first; Python: in the
    /// method resolution order).
    fn member(&self, class: u32, name: &str, include_self: bool) -> Vec<u32> {
        if let Some(order) = self.mro(&class) {
            for &c in order.iter().skip(usize::from(!include_self)) {
                let found = self.own_member(c, name);
                if !found.is_empty() {
                    return found;
                }
            }
            return Vec::new();
        }
        // A class, its traits and its superclasses before any interface: a method they
        // declare is the one that runs, not an interface's declaration of it (PHP's `use
        // SomeTrait`, written after `implements SomeInterface`; Java's superclass of a
        // superclass before a superinterface). The interfaces wait in `later`.
        let deferred = classes_first(self.syms[class as usize].lang);
        let mut queue = std::collections::VecDeque::new();
        let mut later = std::collections::VecDeque::new();
        let push =
            |b: u32, queue: &mut std::collections::VecDeque<u32>, later: &mut std::collections::VecDeque<u32>| {
                if deferred && self.syms[b as usize].kind == SymbolKind::Interface {
                    later.push_back(b);
                } else {
                    queue.push_back(b);
                }
            };
        let mut seen = HashSet::default();
        if include_self {
            queue.push_back(class);
        } else {
            for &b in self.bases(&class).into_iter().flatten() {
                push(b, &mut queue, &mut later);
            }
        }
        loop {
            let Some(c) = queue.pop_front().or_else(|| later.pop_front()) else { break };
            if !seen.insert(c) {
                continue;
            }
            let found = self.own_member(c, name);
            if !found.is_empty() {
                return found;
            }
            for &b in self.bases(&c).into_iter().flatten() {
                push(b, &mut queue, &mut later);
            }
        }
        Vec::new()
    }

    /// Ruby: the members named `name` of the class or module the constant path `path` names
    /// where the code around `enclosing` writes it (`Module.nesting` outwards, then the top
    /// level; `::X` the top level's only); `None` when it names none of the repository's.
    fn ruby_constant_member(
        &self,
        enclosing: Option<u32>,
        path: &str,
        name: &str,
        filter: &dyn Fn(Vec<u32>) -> Vec<u32>,
    ) -> Option<Vec<u32>> {
        let mut prefixes: Vec<&str> = Vec::new();
        if !path.starts_with("::") {
            let mut cur = enclosing;
            while let Some(e) = cur {
                let s = &self.syms[e as usize];
                if s.kind.is_type_like() || s.kind == SymbolKind::Module {
                    prefixes.push(s.qualified);
                }
                cur = s.parent.and_then(|p| self.by_id.get(&p).copied());
            }
        }
        let path = path.trim_start_matches("::");
        let candidates = prefixes.into_iter().map(|p| format!("{p}::{path}")).chain(std::iter::once(path.to_string()));
        for q in candidates {
            let owners: Vec<u32> = self
                .by_qualified(&q)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&c| {
                    let s = &self.syms[c as usize];
                    s.kind.is_type_like() || s.kind == SymbolKind::Module
                })
                .collect();
            if owners.is_empty() {
                continue;
            }
            let mut found: Vec<u32> = owners.iter().flat_map(|&c| filter(self.member(c, name, true))).collect();
            found.sort_unstable();
            found.dedup();
            return (!found.is_empty()).then_some(found);
        }
        None
    }

    /// The symbols named `name` in the namespace `base` and then `rest` spell, joined by
    /// `lang`'s qualifier (`mylib::text` + `trim`).
    fn member_under(&self, lang: Lang, mut base: String, rest: &[&str], name: &str) -> Vec<u32> {
        let sep = lang.spec().qualifier;
        for s in rest {
            base.push_str(sep);
            base.push_str(s);
        }
        self.qualified_member(&base, sep, name).to_vec()
    }

    /// Members named `name` that `c` itself defines.
    fn own_member(&self, c: u32, name: &str) -> Vec<u32> {
        let cs = &self.syms[c as usize];
        // TypeScript names carry no module: `ZodType.parse` of another file is
        // another class's member.
        let same_file = matches!(cs.lang, Lang::TypeScript | Lang::Tsx);
        let found: Vec<u32> = self
            .qualified_member(cs.qualified, cs.lang.spec().qualifier, name)
            .iter()
            .copied()
            .filter(|&i| !same_file || self.syms[i as usize].file == cs.file)
            .collect();
        // (Only Rust has members elsewhere, in `impl`s of other modules: another language's
        // miss reads nothing more, and notes no key of the type's members, which every member
        // added to the type would change.)
        if !found.is_empty() || cs.lang != Lang::Rust {
            return found;
        }
        self.extra_members(&c).into_iter().flatten().copied().filter(|&i| self.syms[i as usize].name == name).collect()
    }

    /// The classes below `class`: its subclasses and implementations at any depth (at most
    /// 256).
    fn subclasses(&self, class: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut queue: Vec<u32> = self.derived(&class).cloned().unwrap_or_default();
        let mut seen = HashSet::default();
        while let Some(c) = queue.pop() {
            if !seen.insert(c) || seen.len() > 256 {
                continue;
            }
            out.push(c);
            queue.extend(self.derived(&c).into_iter().flatten().copied());
        }
        out
    }

    /// The methods named `name` that subclasses of `class` (at any depth) define: what
    /// `self.name()` in `class` dispatches to when `class` and its bases have none.
    fn subclass_members(&self, class: u32, name: &str) -> Vec<u32> {
        let mut out: Vec<u32> = self
            .subclasses(class)
            .into_iter()
            .flat_map(|c| self.own_member(c, name))
            .filter(|&m| self.syms[m as usize].kind.is_callable())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn top_level_in(&self, files: &[u32], name: &str, ok: &dyn Fn(&Sym<'_>) -> bool) -> Vec<u32> {
        self.by_name(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| {
                let s = &self.syms[i as usize];
                files.contains(&s.file) && ok(s)
            })
            .collect()
    }

    /// Symbols named `name` that the module made of `files` provides: its own top-level
    /// ones, or (strict languages) what it re-exports (`export {f} from`, `pub use`,
    /// `from .core import f` in a package's `__init__`, `export * from`).
    fn exported(&self, files: &[u32], name: &str, ok: &dyn Fn(&Sym<'_>) -> bool, depth: u8) -> Vec<u32> {
        let mut found = self.top_level_in(files, name, ok);
        // An ES module exports its top-level declarations only: `import { defineProperty }`
        // is never the method of an object literal (`traps = { defineProperty() {} }`). A Go
        // package's members are its functions, types, variables and constants: `toml.Decode`
        // is never the method `(*Decoder).Decode`, declared at the top level too.
        found.retain(|&i| {
            let s = &self.syms[i as usize];
            match s.lang {
                Lang::TypeScript | Lang::Tsx | Lang::JavaScript => s.parent.is_none(),
                Lang::Go => s.kind != SymbolKind::Method,
                _ => true,
            }
        });
        if !found.is_empty() || depth >= 3 {
            return found;
        }
        let mut out = Vec::new();
        for &f in files {
            if !strict(self.lang_of(f)) {
                continue;
            }
            for imp in self.imports_of(f) {
                if imp.files.is_empty() || imp.files == files {
                    continue;
                }
                match imp.member {
                    Some("*") => out.extend(self.exported(imp.used(), name, ok, depth + 1)),
                    Some(m) if imp.binding == name => {
                        imp.used();
                        let m = split_segments(m).last().copied().unwrap_or(m);
                        out.extend(self.exported(&imp.files, m, ok, depth + 1));
                    }
                    _ => {}
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether `name` is a parameter or a typed local of a function around `enclosing`
    /// (then it is no module-level symbol).
    fn shadowed(&self, file: u32, enclosing: Option<u32>, name: &str) -> bool {
        let mut cur = enclosing;
        while let Some(e) = cur {
            let es = &self.syms[e as usize];
            let (bindings, index) = self.file_bindings(file);
            if es.kind.is_callable()
                && (index.get(name).into_iter().flatten().any(|&i| bindings[i].enclosing == Some(e))
                    || param_names(es.lang, es.signature).iter().any(|p| p == name))
            {
                return true;
            }
            cur = es.parent.and_then(|p| self.by_id.get(&p).copied());
        }
        false
    }

    /// C and C++: whether `s` is a macro that renames (`#define adler32 z_adler32`, `#define
    /// gzopen gzopen64`: the new name holds the old one) a name some function of a source
    /// file has. (`#define zmemcpy memcpy` puts another function in a function's place, where
    /// the function is not compiled: the macro stands.)
    fn renames_a_function(&self, s: &Sym<'_>) -> bool {
        s.kind == SymbolKind::Macro
            && s.signature
                .strip_prefix('#')
                .and_then(|d| d.trim_start().strip_prefix("define"))
                .map(str::trim)
                .and_then(|rest| rest.strip_prefix(s.name))
                .map(str::trim)
                .is_some_and(|body| is_ident(body) && body != s.name && body.contains(s.name))
            && self.by_name(s.name).into_iter().flatten().any(|&i| {
                let f = &self.syms[i as usize];
                f.kind == SymbolKind::Function
                    && compatible(f.lang, s.lang)
                    && !c_header(&self.files[f.file as usize].path)
            })
    }

    /// C and C++: whether `s` is a `static` function defined in a source file (not a header)
    /// other than `file`, where nothing of `file` can call it.
    fn static_elsewhere(&self, s: &Sym<'_>, file: u32) -> bool {
        s.file != file
            && s.kind == SymbolKind::Function
            && s.signature.split(s.name).next().is_some_and(|head| head.split_whitespace().any(|w| w == "static"))
            && !c_header(&self.files[s.file as usize].path)
    }

    /// Resolves a bare name seen in `file` inside `enclosing` (rungs 2–6).
    fn lookup_name(
        &self,
        file: u32,
        enclosing: Option<u32>,
        name: &str,
        ok: impl Fn(&Sym<'_>) -> bool,
    ) -> Option<(Rung, Vec<u32>)> {
        let lang = self.lang_of(file);
        let ok_any = &ok as &dyn Fn(&Sym<'_>) -> bool;
        // Past the enclosing class, a bare name cannot mean a method (`area()` in Python
        // never calls `Shape.area`): methods are reached through a receiver or `this`.
        // C and C++: `#define adler32 z_adler32` renames a function where it is in force, the
        // function's definition included, so a call of the name reaches the function.
        let c_like = matches!(lang, Lang::C | Lang::Cpp);
        // A `static` function of another source file is not seen from this one.
        let not_method = |s: &Sym<'_>| {
            s.kind != SymbolKind::Method
                && ok_any(s)
                && !(c_like && (self.renames_a_function(s) || self.static_elsewhere(s, file)))
                && !(lang == Lang::Kotlin && self.private_elsewhere(s, file))
        };
        let ok = &not_method as &dyn Fn(&Sym<'_>) -> bool;
        let same_lang = |s: &Sym<'_>| compatible(s.lang, lang) && ok(s);
        // Kotlin: in an extension function (`fun Raw.int() = convert("INT")`), its receiver's
        // members and the extensions given to its type, before the package's functions and
        // the class around.
        if lang == Lang::Kotlin {
            if let Some(found) = self.kotlin_extension_this(file, enclosing, name, &ok_any) {
                return Some((Rung::Receiver, found));
            }
        }
        // Enclosing scope: children of the enclosing symbol and its ancestors (of a class,
        // where the language scopes them lexically, its nested types only).
        let mut cur = enclosing;
        while let Some(e) = cur {
            let es = &self.syms[e as usize];
            let found: Vec<u32> = if es.kind.is_type_like() {
                // (The classes around a reference are in its own file, which an update
                // resolves whole when it changes: no key to note.)
                // (Zig: a struct's declarations, its functions too, are in scope inside it:
                // `isWordChar(c)` in a method of the struct that declares `isWordChar`.)
                let nested = self.child_table.get(&e).filter(|_| implicit_this(lang) || lang == Lang::Zig);
                nested
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|&i| {
                        let s = &self.syms[i as usize];
                        s.name == name && (s.kind.is_type_like() || lang == Lang::Zig) && ok_any(s)
                    })
                    .collect()
            } else {
                self.qualified_member(es.qualified, es.lang.spec().qualifier, name)
                    .iter()
                    .copied()
                    .filter(|&i| ok_any(&self.syms[i as usize]))
                    // (Kotlin: another file's `private fun` of the package is not seen.)
                    .filter(|&i| lang != Lang::Kotlin || !self.private_elsewhere(&self.syms[i as usize], file))
                    // JavaScript and TypeScript names carry no module: another file's
                    // `outer.inner`.
                    .filter(|&i| {
                        !matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx)
                            || self.syms[i as usize].file == file
                    })
                    .collect()
            };
            if !found.is_empty() {
                return Some((Rung::Scope, found));
            }
            // Kotlin: the implicit receivers, innermost first: a class around's members and its
            // companion object's, before the package's functions (`emit("x")` in `CodeWriter`
            // is `CodeWriter.emit`, not a top-level `emit` extension).
            if lang == Lang::Kotlin && es.kind.is_type_like() {
                let found = self.kotlin_members_and_companion(e, name, ok_any);
                if !found.is_empty() {
                    return Some((Rung::Receiver, found));
                }
            }
            cur = es.parent.and_then(|p| self.by_id.get(&p).copied());
            // Ada: a child unit is as if nested in its parents (`procedure Zip.Compress.Deflate`
            // sees `Zip.Compress`'s declarations, then `Zip`'s).
            if cur.is_none() && lang == Lang::Ada && es.parent.is_none() {
                let mut unit = es.qualified;
                while let Some((parent, _)) = unit.rsplit_once('.') {
                    let found: Vec<u32> = self
                        .qualified_member(parent, ".", name)
                        .iter()
                        .copied()
                        .filter(|&i| same_lang(&self.syms[i as usize]))
                        .collect();
                    if !found.is_empty() {
                        return Some((Rung::Scope, found));
                    }
                    unit = parent;
                }
            }
        }
        // An anonymous function (`<lambda1>`) is named only where it is defined: a child
        // of the enclosing scope (above) or of the file's top level, never another's.
        if name.starts_with("<lambda") {
            let top: Vec<u32> = self
                .by_name(name)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&i| {
                    let s = &self.syms[i as usize];
                    s.file == file && s.parent.is_none() && ok_any(s)
                })
                .collect();
            return (!top.is_empty()).then_some((Rung::SameFile, top));
        }
        // A parameter or local variable of that name hides what the module has.
        if matches!(lang, Lang::Python | Lang::TypeScript | Lang::Tsx | Lang::Go | Lang::Rust)
            && self.shadowed(file, enclosing, name)
        {
            return None;
        }
        if implicit_this(lang) {
            // Members of the enclosing class, then (Java) of the classes around it.
            let mut class = enclosing.and_then(|e| self.class_of(e));
            while let Some(c) = class {
                let found: Vec<u32> =
                    self.member(c, name, true).into_iter().filter(|&i| ok_any(&self.syms[i as usize])).collect();
                if !found.is_empty() {
                    return Some((Rung::Receiver, found));
                }
                if lang != Lang::Java {
                    break;
                }
                class = self.syms[c as usize]
                    .parent
                    .and_then(|p| self.by_id.get(&p).copied())
                    .and_then(|p| self.class_of(p));
            }
        }
        // Top level: no parent, or (Java) only the package declaration around it.
        let top_level = |i: u32| match self.syms[i as usize].parent {
            None => true,
            Some(p) => {
                lang == Lang::Java
                    && self.by_id.get(&p).is_some_and(|&p| self.syms[p as usize].kind == SymbolKind::Module)
            }
        };
        // Same file, top level first.
        let in_file: Vec<u32> = self.top_level_in(&[file], name, ok);
        let top: Vec<u32> = in_file.iter().copied().filter(|&i| top_level(i)).collect();
        if !top.is_empty() {
            return Some((Rung::SameFile, top));
        }
        // Imports by name. JavaScript and Dart: a name imported from outside the repository
        // (`import { join } from "node:path"`, `import 'dart:math' show max`) is that
        // import's, never a same-named function found further down. (Kotlin's and PHP's
        // imports of the repository's own code do not always find their files by path, and
        // fall through to the rungs below.)
        let mut imported_from_outside = false;
        for imp in &self.imports[file as usize] {
            if imp.binding != name {
                continue;
            }
            imp.used();
            imported_from_outside |= imp.files.is_empty() && matches!(lang, Lang::JavaScript | Lang::Dart);
            let member = imp.member.map(|m| split_segments(m).last().copied().unwrap_or(m)).unwrap_or(name);
            if lang == Lang::Rust && imp.member.is_some() {
                let segs: Vec<&str> = imp.module.split("::").map(str::trim).collect();
                if let Some(abs) = self.rust_abs(file, enclosing, &segs, 0) {
                    let found = self.rust_item(&abs, member, &same_lang);
                    if !found.is_empty() {
                        return Some((Rung::Import, found));
                    }
                }
            }
            let found = if strict(lang) {
                self.exported(&imp.files, member, &same_lang, 0)
            } else {
                self.top_level_in(&imp.files, member, &same_lang)
            };
            if !found.is_empty() {
                return Some((Rung::Import, found));
            }
            // (PHP's `use function App\Text\normalize as clean`, Kotlin's `import a.b.f as g`:
            // the member by its qualified name, where the namespace is no path.)
            if let Some(m) = imp.member.filter(|m| *m != "*" && !strict(lang) && !imp.module.is_empty()) {
                let sep = lang.spec().qualifier;
                // (Kotlin's module is the whole path, the member its last segment.)
                let whole = imp.module.strip_suffix(m).is_some_and(|head| head.is_empty() || head.ends_with(sep));
                let by_name = if whole {
                    self.by_qualified(&imp.module).unwrap_or_default()
                } else {
                    self.qualified_member(&imp.module, sep, m)
                };
                let found: Vec<u32> = by_name.iter().copied().filter(|&i| same_lang(&self.syms[i as usize])).collect();
                if !found.is_empty() {
                    return Some((Rung::Import, found));
                }
                // Kotlin and PHP: a name imported from a package the repository does not
                // declare (`import kotlin.math.max`, `use function Illuminate\Support\str`) is
                // that package's, never a same-named function found further down.
                let package =
                    if whole { imp.module.strip_suffix(m).unwrap_or("").trim_end_matches(sep) } else { &imp.module };
                imported_from_outside |= matches!(lang, Lang::Kotlin | Lang::Php)
                    && imp.files.is_empty()
                    && !package.is_empty()
                    && self.by_qualified(package).is_none_or(|v| v.is_empty());
            }
            if strict(lang) || lang == Lang::JavaScript {
                // `import X from "./m"`: the module's default export.
                let default: Vec<u32> = imp
                    .files
                    .iter()
                    .filter_map(|f| {
                        let d = self.default_exports(f)?;
                        Some(self.exported(&[*f], d, &same_lang, 0))
                    })
                    .flatten()
                    .collect();
                if !default.is_empty() {
                    return Some((Rung::Import, default));
                }
                // `import static a.b.C.m`, `from m import Class` used as a value: a member
                // of the class the module's last segment names.
                if lang == Lang::Java {
                    let cls = split_segments(&imp.module).last().copied().unwrap_or("");
                    for c in self.top_level_in(&imp.files, cls, &|s| s.kind.is_type_like()) {
                        let found: Vec<u32> = self
                            .member(c, member, true)
                            .into_iter()
                            .filter(|&i| ok_any(&self.syms[i as usize]))
                            .collect();
                        if !found.is_empty() {
                            return Some((Rung::Import, found));
                        }
                    }
                }
            }
        }
        if imported_from_outside {
            return None;
        }
        // C++: `using namespace xml;` makes `xml::parse` visible as `parse`, `using
        // mylib::text::trim;` that one name (the import's module is the innermost namespace
        // written: a candidate's qualified name ends with it).
        if lang == Lang::Cpp {
            let mut found: Vec<u32> = Vec::new();
            for imp in &self.imports[file as usize] {
                if imp.module.contains(['/', '.', '"', '<']) || imp.member.is_some_and(|m| m != name) {
                    continue;
                }
                imp.used();
                let tail = format!("{}::{name}", imp.module);
                found.extend(self.by_name(name).into_iter().flatten().copied().filter(|&i| {
                    let q = self.syms[i as usize].qualified;
                    same_lang(&self.syms[i as usize])
                        && q.strip_suffix(tail.as_str()).is_some_and(|head| head.is_empty() || head.ends_with("::"))
                }));
            }
            found.sort_unstable();
            found.dedup();
            if !found.is_empty() {
                return Some((Rung::Import, found));
            }
        }
        // MATLAB: in a classdef method, `step(obj)` is the class's method of that name (not a
        // constructor: `obj@Animal(name)` constructs the superclass, below). R: a reference
        // class's method calls its class's methods by their names (`log_change(x)`).
        if matches!(lang, Lang::Matlab | Lang::R) {
            if let Some(c) = enclosing.and_then(|e| self.class_of(e)).filter(|&c| Some(c) != enclosing) {
                let found: Vec<u32> = self
                    .member(c, name, true)
                    .into_iter()
                    .filter(|&i| {
                        ok_any(&self.syms[i as usize])
                            && self.class_of(i).is_none_or(|k| self.syms[k as usize].name != name)
                    })
                    .collect();
                if !found.is_empty() {
                    return Some((Rung::Receiver, found));
                }
            }
        }
        // MATLAB: `import geo.*` makes the package's functions callable by their names,
        // `import geo.circle_area` that one.
        if lang == Lang::Matlab {
            let mut found: Vec<u32> = Vec::new();
            for imp in &self.imports[file as usize] {
                let m = imp.module.trim();
                let pkg = match m.strip_suffix(".*") {
                    Some(p) => p,
                    None => match m.rsplit_once('.') {
                        Some((p, f)) if f == name => p,
                        _ => continue,
                    },
                };
                imp.used();
                found.extend(self.matlab_package_function(pkg, name));
            }
            found.sort_unstable();
            found.dedup();
            if !found.is_empty() {
                return Some((Rung::Import, found));
            }
        }
        // C#: a type of the namespaces around or of a `using`'s namespace, a member of a `using
        // static`'s class.
        if lang == Lang::CSharp {
            let found = self.csharp_scoped(file, enclosing, name, &|s| compatible(s.lang, lang) && ok_any(s));
            if !found.is_empty() {
                return Some((Rung::Import, found));
            }
        }
        // Whole-module imports that bring names into scope: `from m import *`,
        // `use m::*`, Go's `import . "m"`, Java's `import a.b.*`; (other languages) any.
        let star: Vec<u32> = self.imports[file as usize]
            .iter()
            .filter(|i| match lang {
                Lang::Python | Lang::Rust => i.member == Some("*"),
                Lang::Go => i.binding == ".",
                Lang::TypeScript | Lang::Tsx => false,
                _ => i.member.is_none() || i.member == Some("*"),
            })
            .flat_map(|i| i.used().iter().copied())
            .collect();
        if !star.is_empty() {
            let found = if strict(lang) {
                self.exported(&star, name, &same_lang, 0)
            } else {
                self.top_level_in(&star, name, &same_lang)
            };
            if !found.is_empty() {
                return Some((Rung::Import, found));
            }
        }
        // Ada: `use Strings;` makes the package's declarations visible by their own names.
        if lang == Lang::Ada {
            let mut found: Vec<u32> = Vec::new();
            for imp in &self.imports[file as usize] {
                if imp.member.is_none() {
                    imp.used();
                    for package in self.ada_scoped(enclosing, &imp.module) {
                        let v = self.qualified_member(&package, ".", name);
                        if !v.is_empty() {
                            found.extend(v.iter().copied().filter(|&i| same_lang(&self.syms[i as usize])));
                            break;
                        }
                    }
                }
            }
            found.sort_unstable();
            found.dedup();
            if !found.is_empty() {
                return Some((Rung::Import, found));
            }
            // A name a `use`d package from outside the repository (`use Ada.Text_IO;`) may
            // hold is that package's, never a same-named subprogram found further down.
            let outside = self.imports[file as usize].iter().any(|i| {
                i.member.is_none() && i.files.is_empty() && self.by_qualified(&i.module).is_none_or(|v| v.is_empty())
            });
            if outside {
                return None;
            }
        }
        // Same package (directory), MATLAB functions by file name. Python, TypeScript and
        // Rust modules see nothing of their siblings without an import.
        if !matches!(lang, Lang::Python | Lang::TypeScript | Lang::Tsx | Lang::Rust) {
            let path = &self.files[file as usize].path;
            let dir = self.dir_files.get(dir_of(path)).cloned().unwrap_or_default();
            let found: Vec<u32> = self
                .top_level_in(&dir, name, &same_lang)
                .into_iter()
                .filter(|&i| top_level(i))
                .filter(|&i| {
                    lang != Lang::Matlab || !matlab_in_package(&self.files[self.syms[i as usize].file as usize].path)
                })
                .collect();
            if !found.is_empty() {
                return Some((Rung::Package, found));
            }
        }
        if !in_file.is_empty() && (!strict(lang) || lang == Lang::Java) {
            return Some((Rung::SameFile, in_file));
        }
        // Unique global name: not in the strict languages, where a name comes into scope
        // only by the rungs above (but Rust macros are textually global in a crate).
        let global: Vec<u32> = self
            .by_name(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| same_lang(&self.syms[i as usize]))
            .filter(|&i| !strict(lang) || (lang == Lang::Rust && self.syms[i as usize].kind == SymbolKind::Macro))
            // Swift: another module of the package (`Sources/FancyMath/`) is seen only where
            // the file imports it.
            .filter(|&i| lang != Lang::Swift || self.swift_module_visible(file, self.syms[i as usize].file))
            // MATLAB: a package function (`+stats/max.m`) is called by its package's name or
            // through an import, never by its own name alone.
            .filter(|&i| {
                lang != Lang::Matlab || !matlab_in_package(&self.files[self.syms[i as usize].file as usize].path)
            })
            .collect();
        // Rust: a macro only when no function has that name (the reference does not say
        // whether it was `name!(…)` or `name(…)`).
        let global = if lang == Lang::Rust
            && self.by_name(name).into_iter().flatten().any(|&i| {
                let s = &self.syms[i as usize];
                s.lang == Lang::Rust && matches!(s.kind, SymbolKind::Function | SymbolKind::Method)
            }) {
            Vec::new()
        } else {
            global
        };
        match global.len() {
            0 => None,
            1 => Some((Rung::Global, global)),
            n if n <= MAX_CANDIDATES => Some((Rung::Ambiguous, global)),
            _ => None,
        }
    }

    /// Resolves one reference of file `file` (a call, a callback or value, an implicit call).
    pub fn resolve(&self, file: u32, r: &'a Reference) -> Resolution {
        let mut res = self.resolve_ladder(file, r);
        // Java: `Supplier<T> s = obj::m; s.get()` calls `m` (`Foo::new`: Foo's constructor),
        // whatever the functional interface's method is.
        if r.kind == RefKind::Call && self.lang_of(file) == Lang::Java {
            let rcv = r.receiver.as_deref().map(str::trim).unwrap_or_default();
            if is_ident(rcv) {
                let enclosing = r.enclosing.and_then(|e| self.by_id.get(&e).copied());
                let called = self.method_value_targets(file, enclosing, rcv);
                if !called.is_empty() {
                    if res.rung == Rung::External {
                        res = Resolution { targets: smallvec::SmallVec::new(), rung: Rung::Receiver, external: None };
                    }
                    for t in called {
                        if !res.targets.iter().any(|x| x.id == t.id) {
                            res.targets.push(t);
                        }
                    }
                }
            }
        }
        // Rust: the arm of a `macro_rules!` the invocation's tokens match.
        if let Some(tokens) = r.arg_types().filter(|_| r.kind == RefKind::Call && self.lang_of(file) == Lang::Rust) {
            for t in &mut res.targets {
                let Some(&i) = self.by_id.get(&t.id) else { continue };
                let s = &self.syms[i as usize];
                if s.kind == SymbolKind::Macro {
                    t.arm = macros::pick(s.signature, tokens);
                }
            }
        }
        res
    }

    /// What calling the Java variable `var` (initialised with a method reference in a
    /// function around `enclosing`) calls: the method, or the constructor of `Foo::new`.
    fn method_value_targets(&self, file: u32, enclosing: Option<u32>, var: &str) -> Vec<Target> {
        let values = &self.method_values[file as usize];
        if values.is_empty() {
            return Vec::new();
        }
        let mut cur = enclosing;
        while let Some(e) = cur {
            if let Some(refs) = values.get(&(Some(e), var)) {
                let mut out = Vec::new();
                for &v in refs {
                    for t in self.resolve_ladder(file, v).targets {
                        let Some(&i) = self.by_id.get(&t.id) else { continue };
                        // (`Foo::new` resolves to Foo's constructor, or to Foo when it has none.)
                        let s = &self.syms[i as usize];
                        let ctor = s.kind.is_type_like()
                            || s.parent
                                .and_then(|p| self.by_id.get(&p))
                                .is_some_and(|&p| self.constructor(p) == Some(i));
                        let kind = if ctor { EdgeKind::Constructor } else { EdgeKind::Call };
                        out.push(Target { id: t.id, kind, possible: t.possible, arm: 0 });
                    }
                }
                return out;
            }
            cur = self.syms[e as usize].parent.and_then(|p| self.by_id.get(&p).copied());
        }
        Vec::new()
    }

    /// [`Self::resolve`] by the ladder of rungs (and, for Python and JavaScript, the value flow).
    fn resolve_ladder(&self, file: u32, r: &'a Reference) -> Resolution {
        if matches!(r.kind, RefKind::Iteration | RefKind::Context | RefKind::Raise | RefKind::Operator) {
            // (Kotlin's iterations are bindings of their elements only: `for (c in xs)`, the `it`
            // of `xs.forEach { }`.)
            if self.lang_of(file) == Lang::Kotlin {
                return Resolution { targets: smallvec::SmallVec::new(), rung: Rung::External, external: None };
            }
            return self.resolve_implicit(file, r);
        }
        let enclosing = r.enclosing.and_then(|e| self.by_id.get(&e).copied());
        let lang = self.lang_of(file);
        let callable = |s: &Sym<'_>| s.kind.is_callable() || s.kind.is_type_like() || s.kind == SymbolKind::Label;
        let line = r.span.start_line;
        let receiver = r.receiver.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let value = matches!(r.kind, RefKind::Callback | RefKind::Value);
        // Python: a variable of the function (assigned in it, or a parameter) is what the
        // value flow says, whatever module-level name it shares.
        let local = flows(lang) && receiver.is_none() && self.flow_local(enclosing, &r.name);
        // A call's argument count picks among overloads (`log(s)` / `log(s, level)`).
        let args = if r.kind == RefKind::Call { r.arg_count() } else { None };
        // Ruby: a bare name (no receiver, no arguments) that a parameter of the method around
        // has is the parameter, not a call of a method of that name.
        if lang == Lang::Ruby
            && r.kind == RefKind::Call
            && receiver.is_none()
            && args.is_none()
            && self.shadowed(file, enclosing, &r.name)
        {
            return Resolution { targets: smallvec::SmallVec::new(), rung: Rung::External, external: None };
        }
        // (Ada: a name read as a value is whatever the nearest declaration of it is: a
        // constant hides a subprogram of a used package.)
        let any = |_: &Sym<'_>| true;
        let wanted: &dyn Fn(&Sym<'_>) -> bool = if r.is_bare() { &any } else { &callable };
        let found = match receiver {
            _ if local => None,
            Some(rcv) => self.resolve_with_receiver(file, enclosing, rcv, &r.name, wanted, line, 0),
            None => match self.special_call(lang, enclosing, &r.name, args) {
                Some(found) => found,
                // Kotlin: in a lambda with a receiver (`out.apply { emit(x) }`, `with(b) { }`,
                // `buildCodeString { emit(this) }`), that receiver's members first.
                None => r
                    .implicit_receivers()
                    .filter(|_| lang == Lang::Kotlin)
                    .and_then(|h| self.kotlin_lambda_this(file, enclosing, h, r, wanted))
                    .map(|v| (Rung::Receiver, v))
                    .or_else(|| self.lookup_name(file, enclosing, &r.name, wanted)),
            },
        };
        // What the ladder leaves unknown or only guesses, the value flow may know (calls:
        // a value passed or stored is a reference only when it names its target; a value
        // `obj.name` of an unknown `obj` is no guess at every method of that name).
        let found = match found {
            Some((Rung::Ambiguous, _)) if value => None,
            // A decorated definition called is what its decorators made of it.
            Some((rung, v)) if rung != Rung::Ambiguous && lang == Lang::Python && !value => {
                match self.decorated_targets(&v) {
                    Some(d) => Some((Rung::Flow, d)),
                    None => Some((rung, v)),
                }
            }
            Some((rung, v)) if rung != Rung::Ambiguous => Some((rung, v)),
            guess if flows(lang) && !value => {
                let v = self.flow_targets(file, r);
                if v.is_empty() {
                    guess
                } else {
                    Some((Rung::Flow, v))
                }
            }
            guess => guess,
        };
        let external = || {
            let full = match &r.receiver {
                Some(rcv) if !rcv.is_empty() => compact_str::format_compact!("{rcv}.{}", r.name),
                _ => r.name.clone(),
            };
            Resolution { targets: smallvec::SmallVec::new(), rung: Rung::External, external: Some(full) }
        };
        // C++ `Status s;` runs no constructor the repository holds: no edge, not even to an
        // external name.
        let nothing = || Resolution { targets: smallvec::SmallVec::new(), rung: Rung::External, external: None };
        if found.is_none() && r.is_declared() {
            return nothing();
        }
        // Ada: a name read as a value is a call of the subprogram it names (found for sure:
        // no guess, no same-named candidate elsewhere), and nothing otherwise.
        let found = match found {
            Some((rung, v)) if r.is_bare() => {
                let sure = matches!(rung, Rung::Scope | Rung::SameFile | Rung::Import | Rung::Package | Rung::Receiver);
                let v: Vec<u32> = v.into_iter().filter(|&i| self.syms[i as usize].kind.is_callable()).collect();
                if !sure || v.is_empty() {
                    return nothing();
                }
                Some((rung, v))
            }
            None if r.is_bare() => return nothing(),
            found => found,
        };
        let Some((rung, targets)) = found else {
            // `self.step()` in a class that has no `step`, its subclasses do: it runs theirs.
            if let Some(c) =
                receiver.filter(|r| self_word(lang, r) && !value).and_then(|_| enclosing.and_then(|e| self.class_of(e)))
            {
                let subs = self.subclass_members(c, &r.name);
                if !subs.is_empty() && subs.len() <= MAX_CANDIDATES {
                    let possible = subs.len() > 1;
                    let targets = subs
                        .iter()
                        .map(|&m| Target { id: self.syms[m as usize].id, kind: EdgeKind::Inherited, possible, arm: 0 })
                        .collect();
                    let rung = if possible { Rung::Ambiguous } else { Rung::Receiver };
                    return Resolution { targets, rung, external: None };
                }
            }
            return external();
        };
        let targets = self.prefer_bodies(lang, targets);
        // C and C++: a function defined both in a generator's input (`lexer.in.cc`, re2c's) and
        // in the source made from it (`lexer.cc`) is the made one's: the build compiles that.
        let targets: Vec<u32> = if matches!(lang, Lang::C | Lang::Cpp) && targets.len() > 1 {
            let input = |i: u32| generator_input(&self.files[self.syms[i as usize].file as usize].path);
            targets
                .iter()
                .copied()
                .filter(|&i| {
                    !input(i)
                        || !targets.iter().any(|&j| {
                            j != i && !input(j) && self.syms[j as usize].qualified == self.syms[i as usize].qualified
                        })
                })
                .collect()
        } else {
            targets
        };
        let targets = self.pick_overloads(lang, args, targets);
        // C#: an extension method called on a value (`name.MatchName(a, b)`) takes the value
        // as its `this` parameter and the arguments as the others: `SetValue(this Spec s,
        // object o, object v)` is not `prop.SetValue(o, v, null)`. None left: the call is of
        // something else (a framework type's own method).
        let targets: Vec<u32> = match (args, receiver) {
            (Some(k), Some(rcv))
                if lang == Lang::CSharp
                    && !value
                    && !targets.is_empty()
                    && targets.iter().all(|&i| csharp_extension(&self.syms[i as usize])) =>
            {
                let fit: Vec<u32> = targets
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let class = self.syms[i as usize].qualified.rsplit('.').nth(1);
                        // (`StringExt.Shout(s)`, called through its class, passes `this` too.)
                        rcv.rsplit('.').next() == class
                            || self.arity_of(i).is_none_or(|a| k >= a.min && (a.variadic || k < a.params))
                    })
                    .collect();
                if fit.is_empty() {
                    return external();
                }
                fit
            }
            _ => targets,
        };
        // Ada: a subprogram whose parameters cannot take the call's arguments is not the one
        // called (overloads; a name of a `use`d package from outside the repository; `Obj.F
        // (X)` passes `Obj` too). None left: the call is of something the repository does
        // not hold.
        let targets: Vec<u32> = match args {
            Some(k) if lang == Lang::Ada && !value => {
                let fit: Vec<u32> = targets
                    .iter()
                    .copied()
                    .filter(|&i| {
                        let s = &self.syms[i as usize];
                        !s.kind.is_callable()
                            || ada_arity(s.signature)
                                .is_none_or(|a| a.admits(k) || (receiver.is_some() && a.admits(k + 1)))
                    })
                    .collect();
                if fit.is_empty() && !targets.is_empty() {
                    return if r.is_bare() { nothing() } else { external() };
                }
                fit
            }
            _ => targets,
        };
        // Ada: of overloads the call's arguments could all mean, those its arguments' types
        // fit (a literal's, a parameter's or variable's declared type), the receiver of `Obj.F
        // (X)` being the first parameter or a package.
        let targets: Vec<u32> = match r.arg_types() {
            Some(hints) if lang == Lang::Ada && targets.len() > 1 && !value => {
                let hints: Vec<&str> = hints.split(',').collect();
                let fits_at = |params: &[String], o: usize| {
                    hints
                        .iter()
                        .enumerate()
                        .all(|(i, h)| *h == "?" || params.get(i + o).is_some_and(|p| ada_arg_fits(h, p)))
                };
                let fit: Vec<u32> = targets
                    .iter()
                    .copied()
                    .filter(|&i| match ada_param_types(self.syms[i as usize].signature) {
                        Some(params) => fits_at(&params, 0) || (receiver.is_some() && fits_at(&params, 1)),
                        None => true,
                    })
                    .collect();
                if fit.is_empty() {
                    targets
                } else {
                    fit
                }
            }
            _ => targets,
        };
        // Ada: a subprogram renaming (`function Clock return Time renames Ada.Calendar.Clock;`)
        // called is the subprogram it renames: the repository's, or one from outside it. (A
        // value names the declaration itself: `is new G (Read_Byte)` passes the formal.)
        // (Of several candidates, one that renames a subprogram from outside the repository
        // may be the one called: the others stay candidates.)
        let mut outside_candidate = false;
        // (What each instance passes for a generic's formal is called, each a fact, as what
        // the value flow says a variable holds.)
        let mut formal = false;
        let targets: Vec<u32> = if lang == Lang::Ada && !value {
            let mut out = Vec::with_capacity(targets.len());
            let several = targets.len() > 1;
            for t in targets {
                formal |= self.syms[t as usize].signature.starts_with("generic formal ");
                match self.ada_renamed(t) {
                    None => out.push(t),
                    Some(v) if v.is_empty() => outside_candidate = several,
                    Some(v) => out.extend(v),
                }
            }
            if out.is_empty() {
                return if r.is_bare() { nothing() } else { external() };
            }
            out
        } else {
            targets
        };
        // Java: of overloads one call could mean by its argument count, the ones its
        // arguments' types fit (`t.error(this)`: `error(TokeniserState)`, not `error(String)`).
        let targets = match r.arg_types() {
            Some(hints) if lang == Lang::Java && targets.len() > 1 && !value => {
                self.pick_by_arg_types(file, enclosing, line, hints, targets, false)
            }
            // C#: the same, an extension called on a value taking it as its `this`.
            Some(hints) if lang == Lang::CSharp && targets.len() > 1 && !value => {
                let class = self.syms[targets[0] as usize].qualified.rsplit('.').nth(1);
                let on_value = receiver.is_some_and(|rcv| rcv.rsplit('.').next() != class);
                self.pick_by_arg_types(file, enclosing, line, hints, targets, on_value)
            }
            // Kotlin: the same, its parameters' defaults and a trailing lambda counted.
            Some(hints) if lang == Lang::Kotlin && targets.len() > 1 && !value => {
                self.kotlin_pick_by_arg_types(file, enclosing, line, hints, targets, false)
            }
            _ => targets,
        };
        // Kotlin: an overload whose expression body is a call of its own name (`fun
        // classBuilder(className: ClassName) = classBuilder(className.simpleName)`) calls
        // another overload: calling itself, it would never return.
        let targets = match enclosing {
            Some(e)
                if lang == Lang::Kotlin
                    && targets.len() > 1
                    && !value
                    && r.receiver.is_none()
                    && targets.contains(&e) =>
            {
                let s = &self.syms[e as usize];
                if s.name == r.name.as_str() && kotlin_delegates(s) {
                    targets.into_iter().filter(|&t| t != e).collect()
                } else {
                    targets
                }
            }
            _ => targets,
        };
        // Rust has no overloads: functions of one qualified name are one function under
        // exclusive `#[cfg]`s (`#[cfg(feature = "x")] fn imp` / `#[cfg(not(…))] fn imp`), and
        // the call is a call of it whichever the build compiles.
        // (Methods of `impl From<A> for T` and `impl From<B> for T` share a qualified name
        // too: twins take the same parameter types.)
        let cfg_twins = lang == Lang::Rust && targets.len() > 1 && {
            let first = &self.syms[targets[0] as usize];
            let params = rust_param_types(first.signature, r.name.as_str());
            params.is_some()
                && targets.iter().all(|&t| {
                    let s = &self.syms[t as usize];
                    s.qualified == first.qualified && rust_param_types(s.signature, r.name.as_str()) == params
                })
        };
        // A function or class used as a value is a reference to it; a class called runs its
        // constructor; an abstract method runs as its implementations.
        let mut out: smallvec::SmallVec<[Target; 1]> = smallvec::SmallVec::with_capacity(targets.len());
        for t in targets {
            let s = &self.syms[t as usize];
            let target = |id: SymbolId, kind: EdgeKind| Target { id, kind, possible: false, arm: 0 };
            if value {
                // `Item::new` (Java: named by the class), `::Item` (Kotlin) passed as a
                // function: the constructor.
                let ctor_ref = r.name == "new" || matches!(lang, Lang::Java | Lang::Kotlin);
                let c = if s.kind.is_type_like() && ctor_ref { self.constructor(t).unwrap_or(t) } else { t };
                if s.kind.is_callable() || s.kind.is_type_like() {
                    out.push(target(self.syms[c as usize].id, EdgeKind::Reference));
                }
                continue;
            }
            // C++ `Status s;`: the constructor the class declares for no arguments runs, one
            // with a body (`Status() = default;` and a class without one: the compiler's, which
            // the source does not hold).
            if r.is_declared() {
                if s.kind.is_type_like() {
                    if let Some(c) = self.default_constructor(t) {
                        out.push(target(self.syms[c as usize].id, EdgeKind::Constructor));
                    }
                }
                continue;
            }
            // Ada: `Animal (D)` converts, `new Circle'(…)` allocates: no subprogram of the
            // repository runs.
            if s.kind.is_type_like() && lang == Lang::Ada {
                continue;
            }
            // (An interface or trait has no constructor of its own to run.)
            if s.kind.is_type_like() && !(strict(lang) && matches!(s.kind, SymbolKind::Interface | SymbolKind::Trait)) {
                let c = self.constructor_for(t, args).unwrap_or(t);
                out.push(target(self.syms[c as usize].id, EdgeKind::Constructor));
                continue;
            }
            out.push(target(s.id, EdgeKind::Call));
            // One implementation: it runs; several: each may. (Java: of several, the only
            // one whose class some code makes runs, and the others may: rapid type analysis.)
            if let Implementations::Some(v) = self.implementations(t) {
                let made: Vec<u32> = match lang {
                    Lang::Java if v.len() > 1 => v.iter().copied().filter(|&i| self.class_made(i)).collect(),
                    _ => Vec::new(),
                };
                let only = (made.len() == 1).then(|| made[0]);
                let several = v.len() > 1;
                out.extend(v.iter().map(|&i| Target {
                    id: self.syms[i as usize].id,
                    kind: EdgeKind::Inherited,
                    possible: several && only != Some(i),
                    arm: 0,
                }));
            } else if virtual_call(lang, receiver)
                // (Python's `Base.method(self)` names the class: no dispatch.)
                && !(lang == Lang::Python && receiver.is_some_and(|r| is_ident(r) && r.starts_with(char::is_uppercase)))
                && self.overridable(t)
                // (Java: an interface's method called on a receiver naming that interface is
                // `Iface.super.m()`, the call of its default method: no dispatch. A class named
                // so may be a method handle's, `findVirtual(C.class, "m", …)`, which dispatches.)
                && !(lang == Lang::Java
                    && s.parent.and_then(|p| self.by_id.get(&p)).is_some_and(|&p| self.syms[p as usize].kind == SymbolKind::Interface)
                    && receiver.is_some_and(|q| self.names_interface(file, enclosing, q, line)))
            {
                // A method its class's subclasses override may run as any of the overrides
                // (the receiver's class is not known exactly): possible, beside itself. (Java:
                // when no code makes a class that runs the method itself, and some code makes
                // the class of one override only, that one runs: rapid type analysis.)
                let overrides = self.overrides(t);
                let only = match lang {
                    Lang::Java if !overrides.is_empty() && !self.runs_itself_made(t) => {
                        let made: Vec<u32> = overrides.iter().copied().filter(|&i| self.class_made(i)).collect();
                        (made.len() == 1).then(|| made[0])
                    }
                    _ => None,
                };
                out.extend(overrides.into_iter().map(|i| Target {
                    id: self.syms[i as usize].id,
                    kind: EdgeKind::Inherited,
                    possible: only != Some(i),
                    arm: 0,
                }));
            }
        }
        out.sort_unstable();
        out.dedup();
        if out.is_empty() {
            return if r.is_declared() { nothing() } else { external() };
        }
        // Several symbols the site itself could mean by their names: candidates, not
        // facts. (What the value flow says a variable holds is each a fact: the code stores
        // each of them where the call reads.)
        let named = out.iter().filter(|t| t.kind != EdgeKind::Inherited).count();
        let rung = if formal && rung != Rung::Ambiguous { Rung::Flow } else { rung };
        let rung = match rung {
            Rung::Ambiguous if cfg_twins => Rung::Scope,
            _ if cfg_twins => rung,
            _ if (named > 1 && rung != Rung::Flow) || rung == Rung::Ambiguous || outside_candidate => Rung::Ambiguous,
            _ => rung,
        };
        if rung == Rung::Ambiguous {
            for t in &mut out {
                t.possible = true;
            }
        }
        // `@factory(args) def f`: what the factory returns is called with `f` right there.
        if lang == Lang::Python && !value && r.alias().is_some_and(|a| a.starts_with("@@")) {
            let possible = rung == Rung::Ambiguous;
            out.extend(self.flow_applied(file, r).into_iter().map(|d| Target {
                id: self.syms[d as usize].id,
                kind: EdgeKind::Call,
                possible,
                arm: 0,
            }));
            out.sort_unstable();
            out.dedup();
        }
        Resolution { targets: out, rung, external: None }
    }

    /// Implicit calls: `raise E` constructs `E`; `for x in e` runs `__iter__`/`__next__`,
    /// `with e` runs `__enter__`/`__exit__` and an operator its method (`e + x`: `__add__`)
    /// of the class `e` is an instance of (by the flow).
    fn resolve_implicit(&self, file: u32, r: &'a Reference) -> Resolution {
        // Iteration, context and operator methods are the value flow's to find: elsewhere an
        // iteration reference only binds its variable (`for r in repos`: a Rust or Go element).
        if r.kind != RefKind::Raise && !flows(self.lang_of(file)) {
            return Resolution { targets: smallvec::SmallVec::new(), rung: Rung::External, external: None };
        }
        let enclosing = r.enclosing.and_then(|e| self.by_id.get(&e).copied());
        let mut out: smallvec::SmallVec<[Target; 1]> = smallvec::SmallVec::new();
        let mut rung = Rung::Flow;
        match r.kind {
            RefKind::Raise => {
                let ty = |s: &Sym<'_>| s.kind.is_type_like();
                let found = match r.receiver.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
                    Some(q) => self.resolve_with_receiver(file, enclosing, q, &r.name, &ty, r.span.start_line, 0),
                    None => self.lookup_name(file, enclosing, &r.name, ty),
                };
                if let Some((found_rung, classes)) = found {
                    rung = found_rung;
                    let possible = found_rung == Rung::Ambiguous || classes.len() > 1;
                    for c in classes {
                        let t = self.constructor(c).unwrap_or(c);
                        out.push(Target { id: self.syms[t as usize].id, kind: EdgeKind::Raise, possible, arm: 0 });
                    }
                } else if flows(self.lang_of(file)) {
                    // `raise err` of a variable: the classes the flow says it holds (each a
                    // fact, as the flow's call targets are).
                    for c in self.flow_targets(file, r) {
                        if self.syms[c as usize].kind.is_type_like() {
                            let t = self.constructor(c).unwrap_or(c);
                            out.push(Target {
                                id: self.syms[t as usize].id,
                                kind: EdgeKind::Raise,
                                possible: false,
                                arm: 0,
                            });
                        }
                    }
                }
            }
            _ => {
                let operator = r.alias().and_then(operator_method);
                let (kind, names): (EdgeKind, &[&str]) = match r.kind {
                    RefKind::Iteration => (EdgeKind::Iteration, &["__iter__", "__next__"]),
                    RefKind::Context => (EdgeKind::Context, &["__enter__", "__exit__"]),
                    _ => (EdgeKind::Operator, operator.as_slice()),
                };
                // (Operators: only an operand the flow knows the class of, and only when some
                // class defines the method at all, which few do; no guesses.)
                let defined = kind != EdgeKind::Operator || names.iter().any(|n| self.by_name(n).is_some());
                let classes = if defined && !names.is_empty() { self.flow_instances(file, r) } else { Vec::new() };
                let possible = classes.len() > 1;
                for c in classes {
                    for &n in names {
                        if let Some(m) =
                            self.member(c, n, true).into_iter().find(|&m| self.syms[m as usize].kind.is_callable())
                        {
                            out.push(Target { id: self.syms[m as usize].id, kind, possible, arm: 0 });
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        if out.is_empty() {
            return Resolution { targets: out, rung: Rung::External, external: None };
        }
        if out.iter().all(|t| t.possible) {
            rung = Rung::Ambiguous;
        }
        Resolution { targets: out, rung, external: None }
    }

    /// Calls that name a constructor by keyword: `super(…)` (JavaScript, TypeScript, Java),
    /// `this(…)` (Java), `cls(…)` (Python).
    fn special_call(
        &self,
        lang: Lang,
        enclosing: Option<u32>,
        name: &str,
        args: Option<usize>,
    ) -> Option<Option<(Rung, Vec<u32>)>> {
        let class = || enclosing.and_then(|e| self.class_of(e));
        let ctor = |c: u32| self.constructor_for(c, args).unwrap_or(c);
        match (lang, name) {
            // An instance of the class around: Python's `cls(…)`, Ruby's `new(…)` in a class
            // method (`initialize`), PHP's `new self(…)` and `new static(…)`.
            (Lang::Python, "cls") | (Lang::Ruby, "new") | (Lang::Php, "self" | "static") => {
                Some(class().map(|c| (Rung::Receiver, vec![ctor(c)])))
            }
            // Ruby: `super`, `super(…)` call the method of the enclosing one's name in the bases
            // (R's reference classes: `callSuper(…)`).
            (Lang::Ruby, "super") | (Lang::R, "callSuper") => {
                let (Some(e), Some(c)) = (enclosing, class()) else { return Some(None) };
                let v = self.member(c, self.syms[e as usize].name, false);
                Some((!v.is_empty()).then_some((Rung::Receiver, v)))
            }
            (Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Java, "super")
            | (Lang::CSharp, "base")
            | (Lang::Kotlin | Lang::Dart, "super") => {
                let c = class()?;
                let v: Vec<u32> = self
                    .bases(&c)
                    .into_iter()
                    .flatten()
                    .filter(|&&b| self.syms[b as usize].kind != SymbolKind::Interface)
                    .map(|&b| ctor(b))
                    .collect();
                Some((!v.is_empty()).then_some((Rung::Receiver, v)))
            }
            // Another constructor of the class (C#: `: this(…)`; Kotlin: `: this(…)`, which
            // may be the primary constructor, the class's own parameter list; Dart: a
            // redirecting constructor's `: this(…)`, the unnamed one).
            (Lang::Java | Lang::CSharp | Lang::Kotlin | Lang::Dart, "this") => {
                let c = class()?;
                let cs = &self.syms[c as usize];
                let ctor_name = if lang == Lang::Kotlin { "constructor" } else { cs.name };
                let mut v: Vec<u32> = self
                    .member(c, ctor_name, true)
                    .into_iter()
                    .filter(|&i| Some(i) != enclosing && self.syms[i as usize].kind.is_callable())
                    .collect();
                if lang == Lang::Kotlin && self.arity_of(c).is_some() {
                    v.push(c);
                }
                if let Some(k) = args.filter(|_| v.len() > 1) {
                    let fits: Vec<u32> =
                        v.iter().copied().filter(|&i| self.arity_of(i).is_none_or(|a| a.admits(k))).collect();
                    if !fits.is_empty() {
                        v = fits;
                    }
                }
                Some((!v.is_empty()).then_some((Rung::Receiver, v)))
            }
            _ => None,
        }
    }

    fn constructor(&self, class: u32) -> Option<u32> {
        self.constructor_for(class, None)
    }

    /// The constructor a call or instantiation of `class` with `args` arguments runs: of
    /// several (overloads), the first whose parameters take that many (Kotlin: or the
    /// class itself, for its primary constructor `class P(val x: Int)`), else the first.
    fn constructor_for(&self, class: u32, args: Option<usize>) -> Option<u32> {
        let cs = &self.syms[class as usize];
        let callable = |i: &u32| self.syms[*i as usize].kind.is_callable();
        for n in constructor_names(cs.lang, cs.name) {
            let all: Vec<u32> = self.member(class, n, true).into_iter().filter(callable).collect();
            let Some(&first) = all.first() else { continue };
            let Some(k) = args.filter(|_| overloads_by_arity(cs.lang)) else {
                return Some(first);
            };
            let admits = |i: u32, unexpanded: bool| {
                self.arity_of(i).is_some_and(|a| if unexpanded { a.admits_unexpanded(k) } else { a.admits(k) })
            };
            for unexpanded in [true, false] {
                if let Some(&m) = all.iter().find(|&&m| admits(m, unexpanded)) {
                    return Some(m);
                }
                if cs.lang == Lang::Kotlin && admits(class, unexpanded) {
                    return None;
                }
            }
            return Some(first);
        }
        None
    }

    /// C++: the constructor of `class` that takes no arguments and that the source defines
    /// (not `= default` or `= delete`).
    fn default_constructor(&self, class: u32) -> Option<u32> {
        let cs = &self.syms[class as usize];
        self.own_member(class, cs.name).into_iter().find(|&m| {
            let s = &self.syms[m as usize];
            let defined = !s.signature.split(')').next_back().is_some_and(|tail| {
                let tail = tail.trim_end().trim_end_matches(';').trim_end();
                tail.ends_with("= default") || tail.ends_with("= delete") || tail.ends_with("=default")
            });
            s.kind.is_callable() && defined && self.arity_of(m).is_some_and(|a| a.admits(0))
        })
    }

    /// TypeScript overloads: the implementation stands for its signatures. Ada: a
    /// subprogram's body (in the `.adb`) stands for its declaration in the spec (`.ads`).
    fn prefer_bodies(&self, lang: Lang, targets: Vec<u32>) -> Vec<u32> {
        if !matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::Ada) || targets.len() < 2 {
            return targets;
        }
        let bodied = |i: u32| {
            let s = &self.syms[i as usize];
            match lang {
                Lang::Ada => !self.files[s.file as usize].path.ends_with(".ads"),
                _ => !s.signature.trim_end().ends_with(';'),
            }
        };
        targets
            .iter()
            .copied()
            .filter(|&i| {
                bodied(i)
                    || !targets.iter().any(|&j| {
                        j != i && bodied(j) && self.syms[j as usize].qualified == self.syms[i as usize].qualified
                    })
            })
            .collect()
    }

    /// Ada: for a subprogram renaming (`procedure Put (S : String) renames Log.Write`), the
    /// subprograms it renames that the repository holds (empty: one from outside it); `None`
    /// for anything else.
    ///
    /// An instance of a generic subprogram (`procedure Encode is new LZ.Encode (…)`) runs
    /// the generic's body: the same, for the generic it instantiates.
    ///
    /// A generic's formal subprogram (`with procedure Write_Byte (B : Byte);`) runs what each
    /// instance of the generic passes for it.
    fn ada_renamed(&self, t: u32) -> Option<Vec<u32>> {
        let s = &self.syms[t as usize];
        if let Some(rest) = s.signature.strip_prefix("generic formal ") {
            let position = rest.split_once(':').and_then(|(n, _)| n.parse::<usize>().ok())?;
            return Some(self.ada_actuals(t, position, 0));
        }
        let renamed = match s.signature.find(" renames ") {
            Some(at) => s.signature[at + " renames ".len()..].trim(),
            None => ada_generic_of(s.signature)?,
        };
        if renamed.contains('\'') || renamed.is_empty() {
            return Some(Vec::new()); // an attribute (`Integer'Max`)
        }
        let enclosing = s.parent.as_ref().and_then(|p| self.by_id.get(p)).copied();
        let callable = |x: &Sym<'_>| {
            x.kind.is_callable() && !x.signature.contains(" renames ") && ada_generic_of(x.signature).is_none()
        };
        let found = match renamed.rsplit_once('.') {
            Some((rcv, name)) => self.resolve_with_receiver(s.file, enclosing, rcv, name, &callable, 0, 1),
            None => self.lookup_name(s.file, enclosing, renamed, callable),
        };
        Some(match found {
            Some((rung, v)) if rung != Rung::Ambiguous && rung != Rung::Global => self.prefer_bodies(Lang::Ada, v),
            _ => Vec::new(),
        })
    }

    /// Ada: the primitives named `name` of the type `c`: the subprograms of that name in the
    /// package declaring it whose first parameter is of the type (any, when none says so),
    /// else a parent type's.
    fn ada_primitives(&self, c: u32, name: &str, filter: &dyn Fn(Vec<u32>) -> Vec<u32>) -> Vec<u32> {
        let mut cur = vec![c];
        let mut seen = HashSet::default();
        for _ in 0..4 {
            let mut next = Vec::new();
            for t in cur {
                if !seen.insert(t) {
                    continue;
                }
                let s = &self.syms[t as usize];
                if let Some((package, _)) = s.qualified.rsplit_once('.') {
                    let v = filter(self.qualified_member(package, ".", name).to_vec());
                    let ty = s.name.to_ascii_lowercase();
                    let first = |i: &u32| {
                        ada_param_types(self.syms[*i as usize].signature)
                            .and_then(|p| p.first().cloned())
                            .is_some_and(|p| p == ty)
                    };
                    let own: Vec<u32> = v.iter().copied().filter(first).collect();
                    let v = if own.is_empty() { v } else { own };
                    if !v.is_empty() {
                        return self.prefer_bodies(Lang::Ada, v);
                    }
                }
                next.extend(self.bases(&t).into_iter().flatten().copied());
            }
            cur = next;
        }
        Vec::new()
    }

    /// Ada: what the instances of a generic pass for its formal subprogram `formal` (at
    /// `position` among the generic's formals): the actual named for it or at its position,
    /// else (a default `is <>`) the subprogram of its name where the instance is; each looked
    /// up where the instance is declared.
    ///
    /// An actual that is a formal of a generic around the instance (`LZMA.Encoding.Encode`
    /// passes its own `Read_Byte` to `LZ77.Encode`) is what that generic's instances pass,
    /// followed `depth` deep (at most 3).
    fn ada_actuals(&self, formal: u32, position: usize, depth: u8) -> Vec<u32> {
        let f = &self.syms[formal as usize];
        let Some(&unit) = f.parent.as_ref().and_then(|p| self.by_id.get(p)) else {
            return Vec::new();
        };
        let unit_name = self.syms[unit as usize].name;
        let generic = unit_name.rsplit('.').next().unwrap_or(unit_name).to_ascii_lowercase();
        deps::note_str(Kind::Made, &generic);
        let instances = self.ada_instances.get_or_init(|| {
            let mut m: HashMap<String, Vec<u32>> = HashMap::default();
            for (i, s) in self.syms.iter().enumerate() {
                if s.lang == Lang::Ada {
                    if let Some(g) = ada_generic_of(s.signature) {
                        m.entry(g.rsplit('.').next().unwrap_or(g).to_ascii_lowercase()).or_default().push(i as u32);
                    }
                }
            }
            m
        });
        let callable = |x: &Sym<'_>| x.kind.is_callable() && ada_generic_of(x.signature).is_none();
        let mut out = Vec::new();
        let unit_q = self.syms[unit as usize].qualified.to_ascii_lowercase();
        for &inst in instances.get(&generic).into_iter().flatten() {
            let s = &self.syms[inst as usize];
            // (`LZMA.Decoding` and `BZip2.Decoding` are two generics: the name written must
            // end the generic's qualified name.)
            let written = ada_generic_of(s.signature).unwrap_or_default().to_ascii_lowercase();
            if !(unit_q == written || unit_q.ends_with(&format!(".{written}"))) {
                continue;
            }
            let actual = ada_actual(s.signature, f.name, position).unwrap_or(f.name);
            if actual.contains(['\'', '(', '"']) || actual.is_empty() {
                continue;
            }
            let around = s.parent.as_ref().and_then(|p| self.by_id.get(p)).copied();
            let found = match actual.rsplit_once('.') {
                Some((rcv, name)) => self.resolve_with_receiver(s.file, around, rcv, name, &callable, 0, 1),
                None => self.lookup_name(s.file, around, actual, callable),
            };
            if let Some((_, v)) = found.filter(|(rung, _)| *rung != Rung::Ambiguous && *rung != Rung::Global) {
                for a in self.prefer_bodies(Lang::Ada, v) {
                    let outer = self.syms[a as usize].signature.strip_prefix("generic formal ");
                    match outer.and_then(|rest| rest.split_once(':')).and_then(|(n, _)| n.parse::<usize>().ok()) {
                        Some(p) if depth < 3 => out.extend(self.ada_actuals(a, p, depth + 1)),
                        Some(_) => {}
                        None => out.push(a),
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// What a symbol's signature says about the arguments it takes (a Kotlin class: its
    /// primary constructor's).
    fn arity_of(&self, i: u32) -> Option<Arity> {
        let s = &self.syms[i as usize];
        let name = if s.lang == Lang::Kotlin && s.name == "constructor" { "constructor" } else { s.name };
        // (Kotlin: `class Spec private constructor(val name: ClassName)`.)
        arity(s.lang, s.signature, name).or_else(|| {
            (s.lang == Lang::Kotlin && s.kind.is_type_like())
                .then(|| arity(s.lang, s.signature, "constructor"))
                .flatten()
        })
    }

    /// Of overloads (candidates sharing one qualified name), the ones a call with `args`
    /// arguments can mean: those whose parameters take that many, and those whose
    /// signature says nothing; all of them when none does, or the count is not known.
    fn pick_overloads(&self, lang: Lang, args: Option<usize>, v: Vec<u32>) -> Vec<u32> {
        let Some(k) = args.filter(|_| v.len() > 1 && overloads_by_arity(lang)) else {
            return v;
        };
        let qualified = |i: u32| self.syms[i as usize].qualified;
        let mut out = Vec::with_capacity(v.len());
        for (n, &i) in v.iter().enumerate() {
            // Each group once, at its first member, in the order found.
            if v[..n].iter().any(|&j| qualified(j) == qualified(i)) {
                continue;
            }
            let group: Vec<u32> = v[n..].iter().copied().filter(|&j| qualified(j) == qualified(i)).collect();
            if group.len() == 1 {
                out.push(i);
                continue;
            }
            let arities: Vec<Option<Arity>> = group.iter().map(|&j| self.arity_of(j)).collect();
            // A call that some overload takes as it is never spreads over another's varargs.
            let unexpanded = arities.iter().flatten().any(|a| a.admits_unexpanded(k));
            let fits: Vec<u32> = group
                .iter()
                .zip(&arities)
                .filter(|(_, a)| a.is_none_or(|a| if unexpanded { a.admits_unexpanded(k) } else { a.admits(k) }))
                .map(|(&j, _)| j)
                .collect();
            out.extend(if fits.is_empty() { group } else { fits });
        }
        out
    }

    /// Java: of overloads `v` (one qualified name), those the call's arguments (`hints`, see
    /// `Reference::arg_types`) fit: by the types the arguments' text shows (a literal, `this`,
    /// `new X(…)`, a cast, a variable's declared type), fixed arity before varargs, then the
    /// most specific. An argument whose type is not known fits any parameter; `v` as it is
    /// when none or all fit.
    ///
    /// C#'s parameters are read in Java's terms ([`csharp_param_type`]); `on_value`: the call
    /// passes its receiver as an extension method's `this` parameter, which takes no argument.
    fn pick_by_arg_types(
        &self,
        file: u32,
        enclosing: Option<u32>,
        line: u32,
        hints: &str,
        v: Vec<u32>,
        on_value: bool,
    ) -> Vec<u32> {
        let first = self.syms[v[0] as usize].qualified;
        if v.iter().any(|&i| self.syms[i as usize].qualified != first) {
            return v;
        }
        let args: Vec<ArgTy> = hints.split(',').map(|h| self.arg_ty(file, enclosing, line, h)).collect();
        if args.iter().all(|a| matches!(a, ArgTy::Unknown)) {
            return v;
        }
        let params: Vec<Option<Vec<String>>> = v
            .iter()
            .map(|&i| {
                let s = &self.syms[i as usize];
                let list = param_list(s.signature, s.name)?;
                let mut parts = top_level_parts(list)?;
                if s.lang != Lang::CSharp {
                    return Some(parts.into_iter().map(java_param_type).collect());
                }
                if on_value && parts.first().is_some_and(|p| p.starts_with("this ")) {
                    parts.remove(0);
                }
                Some(parts.into_iter().map(|p| java_param_type(&csharp_param_type(p))).collect())
            })
            .collect();
        // (Fixed arity first; a varargs overload only when none takes the call as it is.)
        let fits = |expand: bool| -> Vec<usize> {
            (0..v.len())
                .filter(|&k| {
                    let Some(ps) = &params[k] else { return false };
                    let varargs = ps.last().is_some_and(|p| p.ends_with("..."));
                    let file = self.syms[v[k] as usize].file;
                    let fit = |a: &ArgTy, p: &str| self.arg_fits(file, v[k], a, p);
                    if !expand {
                        // (Taken as it is, `T... xs` is a `T[]`.)
                        ps.len() == args.len()
                            && args.iter().zip(ps).all(|(a, p)| match p.strip_suffix("...") {
                                Some(e) => fit(a, &format!("{e}[]")),
                                None => fit(a, p),
                            })
                    } else {
                        varargs
                            && args.len() + 1 >= ps.len()
                            && args.iter().enumerate().all(|(i, a)| {
                                let p = &ps[i.min(ps.len() - 1)];
                                fit(a, p.strip_suffix("...").unwrap_or(p))
                            })
                    }
                })
                .collect()
        };
        let mut chosen = fits(false);
        if chosen.is_empty() {
            chosen = fits(true);
        }
        if chosen.is_empty() {
            return v;
        }
        // Java's first phase: the overloads that take the arguments without boxing or unboxing
        // (`m(int)` over `m(Integer)` for an `int`), when there are some.
        if chosen.len() > 1 {
            let prim = |t: &str| JAVA_PRIMITIVES.contains(&t);
            let strict: Vec<usize> = chosen
                .iter()
                .copied()
                .filter(|&k| {
                    params[k].as_ref().is_some_and(|ps| {
                        args.iter().zip(ps).all(|(a, p)| !matches!(a, ArgTy::Named(n) if prim(n) != prim(p)))
                    })
                })
                .collect();
            if !strict.is_empty() {
                chosen = strict;
            }
        }
        // The most specific: one whose every parameter is at least as specific as the others'.
        if chosen.len() > 1 {
            let at_least = |a: usize, b: usize| -> bool {
                let (Some(pa), Some(pb)) = (&params[a], &params[b]) else { return false };
                pa.len() == pb.len()
                    && pa.iter().zip(pb).all(|(x, y)| self.param_within(self.syms[v[a] as usize].file, v[a], x, y))
            };
            let best: Vec<usize> =
                chosen.iter().copied().filter(|&a| chosen.iter().all(|&b| a == b || at_least(a, b))).collect();
            if best.len() == 1 {
                chosen = best;
            }
        }
        chosen.into_iter().map(|k| v[k]).collect()
    }

    /// Kotlin: of overloads one call could mean (one qualified name), those whose parameters
    /// take its arguments ([`Reference::arg_types`]): each positional argument's type fits
    /// its parameter's, the parameters left over have defaults, a trailing lambda is the last
    /// parameter; of several, the most specific.
    fn kotlin_pick_by_arg_types(
        &self,
        file: u32,
        enclosing: Option<u32>,
        line: u32,
        hints: &str,
        v: Vec<u32>,
        strict: bool,
    ) -> Vec<u32> {
        let first = self.syms[v[0] as usize].qualified;
        if v.iter().any(|&i| self.syms[i as usize].qualified != first) {
            return v;
        }
        let hints: Vec<&str> = hints.split(',').collect();
        let trailing = hints.last() == Some(&"fn*");
        let given = &hints[..hints.len() - usize::from(trailing)];
        // (Named arguments, `name=>hint`, come after the positional ones.)
        let positional: Vec<&str> = given.iter().copied().take_while(|h| !h.contains("=>")).collect();
        let named: Vec<(&str, &str)> = given[positional.len()..].iter().filter_map(|h| h.split_once("=>")).collect();
        if positional.len() + named.len() != given.len() {
            return v;
        }
        let ty = |h: &str| match h {
            "fn" | "*" => ArgTy::Named(h.to_string()),
            h => match h.strip_prefix('~').map(|t| t.replace('\u{1f}', ",")) {
                Some(text) => match self.receiver_type(file, enclosing, &text, line, 1) {
                    Some(c) if c.len() == 1 => ArgTy::Class(c[0]),
                    // (`className.simpleName`: a type from outside; `choices.toMap()`: what
                    // the standard library's function gives.)
                    _ => match self.outside_type(file, enclosing, &text, line, 1) {
                        Some(t) if self.kotlin_fn_alias(file, enclosing, &t) => ArgTy::Named("fn".into()),
                        Some(t) => ArgTy::Named(kotlin_java_name(&t).to_string()),
                        None => kotlin_std_result(&text).map_or(ArgTy::Unknown, |t| ArgTy::Named(t.to_string())),
                    },
                },
                None => match self.arg_ty(file, enclosing, line, h) {
                    // (A variable of a function type's alias holds a function.)
                    ArgTy::Named(n) if self.kotlin_fn_alias(file, enclosing, &n) => ArgTy::Named("fn".into()),
                    ArgTy::Named(n) => ArgTy::Named(kotlin_java_name(&n).to_string()),
                    a => a,
                },
            },
        };
        let args: Vec<ArgTy> = positional.iter().map(|h| ty(h)).collect();
        let named: Vec<(&str, ArgTy)> = named.into_iter().map(|(n, h)| (n, ty(h))).collect();
        if args.iter().all(|a| matches!(a, ArgTy::Unknown)) && !trailing && named.is_empty() {
            return v;
        }
        // (A parameter of a function type's alias is of a function type.)
        let params: Vec<Option<Vec<KotlinParam>>> = v
            .iter()
            .map(|&i| {
                let s = &self.syms[i as usize];
                let mut ps = kotlin_params(s.signature, s.name)?;
                for p in &mut ps {
                    if p.ty != "fn" && self.kotlin_fn_alias(s.file, Some(i), &p.ty) {
                        p.ty = "fn".into();
                    }
                }
                Some(ps)
            })
            .collect();
        // (A type of the standard library's or a final one takes no lambda; another type from
        // outside may be a Java interface of one method.)
        let fits_fn = |file: u32, m: u32, p: &str| {
            p == "fn"
                || (!(JAVA_PRIMITIVES.contains(&p) || JAVA_FINAL.contains(&p) || kotlin_std_type(p))
                    && self.param_class(file, m, p).is_none())
        };
        // (`lenient`: a named argument no shown parameter has may be for one a cut signature
        // leaves out.)
        let fit = |k: usize, lenient: bool| -> bool {
            let Some(ps) = &params[k] else { return false };
            let m = v[k];
            let mfile = self.syms[m as usize].file;
            let one = |a: &ArgTy, p: &KotlinParam| match a {
                ArgTy::Named(n) if n == "fn" => fits_fn(mfile, m, &p.ty),
                ArgTy::Named(n) if n == "*" => p.vararg,
                // (Two types of the standard library: the one or one of its supertypes.)
                ArgTy::Named(n) if KOTLIN_STD.iter().any(|(t, _)| t == n) && kotlin_std_type(&p.ty) => {
                    n == &p.ty || KOTLIN_STD.iter().any(|(t, sup)| t == n && sup.contains(&p.ty.as_str()))
                }
                // A repository class is of a type from outside only when it or a base of
                // its names that type in its header (`TypeName` is no `java.lang.reflect.Type`).
                ArgTy::Class(c)
                    if p.ty != "Object"
                        && !JAVA_PRIMITIVES.contains(&p.ty.as_str())
                        && self.param_class(mfile, m, &p.ty).is_none() =>
                {
                    self.names_outside_base(*c, &p.ty)
                }
                _ => self.arg_fits(mfile, m, a, &p.ty),
            };
            let (ps, last) = match (trailing, ps.split_last()) {
                (true, Some((last, rest))) => (rest, Some(last)),
                (true, None) => return false,
                (false, _) => (&ps[..], None),
            };
            if last.is_some_and(|p| !fits_fn(mfile, m, &p.ty)) {
                return false;
            }
            // (A vararg parameter takes the arguments from its place on.)
            let vararg = ps.iter().position(|p| p.vararg);
            let by_name = |n: &str| ps.iter().position(|p| p.name == n).filter(|&k| k >= args.len());
            args.iter().enumerate().all(|(i, a)| match (ps.get(i), vararg) {
                (_, Some(at)) if i >= at => one(a, &ps[at]),
                (Some(p), _) => one(a, p),
                (None, _) => false,
            }) && named.iter().all(|(n, a)| match by_name(n) {
                Some(k) => one(a, &ps[k]),
                None => lenient && ps.last().is_some_and(|p| p.rest),
            }) && ps.iter().skip(args.len()).all(|p| p.default || p.vararg || named.iter().any(|(n, _)| *n == p.name))
        };
        let mut chosen: Vec<usize> = (0..v.len()).filter(|&k| fit(k, false)).collect();
        if chosen.is_empty() {
            chosen = (0..v.len()).filter(|&k| fit(k, true)).collect();
        }
        if chosen.is_empty() {
            // (`strict`: none of them takes the arguments.)
            return if strict { Vec::new() } else { v };
        }
        if chosen.len() > 1 {
            let at_least = |a: usize, b: usize| -> bool {
                let (Some(pa), Some(pb)) = (&params[a], &params[b]) else { return false };
                let n = args.len().min(pa.len()).min(pb.len());
                pa[..n]
                    .iter()
                    .zip(&pb[..n])
                    .all(|(x, y)| self.param_within(self.syms[v[a] as usize].file, v[a], &x.ty, &y.ty))
            };
            let best: Vec<usize> =
                chosen.iter().copied().filter(|&a| chosen.iter().all(|&b| a == b || at_least(a, b))).collect();
            if best.len() == 1 {
                chosen = best;
            }
        }
        chosen.into_iter().map(|k| v[k]).collect()
    }

    /// What an argument hint of a call in `file` says its type is.
    fn arg_ty(&self, file: u32, enclosing: Option<u32>, line: u32, hint: &str) -> ArgTy {
        match hint {
            "" | "?" => ArgTy::Unknown,
            "null" => ArgTy::Null,
            "this" => enclosing.and_then(|e| self.class_of(e)).map_or(ArgTy::Unknown, ArgTy::Class),
            h if JAVA_PRIMITIVES.contains(&h) || h == "String" || h == "Class" => ArgTy::Named(h.to_string()),
            h => {
                let (name, variable) = match h.strip_prefix('=') {
                    Some(v) => (v, true),
                    None => (h, false),
                };
                if !variable {
                    // (`new Token.EOF()`: a nested class, by its qualifier.)
                    let (q, n) = split_last(name);
                    return match self.type_named(file, enclosing, q, n, line, 0) {
                        Some(c) if c.len() == 1 => ArgTy::Class(c[0]),
                        _ => ArgTy::Named(n.to_string()),
                    };
                }
                let Some(b) = self.binding(file, enclosing, name, line, true) else { return ArgTy::Unknown };
                if b.elements || b.element_of {
                    return ArgTy::Unknown;
                }
                match self.type_from_binding(file, b, 0) {
                    Some(c) if c.len() == 1 => ArgTy::Class(c[0]),
                    Some(_) => ArgTy::Unknown,
                    // (C#: `string s` is a `String`, as its parameters are read.)
                    None if !b.call && b.receiver.is_none() && self.lang_of(file) == Lang::CSharp => {
                        ArgTy::Named(java_param_type(&csharp_param_type(&format!("{} x", b.name))))
                    }
                    None if !b.call && b.receiver.is_none() => ArgTy::Named(b.name.to_string()),
                    None => ArgTy::Unknown,
                }
            }
        }
    }

    /// The repository type a parameter type names, seen from the method `m` (one, or none).
    fn param_class(&self, file: u32, m: u32, p: &str) -> Option<u32> {
        if JAVA_PRIMITIVES.contains(&p) || p.ends_with("[]") {
            return None;
        }
        let name = p.rsplit('.').next().unwrap_or(p);
        match self.lookup_name(file, Some(m), name, |s| s.kind.is_type_like()) {
            Some((rung, c)) if rung != Rung::Ambiguous && c.len() == 1 => Some(c[0]),
            _ => None,
        }
    }

    /// Whether class `c` is `p` or below it.
    fn is_below(&self, c: u32, p: u32) -> bool {
        let mut queue = vec![c];
        let mut seen: HashSet<u32> = HashSet::default();
        while let Some(x) = queue.pop() {
            if x == p {
                return true;
            }
            if seen.insert(x) && seen.len() < 256 {
                queue.extend(self.bases(&x).into_iter().flatten().copied());
            }
        }
        false
    }

    /// Whether an argument of type `a` may be passed for the parameter type `p` of the
    /// method `m` (Java's invocation conversions, as far as the names tell: widening,
    /// boxing, a class below the parameter's; an unknown type fits).
    fn arg_fits(&self, file: u32, m: u32, a: &ArgTy, p: &str) -> bool {
        let prim = |t: &str| JAVA_PRIMITIVES.contains(&t);
        if p.ends_with("[]") {
            return matches!(a, ArgTy::Unknown | ArgTy::Null) || matches!(a, ArgTy::Named(n) if n.as_str() == p);
        }
        match a {
            ArgTy::Unknown => true,
            ArgTy::Null => !prim(p),
            // (A primitive is boxed.)
            _ if p == "Object" => true,
            ArgTy::Class(c) => {
                if prim(p) || JAVA_FINAL.contains(&p) {
                    return false;
                }
                match self.param_class(file, m, p) {
                    Some(pc) => self.is_below(*c, pc),
                    None => true,
                }
            }
            ArgTy::Named(n) => {
                if n == p {
                    return true;
                }
                match (prim(n), prim(p)) {
                    (true, true) => java_widens(n, p),
                    (true, false) => java_box(n) == Some(p) || (n != "boolean" && n != "char" && p == "Number"),
                    (false, true) => java_box(p) == Some(n.as_str()),
                    (false, false) => {
                        if n == "String" && p == "CharSequence" {
                            return true;
                        }
                        // Not two types known apart (String, the boxes, Class), nor a parameter
                        // of a repository type, which a value of a type from outside cannot be.
                        // An `Object` fits none of those either (`m(String)` takes no `Object`).
                        let known = |t: &str| JAVA_FINAL.contains(&t.rsplit('.').next().unwrap_or(t));
                        !((known(n) || n == "Object") && known(p)) && self.param_class(file, m, p).is_none()
                    }
                }
            }
        }
    }

    /// Whether parameter type `x` is at least as specific as `y` (of method `m`'s file).
    fn param_within(&self, file: u32, m: u32, x: &str, y: &str) -> bool {
        if x == y || y == "Object" {
            return true;
        }
        if JAVA_PRIMITIVES.contains(&x) && JAVA_PRIMITIVES.contains(&y) {
            return java_widens(x, y);
        }
        match (self.param_class(file, m, x), self.param_class(file, m, y)) {
            (Some(a), Some(b)) => self.is_below(a, b),
            _ => false,
        }
    }

    /// The one type calling any of `v` gives, when they are overloads that all return it
    /// (`getAdapter(Class<T>)` and `getAdapter(TypeToken<T>)` both give a `TypeAdapter`).
    fn overloads_result_type(&self, v: &[u32], depth: u8) -> Option<Vec<u32>> {
        let first = *v.first()?;
        if v.iter().any(|&i| self.syms[i as usize].qualified != self.syms[first as usize].qualified) {
            return None;
        }
        // (Kotlin: an overload whose expression body calls its own name, `fun builder(type:
        // KClass<*>) = builder(type.asClassName())`, gives what the one it calls gives.)
        let mut known = v.iter().copied().filter(|&i| !kotlin_delegates(&self.syms[i as usize]));
        let t = self.result_type(known.next()?, depth)?;
        known.all(|i| self.result_type(i, depth).as_ref() == Some(&t)).then_some(t)
    }

    /// The class named `name` among the classes around `enclosing` (`Outer` of `Outer.this`).
    fn outer_class(&self, enclosing: Option<u32>, name: &str) -> Option<u32> {
        let mut cur = enclosing;
        while let Some(e) = cur {
            let s = &self.syms[e as usize];
            if s.kind.is_type_like() && s.name == name {
                return Some(e);
            }
            cur = s.parent.and_then(|p| self.by_id.get(&p).copied());
        }
        None
    }

    /// Whether the receiver `q` names an interface rather than a variable.
    fn names_interface(&self, file: u32, enclosing: Option<u32>, q: &str, line: u32) -> bool {
        is_ident(q)
            && self.binding(file, enclosing, q, line, true).is_none()
            && self
                .type_named(file, enclosing, None, q, line, 0)
                .is_some_and(|v| v.iter().all(|&t| self.syms[t as usize].kind == SymbolKind::Interface))
    }

    /// Java: whether the class of method `m`, or a class below it, is made somewhere (an enum
    /// makes its constants itself).
    fn class_made(&self, m: u32) -> bool {
        self.made_below(m, false)
    }

    /// Java: whether some code makes a class that runs method `m` itself: its class, or a
    /// class below that does not override it.
    fn runs_itself_made(&self, m: u32) -> bool {
        self.made_below(m, true)
    }

    /// Whether some code makes the class of `m` or a class below it (`unless_overridden`: not
    /// below a class whose member of `m`'s name is another method).
    fn made_below(&self, m: u32, unless_overridden: bool) -> bool {
        let name = self.syms[m as usize].name;
        let Some(c) = self.syms[m as usize].parent.as_ref().and_then(|p| self.by_id.get(p)).copied() else {
            return true;
        };
        let mut queue = vec![c];
        let mut seen: HashSet<u32> = HashSet::default();
        while let Some(c) = queue.pop() {
            if !seen.insert(c) {
                continue;
            }
            let s = &self.syms[c as usize];
            deps::note_str(Kind::Made, s.name);
            if s.kind == SymbolKind::Enum || self.made.contains(s.name) {
                return true;
            }
            for &d in self.derived(&c).into_iter().flatten() {
                // (Overridden: `d` defines or inherits another method of that name.)
                if !unless_overridden || self.member(d, name, true).contains(&m) {
                    queue.push(d);
                }
            }
        }
        false
    }

    /// Whether `m` is a method without a body that implementations provide: an
    /// interface method, an abstract method, a trait method without a default.
    fn is_abstract(&self, m: u32) -> bool {
        let s = &self.syms[m as usize];
        if s.kind != SymbolKind::Method {
            return false;
        }
        let parent_kind = s.parent.and_then(|p| self.by_id.get(&p)).map(|&p| self.syms[p as usize].kind);
        let sig = s.signature.trim_end();
        match s.lang {
            Lang::Go | Lang::TypeScript | Lang::Tsx => {
                parent_kind == Some(SymbolKind::Interface) || sig.starts_with("abstract ") || sig.contains(" abstract ")
            }
            Lang::Java => sig.ends_with(';'),
            Lang::Rust => parent_kind == Some(SymbolKind::Trait) && sig.ends_with(';'),
            _ => false,
        }
    }

    /// Whether a call of method `m` is dispatched on the receiver's class, so that an
    /// override in a subclass may run instead (not: static, private or final methods;
    /// Kotlin's and C#'s methods unless open, virtual or overriding; C++'s unless virtual;
    /// Rust and Go, which have no subclasses).
    fn overridable(&self, m: u32) -> bool {
        let s = &self.syms[m as usize];
        if s.kind != SymbolKind::Method || s.parent.is_none() {
            return false;
        }
        let sig = s.signature;
        let head = sig.split('(').next().unwrap_or(sig);
        let word = |w: &str| head.split(|c: char| !c.is_alphanumeric() && c != '_').any(|x| x == w);
        match s.lang {
            Lang::Java | Lang::Php | Lang::Swift | Lang::Dart => {
                !word("static") && !word("private") && !word("final") && !word("class")
            }
            Lang::Kotlin => (word("open") || word("override") || word("abstract")) && !word("final"),
            Lang::CSharp => (word("virtual") || word("override") || word("abstract")) && !word("sealed"),
            Lang::Cpp => word("virtual") || sig.contains(" override"),
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => !word("static") && !s.name.starts_with('#'),
            Lang::Python | Lang::Ruby => true,
            _ => false,
        }
    }

    /// The methods that override `m` in its class's subclasses, transitively (none when more
    /// than [`MAX_CANDIDATES`]: too many to list as candidates).
    fn overrides(&self, m: u32) -> Vec<u32> {
        if let Some((v, keys)) = self.override_cache.lock().expect("cache").get(&m) {
            deps::replay(keys);
            return v.clone();
        }
        let (mut v, keys) = deps::recorded(|| {
            let s = &self.syms[m as usize];
            let Some(&owner) = s.parent.as_ref().and_then(|p| self.by_id.get(p)) else { return Vec::new() };
            let mut v = self.subclass_members(owner, s.name);
            // Java: a class implementing the interface that inherits a method of that name
            // from its superclass runs that one (a class's method wins over a default one).
            if s.lang == Lang::Java && self.syms[owner as usize].kind == SymbolKind::Interface {
                for d in self.subclasses(owner) {
                    v.extend(self.member(d, s.name, true).into_iter().filter(|&i| {
                        let class = self.syms[i as usize].parent.as_ref().and_then(|p| self.by_id.get(p));
                        class.is_some_and(|&c| self.syms[c as usize].kind != SymbolKind::Interface)
                    }));
                }
                v.sort_unstable();
                v.dedup();
            }
            v.retain(|&i| i != m && self.syms[i as usize].kind == SymbolKind::Method && !self.is_abstract(i));
            v
        });
        if v.len() > MAX_CANDIDATES {
            v.clear();
        }
        self.override_cache.lock().expect("cache").insert(m, (v.clone(), keys));
        v
    }

    /// The implementations an abstract method `m` dispatches to.
    fn implementations(&self, m: u32) -> Implementations {
        if !self.is_abstract(m) {
            return Implementations::None;
        }
        if let Some((v, keys)) = self.impl_cache.lock().expect("cache").get(&m) {
            deps::replay(keys);
            return v.clone();
        }
        let (v, keys) = deps::recorded(|| self.find_implementations(m));
        let v = match v.len() {
            0 => Implementations::None,
            n if n > MAX_CANDIDATES => Implementations::Many,
            _ => Implementations::Some(v),
        };
        self.impl_cache.lock().expect("cache").insert(m, (v.clone(), keys));
        v
    }

    fn find_implementations(&self, m: u32) -> Vec<u32> {
        let s = &self.syms[m as usize];
        let Some(&owner) = s.parent.as_ref().and_then(|p| self.by_id.get(p)) else {
            return Vec::new();
        };
        let mut classes: Vec<u32> = Vec::new();
        if s.lang == Lang::Go && self.syms[owner as usize].kind == SymbolKind::Interface {
            // Structural: every type with all of the interface's methods.
            let wanted: Vec<&str> =
                self.children(&owner).into_iter().flatten().map(|&x| self.syms[x as usize].name).collect();
            let candidates: Vec<u32> = self
                .by_name(s.name)
                .into_iter()
                .flatten()
                .filter_map(|&i| {
                    let x = &self.syms[i as usize];
                    (x.lang == Lang::Go && x.kind == SymbolKind::Method && i != m)
                        .then(|| x.parent.and_then(|p| self.by_id.get(&p).copied()))
                        .flatten()
                })
                .filter(|&c| {
                    let k = self.syms[c as usize].kind;
                    k.is_type_like() && k != SymbolKind::Interface
                })
                .collect();
            for c in candidates {
                if wanted.iter().all(|w| !self.member(c, w, true).is_empty()) {
                    classes.push(c);
                }
            }
        } else {
            let mut queue: Vec<u32> = self.derived(&owner).cloned().unwrap_or_default();
            let mut seen = HashSet::default();
            while let Some(c) = queue.pop() {
                if !seen.insert(c) {
                    continue;
                }
                classes.push(c);
                queue.extend(self.derived(&c).into_iter().flatten().copied());
            }
        }
        let mut out: Vec<u32> = Vec::new();
        for c in classes {
            if let Some(i) = self
                .member(c, s.name, true)
                .into_iter()
                .find(|&i| self.syms[i as usize].kind.is_callable() && !self.is_abstract(i))
            {
                out.push(i);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The binding of the variable `alias` visible from `enclosing` (the innermost; the
    /// last one before `line` among several). Class scopes count only with
    /// `class_scopes` (Java fields are in scope in methods; elsewhere `this.` is needed).
    fn binding(
        &self,
        file: u32,
        enclosing: Option<u32>,
        alias: &str,
        line: u32,
        class_scopes: bool,
    ) -> Option<&Binding<'a>> {
        let mut cur = enclosing;
        loop {
            let skip = cur.is_some_and(|c| self.syms[c as usize].kind.is_type_like()) && !class_scopes;
            if !skip {
                let (bindings, index) = self.file_bindings(file);
                let mut best: Option<&Binding<'a>> = None;
                for &i in index.get(alias).into_iter().flatten() {
                    let b = &bindings[i];
                    if b.enclosing != cur || b.until.is_some_and(|u| line < b.line || line > u) {
                        continue;
                    }
                    // (A variable is not yet there in the call that initialises it: `val names =
                    // names.toImmutableList()` reads the constructor's parameter.)
                    if b.call && b.line == line && self.lang_of(file) == Lang::Kotlin {
                        continue;
                    }
                    // Two types tested on the same lines (Go's `case *A, *B:`): neither.
                    if b.until.is_some()
                        && index[alias].iter().any(|&j| {
                            let o = &bindings[j];
                            o.enclosing == cur && o.line == b.line && o.until == b.until && o.name != b.name
                        })
                    {
                        continue;
                    }
                    match best {
                        None => best = Some(b),
                        Some(x) if b.line <= line && (x.line > line || b.line >= x.line) => best = Some(b),
                        _ => {}
                    }
                }
                if best.is_some() {
                    return best;
                }
            }
            let c = cur?;
            let p = self.syms[c as usize].parent;
            cur = p.and_then(|p| self.by_id.get(&p).copied());
            if p.is_some() && cur.is_none() {
                return None;
            }
        }
    }

    /// Go: the one package-level binding of `alias` in the other files of `file`'s
    /// directory (its package), with the file it is in.
    fn package_binding(&self, file: u32, alias: &str) -> Option<(u32, &Binding<'a>)> {
        let path = &self.files[file as usize].path;
        let mut found = None;
        for &f in self.dir_files.get(dir_of(path)).into_iter().flatten() {
            if f == file || self.lang_of(f) != Lang::Go {
                continue;
            }
            let (bindings, index) = self.bindings_of(f);
            for &i in index.get(alias).into_iter().flatten() {
                let b = &bindings[i];
                if b.enclosing.is_none() {
                    if found.is_some() {
                        return None; // declared twice (build tags): unknown
                    }
                    found = Some((f, b));
                }
            }
        }
        found
    }

    /// The type a binding gives its variable.
    fn type_from_binding(&self, file: u32, b: &Binding<'a>, depth: u8) -> Option<Vec<u32>> {
        if depth > MAX_TYPE_DEPTH || b.elements {
            return None;
        }
        if b.element_of {
            // (Kotlin: `x.let { it }`'s `it` is `x` itself.)
            if let Some(value) = b.name.strip_prefix('=') {
                return self.receiver_type(file, b.enclosing, value, b.line, depth + 1);
            }
            return self.element_type(file, b.enclosing, b.name, b.line, depth + 1);
        }
        if !b.call {
            let named = self.type_named(file, b.enclosing, b.receiver, b.name, b.line, depth + 1);
            // Kotlin: `val command = context.command`, of the property's type; Zig: `var input =
            // thread.input`, of the field's.
            return match (named, b.receiver) {
                (None, Some(q))
                    if matches!(self.lang_of(file), Lang::Kotlin | Lang::Zig) && !q.starts_with(char::is_uppercase) =>
                {
                    match self.receiver_type(file, b.enclosing, q, b.line, depth + 1)?[..] {
                        [c] => self.field_type(c, b.name, depth + 1),
                        _ => None,
                    }
                }
                (named, _) => named,
            };
        }
        // Initialised by a call: a class (its constructor) or a function's declared result.
        let callable = |s: &Sym<'_>| s.kind.is_callable() || s.kind.is_type_like();
        let found = match b.receiver {
            None => self.lookup_name(file, b.enclosing, b.name, callable),
            Some(q) => self.resolve_with_receiver(file, b.enclosing, q, b.name, &callable, b.line, depth + 1),
        };
        match found {
            Some((rung, v)) if rung != Rung::Ambiguous => {
                let v = self.pick_overloads(self.lang_of(file), b.args, v);
                if v.len() == 1 {
                    self.result_type(v[0], depth + 1)
                } else {
                    self.overloads_result_type(&v, depth + 1)
                }
            }
            _ => None,
        }
    }

    /// The type of the elements of `expr`: a variable bound to a container type, through
    /// `&`, `.iter()`, `.iter_mut()`, `.into_iter()`, `.drain(..)`.
    fn element_type(&self, file: u32, enclosing: Option<u32>, expr: &str, line: u32, depth: u8) -> Option<Vec<u32>> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        let mut e = expr.trim();
        loop {
            let before = e;
            for p in ["&mut ", "&", "*"] {
                e = e.strip_prefix(p).unwrap_or(e).trim_start();
            }
            for m in [".iter()", ".iter_mut()", ".into_iter()", ".drain(..)"] {
                e = e.strip_suffix(m).unwrap_or(e).trim_end();
            }
            if e.starts_with('(') && call_open(e) == Some(0) {
                e = e[1..e.len() - 1].trim();
            }
            if e == before {
                break;
            }
        }
        // `self.items`: a field of the class around, declared a container.
        if let Some(field) = e.strip_prefix("self.").or_else(|| e.strip_prefix("this.")).filter(|f| is_ident(f)) {
            let class = enclosing.and_then(|x| self.class_of(x))?;
            return self.field_elements(class, field, depth + 1);
        }
        // `md.keys`, `s.cfg.items`: a field, declared a container, of what the rest is.
        if let Some((owner, field)) = e.rsplit_once('.').filter(|(o, f)| is_ident(f) && !o.is_empty()) {
            let class = self.receiver_type(file, enclosing, owner, line, depth + 1)?;
            return match class[..] {
                [c] => self.field_elements(c, field, depth + 1),
                _ => None,
            };
        }
        if !is_ident(e) {
            return None;
        }
        let lang = self.lang_of(file);
        let Some(b) = self.binding(file, enclosing, e, line, implicit_this(lang)) else {
            // C++: a member of the method's class named without `this`, declared in a header
            // or in a base class (`nodes_[id]` in `DepsLog::Recompact`).
            if lang == Lang::Cpp {
                let class = enclosing.and_then(|x| self.class_of(x))?;
                return self.field_elements(class, e, depth + 1);
            }
            return None;
        };
        if !b.elements {
            let (q, n) = b.kotlin_element()?;
            return self.type_named(file, b.enclosing, q, n, b.line, depth + 1);
        }
        self.type_named(file, b.enclosing, b.receiver, b.name, b.line, depth + 1)
    }

    /// The type of the elements of `class`'s field `field`, declared a container (a slice,
    /// an array, a map's values, a `Vec`), in `class` or else in its bases.
    fn field_elements(&self, class: u32, field: &str, depth: u8) -> Option<Vec<u32>> {
        let mut queue = std::collections::VecDeque::from([class]);
        let mut seen: HashSet<u32> = HashSet::default();
        while let Some(c) = queue.pop_front() {
            if !seen.insert(c) || seen.len() > 64 {
                continue;
            }
            let cf = self.syms[c as usize].file;
            let (bindings, index) = self.bindings_of(cf);
            let here: Vec<&Binding<'a>> = index
                .get(field)
                .into_iter()
                .flatten()
                .map(|&i| &bindings[i])
                .filter(|b| b.enclosing == Some(c))
                .collect();
            if let Some(b) = here.iter().find(|b| b.elements) {
                return self.type_named(cf, b.enclosing, b.receiver, b.name, b.line, depth + 1);
            }
            if let Some((q, n)) = here.iter().find_map(|b| b.kotlin_element()) {
                return self.type_named(cf, Some(c), q, n, u32::MAX, depth + 1);
            }
            // (A field of another type, in this class, hides the bases' of that name.)
            if !here.is_empty() {
                return None;
            }
            queue.extend(self.bases(&c).into_iter().flatten().copied());
        }
        None
    }

    /// The type-like symbol `qualifier.name` means in `file` (one, or none).
    fn type_named(
        &self,
        file: u32,
        enclosing: Option<u32>,
        qualifier: Option<&str>,
        name: &str,
        line: u32,
        depth: u8,
    ) -> Option<Vec<u32>> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        let is_type = types_values;
        match qualifier {
            None => {
                // Zig: `Self` (`const Self = @This();`) is the struct around.
                if (name == "Self" || name == "@This") && self.lang_of(file) == Lang::Zig {
                    return enclosing.and_then(|e| self.class_of(e)).map(|c| vec![c]);
                }
                if let Some((rung, v)) = self.lookup_name(file, enclosing, name, is_type) {
                    if v.len() > 1 {
                        let v = self.included_ones(file, v);
                        return (v.len() == 1).then_some(v);
                    }
                    return (rung != Rung::Ambiguous && v.len() == 1).then_some(v);
                }
                // Kotlin: a type alias is the type it names (`typealias RawOption =
                // NullableOption<String, String>`).
                if self.lang_of(file) == Lang::Kotlin {
                    let alias = |s: &Sym<'_>| kotlin_alias_target(s).is_some();
                    if let Some((rung, v)) = self.lookup_name(file, enclosing, name, alias) {
                        let target = (rung != Rung::Ambiguous && v.len() == 1)
                            .then(|| kotlin_alias_target(&self.syms[v[0] as usize]))
                            .flatten()?;
                        let (q, n) = split_last(target);
                        let around = self.syms[v[0] as usize].parent.and_then(|p| self.by_id.get(&p).copied());
                        return self.type_named(self.syms[v[0] as usize].file, around, q, n, u32::MAX, depth + 1);
                    }
                }
                // A type parameter: its bound (`T: Shape`, `T extends Shape`).
                let b = self.binding(file, enclosing, name, line, true)?;
                if b.name == name {
                    return None;
                }
                self.type_from_binding(file, b, depth + 1)
            }
            Some(q) => {
                let lang = self.lang_of(file);
                let sep = lang.spec().qualifier;
                let v: Vec<u32> = self
                    .qualified_member(q, sep, name)
                    .iter()
                    .copied()
                    .filter(|&i| is_type(&self.syms[i as usize]))
                    .collect();
                let v = self.included_ones(file, v);
                if v.len() == 1 {
                    return Some(v);
                }
                // C++: inside `namespace leveldb`, `port::Mutex` may be `leveldb::port::Mutex`
                // (the namespaces around, innermost first).
                if lang == Lang::Cpp {
                    let mut scope = enclosing.map_or("", |e| self.syms[e as usize].qualified);
                    while !scope.is_empty() {
                        let v: Vec<u32> = self
                            .qualified_member(&format!("{scope}{sep}{q}"), sep, name)
                            .iter()
                            .copied()
                            .filter(|&i| is_type(&self.syms[i as usize]))
                            .collect();
                        if !v.is_empty() {
                            let v = self.included_ones(file, v);
                            return (v.len() == 1).then_some(v);
                        }
                        scope = scope.rsplit_once(sep).map_or("", |(outer, _)| outer);
                    }
                }
                // C#: `Execution.VM.ByteCode` inside `namespace Acme.Tree` may be
                // `Acme.Execution.VM.ByteCode` (the namespaces around, then the `using`s).
                if lang == Lang::CSharp && q.split('.').all(is_ident) {
                    let v = self.csharp_scoped(file, enclosing, &format!("{q}.{name}"), &|s: &Sym<'_>| is_type(s));
                    if !v.is_empty() {
                        return (v.len() == 1).then_some(v);
                    }
                }
                match self.resolve_with_receiver(file, enclosing, q, name, &is_type, line, depth + 1) {
                    Some((rung, v)) if rung != Rung::Ambiguous && v.len() == 1 => Some(v),
                    _ => None,
                }
            }
        }
    }

    /// C and C++: of several symbols `v` (a type's definitions), the ones `file` includes
    /// (itself, its `#include`s and theirs), where there are any: `port::Mutex` is
    /// port_stdcxx.h's, which port.h includes, not port_example.h's, which nothing does.
    fn included_ones(&self, file: u32, v: Vec<u32>) -> Vec<u32> {
        if v.len() < 2 || !matches!(self.lang_of(file), Lang::C | Lang::Cpp) {
            return v;
        }
        let seen = self.included(file);
        let kept: Vec<u32> = v.iter().copied().filter(|&i| seen.contains(&self.syms[i as usize].file)).collect();
        if kept.is_empty() {
            v
        } else {
            kept
        }
    }

    /// C and C++: `file` and the files it reaches through its `#include`s (at most
    /// [`MAX_INCLUDED`]), computed once per file.
    fn included(&self, file: u32) -> std::sync::Arc<HashSet<u32>> {
        if let Some((v, keys)) = self.include_cache.lock().expect("cache").get(&file) {
            deps::replay(keys);
            return v.clone();
        }
        let (seen, keys) = deps::recorded(|| {
            let mut seen: HashSet<u32> = HashSet::default();
            let mut stack = vec![file];
            while let Some(f) = stack.pop() {
                if seen.len() >= MAX_INCLUDED || !seen.insert(f) {
                    continue;
                }
                stack.extend(self.imports_of(f).iter().flat_map(Import::used));
            }
            std::sync::Arc::new(seen)
        });
        self.include_cache.lock().expect("cache").insert(file, (seen.clone(), keys));
        seen
    }

    /// The type of what calling `t` gives: a class for a class or constructor, else
    /// what its signature declares it returns.
    fn result_type(&self, t: u32, depth: u8) -> Option<Vec<u32>> {
        let s = &self.syms[t as usize];
        if types_values(s) {
            return Some(vec![t]);
        }
        let class =
            s.parent.and_then(|p| self.by_id.get(&p).copied()).filter(|&c| self.syms[c as usize].kind.is_type_like());
        if let Some(c) = class {
            if s.lang != Lang::Rust && constructor_names(s.lang, self.syms[c as usize].name).any(|n| n == s.name) {
                return Some(vec![c]);
            }
        }
        let Some((q, name)) = return_type(s.lang, s.signature, s.name) else {
            // Kotlin: an expression body that calls (`fun Type.asTypeName() = TypeName.get(this,
            // map)`, `fun KClass<*>.asTypeName() = asClassName()`): what the call gives.
            let body = (s.lang == Lang::Kotlin).then(|| kotlin_expression_body(s.signature)).flatten()?;
            return call_open(body).and_then(|_| self.receiver_type(s.file, Some(t), body, u32::MAX, depth + 1));
        };
        if name == "Self" || (name == "this" && s.lang != Lang::Rust) {
            // (Kotlin: an extension's `this` is its receiver.)
            if let Some(r) = kotlin_extension_receiver(s.signature).filter(|_| s.lang == Lang::Kotlin) {
                let (q, n) = split_last(r);
                let around = s.parent.and_then(|p| self.by_id.get(&p).copied());
                return self.type_named(s.file, around, q, n, u32::MAX, depth + 1);
            }
            return self.class_of(t).map(|c| vec![c]);
        }
        self.type_named(s.file, Some(t), q.as_deref(), &name, u32::MAX, depth + 1)
    }

    /// The type of field `field` of `class` (or of its bases): a declared field, an
    /// attribute assigned in a method (`self.x = …`, `this.x = …`), or a TypeScript
    /// constructor parameter property.
    fn field_type(&self, class: u32, field: &str, depth: u8) -> Option<Vec<u32>> {
        let mut queue = std::collections::VecDeque::from([class]);
        let mut seen = HashSet::default();
        while let Some(c) = queue.pop_front() {
            if !seen.insert(c) {
                continue;
            }
            let f = self.syms[c as usize].file;
            let lang = self.syms[c as usize].lang;
            let dotted = [format!("self.{field}"), format!("this.{field}")];
            let mut found: Vec<Vec<u32>> = Vec::new();
            let (bindings, index) = self.bindings_of(f);
            let candidates = [field, dotted[0].as_str(), dotted[1].as_str()]
                .into_iter()
                .flat_map(|k| index.get(k).into_iter().flatten())
                .map(|&i| &bindings[i]);
            for b in candidates {
                let Some(e) = b.enclosing else { continue };
                let hit = if e == c {
                    b.alias == field
                } else {
                    let es = &self.syms[e as usize];
                    let in_class = es.parent.and_then(|p| self.by_id.get(&p).copied()) == Some(c);
                    // `self.x = …`/`this.x = …` in a method; a constructor parameter of
                    // the field's name (TypeScript parameter properties, and the
                    // `self.repo = repo` of injected dependencies).
                    in_class
                        && (dotted.iter().any(|d| d == b.alias)
                            || (matches!(es.name, "constructor" | "__init__") && b.alias == field && !b.call))
                };
                if hit {
                    if let Some(t) = self.type_from_binding(f, b, depth + 1) {
                        found.push(t);
                    }
                }
            }
            // Assigned different types (`if …: self.x = A() else: self.x = B()`): unknown.
            found.sort_unstable();
            found.dedup();
            match found.len() {
                0 => {}
                1 => return found.pop(),
                _ => return None,
            }
            // Go: an embedded field is named by its type (`c.Animal.Sound()`).
            if lang == Lang::Go {
                if let Some(&b) = self.bases(&c).into_iter().flatten().find(|&&b| self.syms[b as usize].name == field) {
                    return Some(vec![b]);
                }
            }
            queue.extend(self.bases(&c).into_iter().flatten().copied());
        }
        None
    }

    /// The classes a receiver expression is an instance of, when the code says so: a
    /// variable with a binding, `self`/`this` and their fields, `new Foo(…)`, or a call
    /// whose target declares its result.
    fn receiver_type(&self, file: u32, enclosing: Option<u32>, rcv: &str, line: u32, depth: u8) -> Option<Vec<u32>> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        let lang = self.lang_of(file);
        // (C++: `p->f()->g()` is read as `p.f().g()`.)
        let arrows;
        let mut rcv = rcv.trim();
        if lang == Lang::Cpp && rcv.contains("->") {
            arrows = rcv.replace("->", ".");
            rcv = &arrows;
        }
        let mut deref = false;
        loop {
            let before = rcv;
            rcv = rcv.trim_end_matches(['?', '!']).trim();
            deref |= rcv.starts_with('*');
            for p in ["&mut ", "&", "*", "await "] {
                rcv = rcv.strip_prefix(p).unwrap_or(rcv).trim_start();
            }
            if rcv.starts_with('(') && call_open(rcv) == Some(0) {
                rcv = rcv[1..rcv.len() - 1].trim();
            }
            // Kotlin: `x.apply { … }` and `x.also { … }` are `x`.
            if lang == Lang::Kotlin {
                rcv = kotlin_without_scope_call(rcv);
            }
            if rcv == before {
                break;
            }
        }
        // C++: `(*it)->path()`, an iterator's element.
        if lang == Lang::Cpp && deref && is_ident(rcv) {
            if let Some(t) = self.element_type(file, enclosing, rcv, line, depth + 1) {
                return Some(t);
            }
        }
        if let Some(rest) = rcv.strip_prefix("new ") {
            let ty = rest.split(['(', '<']).next()?.trim();
            let (q, n) = split_last(ty);
            return self.type_named(file, enclosing, q, n, line, depth + 1);
        }
        // A cast says the type: `((Circle) shape).area()` (Java, C#), `(shape as Circle)`
        // (TypeScript, Kotlin, Swift).
        if let Some(ty) = cast_type(lang, rcv) {
            let (q, n) = split_last(strip_generics(ty));
            return self.type_named(file, enclosing, q, n, line, depth + 1);
        }
        if let Some(open) = call_open(rcv) {
            let callee = strip_generics(&rcv[..open]);
            if callee.is_empty() || super_word(lang, callee) {
                return None;
            }
            // Rust: what `Option`/`Result`/a smart pointer holds is what `?` (stripped
            // above) and these give (`find(1).unwrap().query()`).
            if lang == Lang::Rust {
                if let (Some(q), n) = split_last(callee) {
                    if matches!(
                        n,
                        "unwrap"
                            | "expect"
                            | "unwrap_or_default"
                            | "unwrap_or"
                            | "unwrap_or_else"
                            | "clone"
                            | "as_ref"
                            | "as_mut"
                            | "borrow"
                            | "borrow_mut"
                            | "lock"
                            | "to_owned"
                    ) {
                        return self.receiver_type(file, enclosing, q, line, depth + 1);
                    }
                }
            }
            let callable = |s: &Sym<'_>| s.kind.is_callable() || types_values(s);
            let args = text_arg_count(rcv);
            let found = match split_last(callee) {
                (None, n) => self
                    .special_call(lang, enclosing, n, args)
                    .unwrap_or_else(|| self.lookup_name(file, enclosing, n, callable)),
                (Some(q), n) => self.resolve_with_receiver(file, enclosing, q, n, &callable, line, depth + 1),
            };
            let (rung, v) = found?;
            if rung == Rung::Ambiguous {
                return None;
            }
            let v = self.pick_overloads(lang, args, v);
            if v.len() != 1 {
                return self.overloads_result_type(&v, depth + 1);
            }
            return self.result_type(v[0], depth + 1);
        }
        // `xs[i]`, `md.keys[i]`: an element of `xs`, of the field `keys`.
        if let Some(base) = rcv.strip_suffix(']').and_then(|r| r.split_once('[')).map(|(b, _)| b.trim()) {
            if base.split('.').all(|s| is_ident(s.trim())) {
                return self.element_type(file, enclosing, base, line, depth + 1);
            }
        }
        // A chain of fields, each maybe indexed: `md.context`, `md.keyInfo[k].pos`.
        let segs: Vec<(&str, bool)> = split_dots(rcv).into_iter().map(indexed).collect();
        if !segs.iter().all(|(s, _)| is_ident(s)) {
            return None;
        }
        let (head, head_indexed) = segs[0];
        // `Outer.this.field`: the enclosing instance of an inner class.
        let outer = match segs.get(1) {
            Some(&("this", false)) if !head_indexed => self.outer_class(enclosing, head),
            _ => None,
        };
        let rest = if outer.is_some() { &segs[2..] } else { &segs[1..] };
        let mut cur: Vec<u32> = if let Some(c) = outer {
            vec![c]
        } else if head_indexed {
            self.element_type(file, enclosing, head, line, depth + 1)?
        } else if self_word(lang, head) {
            vec![enclosing.and_then(|e| self.class_of(e))?]
        } else if let Some(b) = self.binding(file, enclosing, head, line, implicit_this(lang)) {
            self.type_from_binding(file, b, depth + 1)?
        } else if let Some((f, b)) = self.member_elsewhere(file, enclosing, head) {
            self.type_from_binding(f, b, depth + 1)?
        } else if let Some(t) = self.inherited_member(lang, enclosing, head, depth) {
            // A member of a base class, named without `this` (`lexer_.ReadPath(…)` in a method
            // of `DyndepParser : public Parser`, whose `Lexer lexer_;` it is).
            t
        } else if lang == Lang::Go && !self.shadowed(file, enclosing, head) {
            // A package-level variable that another file of the package declares
            // (`var CommandLine = NewFlagSet(…)` in flag.go, `CommandLine.VarP(…)` here).
            let (f, b) = self.package_binding(file, head)?;
            self.type_from_binding(f, b, depth + 1)?
        } else {
            return None;
        };
        for &(seg, elements) in rest {
            if cur.len() != 1 {
                return None;
            }
            cur = match elements {
                true => self.field_elements(cur[0], seg, depth + 1)?,
                false => self.field_type(cur[0], seg, depth + 1)?,
            };
        }
        Some(cur)
    }

    /// C++: the member `name` of the class of a method defined out of line in `file`, where the
    /// class is declared in another file (`Plan* plan_;` in build.h, `plan_->Finish()` in
    /// `Builder::Build` of build.cc): that file and the member's binding.
    fn member_elsewhere(&self, file: u32, enclosing: Option<u32>, name: &str) -> Option<(u32, &Binding<'a>)> {
        if self.lang_of(file) != Lang::Cpp {
            return None;
        }
        let c = enclosing.and_then(|e| self.class_of(e))?;
        let cf = self.syms[c as usize].file;
        if cf == file {
            return None;
        }
        deps::note_str(Kind::File, &self.files[cf as usize].path);
        Some((cf, self.binding(cf, Some(c), name, u32::MAX, true)?))
    }

    /// C#: the symbols `dotted` (`Parser`, `Str.Normalize`, `Acme.Csv.Parser`) names in `file`
    /// inside `enclosing`, as C# looks names up: through a `using` alias (`using Str =
    /// Acme.Text.Strings;`), in the namespaces around (`Parser` in `namespace Acme` may be
    /// `Acme.Parser`), then in the `using`s (`using Acme.Json;` brings `Acme.Json.Parser`; `using
    /// static Acme.Text.Strings;` the class's members). Empty when none is found.
    fn csharp_scoped(
        &self,
        file: u32,
        enclosing: Option<u32>,
        dotted: &str,
        ok: &dyn Fn(&Sym<'_>) -> bool,
    ) -> Vec<u32> {
        let qualified = |q: &str| -> Vec<u32> {
            self.by_qualified(q).into_iter().flatten().copied().filter(|&i| ok(&self.syms[i as usize])).collect()
        };
        let (head, rest) = dotted.split_once('.').map_or((dotted, None), |(h, r)| (h, Some(r)));
        let last = |m: &str| m.rsplit('.').next().unwrap_or(m).to_string();
        for imp in self.imports_of(file) {
            if imp.member.is_none() && imp.binding == head && imp.binding != last(&imp.module) {
                imp.used();
                let v = qualified(&match rest {
                    Some(r) => format!("{}.{r}", imp.module),
                    None => imp.module.clone(),
                });
                if !v.is_empty() {
                    return v;
                }
            }
        }
        let mut scope = enclosing.map_or("", |e| self.syms[e as usize].qualified);
        loop {
            let v = qualified(&if scope.is_empty() { dotted.to_string() } else { format!("{scope}.{dotted}") });
            if !v.is_empty() || scope.is_empty() {
                if !v.is_empty() {
                    return v;
                }
                break;
            }
            scope = scope.rsplit_once('.').map_or("", |(outer, _)| outer);
        }
        let mut found: Vec<u32> = Vec::new();
        for imp in self.imports_of(file) {
            if imp.member.is_none() && imp.binding == last(&imp.module) {
                imp.used();
                found.extend(qualified(&format!("{}.{dotted}", imp.module)));
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    /// MATLAB: whether `var` is the object in the classdef method `enclosing`: its first
    /// parameter, or a constructor's result.
    fn matlab_object(&self, enclosing: Option<u32>, var: &str) -> bool {
        let Some(e) = enclosing else { return false };
        let s = &self.syms[e as usize];
        if self.class_of(e).is_none_or(|c| c == e) {
            return false;
        }
        let head = s.signature.trim_start().strip_prefix("function").unwrap_or("").trim_start();
        let result = head.split_once('=').map(|(r, _)| r.trim()).filter(|r| is_ident(r));
        let first = head.split_once('(').and_then(|(_, rest)| rest.split([',', ')']).next()).map(str::trim);
        result == Some(var) || first == Some(var)
    }

    /// MATLAB: the function `name` of the package `pkg` (`geo`, `a.b`): the file
    /// `+geo/name.m` (`+a/+b/name.m`), whose first function it is.
    fn matlab_package_function(&self, pkg: &str, name: &str) -> Vec<u32> {
        let folder: String = pkg.split('.').map(|p| format!("+{p}")).collect::<Vec<_>>().join("/");
        let file_name = format!("{name}.m");
        self.by_name(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| {
                let s = &self.syms[i as usize];
                let path = &self.files[s.file as usize].path;
                s.lang == Lang::Matlab
                    && s.kind.is_callable()
                    && s.parent.is_none()
                    && (path == &format!("{folder}/{file_name}") || path.ends_with(&format!("/{folder}/{file_name}")))
            })
            .collect()
    }

    /// Swift: whether the code of `other` is visible in `file`: the same module (SwiftPM's
    /// `Sources/<Module>/`, `Tests/<Module>/`), or one `file` imports, or either outside such
    /// a layout.
    fn swift_module_visible(&self, file: u32, other: u32) -> bool {
        fn module(path: &str) -> Option<&str> {
            let mut parts = path.split('/');
            while let Some(p) = parts.next() {
                if p == "Sources" || p == "Tests" {
                    return parts.next();
                }
            }
            None
        }
        let (Some(mine), Some(theirs)) =
            (module(&self.files[file as usize].path), module(&self.files[other as usize].path))
        else {
            return true;
        };
        mine == theirs || self.imports_of(file).iter().any(|i| i.module == theirs || i.binding == theirs)
    }

    /// The name of the type of the receiver `rcv`, where it is a type the repository does not
    /// define: a string literal, or a concatenation with one (`("hello " + name)`), or a
    /// variable declared of such a type (`name: String`). `None` otherwise.
    fn outside_type(&self, file: u32, enclosing: Option<u32>, rcv: &str, line: u32, depth: u8) -> Option<String> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        let mut t = rcv.trim();
        while t.starts_with('(') && call_open(t) == Some(0) {
            t = t[1..t.len() - 1].trim();
        }
        if t.starts_with(['"', '\'']) || t.ends_with(['"', '\'']) {
            return Some("String".to_string());
        }
        let lang = self.lang_of(file);
        // C#: `ToString()` gives a string, whatever it is called on.
        if lang == Lang::CSharp && t.ends_with(".ToString()") {
            return Some("string".to_string());
        }
        // (A type's name, where the repository defines no type of that name.)
        let outside = |ty: &str| {
            let ty = ty.trim_end_matches('?');
            let repository = self.by_name(ty).into_iter().flatten().any(|&i| self.syms[i as usize].kind.is_type_like());
            (!repository).then(|| ty.to_string())
        };
        // Kotlin: a cast says the type (`(type.rawType as Class<*>)`); a property of a
        // repository class is of its declared type (`builder.annotations`).
        if lang == Lang::Kotlin {
            if let Some(ty) = cast_type(lang, t) {
                return outside(split_last(strip_generics(ty)).1);
            }
            // A call of the repository's whose declared result is such a type
            // (`out.lookupName(this)`: a `String`).
            if let Some(open) = call_open(t).filter(|&o| o > 0) {
                let callable = |s: &Sym<'_>| s.kind.is_callable();
                let found = match split_last(strip_generics(&t[..open])) {
                    (None, n) => self.lookup_name(file, enclosing, n, callable),
                    (Some(q), n) => self.resolve_with_receiver(file, enclosing, q, n, &callable, line, depth + 1),
                };
                let (rung, v) = found?;
                let v = self.pick_overloads(lang, text_arg_count(t), v);
                let types: Vec<String> = v
                    .iter()
                    .filter_map(|&i| return_type(lang, self.syms[i as usize].signature, self.syms[i as usize].name))
                    .map(|(_, n)| n)
                    .collect();
                return (rung != Rung::Ambiguous && types.len() == v.len() && types.windows(2).all(|w| w[0] == w[1]))
                    .then(|| types.first().and_then(|ty| outside(ty)))
                    .flatten();
            }
            if let Some((obj, field)) = t.rsplit_once('.').filter(|(_, f)| is_ident(f)) {
                let classes = self.receiver_type(file, enclosing, obj, line, depth + 1)?;
                return classes.iter().find_map(|&c| {
                    let cf = self.syms[c as usize].file;
                    let (bindings, index) = self.bindings_of(cf);
                    index
                        .get(field)
                        .into_iter()
                        .flatten()
                        .map(|&i| &bindings[i])
                        .filter(|b| b.enclosing == Some(c))
                        .find_map(|b| self.kotlin_outside_binding(cf, b, depth + 1).and_then(|t| outside(&t)))
                });
            }
        }
        if !is_ident(t) {
            return None;
        }
        let b = self.binding(file, enclosing, t, line, true)?;
        match lang {
            Lang::Kotlin => self.kotlin_outside_binding(file, b, depth + 1).and_then(|t| outside(&t)),
            _ if b.call || b.elements || b.element_of || b.receiver.is_some() => None,
            _ => outside(b.name),
        }
    }

    /// Kotlin: the name of the type a binding of `file` gives its variable (whether the
    /// repository defines it is the caller's to check): a declared type; what the call it is
    /// initialised with declares or a standard library function gives (`val members =
    /// mutableListOf<CodeBlock>()`: `MutableList`; `val names = names.toImmutableList()` of a
    /// repository extension declared `: List<T>`: `List`); a property read's type; an element's
    /// (`for (b in bounds)` of `bounds: List<KType>`: `KType`; `x.let { it }`: `x`'s).
    fn kotlin_outside_binding(&self, file: u32, b: &Binding<'a>, depth: u8) -> Option<String> {
        if b.elements || depth > MAX_TYPE_DEPTH {
            return None;
        }
        if b.element_of {
            if let Some(value) = b.name.strip_prefix('=') {
                return self.outside_type(file, b.enclosing, value, b.line, depth + 1);
            }
            let container =
                self.binding(file, b.enclosing, b.name.trim(), b.line, true).filter(|_| is_ident(b.name))?;
            return container.kotlin_element().map(|(_, n)| n.to_string());
        }
        // (A call resolved again only near the expression being typed: deeper, the cost grows
        // faster than what it finds.)
        if b.call && depth > 2 {
            return kotlin_std_result(b.name).map(str::to_string);
        }
        if b.call {
            // (The call's text again, its arguments by their count: the overloads it may mean.)
            let args = vec!["_"; b.args.unwrap_or(0)].join(", ");
            let call = match b.receiver {
                Some(r) => format!("{r}.{}({args})", b.name),
                None => format!("{}({args})", b.name),
            };
            return self
                .outside_type(file, b.enclosing, &call, b.line, depth + 1)
                .or_else(|| kotlin_std_result(b.name).map(str::to_string));
        }
        match b.receiver {
            // `val c = ctx.command`.
            Some(r) => self.outside_type(file, b.enclosing, &format!("{r}.{}", b.name), b.line, depth + 1),
            None => Some(b.name.to_string()),
        }
    }

    /// The repository's extension members named `name` of the type `ty` (any case: C#'s
    /// `string` is `String`): Kotlin `fun String.shout()`, C# `Shout(this string s)`, Swift
    /// `extension String { func shout() }`, Dart `extension StringX on String { shout() }`.
    fn extensions_of(&self, lang: Lang, ty: &str, name: &str) -> Vec<u32> {
        let ty_lower = ty.to_ascii_lowercase();
        let extends = |sig: &str, pattern: &str| sig.to_ascii_lowercase().contains(pattern);
        self.by_name(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| {
                let s = &self.syms[i as usize];
                if !s.kind.is_callable() || !compatible(s.lang, lang) {
                    return false;
                }
                let parent = s.parent.and_then(|p| self.by_id.get(&p)).map(|&p| &self.syms[p as usize]);
                match lang {
                    Lang::Kotlin => kotlin_extension_receiver(s.signature).is_some_and(|r| {
                        let r = r.rsplit('.').next().unwrap_or(r);
                        r.eq_ignore_ascii_case(ty) || self.kotlin_alias_of(r, ty)
                    }),
                    Lang::CSharp => csharp_extends(s, ty),
                    Lang::Swift => parent.is_some_and(|p| {
                        p.signature.trim_start().starts_with("extension") && p.name.eq_ignore_ascii_case(ty)
                    }),
                    Lang::Dart => parent.is_some_and(|p| {
                        p.signature.trim_start().starts_with("extension")
                            && extends(p.signature, &format!(" on {ty_lower}"))
                    }),
                    _ => false,
                }
            })
            .collect()
    }

    /// Kotlin: what a bare `name` means in lambdas with receivers (`hints`, see
    /// `Reference::implicit_receivers`, innermost first): the first receiver's type that has
    /// such a member (or an extension of that name); `None` when none does.
    fn kotlin_lambda_this(
        &self,
        file: u32,
        enclosing: Option<u32>,
        hints: &str,
        r: &Reference,
        ok: &dyn Fn(&Sym<'_>) -> bool,
    ) -> Option<Vec<u32>> {
        let (name, line) = (r.name.as_str(), r.span.start_line);
        // (A receiver's members count only where they take the call's arguments: `emit(this)`
        // in `buildCodeString { }` is not `CodeWriter.emit(String)` but the class's.)
        let applicable = |v: Vec<u32>| -> Vec<u32> {
            let v: Vec<u32> = match r.arg_count() {
                Some(k) => v.into_iter().filter(|&i| self.arity_of(i).is_none_or(|a| a.admits(k))).collect(),
                None => v,
            };
            match r.arg_types() {
                Some(h) if !v.is_empty() => {
                    // (Each group of one qualified name on its own.)
                    let mut out = Vec::new();
                    let mut names: Vec<&str> = v.iter().map(|&i| self.syms[i as usize].qualified).collect();
                    names.dedup();
                    for q in names {
                        let group: Vec<u32> =
                            v.iter().copied().filter(|&i| self.syms[i as usize].qualified == q).collect();
                        out.extend(self.kotlin_pick_by_arg_types(file, enclosing, line, h, group, true));
                    }
                    out
                }
                _ => v,
            }
        };
        let keep = |v: Vec<u32>| -> Vec<u32> { v.into_iter().filter(|&i| ok(&self.syms[i as usize])).collect() };
        let callable = |s: &Sym<'_>| s.kind.is_callable();
        for h in hints.split(';') {
            let classes: Vec<u32> = match h.strip_prefix('@') {
                // A lambda passed to `f`: the receiver of `f`'s function-typed parameter.
                Some(f) => {
                    let found = match split_last(f) {
                        (None, n) => self.lookup_name(file, enclosing, n, callable),
                        (Some(q), n) => self.resolve_with_receiver(file, enclosing, q, n, &callable, line, 1),
                    };
                    let Some((_, v)) = found.filter(|(rung, _)| *rung != Rung::Ambiguous) else { continue };
                    let mut out = Vec::new();
                    for t in v {
                        let s = &self.syms[t as usize];
                        let Some(recv) = kotlin_lambda_receiver(s.signature, s.name) else { continue };
                        let (q, n) = split_last(recv);
                        out.extend(self.type_named(s.file, Some(t), q, n, 0, 1).into_iter().flatten());
                    }
                    out
                }
                None => match self.receiver_type(file, enclosing, h, line, 1) {
                    Some(c) => c,
                    None => {
                        if let Some(ty) = self.outside_type(file, enclosing, h, line, 1) {
                            let found = applicable(keep(self.extensions_of(Lang::Kotlin, &ty, name)));
                            if !found.is_empty() {
                                return Some(found);
                            }
                        }
                        continue;
                    }
                },
            };
            let mut found: Vec<u32> =
                applicable(classes.iter().flat_map(|&c| self.kotlin_members_and_companion(c, name, ok)).collect());
            if found.is_empty() {
                found = applicable(self.kotlin_extensions(&classes, name, &keep));
            }
            found.sort_unstable();
            found.dedup();
            if !found.is_empty() {
                return Some(found);
            }
        }
        None
    }

    /// Kotlin: the members named `name` of class `c` (its bases' included), else of its
    /// companion object.
    fn kotlin_members_and_companion(&self, c: u32, name: &str, ok: &dyn Fn(&Sym<'_>) -> bool) -> Vec<u32> {
        let keep = |v: Vec<u32>| -> Vec<u32> { v.into_iter().filter(|&i| ok(&self.syms[i as usize])).collect() };
        let found = keep(self.member(c, name, true));
        if !found.is_empty() {
            return found;
        }
        // (The class's own file holds its companion: no key to note.)
        let companions = self.child_table.get(&c).into_iter().flatten().copied().filter(|&k| {
            let s = &self.syms[k as usize];
            s.kind.is_type_like()
                && s.signature.split_whitespace().take_while(|w| *w != "object").any(|w| w == "companion")
        });
        companions.flat_map(|k| keep(self.member(k, name, true))).collect()
    }

    /// Whether class `c` or a base of its (in the repository) names the type `ty` in its
    /// header, as a type from outside the repository it extends or implements.
    fn names_outside_base(&self, c: u32, ty: &str) -> bool {
        let mut queue = vec![c];
        let mut seen: HashSet<u32> = HashSet::default();
        while let Some(x) = queue.pop() {
            if !seen.insert(x) || seen.len() > 64 {
                continue;
            }
            let s = &self.syms[x as usize];
            let sig = if s.lang == Lang::Kotlin { kotlin_supertypes(s.signature) } else { s.signature };
            if sig.split(|ch: char| !(ch.is_alphanumeric() || ch == '_')).any(|w| w == ty) {
                return true;
            }
            queue.extend(self.bases(&x).into_iter().flatten().copied());
        }
        false
    }

    /// Kotlin: a `private` top-level declaration of a file other than `file` (seen only in
    /// its own file).
    fn private_elsewhere(&self, s: &Sym<'_>, file: u32) -> bool {
        s.file != file
            && s.signature.trim_start().starts_with("private ")
            && s.parent
                .and_then(|p| self.by_id.get(&p))
                .is_none_or(|&p| self.syms[p as usize].kind == SymbolKind::Module)
    }

    /// Kotlin: the extension functions named `name` that the repository gives one of
    /// `classes` or a base of theirs (`fun Option<T>.validate()` for an `Option`).
    fn kotlin_extensions(&self, classes: &[u32], name: &str, filter: &dyn Fn(Vec<u32>) -> Vec<u32>) -> Vec<u32> {
        let mut out = Vec::new();
        let mut seen = HashSet::default();
        let mut queue: Vec<u32> = classes.to_vec();
        while let Some(c) = queue.pop() {
            if !seen.insert(c) || seen.len() > 64 {
                continue;
            }
            out.extend(filter(self.extensions_of(Lang::Kotlin, self.syms[c as usize].name, name)));
            queue.extend(self.bases(&c).into_iter().flatten().copied());
        }
        out
    }

    /// Kotlin: whether the type `name` names in `file` is an alias of a function type
    /// (`typealias ValueTransformer<V> = Context.(String) -> V`).
    fn kotlin_fn_alias(&self, file: u32, enclosing: Option<u32>, name: &str) -> bool {
        let alias = |s: &Sym<'_>| kotlin_alias_of_text(s).is_some();
        match self.lookup_name(file, enclosing, name, alias) {
            Some((rung, v)) if rung != Rung::Ambiguous => {
                v.iter().all(|&i| kotlin_alias_of_text(&self.syms[i as usize]).is_some_and(|t| t.contains("->")))
            }
            _ => false,
        }
    }

    /// Kotlin: whether `name` is a type alias of the type named `ty`, directly or through other
    /// aliases (`RawOption` of `OptionWithValues`, through `NullableOption`); by name.
    fn kotlin_alias_of(&self, name: &str, ty: &str) -> bool {
        let mut cur = name;
        for _ in 0..4 {
            let mut targets = self.by_name(cur).into_iter().flatten().filter_map(|&i| {
                let s = &self.syms[i as usize];
                (s.lang == Lang::Kotlin).then(|| kotlin_alias_target(s)).flatten()
            });
            let Some(t) = targets.next() else { return false };
            cur = split_last(t).1;
            if cur == ty {
                return true;
            }
        }
        false
    }

    /// Kotlin: what a bare `name` means as a member of the receiver of the innermost
    /// extension function around (`fun Raw.int() = convert("INT")`): the receiver type's
    /// members (a repository class), else the extensions of that type.
    fn kotlin_extension_this(
        &self,
        file: u32,
        enclosing: Option<u32>,
        name: &str,
        ok: &dyn Fn(&Sym<'_>) -> bool,
    ) -> Option<Vec<u32>> {
        let mut cur = enclosing;
        let (fun, recv) = loop {
            let e = cur?;
            let s = &self.syms[e as usize];
            if s.kind.is_type_like() {
                return None;
            }
            if let Some(r) = kotlin_extension_receiver(s.signature).filter(|_| s.kind.is_callable()) {
                break (e, r);
            }
            cur = s.parent.and_then(|p| self.by_id.get(&p).copied());
        };
        let keep = |v: Vec<u32>| -> Vec<u32> { v.into_iter().filter(|&i| ok(&self.syms[i as usize])).collect() };
        let (q, n) = split_last(recv);
        // (Looked up from around the function: its receiver's name is no member of itself.)
        let around = self.syms[fun as usize].parent.and_then(|p| self.by_id.get(&p).copied());
        let classes = self.type_named(file, around, q, n, 0, 1).unwrap_or_default();
        let mut found: Vec<u32> = classes.iter().flat_map(|&c| keep(self.member(c, name, true))).collect();
        if found.is_empty() {
            found = keep(self.extensions_of(Lang::Kotlin, n, name));
            found.extend(self.kotlin_extensions(&classes, name, &keep));
        }
        found.sort_unstable();
        found.dedup();
        (!found.is_empty()).then_some(found)
    }

    /// C++ and Java: the type of `name`, a member of a base class of the class of the method
    /// `enclosing`, named without `this`.
    fn inherited_member(&self, lang: Lang, enclosing: Option<u32>, name: &str, depth: u8) -> Option<Vec<u32>> {
        if !matches!(lang, Lang::Cpp | Lang::Java) {
            return None;
        }
        let c = enclosing.and_then(|e| self.class_of(e))?;
        self.bases(&c)?.iter().find_map(|&b| self.field_type(b, name, depth + 1))
    }

    /// Rust: the absolute module path (`crate::a::b`) a path written in `file` means,
    /// or `None` when it leaves the repository (`std::…`).
    fn rust_abs(&self, file: u32, enclosing: Option<u32>, segs: &[&str], depth: u8) -> Option<String> {
        let segs: Vec<&str> = segs.iter().map(|s| strip_generics(s)).filter(|s| !s.is_empty()).collect();
        let head = *segs.first()?;
        let cur: Vec<&str> = self.rust_mod[file as usize].split("::").collect();
        let (mut out, rest): (Vec<String>, &[&str]) = match head {
            "crate" => (vec![cur[0].to_string()], &segs[1..]),
            "self" => (cur.iter().map(|s| s.to_string()).collect(), &segs[1..]),
            "super" => {
                let mut o: Vec<String> = cur.iter().map(|s| s.to_string()).collect();
                let mut i = 0;
                while segs.get(i) == Some(&"super") {
                    if o.len() > 1 {
                        o.pop();
                    }
                    i += 1;
                }
                (o, &segs[i..])
            }
            "Self" => {
                let c = enclosing.and_then(|e| self.class_of(e))?;
                (self.syms[c as usize].qualified.split("::").map(str::to_string).collect(), &segs[1..])
            }
            _ => {
                let own = format!("{}::{head}", cur.join("::"));
                let imp = self.imports[file as usize]
                    .iter()
                    .find(|i| i.binding == head && i.member != Some("*") && !(i.member.is_none() && i.module == head));
                if let Some(imp) = imp.filter(|_| depth < 4) {
                    imp.used();
                    let mut msegs: Vec<&str> = imp.module.split("::").map(str::trim).collect();
                    if let Some(m) = imp.member {
                        msegs.push(m);
                    }
                    let a = self.rust_abs(file, enclosing, &msegs, depth + 1)?;
                    (a.split("::").map(str::to_string).collect(), &segs[1..])
                } else if self.rust_prefix(&own) {
                    (own.split("::").map(str::to_string).collect(), &segs[1..])
                } else if self.rust_crates.contains(head) && self.rust_prefix(head) {
                    (vec![head.to_string()], &segs[1..])
                } else {
                    let (rung, v) = self.lookup_name(file, enclosing, head, |s| {
                        s.kind.is_type_like() || s.kind == SymbolKind::Module
                    })?;
                    if rung == Rung::Ambiguous || v.len() != 1 {
                        return None;
                    }
                    (self.syms[v[0] as usize].qualified.split("::").map(str::to_string).collect(), &segs[1..])
                }
            }
        };
        out.extend(rest.iter().map(|s| s.to_string()));
        Some(out.join("::"))
    }

    /// Rust: the item `name` of the module or type at absolute path `abs` (a function
    /// of a module, an associated function or method of a type or trait, or what the
    /// module re-exports).
    fn rust_item(&self, abs: &str, name: &str, ok: &dyn Fn(&Sym<'_>) -> bool) -> Vec<u32> {
        let found: Vec<u32> =
            self.qualified_member(abs, "::", name).iter().copied().filter(|&i| ok(&self.syms[i as usize])).collect();
        if !found.is_empty() {
            return found;
        }
        let types: Vec<u32> = self
            .by_qualified(abs)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| self.syms[i as usize].kind.is_type_like())
            .collect();
        for t in types {
            let found: Vec<u32> =
                self.member(t, name, true).into_iter().filter(|&i| ok(&self.syms[i as usize])).collect();
            if !found.is_empty() {
                return found;
            }
        }
        if let Some(files) = self.rust_mod_files.get(abs) {
            return self.exported(files, name, ok, 1);
        }
        // A type its module re-exports (`pub use store::DataDir;` in lib.rs: `cc_a::DataDir::new`).
        if let Some((module, ty)) = abs.rsplit_once("::") {
            for &t in self
                .rust_mod_files
                .get(module)
                .map(|files| self.exported(files, ty, &|s| s.kind.is_type_like(), 1))
                .iter()
                .flatten()
            {
                let found: Vec<u32> =
                    self.member(t, name, true).into_iter().filter(|&i| ok(&self.syms[i as usize])).collect();
                if !found.is_empty() {
                    return found;
                }
            }
        }
        Vec::new()
    }

    #[allow(clippy::too_many_arguments)]
    fn resolve_with_receiver(
        &self,
        file: u32,
        enclosing: Option<u32>,
        rcv_written: &str,
        name: &str,
        ok: &dyn Fn(&Sym<'_>) -> bool,
        line: u32,
        depth: u8,
    ) -> Option<(Rung, Vec<u32>)> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        let lang = self.lang_of(file);
        let rcv = rcv_written.trim().trim_end_matches("()").trim_start_matches('&').trim_start_matches('*');
        let filter = |v: Vec<u32>| -> Vec<u32> { v.into_iter().filter(|&i| ok(&self.syms[i as usize])).collect() };
        // Rust paths: `crate::m::f`, `super::f`, `self::m::f`, `m::f`, `Type::f`.
        if lang == Lang::Rust && !rcv.contains(['.', '(']) && rcv != "self" {
            let segs: Vec<&str> = rcv.split("::").map(str::trim).collect();
            if let Some(abs) = self.rust_abs(file, enclosing, &segs, 0) {
                let found = self.rust_item(&abs, name, ok);
                if !found.is_empty() {
                    return Some((Rung::Import, found));
                }
            }
        }
        // The object itself: `self`, `this`…; R6's `private`; MATLAB's object in a classdef
        // method, its first parameter or a constructor's result (`obj.reset()`).
        if self_word(lang, rcv)
            || (lang == Lang::R && rcv == "private")
            || (lang == Lang::Matlab && is_ident(rcv) && self.matlab_object(enclosing, rcv))
        {
            let c = enclosing.and_then(|e| self.class_of(e))?;
            let found = filter(self.member(c, name, true));
            return (!found.is_empty()).then_some((Rung::Receiver, found));
        }
        // Java, Kotlin: `Outer.this.m()`, the enclosing instance of an inner class.
        if let Some(outer) = rcv.strip_suffix(".this").filter(|o| is_ident(o)) {
            let c = self.outer_class(enclosing, outer)?;
            let found = filter(self.member(c, name, true));
            return (!found.is_empty()).then_some((Rung::Receiver, found));
        }
        if super_word(lang, rcv) {
            let c = enclosing.and_then(|e| self.class_of(e))?;
            let found = filter(self.member(c, name, false));
            return (!found.is_empty()).then_some((Rung::Receiver, found));
        }
        // A receiver whose type the code states: a typed variable, a field, `new C()`,
        // a call whose target declares its result.
        if binds(lang) {
            if let Some(classes) = self.receiver_type(file, enclosing, rcv_written, line, depth + 1) {
                let mut found = Vec::new();
                for &c in &classes {
                    found.extend(filter(self.member(c, name, true)));
                    // Ada: `Obj.Op (…)` calls a primitive of `Obj`'s type, a subprogram of
                    // the package that declares the type (or of a parent type's).
                    if lang == Lang::Ada && found.is_empty() {
                        found.extend(self.ada_primitives(c, name, &filter));
                    }
                }
                // Kotlin: the extensions the repository gives the type (or a base of it).
                if lang == Lang::Kotlin && found.is_empty() {
                    found.extend(self.kotlin_extensions(&classes, name, &filter));
                }
                // C#: the extension methods the repository gives the type or a type above it
                // (`static int Put(this Table t, …)`), when it has no such member itself.
                if lang == Lang::CSharp && found.is_empty() {
                    for &c in &classes {
                        let mut above = vec![c];
                        let mut seen: HashSet<u32> = HashSet::default();
                        while let Some(x) = above.pop() {
                            if seen.insert(x) && seen.len() < 64 {
                                found.extend(filter(self.extensions_of(lang, self.syms[x as usize].name, name)));
                                above.extend(self.bases(&x).into_iter().flatten().copied());
                            }
                        }
                    }
                }
                found.sort_unstable();
                found.dedup();
                // A known type without that member (a library base class): external.
                return (!found.is_empty()).then_some((Rung::Receiver, found));
            }
        }
        // C#, Kotlin, Swift, Dart: a receiver of a type from outside the repository (a
        // string, `name: String`) has the members the repository's extensions give that type
        // (`fun String.shout()`, `static string Shout(this string s)`, `extension String {…}`,
        // `extension StringX on String {…}`), and no others.
        if matches!(lang, Lang::CSharp | Lang::Kotlin | Lang::Swift | Lang::Dart) {
            if let Some(ty) = self.outside_type(file, enclosing, rcv_written, line, depth + 1) {
                let mut found = filter(self.extensions_of(lang, &ty, name));
                // Kotlin: or of a supertype of the standard library's (`Collection<T>.f()`
                // for a `List`).
                if lang == Lang::Kotlin && found.is_empty() {
                    let sups = KOTLIN_STD.iter().find(|(t, _)| *t == ty).map_or(&[][..], |(_, s)| *s);
                    found = sups.iter().flat_map(|sup| filter(self.extensions_of(lang, sup, name))).collect();
                }
                return (!found.is_empty()).then_some((Rung::Receiver, found));
            }
        }
        // R6: `Counter$new(3)` makes an object, running `initialize`.
        if lang == Lang::R && name == "new" && is_ident(rcv) {
            if let Some((_, classes)) = self.lookup_name(file, enclosing, rcv, |s| s.kind.is_type_like()) {
                let ctors: Vec<u32> = classes.iter().filter_map(|&c| self.constructor(c)).collect();
                if classes.len() == 1 && !ctors.is_empty() {
                    return Some((Rung::Receiver, ctors));
                }
            }
        }
        // MATLAB: `geo.circle_area(r)`, a function of the package folder `+geo`.
        if lang == Lang::Matlab && rcv.split('.').all(is_ident) {
            let found = filter(self.matlab_package_function(rcv, name));
            if !found.is_empty() {
                return Some((Rung::Import, found));
            }
        }
        // C#: a type named through the namespaces around, the `using`s and their aliases.
        if lang == Lang::CSharp && rcv.split('.').all(is_ident) {
            let classes = self.csharp_scoped(file, enclosing, rcv, &|s: &Sym<'_>| s.kind.is_type_like());
            if classes.len() == 1 {
                let found = filter(self.member(classes[0], name, true));
                return (!found.is_empty()).then_some((Rung::Import, found));
            }
        }
        // Ada: `with Geometry.Circles;` then `Geometry.Circles.Area (…)`: the package the
        // receiver names in full, by its qualified name.
        if lang == Lang::Ada {
            if let Some(imp) =
                self.imports_of(file).iter().find(|i| i.member.is_none() && i.module.eq_ignore_ascii_case(rcv))
            {
                imp.used();
                let found = filter(self.qualified_member(&imp.module, ".", name).to_vec());
                if !found.is_empty() {
                    return Some((Rung::Import, found));
                }
            }
            // `Parser.Helpers.Check (…)` inside `HAC_Sys.Builder`: `HAC_Sys.Parser.Helpers`. An
            // instance of a generic package (`package Files is new LZH (…)`; `Files.Encode`):
            // the generic's member; of a generic from outside the repository, not the
            // repository's.
            if rcv.split('.').all(is_ident) {
                for package in self.ada_scoped(enclosing, rcv) {
                    let found = filter(self.qualified_member(&package, ".", name).to_vec());
                    if !found.is_empty() {
                        return Some((Rung::Import, found));
                    }
                    let instance = self.by_qualified(&package).into_iter().flatten().copied().find(|&i| {
                        self.syms[i as usize].kind == SymbolKind::Module
                            && ada_generic_of(self.syms[i as usize].signature).is_some()
                    });
                    if let Some(inst) = instance {
                        let s = &self.syms[inst as usize];
                        let generic = ada_generic_of(s.signature).unwrap_or_default();
                        let around = s.parent.as_ref().and_then(|p| self.by_id.get(p)).copied();
                        for g in self.ada_scoped(around, generic) {
                            let found = filter(self.qualified_member(&g, ".", name).to_vec());
                            if !found.is_empty() {
                                return Some((Rung::Import, found));
                            }
                        }
                        return None;
                    }
                }
            }
        }
        let segs = split_segments(rcv);
        let head = *segs.first()?;
        // A parameter or local variable of unknown type: not a module or a class.
        let local = strict(lang) && lang != Lang::Java && self.shadowed(file, enclosing, head);
        // An import binding: a module (member of its files) or an imported class.
        for imp in &self.imports[file as usize] {
            if imp.binding != head || local {
                continue;
            }
            imp.used();
            match imp.member {
                None => {
                    // (Python's `import pkg.tools.fmt` binds `pkg`: the name is the package, and
                    // `pkg.tools.fmt.render()` names `render` of `pkg.tools.fmt`.)
                    let base: &str =
                        if lang == Lang::Python && imp.module.split('.').next() == Some(imp.binding.as_str()) {
                            &imp.binding
                        } else {
                            &imp.module
                        };
                    let mut files = if base == imp.module { imp.files.clone() } else { self.module_files(file, base) };
                    // `m.sub.f()` names `f` of the module `m.sub`; `m.Class.f()` (no such
                    // module) a member of `Class`, never a top-level `f` of `m`
                    // (`ast::FlagsItemKind::Flag(…)` is not the enum `ast::Flag`).
                    let mut direct = true;
                    if segs.len() > 1 {
                        let deeper = if lang == Lang::Rust {
                            let sub = format!("{}::{}", imp.module, segs[1..].join("::"));
                            self.rust_mod_files.get(sub.as_str()).cloned().unwrap_or_default()
                        } else {
                            self.module_files(file, &format!("{base}.{}", segs[1..].join(".")))
                        };
                        if !deeper.is_empty() {
                            files = deeper;
                        } else {
                            direct = false;
                        }
                    }
                    let found = match direct {
                        false => Vec::new(),
                        true if strict(lang) => self.exported(&files, name, ok, 0),
                        true => filter(self.top_level_in(&files, name, &|_| true)),
                    };
                    if !found.is_empty() {
                        return Some((Rung::Import, found));
                    }
                    // A class of that module used as a qualifier: `mod.Class.method`.
                    if let Some(cls) = segs.get(1) {
                        for c in self.top_level_in(&files, cls, &|s| s.kind.is_type_like()) {
                            let found = filter(self.member(c, name, true));
                            if !found.is_empty() {
                                return Some((Rung::Import, found));
                            }
                        }
                    }
                    // Ada: `with Strings;` then `Strings.Normalize (…)`, a member of the package by
                    // its qualified name (the package's subprograms are its children); C++:
                    // `namespace txt = mylib::text;` then `txt::upper(…)`.
                    if matches!(lang, Lang::Ada | Lang::Cpp) {
                        let found = filter(self.member_under(lang, imp.module.clone(), &segs[1..], name));
                        if !found.is_empty() {
                            return Some((Rung::Import, found));
                        }
                    }
                    return None;
                }
                Some(member) => {
                    let member = split_segments(member).last().copied().unwrap_or(member);
                    let classes = if strict(lang) {
                        self.exported(&imp.files, member, &|s| s.kind.is_type_like(), 0)
                    } else {
                        self.top_level_in(&imp.files, member, &|s| s.kind.is_type_like())
                    };
                    // Several classes (re-exports under `cfg`s): candidates of all of them.
                    let mut found: Vec<u32> =
                        classes.into_iter().flat_map(|c| filter(self.member(c, name, true))).collect();
                    found.sort_unstable();
                    found.dedup();
                    if !found.is_empty() {
                        return Some((Rung::Import, found));
                    }
                    // PHP: an imported namespace as a qualifier (`use League\Ext\CommonMark;`
                    // then `new CommonMark\Renderer\Emphasis()`): the name in the namespace
                    // the import and the rest of the path spell.
                    if lang == Lang::Php {
                        let base = format!("{}{}{member}", imp.module, lang.spec().qualifier);
                        let found = filter(self.member_under(lang, base, &segs[1..], name));
                        if !found.is_empty() {
                            return Some((Rung::Import, found));
                        }
                    }
                    // An import from outside the repository (`java.nio.file.Files`).
                    if strict(lang) && imp.files.is_empty() {
                        return None;
                    }
                }
            }
        }
        // Ruby: a constant path (`Thor::Base.subclasses`, `::Rack::Request.new`) names a class
        // or module by its qualified name, looked up lexically: in each namespace around the
        // call, innermost first, then at the top level.
        if lang == Lang::Ruby && rcv.split("::").all(|s| s.is_empty() || s.starts_with(char::is_uppercase)) {
            if let Some(found) = self.ruby_constant_member(enclosing, rcv, name, &filter) {
                return Some((Rung::Receiver, found));
            }
        }
        // A class (or module) by name: a static call.
        let last = *segs.last()?;
        let by_name = if local {
            None
        } else {
            self.lookup_name(file, enclosing, last, |s| {
                s.kind.is_type_like()
                    || s.kind == SymbolKind::Module
                    // TypeScript: an object literal of functions (`api.load()`).
                    || (matches!(s.lang, Lang::TypeScript | Lang::Tsx)
                        && matches!(s.kind, SymbolKind::Variable | SymbolKind::Constant))
            })
        };
        if let Some((rung, classes)) = by_name {
            let mut found = Vec::new();
            for c in &classes {
                found.extend(filter(self.member(*c, name, true)));
            }
            if !found.is_empty() {
                let rung = if rung == Rung::Ambiguous { Rung::Ambiguous } else { Rung::Receiver };
                return Some((rung, found));
            }
        }
        // An expression whose type is unknown (`obj.save()`): methods of that name
        // anywhere in the language, kept as ambiguous candidates.
        let methods: Vec<u32> = self
            .by_name(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| {
                let s = &self.syms[i as usize];
                s.kind == SymbolKind::Method && compatible(s.lang, lang) && ok(s)
            })
            .collect();
        // C#: when no class of the repository has a method of that name, only extension
        // methods do (`static bool IsName(this Token t)`), and those a namespace the file sees
        // declares are overloads of one: that extension. C# looks extensions up by name, in
        // the namespaces around and the `using`s, once the receiver's type has no such member.
        // (Not on a type's name, `Enumerable.Empty<T>()`: a class of the framework's, which
        // no extension is called on.)
        let type_name = is_ident(rcv)
            && rcv.starts_with(|c: char| c.is_ascii_uppercase())
            && self.binding(file, enclosing, rcv, line, true).is_none()
            && enclosing.and_then(|e| self.class_of(e)).is_none_or(|c| self.member(c, rcv, true).is_empty());
        if lang == Lang::CSharp
            && !type_name
            && !methods.is_empty()
            && methods.iter().all(|&i| csharp_extension(&self.syms[i as usize]))
        {
            let seen: Vec<u32> = methods.iter().copied().filter(|&i| self.csharp_sees(file, enclosing, i)).collect();
            if seen.iter().all(|&i| self.syms[i as usize].qualified == self.syms[seen[0] as usize].qualified)
                && !seen.is_empty()
            {
                return Some((Rung::Import, seen));
            }
        }
        if !methods.is_empty() && methods.len() <= MAX_CANDIDATES {
            return Some((Rung::Ambiguous, methods));
        }
        None
    }

    /// C#: whether the namespace declaring the method `m`'s class is one `file` sees at
    /// `enclosing`: the global one, one around the code, or a `using`'s.
    fn csharp_sees(&self, file: u32, enclosing: Option<u32>, m: u32) -> bool {
        let Some((class, _)) = self.syms[m as usize].qualified.rsplit_once('.') else { return true };
        let Some((ns, _)) = class.rsplit_once('.') else { return true };
        let scope = enclosing.map_or("", |e| self.syms[e as usize].qualified);
        if scope.strip_prefix(ns).is_some_and(|rest| rest.is_empty() || rest.starts_with('.')) {
            return true;
        }
        self.imports_of(file).iter().any(|imp| {
            let hit = imp.member.is_none() && imp.module == ns;
            if hit {
                imp.used();
            }
            hit
        })
    }
}

/// C#: whether `s` is an extension method (`static T Name(this Type x, …)`).
fn csharp_extension(s: &Sym<'_>) -> bool {
    csharp_this_type(s).is_some()
}

/// C#: the type of an extension method's `this` parameter as written (`IEnumerable<T>`,
/// whatever whitespace or line breaks the signature holds before it).
fn csharp_this_type<'s>(s: &Sym<'s>) -> Option<&'s str> {
    if s.lang != Lang::CSharp {
        return None;
    }
    let rest = param_list(s.signature, s.name)?.trim_start().strip_prefix("this")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_start();
    let mut depth = 0i32;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            c if c.is_whitespace() && depth == 0 => return Some(&rest[..i]),
            _ => {}
        }
    }
    None
}

/// C#: whether the extension method `s` extends the type named `ty` (any case, C#'s
/// `string` being `String`): its `this` parameter's type by its last name without type
/// arguments, or one of the method's type parameters (`ToMaybe<T>(this T value)` extends
/// every type).
fn csharp_extends(s: &Sym<'_>, ty: &str) -> bool {
    let Some(this) = csharp_this_type(s) else { return false };
    let base = strip_generics(this).trim_end_matches(['?', '[', ']']);
    let base = base.rsplit('.').next().unwrap_or(base);
    if base.eq_ignore_ascii_case(ty) {
        return true;
    }
    // (The method's own type parameters: `Name<T, U>(`.)
    let Some(at) = s.signature.find(&format!("{}<", s.name)) else { return false };
    let generics = &s.signature[at + s.name.len() + 1..];
    let generics = &generics[..generics.find('>').unwrap_or(0)];
    generics.split(',').any(|g| g.trim() == base)
}

/// Languages whose symbols can call each other (C and C++ share headers; JS and TS
/// import each other).
fn compatible(a: Lang, b: Lang) -> bool {
    use Lang::*;
    a == b
        || matches!((a, b), (C, Cpp) | (Cpp, C))
        || matches!((a, b), (JavaScript | TypeScript | Tsx, JavaScript | TypeScript | Tsx))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value flow reads every reference of its languages' files, for every file: those
    /// languages' records keep their calls decoded (`cc_indexer::References`), or an update
    /// would decode them all again.
    #[test]
    fn the_flow_languages_keep_their_calls_decoded() {
        for lang in Lang::all() {
            assert_eq!(flows(lang), cc_indexer::keeps_calls_decoded(lang), "{lang:?}");
        }
    }

    fn a(min: usize, params: usize, variadic: bool) -> Option<Arity> {
        Some(Arity { min, params, variadic })
    }

    #[test]
    fn a_signature_says_how_many_arguments_a_function_takes() {
        let cases = [
            (Lang::Java, "public String toJson(Object src, Class<?> type)", "toJson", a(2, 2, false)),
            (
                Lang::Java,
                "public <T> T fromJson(String json, Map<String, List<T>> m) throws E",
                "fromJson",
                a(2, 2, false),
            ),
            (Lang::Java, "@SuppressWarnings(\"a, b\") static void f()", "f", a(0, 0, false)),
            (Lang::Java, "static String format(String fmt, Object... args)", "format", a(1, 2, true)),
            (Lang::Java, "void m(Foo this, int x)", "m", a(1, 1, false)),
            (Lang::Java, "public Point(int x, int y)", "Point", a(2, 2, false)),
            (Lang::CSharp, "public void Flush(bool force, int timeout = 10)", "Flush", a(1, 2, false)),
            (Lang::CSharp, "public void Format(string fmt, params object[] args)", "Format", a(1, 2, true)),
            (Lang::CSharp, "public static T Get<T>(this IDictionary<string, T> d, string k)", "Get", a(1, 2, false)),
            (Lang::Kotlin, "fun <T> run(name: String, block: (T, Int) -> Unit)", "run", a(2, 2, false)),
            (Lang::Kotlin, "fun format(fmt: String, vararg args: Any)", "format", a(1, 2, true)),
            (Lang::Kotlin, "class Point(val x: Int, val y: Int = 0) : Shape(\"point\")", "Point", a(1, 2, false)),
            (Lang::Kotlin, "constructor(x: Int) : this(x, 0)", "constructor", a(1, 1, false)),
            (Lang::Cpp, "void Circle::Circle(double r) : Shape(\"circle\")", "Circle", a(1, 1, false)),
            (Lang::Cpp, "int printf(const char* fmt, ...)", "printf", a(1, 2, true)),
            (Lang::Cpp, "int main(void)", "main", a(0, 0, false)),
            (Lang::Cpp, "void sort(Iter b, Iter e, bool (*less)(int, int))", "sort", a(3, 3, false)),
            (Lang::Swift, "func write(_ msg: String, level: Int = 0)", "write", a(1, 2, false)),
            (Lang::Swift, "func sum(_ xs: Int...)", "sum", a(0, 1, true)),
            // No parameter list: nothing is known.
            (Lang::Kotlin, "class Registry", "Registry", None),
            (Lang::Java, "public String toJson(Object src, Class<?> type", "toJson", None),
        ];
        for (lang, sig, name, want) in cases {
            assert_eq!(arity(lang, sig, name), want, "{lang} {sig}");
        }
        let join = arity(Lang::Java, "String join(String sep, String... parts)", "join").unwrap();
        assert!(join.admits(1) && join.admits(2) && join.admits(5));
        assert!(!join.admits_unexpanded(1) && join.admits_unexpanded(2) && !join.admits_unexpanded(3));
        let flush = arity(Lang::CSharp, "void Flush(bool force, int timeout = 10)", "Flush").unwrap();
        assert!(!flush.admits(0) && flush.admits(1) && flush.admits(2) && !flush.admits(3));
    }

    #[test]
    fn an_ada_signature_says_its_parameters() {
        let sig = "function F (A, B : in out Pkg.T'Class; C : Float := G (1, 2)) return T";
        assert_eq!(ada_arity(sig), a(2, 3, false));
        assert_eq!(ada_param_types(sig), Some(vec!["t".to_string(), "t".to_string(), "float".to_string()]));
        assert_eq!(ada_arity("procedure Reset"), a(0, 0, false));
        assert_eq!(ada_param_types("procedure Reset"), None);
        assert_eq!(ada_arity("procedure P is new G (Integer)"), None);
        assert_eq!(ada_actual("package P is new G (A, Write => W (1, 2), C)", "Write", 5), Some("W (1, 2)"));
        assert_eq!(ada_actual("package P is new G (A, Write => W (1, 2), C)", "Read", 1), Some("C"));
    }

    #[test]
    fn a_call_text_says_how_many_arguments_it_passes() {
        assert_eq!(text_arg_count("getAdapter(Foo.class)"), Some(1));
        assert_eq!(text_arg_count("f()"), Some(0));
        assert_eq!(text_arg_count("a.b(x, g(y, z), \"p, q\", ',')"), Some(4));
        assert_eq!(text_arg_count("make(new HashMap<String, Integer>(), n)"), Some(2));
        assert_eq!(text_arg_count("cmp(a < b, c)"), Some(2));
        assert_eq!(text_arg_count("f(\"unterminated)"), None);
        assert_eq!(text_arg_count("f"), None);
    }
}
