//! The plain records the indexer produces: symbols, references, per-file records.

use std::fmt;

use serde::{Deserialize, Serialize};

pub use compact_str::CompactString;

pub use cc_grammars::captures::{RefKind, SymbolKind};
pub use cc_grammars::Lang;

mod references;
pub(crate) use references::WireIn;
pub use references::{keeps_calls_decoded, References};

/// A symbol's stable id: the first 8 bytes of
/// `blake3(path \0 qualified_name \0 kind \0 n)`, where `n` counts earlier symbols of
/// the same file with the same qualified name and kind. It does not depend on line
/// numbers, so an edit elsewhere in a file keeps its ids. Shown as 16 hex digits, the form
/// every command accepts; serialized so too in human-readable formats (JSON: a u64 is larger
/// than a JavaScript number holds), and as the u64 in binary ones (`records.bin`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymbolId(pub u64);

impl Serialize for SymbolId {
    fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        if z.is_human_readable() {
            z.collect_str(self)
        } else {
            z.serialize_u64(self.0)
        }
    }
}

impl<'de> Deserialize<'de> for SymbolId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SymbolId, D::Error> {
        if !d.is_human_readable() {
            return u64::deserialize(d).map(SymbolId);
        }
        struct Hex;
        impl serde::de::Visitor<'_> for Hex {
            type Value = SymbolId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a symbol id: 16 hex digits")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<SymbolId, E> {
                SymbolId::parse(v).ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(v), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<SymbolId, E> {
                Ok(SymbolId(v))
            }
        }
        d.deserialize_any(Hex)
    }
}

impl SymbolId {
    pub fn compute(path: &str, qualified_name: &str, kind: SymbolKind, n: u32) -> SymbolId {
        let mut h = blake3::Hasher::new();
        h.update(path.as_bytes());
        h.update(&[0]);
        h.update(qualified_name.as_bytes());
        h.update(&[0]);
        h.update(kind.as_str().as_bytes());
        h.update(&[0]);
        h.update(&n.to_le_bytes());
        let bytes = h.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&bytes.as_bytes()[..8]);
        SymbolId(u64::from_be_bytes(first))
    }

    /// Parses the 16-hex-digit form.
    pub fn parse(s: &str) -> Option<SymbolId> {
        if s.len() != 16 {
            return None;
        }
        u64::from_str_radix(s, 16).ok().map(SymbolId)
    }
}

impl fmt::Display for SymbolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl fmt::Debug for SymbolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// A region of a file. Lines and columns are 1-based; columns count bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    pub start_line: u32,
    pub start_col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

impl Span {
    pub fn from_node(node: &tree_sitter::Node<'_>) -> Span {
        let s = node.start_position();
        let e = node.end_position();
        Span {
            start_line: s.row as u32 + 1,
            start_col: s.column as u32 + 1,
            end_line: e.row as u32 + 1,
            end_col: e.column as u32 + 1,
        }
    }

    /// This span, ending where `node` ends instead (when that is later).
    pub fn until(self, node: &tree_sitter::Node<'_>) -> Span {
        let end = Span::from_node(node);
        if (end.end_line, end.end_col) <= (self.end_line, self.end_col) {
            return self;
        }
        Span { end_line: end.end_line, end_col: end.end_col, ..self }
    }
}

/// A definition found in a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    pub id: SymbolId,
    pub name: String,
    pub kind: SymbolKind,
    /// Module path (where the language has one derivable from the file path), then the
    /// chain of containers, then the name, joined by the language's separator:
    /// `pkg.mod.Class.method`, `crate::a::Type::f`.
    pub qualified_name: String,
    /// The innermost enclosing symbol, if any.
    pub parent: Option<SymbolId>,
    pub lang: Lang,
    /// Repository-relative path, `/`-separated.
    pub path: String,
    pub span: Span,
    /// The declaration header without its body, whitespace collapsed.
    pub signature: String,
    pub doc: Option<String>,
    /// The body's distinct identifiers in order, bounded (`extract::MAX_BODY` bytes);
    /// empty without a body.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub body: String,
}

/// A use of a name found in a file.
///
/// A repository has ~10x more references than symbols (sqlalchemy: 350k), so this is kept
/// small: the module and alias, which only imports and bindings (`Circle c`, `c = Circle()`)
/// have, are one boxed pair (96 bytes a reference instead of 136; 14 MB less on
/// sqlalchemy). On disk it is the flat record it always was (`RefWire`), so `records.bin`
/// did not change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The name as written at the use site (last segment of a qualified call).
    pub name: CompactString,
    pub kind: RefKind,
    pub span: Span,
    /// The innermost symbol whose span contains this reference; `None` at file level.
    pub enclosing: Option<SymbolId>,
    /// Receiver or qualifier text of a call (`self`, `os.path`, `Foo`), as written.
    pub receiver: Option<CompactString>,
    bound: Option<Box<Bound>>,
    /// An argument's call (the index of its reference in the file's list; `u32::MAX`: not
    /// an argument) and slot ([`Slot::encode`]); inline: they fit in the padding.
    arg_call: u32,
    arg_slot: u16,
    /// A call's argument count ([`Reference::ARGS_UNKNOWN`]: not known); in the padding too.
    args: u8,
}

/// Where an argument's value goes: the call it is passed to and its slot there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arg {
    /// The index of the call's reference in the same file's references.
    pub call: u32,
    pub slot: Slot,
}

/// An argument's slot in its call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// The n-th positional argument (0-based, as written at the call).
    Position(u16),
    /// A keyword argument; its keyword is the reference's [`Reference::alias`].
    Keyword,
    /// `*args` / `...args`: spread over the positional parameters.
    Star,
    /// `**kwargs`: spread over the keyword parameters.
    StarStar,
}

impl Slot {
    const KEYWORD: u16 = u16::MAX;
    const STAR: u16 = u16::MAX - 1;
    const STAR_STAR: u16 = u16::MAX - 2;

    fn encode(self) -> u16 {
        match self {
            Slot::Position(n) => n.min(Slot::STAR_STAR - 1),
            Slot::Keyword => Slot::KEYWORD,
            Slot::Star => Slot::STAR,
            Slot::StarStar => Slot::STAR_STAR,
        }
    }

    fn decode(v: u16) -> Slot {
        match v {
            Slot::KEYWORD => Slot::Keyword,
            Slot::STAR => Slot::Star,
            Slot::STAR_STAR => Slot::StarStar,
            n => Slot::Position(n),
        }
    }
}

/// What an import or a binding adds to a reference.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Bound {
    module: Option<CompactString>,
    alias: Option<CompactString>,
    /// Java: what a call's arguments are, as far as the call's text says; Rust: a macro
    /// invocation's tokens (see [`Reference::arg_types`]).
    arg_types: Option<CompactString>,
    /// Rust: the arm of a `macro_rules!` of several arms this reference is written in
    /// (1-based; 0: none, see [`Reference::macro_arm`]).
    arm: u8,
    /// Kotlin: the receivers of the lambdas around a call without one (see
    /// [`Reference::implicit_receivers`]).
    implicit: Option<CompactString>,
}

impl Reference {
    pub fn new(
        name: CompactString,
        kind: RefKind,
        span: Span,
        enclosing: Option<SymbolId>,
        receiver: Option<CompactString>,
        module: Option<CompactString>,
        alias: Option<CompactString>,
    ) -> Reference {
        let bound =
            (module.is_some() || alias.is_some()).then(|| Box::new(Bound { module, alias, ..Bound::default() }));
        Reference {
            name,
            kind,
            span,
            enclosing,
            receiver,
            bound,
            arg_call: u32::MAX,
            arg_slot: 0,
            args: Self::ARGS_UNKNOWN,
        }
    }

    /// The reference's imports and bindings part, made empty when it has none.
    fn bound_mut(&mut self) -> &mut Bound {
        self.bound.get_or_insert_with(Box::default)
    }

    /// The stored argument count of a call whose count is not known (or is this or more).
    pub const ARGS_UNKNOWN: u8 = u8::MAX;

    /// The stored argument count of a C++ variable declared without an initialiser (`Status
    /// s;`): no arguments, and only a constructor its class declares runs.
    const ARGS_DECLARED: u8 = u8::MAX - 1;

    /// The stored argument count of a name read as a value where a subprogram without
    /// parameters is called by its name alone (Ada: `X := Next;`, `if not Done then`): a
    /// call when the name is a subprogram's, nothing when it is anything else's.
    const ARGS_BARE: u8 = u8::MAX - 2;

    /// This call passing `n` arguments (`None`: not known).
    pub fn with_arg_count(mut self, n: Option<usize>) -> Reference {
        self.args = match n {
            Some(n) if n < Self::ARGS_BARE as usize => n as u8,
            _ => Self::ARGS_UNKNOWN,
        };
        self
    }

    /// This call a C++ variable declared without an initialiser (`Status s;`).
    pub fn declared(mut self) -> Reference {
        self.args = Self::ARGS_DECLARED;
        self
    }

    /// Whether this call is a C++ variable declared without an initialiser (see
    /// [`Reference::declared`]).
    pub fn is_declared(&self) -> bool {
        self.args == Self::ARGS_DECLARED
    }

    /// This call a name read as a value (see [`Reference::is_bare`]).
    pub fn bare(mut self) -> Reference {
        self.args = Self::ARGS_BARE;
        self
    }

    /// Whether this call is a name read as a value, which calls a subprogram without
    /// parameters when it names one and is no call otherwise (Ada: `X := Next;`).
    pub fn is_bare(&self) -> bool {
        self.args == Self::ARGS_BARE
    }

    /// For a call: how many arguments it passes, when the extractor saw its argument list
    /// (a Kotlin or Swift trailing lambda is one of them; `*args`, `...xs` each count one).
    pub fn arg_count(&self) -> Option<usize> {
        match self.args {
            Self::ARGS_UNKNOWN => None,
            Self::ARGS_DECLARED | Self::ARGS_BARE => Some(0),
            n => Some(n as usize),
        }
    }

    /// This reference as an argument of the call `arg.call`.
    pub fn with_arg(mut self, arg: Option<Arg>) -> Reference {
        (self.arg_call, self.arg_slot) = match arg {
            Some(a) => (a.call, a.slot.encode()),
            None => (u32::MAX, 0),
        };
        self
    }

    /// For an argument (a callback, a value, a call passed to another call): where it goes.
    pub fn arg(&self) -> Option<Arg> {
        (self.arg_call != u32::MAX).then(|| Arg { call: self.arg_call, slot: Slot::decode(self.arg_slot) })
    }

    /// This call's arguments as its text shows them (`None`: nothing known).
    pub fn with_arg_types(mut self, types: Option<CompactString>) -> Reference {
        if let Some(t) = types {
            self.bound_mut().arg_types = Some(t);
        }
        self
    }

    /// Java, for a call: what each argument is, comma-separated, as far as its text says: a
    /// literal's type (`String`, `int`, `long`, `char`, `double`, `float`, `boolean`, `null`),
    /// `this`, the class a `new` makes or a cast names, `=name` for a variable, `?` otherwise
    /// (`t.error(this, "x", n)` is `this,String,=n`). Overloads of one arity are told apart
    /// by it.
    ///
    /// Rust, for a macro invocation: its tokens inside the delimiters, whitespace collapsed
    /// (`buf_get_impl!(le => self, u64, n)` is `le => self, u64, n`; none past
    /// [`Reference::MAX_MACRO_TOKENS`] bytes). Which arm of the macro runs is told by it.
    ///
    /// Ada, for a call: each positional argument, comma-separated: `#str`, `#chr`, `#num` for
    /// a literal, the type of a parameter or variable of a scope around (its subtype mark's
    /// last name, lowercased), `?` otherwise (`Put (File, "x", N)` is `file_type,#str,?`).
    ///
    /// Kotlin, for a call: as Java's, with `~text` for a call or property chain the resolver
    /// types (its commas as U+001F), `fn`/`fn*` for a lambda/a trailing one, `*` for a spread,
    /// and `name=>hint` for a named argument. For a variable's declared type: its type
    /// arguments (`Cmd` of `List<Cmd>`).
    pub fn arg_types(&self) -> Option<&str> {
        self.bound.as_ref()?.arg_types.as_deref()
    }

    /// This call's implicit receivers (`None`: none known).
    pub fn with_implicit_receivers(mut self, receivers: Option<CompactString>) -> Reference {
        if let Some(r) = receivers {
            self.bound_mut().implicit = Some(r);
        }
        self
    }

    /// Kotlin, for a call without a receiver written in lambdas: what each lambda around
    /// has for `this`, innermost first, `;`-separated: the receiver of `x.apply { }`, `x.run
    /// { }` and `with(x) { }` as written (`x`), or `@f` for a lambda passed to `f` (`@b.f`
    /// for `b.f { }`), whose parameter's type says (`CodeWriter.() -> Unit`).
    pub fn implicit_receivers(&self) -> Option<&str> {
        self.bound.as_ref()?.implicit.as_deref()
    }

    /// The longest macro invocation whose tokens are kept, in bytes.
    pub const MAX_MACRO_TOKENS: usize = 512;

    /// This reference written in arm `arm` (1-based) of a `macro_rules!` of several arms.
    pub fn with_macro_arm(mut self, arm: u8) -> Reference {
        if arm != 0 {
            self.bound_mut().arm = arm;
        }
        self
    }

    /// Rust: the arm (1-based) of the `macro_rules!` around this reference, when that macro
    /// has several (what the reference does happens only where an invocation matches it).
    pub fn macro_arm(&self) -> Option<u8> {
        self.bound.as_ref().map(|b| b.arm).filter(|&a| a != 0)
    }

    /// For imports: the module imported from, as written (quotes removed).
    pub fn module(&self) -> Option<&str> {
        self.bound.as_ref()?.module.as_deref()
    }

    /// Replaces the module an import names (a specifier the toolchain maps elsewhere, see
    /// [`crate::imports`]).
    pub fn set_module(&mut self, module: CompactString) {
        self.bound_mut().module = Some(module);
    }

    /// Sets the name an import binds (a Go package's name, where the import path was
    /// rewritten, see [`crate::imports`]).
    pub fn set_alias(&mut self, alias: CompactString) {
        self.bound_mut().alias = Some(alias);
    }

    /// For imports: the local alias (`import numpy as np` -> `np`); for a type, call or
    /// value reference, the variable it binds (`Circle c` -> `c`, `c = Circle()` -> `c`,
    /// `h = f` -> `h`, `self.h = f` -> `self.h`, `d[k] = f` -> `d[k]`; `return` for a value the
    /// enclosing function returns); for a keyword argument, its keyword.
    pub fn alias(&self) -> Option<&str> {
        self.bound.as_ref()?.alias.as_deref()
    }
}

/// A [`Reference`] as `records.bin` stores it (the field order is the format).
#[derive(Serialize, Deserialize)]
struct RefWire<N, S> {
    name: N,
    kind: RefKind,
    span: Span,
    enclosing: Option<SymbolId>,
    receiver: Option<S>,
    module: Option<S>,
    alias: Option<S>,
    /// An argument's call and encoded slot.
    arg: Option<(u32, u16)>,
    /// A call's argument count, [`Reference::ARGS_UNKNOWN`] when not known.
    args: u8,
    /// [`Reference::arg_types`].
    arg_types: Option<S>,
    /// [`Reference::macro_arm`], 0 for none.
    arm: u8,
    /// [`Reference::implicit_receivers`].
    implicit: Option<S>,
}

impl Serialize for Reference {
    fn serialize<Z: serde::Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        RefWire::<&str, &str> {
            name: &self.name,
            kind: self.kind,
            span: self.span,
            enclosing: self.enclosing,
            receiver: self.receiver.as_deref(),
            module: self.module(),
            alias: self.alias(),
            arg: (self.arg_call != u32::MAX).then_some((self.arg_call, self.arg_slot)),
            args: self.args,
            arg_types: self.arg_types(),
            arm: self.macro_arm().unwrap_or(0),
            implicit: self.implicit_receivers(),
        }
        .serialize(z)
    }
}

impl<'de> Deserialize<'de> for Reference {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Reference, D::Error> {
        let w = RefWire::<CompactString, CompactString>::deserialize(d)?;
        let mut r = Reference::new(w.name, w.kind, w.span, w.enclosing, w.receiver, w.module, w.alias)
            .with_arg_types(w.arg_types)
            .with_macro_arm(w.arm)
            .with_implicit_receivers(w.implicit);
        if let Some((call, slot)) = w.arg {
            (r.arg_call, r.arg_slot) = (call, slot);
        }
        r.args = w.args;
        Ok(r)
    }
}

/// Something wrong with one file, reported without stopping the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub path: String,
    pub line: Option<u32>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path, line, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// Everything extracted from one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub lang: Lang,
    /// blake3 of the content.
    pub hash: [u8; 32],
    pub size: u64,
    /// Modification time in nanoseconds since the epoch, used to skip re-hashing files
    /// whose size and mtime did not change.
    pub mtime_ns: u128,
    /// The module its qualified names start with (`cc_indexer::store`, `flask.app`; empty
    /// where a language's names start at their outermost container), as
    /// [`crate::modules`] reads it from the repository's manifests.
    pub module: String,
    pub symbols: Vec<Symbol>,
    pub references: References,
    pub diagnostics: Vec<Diagnostic>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flat record `records.bin` holds (the module and alias are boxed in memory, the
    /// argument's call and slot inline).
    #[derive(Serialize)]
    struct Flat {
        name: CompactString,
        kind: RefKind,
        span: Span,
        enclosing: Option<SymbolId>,
        receiver: Option<CompactString>,
        module: Option<CompactString>,
        alias: Option<CompactString>,
        arg: Option<(u32, u16)>,
        args: u8,
        arg_types: Option<CompactString>,
        arm: u8,
        implicit: Option<CompactString>,
    }

    #[test]
    fn a_reference_is_stored_as_the_flat_record_and_read_back() {
        let span = Span { start_line: 3, start_col: 5, end_line: 3, end_col: 9 };
        let cases = [
            (Some("os.path"), None, None),
            (None, Some("numpy"), Some("np")),
            (None, None, Some("c")),
            (None, Some("a.b"), None),
        ];
        for (receiver, module, alias) in cases {
            let c = |x: Option<&str>| x.map(CompactString::from);
            let r =
                Reference::new("f".into(), RefKind::Import, span, Some(SymbolId(7)), c(receiver), c(module), c(alias));
            assert_eq!((r.module(), r.alias()), (module, alias));
            let flat = Flat {
                name: "f".into(),
                kind: RefKind::Import,
                span,
                enclosing: Some(SymbolId(7)),
                receiver: c(receiver),
                module: c(module),
                alias: c(alias),
                arg: None,
                args: Reference::ARGS_UNKNOWN,
                arg_types: None,
                arm: 0,
                implicit: None,
            };
            let bytes = postcard::to_allocvec(&r).unwrap();
            assert_eq!(bytes, postcard::to_allocvec(&flat).unwrap());
            assert_eq!(postcard::from_bytes::<Reference>(&bytes).unwrap(), r);
        }
    }

    #[test]
    fn implicit_receivers_round_trip() {
        let span = Span { start_line: 1, start_col: 1, end_line: 1, end_col: 2 };
        let plain = Reference::new("emit".into(), RefKind::Call, span, None, None, None, None);
        assert_eq!(plain.implicit_receivers(), None);
        assert_eq!(plain.clone().with_implicit_receivers(None), plain);
        let r =
            plain.with_arg_types(Some("String".into())).with_implicit_receivers(Some("out;@buildCodeString".into()));
        assert_eq!((r.implicit_receivers(), r.arg_types()), (Some("out;@buildCodeString"), Some("String")));
        let back: Reference = postcard::from_bytes(&postcard::to_allocvec(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn an_arguments_call_and_slot_round_trip() {
        let span = Span { start_line: 1, start_col: 1, end_line: 1, end_col: 2 };
        for slot in [Slot::Position(0), Slot::Position(7), Slot::Keyword, Slot::Star, Slot::StarStar] {
            let r = Reference::new("f".into(), RefKind::Callback, span, None, None, None, Some("key".into()))
                .with_arg(Some(Arg { call: 3, slot }));
            assert_eq!(r.arg(), Some(Arg { call: 3, slot }));
            let back: Reference = postcard::from_bytes(&postcard::to_allocvec(&r).unwrap()).unwrap();
            assert_eq!(back, r);
            assert_eq!(back.arg(), Some(Arg { call: 3, slot }));
        }
        let plain = Reference::new("f".into(), RefKind::Call, span, None, None, None, None);
        assert_eq!(plain.arg(), None);
        assert_eq!(plain.clone().with_arg(None), plain);
    }

    #[test]
    fn a_calls_argument_count_round_trips() {
        let span = Span { start_line: 1, start_col: 1, end_line: 1, end_col: 2 };
        let plain = Reference::new("f".into(), RefKind::Call, span, None, None, None, None);
        assert_eq!(plain.arg_count(), None);
        for (n, want) in
            [(Some(0), Some(0)), (Some(3), Some(3)), (Some(252), Some(252)), (Some(253), None), (None, None)]
        {
            let r = plain.clone().with_arg_count(n);
            assert_eq!(r.arg_count(), want, "{n:?}");
            let back: Reference = postcard::from_bytes(&postcard::to_allocvec(&r).unwrap()).unwrap();
            assert_eq!(back, r);
            assert_eq!(back.arg_count(), want);
        }
        // A name read as a value (Ada) passes none, and is told apart from a call passing none.
        let bare = plain.clone().bare();
        assert!(bare.is_bare() && !bare.is_declared());
        assert_eq!(bare.arg_count(), Some(0));
        assert!(!plain.clone().with_arg_count(Some(0)).is_bare());
        let back: Reference = postcard::from_bytes(&postcard::to_allocvec(&bare).unwrap()).unwrap();
        assert!(back.is_bare());
    }

    #[test]
    fn a_calls_argument_types_round_trip_with_or_without_a_binding() {
        let span = Span { start_line: 1, start_col: 1, end_line: 1, end_col: 2 };
        for alias in [None, Some("c")] {
            let plain = Reference::new("f".into(), RefKind::Call, span, None, None, None, alias.map(Into::into));
            assert_eq!(plain.arg_types(), None);
            assert_eq!(plain.clone().with_arg_types(None), plain);
            let r = plain.with_arg_types(Some("this,String,=n".into()));
            assert_eq!((r.arg_types(), r.alias()), (Some("this,String,=n"), alias));
            let back: Reference = postcard::from_bytes(&postcard::to_allocvec(&r).unwrap()).unwrap();
            assert_eq!(back, r);
        }
    }

    #[test]
    fn a_macro_arm_round_trips_with_or_without_other_bound_fields() {
        let span = Span { start_line: 1, start_col: 1, end_line: 1, end_col: 2 };
        for alias in [None, Some("c")] {
            let plain = Reference::new("f".into(), RefKind::Call, span, None, None, None, alias.map(Into::into));
            assert_eq!(plain.macro_arm(), None);
            assert_eq!(plain.clone().with_macro_arm(0), plain);
            let r = plain.with_macro_arm(3).with_arg_types(Some("le => x".into()));
            assert_eq!((r.macro_arm(), r.arg_types(), r.alias()), (Some(3), Some("le => x"), alias));
            let back: Reference = postcard::from_bytes(&postcard::to_allocvec(&r).unwrap()).unwrap();
            assert_eq!(back, r);
        }
    }

    #[test]
    fn an_id_is_hex_in_json_and_a_u64_on_disk() {
        let id = SymbolId(0x00ab_cdef_0123_4567);
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"00abcdef01234567\"");
        assert_eq!(serde_json::from_str::<SymbolId>("\"00abcdef01234567\"").unwrap(), id);
        assert!(serde_json::from_str::<SymbolId>("\"abc\"").is_err());
        // A u64 beyond 2^53 keeps all its digits in the string form.
        let big = SymbolId(u64::MAX - 1);
        assert_eq!(serde_json::from_str::<SymbolId>(&serde_json::to_string(&big).unwrap()).unwrap(), big);
        assert_eq!(postcard::to_allocvec(&id).unwrap(), postcard::to_allocvec(&id.0).unwrap());
        assert_eq!(postcard::from_bytes::<SymbolId>(&postcard::to_allocvec(&id.0).unwrap()).unwrap(), id);
    }

    #[test]
    fn a_reference_stays_small() {
        // sqlalchemy has 350k of them; 136 bytes before the module and alias were boxed.
        assert!(std::mem::size_of::<Reference>() <= 96, "{}", std::mem::size_of::<Reference>());
    }
}
