//! Parse one file and run its language's tags query: source bytes in, records out.
//!
//! One [`Extractor`] per worker thread (it owns the tree-sitter parser and query
//! cursor). Extraction never fails: a file with syntax errors yields what parsed plus a
//! diagnostic.

use rustc_hash::FxHashMap as HashMap;

use cc_grammars::captures::{self, Role};
use tree_sitter::{Node, Parser, QueryCursor, StreamingIterator};

mod c_text;

use crate::record::{
    Arg, CompactString, Diagnostic, Lang, RefKind, Reference, Slot, Span, Symbol, SymbolId, SymbolKind,
};

/// What one file yields.
#[derive(Debug, Default)]
pub struct Extracted {
    pub symbols: Vec<Symbol>,
    pub references: Vec<Reference>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A parser and query cursor, reused across files by one worker.
pub struct Extractor {
    parser: Parser,
    cursor: QueryCursor,
    current: Option<Lang>,
    roles: HashMap<Lang, Vec<Role>>,
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

struct RawDef<'t> {
    node: Node<'t>,
    start: usize,
    end: usize,
    name: String,
    kind: SymbolKind,
    doc: Option<String>,
    is_scope: bool,
    /// A function without a name (a lambda, an arrow function passed along): named
    /// `<lambdaN>` once nesting is known, N counting the anonymous functions of its scope.
    anonymous: bool,
    /// The name node's range (the node's own for an anonymous function).
    name_range: std::ops::Range<usize>,
    /// Ada: the parent units a child unit's name is written with (`Zip.Compress` of
    /// `procedure Zip.Compress.Deflate`), part of its qualified name, not of its name.
    outer: Option<String>,
}

struct RawRef {
    start: usize,
    /// The name node's range: a call's, for the arguments passed to it to find it.
    range: std::ops::Range<usize>,
    name: CompactString,
    kind: RefKind,
    span: Span,
    receiver: Option<CompactString>,
    module: Option<CompactString>,
    alias: Option<CompactString>,
    /// For an argument: the name node of its call, and its slot there.
    arg: Option<(std::ops::Range<usize>, Slot)>,
    /// For a call: how many arguments it passes, when its node shows them.
    args: Option<usize>,
    /// C++, for a call: a variable declared without an initialiser (`Status s;`).
    declared: bool,
    /// Ada, for a call: a name read as a value (`X := Next;`), a call only of a subprogram.
    bare: bool,
    /// Java, for a call: what its arguments are; Rust, for a macro invocation: its tokens
    /// ([`Reference::arg_types`]).
    arg_types: Option<CompactString>,
    /// Kotlin: the implicit receivers of the lambdas around a call without a receiver
    /// ([`Reference::implicit_receivers`]).
    implicit: Option<CompactString>,
}

/// The name of the `n`-th (1-based) anonymous function of a scope.
pub fn lambda_name(n: usize) -> String {
    format!("<lambda{n}>")
}

/// Longest signature kept, in bytes.
const MAX_SIGNATURE: usize = 400;
/// Longest Kotlin expression body of several lines a signature shows whole, in bytes.
const MAX_EXPRESSION_BODY: usize = 160;
/// Longest doc comment kept, in bytes.
const MAX_DOC: usize = 2000;
/// Longest receiver text kept, in bytes.
const MAX_RECEIVER: usize = 120;

impl Extractor {
    pub fn new() -> Extractor {
        Extractor { parser: Parser::new(), cursor: QueryCursor::new(), current: None, roles: HashMap::default() }
    }

    /// Parses `source` as `lang` and extracts its symbols and references. `path` is the
    /// repository-relative path, used for ids, qualified names and diagnostics.
    pub fn extract(&mut self, lang: Lang, path: &str, source: &[u8]) -> Extracted {
        self.extract_in(lang, path, &module_path(lang, path), source)
    }

    /// [`Extractor::extract`] with the module prefix of the file's qualified names given
    /// (what [`crate::modules`] reads from the repository's manifests).
    pub fn extract_in(&mut self, lang: Lang, path: &str, module: &str, source: &[u8]) -> Extracted {
        let mut out = Extracted::default();
        if self.current != Some(lang) {
            if let Err(e) = self.parser.set_language(&lang.grammar()) {
                out.diagnostics.push(diag(path, None, format!("grammar for {lang} cannot load: {e}")));
                return out;
            }
            self.current = Some(lang);
        }
        let query = match lang.try_tags_query() {
            Ok(q) => q,
            Err(e) => {
                out.diagnostics.push(diag(path, None, e.to_string()));
                return out;
            }
        };
        // (Node ranges are the source's; texts are read from it.)
        let Some(mut tree) = self.parser.parse(lang.parse_source(source).as_ref(), None) else {
            out.diagnostics.push(diag(path, None, "the parser gave up on this file".into()));
            return out;
        };
        // C and C++: where `#if` branches split a statement (`x =\n#ifdef A\n a :\n#endif\n b;`,
        // two `if (…) {` heads under `#ifdef`/`#else`), the grammar cannot parse the function
        // around them. The file is read again as the preprocessor would with every condition's
        // first branch taken (`#if 0`: its `#else`), the others blanked; that reading is kept
        // when it parses with fewer errors.
        //
        // Then macros that stand for attributes (`class LEVELDB_EXPORT Status {`, `void Lock()
        // EXCLUSIVE_LOCK_FUNCTION() {`, `int n_ GUARDED_BY(mu_);`) are blanked, where a name
        // cannot be, and that reading is kept when it parses with fewer errors.
        let first_branches;
        let attributes_blanked;
        let mut source = source;
        if matches!(lang, Lang::C | Lang::Cpp) && tree.root_node().has_error() {
            first_branches = c_text::first_branches(source);
            if let Some(masked) = first_branches.as_deref() {
                if let Some(t) = self.parser.parse(masked, None) {
                    if error_count(t.root_node()) < error_count(tree.root_node()) {
                        (tree, source) = (t, masked);
                    }
                }
            }
        }
        if matches!(lang, Lang::C | Lang::Cpp) && tree.root_node().has_error() {
            attributes_blanked = c_text::blank_attribute_macros(source);
            if let Some(masked) = attributes_blanked.as_deref() {
                if let Some(t) = self.parser.parse(masked, None) {
                    if error_count(t.root_node()) < error_count(tree.root_node()) {
                        (tree, source) = (t, masked);
                    }
                }
            }
        }
        let root = tree.root_node();
        if root.has_error() {
            let line = first_error(root).map(|n| n.start_position().row as u32 + 1);
            out.diagnostics.push(diag(path, line, "syntax errors; symbols were extracted from what parsed".into()));
        }

        let roles =
            self.roles.entry(lang).or_insert_with(|| query.capture_names().iter().map(|n| captures::role(n)).collect());

        let mut defs: Vec<RawDef<'_>> = Vec::new();
        let mut refs: Vec<RawRef> = Vec::new();
        // One definition per name node and one reference per (name node, kind): the
        // match of the earliest pattern wins, whatever order tree-sitter reports them in.
        let mut def_at: HashMap<std::ops::Range<usize>, (usize, usize)> = HashMap::default();
        // MATLAB: per function, its variables and where each becomes one (see `matlab_variables`).
        let mut matlab_vars: HashMap<usize, HashMap<String, usize>> = HashMap::default();
        let mut ada_locals: HashMap<usize, HashMap<String, String>> = HashMap::default();
        let mut ref_at: HashMap<(std::ops::Range<usize>, RefKind), (usize, usize)> = HashMap::default();

        let mut matches = self.cursor.matches(query, root, source);
        while let Some(m) = matches.next() {
            let mut main: Option<(Role, Node<'_>)> = None;
            let mut name: Option<Node<'_>> = None;
            let mut docs: Vec<Node<'_>> = Vec::new();
            let mut receiver: Option<Node<'_>> = None;
            let mut receiver_end = 0;
            let mut module = None;
            let mut alias = None;
            let mut arg_of = None;
            let mut arg_list = None;
            let mut returns = false;
            let mut entry_key: Option<Node<'_>> = None;
            let mut elements = false;
            let mut scope: Option<Node<'_>> = None;
            let mut decorates: Option<(Node<'_>, &str)> = None;
            for c in m.captures {
                match roles[c.index as usize] {
                    r @ (Role::Definition(_) | Role::Reference(_) | Role::Scope) => {
                        if main.is_none() {
                            main = Some((r, c.node));
                        }
                    }
                    Role::Name => {
                        if name.is_none() {
                            name = Some(c.node);
                        }
                    }
                    Role::Doc => docs.push(c.node),
                    // A receiver captured on several sibling nodes (`parser` `("x")` in a
                    // macro's token tree) is the text from the first to the last.
                    Role::Receiver => {
                        receiver = receiver.or(Some(c.node));
                        receiver_end = receiver_end.max(c.node.end_byte());
                    }
                    Role::ImportModule => module = module.or(Some(c.node)),
                    Role::ImportAlias => alias = alias.or(Some(c.node)),
                    Role::ArgOf => arg_of = arg_of.or(Some(c.node)),
                    Role::ArgList => arg_list = arg_list.or(Some(c.node)),
                    Role::FlowReturn => returns = true,
                    Role::FlowKey => entry_key = entry_key.or(Some(c.node)),
                    Role::BindingElements => elements = true,
                    Role::BindingScope => scope = scope.or(Some(c.node)),
                    Role::Decorates => decorates = Some((c.node, "@")),
                    Role::DecoratesResult => decorates = Some((c.node, "@@")),
                    Role::Ignored => {}
                }
            }
            let Some((role, node)) = main else { continue };
            match role {
                Role::Definition(_) | Role::Scope => {
                    // A function without a name node is anonymous: keyed by its own node.
                    let anonymous = name.is_none() && role == Role::Definition(SymbolKind::Function);
                    let Some(mut name_node) = name.or(anonymous.then_some(node)) else { continue };
                    if matches!(lang, Lang::C | Lang::Cpp) {
                        name_node = c_name_after_a_macro(name_node).unwrap_or(name_node);
                    }
                    let text =
                        if anonymous { String::new() } else { clean_name(&node_text(name_node, source)).to_string() };
                    if text.is_empty() && !anonymous {
                        continue;
                    }
                    let slot = match def_at.get(&name_node.byte_range()) {
                        Some(&(p, _)) if p <= m.pattern_index => continue,
                        Some(&(_, i)) => Some(i),
                        None => None,
                    };
                    let kind = if let Role::Definition(k) = role { k } else { SymbolKind::Module };
                    // A module declared without a body (`namespace A\\B;`, `package a.b;`)
                    // holds what follows it, up to the end of its parent.
                    // (`Node::parent` walks down from the root: asked only of modules.) An Ada
                    // package declaration holds its declarations up to its `end Name;`; an
                    // empty Ruby module (`module Rack; end`) ends at its `end`.
                    let bodiless_module = kind == SymbolKind::Module
                        && matches!(role, Role::Definition(_))
                        && !matches!(lang, Lang::Ada | Lang::Ruby)
                        && find_body(node).is_none();
                    let end = match node.parent() {
                        Some(p) if bodiless_module => p.end_byte(),
                        _ => node.end_byte(),
                    };
                    // (Ada: `package Zip.Compress is` is `Compress`, of `Zip`.)
                    let (text, outer) = match text.rsplit_once('.') {
                        Some((outer, last)) if lang == Lang::Ada && !last.is_empty() => {
                            (last.to_string(), Some(outer.to_string()))
                        }
                        _ => (text, None),
                    };
                    let def = RawDef {
                        node,
                        start: node.start_byte(),
                        end,
                        name: text,
                        outer,
                        kind,
                        doc: if docs.is_empty() { None } else { Some(docs_text(&docs, source)) },
                        is_scope: matches!(role, Role::Scope),
                        anonymous,
                        name_range: name_node.byte_range(),
                    };
                    let i = match slot {
                        Some(i) => {
                            defs[i] = def;
                            i
                        }
                        None => {
                            defs.push(def);
                            defs.len() - 1
                        }
                    };
                    def_at.insert(name_node.byte_range(), (m.pattern_index, i));
                }
                Role::Reference(kind) => {
                    let name_node = name.or(if kind == RefKind::Import { module } else { None });
                    let Some(name_node) = name_node else { continue };
                    let raw = node_text(name_node, source);
                    // An iterable, a context manager or an operand is an expression: kept as written, short.
                    let text = if matches!(kind, RefKind::Iteration | RefKind::Context | RefKind::Operator) {
                        CompactString::from(truncate(collapse_ws(clean_name(&raw)), MAX_RECEIVER))
                    } else {
                        CompactString::from(clean_name(&raw))
                    };
                    if text.is_empty() || (kind == RefKind::Call && lang == Lang::Cpp && extern_declaration(node)) {
                        continue;
                    }
                    // Python: `self` or `cls` passed along is the instance or the class, a value
                    // (the query's argument patterns capture every name as a callback: one
                    // pattern fewer per form tried at every call).
                    let kind = match kind {
                        RefKind::Callback
                            if lang == Lang::Python
                                && receiver.is_none()
                                && matches!(text.as_str(), "self" | "cls") =>
                        {
                            RefKind::Value
                        }
                        k => k,
                    };
                    // MATLAB: `window(2)` where `window` is a variable of the function (a
                    // parameter, its result, or assigned before) indexes it: no call.
                    if kind == RefKind::Call && lang == Lang::Matlab && receiver.is_none() {
                        let mut f = name_node.parent();
                        while let Some(n) = f.filter(|n| n.kind() != "function_definition") {
                            f = n.parent();
                        }
                        if let Some(f) = f {
                            let vars = matlab_vars.entry(f.id()).or_insert_with(|| matlab_variables(f, source));
                            if vars.get(text.as_str()).is_some_and(|&at| at <= name_node.start_byte()) {
                                continue;
                            }
                        }
                    }
                    // Ada: a name read as a value calls the subprogram it names, if it names
                    // one (`X := Next;`); a variable, parameter or loop parameter of a scope
                    // around is no call.
                    // (Nor is a name given to a pragma, as a generic's actual, or in an
                    // aspect: `pragma Inline (F)`, `is new G (F)`, `with Pre => Ready`.)
                    let bare = kind == RefKind::Call && lang == Lang::Ada && ADA_VALUE_KINDS.contains(&node.kind());
                    if bare
                        && (text.eq_ignore_ascii_case("all")
                            || ada_inside(node, &["pragma_g", "generic_instantiation", "aspect_specification"])
                            || receiver.is_none()
                                && ada_declared_around(name_node, &text, source, &mut ada_locals).is_some())
                    {
                        continue;
                    }
                    let key = (name_node.byte_range(), kind);
                    let slot = match ref_at.get(&key) {
                        Some(&(p, _)) if p <= m.pattern_index => continue,
                        Some(&(_, i)) => Some(i),
                        None => None,
                    };
                    let arg = arg_of.map(|of| (of.byte_range(), arg_slot(arg_list, name_node)));
                    let alias = match (returns, alias) {
                        (true, _) => Some(CompactString::const_new("return")),
                        (false, _) if decorates.is_some() => {
                            let (n, mark) = decorates.expect("decorates");
                            Some(compact_str::format_compact!("{mark}{}", clean_name(&node_text(n, source))))
                        }
                        // An object literal's entry: stored under its key (`o = {k: f}`: `o.k`).
                        (false, Some(n)) => Some(match entry_key {
                            Some(k) => compact_str::format_compact!(
                                "{}.{}",
                                clean_name(&node_text(n, source)),
                                entry_key_text(k, source)
                            ),
                            None if elements => compact_str::format_compact!("{}[]", clean_name(&node_text(n, source))),
                            None if scope.is_some() => {
                                compact_str::format_compact!("{}?", clean_name(&node_text(n, source)))
                            }
                            None => clean_name(&node_text(n, source)).into(),
                        }),
                        // A keyword argument's keyword.
                        (false, None) => match arg {
                            Some((_, Slot::Keyword)) => keyword_of(arg_list, name_node, source),
                            _ => None,
                        },
                    };
                    let binds = alias.is_some();
                    let r = RawRef {
                        start: name_node.start_byte(),
                        range: name_node.byte_range(),
                        name: text,
                        kind,
                        span: match scope {
                            // A scoped binding: from its type's name to the scope's end.
                            Some(s) => Span::from_node(&name_node).until(&s),
                            None => Span::from_node(&name_node),
                        },
                        receiver: receiver.map(|n| {
                            let text = String::from_utf8_lossy(&source[n.start_byte()..receiver_end.max(n.end_byte())]);
                            // Kotlin: `!a.isEmpty()` is read as `(!a).isEmpty()`.
                            let text = match lang {
                                Lang::Kotlin => text.trim_start_matches(['!', '-', '+']),
                                _ => &text,
                            };
                            truncate(collapse_ws(text), MAX_RECEIVER).into()
                        }),
                        module: module.map(|n| clean_name(&node_text(n, source)).into()),
                        alias,
                        arg,
                        args: if kind == RefKind::Call { arg_count(lang, node) } else { None },
                        declared: kind == RefKind::Call && lang == Lang::Cpp && declared_without_initialiser(node),
                        bare,
                        arg_types: match (kind, lang) {
                            (RefKind::Call, Lang::Java) if node.kind() == "string_literal" => {
                                java_method_type(node, source)
                            }
                            (RefKind::Call, Lang::Java) => java_arg_types(node, source),
                            (RefKind::Call, Lang::Kotlin) => kotlin_arg_types(node, source),
                            (RefKind::Call, Lang::CSharp) => csharp_arg_types(node, source),
                            (RefKind::Call, Lang::Ada) => ada_arg_types(node, source, &mut ada_locals),
                            (RefKind::Call, Lang::Rust) => rust_macro_tokens(node, name_node, source),
                            // (A Kotlin variable's declared type's arguments: `Cmd` of `List<Cmd>`.)
                            (RefKind::Type, Lang::Kotlin) if binds => kotlin_type_args(name_node, source),
                            _ => None,
                        },
                        implicit: match (kind, lang) {
                            (RefKind::Call, Lang::Kotlin) if receiver.is_none() => {
                                kotlin_implicit_receivers(node, source)
                            }
                            _ => None,
                        },
                    };
                    let i = match slot {
                        Some(i) => {
                            refs[i] = r;
                            i
                        }
                        None => {
                            refs.push(r);
                            refs.len() - 1
                        }
                    };
                    ref_at.insert(key, (m.pattern_index, i));
                }
                _ => {}
            }
        }
        // C and C++: what a macro's body calls (the preprocessor's text, which the grammar
        // leaves unparsed), parsed apart.
        if matches!(lang, Lang::C | Lang::Cpp) && defs.iter().any(|d| d.kind == SymbolKind::Macro) {
            refs.extend(macro_body_calls(&mut self.parser, &mut self.cursor, query, roles, lang, &defs, source));
        }

        if lang == Lang::Kotlin {
            refs.extend(kotlin_it_bindings(root, source));
        }
        // Nesting: sort outermost-first, then sweep with a stack of open definitions.
        // Equal ranges: a scope before the definition it qualifies.
        defs.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)).then(b.is_scope.cmp(&a.is_scope)));
        // An anonymous function that a named pattern defines too (`square = lambda x: …`)
        // is that definition.
        if defs.iter().any(|d| d.anonymous) {
            let named: rustc_hash::FxHashSet<(usize, usize)> =
                defs.iter().filter(|d| !d.anonymous).map(|d| (d.node.start_byte(), d.node.end_byte())).collect();
            defs.retain(|d| !d.anonymous || !named.contains(&(d.node.start_byte(), d.node.end_byte())));
        }
        // TypeScript overloads: the signatures before an implementation declare that one
        // function (one symbol to the compiler), not functions of their own.
        if matches!(lang, Lang::TypeScript | Lang::Tsx) {
            merge_overloads(&mut defs, root, source);
        }
        if lang == Lang::Asm {
            extend_labels(&mut defs, source.len());
        }
        let mut parents: Vec<Option<usize>> = Vec::with_capacity(defs.len());
        let mut stack: Vec<usize> = Vec::new();
        for (i, d) in defs.iter().enumerate() {
            // Definitions sharing one node (`int A = 1, B = 2;`) are siblings, not nested.
            while stack.last().is_some_and(|&t| {
                defs[t].end <= d.start || (!defs[t].is_scope && defs[t].start == d.start && defs[t].end == d.end)
            }) {
                stack.pop();
            }
            parents.push(stack.last().copied());
            stack.push(i);
        }
        // Ada: a generic's formal subprogram is a member of the unit the generic declares
        // (`generic with function Read_Byte …; package LZ is`: `LZ.Read_Byte`).
        if lang == Lang::Ada && defs.iter().any(|d| d.node.kind() == "formal_concrete_subprogram_declaration") {
            let at: HashMap<usize, usize> = defs.iter().enumerate().map(|(i, d)| (d.node.id(), i)).collect();
            for i in 0..defs.len() {
                if defs[i].node.kind() != "formal_concrete_subprogram_declaration" {
                    continue;
                }
                let mut g = defs[i].node.parent();
                while let Some(n) =
                    g.filter(|n| !(n.kind().starts_with("generic_") && n.kind() != "generic_formal_part"))
                {
                    g = n.parent();
                }
                let Some(g) = g else { continue };
                let mut c = g.walk();
                let unit = g.named_children(&mut c).find_map(|n| at.get(&n.id()).copied());
                if unit.is_some() {
                    parents[i] = unit;
                }
            }
        }
        // Anonymous functions are numbered per scope, in source order; a reference naming
        // one's node (a lambda passed or assigned) names it so.
        let mut anonymous_names: HashMap<std::ops::Range<usize>, (String, usize)> = HashMap::default();
        if defs.iter().any(|d| d.anonymous) {
            let mut count: HashMap<Option<usize>, usize> = HashMap::default();
            for i in 0..defs.len() {
                if defs[i].anonymous {
                    let n = count.entry(parents[i]).or_insert(0);
                    *n += 1;
                    defs[i].name = lambda_name(*n);
                    anonymous_names.insert(defs[i].node.byte_range(), (defs[i].name.clone(), i));
                }
            }
        }

        // Qualified names, then ids of the definitions that are symbols.
        let prefix = module;
        let sep = lang.spec().qualifier;
        // (A parent comes before its children, but for an Ada formal subprogram, whose unit
        // follows the generic's formal part: those are named last.)
        let mut qualified: Vec<String> = vec![String::new(); defs.len()];
        let forward = |i: usize| parents[i].is_some_and(|p| p > i);
        for i in (0..defs.len()).filter(|&i| !forward(i)).chain((0..defs.len()).filter(|&i| forward(i))) {
            let d = &defs[i];
            qualified[i] = match (parents[i], &d.outer) {
                (Some(p), _) => format!("{}{sep}{}", qualified[p], d.name),
                (None, Some(outer)) => format!("{outer}{sep}{}", d.name),
                (None, None) if prefix.is_empty() => d.name.clone(),
                (None, None) => format!("{prefix}{sep}{}", d.name),
            };
        }
        let mut seen: HashMap<(String, SymbolKind), u32> = HashMap::default();
        let mut kinds: Vec<SymbolKind> = Vec::with_capacity(defs.len());
        let mut ids: Vec<Option<SymbolId>> = Vec::with_capacity(defs.len());
        for (i, d) in defs.iter().enumerate() {
            let mut kind = d.kind;
            if kind == SymbolKind::Function {
                if let Some(p) = parents[i] {
                    if defs[p].is_scope || defs[p].kind.is_type_like() {
                        kind = SymbolKind::Method;
                    }
                }
            }
            kinds.push(kind);
            if d.is_scope {
                ids.push(None);
                continue;
            }
            let n = seen.entry((qualified[i].clone(), kind)).or_insert(0);
            ids.push(Some(SymbolId::compute(path, &qualified[i], kind, *n)));
            *n += 1;
        }
        // A scope (`impl Circle`, a Go receiver type, `Circle::` out of line) stands for
        // the type of the same qualified name in this file: its members get that type as
        // parent, and what the scope's header references is enclosed by the type.
        let types: HashMap<&str, SymbolId> = (0..defs.len())
            .filter(|&i| !defs[i].is_scope && kinds[i].is_type_like())
            .filter_map(|i| Some((qualified[i].as_str(), ids[i]?)))
            .collect();
        let owner: Vec<Option<SymbolId>> = (0..defs.len())
            .map(|i| if defs[i].is_scope { types.get(qualified[i].as_str()).copied() } else { ids[i] })
            .collect();
        // Doc comments above the definitions that no `@doc` capture documented.
        let undocumented: Vec<Node<'_>> = defs
            .iter()
            .enumerate()
            .filter(|&(i, d)| ids[i].is_some() && d.doc.is_none())
            .map(|(_, d)| d.node)
            .collect();
        let mut above = preceding_docs(root, &undocumented, source);
        // Exact capacities: the records of every file stay in memory for the whole run.
        out.symbols.reserve_exact(ids.iter().flatten().count());
        for (i, d) in defs.iter().enumerate() {
            let Some(id) = ids[i] else { continue };
            let parent = ancestors(&parents, i).find_map(|a| owner[a]);
            let doc = d.doc.clone().or_else(|| above.get_mut(&d.node.id()).and_then(Option::take));
            out.symbols.push(Symbol {
                id,
                name: d.name.clone(),
                kind: kinds[i],
                qualified_name: qualified[i].clone(),
                parent,
                lang,
                path: path.to_string(),
                span: Span::from_node(&d.node),
                signature: signature(d.node, source),
                // A container's body is its members, which carry their own windows.
                body: if kinds[i].is_type_like() || kinds[i] == SymbolKind::Module {
                    String::new()
                } else {
                    body_window(d.node, source, &d.name)
                },
                doc: doc.map(|s| plain_doc(lang, s)).filter(|s| !s.is_empty()).map(|s| truncate(s, MAX_DOC)),
            });
        }

        // Enclosing symbol of each reference: the same sweep over reference positions.
        refs.sort_by_key(|r| r.start);
        // (The reference is in the scope around the function it names, not inside it: an
        // anonymous one's node, or the name of a function expression passed or returned.)
        let mut named_def: Vec<Option<usize>> = vec![None; refs.len()];
        let named_values: HashMap<std::ops::Range<usize>, usize> =
            if refs.iter().any(|r| matches!(r.kind, RefKind::Value | RefKind::Callback)) {
                defs.iter().enumerate().filter(|(_, d)| !d.anonymous).map(|(i, d)| (d.name_range.clone(), i)).collect()
            } else {
                HashMap::default()
            };
        for (k, r) in refs.iter_mut().enumerate() {
            if let Some((n, i)) = anonymous_names.get(&r.range) {
                r.name = n.as_str().into();
                named_def[k] = Some(*i);
            } else if matches!(r.kind, RefKind::Value | RefKind::Callback) {
                named_def[k] = named_values.get(&r.range).copied();
            }
        }
        // An argument's call, by the call's name node (the first call reference there).
        let calls: HashMap<std::ops::Range<usize>, u32> = if refs.iter().any(|r| r.arg.is_some()) {
            let mut m = HashMap::default();
            for (i, r) in refs.iter().enumerate().filter(|(_, r)| r.kind == RefKind::Call) {
                m.entry(r.range.clone()).or_insert(i as u32);
            }
            m
        } else {
            HashMap::default()
        };
        out.references.reserve_exact(refs.len());
        let mut stack: Vec<usize> = Vec::new();
        let mut next = 0;
        for (k, r) in refs.into_iter().enumerate() {
            while next < defs.len() && defs[next].start <= r.start {
                while stack.last().is_some_and(|&t| defs[t].end <= defs[next].start) {
                    stack.pop();
                }
                stack.push(next);
                next += 1;
            }
            while stack.last().is_some_and(|&t| defs[t].end <= r.start) {
                stack.pop();
            }
            // Local labels (`.L1:`) are symbols but not callers: their function is. So is an
            // Ada constant declared in a subprogram (`Id : constant Positive := Next_Id;`).
            let in_callable =
                |t: usize| stack.iter().any(|&u| u != t && kinds[u].is_callable() && defs[u].end > r.start);
            let around = stack.iter().rev().copied().find(|&t| {
                defs[t].end > r.start
                    && kinds[t] != SymbolKind::Label
                    && !(lang == Lang::Ada && kinds[t] == SymbolKind::Constant && in_callable(t))
                    && Some(t) != named_def[k]
                    && owner[t].is_some()
            });
            let enclosing = around.and_then(|t| owner[t]);
            let arm = around.filter(|_| lang == Lang::Rust).map_or(0, |t| macro_arm_at(defs[t].node, r.start));
            let arg = r.arg.and_then(|(of, slot)| Some(Arg { call: *calls.get(&of)?, slot }));
            let reference = Reference::new(r.name, r.kind, r.span, enclosing, r.receiver, r.module, r.alias)
                .with_arg(arg)
                .with_arg_count(r.args)
                .with_arg_types(r.arg_types)
                .with_macro_arm(arm)
                .with_implicit_receivers(r.implicit);
            out.references.push(match (r.declared, r.bare) {
                (true, _) => reference.declared(),
                (_, true) => reference.bare(),
                _ => reference,
            });
        }
        out
    }
}

/// The argument of `list` that holds `node`: its child (comments aside) whose range
/// contains it.
fn argument_of<'t>(list: Node<'t>, node: Node<'t>) -> Option<(usize, Node<'t>)> {
    let mut cursor = list.walk();
    let found = list
        .named_children(&mut cursor)
        .filter(|c| !is_comment(c))
        .enumerate()
        .find(|(_, c)| c.start_byte() <= node.start_byte() && node.end_byte() <= c.end_byte());
    found
}

/// An argument's slot: its position in `list`, or keyword, `*args`, `**kwargs`. Without a
/// list (a decorator applied to the function below it) it is the first argument.
fn arg_slot(list: Option<Node<'_>>, node: Node<'_>) -> Slot {
    let Some((i, arg)) = list.and_then(|l| argument_of(l, node)) else {
        return Slot::Position(0);
    };
    match arg.kind() {
        "list_splat" | "spread_element" | "splat_argument" => Slot::Star,
        "dictionary_splat" | "hash_splat_argument" => Slot::StarStar,
        "keyword_argument" | "named_argument" if arg.id() != node.id() => Slot::Keyword,
        _ => Slot::Position(i.min(u16::MAX as usize) as u16),
    }
}

/// How many arguments the call `call` (a call reference's node) passes: the named children
/// of its argument list (comments aside), a trailing lambda (Kotlin, Swift) counted as
/// one more. `None` when the node shows no argument list (a C++ declaration
/// `Circle c(2.0)`, a decorator, a Kotlin infix call), so that nothing is concluded.
fn arg_count(lang: Lang, call: Node<'_>) -> Option<usize> {
    fn count(list: Node<'_>) -> usize {
        let mut c = list.walk();
        let n = list.named_children(&mut c).filter(|x| !is_comment(x)).count();
        n
    }
    /// Value arguments and trailing lambdas among `node`'s children (Kotlin, Swift).
    fn suffix(node: Node<'_>) -> Option<Option<usize>> {
        let mut cursor = node.walk();
        let mut n = None;
        for c in node.named_children(&mut cursor) {
            match c.kind() {
                // (Swift: `xs[i]` is a call suffix in brackets: no call.)
                "value_arguments" if c.child(0).is_some_and(|p| p.kind() == "[") => return Some(None),
                "value_arguments" => n = Some(n.unwrap_or(0) + count(c)),
                "annotated_lambda" | "lambda_literal" => n = Some(n.unwrap_or(0) + 1),
                "call_suffix" => return suffix(c),
                _ => {}
            }
        }
        n.map(Some)
    }
    if let Some(list) = call.child_by_field_name("arguments") {
        return Some(count(list));
    }
    // Ada: `F (A, B => C)`; a procedure call without a list (`Reset;`) passes none.
    if lang == Lang::Ada {
        let mut cursor = call.walk();
        let list = call.named_children(&mut cursor).find(|c| c.kind() == "actual_parameter_part");
        return match list {
            Some(list) => Some(count(list)),
            None => (call.kind() == "procedure_call_statement").then_some(0),
        };
    }
    let mut cursor = call.walk();
    if let Some(list) = call.named_children(&mut cursor).find(|c| matches!(c.kind(), "argument_list" | "arguments")) {
        return Some(count(list));
    }
    let mut n = suffix(call)??;
    // Kotlin: `run(3) { … }` is the call `run(3)` called with the lambda.
    if lang == Lang::Kotlin && call.next_named_sibling().is_some_and(|s| s.kind() == "annotated_lambda") {
        n += 1;
    }
    Some(n)
}

/// MATLAB: the variables of the function `f` and the byte where each becomes one: its
/// parameters and results (its start), and what it assigns (`w = …`, `y(1) = …`, `[a, b] =
/// …`: the assignment's start). Nested functions are their own.
fn matlab_variables(f: Node<'_>, source: &[u8]) -> HashMap<String, usize> {
    let mut out: HashMap<String, usize> = HashMap::default();
    let mut note = |n: Node<'_>, at: usize| {
        if n.kind() == "identifier" {
            out.entry(node_text(n, source).into_owned()).or_insert(at);
        }
    };
    let mut cursor = f.walk();
    for c in f.named_children(&mut cursor) {
        if matches!(c.kind(), "function_output" | "function_arguments") {
            let mut stack = vec![c];
            while let Some(n) = stack.pop() {
                note(n, f.start_byte());
                let mut k = n.walk();
                stack.extend(n.named_children(&mut k));
            }
        }
    }
    let mut stack = vec![f];
    while let Some(n) = stack.pop() {
        if n.kind() == "function_definition" && n.id() != f.id() {
            continue;
        }
        if n.kind() == "assignment" {
            if let Some(left) = n.child_by_field_name("left") {
                match left.kind() {
                    "identifier" => note(left, n.start_byte()),
                    "function_call" => {
                        if let Some(name) = left.child_by_field_name("name") {
                            note(name, n.start_byte());
                        }
                    }
                    _ => {
                        let mut k = left.walk();
                        for x in left.named_children(&mut k) {
                            note(x, n.start_byte());
                        }
                    }
                }
            }
        }
        let mut k = n.walk();
        stack.extend(n.named_children(&mut k));
    }
    out
}

/// Ada: the nodes of a name read as a value (`X := Next;`, `not Done`, `Show (Count)`).
const ADA_VALUE_KINDS: [&str; 3] = ["term", "factor_not", "factor_abs"];

/// Ada: whether `node` is inside a node of one of `kinds`.
fn ada_inside(node: Node<'_>, kinds: &[&str]) -> bool {
    let mut cur = node.parent();
    while let Some(n) = cur {
        if kinds.contains(&n.kind()) {
            return true;
        }
        cur = n.parent();
    }
    false
}

/// Ada: the type of `name` (a name read as a value, at `at`) where a scope around declares
/// it as an object: a parameter, a variable or constant of a declarative part, a loop
/// parameter, an extended return's object, an exception handler's choice parameter. The
/// type is its subtype mark's last name, lowercased (`Zip.Zip_Info`: `zip_info`), empty when
/// not written; `None` when no scope around declares `name`. Names compare without case;
/// each scope's names are computed once (`cache`, by node id).
fn ada_declared_around(
    at: Node<'_>,
    name: &str,
    source: &[u8],
    cache: &mut HashMap<usize, HashMap<String, String>>,
) -> Option<String> {
    const DECLS: [&str; 9] = [
        "object_declaration",
        "number_declaration",
        "object_renaming_declaration",
        "exception_declaration",
        "parameter_specification",
        "loop_parameter_specification",
        "iterator_specification",
        "extended_return_object_declaration",
        "choice_parameter_specification",
    ];
    const HOLDERS: [&str; 8] = [
        "non_empty_declarative_part",
        "declarative_part",
        "procedure_specification",
        "function_specification",
        "formal_part",
        "iteration_scheme",
        "entry_body_formal_part",
        "parameter_and_result_profile",
    ];
    fn collect(n: Node<'_>, source: &[u8], out: &mut HashMap<String, String>) {
        let mut c = n.walk();
        for child in n.children(&mut c) {
            if DECLS.contains(&child.kind()) {
                let ty = child
                    .child_by_field_name("subtype_mark")
                    .map(|t| ada_type_name(&node_text(t, source)))
                    .unwrap_or_default();
                // The names before the `:` (`A, B : Integer`), `in`/`of` (`for I in …`).
                let mut k = child.walk();
                for x in child.children(&mut k) {
                    if matches!(x.kind(), ":" | "in" | "of") {
                        break;
                    }
                    if x.kind() == "identifier" {
                        out.insert(node_text(x, source).to_lowercase(), ty.clone());
                    }
                }
            } else if HOLDERS.contains(&child.kind()) {
                collect(child, source, out);
            }
        }
    }
    let name = name.to_lowercase();
    let mut cur = at.parent();
    while let Some(n) = cur {
        let names = cache.entry(n.id()).or_insert_with(|| {
            let mut out = HashMap::default();
            collect(n, source, &mut out);
            out
        });
        if let Some(ty) = names.get(&name) {
            return Some(ty.clone());
        }
        cur = n.parent();
    }
    None
}

/// Ada: a type's last name as the resolver compares it (`Pkg.VString'Class`: `vstring`).
fn ada_type_name(written: &str) -> String {
    let t = written.split('\'').next().unwrap_or("");
    t.rsplit('.').next().unwrap_or("").trim().to_lowercase()
}

/// Ada, for a call: what each positional argument is, comma-separated (see
/// `Reference::arg_types`): `#str`, `#chr`, `#num` for a literal, the type of a parameter or
/// variable of a scope around (its subtype mark's last name, lowercased), `?` otherwise and
/// for a named association. `None` when no argument's type is known.
fn ada_arg_types(
    call: Node<'_>,
    source: &[u8],
    cache: &mut HashMap<usize, HashMap<String, String>>,
) -> Option<CompactString> {
    let mut cursor = call.walk();
    let list = call.named_children(&mut cursor).find(|c| c.kind() == "actual_parameter_part")?;
    let mut out: Vec<String> = Vec::new();
    let mut lc = list.walk();
    for a in list.named_children(&mut lc).filter(|x| !is_comment(x)) {
        // `expression > term > name: X` or a literal alone; a named association (`X => Y`)
        // says nothing of where its value goes by position.
        let mut hint = String::from("?");
        let mut ac = a.walk();
        let kids: Vec<Node<'_>> = a.named_children(&mut ac).collect();
        if kids.len() == 1 && kids[0].kind() == "expression" && kids[0].named_child_count() == 1 {
            let term = kids[0].named_child(0).filter(|t| t.kind() == "term" && t.named_child_count() == 1);
            if let Some(v) = term.and_then(|t| t.named_child(0)) {
                hint = match v.kind() {
                    "string_literal" => "#str".into(),
                    "character_literal" => "#chr".into(),
                    "numeric_literal" => "#num".into(),
                    "identifier" => ada_declared_around(v, &node_text(v, source), source, cache)
                        .filter(|t| !t.is_empty())
                        .unwrap_or_else(|| "?".into()),
                    _ => "?".into(),
                };
            }
        }
        out.push(hint);
    }
    out.iter().any(|h| h != "?").then(|| CompactString::from(out.join(",")))
}

/// C++: whether `node` is a declaration of variables without an initialiser (`Status s;`,
/// `InternalKey smallest, largest;`): each runs its class's default constructor.
fn declared_without_initialiser(node: Node<'_>) -> bool {
    if node.kind() != "declaration" {
        return false;
    }
    let mut cursor = node.walk();
    let mut declarators = node.children_by_field_name("declarator", &mut cursor).peekable();
    declarators.peek().is_some() && declarators.all(|d| d.kind() == "identifier")
}

/// C and C++: whether `node` is an `extern` declaration (`extern Status last;`: a variable
/// defined elsewhere, nothing constructed here).
fn extern_declaration(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    node.kind() == "declaration"
        && node
            .children(&mut cursor)
            .any(|c| c.kind() == "storage_class_specifier" && c.child(0).is_some_and(|k| k.kind() == "extern"))
}

/// The error and missing nodes under `node` (subtrees without any skipped).
fn error_count(node: Node<'_>) -> usize {
    let mut n = 0;
    let mut stack = vec![node];
    while let Some(x) = stack.pop() {
        if x.has_error() {
            n += usize::from(x.is_error() || x.is_missing());
            let mut cursor = x.walk();
            stack.extend(x.children(&mut cursor));
        }
    }
    n
}

/// C and C++: the name of a function declared after an unknown macro (`LUA_API lua_Unsigned
/// lua_rawlen (lua_State *L)`), which the grammar reads as a declarator `lua_Unsigned` followed
/// by an error holding the name, just before the parameters.
fn c_name_after_a_macro(name: Node<'_>) -> Option<Node<'_>> {
    let error = name.next_sibling().filter(|e| e.kind() == "ERROR" && e.named_child_count() == 1)?;
    error.next_sibling().filter(|p| p.kind() == "parameter_list")?;
    error.named_child(0).filter(|i| i.kind() == "identifier")
}

/// C and C++: the calls written in the bodies of the `#define`s among `defs` (`#define
/// check(L, c) ((c) || argerror(L))` calls `argerror`), found by parsing each body as a
/// statement of a function of its own (the preprocessor's text is one token to the grammar),
/// at their places in `source`. A call of one of a function-like macro's parameters is not
/// a call of a function of that name. Bodies without a `(` are skipped.
fn macro_body_calls(
    parser: &mut Parser,
    cursor: &mut QueryCursor,
    query: &tree_sitter::Query,
    roles: &[Role],
    lang: Lang,
    defs: &[RawDef<'_>],
    source: &[u8],
) -> Vec<RawRef> {
    // The bodies, each in `void __cc_macro(void) { BODY\n; }`: (where in the text it is, where
    // in the source, its length, its macro's parameters).
    let mut text = Vec::new();
    let mut bodies: Vec<(usize, usize, usize, Vec<String>)> = Vec::new();
    for d in defs.iter().filter(|d| d.kind == SymbolKind::Macro) {
        let Some(value) = d.node.child_by_field_name("value") else { continue };
        let body = &source[value.byte_range()];
        if !body.contains(&b'(') {
            continue;
        }
        let params = d.node.child_by_field_name("parameters").map_or_else(Vec::new, |p| {
            let mut c = p.walk();
            p.named_children(&mut c).map(|x| node_text(x, source).into_owned()).collect()
        });
        text.extend_from_slice(b"void __cc_macro(void) { ");
        bodies.push((text.len(), value.start_byte(), body.len(), params));
        // (A line continuation becomes spaces: the same length, so offsets carry over.)
        let mut i = 0;
        while i < body.len() {
            match body[i..] {
                [b'\\', b'\n', ..] => text.extend_from_slice(b"  "),
                [b'\\', b'\r', b'\n', ..] => text.extend_from_slice(b"   "),
                _ => {
                    text.push(body[i]);
                    i += 1;
                    continue;
                }
            }
            i += if body[i + 1] == b'\r' { 3 } else { 2 };
        }
        text.extend_from_slice(b"\n; }\n");
    }
    if bodies.is_empty() {
        return Vec::new();
    }
    let Some(tree) = parser.parse(&text, None) else { return Vec::new() };
    // Lines of `source`, for the places of what is found.
    let line_starts: Vec<usize> =
        std::iter::once(0).chain(source.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1)).collect();
    let place = |at: usize| {
        let line = line_starts.partition_point(|&s| s <= at);
        (line as u32, (at - line_starts[line - 1]) as u32 + 1)
    };
    let mut out = Vec::new();
    let mut matches = cursor.matches(query, tree.root_node(), text.as_slice());
    while let Some(m) = matches.next() {
        let (mut call, mut name, mut receiver) = (None, None, None);
        for c in m.captures {
            match roles[c.index as usize] {
                Role::Reference(RefKind::Call) => call = call.or(Some(c.node)),
                Role::Name => name = name.or(Some(c.node)),
                Role::Receiver => receiver = receiver.or(Some(c.node)),
                _ => {}
            }
        }
        let (Some(call), Some(name)) = (call, name) else { continue };
        let at = name.start_byte();
        let Some((from, to, _, params)) =
            bodies.iter().rev().find(|b| b.0 <= at).filter(|b| name.end_byte() <= b.0 + b.2)
        else {
            continue;
        };
        let called = clean_name(&node_text(name, &text)).to_string();
        if receiver.is_none() && params.contains(&called) {
            continue;
        }
        let start = to + (at - from);
        let end = start + name.byte_range().len();
        let ((start_line, start_col), (end_line, end_col)) = (place(start), place(end));
        out.push(RawRef {
            start,
            range: start..end,
            name: called.into(),
            kind: RefKind::Call,
            span: Span { start_line, start_col, end_line, end_col },
            receiver: receiver.map(|n| truncate(collapse_ws(&node_text(n, &text)), MAX_RECEIVER).into()),
            module: None,
            alias: None,
            arg: None,
            args: arg_count(lang, call),
            declared: false,
            bare: false,
            arg_types: None,
            implicit: None,
        });
    }
    out.sort_by_key(|r| r.start);
    out.dedup_by_key(|r| r.start);
    out
}

/// Rust: a macro invocation's tokens inside its delimiters, whitespace collapsed
/// ([`Reference::arg_types`]); `node` is the invocation (`m!(…)`, `a::m!{…}`) or, for one
/// written in a token tree (another macro's arguments or body), that token tree. `None`: no
/// macro invoked, one of the standard library's (which none of a repository's arms decide),
/// or tokens past [`Reference::MAX_MACRO_TOKENS`].
fn rust_macro_tokens(node: Node<'_>, name: Node<'_>, source: &[u8]) -> Option<CompactString> {
    const STD: &[&str] = &[
        "assert",
        "assert_eq",
        "assert_ne",
        "debug_assert",
        "debug_assert_eq",
        "debug_assert_ne",
        "eprint",
        "eprintln",
        "format",
        "format_args",
        "matches",
        "panic",
        "print",
        "println",
        "todo",
        "unimplemented",
        "unreachable",
        "vec",
        "write",
        "writeln",
    ];
    let tree = match node.kind() {
        "macro_invocation" => node.named_child(u32::try_from(node.named_child_count()).ok()?.checked_sub(1)?)?,
        "token_tree" => {
            let bang = name.next_sibling().filter(|b| b.kind() == "!")?;
            bang.next_sibling()?
        }
        _ => return None,
    };
    if tree.kind() != "token_tree"
        || tree.byte_range().len() > Reference::MAX_MACRO_TOKENS + 2
        || STD.contains(&&*node_text(name, source))
    {
        return None;
    }
    let inner = source.get(tree.start_byte() + 1..tree.end_byte().saturating_sub(1))?;
    Some(collapse_ws(&String::from_utf8_lossy(inner)).trim().into())
}

/// Rust: the arm (1-based) of the `macro_rules!` definition `def` that holds byte `at`, when
/// it has several arms; 0 otherwise (not a macro, one arm, past 255).
fn macro_arm_at(def: Node<'_>, at: usize) -> u8 {
    if def.kind() != "macro_definition" {
        return 0;
    }
    let mut cursor = def.walk();
    let rules: Vec<Node<'_>> = def.named_children(&mut cursor).filter(|c| c.kind() == "macro_rule").collect();
    if rules.len() < 2 {
        return 0;
    }
    rules.iter().position(|r| r.byte_range().contains(&at)).and_then(|i| u8::try_from(i + 1).ok()).unwrap_or(0)
}

/// Java: what the arguments of the call `call` are, as [`Reference::arg_types`] writes them;
/// `None` without arguments or when none says anything.
fn java_arg_types(call: Node<'_>, source: &[u8]) -> Option<CompactString> {
    let list = call.child_by_field_name("arguments")?;
    let mut cursor = list.walk();
    let mut hints = Vec::new();
    for a in list.named_children(&mut cursor).filter(|x| !is_comment(x)) {
        let text = |n: Node<'_>| node_text(n, source);
        let simple = |n: Node<'_>| type_without_args(n, source);
        hints.push(match a.kind() {
            "string_literal" | "text_block" => "String".to_string(),
            "character_literal" => "char".to_string(),
            "decimal_integer_literal" | "hex_integer_literal" | "octal_integer_literal" | "binary_integer_literal" => {
                if text(a).ends_with(['l', 'L']) { "long" } else { "int" }.to_string()
            }
            "decimal_floating_point_literal" | "hex_floating_point_literal" => {
                if text(a).ends_with(['f', 'F']) { "float" } else { "double" }.to_string()
            }
            "true" | "false" => "boolean".to_string(),
            "null_literal" => "null".to_string(),
            "this" => "this".to_string(),
            "class_literal" => "Class".to_string(),
            "identifier" => format!("={}", text(a)),
            "object_creation_expression" => a.child_by_field_name("type").map(simple).unwrap_or_default(),
            "cast_expression" => a.child_by_field_name("type").map(simple).unwrap_or_default(),
            _ => String::new(),
        });
    }
    join_arg_hints(hints)
}

/// A type as written, without its generic arguments or whitespace (`Token.EOF`, `List`).
fn type_without_args(n: Node<'_>, source: &[u8]) -> String {
    node_text(n, source).split('<').next().unwrap_or("").split_whitespace().collect()
}

/// Argument hints as [`Reference::arg_types`] holds them: comma-separated, `?` for an
/// argument nothing is known of (or whose hint holds a comma); `None` when nothing is known
/// of any.
fn join_arg_hints(hints: Vec<String>) -> Option<CompactString> {
    let mut out = String::new();
    let mut known = false;
    for (i, hint) in hints.into_iter().enumerate() {
        let hint = if hint.is_empty() || hint.contains(',') { "?".to_string() } else { hint };
        known |= hint != "?";
        if i > 0 {
            out.push(',');
        }
        out.push_str(&hint);
    }
    known.then(|| out.into())
}

/// C#: what the arguments of the call `call` are, as [`java_arg_types`] writes them, in
/// Java's names (`"x"` a `String`, `2L` a `long`, `3m` a `decimal`, `typeof(T)` a `Type`);
/// `None` without arguments, when none says anything, or with a named argument (`n: 1`,
/// whose place is its parameter's).
fn csharp_arg_types(call: Node<'_>, source: &[u8]) -> Option<CompactString> {
    let list = call.child_by_field_name("arguments")?;
    let mut cursor = list.walk();
    let mut hints = Vec::new();
    for arg in list.named_children(&mut cursor).filter(|x| x.kind() == "argument") {
        let mut inner = arg.walk();
        let kids: Vec<Node<'_>> = arg.named_children(&mut inner).filter(|x| !is_comment(x)).collect();
        if arg.child_by_field_name("name").is_some() || kids.len() != 1 {
            return None;
        }
        // (`ref x`, `out var y`: the parameter is a `ref`'s, which no hint says.)
        let modified = arg.child(0).is_some_and(|c| matches!(c.kind(), "ref" | "out" | "in"));
        let a = kids[0];
        let text = |n: Node<'_>| node_text(n, source);
        let simple = |n: Node<'_>| type_without_args(n, source);
        hints.push(match a.kind() {
            _ if modified => String::new(),
            "string_literal" | "verbatim_string_literal" | "raw_string_literal" | "interpolated_string_expression" => {
                "String".to_string()
            }
            "character_literal" => "char".to_string(),
            "integer_literal" => {
                let t = text(a).to_ascii_lowercase();
                if t.ends_with('l') {
                    "long"
                } else if t.ends_with('u') {
                    "uint"
                } else {
                    "int"
                }
                .to_string()
            }
            "real_literal" => {
                let t = text(a).to_ascii_lowercase();
                if t.ends_with('f') {
                    "float"
                } else if t.ends_with('m') {
                    "decimal"
                } else {
                    "double"
                }
                .to_string()
            }
            "boolean_literal" => "boolean".to_string(),
            "null_literal" => "null".to_string(),
            "this" => "this".to_string(),
            "typeof_expression" => "Type".to_string(),
            "identifier" => format!("={}", text(a)),
            "object_creation_expression" => a.child_by_field_name("type").map(simple).unwrap_or_default(),
            "cast_expression" => {
                a.child_by_field_name("type").map(|t| csharp_java_name(&simple(t)).to_string()).unwrap_or_default()
            }
            _ => String::new(),
        });
    }
    join_arg_hints(hints)
}

/// A C# type's name as Java writes the same type (`string` → `String`, `bool` → `boolean`),
/// for the hints [`csharp_arg_types`] shares with Java's.
fn csharp_java_name(t: &str) -> &str {
    match t {
        "string" | "String" => "String",
        "object" | "Object" => "Object",
        "bool" => "boolean",
        other => other,
    }
}

/// Kotlin, for a call: what each argument is, as [`java_arg_types`] writes it (a literal's
/// type by its Java name, `String`, `int`, `long`, `double`, `float`, `char`, `boolean`,
/// `null`; `this`; `KClass` for `X::class`, `Class` for `X::class.java`; the class a
/// capitalised call or an `as` names; `=name` for a variable), `~text` for a call or a
/// property read whose result type the resolver works out (`annotation.asClassName()`),
/// `fn` for a lambda, `fn*` for a trailing one (it is the last parameter's), `*` for a spread
/// array (`*args`), `?` otherwise; a named argument is `name=>` and its hint (`helpTags=>=tags`).
/// None when an argument is none of these (more than one expression).
fn kotlin_arg_types(call: Node<'_>, source: &[u8]) -> Option<CompactString> {
    let mut hints: Vec<String> = Vec::new();
    let mut cursor = call.walk();
    let mut trailing = call.next_named_sibling().is_some_and(|s| s.kind() == "annotated_lambda");
    for part in call.named_children(&mut cursor) {
        match part.kind() {
            "value_arguments" => {
                let mut c = part.walk();
                for a in part.named_children(&mut c).filter(|x| !is_comment(x)) {
                    let mut k = a.walk();
                    let kids: Vec<Node<'_>> = a.named_children(&mut k).filter(|x| !is_comment(x)).collect();
                    let mut k = a.walk();
                    let (named, spread) = a
                        .children(&mut k)
                        .fold((false, false), |(n, s), x| (n || x.kind() == "=", s || x.kind() == "*"));
                    // (`name = value`: the parameter it is for, `name=>` before its hint.)
                    if named && kids.len() == 2 && kids[0].kind() == "identifier" {
                        hints.push(format!("{}=>{}", node_text(kids[0], source), kotlin_arg_hint(kids[1], source)));
                        continue;
                    }
                    if named || kids.len() != 1 {
                        return None;
                    }
                    // (`*args`: an array spread over a vararg parameter.)
                    hints.push(if spread { "*".to_string() } else { kotlin_arg_hint(kids[0], source) });
                }
            }
            "annotated_lambda" | "lambda_literal" => trailing = true,
            _ => {}
        }
    }
    if trailing {
        hints.push("fn*".to_string());
    }
    if hints.iter().all(|h| h == "?") {
        return None;
    }
    Some(hints.join(",").into())
}

/// Kotlin: what the lambdas around a call without a receiver have for `this`, innermost
/// first (see [`Reference::implicit_receivers`]), up to the function around: `x` for `x.apply
/// { }`, `x.run { }`, `with(x) { }`; `@f` for a lambda passed to a function `f` (`@b.f` for
/// `b.f { }`), which the resolver looks up for a parameter of a function type with a
/// receiver. None when no lambda is around.
fn kotlin_implicit_receivers(call: Node<'_>, source: &[u8]) -> Option<CompactString> {
    let short = |n: Node<'_>| {
        let t = collapse_ws(&node_text(n, source));
        (t.len() <= 80 && !t.contains([';', ',', '{'])).then_some(t)
    };
    let mut out: Vec<String> = Vec::new();
    let mut n = call.parent();
    while let Some(p) = n {
        if matches!(
            p.kind(),
            "function_declaration"
                | "class_body"
                | "object_literal"
                | "anonymous_function"
                | "secondary_constructor"
                | "anonymous_initializer"
                | "getter"
                | "setter"
                | "source_file"
        ) || out.len() >= 3
        {
            break;
        }
        n = p.parent();
        if p.kind() != "lambda_literal" {
            continue;
        }
        let Some(host) = p.parent().filter(|a| a.kind() == "annotated_lambda").and_then(|a| a.parent()) else {
            continue;
        };
        let Some(callee) = host.named_child(0) else { continue };
        let hint = match callee.kind() {
            "navigation_expression" => {
                let (Some(recv), Some(name)) =
                    (callee.named_child(0), callee.named_child((callee.named_child_count() as u32).saturating_sub(1)))
                else {
                    continue;
                };
                match node_text(name, source).as_ref() {
                    "apply" | "run" => short(recv),
                    _ => short(callee).map(|t| format!("@{t}")),
                }
            }
            // `with(x) { }`, `f(a) { }`: the call before the trailing lambda.
            "call_expression" => {
                let Some(f) = callee.named_child(0) else { continue };
                let name = node_text(f, source);
                let mut c = callee.walk();
                let first_arg = callee
                    .named_children(&mut c)
                    .find(|x| x.kind() == "value_arguments")
                    .and_then(|a| a.named_child(0))
                    .and_then(|a| a.named_child(0));
                match name.as_ref() {
                    "with" => first_arg.and_then(short),
                    _ => short(f).map(|t| format!("@{t}")),
                }
            }
            "identifier" => match node_text(callee, source).as_ref() {
                // (`run { }`, `apply { }` without a receiver keep `this`.)
                "run" | "apply" => None,
                t => Some(format!("@{t}")),
            },
            _ => None,
        };
        if let Some(h) = hint {
            out.push(h);
        }
    }
    (!out.is_empty()).then(|| out.join(";").into())
}

/// Kotlin: the standard library's functions on a collection whose lambda's `it` is an element.
const KOTLIN_ELEMENT_LAMBDAS: &[&str] = &[
    "forEach",
    "onEach",
    "map",
    "mapNotNull",
    "flatMap",
    "filter",
    "filterNot",
    "any",
    "all",
    "none",
    "count",
    "first",
    "firstOrNull",
    "last",
    "lastOrNull",
    "find",
    "findLast",
    "single",
    "singleOrNull",
    "sortedBy",
    "sortedByDescending",
    "sortBy",
    "sortByDescending",
    "maxBy",
    "minBy",
    "maxByOrNull",
    "minByOrNull",
    "sumBy",
    "sumOf",
    "associateBy",
    "associateWith",
    "associate",
    "groupBy",
    "partition",
    "distinctBy",
    "takeWhile",
    "dropWhile",
    "joinToString",
    "removeAll",
    "retainAll",
];

/// Kotlin: the standard library's functions whose lambda has a receiver or no parameter,
/// so no `it` of its own.
const KOTLIN_NO_IT_LAMBDAS: &[&str] = &[
    "apply",
    "run",
    "with",
    "buildString",
    "buildList",
    "buildSet",
    "buildMap",
    "synchronized",
    "lazy",
    "require",
    "requireNotNull",
    "check",
    "checkNotNull",
    "thread",
    "runCatching",
    "measureTimeMillis",
    "measureNanoTime",
    "assert",
];

/// Kotlin: the `it` of each lambda without parameters that a function of the standard
/// library is called with on a receiver, as a binding scoped to the lambda (an iteration
/// reference whose alias is `it?`): an element of the receiver for the functions of
/// [`KOTLIN_ELEMENT_LAMBDAS`] (`commands.forEach { it.run() }`: `commands`), the receiver
/// itself for `let`, `also`, `takeIf` and `takeUnless` (`context?.let { it.command }`:
/// `=context`); of an unknown type (`=`) for any other lambda that may have an `it`, so that
/// it hides an outer one's; none for a lambda of [`KOTLIN_NO_IT_LAMBDAS`].
fn kotlin_it_bindings(root: Node<'_>, source: &[u8]) -> Vec<RawRef> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        for c in n.named_children(&mut cursor) {
            stack.push(c);
        }
        if n.kind() != "lambda_literal" || has_child(n, "lambda_parameters") {
            continue;
        }
        // The function the lambda is passed to (`xs.forEach { }`, `run { }`, `f(a) { }`),
        // and what it is called on.
        let call = n.parent().filter(|a| a.kind() == "annotated_lambda").and_then(|a| a.parent());
        let callee = call.and_then(|c| c.named_child(0));
        let (recv, f) = match callee {
            Some(c) if c.kind() == "navigation_expression" => (
                c.named_child(0).map(|r| collapse_ws(&node_text(r, source))),
                c.named_child((c.named_child_count() as u32).saturating_sub(1)).map(|f| node_text(f, source)),
            ),
            Some(c) if c.kind() == "identifier" => (None, Some(node_text(c, source))),
            Some(c) if c.kind() == "call_expression" => (
                None,
                c.named_child(0).map(|f| node_text(f, source).rsplit('.').next().unwrap_or("").to_string().into()),
            ),
            _ => (None, None),
        };
        let recv = recv.filter(|r| r.len() <= MAX_RECEIVER && !r.contains('{'));
        let name = match (f.as_deref(), recv) {
            // (A lambda with a receiver, or of no parameter: no `it` of its own.)
            (Some(f), _) if KOTLIN_NO_IT_LAMBDAS.contains(&f) => continue,
            (Some("let" | "also" | "takeIf" | "takeUnless"), Some(r)) => format!("={r}"),
            (Some(f), Some(r)) if KOTLIN_ELEMENT_LAMBDAS.contains(&f) => r,
            // Any other lambda may have an `it` of its own, of a type not known: it hides an
            // outer lambda's (`files.forEach { open(it).use { it.read() } }`).
            _ => "=".to_string(),
        };
        // (Bindings hold by line: a lambda of several lines binds from its second, so that
        // `it.children.forEach {` on its first line is still the outer `it`.)
        let mut span = Span::from_node(&n);
        if span.end_line > span.start_line {
            span.start_line += 1;
            span.start_col = 1;
        }
        out.push(RawRef {
            start: n.start_byte(),
            range: n.byte_range(),
            name: name.into(),
            kind: RefKind::Iteration,
            span,
            receiver: None,
            module: None,
            alias: Some(CompactString::const_new("it?")),
            arg: None,
            args: None,
            declared: false,
            bare: false,
            arg_types: None,
            implicit: None,
        });
    }
    out
}

/// Kotlin: the type arguments after a type's name, whitespace collapsed (`String, Cmd` of
/// `Map<String, Cmd>`); None without any.
fn kotlin_type_args(name: Node<'_>, source: &[u8]) -> Option<CompactString> {
    let args = name.next_named_sibling().filter(|n| n.kind() == "type_arguments")?;
    let text = collapse_ws(&node_text(args, source));
    let inner = text.strip_prefix('<')?.strip_suffix('>')?.trim();
    (!inner.is_empty() && inner.len() <= MAX_RECEIVER).then(|| inner.into())
}

/// What one Kotlin argument is ([`kotlin_arg_types`]).
fn kotlin_arg_hint(a: Node<'_>, source: &[u8]) -> String {
    let text = node_text(a, source);
    let simple = |t: &str| -> String { t.split('<').next().unwrap_or("").trim().trim_end_matches('?').to_string() };
    match a.kind() {
        "string_literal" | "multiline_string_literal" => "String".into(),
        "character_literal" => "char".into(),
        "number_literal" if text.ends_with(['u', 'U']) => "?".into(),
        "number_literal" => if text.ends_with(['l', 'L']) { "long" } else { "int" }.into(),
        "float_literal" => if text.ends_with(['f', 'F']) { "float" } else { "double" }.into(),
        "this_expression" if text == "this" => "this".into(),
        // (`this@CodeBlock`: the class of that name around; a lambda's label is no type.)
        "this_expression" => match text.split_once('@') {
            Some((_, label)) if label.starts_with(|c: char| c.is_ascii_uppercase()) => label.to_string(),
            _ => "?".into(),
        },
        "lambda_literal" | "anonymous_function" => "fn".into(),
        "as_expression" => a.child_by_field_name("right").map_or("?".into(), |t| simple(&node_text(t, source))),
        "identifier" => match text.as_ref() {
            "true" | "false" => "boolean".into(),
            "null" => "null".into(),
            t => format!("={t}"),
        },
        "navigation_expression" | "callable_reference" if text.ends_with("::class") || text.ends_with(".class") => {
            "KClass".into()
        }
        "navigation_expression" if text.ends_with("::class.java") => "Class".into(),
        "call_expression" | "navigation_expression" => {
            let callee = a.named_child(0).map(|c| node_text(c, source)).unwrap_or_default();
            let capitalised = a.kind() == "call_expression"
                && callee.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && callee.chars().all(|c| c.is_alphanumeric() || c == '_');
            // (A chain's text keeps its commas as U+001F: the hints are comma-separated.)
            let chain = collapse_ws(&text);
            if capitalised {
                callee.into_owned()
            } else if chain.len() <= MAX_EXPRESSION_BODY && !chain.contains('\u{1f}') {
                format!("~{}", chain.replace(',', "\u{1f}"))
            } else {
                "?".into()
            }
        }
        _ => "?".into(),
    }
}

/// Java: a method looked up by its name `name` with a `MethodType`
/// (`lookup.findStatic(C.class, "m", MethodType.methodType(void.class, int.class))`, the
/// type also from a variable initialised so in the method around): its parameter types as
/// [`java_arg_types`] gives arguments' (`int`, `MyObject`), so that the overload it names is
/// told apart from the others.
fn java_method_type(name: Node<'_>, source: &[u8]) -> Option<CompactString> {
    let list = name.parent().filter(|p| p.kind() == "argument_list")?;
    let mut cursor = list.walk();
    let args: Vec<Node<'_>> = list.named_children(&mut cursor).filter(|x| !is_comment(x)).collect();
    let at = args.iter().position(|a| a.id() == name.id())?;
    let mut descriptor = *args.get(at + 1)?;
    if descriptor.kind() == "identifier" {
        let var = node_text(descriptor, source);
        let mut body = list;
        while !matches!(body.kind(), "method_declaration" | "constructor_declaration" | "lambda_expression") {
            body = body.parent()?;
        }
        // The variable's declaration in it, written before the lookup.
        let mut stack = vec![body];
        let mut value = None;
        while let Some(n) = stack.pop() {
            if n.start_byte() >= list.start_byte() {
                continue;
            }
            if n.kind() == "variable_declarator"
                && n.child_by_field_name("name").is_some_and(|v| node_text(v, source) == var)
                && value.is_none_or(|(at, _)| at < n.start_byte())
            {
                value = n.child_by_field_name("value").map(|v| (n.start_byte(), v));
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        descriptor = value?.1;
    }
    if descriptor.kind() != "method_invocation"
        || descriptor.child_by_field_name("name").is_none_or(|n| node_text(n, source) != "methodType")
    {
        return None;
    }
    let list = descriptor.child_by_field_name("arguments")?;
    let mut cursor = list.walk();
    let types: Option<Vec<String>> = list
        .named_children(&mut cursor)
        .filter(|x| !is_comment(x))
        .skip(1)
        .map(|a| {
            let t = a.named_child(0).filter(|_| a.kind() == "class_literal")?;
            Some(node_text(t, source).split_whitespace().collect())
        })
        .collect();
    let types = types?;
    (!types.is_empty()).then(|| types.join(",").into())
}

/// A keyword argument's keyword.
fn keyword_of(list: Option<Node<'_>>, node: Node<'_>, source: &[u8]) -> Option<CompactString> {
    let (_, arg) = argument_of(list?, node)?;
    arg.child_by_field_name("name").map(|n| clean_name(&node_text(n, source)).into())
}

/// Assembly labels are one-line nodes: a function label owns the code up to the next
/// function label, a local label the code up to the next label of any kind.
fn extend_labels(defs: &mut [RawDef<'_>], len: usize) {
    let local =
        |d: &RawDef<'_>| d.kind == SymbolKind::Label && d.name.starts_with(|c: char| c == '.' || c.is_ascii_digit());
    let starts: Vec<(usize, bool)> = defs.iter().map(|d| (d.start, local(d))).collect();
    for (i, d) in defs.iter_mut().enumerate() {
        if !matches!(d.kind, SymbolKind::Function | SymbolKind::Label) {
            continue;
        }
        // A function runs to the next definition that is not one of its local labels.
        let is_fn = d.kind == SymbolKind::Function;
        let next =
            starts[i + 1..].iter().find(|(s, is_local)| *s > d.start && !(is_fn && *is_local)).map_or(len, |(s, _)| *s);
        d.end = d.end.max(next);
    }
}

fn ancestors(parents: &[Option<usize>], i: usize) -> impl Iterator<Item = usize> + '_ {
    std::iter::successors(parents[i], move |&p| parents[p])
}

fn diag(path: &str, line: Option<u32>, message: String) -> Diagnostic {
    Diagnostic { path: path.to_string(), line, message }
}

fn first_error(node: Node<'_>) -> Option<Node<'_>> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.has_error() {
            return first_error(child).or(Some(child));
        }
    }
    None
}

/// A node's text, borrowed when it is valid UTF-8.
fn node_text<'s>(node: Node<'_>, source: &'s [u8]) -> std::borrow::Cow<'s, str> {
    String::from_utf8_lossy(&source[node.byte_range()])
}

/// Names as written, minus the quotes around string-valued names (imports, R
/// assignments: `"x"`, `'x'`, `` `x` ``, `<stdio.h>`) and the colon of Ruby symbols.
/// An object literal's or `setattr`'s key as written: a property name or a string's words
/// (`k`, `"k"`); any other expression (a variable, a call) names a key not known, `*`.
fn entry_key_text(node: Node<'_>, source: &[u8]) -> CompactString {
    let literal = matches!(
        node.kind(),
        "property_identifier" | "shorthand_property_identifier" | "string" | "string_content" | "string_fragment"
    );
    let text = node_text(node, source);
    let key = clean_name(&text);
    if literal && !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$') {
        key.into()
    } else {
        CompactString::const_new("*")
    }
}

fn clean_name(s: &str) -> &str {
    let t = s.trim();
    let pairs = [('"', '"'), ('\'', '\''), ('`', '`'), ('<', '>')];
    let unquoted = pairs.iter().find_map(|&(open, close)| {
        let inner = t.strip_prefix(open)?.strip_suffix(close)?;
        // `<=>` is an operator's name, not a quoted one.
        (!inner.is_empty() && (open != '<' || !inner.contains(['<', '>', '=']))).then_some(inner)
    });
    let t = unquoted.unwrap_or(t);
    let t = match t.strip_prefix(':') {
        Some(rest) if rest.starts_with(|c: char| c.is_alphabetic() || c == '_') => rest,
        _ => t,
    };
    t.trim()
}

fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// Node kinds that hold a definition's body when the grammar has no `body` field.
const BODY_KINDS: &[&str] = &[
    "block",
    "body",
    "compound_statement",
    "declaration_list",
    "field_declaration_list",
    "enum_variant_list",
    "statement_block",
    "class_body",
    "enum_body",
    "interface_body",
    "function_body",
    "class_declaration_body",
    "protocol_body",
    "block_body",
    "body_statement",
    "template_body",
    "brace_group",
    "computed_property",
];

fn find_body(node: Node<'_>) -> Option<Node<'_>> {
    if let Some(b) = node.child_by_field_name("body") {
        return Some(b);
    }
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    if let Some(b) = children.iter().find(|c| BODY_KINDS.contains(&c.kind())) {
        return Some(*b);
    }
    // `const f = (a) => { … }`: the body belongs to the value.
    for c in children {
        if let Some(b) = c.child_by_field_name("body") {
            return Some(b);
        }
    }
    None
}

/// Bytes of a symbol's body window ([`body_window`]).
pub const MAX_BODY: usize = 256;

/// What a definition's body says, bounded: the distinct identifiers of the body in the
/// order they first appear (the names it calls, reads and declares), space-separated, up to
/// [`MAX_BODY`] bytes; the definition's own name and the receiver words (`self`, `this`,
/// `cls`) left out. Classes, structs, interfaces, traits, enums and modules have none: their
/// members have theirs (with the class's body, "append a product row" found the class
/// before its `add_line_item`). BM25 reads it as a part of the `text` field
/// (`search::WEIGHTS`) and the embedded text ends with it (`embed::symbol_text`). Empty when
/// the definition has no body.
fn body_window(node: Node<'_>, source: &[u8], own: &str) -> String {
    let Some(body) = find_body(node) else { return String::new() };
    let mut out = String::new();
    let mut seen: rustc_hash::FxHashSet<&[u8]> = Default::default();
    let mut cursor = body.walk();
    'walk: loop {
        let n = cursor.node();
        if n.child_count() == 0 && is_identifier_kind(n.kind()) {
            let text = &source[n.byte_range()];
            let skip = text.is_empty()
                || text.len() > 64
                || matches!(text, b"self" | b"this" | b"cls" | b"Self")
                || text == own.as_bytes()
                || !text.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$');
            if !skip && seen.insert(text) {
                if out.len() + text.len() + 1 > MAX_BODY {
                    break 'walk;
                }
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(std::str::from_utf8(text).expect("ASCII"));
            }
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() || cursor.node() == body {
                break 'walk;
            }
        }
    }
    out
}

/// Leaf kinds that are names across the grammars (`identifier`, `field_identifier`,
/// `property_identifier`, `type_identifier`, `simple_identifier`, PHP's `name`, Ruby's
/// `constant`).
fn is_identifier_kind(kind: &str) -> bool {
    kind.ends_with("identifier") || kind == "name" || kind == "constant"
}

/// The declaration header: from the start of the definition to the start of its body,
/// or its first line when it has no body; whitespace collapsed.
fn signature(node: Node<'_>, source: &[u8]) -> String {
    // A Rust macro's header is what it matches, arm by arm (`macro_rules! m { ($x:expr) =>
    // …; (le => $x:expr) => … }`): what it takes, as a function's parameters say.
    if node.kind() == "macro_definition" {
        let name = node.child_by_field_name("name").map(|n| node_text(n, source)).unwrap_or_default();
        let mut cursor = node.walk();
        let arms: Vec<String> = node
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "macro_rule")
            .filter_map(|r| r.child_by_field_name("left"))
            .map(|l| format!("{} => …", collapse_ws(&node_text(l, source))))
            .collect();
        return truncate(format!("macro_rules! {name} {{ {} }}", arms.join("; ")), MAX_SIGNATURE);
    }
    // Ada bodies lead with their specification: that is the header.
    let mut cursor = node.walk();
    let spec = node
        .named_children(&mut cursor)
        .find(|c| c.kind().ends_with("_specification") && c.start_byte() == node.start_byte());
    if let Some(spec) = spec {
        // (A renaming says what it renames: `function Clock return Time renames
        // Ada.Calendar.Clock`.)
        let end = match node.kind() {
            "subprogram_renaming_declaration" => node.end_byte(),
            _ => spec.end_byte(),
        };
        let text = collapse_ws(&String::from_utf8_lossy(&source[spec.start_byte()..end]));
        return truncate(text.trim_end_matches(';').trim_end().to_string(), MAX_SIGNATURE);
    }
    // An Ada formal subprogram says where it is among its generic's formals (what an
    // instance's positional actual is for): `generic formal 2: with function Read_Byte …`.
    if node.kind() == "formal_concrete_subprogram_declaration" {
        let mut n = 0;
        if let Some(part) = node.parent().and_then(|p| p.parent()).filter(|p| p.kind() == "generic_formal_part") {
            let mut c = part.walk();
            for f in part.named_children(&mut c) {
                if f.start_byte() >= node.start_byte() {
                    break;
                }
                // (`A, B : Integer;` declares two formals)
                n += match f.kind() {
                    "formal_object_declaration" => {
                        let mut k = f.walk();
                        f.children(&mut k).take_while(|x| x.kind() != ":").filter(|x| x.kind() == "identifier").count()
                    }
                    k if k.starts_with("formal_") => 1,
                    _ => 0,
                };
            }
        }
        let text = collapse_ws(&String::from_utf8_lossy(&source[node.byte_range()]));
        return truncate(format!("generic formal {n}: {}", text.trim_end_matches(';').trim_end()), MAX_SIGNATURE);
    }
    // An Ada instance says what it instantiates: `package P is new G (…)`.
    if node.kind() == "generic_instantiation" {
        return truncate(collapse_ws(&String::from_utf8_lossy(&source[node.byte_range()])), MAX_SIGNATURE);
    }
    let start = node.start_byte();
    let end = match find_body(node) {
        Some(b) if b.start_byte() > start => header_end(node, b),
        // A Kotlin class without a body is all header, its supertypes after a primary
        // constructor of many lines (`class ClassName(\n…\n) : TypeName(…)`).
        None if node.kind() == "class_declaration" && has_child(node, "delegation_specifiers") => node.end_byte(),
        _ => {
            let text = &source[start..node.end_byte()];
            start + text.iter().position(|&b| b == b'\n').unwrap_or(text.len())
        }
    };
    let s = collapse_ws(&String::from_utf8_lossy(&source[start..end]));
    let s = s.trim_end_matches(|c: char| c == '{' || c == ':' || c.is_whitespace()).to_string();
    // Kotlin: a function of an expression body without a declared type says what it gives
    // by the expression (`fun builder() = Builder()`): the whole of it when it is short, else
    // its first line and ` …` (so that a chain's start is not read as its result).
    if node.kind() == "function_declaration" && !s.contains("):") {
        let mut cursor = node.walk();
        let body = node.named_children(&mut cursor).find(|c| c.kind() == "function_body");
        let expr = body.filter(|b| b.child(0).is_some_and(|c| c.kind() == "=")).and_then(|b| b.named_child(0));
        if let Some(e) = expr {
            let text = String::from_utf8_lossy(&source[e.byte_range()]);
            let first = text.lines().next().unwrap_or("").trim();
            let whole = collapse_ws(&text);
            let shown = match text.lines().nth(1) {
                None => first.to_string(),
                Some(_) if whole.len() <= MAX_EXPRESSION_BODY => whole,
                Some(_) => format!("{first} …"),
            };
            if !first.is_empty() {
                return truncate(format!("{s} = {shown}"), MAX_SIGNATURE);
            }
        }
    }
    truncate(s, MAX_SIGNATURE)
}

/// Where the header before `body` ends: after its last token that is not a comment
/// (`def f(n):  # note` keeps `def f(n):`).
fn header_end(node: Node<'_>, body: Node<'_>) -> usize {
    let mut end = body.start_byte();
    let mut cursor = node.walk();
    let mut last = None;
    for child in node.children(&mut cursor) {
        if child.start_byte() >= body.start_byte() {
            break;
        }
        if !is_comment(&child) {
            last = Some(child.end_byte());
        }
    }
    if let Some(e) = last {
        end = end.min(e.max(node.start_byte()));
    }
    end
}

/// Whether `node` has a child of kind `kind`.
fn has_child(node: Node<'_>, kind: &str) -> bool {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).any(|c| c.kind() == kind);
    found
}

fn is_comment(node: &Node<'_>) -> bool {
    node.kind().contains("comment")
}

/// Decorators, attributes and annotations that sit between a doc comment and its
/// definition (`@Override`, `#[derive]`, `[Attr]`) — not `annotation_type_declaration`.
fn is_decoration(node: &Node<'_>) -> bool {
    let k = node.kind();
    k.ends_with("decorator")
        || k.ends_with("annotation")
        || k.starts_with("attribute")
        || k == "modifiers"
        || k == "annotations"
}

/// Parents whose start a definition may share and still have its doc comment above
/// them (`export function f`, a decorated definition, `template <…> class`, …).
const WRAPPERS: [&str; 6] =
    ["export", "decorated", "template_declaration", "annotated", "lexical_declaration", "variable_declaration"];

/// The comment block right above each of `targets` (or above its decorators / `export`
/// wrapper), by node id: what stands for a doc comment when no `@doc` capture gave one.
///
/// One walk down the tree, into the nodes that hold a target, keeping each level's
/// children. `Node::prev_named_sibling` and `Node::parent` each walk down from the root
/// and along the siblings, so asking them per definition was quadratic in a class's
/// members: a generated Java class of 8,000 documented methods took 0.53 s to index, now
/// 0.43 s (on spring-framework the difference is below the noise).
/// Drops the TypeScript overload signatures (`function_signature`, a class's
/// `method_signature`) of a function implemented beside them (same name, same container,
/// after them); the implementation keeps the first signature's doc when it has none. An
/// interface's or a `declare`d function's signatures have no implementation and stay.
fn merge_overloads<'t>(defs: &mut Vec<RawDef<'t>>, root: Node<'t>, source: &[u8]) {
    const SIGNATURES: [&str; 2] = ["function_signature", "method_signature"];
    const BODIES: [&str; 2] = ["function_declaration", "method_definition"];
    if !defs.iter().any(|d| SIGNATURES.contains(&d.node.kind())) {
        return;
    }
    let container = |n: Node<'t>| match n.parent() {
        Some(p) if p.kind() == "export_statement" => p.parent().map(|c| c.id()),
        p => p.map(|c| c.id()),
    };
    let implemented: HashMap<(&str, Option<usize>), usize> = defs
        .iter()
        .enumerate()
        .filter(|(_, d)| BODIES.contains(&d.node.kind()))
        .map(|(i, d)| ((d.name.as_str(), container(d.node)), i))
        .collect();
    let mut dropped = vec![false; defs.len()];
    // An implementation without a doc, and the first of its signatures.
    let mut donors: Vec<(usize, usize)> = Vec::new();
    for (i, d) in defs.iter().enumerate() {
        if !SIGNATURES.contains(&d.node.kind()) {
            continue;
        }
        let Some(&j) = implemented.get(&(d.name.as_str(), container(d.node))) else { continue };
        if defs[j].start < d.start {
            continue;
        }
        dropped[i] = true;
        if defs[j].doc.is_none() && !donors.iter().any(|&(k, _)| k == j) {
            donors.push((j, i));
        }
    }
    let undocumented: Vec<Node<'t>> =
        donors.iter().filter(|&&(_, i)| defs[i].doc.is_none()).map(|&(_, i)| defs[i].node).collect();
    let mut above = preceding_docs(root, &undocumented, source);
    for (j, i) in donors {
        let node = defs[i].node.id();
        defs[j].doc = defs[i].doc.take().or_else(|| above.get_mut(&node).and_then(Option::take));
    }
    let mut k = 0;
    defs.retain(|_| {
        k += 1;
        !dropped[k - 1]
    });
}

fn preceding_docs<'t>(root: Node<'t>, targets: &[Node<'t>], source: &[u8]) -> HashMap<usize, Option<String>> {
    let mut found: HashMap<usize, Option<String>> = HashMap::default();
    if targets.is_empty() {
        return found;
    }
    let wanted: rustc_hash::FxHashSet<usize> = targets.iter().map(|t| t.id()).collect();
    let mut spans: Vec<(usize, usize, usize)> =
        targets.iter().map(|t| (t.start_byte(), t.end_byte(), t.id())).collect();
    spans.sort_unstable();
    // Whether a target other than `n` lies within `n`.
    let holds_target = |n: &Node<'_>| {
        let from = spans.partition_point(|&(s, _, _)| s < n.start_byte());
        spans[from..]
            .iter()
            .take_while(|&&(s, _, _)| s < n.end_byte())
            .any(|&(_, e, id)| e <= n.end_byte() && id != n.id())
    };
    let children = |n: Node<'t>| -> Vec<Node<'t>> {
        let mut cursor = n.walk();
        n.children(&mut cursor).collect()
    };
    // The path from the root: each level's children and, at `next - 1`, the one on the path.
    struct Level<'t> {
        kids: Vec<Node<'t>>,
        next: usize,
    }
    let mut levels = vec![Level { kids: children(root), next: 0 }];
    while let Some(top) = levels.last_mut() {
        let Some(&kid) = top.kids.get(top.next) else {
            levels.pop();
            continue;
        };
        top.next += 1;
        if wanted.contains(&kid.id()) {
            found.insert(kid.id(), comments_above(&levels, source));
        }
        if holds_target(&kid) {
            levels.push(Level { kids: children(kid), next: 0 });
        }
    }
    return found;

    /// The doc comment of the node at the end of the path `levels`.
    fn comments_above(levels: &[Level<'_>], source: &[u8]) -> Option<String> {
        let at = |l: usize| levels[l].next - 1;
        let (mut l, mut i) = (levels.len() - 1, at(levels.len() - 1));
        let named_before = |l: usize, i: usize| levels[l].kids[..i].iter().rev().filter(|k| k.is_named()).copied();
        // The anchor: the node, or the wrapper whose first child it is, right under a comment.
        loop {
            match named_before(l, i).find(|k| !is_decoration(k)) {
                Some(p) if is_comment(&p) => break,
                Some(_) => return None,
                // A child of the root: no wrapper to look above.
                None if l == 0 => return None,
                None => {
                    let (anchor, parent) = (levels[l].kids[i], levels[l - 1].kids[at(l - 1)]);
                    let wrapper = parent.start_byte() == anchor.start_byte()
                        || WRAPPERS.iter().any(|w| parent.kind().contains(w));
                    if !wrapper {
                        return None;
                    }
                    (l, i) = (l - 1, at(l - 1));
                }
            }
        }
        let mut comments = Vec::new();
        let mut next_row = levels[l].kids[i].start_position().row;
        for p in named_before(l, i) {
            if is_decoration(&p) {
                next_row = p.start_position().row;
                continue;
            }
            if !is_comment(&p) || p.end_position().row + 1 < next_row {
                break;
            }
            comments.push(p);
            next_row = p.start_position().row;
        }
        if comments.is_empty() {
            return None;
        }
        comments.reverse();
        Some(docs_text(&comments, source))
    }
}

/// HTML tags of Javadoc comments, dropped from Java docs;
/// any other `<…>` (`List<String>`, `<T>`) is text.
const DOC_HTML_TAGS: &[&str] = &[
    "a",
    "b",
    "blockquote",
    "br",
    "code",
    "dd",
    "div",
    "dl",
    "dt",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "li",
    "ol",
    "p",
    "pre",
    "small",
    "span",
    "strong",
    "sub",
    "sup",
    "table",
    "td",
    "th",
    "tr",
    "tt",
    "u",
    "ul",
];

/// The tags of [`DOC_HTML_TAGS`] that sit within a line.
const INLINE_HTML_TAGS: &[&str] = &["a", "b", "code", "em", "i", "small", "span", "strong", "sub", "sup", "tt", "u"];

/// A doc comment as plain text: inline tags (`{@link Foo#bar label}` -> `label`,
/// `{@link Foo#bar}` -> `Foo.bar`, `{@code x}` -> `x`, `{@inheritDoc}` -> nothing) in
/// every language, and in Java (Javadoc is HTML) the HTML tags and entities (`<p>`,
/// `&lt;`). What is indexed, embedded and shown is the prose, not its markup. Other
/// languages' docs are Markdown, where `<div>` is more likely an example than markup.
/// On spring-framework the search index and the records are 1% smaller.
fn plain_doc(lang: Lang, doc: String) -> String {
    let html = lang == Lang::Java && (doc.contains('<') || doc.contains('&'));
    if !doc.contains("{@") && !html {
        return doc;
    }
    let mut text = inline_tags(&doc);
    if html {
        text = html_to_text(&text);
    }
    // Lines a dropped tag left empty: at most one blank line in a row, none at the ends.
    let mut out = String::with_capacity(text.len());
    let mut blank = false;
    for line in text.lines().map(str::trim_end) {
        if line.trim().is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push('\n');
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
        blank = false;
    }
    out
}

/// `{@tag content}` -> what a reader sees of it.
fn inline_tags(doc: &str) -> String {
    let mut out = String::with_capacity(doc.len());
    let mut rest = doc;
    while let Some(at) = rest.find("{@") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let name_len = tail.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(tail.len());
        // The closing brace, counting the braces of the content (`{@code {}}`).
        let close = nesting(tail, '{', '}').find(|&(_, _, depth)| depth < 0);
        let (Some((close, _, _)), true) = (close, name_len > 0) else {
            out.push_str("{@");
            rest = tail;
            continue;
        };
        let (name, content) = (&tail[..name_len], tail[name_len..close].trim());
        match name {
            "link" | "linkplain" => {
                // `Type#member(Args) label`: the label, else the reference.
                let split = nesting(content, '(', ')').find(|&(_, c, depth)| depth == 0 && c.is_whitespace());
                match split {
                    Some((i, _, _)) if !content[i..].trim().is_empty() => out.push_str(content[i..].trim()),
                    _ => out.push_str(content.trim_start_matches('#').replace('#', ".").as_str()),
                }
            }
            "inheritDoc" => {}
            _ => out.push_str(content),
        }
        rest = &tail[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Each char of `s` with its byte offset and the nesting depth of `open` / `close` after it.
fn nesting(s: &str, open: char, close: char) -> impl Iterator<Item = (usize, char, i32)> + '_ {
    s.char_indices().scan(0, move |depth, (i, c)| {
        *depth += i32::from(c == open) - i32::from(c == close);
        Some((i, c, *depth))
    })
}

/// Javadoc's HTML to text: the tags of [`DOC_HTML_TAGS`] dropped, entities decoded.
fn html_to_text(doc: &str) -> String {
    let mut out = String::with_capacity(doc.len());
    let mut rest = doc;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        let tail = &rest[lt + 1..];
        let name = tail.strip_prefix('/').unwrap_or(tail);
        let name_len = name.find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(name.len());
        let is_tag = DOC_HTML_TAGS.iter().any(|t| t.eq_ignore_ascii_case(&name[..name_len]))
            && name[name_len..].starts_with(['>', ' ', '/', '\n', '\t']);
        match tail.find('>').filter(|_| is_tag) {
            Some(gt) => {
                // Block tags end a line (`<p>` a paragraph); inline ones just go.
                if !INLINE_HTML_TAGS.iter().any(|t| t.eq_ignore_ascii_case(&name[..name_len])) {
                    out.push('\n');
                }
                rest = &tail[gt + 1..];
            }
            None => {
                out.push('<');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    if !out.contains('&') {
        return out;
    }
    let mut decoded = String::with_capacity(out.len());
    let mut rest = out.as_str();
    while let Some(amp) = rest.find('&') {
        decoded.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let entity = [
            ("&lt;", "<"),
            ("&gt;", ">"),
            ("&amp;", "&"),
            ("&quot;", "\""),
            ("&apos;", "'"),
            ("&#39;", "'"),
            ("&#64;", "@"),
            ("&nbsp;", " "),
        ]
        .into_iter()
        .find(|(e, _)| tail.starts_with(e));
        match entity {
            Some((e, c)) => {
                decoded.push_str(c);
                rest = &tail[e.len()..];
            }
            None => {
                decoded.push('&');
                rest = &tail[1..];
            }
        }
    }
    decoded.push_str(rest);
    decoded
}

/// Comment or docstring nodes to plain text: markers stripped, lines joined.
fn docs_text(nodes: &[Node<'_>], source: &[u8]) -> String {
    let mut lines: Vec<String> = Vec::new();
    for n in nodes {
        let text = node_text(*n, source);
        for line in text.lines() {
            lines.push(strip_comment_markers(line).to_string());
        }
    }
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

fn strip_comment_markers(line: &str) -> &str {
    let mut l = line.trim();
    for suffix in ["*/", "\"\"\"", "'''"] {
        l = l.strip_suffix(suffix).unwrap_or(l).trim_end();
    }
    for prefix in [
        "///", "//!", "//", "/**", "/*!", "/*", "#'", "##", "#", "--", "%%", "%{", "%}", "%", ";;", ";", "\"\"\"",
        "'''", "r\"\"\"", "*",
    ] {
        if let Some(rest) = l.strip_prefix(prefix) {
            l = rest;
            break;
        }
    }
    let mut l = l.trim();
    // C# XML doc: the text, not its tags.
    for tag in ["<summary>", "</summary>", "<remarks>", "</remarks>", "<returns>", "</returns>", "<para>", "</para>"] {
        l = l.strip_prefix(tag).unwrap_or(l).trim();
        l = l.strip_suffix(tag).unwrap_or(l).trim();
    }
    if l.len() >= 2 && l.starts_with('"') && l.ends_with('"') {
        return l[1..l.len() - 1].trim();
    }
    l
}

/// The module part of qualified names, where the language's module follows from the
/// file path: Python (`pkg/mod.py` -> `pkg.mod`), Rust (`tokio/src/rt/mod.rs` ->
/// `tokio::rt`), Go (the package directory). Empty for languages whose qualified
/// names start at their outermost container.
pub fn module_path(lang: Lang, path: &str) -> String {
    let stem = path.rsplit_once('.').map_or(path, |(s, _)| s);
    match lang {
        Lang::Python => {
            let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
            if stem == "__init__" {
                return String::new();
            }
            stem.replace('/', ".")
        }
        Lang::Rust => {
            let (krate, rest) = match stem.rfind("src/") {
                Some(i) => {
                    let dir = stem[..i].trim_end_matches('/');
                    let krate = dir.rsplit('/').next().filter(|s| !s.is_empty()).unwrap_or("crate");
                    (krate.replace('-', "_"), &stem[i + 4..])
                }
                None => ("crate".to_string(), stem),
            };
            let mut parts: Vec<&str> = rest.split('/').collect();
            if matches!(parts.last(), Some(&"mod") | Some(&"lib") | Some(&"main")) {
                parts.pop();
            }
            let mut out = krate;
            for p in parts.into_iter().filter(|p| !p.is_empty()) {
                out.push_str("::");
                out.push_str(p);
            }
            out
        }
        Lang::Go => {
            path.rsplit_once('/').map(|(dir, _)| dir.rsplit('/').next().unwrap_or(dir)).unwrap_or("").to_string()
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-node walk [`preceding_docs`] replaced, kept as its oracle.
    fn preceding_comments(node: Node<'_>, source: &[u8]) -> Option<String> {
        let mut anchor = node;
        loop {
            let mut prev = anchor.prev_named_sibling();
            while prev.is_some_and(|p| is_decoration(&p)) {
                prev = prev.and_then(|p| p.prev_named_sibling());
            }
            match prev {
                Some(p) if is_comment(&p) => break,
                Some(_) => return None,
                None => {
                    let parent = anchor.parent()?;
                    let wrapper = parent.start_byte() == anchor.start_byte()
                        || WRAPPERS.iter().any(|w| parent.kind().contains(w));
                    if !wrapper || parent.parent().is_none() {
                        return None;
                    }
                    anchor = parent;
                }
            }
        }
        let mut comments = Vec::new();
        let mut next_row = anchor.start_position().row;
        let mut prev = anchor.prev_named_sibling();
        while let Some(p) = prev {
            if is_decoration(&p) {
                next_row = p.start_position().row;
                prev = p.prev_named_sibling();
                continue;
            }
            if !is_comment(&p) || p.end_position().row + 1 < next_row {
                break;
            }
            comments.push(p);
            next_row = p.start_position().row;
            prev = p.prev_named_sibling();
        }
        if comments.is_empty() {
            return None;
        }
        comments.reverse();
        Some(docs_text(&comments, source))
    }

    /// Every named node of every language's fixtures (definitions or not) gets the same
    /// doc comment from the one walk as from asking the node's siblings and parents.
    #[test]
    fn one_walk_finds_the_doc_comments_the_per_node_walk_finds() {
        let root = crate::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut compared = 0;
        let mut documented = 0;
        for dir in std::fs::read_dir(&root).unwrap() {
            for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
                let path = file.unwrap().path();
                let source = std::fs::read(&path).unwrap();
                let Some(lang) = cc_grammars::detect(&path, &source) else { continue };
                let mut parser = Parser::new();
                parser.set_language(&lang.grammar()).unwrap();
                let tree = parser.parse(&source, None).unwrap();
                let mut nodes = Vec::new();
                let mut stack = vec![tree.root_node()];
                while let Some(n) = stack.pop() {
                    let mut cursor = n.walk();
                    stack.extend(n.children(&mut cursor));
                    if n.is_named() {
                        nodes.push(n);
                    }
                }
                let found = preceding_docs(tree.root_node(), &nodes, &source);
                for n in &nodes {
                    let expected = preceding_comments(*n, &source);
                    let got = found.get(&n.id()).cloned().flatten();
                    assert_eq!(got, expected, "{}: {} at {:?}", path.display(), n.kind(), n.start_position());
                    compared += 1;
                    documented += usize::from(expected.is_some());
                }
            }
        }
        assert!(compared > 5000 && documented > 100, "{compared} nodes compared, {documented} with a doc comment");
    }

    #[test]
    fn a_body_window_is_the_bodys_distinct_identifiers_in_order_and_bounded() {
        let src = "class Store:\n    def save(self, record):\n        \"\"\"Write a record.\"\"\"\n        payload = json.dumps(record)\n        self.save(payload)\n        self.conn.execute(payload)\n\ndef empty(): ...\n";
        let out = Extractor::new().extract(Lang::Python, "store.py", src.as_bytes());
        let body = |q: &str| out.symbols.iter().find(|s| s.qualified_name == q).unwrap().body.as_str();
        // Not the doc (a string), not `self`, not its own name; each identifier once.
        assert_eq!(body("store.Store.save"), "payload json dumps record conn execute");
        assert_eq!(body("store.Store"), "", "a class's members have the windows");
        assert_eq!(body("store.empty"), "");
        for lang in [Lang::Rust, Lang::TypeScript, Lang::Go, Lang::Java] {
            let src = match lang {
                Lang::Rust => "fn f() { let total = items.iter().map(weigh).sum(); log::info!(total); }",
                Lang::Go => "package p\nfunc f() { total := weigh(items); fmt.Println(total) }",
                Lang::Java => "class C { void f() { int total = weigh(items); System.out.println(total); } }",
                _ => "function f() { const total = weigh(items); console.log(total); }",
            };
            let out = Extractor::new().extract(lang, "x", src.as_bytes());
            let f = out.symbols.iter().find(|s| s.name == "f").unwrap();
            assert!(
                f.body.contains("total") && f.body.contains("weigh") && f.body.contains("items"),
                "{lang:?}: {}",
                f.body
            );
        }
        // Bounded: a long body keeps its first identifiers, whole.
        let long: String = (0..400).map(|i| format!("    v{i} = call{i}()\n")).collect();
        let out = Extractor::new().extract(Lang::Python, "l.py", format!("def f():\n{long}").as_bytes());
        let b = &out.symbols[0].body;
        assert!(
            b.len() <= MAX_BODY && b.starts_with("v0 call0 v1 call1 ") && b.split(' ').all(|w| w.len() >= 2),
            "{b}"
        );
    }

    #[test]
    fn typescript_overload_signatures_are_their_implementation() {
        let src = "/** Makes a point. */\nexport function pointFrom(x: number, y: number): P;\nexport function pointFrom(xy: [number, number]): P;\nexport function pointFrom(a: any, b?: any): P {\n  return a;\n}\n\nclass Canvas {\n  draw(a: string): void;\n  draw(a: number): void;\n  draw(a: any) {}\n}\n\ninterface Shape {\n  area(): number;\n  area(scale: number): number;\n}\n\ndeclare function external(a: string): void;\ndeclare function external(a: number): void;\n";
        for lang in [Lang::TypeScript, Lang::Tsx] {
            let out = Extractor::new().extract(lang, "p.ts", src.as_bytes());
            let syms: Vec<(&str, u32, Option<&str>)> =
                out.symbols.iter().map(|s| (s.qualified_name.as_str(), s.span.start_line, s.doc.as_deref())).collect();
            assert_eq!(
                syms,
                [
                    ("pointFrom", 4, Some("Makes a point.")),
                    ("Canvas", 8, None),
                    ("Canvas.draw", 11, None),
                    ("Shape", 14, None),
                    ("Shape.area", 15, None),
                    ("Shape.area", 16, None),
                    ("external", 19, None),
                    ("external", 20, None),
                ],
                "{lang:?}"
            );
        }
    }

    /// `class LEVELDB_EXPORT Status {`, `void Lock() EXCLUSIVE_LOCK_FUNCTION() {`: read as
    /// written, the class is a function named `Status` and the method one named after the
    /// macro; with the macros blanked they are what the compiler sees.
    #[test]
    fn cpp_attribute_macros_leave_classes_and_methods_whole() {
        let src = "class LEVELDB_EXPORT Status {\n public:\n  static Status OK() { return Status(); }\n};\nclass LOCKABLE Mutex {\n public:\n  void Lock() EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }\n private:\n  int n_ GUARDED_BY(mu_);\n};\n";
        let out = Extractor::new().extract(Lang::Cpp, "port.h", src.as_bytes());
        let names: Vec<(&str, SymbolKind)> = out.symbols.iter().map(|s| (s.qualified_name.as_str(), s.kind)).collect();
        assert_eq!(
            names,
            [
                ("Status", SymbolKind::Class),
                ("Status::OK", SymbolKind::Method),
                ("Mutex", SymbolKind::Class),
                ("Mutex::Lock", SymbolKind::Method),
            ]
        );
        assert!(out.diagnostics.is_empty(), "{:?}", out.diagnostics);
        let lock = out.references.iter().find(|r| r.name == "lock").expect("the call");
        assert_eq!(lock.span.start_line, 7);
    }

    /// `LUA_API lua_Unsigned lua_rawlen (…)`: the grammar reads the type as the declarator and
    /// the name as an error; the function is named by its own name, and its calls are its.
    #[test]
    fn an_ada_child_unit_is_named_by_its_own_name_and_qualified_by_its_parents() {
        let src = "package body Zip.Compress is\n   procedure Flush is\n   begin\n      null;\n   end Flush;\nend Zip.Compress;\n\nprocedure Zip.Compress.Deflate is\nbegin\n   null;\nend Zip.Compress.Deflate;\n";
        let out = Extractor::new().extract(Lang::Ada, "zip-compress.adb", src.as_bytes());
        let names: Vec<(&str, &str)> =
            out.symbols.iter().map(|s| (s.name.as_str(), s.qualified_name.as_str())).collect();
        assert_eq!(
            names,
            [("Compress", "Zip.Compress"), ("Flush", "Zip.Compress.Flush"), ("Deflate", "Zip.Compress.Deflate")]
        );
    }

    #[test]
    fn a_c_function_declared_after_an_unknown_macro_is_named_by_its_own_name() {
        let src = "#define LUA_API extern\ntypedef unsigned long lua_Unsigned;\n\nLUA_API lua_Unsigned lua_rawlen (int L, int idx) {\n  return index2value(L, idx);\n}\n\nLUA_API int lua_gettop (int L) {\n  return 0;\n}\n";
        for lang in [Lang::C, Lang::Cpp] {
            let out = Extractor::new().extract(lang, "lapi.c", src.as_bytes());
            let names: Vec<(&str, SymbolKind)> = out.symbols.iter().map(|s| (s.name.as_str(), s.kind)).collect();
            assert_eq!(
                names,
                [
                    ("LUA_API", SymbolKind::Macro),
                    ("lua_Unsigned", SymbolKind::Type),
                    ("lua_rawlen", SymbolKind::Function),
                    ("lua_gettop", SymbolKind::Function)
                ],
                "{lang:?}"
            );
            let call = out.references.iter().find(|r| r.name == "index2value").expect("the call");
            assert_eq!(call.enclosing, Some(out.symbols[2].id), "{lang:?}");
        }
    }

    #[test]
    fn doc_markup_becomes_text() {
        let java = |d: &str| plain_doc(Lang::Java, d.to_string());
        assert_eq!(java("Return the {@link BeanFactory} to use."), "Return the BeanFactory to use.");
        assert_eq!(java("See {@link #getBean(String, Class) the lookup}."), "See the lookup.");
        assert_eq!(
            java("See {@link AbstractBeanFactory#getBean(String)}."),
            "See AbstractBeanFactory.getBean(String)."
        );
        assert_eq!(java("Calls {@link #refresh()} first."), "Calls refresh() first.");
        assert_eq!(java("A {@code Map<String, Object>} of {@code {}} pairs."), "A Map<String, Object> of {} pairs.");
        assert_eq!(java("{@inheritDoc}"), "");
        assert_eq!(
            java("Parses.\n<p>Lenient: <em>never</em> throws.\n<ul>\n<li>one</li>\n</ul>"),
            "Parses.\n\nLenient: never throws.\n\none"
        );
        assert_eq!(
            java("A list&lt;String&gt; &amp; a <T> and List<String>."),
            "A list<String> & a <T> and List<String>."
        );
        assert_eq!(java("x < y && y > z"), "x < y && y > z");
        assert_eq!(java("Unclosed {@link Foo"), "Unclosed {@link Foo");
        assert_eq!(java("Plain text."), "Plain text.");
        // HTML is Javadoc's: a Rust or TSX doc keeps its angle brackets.
        assert_eq!(plain_doc(Lang::Rust, "Wraps <b>x</b>.".into()), "Wraps <b>x</b>.");
        assert_eq!(plain_doc(Lang::Tsx, "Renders <div className=\"x\" />.".into()), "Renders <div className=\"x\" />.");
        assert_eq!(plain_doc(Lang::Python, "Returns {@code x}.".into()), "Returns x.");
    }

    #[test]
    fn module_paths() {
        assert_eq!(module_path(Lang::Python, "pkg/sub/mod.py"), "pkg.sub.mod");
        assert_eq!(module_path(Lang::Python, "pkg/__init__.py"), "pkg");
        assert_eq!(module_path(Lang::Rust, "src/lib.rs"), "crate");
        assert_eq!(module_path(Lang::Rust, "tokio/src/runtime/mod.rs"), "tokio::runtime");
        assert_eq!(module_path(Lang::Rust, "cc-indexer/src/a/b.rs"), "cc_indexer::a::b");
        assert_eq!(module_path(Lang::Go, "net/http/server.go"), "http");
        assert_eq!(module_path(Lang::Java, "a/B.java"), "");
    }

    #[test]
    fn comment_markers() {
        assert_eq!(strip_comment_markers("/// Does a thing."), "Does a thing.");
        assert_eq!(strip_comment_markers(" * more */"), "more");
        assert_eq!(strip_comment_markers("# hash"), "hash");
        assert_eq!(strip_comment_markers("\"\"\"Docstring.\"\"\""), "Docstring.");
        assert_eq!(strip_comment_markers("-- ada"), "ada");
    }

    #[test]
    fn a_call_records_how_many_arguments_it_passes() {
        type Case<'a> = (Lang, &'a str, &'a str, &'a [(&'a str, Option<usize>)]);
        let cases: [Case<'_>; 6] = [
            (
                Lang::Java,
                "a/A.java",
                "class A { A() { this(1, 2); } void f() { g(); h(1, /* c */ 2); o.m(x, y(z)); new B(1); } }",
                &[("this", Some(2)), ("g", Some(0)), ("h", Some(2)), ("m", Some(2)), ("y", Some(1)), ("B", Some(1))],
            ),
            (
                Lang::CSharp,
                "A.cs",
                "class A { A() : base(1) { } void F() { G(); H(1, 2); o.M(x); var b = new B(1, 2, 3); } }",
                &[("base", Some(1)), ("G", Some(0)), ("H", Some(2)), ("M", Some(1)), ("B", Some(3))],
            ),
            (
                Lang::Kotlin,
                "A.kt",
                "class A : B(1) {\n constructor(x: Int) : this()\n fun f() {\n g()\n h(1, 2)\n run(3) { }\n go { }\n }\n}\n",
                &[("B", Some(1)), ("this", Some(0)), ("g", Some(0)), ("h", Some(2)), ("run", Some(2)), ("go", Some(1))],
            ),
            (
                Lang::Cpp,
                "a.cpp",
                "void f() { g(); h(1, 2); o.m(x); auto p = new B(1); }",
                &[("g", Some(0)), ("h", Some(2)), ("m", Some(1)), ("B", Some(1))],
            ),
            (
                Lang::Swift,
                "a.swift",
                "func f() { g(); h(1, level: 2); o.m(x) { } }",
                &[("g", Some(0)), ("h", Some(2)), ("m", Some(2))],
            ),
            (Lang::Python, "a.py", "f(1, *xs, k=2)\n", &[("f", Some(3))]),
        ];
        let mut ex = Extractor::new();
        for (lang, path, src, want) in cases {
            let out = ex.extract(lang, path, src.as_bytes());
            for (name, n) in want {
                let r = out
                    .references
                    .iter()
                    .find(|r| r.kind == RefKind::Call && r.name == *name)
                    .unwrap_or_else(|| panic!("{lang}: no call of {name}: {:?}", out.references));
                assert_eq!(r.arg_count(), *n, "{lang}: {name}");
            }
            // Only calls carry a count.
            assert!(out.references.iter().filter(|r| r.kind != RefKind::Call).all(|r| r.arg_count().is_none()));
        }
    }
}
