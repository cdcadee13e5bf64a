//! The artifact page (`GET /artifacts/{id}`): `cc_server::artifacts::render_page` on an
//! artifact of every block kind — markdown with a table and an HTML payload to sanitize, a
//! table of 200 rows, a line chart and a bar chart, a mermaid flowchart and a sequence diagram,
//! a mermaid kind shown as source, 80 lines of highlighted Rust, code of a language without a
//! highlighter, and a JSON value — and on each kind alone.
//!
//! `cargo bench -p cc-benches --bench artifact_page`

use std::time::Duration;

use cc_server::artifacts::{render_page, Block};
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;

fn every_kind() -> Vec<Block> {
    let rows: Vec<serde_json::Value> = (0..200).map(|i| json!([format!("repo-{i}"), i * 7, i as f64 / 3.0])).collect();
    let rust = "fn main() {\n    let greeting = \"hello\";\n    for i in 0..10 {\n        println!(\"{greeting} {i}\"); // say it\n    }\n}\n".repeat(13);
    let v = json!([
        {"type": "markdown", "text": "## Findings\n\nThe importer is **fast** now: see [the run](https://example.com/run).\n\n- one\n- two <script>alert(1)</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<img src=x onerror=alert(1)>"},
        {"type": "table", "columns": ["Repository", "Files", "Seconds"], "rows": rows},
        {"type": "chart", "kind": "line", "x_label": "files", "y_label": "seconds",
         "series": [{"name": "before", "points": (0..50).map(|i| [i as f64, (i * i) as f64]).collect::<Vec<_>>()},
                    {"name": "after", "points": (0..50).map(|i| [i as f64, i as f64 * 3.0]).collect::<Vec<_>>()}]},
        {"type": "chart", "kind": "bar", "series": [{"name": "p50", "points": [[1, 3], [2, 5], [3, 4]]}, {"name": "p99", "points": [[1, 9], [2, 12], [3, 8]]}]},
        {"type": "mermaid", "text": "flowchart TD\n  A[Walk] --> B[Parse]\n  B -->|records| C{Index ready?}\n  C -- yes --> D((Serve))\n  C -. no .-> B\n  B --> E[Resolve] --> F[Graph] --> D"},
        {"type": "mermaid", "text": "sequenceDiagram\n  participant C as Client\n  participant S as Server\n  participant DB as Store\n  C->>S: tools/call\n  S->>DB: query\n  DB-->>S: rows\n  Note over S: validate\n  loop retry\n  S-)DB: ping\n  end\n  S-->>C: result"},
        {"type": "mermaid", "text": "gantt\n  title Release\n  section A\n  Build :a1, 2026-01-01, 3d"},
        {"type": "code", "language": "rust", "text": rust},
        {"type": "code", "language": "haskell", "text": "main = putStrLn \"hi\""},
        {"type": "json", "value": {"ok": true, "files": (0..50).collect::<Vec<_>>()}}
    ]);
    serde_json::from_value(v).expect("blocks")
}

fn bench(c: &mut Criterion) {
    let blocks = every_kind();
    let mut g = c.benchmark_group("artifact_page");
    g.sample_size(50).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    // The first call builds the highlighter and the sanitizer; the bench measures what follows.
    let _ = render_page("warm", 1, 0, &blocks);
    g.bench_function("every_kind", |b| b.iter(|| render_page("Importer report", 3, 1_780_000_000, &blocks)));
    for (name, i) in [
        ("markdown", 0),
        ("table_200_rows", 1),
        ("line_chart", 2),
        ("flowchart", 4),
        ("sequence", 5),
        ("rust_80_lines", 7),
    ] {
        let one = vec![blocks[i].clone()];
        g.bench_function(name, |b| b.iter(|| render_page("one", 1, 0, &one)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
