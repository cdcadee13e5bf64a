//! The labelled call-graph suite: `tests/suite/<lang>.txt` holds small multi-file cases
//! with the call edges a person expects. Precision and recall of the resolved
//! (non-ambiguous) edges are computed per language and must not drop below what the
//! suite file records on its first line (`# recorded: precision P recall R`).
//! Every language of the language table must have a suite file.
//!
//! Case format:
//! ```text
//! === name of the case
//! //- /path/a.py
//! source…
//! --- expect
//! a.caller -> b.callee
//! ```

use std::collections::BTreeSet;

use cc_graph::CallGraph;

use crate::support::{records, resolved_edges};

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

fn score_suite(suite: &Suite, file: &str, report: &mut String) -> Score {
    let mut total = Score::default();
    for c in &suite.cases {
        let g = CallGraph::build(&records(&c.fixture));
        let got: BTreeSet<String> = resolved_edges(&g).into_iter().collect();
        let tp = got.intersection(&c.expect).count();
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
        total.tp += tp;
        total.fp += fp.len();
        total.fn_ += fn_.len();
    }
    total
}

/// Minimum number of cases per language, and for the five measured most closely.
fn min_cases(lang: &str) -> usize {
    match lang {
        "python" | "typescript" | "go" | "java" | "rust" => 25,
        _ => 8,
    }
}

#[test]
fn precision_and_recall_per_language() {
    let dir = cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("tests/suite");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let mut table = String::from("language      cases  edges  precision  recall  (recorded)\n");
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
        let s = score_suite(&suite, &lang, &mut details);
        let edges: usize = suite.cases.iter().map(|c| c.expect.len()).sum();
        table.push_str(&format!(
            "{lang:<13} {:>5} {:>6}  {:>9.3} {:>7.3}  ({:.3} {:.3})\n",
            suite.cases.len(),
            edges,
            s.precision(),
            s.recall(),
            suite.precision,
            suite.recall
        ));
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
    if only.is_none() {
        for lang in cc_grammars::Lang::all().filter(|l| *l != cc_grammars::Lang::Tsx) {
            if !files.iter().any(|f| f.file_stem().is_some_and(|s| s == lang.name())) {
                failures.push(format!("{lang}: no suite file tests/suite/{lang}.txt"));
            }
        }
    }
    println!("{table}\n{details}");
    assert!(failures.is_empty(), "{}\n\n{table}\n{details}", failures.join("\n"));
}
