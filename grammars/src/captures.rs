//! The capture vocabulary of `tags.scm`: what each capture name means to the extractor.
//!
//! The standard tree-sitter tags captures, plus a few of ours, documented in
//! `grammars/queries/README.md`:
//!
//! | capture | meaning |
//! |---|---|
//! | `@definition.<kind>` | the whole definition node; `<kind>` is a [`SymbolKind`] name or a standard alias |
//! | `@reference.call`, `@reference.send` | a call; `@reference.class` / `.type` / `.implementation` / `.interface`: a type use |
//! | `@reference.callback` | a function passed by name as an argument; `@name` is the identifier |
//! | `@reference.value` | a name used as a value (assigned, returned, stored in a container): `@name`, `@receiver`, `@import.alias` the variable it flows into |
//! | `@reference.iteration`, `.context`, `.raise` | implicit calls: `for x in @name`, `with @name as x`, `raise @name` (`@name` is the expression) |
//! | `@reference.operator` | an operator applied to `@name` (the operand whose class's method runs: `@name + b`, `x in @name`, `@name[k]`); `@import.alias` is the operator's token |
//! | `@reference.import` | an import; `@name` is the imported name, `@import.module` the module, `@import.alias` the local alias |
//! | `@scope` | a container that is not a symbol itself (a Rust `impl` block); `@name` names it |
//! | `@name` | the identifier of the definition or reference in the same match |
//! | `@doc` | doc comment text for the definition in the same match |
//! | `@receiver` | the receiver or qualifier of a call (`self`, `os.path`, `Foo`) |
//! | `@arg.of` | on an argument's reference: the name node of the call it is passed to |
//! | `@arg.list` | the argument list holding it (its position is counted there; a keyword argument's name is its slot) |
//! | `@flow.return` | the value is what the enclosing function returns (`return f`, `yield f`, a lambda's body) |
//! | `@flow.key` | the key a value is stored under in an object literal (`o = {k: f}`: the alias becomes `o.k`) |
//! | `@binding.elements` | on a binding's type: the variable holds elements of `@name` (a slice, a `Vec`): the alias becomes `v[]` |
//! | `@binding.scope` | on a binding's type: the binding holds only in this node (a type test's `if` branch): the alias becomes `v?` and the reference's span ends where the node does |
//! | `@decorates` | on a decorator's call: the definition it decorates (its alias becomes `@name`: `name = callee(name)`) |
//! | `@decorates.result` | the same for a decorator that is a call (`@dec(args)`: alias `@@name`, `name = dec(args)(name)`) |
//!
//! Captures starting with `_` are helpers for predicates and are ignored.

use std::fmt;

/// What a definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    Function,
    Method,
    Class,
    Struct,
    Interface,
    Trait,
    Enum,
    Module,
    Constant,
    Type,
    Macro,
    Field,
    Variable,
    Label,
}

impl SymbolKind {
    pub const ALL: [SymbolKind; 14] = [
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Class,
        SymbolKind::Struct,
        SymbolKind::Interface,
        SymbolKind::Trait,
        SymbolKind::Enum,
        SymbolKind::Module,
        SymbolKind::Constant,
        SymbolKind::Type,
        SymbolKind::Macro,
        SymbolKind::Field,
        SymbolKind::Variable,
        SymbolKind::Label,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Struct => "struct",
            SymbolKind::Interface => "interface",
            SymbolKind::Trait => "trait",
            SymbolKind::Enum => "enum",
            SymbolKind::Module => "module",
            SymbolKind::Constant => "constant",
            SymbolKind::Type => "type",
            SymbolKind::Macro => "macro",
            SymbolKind::Field => "field",
            SymbolKind::Variable => "variable",
            SymbolKind::Label => "label",
        }
    }

    /// Parses a kind name, accepting the standard tags aliases (`constructor` is a
    /// method, `namespace`/`package` a module, `object`/`mixin`/`extension` a class,
    /// `protocol` an interface, `union`/`record` a struct, `typedef` a type).
    pub fn parse(s: &str) -> Option<SymbolKind> {
        Some(match s {
            "function" | "func" | "fn" | "procedure" | "subroutine" => SymbolKind::Function,
            "method" | "constructor" | "destructor" | "getter" | "setter" | "operator" => SymbolKind::Method,
            "class" | "object" | "mixin" | "extension" | "actor" => SymbolKind::Class,
            "struct" | "union" | "record" => SymbolKind::Struct,
            "interface" | "protocol" => SymbolKind::Interface,
            "trait" => SymbolKind::Trait,
            "enum" => SymbolKind::Enum,
            "module" | "namespace" | "package" => SymbolKind::Module,
            "constant" | "const" => SymbolKind::Constant,
            "type" | "typedef" | "type_alias" => SymbolKind::Type,
            "macro" => SymbolKind::Macro,
            "field" | "property" => SymbolKind::Field,
            "variable" | "var" => SymbolKind::Variable,
            "label" => SymbolKind::Label,
            _ => return None,
        })
    }

    /// Kinds whose members are methods and whose name qualifies what they contain.
    pub fn is_type_like(self) -> bool {
        matches!(
            self,
            SymbolKind::Class | SymbolKind::Struct | SymbolKind::Interface | SymbolKind::Trait | SymbolKind::Enum
        )
    }

    /// Kinds that can call (sources of call edges).
    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method | SymbolKind::Macro)
    }
}

impl fmt::Display for SymbolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a reference does with the name it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefKind {
    Call,
    Import,
    Type,
    /// A function passed by name as a value (`map(f, xs)`, `on("x", handler)`): a
    /// `reference` edge when it resolves to a function or class, dropped when it does not (it
    /// may be a variable); its value flows to the callee's parameter.
    Callback,
    /// A name used as a value: assigned (`h = f`, `self.h = f`, `d[k] = C`), stored in a
    /// container literal, returned. Resolved like a callback; its value flows to the alias.
    Value,
    /// `for x in xs`: the iterable (its class's `__iter__`/`__next__`); the alias is `x`.
    Iteration,
    /// `with e as x`: the context manager (`__enter__`/`__exit__`); the alias is `x`.
    Context,
    /// `raise E` without a call: constructs `E`.
    Raise,
    /// An operator applied to an operand (`a + b`, `x in a`, `a[k]`, `a[k] = v`): the
    /// operand's class's method for it (`__add__`, `__contains__`, `__getitem__`,
    /// `__setitem__`); the alias is the operator's token (`+`, `in`, `[`, `=`).
    Operator,
}

impl RefKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RefKind::Call => "call",
            RefKind::Import => "import",
            RefKind::Type => "type",
            RefKind::Callback => "callback",
            RefKind::Value => "value",
            RefKind::Iteration => "iteration",
            RefKind::Context => "context",
            RefKind::Raise => "raise",
            RefKind::Operator => "operator",
        }
    }

    /// Parses the part after `reference.`.
    pub fn parse(s: &str) -> Option<RefKind> {
        Some(match s {
            "call" | "send" | "new" | "macro" => RefKind::Call,
            "import" | "include" | "require" => RefKind::Import,
            "class" | "type" | "implementation" | "interface" => RefKind::Type,
            "callback" => RefKind::Callback,
            "value" => RefKind::Value,
            "iteration" => RefKind::Iteration,
            "context" => RefKind::Context,
            "raise" => RefKind::Raise,
            "operator" => RefKind::Operator,
            _ => return None,
        })
    }
}

impl fmt::Display for RefKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The role a capture name plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Definition(SymbolKind),
    Reference(RefKind),
    Scope,
    Name,
    Doc,
    Receiver,
    ImportModule,
    ImportAlias,
    ArgOf,
    ArgList,
    FlowReturn,
    /// The key of an object literal's entry: appended to the alias (`o = {k: f}`: `o.k`).
    FlowKey,
    /// A binding's type is a container of `@name`: the alias gets `[]` (`repos[]`).
    BindingElements,
    /// A binding holds only in this node (`if (o instanceof Circle) o.area()`: the `if`'s
    /// branch): the alias gets `?` (`o?`), and the reference's span ends with the node.
    BindingScope,
    Decorates,
    DecoratesResult,
    /// Helper captures (`_x`) and standard captures we do not use (`@local.scope`).
    Ignored,
}

/// Classifies a capture name. Unknown `definition.*` / `reference.*` suffixes are
/// errors caught by the query test, not silently dropped: see [`unknown_captures`].
pub fn role(capture: &str) -> Role {
    if let Some(kind) = capture.strip_prefix("definition.") {
        return SymbolKind::parse(kind).map_or(Role::Ignored, Role::Definition);
    }
    if let Some(kind) = capture.strip_prefix("reference.") {
        return RefKind::parse(kind).map_or(Role::Ignored, Role::Reference);
    }
    match capture {
        "name" => Role::Name,
        "doc" => Role::Doc,
        "receiver" => Role::Receiver,
        "scope" => Role::Scope,
        "import.module" => Role::ImportModule,
        "import.alias" => Role::ImportAlias,
        "arg.of" => Role::ArgOf,
        "arg.list" => Role::ArgList,
        "flow.return" => Role::FlowReturn,
        "flow.key" => Role::FlowKey,
        "binding.elements" => Role::BindingElements,
        "binding.scope" => Role::BindingScope,
        "decorates" => Role::Decorates,
        "decorates.result" => Role::DecoratesResult,
        _ => Role::Ignored,
    }
}

/// Capture names in a query that the extractor would ignore although they look
/// meaningful (a typo such as `@definiton.function` or `@reference.cal`).
pub fn unknown_captures<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    names.into_iter().filter(|n| !n.starts_with('_') && !n.starts_with("local.") && role(n) == Role::Ignored).collect()
}
