//! The `cc-server` binary: the command line over the indexer (and, as they land, the
//! call graph, the MCP server and the rigs). Only this crate prints, parses flags and
//! maps errors to exit codes.

mod cli;
mod engine;
mod output;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::run()
}
