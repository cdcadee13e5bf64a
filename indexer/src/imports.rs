//! Import specifiers as a JavaScript / TypeScript toolchain resolves them, where the
//! repository's manifests say so: `compilerOptions.paths` and `baseUrl` of the nearest
//! `tsconfig.json` / `jsconfig.json` (JSONC, following `extends`, with `${configDir}`), and
//! the packages of a workspace (package.json `workspaces`, pnpm-workspace.yaml, lerna.json)
//! by their package.json `name`, entered through `source`, `exports`, `types`, `module` or
//! `main` (a build folder read as its `src/`).
//!
//! A specifier that lands on a file of the repository is rewritten, at parse time, into a
//! path relative to the importing file (`@app/util` in `web/src/main.ts` becomes `./app/util.ts`
//! when `paths` maps `@app/*` to `src/app/*`), which the call graph resolves exactly like any
//! relative import; a specifier that lands nowhere in the repository (a dependency from
//! `node_modules`) is left as written. What the map was read from is fingerprinted into
//! meta.json, and a run whose fingerprint differs parses the JavaScript, TypeScript and Go
//! files again.
//!
//! Go: an import path names a package by its module's path (the `module` line of the nearest
//! `go.mod`) and the folder below that module's root, so `example.com/shop/internal/util`,
//! imported anywhere in a repository holding `go.mod` `module example.com/shop`, is the folder
//! `internal/util` and no other `util`; `example.com/shop` itself is the module's root folder,
//! which no suffix of a path can name. The longest module path wins (a nested module, a
//! workspace of several). Such a path is rewritten, like a TypeScript one, into the folder
//! relative to the importing file's (`../internal/util`); the import keeps its name as written
//! and gets the package's name as its alias (the path's last segment, a major version suffix
//! `/v2` left out), which is what the file binds.
//!
//! R: a package's own code may call its functions as `PKG::f()`, PKG the `Package:` of the
//! nearest DESCRIPTION at or above the file's folder; such a call loses its receiver and is
//! resolved as the plain call `f()` it is.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use compact_str::CompactString;

use crate::record::Reference;
use crate::walk::WalkedFile;
use crate::Lang;

/// The files that configure a folder's TypeScript / JavaScript compiler options, nearest first.
const CONFIG_FILES: [&str; 2] = ["tsconfig.json", "jsconfig.json"];

/// Extensions a module specifier may leave out, in the order TypeScript tries them.
const EXTENSIONS: [&str; 9] = ["ts", "tsx", "mts", "cts", "d.ts", "js", "jsx", "mjs", "cjs"];

/// Folders a package's `main` / `types` point into that hold built output, read as `src/`.
const BUILD_DIRS: [&str; 6] = ["dist", "lib", "build", "out", "esm", "cjs"];

/// How deep an `extends` chain is followed.
const MAX_EXTENDS: usize = 8;

/// Whether `lang`'s import specifiers are read through an [`ImportMap`] (and so read again
/// when its fingerprint changes).
pub fn applies_to(lang: Lang) -> bool {
    is_js(lang) || matches!(lang, Lang::Go | Lang::R)
}

/// JavaScript and TypeScript, whose specifiers the compiler options and packages map.
fn is_js(lang: Lang) -> bool {
    matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx)
}

/// A Go module of the repository.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct GoModule {
    /// Its path, as its `go.mod` declares it.
    path: String,
    /// The folder of its `go.mod` (repository-relative; empty for the root).
    dir: String,
}

/// The compiler options in force in a folder.
#[derive(Debug, Default, Clone, PartialEq, Eq, Hash)]
struct Scope {
    /// The config file they come from (repository-relative).
    config: String,
    /// `baseUrl`, resolved (repository-relative).
    base_url: Option<String>,
    /// `paths`: a pattern (at most one `*`) and its targets, each resolved against `baseUrl`
    /// or, without one, the folder of the config that declares `paths`.
    paths: Paths,
}

/// `compilerOptions.paths`: each pattern (at most one `*`) and its targets.
type Paths = Vec<(String, Vec<String>)>;

/// A config's options as merged along its `extends`, before the config that uses them is
/// known (`${configDir}` is that config's folder).
#[derive(Debug, Default, Clone)]
struct RawScope {
    /// `baseUrl`, joined to the folder of the config declaring it unless it says `${configDir}`.
    base_url: Option<String>,
    /// `paths` as written, and the folder of the config declaring them.
    paths: Option<(String, Paths)>,
}

/// The template TypeScript replaces with the folder of the config in use.
const CONFIG_DIR: &str = "${configDir}";

impl RawScope {
    /// The options in force for the config `config`: `paths` against `baseUrl`, or without
    /// one against the folder of the config declaring them.
    fn resolve(self, config: &str) -> Scope {
        let dir = dir_of(config);
        let fill = |s: &str| normalize(&s.replace(CONFIG_DIR, dir));
        let base_url = self.base_url.as_deref().and_then(fill);
        let paths = self
            .paths
            .map(|(declared_in, list)| {
                let against = base_url.clone().unwrap_or(declared_in);
                list.into_iter()
                    .map(|(pattern, targets)| {
                        let targets = targets
                            .iter()
                            .filter_map(
                                |t| if t.contains(CONFIG_DIR) { fill(t) } else { normalize(&join(&against, t)) },
                            )
                            .collect();
                        (pattern, targets)
                    })
                    .collect()
            })
            .unwrap_or_default();
        Scope { config: config.to_string(), base_url, paths }
    }
}

/// A package of the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Package {
    name: String,
    /// Its folder (repository-relative; empty for the root).
    dir: String,
    /// Its entry points as package.json names them, in the order tried.
    entries: Vec<String>,
    /// `exports` subpaths (`./feature`, `./*`) and their targets.
    subpaths: Vec<(String, String)>,
}

/// See the module doc.
#[derive(Debug, Default)]
pub struct ImportMap {
    /// Every walked file (repository-relative), to tell where a specifier lands.
    files: HashSet<String>,
    /// A folder holding JavaScript / TypeScript files → the scope in force there.
    scopes: HashMap<String, Option<usize>>,
    scope_list: Vec<Scope>,
    /// Longest name first, so `@a/b-c` is tried before `@a/b`.
    packages: Vec<Package>,
    /// Longest path first, so a nested module wins over the one around it.
    go_modules: Vec<GoModule>,
    /// The folders that hold Go files: the packages an import can name.
    go_dirs: HashSet<String>,
    /// R: a folder holding R files → the package (its DESCRIPTION's `Package:`) they are of.
    r_packages: BTreeMap<String, String>,
    fingerprint: String,
}

impl ImportMap {
    /// Reads the map for the walked files of the repository at `root` (nothing is read when
    /// none of them is JavaScript or TypeScript).
    pub fn build(root: &Path, files: &[WalkedFile]) -> ImportMap {
        let mut map = ImportMap::default();
        if files.iter().any(|f| f.lang == Lang::Go) {
            map.go_dirs = files.iter().filter(|f| f.lang == Lang::Go).map(|f| dir_of(&f.rel).to_string()).collect();
            map.go_modules = go_modules(root, &map.go_dirs);
        }
        if files.iter().any(|f| f.lang == Lang::R) {
            let dirs: HashSet<String> =
                files.iter().filter(|f| f.lang == Lang::R).map(|f| dir_of(&f.rel).to_string()).collect();
            map.r_packages = r_packages(root, &dirs);
        }
        if files.iter().any(|f| is_js(f.lang)) {
            map.build_js(root, files);
        }
        map.fingerprint = map.fingerprint_of();
        map
    }

    fn build_js(&mut self, root: &Path, files: &[WalkedFile]) {
        let mut reader = Reader { root, configs: HashMap::new(), manifests: HashMap::new() };
        let packages = reader.packages(files);
        let map = self;
        map.files = files.iter().map(|f| f.rel.clone()).collect();
        let mut by_config: HashMap<String, usize> = HashMap::new();
        for f in files.iter().filter(|f| is_js(f.lang)) {
            let dir = dir_of(&f.rel);
            if map.scopes.contains_key(dir) {
                continue;
            }
            let scope = reader.scope_of(dir, &packages).map(|s| {
                *by_config.entry(s.config.clone()).or_insert_with(|| {
                    map.scope_list.push(s);
                    map.scope_list.len() - 1
                })
            });
            map.scopes.insert(dir.to_string(), scope);
        }
        map.packages = packages;
        map.packages.sort_by(|a, b| b.name.len().cmp(&a.name.len()).then_with(|| a.name.cmp(&b.name)));
    }

    /// What the map was read from, as a hex digest; empty when there is nothing to map.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    fn fingerprint_of(&self) -> String {
        let mut scopes: Vec<&Scope> =
            self.scope_list.iter().filter(|s| s.base_url.is_some() || !s.paths.is_empty()).collect();
        if scopes.is_empty() && self.packages.is_empty() && self.go_modules.is_empty() && self.r_packages.is_empty() {
            return String::new();
        }
        scopes.sort_by(|a, b| a.config.cmp(&b.config));
        let mut packages: Vec<&Package> = self.packages.iter().collect();
        packages.sort_by(|a, b| a.name.cmp(&b.name));
        // (Without Go modules, the text is what it was before they were read: an index of a
        // repository without any keeps its fingerprint.)
        let mut text = format!("{scopes:?}\n{packages:?}");
        if !self.go_modules.is_empty() {
            let mut go: Vec<&GoModule> = self.go_modules.iter().collect();
            go.sort_by(|a, b| a.path.cmp(&b.path));
            text.push_str(&format!("\n{go:?}"));
        }
        if !self.r_packages.is_empty() {
            text.push_str(&format!("\nR {:?}", self.r_packages));
        }
        blake3::hash(text.as_bytes()).to_hex().to_string()
    }

    /// Rewrites the import specifiers of `refs` (of the file `rel`) that land on a file of
    /// the repository; see the module doc.
    pub fn apply(&self, lang: Lang, rel: &str, refs: &mut [Reference]) {
        if !applies_to(lang) || self.fingerprint.is_empty() {
            return;
        }
        // R: `PKG::f()` in package PKG's own code is its `f`, looked up as a plain call.
        if lang == Lang::R {
            if let Some(package) = self.r_packages.get(dir_of(rel)) {
                for r in refs.iter_mut().filter(|r| r.kind == crate::RefKind::Call) {
                    if r.receiver.as_deref() == Some(package.as_str()) {
                        r.receiver = None;
                    }
                }
            }
            return;
        }
        if lang == Lang::Go {
            for r in refs.iter_mut().filter(|r| r.kind == crate::RefKind::Import) {
                let Some((to, package)) = r.module().and_then(|m| self.rewrite_go(rel, m)) else { continue };
                if r.alias().is_none() {
                    r.set_alias(CompactString::from(package));
                }
                r.set_module(CompactString::from(to));
            }
            return;
        }
        for r in refs.iter_mut() {
            if let Some(to) = r.module().and_then(|m| self.rewrite(rel, m)) {
                r.set_module(CompactString::from(to));
            }
        }
    }

    /// The specifier `spec`, written in the file `rel`, as a path relative to that file's
    /// folder, when the map sends it to a file of the repository.
    pub fn rewrite(&self, rel: &str, spec: &str) -> Option<String> {
        if spec.is_empty() || spec.starts_with('.') || spec.starts_with('/') || spec.contains(':') {
            return None;
        }
        let dir = dir_of(rel);
        let target = self.through_paths(dir, spec).or_else(|| self.through_packages(spec))?;
        Some(relative_to(dir, &target))
    }

    /// The Go import path `spec`, written in the file `rel`, as the folder relative to that
    /// file's, and the package name it binds, when a module of the repository holds it.
    pub fn rewrite_go(&self, rel: &str, spec: &str) -> Option<(String, String)> {
        let spec = spec.trim_matches(|c| c == '"' || c == '`');
        let m = self.go_modules.iter().find(|m| {
            spec.strip_prefix(m.path.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })?;
        let sub = spec[m.path.len()..].trim_start_matches('/');
        let target = if sub.is_empty() { m.dir.clone() } else { join(&m.dir, sub) };
        if !self.go_dirs.contains(&target) {
            return None;
        }
        let mut segs = spec.rsplit('/');
        let last = segs.next().unwrap_or(spec);
        let major = last.len() > 1 && last.starts_with('v') && last[1..].bytes().all(|b| b.is_ascii_digit());
        let package = match segs.next() {
            Some(before) if major => before,
            _ => last,
        };
        Some((relative_to(dir_of(rel), &target), package.to_string()))
    }

    fn through_paths(&self, dir: &str, spec: &str) -> Option<String> {
        let scope = &self.scope_list[(*self.scopes.get(dir)?)?];
        // TypeScript: an exact pattern first, else the one with the longest prefix.
        let mut best: Option<(usize, &str, &[String])> = None;
        for (pattern, targets) in &scope.paths {
            let matched = match pattern.split_once('*') {
                None if pattern == spec => Some((usize::MAX, "")),
                None => None,
                Some((pre, post)) => {
                    (spec.len() >= pre.len() + post.len() && spec.starts_with(pre) && spec.ends_with(post))
                        .then(|| (pre.len(), &spec[pre.len()..spec.len() - post.len()]))
                }
            };
            if let Some((rank, star)) = matched {
                if best.is_none_or(|(r, _, _)| rank > r) {
                    best = Some((rank, star, targets));
                }
            }
        }
        if let Some((_, star, targets)) = best {
            if let Some(hit) = targets.iter().find_map(|t| self.probe(&t.replacen('*', star, 1))) {
                return Some(hit);
            }
        }
        scope.base_url.as_deref().and_then(|base| self.probe(&join(base, spec)))
    }

    fn through_packages(&self, spec: &str) -> Option<String> {
        let p = self.packages.iter().find(|p| {
            spec.strip_prefix(p.name.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })?;
        let sub = spec[p.name.len()..].trim_start_matches('/');
        if sub.is_empty() {
            return p
                .entries
                .iter()
                .find_map(|e| self.entry(&p.dir, e))
                .or_else(|| ["src/index", "index", "lib/index"].iter().find_map(|e| self.probe(&join(&p.dir, e))));
        }
        let key = format!("./{sub}");
        for (pattern, target) in &p.subpaths {
            let star = match pattern.split_once('*') {
                None if *pattern == key => Some(""),
                None => None,
                Some((pre, post)) => key
                    .strip_prefix(pre)
                    .and_then(|r| r.strip_suffix(post))
                    .filter(|_| key.len() >= pre.len() + post.len()),
            };
            if let Some(hit) = star.and_then(|s| self.entry(&p.dir, &target.replacen('*', s, 1))) {
                return Some(hit);
            }
        }
        self.probe(&join(&p.dir, sub)).or_else(|| self.probe(&join(&p.dir, &format!("src/{sub}"))))
    }

    /// A package's entry as written, or the same path in `src/` instead of a build folder.
    fn entry(&self, dir: &str, entry: &str) -> Option<String> {
        let path = join(dir, entry);
        self.probe(&path).or_else(|| {
            let e = entry.trim_start_matches("./");
            let (first, rest) = e.split_once('/')?;
            BUILD_DIRS.contains(&first).then(|| self.probe(&join(dir, &format!("src/{rest}"))))?
        })
    }

    /// The file of the repository a path names as a module: itself, with an extension left
    /// out, its TypeScript source (`x.js` written for `x.ts`), or its folder's `index`.
    fn probe(&self, path: &str) -> Option<String> {
        let path = normalize(path)?;
        if self.files.contains(&path) {
            return Some(path);
        }
        let stem = [".d.ts", ".js", ".jsx", ".mjs", ".cjs"].iter().find_map(|x| path.strip_suffix(x)).unwrap_or(&path);
        EXTENSIONS
            .iter()
            .map(|x| format!("{stem}.{x}"))
            .chain(EXTENSIONS.iter().map(|x| {
                if stem.is_empty() {
                    format!("index.{x}")
                } else {
                    format!("{stem}/index.{x}")
                }
            }))
            .find(|c| self.files.contains(c))
    }
}

/// Reads the manifests once each.
struct Reader<'a> {
    root: &'a Path,
    /// A config file (repository-relative) → its options merged along `extends` (`None`:
    /// unreadable).
    configs: HashMap<String, Option<RawScope>>,
    /// A folder → whether it has a package.json, and that manifest.
    manifests: HashMap<String, Option<serde_json::Value>>,
}

impl Reader<'_> {
    fn read_json(&self, rel: &str) -> Option<serde_json::Value> {
        let text = std::fs::read_to_string(self.root.join(rel)).ok()?;
        let opts =
            jsonc_parser::ParseOptions { allow_comments: true, allow_trailing_commas: true, ..Default::default() };
        jsonc_parser::parse_to_serde_value(&text, &opts).ok()
    }

    fn manifest(&mut self, dir: &str) -> Option<&serde_json::Value> {
        if !self.manifests.contains_key(dir) {
            let m = self.read_json(&join(dir, "package.json")).filter(|v| v.is_object());
            self.manifests.insert(dir.to_string(), m);
        }
        self.manifests.get(dir)?.as_ref()
    }

    /// The scope of the nearest config above (or in) `dir`.
    fn scope_of(&mut self, dir: &str, packages: &[Package]) -> Option<Scope> {
        let mut d = Some(dir);
        while let Some(cur) = d {
            for name in CONFIG_FILES {
                let rel = join(cur, name);
                if self.root.join(&rel).is_file() {
                    return self.config(&rel, packages, 0).map(|raw| raw.resolve(&rel));
                }
            }
            d = parent(cur);
        }
        None
    }

    /// A config file merged with what it extends (its own options win).
    fn config(&mut self, rel: &str, packages: &[Package], depth: usize) -> Option<RawScope> {
        if let Some(hit) = self.configs.get(rel) {
            return hit.clone();
        }
        if depth > MAX_EXTENDS {
            return None;
        }
        // (A cycle ends here: the file counts as unreadable while it is being read.)
        self.configs.insert(rel.to_string(), None);
        let v = self.read_json(rel)?;
        let here = dir_of(rel);
        let mut scope = RawScope::default();
        let extends: Vec<&str> = match v.get("extends") {
            Some(serde_json::Value::String(s)) => vec![s.as_str()],
            Some(serde_json::Value::Array(a)) => a.iter().filter_map(|s| s.as_str()).collect(),
            _ => Vec::new(),
        };
        for base in extends {
            if let Some(b) = self.extended(here, base, packages).and_then(|b| self.config(&b, packages, depth + 1)) {
                scope.base_url = b.base_url.or(scope.base_url);
                if b.paths.is_some() {
                    scope.paths = b.paths;
                }
            }
        }
        let opts = v.get("compilerOptions");
        if let Some(b) = opts.and_then(|o| o.get("baseUrl")).and_then(|b| b.as_str()) {
            scope.base_url = Some(if b.contains(CONFIG_DIR) { b.to_string() } else { join(here, b) });
        }
        if let Some(paths) = opts.and_then(|o| o.get("paths")).and_then(|p| p.as_object()) {
            let list = paths
                .iter()
                .map(|(pattern, targets)| {
                    let targets = targets.as_array().into_iter().flatten().filter_map(|t| t.as_str()).map(String::from);
                    (pattern.clone(), targets.collect())
                })
                .collect();
            scope.paths = Some((here.to_string(), list));
        }
        self.configs.insert(rel.to_string(), Some(scope.clone()));
        Some(scope)
    }

    /// The file an `extends` names: a path relative to the config, or a file of a workspace
    /// package (`@repo/tsconfig/base.json`).
    fn extended(&self, here: &str, base: &str, packages: &[Package]) -> Option<String> {
        let with_json = |p: String| if p.ends_with(".json") { p } else { format!("{p}.json") };
        if base.starts_with('.') {
            return normalize(&with_json(join(here, base)));
        }
        let p = packages
            .iter()
            .find(|p| base.strip_prefix(p.name.as_str()).is_some_and(|r| r.is_empty() || r.starts_with('/')))?;
        let rest = base[p.name.len()..].trim_start_matches('/');
        let file = if rest.is_empty() { join(&p.dir, "tsconfig.json") } else { with_json(join(&p.dir, rest)) };
        normalize(&file)
    }

    /// The workspace's packages: the root's, and those its workspace patterns admit.
    fn packages(&mut self, files: &[WalkedFile]) -> Vec<Package> {
        let mut patterns: Vec<String> = Vec::new();
        if let Some(root) = self.manifest("") {
            match root.get("workspaces") {
                Some(serde_json::Value::Array(a)) => {
                    patterns.extend(a.iter().filter_map(|s| s.as_str()).map(String::from))
                }
                Some(serde_json::Value::Object(o)) => patterns.extend(
                    o.get("packages")
                        .and_then(|p| p.as_array())
                        .into_iter()
                        .flatten()
                        .filter_map(|s| s.as_str())
                        .map(String::from),
                ),
                _ => {}
            }
        }
        if let Some(lerna) = self.read_json("lerna.json") {
            patterns.extend(
                lerna
                    .get("packages")
                    .and_then(|p| p.as_array())
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.as_str())
                    .map(String::from),
            );
        }
        if let Ok(text) = std::fs::read_to_string(self.root.join("pnpm-workspace.yaml")) {
            if let Ok(docs) = yaml_rust2::YamlLoader::load_from_str(&text) {
                if let Some(list) = docs.first().and_then(|d| d["packages"].as_vec()) {
                    patterns.extend(list.iter().filter_map(|s| s.as_str()).map(String::from));
                }
            }
        }
        let (mut yes, mut no) = (globset::GlobSetBuilder::new(), globset::GlobSetBuilder::new());
        for p in &patterns {
            let (set, p) = match p.strip_prefix('!') {
                Some(rest) => (&mut no, rest),
                None => (&mut yes, p.as_str()),
            };
            let p = p.trim_start_matches("./").trim_end_matches('/');
            if let Ok(g) = globset::GlobBuilder::new(p).literal_separator(true).build() {
                set.add(g);
            }
        }
        let (yes, no) = (
            yes.build().unwrap_or_else(|_| globset::GlobSet::empty()),
            no.build().unwrap_or_else(|_| globset::GlobSet::empty()),
        );
        // Candidate folders: the root, and every folder above a JavaScript / TypeScript file.
        let mut dirs: BTreeMap<String, ()> = BTreeMap::new();
        dirs.insert(String::new(), ());
        if !yes.is_empty() {
            for f in files.iter().filter(|f| is_js(f.lang)) {
                let mut d = parent(&f.rel);
                while let Some(cur) = d {
                    if dirs.insert(cur.to_string(), ()).is_some() {
                        break;
                    }
                    d = parent(cur);
                }
            }
        }
        let mut out = Vec::new();
        for dir in dirs.into_keys() {
            if !dir.is_empty() && (!yes.is_match(&dir) || no.is_match(&dir)) {
                continue;
            }
            let Some(m) = self.manifest(&dir) else { continue };
            let Some(name) = m.get("name").and_then(|n| n.as_str()).filter(|n| !n.is_empty()) else { continue };
            let mut entries = Vec::new();
            let mut subpaths = Vec::new();
            if let Some(s) = m.get("source").and_then(|s| s.as_str()) {
                entries.push(s.to_string());
            }
            match m.get("exports") {
                Some(serde_json::Value::Object(o)) if o.keys().any(|k| k.starts_with('.')) => {
                    for (k, v) in o {
                        let mut targets = Vec::new();
                        export_targets(v, &mut targets);
                        if k == "." {
                            entries.extend(targets);
                        } else {
                            subpaths.extend(targets.into_iter().map(|t| (k.clone(), t)));
                        }
                    }
                }
                Some(v) => export_targets(v, &mut entries),
                None => {}
            }
            for field in ["types", "typings", "module", "main"] {
                if let Some(s) = m.get(field).and_then(|s| s.as_str()) {
                    entries.push(s.to_string());
                }
            }
            out.push(Package { name: name.to_string(), dir, entries, subpaths });
        }
        out
    }
}

/// The paths an `exports` value names, conditions in the order a TypeScript build prefers.
fn export_targets(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| export_targets(x, out)),
        serde_json::Value::Object(o) => {
            for c in ["source", "types", "import", "module", "default", "require", "node"] {
                if let Some(x) = o.get(c) {
                    export_targets(x, out);
                }
            }
        }
        _ => {}
    }
}

/// The modules whose `go.mod` is the nearest above (or in) one of `dirs`, longest path first.
/// Each folder of `dirs` → the folder of the nearest `manifest` at or above it (`None`: none up
/// to the repository's root).
fn nearest_manifests(root: &Path, dirs: &HashSet<String>, manifest: &str) -> HashMap<String, Option<String>> {
    let mut nearest: HashMap<String, Option<String>> = HashMap::new();
    for dir in dirs {
        let mut walked = Vec::new();
        let mut d = Some(dir.as_str());
        let hit = loop {
            let Some(cur) = d else { break None };
            if let Some(h) = nearest.get(cur) {
                break h.clone();
            }
            walked.push(cur.to_string());
            if root.join(join(cur, manifest)).is_file() {
                break Some(cur.to_string());
            }
            d = parent(cur);
        };
        for w in walked {
            nearest.insert(w, hit.clone());
        }
    }
    nearest
}

fn go_modules(root: &Path, dirs: &HashSet<String>) -> Vec<GoModule> {
    let found: BTreeMap<String, ()> =
        nearest_manifests(root, dirs, "go.mod").into_values().flatten().map(|d| (d, ())).collect();
    let mut out: Vec<GoModule> = found
        .into_keys()
        .filter_map(|dir| {
            let text = std::fs::read_to_string(root.join(join(&dir, "go.mod"))).ok()?;
            Some(GoModule { path: go_module_path(&text)?, dir })
        })
        .collect();
    out.sort_by(|a, b| b.path.len().cmp(&a.path.len()).then_with(|| a.path.cmp(&b.path)));
    out
}

/// R: each folder holding R files → the package its nearest DESCRIPTION names (`Package:`).
fn r_packages(root: &Path, dirs: &HashSet<String>) -> BTreeMap<String, String> {
    let nearest = nearest_manifests(root, dirs, "DESCRIPTION");
    let mut names: HashMap<String, Option<String>> = HashMap::new();
    let mut out = BTreeMap::new();
    for dir in dirs {
        let Some(Some(at)) = nearest.get(dir) else { continue };
        let name = names.entry(at.clone()).or_insert_with(|| {
            let text = std::fs::read_to_string(root.join(join(at, "DESCRIPTION"))).ok()?;
            text.lines()
                .find_map(|l| l.strip_prefix("Package:"))
                .map(|n| n.trim().to_string())
                .filter(|n| !n.is_empty())
        });
        if let Some(n) = name {
            out.insert(dir.clone(), n.clone());
        }
    }
    out
}

/// The path a go.mod's `module` directive declares (`module example.com/m`, quoted or in a
/// block of its own, comments allowed).
fn go_module_path(text: &str) -> Option<String> {
    let mut lines = text.lines().map(|l| l.split("//").next().unwrap_or("").trim());
    while let Some(line) = lines.next() {
        let Some(rest) = line.strip_prefix("module") else { continue };
        if !rest.is_empty() && !rest.starts_with([' ', '\t', '(']) {
            continue;
        }
        let mut rest = rest.trim();
        if rest == "(" {
            rest = lines.find(|l| !l.is_empty())?;
        }
        let path = rest.trim_start_matches('(').trim_end_matches(')').trim().trim_matches(|c| c == '"' || c == '`');
        return (!path.is_empty()).then(|| path.to_string());
    }
    None
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn parent(dir: &str) -> Option<&str> {
    (!dir.is_empty()).then(|| dir_of(dir))
}

fn join(dir: &str, path: &str) -> String {
    let path = path.trim_start_matches("./");
    if dir.is_empty() || path.starts_with('/') {
        path.to_string()
    } else {
        format!("{dir}/{path}")
    }
}

/// `a/./b/../c` as `a/c`; `None` above the repository's root.
fn normalize(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out.join("/"))
}

/// `target` (a file, or a folder: empty for the root) as a specifier relative to the folder
/// `from`.
fn relative_to(from: &str, target: &str) -> String {
    let from: Vec<&str> = from.split('/').filter(|s| !s.is_empty()).collect();
    let to: Vec<&str> = target.split('/').filter(|s| !s.is_empty()).collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let ups = from.len() - common;
    let mut out = if ups == 0 { String::from(".") } else { vec![".."; ups].join("/") };
    for seg in &to[common..] {
        out.push('/');
        out.push_str(seg);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(files: &[(&str, &str)]) -> (tempfile::TempDir, ImportMap) {
        let tmp = tempfile::tempdir().unwrap();
        let mut walked = Vec::new();
        for (rel, text) in files {
            let p = tmp.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            if let Some(lang) = cc_grammars::detect(rel, text.as_bytes()) {
                walked.push(WalkedFile { abs: p, rel: rel.to_string(), lang, size: text.len() as u64, mtime_ns: 0 });
            }
        }
        let m = ImportMap::build(tmp.path(), &walked);
        (tmp, m)
    }

    #[test]
    fn paths_and_base_url_of_the_nearest_config_and_what_it_extends() {
        let (_t, m) = map(&[
            ("tsconfig.base.json", "{\n // shared\n \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@lib/*\": [\"libs/core/src/*\"], \"@ui\": [\"libs/ui/src/index.ts\"], }, },\n}"),
            ("apps/web/tsconfig.json", "{ \"extends\": \"../../tsconfig.base.json\" }"),
            ("apps/web/src/main.ts", "import { a } from '@lib/a';"),
            ("apps/api/jsconfig.json", "{ \"compilerOptions\": { \"baseUrl\": \"src\", \"paths\": { \"~/*\": [\"./*\"] } } }"),
            ("apps/api/src/server.js", ""),
            ("apps/api/src/db/pool.js", ""),
            ("libs/core/src/a.ts", "export function a() {}"),
            ("libs/core/src/deep/index.ts", ""),
            ("libs/ui/src/index.ts", ""),
        ]);
        assert!(!m.fingerprint().is_empty());
        let w = "apps/web/src/main.ts";
        assert_eq!(m.rewrite(w, "@lib/a").as_deref(), Some("../../../libs/core/src/a.ts"));
        assert_eq!(m.rewrite(w, "@lib/a.js").as_deref(), Some("../../../libs/core/src/a.ts"));
        assert_eq!(m.rewrite(w, "@lib/deep").as_deref(), Some("../../../libs/core/src/deep/index.ts"));
        assert_eq!(m.rewrite(w, "@ui").as_deref(), Some("../../../libs/ui/src/index.ts"));
        // baseUrl alone: a path below it.
        assert_eq!(m.rewrite(w, "libs/ui/src").as_deref(), Some("../../../libs/ui/src/index.ts"));
        // A dependency and a relative import are left alone.
        assert_eq!(m.rewrite(w, "react"), None);
        assert_eq!(m.rewrite(w, "@lib/missing"), None);
        assert_eq!(m.rewrite(w, "./x"), None);
        // Another folder, another config: paths against its baseUrl.
        let s = "apps/api/src/server.js";
        assert_eq!(m.rewrite(s, "~/db/pool").as_deref(), Some("./db/pool.js"));
        assert_eq!(m.rewrite(s, "db/pool").as_deref(), Some("./db/pool.js"));
        assert_eq!(m.rewrite(s, "@lib/a"), None);
    }

    #[test]
    fn workspace_packages_by_name_through_their_entries() {
        let (_t, m) = map(&[
            ("package.json", "{ \"name\": \"root\", \"workspaces\": [\"packages/*\", \"!packages/skip\"] }"),
            ("packages/core/package.json", "{ \"name\": \"@acme/core\", \"main\": \"dist/index.js\", \"types\": \"dist/index.d.ts\" }"),
            ("packages/core/src/index.ts", ""),
            ("packages/core/src/util/strings.ts", ""),
            ("packages/core-extra/package.json", "{ \"name\": \"@acme/core-extra\", \"exports\": { \".\": { \"import\": \"./lib/main.mjs\" }, \"./feature/*\": \"./src/features/*.ts\" } }"),
            ("packages/core-extra/src/main.ts", ""),
            ("packages/core-extra/src/features/x.ts", ""),
            ("packages/skip/package.json", "{ \"name\": \"skip\" }"),
            ("packages/skip/index.js", ""),
            ("apps/web/main.ts", ""),
        ]);
        let w = "apps/web/main.ts";
        assert_eq!(m.rewrite(w, "@acme/core").as_deref(), Some("../../packages/core/src/index.ts"));
        assert_eq!(m.rewrite(w, "@acme/core/util/strings").as_deref(), Some("../../packages/core/src/util/strings.ts"));
        assert_eq!(m.rewrite(w, "@acme/core-extra").as_deref(), Some("../../packages/core-extra/src/main.ts"));
        assert_eq!(
            m.rewrite(w, "@acme/core-extra/feature/x").as_deref(),
            Some("../../packages/core-extra/src/features/x.ts")
        );
        assert_eq!(m.rewrite(w, "skip"), None, "excluded by a negated pattern");
        assert_eq!(m.rewrite(w, "@acme/cor"), None);
    }

    #[test]
    fn nothing_to_map_has_no_fingerprint() {
        let (_t, m) = map(&[("tsconfig.json", "{ \"compilerOptions\": { \"strict\": true } }"), ("a.ts", "")]);
        assert_eq!(m.fingerprint(), "");
        let (_t, m) = map(&[("a.py", "")]);
        assert_eq!(m.fingerprint(), "");
    }

    #[test]
    fn go_import_paths_of_the_repositorys_modules_are_their_folders() {
        let (_t, m) = map(&[
            ("go.mod", "// the shop\nmodule example.com/shop // trailing\n\ngo 1.21\n"),
            ("shop.go", "package shop\n"),
            ("internal/util/pad.go", "package util\n"),
            ("legacy/internal/util/pad.go", "package util\n"),
            ("cmd/report/main.go", "package main\n"),
            ("tools/go.mod", "module (\n\t\"example.com/shop/tools/v2\"\n)\n"),
            ("tools/fmtx/fmt.go", "package fmtx\n"),
            ("tools/tools.go", "package tools\n"),
        ]);
        assert!(!m.fingerprint().is_empty());
        let main = "cmd/report/main.go";
        let go = |spec: &str| m.rewrite_go(main, spec);
        assert_eq!(go("example.com/shop"), Some(("../..".into(), "shop".into())), "the root package");
        assert_eq!(go("\"example.com/shop/internal/util\""), Some(("../../internal/util".into(), "util".into())));
        // The nested module wins; a major version suffix is no package name.
        assert_eq!(go("example.com/shop/tools/v2/fmtx"), Some(("../../tools/fmtx".into(), "fmtx".into())));
        assert_eq!(go("example.com/shop/tools/v2"), Some(("../../tools".into(), "tools".into())));
        // A folder without Go files, another module, a path that only shares a prefix: as written.
        assert_eq!(go("example.com/shop/docs"), None);
        assert_eq!(go("example.com/shopping"), None);
        assert_eq!(go("github.com/other/util"), None);
        assert_eq!(
            m.rewrite_go("shop.go", "example.com/shop/internal/util").map(|r| r.0),
            Some("./internal/util".into())
        );
    }

    #[test]
    fn go_module_directives() {
        assert_eq!(go_module_path("module example.com/a\n").as_deref(), Some("example.com/a"));
        assert_eq!(go_module_path("module \"example.com/a\" // c\n").as_deref(), Some("example.com/a"));
        assert_eq!(go_module_path("modulex y\nmodule (\n  example.com/b\n)\n").as_deref(), Some("example.com/b"));
        assert_eq!(go_module_path("go 1.21\n"), None);
        // Without a go.mod, nothing maps (and nothing is fingerprinted).
        let (_t, m) = map(&[("a/a.go", "package a\n"), ("b/b.go", "package b\n")]);
        assert_eq!(m.fingerprint(), "");
        assert_eq!(m.rewrite_go("b/b.go", "example.com/x/a"), None);
    }

    #[test]
    fn r_calls_of_the_package_itself_by_its_name_are_plain_calls() {
        let (_t, m) = map(&[
            ("DESCRIPTION", "Package: mypkg\nVersion: 1.0\n"),
            ("R/slice.R", "n <- function() 1\n"),
            ("data-raw/make.R", "x <- 1\n"),
            ("tools/DESCRIPTION", "Title: no package line\n"),
            ("tools/check.R", "y <- 2\n"),
        ]);
        assert!(!m.fingerprint().is_empty());
        assert_eq!(m.r_packages.get("R").map(String::as_str), Some("mypkg"));
        assert_eq!(m.r_packages.get("data-raw").map(String::as_str), Some("mypkg"), "the nearest DESCRIPTION above");
        assert_eq!(m.r_packages.get("tools"), None, "a DESCRIPTION without Package:");
        const SPAN: crate::Span = crate::Span { start_line: 1, start_col: 1, end_line: 1, end_col: 4 };
        let call =
            |rcv: &str| Reference::new("n".into(), crate::RefKind::Call, SPAN, None, Some(rcv.into()), None, None);
        let mut refs = vec![call("mypkg"), call("dplyr")];
        m.apply(Lang::R, "R/slice.R", &mut refs);
        assert_eq!(refs[0].receiver, None, "mypkg::n() in mypkg is n()");
        assert_eq!(refs[1].receiver.as_deref(), Some("dplyr"));
        let mut refs = vec![call("mypkg")];
        m.apply(Lang::R, "tools/check.R", &mut refs);
        assert_eq!(refs[0].receiver.as_deref(), Some("mypkg"), "not of the package");
    }

    #[test]
    fn relative_specifiers() {
        assert_eq!(relative_to("a/b", ""), "../..");
        assert_eq!(relative_to("a/b", "a"), "..");
        assert_eq!(relative_to("a/b", "a/c/d.ts"), "../c/d.ts");
        assert_eq!(relative_to("", "a/d.ts"), "./a/d.ts");
        assert_eq!(relative_to("a", "a/d.ts"), "./d.ts");
        assert_eq!(normalize("a/./b/../c"), Some("a/c".into()));
        assert_eq!(normalize("../a"), None);
    }
}
