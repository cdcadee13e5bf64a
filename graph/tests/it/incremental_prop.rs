//! Property: after any sequence of edits, `CallGraph::update` equals `CallGraph::build` of
//! the same records.
//!
//! Each language has a small repository model: a few file paths, a pool of code pieces
//! (functions, classes, a subclass overriding a method, an interface and its
//! implementation, call sites through receivers, imports and re-exports) and a pool of
//! import lines. A file is the pieces and imports it holds, with some of its names
//! renamed. An edit adds or removes a piece (a definition added or removed), moves one to
//! another file, renames a name in one file, adds or removes an import, or deletes or
//! re-creates a file (Python and JavaScript pieces pass functions along for the value flow). After each edit the graph is updated from the previous state and
//! compared, edge by edge (sites, kinds, rungs, confidences), with a cold build.

use std::collections::BTreeSet;

use cc_graph::{CallGraph, LayeredGraph, MappedGraph};
use proptest::prelude::*;

use crate::support::records;

/// One language's repository model.
struct Lang {
    /// The files (path, header: package clause and the like).
    files: &'static [(&'static str, &'static str)],
    imports: &'static [&'static str],
    pieces: &'static [&'static str],
    /// Names a rename may change (`helper` becomes `helper2`).
    names: &'static [&'static str],
}

const PYTHON: Lang = Lang {
    files: &[("/app/a.py", ""), ("/app/b.py", ""), ("/app/c.py", ""), ("/app/pkg/__init__.py", "")],
    imports: &[
        "from app.b import helper",
        "from app.c import Shape",
        "from app.a import Circle",
        "import app.b as bm",
        "from app.pkg import thing",
        "from app.b import *",
        "from app.c import register, REG",
    ],
    pieces: &[
        "def helper():\n    return compute()\n",
        "def compute():\n    return 1\n",
        "class Shape:\n    def area(self):\n        return 0\n\n    def describe(self):\n        return self.area()\n\n    def __add__(self, o):\n        return helper()\n\n    def __getitem__(self, k):\n        return k\n",
        "class Circle(Shape):\n    def area(self):\n        return helper()\n",
        "class Square(Circle):\n    def __init__(self):\n        self.s = Shape()\n\n    def go(self):\n        return self.s.area()\n",
        "def main():\n    c = Circle()\n    c.area()\n    bm.helper()\n    thing()\n    return Square().go()\n",
        "def thing():\n    for x in Circle():\n        pass\n    with Shape() as s:\n        s.describe()\n    c = Circle()\n    return c + c, c[0]\n",
        "REG = {}\n\ndef register(k, v):\n    REG[k] = v\n    return v\n",
        "register('c', Circle)\n\ndef use(k):\n    return REG[k]().area()\n",
        "@register\ndef decorated():\n    return compute()\n",
    ],
    names: &["helper", "compute", "Shape", "Circle", "area", "thing", "register"],
};

/// JavaScript: the value flow's pieces (functions passed, returned, kept in a table, kept
/// on `this`), which every JavaScript file feeds.
const JAVASCRIPT: Lang = Lang {
    files: &[("/src/a.js", ""), ("/src/b.js", ""), ("/src/c.js", ""), ("/src/index.js", "")],
    imports: &[
        "import { helper } from './b.js';",
        "import { Shape } from './c.js';",
        "import { Circle } from './a.js';",
        "import * as bm from './b.js';",
        "export { helper } from './b.js';",
        "import thing from './c.js';",
        "import { apply, table } from './index.js';",
    ],
    pieces: &[
        "export function helper() { return compute(); }\n",
        "export function compute() { return 1; }\n",
        "export class Shape { constructor(cb) { this.cb = cb; } area() { return this.cb(); } }\n",
        "export class Circle extends Shape { constructor() { super(helper); } area() { return helper(); } }\n",
        "export function main() { const c = new Circle(); c.area(); bm.helper(); thing(); return apply((x) => compute(x), 1); }\n",
        "export default function thing() { return pick()(); }\n",
        "export function apply(f, x) { return f(x); }\nexport const table = {};\ntable['a'] = helper;\n",
        "export function pick() { return compute; }\nexport function use(k) { return table[k](); }\n",
        "export function Point() {}\nPoint.prototype.norm = function () { return this.len(); };\nPoint.prototype.len = compute;\nexport function measure() { return new Point().norm(); }\n",
    ],
    names: &["helper", "compute", "Shape", "Circle", "area", "thing", "apply", "pick", "Point"],
};

const TYPESCRIPT: Lang = Lang {
    files: &[("/src/a.ts", ""), ("/src/b.ts", ""), ("/src/c.ts", ""), ("/src/index.ts", "")],
    imports: &[
        "import { helper } from './b';",
        "import { Shape } from './c';",
        "import { Circle } from './a';",
        "import * as bm from './b';",
        "export { helper } from './b';",
        "import thing from './c';",
        "import { Runner, Fast } from './index';",
        "export * from './a';",
    ],
    pieces: &[
        "export function helper() { return compute(); }\n",
        "export function compute() { return 1; }\n",
        "export class Shape { area(): number { return 0; } describe() { return this.area(); } }\n",
        "export class Circle extends Shape { area(): number { return helper(); } }\n",
        "export function main() { const c = new Circle(); c.area(); bm.helper(); thing(); const s: Shape = c; return s.describe(); }\n",
        "export default function thing() { return compute(); }\n",
        "export interface Runner { run(): void; }\nexport class Fast implements Runner { run() { helper(); } }\n",
        "export function go(r: Runner) { r.run(); return new Fast().run(); }\n",
    ],
    names: &["helper", "compute", "Shape", "Circle", "area", "thing", "Runner"],
};

const JAVA: Lang = Lang {
    files: &[
        ("/src/app/A.java", "package app;\n"),
        ("/src/app/B.java", "package app;\n"),
        ("/src/app/util/U.java", "package app.util;\n"),
        ("/src/app/util/V.java", "package app.util;\n"),
    ],
    imports: &[
        "import app.util.U;",
        "import app.util.*;",
        "import app.Shape;",
        "import app.*;",
        "import static app.util.U.helper;",
    ],
    pieces: &[
        "class Shape { int area() { return 0; } int describe() { return area(); } }\n",
        "class Circle extends Shape { int area() { return U.helper(); } }\n",
        "class Square extends Circle { int go() { Shape s = new Circle(); return s.area() + describe(); } }\n",
        "class U { static int helper() { return compute(); } static int compute() { return 1; } }\n",
        "interface Runner { void run(); }\nclass Fast implements Runner { public void run() { helper(); } static int helper() { return 2; } }\n",
        "class Main { void main() { Runner r = new Fast(); r.run(); Circle c = new Circle(); c.area(); new Square().go(); helper(); } }\n",
        "class Helper { Shape shape = new Shape(); int help() { return shape.area(); } }\n",
        "class Deep extends Square { int area() { return super.area() + go(); } }\n",
    ],
    names: &["helper", "compute", "Shape", "Circle", "area", "Runner", "go"],
};

const RUST: Lang = Lang {
    files: &[
        ("/src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
        ("/src/a.rs", ""),
        ("/src/b.rs", ""),
        ("/src/c/mod.rs", ""),
    ],
    imports: &[
        "use crate::b::helper;",
        "use crate::c::{Shape, Area};",
        "use crate::a::*;",
        "pub use crate::b::compute;",
        "use crate::b as bm;",
        "use crate::c::Shape as Form;",
    ],
    pieces: &[
        "pub fn helper() -> u32 { compute() }\n",
        "pub fn compute() -> u32 { 1 }\n",
        "pub trait Area { fn area(&self) -> u32; }\n",
        "pub struct Shape;\nimpl Shape { pub fn new() -> Shape { Shape } pub fn describe(&self) -> u32 { self.area() } }\n",
        "impl Area for Shape { fn area(&self) -> u32 { helper() } }\n",
        "pub struct Circle { s: Shape }\nimpl Circle { pub fn go(&self) -> u32 { self.s.describe() } }\n",
        "pub fn main() { let s = Shape::new(); s.area(); bm::helper(); crate::b::compute(); let f = Form::new(); f.describe(); let c = Circle { s }; c.go(); }\n",
        "macro_rules! mk { () => { 1 } }\npub fn m() -> u32 { mk!() + helper() }\n",
    ],
    names: &["helper", "compute", "Shape", "Circle", "area", "describe", "new"],
};

const GO: Lang = Lang {
    files: &[
        ("/pkg/a/a.go", "package a\n"),
        ("/pkg/a/a2.go", "package a\n"),
        ("/pkg/b/b.go", "package b\n"),
        ("/cmd/main.go", "package main\n"),
    ],
    imports: &[
        "import \"example.com/m/pkg/b\"",
        "import \"example.com/m/pkg/a\"",
        "import bb \"example.com/m/pkg/b\"",
    ],
    pieces: &[
        "func Helper() int { return compute() }\n",
        "func compute() int { return 1 }\n",
        "type Shape struct{ r int }\n\nfunc (s *Shape) Area() int { return s.r }\n",
        "type Circle struct{ Shape }\n\nfunc (c *Circle) Go() int { return c.Area() }\n",
        "func NewShape() *Shape { return &Shape{} }\n",
        "func Main() {\n\ts := NewShape()\n\ts.Area()\n\tb.Helper()\n\ta.Helper()\n\tbb.Helper()\n\tc := Circle{}\n\tc.Go()\n}\n",
        "type Runner interface{ Run() }\n\ntype Fast struct{}\n\nfunc (f Fast) Run() { Helper() }\n",
        "func Use(r Runner) { r.Run(); a.NewShape().Area() }\n",
    ],
    names: &["Helper", "compute", "Shape", "Circle", "Area", "NewShape", "Run"],
};

/// One file of the model.
#[derive(Clone, Debug, Default)]
struct File {
    present: bool,
    imports: BTreeSet<usize>,
    pieces: BTreeSet<usize>,
    renamed: BTreeSet<usize>,
}

/// An edit; its numbers are taken modulo the pools' sizes.
#[derive(Clone, Debug)]
enum Edit {
    AddPiece(usize, usize),
    RemovePiece(usize, usize),
    MovePiece(usize, usize),
    Rename(usize, usize),
    AddImport(usize, usize),
    RemoveImport(usize, usize),
    ToggleFile(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let n = 0usize..64;
    prop_oneof![
        (n.clone(), n.clone()).prop_map(|(f, p)| Edit::AddPiece(f, p)),
        (n.clone(), n.clone()).prop_map(|(f, p)| Edit::RemovePiece(f, p)),
        (n.clone(), n.clone()).prop_map(|(f, p)| Edit::MovePiece(f, p)),
        (n.clone(), n.clone()).prop_map(|(f, w)| Edit::Rename(f, w)),
        (n.clone(), n.clone()).prop_map(|(f, i)| Edit::AddImport(f, i)),
        (n.clone(), n.clone()).prop_map(|(f, i)| Edit::RemoveImport(f, i)),
        n.prop_map(Edit::ToggleFile),
    ]
}

/// The starting repository: each piece in one file or in none, each import in some files.
fn start() -> impl Strategy<Value = (Vec<usize>, Vec<u64>)> {
    (proptest::collection::vec(0usize..6, 10), proptest::collection::vec(any::<u64>(), 8))
}

struct Model<'l> {
    lang: &'l Lang,
    files: Vec<File>,
}

impl<'l> Model<'l> {
    fn new(lang: &'l Lang, (placement, imports): &(Vec<usize>, Vec<u64>)) -> Model<'l> {
        let mut files = vec![File { present: true, ..File::default() }; lang.files.len()];
        for (p, &at) in placement.iter().enumerate().take(lang.pieces.len()) {
            if at < files.len() {
                files[at].pieces.insert(p);
            }
        }
        for (i, &mask) in imports.iter().enumerate().take(lang.imports.len()) {
            for (f, file) in files.iter_mut().enumerate() {
                if mask >> f & 1 == 1 && mask >> 8 & 3 == 0 {
                    file.imports.insert(i);
                }
            }
        }
        Model { lang, files }
    }

    fn apply(&mut self, e: &Edit) {
        let (nf, np, ni, nw) =
            (self.files.len(), self.lang.pieces.len(), self.lang.imports.len(), self.lang.names.len());
        match *e {
            Edit::AddPiece(f, p) => {
                self.files[f % nf].pieces.insert(p % np);
            }
            Edit::RemovePiece(f, p) => {
                self.files[f % nf].pieces.remove(&(p % np));
            }
            Edit::MovePiece(f, p) => {
                for file in &mut self.files {
                    file.pieces.remove(&(p % np));
                }
                self.files[f % nf].pieces.insert(p % np);
            }
            Edit::Rename(f, w) => {
                let r = &mut self.files[f % nf].renamed;
                if !r.remove(&(w % nw)) {
                    r.insert(w % nw);
                }
            }
            Edit::AddImport(f, i) => {
                self.files[f % nf].imports.insert(i % ni);
            }
            Edit::RemoveImport(f, i) => {
                self.files[f % nf].imports.remove(&(i % ni));
            }
            Edit::ToggleFile(f) => {
                let file = &mut self.files[f % nf];
                file.present = !file.present;
            }
        }
    }

    /// The repository as a `//- /path` fixture.
    fn fixture(&self) -> String {
        let mut out = String::new();
        for ((path, header), file) in self.lang.files.iter().zip(&self.files) {
            if !file.present {
                continue;
            }
            let mut text = header.to_string();
            for &i in &file.imports {
                text.push_str(self.lang.imports[i]);
                text.push('\n');
            }
            for &p in &file.pieces {
                text.push('\n');
                text.push_str(self.lang.pieces[p]);
            }
            for &w in &file.renamed {
                text = rename(&text, self.lang.names[w]);
            }
            out.push_str(&format!("//- {path}\n{text}"));
        }
        out
    }
}

/// `text` with every whole word `name` written `name2`.
fn rename(text: &str, name: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(i) = rest.find(name) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + name.len()..].chars().next();
        out.push_str(&rest[..i + name.len()]);
        if !before.is_some_and(word) && !after.is_some_and(word) {
            out.push('2');
        }
        rest = &rest[i + name.len()..];
    }
    out.push_str(rest);
    out
}

fn check(lang: &Lang, start: &(Vec<usize>, Vec<u64>), edits: &[Edit]) -> Result<(), TestCaseError> {
    let mut model = Model::new(lang, start);
    let mut fixture = model.fixture();
    let mut g = CallGraph::build(&records(&fixture));
    // The same edits saved as an index run saves them: laid over the saved graph (a
    // journal frame, a delta over the map) when they can be, else written whole.
    let saved = tempfile::tempdir().unwrap();
    let mut generation = 1;
    CallGraph::save_current(saved.path(), records(&fixture), generation, true).unwrap();
    for e in edits {
        let before = fixture;
        model.apply(e);
        fixture = model.fixture();
        let r = records(&fixture);
        // As an index run hands them over: read back, the unchanged files' calls encoded.
        g.update(&crate::support::read_back(&r));
        let full = CallGraph::build(&r);
        prop_assert_eq!(
            crate::support::resolved_edges(&g),
            crate::support::resolved_edges(&full),
            "after {:?}\n--- before\n{}\n--- after\n{}",
            e,
            before,
            fixture
        );
        // Sites, rungs, confidences and external names too.
        prop_assert!(g.edges() == full.edges(), "after {:?}: edges differ beyond callers and callees\n{}", e, fixture);
        // And what the next update starts from: each file's provided keys, noted keys, resolutions.
        let differs = g.first_entry_difference(&full);
        prop_assert!(differs.is_none(), "after {:?}: {}\n{}", e, differs.unwrap_or_default(), fixture);
        generation += 1;
        let saving = CallGraph::save_current(saved.path(), r.clone(), generation, false).unwrap();
        prop_assert_eq!((saving.nodes, saving.edges), (full.node_count(), full.edge_count()), "counts after {:?}", e);
        // graph.bin with its journal: what the next update starts from.
        let loaded = CallGraph::load_with(saved.path(), &r).unwrap();
        prop_assert!(loaded.edges() == full.edges(), "graph.bin and its journal after {:?}\n{}", e, fixture);
        let differs = loaded.first_entry_difference(&full);
        prop_assert!(
            differs.is_none(),
            "graph.bin and its journal after {:?}: {}\n{}",
            e,
            differs.unwrap_or_default(),
            fixture
        );
        // What a query reads: the map, with the delta over it.
        let case = format!("after {e:?}\n{fixture}");
        if saving.layered {
            crate::support::same_answers(&case, &full, &LayeredGraph::open(saved.path()).unwrap());
        } else {
            prop_assert!(LayeredGraph::open(saved.path()).is_err(), "a delta left behind a whole write");
            crate::support::same_answers(&case, &full, &MappedGraph::open(saved.path()).unwrap());
        }
    }
    Ok(())
}

fn config() -> ProptestConfig {
    // `PROPTEST_CASES` runs more (or fewer) cases.
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(128);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn python_updates_equal_rebuilds(s in start(), edits in proptest::collection::vec(edit(), 1..10)) {
        check(&PYTHON, &s, &edits)?;
    }

    #[test]
    fn javascript_updates_equal_rebuilds(s in start(), edits in proptest::collection::vec(edit(), 1..10)) {
        check(&JAVASCRIPT, &s, &edits)?;
    }

    #[test]
    fn typescript_updates_equal_rebuilds(s in start(), edits in proptest::collection::vec(edit(), 1..10)) {
        check(&TYPESCRIPT, &s, &edits)?;
    }

    #[test]
    fn java_updates_equal_rebuilds(s in start(), edits in proptest::collection::vec(edit(), 1..10)) {
        check(&JAVA, &s, &edits)?;
    }

    #[test]
    fn rust_updates_equal_rebuilds(s in start(), edits in proptest::collection::vec(edit(), 1..10)) {
        check(&RUST, &s, &edits)?;
    }

    #[test]
    fn go_updates_equal_rebuilds(s in start(), edits in proptest::collection::vec(edit(), 1..10)) {
        check(&GO, &s, &edits)?;
    }
}
