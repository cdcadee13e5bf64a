//! `--watch`: re-index a tree whenever files under it change.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

use crate::error::Result;

/// A watch on a tree, started before the first index run so that a change made while
/// that run is going (or just after it) is never missed: it is queued, and
/// [`Watch::run`] re-indexes for it first.
pub struct Watch {
    rx: mpsc::Receiver<()>,
    _watcher: notify::RecommendedWatcher,
}

impl Watch {
    /// Watches `root` recursively. Changes under `.git/` and under `ignore` (the data
    /// directory, when it lies inside the tree) do not count, so an index run never
    /// triggers the next.
    pub fn start(root: &Path, ignore: &[PathBuf]) -> Result<Self> {
        let (tx, rx) = mpsc::channel();
        let ignore: Vec<PathBuf> = ignore.iter().map(|p| p.canonicalize().unwrap_or_else(|_| p.clone())).collect();
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
        Ok(Self { rx, _watcher: watcher })
    }

    /// Calls `on_change` after each burst of changes (bursts are merged: it waits until
    /// `quiet` passes with no new event). Returns when `on_change` returns `false` or
    /// the watcher fails.
    pub fn run(self, quiet: Duration, mut on_change: impl FnMut() -> bool) -> Result<()> {
        loop {
            if self.rx.recv().is_err() {
                return Ok(());
            }
            while self.rx.recv_timeout(quiet).is_ok() {}
            if !on_change() {
                return Ok(());
            }
        }
    }
}
