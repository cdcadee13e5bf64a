//! `cc-server-conformance`: the product's command line with the MCP conformance suite's
//! fixtures as an extension (`--tools conformance`). A test binary: the product has none of them.

fn main() -> std::process::ExitCode {
    cc_indexer::memory::limit_arenas();
    cc_server::cli::run_with(Some(std::sync::Arc::new(cc_tests::conformance::Fixtures)))
}
