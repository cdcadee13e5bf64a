//! The persisted index of one repository, and reading it back.
//!
//! Layout of `<data_dir>/repos/<name>/` (FORMAT_VERSION 35):
//!
//! | file | content |
//! |---|---|
//! | `meta.json` | [`RepoMeta`]: format version, name, root, times, the last run's statistics |
//! | `records.bin` | every [`FileRecord`] sorted by path (the manifest of content hashes, symbols, references): groups of consecutive files, each a zstd frame of their symbols and one of the rest, then a footer of the groups, then the trailer (the footer's length, the records' generation, the format version, `ccrb`) |
//! | `records.bin.tmp` | the next `records.bin` while an index run writes it (see below) |
//! | `tantivy/` | the symbol search index ([`crate::search`]); each commit's payload names the generation of the records it goes with |
//! | `graph.bin`, `graph.sum` | the call graph's resolutions and its counts (cc-graph; its symbols are read from `records.bin`), stamped with the generation of the records they were resolved from |
//! | `graph.jnl`, `graph.map`, `graph.delta` | the resolutions updates replaced since `graph.bin` was written; the graph laid out for queries; an update's changes laid over that layout (cc-graph) |
//! | `graph.keys` | for each key a resolution looked at, the files of `graph.bin` that did (cc-graph: which files an update asks) |
//! | `vectors.bin` | the symbols' embeddings ([`crate::vectors`]) |
//! | `index.lock` | held (`flock`) by the index run in progress: one run at a time |
//!
//! The records and the search index are replaced together, and a kill at any point leaves
//! one consistent pair: every `records.bin` has a *generation* (a number that grows with
//! every write); an index run writes the next one to `records.bin.tmp` and syncs it (while
//! tantivy prepares its commit), then commits tantivy with a payload naming that
//! generation, then renames the file into place. Whoever opens the index afterwards
//! ([`settle_pending`]: [`crate::Repo::open`], the start of an index run) renames a
//! `records.bin.tmp` whose generation tantivy's commit names into place (the run was killed
//! after its commit); an index run deletes any other (killed before). `meta.json` is
//! replaced last (write to a temporary file, then rename), so a crash mid-run leaves the
//! previous index readable, or the new one.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::error::{Error, IoContext, Result};
use crate::record::{Diagnostic, FileRecord, Lang, References, Symbol, SymbolId, WireIn};
use crate::walk::SkipReason;

/// Version of everything under a repository's folder. Bump it whenever the layout, a
/// record type or the search schema changes; an index of another version is refused
/// with a message that says to re-index, and `cc-server index` rebuilds it.
/// 2: records.bin compressed with zstd (was LZ4).
/// 3: the search schema has no exact-term fields for ids, names and qualified names
/// (fast-field hashes instead; see [`crate::search`]).
/// 4: no `path_prefix` terms; a path prefix is a range over `path`'s fast column.
/// 5: tantivy's term dictionaries are sstables (its `quickwit` feature), not FSTs.
/// 6: doc comments are plain text (`{@link …}`-style inline tags, Javadoc's HTML tags
/// and entities dropped): a rebuild re-extracts the files an incremental run would keep.
/// 7: records.bin is groups of consecutive files with a footer (one symbol is read
/// without the rest); the search index stores no documents (a hit's symbol is read
/// from records.bin).
/// 8: records.bin's trailer holds its generation, and tantivy's commit payload names it
/// (a run killed between the two commits is rolled forward or back).
/// 9: term dictionaries are FSTs again (a query looks each term up twice per segment;
/// the sstable's block decoding was 15% of a served search's CPU), and `name_lower` is
/// indexed with frequencies (a query's clauses are then ranked by block-max WAND).
/// 10: references carry an argument's call and slot, and value / iteration / context /
/// raise references and anonymous functions are extracted (the call graph's value flow).
/// 11: a file's module is read from the manifests (a Rust crate's name from its Cargo.toml,
/// a Python src layout's root), recorded with it, and starts its qualified names.
/// 12: every symbol carries its body window (the body's identifiers, bounded), and the
/// search index scores one weighted `text` field (BM25F-style) over name, qualified name,
/// signature, doc, body and callees.
/// 13: a call reference carries its argument count (the call graph picks overloads by it).
/// 14: JavaScript files carry value, argument and return references, their anonymous
/// functions and default exports (the value flow follows JavaScript too); Python's
/// operators are references of their own (`RefKind::Operator`).
/// 15: a Rust macro's signature lists its arms (the call graph expands what a macro of one
/// arm calls into its callers); a receiver in a Rust macro's arguments is the whole call
/// (`parser("x")` in `parser("x").parse()`).
/// 16: JavaScript object literals are values of their own with their entries by key
/// (`@flow.key`); Python `setattr`/`getattr`; Java reflective lookups, method references
/// held in locals and `instanceof` pattern variables; Rust and Go container bindings
/// (`v[]`) and loop and closure variables (iteration references); Java annotated varargs
/// parse.
/// 17: a type test narrows its variable in an `if`'s branch (Java `instanceof`, `isInstance`,
/// `getClass() ==`, `isAssignableFrom`; TypeScript `instanceof`; Python `isinstance`) and in
/// a Go type switch's case: a binding whose alias ends in `?` and whose span ends with the
/// branch (`@binding.scope`); a Go type assertion, `make(T, …)` and `new(T)` type the variable
/// they are assigned to.
/// 18: Go struct fields of a slice, array or map type are container bindings (`keys[]`), and
/// so are a map's values where a parameter or variable is declared one.
/// 19: a Java call records what its arguments are (`Reference::arg_types`: literals' types,
/// `this`, `new X(…)`, casts, variables), so overloads of one arity are told apart.
/// 20: Java variables of a primitive type are bindings too (`char c`); a `new` or cast
/// argument keeps its qualifier (`new Token.EOF()`).
/// 22: C and C++ files that parse with errors are read again with the macros that stand for
/// attributes blanked (`class LEVELDB_EXPORT Status {`); C++ range-for variables are
/// bindings; a C++ variable declared without an initialiser (`Status s;`) is a call of its
/// class's default constructor, marked declared; `extern` declarations call nothing; C++
/// containers, and C#, Kotlin, Swift and Dart variables, are bindings.
/// 23: Ada: names read as values are bare calls (`X := Next;`), calls record their argument
/// counts and what their arguments are (`Reference::arg_types`), a nested package's
/// declaration ends at its `end`, renamings and instances say what they rename or
/// instantiate, a generic's formal subprograms are symbols of the unit it declares (their
/// signature says their position), parameters and variables are bindings, a child unit is
/// named by its own name (`procedure Zip.Compress.Deflate`: `Deflate`), constants of a
/// subprogram are not callers.
/// 24: Kotlin: calls record what their arguments are (`Reference::arg_types`); a call under a
/// prefix operator is a call (`!isEmpty()`), and a receiver's text leaves the operator out.
/// 25: Kotlin: a call without a receiver records the receivers of the lambdas around it
/// (`Reference::implicit_receivers`); bindings narrowed by `when`/`if` type tests; a function of
/// an expression body shows the expression in its signature.
/// 26: Kotlin: a class without a body has its whole header for a signature (its supertypes
/// after a primary constructor of many lines).
/// 27: Kotlin: a call's named arguments are in its argument types (`name=>hint`).
/// 28: Kotlin: bindings of a variable read from a property (`val c = ctx.command`), of a `for`
/// loop's element, of a lambda's `it` (`xs.forEach { }`, `x?.let { }`); a variable's declared
/// type keeps its type arguments (`List<Cmd>`).
/// 29: Kotlin: an expression body of several lines shows whole when short, else its first
/// line and ` …`; also after a header with default values.
/// 30: Kotlin: a `catch` parameter is a binding; an argument's chain of up to 160 bytes is a
/// hint (its commas as U+001F); `this@Class` names the class.
/// 31: Kotlin: any lambda that may have an `it` of its own binds it (of an unknown type when
/// its function is not known), from the lambda's second line when it has several.
/// 32: Ruby: a local variable is a binding (`x = …`, `x ||= …`, a block's, a lambda's and a
/// `rescue`'s parameters), and a bare name passed as an argument is a call (of a method, when
/// no local has that name).
/// 33: Ruby: an empty module (`module Rack; end`) ends at its `end` (the modules after it
/// were named inside it: `Rack::Rack::Builder`).
/// 34: C#: variables and properties of a predefined type, and properties, are bindings; a
/// call's argument types (`Reference::arg_types`). Zig: a variable holding a call's result or
/// a field read, `*@This()` parameters and struct fields are bindings.
/// 35: a file's plain calls are stored apart from its other references, with their names
/// each once (`record::References`): read back, they stay encoded until used.
pub const FORMAT_VERSION: u32 = 35;

/// The records of a repository's index folder.
pub const RECORDS_FILE: &str = "records.bin";
/// The next `records.bin`, while an index run writes it; see the module docs.
pub const PENDING_FILE: &str = "records.bin.tmp";
/// Held by the index run in progress.
pub(crate) const LOCK_FILE: &str = "index.lock";

/// Per-language counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LangStats {
    pub files: u64,
    pub bytes: u64,
    pub symbols: u64,
    pub references: u64,
}

/// What is in an index, as of its last run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexStats {
    pub files: u64,
    pub bytes: u64,
    pub symbols: u64,
    pub references: u64,
    pub languages: BTreeMap<Lang, LangStats>,
    pub skipped: BTreeMap<SkipReason, u64>,
    pub diagnostics: u64,
    /// Size of the repository's index folder on disk.
    pub index_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoMeta {
    pub format_version: u32,
    pub name: String,
    /// Absolute path of the indexed tree.
    pub root: String,
    /// Seconds since the epoch.
    pub created_at: u64,
    pub indexed_at: u64,
    pub stats: IndexStats,
    /// What the JavaScript / TypeScript import map was read from ([`crate::imports`]); a run
    /// that reads another parses those languages' files again.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub import_map: String,
}

/// The data directory: one folder per indexed repository under `repos/`.
#[derive(Clone, Debug)]
pub struct DataDir {
    pub root: PathBuf,
}

impl DataDir {
    pub fn new(root: impl Into<PathBuf>) -> DataDir {
        DataDir { root: root.into() }
    }

    pub fn repos_dir(&self) -> PathBuf {
        self.root.join("repos")
    }

    pub fn repo_dir(&self, name: &str) -> PathBuf {
        self.repos_dir().join(name)
    }

    /// Removes the index of `name` (never the repository itself): waits for an index run in
    /// progress, moves the folder out of `repos/` in one rename (a crash leaves no half index
    /// behind, only a folder under `trash/`), then deletes it.
    pub fn remove(&self, name: &str) -> Result<()> {
        let dir = self.repo_dir(name);
        if validate_name(name).is_err() || !dir.join("meta.json").is_file() {
            let known = self.repos()?.into_iter().filter_map(|m| m.ok()).map(|m| m.name).collect();
            return Err(Error::UnknownRepo { name: name.to_string(), known });
        }
        let trash = self.root.join("trash");
        std::fs::create_dir_all(&trash).at(&trash)?;
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let gone = trash.join(format!("{name}-{nanos}"));
        {
            let _run = RunLock::acquire(&dir, None)?;
            std::fs::rename(&dir, &gone).at(&dir)?;
        }
        std::fs::remove_dir_all(&gone).at(&gone)
    }

    /// Every indexed repository's metadata, sorted by name. Folders whose meta cannot
    /// be read are returned as errors next to the good ones.
    pub fn repos(&self) -> Result<Vec<Result<RepoMeta>>> {
        let dir = self.repos_dir();
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::Io { path: dir, error: e }),
        };
        let mut names: Vec<String> = rd
            .flatten()
            .filter(|e| e.path().join("meta.json").is_file())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect();
        names.sort();
        Ok(names.into_iter().map(|n| read_meta(&self.repo_dir(&n))).collect())
    }

    /// Names of the indexed repositories.
    pub fn repo_names(&self) -> Vec<String> {
        self.repos().unwrap_or_default().into_iter().filter_map(|m| m.ok().map(|m| m.name)).collect()
    }

    /// The metadata of `name`, checked for the format version.
    pub fn meta(&self, name: &str) -> Result<RepoMeta> {
        let dir = self.repo_dir(name);
        if !dir.join("meta.json").is_file() {
            return Err(Error::UnknownRepo { name: name.to_string(), known: self.repo_names() });
        }
        let meta = read_meta(&dir)?;
        if meta.format_version != FORMAT_VERSION {
            return Err(Error::FormatVersion {
                name: meta.name,
                root: meta.root,
                found: meta.format_version,
                expected: FORMAT_VERSION,
            });
        }
        Ok(meta)
    }
}

/// Checks a repository name: it becomes a folder name.
pub fn validate_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && name != "."
        && name != ".."
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    if ok {
        Ok(())
    } else {
        Err(Error::BadName(name.to_string()))
    }
}

/// A default repository name from its folder: `/src/my repo` -> `my-repo`.
pub fn default_name(root: &Path) -> String {
    let base = root.file_name().and_then(|n| n.to_str()).unwrap_or("repo");
    let mut s: String =
        base.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '-' }).collect();
    s.truncate(100);
    if s.is_empty() || s == "." || s == ".." {
        "repo".to_string()
    } else {
        s
    }
}

/// Reads `meta.json` without checking its version.
pub fn read_meta(dir: &Path) -> Result<RepoMeta> {
    let path = dir.join("meta.json");
    let bytes = std::fs::read(&path).at(&path)?;
    // Read the version first, so a future layout still yields a version error.
    #[derive(Deserialize)]
    struct Version {
        format_version: u32,
        name: Option<String>,
        root: Option<String>,
    }
    let v: Version =
        serde_json::from_slice(&bytes).map_err(|e| Error::Corrupt { path: path.clone(), reason: e.to_string() })?;
    if v.format_version != FORMAT_VERSION {
        return Ok(RepoMeta {
            format_version: v.format_version,
            name: v.name.unwrap_or_default(),
            root: v.root.unwrap_or_default(),
            created_at: 0,
            indexed_at: 0,
            stats: IndexStats::default(),
            import_map: String::new(),
        });
    }
    serde_json::from_slice(&bytes).map_err(|e| Error::Corrupt { path, reason: e.to_string() })
}

pub(crate) fn write_meta(dir: &Path, meta: &RepoMeta) -> Result<()> {
    let json = serde_json::to_vec_pretty(meta).expect("meta serializes");
    write_atomic(&dir.join("meta.json"), &json)
}

/// `records.bin`, written and synced under its temporary name ([`PENDING_FILE`]);
/// [`Pending::commit`] puts it in place. Dropped uncommitted, it is deleted: a run that
/// fails before tantivy commits leaves nothing behind.
pub(crate) struct Pending {
    tmp: PathBuf,
    path: PathBuf,
    generation: u64,
    /// Committed, or to be kept for the next opener to roll forward.
    kept: bool,
}

impl Pending {
    /// Renames the records into place. The file is never deleted from here on: once
    /// tantivy's commit names its generation, it is the records of the index, and a
    /// failed rename leaves it for the next opener to roll forward. Another process
    /// opening the index may have done the rename already.
    pub(crate) fn commit(mut self) -> Result<()> {
        self.kept = true;
        match std::fs::rename(&self.tmp, &self.path) {
            Ok(()) => {}
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound
                    && records_generation(&self.path).ok() == Some(self.generation) => {}
            Err(e) => return Err(Error::Io { path: self.path.clone(), error: e }),
        }
        sync_dir(self.path.parent().unwrap_or(Path::new(".")))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Syncs a folder, so that renames into it survive a crash of the machine.
fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir).and_then(|d| d.sync_all()).at(dir)
}

/// The generation of the records file at `path` (from its trailer alone).
pub fn records_generation(path: &Path) -> Result<u64> {
    use std::io::{Seek, SeekFrom};
    let mut f = std::fs::File::open(path).at(path)?;
    let size = f.metadata().at(path)?.len();
    if size < TRAILER_LEN as u64 {
        return Err(corrupt(path, "too short to be a records file"));
    }
    let mut trailer = [0; TRAILER_LEN];
    f.seek(SeekFrom::Start(size - TRAILER_LEN as u64)).and_then(|_| f.read_exact(&mut trailer)).at(path)?;
    check_trailer(path, &trailer).map(|t| t.generation)
}

/// The generation the next `records.bin` of `dir` gets: above the current one's, and
/// above any earlier one's (time-based, so a records file rebuilt from nothing does not
/// reuse a number a saved graph or a search commit may still name).
pub(crate) fn next_generation(dir: &Path) -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let current = records_generation(&dir.join(RECORDS_FILE)).unwrap_or(0);
    now.max(current + 1)
}

/// Resolves a `records.bin.tmp` left by an index run that did not finish: when `committed`
/// (the generation tantivy's last commit names) is its generation, the run was killed
/// between its two commits and the file is renamed into place; otherwise it is deleted
/// when `discard` (only an index run, which holds the run lock, may: another run may be
/// writing it). A file that is not whole is not renamed.
pub fn settle_pending(dir: &Path, committed: Option<u64>, discard: bool) -> Result<()> {
    let tmp = dir.join(PENDING_FILE);
    if !tmp.exists() {
        return Ok(());
    }
    let generation = records_generation(&tmp).ok();
    let path = dir.join(RECORDS_FILE);
    // Never over newer records (a pending file can only be older when something else
    // than an index run left it).
    let newer = generation.is_some_and(|g| records_generation(&path).map_or(true, |current| current < g));
    if generation.is_some() && generation == committed && newer {
        match std::fs::rename(&tmp, &path) {
            Ok(()) => {
                tracing::info!(dir = %dir.display(), "rolled forward the records of an index run that was interrupted after its search-index commit")
            }
            // Another process rolled it forward first.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::Io { path, error: e }),
        }
        return sync_dir(dir);
    }
    if discard {
        match std::fs::remove_file(&tmp) {
            Ok(()) => {
                tracing::info!(dir = %dir.display(), "removed the records of an index run that was interrupted before its commit")
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::Io { path: tmp, error: e }),
        }
    }
    Ok(())
}

/// The lock an index run holds on its repository's folder: runs of one repository (two
/// processes, or a server and a command) take turns instead of writing the same files.
pub(crate) struct RunLock {
    _file: std::fs::File,
}

impl RunLock {
    /// Takes the lock, waiting (and polling `cancel`) while another run holds it.
    pub(crate) fn acquire(dir: &Path, cancel: Option<&std::sync::atomic::AtomicBool>) -> Result<RunLock> {
        use rustix::fs::{flock, FlockOperation};
        let path = dir.join(LOCK_FILE);
        let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).at(&path)?;
        let mut waited = false;
        loop {
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(RunLock { _file: file }),
                Err(rustix::io::Errno::WOULDBLOCK) => {}
                Err(e) => return Err(Error::Io { path, error: e.into() }),
            }
            if cancel.is_some_and(|c| c.load(std::sync::atomic::Ordering::Relaxed)) {
                return Err(Error::Cancelled);
            }
            if !waited {
                tracing::info!(dir = %dir.display(), "another index run of this repository is in progress; waiting for it");
                waited = true;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// zstd level of `records.bin`'s frames: level 3 (zstd's default) compresses about as
/// fast as the records serialize and makes the file ~30% smaller than LZ4 did.
pub const ZSTD_LEVEL: i32 = 3;

/// Source bytes per group of `records.bin`: consecutive files are grouped by about this
/// much source, and each group is two zstd frames: the files' symbols (with the path,
/// hash and times), then their references and diagnostics. Reading one
/// symbol decompresses one symbols frame; groups are compressed and decompressed in
/// parallel.
pub const GROUP_SOURCE_BYTES: u64 = 64 << 10;

/// Ends `records.bin`: the footer's length (u64), the generation (u64), the format
/// version (u32), this magic. The version and magic stay the last 8 bytes in every
/// version, so a file of another one is refused as such.
const RECORDS_MAGIC: &[u8; 4] = b"ccrb";
const TRAILER_LEN: usize = 24;

/// A checked trailer.
struct Trailer {
    footer_len: u64,
    generation: u64,
}

fn check_trailer(path: &Path, trailer: &[u8; TRAILER_LEN]) -> Result<Trailer> {
    if &trailer[20..] != RECORDS_MAGIC {
        return Err(corrupt(path, format!("not a records file of format version {FORMAT_VERSION}")));
    }
    let version = u32::from_le_bytes(trailer[16..20].try_into().expect("4 bytes"));
    if version != FORMAT_VERSION {
        return Err(corrupt(path, format!("format version {version}, expected {FORMAT_VERSION}")));
    }
    Ok(Trailer {
        footer_len: u64::from_le_bytes(trailer[..8].try_into().expect("8 bytes")),
        generation: u64::from_le_bytes(trailer[8..16].try_into().expect("8 bytes")),
    })
}

/// One zstd frame of `records.bin`.
#[derive(Debug, Serialize, Deserialize)]
struct Part {
    offset: u64,
    len: u64,
    /// Length of the decompressed frame.
    raw_len: u64,
}

/// One group of consecutive files in `records.bin` (an entry of its footer).
#[derive(Debug, Serialize, Deserialize)]
struct Group {
    /// Path of the group's first file (groups are in path order).
    first: String,
    files: u32,
    /// Each file's [`Head`], after its length (u32).
    heads: Part,
    /// Each file's [`Rest`], after its length (u32).
    rest: Part,
}

/// A file's entry in a symbols frame, followed by one entry per symbol (its id as 8
/// bytes, little-endian, then its [`SymbolBody`]): a reader compares paths, then ids, and
/// decodes one symbol.
#[derive(Serialize, Deserialize)]
struct Head<P> {
    /// First: read without the rest.
    path: P,
    lang: Lang,
    hash: [u8; 32],
    size: u64,
    mtime_ns: u128,
    symbols: u32,
}

/// A symbol in its entry: all but the id (the entry's prefix) and the path (its file's).
type SymbolBody<S> = (S, crate::record::SymbolKind, S, Option<SymbolId>, Lang, crate::record::Span, S, Option<S>, S);

fn symbol_body(s: &Symbol) -> SymbolBody<&str> {
    (&s.name, s.kind, &s.qualified_name, s.parent, s.lang, s.span, &s.signature, s.doc.as_deref(), &s.body)
}

fn symbol_from(id: SymbolId, path: &str, body: SymbolBody<String>) -> Symbol {
    let (name, kind, qualified_name, parent, lang, span, signature, doc, body) = body;
    Symbol { id, name, kind, qualified_name, parent, lang, path: path.to_string(), span, signature, doc, body }
}

/// A symbol entry: the id, then the symbol.
fn decode_symbol(path: &Path, file: &str, entry: &[u8]) -> Result<Symbol> {
    let (id, body) = entry.split_first_chunk::<8>().ok_or_else(|| corrupt_frame(path))?;
    Ok(symbol_from(SymbolId(u64::from_le_bytes(*id)), file, decode(path, body)?))
}

#[derive(Serialize, Deserialize)]
struct Rest<M, R, D> {
    module: M,
    references: R,
    diagnostics: D,
}

/// The groups of consecutive `files` (sorted by path): each about [`GROUP_SOURCE_BYTES`]
/// of source, a bigger file alone.
fn group_ranges(files: &[FileRecord]) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, f) in files.iter().enumerate() {
        if i > start && bytes + f.size > GROUP_SOURCE_BYTES {
            ranges.push(start..i);
            (start, bytes) = (i, 0);
        }
        bytes += f.size;
    }
    if start < files.len() {
        ranges.push(start..files.len());
    }
    ranges
}

/// A compressor of frames: [`ZSTD_LEVEL`], with a checksum, so that a damaged frame is
/// an error rather than other records.
fn frame_compressor() -> std::io::Result<zstd::bulk::Compressor<'static>> {
    let mut c = zstd::bulk::Compressor::new(ZSTD_LEVEL)?;
    c.include_checksum(true)?;
    Ok(c)
}

/// Appends `prefix` and `value` to `raw`, after their length (u32).
fn push_entry(raw: &mut Vec<u8>, prefix: &[u8], value: &impl Serialize) -> std::result::Result<(), String> {
    let at = raw.len();
    raw.extend_from_slice(&[0; 4]);
    raw.extend_from_slice(prefix);
    postcard::to_io(value, &mut *raw).map_err(|e| e.to_string())?;
    let len = u32::try_from(raw.len() - at - 4).map_err(|_| "a file's records over 4 GB".to_string())?;
    raw[at..at + 4].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

/// `records.bin` as an index run read it: its bytes, its groups and every file's path in
/// order, so that the run's write copies the frames of groups whose files did not change
/// instead of encoding them again ([`write_records_pending`]).
pub(crate) struct Previous {
    bytes: Vec<u8>,
    groups: Vec<Group>,
    paths: Vec<String>,
}

/// A group of the file being written: encoded from `files[range]`, or copied from the
/// previous file's group `from`.
struct Planned {
    range: std::ops::Range<usize>,
    from: Option<usize>,
}

/// The groups to write `files` as: a previous group whose files are all there, in the same
/// order, and `unchanged`, is copied; the files between such groups are grouped anew
/// ([`group_ranges`]).
fn plan(files: &[FileRecord], previous: Option<(&Previous, &[bool])>) -> Vec<Planned> {
    let Some((p, unchanged)) = previous else {
        return group_ranges(files).into_iter().map(|range| Planned { range, from: None }).collect();
    };
    let mut starts: std::collections::HashMap<&str, (usize, usize)> = std::collections::HashMap::new();
    let mut at = 0;
    for (k, g) in p.groups.iter().enumerate() {
        starts.insert(g.first.as_str(), (k, at));
        at += g.files as usize;
    }
    let mut out = Vec::new();
    let (mut pos, mut fresh) = (0, 0);
    let flush = |out: &mut Vec<Planned>, from: usize, to: usize| {
        let ranges = group_ranges(&files[from..to]);
        out.extend(ranges.into_iter().map(|r| Planned { range: r.start + from..r.end + from, from: None }));
    };
    while pos < files.len() {
        if let Some(&(k, first)) = starts.get(files[pos].path.as_str()) {
            let n = p.groups[k].files as usize;
            let same = pos + n <= files.len()
                && p.paths.get(first..first + n).is_some_and(|old| {
                    old.iter()
                        .zip(&files[pos..pos + n])
                        .enumerate()
                        .all(|(j, (o, f))| unchanged[pos + j] && *o == f.path)
                });
            if same {
                flush(&mut out, fresh, pos);
                out.push(Planned { range: pos..pos + n, from: Some(k) });
                pos += n;
                fresh = pos;
                continue;
            }
        }
        pos += 1;
    }
    flush(&mut out, fresh, files.len());
    out
}

/// Writes `records.bin` of `generation` under its temporary name ([`PENDING_FILE`]),
/// synced: the groups are serialized and compressed in parallel (the index run does this
/// while tantivy prepares its commit), then written in order, followed by the footer
/// (every group's frames and first path) and the trailer. On an error nothing is left.
/// With the `previous` file and which `files` are unchanged since it (their records as
/// read from it), its groups of unchanged files are copied, not encoded again.
pub(crate) fn write_records_pending(
    dir: &Path,
    files: &[FileRecord],
    generation: u64,
    previous: Option<(&Previous, &[bool])>,
) -> Result<Pending> {
    use rayon::prelude::*;
    let path = dir.join(RECORDS_FILE);
    let tmp = dir.join(PENDING_FILE);
    let planned = plan(files, previous);
    let ranges: Vec<std::ops::Range<usize>> =
        planned.iter().filter(|g| g.from.is_none()).map(|g| g.range.clone()).collect();
    // Per group encoded: the compressed heads and rest, and their decompressed lengths.
    let compressed: Vec<[(Vec<u8>, u64); 2]> = ranges
        .par_iter()
        .map_init(
            || (frame_compressor(), Vec::new(), Vec::new()),
            |(compressor, heads, rest), r| {
                let compressor = compressor.as_mut().map_err(|e| corrupt(&path, e))?;
                heads.clear();
                rest.clear();
                for f in &files[r.clone()] {
                    let symbols = u32::try_from(f.symbols.len()).map_err(|_| corrupt(&path, "over 2^32 symbols"))?;
                    let head =
                        Head { path: &f.path, lang: f.lang, hash: f.hash, size: f.size, mtime_ns: f.mtime_ns, symbols };
                    push_entry(heads, &[], &head).map_err(|e| corrupt(&path, e))?;
                    for s in &f.symbols {
                        debug_assert_eq!(s.path, f.path, "a symbol is in its file's record");
                        push_entry(heads, &s.id.0.to_le_bytes(), &symbol_body(s)).map_err(|e| corrupt(&path, e))?;
                    }
                    let references = f.references.wire(f.lang).map_err(|e| corrupt(&path, e))?;
                    push_entry(rest, &[], &Rest { module: &f.module, references, diagnostics: &f.diagnostics })
                        .map_err(|e| corrupt(&path, e))?;
                }
                let mut frame = |raw: &Vec<u8>| compressor.compress(raw).map(|z| (z, raw.len() as u64)).at(&tmp);
                Ok([frame(heads)?, frame(rest)?])
            },
        )
        .collect::<Result<_>>()?;
    let file = std::fs::File::create(&tmp).at(&tmp)?;
    // From here on, an error (a full disk) deletes the partial file.
    let pending = Pending { tmp: tmp.clone(), path: path.clone(), generation, kept: false };
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut groups = Vec::with_capacity(planned.len());
    let mut offset = 0;
    let mut encoded = compressed.iter();
    for g in &planned {
        let mut part = |z: &[u8], raw_len: u64| -> Result<Part> {
            out.write_all(z).at(&tmp)?;
            let part = Part { offset, len: z.len() as u64, raw_len };
            offset += z.len() as u64;
            Ok(part)
        };
        let (heads, rest) = match (g.from, previous) {
            (Some(k), Some((p, _))) => {
                let frame = |q: &Part| &p.bytes[q.offset as usize..(q.offset + q.len) as usize];
                let old = &p.groups[k];
                (part(frame(&old.heads), old.heads.raw_len)?, part(frame(&old.rest), old.rest.raw_len)?)
            }
            _ => {
                let [(h, hl), (r, rl)] = encoded.next().expect("a group encoded");
                (part(h, *hl)?, part(r, *rl)?)
            }
        };
        groups.push(Group { first: files[g.range.start].path.clone(), files: g.range.len() as u32, heads, rest });
    }
    drop(compressed);
    let footer = postcard::to_stdvec(&groups).map_err(|e| corrupt(&path, e))?;
    out.write_all(&footer).at(&tmp)?;
    out.write_all(&(footer.len() as u64).to_le_bytes()).at(&tmp)?;
    out.write_all(&generation.to_le_bytes()).at(&tmp)?;
    out.write_all(&FORMAT_VERSION.to_le_bytes()).at(&tmp)?;
    out.write_all(RECORDS_MAGIC).at(&tmp)?;
    let file = out.into_inner().map_err(|e| Error::Io { path: tmp.clone(), error: e.into_error() })?;
    file.sync_all().at(&tmp)?;
    Ok(pending)
}

/// The groups and the generation of a `records.bin` of `size` bytes; `read_at` reads
/// `len` bytes at an offset of it.
fn read_footer(
    path: &Path,
    size: u64,
    mut read_at: impl FnMut(u64, usize) -> Result<Vec<u8>>,
) -> Result<(Vec<Group>, u64)> {
    if size < TRAILER_LEN as u64 {
        return Err(corrupt(path, "too short to be a records file"));
    }
    let trailer = read_at(size - TRAILER_LEN as u64, TRAILER_LEN)?;
    let Trailer { footer_len, generation } = check_trailer(path, trailer.as_slice().try_into().expect("a trailer"))?;
    let footer_at = (size - TRAILER_LEN as u64)
        .checked_sub(footer_len)
        .ok_or_else(|| corrupt(path, "the footer is longer than the file"))?;
    let footer = read_at(footer_at, footer_len as usize)?;
    let groups: Vec<Group> = postcard::from_bytes(&footer).map_err(|e| corrupt(path, e))?;
    let outside = |p: &Part| p.offset.checked_add(p.len).is_none_or(|end| end > footer_at);
    if groups.iter().any(|g| outside(&g.heads) || outside(&g.rest)) {
        return Err(corrupt(path, "a frame lies outside the file"));
    }
    Ok((groups, generation))
}

/// The entries of a decompressed frame (each a value after its length).
fn entries<'a>(path: &'a Path, raw: &'a [u8]) -> impl Iterator<Item = Result<&'a [u8]>> + 'a {
    let mut rest = raw;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let entry = rest.split_first_chunk::<4>().and_then(|(len, tail)| {
            let len = u32::from_le_bytes(*len) as usize;
            (len <= tail.len()).then(|| tail.split_at(len))
        });
        Some(match entry {
            Some((entry, tail)) => {
                rest = tail;
                Ok(entry)
            }
            None => {
                rest = &[];
                Err(corrupt_frame(path))
            }
        })
    })
}

/// `records.bin` at `path` is damaged: `reason`.
fn corrupt(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::Corrupt { path: path.to_path_buf(), reason: reason.to_string() }
}

fn corrupt_frame(path: &Path) -> Error {
    corrupt(path, "a frame ends inside an entry")
}

/// One frame, decompressed. Its size is checked against the one its header declares
/// first, so a damaged footer cannot ask for any amount of memory.
fn decompress(
    path: &Path,
    part: &Part,
    compressed: &[u8],
    decompressor: &mut zstd::bulk::Decompressor<'_>,
) -> Result<Vec<u8>> {
    match zstd::zstd_safe::get_frame_content_size(compressed) {
        Ok(Some(n)) if n == part.raw_len => {}
        _ => return Err(corrupt(path, "a frame's size is not the one the footer gives")),
    }
    decompressor.decompress(compressed, part.raw_len as usize).map_err(|e| corrupt(path, e))
}

/// One entry, decoded whole.
fn decode<'de, T: Deserialize<'de>>(path: &Path, entry: &'de [u8]) -> Result<T> {
    let (value, rest) = postcard::take_from_bytes::<T>(entry).map_err(|e| corrupt(path, e))?;
    if !rest.is_empty() {
        return Err(corrupt(path, format!("{} bytes after an entry", rest.len())));
    }
    Ok(value)
}

/// Whether a zstd frame carries a checksum of its content (the frame header's
/// `Content_Checksum_flag`).
fn checksummed(frame: &[u8]) -> bool {
    frame.get(4).is_some_and(|descriptor| descriptor & 0x04 != 0)
}

/// The files of one group, from the bytes of `records.bin`; with `lazy`, the plain calls of
/// a frame whose checksum vouches for them are left encoded (see [`References`]).
fn decode_group(
    path: &Path,
    group: &Group,
    bytes: &[u8],
    decompressor: &mut zstd::bulk::Decompressor<'_>,
    lazy: bool,
) -> Result<Vec<FileRecord>> {
    let compressed = |p: &Part| &bytes[p.offset as usize..(p.offset + p.len) as usize];
    let lazy = lazy && checksummed(compressed(&group.rest));
    let mut frame = |p: &Part| decompress(path, p, compressed(p), decompressor);
    let (heads, rest) = (frame(&group.heads)?, frame(&group.rest)?);
    let mut files = Vec::with_capacity(group.files as usize);
    let mut rests = entries(path, &rest);
    let mut heads = entries(path, &heads);
    while let Some(head) = heads.next() {
        let head: Head<String> = decode(path, head?)?;
        let symbols = (0..head.symbols)
            .map(|_| {
                let entry = heads.next().ok_or_else(|| corrupt_frame(path))??;
                decode_symbol(path, &head.path, entry)
            })
            .collect::<Result<Vec<Symbol>>>()?;
        let Some(rest) = rests.next() else { break };
        let rest: Rest<String, WireIn<'_>, Vec<Diagnostic>> = decode(path, rest?)?;
        let mut references = References::from_wire(rest.references).map_err(|e| corrupt(path, e))?;
        if !lazy {
            references.settle().map_err(|e| corrupt(path, e))?;
        }
        files.push(FileRecord {
            path: head.path,
            lang: head.lang,
            hash: head.hash,
            size: head.size,
            mtime_ns: head.mtime_ns,
            module: rest.module,
            symbols,
            references,
            diagnostics: rest.diagnostics,
        });
    }
    if files.len() != group.files as usize || rests.next().is_some() {
        return Err(corrupt(path, format!("a group's frames do not hold the {} files its footer says", group.files)));
    }
    Ok(files)
}

/// Reads `records.bin` (its groups decompressed in parallel), every reference decoded. A
/// missing file is an empty index.
pub fn read_records(dir: &Path) -> Result<Vec<FileRecord>> {
    read_records_generation(dir).map(|(files, _)| files)
}

/// [`read_records`], with the generation of the file they were read from (0: none).
pub fn read_records_generation(dir: &Path) -> Result<(Vec<FileRecord>, u64)> {
    read_records_as(dir, false).map(|(files, generation, _)| (files, generation))
}

/// [`read_records_generation`], with the file as read (`None`: there is none), for the
/// next write to copy from; the plain calls left encoded (an update decodes those of the
/// few files it resolves again).
pub(crate) fn read_records_previous(dir: &Path) -> Result<(Vec<FileRecord>, u64, Option<Previous>)> {
    read_records_as(dir, true)
}

/// [`read_records`], the plain calls left encoded until used (see [`References`]): the
/// records as an update reads them.
pub fn read_records_lazily(dir: &Path) -> Result<Vec<FileRecord>> {
    read_records_as(dir, true).map(|(files, _, _)| files)
}

/// Writes `files` (sorted by path) as `dir`'s `records.bin` of `generation`, in place: for
/// a test or a tool with records of its own (an index run writes its records beside its
/// search index, see the module's doc).
pub fn write_records(dir: &Path, files: &[FileRecord], generation: u64) -> Result<()> {
    write_records_pending(dir, files, generation, None)?.commit()
}

fn read_records_as(dir: &Path, lazy: bool) -> Result<(Vec<FileRecord>, u64, Option<Previous>)> {
    use rayon::prelude::*;
    let path = dir.join(RECORDS_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0, None)),
        Err(e) => return Err(Error::Io { path, error: e }),
    };
    let (groups, generation) =
        read_footer(&path, bytes.len() as u64, |at, len| Ok(bytes[at as usize..at as usize + len].to_vec()))?;
    let parts = groups
        .par_iter()
        .map_init(zstd::bulk::Decompressor::new, |decompressor, g| {
            let decompressor = decompressor.as_mut().map_err(|e| corrupt(&path, e))?;
            decode_group(&path, g, &bytes, decompressor, lazy)
        })
        .collect::<Result<Vec<_>>>()?;
    let files: Vec<FileRecord> = parts.into_iter().flatten().collect();
    let paths = files.iter().map(|f| f.path.clone()).collect();
    Ok((files, generation, Some(Previous { bytes, groups, paths })))
}

/// Symbols frames kept decompressed by a [`RecordsReader`].
const READER_CACHE: usize = 16;

/// One symbol at a time from `records.bin`, reading only the symbols frame that holds it.
/// It reads the file it opened: when a re-index replaces `records.bin`, open a new one.
pub struct RecordsReader {
    path: PathBuf,
    /// None: there is no `records.bin` (nothing indexed).
    file: Option<Mutex<(std::fs::File, zstd::bulk::Decompressor<'static>)>>,
    groups: Vec<Group>,
    /// Recently read symbols frames (by group), decompressed, most recent last.
    cache: Mutex<Vec<(usize, Arc<Vec<u8>>)>>,
}

impl RecordsReader {
    pub fn open(dir: &Path) -> Result<RecordsReader> {
        use std::io::{Seek, SeekFrom};
        let path = dir.join(RECORDS_FILE);
        let mut file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(RecordsReader { path, file: None, groups: Vec::new(), cache: Default::default() })
            }
            Err(e) => return Err(Error::Io { path, error: e }),
        };
        let size = file.metadata().at(&path)?.len();
        let (groups, _) = read_footer(&path, size, |at, len| {
            let mut buf = vec![0; len];
            file.seek(SeekFrom::Start(at)).and_then(|_| file.read_exact(&mut buf)).at(&path)?;
            Ok(buf)
        })?;
        let decompressor = zstd::bulk::Decompressor::new().at(&path)?;
        Ok(RecordsReader { path, file: Some(Mutex::new((file, decompressor))), groups, cache: Default::default() })
    }

    /// The symbol `id` of the file at `path` (repository-relative), if indexed.
    pub fn symbol(&self, path: &str, id: SymbolId) -> Result<Option<Symbol>> {
        let Some(i) = self.groups.partition_point(|g| g.first.as_str() <= path).checked_sub(1) else {
            return Ok(None);
        };
        let heads = self.heads(i)?;
        let mut entries = entries(&self.path, &heads);
        while let Some(entry) = entries.next() {
            let head: Head<&str> = decode(&self.path, entry?)?;
            if head.path != path {
                // Over this file's symbols, undecoded.
                for _ in 0..head.symbols {
                    entries.next().ok_or_else(|| corrupt_frame(&self.path))??;
                }
                continue;
            }
            for _ in 0..head.symbols {
                let entry = entries.next().ok_or_else(|| corrupt_frame(&self.path))??;
                if entry.get(..8) == Some(&id.0.to_le_bytes()[..]) {
                    return decode_symbol(&self.path, path, entry).map(Some);
                }
            }
            return Ok(None);
        }
        Ok(None)
    }

    /// Group `i`'s symbols frame, decompressed, from the cache or the file.
    fn heads(&self, i: usize) -> Result<Arc<Vec<u8>>> {
        use std::io::{Seek, SeekFrom};
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = cache.iter().position(|(j, _)| *j == i) {
            let hit = cache.remove(at);
            cache.push(hit.clone());
            return Ok(hit.1);
        }
        let part = &self.groups[i].heads;
        let raw = {
            let file = self.file.as_ref().expect("a reader with groups has a file");
            let mut guard = file.lock().unwrap_or_else(|p| p.into_inner());
            let (file, decompressor) = &mut *guard;
            let mut compressed = vec![0; part.len as usize];
            file.seek(SeekFrom::Start(part.offset)).and_then(|_| file.read_exact(&mut compressed)).at(&self.path)?;
            decompress(&self.path, part, &compressed, decompressor)?
        };
        let raw = Arc::new(raw);
        if cache.len() == READER_CACHE {
            cache.remove(0);
        }
        cache.push((i, raw.clone()));
        Ok(raw)
    }
}

/// Replaces `path` with `bytes`: written and synced under a temporary name, then renamed.
/// On an error (a full disk) the temporary file is removed and `path` is as it was.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::Io { path: tmp, error: e });
    }
    std::fs::rename(&tmp, path).at(path)
}

/// The size of a repository's index on disk: every file of its folder but `meta.json`,
/// which holds this figure (counting it made the figure depend on its own digits, and on
/// whether the run before wrote it).
pub fn index_bytes(dir: &Path) -> u64 {
    let meta = std::fs::metadata(dir.join("meta.json")).map_or(0, |m| m.len());
    dir_size(dir).saturating_sub(meta)
}

/// Measures the index again after files the indexer does not write (the call graph, the
/// vectors) were written next to it, and records the figure in `meta.json` when it
/// changed. Returns it.
pub fn refresh_index_bytes(dir: &Path) -> Result<u64> {
    let mut meta = read_meta(dir)?;
    let bytes = index_bytes(dir);
    if meta.stats.index_bytes != bytes {
        meta.stats.index_bytes = bytes;
        write_meta(dir, &meta)?;
    }
    Ok(bytes)
}

/// Total size of the files under `dir`.
pub fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => total += e.metadata().map_or(0, |m| m.len()),
                _ => {}
            }
        }
    }
    total
}

pub(crate) fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{RefKind, Reference, Span, SymbolKind};

    /// `n` files of `size` source bytes each, with `size / 1000` symbols and a reference
    /// per symbol.
    fn files(n: usize, size: u64) -> Vec<FileRecord> {
        let span = Span { start_line: 1, start_col: 0, end_line: 2, end_col: 1 };
        (0..n)
            .map(|i| {
                let path = format!("src/f{i:04}.py");
                let symbols: Vec<Symbol> = (0..size / 1000)
                    .map(|j| Symbol {
                        id: SymbolId::compute(&path, &format!("f{i}.g{j}"), SymbolKind::Function, 0),
                        name: format!("g{j}"),
                        kind: SymbolKind::Function,
                        qualified_name: format!("f{i}.g{j}"),
                        parent: None,
                        lang: Lang::Python,
                        path: path.clone(),
                        span,
                        signature: format!("def g{j}(x)"),
                        doc: (j % 2 == 0).then(|| format!("Doc of g{j}.")),
                        body: format!("x g{j}"),
                    })
                    .collect();
                let references = symbols
                    .iter()
                    .map(|s| Reference::new("h".into(), RefKind::Call, span, Some(s.id), None, None, None))
                    .collect();
                FileRecord {
                    path,
                    lang: Lang::Python,
                    hash: [i as u8; 32],
                    size,
                    mtime_ns: i as u128,
                    module: String::new(),
                    symbols,
                    references,
                    diagnostics: Vec::new(),
                }
            })
            .collect()
    }

    /// Files of mixed sizes: many small ones share frames, a big one has its own.
    fn mixed() -> Vec<FileRecord> {
        let mut all = files(40, 9_000);
        all.extend(files(3, 200_000).into_iter().map(|mut f| {
            f.path = f.path.replace("src/", "src/z");
            for s in &mut f.symbols {
                s.path.clone_from(&f.path);
            }
            f
        }));
        all.sort_by(|a, b| a.path.cmp(&b.path));
        all
    }

    #[test]
    fn groups_are_files_of_about_the_same_source_size() {
        let all = mixed();
        let ranges = group_ranges(&all);
        // Every file in exactly one frame, in order.
        assert_eq!(ranges.iter().flat_map(|r| r.clone()).collect::<Vec<_>>(), (0..all.len()).collect::<Vec<_>>());
        for r in &ranges {
            let bytes: u64 = all[r.clone()].iter().map(|f| f.size).sum();
            assert!(r.len() == 1 || bytes <= GROUP_SOURCE_BYTES, "{r:?}: {bytes} bytes in {} files", r.len());
        }
        // 40 files of 9 kB (7 to a group of 64 kB) and 3 of 200 kB (one each).
        let per_group = (GROUP_SOURCE_BYTES / 9_000) as usize;
        assert_eq!(ranges.len(), 40usize.div_ceil(per_group) + 3);
        assert!(group_ranges(&[]).is_empty());
    }

    #[test]
    fn records_read_back_whole_and_one_symbol_at_a_time() {
        let tmp = tempfile::tempdir().unwrap();
        let all = mixed();
        write_records_pending(tmp.path(), &all, 1, None).unwrap().commit().unwrap();
        assert_eq!(read_records(tmp.path()).unwrap(), all);

        let reader = RecordsReader::open(tmp.path()).unwrap();
        assert!(reader.groups.len() > 3);
        for f in &all {
            for s in &f.symbols {
                assert_eq!(reader.symbol(&f.path, s.id).unwrap().as_ref(), Some(s), "{}", s.qualified_name);
            }
        }
        // Paths before the first, between two and after the last file; an id of another file.
        for path in ["a.py", "src/f0003.pyx", "zzz.py"] {
            assert_eq!(reader.symbol(path, all[0].symbols[0].id).unwrap(), None, "{path}");
        }
        assert_eq!(reader.symbol(&all[1].path, all[0].symbols[0].id).unwrap(), None);
    }

    /// A write after a read copies the frames of the groups whose files did not change, and
    /// what it wrote reads back as the files given: one file changed, one deleted, one added.
    #[test]
    fn a_rewrite_copies_the_groups_of_unchanged_files() {
        let tmp = tempfile::tempdir().unwrap();
        let mut all = mixed();
        write_records_pending(tmp.path(), &all, 1, None).unwrap().commit().unwrap();
        let (read, generation, previous) = read_records_previous(tmp.path()).unwrap();
        assert_eq!((read, generation), (all.clone(), 1));
        let previous = previous.unwrap();
        all[9].symbols[0].name = "changed".into();
        all.remove(20);
        let mut added = all[30].clone();
        added.path.push_str("x");
        for s in &mut added.symbols {
            s.path.clone_from(&added.path);
        }
        all.insert(31, added);
        let as_read: Vec<bool> =
            all.iter().enumerate().map(|(i, f)| i != 9 && i != 31 && previous.paths.contains(&f.path)).collect();
        let planned = plan(&all, Some((&previous, &as_read)));
        let copied = planned.iter().filter(|g| g.from.is_some()).count();
        assert!(copied >= previous.groups.len() - 4 && copied < previous.groups.len(), "{copied} copied");
        assert_eq!(
            planned.iter().flat_map(|g| g.range.clone()).collect::<Vec<_>>(),
            (0..all.len()).collect::<Vec<_>>()
        );
        write_records_pending(tmp.path(), &all, 2, Some((&previous, &as_read))).unwrap().commit().unwrap();
        assert_eq!(read_records(tmp.path()).unwrap(), all);
        let reader = RecordsReader::open(tmp.path()).unwrap();
        assert_eq!(reader.symbol(&all[9].path, all[9].symbols[0].id).unwrap().unwrap().name, "changed");
        // Nothing as read: nothing copied.
        let none = vec![false; all.len()];
        assert!(plan(&all, Some((&previous, &none))).iter().all(|g| g.from.is_none()));
    }

    /// Java files read back keep their plain calls encoded; a group written again because
    /// one of its files changed carries its other files' calls as they were read.
    #[test]
    fn plain_calls_stay_encoded_through_a_rewrite() {
        let tmp = tempfile::tempdir().unwrap();
        let mut all = files(12, 9_000);
        for f in &mut all {
            f.lang = Lang::Java;
            let span = Span { start_line: 3, start_col: 0, end_line: 3, end_col: 5 };
            let binding = Reference::new("Circle".into(), RefKind::Type, span, None, None, None, Some("c".into()));
            f.references.insert(1, binding);
        }
        write_records_pending(tmp.path(), &all, 1, None).unwrap().commit().unwrap();
        let (mut read, _, previous) = read_records_previous(tmp.path()).unwrap();
        let previous = previous.unwrap();
        assert!(previous.groups.len() >= 2);
        for (r, f) in read.iter().zip(&all) {
            assert!(!r.references.decoded(), "{}", r.path);
            assert_eq!((r.references.len(), r.references.kept().count()), (f.references.len(), 1));
            assert_eq!(r.references.call_names().collect::<Vec<_>>(), ["h"]);
        }
        // The second file changed: its group is written again, the others' calls as read.
        read[1].references.push(Reference::new(
            "added".into(),
            RefKind::Call,
            Span { start_line: 9, start_col: 0, end_line: 9, end_col: 5 },
            None,
            None,
            None,
            None,
        ));
        all[1].references.clone_from(&read[1].references);
        let as_read: Vec<bool> = (0..read.len()).map(|i| i != 1).collect();
        write_records_pending(tmp.path(), &read, 2, Some((&previous, &as_read))).unwrap().commit().unwrap();
        assert!(read.iter().enumerate().all(|(i, r)| r.references.decoded() == (i == 1)));
        let whole = read_records(tmp.path()).unwrap();
        assert!(whole.iter().all(|f| f.references.decoded()), "a whole read decodes every call");
        assert_eq!(whole, all);
    }

    /// Only a frame whose checksum vouches for its calls leaves them encoded.
    #[test]
    fn frames_are_written_checksummed() {
        let raw = b"references of a few files".repeat(10);
        assert!(checksummed(&frame_compressor().unwrap().compress(&raw).unwrap()));
        let plain = zstd::bulk::Compressor::new(ZSTD_LEVEL).unwrap().compress(&raw).unwrap();
        assert!(!checksummed(&plain));
        assert!(!checksummed(&plain[..3]));
    }

    #[test]
    fn no_records_file_is_an_empty_index_and_a_damaged_one_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(read_records(tmp.path()).unwrap().is_empty());
        assert_eq!(RecordsReader::open(tmp.path()).unwrap().symbol("a.py", SymbolId(1)).unwrap(), None);

        let all = files(30, 9_000);
        write_records_pending(tmp.path(), &all, 1, None).unwrap().commit().unwrap();
        let path = tmp.path().join("records.bin");
        let good = std::fs::read(&path).unwrap();
        let n = good.len();
        let mut damaged: Vec<(&str, Vec<u8>)> = vec![
            ("empty", Vec::new()),
            ("truncated", good[..n - 5].to_vec()),
            ("no footer", good[n - TRAILER_LEN..].to_vec()),
        ];
        // A footer whose first frame claims 2^40 bytes decompressed (an allocation that
        // would abort the process).
        let mut lying = RecordsReader::open(tmp.path()).unwrap().groups;
        assert!(lying.len() > 1);
        lying[0].heads.raw_len = 1 << 40;
        let footer = postcard::to_stdvec(&lying).unwrap();
        let frames_end = (lying.last().unwrap().rest.offset + lying.last().unwrap().rest.len) as usize;
        let mut huge = good[..frames_end].to_vec();
        huge.extend_from_slice(&footer);
        huge.extend_from_slice(&(footer.len() as u64).to_le_bytes());
        huge.extend_from_slice(&good[n - 16..]);
        damaged.push(("a footer that lies about a frame's size", huge));
        let mut version = good.clone();
        version[n - 8] ^= 0x7f;
        damaged.push(("another version", version));
        // A byte in the middle of the first frame (the frame's checksum catches it).
        let mut frame = good.clone();
        frame[RecordsReader::open(tmp.path()).unwrap().groups[0].heads.len as usize / 2] ^= 0x01;
        damaged.push(("a damaged frame", frame));
        for (what, bytes) in damaged {
            std::fs::write(&path, bytes).unwrap();
            let whole = read_records(tmp.path());
            let one = RecordsReader::open(tmp.path()).and_then(|r| r.symbol(&all[0].path, all[0].symbols[0].id));
            for result in [whole.map(|_| ()), one.map(|_| ())] {
                match result {
                    Err(Error::Corrupt { path: p, .. }) => assert_eq!(p, path, "{what}"),
                    other => panic!("{what}: {other:?}"),
                }
            }
        }
    }

    /// A version-7 file (16-byte trailer, no generation) is refused by its version, not
    /// read as something else.
    #[test]
    fn records_of_format_version_7_are_refused_by_version() {
        let tmp = tempfile::tempdir().unwrap();
        write_records_pending(tmp.path(), &files(3, 2_000), 5, None).unwrap().commit().unwrap();
        let path = tmp.path().join(RECORDS_FILE);
        let good = std::fs::read(&path).unwrap();
        let n = good.len();
        // The v7 trailer: the footer's length, then 7 and the magic.
        let mut v7 = good[..n - TRAILER_LEN].to_vec();
        v7.extend_from_slice(&good[n - TRAILER_LEN..n - 16]);
        v7.extend_from_slice(&7u32.to_le_bytes());
        v7.extend_from_slice(RECORDS_MAGIC);
        std::fs::write(&path, v7).unwrap();
        for e in [read_records(tmp.path()).unwrap_err(), records_generation(&path).unwrap_err()] {
            assert!(e.to_string().contains(&format!("format version 7, expected {FORMAT_VERSION}")), "{e}");
        }
    }

    #[test]
    fn records_carry_their_generation_and_a_pending_file_is_settled_by_the_commit_it_names() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (old, new) = (files(3, 2_000), files(5, 2_000));
        assert_eq!(read_records_generation(dir).unwrap().1, 0);
        let g1 = next_generation(dir);
        write_records_pending(dir, &old, g1, None).unwrap().commit().unwrap();
        assert_eq!(records_generation(&dir.join(RECORDS_FILE)).unwrap(), g1);
        let g2 = next_generation(dir);
        assert!(g2 > g1);

        // Dropped before a commit: nothing is left.
        drop(write_records_pending(dir, &new, g2, None).unwrap());
        assert!(!dir.join(PENDING_FILE).exists());

        // Left by a killed run (written, never renamed: `forget` skips the drop that deletes it).
        std::mem::forget(write_records_pending(dir, &new, g2, None).unwrap());
        // A reader whose search commit names the old generation leaves it; an index run deletes it.
        settle_pending(dir, Some(g1), false).unwrap();
        assert!(dir.join(PENDING_FILE).exists());
        settle_pending(dir, Some(g1), true).unwrap();
        assert!(!dir.join(PENDING_FILE).exists());
        assert_eq!(read_records_generation(dir).unwrap(), (old.clone(), g1));

        // The search index committed it: anyone who opens the index rolls it forward.
        std::mem::forget(write_records_pending(dir, &new, g2, None).unwrap());
        settle_pending(dir, Some(g2), false).unwrap();
        assert!(!dir.join(PENDING_FILE).exists());
        assert_eq!(read_records_generation(dir).unwrap(), (new.clone(), g2));

        // A partial file is never rolled forward, whatever the commit says.
        let whole = {
            let p = write_records_pending(dir, &old, g2 + 1, None).unwrap();
            let b = std::fs::read(dir.join(PENDING_FILE)).unwrap();
            drop(p);
            b
        };
        std::fs::write(dir.join(PENDING_FILE), &whole[..whole.len() / 2]).unwrap();
        settle_pending(dir, None, false).unwrap();
        settle_pending(dir, Some(g2 + 1), true).unwrap();
        assert!(!dir.join(PENDING_FILE).exists());
        assert_eq!(read_records_generation(dir).unwrap(), (new, g2));

        // The run's own rename after a reader rolled its records forward succeeds.
        let p = write_records_pending(dir, &old, g2 + 2, None).unwrap();
        settle_pending(dir, Some(g2 + 2), false).unwrap();
        p.commit().unwrap();
        assert_eq!(read_records_generation(dir).unwrap(), (old, g2 + 2));
    }
}
