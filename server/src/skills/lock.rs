//! skills-lock.json: "what exactly was installed, and is it still what is on disk?"
//!
//! Layout (`LOCK_VERSION` 1), pretty JSON with sorted keys:
//!
//! ```text
//! { "version": 1,
//!   "skills": { "<slug>": {
//!       "name", "description",                      // from its SKILL.md, as scanned
//!       "source": { "kind": "git", "repository", "path" } | { "kind": "local" },
//!       "ref", "ref_kind" (tag | branch | commit),  // git only: as asked, and what it was
//!       "commit",                                   // git only: the commit pinned
//!       "hash": "blake3:<hex>",                     // the canonical walk, below
//!       "files": { "<path>": { "mode", "size", "blake3" } },
//!       "pinned_at" } } }
//! ```
//!
//! The content hash is blake3 over a canonical walk of the skill's folder: its files sorted
//! by path (bytewise), each as its path, a NUL, its git mode (`100644`, `100755`, …), a NUL,
//! its length (8 bytes, little-endian) and its bytes. The per-file hashes let verify_skills
//! name each drifted file.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::git::RefKind;
use super::scan::Entry;

/// The version of skills-lock.json this server writes and reads.
pub const LOCK_VERSION: u32 = 1;
/// The lock's file name, beside the skills folder.
pub const LOCK_FILE: &str = "skills-lock.json";

/// skills-lock.json.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LockFile {
    pub version: u32,
    pub skills: BTreeMap<String, Locked>,
}

/// Where a skill came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    /// A folder of a git repository.
    Git { repository: String, path: String },
    /// Written here: create_skill, or pinned from what was on disk.
    Local,
}

/// One locked skill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Locked {
    pub name: String,
    pub description: String,
    pub source: Source,
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ref_kind: Option<RefKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    pub hash: String,
    pub files: BTreeMap<String, LockedFile>,
    pub pinned_at: i64,
}

/// One file of a locked skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockedFile {
    pub mode: String,
    pub size: u64,
    pub blake3: String,
}

/// Why the lock could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path} is not a skills lock this server reads: {detail}")]
    Format { path: String, detail: String },
}

impl LockFile {
    /// The lock at `path`; an empty one when there is none. A lock of another version is
    /// refused, saying which.
    pub fn read(path: &Path) -> Result<LockFile, LockError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(LockFile { version: LOCK_VERSION, skills: BTreeMap::new() })
            }
            Err(source) => return Err(LockError::Io { path: path.display().to_string(), source }),
        };
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| LockError::Format { path: path.display().to_string(), detail: e.to_string() })?;
        let version = v.get("version").and_then(|v| v.as_u64());
        if version != Some(LOCK_VERSION as u64) {
            return Err(LockError::Format {
                path: path.display().to_string(),
                detail: format!(
                    "version {} (this server reads version {LOCK_VERSION}); move it aside and pin the skills again with pin_skill",
                    version.map_or("none".into(), |v| v.to_string())
                ),
            });
        }
        serde_json::from_value(v)
            .map_err(|e| LockError::Format { path: path.display().to_string(), detail: e.to_string() })
    }

    /// Writes the lock to `path`: a temporary file, synced, then renamed into place.
    pub fn write(&self, path: &Path) -> Result<(), LockError> {
        let io = |source| LockError::Io { path: path.display().to_string(), source };
        let mut text = serde_json::to_string_pretty(self).expect("a lock serializes");
        text.push('\n');
        let tmp = path.with_extension("json.tmp");
        {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp).map_err(io)?;
            f.write_all(text.as_bytes()).map_err(io)?;
            f.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, path).map_err(io)
    }
}

/// The content hash of a skill's files (sorted by the caller or not: sorted here).
pub fn content_hash(entries: &[Entry]) -> String {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    let mut h = blake3::Hasher::new();
    for e in sorted {
        h.update(e.path.as_bytes());
        h.update(b"\0");
        h.update(e.kind.mode().as_bytes());
        h.update(b"\0");
        h.update(&(e.bytes.len() as u64).to_le_bytes());
        h.update(&e.bytes);
    }
    format!("blake3:{}", h.finalize().to_hex())
}

/// Each file's mode, size and hash.
pub fn file_hashes(entries: &[Entry]) -> BTreeMap<String, LockedFile> {
    entries
        .iter()
        .map(|e| {
            let f = LockedFile {
                mode: e.kind.mode().to_string(),
                size: e.bytes.len() as u64,
                blake3: blake3::hash(&e.bytes).to_hex().to_string(),
            };
            (e.path.clone(), f)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::scan::EntryKind;

    #[test]
    fn the_hash_is_of_paths_modes_and_bytes_in_path_order() {
        let a = Entry::new("a.md", EntryKind::File, b"x".to_vec());
        let b = Entry::new("b/c.md", EntryKind::File, b"y".to_vec());
        let h = content_hash(&[a.clone(), b.clone()]);
        assert_eq!(h, content_hash(&[b.clone(), a.clone()]));
        let mut x = a.clone();
        x.kind = EntryKind::Executable;
        assert_ne!(h, content_hash(&[x, b.clone()]));
        let renamed = Entry::new("a2.md", EntryKind::File, b"x".to_vec());
        assert_ne!(h, content_hash(&[renamed, b.clone()]));
        // Length-prefixed: moving a byte from one file to the next changes the hash.
        let a2 = Entry::new("a.md", EntryKind::File, b"xy".to_vec());
        let b2 = Entry::new("b/c.md", EntryKind::File, b"".to_vec());
        assert_ne!(h, content_hash(&[a2, b2]));
    }

    #[test]
    fn a_lock_of_another_version_is_refused_by_name() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join(LOCK_FILE);
        assert!(LockFile::read(&p).unwrap().skills.is_empty());
        std::fs::write(&p, r#"{"version": 2, "skills": {}}"#).unwrap();
        let e = LockFile::read(&p).unwrap_err().to_string();
        assert!(e.contains("version 2 (this server reads version 1)"), "{e}");
        let l = LockFile { version: LOCK_VERSION, skills: BTreeMap::new() };
        l.write(&p).unwrap();
        assert_eq!(LockFile::read(&p).unwrap(), l);
    }
}
