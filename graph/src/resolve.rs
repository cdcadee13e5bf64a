//! Name resolution: which symbols a reference can mean.
//!
//! The ladder (first rung that finds something wins), written down in ARCHITECTURE.md:
//!
//! 1. **Receiver** — `self`/`this`/`cls`/`Self`/`$this`: a member of the enclosing class,
//!    then of its base classes; `super`/`base`/`parent`: a member of the base classes;
//!    a receiver naming an import, a class or a module: a member of what it names.
//! 2. **Enclosing scope** — functions nested in the enclosing symbol or its ancestors;
//!    then (languages with implicit `this`: Java, C#, Kotlin, Swift, Dart, C++, Ruby)
//!    members of the enclosing class and its bases.
//! 3. **Same file** — top-level symbols of the file.
//! 4. **Imports** — what the file imports by name or alias (`from m import f as g`,
//!    `import {f} from './m'`, `use a::b::f`), then whatever whole-module imports bring
//!    in (`#include`, `require`, Go packages, wildcard imports, `source()`).
//! 5. **Same package** — symbols of files in the same directory; MATLAB functions by file name.
//! 6. **Unique global name** — the only callable of that name in the repository's language.
//!
//! A name with several candidates at the last rung keeps them all (at most
//! [`MAX_CANDIDATES`]), marked ambiguous; one with none is an external name
//! (`json.loads`). Calls that resolve to a class go to its constructor when it has one.

use std::collections::{HashMap, HashSet};

use cc_indexer::{FileRecord, Lang, RefKind, Reference, SymbolId, SymbolKind};
use serde::{Deserialize, Serialize};

/// More candidates than this and a name is left external (`get`, `run`, …).
pub const MAX_CANDIDATES: usize = 8;

/// Which rung resolved a reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Rung {
    Receiver,
    Scope,
    SameFile,
    Import,
    Package,
    Global,
    Ambiguous,
    External,
}

impl Rung {
    /// Confidence of an edge found on this rung.
    pub fn confidence(self, candidates: usize) -> f32 {
        match self {
            Rung::Receiver | Rung::Scope => 0.95,
            Rung::SameFile => 0.95,
            Rung::Import => 0.9,
            Rung::Package => 0.8,
            Rung::Global => 0.7,
            Rung::Ambiguous => 0.5 / candidates.max(1) as f32,
            Rung::External => 0.0,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Rung::Receiver => "receiver",
            Rung::Scope => "scope",
            Rung::SameFile => "same-file",
            Rung::Import => "import",
            Rung::Package => "package",
            Rung::Global => "global",
            Rung::Ambiguous => "ambiguous",
            Rung::External => "external",
        }
    }
}

/// What one reference resolved to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    pub targets: Vec<SymbolId>,
    pub rung: Rung,
    /// The name as the source wrote it, for external references (`json.loads`).
    pub external: Option<String>,
}

/// One symbol, as the resolver sees it.
#[derive(Clone, Debug)]
pub(crate) struct Sym<'a> {
    pub id: SymbolId,
    pub name: &'a str,
    pub qualified: &'a str,
    pub kind: SymbolKind,
    pub lang: Lang,
    pub file: u32,
    pub parent: Option<SymbolId>,
}

struct Import<'a> {
    /// The local name it binds.
    binding: String,
    /// The module's files.
    files: Vec<u32>,
    /// The member imported; `None` for a whole module.
    member: Option<&'a str>,
    module: &'a str,
}

/// Everything the resolver looks things up in, built from all files' records.
pub(crate) struct Tables<'a> {
    pub files: &'a [FileRecord],
    pub syms: Vec<Sym<'a>>,
    pub by_id: HashMap<SymbolId, u32>,
    by_name: HashMap<&'a str, Vec<u32>>,
    by_qualified: HashMap<&'a str, Vec<u32>>,
    file_of_path: HashMap<&'a str, u32>,
    dir_files: HashMap<&'a str, Vec<u32>>,
    /// Module keys (path segments, variants) -> files, by last segment.
    module_keys: HashMap<String, Vec<(Vec<String>, u32)>>,
    dir_keys: HashMap<String, Vec<(Vec<String>, Vec<u32>)>>,
    imports: Vec<Vec<Import<'a>>>,
    bases: HashMap<u32, Vec<u32>>,
}

fn self_word(s: &str) -> bool {
    matches!(s, "self" | "this" | "cls" | "Self" | "$this" | "@" | "me" | "static" | "this@")
}

fn super_word(s: &str) -> bool {
    matches!(s, "super" | "base" | "parent" | "super()" | "self.super")
}

pub(crate) fn implicit_this(lang: Lang) -> bool {
    matches!(lang, Lang::Java | Lang::CSharp | Lang::Kotlin | Lang::Swift | Lang::Dart | Lang::Cpp | Lang::Ruby)
}

fn constructor_names(class: &str) -> [&str; 6] {
    ["__init__", "constructor", "init", "initialize", "new", class]
}

fn split_segments(s: &str) -> Vec<&str> {
    s.split(|c| matches!(c, '.' | '/' | ':' | '\\')).filter(|x| !x.is_empty()).collect()
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

const KNOWN_EXTS: &[&str] = &[
    "py", "js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "h", "hpp", "hh", "c", "cc", "cpp", "rb", "php", "dart", "go",
    "rs", "zig", "r", "R", "m", "swift", "kt", "java", "cs", "adb", "ads",
];

/// Path segments of a file without its extension, plus the variant without an index
/// file name (`pkg/__init__.py` is also `pkg`).
fn file_keys(path: &str) -> Vec<Vec<String>> {
    let stem = match path.rsplit_once('.') {
        Some((s, ext)) if !ext.contains('/') => s,
        _ => path,
    };
    let segs: Vec<String> = stem.split('/').map(str::to_string).collect();
    let mut keys = vec![segs.clone()];
    if let Some(last) = segs.last() {
        if matches!(last.as_str(), "__init__" | "index" | "mod" | "lib" | "main") && segs.len() > 1 {
            keys.push(segs[..segs.len() - 1].to_vec());
        }
    }
    // Rust and Dart sources live under src/ or lib/: `tokio/src/sync/mod.rs` is `sync`.
    for k in keys.clone() {
        if let Some(i) = k.iter().rposition(|s| s == "src" || s == "lib") {
            if i + 1 < k.len() {
                keys.push(k[i + 1..].to_vec());
            }
        }
    }
    keys
}

impl<'a> Tables<'a> {
    pub fn new(files: &'a [FileRecord]) -> Tables<'a> {
        let mut t = Tables {
            files,
            syms: Vec::new(),
            by_id: HashMap::new(),
            by_name: HashMap::new(),
            by_qualified: HashMap::new(),
            file_of_path: HashMap::new(),
            dir_files: HashMap::new(),
            module_keys: HashMap::new(),
            dir_keys: HashMap::new(),
            imports: Vec::new(),
            bases: HashMap::new(),
        };
        for (fi, f) in files.iter().enumerate() {
            let fi = fi as u32;
            t.file_of_path.insert(&f.path, fi);
            t.dir_files.entry(dir_of(&f.path)).or_default().push(fi);
            for key in file_keys(&f.path) {
                if let Some(last) = key.last() {
                    t.module_keys.entry(last.clone()).or_default().push((key.clone(), fi));
                }
            }
            for s in &f.symbols {
                let i = t.syms.len() as u32;
                t.by_id.insert(s.id, i);
                t.by_name.entry(&s.name).or_default().push(i);
                t.by_qualified.entry(&s.qualified_name).or_default().push(i);
                t.syms.push(Sym {
                    id: s.id,
                    name: &s.name,
                    qualified: &s.qualified_name,
                    kind: s.kind,
                    lang: s.lang,
                    file: fi,
                    parent: s.parent,
                });
            }
        }
        let dirs: Vec<(&str, Vec<u32>)> = t.dir_files.iter().map(|(d, f)| (*d, f.clone())).collect();
        for (d, fs) in dirs {
            let segs: Vec<String> = d.split('/').filter(|s| !s.is_empty()).map(str::to_string).collect();
            if let Some(last) = segs.last() {
                t.dir_keys.entry(last.clone()).or_default().push((segs.clone(), fs));
            }
        }
        for (fi, f) in files.iter().enumerate() {
            let imports =
                f.references.iter().filter(|r| r.kind == RefKind::Import).map(|r| t.import(fi as u32, r)).collect();
            t.imports.push(imports);
        }
        // Base classes: type references in a class's own header.
        let mut bases: HashMap<u32, Vec<u32>> = HashMap::new();
        for (fi, f) in files.iter().enumerate() {
            for r in f.references.iter().filter(|r| r.kind == RefKind::Type) {
                let Some(&ci) = r.enclosing.as_ref().and_then(|e| t.by_id.get(e)) else {
                    continue;
                };
                if !t.syms[ci as usize].kind.is_type_like() {
                    continue;
                }
                let cls_span = f.symbols.iter().find(|s| s.id == t.syms[ci as usize].id).map(|s| s.span);
                let Some(span) = cls_span else { continue };
                // The class's own header: before its first member starts. A reference
                // the class encloses from outside its span sits in the header of a scope
                // standing for it (`impl Trait for Type`).
                let line = r.span.start_line;
                let outside = line < span.start_line || line > span.end_line;
                let first_member = f
                    .symbols
                    .iter()
                    .filter(|s| s.parent == Some(t.syms[ci as usize].id))
                    .map(|s| s.span.start_line)
                    .filter(|&l| l >= span.start_line && l <= span.end_line)
                    .min()
                    .unwrap_or(u32::MAX);
                if !outside && (line > first_member || line > span.start_line + 3) {
                    continue;
                }
                let found = t.lookup_name(fi as u32, None, &r.name, |s| s.kind.is_type_like());
                if let Some((_, targets)) = found {
                    for b in targets {
                        if b != ci {
                            bases.entry(ci).or_default().push(b);
                        }
                    }
                }
            }
        }
        for v in bases.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        t.bases = bases;
        t
    }

    fn lang_of(&self, file: u32) -> Lang {
        self.files[file as usize].lang
    }

    fn import(&self, file: u32, r: &'a Reference) -> Import<'a> {
        let lang = self.lang_of(file);
        let module: &'a str = r.module.as_deref().unwrap_or(&r.name);
        let whole = r.module.is_none() || r.name == module;
        let member = if whole { None } else { Some(r.name.as_str()) };
        let binding = match (&r.alias, member) {
            (Some(a), _) => a.clone(),
            (None, Some(m)) => split_segments(m).last().copied().unwrap_or(m).to_string(),
            (None, None) => {
                let segs = split_segments(module);
                let pick = if lang == Lang::Python { segs.first() } else { segs.last() };
                let b = pick.copied().unwrap_or(module);
                b.rsplit_once('.').filter(|(_, e)| KNOWN_EXTS.contains(e)).map_or(b, |(s, _)| s).to_string()
            }
        };
        Import { binding, files: self.module_files(file, module), member, module }
    }

    /// Files a module string names, relative to the importing file where it is relative.
    fn module_files(&self, from: u32, module: &str) -> Vec<u32> {
        let from_path = &self.files[from as usize].path;
        let mut m = module.trim().trim_matches(|c| c == '"' || c == '\'' || c == '<' || c == '>');
        if let Some(rest) = m.strip_prefix("package:") {
            // Dart: package:name/path -> path under lib/
            m = rest.split_once('/').map_or(rest, |(_, p)| p);
        }
        let mut base: Vec<&str> = dir_of(from_path).split('/').filter(|s| !s.is_empty()).collect();
        let relative = m.starts_with('.');
        let mut segs: Vec<&str> = Vec::new();
        if relative && (m.starts_with("./") || m.starts_with("../") || m == "." || m == "..") {
            for part in m.split('/') {
                match part {
                    "." | "" => {}
                    ".." => {
                        base.pop();
                    }
                    p => segs.push(p),
                }
            }
        } else if relative {
            // Python: `.mod` is a sibling, `..mod` the parent package's.
            let dots = m.chars().take_while(|&c| c == '.').count();
            for _ in 1..dots {
                base.pop();
            }
            segs = split_segments(&m[dots..]);
        } else {
            segs = split_segments(m);
            while segs.first().is_some_and(|s| matches!(*s, "crate" | "self" | "super" | "@")) {
                segs.remove(0);
            }
        }
        if let Some(last) = segs.last_mut() {
            if let Some((stem, ext)) = last.rsplit_once('.') {
                if KNOWN_EXTS.contains(&ext) {
                    *last = stem;
                }
            }
        }
        let full: Vec<String> = if relative {
            base.iter().chain(segs.iter()).map(|s| s.to_string()).collect()
        } else {
            segs.iter().map(|s| s.to_string()).collect()
        };
        let Some(last) = full.last() else {
            return Vec::new();
        };
        let ends_with = |key: &[String]| key.len() >= full.len() && key[key.len() - full.len()..] == full[..];
        let exact = |key: &[String]| key == &full[..];
        let mut out: Vec<u32> = self
            .module_keys
            .get(last)
            .into_iter()
            .flatten()
            .filter(|(k, _)| if relative { exact(k) } else { ends_with(k) })
            .map(|(_, f)| *f)
            .collect();
        if out.is_empty() {
            out = self
                .dir_keys
                .get(last)
                .into_iter()
                .flatten()
                .filter(|(k, _)| if relative { exact(k) } else { ends_with(k) })
                .flat_map(|(_, fs)| fs.iter().copied())
                .collect();
        }
        // `import a.b.C` (Java, Kotlin, Python `from a.b import C` handled elsewhere): the
        // module is a file when the last segment is a type in it.
        if out.is_empty() && full.len() > 1 {
            let parent = &full[..full.len() - 1];
            if let Some(plast) = parent.last() {
                out = self
                    .module_keys
                    .get(plast)
                    .into_iter()
                    .flatten()
                    .filter(|(k, _)| k.len() >= parent.len() && k[k.len() - parent.len()..] == parent[..])
                    .map(|(_, f)| *f)
                    .collect();
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn class_of(&self, sym: u32) -> Option<u32> {
        let mut cur = Some(sym);
        while let Some(c) = cur {
            let s = &self.syms[c as usize];
            if s.kind.is_type_like() {
                return Some(c);
            }
            // Members of a scope that is not a symbol (a Rust impl block): by qualified name.
            if s.parent.is_none() {
                let sep = s.lang.spec().qualifier;
                let container = s.qualified.rsplit_once(sep).map(|(c, _)| c)?;
                return self
                    .by_qualified
                    .get(container)
                    .into_iter()
                    .flatten()
                    .copied()
                    .find(|&i| self.syms[i as usize].kind.is_type_like());
            }
            cur = s.parent.and_then(|p| self.by_id.get(&p).copied());
        }
        None
    }

    /// Members named `name` of `class`, then of its bases (breadth-first).
    fn member(&self, class: u32, name: &str, include_self: bool) -> Vec<u32> {
        let mut queue = std::collections::VecDeque::new();
        let mut seen = HashSet::new();
        if include_self {
            queue.push_back(class);
        } else {
            for &b in self.bases.get(&class).into_iter().flatten() {
                queue.push_back(b);
            }
        }
        while let Some(c) = queue.pop_front() {
            if !seen.insert(c) {
                continue;
            }
            let cs = &self.syms[c as usize];
            let q = format!("{}{}{}", cs.qualified, cs.lang.spec().qualifier, name);
            let found: Vec<u32> = self.by_qualified.get(q.as_str()).into_iter().flatten().copied().collect();
            if !found.is_empty() {
                return found;
            }
            for &b in self.bases.get(&c).into_iter().flatten() {
                queue.push_back(b);
            }
        }
        Vec::new()
    }

    fn top_level_in(&self, files: &[u32], name: &str, ok: &dyn Fn(&Sym<'_>) -> bool) -> Vec<u32> {
        self.by_name
            .get(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| {
                let s = &self.syms[i as usize];
                files.contains(&s.file) && ok(s)
            })
            .collect()
    }

    /// Resolves a bare name seen in `file` inside `enclosing` (rungs 2–6).
    fn lookup_name(
        &self,
        file: u32,
        enclosing: Option<u32>,
        name: &str,
        ok: impl Fn(&Sym<'_>) -> bool,
    ) -> Option<(Rung, Vec<u32>)> {
        let lang = self.lang_of(file);
        let ok_any = &ok as &dyn Fn(&Sym<'_>) -> bool;
        // Past the enclosing class, a bare name cannot mean a method (`area()` in Python
        // never calls `Shape.area`): methods are reached through a receiver or `this`.
        let not_method = |s: &Sym<'_>| s.kind != SymbolKind::Method && ok_any(s);
        let ok = &not_method as &dyn Fn(&Sym<'_>) -> bool;
        let same_lang = |s: &Sym<'_>| compatible(s.lang, lang) && ok(s);
        // Enclosing scope: children of the enclosing symbol and its ancestors.
        let mut cur = enclosing;
        while let Some(e) = cur {
            let es = &self.syms[e as usize];
            if !es.kind.is_type_like() {
                let q = format!("{}{}{}", es.qualified, es.lang.spec().qualifier, name);
                let found: Vec<u32> = self
                    .by_qualified
                    .get(q.as_str())
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|&i| ok_any(&self.syms[i as usize]))
                    .collect();
                if !found.is_empty() {
                    return Some((Rung::Scope, found));
                }
            }
            cur = es.parent.and_then(|p| self.by_id.get(&p).copied());
        }
        if implicit_this(lang) {
            if let Some(c) = enclosing.and_then(|e| self.class_of(e)) {
                let found: Vec<u32> =
                    self.member(c, name, true).into_iter().filter(|&i| ok_any(&self.syms[i as usize])).collect();
                if !found.is_empty() {
                    return Some((Rung::Receiver, found));
                }
            }
        }
        // Same file, top level first.
        let in_file: Vec<u32> = self.top_level_in(&[file], name, ok);
        let top: Vec<u32> = in_file.iter().copied().filter(|&i| self.syms[i as usize].parent.is_none()).collect();
        if !top.is_empty() {
            return Some((Rung::SameFile, top));
        }
        // Imports by name.
        for imp in &self.imports[file as usize] {
            if imp.binding != name {
                continue;
            }
            let member = imp.member.map(|m| split_segments(m).last().copied().unwrap_or(m)).unwrap_or(name);
            let found = self.top_level_in(&imp.files, member, &same_lang);
            if !found.is_empty() {
                return Some((Rung::Import, found));
            }
        }
        // Whole-module imports.
        let star: Vec<u32> = self.imports[file as usize]
            .iter()
            .filter(|i| i.member.is_none() || i.member == Some("*"))
            .flat_map(|i| i.files.iter().copied())
            .collect();
        if !star.is_empty() {
            let found = self.top_level_in(&star, name, &same_lang);
            if !found.is_empty() {
                return Some((Rung::Import, found));
            }
        }
        // Same package (directory), MATLAB functions by file name.
        let path = &self.files[file as usize].path;
        let dir = self.dir_files.get(dir_of(path)).cloned().unwrap_or_default();
        let found: Vec<u32> = self
            .top_level_in(&dir, name, &same_lang)
            .into_iter()
            .filter(|&i| self.syms[i as usize].parent.is_none())
            .collect();
        if !found.is_empty() {
            return Some((Rung::Package, found));
        }
        if !in_file.is_empty() {
            return Some((Rung::SameFile, in_file));
        }
        // Unique global name.
        let global: Vec<u32> = self
            .by_name
            .get(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| same_lang(&self.syms[i as usize]))
            .collect();
        match global.len() {
            0 => None,
            1 => Some((Rung::Global, global)),
            n if n <= MAX_CANDIDATES => Some((Rung::Ambiguous, global)),
            _ => None,
        }
    }

    /// Resolves one call or callback reference of file `file`.
    pub fn resolve(&self, file: u32, r: &Reference) -> Resolution {
        let enclosing = r.enclosing.and_then(|e| self.by_id.get(&e).copied());
        let callable = |s: &Sym<'_>| s.kind.is_callable() || s.kind.is_type_like() || s.kind == SymbolKind::Label;
        let found = match r.receiver.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            Some(rcv) => self.resolve_with_receiver(file, enclosing, rcv, &r.name, &callable),
            None => self.lookup_name(file, enclosing, &r.name, callable),
        };
        let external = || {
            let full = match &r.receiver {
                Some(rcv) if !rcv.is_empty() => format!("{rcv}.{}", r.name),
                _ => r.name.clone(),
            };
            Resolution { targets: vec![], rung: Rung::External, external: Some(full) }
        };
        let Some((rung, targets)) = found else {
            return external();
        };
        // Callbacks only count when they name something callable.
        let mut ids: Vec<SymbolId> = Vec::with_capacity(targets.len());
        for t in targets {
            let s = &self.syms[t as usize];
            if r.kind == RefKind::Callback && !s.kind.is_callable() {
                continue;
            }
            let target = if s.kind.is_type_like() { self.constructor(t).unwrap_or(t) } else { t };
            ids.push(self.syms[target as usize].id);
        }
        ids.sort_unstable();
        ids.dedup();
        if ids.is_empty() {
            return external();
        }
        let rung = if ids.len() > 1 { Rung::Ambiguous } else { rung };
        // A single candidate found only by an unknown receiver stays ambiguous.
        Resolution { targets: ids, rung, external: None }
    }

    fn constructor(&self, class: u32) -> Option<u32> {
        let cs = &self.syms[class as usize];
        constructor_names(cs.name)
            .iter()
            .find_map(|n| self.member(class, n, true).into_iter().find(|&i| self.syms[i as usize].kind.is_callable()))
    }

    fn resolve_with_receiver(
        &self,
        file: u32,
        enclosing: Option<u32>,
        rcv: &str,
        name: &str,
        ok: &dyn Fn(&Sym<'_>) -> bool,
    ) -> Option<(Rung, Vec<u32>)> {
        let rcv = rcv.trim_end_matches("()").trim_start_matches('&').trim_start_matches('*');
        let filter = |v: Vec<u32>| -> Vec<u32> { v.into_iter().filter(|&i| ok(&self.syms[i as usize])).collect() };
        if self_word(rcv) {
            let c = enclosing.and_then(|e| self.class_of(e))?;
            let found = filter(self.member(c, name, true));
            return (!found.is_empty()).then_some((Rung::Receiver, found));
        }
        if super_word(rcv) {
            let c = enclosing.and_then(|e| self.class_of(e))?;
            let found = filter(self.member(c, name, false));
            return (!found.is_empty()).then_some((Rung::Receiver, found));
        }
        let segs = split_segments(rcv);
        let head = *segs.first()?;
        // An import binding: a module (member of its files) or an imported class.
        for imp in &self.imports[file as usize] {
            if imp.binding != head {
                continue;
            }
            match imp.member {
                None => {
                    let mut files = imp.files.clone();
                    if segs.len() > 1 {
                        let sub = format!("{}.{}", imp.module, segs[1..].join("."));
                        let deeper = self.module_files(file, &sub);
                        if !deeper.is_empty() {
                            files = deeper;
                        }
                    }
                    let found = filter(self.top_level_in(&files, name, &|_| true));
                    if !found.is_empty() {
                        return Some((Rung::Import, found));
                    }
                    // A class of that module used as a qualifier: `mod.Class.method`.
                    if let Some(cls) = segs.get(1) {
                        for c in self.top_level_in(&files, cls, &|s| s.kind.is_type_like()) {
                            let found = filter(self.member(c, name, true));
                            if !found.is_empty() {
                                return Some((Rung::Import, found));
                            }
                        }
                    }
                    return None;
                }
                Some(member) => {
                    let member = split_segments(member).last().copied().unwrap_or(member);
                    for c in self.top_level_in(&imp.files, member, &|s| s.kind.is_type_like()) {
                        let found = filter(self.member(c, name, true));
                        if !found.is_empty() {
                            return Some((Rung::Import, found));
                        }
                    }
                }
            }
        }
        // A class (or module) by name: a static call.
        let last = *segs.last()?;
        if let Some((rung, classes)) =
            self.lookup_name(file, enclosing, last, |s| s.kind.is_type_like() || s.kind == SymbolKind::Module)
        {
            let mut found = Vec::new();
            for c in &classes {
                found.extend(filter(self.member(*c, name, true)));
            }
            if !found.is_empty() {
                let rung = if rung == Rung::Ambiguous { Rung::Ambiguous } else { Rung::Receiver };
                return Some((rung, found));
            }
        }
        // An expression whose type is unknown (`obj.save()`): methods of that name
        // anywhere in the language, kept as ambiguous candidates.
        let lang = self.lang_of(file);
        let methods: Vec<u32> = self
            .by_name
            .get(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| {
                let s = &self.syms[i as usize];
                s.kind == SymbolKind::Method && compatible(s.lang, lang) && ok(s)
            })
            .collect();
        if !methods.is_empty() && methods.len() <= MAX_CANDIDATES {
            return Some((Rung::Ambiguous, methods));
        }
        None
    }
}

/// Languages whose symbols can call each other (C and C++ share headers; JS and TS
/// import each other).
fn compatible(a: Lang, b: Lang) -> bool {
    use Lang::*;
    a == b
        || matches!((a, b), (C, Cpp) | (Cpp, C))
        || matches!((a, b), (JavaScript | TypeScript | Tsx, JavaScript | TypeScript | Tsx))
}
