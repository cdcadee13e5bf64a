//! One file of an indexed tree, read for a client: "give me `src/a.rs` of this repository,
//! and nothing that is not part of it".
//!
//! [`read_file`] is the only way the server reads a repository file on a caller's behalf
//! (code_read, code_symbol's `include_source`, the `cc://` file resources). It holds
//! whatever the repository contains — a cloned repository can carry a symlink to `/`:
//!
//! - the path is repository-relative, without `..`, and is opened one component at a
//!   time from the root with `O_NOFOLLOW` (`openat`): a symlink anywhere on the way is
//!   refused, so nothing outside the root is reached, whatever the links point at;
//! - only a regular file is read (`fstat` of the opened descriptor, not of the name): a
//!   FIFO, a socket or a device is refused, and the open itself never blocks (`O_NONBLOCK`);
//! - at most `max_bytes` are read, counted as they are read (a file's reported size is not
//!   trusted);
//! - the walk's rules apply ([`crate::walk::admits`]): hidden files and folders (`.git`,
//!   `.env`), gitignored ones and vendored folders are not served, unless the operator
//!   widens it ([`ReadPolicy::include_ignored`]); `.git` is never served.
//!
//! A hard link inside the tree is a regular file of the tree and is read like any other
//! (git cannot carry one — a clone writes each file anew —, and the kernel's
//! `protected_hardlinks` stops a user linking a file it could not read itself).

use std::io::Read;
use std::path::{Component, Path};

/// What a read may reach.
#[derive(Clone, Copy, Debug)]
pub struct ReadPolicy {
    /// Also files the walk leaves out (gitignored, hidden, vendored) — never `.git`.
    pub include_ignored: bool,
    /// Most bytes read; a larger file is refused.
    pub max_bytes: u64,
}

impl Default for ReadPolicy {
    fn default() -> Self {
        ReadPolicy { include_ignored: false, max_bytes: 32 << 20 }
    }
}

/// Why a file was not read. Each message names the path as the caller gave it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FileError {
    #[error("{0}: must be a repository-relative path without '..'")]
    BadPath(String),
    #[error("{0}: no such file in the repository")]
    NotFound(String),
    #[error("{0}: a symbolic link is on the way; links are not followed")]
    Symlink(String),
    #[error("{path}: not a regular file ({kind})")]
    NotRegular { path: String, kind: &'static str },
    #[error("{path}: not served: {why}")]
    Excluded { path: String, why: String },
    #[error("{path}: larger than {max} bytes; files up to {max} bytes are read")]
    TooLarge { path: String, max: u64 },
    #[error("{path}: cannot read: {message}")]
    Io { path: String, message: String },
}

/// Reads `rel` under `root` under `policy` (see the module's rules).
pub fn read_file(root: &Path, rel: &str, policy: &ReadPolicy) -> Result<Vec<u8>, FileError> {
    let parts = components(rel)?;
    if parts.contains(&".git") {
        return Err(FileError::Excluded { path: rel.into(), why: "git's own folder is never served".into() });
    }
    if !policy.include_ignored {
        crate::walk::admits(root, &parts).map_err(|why| FileError::Excluded { path: rel.into(), why })?;
    }
    let file = open_beneath(root, &parts, rel, policy.max_bytes)?;
    let mut buf = Vec::new();
    file.take(policy.max_bytes + 1)
        .read_to_end(&mut buf)
        .map_err(|e| FileError::Io { path: rel.into(), message: e.to_string() })?;
    if buf.len() as u64 > policy.max_bytes {
        return Err(FileError::TooLarge { path: rel.into(), max: policy.max_bytes });
    }
    Ok(buf)
}

/// The normal components of a relative path; anything else is refused.
fn components(rel: &str) -> Result<Vec<&str>, FileError> {
    let bad = || FileError::BadPath(rel.to_string());
    let p = Path::new(rel);
    if rel.is_empty() || p.is_absolute() || rel.contains('\0') {
        return Err(bad());
    }
    let mut out = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s.to_str().ok_or_else(bad)?),
            Component::CurDir => {}
            _ => return Err(bad()),
        }
    }
    if out.is_empty() {
        return Err(bad());
    }
    Ok(out)
}

#[cfg(unix)]
fn open_beneath(root: &Path, parts: &[&str], rel: &str, max: u64) -> Result<std::fs::File, FileError> {
    use rustix::fs::{fstat, openat, FileType, Mode, OFlags, CWD};
    use rustix::io::Errno;
    let io = |e: Errno| FileError::Io { path: rel.into(), message: std::io::Error::from(e).to_string() };
    let classify = |e: Errno| match e {
        Errno::LOOP | Errno::MLINK => FileError::Symlink(rel.into()),
        Errno::NOENT | Errno::NOTDIR => FileError::NotFound(rel.into()),
        e => io(e),
    };
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    // The root itself is the operator's (its canonical path is in the index's meta).
    let mut dir = openat(CWD, root, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).map_err(io)?;
    let (last, dirs) = parts.split_last().expect("at least one component");
    for d in dirs {
        dir = match openat(&dir, *d, dir_flags, Mode::empty()) {
            Ok(next) => next,
            // O_DIRECTORY | O_NOFOLLOW on a link says ENOTDIR, as on a file: ask which it is.
            Err(Errno::NOTDIR) => {
                let link = rustix::fs::statat(&dir, *d, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                    .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink);
                return Err(if link { FileError::Symlink(rel.into()) } else { FileError::NotFound(rel.into()) });
            }
            Err(e) => return Err(classify(e)),
        };
    }
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = openat(&dir, *last, flags, Mode::empty()).map_err(classify)?;
    let st = fstat(&fd).map_err(io)?;
    let kind = match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => None,
        FileType::Directory => Some("a directory"),
        FileType::Fifo => Some("a FIFO"),
        FileType::Socket => Some("a socket"),
        FileType::CharacterDevice => Some("a character device"),
        FileType::BlockDevice => Some("a block device"),
        FileType::Symlink => return Err(FileError::Symlink(rel.into())),
        _ => Some("an unknown kind of file"),
    };
    if let Some(kind) = kind {
        return Err(FileError::NotRegular { path: rel.into(), kind });
    }
    // What it says of itself first (a sparse giant is refused unread); the bytes read are
    // counted again by the caller.
    if st.st_size as u64 > max {
        return Err(FileError::TooLarge { path: rel.into(), max });
    }
    Ok(std::fs::File::from(fd))
}

#[cfg(not(unix))]
fn open_beneath(root: &Path, parts: &[&str], rel: &str, _max: u64) -> Result<std::fs::File, FileError> {
    // Without openat: every component is checked with symlink_metadata before the open.
    let mut p = root.to_path_buf();
    for c in parts {
        p.push(c);
        let m = std::fs::symlink_metadata(&p).map_err(|_| FileError::NotFound(rel.into()))?;
        if m.file_type().is_symlink() {
            return Err(FileError::Symlink(rel.into()));
        }
    }
    let m = std::fs::metadata(&p).map_err(|_| FileError::NotFound(rel.into()))?;
    if !m.is_file() {
        return Err(FileError::NotRegular { path: rel.into(), kind: "not a file" });
    }
    std::fs::File::open(&p).map_err(|e| FileError::Io { path: rel.into(), message: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        std::fs::create_dir_all(r.join("src/deep")).unwrap();
        std::fs::create_dir_all(r.join(".git")).unwrap();
        std::fs::create_dir_all(r.join("build")).unwrap();
        std::fs::create_dir_all(r.join("node_modules/x")).unwrap();
        std::fs::write(r.join("src/a.py"), "print(1)\n").unwrap();
        std::fs::write(r.join("src/deep/b.py"), "x = 2\n").unwrap();
        std::fs::write(r.join(".gitignore"), "build/\n*.secret\n!keep.secret\n").unwrap();
        std::fs::write(r.join("src/deep/.gitignore"), "local.py\n").unwrap();
        std::fs::write(r.join("src/deep/local.py"), "nope\n").unwrap();
        std::fs::write(r.join("build/out.py"), "built\n").unwrap();
        std::fs::write(r.join("x.secret"), "s\n").unwrap();
        std::fs::write(r.join("keep.secret"), "k\n").unwrap();
        std::fs::write(r.join(".env"), "TOKEN=1\n").unwrap();
        std::fs::write(r.join(".git/config"), "[core]\n").unwrap();
        std::fs::create_dir_all(r.join(".git/info")).unwrap();
        std::fs::write(r.join(".git/info/exclude"), "*.local\n").unwrap();
        std::fs::write(r.join("src/x.local"), "l\n").unwrap();
        std::fs::write(r.join("node_modules/x/i.js"), "v\n").unwrap();
        t
    }

    fn read(t: &tempfile::TempDir, rel: &str) -> Result<Vec<u8>, FileError> {
        read_file(t.path(), rel, &ReadPolicy::default())
    }

    #[test]
    fn files_of_the_tree_are_read() {
        let t = tree();
        assert_eq!(read(&t, "src/a.py").unwrap(), b"print(1)\n");
        assert_eq!(read(&t, "./src/deep/b.py").unwrap(), b"x = 2\n");
        assert_eq!(read(&t, "keep.secret").unwrap(), b"k\n", "a negated pattern keeps the file");
    }

    #[test]
    fn paths_out_of_the_tree_are_refused() {
        let t = tree();
        for p in ["/etc/passwd", "../x", "src/../../x", "", "src/\0"] {
            assert!(matches!(read(&t, p), Err(FileError::BadPath(_))), "{p:?}");
        }
    }

    #[test]
    fn what_the_walk_leaves_out_is_not_served() {
        let t = tree();
        for p in [
            "build/out.py",
            "x.secret",
            "src/deep/local.py",
            "src/x.local",
            ".env",
            "node_modules/x/i.js",
            ".git/config",
        ] {
            assert!(matches!(read(&t, p), Err(FileError::Excluded { .. })), "{p}: {:?}", read(&t, p));
        }
        let wide = ReadPolicy { include_ignored: true, ..ReadPolicy::default() };
        assert_eq!(read_file(t.path(), "build/out.py", &wide).unwrap(), b"built\n");
        assert_eq!(read_file(t.path(), ".env", &wide).unwrap(), b"TOKEN=1\n");
        assert!(matches!(read_file(t.path(), ".git/config", &wide), Err(FileError::Excluded { .. })));
    }

    #[cfg(unix)]
    #[test]
    fn links_fifos_and_devices_are_refused() {
        use std::os::unix::fs::symlink;
        let t = tree();
        let r = t.path();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "outside\n").unwrap();
        symlink("/", r.join("linkroot")).unwrap();
        symlink(outside.path().join("secret"), r.join("src/out.py")).unwrap();
        symlink(outside.path(), r.join("src/outdir")).unwrap();
        symlink("a.py", r.join("src/alias.py")).unwrap(); // inside the tree: still a link
        symlink("chain2", r.join("chain1")).unwrap();
        symlink("src/a.py", r.join("chain2")).unwrap();
        symlink("/dev/zero", r.join("zero.py")).unwrap();
        for p in ["linkroot/etc/passwd", "src/out.py", "src/outdir/secret", "src/alias.py", "chain1", "zero.py"] {
            assert!(matches!(read(&t, p), Err(FileError::Symlink(_))), "{p}: {:?}", read(&t, p));
        }
        let fifo = r.join("src/pipe.py");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
            0,
        )
        .unwrap();
        assert!(matches!(read(&t, "src/pipe.py"), Err(FileError::NotRegular { kind: "a FIFO", .. })));
        assert!(matches!(read(&t, "src"), Err(FileError::NotRegular { kind: "a directory", .. })));
        assert!(matches!(read(&t, "src/none.py"), Err(FileError::NotFound(_))));
        assert!(matches!(read(&t, "src/a.py/x"), Err(FileError::NotFound(_))));
        // A hard link is a regular file of the tree: its content is served.
        std::fs::hard_link(r.join("src/a.py"), r.join("src/hard.py")).unwrap();
        assert_eq!(read(&t, "src/hard.py").unwrap(), b"print(1)\n");
    }

    #[test]
    fn reads_are_capped_by_the_bytes_read() {
        let t = tree();
        std::fs::write(t.path().join("src/big.py"), vec![b'x'; 1000]).unwrap();
        let small = ReadPolicy { max_bytes: 999, ..ReadPolicy::default() };
        assert!(matches!(read_file(t.path(), "src/big.py", &small), Err(FileError::TooLarge { max: 999, .. })));
        let exact = ReadPolicy { max_bytes: 1000, ..ReadPolicy::default() };
        assert_eq!(read_file(t.path(), "src/big.py", &exact).unwrap().len(), 1000);
    }
}
