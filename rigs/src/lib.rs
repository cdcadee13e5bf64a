//! cc-rigs: disposable machines (issue 7). Nothing here yet.
pub mod desktop;
