//! The index run: walk, read, parse in parallel, write records and the search index.
//!
//! Incremental: a file whose size and mtime match the previous run is reused without
//! being read; one whose content hash matches is reused without being parsed; only
//! added and changed files are parsed, and only their documents (and deleted files')
//! are replaced in the search index.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::error::{Error, IoContext, Result};
use crate::extract::Extractor;
use crate::record::{Diagnostic, FileRecord, Lang};
use crate::search::{self, SymbolIndex};
use crate::store::{self, DataDir, IndexStats, LangStats, RepoMeta, FORMAT_VERSION};
use crate::walk::{self, SkipReason, WalkOptions};

/// How to index.
#[derive(Clone, Debug)]
pub struct IndexOptions {
    pub root: PathBuf,
    /// Name of the index; the root folder's name when `None`.
    pub name: Option<String>,
    pub walk: WalkOptions,
}

impl IndexOptions {
    pub fn new(root: impl Into<PathBuf>) -> IndexOptions {
        IndexOptions { root: root.into(), name: None, walk: WalkOptions::default() }
    }
}

/// Progress of a run, reported from worker threads.
pub trait Progress: Sync {
    /// The walk is done: this many files and bytes will be looked at.
    fn start(&self, _files: u64, _bytes: u64) {}
    /// One file is done.
    fn advance(&self, _bytes: u64) {}
}

/// A [`Progress`] that reports nothing.
pub struct NoProgress;
impl Progress for NoProgress {}

/// What a run did.
#[derive(Clone, Debug, Serialize)]
pub struct IndexReport {
    pub name: String,
    pub root: String,
    /// Totals of the index after the run.
    pub stats: IndexStats,
    /// Files parsed in this run (added or changed).
    pub parsed: u64,
    pub parsed_bytes: u64,
    /// Files reused from the previous run.
    pub unchanged: u64,
    pub added: u64,
    pub changed: u64,
    /// Of the changed, those whose bytes are the same: parsed again because their module or
    /// the import map changed (their references may resolve elsewhere though the content
    /// hash did not change).
    pub reread: u64,
    pub deleted: u64,
    /// Files of no indexed language.
    pub other_files: u64,
    pub diagnostics: Vec<Diagnostic>,
    pub seconds: f64,
    /// Why the previous index was discarded, if it was.
    pub rebuilt: Option<String>,
    /// The generation of the records on disk after the run (see [`crate::store`]); the
    /// call graph saved next to them is stamped with it.
    #[serde(skip)]
    pub generation: u64,
}

impl IndexReport {
    /// Parse throughput of this run, MB/s.
    pub fn mb_per_sec(&self) -> f64 {
        if self.seconds > 0.0 {
            self.parsed_bytes as f64 / 1e6 / self.seconds
        } else {
            0.0
        }
    }
}

enum Outcome {
    /// The previous record stands; `retimed`: with this new (mtime, size).
    Reused {
        retimed: Option<(u128, u64)>,
    },
    Parsed(FileRecord),
    Skipped(SkipReason, Option<Diagnostic>),
}

/// Indexes `opts.root` into `data`, incrementally when an index of it exists.
/// `cancel` is polled between files; a cancelled run leaves the previous index as it was.
pub fn index_repository(
    data: &DataDir,
    opts: &IndexOptions,
    progress: &dyn Progress,
    cancel: Option<&AtomicBool>,
) -> Result<IndexReport> {
    index_repository_records(data, opts, progress, cancel).map(|(report, _)| report)
}

/// [`index_repository`], also handing back every file's records (what the call graph
/// is built from), so they need not be read back from disk.
pub fn index_repository_records(
    data: &DataDir,
    opts: &IndexOptions,
    progress: &dyn Progress,
    cancel: Option<&AtomicBool>,
) -> Result<(IndexReport, Vec<FileRecord>)> {
    let started = Instant::now();
    let root = check_root(&opts.root)?;
    let root_str = root.to_string_lossy().into_owned();
    let name = match &opts.name {
        Some(n) => n.clone(),
        None => store::default_name(&root),
    };
    store::validate_name(&name)?;
    let dir = data.repo_dir(&name);
    std::fs::create_dir_all(&dir).at(&dir)?;
    // One run of a repository at a time; then a run killed before it put its records in
    // place is rolled forward (its search commit names them) or its records deleted.
    let _lock = store::RunLock::acquire(&dir, cancel)?;
    let committed = search::committed_generation_in(&dir.join("tantivy")).unwrap_or(None);
    store::settle_pending(&dir, committed, true)?;

    // The previous run, when it is of this format and of this root.
    let mut rebuilt = None;
    let mut created_at = store::now_secs();
    let mut old: HashMap<String, FileRecord> = HashMap::new();
    // The previous records.bin as read: its frames of files that did not change are copied.
    let mut previous = None;
    let mut old_import_map = String::new();
    let mut last_run = None;
    let meta = dir.join("meta.json").is_file().then(|| store::read_meta(&dir)).transpose()?;
    if let Some(meta) = &meta {
        old_import_map = meta.import_map.clone();
        if meta.root != root_str && !meta.root.is_empty() {
            return Err(Error::NameTaken { name, existing: meta.root.clone() });
        }
        if meta.format_version != FORMAT_VERSION {
            rebuilt = Some(format!("the index was format version {}, now {FORMAT_VERSION}", meta.format_version));
        } else {
            created_at = meta.created_at;
            last_run = Some(meta.indexed_at);
        }
    }
    // The tree is walked while the previous records are read (the walk waits on the file
    // system, the read on both cores).
    let (walked, modules, imports) = std::thread::scope(|scope| -> Result<_> {
        let walking = scope.spawn(|| {
            let walked = walk::walk(&root, &opts.walk);
            let modules = crate::modules::modules_of(&root, &walked.files);
            let imports = crate::imports::ImportMap::build(&root, &walked.files);
            if let Some(at) = last_run {
                warm_queries(&walked, at);
            }
            (walked, modules, imports)
        });
        if last_run.is_some() {
            match store::read_records_previous(&dir) {
                Ok((files, _, p)) => {
                    old = files.into_iter().map(|f| (f.path.clone(), f)).collect();
                    previous = p;
                }
                Err(e) => rebuilt = Some(format!("the previous records could not be read ({e})")),
            }
        }
        phase(started, "previous records read");
        walking.join().map_err(|panic| std::panic::resume_unwind(panic))
    })?;
    if rebuilt.is_some() {
        // Everything goes but the vectors: they have their own version and are keyed by
        // the text they embed, so a rebuild reuses them instead of re-embedding (minutes).
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                if e.file_name() == crate::vectors::VECTORS_FILE || e.file_name() == store::LOCK_FILE {
                    continue;
                }
                let p = e.path();
                let _ = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
            }
        }
    }
    std::fs::create_dir_all(&dir).at(&dir)?;
    // Another import map: JavaScript and TypeScript files read their imports again.
    let reparse_imports = imports.fingerprint() != old_import_map;
    phase(started, "walked");
    let total_bytes: u64 = walked.files.iter().map(|f| f.size).sum();
    progress.start(walked.files.len() as u64, total_bytes);

    // Search index: a full rebuild re-adds every file's symbols; otherwise only changed
    // files' documents are replaced, and deleted files' removed. Documents are added in
    // path order (deterministic ids and ranks) while the workers parse, so tantivy's
    // indexing thread overlaps parsing; the writer is opened only when there is
    // something to write.
    let full = old.is_empty() || !dir.join("tantivy").join("meta.json").is_file();
    let mut search = SearchSink { dir: dir.join("tantivy"), full, writer: None, error: None };
    if full {
        search.open()?;
    }
    let context = ParseContext { modules: &modules, imports: &imports, reparse_imports };
    let outcomes = parse_all(&walked.files, &context, &old, progress, cancel, &mut search)?;
    phase(started, "parsed");

    // Merge. Reused records move out of `old`; what remains there afterwards was changed or deleted.
    let mut files: Vec<FileRecord> = Vec::with_capacity(outcomes.len());
    // Per file of `files`: its record is the previous one, as it was.
    let mut as_read: Vec<bool> = Vec::with_capacity(outcomes.len());
    let mut changed_paths: Vec<String> = Vec::new();
    let mut skipped = walked.skipped.clone();
    let mut diagnostics = walked.diagnostics.clone();
    let (mut parsed, mut parsed_bytes, mut unchanged, mut added, mut changed, mut reread) = (0, 0, 0, 0, 0, 0);
    let mut touched = false;
    for (o, f) in outcomes.into_iter().zip(&walked.files) {
        match o {
            Outcome::Reused { retimed } => {
                unchanged += 1;
                let mut r = old.remove(&f.rel).expect("a reused file has a previous record");
                as_read.push(retimed.is_none());
                if let Some((mtime_ns, size)) = retimed {
                    r.mtime_ns = mtime_ns;
                    r.size = size;
                    touched = true;
                }
                files.push(r);
            }
            Outcome::Parsed(r) => {
                parsed += 1;
                parsed_bytes += r.size;
                if let Some(o) = old.get(&r.path) {
                    changed += 1;
                    reread += u64::from(o.hash == r.hash);
                } else {
                    added += 1;
                }
                changed_paths.push(r.path.clone());
                diagnostics.extend(r.diagnostics.iter().cloned());
                as_read.push(false);
                files.push(r);
            }
            Outcome::Skipped(reason, diag) => {
                *skipped.entry(reason).or_default() += 1;
                diagnostics.extend(diag);
            }
        }
    }
    let kept: std::collections::HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let mut deleted_paths: Vec<String> = old.keys().filter(|p| !kept.contains(p.as_str())).cloned().collect();
    deleted_paths.sort();
    drop(old);
    let changed_set: std::collections::HashSet<&str> = changed_paths.iter().map(String::as_str).collect();
    // A reused file may still carry diagnostics from the run that parsed it.
    for f in &files {
        if !changed_set.contains(f.path.as_str()) {
            diagnostics.extend(f.diagnostics.iter().cloned());
        }
    }
    diagnostics.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
    diagnostics.dedup();

    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Err(Error::Cancelled);
    }

    if !deleted_paths.is_empty() {
        let w = search.open()?;
        for p in &deleted_paths {
            w.delete_path(p);
        }
    }
    // Nothing changed at all: the records and the search index on disk are current.
    let records_path = dir.join(store::RECORDS_FILE);
    let dirty = full || touched || parsed > 0 || !deleted_paths.is_empty() || !records_path.is_file();
    // The records are written (to their temporary file, synced) while tantivy prepares its
    // commit; tantivy commits naming their generation, and then they are put in place. A
    // kill between the two is settled by whoever opens the index next (see `store`).
    let generation = if dirty {
        let generation = store::next_generation(&dir);
        let pending = std::thread::scope(|ts| -> Result<store::Pending> {
            let records = ts.spawn(|| {
                let previous = previous.as_ref().map(|p| (p, &as_read[..]));
                let r = store::write_records_pending(&dir, &files, generation, previous);
                phase(started, "records written");
                r
            });
            let records = || {
                records.join().map_err(|_| Error::Corrupt {
                    path: records_path.clone(),
                    reason: "writing the records panicked".into(),
                })?
            };
            let committed = search.commit(generation, records);
            phase(started, "search index committed");
            committed
        })?;
        pending.commit()?;
        generation
    } else {
        store::records_generation(&records_path)?
    };

    let mut stats = IndexStats { skipped, diagnostics: diagnostics.len() as u64, ..Default::default() };
    let mut languages: BTreeMap<Lang, LangStats> = BTreeMap::new();
    for f in &files {
        let l = languages.entry(f.lang).or_default();
        l.files += 1;
        l.bytes += f.size;
        l.symbols += f.symbols.len() as u64;
        l.references += f.references.len() as u64;
    }
    for l in languages.values() {
        stats.files += l.files;
        stats.bytes += l.bytes;
        stats.symbols += l.symbols;
        stats.references += l.references;
    }
    stats.languages = languages;
    stats.index_bytes = store::index_bytes(&dir);
    let meta = RepoMeta {
        format_version: FORMAT_VERSION,
        name: name.clone(),
        root: root_str.clone(),
        created_at,
        indexed_at: store::now_secs(),
        stats: stats.clone(),
        import_map: imports.fingerprint().to_string(),
    };
    store::write_meta(&dir, &meta)?;
    phase(started, "done");

    let report = IndexReport {
        name,
        root: root_str,
        stats,
        parsed,
        parsed_bytes,
        unchanged,
        added,
        changed,
        reread,
        deleted: deleted_paths.len() as u64,
        other_files: walked.other_files,
        diagnostics,
        seconds: started.elapsed().as_secs_f64(),
        rebuilt,
        generation,
    };
    Ok((report, files))
}

/// Logs (at debug level: `CC_LOG=cc_indexer=debug`) that a phase of the run ended: the
/// seconds since `started` and the CPU seconds the process has used (all threads).
/// Compiles the tags queries of the languages of the files modified since `last_run` (its
/// end, in seconds since the epoch), for the parse to find them compiled: an update's edited
/// files are likely among them (Java's query takes 0.04 s, C++'s 0.8 s). A guess: a file it
/// misses has its query compiled when parsed, as always.
fn warm_queries(walked: &walk::Walk, last_run: u64) {
    let since = u128::from(last_run.saturating_sub(2)) * 1_000_000_000;
    let mut langs: Vec<Lang> = walked.files.iter().filter(|f| f.mtime_ns >= since).map(|f| f.lang).collect();
    langs.sort_unstable();
    langs.dedup();
    // A checkout or a generator that touched most of the tree: parsing compiles them on
    // every core soon enough.
    if langs.len() <= 2 {
        for l in langs {
            let _ = l.try_tags_query();
        }
    }
}

fn phase(started: Instant, what: &str) {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return;
    }
    let mut cpu = f64::NAN;
    #[cfg(unix)]
    {
        let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage writes a rusage into the pointer it is given, which points to
        // one; the struct is read only when the call succeeded.
        #[allow(unsafe_code)]
        unsafe {
            if libc::getrusage(libc::RUSAGE_SELF, u.as_mut_ptr()) == 0 {
                let u = u.assume_init();
                let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
                cpu = secs(u.ru_utime) + secs(u.ru_stime);
            }
        }
    }
    tracing::debug!(secs = started.elapsed().as_secs_f64(), cpu_secs = cpu, "{what}");
}

/// The search index writer of one run, opened on first use.
struct SearchSink {
    dir: PathBuf,
    full: bool,
    writer: Option<search::Writer>,
    /// The first error while adding documents; the run fails with it.
    error: Option<Error>,
}

impl SearchSink {
    fn open(&mut self) -> Result<&mut search::Writer> {
        if self.writer.is_none() {
            let (index, fields) = search::open_or_create(&self.dir)?;
            let mut w = search::Writer::new(&index, fields, &self.dir)?;
            if self.full {
                w.delete_all()?;
            }
            self.writer = Some(w);
        }
        Ok(self.writer.as_mut().expect("opened"))
    }

    /// A file's outcome, in path order: its documents replace the file's previous ones
    /// (every file's documents are added on a full rebuild).
    fn feed(&mut self, outcome: &Outcome, f: &walk::WalkedFile, old: &HashMap<String, FileRecord>) {
        if self.error.is_some() {
            return;
        }
        let record = match outcome {
            Outcome::Parsed(r) => r,
            Outcome::Reused { .. } if self.full => &old[&f.rel],
            _ => return,
        };
        let full = self.full;
        let result = self.open().and_then(|w| w.add_file(record, !full));
        if let Err(e) = result {
            self.error = Some(e);
        }
    }

    /// Commits the documents fed (if any) with the records `records` waits for, tagged
    /// with their `generation` ([`search::Writer::commit`]). On a failure nothing is
    /// committed, and the files the failed commit wrote are deleted (a full disk stays
    /// no fuller than before the run).
    fn commit<T>(&mut self, generation: u64, records: impl FnOnce() -> Result<T>) -> Result<T> {
        let result = match (self.error.take(), self.writer.take()) {
            (Some(e), writer) => {
                drop(writer);
                drop(records());
                Err(e)
            }
            (None, Some(w)) => w.commit(generation, records),
            (None, None) => return records(),
        };
        if result.is_err() {
            search::collect_garbage(&self.dir);
        }
        result
    }
}

/// Reads, hashes and parses `files` in parallel (one [`Extractor`] per worker), handing
/// each outcome to `search` in path order as soon as it and every file before it are done.
/// Workers take files in path order from a shared counter, so outcomes arrive nearly in
/// order and the search index is fed while parsing goes on. The worker that finishes a
/// file feeds whatever is ready in order (whoever holds the feeder's lock; the others go
/// on parsing): no thread waits for outcomes, so parsing is not interrupted by a wake-up
/// per file (a channel to a feeding thread cost spring-framework 16k context switches).
fn parse_all(
    files: &[walk::WalkedFile],
    context: &ParseContext,
    old: &HashMap<String, FileRecord>,
    progress: &dyn Progress,
    cancel: Option<&AtomicBool>,
    search: &mut SearchSink,
) -> Result<Vec<Outcome>> {
    let modules = context.modules;
    let prev = |f: &walk::WalkedFile| {
        old.get(&f.rel).filter(|p| p.lang == f.lang && !(context.reparse_imports && crate::imports::applies_to(p.lang)))
    };
    let is_cancelled = || cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    if rayon::current_thread_index().is_some() {
        // Called from inside a rayon pool: blocking this worker on a channel could
        // starve the pool, so parse first and feed afterwards.
        let outcomes = files
            .par_iter()
            .zip(modules)
            .map_init(Worker::new, |w, (f, m)| {
                if is_cancelled() {
                    return None;
                }
                let out = process(w, f, m, context.imports, prev(f));
                progress.advance(f.size);
                Some(out)
            })
            .collect::<Option<Vec<_>>>()
            .ok_or(Error::Cancelled)?;
        for (o, f) in outcomes.iter().zip(files) {
            search.feed(o, f, old);
        }
        return Ok(outcomes);
    }
    let n = files.len();
    let next = AtomicUsize::new(0);
    let workers = rayon::current_num_threads().clamp(1, n.max(1));
    let slots: Vec<OnceLock<Outcome>> = std::iter::repeat_with(OnceLock::new).take(n).collect();
    let feeder = InOrder { slots: &slots, files, old, sink: Mutex::new((0, search)) };
    rayon::scope(|s| {
        for _ in 0..workers {
            s.spawn(|_| {
                let mut w = Worker::new();
                while !is_cancelled() {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(f) = files.get(i) else { break };
                    let _ = slots[i].set(process(&mut w, f, &modules[i], context.imports, prev(f)));
                    progress.advance(f.size);
                    feeder.feed_ready();
                }
            });
        }
    });
    // Every worker is done: what a worker left (it found the lock taken) is fed here.
    feeder.feed_ready();
    slots.into_iter().map(OnceLock::into_inner).collect::<Option<Vec<_>>>().ok_or(Error::Cancelled)
}

/// Outcomes fed to the search index in path order, by whichever worker gets there.
struct InOrder<'a, 's> {
    slots: &'a [OnceLock<Outcome>],
    files: &'a [walk::WalkedFile],
    old: &'a HashMap<String, FileRecord>,
    /// How many outcomes were fed, and where to.
    sink: Mutex<(usize, &'s mut SearchSink)>,
}

impl InOrder<'_, '_> {
    /// Feeds every outcome that is ready and in order, unless another worker is at it.
    fn feed_ready(&self) {
        loop {
            let Ok(mut guard) = self.sink.try_lock() else { return };
            let (emitted, sink) = &mut *guard;
            while let Some(o) = self.slots.get(*emitted).and_then(OnceLock::get) {
                sink.feed(o, &self.files[*emitted], self.old);
                *emitted += 1;
            }
            let next = *emitted;
            drop(guard);
            // An outcome that arrived while the lock was held had its worker turned away:
            // look once more, so that it does not wait for the next file to finish.
            if self.slots.get(next).is_none_or(|s| s.get().is_none()) {
                return;
            }
        }
    }
}

fn check_root(root: &Path) -> Result<PathBuf> {
    let meta = match std::fs::metadata(root) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Error::RootMissing(root.to_path_buf())),
        Err(e) => return Err(Error::RootUnreadable { path: root.to_path_buf(), source: e }),
    };
    if !meta.is_dir() {
        return Err(Error::RootNotDir(root.to_path_buf()));
    }
    std::fs::read_dir(root).map_err(|e| Error::RootUnreadable { path: root.to_path_buf(), source: e })?;
    std::fs::canonicalize(root).map_err(|e| Error::RootUnreadable { path: root.to_path_buf(), source: e })
}

/// One worker's state: its parser and query cursor, and the buffer files are read into
/// (reused, so reading a file allocates nothing).
struct Worker {
    ex: Extractor,
    buf: Vec<u8>,
}

impl Worker {
    fn new() -> Worker {
        Worker { ex: Extractor::new(), buf: Vec::new() }
    }
}

fn read_into(path: &Path, buf: &mut Vec<u8>) -> std::io::Result<()> {
    use std::io::Read;
    buf.clear();
    let mut file = std::fs::File::open(path)?;
    if let Ok(m) = file.metadata() {
        buf.reserve(m.len() as usize);
    }
    file.read_to_end(buf)?;
    Ok(())
}

/// What parsing a file needs besides its bytes: every walked file's module (in walk order)
/// and the import map, and whether the import map changed since the last run.
struct ParseContext<'a> {
    modules: &'a [String],
    imports: &'a crate::imports::ImportMap,
    reparse_imports: bool,
}

fn process(
    w: &mut Worker,
    f: &walk::WalkedFile,
    module: &str,
    imports: &crate::imports::ImportMap,
    prev: Option<&FileRecord>,
) -> Outcome {
    // A file whose module changed (its crate renamed, a pyproject.toml added) has other
    // qualified names: parsed again even when its bytes are the same.
    let prev = prev.filter(|p| p.module == module);
    if let Some(p) = prev {
        if p.size == f.size && p.mtime_ns == f.mtime_ns && f.mtime_ns != 0 {
            return Outcome::Reused { retimed: None };
        }
    }
    let Worker { ex, buf } = w;
    let bytes: &[u8] = match read_into(&f.abs, buf) {
        Ok(()) => buf,
        Err(e) => {
            let d = Diagnostic { path: f.rel.clone(), line: None, message: format!("cannot read: {e}") };
            return Outcome::Skipped(SkipReason::Unreadable, Some(d));
        }
    };
    let hash = *blake3::hash(bytes).as_bytes();
    if let Some(p) = prev {
        if p.hash == hash {
            let retimed =
                (p.mtime_ns != f.mtime_ns || p.size != bytes.len() as u64).then_some((f.mtime_ns, bytes.len() as u64));
            return Outcome::Reused { retimed };
        }
    }
    if let Some(reason) = walk::classify_content(&f.rel, bytes) {
        return Outcome::Skipped(reason, None);
    }
    let mut out = ex.extract_in(f.lang, &f.rel, module, bytes);
    imports.apply(f.lang, &f.rel, &mut out.references);
    if std::str::from_utf8(bytes).is_err() {
        out.diagnostics.push(Diagnostic {
            path: f.rel.clone(),
            line: None,
            message: "not valid UTF-8; names and text were decoded lossily".into(),
        });
    }
    Outcome::Parsed(FileRecord {
        path: f.rel.clone(),
        lang: f.lang,
        hash,
        size: bytes.len() as u64,
        mtime_ns: f.mtime_ns,
        module: module.to_string(),
        symbols: out.symbols,
        references: out.references.into(),
        diagnostics: out.diagnostics,
    })
}

/// An indexed repository, opened for reading.
pub struct Repo {
    pub meta: RepoMeta,
    pub dir: PathBuf,
    pub symbols: SymbolIndex,
}

impl Repo {
    /// Opens `name`; refuses an index of another format version.
    pub fn open(data: &DataDir, name: &str) -> Result<Repo> {
        let meta = data.meta(name)?;
        let dir = data.repo_dir(name);
        let symbols = SymbolIndex::open(&dir)?;
        Ok(Repo { meta, dir, symbols })
    }

    /// Every file's records (symbols, references), sorted by path.
    pub fn records(&self) -> Result<Vec<FileRecord>> {
        store::read_records(&self.dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Workers finish files out of order (here a big file every seventh); the search index
    /// must still get every file's documents in path order, which is what makes ids of
    /// documents and the order of tied hits the same from run to run.
    #[test]
    fn documents_reach_the_search_index_in_path_order() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        std::fs::create_dir_all(&root).unwrap();
        for i in 0..240 {
            let defs = if i % 7 == 0 { 400 } else { 1 };
            let text: String = (0..defs).map(|d| format!("def f{i}_{d}(x):\n    return g(x)\n\n")).collect();
            std::fs::write(root.join(format!("m{i:03}.py")), text).unwrap();
        }
        let walked = walk::walk(&root, &WalkOptions::default());
        assert_eq!(walked.files.len(), 240);
        let dir = tmp.path().join("tantivy");
        let mut sink = SearchSink { dir: dir.clone(), full: true, writer: None, error: None };
        let modules = crate::modules::modules_of(&root, &walked.files);
        let imports = crate::imports::ImportMap::default();
        let context = ParseContext { modules: &modules, imports: &imports, reparse_imports: false };
        let outcomes = parse_all(&walked.files, &context, &HashMap::new(), &NoProgress, None, &mut sink).unwrap();
        assert!(outcomes.iter().all(|o| matches!(o, Outcome::Parsed(_))));
        sink.commit(1, || Ok(())).unwrap();

        // One document per function, in doc-id order: 35 files of 400, 205 of one.
        let mut fed = SymbolIndex::open(tmp.path()).unwrap().paths_in_doc_order().unwrap();
        assert_eq!(fed.len(), 35 * 400 + 205);
        fed.dedup();
        let walked: Vec<&str> = walked.files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(fed, walked, "files' documents must be added in path order, each file's together");
    }
}
