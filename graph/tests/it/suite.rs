//! The labelled call-graph suite: `tests/suite/<lang>.txt` holds small multi-file cases
//! with the edges a person expects. Precision and recall of the edges the graph states
//! (every kind; possible edges apart) are computed per language and must not drop below
//! what the suite file records on its first line (`# recorded: precision P recall R`);
//! they are printed per kind too. Every language of the language table must have a suite
//! file.
//!
//! Case format (an edge without a kind is a `call`; `[possible]`: one candidate of a call
//! whose receiver or name the graph cannot decide, which walks leave out by default; a
//! case that lists none does not score them):
//! ```text
//! === name of the case
//! //- /path/a.py
//! source…
//! --- expect
//! a.caller -> b.callee
//! a.caller -> b.Class.__init__ [constructor]
//! a.caller -> b.handler [reference]
//! a.caller -> c.Other.save [possible]
//! ```

use std::collections::BTreeSet;

use cc_graph::CallGraph;

use std::collections::BTreeMap;

use crate::support::{edge_kind, records, resolved_edges};

struct Case {
    name: String,
    fixture: String,
    expect: BTreeSet<String>,
}

struct Suite {
    precision: f64,
    recall: f64,
    cases: Vec<Case>,
}

fn parse_suite(text: &str, file: &str) -> Suite {
    let mut lines = text.lines();
    let head = lines.next().unwrap_or_default();
    let nums: Vec<f64> = head
        .strip_prefix("# recorded:")
        .unwrap_or_else(|| panic!("{file}: first line must be `# recorded: precision P recall R`"))
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(nums.len(), 2, "{file}: first line must be `# recorded: precision P recall R`");
    let mut cases: Vec<Case> = Vec::new();
    let mut in_expect = false;
    for line in lines {
        if let Some(name) = line.strip_prefix("=== ") {
            cases.push(Case { name: name.trim().to_string(), fixture: String::new(), expect: BTreeSet::new() });
            in_expect = false;
        } else if line.trim() == "--- expect" {
            in_expect = true;
        } else if let Some(c) = cases.last_mut() {
            if in_expect {
                let l = line.trim();
                if !l.is_empty() && !l.starts_with('#') {
                    assert!(l.contains(" -> "), "{file}: case '{}': bad expect line '{l}'", c.name);
                    let k = edge_kind(l);
                    assert!(
                        k == "possible" || cc_graph::EdgeKind::parse(k).is_some(),
                        "{file}: case '{}': unknown edge kind in '{l}'",
                        c.name
                    );
                    c.expect.insert(l.to_string());
                }
            } else {
                c.fixture.push_str(line);
                c.fixture.push('\n');
            }
        }
    }
    Suite { precision: nums[0], recall: nums[1], cases }
}

#[derive(Default)]
struct Score {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Score {
    fn precision(&self) -> f64 {
        if self.tp + self.fp == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fp) as f64
        }
    }
    fn recall(&self) -> f64 {
        if self.tp + self.fn_ == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fn_) as f64
        }
    }
}

/// Scores per kind (`possible` included) of one suite.
fn score_suite(suite: &Suite, file: &str, report: &mut String) -> BTreeMap<String, Score> {
    let mut kinds: BTreeMap<String, Score> = BTreeMap::new();
    for c in &suite.cases {
        let g = CallGraph::build(&records(&c.fixture));
        // A case that lists no possible edge does not score them.
        let scores_possible = c.expect.iter().any(|e| edge_kind(e) == "possible");
        let got: BTreeSet<String> =
            resolved_edges(&g).into_iter().filter(|e| scores_possible || edge_kind(e) != "possible").collect();
        let fp: Vec<_> = got.difference(&c.expect).collect();
        let fn_: Vec<_> = c.expect.difference(&got).collect();
        if !fp.is_empty() || !fn_.is_empty() {
            report.push_str(&format!("  {file} / {}:\n", c.name));
            for e in &fp {
                report.push_str(&format!("    unexpected {e}\n"));
            }
            for e in &fn_ {
                report.push_str(&format!("    missing    {e}\n"));
            }
        }
        for e in got.intersection(&c.expect) {
            kinds.entry(edge_kind(e).to_string()).or_default().tp += 1;
        }
        for e in fp {
            kinds.entry(edge_kind(e).to_string()).or_default().fp += 1;
        }
        for e in fn_ {
            kinds.entry(edge_kind(e).to_string()).or_default().fn_ += 1;
        }
    }
    kinds
}

/// What the graph states: every kind but `possible`.
fn facts(kinds: &BTreeMap<String, Score>) -> Score {
    let mut s = Score::default();
    for v in kinds.iter().filter(|(k, _)| *k != "possible").map(|(_, v)| v) {
        s.tp += v.tp;
        s.fp += v.fp;
        s.fn_ += v.fn_;
    }
    s
}

/// Minimum number of cases per language, and for the five measured most closely.
fn min_cases(lang: &str) -> usize {
    match lang {
        "python" | "typescript" | "go" | "java" | "rust" => 25,
        _ => 8,
    }
}

/// The suite files, `tests/suite/<lang>.txt`, sorted.
fn suite_files() -> Vec<std::path::PathBuf> {
    let dir = cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("tests/suite");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

#[test]
fn precision_and_recall_per_language() {
    let files = suite_files();
    let mut table = String::from("language      cases  edges  precision  recall  (recorded)\n");
    let mut by_kind = String::from("language      kind          expected  found  precision  recall\n");
    let mut all_kinds: BTreeMap<String, Score> = BTreeMap::new();
    let mut details = String::new();
    let mut failures = Vec::new();
    // CC_SUITE=python,go runs only those languages' suites (while writing them).
    let only: Option<Vec<String>> =
        std::env::var("CC_SUITE").ok().map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    for f in &files {
        let lang = f.file_stem().unwrap().to_string_lossy().into_owned();
        if only.as_ref().is_some_and(|o| !o.contains(&lang)) {
            continue;
        }
        let suite = parse_suite(&std::fs::read_to_string(f).unwrap(), &lang);
        let kinds = score_suite(&suite, &lang, &mut details);
        let s = facts(&kinds);
        let edges: usize =
            suite.cases.iter().map(|c| c.expect.iter().filter(|e| edge_kind(e) != "possible").count()).sum();
        table.push_str(&format!(
            "{lang:<13} {:>5} {:>6}  {:>9.3} {:>7.3}  ({:.3} {:.3})\n",
            suite.cases.len(),
            edges,
            s.precision(),
            s.recall(),
            suite.precision,
            suite.recall
        ));
        for (k, v) in &kinds {
            by_kind.push_str(&format!(
                "{lang:<13} {k:<12} {:>9} {:>6}  {:>9.3} {:>7.3}\n",
                v.tp + v.fn_,
                v.tp + v.fp,
                v.precision(),
                v.recall()
            ));
            let a = all_kinds.entry(k.clone()).or_default();
            a.tp += v.tp;
            a.fp += v.fp;
            a.fn_ += v.fn_;
        }
        if suite.cases.len() < min_cases(&lang) {
            failures.push(format!("{lang}: {} cases, at least {} wanted", suite.cases.len(), min_cases(&lang)));
        }
        if s.precision() + 1e-9 < suite.precision {
            failures.push(format!("{lang}: precision {:.3} < recorded {:.3}", s.precision(), suite.precision));
        }
        if s.recall() + 1e-9 < suite.recall {
            failures.push(format!("{lang}: recall {:.3} < recorded {:.3}", s.recall(), suite.recall));
        }
    }
    for (k, v) in &all_kinds {
        by_kind.push_str(&format!(
            "{:<13} {k:<12} {:>9} {:>6}  {:>9.3} {:>7.3}\n",
            "(all)",
            v.tp + v.fn_,
            v.tp + v.fp,
            v.precision(),
            v.recall()
        ));
    }
    if only.is_none() {
        for lang in cc_grammars::Lang::all().filter(|l| *l != cc_grammars::Lang::Tsx) {
            if !files.iter().any(|f| f.file_stem().is_some_and(|s| s == lang.name())) {
                failures.push(format!("{lang}: no suite file tests/suite/{lang}.txt"));
            }
        }
    }
    println!("{table}\n{by_kind}\n{details}");
    assert!(failures.is_empty(), "{}\n\n{table}\n{by_kind}\n{details}", failures.join("\n"));
}

/// Every case of every suite file, as (language/case name, fixture): a corpus of small
/// repositories in every language, for tests that compare two forms of one graph.
pub(crate) fn all_fixtures() -> Vec<(String, String)> {
    let files = suite_files();
    let mut out = Vec::new();
    for f in &files {
        let lang = f.file_stem().unwrap().to_string_lossy().into_owned();
        let suite = parse_suite(&std::fs::read_to_string(f).unwrap(), &lang);
        out.extend(suite.cases.into_iter().map(|c| (format!("{lang}/{}", c.name), c.fixture)));
    }
    out
}
