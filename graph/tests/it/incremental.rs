//! An incrementally updated graph equals a full build of the same records.

use cc_graph::CallGraph;

use crate::support::records;

const BEFORE: &str = r#"
//- /app/main.py
from app.util import helper
from app.models import Circle

def main():
    helper()
    c = Circle(2)
    c.area()
//- /app/util.py
def helper():
    return compute()

def compute():
    return 1
//- /app/models.py
class Shape:
    def area(self):
        return 0

class Circle(Shape):
    def __init__(self, r):
        self.r = r
        self.describe()

    def describe(self):
        return self.area()
"#;

const AFTER: &str = r#"
//- /app/main.py
from app.util import helper
from app.models import Circle

def main():
    helper()
    c = Circle(2)
    c.area()
//- /app/util.py
def helper():
    return compute() + extra()

def extra():
    return 2
//- /app/models.py
class Shape:
    def area(self):
        return 0

class Circle(Shape):
    def __init__(self, r):
        self.r = r
        self.describe()

    def describe(self):
        return self.area()

    def area(self):
        return 3.14
//- /app/compute.py
def compute():
    return 1
"#;

#[test]
fn update_equals_rebuild() {
    let before = records(BEFORE);
    let after = records(AFTER);
    let mut g = CallGraph::build(&before);
    let stats = g.update(&after);
    assert!(stats.files_changed >= 3, "{stats:?}");
    let full = CallGraph::build(&after);
    assert_eq!(g.edges(), full.edges());
    // And back again.
    g.update(&before);
    assert_eq!(g.edges(), CallGraph::build(&before).edges());
}

#[test]
fn an_unchanged_tree_updates_nothing() {
    let r = records(BEFORE);
    let mut g = CallGraph::build(&r);
    assert_eq!(g.update(&r), Default::default());
}

#[test]
fn save_and_load_round_trip() {
    let r = records(BEFORE);
    let g = CallGraph::build(&r);
    let dir = tempfile::tempdir().unwrap();
    g.save(dir.path(), 1).unwrap();
    // graph.bin holds the resolutions; the symbols come from the records.
    let back = CallGraph::load_with(dir.path(), &r).unwrap();
    assert_eq!(g.edges(), back.edges());
    assert_eq!(g.symbols().count(), back.symbols().count());
    // The counts are current only for the records generation the graph was saved with.
    assert_eq!(CallGraph::saved_counts(dir.path(), 1), Some((g.node_count(), g.edge_count())));
    assert_eq!(CallGraph::saved_counts(dir.path(), 2), None);
    // Without records.bin beside it there is no graph to load.
    assert!(matches!(CallGraph::load(dir.path()), Err(cc_graph::Error::Missing)));
    std::fs::write(dir.path().join("graph.bin"), b"garbage").unwrap();
    assert!(CallGraph::load_with(dir.path(), &r).is_err());
}

/// What `cc-server index` does: the records on disk are already the new ones when the
/// saved graph is loaded; the graph still knows what it was resolved with (hashes,
/// symbol names) and the update equals a full build.
#[test]
fn a_saved_graph_loaded_with_newer_records_updates_to_a_rebuild() {
    let before = records(BEFORE);
    let after = records(AFTER);
    let dir = tempfile::tempdir().unwrap();
    CallGraph::build(&before).save(dir.path(), 1).unwrap();
    let mut g = CallGraph::load_with(dir.path(), &after).unwrap();
    let stats = g.update(&after);
    assert!(stats.files_changed >= 3, "{stats:?}");
    assert_eq!(g.edges(), CallGraph::build(&after).edges());
}

/// The consuming forms (`build_owned`, `save_current`) equal the borrowing ones.
#[test]
fn owned_forms_equal_borrowed_ones() {
    let before = records(BEFORE);
    let after = records(AFTER);
    assert_eq!(CallGraph::build_owned(before.clone()).edges(), CallGraph::build(&before).edges());
    let dir = tempfile::tempdir().unwrap();
    // Nothing saved yet: built anew.
    let saving = CallGraph::save_current(dir.path(), after.clone(), 1, false).unwrap();
    assert!(saving.update.is_none());
    assert_eq!(CallGraph::load_with(dir.path(), &after).unwrap().edges(), CallGraph::build(&after).edges());
    CallGraph::build(&before).save(dir.path(), 2).unwrap();
    let saving = CallGraph::save_current(dir.path(), after.clone(), 3, false).unwrap();
    assert!(saving.update.unwrap().files_changed >= 3);
    assert_eq!(CallGraph::load_with(dir.path(), &after).unwrap().edges(), CallGraph::build(&after).edges());
}

/// The value flow is the whole repository's: a change in one file (a registry filled with
/// another class, a decorator that now wraps) changes what calls in other files resolve to.
#[test]
fn a_flow_change_in_one_file_updates_calls_in_others() {
    const ONE: &str = r#"
//- /app/registry.py
ENGINES = {}

def register(name, cls):
    ENGINES[name] = cls
//- /app/engines.py
from app.registry import register

class Fast:
    def run(self):
        return 1

class Slow:
    def run(self):
        return 2

register("fast", Fast)
//- /app/main.py
from app.registry import ENGINES

def make(kind):
    e = ENGINES[kind]()
    return e.run()
"#;
    let two = ONE.replace(r#"register("fast", Fast)"#, "register(\"fast\", Fast)\nregister(\"slow\", Slow)");
    let three = two.replace("    ENGINES[name] = cls", "    ENGINES[name] = cls\n    return cls");
    let (one, two, three) = (records(ONE), records(&two), records(&three));
    let mut g = CallGraph::build(&one);
    for next in [&two, &three, &one] {
        g.update(next);
        assert_eq!(g.edges(), CallGraph::build(next).edges());
    }
    // The flow is what changed: `make` calls the newly registered class's method.
    let edges = |r| crate::support::resolved_edges(&CallGraph::build(r));
    assert!(!edges(&one).iter().any(|e| e.contains("Slow.run")), "{:?}", edges(&one));
    assert!(edges(&two).contains(&"app.main.make -> app.engines.Slow.run".to_string()), "{:?}", edges(&two));
}

/// Rapid type analysis across files: which implementations some code makes decides what a
/// call of an interface method in another, unchanged file runs. Making a second one there
/// turns its fact edge into possible ones; no longer making it turns it back.
#[test]
fn a_class_made_in_another_file_updates_what_an_interface_call_runs() {
    const ONE: &str = r#"
//- /app/geo/Shape.java
package app.geo;
public interface Shape { double area(); }
//- /app/geo/Circle.java
package app.geo;
public class Circle implements Shape { public double area() { return 3; } }
//- /app/geo/Square.java
package app.geo;
public class Square implements Shape { public double area() { return 4; } }
//- /app/report/Report.java
package app.report;
import app.geo.Shape;
public class Report {
    static double one(Shape s) { return s.area(); }
}
//- /app/main/Main.java
package app.main;
import app.geo.Circle;
public class Main {
    static Object make() { return new Circle(); }
}
"#;
    let two = ONE.replace(
        "return new Circle(); }",
        "return new Circle(); }
    static Object other() { return new app.geo.Square(); }",
    );
    let (one, two) = (records(ONE), records(&two));
    let fact = "app.report.Report.one -> app.geo.Circle.area [inherited]".to_string();
    let mut g = CallGraph::build(&one);
    assert!(crate::support::resolved_edges(&g).contains(&fact), "{:?}", crate::support::resolved_edges(&g));
    // Main's own calls (two, then one), and Report's call of `area`: nothing else.
    for (next, resolved) in [(&two, 3), (&one, 2)] {
        let stats = g.update(next);
        assert_eq!(g.edges(), CallGraph::build(next).edges());
        assert_eq!((stats.files_changed, stats.refs_resolved), (1, resolved), "{stats:?}");
    }
    assert!(!crate::support::resolved_edges(&CallGraph::build(&two)).contains(&fact));
}

const JAVA_BEFORE: &str = r#"
//- /app/util/Strings.java
package app.util;
public class Strings {
    public static boolean hasText(String s) { return s != null && !s.isEmpty(); }
}
//- /app/a/A.java
package app.a;
import app.util.Strings;
public class A {
    public void check(String s) { if (Strings.hasText(s)) { log(s); } }
    void log(String s) {}
}
//- /app/b/B.java
package app.b;
public class B {
    public void run() { step(); step(); }
    void step() {}
}
"#;

/// An edit re-resolves the changed file and the references elsewhere that looked at what
/// it changed, and no other: appending a method to `Strings` re-resolves its own calls (not
/// `A`'s call of `Strings.hasText`, which did not change; not `B`'s); renaming `hasText`
/// re-resolves that call too; one to `B`, only `B`'s.
#[test]
fn an_edit_re_resolves_only_what_looked_at_the_changed_file() {
    let before = records(JAVA_BEFORE);
    let strings = JAVA_BEFORE.replace(
        "!s.isEmpty(); }\n",
        "!s.isEmpty(); }\n    public static boolean isBlank(String s) { return s.trim().isEmpty(); }\n",
    );
    let mut g = CallGraph::build(&before);
    let stats = g.update(&records(&strings));
    assert_eq!((stats.files_changed, stats.refs_resolved), (1, 3), "{stats:?}");
    assert_eq!(g.edges(), CallGraph::build(&records(&strings)).edges());
    let renamed = strings.replace("boolean hasText(", "boolean hasLength(");
    let stats = g.update(&records(&renamed));
    assert_eq!((stats.files_changed, stats.refs_resolved), (1, 3 + 1), "{stats:?}");
    assert_eq!(g.edges(), CallGraph::build(&records(&renamed)).edges());
    let strings = renamed.replace("boolean hasLength(", "boolean hasText(");
    g.update(&records(&strings));
    let b = strings.replace("void step() {}", "void step() {}\n    void other() { step(); }");
    let stats = g.update(&records(&b));
    assert_eq!((stats.files_changed, stats.refs_resolved), (1, 3), "{stats:?}");
    assert_eq!(g.edges(), CallGraph::build(&records(&b)).edges());
}

/// A saved update asks only the files `graph.keys` lists under a changed key (and those the
/// journal changed): appending a method to `Strings` asks neither `A` nor `B`; renaming
/// `hasText` asks `A`, whose call looked it up. Without `graph.keys` (or with one of another
/// `graph.bin`), every unchanged file is asked, and the graph is the same.
#[test]
fn a_saved_update_asks_only_the_files_that_noted_a_changed_key() {
    let appended = JAVA_BEFORE.replace(
        "!s.isEmpty(); }\n",
        "!s.isEmpty(); }\n    public static boolean isBlank(String s) { return s.trim().isEmpty(); }\n",
    );
    let renamed = appended.replace("boolean hasText(", "boolean hasLength(");
    for keys in ["kept", "removed", "stale"] {
        let dir = tempfile::tempdir().unwrap();
        CallGraph::save_current(dir.path(), records(JAVA_BEFORE), 1, true).unwrap();
        let path = dir.path().join("graph.keys");
        assert!(path.is_file());
        match keys {
            "removed" => std::fs::remove_file(&path).unwrap(),
            "stale" => {
                let other = tempfile::tempdir().unwrap();
                CallGraph::save_current(other.path(), records(JAVA_BEFORE), 1, true).unwrap();
                std::fs::copy(other.path().join("graph.keys"), &path).unwrap();
            }
            _ => {}
        }
        let every = keys != "kept";
        for (generation, text, asked) in [(2, &appended, 0), (3, &renamed, 1), (4, &appended, 1)] {
            let saving = CallGraph::save_current(dir.path(), records(text), generation, false).unwrap();
            assert!(saving.layered, "{keys}: generation {generation}");
            let stats = saving.update.unwrap();
            // The third update also asks `A` because the journal changed it.
            assert_eq!(stats.files_asked, if every { 2 } else { asked }, "{keys}: generation {generation}");
            let cold = CallGraph::build(&records(text));
            assert_eq!(
                CallGraph::load_with(dir.path(), &records(text)).unwrap().edges(),
                cold.edges(),
                "{keys}: generation {generation}"
            );
        }
    }
}

/// An index run's update of a file's body is laid over the saved graph (a journal frame and
/// a delta over the map, not the graph written whole) and answers as a cold build does,
/// edit after edit: a function appended, a called function removed, a call moved to
/// another function; files added or deleted are written whole, and so is a journal grown
/// past its share of `graph.bin`.
#[test]
fn an_update_is_laid_over_the_saved_graph_and_answers_as_a_cold_build() {
    use cc_graph::{GraphView, LayeredGraph, MappedGraph};
    let dir = tempfile::tempdir().unwrap();
    let mut generation = 1;
    let first = CallGraph::save_current(dir.path(), records(BEFORE), generation, true).unwrap();
    assert!(first.update.is_none() && !first.layered);
    let edits = [
        BEFORE.replace("def compute():", "def extra():\n    return helper()\n\ndef compute():"),
        BEFORE.replace("def compute():\n    return 1\n", "").replace("return compute()", "return 2"),
        BEFORE
            .replace("    helper()\n    c = Circle(2)", "    c = Circle(2)")
            .replace("        self.r = r\n", "        self.r = helper()\n"),
        BEFORE.replace("class Shape:", "class Shape:\n    def outline(self):\n        return self.area()\n"),
    ];
    for (k, text) in edits.iter().enumerate() {
        generation += 1;
        let saving = CallGraph::save_current(dir.path(), records(text), generation, false).unwrap();
        let cold = CallGraph::build(&records(text));
        assert!(saving.layered, "edit {k} was written whole");
        assert_eq!((saving.nodes, saving.edges), (cold.node_count(), cold.edge_count()), "edit {k}");
        let layered = LayeredGraph::open(dir.path()).unwrap();
        assert_eq!(layered.records_generation(), generation);
        crate::support::same_answers(&format!("edit {k}"), &cold, &layered);
        assert!(
            CallGraph::load_with(dir.path(), &records(text)).unwrap().edges() == cold.edges(),
            "edit {k}: graph.bin"
        );
    }
    assert!(dir.path().join("graph.jnl").is_file() && dir.path().join("graph.delta").is_file());
    // A file added: written whole, the journal and the delta gone with what they were of.
    generation += 1;
    let added = format!("{BEFORE}//- /app/extra.py\ndef more():\n    return 3\n");
    let saving = CallGraph::save_current(dir.path(), records(&added), generation, false).unwrap();
    assert!(!saving.layered && saving.update.is_some());
    assert!(!dir.path().join("graph.jnl").exists() && !dir.path().join("graph.delta").exists());
    assert!(LayeredGraph::open(dir.path()).is_err());
    let cold = CallGraph::build(&records(&added));
    crate::support::same_answers("added", &cold, &MappedGraph::open(dir.path()).unwrap());
    assert_eq!(GraphView::node_count(&MappedGraph::open(dir.path()).unwrap()), cold.node_count());
    // Edits back and forth until the journal outgrows its share: then written whole once.
    let mut whole = 0;
    for k in 0..80 {
        generation += 1;
        let text = if k % 2 == 0 { added.replace("return 3", "return helper()") } else { added.clone() };
        let saving = CallGraph::save_current(dir.path(), records(&text), generation, false).unwrap();
        whole += usize::from(!saving.layered);
        crate::support::same_answers(
            &format!("round {k}"),
            &CallGraph::build(&records(&text)),
            &*cc_graph_view(dir.path()),
        );
    }
    assert!(whole >= 1, "the journal was never folded into graph.bin");
    assert!(whole < 80, "no update was laid over the graph");
}

/// The saved graph in `dir` as a query reads it (the delta over the map when there is one).
fn cc_graph_view(dir: &std::path::Path) -> Box<dyn cc_graph::GraphView> {
    match cc_graph::LayeredGraph::open(dir) {
        Ok(l) => Box::new(l),
        Err(_) => Box::new(cc_graph::MappedGraph::open(dir).unwrap()),
    }
}

/// A run killed as it appended its journal frame leaves a frame that does not read whole: the
/// saved graph is the one before that update, and the next update (whose start the delta
/// is not of) writes the graph whole. A delta of another map is not laid over this one.
#[test]
fn a_torn_journal_frame_and_a_stale_delta_are_not_read() {
    use cc_graph::LayeredGraph;
    let dir = tempfile::tempdir().unwrap();
    CallGraph::save_current(dir.path(), records(BEFORE), 1, true).unwrap();
    let edited = BEFORE.replace("def compute():", "def extra():\n    return helper()\n\ndef compute():");
    assert!(CallGraph::save_current(dir.path(), records(&edited), 2, false).unwrap().layered);
    let journal = dir.path().join("graph.jnl");
    let whole = std::fs::read(&journal).unwrap();
    std::fs::write(&journal, &whole[..whole.len() - 3]).unwrap();
    // graph.bin alone: the graph before the edit.
    let loaded = CallGraph::load_with(dir.path(), &records(BEFORE)).unwrap();
    assert!(loaded.edges() == CallGraph::build(&records(BEFORE)).edges());
    let saving = CallGraph::save_current(dir.path(), records(&edited), 3, false).unwrap();
    assert!(!saving.layered, "an update from a journal behind the delta was laid over it");
    let cold = CallGraph::build(&records(&edited));
    assert!(CallGraph::load_with(dir.path(), &records(&edited)).unwrap().edges() == cold.edges());
    crate::support::same_answers("after a torn frame", &cold, &cc_graph::MappedGraph::open(dir.path()).unwrap());
    // A delta kept from before the graph was written whole: of another map.
    assert!(CallGraph::save_current(dir.path(), records(BEFORE), 4, false).unwrap().layered);
    let delta = std::fs::read(dir.path().join("graph.delta")).unwrap();
    CallGraph::save_current(dir.path(), records(BEFORE), 5, true).unwrap();
    std::fs::write(dir.path().join("graph.delta"), delta).unwrap();
    assert!(matches!(LayeredGraph::open(dir.path()), Err(cc_graph::Error::Missing)));
}

/// graph.bin's entries are decoded late, file by file, so its zstd frame carries a checksum:
/// a byte changed anywhere in it fails the read, and the next update builds the graph whole
/// (no panic, no entry decoded from damaged bytes).
#[test]
fn a_damaged_graph_bin_is_built_again_not_decoded() {
    let before = records(BEFORE);
    let after = records(AFTER);
    let dir = tempfile::tempdir().unwrap();
    CallGraph::build(&before).save(dir.path(), 1).unwrap();
    let path = dir.path().join("graph.bin");
    let mut bin = std::fs::read(&path).unwrap();
    let middle = bin.len() / 2;
    bin[middle] ^= 0x10;
    std::fs::write(&path, bin).unwrap();
    assert!(CallGraph::load_with(dir.path(), &after).is_err(), "a damaged graph.bin was read");
    let saving = CallGraph::save_current(dir.path(), after.clone(), 2, false).unwrap();
    assert!(saving.update.is_none(), "updated over a damaged graph.bin: {:?}", saving.update);
    assert_eq!(CallGraph::load_with(dir.path(), &after).unwrap().edges(), CallGraph::build(&after).edges());
}
