//! Every edge of an indexed repository's call graph, built from its records, on stdout
//! (`CallGraph::export`): what the accuracy harness compares with compilers' and language
//! servers' call graphs, until `cc-server graph export` serves it.
//!
//! ```text
//! graph_export --data DIR --repo NAME [--format jsonl|csv|dot]
//! ```

use std::path::PathBuf;

use cc_graph::{CallGraph, ExportFormat};
use cc_indexer::{DataDir, Repo};

fn usage() -> ! {
    eprintln!("usage: graph_export --data DIR --repo NAME [--format jsonl|csv|dot]");
    std::process::exit(2)
}

fn main() {
    let mut data: Option<PathBuf> = None;
    let mut name: Option<String> = None;
    let mut format = ExportFormat::Jsonl;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--data" => data = Some(val().into()),
            "--repo" => name = Some(val()),
            "--format" => format = ExportFormat::parse(&val()).unwrap_or_else(|| usage()),
            _ => usage(),
        }
    }
    let (Some(data), Some(name)) = (data, name) else { usage() };
    let repo = Repo::open(&DataDir::new(data), &name).unwrap_or_else(|e| {
        eprintln!("graph_export: cannot open '{name}': {e}");
        std::process::exit(1)
    });
    let records = repo.records().expect("records readable");
    let graph = CallGraph::build_owned(records);
    let stdout = std::io::stdout();
    if let Err(e) = graph.export(&mut stdout.lock(), format) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("graph_export: {e}");
            std::process::exit(1)
        }
    }
}
