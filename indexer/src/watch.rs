//! `--watch`: re-index a tree whenever files under it change.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

use crate::error::Result;

/// Calls `on_change` after each burst of file-system changes under `root` (bursts are
/// merged: it waits until `quiet` passes with no new event). Changes under `.git/` and
/// under `ignore` (the data directory, when it lies inside the tree) do not count, so an
/// index run never triggers the next. Returns when `on_change` returns `false` or the
/// watcher fails.
pub fn watch(
    root: &Path,
    ignore: &[std::path::PathBuf],
    quiet: Duration,
    mut on_change: impl FnMut() -> bool,
) -> Result<()> {
    let (tx, rx) = mpsc::channel();
    let ignore: Vec<std::path::PathBuf> =
        ignore.iter().map(|p| p.canonicalize().unwrap_or_else(|_| p.clone())).collect();
    let mut watcher = notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
        let Ok(ev) = ev else { return };
        if ev.kind.is_access() {
            return;
        }
        let relevant = ev
            .paths
            .iter()
            .any(|p| !p.components().any(|c| c.as_os_str() == ".git") && !ignore.iter().any(|i| p.starts_with(i)));
        if relevant {
            let _ = tx.send(());
        }
    })?;
    watcher.watch(root, RecursiveMode::Recursive)?;
    loop {
        if rx.recv().is_err() {
            return Ok(());
        }
        // Debounce: wait for a quiet period.
        while rx.recv_timeout(quiet).is_ok() {}
        if !on_change() {
            return Ok(());
        }
    }
}
