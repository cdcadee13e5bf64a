//! End-to-end tests of the `cc-server` binary, run as a user would.
mod agents;
mod bench;
mod cli;
mod common;
mod desktop;
mod dispatch;
mod faults;
mod feeds;
mod fuzz;
mod hardening;
mod mobile;
mod policy;
mod rigs;
mod store;
mod surface;
