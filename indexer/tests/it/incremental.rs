//! Re-indexing after edits gives exactly what a full index of the new tree gives, and
//! re-parses only what changed.

use crate::support::{index, records, searches, TempRepo};

const TREE: &str = r#"
//- /pkg/net.py
def fetch_url(url):
    """Fetch a URL."""
    return open_connection(url).read()

def open_connection(url):
    return None
//- /pkg/util.py
class RetryPolicy:
    def backoff(self, attempt):
        return 2 ** attempt
//- /src/lib.rs
/// Parses a JSON value.
pub fn parse_json_value(s: &str) -> usize { helper(s) }
fn helper(s: &str) -> usize { s.len() }
//- /web/app.js
function renderPage(title) { return title.toUpperCase(); }
"#;

const QUERIES: &[&str] = &["fetch url", "retry", "parse json", "render page", "helper", "connection"];

fn assert_same_as_full(repo: &TempRepo, incremental_data: &std::path::Path) {
    let fresh = tempfile::tempdir().unwrap();
    index(fresh.path(), &repo.root());
    assert_eq!(records(incremental_data), records(fresh.path()), "records differ from a full index");
    assert_eq!(
        searches(incremental_data, QUERIES),
        searches(fresh.path(), QUERIES),
        "search differs from a full index"
    );
}

#[test]
fn modify_add_delete_rename_equal_a_full_index() {
    let repo = TempRepo::new(TREE);
    let data = tempfile::tempdir().unwrap();
    let first = index(data.path(), &repo.root());
    assert_eq!((first.parsed, first.added), (4, 4));

    // Nothing changed: nothing parsed.
    let again = index(data.path(), &repo.root());
    assert_eq!((again.parsed, again.unchanged), (0, 4));

    // Modify.
    repo.write("pkg/net.py", "def fetch_url(url):\n    return download(url)\n\ndef download(url):\n    pass\n");
    let r = index(data.path(), &repo.root());
    assert_eq!((r.parsed, r.changed, r.added, r.deleted), (1, 1, 0, 0));
    assert_same_as_full(&repo, data.path());

    // Add.
    repo.write("pkg/extra.py", "def retry_forever():\n    pass\n");
    let r = index(data.path(), &repo.root());
    assert_eq!((r.parsed, r.added), (1, 1));
    assert_same_as_full(&repo, data.path());

    // Delete.
    repo.remove("web/app.js");
    let r = index(data.path(), &repo.root());
    assert_eq!((r.parsed, r.deleted), (0, 1));
    assert_same_as_full(&repo, data.path());

    // Rename: a delete plus an add.
    repo.rename("pkg/util.py", "pkg/policy/retry.py");
    let r = index(data.path(), &repo.root());
    assert_eq!((r.parsed, r.added, r.deleted), (1, 1, 1));
    assert_same_as_full(&repo, data.path());
    let text = searches(data.path(), &["retry"]);
    assert!(text.contains("pkg.policy.retry.RetryPolicy"), "{text}");
    assert!(!text.contains("pkg.util.RetryPolicy"), "{text}");
}

#[test]
fn touching_a_file_without_changing_it_does_not_reparse_it() {
    let repo = TempRepo::new(TREE);
    let data = tempfile::tempdir().unwrap();
    index(data.path(), &repo.root());
    let content = std::fs::read_to_string(repo.root().join("src/lib.rs")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    repo.write("src/lib.rs", &content);
    let r = index(data.path(), &repo.root());
    assert_eq!((r.parsed, r.unchanged), (0, 4));
}

#[test]
fn the_same_tree_indexed_twice_is_identical() {
    let a = TempRepo::new(TREE);
    let b = TempRepo::new(TREE);
    let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    index(da.path(), &a.root());
    index(db.path(), &b.root());
    assert_eq!(records(da.path()), records(db.path()));
    assert_eq!(searches(da.path(), QUERIES), searches(db.path(), QUERIES));
}

#[test]
fn ids_do_not_move_when_lines_move() {
    let repo = TempRepo::new(TREE);
    let data = tempfile::tempdir().unwrap();
    index(data.path(), &repo.root());
    let before: Vec<_> =
        records(data.path()).into_iter().flat_map(|f| f.symbols).map(|s| (s.qualified_name, s.id)).collect();
    let text = std::fs::read_to_string(repo.root().join("pkg/net.py")).unwrap();
    repo.write("pkg/net.py", &format!("\n\n# a comment\n{text}"));
    index(data.path(), &repo.root());
    let after: Vec<_> =
        records(data.path()).into_iter().flat_map(|f| f.symbols).map(|s| (s.qualified_name, s.id)).collect();
    assert_eq!(before, after);
}
