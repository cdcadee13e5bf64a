//! A small Okapi BM25 over short texts held in memory (the tool catalog, the agents'
//! skills and descriptions): "which of these few documents does this query name?".
//! Words are the code tokenizer's (identifiers split, lower-cased) with a light stem.

use std::collections::HashMap;

/// The words of `text`: the code tokenizer's tokens, each lightly stemmed.
pub fn words(text: &str) -> Vec<String> {
    let mut v = Vec::new();
    cc_indexer::tokenize::tokens(text, |_, _, tok| v.push(stem(&tok)));
    v
}

/// A query's terms, stemmed as [`words`] are.
pub fn query_terms(query: &str) -> Vec<String> {
    cc_indexer::tokenize::query_terms(query).iter().map(|t| stem(t)).collect()
}

/// A query's terms that carry meaning: [`query_terms`] without English function words
/// ("the", "with", "please"), which every description has and which would make any text
/// "match" anything.
pub fn content_terms(query: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    query_terms(query).into_iter().filter(|t| !STOPWORDS.contains(&t.as_str()) && seen.insert(t.clone())).collect()
}

/// English function words (already lower-case; stemmed forms never differ from these).
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "into",
    "is", "it", "its", "just", "look", "me", "my", "need", "no", "not", "of", "on", "or", "our", "out", "please",
    "she", "should", "so", "some", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "to", "up", "us", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "would",
    "you", "your",
];

/// Okapi BM25 (k1 = 1.2, b = 0.75) of `terms` against each of `docs` (their [`words`]),
/// by document index; documents that match no term are left out; best first, ties by index.
pub fn bm25(docs: &[Vec<String>], terms: &[String]) -> Vec<(usize, f32)> {
    let n = docs.len() as f32;
    let avg = docs.iter().map(Vec::len).sum::<usize>() as f32 / n.max(1.0);
    let mut df: HashMap<&str, f32> = HashMap::new();
    for d in docs {
        let mut seen: Vec<&str> = d.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for w in seen {
            *df.entry(w).or_default() += 1.0;
        }
    }
    let mut out: Vec<(usize, f32)> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let len = d.len() as f32;
            let score = terms
                .iter()
                .map(|q| {
                    let tf = d.iter().filter(|w| *w == q).count() as f32;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let df = df.get(q.as_str()).copied().unwrap_or(0.0);
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len / avg.max(1.0)))
                })
                .sum();
            (i, score)
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// A light plural/verb-form fold, so `callers` matches `caller` and `searching` `search`.
pub fn stem(w: &str) -> String {
    for suf in ["ing", "ers", "es", "er", "s"] {
        if w.len() > suf.len() + 3 {
            if let Some(s) = w.strip_suffix(suf) {
                return s.to_string();
            }
        }
    }
    w.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        assert_eq!(stem("callers"), "call");
        assert_eq!(stem("searching"), "search");
        assert_eq!(stem("code"), "code");
    }

    #[test]
    fn function_words_match_nothing() {
        assert_eq!(content_terms("Please look at the discounts in the cart, the cart!"), ["discount", "cart"]);
        assert!(content_terms("can you help me with this").iter().all(|t| t == "help"));
        let docs = vec![words("knows the Rust cart code"), words("leads the team")];
        assert!(bm25(&docs, &content_terms("the of and")).is_empty());
    }

    #[test]
    fn the_document_naming_the_query_ranks_first() {
        let docs: Vec<Vec<String>> = ["python database migrations", "rust async runtime", "frontend css layout"]
            .iter()
            .map(|d| words(d))
            .collect();
        let r = bm25(&docs, &query_terms("migrate the database schema"));
        assert_eq!(r[0].0, 0);
        assert!(bm25(&docs, &query_terms("quantum chromodynamics")).is_empty());
    }
}
