//! Module names as the languages themselves name them, from the manifests that say so:
//! a Rust file under `<crate>/src/` belongs to the crate its `Cargo.toml` names (`[lib]
//! name`, else `[package] name` with `-` as `_`), not to its folder (`indexer/src/store.rs`
//! is `cc_indexer::store`); a Python file's module is its path below its source root (the
//! `src/` of a src layout, or the folder of its `pyproject.toml` / `setup.py` / `setup.cfg`),
//! so `src/flask/app.py` is `flask.app`. Everything else keeps [`module_path`]'s reading
//! of the path alone.
//!
//! The roots are read once per index run, from the folders of the files walked (a few
//! `stat`s and one small TOML read per crate); a file whose module changed (a crate renamed,
//! a `pyproject.toml` added) is parsed again even though its bytes did not change.

use std::collections::HashMap;
use std::path::Path;

use crate::extract::module_path;
use crate::walk::WalkedFile;
use crate::Lang;

/// The module prefix of every walked file, in the order given.
pub fn modules_of(root: &Path, files: &[WalkedFile]) -> Vec<String> {
    let mut roots = Roots { root, rust: HashMap::new(), python: HashMap::new() };
    files.iter().map(|f| roots.module(f.lang, &f.rel)).collect()
}

/// The files that make a folder a Python project's root.
const PYTHON_PROJECT_FILES: [&str; 3] = ["pyproject.toml", "setup.py", "setup.cfg"];

struct Roots<'a> {
    root: &'a Path,
    /// A folder (repository-relative, no trailing `/`) → the crate whose `src/` holds it:
    /// the crate folder's length and the crate's name.
    rust: HashMap<String, Option<(usize, String)>>,
    /// A folder → the Python source root above it (repository-relative).
    python: HashMap<String, Option<String>>,
}

fn parent(dir: &str) -> Option<&str> {
    if dir.is_empty() {
        None
    } else {
        Some(dir.rsplit_once('/').map_or("", |(p, _)| p))
    }
}

fn join<'s>(dir: &'s str, name: &'s str) -> std::borrow::Cow<'s, str> {
    if dir.is_empty() {
        name.into()
    } else {
        format!("{dir}/{name}").into()
    }
}

impl Roots<'_> {
    fn module(&mut self, lang: Lang, rel: &str) -> String {
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        match lang {
            Lang::Rust => match self.crate_of(dir) {
                Some((len, name)) => {
                    let below = &rel[if len == 0 { 0 } else { len + 1 }..];
                    let below = below.strip_prefix("src/").unwrap_or(below);
                    rust_module(&name, below)
                }
                None => self.rust_target(rel).unwrap_or_else(|| module_path(lang, rel)),
            },
            Lang::Python => match self.python_root(dir) {
                Some(r) if !r.is_empty() => module_path(lang, rel.strip_prefix(&format!("{r}/")).unwrap_or(rel)),
                _ => module_path(lang, rel),
            },
            _ => module_path(lang, rel),
        }
    }

    /// The crate whose `src/` folder holds `dir`, by walking up to the nearest `src` with a
    /// `Cargo.toml` beside it.
    fn crate_of(&mut self, dir: &str) -> Option<(usize, String)> {
        if let Some(hit) = self.rust.get(dir) {
            return hit.clone();
        }
        let found = if dir == "src" || dir.ends_with("/src") {
            let krate = parent(dir).unwrap_or("");
            match crate_name(&self.root.join(&*join(krate, "Cargo.toml"))) {
                Some(name) => Some((krate.len(), name)),
                None => parent(dir).and_then(|p| self.crate_of(p)),
            }
        } else {
            parent(dir).and_then(|p| self.crate_of(p))
        };
        self.rust.insert(dir.to_string(), found.clone());
        found
    }

    /// A crate's tests, benches and examples are crates of their own, named after the file
    /// (`tests/api.rs`) or folder (`tests/it/main.rs`) below `tests/`.
    fn rust_target(&self, rel: &str) -> Option<String> {
        for kind in ["tests/", "benches/", "examples/"] {
            // The innermost: `benches/benches/graph.rs` is the bench `graph` of the crate `benches/`.
            let at = rel.rfind(&format!("/{kind}")).map(|i| i + 1).or(rel.starts_with(kind).then_some(0));
            let Some(at) = at else { continue };
            let krate = rel[..at].trim_end_matches('/');
            if !self.root.join(&*join(krate, "Cargo.toml")).is_file() {
                continue;
            }
            let below = &rel[at + kind.len()..];
            let (first, rest) = below.split_once('/').unwrap_or((below, ""));
            let name = first.strip_suffix(".rs").unwrap_or(first).replace('-', "_");
            return Some(rust_module(&name, rest));
        }
        None
    }

    /// The Python source root of `dir`: the nearest folder above with a project file
    /// (`pyproject.toml`, `setup.py`, `setup.cfg`), or its `src/` when the file is below that
    /// and `src` is no package itself (the src layout); else the repository's root (with no
    /// project file, nothing says `src/` is not a name the code imports by).
    fn python_root(&mut self, dir: &str) -> Option<String> {
        let project = self.python_project(dir)?;
        if !PYTHON_PROJECT_FILES.iter().any(|f| self.root.join(&*join(&project, f)).is_file()) {
            return Some(project);
        }
        let src = join(&project, "src").into_owned();
        let below_src = dir == src || dir.starts_with(&format!("{src}/"));
        Some(if below_src && !self.root.join(&src).join("__init__.py").is_file() { src } else { project })
    }

    /// The nearest folder at or above `dir` with a Python project file, else the root.
    fn python_project(&mut self, dir: &str) -> Option<String> {
        if let Some(hit) = self.python.get(dir) {
            return hit.clone();
        }
        let is_project = PYTHON_PROJECT_FILES.iter().any(|f| self.root.join(&*join(dir, f)).is_file());
        let found = if is_project || dir.is_empty() {
            Some(dir.to_string())
        } else {
            parent(dir).and_then(|p| self.python_project(p))
        };
        self.python.insert(dir.to_string(), found.clone());
        found
    }
}

/// `crate::a::b` for the file `a/b.rs` below a crate's `src/` (`lib.rs`, `main.rs` and
/// `mod.rs` name their folder's module).
fn rust_module(krate: &str, below_src: &str) -> String {
    let stem = below_src.rsplit_once('.').map_or(below_src, |(s, _)| s);
    let mut parts: Vec<&str> = stem.split('/').filter(|p| !p.is_empty()).collect();
    if matches!(parts.last(), Some(&"mod") | Some(&"lib") | Some(&"main")) {
        parts.pop();
    }
    let mut out = krate.to_string();
    for p in parts {
        out.push_str("::");
        out.push_str(p);
    }
    out
}

/// The name a crate's code calls it by: `[lib] name`, else `[package] name` with `-` as `_`.
/// `None` when `manifest` is missing or names no package (a virtual workspace manifest).
fn crate_name(manifest: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Manifest {
        package: Option<Named>,
        lib: Option<Lib>,
    }
    #[derive(serde::Deserialize)]
    struct Named {
        name: String,
    }
    #[derive(serde::Deserialize)]
    struct Lib {
        name: Option<String>,
    }
    let text = std::fs::read_to_string(manifest).ok()?;
    let m: Manifest = toml::from_str(&text).ok()?;
    let package = m.package?.name;
    Some(m.lib.and_then(|l| l.name).unwrap_or(package).replace('-', "_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(root: &Path, paths: &[(&str, &str)]) -> Vec<WalkedFile> {
        let mut out = Vec::new();
        for (rel, text) in paths {
            let abs = root.join(rel);
            std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
            std::fs::write(&abs, text).unwrap();
            if let Some(lang) = cc_grammars::detect_by_name(Path::new(rel)) {
                out.push(WalkedFile { rel: rel.to_string(), abs, lang, size: 0, mtime_ns: 0 });
            }
        }
        out
    }

    #[test]
    fn rust_files_take_their_crates_names() {
        let tmp = tempfile::tempdir().unwrap();
        let walked = files(
            tmp.path(),
            &[
                ("Cargo.toml", "[workspace]\nmembers = [\"indexer\", \"tools/x-cli\"]\n"),
                ("indexer/Cargo.toml", "[package]\nname = \"cc-indexer\"\n"),
                ("indexer/src/lib.rs", ""),
                ("indexer/src/store/mod.rs", ""),
                ("indexer/src/store/records.rs", ""),
                ("indexer/tests/it/main.rs", ""),
                ("benches/Cargo.toml", "[package]\nname = \"cc-benches\"\n"),
                ("benches/benches/graph.rs", ""),
                ("tools/x-cli/Cargo.toml", "[package]\nname = \"x-cli\"\n[lib]\nname = \"xcli\"\n"),
                ("tools/x-cli/src/main.rs", ""),
                ("loose/src/a.rs", ""),
            ],
        );
        let got = modules_of(tmp.path(), &walked);
        assert_eq!(
            got,
            [
                "cc_indexer",
                "cc_indexer::store",
                "cc_indexer::store::records",
                "it",
                "graph",
                "xcli",
                // No Cargo.toml beside it: read from the path, as before.
                "loose::a",
            ]
        );
    }

    #[test]
    fn python_modules_start_at_their_source_root() {
        let tmp = tempfile::tempdir().unwrap();
        let walked = files(
            tmp.path(),
            &[
                ("pyproject.toml", "[project]\nname = \"flask\"\n"),
                ("src/flask/__init__.py", ""),
                ("src/flask/app.py", ""),
                ("tests/test_app.py", ""),
                ("libs/extra/setup.py", ""),
                ("libs/extra/extra/core.py", ""),
                ("pkg/src/__init__.py", ""),
                ("pkg/src/mod.py", ""),
            ],
        );
        let got = modules_of(tmp.path(), &walked);
        // `pkg/src` is a package of its own (it has __init__.py), so it keeps its name.
        assert_eq!(got, ["flask", "flask.app", "tests.test_app", "setup", "extra.core", "pkg.src", "pkg.src.mod"]);
        // No project file: `src/` may be how the code imports it (`from src.m import f`).
        let bare = tempfile::tempdir().unwrap();
        let walked = files(bare.path(), &[("src/m.py", ""), ("lib/n.py", "")]);
        assert_eq!(modules_of(bare.path(), &walked), ["src.m", "lib.n"]);
    }
}
