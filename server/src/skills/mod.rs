//! Skills: "which skills may this workspace's agents load, and are they still what was
//! scanned?"
//!
//! A skill is a folder with a SKILL.md ([`manifest`]: YAML front matter with name and
//! description, then markdown). A workspace's skills live on disk, in its skills folder, and
//! are locked by the `skills-lock.json` beside it ([`lock`]):
//!
//! | path under `<data>/workspaces/<workspace_id>/` | what |
//! |---|---|
//! | `skills/<slug>/` | a skill's folder, as agents load it |
//! | `skills-lock.json` | each skill's source, ref, commit, content hash and file hashes |
//! | `.skills.lock` | held (`flock`) while the folder or the lock changes |
//! | `.staging/` | fetches and writes in progress (temporary folders, removed after) |
//!
//! Invariants: nothing reaches the skills folder, the lock or a prompt unscanned: an install
//! or update fetches into a bare repository under `.staging/`, reads the folder's files into
//! memory, runs the scan gate ([`scan`], fail-closed), and only then writes them to a staging
//! folder renamed into place; create_skill and pin_skill scan too. A skill is offered to agents
//! ([`Skills::offered`]) only while its folder hashes to its lock entry; a drifted one is
//! listed (by its locked name) but withheld until pin_skill re-pins it.

pub mod git;
pub mod lock;
pub mod manifest;
pub mod scan;

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use self::git::{GitError, RefKind, Resolved};
use self::lock::{LockError, LockFile, Locked, Source};
use self::manifest::Manifest;
use self::scan::{Entry, EntryKind, Refusal, MAX_FILES, MAX_FILE_BYTES};

/// A staging folder this old is a leftover (a git command times out after two minutes).
pub const STALE_STAGING: std::time::Duration = std::time::Duration::from_secs(3600);

/// Why a skills operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    /// The scan gate refused the skill: each finding names its file, line and rule.
    #[error("the scan gate refused the skill: {}", .0.iter().take(5).map(|r| r.to_string()).collect::<Vec<_>>().join("; "))]
    Refused(Vec<Refusal>),
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Lock(#[from] LockError),
    /// No skill of that slug.
    #[error("{0}")]
    NotFound(String),
    /// It exists already, or is not in a state that allows this.
    #[error("{0}")]
    Conflict(String),
    /// The request is wrong (`pointer`: the argument).
    #[error("{message}")]
    Invalid { pointer: &'static str, message: String },
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> SkillError {
    let what = what.into();
    move |source| SkillError::Io { what, source }
}

/// Whether a skill on disk is what its lock says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Its folder hashes to its lock entry: offered to agents.
    Verified,
    /// Its folder differs from its lock entry: withheld until re-pinned.
    Drifted,
    /// Locked, but its folder is gone.
    Missing,
    /// A folder in the skills folder that the lock does not know: withheld until pinned.
    Unlocked,
}

/// How a file differs from the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// On disk, not in the lock.
    Added,
    /// In the lock, not on disk.
    Removed,
    /// Other bytes.
    Modified,
    /// Another mode (an execute bit, a symlink).
    Mode,
}

/// One drifted file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Drift {
    pub file: String,
    pub change: Change,
}

/// One skill as verification sees it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Verification {
    pub slug: String,
    pub status: Status,
    /// The hash in the lock.
    pub locked_hash: Option<String>,
    /// The hash of what is on disk now.
    pub disk_hash: Option<String>,
    /// Each file that differs, in path order.
    pub drift: Vec<Drift>,
}

/// A skill's files fetched from git and passed by the scan gate, not yet written anywhere.
#[derive(Clone, Debug)]
pub struct Fetched {
    pub resolved: Resolved,
    /// The commit fetched (the one scanned and pinned).
    pub commit: String,
    pub entries: Vec<Entry>,
    pub manifest: Manifest,
}

/// One workspace's skills folder and lock.
#[derive(Clone, Debug)]
pub struct Skills {
    /// `<data>/workspaces/<workspace_id>`.
    root: PathBuf,
}

/// Whether `id` can name a folder: what workspace ids are (letters, digits, `.`, `_`, `-`).
fn folder_name(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && id != "."
        && id != ".."
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Checks a slug, naming `pointer` when it is wrong.
pub fn check_slug(slug: &str, pointer: &'static str) -> Result<(), SkillError> {
    if manifest::valid_name(slug) {
        Ok(())
    } else {
        Err(SkillError::Invalid {
            pointer,
            message: format!(
                "{pointer}: slug '{slug}': 1 to 64 lowercase letters, digits and hyphens, not starting with a hyphen"
            ),
        })
    }
}

impl Skills {
    /// The skills of workspace `workspace` under the data folder `data_root`.
    pub fn of(data_root: &Path, workspace: &str) -> Result<Skills, SkillError> {
        if !folder_name(workspace) {
            return Err(SkillError::Invalid {
                pointer: "/workspace_id",
                message: format!("workspace '{workspace}' has an id that cannot name its skills folder"),
            });
        }
        Ok(Skills { root: data_root.join("workspaces").join(workspace) })
    }

    /// The skills folder.
    pub fn folder(&self) -> PathBuf {
        self.root.join("skills")
    }

    /// skills-lock.json.
    pub fn lock_path(&self) -> PathBuf {
        self.root.join(lock::LOCK_FILE)
    }

    /// Where fetches and writes in progress live (created). What a killed server left there
    /// (older than [`STALE_STAGING`]: no fetch or write takes that long) is removed.
    pub fn staging(&self) -> Result<PathBuf, SkillError> {
        let s = self.root.join(".staging");
        std::fs::create_dir_all(&s).map_err(io(format!("creating {}", s.display())))?;
        if let Ok(rd) = std::fs::read_dir(&s) {
            for e in rd.flatten() {
                let old = e.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
                if old.is_some_and(|age| age > STALE_STAGING) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        Ok(s)
    }

    /// Holds the workspace's skills lock (flock) until dropped: one change at a time, across
    /// processes too.
    fn exclusive(&self) -> Result<std::fs::File, SkillError> {
        std::fs::create_dir_all(&self.root).map_err(io(format!("creating {}", self.root.display())))?;
        let p = self.root.join(".skills.lock");
        let f = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&p)
            .map_err(io(format!("opening {}", p.display())))?;
        rustix::fs::flock(&f, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| SkillError::Io { what: format!("locking {}", p.display()), source: e.into() })?;
        Ok(f)
    }

    pub fn read_lock(&self) -> Result<LockFile, SkillError> {
        Ok(LockFile::read(&self.lock_path())?)
    }

    /// The skills' folders on disk, by slug (names that are no slug are left out).
    fn on_disk(&self) -> Result<BTreeSet<String>, SkillError> {
        let mut out = BTreeSet::new();
        let dir = self.folder();
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(SkillError::Io { what: format!("reading {}", dir.display()), source: e }),
        };
        for e in rd {
            let e = e.map_err(io(format!("reading {}", dir.display())))?;
            if let Some(name) = e.file_name().to_str().filter(|n| manifest::valid_name(n)) {
                out.insert(name.to_string());
            }
        }
        Ok(out)
    }

    /// The files of skill `slug` as they are on disk; `None` when it has no folder.
    pub fn read_skill(&self, slug: &str) -> Result<Option<Vec<Entry>>, SkillError> {
        let dir = self.folder().join(slug);
        match std::fs::symlink_metadata(&dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(SkillError::Io { what: format!("reading {}", dir.display()), source: e }),
            Ok(m) if !m.is_dir() => {
                // A symlink (or a file) where a skill's folder should be: one entry that the
                // scan refuses and the lock never matches.
                let kind = if m.file_type().is_symlink() { EntryKind::Symlink } else { EntryKind::Other };
                return Ok(Some(vec![Entry::new("", kind, Vec::new())]));
            }
            Ok(_) => {}
        }
        read_folder(&dir).map(Some).map_err(io(format!("reading {}", dir.display())))
    }

    /// Verifies one skill against its lock entry.
    pub fn verify(&self, slug: &str, locked: Option<&Locked>) -> Result<Verification, SkillError> {
        let disk = self.read_skill(slug)?;
        let disk_hash = disk.as_ref().map(|d| lock::content_hash(d));
        let mut v = Verification {
            slug: slug.to_string(),
            status: Status::Verified,
            locked_hash: locked.map(|l| l.hash.clone()),
            disk_hash: disk_hash.clone(),
            drift: Vec::new(),
        };
        match (locked, disk) {
            (None, _) => v.status = Status::Unlocked,
            (Some(_), None) => v.status = Status::Missing,
            (Some(l), Some(d)) => {
                let files = lock::file_hashes(&d);
                for (p, f) in &files {
                    match l.files.get(p) {
                        None => v.drift.push(Drift { file: p.clone(), change: Change::Added }),
                        Some(lf) if lf.mode != f.mode => v.drift.push(Drift { file: p.clone(), change: Change::Mode }),
                        Some(lf) if lf.blake3 != f.blake3 || lf.size != f.size => {
                            v.drift.push(Drift { file: p.clone(), change: Change::Modified })
                        }
                        Some(_) => {}
                    }
                }
                for p in l.files.keys().filter(|p| !files.contains_key(*p)) {
                    v.drift.push(Drift { file: p.clone(), change: Change::Removed });
                }
                v.drift.sort_by(|a, b| a.file.cmp(&b.file));
                if !v.drift.is_empty() || disk_hash.as_deref() != Some(l.hash.as_str()) {
                    v.status = Status::Drifted;
                }
            }
        }
        Ok(v)
    }

    /// Every skill the lock or the folder knows, verified, by slug.
    pub fn verify_all(&self) -> Result<(LockFile, Vec<Verification>), SkillError> {
        let lock = self.read_lock()?;
        let mut slugs = self.on_disk()?;
        slugs.extend(lock.skills.keys().cloned());
        let mut out = Vec::new();
        for s in slugs {
            out.push(self.verify(&s, lock.skills.get(&s))?);
        }
        Ok((lock, out))
    }

    /// The skills agents may load: the verified ones, with their folders.
    pub fn offered(&self) -> Result<Vec<(String, PathBuf)>, SkillError> {
        let (_, all) = self.verify_all()?;
        Ok(all
            .into_iter()
            .filter(|v| v.status == Status::Verified)
            .map(|v| (v.slug.clone(), self.folder().join(&v.slug)))
            .collect())
    }

    /// Writes the skills agents may load into `dest` (one folder per verified skill: its
    /// files read, hashed against the lock in memory, and written from those same bytes, so
    /// a change between the check and the copy is never offered); their slugs. A run's
    /// folder gets them at its start (`CC_SKILLS_DIR`).
    pub fn materialize(&self, dest: &Path) -> Result<Vec<String>, SkillError> {
        let lock = self.read_lock()?;
        std::fs::create_dir_all(dest).map_err(io(format!("creating {}", dest.display())))?;
        let mut out = Vec::new();
        for (slug, l) in &lock.skills {
            let Some(entries) = self.read_skill(slug)? else { continue };
            if lock::content_hash(&entries) != l.hash || entries.iter().any(|e| e.kind != EntryKind::File) {
                continue;
            }
            let to = dest.join(slug);
            write_folder(&to, &entries).map_err(io(format!("writing {}", to.display())))?;
            out.push(slug.clone());
        }
        Ok(out)
    }

    /// Writes scanned `entries` as skill `slug` and locks them as `locked` (whose hashes are
    /// computed here). `replace`: the skill must exist (update, pin) — else it must not
    /// (create, install). The files are written into a staging folder, checked, then renamed
    /// into place; the lock is written last. The caller has scanned `entries`.
    pub fn commit(
        &self,
        slug: &str,
        entries: &[Entry],
        mut locked: Locked,
        replace: bool,
    ) -> Result<Locked, SkillError> {
        let _guard = self.exclusive()?;
        let mut lock = self.read_lock()?;
        let target = self.folder().join(slug);
        let exists = lock.skills.contains_key(slug) || std::fs::symlink_metadata(&target).is_ok();
        if !replace && exists {
            return Err(SkillError::Conflict(format!(
                "a skill '{slug}' exists in this workspace; update_skill moves it to another ref"
            )));
        }
        locked.hash = lock::content_hash(entries);
        locked.files = lock::file_hashes(entries);
        let staging = self.staging()?;
        let tmp = tempfile::Builder::new()
            .prefix("write-")
            .tempdir_in(&staging)
            .map_err(io(format!("creating a folder in {}", staging.display())))?;
        let new = tmp.path().join(slug);
        write_folder(&new, entries).map_err(io(format!("writing {}", new.display())))?;
        // What was written is what was scanned.
        let back = read_folder(&new).map_err(io(format!("reading {}", new.display())))?;
        if lock::content_hash(&back) != locked.hash {
            return Err(SkillError::Io {
                what: format!("writing {}", new.display()),
                source: std::io::Error::other("the folder written does not hash to what was scanned"),
            });
        }
        std::fs::create_dir_all(self.folder()).map_err(io(format!("creating {}", self.folder().display())))?;
        if std::fs::symlink_metadata(&target).is_ok() {
            // One step: the old folder and the new swap places (the old one then goes with
            // the temporary folder), so no moment has no skill there. Where the file system
            // cannot exchange, aside and then into place.
            let cwd = rustix::fs::CWD;
            if rustix::fs::renameat_with(cwd, &new, cwd, &target, rustix::fs::RenameFlags::EXCHANGE).is_err() {
                let old = tmp.path().join(".old");
                std::fs::rename(&target, &old).map_err(io(format!("moving {} aside", target.display())))?;
                std::fs::rename(&new, &target).map_err(io(format!("moving {} into place", target.display())))?;
            }
        } else {
            std::fs::rename(&new, &target).map_err(io(format!("moving {} into place", target.display())))?;
        }
        lock.skills.insert(slug.to_string(), locked.clone());
        lock.version = lock::LOCK_VERSION;
        lock.write(&self.lock_path())?;
        Ok(locked)
    }

    /// Hashes what is on disk for `slug` into the lock, keeping its source (a skill the lock
    /// did not know becomes a local one). The caller has scanned `entries`.
    pub fn pin(&self, slug: &str, entries: &[Entry], manifest: &Manifest, now: i64) -> Result<Locked, SkillError> {
        let _guard = self.exclusive()?;
        let mut lock = self.read_lock()?;
        // What was scanned is still what is on disk (nothing changed it since).
        let disk = self.read_skill(slug)?.ok_or_else(|| SkillError::NotFound(format!("no skill folder '{slug}'")))?;
        if lock::content_hash(&disk) != lock::content_hash(entries) {
            return Err(SkillError::Conflict(format!(
                "skill '{slug}' changed on disk while it was scanned; pin it again"
            )));
        }
        let mut locked = lock.skills.get(slug).cloned().unwrap_or(Locked {
            name: String::new(),
            description: String::new(),
            source: Source::Local,
            git_ref: None,
            ref_kind: None,
            commit: None,
            hash: String::new(),
            files: Default::default(),
            pinned_at: now,
        });
        locked.name = manifest.name.clone();
        locked.description = manifest.description.clone();
        locked.hash = lock::content_hash(entries);
        locked.files = lock::file_hashes(entries);
        locked.pinned_at = now;
        lock.skills.insert(slug.to_string(), locked.clone());
        lock.version = lock::LOCK_VERSION;
        lock.write(&self.lock_path())?;
        Ok(locked)
    }
}

/// Reads a folder's files (never following a symlink) in path order. Files past the scan's
/// limits are listed with their size and left unread.
pub fn read_folder(dir: &Path) -> std::io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((d, prefix)) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            let name = e.file_name().to_string_lossy().to_string();
            let rel = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            let m = std::fs::symlink_metadata(e.path())?;
            let ft = m.file_type();
            if ft.is_dir() {
                stack.push((e.path(), rel));
                continue;
            }
            let (kind, bytes) = if ft.is_symlink() {
                (EntryKind::Symlink, std::fs::read_link(e.path())?.to_string_lossy().as_bytes().to_vec())
            } else if ft.is_file() {
                let kind = if m.permissions().mode() & 0o111 != 0 { EntryKind::Executable } else { EntryKind::File };
                let bytes = if m.len() <= MAX_FILE_BYTES && out.len() < MAX_FILES {
                    std::fs::read(e.path())?
                } else {
                    Vec::new()
                };
                (kind, bytes)
            } else {
                (EntryKind::Other, Vec::new())
            };
            let size = if kind == EntryKind::Symlink { bytes.len() as u64 } else { m.len() };
            out.push(Entry { path: rel, kind, size, bytes });
        }
    }
    out.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(out)
}

/// Writes scanned entries (regular files only: the scan refuses every other kind) under `dir`.
fn write_folder(dir: &Path, entries: &[Entry]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for e in entries {
        if e.kind != EntryKind::File || scan::check_path(&e.path).is_err() {
            return Err(std::io::Error::other(format!("'{}' is not a plain file of a skill", e.path)));
        }
        let p = dir.join(&e.path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&p, &e.bytes)?;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644))?;
    }
    Ok(())
}

/// Scans `entries` and reads their manifest: the manifest, or the refusals.
pub fn gate(entries: &[Entry]) -> Result<Manifest, SkillError> {
    scan::scan(entries).map_err(SkillError::Refused)?;
    let md = entries.iter().find(|e| e.path == "SKILL.md").ok_or_else(|| {
        SkillError::Refused(vec![Refusal {
            file: "SKILL.md".into(),
            line: None,
            rule: scan::Rule::Manifest,
            message: "a skill's folder has a SKILL.md".into(),
        }])
    })?;
    let text = std::str::from_utf8(&md.bytes).unwrap_or("");
    manifest::parse(text).map_err(|(line, message)| {
        SkillError::Refused(vec![Refusal {
            file: "SKILL.md".into(),
            line: Some(line),
            rule: scan::Rule::Manifest,
            message,
        }])
    })
}

/// Checks a folder path inside a repository: empty (the root) or a relative path.
pub fn check_repo_path(path: &str) -> Result<(), SkillError> {
    let p = path.trim_matches('/');
    if p.is_empty() {
        return Ok(());
    }
    scan::check_path(p)
        .map_err(|why| SkillError::Invalid { pointer: "/path", message: format!("/path: '{path}': {why}") })
}

/// Resolves `git_ref` in `repository`, fetches the commit into a temporary folder under
/// `work`, reads the files under `path` and runs the scan gate on them. Nothing is written
/// outside `work`, which the caller removes.
pub async fn fetch_and_scan(work: &Path, repository: &str, path: &str, git_ref: &str) -> Result<Fetched, SkillError> {
    git::check_url(repository)
        .map_err(|m| SkillError::Invalid { pointer: "/repository", message: format!("/repository: {m}") })?;
    check_repo_path(path)?;
    let refs = git::ls_remote(work, repository).await?;
    let resolved = git::resolve(repository, &refs, git_ref)?;
    let (commit, entries) = git::fetch_folder(work, repository, &resolved, path).await?;
    let manifest = gate(&entries)?;
    Ok(Fetched { resolved, commit, entries, manifest })
}

/// The lock entry of a fetched skill (hashes filled in by [`Skills::commit`]).
pub fn locked_of(f: &Fetched, repository: &str, path: &str, git_ref: &str, now: i64) -> Locked {
    Locked {
        name: f.manifest.name.clone(),
        description: f.manifest.description.clone(),
        source: Source::Git { repository: repository.to_string(), path: path.trim_matches('/').to_string() },
        git_ref: Some(git_ref.to_string()),
        ref_kind: Some(f.resolved.kind),
        commit: Some(f.commit.clone()),
        hash: String::new(),
        files: Default::default(),
        pinned_at: now,
    }
}

/// What a tracked ref is now, for list_skill_updates.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct UpdateCheck {
    pub slug: String,
    pub repository: String,
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub ref_kind: RefKind,
    /// The commit pinned.
    pub commit: String,
    /// The commit the ref points at now (none when it is gone or unreachable).
    pub latest_commit: Option<String>,
    /// Tags whose version is above the pinned tag's, highest first.
    pub newer_tags: Vec<String>,
    /// `up_to_date`, `newer_commit` (the ref moved: a push, a force-push, a moved tag),
    /// `newer_tag`, `ref_gone` or `unreachable`.
    pub status: &'static str,
    /// Why, when the ref is gone or the repository unreachable.
    pub error: Option<String>,
}

/// Checks one git-sourced skill's ref against its repository.
pub async fn check_update(work: &Path, slug: &str, l: &Locked) -> Option<UpdateCheck> {
    let Source::Git { repository, .. } = &l.source else { return None };
    let (git_ref, kind, commit) = (l.git_ref.clone()?, l.ref_kind?, l.commit.clone()?);
    let mut c = UpdateCheck {
        slug: slug.to_string(),
        repository: repository.clone(),
        git_ref: git_ref.clone(),
        ref_kind: kind,
        commit: commit.clone(),
        latest_commit: None,
        newer_tags: Vec::new(),
        status: "up_to_date",
        error: None,
    };
    let refs = match git::ls_remote(work, repository).await {
        Ok(r) => r,
        Err(e) => {
            c.status = "unreachable";
            c.error = Some(e.to_string());
            return Some(c);
        }
    };
    if kind == RefKind::Commit {
        c.latest_commit = Some(commit);
        return Some(c);
    }
    match git::resolve(repository, &refs, &git_ref) {
        Ok(r) => {
            c.latest_commit = Some(r.commit.clone());
            if r.commit != commit {
                c.status = "newer_commit";
            }
        }
        Err(e) => {
            c.status = "ref_gone";
            c.error = Some(e.to_string());
        }
    }
    if kind == RefKind::Tag {
        c.newer_tags = git::newer_tags(&refs, &git_ref);
        if c.status == "up_to_date" && !c.newer_tags.is_empty() {
            c.status = "newer_tag";
        }
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_leftovers_of_a_killed_server_are_removed_and_fresh_ones_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Skills::of(tmp.path(), "default").unwrap();
        let staging = s.staging().unwrap();
        let (old, fresh) = (staging.join("fetch-old"), staging.join("fetch-fresh"));
        for d in [&old, &fresh] {
            std::fs::create_dir_all(d.join("repo.git")).unwrap();
        }
        let then = std::time::SystemTime::now() - STALE_STAGING - std::time::Duration::from_secs(60);
        std::fs::File::open(&old).unwrap().set_modified(then).unwrap();
        s.staging().unwrap();
        assert!(!old.exists() && fresh.exists());
        assert!(Skills::of(tmp.path(), "..").is_err() && Skills::of(tmp.path(), "a/b").is_err());
    }
}
