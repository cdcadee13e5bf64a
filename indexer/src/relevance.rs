//! Relevance measurement: labelled query sets (`tests/data/relevance/*.json`) and their
//! MRR@10 and recall@10 per search mode.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::hybrid::Mode;
use crate::tokenize::{query_terms, split_identifier};

/// Results looked at per query.
pub const AT: usize = 10;

/// A labelled query set.
#[derive(Clone, Debug, Deserialize)]
pub struct QuerySet {
    pub about: String,
    /// The repositories the queries are over, by name.
    pub repos: BTreeMap<String, RepoRef>,
    pub queries: Vec<LabeledQuery>,
}

/// Where a query set's repository comes from: a path in this repository, or a public
/// repository at a pinned commit (benchmarks).
#[derive(Clone, Debug, Deserialize)]
pub struct RepoRef {
    pub path: Option<String>,
    pub url: Option<String>,
    pub commit: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct LabeledQuery {
    pub query: String,
    /// The repository (of `repos`); the only one when absent.
    #[serde(default)]
    pub repo: Option<String>,
    /// Qualified names of the symbols that answer the query.
    pub expect: Vec<String>,
    /// The query has no word of any answer's name.
    pub no_shared_word: bool,
}

impl QuerySet {
    pub fn parse(json: &str) -> Result<QuerySet, String> {
        let set: QuerySet = serde_json::from_str(json).map_err(|e| e.to_string())?;
        for (i, q) in set.queries.iter().enumerate() {
            if q.expect.is_empty() {
                return Err(format!("/queries/{i}: expect is empty"));
            }
            match &q.repo {
                Some(r) if !set.repos.contains_key(r) => return Err(format!("/queries/{i}/repo: unknown repo '{r}'")),
                None if set.repos.len() != 1 => return Err(format!("/queries/{i}/repo: missing (several repos)")),
                _ => {}
            }
        }
        Ok(set)
    }

    /// The queries whose `no_shared_word` label disagrees with their words.
    pub fn mislabelled(&self) -> Vec<&LabeledQuery> {
        self.queries.iter().filter(|q| q.no_shared_word == shares_word(&q.query, &q.expect)).collect()
    }
}

/// The last segment of a qualified name (`a.b.C.f`, `a::b::f` -> `f`).
pub fn short_name(qualified: &str) -> &str {
    let cut = qualified.rfind("::").map(|i| i + 2).max(qualified.rfind('.').map(|i| i + 1)).unwrap_or(0);
    &qualified[cut..]
}

/// Whether the query has a word (code tokenizer, lower-cased) of one of the names.
pub fn shares_word(query: &str, qualified_names: &[String]) -> bool {
    let terms = query_terms(query);
    qualified_names.iter().any(|q| {
        let name = short_name(q);
        let mut words: Vec<String> = split_identifier(name).into_iter().map(|(_, w)| w).collect();
        words.push(name.to_lowercase());
        words.iter().any(|w| terms.contains(w))
    })
}

/// Reciprocal rank of the first answer within [`AT`], and the share of answers within [`AT`].
pub fn score(ranked: &[String], expect: &[String]) -> (f64, f64) {
    let top = &ranked[..ranked.len().min(AT)];
    let rr = top.iter().position(|r| expect.contains(r)).map_or(0.0, |i| 1.0 / (i + 1) as f64);
    let found = expect.iter().filter(|e| top.contains(e)).count();
    (rr, found as f64 / expect.len() as f64)
}

/// MRR@10 and recall@10 over some queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Metrics {
    pub queries: usize,
    pub mrr: f64,
    pub recall: f64,
}

impl Metrics {
    fn add(&mut self, (rr, recall): (f64, f64)) {
        // Running means.
        self.queries += 1;
        let n = self.queries as f64;
        self.mrr += (rr - self.mrr) / n;
        self.recall += (recall - self.recall) / n;
    }
}

/// A mode's metrics over all queries, those sharing no word with the answer, and the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ModeReport {
    pub all: Metrics,
    pub no_shared_word: Metrics,
    pub shared_word: Metrics,
}

/// Runs every query in every mode; `search` answers qualified names, best first.
pub fn evaluate(
    set: &QuerySet,
    mut search: impl FnMut(&LabeledQuery, Mode) -> Vec<String>,
) -> BTreeMap<&'static str, ModeReport> {
    let mut out = BTreeMap::new();
    for mode in Mode::ALL {
        let mut r = ModeReport::default();
        for q in &set.queries {
            let s = score(&search(q, mode), &q.expect);
            r.all.add(s);
            if q.no_shared_word {
                r.no_shared_word.add(s);
            } else {
                r.shared_word.add(s);
            }
        }
        out.insert(mode.as_str(), r);
    }
    out
}

/// The report as a table.
pub fn table(report: &BTreeMap<&'static str, ModeReport>) -> String {
    let mut s = format!(
        "{:<9} {:>8} {:>10} {:>14} {:>16} {:>12} {:>14}\n",
        "mode", "MRR@10", "recall@10", "no-shared MRR", "no-shared recall", "shared MRR", "shared recall"
    );
    for (m, r) in report {
        s.push_str(&format!(
            "{:<9} {:>8.3} {:>10.3} {:>14.3} {:>16.3} {:>12.3} {:>14.3}\n",
            m,
            r.all.mrr,
            r.all.recall,
            r.no_shared_word.mrr,
            r.no_shared_word.recall,
            r.shared_word.mrr,
            r.shared_word.recall
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(score(&s(&["a", "b", "c"]), &s(&["c"])), (1.0 / 3.0, 1.0));
        assert_eq!(score(&s(&["a", "b"]), &s(&["b", "z"])), (0.5, 0.5));
        assert_eq!(score(&s(&["a"]), &s(&["z"])), (0.0, 0.0));
        let late: Vec<String> = (0..20).map(|i| i.to_string()).collect();
        assert_eq!(score(&late, &s(&["10"])), (0.0, 0.0));
        assert_eq!(score(&late, &s(&["9"])), (0.1, 1.0));
    }

    #[test]
    fn shared_words() {
        let n = |v: &str| vec![v.to_string()];
        assert!(!shares_word("where do we retry failed requests", &n("net.http.backoff_with_jitter")));
        assert!(shares_word("jitter for retries", &n("net.http.backoff_with_jitter")));
        assert!(shares_word("HttpClient", &n("net.http.HttpClient")));
        assert!(!shares_word("find documents", &n("engine::InvertedIndex::intersect")));
        assert_eq!(short_name("a::B::c"), "c");
        assert_eq!(short_name("a.B.c"), "c");
        assert_eq!(short_name("c"), "c");
    }

    #[test]
    fn parse_checks_sets() {
        let e = QuerySet::parse(
            r#"{"about":"","repos":{"a":{},"b":{}},"queries":[{"query":"x","expect":["f"],"no_shared_word":true}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("/queries/0/repo"), "{e}");
        let e = QuerySet::parse(
            r#"{"about":"","repos":{"a":{}},"queries":[{"query":"x","expect":[],"no_shared_word":true}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("expect is empty"), "{e}");
    }

    #[test]
    fn metrics_are_means() {
        let set = QuerySet::parse(
            r#"{"about":"","repos":{"a":{}},"queries":[
                {"query":"q1","expect":["x"],"no_shared_word":true},
                {"query":"x","expect":["x"],"no_shared_word":false}]}"#,
        )
        .unwrap();
        let r = evaluate(&set, |q, m| match (m, q.query.as_str()) {
            (Mode::Keyword, "x") => vec!["x".into()],
            (Mode::Keyword, _) => vec![],
            _ => vec!["y".into(), "x".into()],
        });
        assert_eq!(r["keyword"].all, Metrics { queries: 2, mrr: 0.5, recall: 0.5 });
        assert_eq!(r["keyword"].shared_word.mrr, 1.0);
        assert_eq!(r["hybrid"].no_shared_word, Metrics { queries: 1, mrr: 0.5, recall: 1.0 });
    }
}
