//! cc-grammars: the language table of cc-server.
//!
//! One static table, [`LANGUAGES`], holds everything cc-server knows about a language:
//! its name, the file extensions, file names and shebang interpreters that select it,
//! the tree-sitter grammar (from the per-language crate, compiled offline from its C
//! sources), the tags query in `queries/<lang>/tags.scm`, and how qualified names are
//! joined. Everything else (the indexer, the CLI's `--lang` filter, the docs) reads
//! this table; nothing else lists languages.
//!
//! ```
//! use cc_grammars::{detect, Lang};
//! let lang = detect("src/lib.rs", b"").unwrap();
//! assert_eq!(lang, Lang::Rust);
//! assert_eq!(lang.spec().name, "rust");
//! let query = lang.tags_query(); // compiled once, shared by every worker
//! assert!(query.capture_names().contains(&"name"));
//! ```
//!
//! The table is closed over the 19 built-in languages today. A long tail loaded at run
//! time (tree-sitter-language-pack) would add a second source of [`LanguageSpec`]
//! values; [`Lang`] is the key both would share.

use std::path::Path;
use std::sync::OnceLock;

use tree_sitter::{Language, Query};

pub mod captures;

/// A language cc-server indexes. The discriminant indexes [`LANGUAGES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Ada,
    Asm,
    C,
    Cpp,
    CSharp,
    Dart,
    Go,
    Java,
    JavaScript,
    Kotlin,
    Matlab,
    Php,
    Python,
    R,
    Ruby,
    Rust,
    Swift,
    Tsx,
    TypeScript,
    Zig,
}

/// One row of the language table.
pub struct LanguageSpec {
    pub lang: Lang,
    /// Stable lower-case name: used on the command line, in indexes and in queries' folder names.
    pub name: &'static str,
    /// Name for people.
    pub display: &'static str,
    /// File extensions without the dot, matched case-sensitively first, then lower-cased.
    pub extensions: &'static [&'static str],
    /// Whole file names (`Rakefile`).
    pub file_names: &'static [&'static str],
    /// Interpreter names after `#!` (`python3`, `node`), also after `/usr/bin/env`.
    pub shebangs: &'static [&'static str],
    /// Separator between the parts of a qualified name (`a.b.c`, `a::b::c`).
    pub qualifier: &'static str,
    /// Folder under `queries/` that holds this language's `tags.scm`.
    pub query_dir: &'static str,
    grammar: fn() -> Language,
    tags: &'static str,
}

macro_rules! grammar {
    ($path:expr) => {{
        fn f() -> Language {
            Language::new($path)
        }
        f
    }};
}

macro_rules! tags {
    ($dir:literal) => {
        include_str!(concat!("../queries/", $dir, "/tags.scm"))
    };
}

/// The language table, ordered as [`Lang`].
pub static LANGUAGES: [LanguageSpec; 20] = [
    LanguageSpec {
        lang: Lang::Ada,
        name: "ada",
        display: "Ada",
        extensions: &["adb", "ads", "ada"],
        file_names: &[],
        shebangs: &[],
        qualifier: ".",
        query_dir: "ada",
        grammar: grammar!(tree_sitter_ada::LANGUAGE),
        tags: tags!("ada"),
    },
    LanguageSpec {
        lang: Lang::Asm,
        name: "asm",
        display: "Assembly",
        extensions: &["s", "S", "asm", "nasm"],
        file_names: &[],
        shebangs: &[],
        qualifier: ".",
        query_dir: "asm",
        grammar: grammar!(tree_sitter_asm::LANGUAGE),
        tags: tags!("asm"),
    },
    LanguageSpec {
        lang: Lang::C,
        name: "c",
        display: "C",
        extensions: &["c", "h"],
        file_names: &[],
        shebangs: &[],
        qualifier: "::",
        query_dir: "c",
        grammar: grammar!(tree_sitter_c::LANGUAGE),
        tags: tags!("c"),
    },
    LanguageSpec {
        lang: Lang::Cpp,
        name: "cpp",
        display: "C++",
        extensions: &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp", "tpp", "inl"],
        file_names: &[],
        shebangs: &[],
        qualifier: "::",
        query_dir: "cpp",
        grammar: grammar!(tree_sitter_cpp::LANGUAGE),
        tags: tags!("cpp"),
    },
    LanguageSpec {
        lang: Lang::CSharp,
        name: "csharp",
        display: "C#",
        extensions: &["cs", "csx"],
        file_names: &[],
        shebangs: &[],
        qualifier: ".",
        query_dir: "csharp",
        grammar: grammar!(tree_sitter_c_sharp::LANGUAGE),
        tags: tags!("csharp"),
    },
    LanguageSpec {
        lang: Lang::Dart,
        name: "dart",
        display: "Dart",
        extensions: &["dart"],
        file_names: &[],
        shebangs: &["dart"],
        qualifier: ".",
        query_dir: "dart",
        grammar: grammar!(tree_sitter_dart::LANGUAGE),
        tags: tags!("dart"),
    },
    LanguageSpec {
        lang: Lang::Go,
        name: "go",
        display: "Go",
        extensions: &["go"],
        file_names: &[],
        shebangs: &[],
        qualifier: ".",
        query_dir: "go",
        grammar: grammar!(tree_sitter_go::LANGUAGE),
        tags: tags!("go"),
    },
    LanguageSpec {
        lang: Lang::Java,
        name: "java",
        display: "Java",
        extensions: &["java"],
        file_names: &[],
        shebangs: &[],
        qualifier: ".",
        query_dir: "java",
        grammar: grammar!(tree_sitter_java::LANGUAGE),
        tags: tags!("java"),
    },
    LanguageSpec {
        lang: Lang::JavaScript,
        name: "javascript",
        display: "JavaScript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        file_names: &[],
        shebangs: &["node", "nodejs", "bun", "deno"],
        qualifier: ".",
        query_dir: "javascript",
        grammar: grammar!(tree_sitter_javascript::LANGUAGE),
        tags: tags!("javascript"),
    },
    LanguageSpec {
        lang: Lang::Kotlin,
        name: "kotlin",
        display: "Kotlin",
        extensions: &["kt", "kts"],
        file_names: &[],
        shebangs: &["kotlin"],
        qualifier: ".",
        query_dir: "kotlin",
        grammar: grammar!(tree_sitter_kotlin_ng::LANGUAGE),
        tags: tags!("kotlin"),
    },
    LanguageSpec {
        lang: Lang::Matlab,
        name: "matlab",
        display: "MATLAB",
        extensions: &["m"],
        file_names: &[],
        shebangs: &["octave"],
        qualifier: ".",
        query_dir: "matlab",
        grammar: grammar!(tree_sitter_matlab::LANGUAGE),
        tags: tags!("matlab"),
    },
    LanguageSpec {
        lang: Lang::Php,
        name: "php",
        display: "PHP",
        extensions: &["php", "phtml", "php4", "php5", "php7", "php8", "phps"],
        file_names: &[],
        shebangs: &["php"],
        qualifier: "\\",
        query_dir: "php",
        grammar: grammar!(tree_sitter_php::LANGUAGE_PHP),
        tags: tags!("php"),
    },
    LanguageSpec {
        lang: Lang::Python,
        name: "python",
        display: "Python",
        extensions: &["py", "pyi", "pyw"],
        file_names: &["SConstruct", "SConscript"],
        shebangs: &["python", "python2", "python3", "pypy", "pypy3"],
        qualifier: ".",
        query_dir: "python",
        grammar: grammar!(tree_sitter_python::LANGUAGE),
        tags: tags!("python"),
    },
    LanguageSpec {
        lang: Lang::R,
        name: "r",
        display: "R",
        extensions: &["r", "R"],
        file_names: &[".Rprofile"],
        shebangs: &["Rscript"],
        qualifier: ".",
        query_dir: "r",
        grammar: grammar!(tree_sitter_r::LANGUAGE),
        tags: tags!("r"),
    },
    LanguageSpec {
        lang: Lang::Ruby,
        name: "ruby",
        display: "Ruby",
        extensions: &["rb", "rake", "gemspec", "ru", "rbw"],
        file_names: &["Rakefile", "Gemfile", "Guardfile", "Vagrantfile"],
        shebangs: &["ruby", "jruby"],
        qualifier: "::",
        query_dir: "ruby",
        grammar: grammar!(tree_sitter_ruby::LANGUAGE),
        tags: tags!("ruby"),
    },
    LanguageSpec {
        lang: Lang::Rust,
        name: "rust",
        display: "Rust",
        extensions: &["rs"],
        file_names: &[],
        shebangs: &[],
        qualifier: "::",
        query_dir: "rust",
        grammar: grammar!(tree_sitter_rust::LANGUAGE),
        tags: tags!("rust"),
    },
    LanguageSpec {
        lang: Lang::Swift,
        name: "swift",
        display: "Swift",
        extensions: &["swift"],
        file_names: &[],
        shebangs: &["swift"],
        qualifier: ".",
        query_dir: "swift",
        grammar: grammar!(tree_sitter_swift::LANGUAGE),
        tags: tags!("swift"),
    },
    LanguageSpec {
        lang: Lang::Tsx,
        name: "tsx",
        display: "TSX",
        extensions: &["tsx"],
        file_names: &[],
        shebangs: &[],
        qualifier: ".",
        query_dir: "tsx",
        grammar: grammar!(tree_sitter_typescript::LANGUAGE_TSX),
        // The TypeScript query plus the JSX patterns only the TSX grammar has.
        tags: concat!(tags!("typescript"), "\n", tags!("tsx")),
    },
    LanguageSpec {
        lang: Lang::TypeScript,
        name: "typescript",
        display: "TypeScript",
        extensions: &["ts", "mts", "cts"],
        file_names: &[],
        shebangs: &["ts-node", "tsx"],
        qualifier: ".",
        query_dir: "typescript",
        grammar: grammar!(tree_sitter_typescript::LANGUAGE_TYPESCRIPT),
        tags: tags!("typescript"),
    },
    LanguageSpec {
        lang: Lang::Zig,
        name: "zig",
        display: "Zig",
        extensions: &["zig", "zon"],
        file_names: &[],
        shebangs: &[],
        qualifier: ".",
        query_dir: "zig",
        grammar: grammar!(tree_sitter_zig::LANGUAGE),
        tags: tags!("zig"),
    },
];

impl Lang {
    /// Every language, in table order.
    pub fn all() -> impl Iterator<Item = Lang> {
        LANGUAGES.iter().map(|s| s.lang)
    }

    /// This language's row of the table.
    pub fn spec(self) -> &'static LanguageSpec {
        &LANGUAGES[self as usize]
    }

    /// The stable lower-case name (`"python"`).
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Parses a language name as used on the command line; accepts common aliases
    /// (`py`, `js`, `ts`, `c++`, `c#`, `golang`, …), case-insensitively.
    pub fn from_name(name: &str) -> Option<Lang> {
        let lower = name.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "py" => "python",
            "js" | "jsx" | "node" => "javascript",
            "ts" => "typescript",
            "c++" | "cxx" => "cpp",
            "c#" | "cs" | "c-sharp" => "csharp",
            "golang" => "go",
            "rs" => "rust",
            "rb" => "ruby",
            "kt" => "kotlin",
            "assembly" | "s" => "asm",
            "octave" => "matlab",
            other => other,
        };
        LANGUAGES.iter().find(|s| s.name == alias).map(|s| s.lang)
    }

    /// The tree-sitter grammar.
    pub fn grammar(self) -> Language {
        (self.spec().grammar)()
    }

    /// The bytes to hand the grammar for `source`: the source itself, or (where the grammar
    /// misreads valid code) a copy with the same length, so that every node's byte range
    /// is the source's and texts are read from the source.
    ///
    /// Java: annotations on a variable-arity parameter's `...` (`Object @Nullable ... args`,
    /// JLS 8.4.1) are blanked: tree-sitter-java 0.23 reads them as a syntax error, and the
    /// method around them is lost (upstream issues 184 and 205). 58 of spring-framework's
    /// 61 files with syntax errors were this.
    pub fn parse_source(self, source: &[u8]) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Lang::Java => blank_vararg_annotations(source),
            _ => std::borrow::Cow::Borrowed(source),
        }
    }

    /// The source of this language's tags query (`queries/<lang>/tags.scm`).
    pub fn tags_source(self) -> &'static str {
        self.spec().tags
    }

    /// The compiled tags query, compiled once per process and shared by every worker.
    ///
    /// # Panics
    /// If the query does not compile against the grammar. The `queries_compile` test
    /// compiles every query, so a release cannot ship one that does not; use
    /// [`Lang::try_tags_query`] to get the error instead.
    pub fn tags_query(self) -> &'static Query {
        match self.try_tags_query() {
            Ok(q) => q,
            Err(e) => panic!("{e}"),
        }
    }

    /// The compiled tags query, or the compile error with its position.
    pub fn try_tags_query(self) -> Result<&'static Query, QueryError> {
        static CACHE: [OnceLock<Result<Query, QueryError>>; 20] = [const { OnceLock::new() }; 20];
        CACHE[self as usize]
            .get_or_init(|| {
                Query::new(&self.grammar(), self.tags_source()).map_err(|e| QueryError {
                    lang: self,
                    row: e.row + 1,
                    column: e.column + 1,
                    message: format!("{:?}: {}", e.kind, e.message),
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// Java source with the annotations written right before a `...` replaced by spaces
/// (`@Nullable`, `@a.b.C`, several in a row; an annotation with arguments is left alone).
fn blank_vararg_annotations(source: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    let mut out: Option<Vec<u8>> = None;
    let mut from = 0;
    while let Some(at) = source[from..].windows(3).position(|w| w == b"...").map(|p| from + p) {
        from = at + 3;
        let mut end = at;
        loop {
            let mut i = end;
            while i > 0 && source[i - 1].is_ascii_whitespace() {
                i -= 1;
            }
            // An annotation's name, dots included, then its `@`.
            let name_end = i;
            while i > 0 && (word(source[i - 1]) || source[i - 1] == b'.') {
                i -= 1;
            }
            if i == name_end || i == 0 || source[i - 1] != b'@' {
                break;
            }
            let buf = out.get_or_insert_with(|| source.to_vec());
            buf[i - 1..name_end].fill(b' ');
            end = i - 1;
        }
    }
    match out {
        Some(v) => std::borrow::Cow::Owned(v),
        None => std::borrow::Cow::Borrowed(source),
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A tags query that does not compile against its grammar.
#[derive(Clone, Debug)]
pub struct QueryError {
    pub lang: Lang,
    pub row: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "grammars/queries/{}/tags.scm:{}:{}: {}",
            self.lang.spec().query_dir,
            self.row,
            self.column,
            self.message
        )
    }
}

impl std::error::Error for QueryError {}

/// Picks the language of a file from its name, then from a shebang in `head` (the
/// first bytes of the file; pass `b""` when not read yet). `None`: not a language
/// cc-server indexes.
pub fn detect(path: impl AsRef<Path>, head: &[u8]) -> Option<Lang> {
    detect_by_name(path.as_ref()).or_else(|| detect_by_shebang(head))
}

/// Picks the language from the file name alone.
pub fn detect_by_name(path: &Path) -> Option<Lang> {
    let file_name = path.file_name()?.to_str()?;
    if let Some(s) = LANGUAGES.iter().find(|s| s.file_names.contains(&file_name)) {
        return Some(s.lang);
    }
    let ext = path.extension()?.to_str()?;
    LANGUAGES
        .iter()
        .find(|s| s.extensions.contains(&ext))
        .or_else(|| {
            let lower = ext.to_ascii_lowercase();
            LANGUAGES.iter().find(|s| s.extensions.contains(&lower.as_str()))
        })
        .map(|s| s.lang)
}

/// Picks the language from a `#!` line: `#!/usr/bin/python3`, `#!/usr/bin/env -S node --flag`.
pub fn detect_by_shebang(head: &[u8]) -> Option<Lang> {
    let rest = head.strip_prefix(b"#!")?;
    let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let line = std::str::from_utf8(&rest[..line_end]).ok()?;
    let mut words = line.split_whitespace();
    let mut program = words.next()?.rsplit('/').next()?;
    if program == "env" {
        program = words.find(|w| !w.starts_with('-'))?;
    }
    // `python3.11` -> `python3` -> `python`
    let candidates = [program, program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')];
    candidates.iter().find_map(|p| LANGUAGES.iter().find(|s| s.shebangs.contains(p))).map(|s| s.lang)
}

#[cfg(test)]
mod tests {
    #[test]
    fn java_vararg_annotations_are_blanked_in_place() {
        let src = b"void f(String @Nullable ... a, Object @a.b.C @D... b) { g(x...); }";
        let got = Lang::Java.parse_source(src);
        assert_eq!(got.len(), src.len());
        let want = format!("void f(String{}... a, Object{}... b) {{ g(x...); }}", " ".repeat(11), " ".repeat(10));
        assert_eq!(std::str::from_utf8(&got).unwrap(), want);
        // Nothing to blank: the source itself.
        assert!(matches!(Lang::Java.parse_source(b"void f(int... a) {}"), std::borrow::Cow::Borrowed(_)));
        // A tree with the annotation blanked has no error where the original has one.
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&Lang::Java.grammar()).unwrap();
        let src = b"class A { Object get(String n, @Nullable Object @Nullable ... args) { return null; } }";
        assert!(parser.parse(src, None).unwrap().root_node().has_error());
        assert!(!parser.parse(Lang::Java.parse_source(src).as_ref(), None).unwrap().root_node().has_error());
    }

    use super::*;

    #[test]
    fn table_is_ordered_by_lang() {
        for (i, spec) in LANGUAGES.iter().enumerate() {
            assert_eq!(spec.lang as usize, i, "{} is out of order", spec.name);
            assert_eq!(Lang::from_name(spec.name), Some(spec.lang));
        }
    }

    #[test]
    fn extensions_are_unique() {
        let mut seen = std::collections::HashMap::new();
        for spec in &LANGUAGES {
            for ext in spec.extensions {
                if let Some(other) = seen.insert(*ext, spec.name) {
                    panic!("extension {ext} is claimed by {other} and {}", spec.name);
                }
            }
        }
    }

    #[test]
    fn detects_by_extension_name_and_shebang() {
        assert_eq!(detect("a/b.py", b""), Some(Lang::Python));
        assert_eq!(detect("a/B.PY", b""), Some(Lang::Python));
        assert_eq!(detect("x.tsx", b""), Some(Lang::Tsx));
        assert_eq!(detect("Rakefile", b""), Some(Lang::Ruby));
        assert_eq!(detect("bin/tool", b"#!/usr/bin/env python3\nprint(1)"), Some(Lang::Python));
        assert_eq!(detect("bin/tool", b"#!/usr/bin/python3.11\n"), Some(Lang::Python));
        assert_eq!(detect("bin/tool", b"#!/usr/bin/env -S node --harmony\n"), Some(Lang::JavaScript));
        assert_eq!(detect("bin/tool", b"#!/bin/sh\n"), None);
        assert_eq!(detect("README.md", b""), None);
        assert_eq!(Lang::from_name("C++"), Some(Lang::Cpp));
        assert_eq!(Lang::from_name("cobol"), None);
    }
}
