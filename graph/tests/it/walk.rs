//! Walks as users ask for them: what callers, callees and impact list by default, with
//! references or possible edges followed, recursion, and a file's top level as a start.
//!
//! `check(fixture, query, expected)`: `query` is `callers|callees|impact NAME` with
//! optional `--depth N`, `--references`, `--possible`; `expected` lists one hit per line
//! (`distance name kind`, then `possible` or `recursive` when the hit is), then, after a
//! `possible:` line, the possible edges not followed (`distance via -> node kind of N`).

use cc_graph::{CallGraph, Follow, Limits, NodeRef, Walk};
use petgraph::Direction;

use crate::support::records;

fn name(g: &CallGraph, n: &NodeRef) -> String {
    match n {
        NodeRef::Symbol(id) => g.symbol(*id).map_or_else(|| id.to_string(), |s| s.qualified_name.clone()),
        NodeRef::File(p) => format!("<{p}>"),
        NodeRef::External(x) => format!("external {x}"),
    }
}

fn render(g: &CallGraph, w: &Walk) -> String {
    let mut out = String::new();
    for h in &w.hits {
        out.push_str(&format!("{} {} {}", h.distance, name(g, &h.node), h.kind));
        if h.ambiguous {
            out.push_str(" possible");
        }
        if h.recursive {
            out.push_str(" recursive");
        }
        out.push('\n');
    }
    if !w.possible.is_empty() {
        out.push_str("possible:\n");
        for p in &w.possible {
            out.push_str(&format!(
                "{} {} -> {} {} of {}\n",
                p.distance,
                name(g, &p.via),
                name(g, &p.node),
                p.kind,
                p.candidates
            ));
        }
    }
    out
}

fn check(fixture: &str, query: &str, expected: &str) {
    let g = CallGraph::build(&records(fixture));
    let words: Vec<&str> = query.split_whitespace().collect();
    let (op, spec) = (words[0], words[1]);
    let mut limits = Limits::default();
    let mut follow = Follow::default();
    let mut rest = words[2..].iter();
    while let Some(w) = rest.next() {
        match *w {
            "--depth" => limits.depth = rest.next().unwrap().parse().unwrap(),
            "--references" => follow.references = true,
            "--possible" => follow.possible = true,
            other => panic!("unknown option {other}"),
        }
    }
    let found = g.find(spec);
    assert_eq!(found.len(), 1, "{spec}: {:?}", found.iter().map(|s| &s.qualified_name).collect::<Vec<_>>());
    let id = found[0].id;
    let w = match op {
        "callers" => g.walk(id, Direction::Incoming, limits, follow),
        "callees" => g.walk(id, Direction::Outgoing, limits, follow),
        "impact" => g.impact_with(id, limits, follow),
        other => panic!("unknown walk {other}"),
    };
    let got = render(&g, &w);
    let want: String = expected.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect();
    assert_eq!(got, want, "{query}\n--- got\n{got}--- want\n{want}");
}

const RECURSIVE: &str = r#"
//- /m.py
def fact(n):
    return 1 if n < 2 else n * fact(n - 1)

def even(n):
    return n == 0 or odd(n - 1)

def odd(n):
    return n != 0 and even(n - 1)

def main():
    return fact(5), even(4)
"#;

#[test]
fn a_self_call_lists_the_start_marked_recursive() {
    check(RECURSIVE, "callers m.fact", "1 m.fact call recursive\n1 m.main call");
    check(RECURSIVE, "callees m.fact", "1 m.fact call recursive");
}

#[test]
fn mutual_recursion_reaches_the_start_again() {
    check(RECURSIVE, "callees m.even --depth 3", "1 m.odd call\n2 m.even call recursive");
    check(RECURSIVE, "impact m.odd --depth 3", "1 m.even call\n2 m.odd call recursive\n2 m.main call");
}

const TOP: &str = r#"
//- /app/util.py
def helper():
    return 1
//- /app/main.py
from app.util import helper

def run():
    return helper()

run()
helper()
"#;

#[test]
fn a_files_top_level_is_a_node_that_has_callees() {
    check(TOP, "callees <app/main.py>", "1 app.main.run call\n1 app.util.helper call");
    // The path alone names it too.
    check(TOP, "callees app/main.py --depth 2", "1 app.main.run call\n1 app.util.helper call");
    check(TOP, "callers app.util.helper", "1 app.main.run call\n1 <app/main.py> call");
}

const CALLBACKS: &str = r#"
//- /app/main.py
def by_len(s):
    return len(s)

def shout(s):
    return s.upper()

def main(names):
    names = sorted(names, key=by_len)
    return shout(names[0])
"#;

#[test]
fn a_function_passed_as_a_value_is_a_reference_walked_on_request() {
    check(CALLBACKS, "callees app.main.main", "1 app.main.shout call\n1 external sorted call");
    check(
        CALLBACKS,
        "callees app.main.main --references",
        "1 app.main.by_len reference\n1 app.main.shout call\n1 external sorted call",
    );
    check(CALLBACKS, "callers app.main.by_len", "");
    check(CALLBACKS, "callers app.main.by_len --references", "1 app.main.main reference");
}

const UNKNOWN_RECEIVER: &str = r#"
//- /shop/models.py
class Order:
    def save(self):
        return 1

class User:
    def save(self):
        return 2
//- /shop/service.py
def persist(thing):
    thing.save()

def audit(order):
    persist(order)
"#;

#[test]
fn a_call_on_an_unknown_receiver_is_a_possible_list_not_edges() {
    check(
        UNKNOWN_RECEIVER,
        "callees shop.service.persist",
        "possible:\n1 shop.service.persist -> shop.models.Order.save call of 2\n\
         1 shop.service.persist -> shop.models.User.save call of 2",
    );
    check(
        UNKNOWN_RECEIVER,
        "callees shop.service.persist --possible",
        "1 shop.models.Order.save call possible\n1 shop.models.User.save call possible",
    );
    check(
        UNKNOWN_RECEIVER,
        "callers shop.models.User.save --depth 2",
        "possible:\n1 shop.models.User.save -> shop.service.persist call of 2",
    );
    check(
        UNKNOWN_RECEIVER,
        "callers shop.models.User.save --depth 2 --possible",
        "1 shop.service.persist call possible\n2 shop.service.audit call",
    );
}

const DISPATCH: &str = r#"
//- /geo/shape.go
package geo

type Shape interface {
	Area() float64
}

type Circle struct{ R float64 }

func (c Circle) Area() float64 { return 3 * c.R * c.R }

func Total(s Shape) float64 { return s.Area() }
"#;

#[test]
fn an_interface_call_reaches_the_declaration_and_its_implementation() {
    check(DISPATCH, "callees geo.Total", "1 geo.Shape.Area call\n1 geo.Circle.Area inherited");
    check(DISPATCH, "callers geo.Circle.Area", "1 geo.Total inherited");
}
