//! Git, through the git program: "what does this repository's ref point at, and what files
//! does that commit hold under this folder?"
//!
//! Every call is an argv (never a shell string) with a cleared environment: no system or user
//! configuration, no terminal prompt, no credential helper, hooks pointed at /dev/null,
//! submodules never followed, only the file, git, http and https protocols. A skill's files
//! are read from a bare repository in a temporary folder — fetched at depth 1, listed with
//! `ls-tree` (modes and sizes first, so nothing past the limits is read) and read with
//! `cat-file --batch` — so nothing is checked out, and no byte reaches the skills folder
//! before the scan gate has passed it.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncWriteExt;

use super::scan::{Entry, EntryKind, MAX_FILES, MAX_FILE_BYTES, MAX_TOTAL_BYTES};

/// How long one git command may take.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(120);

/// The schemes a skill's repository may have.
pub const SCHEMES: &[&str] = &["https", "http", "git", "file"];

/// Why a git operation failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// The repository could not be reached or read (`detail`: what git said).
    #[error("cannot reach the repository {url}: {detail}")]
    Unreachable { url: String, detail: String },
    /// The ref asked for is not in the repository.
    #[error("{url} has no branch or tag '{asked}' (it has: {available})")]
    NoRef { url: String, asked: String, available: String },
    /// The commit asked for could not be fetched.
    #[error("{url} does not serve the commit {commit}: {detail}")]
    NoCommit { url: String, commit: String, detail: String },
    /// The folder is not in the commit.
    #[error("the commit {commit} has no folder '{path}'")]
    NoPath { commit: String, path: String },
    /// The git program is not there.
    #[error("the git program could not be run: {0}")]
    NoGit(String),
    /// A git command failed in a way that is not the repository's.
    #[error("git {what}: {detail}")]
    Failed { what: String, detail: String },
}

/// What kind of ref a skill tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    Tag,
    Branch,
    /// A commit id: nothing moves it.
    Commit,
}

/// One ref a repository advertises (a tag's commit, peeled).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteRef {
    /// `refs/heads/main`, `refs/tags/v1`, `HEAD`.
    pub name: String,
    pub commit: String,
}

/// A ref resolved to a commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub kind: RefKind,
    /// The full ref name (`refs/tags/v1`), or the commit id.
    pub full: String,
    pub commit: String,
}

/// Whether `s` is a full commit id (SHA-1 or SHA-256, lowercase hex).
pub fn is_commit_id(s: &str) -> bool {
    (s.len() == 40 || s.len() == 64) && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Checks a repository URL: one of [`SCHEMES`], with a host (or an absolute path for file).
pub fn check_url(repository: &str) -> Result<(), String> {
    let u = url::Url::parse(repository).map_err(|e| {
        format!("'{repository}' is not a URL ({e}); give https://, http://, git:// or file:// (scp-like git@host:path is not taken)")
    })?;
    if !SCHEMES.contains(&u.scheme()) {
        return Err(format!("scheme '{}': a skill's repository is https://, http://, git:// or file://", u.scheme()));
    }
    if u.scheme() != "file" && u.host_str().is_none_or(str::is_empty) {
        return Err(format!("'{repository}' has no host"));
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err("credentials in the URL are not taken (they would be stored in skills-lock.json)".into());
    }
    Ok(())
}

/// The configuration every git command runs with.
const CONFIG: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.askPass=",
    "credential.helper=",
    "protocol.allow=never",
    "protocol.file.allow=always",
    "protocol.git.allow=always",
    "protocol.http.allow=always",
    "protocol.https.allow=always",
    "submodule.recurse=false",
    "fetch.recurseSubmodules=false",
    "transfer.credentialsInUrl=die",
    "init.defaultBranch=main",
    "advice.detachedHead=false",
];

/// Runs git with `args` (in `dir` when given), the hardened configuration and environment,
/// `stdin` fed to it; its stdout, or its stderr's last lines as the error.
async fn git(
    home: &Path,
    dir: Option<&Path>,
    args: &[&str],
    stdin: Option<Vec<u8>>,
) -> Result<Vec<u8>, (bool, String)> {
    let mut cmd = tokio::process::Command::new("git");
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()))
        .env("HOME", home)
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_PROTOCOL_FROM_USER", "0")
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for c in CONFIG {
        cmd.arg("-c").arg(c);
    }
    if let Some(d) = dir {
        cmd.arg("-C").arg(d);
    }
    cmd.args(args);
    let mut child = cmd.spawn().map_err(|e| (true, format!("{e}")))?;
    if let Some(input) = stdin {
        let mut w = child.stdin.take().expect("piped");
        // Written while git reads and answers: a task of its own, so a full pipe either way
        // never blocks both.
        tokio::spawn(async move {
            let _ = w.write_all(&input).await;
            let _ = w.shutdown().await;
        });
    }
    let out = tokio::time::timeout(GIT_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| (false, format!("timed out after {} s", GIT_TIMEOUT.as_secs())))?
        .map_err(|e| (false, format!("{e}")))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = lines[lines.len().saturating_sub(3)..].join(" / ");
        Err((false, if tail.is_empty() { format!("git exited with {}", out.status) } else { tail }))
    }
}

fn no_git(what: &str) -> impl Fn((bool, String)) -> GitError + '_ {
    move |(spawn, detail)| {
        if spawn {
            GitError::NoGit(detail)
        } else {
            GitError::Failed { what: what.to_string(), detail }
        }
    }
}

/// The refs `url` advertises: branches, tags (peeled to their commits) and HEAD.
pub async fn ls_remote(home: &Path, url: &str) -> Result<Vec<RemoteRef>, GitError> {
    let out = git(home, None, &["ls-remote", "--", url], None).await.map_err(|(spawn, detail)| {
        if spawn {
            GitError::NoGit(detail)
        } else {
            GitError::Unreachable { url: url.to_string(), detail }
        }
    })?;
    let text = String::from_utf8_lossy(&out);
    let mut refs: Vec<RemoteRef> = Vec::new();
    for line in text.lines() {
        let Some((commit, name)) = line.split_once('\t') else { continue };
        if let Some(tag) = name.strip_suffix("^{}") {
            // The peeled commit of an annotated tag replaces the tag object.
            if let Some(r) = refs.iter_mut().find(|r| r.name == tag) {
                r.commit = commit.to_string();
            }
            continue;
        }
        refs.push(RemoteRef { name: name.to_string(), commit: commit.to_string() });
    }
    Ok(refs)
}

/// Resolves `asked` (a tag, a branch, a full ref name, HEAD, or a commit id) among `refs`;
/// a name that is both a tag and a branch is the tag.
pub fn resolve(url: &str, refs: &[RemoteRef], asked: &str) -> Result<Resolved, GitError> {
    if is_commit_id(asked) {
        return Ok(Resolved { kind: RefKind::Commit, full: asked.to_string(), commit: asked.to_string() });
    }
    let candidates: Vec<String> = if asked.starts_with("refs/") || asked == "HEAD" {
        vec![asked.to_string()]
    } else {
        vec![format!("refs/tags/{asked}"), format!("refs/heads/{asked}")]
    };
    for c in candidates {
        if let Some(r) = refs.iter().find(|r| r.name == c) {
            let kind = if c.starts_with("refs/tags/") { RefKind::Tag } else { RefKind::Branch };
            return Ok(Resolved { kind, full: c, commit: r.commit.clone() });
        }
    }
    let mut names: Vec<&str> = refs
        .iter()
        .filter_map(|r| r.name.strip_prefix("refs/heads/").or_else(|| r.name.strip_prefix("refs/tags/")))
        .collect();
    names.truncate(20);
    Err(GitError::NoRef {
        url: url.to_string(),
        asked: asked.to_string(),
        available: if names.is_empty() { "no branches or tags".into() } else { names.join(", ") },
    })
}

/// The tag names of `refs` whose version is above `current`'s (`v1.2.10` > `v1.2.9`),
/// highest first; none when `current` has no version in its name.
pub fn newer_tags(refs: &[RemoteRef], current: &str) -> Vec<String> {
    let Some(cur) = version_of(current) else { return Vec::new() };
    let mut newer: Vec<(Vec<u64>, String)> = refs
        .iter()
        .filter_map(|r| r.name.strip_prefix("refs/tags/"))
        .filter_map(|t| version_of(t).filter(|v| *v > cur).map(|v| (v, t.to_string())))
        .collect();
    newer.sort_by(|a, b| b.cmp(a));
    newer.into_iter().map(|(_, t)| t).collect()
}

/// `v1.2.3`, `1.2`, `release-4.0.1` -> their numbers.
fn version_of(tag: &str) -> Option<Vec<u64>> {
    let start = tag.find(|c: char| c.is_ascii_digit())?;
    let head = &tag[..start];
    if !(head.is_empty() || head == "v" || head.ends_with('-') || head.ends_with('/')) {
        return None;
    }
    let nums: Vec<u64> = tag[start..].split(['.', '-', '+']).map_while(|p| p.parse().ok()).collect();
    (!nums.is_empty()).then_some(nums)
}

/// Fetches `resolved` from `url` into a bare repository under `work` and reads the files
/// under `path` (a folder of the commit; empty for the root): the commit fetched and the
/// entries, paths relative to the folder. Blobs past the scan's limits are not read (their
/// entries carry their size and no bytes): the scan refuses them for the limit.
pub async fn fetch_folder(
    work: &Path,
    url: &str,
    resolved: &Resolved,
    path: &str,
) -> Result<(String, Vec<Entry>), GitError> {
    let repo = work.join("repo.git");
    let repo_s = repo.to_string_lossy().to_string();
    git(work, None, &["init", "--bare", "-q", &repo_s], None).await.map_err(no_git("init"))?;
    let refspec = format!("+{}:refs/cc/pin", resolved.full);
    git(
        work,
        Some(&repo),
        &["fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--depth=1", "--", url, &refspec],
        None,
    )
    .await
    .map_err(|(spawn, detail)| {
        if spawn {
            GitError::NoGit(detail)
        } else if resolved.kind == RefKind::Commit {
            GitError::NoCommit { url: url.to_string(), commit: resolved.commit.clone(), detail }
        } else {
            GitError::Unreachable { url: url.to_string(), detail }
        }
    })?;
    let commit = git(work, Some(&repo), &["rev-parse", "--verify", "refs/cc/pin^{commit}"], None)
        .await
        .map_err(no_git("rev-parse"))?;
    let commit = String::from_utf8_lossy(&commit).trim().to_string();
    let folder = path.trim_matches('/');
    let tree = if folder.is_empty() { format!("{commit}^{{tree}}") } else { format!("{commit}:{folder}") };
    let kind = git(work, Some(&repo), &["cat-file", "-t", &tree], None).await;
    if kind.as_deref().map(|k| k.trim_ascii()) != Ok(b"tree".as_slice()) {
        return Err(GitError::NoPath { commit, path: folder.to_string() });
    }
    let listing = git(work, Some(&repo), &["ls-tree", "-r", "-l", "-z", "--full-tree", &tree], None)
        .await
        .map_err(no_git("ls-tree"))?;
    // "<mode> <type> <object> <size>\t<path>\0"
    let mut listed: Vec<(Entry, Option<String>)> = Vec::new();
    for rec in listing.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let rec = String::from_utf8_lossy(rec);
        let Some((meta, p)) = rec.split_once('\t') else { continue };
        let f: Vec<&str> = meta.split_whitespace().collect();
        let [mode, _type, object, size] = f[..] else { continue };
        let kind = match mode {
            "100644" | "100664" => EntryKind::File,
            "100755" => EntryKind::Executable,
            "120000" => EntryKind::Symlink,
            "160000" => EntryKind::Submodule,
            _ => EntryKind::Other,
        };
        let size = size.parse::<u64>().unwrap_or(0);
        let read = matches!(kind, EntryKind::File | EntryKind::Executable | EntryKind::Symlink);
        listed.push((Entry { path: p.to_string(), kind, size, bytes: Vec::new() }, read.then(|| object.to_string())));
    }
    listed.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    // Read only what the limits allow: a skill past them is refused without its bytes.
    let mut total = 0u64;
    let mut want = Vec::new();
    for (i, (e, obj)) in listed.iter().enumerate() {
        total += e.size;
        if let Some(o) = obj {
            if i < MAX_FILES && e.size <= MAX_FILE_BYTES && total <= MAX_TOTAL_BYTES {
                want.push((i, o.clone()));
            }
        }
    }
    if !want.is_empty() {
        let input: String = want.iter().map(|(_, o)| format!("{o}\n")).collect();
        let out = git(work, Some(&repo), &["cat-file", "--batch"], Some(input.into_bytes()))
            .await
            .map_err(no_git("cat-file"))?;
        let mut at = 0usize;
        for (i, _) in &want {
            let nl = out[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map(|p| p + at)
                .ok_or_else(|| GitError::Failed { what: "cat-file".into(), detail: "a truncated answer".into() })?;
            let header = String::from_utf8_lossy(&out[at..nl]).to_string();
            let size: usize = header.rsplit(' ').next().and_then(|s| s.parse().ok()).ok_or_else(|| {
                GitError::Failed { what: "cat-file".into(), detail: format!("an unexpected header '{header}'") }
            })?;
            let body = out
                .get(nl + 1..nl + 1 + size)
                .ok_or_else(|| GitError::Failed { what: "cat-file".into(), detail: "a truncated object".into() })?;
            listed[*i].0.bytes = body.to_vec();
            at = nl + 1 + size + 1;
        }
    }
    Ok((commit, listed.into_iter().map(|(e, _)| e).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(name: &str, commit: &str) -> RemoteRef {
        RemoteRef { name: name.into(), commit: commit.into() }
    }

    #[test]
    fn refs_resolve_tags_before_branches_and_name_what_exists() {
        let refs = [r("HEAD", "a"), r("refs/heads/main", "a"), r("refs/heads/v1", "b"), r("refs/tags/v1", "c")];
        assert_eq!(
            resolve("u", &refs, "v1").unwrap(),
            Resolved { kind: RefKind::Tag, full: "refs/tags/v1".into(), commit: "c".into() }
        );
        assert_eq!(resolve("u", &refs, "main").unwrap().kind, RefKind::Branch);
        assert_eq!(resolve("u", &refs, "refs/heads/v1").unwrap().commit, "b");
        let id = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(resolve("u", &refs, id).unwrap().kind, RefKind::Commit);
        let e = resolve("u", &refs, "gone").unwrap_err().to_string();
        assert!(e.contains("no branch or tag 'gone'") && e.contains("main, v1, v1"), "{e}");
    }

    #[test]
    fn newer_tags_compare_versions_by_number() {
        let refs = [
            r("refs/tags/v1.2.9", "a"),
            r("refs/tags/v1.2.10", "b"),
            r("refs/tags/v1.1", "c"),
            r("refs/tags/nightly", "d"),
            r("refs/heads/v9", "e"),
        ];
        assert_eq!(newer_tags(&refs, "v1.2.9"), ["v1.2.10"]);
        assert_eq!(newer_tags(&refs, "v1.0"), ["v1.2.10", "v1.2.9", "v1.1"]);
        assert!(newer_tags(&refs, "nightly").is_empty());
    }

    #[test]
    fn urls_of_other_schemes_or_with_credentials_are_refused() {
        for ok in ["https://example.org/a.git", "git://127.0.0.1:9418/a", "file:///srv/a.git"] {
            check_url(ok).unwrap();
        }
        for bad in ["ext::sh -c id", "git@host:a.git", "ssh://h/a", "https://u:p@h/a", "-uhttps://h", "https://"] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }
}
