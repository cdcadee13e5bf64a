//! The tantivy symbol index: schema, writing, BM25 search and exact lookup.
//!
//! Fields: `name`, `qualified`, `signature`, `doc` are tokenized with the code tokenizer
//! ([`crate::tokenize`]) and searched with boosts name > qualified > signature > doc;
//! `kind`, `lang` and `path` filter. A path prefix is the file itself or the range of
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

use std::collections::HashSet;
use std::ops::Bound;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tantivy::collector::{FilterCollector, TopDocs};
use tantivy::indexer::UserOperation;
use tantivy::query::{AllQuery, BooleanQuery, BoostQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, FAST, STORED, STRING};
use tantivy::{DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, Score, Searcher, TantivyDocument, Term};

use crate::error::{Error, Result};
use crate::record::{Lang, Span, Symbol, SymbolId, SymbolKind};
use crate::tokenize::{query_terms, CodeTokenizer, CODE_TOKENIZER};

/// Boosts per field: a hit in the name counts most.
const BOOST_NAME: Score = 4.0;
const BOOST_QUALIFIED: Score = 2.0;
const BOOST_SIGNATURE: Score = 1.5;
const BOOST_DOC: Score = 1.0;

#[derive(Clone, Copy)]
pub(crate) struct Fields {
    id: Field,
    name: Field,
    name_lower: Field,
    name_hash: Field,
    qualified: Field,
    qualified_hash: Field,
    signature: Field,
    doc: Field,
    kind: Field,
    lang: Field,
    path: Field,
    start_line: Field,
    start_col: Field,
    end_line: Field,
    end_col: Field,
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
    let code = |stored: bool| {
        let idx =
            TextFieldIndexing::default().set_tokenizer(CODE_TOKENIZER).set_index_option(IndexRecordOption::WithFreqs);
        let o = TextOptions::default().set_indexing_options(idx);
        if stored {
            o.set_stored()
        } else {
            o
        }
    };
    let fields = Fields {
        id: b.add_u64_field(ID, STORED | FAST),
        name: b.add_text_field("name", code(true)),
        name_lower: b.add_text_field("name_lower", STRING),
        name_hash: b.add_u64_field(NAME_HASH, FAST),
        qualified: b.add_text_field("qualified", code(true)),
        qualified_hash: b.add_u64_field(QUALIFIED_HASH, FAST),
        signature: b.add_text_field("signature", code(true)),
        doc: b.add_text_field("doc", code(true)),
        kind: b.add_text_field("kind", STRING | STORED),
        lang: b.add_text_field("lang", STRING | STORED),
        path: b.add_text_field(PATH, STRING | STORED | FAST),
        start_line: b.add_u64_field("start_line", STORED),
        start_col: b.add_u64_field("start_col", STORED),
        end_line: b.add_u64_field("end_line", STORED),
        end_col: b.add_u64_field("end_col", STORED),
    };
    (b.build(), fields)
}

fn register(index: &Index) {
    index.tokenizers().register(CODE_TOKENIZER, CodeTokenizer::default());
}

/// Opens the index in `dir`, creating it when absent.
pub(crate) fn open_or_create(dir: &Path) -> Result<(Index, Fields)> {
    let (schema, fields) = schema();
    std::fs::create_dir_all(dir).map_err(|e| Error::Io { path: dir.to_path_buf(), source: e })?;
    let mmap = tantivy::directory::MmapDirectory::open(dir)
        .map_err(|e| Error::Corrupt { path: dir.to_path_buf(), reason: e.to_string() })?;
    // Doc-store blocks of 64 KiB instead of 16, compressed with zstd instead of LZ4: on
    // spring-framework the store is 9.7 MB instead of 14.1 (the whole index 0.99 of the
    // source instead of 1.08); loading a hit decompresses one block either way, and
    // tantivy caches recent blocks.
    let settings = tantivy::IndexSettings {
        docstore_blocksize: 64 << 10,
        docstore_compression: tantivy::store::Compressor::Zstd(Default::default()),
        ..Default::default()
    };
    let index = Index::builder().schema(schema).settings(settings).open_or_create(mmap)?;
    register(&index);
    Ok((index, fields))
}

/// Writes symbols: deletes every document of the given paths, adds the new symbols.
pub(crate) struct Writer {
    writer: IndexWriter,
    fields: Fields,
}

impl Writer {
    pub(crate) fn new(index: &Index, fields: Fields) -> Result<Writer> {
        // One thread: documents land in a deterministic order, and symbol documents are
        // small next to parsing, which is where the cores go.
        let writer = index.writer_with_num_threads(1, 64 << 20)?;
        Ok(Writer { writer, fields })
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
    pub(crate) fn add_file(&mut self, path: &str, symbols: &[Symbol], replace: bool) -> Result<()> {
        let mut ops = Vec::with_capacity(symbols.len() + usize::from(replace));
        if replace {
            ops.push(UserOperation::Delete(self.path_term(path)));
        }
        ops.extend(symbols.iter().map(|s| UserOperation::Add(self.document(s))));
        self.writer.run(ops)?;
        Ok(())
    }

    fn document(&self, s: &Symbol) -> TantivyDocument {
        let f = &self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_u64(f.id, s.id.0);
        doc.add_text(f.name, &s.name);
        doc.add_text(f.name_lower, s.name.to_lowercase());
        doc.add_u64(f.name_hash, text_hash(&s.name));
        doc.add_text(f.qualified, &s.qualified_name);
        doc.add_u64(f.qualified_hash, text_hash(&s.qualified_name));
        doc.add_text(f.signature, &s.signature);
        if let Some(d) = &s.doc {
            doc.add_text(f.doc, d);
        }
        doc.add_text(f.kind, s.kind.as_str());
        doc.add_text(f.lang, s.lang.name());
        doc.add_text(f.path, &s.path);
        doc.add_u64(f.start_line, s.span.start_line.into());
        doc.add_u64(f.start_col, s.span.start_col.into());
        doc.add_u64(f.end_line, s.span.end_line.into());
        doc.add_u64(f.end_col, s.span.end_col.into());
        doc
    }

    pub(crate) fn commit(mut self) -> Result<()> {
        self.writer.commit()?;
        self.writer.wait_merging_threads()?;
        Ok(())
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
    reader: IndexReader,
    fields: Fields,
    /// Where each id's document is, for the searcher generation it was built from.
    ids: Mutex<Option<Arc<IdTable>>>,
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
    pub(crate) fn open(dir: &Path) -> Result<SymbolIndex> {
        if !dir.join("meta.json").is_file() {
            return Err(Error::Corrupt { path: dir.to_path_buf(), reason: "no search index".into() });
        }
        let (index, fields) = open_or_create(dir)?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(SymbolIndex { reader, fields, ids: Mutex::new(None) })
    }

    /// Picks up a newer commit (after a re-index in another process).
    pub fn reload(&self) -> Result<()> {
        self.reader.reload()?;
        Ok(())
    }

    /// BM25 search. Results are ordered by score, ties by symbol id, so the same
    /// index answers the same query identically.
    /// The BM25 ranking of a query: ids, scores and where each symbol's stored document
    /// is, without loading it (hybrid search fuses 50 of these and shows ten). Ties are
    /// ordered by id.
    pub fn search_ranked(&self, q: &SearchQuery) -> Result<RankedHits> {
        let f = self.fields;
        let terms = query_terms(&q.text);
        if terms.is_empty() || q.limit == 0 {
            return Ok(RankedHits { searcher: self.reader.searcher(), hits: Vec::new() });
        }
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in &terms {
            for (field, boost) in [
                (f.name, BOOST_NAME),
                (f.qualified, BOOST_QUALIFIED),
                (f.signature, BOOST_SIGNATURE),
                (f.doc, BOOST_DOC),
            ] {
                let tq = TermQuery::new(Term::from_field_text(field, t), IndexRecordOption::WithFreqs);
                should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(tq), boost))));
            }
        }
        // The exact identifier as typed outranks sub-word matches.
        let raw = q.text.trim();
        if !raw.is_empty() && !raw.contains(char::is_whitespace) {
            let exact =
                TermQuery::new(Term::from_field_text(f.name_lower, &raw.to_lowercase()), IndexRecordOption::Basic);
            should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(exact), 2.0 * BOOST_NAME))));
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
        self.push_filters(&mut clauses, &q.kinds, &q.langs, q.path_prefix.as_deref());
        let query = BooleanQuery::new(clauses);
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
        if !kinds.is_empty() {
            clauses.push((Occur::Must, any_of(f.kind, kinds.iter().map(|k| k.as_str().to_string()).collect())));
        }
        if !langs.is_empty() {
            clauses.push((Occur::Must, any_of(f.lang, langs.iter().map(|l| l.name().to_string()).collect())));
        }
        if let Some(p) = path_prefix {
            let p = p.trim().trim_start_matches("./").trim_matches('/');
            if !p.is_empty() {
                clauses.push((Occur::Must, path_prefix_query(f.path, p)));
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
                paths.push(self.load(&searcher, DocAddress::new(ord as u32, doc))?.path);
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

    fn load(&self, searcher: &tantivy::Searcher, addr: DocAddress) -> Result<SymbolDoc> {
        let f = self.fields;
        let doc: TantivyDocument = searcher.doc(addr)?;
        let text = |field: Field| doc.get_first(field).and_then(|v| v.as_str().map(str::to_string));
        let num = |field: Field| doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0) as u32;
        let corrupt = |what: &str| Error::Corrupt { path: "tantivy".into(), reason: format!("symbol without {what}") };
        Ok(SymbolDoc {
            id: SymbolId(doc.get_first(f.id).and_then(|v| v.as_u64()).ok_or_else(|| corrupt("id"))?),
            name: text(f.name).ok_or_else(|| corrupt("name"))?,
            kind: text(f.kind).as_deref().and_then(SymbolKind::parse).ok_or_else(|| corrupt("kind"))?,
            qualified_name: text(f.qualified).unwrap_or_default(),
            lang: text(f.lang).as_deref().and_then(Lang::from_name).ok_or_else(|| corrupt("lang"))?,
            path: text(f.path).unwrap_or_default(),
            span: Span {
                start_line: num(f.start_line),
                start_col: num(f.start_col),
                end_line: num(f.end_line),
                end_col: num(f.end_col),
            },
            signature: text(f.signature).unwrap_or_default(),
            doc: text(f.doc),
        })
    }
}
