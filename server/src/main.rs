//! The `cc-server` binary: see `cc_server::cli`.

fn main() -> std::process::ExitCode {
    // Before any thread: see the function's note (an index run's peak memory).
    cc_indexer::memory::limit_arenas();
    // SAFETY: first thing in the process; no tree-sitter object exists yet.
    #[allow(unsafe_code)]
    unsafe {
        cc_indexer::memory::tree_sitter_uses_mimalloc();
    }
    cc_server::cli::run()
}
