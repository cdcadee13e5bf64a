//! A change on the call graph: "which symbols did base..head change, who calls them, and in
//! which areas should reviewers look?"
//!
//! - Both revisions are indexed by the engine (`engine::index_with`: the same index and graph
//!   as `cc-server index`), each from a git worktree detached at its commit under
//!   `<data>/reviews/worktrees/` (removed once indexed), into `<data>/reviews/index/` under the
//!   name `<repo>-<commit>`: an index is a function of its commit, so one made before (the
//!   base of an earlier review, a head reviewed again) is used as it is.
//! - Changed symbols, within the files `git diff --name-only base head` names: by identity (the
//!   symbol id: path, qualified name, kind, rank — no line numbers) a symbol is *added* (only in
//!   head), *removed* (only in base) or *modified* (in both, and the blake3 of its own text
//!   differs: its span's lines, trailing blanks trimmed, less the lines of the symbols nested
//!   in it — a changed method does not make its class modified).
//! - Impact: each changed symbol's transitive callers, 3 hops (`ops::walk`, impact: calls,
//!   implicit calls and inherited dispatch; no references or possible edges) on head's graph,
//!   on base's for a removed symbol.
//! - Areas: the changed symbols grouped by package — a file's module less its last segment
//!   (`shop.pricing` → `shop`, `cc_indexer::store` → `cc_indexer`), the module itself when it
//!   has one segment, the file's folder when its language names no module — then areas whose
//!   caller sets overlap by half or more (Jaccard ≥ [`SHARED_IMPACT`]) merged into one, named
//!   by their packages joined with `+`. Ordered by blast radius, largest first.
//! - The walkthrough steps through the changed symbols callees first: a step's symbol calls
//!   only changed symbols of earlier steps (Kahn's order over the call edges among them, ties
//!   by file and line; a cycle is broken at its first symbol by file and line, marked). A
//!   reader meets a changed helper before the changed code that relies on it, so each step
//!   reads with what it calls already known.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use cc_graph::{CallGraph, Direction, Follow, Limits, NodeRef};
use cc_indexer::{DataDir, FileRecord, IndexOptions, NoProgress, Symbol, SymbolId};
use serde::Serialize;

use super::git;
use crate::engine::Loaded;
use crate::store::reviews::{Change, ChangedSymbol, Cohort};

/// Caller sets of two areas overlapping at least this much (Jaccard) make one area.
pub const SHARED_IMPACT: f64 = 0.5;
/// Hops of callers the impact follows (`ops::IMPACT_DEPTH`).
pub const IMPACT_DEPTH: usize = crate::ops::IMPACT_DEPTH;

/// Where the time of an analysis went, milliseconds.
#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct Timings {
    /// Making (and removing) the worktrees of the revisions not indexed before.
    pub worktrees_ms: u64,
    pub index_base_ms: u64,
    pub index_head_ms: u64,
    /// `git diff --name-only`, reading both revisions' records and texts of the changed files, and comparing them.
    pub diff_ms: u64,
    /// The callers of every changed symbol, the areas, the walkthrough.
    pub impact_ms: u64,
    pub total_ms: u64,
    /// The base's index was there already (made for an earlier review of this commit).
    pub base_cached: bool,
    pub head_cached: bool,
}

/// A walkthrough step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Step {
    /// 1, 2, 3, …
    pub step: usize,
    pub area: String,
    pub symbol_id: String,
    pub qualified_name: String,
    pub change: Change,
    pub file: String,
    pub line: u32,
    /// The changed symbols it calls (earlier steps, unless `cycle`).
    pub calls: Vec<String>,
    /// The changed symbols that call it.
    pub called_by: Vec<String>,
    /// It was placed to break a cycle of calls among the changed symbols.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub cycle: bool,
}

/// What an analysis found.
#[derive(Debug)]
pub struct Analysis {
    pub base_sha: String,
    pub head_sha: String,
    pub files: Vec<String>,
    pub cohorts: Vec<Cohort>,
    pub walkthrough: Vec<Step>,
    pub timings: Timings,
}

/// Why an analysis failed: a revision (`base`, `head`), or the rest.
#[derive(Debug)]
pub enum AnalysisError {
    Revision { which: &'static str, message: String },
    Failed(String),
}

/// The data dir of reviews' indexes (kept apart from the repositories a workspace lists).
pub fn index_data(data: &DataDir) -> DataDir {
    DataDir::new(data.root.join("reviews").join("index"))
}

fn ms(t: Instant) -> u64 {
    t.elapsed().as_millis() as u64
}

/// Analyzes base..head of the checkout at `root` (repository `repo`). Blocking: git and the
/// indexer run here.
pub fn analyze(data: &DataDir, root: &Path, repo: &str, base: &str, head: &str) -> Result<Analysis, AnalysisError> {
    let started = Instant::now();
    let base_sha = git::commit_of(root, base).map_err(|message| AnalysisError::Revision { which: "base", message })?;
    let head_sha = git::commit_of(root, head).map_err(|message| AnalysisError::Revision { which: "head", message })?;
    let mut t = Timings::default();
    let idx = index_data(data);
    let (base_graph, base_cached, wt_base, ix_base) = indexed(&idx, data, root, repo, &base_sha)?;
    let (head_graph, head_cached, wt_head, ix_head) = indexed(&idx, data, root, repo, &head_sha)?;
    t.worktrees_ms = wt_base + wt_head;
    t.index_base_ms = ix_base;
    t.index_head_ms = ix_head;
    t.base_cached = base_cached;
    t.head_cached = head_cached;

    let d = Instant::now();
    let files = git::changed_files(root, &base_sha, &head_sha).map_err(AnalysisError::Failed)?;
    let wanted: BTreeSet<&str> = files.iter().map(String::as_str).collect();
    let records = |l: &Loaded| -> Result<HashMap<String, FileRecord>, AnalysisError> {
        Ok(l.repo
            .records()
            .map_err(|e| AnalysisError::Failed(format!("reading the index of {repo}: {e}")))?
            .into_iter()
            .filter(|r| wanted.contains(r.path.as_str()))
            .map(|r| (r.path.clone(), r))
            .collect())
    };
    let (base_recs, head_recs) = (records(&base_graph)?, records(&head_graph)?);
    let mut changed: Vec<(ChangedSymbol, String)> = Vec::new(); // (symbol, module)
    for f in &files {
        let (b, h) = (base_recs.get(f), head_recs.get(f));
        if b.is_none() && h.is_none() {
            continue; // not a source file the indexer reads
        }
        let btext = b.and_then(|_| git::show(root, &base_sha, f)).unwrap_or_default();
        let htext = h.and_then(|_| git::show(root, &head_sha, f)).unwrap_or_default();
        let bh = b.map(|r| own_hashes(r, &btext)).unwrap_or_default();
        let hh = h.map(|r| own_hashes(r, &htext)).unwrap_or_default();
        let module = h.or(b).map(|r| r.module.clone()).unwrap_or_default();
        for s in h.map(|r| r.symbols.as_slice()).unwrap_or_default() {
            let change = match bh.get(&s.id) {
                None => Change::Added,
                Some(old) if *old != hh[&s.id] => Change::Modified,
                Some(_) => continue,
            };
            changed.push((changed_symbol(s, change), module.clone()));
        }
        for s in b.map(|r| r.symbols.as_slice()).unwrap_or_default() {
            if !hh.contains_key(&s.id) {
                changed.push((changed_symbol(s, Change::Removed), module.clone()));
            }
        }
    }
    t.diff_ms = ms(d);

    let i = Instant::now();
    // Callers of each changed symbol: (node, its file).
    let mut callers: Vec<BTreeSet<(String, String)>> = Vec::with_capacity(changed.len());
    let (base_g, head_g) = (
        base_graph.call_graph().map_err(AnalysisError::Failed)?,
        head_graph.call_graph().map_err(AnalysisError::Failed)?,
    );
    for (s, _) in &mut changed {
        let g = if s.change == Change::Removed { base_g } else { head_g };
        let set = callers_of(g, &s.id);
        s.callers = set.len();
        callers.push(set);
    }
    let cohorts = group(&changed, &callers);
    let walkthrough = walkthrough(&cohorts, base_g, head_g);
    t.impact_ms = ms(i);
    t.total_ms = ms(started);
    Ok(Analysis { base_sha, head_sha, files, cohorts, walkthrough, timings: t })
}

/// The index of `repo` at `commit` (its checkout at `root`), made now when there is none
/// (add_review_diagram's head). Blocking.
pub fn loaded(data: &DataDir, root: &Path, repo: &str, commit: &str) -> Result<Loaded, String> {
    match indexed(&index_data(data), data, root, repo, commit) {
        Ok((l, ..)) => Ok(l),
        Err(AnalysisError::Failed(m) | AnalysisError::Revision { message: m, .. }) => Err(m),
    }
}

fn changed_symbol(s: &Symbol, change: Change) -> ChangedSymbol {
    ChangedSymbol {
        id: s.id.to_string(),
        name: s.name.clone(),
        qualified_name: s.qualified_name.clone(),
        kind: s.kind.as_str().to_string(),
        file: s.path.clone(),
        line: s.span.start_line,
        change,
        callers: 0,
    }
}

/// The index of `repo` at `commit`, made now from a worktree when there is none:
/// (it loaded, cached, worktree ms, index ms).
fn indexed(
    idx: &DataDir,
    data: &DataDir,
    root: &Path,
    repo: &str,
    commit: &str,
) -> Result<(Loaded, bool, u64, u64), AnalysisError> {
    let name = format!("{repo}-{}", &commit[..commit.len().min(40)]);
    let name = if name.len() > 100 { format!("{}-{commit}", &repo[..repo.len().min(59)]) } else { name };
    if let Ok(l) = Loaded::open(idx, &name) {
        return Ok((l, true, 0, 0));
    }
    let w = Instant::now();
    let path: PathBuf = data.root.join("reviews").join("worktrees").join(format!(
        "{}-{}",
        &commit[..commit.len().min(12)],
        uuid::Uuid::now_v7().simple()
    ));
    git::add_worktree(root, &path, commit).map_err(AnalysisError::Failed)?;
    let mut wt_ms = ms(w);
    let i = Instant::now();
    let opts = IndexOptions { root: path.clone(), name: Some(name.clone()), walk: Default::default() };
    let run = crate::engine::index_with(idx, &opts, &NoProgress, None, None);
    let ix_ms = ms(i);
    let w = Instant::now();
    git::remove_worktree(root, &path);
    wt_ms += ms(w);
    run.map_err(|e| AnalysisError::Failed(format!("indexing {repo} at {commit}: {e:#}")))?;
    let l = Loaded::open(idx, &name).map_err(|e| AnalysisError::Failed(format!("{e:#}")))?;
    Ok((l, false, wt_ms, ix_ms))
}

/// Each symbol's own-text hash: its span's lines less those of the symbols nested in it.
fn own_hashes(r: &FileRecord, text: &[u8]) -> HashMap<SymbolId, [u8; 32]> {
    let text = String::from_utf8_lossy(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut children: HashMap<SymbolId, Vec<(u32, u32)>> = HashMap::new();
    for s in &r.symbols {
        if let Some(p) = s.parent {
            children.entry(p).or_default().push((s.span.start_line, s.span.end_line));
        }
    }
    r.symbols
        .iter()
        .map(|s| {
            let inner = children.get(&s.id).map(Vec::as_slice).unwrap_or_default();
            let mut h = blake3::Hasher::new();
            for n in s.span.start_line..=s.span.end_line {
                // The symbol's own first and last lines count even where a child shares them.
                let nested = n != s.span.start_line && inner.iter().any(|(a, b)| (*a..=*b).contains(&n));
                if nested {
                    continue;
                }
                let line = lines.get(n as usize - 1).copied().unwrap_or_default();
                h.update(line.trim_end().as_bytes());
                h.update(b"\n");
            }
            (s.id, *h.finalize().as_bytes())
        })
        .collect()
}

/// The transitive callers of the symbol `id` (16 hex digits), as (node, file).
fn callers_of(g: &CallGraph, id: &str) -> BTreeSet<(String, String)> {
    let Some(s) = SymbolId::parse(id).and_then(|i| g.symbol(i)) else {
        return BTreeSet::new();
    };
    let (w, _) = crate::ops::walk(g, crate::ops::GraphOp::Impact, s, Some(IMPACT_DEPTH), None, Follow::default())
        .expect("a graph in memory answers every read");
    w.hits
        .into_iter()
        .filter_map(|h| match h.node {
            NodeRef::Symbol(c) => g.symbol(c).map(|c| (c.id.to_string(), c.path.clone())),
            NodeRef::File(p) => Some((format!("<{p}>"), p)),
            NodeRef::External(_) => None,
        })
        .collect()
}

/// The package an area is named by: the module less its last segment (the module itself
/// when it has one), the file's folder when its language names no module.
pub fn package_of(module: &str, file: &str) -> String {
    if module.is_empty() {
        return match file.rsplit_once('/') {
            Some((dir, _)) => dir.to_string(),
            None => ".".to_string(),
        };
    }
    for sep in ["::", ".", "\\", "/"] {
        if let Some((pkg, _)) = module.rsplit_once(sep) {
            if !pkg.is_empty() {
                return pkg.to_string();
            }
        }
    }
    module.to_string()
}

fn jaccard(a: &BTreeSet<(String, String)>, b: &BTreeSet<(String, String)>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let inter = a.intersection(b).count();
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// The areas: by package, then packages of a shared impact merged.
fn group(changed: &[(ChangedSymbol, String)], callers: &[BTreeSet<(String, String)>]) -> Vec<Cohort> {
    // Package -> indexes of its symbols.
    let mut by_pkg: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (s, module)) in changed.iter().enumerate() {
        by_pkg.entry(package_of(module, &s.file)).or_default().push(i);
    }
    let pkgs: Vec<String> = by_pkg.keys().cloned().collect();
    let sets: Vec<BTreeSet<(String, String)>> =
        pkgs.iter().map(|p| by_pkg[p].iter().flat_map(|&i| callers[i].iter().cloned()).collect()).collect();
    // Union-find over packages.
    let mut parent: Vec<usize> = (0..pkgs.len()).collect();
    fn find(p: &mut [usize], i: usize) -> usize {
        let mut r = i;
        while p[r] != r {
            r = p[r];
        }
        p[i] = r;
        r
    }
    for a in 0..pkgs.len() {
        for b in a + 1..pkgs.len() {
            if jaccard(&sets[a], &sets[b]) >= SHARED_IMPACT {
                let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..pkgs.len() {
        let r = find(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    let mut out: Vec<Cohort> = groups
        .into_values()
        .map(|members| {
            let modules: Vec<String> = members.iter().map(|&i| pkgs[i].clone()).collect();
            let idx: Vec<usize> = members.iter().flat_map(|&i| by_pkg[&pkgs[i]].iter().copied()).collect();
            let mut symbols: Vec<ChangedSymbol> = idx.iter().map(|&i| changed[i].0.clone()).collect();
            symbols.sort_by(|a, b| (&a.file, a.line, &a.qualified_name).cmp(&(&b.file, b.line, &b.qualified_name)));
            let own: BTreeSet<&str> = symbols.iter().map(|s| s.id.as_str()).collect();
            let all: BTreeSet<&(String, String)> =
                idx.iter().flat_map(|&i| callers[i].iter()).filter(|(n, _)| !own.contains(n.as_str())).collect();
            let files: BTreeSet<String> = symbols.iter().map(|s| s.file.clone()).collect();
            let caller_files: BTreeSet<String> = all.iter().map(|(_, f)| f.clone()).collect();
            Cohort {
                area: modules.join("+"),
                modules,
                files: files.into_iter().collect(),
                symbols,
                callers: all.len(),
                caller_files: caller_files.into_iter().collect(),
                summary: None,
                summary_by: None,
            }
        })
        .collect();
    out.sort_by(|a, b| b.callers.cmp(&a.callers).then(a.area.cmp(&b.area)));
    out
}

/// The walkthrough: callees first (see the module doc).
fn walkthrough(cohorts: &[Cohort], base: &CallGraph, head: &CallGraph) -> Vec<Step> {
    let all: Vec<(&str, &ChangedSymbol)> =
        cohorts.iter().flat_map(|c| c.symbols.iter().map(move |s| (c.area.as_str(), s))).collect();
    let pos: HashMap<&str, usize> = all.iter().enumerate().map(|(i, (_, s))| (s.id.as_str(), i)).collect();
    // calls[i]: the changed symbols i calls (one hop).
    let mut calls: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); all.len()];
    for (i, (_, s)) in all.iter().enumerate() {
        let g = if s.change == Change::Removed { base } else { head };
        let Some(id) = SymbolId::parse(&s.id) else { continue };
        let w = g.walk(id, Direction::Outgoing, Limits { depth: 1, nodes: 10_000 }, Follow::default());
        for h in w.hits {
            if let NodeRef::Symbol(c) = h.node {
                if let Some(&j) = pos.get(c.to_string().as_str()) {
                    if j != i {
                        calls[i].insert(j);
                    }
                }
            }
        }
    }
    let key = |i: usize| (all[i].1.file.as_str(), all[i].1.line, all[i].1.qualified_name.as_str());
    let mut placed = vec![false; all.len()];
    let mut order: Vec<(usize, bool)> = Vec::new();
    while order.len() < all.len() {
        let ready =
            (0..all.len()).filter(|&i| !placed[i] && calls[i].iter().all(|&j| placed[j])).min_by_key(|&i| key(i));
        let (next, cycle) = match ready {
            Some(i) => (i, false),
            None => ((0..all.len()).filter(|&i| !placed[i]).min_by_key(|&i| key(i)).expect("one is left"), true),
        };
        placed[next] = true;
        order.push((next, cycle));
    }
    order
        .into_iter()
        .enumerate()
        .map(|(n, (i, cycle))| {
            let (area, s) = all[i];
            let names = |v: Vec<usize>| -> Vec<String> {
                let mut v: Vec<String> = v.into_iter().map(|j| all[j].1.qualified_name.clone()).collect();
                v.sort();
                v
            };
            Step {
                step: n + 1,
                area: area.to_string(),
                symbol_id: s.id.clone(),
                qualified_name: s.qualified_name.clone(),
                change: s.change,
                file: s.file.clone(),
                line: s.line,
                calls: names(calls[i].iter().copied().collect()),
                called_by: names((0..all.len()).filter(|&j| calls[j].contains(&i)).collect()),
                cycle,
            }
        })
        .collect()
}

/// The walkthrough as text, for the review's space.
pub fn walkthrough_text(steps: &[Step]) -> String {
    let mut out = String::from("Walkthrough (callees first: each step calls only changed code of earlier steps):\n");
    for s in steps {
        let change = match s.change {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Modified => "modified",
        };
        out.push_str(&format!("{}. [{change}] {} ({}:{}, area {})", s.step, s.qualified_name, s.file, s.line, s.area));
        if !s.calls.is_empty() {
            out.push_str(&format!("; calls {}", s.calls.join(", ")));
        }
        if !s.called_by.is_empty() {
            out.push_str(&format!("; called by {}", s.called_by.join(", ")));
        }
        if s.cycle {
            out.push_str(" (breaks a cycle of calls)");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::{group, package_of};
    use crate::store::reviews::{Change, ChangedSymbol};

    fn sym(id: &str, file: &str) -> ChangedSymbol {
        ChangedSymbol {
            id: id.into(),
            name: id.into(),
            qualified_name: id.into(),
            kind: "function".into(),
            file: file.into(),
            line: 1,
            change: Change::Modified,
            callers: 0,
        }
    }

    fn callers(ids: &[&str]) -> BTreeSet<(String, String)> {
        ids.iter().map(|i| (i.to_string(), format!("{i}.py"))).collect()
    }

    /// Packages whose callers overlap by half or more are one area; less, two.
    #[test]
    fn packages_of_a_shared_impact_are_one_area() {
        let changed = vec![
            (sym("a1", "a/x.py"), "a.x".to_string()),
            (sym("b1", "b/y.py"), "b.y".to_string()),
            (sym("c1", "c/z.py"), "c.z".to_string()),
        ];
        // a and b share 2 of their 3 callers (2/3 >= 0.5); c shares 1 of 4 with a (0.25).
        let sets = vec![callers(&["p", "q"]), callers(&["p", "q", "r"]), callers(&["q", "s", "t"])];
        let areas = group(&changed, &sets);
        let names: Vec<&str> = areas.iter().map(|c| c.area.as_str()).collect();
        assert_eq!(names, ["a+b", "c"]);
        assert_eq!((areas[0].callers, areas[0].modules.clone()), (3, vec!["a".to_string(), "b".to_string()]));
        assert_eq!(areas[1].caller_files, ["q.py", "s.py", "t.py"]);
    }

    #[test]
    fn an_area_is_a_modules_package() {
        assert_eq!(package_of("shop.pricing", "shop/pricing.py"), "shop");
        assert_eq!(package_of("sqlalchemy.orm.session", "lib/sqlalchemy/orm/session.py"), "sqlalchemy.orm");
        assert_eq!(package_of("cc_indexer::store", "indexer/src/store.rs"), "cc_indexer");
        assert_eq!(package_of("main", "main.py"), "main");
        assert_eq!(package_of("", "web/src/app.js"), "web/src");
        assert_eq!(package_of("", "app.js"), ".");
    }
}
