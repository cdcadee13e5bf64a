//! `CallGraph::export` in each format, and a file's or folder's symbols listed without a query.

use cc_graph::{CallGraph, ExportFormat};

use crate::support::records;

const FIXTURE: &str = r#"
//- /shop/models.py
class Order:
    def __init__(self, n):
        self.n = n

    def save(self):
        return 1

class User:
    def save(self):
        return 2
//- /shop/service.py
from shop.models import Order

def persist(thing):
    thing.save()

def place(n):
    o = Order(n)
    o.save()
    return sorted([o], key=persist)

place(1)
"#;

/// The export of the fixture with each id replaced by the qualified name it stands for
/// (`#name`), so the expectation does not depend on hashes.
fn check(format: ExportFormat, expected: &str) {
    let g = CallGraph::build(&records(FIXTURE));
    let mut out = Vec::new();
    g.export(&mut out, format).unwrap();
    let mut text = String::from_utf8(out).unwrap();
    let mut ids: Vec<(String, String)> = g.symbols().map(|s| (s.id.to_string(), s.qualified_name.clone())).collect();
    ids.sort();
    for (id, q) in ids {
        text = text.replace(&id, &format!("#{q}"));
    }
    let text: String = text.lines().map(|l| format!("{}\n", l.trim())).collect();
    let want: String = expected.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect();
    assert_eq!(text, want, "--- got\n{text}--- want\n{want}");
}

#[test]
fn csv_has_a_row_per_edge_and_site() {
    check(
        ExportFormat::Csv,
        r#"
        from,from_name,to,to_name,kind,family,confidence,rung,possible,path,line,column,external
        #<shop/service.py>,<shop/service.py>,#shop.service.place,shop.service.place,call,call,0.99,same-file,false,shop/service.py,11,1,false
        #shop.service.persist,shop.service.persist,#shop.models.Order.save,shop.models.Order.save,call,call,0.41,ambiguous,true,shop/service.py,4,11,false
        #shop.service.persist,shop.service.persist,#shop.models.User.save,shop.models.User.save,call,call,0.41,ambiguous,true,shop/service.py,4,11,false
        #shop.service.place,shop.service.place,#shop.models.Order.__init__,shop.models.Order.__init__,constructor,implicit,0.98,import,false,shop/service.py,7,9,false
        #shop.service.place,shop.service.place,#shop.models.Order.save,shop.models.Order.save,call,call,0.99,receiver,false,shop/service.py,8,7,false
        #shop.service.place,shop.service.place,#shop.service.persist,shop.service.persist,reference,reference,0.99,same-file,false,shop/service.py,9,28,false
        #shop.service.place,shop.service.place,,sorted,call,call,0,external,false,shop/service.py,9,12,true
        "#,
    );
}

#[test]
fn jsonl_has_an_object_per_edge_and_site() {
    check(
        ExportFormat::Jsonl,
        r##"
        {"column":1,"confidence":0.99,"external":false,"family":"call","from":"#<shop/service.py>","from_name":"<shop/service.py>","kind":"call","line":11,"path":"shop/service.py","possible":false,"rung":"same-file","to":"#shop.service.place","to_name":"shop.service.place"}
        {"column":11,"confidence":0.41,"external":false,"family":"call","from":"#shop.service.persist","from_name":"shop.service.persist","kind":"call","line":4,"path":"shop/service.py","possible":true,"rung":"ambiguous","to":"#shop.models.Order.save","to_name":"shop.models.Order.save"}
        {"column":11,"confidence":0.41,"external":false,"family":"call","from":"#shop.service.persist","from_name":"shop.service.persist","kind":"call","line":4,"path":"shop/service.py","possible":true,"rung":"ambiguous","to":"#shop.models.User.save","to_name":"shop.models.User.save"}
        {"column":9,"confidence":0.98,"external":false,"family":"implicit","from":"#shop.service.place","from_name":"shop.service.place","kind":"constructor","line":7,"path":"shop/service.py","possible":false,"rung":"import","to":"#shop.models.Order.__init__","to_name":"shop.models.Order.__init__"}
        {"column":7,"confidence":0.99,"external":false,"family":"call","from":"#shop.service.place","from_name":"shop.service.place","kind":"call","line":8,"path":"shop/service.py","possible":false,"rung":"receiver","to":"#shop.models.Order.save","to_name":"shop.models.Order.save"}
        {"column":28,"confidence":0.99,"external":false,"family":"reference","from":"#shop.service.place","from_name":"shop.service.place","kind":"reference","line":9,"path":"shop/service.py","possible":false,"rung":"same-file","to":"#shop.service.persist","to_name":"shop.service.persist"}
        {"column":12,"confidence":0.0,"external":true,"family":"call","from":"#shop.service.place","from_name":"shop.service.place","kind":"call","line":9,"path":"shop/service.py","possible":false,"rung":"external","to":"","to_name":"sorted"}
        "##,
    );
}

#[test]
fn dot_has_a_node_per_symbol_and_an_edge_per_kind() {
    check(
        ExportFormat::Dot,
        r##"
        digraph calls {
          "#<shop/service.py>" [label="<shop/service.py>"];
          "#shop.models.Order.__init__" [label="shop.models.Order.__init__"];
          "#shop.models.Order.save" [label="shop.models.Order.save"];
          "#shop.models.User.save" [label="shop.models.User.save"];
          "#shop.service.persist" [label="shop.service.persist"];
          "#shop.service.place" [label="shop.service.place"];
          "external:sorted" [label="sorted"];
          "#<shop/service.py>" -> "#shop.service.place" [label="call"];
          "#shop.service.persist" -> "#shop.models.Order.save" [label="call", style=dashed];
          "#shop.service.persist" -> "#shop.models.User.save" [label="call", style=dashed];
          "#shop.service.place" -> "#shop.models.Order.__init__" [label="constructor"];
          "#shop.service.place" -> "#shop.models.Order.save" [label="call"];
          "#shop.service.place" -> "#shop.service.persist" [label="reference"];
          "#shop.service.place" -> "external:sorted" [label="call"];
        }
        "##,
    );
}

#[test]
fn symbols_of_a_file_or_folder() {
    let g = CallGraph::build(&records(FIXTURE));
    let names = |p: &str| g.symbols_in(p).iter().map(|s| s.qualified_name.as_str()).collect::<Vec<_>>().join(" ");
    assert_eq!(
        names("shop/models.py"),
        "shop.models.Order shop.models.Order.__init__ shop.models.Order.save shop.models.User shop.models.User.save"
    );
    assert_eq!(names("shop/service.py"), "shop.service.persist shop.service.place");
    assert_eq!(names("shop").split(' ').count(), 7);
    assert_eq!(names("shop/"), names("shop"));
    assert_eq!(names(""), names("shop"));
    // A folder is a path prefix up to a `/`, not a string prefix.
    assert_eq!(names("sho"), "");
}

/// An edge that is a fact at one site and a guess at another: each site's row says which.
#[test]
fn a_site_where_the_edge_is_only_guessed_is_possible() {
    let fixture = r#"
//- /shop/models.py
class Order:
    def save(self):
        return 1

class User:
    def save(self):
        return 2
//- /shop/service.py
from shop.models import Order

def place(thing):
    o = Order()
    o.save()
    thing.save()
"#;
    let g = CallGraph::build(&records(fixture));
    let mut out = Vec::new();
    g.export(&mut out, ExportFormat::Jsonl).unwrap();
    let rows: Vec<serde_json::Value> =
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let at = |to: &str, line: u64| {
        rows.iter()
            .find(|r| r["to_name"] == to && r["line"] == line)
            .map(|r| r["possible"].as_bool().unwrap())
            .unwrap_or_else(|| panic!("no row to {to} at line {line}: {rows:?}"))
    };
    assert!(!at("shop.models.Order.save", 5), "o.save() is a fact");
    assert!(at("shop.models.Order.save", 6), "thing.save() only may call Order.save");
    assert!(at("shop.models.User.save", 6));
}
