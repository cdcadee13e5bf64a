//! The `cc-server` binary: see `cc_server::cli`.

fn main() -> std::process::ExitCode {
    cc_server::cli::run()
}
