//! Hybrid search: the BM25 ranking and the vector ranking fused by weighted reciprocal
//! rank fusion, weighted by how identifier-like the query is.
//!
//! `score = w_bm25 / (K + bm25_rank) + w_vector / (K + vector_rank)` with `K` = [`RRF_K`];
//! `w_bm25 = BM25_MIN + (1 - BM25_MIN) × a`, `w_vector = 1 - w_bm25 + BM25_MIN`, where `a` in
//! [0, 1] is [`identifier_likeness`]. Plain RRF (k = 60, equal weights) loses to dense
//! ranking alone on prose queries; BM25 wins on identifiers. `K` was chosen on the fixture
//! query set (`tests/data/relevance`); `BM25_MIN` went from 0.2 to 0.1 once the vector
//! ranking had priors (vectors::prior), and to 0.3 once BM25 read bodies and scored its
//! fields as one document (FORMAT_VERSION 12: tokio + sqlalchemy hybrid MRR@10 0.540 at
//! 0.1, 0.578 at 0.2, 0.576 at 0.3, 0.568 at 0.4; rich development half 0.699, 0.718,
//! 0.721, 0.726; k = 5 and 20 no better; docs/performance.md). The vector list carries the
//! priors: its scores are cosine + prior.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::Result;
use crate::record::SymbolId;
use crate::search::{SearchQuery, SymbolDoc, SymbolIndex};
use crate::vectors::{Strategy, VectorFilter, VectorIndex};

/// Rank offset of the fusion: small, so the first ranks of each list count.
pub const RRF_K: f32 = 10.0;
/// Weight of BM25 for a query of plain prose (no identifier-like word).
pub const BM25_MIN: f32 = 0.3;
/// Each list is read this deep (at least; `limit` deeper when larger).
pub const DEPTH: usize = 50;

/// What a search ranks by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Hybrid,
    Keyword,
    Semantic,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Hybrid, Mode::Keyword, Mode::Semantic];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Keyword => "keyword",
            Mode::Semantic => "semantic",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

/// How identifier-like a query is, 0 (prose) to 1 (identifiers): the share of its words
/// that look like code (`snake_case`, `camelCase`, `a.b`, `a::b`, `f()`, digits inside),
/// raised to at least 0.5 for a one-word query.
pub fn identifier_likeness(query: &str) -> f32 {
    let words: Vec<&str> = query.split_whitespace().collect();
    if words.is_empty() {
        return 0.0;
    }
    let code = words.iter().filter(|w| looks_like_code(w)).count() as f32;
    let a = code / words.len() as f32;
    if words.len() == 1 {
        a.max(0.5)
    } else {
        a
    }
}

fn looks_like_code(w: &str) -> bool {
    let w = w.trim_matches(|c: char| matches!(c, ',' | '?' | '!' | '"' | '\'' | '`'));
    let inner = w.trim_end_matches("()").trim_end_matches('.');
    if inner.contains('_') || inner.contains("::") || inner.contains("->") || w.ends_with("()") {
        return true;
    }
    if inner.len() > 2 && inner.trim_matches('.').contains('.') && !inner.contains("..") {
        return true;
    }
    let chars: Vec<char> = inner.chars().collect();
    // camelCase / PascalCase with a later capital: a lower-case letter followed by an upper-case one.
    let camel = chars.windows(2).any(|p| p[0].is_lowercase() && p[1].is_uppercase());
    let digits_inside = chars.iter().any(|c| c.is_ascii_digit()) && chars.iter().any(|c| c.is_alphabetic());
    camel || digits_inside
}

/// The fusion weights (bm25, vector) for a query.
pub fn weights(query: &str) -> (f32, f32) {
    let a = identifier_likeness(query);
    let wb = BM25_MIN + (1.0 - BM25_MIN) * a;
    (wb, 1.0 - wb + BM25_MIN)
}

/// One fused result: its fused score and its 1-based rank in each list it is in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fused {
    pub id: SymbolId,
    pub score: f32,
    pub bm25_rank: Option<usize>,
    pub vector_rank: Option<usize>,
}

/// Weighted reciprocal rank fusion of two rankings (best first); ties by id.
pub fn fuse(bm25: &[SymbolId], vector: &[SymbolId], w_bm25: f32, w_vector: f32, k: f32) -> Vec<Fused> {
    let mut by_id: HashMap<SymbolId, Fused> = HashMap::with_capacity(bm25.len() + vector.len());
    for (i, id) in bm25.iter().enumerate() {
        let f = by_id.entry(*id).or_insert(Fused { id: *id, score: 0.0, bm25_rank: None, vector_rank: None });
        if f.bm25_rank.is_none() {
            f.bm25_rank = Some(i + 1);
            f.score += w_bm25 / (k + (i + 1) as f32);
        }
    }
    for (i, id) in vector.iter().enumerate() {
        let f = by_id.entry(*id).or_insert(Fused { id: *id, score: 0.0, bm25_rank: None, vector_rank: None });
        if f.vector_rank.is_none() {
            f.vector_rank = Some(i + 1);
            f.score += w_vector / (k + (i + 1) as f32);
        }
    }
    let mut out: Vec<Fused> = by_id.into_values().collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    out
}

/// One result of [`search`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HybridHit {
    /// 1-based rank in this result list.
    pub rank: usize,
    /// The fused score (hybrid), the BM25 score (keyword) or the vector score (semantic).
    pub score: f32,
    pub bm25_rank: Option<usize>,
    pub bm25_score: Option<f32>,
    pub vector_rank: Option<usize>,
    /// Cosine similarity of the symbol's vector to the query's, plus its prior
    /// ([`crate::vectors::prior`]: test code -0.10, private -0.05, documented +0.05).
    pub vector_score: Option<f32>,
    pub symbol: SymbolDoc,
}

/// The answer of [`search`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HybridResult {
    pub hits: Vec<HybridHit>,
    /// The mode the ranking used: the one asked for, or `keyword` when semantic ranking
    /// was unavailable.
    pub mode: Mode,
    /// `available`, or `unavailable: <why>`.
    pub semantic: String,
}

/// The query's vector, and the id of the model that made it; or why there is none.
pub type QueryVector<'a> = std::result::Result<(&'a [f32], &'a str), String>;

/// The query's vector and the id of its model, owned; or why there is none (what an
/// embedder hands [`search_embedding`]).
pub type OwnedQueryVector = std::result::Result<(Vec<f32>, String), String>;

/// A borrowed view of an owned query vector.
fn borrowed(v: &OwnedQueryVector) -> QueryVector<'_> {
    v.as_ref().map(|(v, m)| (v.as_slice(), m.as_str())).map_err(Clone::clone)
}

/// [`search`], embedding the query with `embed` only when `mode` needs it. In hybrid mode the
/// BM25 side needs only the text, so it runs while the query is embedded (`rayon::join`)
/// rather than after: a hybrid query costs the longer of the two, not their sum.
pub fn search_embedding(
    index: &SymbolIndex,
    vectors: Option<&VectorIndex>,
    embed: impl FnOnce() -> OwnedQueryVector + Send,
    q: &SearchQuery,
    mode: Mode,
) -> Result<HybridResult> {
    match (mode, vectors) {
        (Mode::Keyword, _) => search(index, vectors, Err(String::new()), q, mode),
        (Mode::Semantic, _) | (Mode::Hybrid, None) => search(index, vectors, borrowed(&embed()), q, mode),
        (Mode::Hybrid, Some(_)) => {
            let bm_query = SearchQuery { limit: DEPTH.max(q.limit), ..q.clone() };
            let (v, bm) = rayon::join(embed, || index.search_ranked(&bm_query));
            search_with(index, vectors, borrowed(&v), q, mode, Some(bm?))
        }
    }
}

/// Searches one repository in `mode`. Without usable vectors (no model, no runtime, no
/// vectors stored, another model) every mode answers from BM25 and says why in `semantic`.
pub fn search(
    index: &SymbolIndex,
    vectors: Option<&VectorIndex>,
    query: QueryVector<'_>,
    q: &SearchQuery,
    mode: Mode,
) -> Result<HybridResult> {
    search_with(index, vectors, query, q, mode, None)
}

/// [`search`], with the BM25 side's ranking (at depth `DEPTH.max(q.limit)`) when it was
/// already run.
fn search_with(
    index: &SymbolIndex,
    vectors: Option<&VectorIndex>,
    query: QueryVector<'_>,
    q: &SearchQuery,
    mode: Mode,
    bm25_ranked: Option<crate::search::RankedHits>,
) -> Result<HybridResult> {
    let semantic_input = match (mode, query, vectors) {
        (Mode::Keyword, _, _) => Err(String::new()),
        (_, Err(why), _) => Err(why),
        (_, Ok(_), None) => Err("the repository has no vectors: re-index it with an embedding model \
                                (--embed-model DIR or CC_EMBED_MODEL)"
            .into()),
        (_, Ok((v, model)), Some(vi)) if vi.header.model_id != model || vi.dim() != v.len() => Err(format!(
            "the repository was embedded with model {}, the query with {model}; re-index it with this model",
            vi.header.model_id
        )),
        (_, Ok((v, _)), Some(vi)) => Ok((v, vi)),
    };
    let (vec_q, vi) = match semantic_input {
        Ok(x) => x,
        Err(why) => {
            let hits = index.search(q)?;
            let semantic = if mode == Mode::Keyword {
                "not used (mode keyword)".to_string()
            } else {
                format!("unavailable: {why}")
            };
            return Ok(HybridResult {
                hits: hits
                    .into_iter()
                    .map(|h| HybridHit {
                        rank: h.rank,
                        score: h.score,
                        bm25_rank: Some(h.rank),
                        bm25_score: Some(h.score),
                        vector_rank: None,
                        vector_score: None,
                        symbol: h.symbol,
                    })
                    .collect(),
                mode: Mode::Keyword,
                semantic,
            });
        }
    };
    let depth = DEPTH.max(q.limit);
    let filter = VectorFilter {
        kinds: q.kinds.iter().map(|k| k.as_str().to_string()).collect(),
        langs: q.langs.iter().map(|l| l.name().to_string()).collect(),
        path_prefix: q.path_prefix.clone(),
        // A query about tests should not have them ranked down.
        priors: !crate::vectors::prior::mentions_tests(&q.text),
    };
    let vhits = vi.search(vec_q, if mode == Mode::Semantic { q.limit } else { depth }, &filter, Strategy::Auto);
    let vscore: HashMap<SymbolId, (usize, f32)> =
        vhits.iter().enumerate().map(|(i, (id, s))| (*id, (i + 1, *s))).collect();
    // BM25 hits are ranked without loading their documents: only the ones shown are loaded.
    let mut ranked: HashMap<SymbolId, crate::search::Ranked> = HashMap::new();
    let mut bm25 = None;
    let fused: Vec<Fused> = if mode == Mode::Semantic {
        vhits
            .iter()
            .map(|(id, s)| Fused { id: *id, score: *s, bm25_rank: None, vector_rank: Some(vscore[id].0) })
            .collect()
    } else {
        let bm = match bm25_ranked {
            Some(bm) => bm,
            None => index.search_ranked(&SearchQuery { limit: depth, ..q.clone() })?,
        };
        let ids: Vec<SymbolId> = bm.hits.iter().map(|h| h.id).collect();
        ranked.extend(bm.hits.iter().map(|h| (h.id, *h)));
        bm25 = Some(bm);
        let (wb, wv) = weights(&q.text);
        let vids: Vec<SymbolId> = vhits.iter().map(|h| h.0).collect();
        fuse(&ids, &vids, wb, wv, RRF_K)
    };
    let bscore = |id: &SymbolId| ranked.get(id).map(|h| (h.rank, h.score));
    let mut hits = Vec::with_capacity(q.limit);
    for f in fused {
        if hits.len() == q.limit {
            break;
        }
        let loaded = match (&bm25, ranked.get(&f.id)) {
            (Some(bm), Some(h)) => Some(bm.load(index, h)?),
            _ => None,
        };
        let symbol = match loaded {
            Some(d) => d,
            // A vector whose symbol is gone from the search index (stale vectors) is skipped.
            None => match index.get(f.id)? {
                Some(d) => d,
                None => continue,
            },
        };
        hits.push(HybridHit {
            rank: hits.len() + 1,
            score: f.score,
            bm25_rank: bscore(&f.id).map(|b| b.0),
            bm25_score: bscore(&f.id).map(|b| b.1),
            vector_rank: vscore.get(&f.id).map(|v| v.0),
            vector_score: vscore.get(&f.id).map(|v| v.1),
            symbol,
        });
    }
    Ok(HybridResult { hits, mode, semantic: "available".into() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_likeness_of_queries() {
        assert_eq!(identifier_likeness("where do we retry failed HTTP requests"), 0.0);
        assert_eq!(identifier_likeness("parse_json"), 1.0);
        assert_eq!(identifier_likeness("parseJsonValue"), 1.0);
        assert_eq!(identifier_likeness("Session.commit"), 1.0);
        assert_eq!(identifier_likeness("crate::walk::walk"), 1.0);
        assert_eq!(identifier_likeness("retry"), 0.5);
        assert_eq!(identifier_likeness("HttpClient retry"), 0.5);
        assert_eq!(identifier_likeness("flush() the buffer"), 1.0 / 3.0);
        assert_eq!(identifier_likeness("   "), 0.0);
        assert_eq!(identifier_likeness("what is e.g. this..."), 0.25);
    }

    #[test]
    fn weights_follow_likeness() {
        let (b, v) = weights("how are tasks woken after a timer fires");
        assert!((b - BM25_MIN).abs() < 1e-6 && (v - 1.0).abs() < 1e-6);
        let (b, v) = weights("spawn_blocking");
        assert!((b - 1.0).abs() < 1e-6 && (v - BM25_MIN).abs() < 1e-6);
    }

    #[test]
    fn fusion_ranks() {
        let id = SymbolId;
        let f = fuse(&[id(1), id(2), id(3)], &[id(3), id(4)], 1.0, 1.0, 10.0);
        // 3 is in both lists: first.
        assert_eq!(f[0].id, id(3));
        assert_eq!((f[0].bm25_rank, f[0].vector_rank), (Some(3), Some(1)));
        assert!((f[0].score - (1.0 / 13.0 + 1.0 / 11.0)).abs() < 1e-6);
        // 1 (bm25 #1) and 4 (vector #2): 1/11 > 1/12.
        assert_eq!(f[1].id, id(1));
        assert_eq!(f.len(), 4);
        // Weighting the vector list up puts its first entries ahead.
        let f = fuse(&[id(1), id(2)], &[id(5), id(6)], 0.2, 1.0, 10.0);
        assert_eq!(f.iter().map(|x| x.id.0).collect::<Vec<_>>(), [5, 6, 1, 2]);
        // Ties by id; duplicates within one list count once.
        let f = fuse(&[id(9), id(9)], &[id(8)], 1.0, 1.0, 10.0);
        assert_eq!(f.iter().map(|x| (x.id.0, x.bm25_rank)).collect::<Vec<_>>(), [(8, None), (9, Some(1))]);
    }

    #[test]
    fn modes_parse() {
        assert_eq!(Mode::parse("Hybrid"), Some(Mode::Hybrid));
        assert_eq!(Mode::parse("semantic"), Some(Mode::Semantic));
        assert_eq!(Mode::parse("dense"), None);
        assert_eq!(Mode::default(), Mode::Hybrid);
    }
}
