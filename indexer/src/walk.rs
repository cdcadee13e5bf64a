//! The parallel walk: which files of a tree are source files of a known language.
//!
//! Built on the `ignore` crate: `.gitignore`, `.ignore` and git excludes are honoured
//! (with or without a `.git` folder), hidden files and symlinks are not followed.
//! Vendored directories are pruned whole; over-size files are skipped here, binary and
//! minified ones when they are read ([`classify_content`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

use ignore::{WalkBuilder, WalkState};
use serde::{Deserialize, Serialize};

use crate::record::{Diagnostic, Lang};

/// Why a file was not indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// A directory of third-party code (`vendor/`, `node_modules/`, `third_party/`, …), counted once per directory.
    VendoredDir,
    /// Larger than the size limit.
    TooLarge,
    /// Contains NUL bytes.
    Binary,
    /// Generated or minified (very long lines, `.min.js`).
    Minified,
    /// Could not be read (permissions, vanished, not a regular file).
    Unreadable,
}

impl SkipReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::VendoredDir => "vendored directories",
            SkipReason::TooLarge => "over the size limit",
            SkipReason::Binary => "binary",
            SkipReason::Minified => "minified or generated",
            SkipReason::Unreadable => "unreadable",
        }
    }
}

/// Directory names pruned as vendored third-party code.
pub const VENDORED_DIRS: &[&str] = &[
    "node_modules",
    "bower_components",
    "vendor",
    "vendors",
    "third_party",
    "third-party",
    "thirdparty",
    "Pods",
    "Carthage",
    "site-packages",
    "__pycache__",
];

/// Default size limit: files above it are usually generated.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1 << 20;

#[derive(Clone, Debug)]
pub struct WalkOptions {
    pub max_file_size: u64,
    pub threads: usize,
}

impl Default for WalkOptions {
    fn default() -> Self {
        // Not `rayon::current_num_threads()`: that would initialise rayon's global pool
        // before a caller could size it (`cc-server index --threads`).
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        WalkOptions { max_file_size: DEFAULT_MAX_FILE_SIZE, threads }
    }
}

/// A file the walk selected.
#[derive(Clone, Debug)]
pub struct WalkedFile {
    /// Repository-relative, `/`-separated.
    pub rel: String,
    pub abs: PathBuf,
    pub lang: Lang,
    pub size: u64,
    pub mtime_ns: u128,
}

#[derive(Debug, Default)]
pub struct Walk {
    /// Sorted by `rel`.
    pub files: Vec<WalkedFile>,
    pub skipped: BTreeMap<SkipReason, u64>,
    /// Files of no language cc-server indexes.
    pub other_files: u64,
    pub diagnostics: Vec<Diagnostic>,
}

/// Walks `root` in parallel.
pub fn walk(root: &Path, opts: &WalkOptions) -> Walk {
    let out = Mutex::new(Walk::default());
    let root_owned = root.to_path_buf();
    WalkBuilder::new(root)
        .hidden(true)
        .follow_links(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .parents(false)
        .threads(opts.threads.max(1))
        .filter_entry(|e| {
            !(e.depth() > 0
                && e.file_type().is_some_and(|t| t.is_dir())
                && e.file_name().to_str().is_some_and(|n| VENDORED_DIRS.contains(&n)))
        })
        .build_parallel()
        .run(|| {
            let out = &out;
            let root = &root_owned;
            let max = opts.max_file_size;
            Box::new(move |entry| {
                let local = |f: &mut dyn FnMut(&mut Walk)| f(&mut out.lock().expect("walk lock"));
                let entry = match entry {
                    Ok(e) => e,
                    Err(err) => {
                        let path = err_path(&err).map(|p| rel_path(root, p)).unwrap_or_default();
                        local(&mut |w| {
                            w.diagnostics.push(Diagnostic { path: path.clone(), line: None, message: err.to_string() });
                            *w.skipped.entry(SkipReason::Unreadable).or_default() += 1;
                        });
                        return WalkState::Continue;
                    }
                };
                let Some(ft) = entry.file_type() else {
                    return WalkState::Continue;
                };
                if ft.is_dir() {
                    // filter_entry pruned vendored dirs before we see them; count them here instead.
                    if let Ok(rd) = std::fs::read_dir(entry.path()) {
                        let vendored = rd
                            .flatten()
                            .filter(|c| {
                                c.file_type().is_ok_and(|t| t.is_dir())
                                    && c.file_name().to_str().is_some_and(|n| VENDORED_DIRS.contains(&n))
                            })
                            .count() as u64;
                        if vendored > 0 {
                            local(&mut |w| *w.skipped.entry(SkipReason::VendoredDir).or_default() += vendored);
                        }
                    }
                    return WalkState::Continue;
                }
                if !ft.is_file() {
                    return WalkState::Continue;
                }
                let path = entry.path();
                let lang = match cc_grammars::detect_by_name(path) {
                    Some(l) => Some(l),
                    None if path.extension().is_none() => sniff_shebang(path),
                    None => None,
                };
                let Some(lang) = lang else {
                    local(&mut |w| w.other_files += 1);
                    return WalkState::Continue;
                };
                let rel = rel_path(root, path);
                let meta = match entry.metadata() {
                    Ok(m) => m,
                    Err(err) => {
                        local(&mut |w| {
                            w.diagnostics.push(Diagnostic { path: rel.clone(), line: None, message: err.to_string() });
                            *w.skipped.entry(SkipReason::Unreadable).or_default() += 1;
                        });
                        return WalkState::Continue;
                    }
                };
                if meta.len() > max {
                    local(&mut |w| *w.skipped.entry(SkipReason::TooLarge).or_default() += 1);
                    return WalkState::Continue;
                }
                let mtime_ns =
                    meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
                let file = WalkedFile { rel: rel.clone(), abs: path.to_path_buf(), lang, size: meta.len(), mtime_ns };
                local(&mut |w| w.files.push(file.clone()));
                WalkState::Continue
            })
        });
    let mut w = out.into_inner().expect("walk lock");
    w.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    settle_headers(&mut w.files);
    w.diagnostics.sort_by(|a, b| a.path.cmp(&b.path));
    w
}

/// Settles the language of `.h` headers, C by their name: one is C++ when the nearest folder
/// on its way up (its own first) that holds C or C++ files holds more C++ ones (`.cc`,
/// `.cpp`, `.hpp`, …) than C sources (`.c`); with none on the way, when the repository does.
/// (lua's and zlib's `.h` are C; ninja's `src/*.h` beside `src/*.cc` and one `getopt.c`, and
/// leveldb's `include/leveldb/*.h` in a repository of `.cc` files, are C++.)
pub fn settle_headers(files: &mut [WalkedFile]) {
    let header = |f: &WalkedFile| f.lang == Lang::C && f.rel.ends_with(".h");
    if !files.iter().any(header) {
        return;
    }
    let dir = |rel: &str| rel.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    // Per folder, and in all: (C sources, C++ files).
    let mut by_dir: rustc_hash::FxHashMap<String, (u32, u32)> = rustc_hash::FxHashMap::default();
    let mut all = (0u32, 0u32);
    for f in files.iter().filter(|f| !header(f)) {
        let (c, cpp) = match f.lang {
            Lang::C => (1, 0),
            Lang::Cpp => (0, 1),
            _ => continue,
        };
        let e = by_dir.entry(dir(&f.rel)).or_default();
        *e = (e.0 + c, e.1 + cpp);
        all = (all.0 + c, all.1 + cpp);
    }
    let cpp_when = |(c, cpp): (u32, u32)| cpp > c;
    for f in files.iter_mut().filter(|f| header(f)) {
        let mut d = dir(&f.rel);
        let counts = loop {
            if let Some(&n) = by_dir.get(&d).filter(|n| n.0 + n.1 > 0) {
                break n;
            }
            if d.is_empty() {
                break all;
            }
            d = dir(&d);
        };
        if cpp_when(counts) {
            f.lang = Lang::Cpp;
        }
    }
}

/// Whether [`walk`] would visit the file `parts` (the normal components of a
/// repository-relative path) under `root`: no hidden component, no vendored folder on the
/// way, and neither it nor a folder on the way ignored by a `.ignore` or `.gitignore` of
/// the tree or by `.git/info/exclude` — with the walk's precedence (the nearest folder's
/// rules win; in one folder `.ignore` wins over `.gitignore`; git's excludes come last).
/// `Err` says which rule leaves it out. Files are not read beyond those rule files.
pub fn admits(root: &Path, parts: &[&str]) -> Result<(), String> {
    use ignore::gitignore::GitignoreBuilder;
    use ignore::Match;
    let Some((_, dirs)) = parts.split_last() else { return Err("empty path".into()) };
    if let Some(h) = parts.iter().find(|c| c.starts_with('.')) {
        return Err(format!("'{h}' is hidden (the index leaves hidden files and folders out)"));
    }
    if let Some(v) = dirs.iter().find(|c| VENDORED_DIRS.contains(c)) {
        return Err(format!("'{v}' is a vendored folder (the index leaves it out)"));
    }
    // The patterns of `file`, relative to `dir`.
    let matcher = |dir: &Path, file: &Path| {
        file.is_file().then(|| {
            let mut b = GitignoreBuilder::new(dir);
            let _ = b.add(file);
            b.build().ok()
        })?
    };
    let exclude = matcher(root, &root.join(".git/info/exclude"));
    // Each entry on the way, folders first: an ignored folder is never entered.
    for depth in 1..=parts.len() {
        let entry = root.join(parts[..depth].join("/"));
        let is_dir = depth < parts.len();
        let mut decided = None;
        'levels: for level in (0..depth).rev() {
            let dir = root.join(parts[..level].join("/"));
            for name in [".ignore", ".gitignore"] {
                if let Some(g) = matcher(&dir, &dir.join(name)) {
                    match g.matched(&entry, is_dir) {
                        Match::None => {}
                        m => {
                            let at = if level == 0 {
                                name.to_string()
                            } else {
                                format!("{}/{name}", parts[..level].join("/"))
                            };
                            decided = Some((m.is_ignore(), at));
                            break 'levels;
                        }
                    }
                }
            }
        }
        if decided.is_none() {
            if let Some(g) = &exclude {
                if let m @ (Match::Ignore(_) | Match::Whitelist(_)) = g.matched(&entry, is_dir) {
                    decided = Some((m.is_ignore(), ".git/info/exclude".to_string()));
                }
            }
        }
        if let Some((true, at)) = decided {
            let what = parts[..depth].join("/");
            return Err(format!("'{what}' is ignored by {at} (the index leaves it out)"));
        }
    }
    Ok(())
}

fn err_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => err_path(err),
        ignore::Error::Loop { child, .. } => Some(child),
        _ => None,
    }
}

fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut s = String::new();
    for (i, c) in rel.components().enumerate() {
        if i > 0 {
            s.push('/');
        }
        s.push_str(&c.as_os_str().to_string_lossy());
    }
    s
}

fn sniff_shebang(path: &Path) -> Option<Lang> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let mut f = std::fs::File::open(path).ok()?;
    let n = f.read(&mut head).ok()?;
    cc_grammars::detect_by_shebang(&head[..n])
}

/// Looks at a file's bytes: `Some(reason)` when it must not be parsed.
pub fn classify_content(rel: &str, bytes: &[u8]) -> Option<SkipReason> {
    let head = &bytes[..bytes.len().min(8000)];
    if head.contains(&0) {
        return Some(SkipReason::Binary);
    }
    let name = rel.rsplit('/').next().unwrap_or(rel);
    if name.contains(".min.") || name.ends_with("-min.js") || name.ends_with(".bundle.js") {
        return Some(SkipReason::Minified);
    }
    // Minified: a long file made of very long lines.
    let sample = &bytes[..bytes.len().min(64 * 1024)];
    if sample.len() >= 4096 {
        let lines = sample.iter().filter(|&&b| b == b'\n').count() + 1;
        let longest = sample.split(|&b| b == b'\n').map(<[u8]>::len).max().unwrap_or(0);
        if sample.len() / lines > 300 && longest > 2000 {
            return Some(SkipReason::Minified);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walked(paths: &[&str]) -> Vec<WalkedFile> {
        paths
            .iter()
            .map(|p| WalkedFile {
                rel: p.to_string(),
                abs: PathBuf::from(p),
                lang: cc_grammars::detect_by_name(Path::new(p)).unwrap(),
                size: 0,
                mtime_ns: 0,
            })
            .collect()
    }

    #[test]
    fn a_h_header_is_cpp_where_the_sources_around_it_are() {
        let mut files = walked(&[
            "include/db/db.h",
            "src/build.cc",
            "src/build.h",
            "src/c/api.c",
            "src/c/api.h",
            "src/mixed/a.c",
            "src/mixed/b.cpp",
            "src/mixed/m.h",
            "src/most/a.cc",
            "src/most/b.cc",
            "src/most/getopt.c",
            "src/most/m.h",
            "src/only/x.h",
        ]);
        settle_headers(&mut files);
        let langs: Vec<(&str, Lang)> = files.iter().map(|f| (f.rel.as_str(), f.lang)).collect();
        assert_eq!(
            langs,
            [
                // (No sources on the way up to the root; the repository has more C++ files.)
                ("include/db/db.h", Lang::Cpp),
                ("src/build.cc", Lang::Cpp),
                ("src/build.h", Lang::Cpp),
                ("src/c/api.c", Lang::C),
                ("src/c/api.h", Lang::C),
                ("src/mixed/a.c", Lang::C),
                ("src/mixed/b.cpp", Lang::Cpp),
                ("src/mixed/m.h", Lang::C),
                ("src/most/a.cc", Lang::Cpp),
                ("src/most/b.cc", Lang::Cpp),
                ("src/most/getopt.c", Lang::C),
                ("src/most/m.h", Lang::Cpp),
                ("src/only/x.h", Lang::Cpp),
            ]
        );
        let mut cpp_only = walked(&["include/leveldb/db.h", "db/db_impl.cc", "db/db_impl.h"]);
        settle_headers(&mut cpp_only);
        assert!(cpp_only.iter().all(|f| f.lang == Lang::Cpp));
    }
}
