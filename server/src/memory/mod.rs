//! Memory search and reconciliation: "which facts and policies answer this, and which facts of
//! different agents contradict each other?"
//!
//! The store ([`crate::store::memory`]) is the truth; [`Memory`] keeps, per workspace, an
//! index built from it and brought up to date before every use by reading the entries whose
//! `seq` is past the last one it saw (so a write on another replica is seen too):
//! - a tantivy index in memory (BM25 over the entries' words, as [`crate::rank::words`] makes
//!   them; kind, status and domain as exact fields for filters);
//! - each entry's vector of the process's embedding model (the one search_code uses), int8
//!   as the code vectors are, scanned exactly. An entry without a vector of this model is
//!   embedded when the index catches up, in batches, and its vector written to the store
//!   (`memory_vectors`), so a restart or another replica does not embed it again.
//!
//! Hybrid ranking is search_code's: [`cc_indexer::hybrid::fuse`] with its `RRF_K` and its
//! weights by identifier-likeness. Without a model every mode answers from BM25 and says
//! `semantic: unavailable: <why>`.

pub mod cli;
pub mod conflict;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use base64::Engine as _;
use cc_indexer::hybrid::{fuse, weights, Mode, DEPTH, RRF_K};
use cc_indexer::vectors::{dot_i8, quantize};
use cc_indexer::SymbolId;
use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED, STRING};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};
use tokio::sync::RwLock;

use self::conflict::{Features, Similarity};
use crate::embedding::Embeddings;
use crate::store::memory::{Conflict, NewConflict, Resolution};
use crate::store::{Entry, EntryKind, EntryStatus, Store, StoreError};

/// Entries read from the store per catch-up round.
const CATCH_UP_BATCH: i64 = 5000;
/// Texts embedded per model call.
const EMBED_BATCH: usize = cc_indexer::embed::BATCH;
/// The share of a query's content words a BM25 hit must match to enter the hybrid fusion
/// (Elasticsearch's `minimum_should_match`). Measured on `tests/data/memory/relevance.json`:
/// without it hybrid ranked 2 of 32 answers one place lower than semantic ranking alone
/// (MRR 0.920 against 0.951); docs/performance.md has the figures.
pub const MIN_SHOULD_MATCH: f32 = 0.5;
/// Harmonization compares two facts only when their content words overlap at least this much
/// (Jaccard): the candidates of a similarity join by prefix filtering (AllPairs), exact for
/// this threshold, so no pair above it is missed and most pairs are never looked at. Every
/// conflicting pair of `tests/data/memory/conflicts.json` overlaps by 0.38 or more.
pub const CANDIDATE_JACCARD: f32 = 0.3;

/// Why a memory operation failed.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the memory index: {0}")]
    Index(String),
}

impl From<tantivy::TantivyError> for MemoryError {
    fn from(e: tantivy::TantivyError) -> Self {
        MemoryError::Index(e.to_string())
    }
}

pub type Result<T, E = MemoryError> = std::result::Result<T, E>;

/// The memory indexes of one server, by workspace.
pub struct Memory {
    embeddings: &'static Embeddings,
    indexes: Mutex<HashMap<String, Arc<RwLock<WsIndex>>>>,
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memory").finish_non_exhaustive()
    }
}

/// What a search asks.
#[derive(Clone, Debug)]
pub struct SearchQuery {
    pub text: String,
    pub mode: Mode,
    /// Only this domain (its id).
    pub domain_id: Option<String>,
    /// Only these kinds (empty: both).
    pub kinds: Vec<EntryKind>,
    /// Superseded and retired entries too.
    pub include_inactive: bool,
    pub limit: usize,
}

/// One ranked entry.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Hit {
    pub rank: u32,
    /// The fused score (hybrid), the BM25 score (keyword) or the cosine (semantic).
    pub score: f32,
    /// Rank in the BM25 list (absent: not in its top results).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25_rank: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25_score: Option<f32>,
    /// Rank in the vector list (absent: not in its top results, or semantic ranking unavailable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_rank: Option<u32>,
    /// Cosine of the entry's embedding and the query's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_score: Option<f32>,
    pub entry: Entry,
}

/// A search's answer.
#[derive(Clone, Debug, Serialize)]
pub struct Answer {
    pub hits: Vec<Hit>,
    /// The ranking used: the one asked for, or keyword when semantic ranking is unavailable.
    pub mode: Mode,
    /// `available`, `not used (mode keyword)`, or `unavailable: <why>`.
    pub semantic: String,
}

/// What a harmonization pass found and did.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Harmony {
    /// Active facts compared.
    pub facts: usize,
    /// Pairs of facts of different authors whose words overlap enough to be compared.
    pub pairs_compared: usize,
    /// How they were compared.
    pub similarity: Similarity,
    /// Why not by embedding, when not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic: Option<String>,
    /// Conflicts found in this pass, with the resolution applied.
    pub conflicts: Vec<Conflict>,
    /// Conflicts left open earlier that an explicit supersession decided since.
    pub resolved: Vec<Conflict>,
    pub elapsed_ms: u64,
}

struct Fields {
    row: Field,
    words: Field,
    kind: Field,
    status: Field,
    domain: Field,
}

/// One entry as the index holds it.
struct Row {
    entry: Entry,
    features: Features,
    /// int8 vector and its scale.
    vector: Option<(Vec<i8>, f32)>,
}

struct WsIndex {
    /// The last change read from the store.
    seq: i64,
    /// The model the vectors are of.
    model: Option<String>,
    rows: Vec<Row>,
    by_id: HashMap<String, usize>,
    fields: Fields,
    writer: IndexWriter,
    reader: IndexReader,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let words = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default().set_tokenizer("whitespace").set_index_option(IndexRecordOption::WithFreqs),
    );
    let fields = Fields {
        row: b.add_u64_field("row", FAST | INDEXED),
        words: b.add_text_field("words", words),
        kind: b.add_text_field("kind", STRING),
        status: b.add_text_field("status", STRING),
        domain: b.add_text_field("domain", STRING),
    };
    (b.build(), fields)
}

impl WsIndex {
    fn new() -> Result<WsIndex> {
        let (schema, fields) = schema();
        let index = Index::create_in_ram(schema);
        let writer = index.writer_with_num_threads(1, 50_000_000)?;
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(WsIndex { seq: 0, model: None, rows: Vec::new(), by_id: HashMap::new(), fields, writer, reader })
    }

    fn upsert(&mut self, entry: Entry, vector: Option<(Vec<i8>, f32)>) -> Result<()> {
        let row = match self.by_id.get(&entry.id) {
            Some(&r) => {
                self.writer.delete_term(Term::from_field_u64(self.fields.row, r as u64));
                r
            }
            None => {
                self.rows.push(Row { entry: entry.clone(), features: Features::default(), vector: None });
                self.by_id.insert(entry.id.clone(), self.rows.len() - 1);
                self.rows.len() - 1
            }
        };
        let words = crate::rank::words(&entry.text).join(" ");
        let mut doc = TantivyDocument::default();
        doc.add_u64(self.fields.row, row as u64);
        doc.add_text(self.fields.words, &words);
        doc.add_text(self.fields.kind, entry.kind.as_str());
        doc.add_text(self.fields.status, entry.status.as_str());
        doc.add_text(self.fields.domain, &entry.domain_id);
        self.writer.add_document(doc)?;
        let r = &mut self.rows[row];
        if r.entry.text != entry.text || r.features == Features::default() {
            r.features = conflict::features(&entry.text);
        }
        if vector.is_some() || r.entry.text != entry.text {
            r.vector = vector;
        }
        r.entry = entry;
        Ok(())
    }

    fn admits(&self, r: &Row, q: &SearchQuery) -> bool {
        (q.include_inactive || r.entry.status == EntryStatus::Active)
            && (q.kinds.is_empty() || q.kinds.contains(&r.entry.kind))
            && q.domain_id.as_ref().is_none_or(|d| *d == r.entry.domain_id)
    }

    fn bm25(&self, q: &SearchQuery, depth: usize) -> Result<Vec<(usize, f32)>> {
        let terms = crate::rank::content_terms(&q.text);
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let f = &self.fields;
        let should: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|t| {
                let tq: Box<dyn Query> =
                    Box::new(TermQuery::new(Term::from_field_text(f.words, t), IndexRecordOption::WithFreqs));
                (Occur::Should, tq)
            })
            .collect();
        let mut must: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
        let exact = |field: Field, v: &str| -> Box<dyn Query> {
            Box::new(TermQuery::new(Term::from_field_text(field, v), IndexRecordOption::Basic))
        };
        if !q.include_inactive {
            must.push((Occur::Must, exact(f.status, "active")));
        }
        if !q.kinds.is_empty() {
            let kinds: Vec<(Occur, Box<dyn Query>)> =
                q.kinds.iter().map(|k| (Occur::Should, exact(f.kind, k.as_str()))).collect();
            must.push((Occur::Must, Box::new(BooleanQuery::new(kinds))));
        }
        if let Some(d) = &q.domain_id {
            must.push((Occur::Must, exact(f.domain, d)));
        }
        let searcher = self.reader.searcher();
        let top = searcher.search(&BooleanQuery::new(must), &TopDocs::with_limit(depth + 16).order_by_score())?;
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let col = searcher.segment_reader(addr.segment_ord).fast_fields().u64("row")?;
            if let Some(row) = col.first(addr.doc_id) {
                out.push((row as usize, score));
            }
        }
        // Ties by entry id (creation order), not by doc address.
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| self.rows[a.0].entry.id.cmp(&self.rows[b.0].entry.id)));
        out.truncate(depth);
        Ok(out)
    }

    /// The BM25 hits that match at least [`MIN_SHOULD_MATCH`] of the query's content words:
    /// what the fusion takes from BM25. A prose query shares a word or two with many entries
    /// that do not answer it ("undo a bad *release*"), and one such hit at the top of the
    /// BM25 list outweighs the difference between the first two vector ranks.
    fn most_terms(&self, query: &str, hits: Vec<(usize, f32)>) -> Vec<(usize, f32)> {
        let terms = crate::rank::content_terms(query);
        let need = (terms.len() as f32 * MIN_SHOULD_MATCH).ceil() as usize;
        hits.into_iter()
            .filter(|(r, _)| {
                let words: std::collections::HashSet<String> =
                    crate::rank::words(&self.rows[*r].entry.text).into_iter().collect();
                terms.iter().filter(|t| words.contains(*t)).count() >= need
            })
            .collect()
    }

    fn vector_scan(&self, qv: &[f32], q: &SearchQuery, depth: usize) -> Vec<(usize, f32)> {
        let (qi, qs) = quantize(qv);
        let mut scored: Vec<(usize, f32)> = self
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| self.admits(r, q))
            .filter_map(|(i, r)| r.vector.as_ref().map(|(v, s)| (i, dot_i8(&qi, v) as f32 * qs * s)))
            .collect();
        let by = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if scored.len() > depth {
            scored.select_nth_unstable_by(depth, by);
            scored.truncate(depth);
        }
        scored.sort_by(by);
        scored
    }
}

fn encode(v: &[f32]) -> String {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn decode(s: &str) -> Option<Vec<f32>> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(s).ok()?;
    (bytes.len() % 4 == 0)
        .then(|| bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

/// The pairs of `rows` (facts of one domain) by different authors whose words overlap at
/// least [`CANDIDATE_JACCARD`]: each fact's words ordered rarest first, and two facts compared
/// only when they share a word of their prefixes (a set of n words overlapping another by t
/// or more shares one of its first n - ceil(t n) + 1 words with it).
fn candidate_pairs(idx: &WsIndex, rows: &[usize]) -> Vec<(usize, usize)> {
    let mut df: HashMap<&str, usize> = HashMap::new();
    for &r in rows {
        for w in &idx.rows[r].features.words {
            *df.entry(w.as_str()).or_default() += 1;
        }
    }
    let mut index: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut pairs = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for &x in rows {
        let row = &idx.rows[x];
        let mut words: Vec<&str> = row.features.words.iter().map(String::as_str).collect();
        words.sort_by_key(|w| (df[w], *w));
        let n = words.len();
        let prefix = (n + 1).saturating_sub((CANDIDATE_JACCARD * n as f32).ceil() as usize).clamp(1, n.max(1));
        seen.clear();
        for w in words.iter().take(prefix) {
            let list = index.entry(w).or_default();
            for &y in list.iter() {
                if seen.insert(y) && idx.rows[y].entry.author_key != row.entry.author_key {
                    let (a, b) = (&idx.rows[y].features.words, &row.features.words);
                    if conflict::jaccard(a, b) >= CANDIDATE_JACCARD {
                        pairs.push((y.min(x), y.max(x)));
                    }
                }
            }
            list.push(x);
        }
    }
    pairs.sort_unstable();
    pairs
}

fn cosine(a: &Row, b: &Row) -> Option<f32> {
    match (&a.vector, &b.vector) {
        (Some((x, sx)), Some((y, sy))) => Some(dot_i8(x, y) as f32 * sx * sy),
        _ => None,
    }
}

impl Memory {
    /// Indexes that embed with `embeddings` (the process's model: [`crate::embedding::global`]).
    pub fn new(embeddings: &'static Embeddings) -> Memory {
        Memory { embeddings, indexes: Mutex::new(HashMap::new()) }
    }

    fn slot(&self, workspace: &str) -> Result<Arc<RwLock<WsIndex>>> {
        let mut m = self.indexes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(i) = m.get(workspace) {
            return Ok(i.clone());
        }
        let i = Arc::new(RwLock::new(WsIndex::new()?));
        m.insert(workspace.to_string(), i.clone());
        Ok(i)
    }

    /// The model's id, or why there is none.
    fn model_id(&self) -> std::result::Result<String, String> {
        let m = self.embeddings.model()?;
        let id =
            m.lock().map_err(|_| "the embedding model failed earlier (a panic while it was in use)".to_string())?;
        Ok(id.model_id.clone())
    }

    /// Brings the workspace's index up to date with the store; answers why semantic ranking
    /// is unavailable, when it is.
    async fn catch_up(&self, store: &Store, workspace: &str, idx: &mut WsIndex) -> Result<Option<String>> {
        let model = self.model_id();
        let model_ok = model.as_ref().ok().cloned();
        if idx.model != model_ok && !idx.rows.is_empty() {
            // Another model (or none any more): the vectors are not comparable; read all again.
            *idx = WsIndex::new()?;
        }
        idx.model = model_ok.clone();
        let mut changed = false;
        loop {
            let batch = store.memory().changed_since(workspace, idx.seq, model_ok.as_deref(), CATCH_UP_BATCH).await?;
            if batch.is_empty() {
                break;
            }
            for (e, v) in batch {
                idx.seq = idx.seq.max(e.seq);
                let v = v.as_deref().and_then(decode).map(|v| quantize(&v));
                idx.upsert(e, v)?;
                changed = true;
            }
        }
        let why = match &model {
            Ok(id) => self.embed_missing(store, idx, id).await.err(),
            Err(why) => Some(why.clone()),
        };
        if changed {
            idx.writer.commit()?;
            idx.reader.reload()?;
        }
        Ok(why)
    }

    /// Embeds the entries without a vector, stores their vectors; `Err(why)` when the model fails.
    async fn embed_missing(&self, store: &Store, idx: &mut WsIndex, model: &str) -> std::result::Result<(), String> {
        let missing: Vec<usize> = (0..idx.rows.len()).filter(|&i| idx.rows[i].vector.is_none()).collect();
        for chunk in missing.chunks(EMBED_BATCH * 16) {
            let texts: Vec<String> = chunk.iter().map(|&i| idx.rows[i].entry.text.clone()).collect();
            let emb = self.embeddings;
            let vecs = tokio::task::spawn_blocking(move || -> std::result::Result<Vec<Vec<f32>>, String> {
                let m = emb.model()?;
                let mut m = m.lock().map_err(|_| "the embedding model failed earlier".to_string())?;
                m.embed(&texts, &mut |_| {}).map_err(|e| e.to_string())
            })
            .await
            .map_err(|e| format!("embedding: {e}"))??;
            let mut save = Vec::with_capacity(chunk.len());
            for (&i, v) in chunk.iter().zip(&vecs) {
                save.push((idx.rows[i].entry.id.clone(), encode(v)));
                idx.rows[i].vector = Some(quantize(v));
            }
            store.memory().save_vectors(model, &save).await.map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Searches the workspace's memory.
    pub async fn search(&self, store: &Store, workspace: &str, q: &SearchQuery) -> Result<Answer> {
        let slot = self.slot(workspace)?;
        let mut w = slot.write().await;
        let unavailable = self.catch_up(store, workspace, &mut w).await?;
        let idx = w.downgrade();
        let depth = DEPTH.max(q.limit);
        let qvec = match (q.mode, &unavailable) {
            (Mode::Keyword, _) => Err("not used (mode keyword)".to_string()),
            (_, Some(why)) => Err(format!("unavailable: {why}")),
            (_, None) => {
                let (emb, text) = (self.embeddings, q.text.clone());
                tokio::task::spawn_blocking(move || emb.query(&text))
                    .await
                    .map_err(|e| MemoryError::Index(e.to_string()))?
                    .map(|v| v.0)
                    .map_err(|why| format!("unavailable: {why}"))
            }
        };
        let (mode, semantic, fused, bm, vs) = match qvec {
            Err(semantic) => {
                let bm = idx.bm25(q, q.limit)?;
                let fused: Vec<(usize, f32)> = bm.clone();
                (Mode::Keyword, semantic, fused, bm, Vec::new())
            }
            Ok(v) => {
                let vs = idx.vector_scan(&v, q, if q.mode == Mode::Semantic { q.limit } else { depth });
                if q.mode == Mode::Semantic {
                    (Mode::Semantic, "available".to_string(), vs.clone(), Vec::new(), vs)
                } else {
                    let bm = idx.bm25(q, depth)?;
                    let bm = idx.most_terms(&q.text, bm);
                    let (wb, wv) = weights(&q.text);
                    let ids = |l: &[(usize, f32)]| l.iter().map(|(r, _)| SymbolId(*r as u64)).collect::<Vec<_>>();
                    let f = fuse(&ids(&bm), &ids(&vs), wb, wv, RRF_K);
                    (
                        Mode::Hybrid,
                        "available".to_string(),
                        f.iter().map(|x| (x.id.0 as usize, x.score)).collect(),
                        bm,
                        vs,
                    )
                }
            }
        };
        let bmr: HashMap<usize, (usize, f32)> = bm.iter().enumerate().map(|(i, (r, s))| (*r, (i + 1, *s))).collect();
        let vsr: HashMap<usize, (usize, f32)> = vs.iter().enumerate().map(|(i, (r, s))| (*r, (i + 1, *s))).collect();
        let hits = fused
            .into_iter()
            .take(q.limit)
            .enumerate()
            .map(|(i, (row, score))| Hit {
                rank: i as u32 + 1,
                score,
                bm25_rank: bmr.get(&row).map(|b| b.0 as u32),
                bm25_score: bmr.get(&row).map(|b| b.1),
                vector_rank: vsr.get(&row).map(|v| v.0 as u32),
                vector_score: vsr.get(&row).map(|v| v.1),
                entry: idx.rows[row].entry.clone(),
            })
            .collect();
        Ok(Answer { hits, mode, semantic })
    }

    /// Brings the index of `workspace` up to date now (answers how many entries it holds).
    pub async fn refresh(&self, store: &Store, workspace: &str) -> Result<usize> {
        let slot = self.slot(workspace)?;
        let mut w = slot.write().await;
        self.catch_up(store, workspace, &mut w).await?;
        Ok(w.rows.len())
    }

    /// Cross-agent reconciliation over the active facts of `domain_id` (every domain of the
    /// workspace when none): pairs of facts by different authors that are near-duplicates
    /// differing in a number, a negation, a date or a name are recorded as conflicts and
    /// resolved where something decides them — a policy of the domain agreeing with one side
    /// (the other is superseded by the policy), or an explicit supersession (one side
    /// supersedes, directly or down its chain, an entry the other restates: the other is
    /// superseded by it); else the conflict stays open. Open conflicts of earlier passes one
    /// of whose facts was superseded since are resolved for the fact that stands.
    pub async fn harmonize(&self, store: &Store, workspace: &str, domain_id: Option<&str>) -> Result<Harmony> {
        let started = Instant::now();
        let slot = self.slot(workspace)?;
        let mut w = slot.write().await;
        let unavailable = self.catch_up(store, workspace, &mut w).await?;
        let idx = &*w;
        let similarity = if unavailable.is_none() { Similarity::Embedding } else { Similarity::Words };
        let cos = |a: &Row, b: &Row| if similarity == Similarity::Embedding { cosine(a, b) } else { None };
        // Per domain: active facts, active policies.
        let mut facts: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut policies: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, r) in idx.rows.iter().enumerate() {
            if r.entry.status != EntryStatus::Active || domain_id.is_some_and(|d| d != r.entry.domain_id) {
                continue;
            }
            let m = if r.entry.kind == EntryKind::Fact { &mut facts } else { &mut policies };
            m.entry(r.entry.domain_id.as_str()).or_default().push(i);
        }
        // What each entry superseded, directly.
        let mut replaced: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, r) in idx.rows.iter().enumerate() {
            if let Some(by) = &r.entry.superseded_by {
                replaced.entry(by.as_str()).or_default().push(i);
            }
        }
        let ancestors = |row: usize| {
            let mut out = Vec::new();
            let mut stack = vec![row];
            while let Some(x) = stack.pop() {
                if out.len() > 1000 {
                    break;
                }
                for &p in replaced.get(idx.rows[x].entry.id.as_str()).map_or(&[][..], Vec::as_slice) {
                    out.push(p);
                    stack.push(p);
                }
            }
            out
        };
        let mut found: Vec<(NewConflict, Option<String>)> = Vec::new();
        let mut pairs_compared = 0;
        let mut n_facts = 0;
        for (domain, rows) in &facts {
            n_facts += rows.len();
            let pairs = candidate_pairs(idx, rows);
            pairs_compared += pairs.len();
            let pols = policies.get(domain).map_or(&[][..], Vec::as_slice);
            for (a, b) in pairs {
                let (ra, rb) = (&idx.rows[a], &idx.rows[b]);
                let Some(d) = conflict::detect(&ra.features, &rb.features, cos(ra, rb)) else { continue };
                let mut c = NewConflict {
                    domain_id: domain.to_string(),
                    fact_a: ra.entry.id.clone(),
                    fact_b: rb.entry.id.clone(),
                    cues: d.cues.iter().map(|c| c.0.to_string()).collect(),
                    similarity: f64::from(d.similarity),
                    resolution: Resolution::Open,
                    winner_id: None,
                    policy_id: None,
                    detail: d.cues.iter().map(|(c, w)| format!("{c}: {w}")).collect::<Vec<_>>().join("; "),
                };
                let agrees = |p: &Row, x: &Row| conflict::agrees(&p.features, &x.features, cos(p, x));
                let mut loser = None;
                // A policy outranks a fact.
                for &p in pols {
                    let rp = &idx.rows[p];
                    let (with_a, with_b) = (agrees(rp, ra), agrees(rp, rb));
                    if with_a != with_b {
                        let (win, lose) = if with_a { (ra, rb) } else { (rb, ra) };
                        c.resolution = Resolution::Policy;
                        c.winner_id = Some(win.entry.id.clone());
                        c.policy_id = Some(rp.entry.id.clone());
                        c.detail.push_str(&format!("; policy {} agrees with {}", rp.entry.id, win.entry.id));
                        loser = Some((lose.entry.id.clone(), rp.entry.id.clone()));
                        break;
                    }
                }
                // An explicit supersession wins.
                if loser.is_none() {
                    for (win, lose) in [(a, b), (b, a)] {
                        let restated = ancestors(win).into_iter().find(|&s| agrees(&idx.rows[s], &idx.rows[lose]));
                        if let Some(s) = restated {
                            let (w, l) = (&idx.rows[win].entry, &idx.rows[lose].entry);
                            c.resolution = Resolution::Supersession;
                            c.winner_id = Some(w.id.clone());
                            c.detail.push_str(&format!(
                                "; {} restates {}, which {} superseded",
                                l.id, idx.rows[s].entry.id, w.id
                            ));
                            loser = Some((l.id.clone(), w.id.clone()));
                            break;
                        }
                    }
                }
                found.push((c, loser.map(|l| format!("{}\u{0}{}", l.0, l.1))));
            }
        }
        drop(w);
        let mut recorded = Vec::new();
        for (c, loser) in found {
            if store.memory().has_conflict(&c.fact_a, &c.fact_b).await? {
                continue;
            }
            if let Some(l) = loser {
                let (lose, by) = l.split_once('\u{0}').expect("joined above");
                match store.memory().supersede(workspace, lose, Some(by), EntryStatus::Superseded).await {
                    Ok(_) | Err(StoreError::Conflict(_)) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            if store.memory().record_conflict(workspace, &c).await? {
                recorded.push((c.fact_a.clone(), c.fact_b.clone()));
            }
        }
        // Open conflicts an explicit supersession decided since.
        let mut resolved = Vec::new();
        for c in store.memory().conflicts(workspace, domain_id, Some(Resolution::Open)).await? {
            let (a, b) = (store.memory().get(&c.fact_a).await?, store.memory().get(&c.fact_b).await?);
            let active = |e: &Option<Entry>| e.as_ref().is_some_and(|e| e.status == EntryStatus::Active);
            let winner = match (active(&a), active(&b)) {
                (true, false) => Some(&c.fact_a),
                (false, true) => Some(&c.fact_b),
                (false, false) => None,
                (true, true) => continue,
            };
            let detail = match winner {
                Some(w) => format!("; resolved: {w} stands, the other was superseded"),
                None => "; resolved: both were superseded".to_string(),
            };
            if store
                .memory()
                .resolve_conflict(&c.id, Resolution::Supersession, winner.map(String::as_str), &detail)
                .await?
            {
                resolved.push(c.id.clone());
            }
        }
        let all = store.memory().conflicts(workspace, domain_id, None).await?;
        let conflicts = all
            .iter()
            .filter(|c| recorded.iter().any(|(a, b)| *a.min(b) == c.fact_a && *a.max(b) == c.fact_b))
            .cloned();
        Ok(Harmony {
            facts: n_facts,
            pairs_compared,
            similarity,
            semantic: unavailable,
            conflicts: conflicts.collect(),
            resolved: all.into_iter().filter(|c| resolved.contains(&c.id)).collect(),
            elapsed_ms: started.elapsed().as_millis() as u64,
        })
    }
}
