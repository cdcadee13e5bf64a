//! `--watch`: re-index a tree whenever files under it change.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

use crate::error::Result;

/// Calls `on_change` after each burst of file-system changes under `root` (bursts are
/// merged: it waits until `quiet` passes with no new event). Returns when `on_change`
/// returns `false` or the watcher fails.
pub fn watch(root: &Path, quiet: Duration, mut on_change: impl FnMut() -> bool) -> Result<()> {
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |ev: notify::Result<notify::Event>| {
        if let Ok(ev) = ev {
            if !ev.kind.is_access() {
                let _ = tx.send(());
            }
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
