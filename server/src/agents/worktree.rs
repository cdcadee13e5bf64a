//! A run's own copy of a repository: "work here, not in the main checkout, and don't see
//! the other runs' changes".
//!
//! A git checkout gets a worktree on a branch of its own (`cc-run/<run id>`, from the
//! checkout's HEAD); anything else a copy (`cp -a --reflink=auto`: copy-on-write where the
//! file system can). Made on the run's first use (list_repos), under the run's folder, and
//! recorded in `worktrees.json` there. When the run ends ([`release_all`]) each is removed,
//! unless it holds work: uncommitted changes, or commits no remote branch has (for a copy:
//! a file changed after it was made) — then it is kept and reported. git runs as argv with
//! hooks off (`core.hooksPath=/dev/null`); nothing of a repository's config runs code.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worktree {
    pub repo: String,
    pub path: PathBuf,
    /// The checkout it was made from.
    pub origin: PathBuf,
    /// `git` (a worktree on `branch`) or `copy`.
    pub kind: String,
    pub branch: Option<String>,
    /// The commit it started from (git), for the changes since.
    pub base: Option<String>,
    /// Seconds since the epoch when it was made.
    pub made_at: i64,
}

const MANIFEST: &str = "worktrees.json";

fn manifest(run_dir: &Path) -> Vec<Worktree> {
    std::fs::read_to_string(run_dir.join(MANIFEST)).ok().and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default()
}

fn save(run_dir: &Path, list: &[Worktree]) -> std::io::Result<()> {
    std::fs::create_dir_all(run_dir)?;
    std::fs::write(run_dir.join(MANIFEST), serde_json::to_string_pretty(list).expect("worktrees serialize"))
}

async fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = tokio::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.hooksPath=/dev/null"])
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .await
        .map_err(|e| format!("running git: {e}"))?;
    if !out.status.success() {
        return Err(format!("git {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The run's worktree of `repo` (checked out at `origin`), made now if it has none.
pub async fn ensure(run_dir: &Path, run_id: &str, repo: &str, origin: &Path) -> Result<Worktree, String> {
    let mut list = manifest(run_dir);
    if let Some(w) = list.iter().find(|w| w.repo == repo) {
        return Ok(w.clone());
    }
    let path = run_dir.join("repos").join(repo);
    std::fs::create_dir_all(path.parent().expect("a parent")).map_err(|e| e.to_string())?;
    let is_git = git(origin, &["rev-parse", "--is-inside-work-tree"]).await.is_ok_and(|s| s == "true");
    let w = if is_git {
        let base = git(origin, &["rev-parse", "HEAD"]).await?;
        let branch = format!("cc-run/{run_id}");
        git(origin, &["worktree", "add", "-b", &branch, &path.display().to_string(), &base]).await?;
        Worktree {
            repo: repo.into(),
            path: path.clone(),
            origin: origin.into(),
            kind: "git".into(),
            branch: Some(branch),
            base: Some(base),
            made_at: crate::store::now(),
        }
    } else {
        let out = tokio::process::Command::new("cp")
            .args(["-a", "--reflink=auto"])
            .arg(origin)
            .arg(&path)
            .output()
            .await
            .map_err(|e| format!("copying {}: {e}", origin.display()))?;
        if !out.status.success() {
            return Err(format!("copying {}: {}", origin.display(), String::from_utf8_lossy(&out.stderr).trim()));
        }
        Worktree {
            repo: repo.into(),
            path: path.clone(),
            origin: origin.into(),
            kind: "copy".into(),
            branch: None,
            base: None,
            made_at: crate::store::now(),
        }
    };
    list.push(w.clone());
    save(run_dir, &list).map_err(|e| e.to_string())?;
    Ok(w)
}

/// The run's worktrees.
pub fn of_run(run_dir: &Path) -> Vec<Worktree> {
    manifest(run_dir)
}

/// Files of a worktree that differ from what it started from (changed, added, deleted, and
/// committed since its base), repository-relative, sorted.
pub async fn changed_files(w: &Worktree) -> Vec<String> {
    let mut out = std::collections::BTreeSet::new();
    if w.kind == "git" {
        if let Ok(s) = git(&w.path, &["status", "--porcelain", "--untracked-files=all"]).await {
            for line in s.lines().filter(|l| l.len() > 3) {
                out.insert(line[3..].rsplit(" -> ").next().unwrap_or_default().to_string());
            }
        }
        if let Some(base) = &w.base {
            if let Ok(s) = git(&w.path, &["diff", "--name-only", base, "HEAD"]).await {
                out.extend(s.lines().map(str::to_string));
            }
        }
    } else {
        let since = std::time::UNIX_EPOCH + std::time::Duration::from_secs(w.made_at.max(0) as u64 + 1);
        for e in ignore::WalkBuilder::new(&w.path).hidden(false).build().flatten() {
            let newer = e.metadata().ok().and_then(|m| m.modified().ok()).is_some_and(|t| t > since);
            if newer && e.file_type().is_some_and(|t| t.is_file()) {
                if let Ok(rel) = e.path().strip_prefix(&w.path) {
                    out.insert(rel.display().to_string());
                }
            }
        }
    }
    out.into_iter().filter(|p| !p.is_empty()).collect()
}

/// Whether a worktree holds work that would be lost if it were removed.
async fn holds_work(w: &Worktree) -> bool {
    if w.kind != "git" {
        return !changed_files(w).await.is_empty();
    }
    let dirty = git(&w.path, &["status", "--porcelain", "--untracked-files=all"]).await.map_or(true, |s| !s.is_empty());
    // Commits since its base that no remote-tracking branch has.
    let unpushed = match &w.base {
        Some(base) => git(&w.path, &["rev-list", "HEAD", &format!("^{base}"), "--not", "--remotes"])
            .await
            .map_or(true, |s| !s.is_empty()),
        None => false,
    };
    dirty || unpushed
}

/// Removes the run's worktrees that hold no work; answers the paths of those kept (with why).
pub async fn release_all(run_dir: &Path) -> Vec<String> {
    let mut kept = Vec::new();
    for w in manifest(run_dir) {
        if holds_work(&w).await {
            kept.push(format!("{} ({} kept: it holds uncommitted or unpushed work)", w.path.display(), w.repo));
            continue;
        }
        if w.kind == "git" {
            let _ = git(&w.origin, &["worktree", "remove", "--force", &w.path.display().to_string()]).await;
            if let Some(b) = &w.branch {
                let _ = git(&w.origin, &["branch", "-D", b]).await;
            }
        } else {
            let _ = std::fs::remove_dir_all(&w.path);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_sync(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .output()
            .unwrap();
        assert!(ok.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&ok.stderr));
    }

    /// A run that changed nothing leaves nothing; one with uncommitted work, or commits no
    /// remote has, keeps its worktree and says so; two runs never see each other's files.
    #[tokio::test]
    async fn worktrees_are_removed_unless_they_hold_work() {
        let tmp = tempfile::tempdir().unwrap();
        let origin = tmp.path().join("repo");
        std::fs::create_dir_all(&origin).unwrap();
        std::fs::write(origin.join("a.txt"), "a\n").unwrap();
        git_sync(&origin, &["init", "-q", "-b", "main"]);
        git_sync(&origin, &["add", "."]);
        git_sync(&origin, &["commit", "-qm", "one"]);
        let runs = tmp.path().join("runs");
        let (clean, dirty, committed) = (runs.join("r1"), runs.join("r2"), runs.join("r3"));
        let w1 = ensure(&clean, "r1", "repo", &origin).await.unwrap();
        let w2 = ensure(&dirty, "r2", "repo", &origin).await.unwrap();
        let w3 = ensure(&committed, "r3", "repo", &origin).await.unwrap();
        assert_eq!(ensure(&clean, "r1", "repo", &origin).await.unwrap(), w1, "made once per run");
        assert_eq!((w1.kind.as_str(), w1.branch.as_deref()), ("git", Some("cc-run/r1")));
        std::fs::write(w2.path.join("b.txt"), "b\n").unwrap();
        std::fs::write(w3.path.join("a.txt"), "changed\n").unwrap();
        git_sync(&w3.path, &["commit", "-qam", "two"]);
        assert!(!w1.path.join("b.txt").exists() && !origin.join("b.txt").exists());
        assert_eq!(std::fs::read_to_string(w1.path.join("a.txt")).unwrap(), "a\n");
        assert_eq!(changed_files(&w2).await, ["b.txt"]);
        assert_eq!(changed_files(&w3).await, ["a.txt"]);
        assert!(changed_files(&w1).await.is_empty());
        assert!(release_all(&clean).await.is_empty());
        assert!(!w1.path.exists(), "a clean worktree is removed");
        for (dir, w) in [(&dirty, &w2), (&committed, &w3)] {
            let kept = release_all(dir).await;
            assert_eq!(kept.len(), 1, "{kept:?}");
            assert!(kept[0].contains("uncommitted or unpushed") && w.path.exists(), "{kept:?}");
        }
        // A folder outside git gets a copy.
        let plain = tmp.path().join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        std::fs::write(plain.join("x.txt"), "x\n").unwrap();
        let w4 = ensure(&runs.join("r4"), "r4", "plain", &plain).await.unwrap();
        assert_eq!(w4.kind, "copy");
        assert_eq!(std::fs::read_to_string(w4.path.join("x.txt")).unwrap(), "x\n");
        assert!(release_all(&runs.join("r4")).await.is_empty());
        assert!(!w4.path.exists());
    }
}
