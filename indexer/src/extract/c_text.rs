//! C and C++ source read again before it is parsed: the grammar sees the text before the
//! preprocessor, and where what the preprocessor would make of it parses and the text does
//! not, [`super::Extractor`] parses a copy of the same length (offsets and lines kept) and keeps
//! that reading when it has fewer errors.

/// C and C++: `source` with every preprocessor condition's first branch taken (`#if 0`: the
/// `#else`) and the conditions' lines and the other branches blanked, offsets and lines kept;
/// `None` when it has no `#else` or `#elif` (nothing to take apart) or no `#if` at all.
pub(super) fn first_branches(source: &[u8]) -> Option<Vec<u8>> {
    struct Frame {
        /// This branch is blanked.
        skip: bool,
        /// A branch of this condition was taken.
        taken: bool,
    }
    let mut out = source.to_vec();
    let mut frames: Vec<Frame> = Vec::new();
    let mut alternatives = false;
    let mut continued = false;
    let mut at = 0;
    for line in source.split_inclusive(|&b| b == b'\n') {
        let text = std::str::from_utf8(line).unwrap_or("");
        let directive = text.trim_start().strip_prefix('#').map(|d| {
            let d = d.trim_start();
            let word_end = d.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(d.len());
            (&d[..word_end], d[word_end..].trim())
        });
        let condition = matches!(directive, Some(("if" | "ifdef" | "ifndef" | "elif" | "else" | "endif", _)));
        let blank = if continued {
            true
        } else {
            match directive {
                Some(("if" | "ifdef" | "ifndef", cond)) => {
                    let zero = cond == "0";
                    frames.push(Frame { skip: zero, taken: !zero });
                    true
                }
                Some(("elif" | "else", _)) => {
                    alternatives = true;
                    if let Some(f) = frames.last_mut() {
                        f.skip = f.taken;
                        f.taken = true;
                    }
                    true
                }
                Some(("endif", _)) => {
                    frames.pop();
                    true
                }
                _ => frames.iter().any(|f| f.skip),
            }
        };
        // (A condition's line continued is part of it.)
        continued = (continued || condition) && text.trim_end().ends_with('\\');
        if blank {
            for b in &mut out[at..at + line.len()] {
                if !matches!(*b, b'\n' | b'\r') {
                    *b = b' ';
                }
            }
        }
        at += line.len();
    }
    alternatives.then_some(out)
}

/// C and C++: `source` with the macros that stand for attributes blanked, where a compiler's
/// grammar has no place for a name (the grammar reads them as types or declarators, and the
/// class or function around them is lost); `None` when there are none.
///
/// - Between `class`/`struct`/`union` and the class's name: `class LEVELDB_EXPORT Status {`,
///   `class LOCKABLE Mutex : Base {` (two names there are never valid C++).
/// - After a function's parameters and qualifiers, before its body, `;`, `=` or `:`: `void
///   Lock() EXCLUSIVE_LOCK_FUNCTION() {`, `Status Get() const LOCKS_EXCLUDED(mu_);`.
/// - After a variable's name: `std::deque<Writer*> writers_ GUARDED_BY(mutex_);`.
///
/// The last two take an upper-case name (`GUARDED_BY`), with its arguments if it has any.
pub(super) fn blank_attribute_macros(source: &[u8]) -> Option<Vec<u8>> {
    let toks = lex(source);
    let text = |t: &Token| &source[t.start..t.end];
    let ident = |i: usize| toks.get(i).filter(|t| t.kind == Kind::Ident).map(text);
    let punct = |i: usize, c: u8| toks.get(i).is_some_and(|t| t.kind == Kind::Punct && source[t.start] == c);
    let close = matching_parens(&toks, source);
    // After a macro's name at `i`: the index past its arguments, if it has any.
    let past_args = |i: usize| if punct(i + 1, b'(') { close[i + 1].map(|c| c + 1) } else { Some(i + 1) };
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let word = ident(i);
        // `class A B {`: every name but the last (and the grammar's own `alignas(…)` and
        // `__attribute__((…))`) is a macro.
        if matches!(word, Some(b"class" | b"struct" | b"union")) {
            // (first token, past its arguments, name)
            let mut names: Vec<(usize, usize, &[u8])> = Vec::new();
            let mut j = i + 1;
            while let Some(w) = ident(j) {
                let Some(next) = past_args(j) else { break };
                names.push((j, next, w));
                j = next;
            }
            if names.len() >= 2 && names.last().is_some_and(|(_, _, w)| *w == b"final") {
                names.pop();
            }
            let opens = punct(j, b'{') || (punct(j, b':') && !punct(j + 1, b':'));
            if opens && names.len() >= 2 {
                for &(a, b, w) in &names[..names.len() - 1] {
                    if !KNOWN_ATTRIBUTES.contains(&w) {
                        blank.push((a, b));
                    }
                }
            }
            i = j.max(i + 1);
            continue;
        }
        // `f(…) const MACRO(…) {`.
        if punct(i, b')') {
            let declarator = close_to_open(&close, i).is_some_and(|o| {
                o > 0
                    && match ident(o - 1) {
                        Some(w) => !macro_like(w) && !KEYWORDS.contains(&w),
                        None => o > 1 && ident(o - 2) == Some(b"operator"),
                    }
            });
            if declarator {
                let mut j = i + 1;
                let mut macros = Vec::new();
                loop {
                    match ident(j) {
                        Some(b"const" | b"volatile" | b"override" | b"final" | b"mutable") => j += 1,
                        Some(b"noexcept" | b"throw") => match past_args(j) {
                            Some(n) => j = n,
                            None => break,
                        },
                        Some(w) if macro_like(w) => match past_args(j) {
                            Some(n) => {
                                macros.push((j, n));
                                j = n;
                            }
                            None => break,
                        },
                        Some(_) => break,
                        None if punct(j, b'&') => j += 1,
                        None => break,
                    }
                }
                let ends = [b'{', b';', b'=', b':', b','].iter().any(|&c| punct(j, c))
                    || (punct(j, b'-') && punct(j + 1, b'>'))
                    || ident(j) == Some(b"try");
                if ends {
                    blank.extend(macros);
                }
            }
            i += 1;
            continue;
        }
        // `T name MACRO(…);`.
        if let (Some(name), Some(m)) = (word, ident(i + 1)) {
            let typed = i > 0
                && match ident(i - 1) {
                    Some(w) => !KEYWORDS.contains(&w) || TYPE_KEYWORDS.contains(&w),
                    None => [b'*', b'&', b'>'].iter().any(|&c| punct(i - 1, c)),
                };
            if typed && !KEYWORDS.contains(&name) && macro_like(m) && punct(i + 2, b'(') {
                if let Some(c) = close[i + 2] {
                    if [b';', b'=', b',', b'{'].iter().any(|&ch| punct(c + 1, ch)) {
                        blank.push((i + 1, c + 1));
                        i = c + 1;
                        continue;
                    }
                }
            }
        }
        i += 1;
    }
    if blank.is_empty() {
        return None;
    }
    let mut out = source.to_vec();
    for (a, b) in blank {
        for x in &mut out[toks[a].start..toks[b - 1].end] {
            if !matches!(*x, b'\n' | b'\r') {
                *x = b' ';
            }
        }
    }
    Some(out)
}

/// Attribute-like names the grammar knows.
const KNOWN_ATTRIBUTES: &[&[u8]] = &[b"alignas", b"__declspec", b"__attribute__", b"__attribute", b"final"];

/// Keywords that end a type (`const int x`, `char* const p`).
const TYPE_KEYWORDS: &[&[u8]] = &[
    b"const",
    b"volatile",
    b"int",
    b"char",
    b"bool",
    b"long",
    b"short",
    b"unsigned",
    b"signed",
    b"float",
    b"double",
    b"void",
    b"auto",
];

/// C and C++ keywords: never a function's or variable's name.
const KEYWORDS: &[&[u8]] = &[
    b"alignof",
    b"asm",
    b"auto",
    b"bool",
    b"break",
    b"case",
    b"catch",
    b"char",
    b"class",
    b"const",
    b"constexpr",
    b"const_cast",
    b"continue",
    b"co_await",
    b"co_return",
    b"co_yield",
    b"decltype",
    b"default",
    b"delete",
    b"do",
    b"double",
    b"dynamic_cast",
    b"else",
    b"enum",
    b"explicit",
    b"extern",
    b"float",
    b"for",
    b"friend",
    b"goto",
    b"if",
    b"inline",
    b"int",
    b"long",
    b"mutable",
    b"namespace",
    b"new",
    b"noexcept",
    b"operator",
    b"private",
    b"protected",
    b"public",
    b"register",
    b"reinterpret_cast",
    b"return",
    b"short",
    b"signed",
    b"sizeof",
    b"static",
    b"static_assert",
    b"static_cast",
    b"struct",
    b"switch",
    b"template",
    b"this",
    b"throw",
    b"try",
    b"typedef",
    b"typeid",
    b"typename",
    b"union",
    b"unsigned",
    b"using",
    b"virtual",
    b"void",
    b"volatile",
    b"while",
    b"_Generic",
    b"_Alignof",
    b"_Static_assert",
    b"defined",
];

/// A macro's name by convention: upper-case letters, digits and `_`, with two letters at least.
fn macro_like(w: &[u8]) -> bool {
    w.iter().filter(|c| c.is_ascii_uppercase()).count() >= 2
        && w.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Ident,
    Punct,
    /// Numbers, strings and character literals.
    Literal,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: Kind,
    start: usize,
    end: usize,
}

/// C and C++ tokens, roughly: names, one-byte punctuation and literals; comments and the
/// preprocessor's lines (continued ones included) are skipped.
fn lex(src: &[u8]) -> Vec<Token> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    let mut toks = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < src.len() {
        let c = src[i];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let at_line_start = std::mem::replace(&mut line_start, false);
        let start = i;
        match c {
            b'#' if at_line_start => {
                // A directive, to the end of its last continued line.
                while i < src.len() && src[i] != b'\n' {
                    i += if src[i] == b'\\' && src.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
                }
            }
            b'/' if src.get(i + 1) == Some(&b'/') => {
                while i < src.len() && src[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if src.get(i + 1) == Some(&b'*') => {
                i = src[i + 2..].windows(2).position(|w| w == b"*/").map_or(src.len(), |p| i + 2 + p + 2);
                // (A comment does not end a line's start: `  /* x */ #define` is rare.)
            }
            b'"' | b'\'' => {
                i = quoted(src, i);
                toks.push(Token { kind: Kind::Literal, start, end: i });
            }
            b'0'..=b'9' => {
                while i < src.len() && (word(src[i]) || src[i] == b'.' || src[i] == b'\'') {
                    i += 1;
                }
                toks.push(Token { kind: Kind::Literal, start, end: i });
            }
            _ if word(c) => {
                while i < src.len() && word(src[i]) {
                    i += 1;
                }
                let w = &src[start..i];
                // Raw strings (`R"x(…)x"`, `u8R"(…)"`); other prefixes (`L"…"`) lex as a name and
                // a string.
                if src.get(i) == Some(&b'"') && w.ends_with(b"R") && matches!(w, b"R" | b"LR" | b"uR" | b"UR" | b"u8R")
                {
                    let open = src[i..].iter().position(|&b| b == b'(').map_or(src.len(), |p| i + p);
                    let mut end = src[i + 1..open.min(src.len())].to_vec();
                    end.insert(0, b')');
                    end.push(b'"');
                    i = src[open..]
                        .windows(end.len())
                        .position(|w| w == end)
                        .map_or(src.len(), |p| open + p + end.len());
                    toks.push(Token { kind: Kind::Literal, start, end: i });
                } else {
                    toks.push(Token { kind: Kind::Ident, start, end: i });
                }
            }
            _ => {
                i += 1;
                toks.push(Token { kind: Kind::Punct, start, end: i });
            }
        }
    }
    toks
}

/// Past the string or character literal that opens at `i`: its closing quote, or the end of
/// its line.
fn quoted(src: &[u8], i: usize) -> usize {
    let quote = src[i];
    let mut j = i + 1;
    while j < src.len() && src[j] != quote && src[j] != b'\n' {
        j += if src[j] == b'\\' { 2 } else { 1 };
    }
    (j + 1).min(src.len())
}

/// For each `(` token, the index of its `)` (unbalanced ones: `None`).
fn matching_parens(toks: &[Token], src: &[u8]) -> Vec<Option<usize>> {
    let mut close = vec![None; toks.len()];
    let mut open = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind != Kind::Punct {
            continue;
        }
        match src[t.start] {
            b'(' => open.push(i),
            b')' => {
                if let Some(o) = open.pop() {
                    close[o] = Some(i);
                }
            }
            _ => {}
        }
    }
    close
}

/// The `(` whose `)` is at `i`.
fn close_to_open(close: &[Option<usize>], i: usize) -> Option<usize> {
    // (Balanced parentheses nest: the opening one is the nearest before `i` that closes at `i`.)
    (0..i).rev().find(|&o| close[o] == Some(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_branches_keep_offsets_and_lines() {
        let src = "#define A(x) \\\n  f(x)\n#if defined(X) && \\\n  defined(Y)\nint a;\n#else\nint b;\n#endif\n#if 0\nint c;\n#elif Z\nint d;\n#else\nint e;\n#endif\n";
        let out = String::from_utf8(first_branches(src.as_bytes()).unwrap()).unwrap();
        assert_eq!(out.len(), src.len());
        let kept: Vec<&str> = out.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(kept, ["#define A(x) \\", "f(x)", "int a;", "int d;"]);
        assert_eq!(out.lines().count(), src.lines().count());
        assert_eq!(first_branches(b"#ifdef A\nint a;\n#endif\n"), None, "no alternative: nothing to take apart");
    }

    fn blanked(src: &str) -> String {
        let out = blank_attribute_macros(src.as_bytes()).map(|o| String::from_utf8(o).unwrap());
        let out = out.unwrap_or_else(|| src.to_string());
        assert_eq!(out.len(), src.len());
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn attribute_macros_are_blanked_where_no_name_can_be() {
        assert_eq!(blanked("class LEVELDB_EXPORT Status {"), "class Status {");
        assert_eq!(blanked("struct A_EXPORT ALIGNED(8) Options final : Base {"), "struct Options final : Base {");
        assert_eq!(blanked("class __declspec(dllexport) X_API Foo {"), "class __declspec(dllexport) Foo {");
        assert_eq!(blanked("void Lock() EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }"), "void Lock() { mu_.lock(); }");
        assert_eq!(
            blanked("Status Get(const Slice& k) const override LOCKS_EXCLUDED(mu_) EXTRA;"),
            "Status Get(const Slice& k) const override ;"
        );
        assert_eq!(blanked("Foo() NOEXCEPT_X : a_(0) {}"), "Foo() : a_(0) {}");
        assert_eq!(blanked("std::deque<Writer*> writers_ GUARDED_BY(mutex_);"), "std::deque<Writer*> writers_ ;");
        assert_eq!(
            blanked("VersionSet* const versions_ GUARDED_BY(mu_) = nullptr;"),
            "VersionSet* const versions_ = nullptr;"
        );
    }

    #[test]
    fn what_is_valid_without_them_is_left_alone() {
        for src in [
            "struct foo bar;",
            "class Foo foo = {1};",
            "struct X final {};",
            "template <class T, class U> struct P {};",
            "if (x) CHECK(y);",
            "while (ok()) RETRY;",
            "FOO(a) BAR(b);",
            "DWORD x = 0;",
            "return x;",
            "return f(x) ;",
            "// class A B {\n",
            "const char* s = \"class A B {\";",
            "#define X class A B {\n",
            "case FOO(x): break;",
        ] {
            assert_eq!(blanked(src), src.split_whitespace().collect::<Vec<_>>().join(" "), "{src}");
        }
    }
}
