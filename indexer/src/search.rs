//! The tantivy symbol index: schema, writing, BM25 search and exact lookup.
//!
//! Ranking is BM25F-style over one field, `text`: each part of a symbol (name, qualified
//! name, signature, doc, body window, the names it calls) is written into it as many times
//! as its weight ([`WEIGHTS`]), so the weights scale term frequencies before saturation and
//! one length normalisation covers the whole (FORMAT_VERSION 12). Until then each field was
//! scored on its own and the scores summed with boosts: a function named after a common
//! word of a prose query outranked everything that only described it (keyword MRR@10 on
//! the tokio + sqlalchemy set 0.305, now 0.494; docs/performance.md). Identifier queries
//! keep their first place through two more clauses: every query word in the qualified name
//! (`Session flush`), and the exact name typed. `qualified` (code tokens) also serves
//! lookups; `kind`, `lang` and `path` filter. A path prefix is the file itself or the range of
//! paths under the folder (`p/` up to `p0`, `0` being the byte after `/`), answered from
//! `path`'s fast column. Until format 4 every symbol also carried one term per ancestor
//! folder: on spring-framework (deep Java paths, ~10 levels) dropping them saved 3-4% of
//! the index phase (7.00 -> 6.75 s, 0.4 CPU-seconds; four interleaved runs each).
//!
//! Exact lookups do without a term per symbol: every distinct term costs the segment
//! finalize a trip through the FST builder, and a unique term per symbol (its id, its
//! exact name, its qualified name) made that a third of tantivy's work. Instead:
//! - a name is found through `name_lower` (one term per distinct name, which the search
//!   boost needs anyway) and told apart by case with the `name_hash` fast field;
//! - a qualified name through the AND of its code tokens in `qualified`, narrowed by
//!   the `qualified_hash` fast field;
//! - an id through a sorted (id, address) table built from the `id` fast field the first
//!   time a searcher generation is asked for one.
//!
//! Measured on sqlalchemy (five interleaved runs): the index phase 3.65 -> 3.25 s, the
//! serial commit tail 0.54 -> 0.31 s, 0.5 CPU-seconds less.
//!
//! The index stores no documents: a hit's symbol is read from `records.bin`
//! ([`RecordsReader`]), found by the hit's `path` and `id` fast fields. Until format 7
//! tantivy also stored every symbol: that copy was a third of the search index on disk
//! (spring-framework: 8.9 of 26 MB), and without it the index phase takes 0.971 of the
//! time (spring-framework, 10 interleaved rounds, faster in all 10). Reading a hit from
//! records.bin costs what reading it from tantivy's store did (`cc-server bench` on
//! sqlalchemy, keyword p50 0.67-0.69 ms against 0.69-0.72 ms).

use std::collections::HashSet;
use std::ops::Bound;
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};

use serde::Serialize;
use tantivy::collector::{FilterCollector, TopDocs};
use tantivy::indexer::UserOperation;
use tantivy::query::{AllQuery, BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, STRING};
use tantivy::{DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, Score, Searcher, TantivyDocument, Term};

use crate::error::{Error, Result};
use crate::record::{FileRecord, Lang, RefKind, Span, Symbol, SymbolId, SymbolKind};
use crate::store::RecordsReader;
use crate::tokenize::{query_terms, CodeTokenizer, CODE_TOKENIZER};

/// How many times each part of a symbol is written into `text`: BM25F's field weights,
/// applied to the term frequencies before saturation, with one length normalisation over
/// the weighted whole. Chosen on the relevance sets (docs/performance.md, "Search
/// relevance"): name 6, qualified name 2, signature 1, doc 2, body 2, callees 1.
const WEIGHTS: Weights = Weights { name: 6, qualified: 2, signature: 1, doc: 2, body: 2, callees: 1 };
/// Boost of the clause "every word of the query is in the qualified name" (the query
/// names the symbol: `Session flush`, `broadcast channel`).
const BOOST_NAMED: Score = 3.0;
/// Boost of the exact identifier as typed (a one-word query).
const BOOST_EXACT: Score = 8.0;

struct Weights {
    name: usize,
    qualified: usize,
    signature: usize,
    doc: usize,
    body: usize,
    callees: usize,
}

#[derive(Clone, Copy)]
pub(crate) struct Fields {
    id: Field,
    name_lower: Field,
    name_hash: Field,
    qualified: Field,
    qualified_hash: Field,
    text: Field,
    kind: Field,
    lang: Field,
    path: Field,
}

/// Fast-field names (the filter collector and the id table look columns up by name).
const ID: &str = "id";
const NAME_HASH: &str = "name_hash";
const QUALIFIED_HASH: &str = "qualified_hash";
const PATH: &str = "path";

/// The 64-bit hash of an exact name or qualified name (blake3, so stable across
/// builds: it is persisted in the index).
fn text_hash(s: &str) -> u64 {
    let h = blake3::hash(s.as_bytes());
    u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"))
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let code = || {
        let idx =
            TextFieldIndexing::default().set_tokenizer(CODE_TOKENIZER).set_index_option(IndexRecordOption::WithFreqs);
        TextOptions::default().set_indexing_options(idx)
    };
    let exact = || {
        let idx = TextFieldIndexing::default().set_tokenizer("raw").set_index_option(IndexRecordOption::WithFreqs);
        TextOptions::default().set_indexing_options(idx)
    };
    // Nothing is stored: symbols are read from records.bin.
    let fields = Fields {
        id: b.add_u64_field(ID, FAST),
        // Indexed with frequencies (always 1) like the word fields, so that a query's
        // clauses are all term scorers that read frequencies: block-max WAND then ranks them.
        name_lower: b.add_text_field("name_lower", exact()),
        name_hash: b.add_u64_field(NAME_HASH, FAST),
        qualified: b.add_text_field("qualified", code()),
        qualified_hash: b.add_u64_field(QUALIFIED_HASH, FAST),
        text: b.add_text_field("text", code()),
        kind: b.add_text_field("kind", STRING),
        lang: b.add_text_field("lang", STRING),
        path: b.add_text_field(PATH, STRING | FAST),
    };
    (b.build(), fields)
}

fn register(index: &Index) {
    index.tokenizers().register(CODE_TOKENIZER, CodeTokenizer::default());
}

/// A commit's payload: the generation of the records it goes with (see [`crate::store`]).
fn payload(generation: u64) -> String {
    format!("records {generation}")
}

/// The records generation the last commit of `index` names (`None`: no commit names one).
pub(crate) fn committed_generation(index: &Index) -> Result<Option<u64>> {
    let metas = index.load_metas()?;
    Ok(metas.payload.as_deref().and_then(|p| p.strip_prefix("records ")).and_then(|g| g.parse().ok()))
}

/// [`committed_generation`] of the index in `dir`, if there is one.
pub(crate) fn committed_generation_in(dir: &Path) -> Result<Option<u64>> {
    if !dir.join("meta.json").is_file() {
        return Ok(None);
    }
    committed_generation(&open_or_create(dir)?.0)
}

/// A tantivy error while writing the index in `dir`: an I/O error (a full disk) names the
/// folder, or the file when tantivy says which.
fn write_error(dir: &Path, e: tantivy::TantivyError) -> Error {
    use tantivy::directory::error::OpenWriteError;
    let io = |e: &std::io::Error| std::io::Error::new(e.kind(), e.to_string());
    match &e {
        tantivy::TantivyError::IoError(source) => Error::Io { path: dir.to_path_buf(), error: io(source) },
        tantivy::TantivyError::OpenWriteError(OpenWriteError::IoError { io_error, filepath }) => {
            Error::Io { path: dir.join(filepath), error: io(io_error) }
        }
        // Serializers report I/O errors as text (`InternalError`): a full disk is still one.
        _ => {
            let text = e.to_string();
            let full = [rustix::io::Errno::NOSPC, rustix::io::Errno::DQUOT]
                .into_iter()
                .map(std::io::Error::from)
                .find(|io| text.contains(&io.to_string()));
            match full.or_else(|| killed_by_a_full_disk(&e, dir)) {
                Some(error) => Error::Io { path: dir.to_path_buf(), error },
                None => Error::Tantivy(e),
            }
        }
    }
}

/// An indexing thread's I/O error reaches the caller as "an index writer was killed", its
/// cause left in tantivy's log; when the folder's file system has less room left than a
/// segment can take (the writer's memory budget), that cause was a full disk.
fn killed_by_a_full_disk(e: &tantivy::TantivyError, dir: &Path) -> Option<std::io::Error> {
    if !matches!(e, tantivy::TantivyError::ErrorInThread(_)) {
        return None;
    }
    let fs = rustix::fs::statvfs(dir).ok()?;
    let free = fs.f_bavail.saturating_mul(fs.f_frsize);
    (free < WRITER_MEMORY as u64).then(|| std::io::Error::from(rustix::io::Errno::NOSPC))
}

/// Deletes the files of `dir`'s index that no commit uses (a failed run's segments), with
/// a writer of its own. Best effort: the next commit collects them too.
pub(crate) fn collect_garbage(dir: &Path) {
    let collected = open_or_create(dir).and_then(|(index, _)| {
        let writer: IndexWriter = index.writer_with_num_threads(1, 15 << 20)?;
        writer.garbage_collect_files().wait()?;
        Ok(())
    });
    if let Err(e) = collected {
        tracing::debug!("collecting the search index's unused files: {e}");
    }
}

/// Opens the index in `dir`, creating it when absent.
pub(crate) fn open_or_create(dir: &Path) -> Result<(Index, Fields)> {
    let (schema, fields) = schema();
    std::fs::create_dir_all(dir).map_err(|e| Error::Io { path: dir.to_path_buf(), error: e })?;
    let mmap = tantivy::directory::MmapDirectory::open(dir)
        .map_err(|e| Error::Corrupt { path: dir.to_path_buf(), reason: e.to_string() })?;
    let index = Index::builder().schema(schema).open_or_create(mmap)?;
    register(&index);
    Ok((index, fields))
}

/// The index writer's memory budget: a segment it flushes is at most about this big.
const WRITER_MEMORY: usize = 64 << 20;

/// Writes symbols: deletes every document of the given paths, adds the new symbols.
pub(crate) struct Writer {
    writer: IndexWriter,
    fields: Fields,
    /// The index folder (errors name it).
    dir: std::path::PathBuf,
}

impl Writer {
    pub(crate) fn new(index: &Index, fields: Fields, dir: &Path) -> Result<Writer> {
        // One thread: documents land in a deterministic order, and symbol documents are
        // small next to parsing, which is where the cores go.
        let writer = index.writer_with_num_threads(1, WRITER_MEMORY)?;
        Ok(Writer { writer, fields, dir: dir.to_path_buf() })
    }

    pub(crate) fn delete_all(&mut self) -> Result<()> {
        self.writer.delete_all_documents()?;
        Ok(())
    }

    pub(crate) fn delete_path(&mut self, path: &str) {
        self.writer.delete_term(self.path_term(path));
    }

    /// The term of every document of the file `path` (what a re-index deletes).
    fn path_term(&self, path: &str) -> Term {
        Term::from_field_text(self.fields.path, path)
    }

    /// One file's symbols as one batch of operations (after deleting the file's previous
    /// documents when `replace`): tantivy's indexing thread takes a file per channel
    /// message instead of a symbol per message (spring-framework: 9.6k wake-ups instead
    /// of 131k).
    pub(crate) fn add_file(&mut self, record: &FileRecord, replace: bool) -> Result<()> {
        let symbols = &record.symbols;
        let mut ops = Vec::with_capacity(symbols.len() + usize::from(replace));
        if replace {
            ops.push(UserOperation::Delete(self.path_term(&record.path)));
        }
        let callees = callees(record);
        ops.extend(symbols.iter().map(|s| UserOperation::Add(self.document(s, callees.get(&s.id).map_or("", |c| c)))));
        self.writer.run(ops).map_err(|e| write_error(&self.dir, e))?;
        Ok(())
    }

    fn document(&self, s: &Symbol, callees: &str) -> TantivyDocument {
        let f = &self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_u64(f.id, s.id.0);
        doc.add_text(f.name_lower, s.name.to_lowercase());
        doc.add_u64(f.name_hash, text_hash(&s.name));
        doc.add_text(f.qualified, &s.qualified_name);
        doc.add_u64(f.qualified_hash, text_hash(&s.qualified_name));
        let w = &WEIGHTS;
        let doc_text = s.doc.as_deref().unwrap_or("");
        let parts = [
            (s.name.as_str(), w.name),
            (s.qualified_name.as_str(), w.qualified),
            (s.signature.as_str(), w.signature),
            (doc_text, w.doc),
            (s.body.as_str(), w.body),
            (callees, w.callees),
        ];
        let mut text = String::with_capacity(parts.iter().map(|(p, n)| (p.len() + 1) * n).sum());
        for (part, n) in parts {
            for _ in 0..n {
                text.push_str(part);
                text.push('\n');
            }
        }
        doc.add_text(f.text, &text);
        doc.add_text(f.kind, s.kind.as_str());
        doc.add_text(f.lang, s.lang.name());
        doc.add_text(f.path, &s.path);
        doc
    }

    /// Commits what was written, tagged with the records `generation` (see
    /// [`crate::store`]): tantivy prepares its commit (the segments are finalized) while
    /// the records are written (`records` waits for them), and the commit, which makes the
    /// new documents the index's, happens only once they are whole. When `records` fails,
    /// nothing is committed. Returns `records`' value.
    pub(crate) fn commit<T>(mut self, generation: u64, records: impl FnOnce() -> Result<T>) -> Result<T> {
        let dir = self.dir.clone();
        let index = self.writer.index().clone();
        let started = std::time::Instant::now();
        let mut prepared = match self.writer.prepare_commit() {
            Ok(p) => p,
            Err(e) => {
                // Still wait for the records (and so drop them).
                drop(records());
                return Err(write_error(&dir, e));
            }
        };
        let prepared_secs = started.elapsed().as_secs_f64();
        let value = match records() {
            Ok(v) => v,
            Err(e) => {
                let _ = prepared.abort();
                return Err(e);
            }
        };
        let waited_secs = started.elapsed().as_secs_f64() - prepared_secs;
        prepared.set_payload(&payload(generation));
        let committed = prepared.commit().map(drop);
        let merged = self.writer.wait_merging_threads();
        tracing::debug!(
            prepared_secs,
            waited_for_records_secs = waited_secs,
            committed_secs = started.elapsed().as_secs_f64() - prepared_secs - waited_secs,
            "search index commit"
        );
        match committed.and(merged) {
            Ok(()) => Ok(value),
            // An error after the commit was written (syncing, collecting, merging) leaves
            // it committed: the records go with it.
            Err(e) if committed_generation(&index).ok().flatten() == Some(generation) => {
                tracing::warn!("the search index committed, then failed: {e}");
                Ok(value)
            }
            Err(e) => Err(write_error(&dir, e)),
        }
    }
}

/// Paths equal to `p` or under the folder `p`: the term `p`, or the range `p/` up to
/// (excluding) `p0` in `path`'s fast column (`0` is the byte after `/`, so `p-x/` and
/// `p.rs`, which sort between `p` and `p/`, stay out).
fn path_prefix_query(path: Field, p: &str) -> Box<dyn Query> {
    let term = |s: String| Term::from_field_text(path, &s);
    let file: Box<dyn Query> = Box::new(TermQuery::new(term(p.to_string()), IndexRecordOption::Basic));
    let under: Box<dyn Query> =
        Box::new(RangeQuery::new(Bound::Included(term(format!("{p}/"))), Bound::Excluded(term(format!("{p}0")))));
    Box::new(BooleanQuery::new(vec![(Occur::Should, file), (Occur::Should, under)]))
}

/// A symbol as the search index returns it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SymbolDoc {
    pub id: SymbolId,
    pub name: String,
    pub kind: SymbolKind,
    pub qualified_name: String,
    pub lang: Lang,
    pub path: String,
    pub span: Span,
    pub signature: String,
    pub doc: Option<String>,
}

impl From<Symbol> for SymbolDoc {
    fn from(s: Symbol) -> SymbolDoc {
        SymbolDoc {
            id: s.id,
            name: s.name,
            kind: s.kind,
            qualified_name: s.qualified_name,
            lang: s.lang,
            path: s.path,
            span: s.span,
            signature: s.signature,
            doc: s.doc,
        }
    }
}

/// One search result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchHit {
    /// 1-based rank in this result list.
    pub rank: usize,
    pub score: f32,
    pub symbol: SymbolDoc,
}

/// One hit of [`SymbolIndex::search_ranked`].
#[derive(Clone, Copy, Debug)]
pub struct Ranked {
    /// 1-based rank in this result list.
    pub rank: usize,
    pub score: f32,
    pub id: SymbolId,
    addr: DocAddress,
}

/// A BM25 ranking and the searcher that made it (its doc addresses are valid in it).
pub struct RankedHits {
    searcher: tantivy::Searcher,
    pub hits: Vec<Ranked>,
}

impl RankedHits {
    /// The symbol of one hit.
    pub fn load(&self, index: &SymbolIndex, hit: &Ranked) -> Result<SymbolDoc> {
        index.load(&self.searcher, hit.addr)
    }
}

/// A BM25 query with its filters.
#[derive(Clone, Debug, Default)]
pub struct SearchQuery {
    pub text: String,
    pub kinds: Vec<SymbolKind>,
    pub langs: Vec<Lang>,
    /// A path or folder prefix, repository-relative (`src/net`, `src/net/`).
    pub path_prefix: Option<String>,
    pub limit: usize,
}

/// The read side of a repository's symbol index.
pub struct SymbolIndex {
    /// The repository's index folder (`tantivy/` and `records.bin` are in it).
    dir: std::path::PathBuf,
    reader: IndexReader,
    fields: Fields,
    /// Where each id's document is, for the searcher generation it was built from.
    ids: Mutex<Option<Arc<IdTable>>>,
    /// Where hits' symbols are read from.
    records: RwLock<Arc<RecordsReader>>,
    /// The `id` and `path` columns of each segment, for the searcher generation they were
    /// opened in (opening a text column reads its dictionary's index: once, not per hit).
    columns: Mutex<Option<Arc<Columns>>>,
}

/// Each segment's `id` and `path` fast columns, by segment ordinal.
struct Columns {
    generation: u64,
    segments: Vec<(tantivy::columnar::Column<u64>, tantivy::columnar::StrColumn)>,
}

/// Every live document's (id, address), sorted by id, and the searcher the addresses
/// belong to.
struct IdTable {
    searcher: Searcher,
    sorted: Vec<(u64, DocAddress)>,
}

impl IdTable {
    fn build(searcher: Searcher) -> Result<IdTable> {
        let mut sorted = Vec::with_capacity(searcher.num_docs() as usize);
        for (ord, seg) in searcher.segment_readers().iter().enumerate() {
            let ids = seg.fast_fields().u64(ID)?;
            let alive = seg.alive_bitset();
            for doc in 0..seg.max_doc() {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    if let Some(id) = ids.first(doc) {
                        sorted.push((id, DocAddress::new(ord as u32, doc)));
                    }
                }
            }
        }
        sorted.sort_unstable();
        Ok(IdTable { searcher, sorted })
    }
}

impl SymbolIndex {
    /// Opens the search index of the repository index folder `dir` (`dir/tantivy`, whose
    /// hits are read from `dir/records.bin`).
    pub(crate) fn open(dir: &Path) -> Result<SymbolIndex> {
        let tantivy = dir.join("tantivy");
        if !tantivy.join("meta.json").is_file() {
            return Err(Error::Corrupt { path: tantivy, reason: "no search index".into() });
        }
        let (index, fields) = open_or_create(&tantivy)?;
        // Records an index run wrote and committed but did not put in place (it was
        // killed): put them in place before reading either.
        crate::store::settle_pending(dir, committed_generation(&index)?, false)?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        let records = RwLock::new(Arc::new(RecordsReader::open(dir)?));
        Ok(SymbolIndex {
            dir: dir.to_path_buf(),
            reader,
            fields,
            ids: Mutex::new(None),
            records,
            columns: Mutex::new(None),
        })
    }

    /// Picks up a newer commit (after a re-index in another process).
    pub fn reload(&self) -> Result<()> {
        self.reader.reload()?;
        self.reopen_records()?;
        Ok(())
    }

    fn reopen_records(&self) -> Result<Arc<RecordsReader>> {
        let committed = committed_generation(self.reader.searcher().index())?;
        crate::store::settle_pending(&self.dir, committed, false)?;
        let fresh = Arc::new(RecordsReader::open(&self.dir)?);
        *self.records.write().unwrap_or_else(|p| p.into_inner()) = fresh.clone();
        Ok(fresh)
    }

    /// The BM25 ranking of a query: ids, scores and where each hit's document is, without
    /// reading its symbol (hybrid search fuses 50 of these and shows ten). Ties are ordered
    /// by symbol id, so the same index answers the same query identically.
    pub fn search_ranked(&self, q: &SearchQuery) -> Result<RankedHits> {
        let f = self.fields;
        let terms = query_terms(&q.text);
        if terms.is_empty() || q.limit == 0 {
            return Ok(RankedHits { searcher: self.reader.searcher(), hits: Vec::new() });
        }
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in &terms {
            let tq = TermQuery::new(Term::from_field_text(f.text, t), IndexRecordOption::WithFreqs);
            should.push((Occur::Should, Box::new(tq)));
        }
        // Every word of the query in the qualified name: the query names the symbol.
        let named: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|t| {
                let q = TermQuery::new(Term::from_field_text(f.qualified, t), IndexRecordOption::WithFreqs);
                (Occur::Must, Box::new(q) as Box<dyn Query>)
            })
            .collect();
        should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(BooleanQuery::new(named)), BOOST_NAMED))));
        // The exact identifier as typed outranks sub-word matches.
        let raw = q.text.trim();
        if !raw.is_empty() && !raw.contains(char::is_whitespace) {
            let exact =
                TermQuery::new(Term::from_field_text(f.name_lower, &raw.to_lowercase()), IndexRecordOption::WithFreqs);
            should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(exact), BOOST_EXACT))));
        }
        let mut filters = Vec::new();
        self.push_filters(&mut filters, &q.kinds, &q.langs, q.path_prefix.as_deref());
        // Without filters the query is the union of term queries alone, which tantivy ranks
        // by block-max WAND (blocks that cannot reach the top are skipped: a common word no
        // longer scores every document that has it); filters make it an intersection.
        let query = if filters.is_empty() {
            BooleanQuery::new(should)
        } else {
            let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
            clauses.extend(filters);
            BooleanQuery::new(clauses)
        };
        // Over-fetch a little so ties at the cut are ordered by id, not by doc address.
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(q.limit + 16).order_by_score())?;
        let mut hits = Vec::with_capacity(top.len());
        // The ids from their fast field (one column per segment, opened once): no stored
        // document is read until a hit is shown.
        let mut ids = Vec::with_capacity(searcher.segment_readers().len());
        for r in searcher.segment_readers() {
            ids.push(r.fast_fields().u64(ID)?);
        }
        for (score, addr) in top {
            let id = ids[addr.segment_ord as usize]
                .first(addr.doc_id)
                .ok_or_else(|| Error::Corrupt { path: "tantivy".into(), reason: "symbol without id".into() })?;
            hits.push(Ranked { rank: 0, score, id: SymbolId(id), addr });
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        hits.truncate(q.limit);
        for (i, h) in hits.iter_mut().enumerate() {
            h.rank = i + 1;
        }
        Ok(RankedHits { searcher, hits })
    }

    /// Ranked BM25 hits with their symbols loaded (see [`SymbolIndex::search_ranked`]).
    pub fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>> {
        let ranked = self.search_ranked(q)?;
        ranked
            .hits
            .iter()
            .map(|h| Ok(SearchHit { rank: h.rank, score: h.score, symbol: ranked.load(self, h)? }))
            .collect()
    }

    fn push_filters(
        &self,
        clauses: &mut Vec<(Occur, Box<dyn Query>)>,
        kinds: &[SymbolKind],
        langs: &[Lang],
        path_prefix: Option<&str>,
    ) {
        let f = self.fields;
        let any_of = |field: Field, values: Vec<String>| -> Box<dyn Query> {
            Box::new(BooleanQuery::new(
                values
                    .into_iter()
                    .map(|v| {
                        let q: Box<dyn Query> =
                            Box::new(TermQuery::new(Term::from_field_text(field, &v), IndexRecordOption::Basic));
                        (Occur::Should, q)
                    })
                    .collect(),
            ))
        };
        // A filter narrows and never scores: without the constant 0 its term's BM25 would
        // be added, and with several kinds the rarer kind's symbols would be ranked up.
        let mut filter = |q: Box<dyn Query>| clauses.push((Occur::Must, Box::new(ConstScoreQuery::new(q, 0.0))));
        if !kinds.is_empty() {
            filter(any_of(f.kind, kinds.iter().map(|k| k.as_str().to_string()).collect()));
        }
        if !langs.is_empty() {
            filter(any_of(f.lang, langs.iter().map(|l| l.name().to_string()).collect()));
        }
        if let Some(p) = path_prefix {
            let p = p.trim().trim_start_matches("./").trim_matches('/');
            if !p.is_empty() {
                filter(path_prefix_query(f.path, p));
            }
        }
    }

    /// Symbols named exactly `name` (case-sensitive), else whose qualified name is
    /// `name`, else named `name` case-insensitively; sorted by path and line.
    pub fn lookup(&self, name: &str, limit: usize) -> Result<Vec<SymbolDoc>> {
        let f = self.fields;
        let name = name.trim();
        let lower = TermQuery::new(Term::from_field_text(f.name_lower, &name.to_lowercase()), IndexRecordOption::Basic);
        let exact = self.by_query(&lower, Some((NAME_HASH, text_hash(name))), limit, |d| d.name == name)?;
        if !exact.is_empty() {
            return Ok(exact);
        }
        // Every code token of a qualified name is among its symbol's `qualified` tokens.
        let terms = query_terms(name);
        let tokens: Box<dyn Query> = if terms.is_empty() {
            Box::new(AllQuery)
        } else {
            Box::new(BooleanQuery::new(
                terms
                    .iter()
                    .map(|t| -> (Occur, Box<dyn Query>) {
                        let term = Term::from_field_text(f.qualified, t);
                        (Occur::Must, Box::new(TermQuery::new(term, IndexRecordOption::Basic)))
                    })
                    .collect(),
            ))
        };
        let qualified =
            self.by_query(&*tokens, Some((QUALIFIED_HASH, text_hash(name))), limit, |d| d.qualified_name == name)?;
        if !qualified.is_empty() {
            return Ok(qualified);
        }
        self.by_query(&lower, None, limit, |_| true)
    }

    /// The symbol with this id.
    pub fn get(&self, id: SymbolId) -> Result<Option<SymbolDoc>> {
        let searcher = self.reader.searcher();
        let table = {
            let mut cached = self.ids.lock().unwrap_or_else(|p| p.into_inner());
            match &*cached {
                Some(t) if t.searcher.generation().generation_id() == searcher.generation().generation_id() => {
                    t.clone()
                }
                _ => {
                    let t = Arc::new(IdTable::build(searcher)?);
                    *cached = Some(t.clone());
                    t
                }
            }
        };
        match table.sorted.binary_search_by_key(&id.0, |&(id, _)| id) {
            Ok(i) => Ok(Some(self.load(&table.searcher, table.sorted[i].1)?)),
            Err(_) => Ok(None),
        }
    }

    /// Up to `limit` symbols matching `query` whose `filter` fast field has the given
    /// value, and that `keep` (the check behind a hash) accepts.
    fn by_query(
        &self,
        query: &dyn Query,
        filter: Option<(&str, u64)>,
        limit: usize,
        keep: impl Fn(&SymbolDoc) -> bool,
    ) -> Result<Vec<SymbolDoc>> {
        let searcher = self.reader.searcher();
        let top = TopDocs::with_limit(limit.max(1)).order_by_score();
        let top = match filter {
            None => searcher.search(query, &top)?,
            Some((column, value)) => {
                searcher.search(query, &FilterCollector::new(column.to_string(), move |v: u64| v == value, top))?
            }
        };
        let mut seen = HashSet::new();
        let mut docs = Vec::new();
        for (_, addr) in top {
            let d = self.load(&searcher, addr)?;
            if keep(&d) && seen.insert(d.id) {
                docs.push(d);
            }
        }
        docs.sort_by(|a, b| (&a.path, a.span.start_line, a.id).cmp(&(&b.path, b.span.start_line, b.id)));
        Ok(docs)
    }

    /// Every document's path, in the order the documents were added.
    #[cfg(test)]
    pub(crate) fn paths_in_doc_order(&self) -> Result<Vec<String>> {
        let searcher = self.reader.searcher();
        let mut paths = Vec::new();
        for (ord, seg) in searcher.segment_readers().iter().enumerate() {
            for doc in 0..seg.max_doc() {
                paths.push(self.id_and_path(&searcher, DocAddress::new(ord as u32, doc))?.1);
            }
        }
        Ok(paths)
    }

    /// Number of symbol documents.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A document's symbol id and path, from their fast fields.
    fn id_and_path(&self, searcher: &Searcher, addr: DocAddress) -> Result<(SymbolId, String)> {
        let corrupt =
            |what: &str| Error::Corrupt { path: self.dir.join("tantivy"), reason: format!("a symbol without {what}") };
        let generation = searcher.generation().generation_id();
        let columns = {
            let mut cached = self.columns.lock().unwrap_or_else(|p| p.into_inner());
            match &*cached {
                Some(c) if c.generation == generation => c.clone(),
                _ => {
                    let mut segments = Vec::with_capacity(searcher.segment_readers().len());
                    for seg in searcher.segment_readers() {
                        let ff = seg.fast_fields();
                        segments.push((ff.u64(ID)?, ff.str(PATH)?.ok_or_else(|| corrupt("a path"))?));
                    }
                    let c = Arc::new(Columns { generation, segments });
                    *cached = Some(c.clone());
                    c
                }
            }
        };
        let (ids, paths) = &columns.segments[addr.segment_ord as usize];
        let id = ids.first(addr.doc_id).ok_or_else(|| corrupt("an id"))?;
        let ord = paths.term_ords(addr.doc_id).next().ok_or_else(|| corrupt("a path"))?;
        let mut path = String::new();
        paths.ord_to_str(ord, &mut path).map_err(|e| Error::Io { path: self.dir.join("tantivy"), error: e })?;
        Ok((SymbolId(id), path))
    }

    /// A document's symbol, read from records.bin.
    fn load(&self, searcher: &Searcher, addr: DocAddress) -> Result<SymbolDoc> {
        let (id, path) = self.id_and_path(searcher, addr)?;
        let records = self.records.read().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(s) = records.symbol(&path, id)? {
            return Ok(SymbolDoc::from(s));
        }
        // A re-index (in another process) replaced records.bin after this reader opened
        // it: read the current one.
        match self.reopen_records()?.symbol(&path, id)? {
            Some(s) => Ok(SymbolDoc::from(s)),
            None => Err(Error::Corrupt {
                path: self.dir.join("records.bin"),
                reason: format!("symbol {id} of {path} is in the search index but not in the records; re-index"),
            }),
        }
    }
}

/// The names each symbol of a file calls (`receiver.name` as written), space-separated, in
/// the order of the calls, each once.
fn callees(record: &FileRecord) -> rustc_hash::FxHashMap<SymbolId, String> {
    let mut out: rustc_hash::FxHashMap<SymbolId, String> = Default::default();
    let mut seen: rustc_hash::FxHashSet<(SymbolId, &str, &str)> = Default::default();
    for r in record.references.iter().filter(|r| r.kind == RefKind::Call) {
        let Some(from) = r.enclosing else { continue };
        let receiver = r.receiver.as_deref().unwrap_or("");
        if !seen.insert((from, receiver, r.name.as_str())) {
            continue;
        }
        let text = out.entry(from).or_default();
        if text.len() > crate::extract::MAX_BODY {
            continue;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        if !receiver.is_empty() {
            text.push_str(receiver);
            text.push('.');
        }
        text.push_str(&r.name);
    }
    out
}
