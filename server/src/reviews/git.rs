//! git for reviews, the way `agents/worktree.rs` runs it: argv only, hooks off
//! (`core.hooksPath=/dev/null`), no terminal prompt; worktrees detached at a commit under the
//! data dir, never the user's checkout.

use std::path::Path;
use std::process::Command;

/// Runs git in `dir`; its trimmed standard output, or an error naming the command and git's message.
pub fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.hooksPath=/dev/null"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| format!("running git: {e}"))?;
    if !out.status.success() {
        return Err(format!("git {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
}

/// The commit `rev` names (any revision git reads: a branch, a tag, `HEAD~2`, an id).
pub fn commit_of(root: &Path, rev: &str) -> Result<String, String> {
    if rev.starts_with('-') {
        return Err(format!("'{rev}' is not a revision"));
    }
    git(root, &["rev-parse", "--verify", "--quiet", "--end-of-options", &format!("{rev}^{{commit}}")])
        .map_err(|_| format!("'{rev}' names no commit of the repository"))
}

/// The files that differ between two commits (renames as a deletion and an addition), sorted.
pub fn changed_files(root: &Path, base: &str, head: &str) -> Result<Vec<String>, String> {
    let out = git(root, &["diff", "--name-only", "--no-renames", "-z", base, head, "--"])?;
    let mut v: Vec<String> = out.split('\0').filter(|s| !s.is_empty()).map(str::to_string).collect();
    v.sort();
    v.dedup();
    Ok(v)
}

/// The bytes of `path` at `commit` (`None`: not there).
pub fn show(root: &Path, commit: &str, path: &str) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["-c", "core.hooksPath=/dev/null", "cat-file", "blob"])
        .arg(format!("{commit}:{path}"))
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

/// A worktree of `root` detached at `commit`, at `path` (made now).
pub fn add_worktree(root: &Path, path: &Path, commit: &str) -> Result<(), String> {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).map_err(|e| format!("creating {}: {e}", p.display()))?;
    }
    git(root, &["worktree", "add", "--detach", "--quiet", &path.display().to_string(), commit]).map(drop)
}

/// Removes a worktree made by [`add_worktree`] (and its folder, whatever git says).
pub fn remove_worktree(root: &Path, path: &Path) {
    let _ = git(root, &["worktree", "remove", "--force", &path.display().to_string()]);
    let _ = std::fs::remove_dir_all(path);
    let _ = git(root, &["worktree", "prune"]);
}
