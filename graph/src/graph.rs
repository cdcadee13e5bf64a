//! The call graph: built from records, updated incrementally, persisted, queried.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use cc_indexer::{FileRecord, Lang, RefKind, Span, SymbolId, SymbolKind};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::Direction;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::resolve::{deps, flows, macros, resolvable, EdgeKind, FileDeps, Resolution, Rung, Tables};
use crate::view::{within, EdgeMeta, GraphView};
use crate::{Error, Result};
use std::borrow::Cow;

/// Version of `graph.bin` and `graph.sum`. Bump when [`Stored`], [`Summary`] or
/// resolution changes.
/// 3: resolutions only; the symbols are read from `records.bin`, sites without paths.
/// (3 is also zstd; 2 was LZ4.)
/// 4: both stamped with the generation of the records they were resolved from (was: the
/// files' modification times compared).
/// 5: an edge kind per target, each file's language, the rung `flow` (Python value flow).
/// 6: a file's names include what its imports bind (an update re-resolves what a deleted
/// re-export provided).
/// 7: a call's argument count picks among overloads (Java, C#, Kotlin, C++, Swift): a call
/// that one overload takes is a fact edge to it, not a possible edge to each.
/// 8: each file keeps the keys it provides (with fingerprints) and, per key, the references
/// whose resolution looked at it (an update re-resolves only those of the keys it changed).
/// 9: `graph.bin` names itself (`base`) for `graph.jnl`, the journal of the file entries
/// updates replaced since; `graph.map` orders a file's symbols by place then id (not
/// position), and `graph.delta` lays an update's changes over it.
/// 10: resolution changed (a saved graph of 9 would keep its files' old resolutions until
/// they change): Go's defined types, conversions, `make`/`new` and type tests type their
/// values; a Go import path of the repository's own module is that folder; a Go package's
/// members leave its methods out.
/// 11: Java: of an abstract method's implementations, the only one whose class some code
/// makes is a fact (rapid type analysis); files provide the names of the classes they make.
/// 12: the same for a method's overrides, when no class made runs the method itself;
/// `Iface.super.m()` is no dispatch.
/// 13: a receiver named `cls` is a variable outside Python.
/// 14: Java: an interface method's overrides include the superclass methods its
/// implementing classes inherit (a class's method wins over a default one).
/// 15: a receiver named `parent` is PHP's `parent::` only, `base` C#'s only; elsewhere
/// variables.
/// 16: a class's nested types are in scope inside it (Java, C#, Kotlin, Swift, Dart, C++,
/// Ruby), bases included: `class StartTag extends Tag` in `Token` is `Token.Tag`.
/// 17: `Outer.this` is the enclosing instance of an inner class.
/// 18: Java overloads of one arity are told apart by the arguments' types.
/// 21: C++: members of base classes, types named inside namespaces, the definitions a file
/// includes, generators' inputs and declared variables' constructors; C#, Kotlin, Swift and
/// Dart read their variables' types (resolution changed).
/// 22: Ada: bare calls, argument counts and types, renamings and instances, generics'
/// formal subprograms, a parent's children by their own names (resolution changed).
/// 23: Kotlin: extension functions by their receiver's type, the implicit receiver of one,
/// overloads by their arguments' types; a binding names no base class (resolution changed).
/// 24: Kotlin: lambdas with receivers (`x.apply { }`, `with(x) { }`, a parameter `T.() -> R`)
/// (resolution changed).
/// 25: Kotlin: what an expression body's call gives, a delegating overload's result, a
/// supertype after a primary constructor of many lines, arguments of types from outside
/// (resolution changed).
/// 26: Kotlin: type aliases, named arguments, arguments of function types' aliases, the
/// parameters a cut signature shows (resolution changed).
/// 27: Kotlin: variables a standard function initialises, self-delegating overloads, elements
/// of declared containers, `for` and `it` bindings (resolution changed).
/// 28: Kotlin: an expression body's whole chain, `apply`/`also` giving their receiver
/// (resolution changed).
/// 29: typing goes 12 levels deep (was 8); Kotlin: a variable is not in scope in the call
/// that initialises it, `if (…) this else …` and an extension's `this` (resolution changed).
/// 30: Ada: a child unit sees its parents' declarations (resolution changed).
/// 31: Kotlin: a variable of a type from outside by what its call declares, by a container's
/// elements or by a property read (resolution changed).
/// 32: PHP: a class's traits and superclasses before its interfaces, `__construct` its only
/// constructor, a namespace import as a qualifier (resolution changed).
/// 33: Ruby: a local variable is no call of a method of its name (resolution changed).
/// 34: Java: a class's superclasses before its interfaces in member lookup (resolution
/// changed).
/// 35: Ruby: `self` in a module's method is the module; a constant path receiver
/// (`Thor::Base.subclasses`) looked up lexically by its qualified name (resolution changed).
/// 36: C#: extension methods, namespace-relative types, overloads by argument types; Zig:
/// tests found by no lookup, a struct's declarations in scope inside it; Java and C#: an
/// `Object` or `String` argument fits fewer parameters.
/// 37: a file's resolutions, names and provided keys kept encoded in `graph.bin` until used
/// ([`Encoded`]); `graph.bin`'s zstd frame checksummed.
/// 38: each file's reverse index kept encoded too; `graph.keys` written beside `graph.bin`.
/// 39: a journal frame carries a file's noted keys only when they changed.
pub const GRAPH_FORMAT_VERSION: u32 = 39;

/// The name of a file's top-level node (a script's body, a module's initialisation):
/// its qualified name is the path in angle brackets, `<app/main.py>`.
pub const TOP_LEVEL_NAME: &str = "<module>";

/// The qualified name of `path`'s top-level node.
pub fn top_level_qualified(path: &str) -> String {
    format!("<{path}>")
}

/// A place in the source where one symbol uses another.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Site {
    /// Shared by every site of one file.
    pub path: Arc<str>,
    pub line: u32,
    pub column: u32,
}

/// What a node of the graph is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum NodeRef {
    /// A symbol of the repository.
    Symbol(SymbolId),
    /// Code at the top level of a file (a script's body).
    File(String),
    /// A name that resolved to nothing in the repository (`json.loads`).
    External(String),
}

/// A symbol as the graph shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SymbolInfo {
    pub id: SymbolId,
    pub name: String,
    pub qualified_name: String,
    pub kind: SymbolKind,
    pub lang: Lang,
    pub path: String,
    pub span: Span,
    pub signature: String,
}

/// An edge: every site where `from` uses `to` in one way (`kind`), and how sure the
/// resolution is. `ambiguous`: every site had several candidates, this one among them (a
/// "possible" edge, which walks leave out unless asked).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgeData {
    /// Most edges have one site: kept inline, no allocation each.
    pub sites: smallvec::SmallVec<[Site; 1]>,
    pub confidence: f32,
    pub ambiguous: bool,
    pub rung: Rung,
    pub kind: EdgeKind,
    /// For a possible edge: how many candidates its call had (the most of its sites).
    pub candidates: u8,
}

/// One reference's resolution, kept per file so an update replaces a file's edges.
/// Its site is in the file the entry belongs to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RefEdge {
    pub source: Option<SymbolId>,
    pub line: u32,
    pub column: u32,
    pub kind: RefKind,
    /// Written in an arm of a Rust `macro_rules!` of several: which (1-based); 0 otherwise.
    /// What it does happens where an invocation runs that arm ([`Target::arm`]).
    pub arm: u8,
    pub resolution: Resolution,
}

/// One file's part of the graph: the content hash and symbol names it was resolved
/// with, the keys it provides (with fingerprints) and those its resolutions looked at (an
/// update re-resolves what looked at a key whose fingerprint changed:
/// [`crate::resolve::deps`]), and its references' resolutions. The symbols' details live once, in [`CallGraph`]'s
/// symbol table, read from the records; `graph.bin` does not repeat them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct FileEntry {
    hash: [u8; 32],
    pub(crate) lang: Lang,
    names: Encoded<Vec<String>>,
    provides: Encoded<Vec<(deps::Key, u32)>>,
    /// Decoded for the files an update asks ([`crate::keys`] says which).
    deps: Encoded<FileDeps>,
    pub(crate) refs: Refs,
}

impl FileEntry {
    /// Every part decoded now, or why one does not decode.
    fn settle(&mut self) -> Result<()> {
        self.names.settle()?;
        self.provides.settle()?;
        self.refs.settle()
    }

    /// The distinct keys its resolutions noted (of an encoded index, only they are decoded).
    fn noted_keys(&self) -> Vec<deps::Key> {
        match self.deps.decoded.get() {
            Some(d) => d.keys().to_vec(),
            // `FileDeps` begins with its keys.
            None => match postcard::take_from_bytes::<Vec<deps::Key>>(&self.deps.encoded) {
                Ok((keys, _)) => keys,
                Err(e) => panic!("a checksummed graph.bin's entry does not decode: {e}"),
            },
        }
    }
}

/// A file's resolutions, as `graph.bin` and its journal hold them.
pub(crate) type Refs = Encoded<Vec<RefEdge>>;

/// A part of a file's entry as `graph.bin` and its journal hold it: its encoding until first
/// used. An update decodes the resolutions, names and provided keys of only the files it
/// re-resolves, compares or lays over the map (spring-framework: a few of 9,645), not the
/// 800,000 resolutions and 130,000 names of the others.
///
/// Read through `Deref` (decoded once, on any thread); `DerefMut` decodes and lets go of the
/// encoding. The bytes were written by this format version and read through a checksum
/// (graph.bin's zstd frame, a journal frame's CRC), so they decode: a failure is a bug, and
/// panics rather than answering with a file's edges missing. [`Encoded::settle`] decodes
/// with the error returned instead, for a reader that wants every file anyway.
#[derive(Clone, Default)]
pub(crate) struct Encoded<T> {
    decoded: std::sync::OnceLock<T>,
    /// postcard of the value while not decoded; empty after.
    encoded: Box<[u8]>,
}

impl<T: serde::de::DeserializeOwned> Encoded<T> {
    fn decoded(&self) -> &T {
        self.decoded.get_or_init(|| match postcard::from_bytes(&self.encoded) {
            Ok(v) => v,
            Err(e) => panic!("a checksummed graph.bin's entry does not decode: {e}"),
        })
    }

    /// Decodes now (letting go of the encoding), or says why the bytes do not decode.
    fn settle(&mut self) -> Result<()> {
        if self.decoded.get().is_none() {
            let v = postcard::from_bytes(&self.encoded).map_err(|e| Error::Corrupt(format!("a file's entry: {e}")))?;
            let _ = self.decoded.set(v);
        }
        self.encoded = Box::default();
        Ok(())
    }

    /// The value, decoded, the encoding let go of.
    fn into_inner(mut self) -> T {
        self.decoded();
        self.decoded.take().expect("decoded just now")
    }
}

impl<T> From<T> for Encoded<T> {
    fn from(v: T) -> Encoded<T> {
        Encoded { decoded: std::sync::OnceLock::from(v), encoded: Box::default() }
    }
}

impl<T: serde::de::DeserializeOwned> std::ops::Deref for Encoded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.decoded()
    }
}

impl<T: serde::de::DeserializeOwned> std::ops::DerefMut for Encoded<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.decoded();
        self.encoded = Box::default();
        self.decoded.get_mut().expect("decoded just now")
    }
}

impl<'a, T: serde::de::DeserializeOwned> IntoIterator for &'a Encoded<Vec<T>> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.decoded().iter()
    }
}

impl<T: serde::de::DeserializeOwned + PartialEq> PartialEq for Encoded<T> {
    fn eq(&self, other: &Encoded<T>) -> bool {
        self.decoded() == other.decoded()
    }
}

impl<T: serde::de::DeserializeOwned + std::fmt::Debug> std::fmt::Debug for Encoded<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.decoded().fmt(f)
    }
}

impl<T: Serialize> Serialize for Encoded<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.decoded.get() {
            Some(v) => s.serialize_bytes(&postcard::to_stdvec(v).map_err(serde::ser::Error::custom)?),
            // Untouched since read: written back as read.
            None => s.serialize_bytes(&self.encoded),
        }
    }
}

impl<'de, T> Deserialize<'de> for Encoded<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Encoded<T>, D::Error> {
        struct Bytes<T>(std::marker::PhantomData<T>);
        impl<T> serde::de::Visitor<'_> for Bytes<T> {
            type Value = Encoded<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a part of a file's entry, encoded")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> std::result::Result<Encoded<T>, E> {
                Ok(Encoded { decoded: std::sync::OnceLock::new(), encoded: v.into() })
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> std::result::Result<Encoded<T>, E> {
                Ok(Encoded { decoded: std::sync::OnceLock::new(), encoded: v.into_boxed_slice() })
            }
        }
        d.deserialize_byte_buf(Bytes(std::marker::PhantomData))
    }
}

/// `graph.sum`: the saved graph's counts, so a run that changed nothing need not load it.
const SUMMARY_FILE: &str = "graph.sum";

/// `graph.sum` (postcard).
#[derive(Serialize, Deserialize)]
struct Summary {
    format_version: u32,
    /// The generation of the records the graph was resolved from (`cc_indexer::store`).
    records_generation: u64,
    nodes: u64,
    edges: u64,
}

/// `graph.bin` (postcard, in one zstd frame).
#[derive(Serialize, Deserialize)]
struct Stored {
    format_version: u32,
    /// The generation of the records the graph was resolved from (`cc_indexer::store`).
    records_generation: u64,
    /// This write's name: the journal's frames say which `graph.bin` they follow.
    base: u64,
    files: Vec<(String, FileEntry)>,
}

/// `graph.jnl`: the file entries updates replaced since `graph.bin` was written, one frame
/// per update appended (`len: u32, crc32: u32`, then the frame, postcard in zstd). A frame
/// of another `base` (a journal left by a run killed as it replaced `graph.bin`) and what
/// follows a frame that does not read whole (a run killed as it appended) are not part of it.
const JOURNAL_FILE: &str = "graph.jnl";

/// One update's frame of `graph.jnl`.
#[derive(Serialize, Deserialize)]
struct Frame {
    base: u64,
    records_generation: u64,
    files: Vec<(String, Change)>,
}

/// What an update changed of one file's entry.
#[derive(Serialize, Deserialize)]
enum Change {
    /// Its entry (`None`: deleted).
    Whole(Option<FileEntry>),
    /// References resolved again (`again`, sorted): their resolutions, and the keys they
    /// noted when those changed (most often they did not: the file's reverse index is then
    /// left encoded as read); and the keys the file provides, when those changed.
    Again {
        provides: Option<Vec<(deps::Key, u32)>>,
        again: Vec<u32>,
        resolutions: Vec<Resolution>,
        fresh: Option<Vec<(deps::Key, u32)>>,
    },
}

impl Change {
    /// `entry` (of `path`, in `files`) with the change made; whether the keys its
    /// resolutions noted changed (what `graph.keys` says of the file no longer holds).
    fn apply(self, path: &str, files: &mut BTreeMap<Arc<str>, FileEntry>) -> Result<bool> {
        let (provides, again, resolutions, fresh) = match self {
            Change::Whole(Some(e)) => {
                files.insert(Arc::from(path), e);
                return Ok(true);
            }
            Change::Whole(None) => {
                files.remove(path);
                return Ok(true);
            }
            Change::Again { provides, again, resolutions, fresh } => (provides, again, resolutions, fresh),
        };
        let missing = || Error::Corrupt(format!("graph.jnl changes {path}, which graph.bin does not have as it says"));
        let entry = files.get_mut(path).ok_or_else(missing)?;
        if let Some(p) = provides {
            entry.provides = p.into();
        }
        for (&k, r) in again.iter().zip(resolutions) {
            entry.refs.get_mut(k as usize).ok_or_else(missing)?.resolution = r;
        }
        let noted = fresh.is_some();
        if let Some(fresh) = fresh {
            entry.deps.replace(&again, fresh);
        }
        Ok(noted)
    }
}

/// The journal grows to at most `graph.bin`'s size divided by this (or [`JOURNAL_MIN`]) and
/// to [`JOURNAL_FRAMES`] frames before an update writes the graph whole again.
///
/// Each frame read back costs every later update (spring-framework, a one-file edit: about
/// 2 ms a frame, the whole command 0.65 s at a few frames and 0.78 s past 60), and writing
/// the graph whole costs that update 1.1 s more. Over a cycle of N updates that is
/// 2 ms * N / 2 + 1.1 s / N an update: least at N = 32 (64 cost 2.5% more on average).
const JOURNAL_SHARE: u64 = 1;
const JOURNAL_MIN: u64 = 64 << 10;
const JOURNAL_FRAMES: usize = 32;

/// The saved graph's file entries as read: `graph.bin` with its journal applied.
struct Saved {
    files: BTreeMap<Arc<str>, FileEntry>,
    /// The generation of the records they were resolved from.
    generation: u64,
    base: u64,
    /// `graph.bin`'s length, and the length of the journal's frames that read whole.
    base_len: u64,
    journal_len: u64,
    /// The journal's frames that read whole.
    frames: usize,
    /// `graph.keys`, when it is of this `graph.bin`.
    noted: Option<crate::keys::NotedBy>,
}

/// What [`CallGraph::save_current`] did.
#[derive(Clone, Debug)]
pub struct Saving {
    pub nodes: usize,
    pub edges: usize,
    /// `None`: the graph was built whole.
    pub update: Option<UpdateStats>,
    /// Of the run, writing what was saved.
    pub save_seconds: f64,
    /// Whether the update was laid over the saved graph (`graph.jnl`, `graph.delta`)
    /// rather than written whole.
    pub layered: bool,
}

/// The files an update changed the part of the graph of.
#[derive(Default)]
struct Dirty {
    /// Files were added or deleted (the update re-resolved broadly).
    broad: bool,
    /// Files whose entry the update made whole (their content changed, or they were
    /// deleted), and the changes it made to others' (the journal's frame).
    whole: Vec<String>,
    again: Vec<(String, Change)>,
    /// Files whose edges may have: their content, or a resolution (the map's delta).
    edges: Vec<String>,
}

/// What changed in an update.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UpdateStats {
    pub files_changed: usize,
    pub refs_resolved: usize,
    /// Unchanged files whose reverse index the update read (`graph.keys` names them; without
    /// it, every one).
    pub files_asked: usize,
}

/// The call graph of one repository.
///
/// The symbols are the graph's first nodes, in the records' order: symbol `i` is node `i`,
/// so they need no map of their own but `ids`, and the name indexes are sorted lists of
/// positions (no copies of the names).
pub struct CallGraph {
    files: BTreeMap<Arc<str>, FileEntry>,
    graph: DiGraph<NodeRef, EdgeData>,
    symbols: Vec<SymbolInfo>,
    ids: HashMap<SymbolId, u32>,
    /// Positions in `symbols`, sorted by name, then by position.
    by_name: Vec<u32>,
    /// Positions in `symbols`, sorted by qualified name, then by position.
    by_qualified: Vec<u32>,
}

pub(crate) fn info(s: cc_indexer::Symbol) -> SymbolInfo {
    SymbolInfo {
        id: s.id,
        name: s.name,
        qualified_name: s.qualified_name,
        kind: s.kind,
        lang: s.lang,
        path: s.path,
        span: s.span,
        signature: s.signature,
    }
}

/// The symbol standing for the top level of `path`.
pub(crate) fn top_level_info(path: &str, lang: Lang) -> SymbolInfo {
    let qualified_name = top_level_qualified(path);
    SymbolInfo {
        id: SymbolId::compute(path, &qualified_name, SymbolKind::Module, 0),
        name: TOP_LEVEL_NAME.to_string(),
        qualified_name,
        kind: SymbolKind::Module,
        lang,
        path: path.to_string(),
        span: Span { start_line: 1, start_col: 1, end_line: 1, end_col: 1 },
        signature: String::new(),
    }
}

/// The symbols of `records` in their order, copied.
fn symbols_of(records: &[FileRecord]) -> Vec<SymbolInfo> {
    records.iter().flat_map(|f| f.symbols.iter().cloned().map(info)).collect()
}

/// The symbols of `records` in their order, moved out; each file's references are freed
/// as it goes, before the graph allocates its own structures (lower peak memory).
fn symbols_into(records: Vec<FileRecord>) -> Vec<SymbolInfo> {
    records.into_iter().flat_map(|f| f.symbols.into_iter().map(info)).collect()
}

/// `r` resolved, with the `(key, k)` pairs of what it looked at pushed to `pairs`.
fn resolve_noting<'a>(
    tables: &Tables<'a>,
    fi: u32,
    r: &'a cc_indexer::Reference,
    k: u32,
    pairs: &mut Vec<(deps::Key, u32)>,
) -> Resolution {
    let (resolution, keys) = deps::recorded(|| tables.resolve(fi, r));
    pairs.extend(deps::bounded(keys).into_iter().map(|key| (key, k)));
    resolution
}

fn resolve_file<'a>(tables: &Tables<'a>, fi: u32, f: &'a FileRecord) -> FileEntry {
    let calls = |r: &&cc_indexer::Reference| resolvable(r.kind);
    // Sized exactly: kept for the graph's lifetime (a collect through a filter doubles).
    let mut refs = Vec::with_capacity(f.references.iter().filter(calls).count());
    let mut pairs = Vec::new();
    for (k, r) in f.references.iter().filter(calls).enumerate() {
        let resolution = resolve_noting(tables, fi, r, k as u32, &mut pairs);
        refs.push(RefEdge {
            source: r.enclosing,
            line: r.span.start_line,
            column: r.span.start_col,
            kind: r.kind,
            arm: r.macro_arm().unwrap_or(0),
            resolution,
        });
    }
    // A file's imports are names it provides too (a re-export, `from m import *` of a
    // package that imports them): an update re-resolves what looked them up in it.
    let mut names: Vec<String> = f.symbols.iter().map(|s| s.name.clone()).collect();
    names.extend(import_bindings(f).into_iter().map(str::to_string));
    names.sort_unstable();
    names.dedup();
    FileEntry {
        hash: f.hash,
        lang: f.lang,
        names: names.into(),
        provides: tables.provided(fi).into(),
        deps: FileDeps::from_pairs(pairs).into(),
        refs: refs.into(),
    }
}

/// Every file's entry (files resolved in parallel).
fn resolve_all(records: &[FileRecord]) -> BTreeMap<Arc<str>, FileEntry> {
    resolve_all_with(records, &Tables::new(records))
}

/// [`resolve_all`] with the tables of `records` made already.
fn resolve_all_with<'a>(records: &'a [FileRecord], tables: &Tables<'a>) -> BTreeMap<Arc<str>, FileEntry> {
    let entries: Vec<FileEntry> =
        records.par_iter().enumerate().map(|(i, f)| resolve_file(tables, i as u32, f)).collect();
    records.iter().map(|f| Arc::<str>::from(f.path.as_str())).zip(entries).collect()
}

impl CallGraph {
    /// Resolves every reference of every file (files in parallel).
    pub fn build(records: &[FileRecord]) -> CallGraph {
        CallGraph::from_files(resolve_all(records), symbols_of(records))
    }

    /// [`CallGraph::build`], consuming the records: they are freed before the graph is
    /// assembled, so the two are not held at once.
    pub fn build_owned(records: Vec<FileRecord>) -> CallGraph {
        let files = resolve_all(&records);
        CallGraph::from_owned(files, records)
    }

    /// The graph of `files` with the symbols of `records`, moved out (the records are freed
    /// before the graph is assembled).
    fn from_owned(files: BTreeMap<Arc<str>, FileEntry>, records: Vec<FileRecord>) -> CallGraph {
        let symbols = symbols_into(records);
        cc_indexer::memory::return_freed();
        CallGraph::from_files(files, symbols)
    }

    /// Brings the graph up to date with `records`: files whose hash changed (or that were
    /// added or deleted) are re-resolved, and so is every reference elsewhere whose name
    /// one of their symbols had or has (those are the only resolutions they can change).
    /// The result equals [`CallGraph::build`] of the same records.
    pub fn update(&mut self, records: &[FileRecord]) -> UpdateStats {
        let tables = Tables::new(records);
        let (files, stats, _) = self.reresolve(records, &tables, None);
        drop(tables);
        if let Some(files) = files {
            *self = CallGraph::from_files(files, symbols_of(records));
        }
        stats
    }

    /// The file entries after an update to `records` (`None`: nothing changed).
    ///
    /// Files whose content changed are resolved whole. When no file was added or deleted,
    /// a reference elsewhere is resolved again when its resolution looked at a key whose
    /// fingerprint a changed file changed ([`crate::resolve::deps`]); when one
    /// was, by the names the added and deleted files had, every reference with a receiver
    /// (or in a language with an implicit `this`) and, when a Python file changed,
    /// whatever the value flow may have decided.
    fn reresolve<'a>(
        &mut self,
        records: &'a [FileRecord],
        tables: &Tables<'a>,
        noted: Option<&crate::keys::NotedBy>,
    ) -> (Option<BTreeMap<Arc<str>, FileEntry>>, UpdateStats, Dirty) {
        let started = std::time::Instant::now();
        let mut changed: HashSet<&str> = HashSet::default();
        let mut names: HashSet<String> = HashSet::default();
        let current: HashSet<&str> = records.iter().map(|f| f.path.as_str()).collect();
        let mut added = false;
        let mut old_provides: HashMap<&str, Vec<(deps::Key, u32)>> = HashMap::default();
        for f in records {
            match self.files.get(f.path.as_str()) {
                Some(e) if e.hash == f.hash => {}
                old => {
                    changed.insert(&f.path);
                    names.extend(f.symbols.iter().map(|s| s.name.clone()));
                    names.extend(import_bindings(f).into_iter().map(str::to_string));
                    match old {
                        Some(e) => {
                            names.extend(e.names.iter().cloned());
                            old_provides.insert(&f.path, e.provides.to_vec());
                        }
                        None => added = true,
                    }
                }
            }
        }
        let deleted: Vec<Arc<str>> = self.files.keys().filter(|p| !current.contains(&***p)).cloned().collect();
        let mut flow_deleted = false;
        for p in &deleted {
            if let Some(e) = self.files.remove(p) {
                flow_deleted |= flows(e.lang);
                names.extend(e.names.into_inner());
            }
        }
        if changed.is_empty() && deleted.is_empty() {
            return (None, UpdateStats::default(), Dirty::default());
        }
        let paths_changed = added || !deleted.is_empty();
        if paths_changed {
            // A changed class changes what its subclasses' members resolve to (and their
            // constructors, inherited): add the names of the classes whose header names a
            // changed name, to a fixpoint (receiver calls are re-resolved anyway).
            loop {
                let before = names.len();
                for f in records {
                    for r in f.references.kept() {
                        if r.kind != RefKind::Type || r.alias().is_some() || !names.contains(r.name.as_str()) {
                            continue;
                        }
                        let class = f
                            .symbols
                            .iter()
                            .find(|s| Some(s.id) == r.enclosing && s.kind.is_type_like() && !names.contains(&s.name));
                        if let Some(c) = class {
                            names.insert(c.name.clone());
                        }
                    }
                }
                if names.len() == before {
                    break;
                }
            }
        }
        let flow_changed = flow_deleted || records.iter().any(|f| flows(f.lang) && changed.contains(f.path.as_str()));
        let mut stats = UpdateStats { files_changed: changed.len() + deleted.len(), ..UpdateStats::default() };
        let mut files = std::mem::take(&mut self.files);
        // Files are re-resolved in parallel, each in place (the changed ones whole, the
        // others where a reference can be affected): no copy of the resolutions is held.
        let index: HashMap<&str, usize> = records.iter().enumerate().map(|(i, f)| (f.path.as_str(), i)).collect();
        let whole: Vec<(usize, FileEntry)> = records
            .par_iter()
            .enumerate()
            .filter(|(_, f)| changed.contains(f.path.as_str()))
            .map(|(i, f)| (i, resolve_file(tables, i as u32, f)))
            .collect();
        tracing::debug!(secs = started.elapsed().as_secs_f64(), "re-resolve: changed files resolved");
        // The keys whose fingerprints the changed files changed: what a lookup could now
        // find otherwise.
        let mut keys: HashSet<deps::Key> = HashSet::default();
        for (i, e) in &whole {
            let old = old_provides.get(records[*i].path.as_str()).map_or(&[][..], Vec::as_slice);
            deps::changed(old, &e.provides, &mut keys);
        }
        let mut entries: Vec<(usize, &mut FileEntry)> = files
            .iter_mut()
            .filter_map(|(p, e)| index.get(&**p).filter(|_| !changed.contains(&**p)).map(|&i| (i, e)))
            .collect();
        // What an unchanged file provides can change too: what its classes' bases and its
        // `impl`s of other modules' types resolved to (through the changed files). Made again
        // for the files whose lookups of those noted a changed key (every file when files
        // were added or deleted).
        let provides: Vec<Option<Vec<(deps::Key, u32)>>> = entries
            .par_iter()
            .map(|(i, _)| {
                let i = *i as u32;
                (paths_changed || tables.provided_may_change(i, &keys)).then(|| tables.provided(i))
            })
            .collect();
        for ((_, e), new) in entries.iter().zip(&provides) {
            if let Some(new) = new {
                deps::changed(&e.provides, new, &mut keys);
            }
        }
        tracing::debug!(secs = started.elapsed().as_secs_f64(), "re-resolve: every file's provided keys");
        keys.insert(deps::ANY);
        // The files whose resolutions may have noted one of them (without `graph.keys`: all).
        let asked = noted.and_then(|n| n.candidates(&keys));
        // Per file: references resolved again, what changed of its entry, whether an edge
        // may have (a resolution), whether its reverse index was asked.
        let again: Vec<(usize, Option<Change>, bool, bool)> = entries
            .par_iter_mut()
            .zip(provides)
            .map(|((i, entry), provides)| {
                let (i, f) = (*i, &records[*i]);
                let provided = provides.is_some_and(|p| {
                    let changed = *entry.provides != p;
                    entry.provides = p.into();
                    changed
                });
                let calls = || f.references.iter().filter(|r| resolvable(r.kind));
                let ask = !paths_changed && asked.as_ref().is_none_or(|a| a.contains(f.path.as_str()));
                let again: Vec<u32> = if paths_changed {
                    Self::affected_broadly(f, calls(), &entry.refs, &names, flow_changed)
                } else if ask {
                    entry.deps.hit(&keys)
                } else {
                    Vec::new()
                };
                let provides = provided.then(|| entry.provides.to_vec());
                if again.is_empty() {
                    let change = provides.map(|p| Change::Again {
                        provides: Some(p),
                        again: Vec::new(),
                        resolutions: Vec::new(),
                        fresh: None,
                    });
                    return (0, change, false, ask);
                }
                let calls: Vec<&cc_indexer::Reference> = calls().collect();
                let mut fresh = Vec::new();
                let mut edges = false;
                let mut resolutions = Vec::with_capacity(again.len());
                for &k in &again {
                    let r = resolve_noting(tables, i as u32, calls[k as usize], k, &mut fresh);
                    let old = &mut entry.refs[k as usize].resolution;
                    edges |= *old != r;
                    old.clone_from(&r);
                    resolutions.push(r);
                }
                let fresh = entry.deps.replace(&again, fresh.clone()).then_some(fresh);
                let n = again.len();
                (n, Some(Change::Again { provides, again, resolutions, fresh }), edges, ask)
            })
            .collect();
        tracing::debug!(secs = started.elapsed().as_secs_f64(), "re-resolve: affected references resolved");
        let mut dirty = Dirty { broad: paths_changed, ..Dirty::default() };
        for ((i, _), (n, change, edges, ask)) in entries.iter().zip(again) {
            stats.refs_resolved += n;
            stats.files_asked += usize::from(ask);
            let p = &records[*i].path;
            if let Some(c) = change {
                dirty.again.push((p.clone(), c));
            }
            if edges {
                dirty.edges.push(p.clone());
            }
        }
        for (i, entry) in whole {
            stats.refs_resolved += entry.refs.len();
            dirty.whole.push(records[i].path.clone());
            dirty.edges.push(records[i].path.clone());
            files.insert(Arc::from(records[i].path.as_str()), entry);
        }
        for p in deleted {
            dirty.whole.push(p.to_string());
            dirty.edges.push(p.to_string());
        }
        (Some(files), stats, dirty)
    }

    /// The references of unchanged file `f` (`calls`, resolved as `refs`) an update that
    /// added or deleted files resolves again: those the names of `names` can affect, those
    /// whose name the file imports, every one when the file imports a whole module (which
    /// files a module path finds depends on which files there are, and in some languages
    /// such an import brings every name of the module into scope), and (a file that feeds
    /// the value flow changed) what the flow may decide.
    fn affected_broadly<'a>(
        f: &'a FileRecord,
        calls: impl Iterator<Item = &'a cc_indexer::Reference>,
        refs: &[RefEdge],
        names: &HashSet<String>,
        flow_changed: bool,
    ) -> Vec<u32> {
        // A name this file imports can change meaning with any other file (a module's
        // re-exports, its default export, an alias of a renamed symbol).
        let imported = import_bindings(f);
        let whole_module = f
            .references
            .kept()
            .any(|r| r.kind == RefKind::Import && (r.name == "*" || r.module().is_none_or(|m| m == r.name.as_str())));
        let hit = |r: &cc_indexer::Reference| {
            whole_module
                || affects(r, f.lang, names)
                || imported.contains(r.name.as_str())
                || matches!(r.name.as_str(), "super" | "this" | "cls")
        };
        // The value flow is the whole repository's; what it may have decided (a resolution
        // the ladder left unknown, guessed or handed to it, an implicit call, a decorator
        // factory's application) is resolved again whenever a file that feeds it changed.
        let flow = flow_changed && flows(f.lang);
        calls
            .zip(refs)
            .enumerate()
            .filter(|(_, (r, old))| {
                hit(r)
                    || (flow
                        && (matches!(r.kind, RefKind::Iteration | RefKind::Context | RefKind::Operator)
                            || r.alias().is_some_and(|a| a.starts_with("@@"))
                            || matches!(old.resolution.rung, Rung::Flow | Rung::Ambiguous | Rung::External)))
            })
            .map(|(k, _)| k as u32)
            .collect()
    }

    /// The graph of `files`, with `symbols` (in the records' order, so node numbers are
    /// deterministic), then a top-level node for each file whose top level uses something.
    fn from_files(files: BTreeMap<Arc<str>, FileEntry>, symbols: Vec<SymbolInfo>) -> CallGraph {
        let mut g = CallGraph::empty(files);
        g.graph.reserve_exact_nodes(symbols.len());
        g.ids.reserve(symbols.len());
        g.symbols.reserve_exact(symbols.len());
        for s in symbols {
            // Ids are unique (they count repeats within a file); were one not, the first wins.
            if let std::collections::hash_map::Entry::Vacant(v) = g.ids.entry(s.id) {
                v.insert(g.symbols.len() as u32);
                g.graph.add_node(NodeRef::Symbol(s.id));
                g.symbols.push(s);
            }
        }
        // Top-level nodes are symbols too (so they can be found and walked from), after the
        // others: symbol `i` is still node `i`.
        let mut file_nodes: HashMap<Arc<str>, NodeIndex> = HashMap::default();
        for (path, e) in &g.files {
            if e.refs.iter().any(|r| r.source.is_none_or(|id| !g.ids.contains_key(&id))) {
                let top = top_level_info(path, e.lang);
                g.ids.insert(top.id, g.symbols.len() as u32);
                file_nodes.insert(path.clone(), g.graph.add_node(NodeRef::File(path.to_string())));
                g.symbols.push(top);
            }
        }
        let files = std::mem::take(&mut g.files);
        // The name orders (string sorts of every symbol) are made on another core while
        // this one builds the edges.
        let symbols = &g.symbols;
        let sorted_by = |key: fn(&SymbolInfo) -> &str| {
            let mut v: Vec<u32> = (0..symbols.len() as u32).collect();
            v.sort_by(|&a, &b| key(&symbols[a as usize]).cmp(key(&symbols[b as usize])).then(a.cmp(&b)));
            v
        };
        let macros: HashMap<NodeIndex, u8> = (0..symbols.len())
            .filter(|&i| symbols[i].kind == SymbolKind::Macro)
            .map(|i| (NodeIndex::new(i), macros::arm_count(&symbols[i].signature)))
            .collect();
        let ((by_name, by_qualified), graph) = rayon::join(
            || (sorted_by(|s| &s.name), sorted_by(|s| &s.qualified_name)),
            || Self::edges_of(&files, &g.ids, &file_nodes, &macros, std::mem::take(&mut g.graph)),
        );
        (g.by_name, g.by_qualified, g.graph) = (by_name, by_qualified, graph);
        g.files = files;
        g
    }

    /// `graph` (its symbol and top-level nodes made) with the external nodes and the edges
    /// of every resolved reference of `files`: one edge per (caller, callee, kind); and what
    /// a macro's body calls, called by each function that invokes the macro.
    fn edges_of(
        files: &BTreeMap<Arc<str>, FileEntry>,
        ids: &HashMap<SymbolId, u32>,
        file_nodes: &HashMap<Arc<str>, NodeIndex>,
        macros: &HashMap<NodeIndex, u8>,
        mut graph: DiGraph<NodeRef, EdgeData>,
    ) -> DiGraph<NodeRef, EdgeData> {
        let mut edges: HashMap<(NodeIndex, NodeIndex, EdgeKind), EdgeData> = HashMap::default();
        // External nodes by name, borrowed from `files`: a node is made (and its name
        // copied) once, not once per reference. They are numbered as met.
        let mut external_nodes: HashMap<&str, NodeIndex> = HashMap::default();
        for (path, e) in files {
            add_file_edges(
                &mut edges,
                path,
                e,
                |source| match source.and_then(|id| ids.get(&id)) {
                    Some(&i) => NodeIndex::new(i as usize),
                    None => file_nodes[path],
                },
                |id| ids.get(&id).map(|&i| NodeIndex::new(i as usize)),
                |x| *external_nodes.entry(x).or_insert_with(|| graph.add_node(NodeRef::External(x.to_string()))),
            );
        }
        if !macros.is_empty() {
            let arms = MacroSites::of(files, |id| ids.get(&id).map(|&i| NodeIndex::new(i as usize)));
            expand_macros(&mut edges, macros, &arms);
        }
        let edges = finish_edges(edges);
        graph.reserve_exact_edges(edges.len());
        for ((a, b, _), d) in edges {
            graph.add_edge(a, b, d);
        }
        graph
    }

    /// A graph of `files` with no symbols and no edges yet.
    fn empty(files: BTreeMap<Arc<str>, FileEntry>) -> CallGraph {
        CallGraph {
            files,
            graph: DiGraph::new(),
            symbols: Vec::new(),
            ids: HashMap::default(),
            by_name: Vec::new(),
            by_qualified: Vec::new(),
        }
    }

    /// The first file whose saved part (content hash, names, provided keys, resolutions)
    /// differs between the two graphs, and how: an update must leave what a cold build
    /// makes, or the next update starts wrong.
    ///
    /// The keys each resolution noted are not compared: a reference an update did not
    /// resolve again keeps the keys its last resolution noted, and a cold build's same
    /// resolution can note more (one a lookup on its way now passes, such as a name an
    /// added import binds elsewhere), the answer the same.
    #[doc(hidden)]
    pub fn first_entry_difference(&self, other: &CallGraph) -> Option<String> {
        let paths: std::collections::BTreeSet<&Arc<str>> = self.files.keys().chain(other.files.keys()).collect();
        let same = |a: &FileEntry, b: &FileEntry| {
            (a.hash, a.lang, &a.names, &a.provides, &a.refs) == (b.hash, b.lang, &b.names, &b.provides, &b.refs)
        };
        paths.into_iter().find_map(|p| match (self.files.get(p), other.files.get(p)) {
            (Some(a), Some(b)) if same(a, b) => None,
            (a, b) => Some(format!("{p}: {a:?}\n  against\n{b:?}")),
        })
    }

    /// Every edge as (from, to, data), sorted: for comparing graphs.
    pub fn edges(&self) -> Vec<(NodeRef, NodeRef, EdgeData)> {
        let mut v: Vec<_> = self
            .graph
            .edge_indices()
            .map(|e| {
                let (a, b) = self.graph.edge_endpoints(e).expect("edge");
                (self.graph[a].clone(), self.graph[b].clone(), self.graph[e].clone())
            })
            .collect();
        v.sort_by(|x, y| format!("{:?}{:?}", x.0, x.1).cmp(&format!("{:?}{:?}", y.0, y.1)));
        v
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    pub fn symbol(&self, id: SymbolId) -> Option<&SymbolInfo> {
        self.ids.get(&id).map(|&i| &self.symbols[i as usize])
    }

    /// Every symbol, in the records' order.
    pub fn symbols(&self) -> impl Iterator<Item = &SymbolInfo> {
        self.symbols.iter()
    }

    /// The positions in `sorted` (an index sorted by `key`) of the symbols whose key is `k`.
    fn equal<'a>(&self, sorted: &'a [u32], key: fn(&SymbolInfo) -> &str, k: &str) -> &'a [u32] {
        let lo = sorted.partition_point(|&i| key(&self.symbols[i as usize]) < k);
        let n = sorted[lo..].partition_point(|&i| key(&self.symbols[i as usize]) == k);
        &sorted[lo..lo + n]
    }

    /// The symbols defined in the file `path`, or in the folder `path` and below (`""`:
    /// every file), sorted by path and line: a file's or folder's symbols without a query.
    /// Top-level nodes are not listed.
    pub fn symbols_in(&self, path: &str) -> Vec<&SymbolInfo> {
        memory(self.positions_in(path)).into_iter().map(|p| &self.symbols[p as usize]).collect()
    }

    /// [`GraphView::find`], borrowing from this graph.
    pub fn find(&self, spec: &str) -> Vec<&SymbolInfo> {
        memory(GraphView::find(self, spec)).into_iter().map(|s| self.borrowed(s)).collect()
    }

    /// A symbol this graph answered, as a reference into it (its reads borrow).
    pub fn borrowed<'a>(&'a self, s: Cow<'a, SymbolInfo>) -> &'a SymbolInfo {
        match s {
            Cow::Borrowed(s) => s,
            Cow::Owned(s) => self.symbol(s.id).expect("a symbol of this graph"),
        }
    }

    /// [`GraphView::walk`] (a graph in memory answers every read).
    pub fn walk(&self, start: SymbolId, dir: Direction, limits: Limits, follow: Follow) -> Walk {
        memory(GraphView::walk(self, start, dir, limits, follow))
    }

    /// Who calls `id`, up to `depth` hops (calls, implicit calls and inherited dispatch).
    pub fn callers(&self, id: SymbolId, limits: Limits) -> Walk {
        self.walk(id, Direction::Incoming, limits, Follow::default())
    }

    /// What `id` calls, up to `depth` hops (calls, implicit calls and inherited dispatch).
    pub fn callees(&self, id: SymbolId, limits: Limits) -> Walk {
        self.walk(id, Direction::Outgoing, limits, Follow::default())
    }

    /// What may break if `id` changes: its transitive callers (externals excluded).
    pub fn impact(&self, id: SymbolId, limits: Limits) -> Walk {
        self.impact_with(id, limits, Follow::default())
    }

    /// [`GraphView::impact_with`].
    pub fn impact_with(&self, id: SymbolId, limits: Limits, follow: Follow) -> Walk {
        memory(GraphView::impact_with(self, id, limits, follow))
    }

    /// [`GraphView::node_id_and_name`].
    pub fn node_id_and_name(&self, n: &NodeRef) -> (String, String) {
        memory(GraphView::node_id_and_name(self, n))
    }

    /// Each file's resolutions, by path.
    pub(crate) fn file_entries(&self) -> &BTreeMap<Arc<str>, FileEntry> {
        &self.files
    }

    pub(crate) fn petgraph(&self) -> &DiGraph<NodeRef, EdgeData> {
        &self.graph
    }

    pub(crate) fn symbol_table(&self) -> &[SymbolInfo] {
        &self.symbols
    }

    pub(crate) fn by_name_order(&self) -> &[u32] {
        &self.by_name
    }

    pub(crate) fn by_qualified_order(&self) -> &[u32] {
        &self.by_qualified
    }

    /// Writes `graph.bin`, then `graph.map` ([`crate::MappedGraph`]), then `graph.sum`, into `dir` atomically, stamped with
    /// `records_generation`: the generation of the records the graph was built or updated
    /// from (`IndexReport::generation`). A failed write (a full disk) leaves no temporary file.
    pub fn save(&self, dir: &Path, records_generation: u64) -> Result<()> {
        #[derive(Serialize)]
        struct Borrowed<'a> {
            format_version: u32,
            records_generation: u64,
            base: u64,
            files: Vec<(&'a str, &'a FileEntry)>,
        }
        let files = self.files.iter().map(|(p, e)| (&**p, e)).collect();
        let base = new_base();
        let path = dir.join("graph.bin");
        let tmp = dir.join("graph.bin.tmp");
        let io = |e: std::io::Error| Error::Io { path: tmp.clone(), error: e };
        let write_bin = || -> Result<()> {
            let written = (|| {
                // Streamed through the compressor: neither the encoding nor its compressed copy
                // is held in memory whole (sqlalchemy: ~20 MB less at the end of `index`).
                let file = std::fs::File::create(&tmp).map_err(io)?;
                let mut z = zstd::stream::Encoder::new(std::io::BufWriter::new(file), cc_indexer::store::ZSTD_LEVEL)
                    .map_err(io)?;
                // Checked as it is read: parts of the entries are decoded later, file by file ([`Encoded`]).
                z.include_checksum(true).map_err(io)?;
                // postcard writes field by field: whole blocks to the encoder.
                let mut failed = None;
                let buffered =
                    KeepError { inner: std::io::BufWriter::with_capacity(1 << 16, z), error: &mut failed, written: 0 };
                let stored = Borrowed { format_version: GRAPH_FORMAT_VERSION, records_generation, base, files };
                let (buffered, raw_len) = match postcard::to_io(&stored, buffered) {
                    Ok(b) => (b.inner, b.written),
                    // postcard reports a failed write as a full buffer: the write's own error
                    // (a full disk) was kept.
                    Err(e) => return Err(io(failed.take().unwrap_or_else(|| std::io::Error::other(e)))),
                };
                let z = buffered.into_inner().map_err(|e| io(e.into_error()))?;
                use std::io::Write;
                z.finish().and_then(|mut w| w.write_all(&length_frame(raw_len)).and_then(|()| w.flush())).map_err(io)
            })();
            if let Err(e) = written {
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
            std::fs::rename(&tmp, &path).map_err(|e| Error::Io { path, error: e })?;
            // Then which files noted each key, naming this graph.bin.
            let noted: Vec<Vec<deps::Key>> = self.files.values().map(FileEntry::noted_keys).collect();
            crate::keys::save(dir, base, &noted)
        };
        // graph.bin and graph.map are written at once, on two cores (either may land
        // first: a reader takes the map only of the records' generation, an update the
        // bin only of its own).
        let (bin, map) = rayon::join(write_bin, || crate::mapped::save(self, dir, records_generation));
        bin.and(map)?;
        // The journal and the delta were of the files just replaced (and name them: were
        // these removals lost, they would not be read with the new ones).
        for stale in [JOURNAL_FILE, crate::delta::DELTA_FILE] {
            match std::fs::remove_file(dir.join(stale)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(Error::Io { path: dir.join(stale), error: e })
                }
                _ => {}
            }
        }
        self.save_summary(dir, records_generation)
    }

    /// Writes `graph.sum`: the counts of the graph saved for `records_generation`.
    fn save_summary(&self, dir: &Path, records_generation: u64) -> Result<()> {
        write_summary(dir, records_generation, self.node_count(), self.edge_count())
    }
}

/// Writes `graph.sum` (after the files it sums up).
fn write_summary(dir: &Path, records_generation: u64, nodes: usize, edges: usize) -> Result<()> {
    // Written after graph.bin and graph.map: a summary of this generation means they are too.
    let summary =
        Summary { format_version: GRAPH_FORMAT_VERSION, records_generation, nodes: nodes as u64, edges: edges as u64 };
    let bytes = postcard::to_stdvec(&summary).map_err(|e| Error::Corrupt(e.to_string()))?;
    replace_file(dir, SUMMARY_FILE, &bytes)
}

/// Replaces `name` in `dir` by `bytes`: written as `name.tmp`, then renamed over it (a failed
/// write leaves no temporary file).
pub(crate) fn replace_file(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(name);
    let tmp = dir.join(format!("{name}.tmp"));
    if let Err(e) = std::fs::write(&tmp, bytes) {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::Io { path: tmp, error: e });
    }
    std::fs::rename(&tmp, &path).map_err(|e| Error::Io { path, error: e })
}

impl CallGraph {
    /// The node and edge counts of the graph saved in `dir`, when that graph is current:
    /// of this format and resolved from the records of `records_generation` (an index run
    /// killed after it wrote the records, before the graph, leaves a graph of older
    /// records). An index run that changed nothing reports these instead of loading the graph.
    pub fn saved_counts(dir: &Path, records_generation: u64) -> Option<(usize, usize)> {
        let s: Summary = postcard::from_bytes(&std::fs::read(dir.join(SUMMARY_FILE)).ok()?).ok()?;
        (s.format_version == GRAPH_FORMAT_VERSION
            && s.records_generation == records_generation
            && crate::delta::saved_generation(dir) == Some(records_generation))
        .then_some((s.nodes as usize, s.edges as usize))
    }

    /// Reads `graph.bin` from `dir`, with the symbols of its `records.bin`. A graph of
    /// other records than those (an index run was killed between the two) is brought up to
    /// date with them in memory ([`CallGraph::update`]), so it answers what the records say.
    pub fn load(dir: &Path) -> Result<CallGraph> {
        if !dir.join("graph.bin").is_file() || !dir.join("records.bin").is_file() {
            return Err(Error::Missing);
        }
        let (records, generation) =
            cc_indexer::store::read_records_generation(dir).map_err(|e| Error::Corrupt(e.to_string()))?;
        let (files, saved) = CallGraph::read_stored(dir)?;
        if saved == generation {
            return Ok(CallGraph::from_files(files, symbols_into(records)));
        }
        Ok(CallGraph::updated(files, records).0)
    }

    /// Reads `graph.bin` from `dir`, with the symbols of `records`. When `records` are
    /// newer than the graph (an index run that has not updated it yet), the graph holds
    /// what it was resolved with until [`CallGraph::update`] brings it up to date.
    pub fn load_with(dir: &Path, records: &[FileRecord]) -> Result<CallGraph> {
        Ok(CallGraph::from_files(CallGraph::read_stored(dir)?.0, symbols_of(records)))
    }

    /// Brings the graph saved in `dir` up to date with `records` (of `records_generation`)
    /// and saves it: what `cc-server index` does after indexing. An update that a delta
    /// takes writes only what it changed (a frame of `graph.jnl`, `graph.delta` over
    /// `graph.map`: see [`LayeredGraph`](crate::LayeredGraph)); any other (`rebuild`, a saved graph that cannot be
    /// read, files added or deleted, the journal or the delta grown past their bounds) writes
    /// the graph whole. An update that changed nothing writes nothing when the saved graph
    /// is of `records_generation` already.
    pub fn save_current(
        dir: &Path,
        records: Vec<FileRecord>,
        records_generation: u64,
        rebuild: bool,
    ) -> Result<Saving> {
        let whole = |g: CallGraph, update: Option<UpdateStats>| -> Result<Saving> {
            let started = std::time::Instant::now();
            g.save(dir, records_generation)?;
            tracing::debug!(secs = started.elapsed().as_secs_f64(), "graph: saved whole");
            let saving = Saving {
                nodes: g.node_count(),
                edges: g.edge_count(),
                update,
                save_seconds: started.elapsed().as_secs_f64(),
                layered: false,
            };
            cc_indexer::memory::drop_in_background(g);
            Ok(saving)
        };
        if rebuild {
            return whole(CallGraph::build_owned(records), None);
        }
        // The saved graph is read on one core while the resolver's tables are made on the other.
        let started = std::time::Instant::now();
        let ((saved, read_secs), (tables, tables_secs)) = rayon::join(
            || {
                let t = std::time::Instant::now();
                (CallGraph::read_saved(dir, true), t.elapsed().as_secs_f64())
            },
            || {
                let t = std::time::Instant::now();
                (Tables::new(&records), t.elapsed().as_secs_f64())
            },
        );
        tracing::debug!(
            secs = started.elapsed().as_secs_f64(),
            read_secs,
            tables_secs,
            "graph: saved graph read, tables made"
        );
        let Ok(saved) = saved else {
            // Built whole, with the tables made.
            let files = resolve_all_with(&records, &tables);
            drop(tables);
            tracing::debug!(secs = started.elapsed().as_secs_f64(), "graph: every file resolved");
            let g = CallGraph::from_owned(files, records);
            tracing::debug!(secs = started.elapsed().as_secs_f64(), "graph: assembled");
            return whole(g, None);
        };
        let before = saved.generation;
        let mut saved = saved;
        let mut g = CallGraph::empty(std::mem::take(&mut saved.files));
        let (files, stats, dirty) = g.reresolve(&records, &tables, saved.noted.as_ref());
        tracing::debug!(
            secs = started.elapsed().as_secs_f64(),
            refs = stats.refs_resolved,
            asked = stats.files_asked,
            "graph: re-resolved"
        );
        let Some(files) = files else {
            drop(tables);
            if let Some((nodes, edges)) = CallGraph::saved_counts(dir, records_generation) {
                return Ok(Saving { nodes, edges, update: Some(stats), save_seconds: 0.0, layered: false });
            }
            // Of older records, the same content: stamped again.
            return whole(CallGraph::from_owned(g.files, records), Some(stats));
        };
        let journal_room =
            saved.journal_len <= (saved.base_len / JOURNAL_SHARE).max(JOURNAL_MIN) && saved.frames < JOURNAL_FRAMES;
        let lay = || -> Result<Option<(usize, usize, f64)>> {
            let started = std::time::Instant::now();
            let update = crate::delta::Update {
                files: &files,
                records: &records,
                dirty: dirty.edges,
                before,
                generation: records_generation,
            };
            // The delta first: it decides whether the update is laid over the map. (Killed
            // after it, the journal is one generation behind it: the next update, started
            // from the journal, finds the delta not of its start and writes whole.)
            let Some((nodes, edges)) = crate::delta::save(dir, update)? else {
                return Ok(None);
            };
            let mut frame: Vec<(String, Change)> = dirty.again;
            frame.extend(dirty.whole.into_iter().map(|p| {
                let e = files.get(p.as_str()).cloned();
                (p, Change::Whole(e))
            }));
            append_journal(dir, &saved, records_generation, frame)?;
            write_summary(dir, records_generation, nodes, edges)?;
            Ok(Some((nodes, edges, started.elapsed().as_secs_f64())))
        };
        // The tables (hundreds of thousands of blocks) are freed on one core while the
        // update is laid over the saved graph on the other.
        let laid = if !dirty.broad && journal_room {
            rayon::join(move || drop(tables), lay).1?
        } else {
            drop(tables);
            None
        };
        if let Some((nodes, edges, save_seconds)) = laid {
            tracing::debug!(save_secs = save_seconds, "graph: delta and journal written");
            cc_indexer::memory::drop_in_background((files, records));
            return Ok(Saving { nodes, edges, update: Some(stats), save_seconds, layered: true });
        }
        whole(CallGraph::from_owned(files, records), Some(stats))
    }

    /// The graph of the saved `files` brought up to date with `records`.
    fn updated(files: BTreeMap<Arc<str>, FileEntry>, records: Vec<FileRecord>) -> (CallGraph, UpdateStats) {
        // `reresolve` reads only the file entries: no petgraph is built until the final one.
        let mut g = CallGraph::empty(files);
        let tables = Tables::new(&records);
        let (files, stats, _) = g.reresolve(&records, &tables, None);
        drop(tables);
        (CallGraph::from_owned(files.unwrap_or(g.files), records), stats)
    }

    /// The file entries of `graph.bin` in `dir` with its journal applied, and the records
    /// generation they are of.
    fn read_stored(dir: &Path) -> Result<(BTreeMap<Arc<str>, FileEntry>, u64)> {
        let mut saved = CallGraph::read_saved(dir, false)?;
        // Every file is wanted: decoded now, on every core, with a failure an error.
        saved.files.par_iter_mut().try_for_each(|(_, e)| e.settle())?;
        Ok((saved.files, saved.generation))
    }

    /// [`CallGraph::read_stored`], with where the journal stands; each file's resolutions still
    /// encoded ([`Encoded`]); with `graph.keys` when `keys` (what an update reads).
    fn read_saved(dir: &Path, keys: bool) -> Result<Saved> {
        let path = dir.join("graph.bin");
        let data = match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Error::Missing),
            Err(e) => return Err(Error::Io { path, error: e }),
        };
        let bytes = decompress_graph(&data)?;
        let (version, _) = postcard::take_from_bytes::<u32>(&bytes).map_err(|e| Error::Corrupt(e.to_string()))?;
        if version != GRAPH_FORMAT_VERSION {
            return Err(Error::Version { found: version, expected: GRAPH_FORMAT_VERSION });
        }
        let stored: Stored = postcard::from_bytes(&bytes).map_err(|e| Error::Corrupt(e.to_string()))?;
        drop(bytes);
        let files: Vec<(Arc<str>, FileEntry)> = stored.files.into_iter().map(|(p, e)| (Arc::from(p), e)).collect();
        let noted = keys
            .then(|| crate::keys::NotedBy::read(dir, stored.base, files.iter().map(|(p, _)| p.clone()).collect()))
            .flatten();
        let mut saved = Saved {
            files: files.into_iter().collect(),
            generation: stored.records_generation,
            base: stored.base,
            base_len: data.len() as u64,
            journal_len: 0,
            frames: 0,
            noted,
        };
        let journal = match std::fs::read(dir.join(JOURNAL_FILE)) {
            Ok(j) => j,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(saved),
            Err(e) => return Err(Error::Io { path: dir.join(JOURNAL_FILE), error: e }),
        };
        for (end, frame) in journal_frames(&journal) {
            if frame.base != saved.base {
                break;
            }
            for (p, change) in frame.files {
                if change.apply(&p, &mut saved.files)? {
                    if let Some(n) = &mut saved.noted {
                        n.touch(&p);
                    }
                }
            }
            saved.generation = frame.records_generation;
            saved.journal_len = end as u64;
            saved.frames += 1;
        }
        Ok(saved)
    }
}

/// The magic of the zstd skippable frame that ends `graph.bin` (any of 16 values marks one;
/// zstd readers pass over it).
const LENGTH_FRAME_MAGIC: u32 = 0x184D_2A5C;

/// A skippable frame holding `raw_len`, the length of the encoding `graph.bin`'s zstd frame
/// holds: a reader allocates it once and decompresses into it (a streaming read grows its
/// buffer and zeroes each growth first: 20% of spring-framework's graph.bin read).
fn length_frame(raw_len: u64) -> [u8; 16] {
    let mut f = [0u8; 16];
    f[..4].copy_from_slice(&LENGTH_FRAME_MAGIC.to_le_bytes());
    f[4..8].copy_from_slice(&8u32.to_le_bytes());
    f[8..].copy_from_slice(&raw_len.to_le_bytes());
    f
}

/// `graph.bin`'s encoding: decompressed into a buffer of the length its last frame gives,
/// or, without that frame (or with a length the frame does not decompress into, or one
/// over 16 times the file), streaming.
fn decompress_graph(data: &[u8]) -> Result<Decompressed> {
    if let Some((frame, tail)) = data.split_last_chunk::<16>() {
        let raw_len = u64::from_le_bytes(tail[8..].try_into().expect("8 bytes"));
        if tail[..8] == length_frame(raw_len)[..8] && raw_len <= 16 * data.len() as u64 {
            if let Some(bytes) = decompress_into_map(frame, raw_len as usize) {
                return Ok(bytes);
            }
        }
    }
    let mut bytes = Vec::new();
    zstd::stream::Decoder::new(data)
        .and_then(|mut d| d.read_to_end(&mut bytes))
        .map_err(|e| Error::Corrupt(e.to_string()))?;
    Ok(Decompressed::Vec(bytes))
}

/// `frame` decompressed into fresh memory of its own, of `raw_len` bytes, in huge pages where
/// the system gives them: spring-framework's 59 MB faulted in 4 KB at a time was a third of
/// the read's samples. `None`: the frame is not of that length (or no memory was mapped).
fn decompress_into_map(frame: &[u8], raw_len: usize) -> Option<Decompressed> {
    let mut map = memmap2::MmapMut::map_anon(raw_len.max(1)).ok()?;
    // A hint: without huge pages, the memory is faulted in as any other.
    #[cfg(target_os = "linux")]
    let _ = map.advise(memmap2::Advice::HugePage);
    let n = zstd::bulk::Decompressor::new().ok()?.decompress_to_buffer(frame, &mut map[..raw_len]).ok()?;
    (n == raw_len).then_some(Decompressed::Map(map, raw_len))
}

/// A decompressed `graph.bin`.
enum Decompressed {
    /// Mapped memory of its own, and the encoding's length in it.
    Map(memmap2::MmapMut, usize),
    Vec(Vec<u8>),
}

impl std::ops::Deref for Decompressed {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Decompressed::Map(m, n) => &m[..*n],
            Decompressed::Vec(v) => v,
        }
    }
}

/// The frames of a journal that read whole, each with where it ends.
fn journal_frames(journal: &[u8]) -> impl Iterator<Item = (usize, Frame)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let head = journal.get(at..at + 8)?;
        let len = u32::from_le_bytes(head[..4].try_into().expect("4 bytes")) as usize;
        let crc = u32::from_le_bytes(head[4..].try_into().expect("4 bytes"));
        let body = journal.get(at + 8..(at + 8).checked_add(len)?)?;
        if crc32fast::hash(body) != crc {
            return None;
        }
        let bytes = zstd::stream::decode_all(body).ok()?;
        let frame: Frame = postcard::from_bytes(&bytes).ok()?;
        at += 8 + len;
        Some((at, frame))
    })
}

/// Appends one update's frame to the journal of `saved` in `dir` (cutting off what did not
/// read whole), synced.
fn append_journal(dir: &Path, saved: &Saved, generation: u64, files: Vec<(String, Change)>) -> Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    let path = dir.join(JOURNAL_FILE);
    let io = |e: std::io::Error| Error::Io { path: path.clone(), error: e };
    let frame = Frame { base: saved.base, records_generation: generation, files };
    let bytes = postcard::to_stdvec(&frame).map_err(|e| Error::Corrupt(e.to_string()))?;
    let body = zstd::stream::encode_all(&bytes[..], cc_indexer::store::ZSTD_LEVEL).map_err(io)?;
    let mut f = std::fs::OpenOptions::new().create(true).write(true).truncate(false).open(&path).map_err(io)?;
    f.set_len(saved.journal_len).map_err(io)?;
    f.seek(SeekFrom::Start(saved.journal_len)).map_err(io)?;
    let mut out = Vec::with_capacity(8 + body.len());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    out.extend_from_slice(&body);
    f.write_all(&out).map_err(io)?;
    f.sync_data().map_err(io)
}

/// A name for a `graph.bin` about to be written, unlike the one it replaces.
fn new_base() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    nanos ^ ((std::process::id() as u64) << 40)
}

/// A writer that keeps the first error of its inner writer (postcard replaces it with its own).
struct KeepError<'a, W> {
    inner: W,
    error: &'a mut Option<std::io::Error>,
    /// The bytes written.
    written: u64,
}

impl<W: std::io::Write> std::io::Write for KeepError<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf).map_err(|e| self.keep(e))?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush().map_err(|e| self.keep(e))
    }
}

impl<W> KeepError<'_, W> {
    fn keep(&mut self, e: std::io::Error) -> std::io::Error {
        let copy = std::io::Error::new(e.kind(), e.to_string());
        self.error.get_or_insert(e);
        copy
    }
}

/// The value of a read of a graph in memory, which cannot fail.
fn memory<T>(r: Result<T>) -> T {
    r.unwrap_or_else(|e| panic!("a read of a call graph in memory failed: {e}"))
}

impl GraphView for CallGraph {
    fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    fn symbol_count(&self) -> usize {
        self.symbols.len()
    }

    fn position(&self, id: SymbolId) -> Result<Option<u32>> {
        Ok(self.ids.get(&id).copied())
    }

    fn node(&self, n: u32) -> Result<NodeRef> {
        Ok(self.graph[NodeIndex::new(n as usize)].clone())
    }

    fn symbol_at(&self, pos: u32) -> Result<Cow<'_, SymbolInfo>> {
        Ok(Cow::Borrowed(&self.symbols[pos as usize]))
    }

    fn edges_of(&self, n: u32, dir: Direction, out: &mut Vec<EdgeMeta>) -> Result<()> {
        use petgraph::visit::EdgeRef;
        out.extend(self.graph.edges_directed(NodeIndex::new(n as usize), dir).map(|e| {
            let d = e.weight();
            let other = if dir == Direction::Outgoing { e.target() } else { e.source() };
            EdgeMeta {
                other: other.index() as u32,
                confidence: d.confidence,
                ambiguous: d.ambiguous,
                rung: d.rung,
                kind: d.kind,
                candidates: d.candidates,
                edge: e.id().index() as u32,
            }
        }));
        Ok(())
    }

    fn sites(&self, e: &EdgeMeta) -> Result<Vec<Site>> {
        Ok(self.graph[petgraph::graph::EdgeIndex::new(e.edge as usize)].sites.to_vec())
    }

    fn named(&self, name: &str) -> Result<Vec<u32>> {
        Ok(self.equal(&self.by_name, |s| &s.name, name).to_vec())
    }

    fn qualified(&self, qualified: &str) -> Result<Vec<u32>> {
        Ok(self.equal(&self.by_qualified, |s| &s.qualified_name, qualified).to_vec())
    }

    fn positions_in(&self, path: &str) -> Result<Vec<u32>> {
        let dir = path.trim_matches('/');
        let mut v: Vec<u32> = (0..self.symbols.len() as u32)
            .filter(|&p| {
                let s = &self.symbols[p as usize];
                s.name != TOP_LEVEL_NAME && within(dir, &s.path)
            })
            .collect();
        v.sort_by(|&a, &b| by_place(&self.symbols[a as usize], &self.symbols[b as usize]));
        Ok(v)
    }
}

/// The order of [`GraphView::positions_in`]: path, line, column, id.
pub(crate) fn by_place(x: &SymbolInfo, y: &SymbolInfo) -> std::cmp::Ordering {
    (&x.path, x.span.start_line, x.span.start_col, x.id).cmp(&(&y.path, y.span.start_line, y.span.start_col, y.id))
}

/// Whether a change of the symbols named `names` can change how `r` resolves. A
/// superset: references with a receiver, and every reference in a language with an
/// implicit `this`, depend on class hierarchies that may have changed elsewhere.
fn affects(r: &cc_indexer::Reference, lang: Lang, names: &HashSet<String>) -> bool {
    resolvable(r.kind)
        && (names.contains(r.name.as_str())
            || r.receiver.as_deref().is_some_and(|rcv| !rcv.trim().is_empty())
            || crate::resolve::implicit_this(lang))
}

/// The local names a file's imports bind (`h` of `use a::helper as h`, `helper` of
/// `from a import helper`, `util` of `import util`).
fn import_bindings(f: &FileRecord) -> HashSet<&str> {
    f.references.kept().filter(|r| r.kind == RefKind::Import).flat_map(crate::resolve::import_names).collect()
}

/// Bounds of a walk.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub depth: usize,
    pub nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { depth: 1, nodes: 500 }
    }
}

/// What a walk follows besides calls, implicit calls and inherited dispatch, which it
/// always follows. The default is what the graph knows: no references, no guesses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Follow {
    /// Edges of kind `reference` (a function or class passed, stored or returned as a value).
    pub references: bool,
    /// Possible edges (a call with several candidates), walked as hits marked `ambiguous`.
    pub possible: bool,
}

impl Follow {
    /// Whether a walk with these options goes along an edge of `kind`, possible or not.
    pub fn admits(&self, kind: EdgeKind, ambiguous: bool) -> bool {
        (self.references || kind != EdgeKind::Reference) && (self.possible || !ambiguous)
    }
}

/// One symbol reached by a walk.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    pub node: NodeRef,
    /// Hops from the start.
    pub distance: usize,
    /// Where the last hop happens (file:line of the calls).
    pub sites: Vec<Site>,
    /// Product of the edge confidences along the path.
    pub confidence: f32,
    /// The last hop's edge is a possible one (its call had several candidates).
    pub ambiguous: bool,
    /// What the last hop is (`call`, `constructor`, `inherited`, …).
    pub kind: EdgeKind,
    /// How the last hop was resolved.
    pub rung: Rung,
    /// The start itself, reached again: it calls itself (directly or through the path).
    pub recursive: bool,
    /// From the start to this node.
    pub path: Vec<NodeRef>,
}

/// A possible edge a walk did not follow: a call whose candidates include `node`
/// (callees), or a call that may mean `via` (callers). The candidates of one call site
/// are adjacent in [`Walk::possible`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Possible {
    /// The node the walk reached that this edge hangs off.
    pub via: NodeRef,
    /// The other end: a candidate callee, or the caller.
    pub node: NodeRef,
    /// Hops from the start, this edge included.
    pub distance: usize,
    pub sites: Vec<Site>,
    /// How many candidates the call had.
    pub candidates: usize,
    /// Product of the confidences along the path, this edge's included.
    pub confidence: f32,
    pub kind: EdgeKind,
}

/// The result of a walk: hits sorted by distance then confidence; `truncated_*` say a
/// limit cut it short; the possible edges it did not follow, grouped by call site.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Walk {
    pub hits: Vec<Hit>,
    pub truncated_depth: bool,
    pub truncated_nodes: bool,
    pub possible: Vec<Possible>,
}

/// Adds the edges of one file's resolved references to `edges`, one per (caller, callee,
/// kind) with every site: `from` is the node a reference's source stands for (`None`: the
/// file's top level), `to` the node of a target symbol, `external` the node of a name that
/// resolved outside the repository.
pub(crate) fn add_file_edges<'f, N: Copy + Eq + std::hash::Hash>(
    edges: &mut HashMap<(N, N, EdgeKind), EdgeData>,
    path: &Arc<str>,
    e: &'f FileEntry,
    from: impl Fn(Option<SymbolId>) -> N,
    to: impl Fn(SymbolId) -> Option<N>,
    mut external: impl FnMut(&'f str) -> N,
) {
    for r in &e.refs {
        let from = from(r.source);
        let res = &r.resolution;
        // Candidates per kind of guess: the site's own (it names several) and the
        // implementations an abstract method may run as.
        let guesses = |inherited: bool| {
            res.targets.iter().filter(|t| t.possible && (t.kind == EdgeKind::Inherited) == inherited).count()
        };
        let (named, dispatched) = (guesses(false), guesses(true));
        let mut add = |to: N, kind: EdgeKind, possible: bool| {
            let n = if !possible {
                1
            } else if kind == EdgeKind::Inherited {
                dispatched
            } else {
                named
            };
            let rung = if possible { Rung::Ambiguous } else { res.rung };
            let ed = edges.entry((from, to, kind)).or_insert_with(|| EdgeData {
                sites: smallvec::SmallVec::new(),
                confidence: 0.0,
                ambiguous: true,
                rung,
                kind,
                candidates: 0,
            });
            ed.sites.push(Site { path: path.clone(), line: r.line, column: r.column });
            let c = rung.confidence(n);
            if c > ed.confidence {
                ed.confidence = c;
                ed.rung = rung;
            }
            ed.ambiguous &= possible;
            if possible {
                ed.candidates = ed.candidates.max(n.min(u8::MAX as usize) as u8);
            }
        };
        if res.targets.is_empty() {
            if let (Some(x), RefKind::Call) = (&res.external, r.kind) {
                add(external(x.as_str()), EdgeKind::Call, false);
            }
        } else {
            for t in &res.targets {
                if let Some(n) = to(t.id) {
                    add(n, t.kind, t.possible);
                }
            }
        }
    }
}

/// The edges of [`add_file_edges`] in (caller, callee, kind) order, their sites sorted
/// once each, the candidates of a fact dropped.
pub(crate) fn finish_edges<N: Copy + Ord>(
    edges: HashMap<(N, N, EdgeKind), EdgeData>,
) -> Vec<((N, N, EdgeKind), EdgeData)> {
    let mut edges: Vec<_> = edges.into_iter().collect();
    edges.sort_unstable_by_key(|(k, _)| *k);
    for (_, d) in &mut edges {
        d.sites.sort();
        d.sites.dedup();
        if !d.ambiguous {
            d.candidates = 0;
        }
    }
    edges
}

/// Where a macro's arms decide what runs, by site: the arm each reference written in a
/// `macro_rules!` of several arms is in, and the arm each invocation's tokens match.
#[derive(Default)]
struct MacroSites {
    /// (path, line, column) of a reference in an arm -> the arm (1-based).
    in_arm: HashMap<(Arc<str>, u32, u32), u8>,
    /// (path, line, column, macro) of an invocation -> the arm it runs (1-based).
    picks: HashMap<(Arc<str>, u32, u32, NodeIndex), u8>,
}

impl MacroSites {
    fn of(files: &BTreeMap<Arc<str>, FileEntry>, node: impl Fn(SymbolId) -> Option<NodeIndex>) -> MacroSites {
        let mut out = MacroSites::default();
        for (path, e) in files {
            for r in &e.refs {
                if r.arm != 0 {
                    out.in_arm.insert((path.clone(), r.line, r.column), r.arm);
                }
                for t in r.resolution.targets.iter().filter(|t| t.arm != 0) {
                    if let Some(n) = node(t.id) {
                        out.picks.insert((path.clone(), r.line, r.column, n), t.arm);
                    }
                }
            }
        }
        out
    }

    fn in_arm(&self, s: &Site) -> u8 {
        self.in_arm.get(&(s.path.clone(), s.line, s.column)).copied().unwrap_or(0)
    }

    fn pick(&self, s: &Site, m: NodeIndex) -> u8 {
        self.picks.get(&(s.path.clone(), s.line, s.column, m)).copied().unwrap_or(0)
    }
}

/// A macro's body runs where the macro is invoked (`macro_rules!`, C's function-like
/// `#define`): each function that invokes a macro also calls what the macro's body calls
/// (calls and implicit calls, through the macros it invokes in turn), at the invocation's
/// sites. The body's own resolution says how sure each is. Of a `macro_rules!` of several
/// arms, what runs is the arm the invocation's tokens match ([`MacroSites`]); where that is
/// not known, what each arm calls is possible, one candidate per arm. An edge the function
/// already has is kept as it is.
fn expand_macros(
    edges: &mut HashMap<(NodeIndex, NodeIndex, EdgeKind), EdgeData>,
    macros: &HashMap<NodeIndex, u8>,
    arms: &MacroSites,
) {
    /// One call in a macro's body: the callee, the kind, the arm it is in (0: any), for a
    /// macro it invokes the arm that runs (0: not known), and its candidates when it is a
    /// guess (0: a fact).
    type Entry = (NodeIndex, EdgeKind, u8, u8, u8);
    let mut body: HashMap<NodeIndex, Vec<Entry>> = HashMap::default();
    let mut invocations = Vec::new();
    for (&(a, b, k), d) in edges.iter() {
        if k == EdgeKind::Reference {
            continue;
        }
        if macros.contains_key(&a) {
            let entries = body.entry(a).or_default();
            let guess = if d.ambiguous { d.candidates.max(2) } else { 0 };
            for s in &d.sites {
                let pick = if macros.contains_key(&b) { arms.pick(s, b) } else { 0 };
                entries.push((b, k, arms.in_arm(s), pick, guess));
            }
        }
        if macros.contains_key(&b) && !macros.contains_key(&a) && k == EdgeKind::Call {
            invocations.push((a, b));
        }
    }
    if invocations.is_empty() || body.is_empty() {
        return;
    }
    for entries in body.values_mut() {
        entries.sort_unstable();
        entries.dedup();
    }
    // What macro `m` runs as its arm `arm` (0: not known), through the macros it invokes
    // (each macro and arm once): (the macro whose body calls, the callee, the kind, the most
    // arms of a macro on the way whose arm was not known; 0: every arm on the way known).
    let run = |m: NodeIndex, arm: u8| -> Vec<(NodeIndex, NodeIndex, EdgeKind, u8)> {
        let mut out = Vec::new();
        let mut seen: HashSet<(NodeIndex, u8, u8)> = HashSet::default();
        let mut stack = vec![(m, arm, 0u8)];
        while let Some((x, ax, guess)) = stack.pop() {
            if !seen.insert((x, ax, guess)) {
                continue;
            }
            // (A signature cut short: several arms, as far as anyone can tell.)
            let guess = match (ax, macros[&x]) {
                (0, 0) => guess.max(2),
                (0, n) if n > 1 => guess.max(n),
                _ => guess,
            };
            for &(t, k, in_arm, pick, candidates) in body.get(&x).into_iter().flatten() {
                if ax != 0 && in_arm != 0 && in_arm != ax {
                    continue;
                }
                if macros.contains_key(&t) {
                    // (A macro that is one of several the body's invocation may mean: what it
                    // runs is a guess too.)
                    stack.push((t, pick, guess.max(candidates)));
                } else {
                    out.push((x, t, k, guess));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    };
    invocations.sort_unstable();
    let mut derived: BTreeMap<(NodeIndex, NodeIndex, EdgeKind), EdgeData> = BTreeMap::new();
    for (f, m) in invocations {
        if !body.contains_key(&m) {
            continue;
        }
        let inv = &edges[&(f, m, EdgeKind::Call)];
        let mut by_pick: BTreeMap<u8, Vec<Site>> = BTreeMap::new();
        for s in &inv.sites {
            by_pick.entry(arms.pick(s, m)).or_default().push(s.clone());
        }
        for (pick, sites) in by_pick {
            for (x, t, k, arms) in run(m, pick) {
                if edges.contains_key(&(f, t, k)) {
                    continue;
                }
                let d = &edges[&(x, t, k)];
                let guess = arms > 1 && !d.ambiguous;
                let e = EdgeData {
                    sites: sites.iter().cloned().collect(),
                    confidence: if guess {
                        Rung::Ambiguous.confidence(arms as usize)
                    } else {
                        d.confidence.min(inv.confidence)
                    },
                    ambiguous: d.ambiguous || inv.ambiguous || guess,
                    rung: if guess { Rung::Ambiguous } else { d.rung },
                    kind: k,
                    candidates: if guess { arms } else { d.candidates },
                };
                match derived.entry((f, t, k)) {
                    std::collections::btree_map::Entry::Vacant(v) => {
                        v.insert(e);
                    }
                    std::collections::btree_map::Entry::Occupied(mut o) => {
                        // Several invocations: the surest says how sure; every site is kept.
                        let o = o.get_mut();
                        let mut sites = std::mem::take(&mut o.sites);
                        sites.extend(e.sites.iter().cloned());
                        if (!e.ambiguous, e.confidence) > (!o.ambiguous, o.confidence) {
                            *o = e;
                        }
                        o.sites = sites;
                    }
                }
            }
        }
    }
    edges.extend(derived);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As `save` writes it: checksummed.
    fn compressed(raw: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut z = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        z.include_checksum(true).unwrap();
        z.write_all(raw).unwrap();
        z.finish().unwrap()
    }

    /// The length frame is a hint: right, it is used; missing, wrong or absurd, the stream
    /// is read as it is; a zstd reader passes over it.
    #[test]
    fn graph_bin_decompresses_by_its_length_frame_or_streaming() {
        let raw: Vec<u8> = (0..200_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let frame = compressed(&raw);
        for len in [raw.len() as u64, 10, u64::MAX / 2, raw.len() as u64 + 7] {
            let mut data = frame.clone();
            data.extend_from_slice(&length_frame(len));
            assert_eq!(*decompress_graph(&data).unwrap(), raw, "a length frame of {len}");
            assert_eq!(zstd::stream::decode_all(&data[..]).unwrap(), raw, "skipped by zstd");
        }
        assert_eq!(*decompress_graph(&frame).unwrap(), raw, "no length frame");
        let mut damaged = frame.clone();
        let mid = damaged.len() / 2;
        damaged[mid] ^= 0xff;
        damaged.extend_from_slice(&length_frame(raw.len() as u64));
        assert!(decompress_graph(&damaged).is_err());
    }

    #[test]
    fn graph_bin_ends_with_the_length_of_its_encoding() {
        let dir = tempfile::tempdir().unwrap();
        CallGraph::build(&[]).save(dir.path(), 1).unwrap();
        let data = std::fs::read(dir.path().join("graph.bin")).unwrap();
        let (frame, tail) = data.split_last_chunk::<16>().unwrap();
        let raw = zstd::stream::decode_all(frame).unwrap();
        assert_eq!(tail, &length_frame(raw.len() as u64));
    }
}
