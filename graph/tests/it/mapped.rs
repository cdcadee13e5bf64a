//! `graph.map` answers every query as the graph in memory does: for every case of the
//! suite (all languages), every symbol's callers, callees and impact with each option, name
//! lookups and file listings are compared between [`CallGraph`] and [`MappedGraph`]. A
//! damaged, truncated, stale or other-version map is refused, never read wrong.

use cc_graph::{CallGraph, Direction, Follow, GraphView, Limits, MappedGraph, MAP_FILE};

use crate::support::records;

#[test]
fn the_map_answers_as_the_graph_in_memory_for_every_suite_case() {
    let cases = crate::suite::all_fixtures();
    assert!(cases.len() > 100, "{} cases", cases.len());
    let tmp = tempfile::tempdir().unwrap();
    let mut edges = 0;
    for (case, fixture) in &cases {
        let g = CallGraph::build(&records(fixture));
        g.save(tmp.path(), 7).unwrap();
        let m = MappedGraph::open(tmp.path()).unwrap();
        assert_eq!(m.records_generation(), 7);
        crate::support::same_answers(case, &g, &m);
        edges += g.edge_count();
    }
    assert!(edges > 1000, "{edges} edges over the suite");
}

/// A graph of a few files with calls between them, saved into a new folder.
fn saved() -> (tempfile::TempDir, CallGraph) {
    let g = CallGraph::build(&records(
        "//- /app/a.py\nfrom app.b import helper\n\ndef main():\n    helper()\n    run()\n\ndef run():\n    helper()\n\
         //- /app/b.py\ndef helper():\n    return 1\n",
    ));
    let tmp = tempfile::tempdir().unwrap();
    g.save(tmp.path(), 1).unwrap();
    (tmp, g)
}

fn helper_callers(m: &MappedGraph) -> cc_graph::Result<usize> {
    let id = GraphView::find(m, "app.b.helper")?[0].id;
    Ok(m.walk(id, Direction::Incoming, Limits::default(), Follow::default())?.hits.len())
}

#[test]
fn a_damaged_map_is_refused_where_it_is_read() {
    let (tmp, _) = saved();
    let path = tmp.path().join(MAP_FILE);
    let good = std::fs::read(&path).unwrap();
    assert_eq!(helper_callers(&MappedGraph::open(tmp.path()).unwrap()).unwrap(), 2);

    // A byte of the body (the last block: the id table): the map opens, the read that
    // touches the block fails, naming it.
    let mut bad = good.clone();
    let last = bad.len() - 3;
    bad[last] ^= 0x40;
    std::fs::write(&path, &bad).unwrap();
    let m = MappedGraph::open(tmp.path()).unwrap();
    let e = helper_callers(&m).unwrap_err().to_string();
    assert!(e.contains("does not match its checksum") && e.contains("graph.map"), "{e}");

    // The header, the tables, a truncated file, another version, not a map at all.
    for (what, bytes, says) in [
        (
            "header",
            {
                let mut b = good.clone();
                b[30] ^= 1;
                b
            },
            "header does not match",
        ),
        (
            "tables",
            {
                let mut b = good.clone();
                b[70] ^= 1;
                b
            },
            "section table does not match",
        ),
        ("truncated", good[..good.len() - 10].to_vec(), "shorter than its header says"),
        ("empty", Vec::new(), "not a call graph map"),
    ] {
        std::fs::write(&path, &bytes).unwrap();
        let e = MappedGraph::open(tmp.path()).unwrap_err().to_string();
        assert!(e.contains(says), "{what}: {e}");
    }
    let mut other = good.clone();
    other[8..12].copy_from_slice(&999u32.to_le_bytes());
    std::fs::write(&path, &other).unwrap();
    assert!(matches!(MappedGraph::open(tmp.path()), Err(cc_graph::Error::Version { found: 999, .. })));
    std::fs::remove_file(&path).unwrap();
    assert!(matches!(MappedGraph::open(tmp.path()), Err(cc_graph::Error::Missing)));
}

#[test]
fn a_map_stays_readable_while_a_save_replaces_it() {
    let (tmp, g) = saved();
    let m = MappedGraph::open(tmp.path()).unwrap();
    // The next save writes a new file and renames it over this one: the open map keeps
    // reading the old one, whole and checked.
    let g2 = CallGraph::build(&records("//- /app/c.py\ndef other():\n    pass\n"));
    g2.save(tmp.path(), 2).unwrap();
    assert_eq!(helper_callers(&m).unwrap(), 2);
    assert_eq!(GraphView::edge_count(&m), g.edge_count());
    assert_eq!(MappedGraph::open(tmp.path()).unwrap().records_generation(), 2);
}

#[test]
fn saved_counts_need_the_map_of_the_same_records() {
    let (tmp, g) = saved();
    assert_eq!(CallGraph::saved_counts(tmp.path(), 1), Some((g.node_count(), g.edge_count())));
    std::fs::remove_file(tmp.path().join(MAP_FILE)).unwrap();
    assert_eq!(CallGraph::saved_counts(tmp.path(), 1), None, "a missing map makes the next index run write it");
}
