//! A temporary repository written from an inline fixture, and helpers to index and
//! compare it.

use std::path::{Path, PathBuf};

use cc_indexer::{index_repository, DataDir, FileRecord, IndexOptions, IndexReport, NoProgress, Repo, SearchQuery};

/// A repository in a temporary folder. `files` is one string with `//- /path` headers.
pub struct TempRepo {
    pub dir: tempfile::TempDir,
}

impl TempRepo {
    pub fn new(files: &str) -> TempRepo {
        let dir = tempfile::tempdir().unwrap();
        let repo = TempRepo { dir };
        for (path, text) in parse_fixture(files) {
            repo.write(&path, &text);
        }
        repo
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("repo")
    }

    pub fn write(&self, path: &str, text: &str) {
        let p = self.root().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn remove(&self, path: &str) {
        std::fs::remove_file(self.root().join(path)).unwrap();
    }

    pub fn rename(&self, from: &str, to: &str) {
        let t = self.root().join(to);
        std::fs::create_dir_all(t.parent().unwrap()).unwrap();
        std::fs::rename(self.root().join(from), t).unwrap();
    }
}

pub use cc_indexer::fixture::parse as parse_fixture;

pub fn index(data: &Path, root: &Path) -> IndexReport {
    let mut opts = IndexOptions::new(root);
    opts.name = Some("repo".into());
    index_repository(&DataDir::new(data), &opts, &NoProgress, None).unwrap()
}

/// A temporary repository of `files`, indexed as "repo" into a temporary data dir, and
/// opened: (the repository, the data dir, the open index).
pub fn indexed(files: &str) -> (TempRepo, tempfile::TempDir, Repo) {
    let repo = TempRepo::new(files);
    let data = tempfile::tempdir().unwrap();
    index(data.path(), &repo.root());
    let open = Repo::open(&DataDir::new(data.path()), "repo").unwrap();
    (repo, data, open)
}

/// Records with the file times zeroed (they differ between two copies of a tree).
pub fn records(data: &Path) -> Vec<FileRecord> {
    let repo = Repo::open(&DataDir::new(data), "repo").unwrap();
    let mut r = repo.records().unwrap();
    for f in &mut r {
        f.mtime_ns = 0;
    }
    r
}

/// What a few searches answer, as text: the ranked ids. (Scores are left out: BM25
/// statistics count deleted documents until tantivy merges their segments, so an
/// incrementally updated index scores slightly differently from a fresh one.)
pub fn searches(data: &Path, queries: &[&str]) -> String {
    let repo = Repo::open(&DataDir::new(data), "repo").unwrap();
    let mut s = String::new();
    for q in queries {
        let hits = repo.symbols.search(&SearchQuery { text: q.to_string(), limit: 20, ..Default::default() }).unwrap();
        s.push_str(&format!("{q}:\n"));
        for h in hits {
            s.push_str(&format!("  {} {}\n", h.symbol.id, h.symbol.qualified_name));
        }
    }
    s
}
