//! Which arm of a `macro_rules!` macro an invocation runs: the first arm whose matcher its
//! tokens match, as rustc picks it.
//!
//! The arms' matchers come from the macro's signature (`macro_rules! m { ($x:ident,
//! $t:tt::$c:tt) => …; (le => $x:ident, $n:expr) => … }`, see the indexer's `signature`),
//! the invocation's tokens from its reference ([`cc_indexer::Reference::arg_types`]). The
//! matcher is rustc's over token trees, with fragments approximated by their shapes: `ident`,
//! `lifetime`, `literal`, `tt` and `block` are one token (tree); `expr`, `ty`, `path`, `pat`
//! and the like are one or more token trees up to a `,`, `;` or `=>` outside `<…>` (a fragment
//! of those kinds cannot hold one where a macro may be followed by it); `vis` may be empty.
//! A `$name` among the invocation's tokens (one macro invoking another from its body) stands
//! for what was substituted there: any one fragment. Where the approximation cannot tell
//! (another fragment kind, a repetition in the invocation, too many steps), the answer is
//! "not known", and an arm after such an answer is not picked.

/// A macro's arms, by its signature: each arm's matcher (inside its delimiters) in order,
/// and whether the list is whole (a signature cut short lists only its first arms). `None`
/// for a signature that is not a `macro_rules!`'s.
pub(crate) fn arms(signature: &str) -> Option<(Vec<&str>, bool)> {
    let rest = signature.strip_prefix("macro_rules!")?;
    let mut rest = rest.trim_start();
    // The name, then `{ `.
    rest = rest.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
    let mut rest = rest.trim_start().strip_prefix('{')?.trim_start();
    let mut out = Vec::new();
    loop {
        if rest.starts_with('}') {
            return Some((out, true));
        }
        let Some(end) = group_end(rest) else { return Some((out, false)) };
        let matcher = &rest[1..end - 1];
        let Some(after) = rest[end..].trim_start().strip_prefix("=> …") else { return Some((out, false)) };
        out.push(matcher);
        rest = after.trim_start();
        rest = rest.strip_prefix(';').unwrap_or(rest).trim_start();
    }
}

/// How many arms a macro has, by its signature; 0 when the signature was cut short; 1 for
/// a macro of one body (C's `#define`).
pub(crate) fn arm_count(signature: &str) -> u8 {
    match arms(signature) {
        None => 1,
        Some((_, false)) => 0,
        Some((a, true)) => a.len().min(u8::MAX as usize) as u8,
    }
}

/// The arm (1-based) the invocation with `tokens` runs of the macro of `signature`; 0 when
/// that is not known.
pub(crate) fn pick(signature: &str, tokens: &str) -> u8 {
    let Some((arms, _)) = arms(signature) else { return 0 };
    // (A repetition among the tokens, `$(…)*` in another macro's body: its count is not known.)
    let Some(input) = lex(tokens).filter(|_| !tokens.contains("$(")) else { return 0 };
    for (i, matcher) in arms.iter().enumerate() {
        let Some(pattern) = lex(matcher).and_then(|t| parse_pattern(&t)) else { return 0 };
        let mut budget = STEPS;
        match seq(&pattern, &input, &mut budget, &mut |rest, _| Known(rest.is_empty())) {
            Known(true) => return u8::try_from(i + 1).unwrap_or(0),
            Known(false) => {}
            Unknown => return 0,
        }
    }
    0
}

/// The most matching steps one arm may take before its answer is "not known".
const STEPS: u32 = 20_000;

/// Where a group starting at `s[0]` ends (just past its closing delimiter), string and
/// character literals skipped.
fn group_end(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if !matches!(b.first(), Some(b'(' | b'[' | b'{')) {
        return None;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// One token tree.
#[derive(Clone, Debug, PartialEq)]
enum Tok<'a> {
    Ident(&'a str),
    Lifetime,
    Literal,
    Punct(&'a str),
    /// A delimited group: its opening delimiter and what it holds.
    Group(u8, Vec<Tok<'a>>),
    /// `$name` (`$name:kind` in a matcher is read apart).
    Meta(&'a str),
}

/// Punctuation of more than one character, longest first.
const PUNCTS: &[&str] = &[
    "..=", "...", "<<=", ">>=", "::", "=>", "->", "==", "!=", "<=", ">=", "&&", "||", "..", "+=", "-=", "*=", "/=",
    "%=", "^=", "&=", "|=", "<<", ">>",
];

/// `s` as token trees; `None` when its delimiters do not balance or a literal does not end.
fn lex(s: &str) -> Option<Vec<Tok<'_>>> {
    let b = s.as_bytes();
    let mut stack: Vec<(u8, Vec<Tok<'_>>)> = vec![(0, Vec::new())];
    let mut i = 0;
    let ident_end = |mut j: usize| {
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] >= 0x80) {
            j += 1;
        }
        j
    };
    while i < b.len() {
        let c = b[i];
        let tok = if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if matches!(c, b'(' | b'[' | b'{') {
            stack.push((c, Vec::new()));
            i += 1;
            continue;
        } else if matches!(c, b')' | b']' | b'}') {
            let (open, inner) = stack.pop()?;
            let want = match c {
                b')' => b'(',
                b']' => b'[',
                _ => b'{',
            };
            if open != want {
                return None;
            }
            i += 1;
            Tok::Group(open, inner)
        } else if c == b'"' || (matches!(c, b'b' | b'c') && b.get(i + 1) == Some(&b'"')) {
            i += if c == b'"' { 1 } else { 2 };
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            if i >= b.len() {
                return None;
            }
            i += 1;
            Tok::Literal
        } else if c == b'r' && matches!(b.get(i + 1), Some(b'"' | b'#')) {
            // r"…", r#"…"#
            let mut j = i + 1;
            let hashes = b[j..].iter().take_while(|&&x| x == b'#').count();
            j += hashes;
            if b.get(j) != Some(&b'"') {
                // `r#ident`
                let end = ident_end(j);
                let t = Tok::Ident(&s[i..end]);
                i = end;
                stack.last_mut()?.1.push(t);
                continue;
            }
            let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let end = s[j + 1..].find(&close)? + j + 1 + close.len();
            i = end;
            Tok::Literal
        } else if c == b'\'' {
            // 'a' or '\n' (a character), or 'a (a lifetime).
            let end = ident_end(i + 1);
            if end > i + 1 && b.get(end) != Some(&b'\'') {
                i = end;
                Tok::Lifetime
            } else {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'\'' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                if j >= b.len() {
                    return None;
                }
                i = j + 1;
                Tok::Literal
            }
        } else if c.is_ascii_digit() {
            let mut j = i;
            while j < b.len()
                && (b[j].is_ascii_alphanumeric()
                    || b[j] == b'_'
                    || (b[j] == b'.' && b.get(j + 1).is_some_and(|d| d.is_ascii_digit())))
            {
                j += 1;
            }
            i = j;
            Tok::Literal
        } else if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            let end = ident_end(i);
            let t = match &s[i..end] {
                "true" | "false" => Tok::Literal,
                w => Tok::Ident(w),
            };
            i = end;
            t
        } else if c == b'$' && b.get(i + 1).is_some_and(|&d| d.is_ascii_alphabetic() || d == b'_') {
            let end = ident_end(i + 1);
            let t = Tok::Meta(&s[i + 1..end]);
            i = end;
            t
        } else {
            let p = PUNCTS.iter().find(|p| s[i..].starts_with(**p)).copied().unwrap_or(&s[i..i + 1]);
            if !s.is_char_boundary(i + p.len()) {
                return None;
            }
            i += p.len();
            Tok::Punct(p)
        };
        stack.last_mut()?.1.push(tok);
    }
    let (_, top) = stack.pop()?;
    stack.is_empty().then_some(top)
}

/// One element of a matcher.
#[derive(Debug)]
enum Pat<'a> {
    /// A token the invocation must have there.
    Tok(Tok<'a>),
    /// `$name:kind`.
    Frag(&'a str),
    Group(u8, Vec<Pat<'a>>),
    /// `$( … ) sep op`: the elements, the separator, and `*`, `+` or `?`.
    Rep(Vec<Pat<'a>>, Option<Tok<'a>>, &'a str),
}

/// A matcher's tokens as its elements; `None` for what this matcher does not read.
fn parse_pattern<'a>(toks: &[Tok<'a>]) -> Option<Vec<Pat<'a>>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Meta(_) if matches!(toks.get(i + 1), Some(Tok::Punct(":"))) => {
                let Some(Tok::Ident(kind)) = toks.get(i + 2) else { return None };
                out.push(Pat::Frag(kind));
                i += 3;
            }
            Tok::Punct("$") => {
                let Some(Tok::Group(b'(', inner)) = toks.get(i + 1) else { return None };
                let inner = parse_pattern(inner)?;
                let (sep, op, used) = match (toks.get(i + 2), toks.get(i + 3)) {
                    (Some(Tok::Punct(op @ ("*" | "+" | "?"))), _) => (None, *op, 3),
                    (Some(sep), Some(Tok::Punct(op @ ("*" | "+" | "?")))) => (Some(sep.clone()), *op, 4),
                    _ => return None,
                };
                out.push(Pat::Rep(inner, sep, op));
                i += used;
            }
            Tok::Group(d, inner) => {
                out.push(Pat::Group(*d, parse_pattern(inner)?));
                i += 1;
            }
            t => {
                out.push(Pat::Tok(t.clone()));
                i += 1;
            }
        }
    }
    Some(out)
}

/// A match's answer: known (matches or not), or not known.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Answer {
    Known(bool),
    Unknown,
}
use Answer::{Known, Unknown};

impl Answer {
    /// The answer of alternatives: any match matches; otherwise not known if any is not.
    fn or(self, other: impl FnOnce() -> Answer) -> Answer {
        match self {
            Known(true) => self,
            Known(false) => other(),
            Unknown => match other() {
                Known(true) => Known(true),
                _ => Unknown,
            },
        }
    }
}

/// The continuation of a match: what is left of the tokens, and the step budget.
type Then<'k, 'a> = dyn FnMut(&[Tok<'a>], &mut u32) -> Answer + 'k;

/// Whether `pats` match a prefix of `toks` after which `then` answers yes.
fn seq<'a>(pats: &[Pat<'a>], toks: &[Tok<'a>], budget: &mut u32, then: &mut Then<'_, 'a>) -> Answer {
    if *budget == 0 {
        return Unknown;
    }
    *budget -= 1;
    let Some((first, rest)) = pats.split_first() else { return then(toks, budget) };
    match first {
        Pat::Tok(t) => match toks.first() {
            Some(Tok::Meta(_)) => Unknown,
            Some(x) if x == t => seq(rest, &toks[1..], budget, then),
            _ => Known(false),
        },
        Pat::Group(d, inner) => match toks.first() {
            Some(Tok::Group(e, held)) if e == d => {
                match seq(inner, held, budget, &mut |left, _| Known(left.is_empty())) {
                    Known(true) => seq(rest, &toks[1..], budget, then),
                    other => other,
                }
            }
            Some(Tok::Meta(_)) => Unknown,
            _ => Known(false),
        },
        Pat::Frag(kind) => {
            let Some(lengths) = fragment_lengths(kind, toks) else { return Unknown };
            let mut answer = Known(false);
            for n in lengths {
                answer = answer.or(|| seq(rest, &toks[n..], budget, then));
                if answer == Known(true) {
                    break;
                }
            }
            answer
        }
        Pat::Rep(inner, sep, op) => repeat(inner, sep.as_ref(), op, rest, toks, 0, budget, then),
    }
}

/// `$( inner ) sep op` followed by `rest`, having matched `done` repetitions already.
#[allow(clippy::too_many_arguments)]
fn repeat<'a>(
    inner: &[Pat<'a>],
    sep: Option<&Tok<'a>>,
    op: &str,
    rest: &[Pat<'a>],
    toks: &[Tok<'a>],
    done: usize,
    budget: &mut u32,
    then: &mut Then<'_, 'a>,
) -> Answer {
    // Stop here (when the repetition allows it), or match one more.
    let may_stop = match op {
        "+" => done >= 1,
        _ => true,
    };
    let may_go_on = op != "?" || done == 0;
    let stop = |budget: &mut u32, then: &mut Then<'_, 'a>| {
        if may_stop {
            seq(rest, toks, budget, then)
        } else {
            Known(false)
        }
    };
    if !may_go_on {
        return stop(budget, then);
    }
    let one_more = {
        let toks = match (done, sep) {
            (0, _) | (_, None) => Some(toks),
            (_, Some(s)) => match toks.first() {
                Some(t) if t == s => Some(&toks[1..]),
                _ => None,
            },
        };
        match toks {
            None => Known(false),
            Some(toks) => seq(inner, toks, budget, &mut |left, budget| {
                // (A repetition that matched nothing would go on forever.)
                if left.len() == toks.len() {
                    return Known(false);
                }
                repeat(inner, sep, op, rest, left, done + 1, budget, then)
            }),
        }
    };
    one_more.or(|| stop(budget, then))
}

/// The lengths (in token trees) a fragment of `kind` may take at the start of `toks`, longest
/// first; `None` for a kind this matcher does not read.
fn fragment_lengths(kind: &str, toks: &[Tok<'_>]) -> Option<Vec<usize>> {
    let first = toks.first();
    if let Some(Tok::Meta(_)) = first {
        return Some(vec![1]);
    }
    let one = |ok: bool| Some(if ok { vec![1] } else { Vec::new() });
    match kind {
        "ident" => one(matches!(first, Some(Tok::Ident(w)) if *w != "_")),
        "lifetime" => one(matches!(first, Some(Tok::Lifetime))),
        "tt" => one(first.is_some()),
        "block" => one(matches!(first, Some(Tok::Group(b'{', _)))),
        "literal" => Some(match (first, toks.get(1)) {
            (Some(Tok::Literal), _) => vec![1],
            (Some(Tok::Punct("-")), Some(Tok::Literal)) => vec![2],
            _ => Vec::new(),
        }),
        "vis" => Some(match (first, toks.get(1)) {
            (Some(Tok::Ident("pub")), Some(Tok::Group(b'(', _))) => vec![2, 1, 0],
            (Some(Tok::Ident("pub")), _) => vec![1, 0],
            _ => vec![0],
        }),
        "expr" | "expr_2021" | "ty" | "path" | "pat" | "pat_param" | "stmt" | "meta" | "item" => {
            // Up to the first `,`, `;` or `=>` outside `<…>` (a type's or path's generics).
            let angles = matches!(kind, "ty" | "path");
            let mut depth = 0i32;
            let mut end = 0;
            for t in toks {
                match t {
                    Tok::Punct("," | ";" | "=>") if depth <= 0 => break,
                    Tok::Punct("<") if angles => depth += 1,
                    Tok::Punct(">") if angles => depth -= 1,
                    Tok::Punct(">>") if angles => depth -= 2,
                    _ => {}
                }
                end += 1;
            }
            Some((1..=end).rev().collect())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUF: &str = "macro_rules! buf_get_impl { ($this:ident, $typ:tt::$conv:tt) => …; (le => $this:ident, \
                       $typ:tt, $len_to_read:expr) => …; (be => $this:ident, $typ:tt, $len_to_read:expr) => … }";

    #[test]
    fn a_signatures_arms_are_read_whole_or_cut() {
        let (read, whole) = arms(BUF).unwrap();
        assert!(whole);
        assert_eq!(
            read,
            [
                "$this:ident, $typ:tt::$conv:tt",
                "le => $this:ident, $typ:tt, $len_to_read:expr",
                "be => $this:ident, $typ:tt, $len_to_read:expr"
            ]
        );
        assert_eq!(arm_count(BUF), 3);
        assert_eq!(arms("macro_rules! m { () => … }").unwrap(), (vec![""], true));
        assert_eq!(arms("macro_rules! m { ($x:expr) => …; ($x:expr, $y").unwrap(), (vec!["$x:expr"], false));
        assert_eq!(arm_count("macro_rules! m { ($x:expr) => …; ($x:ex…"), 0);
        assert_eq!(arms("fn f()"), None);
        assert_eq!(arm_count("#define F(x) g(x)"), 1);
    }

    #[test]
    fn an_invocation_runs_the_first_arm_it_matches() {
        assert_eq!(pick(BUF, "self, u16::from_be_bytes"), 1);
        assert_eq!(pick(BUF, "le => self, u64, nbytes"), 2);
        assert_eq!(pick(BUF, "be => self, i64, n - 1"), 3);
        // `$this:ident` takes `le`, and then `=>` is not `,`: arm 1 does not match.
        assert_eq!(pick(BUF, "le => $this, $typ, $len_to_read"), 2);
        // Nothing matches: not known (the macro may be another of that name).
        assert_eq!(pick(BUF, "1, 2"), 0);
        // An arm before the one that matches cannot be told: not known.
        assert_eq!(pick("macro_rules! m { ($x:weird) => …; ($y:ident) => … }", "a"), 0);
    }

    #[test]
    fn fragments_take_their_shapes() {
        let m = "macro_rules! m { ($e:expr, $f:expr) => …; ($($x:ident),* ; $l:literal) => …; \
                 ($v:vis fn $n:ident $b:block) => …; ($l:lifetime) => …; [$($k:expr => $v:expr),+ $(,)?] => …; \
                 ($t:ty) => … }";
        assert_eq!(pick(m, "a + b, f(c, d)"), 1);
        assert_eq!(pick(m, "a, b, c ; \"s\""), 2);
        assert_eq!(pick(m, "; -1"), 2);
        assert_eq!(pick(m, "pub(crate) fn go { x }"), 3);
        assert_eq!(pick(m, "fn go { x }"), 3);
        assert_eq!(pick(m, "'a"), 4);
        assert_eq!(pick(m, "1 => 2, 3 => 4,"), 5);
        assert_eq!(pick(m, "1 => 2"), 5);
        assert_eq!(pick(m, "Vec<u8>"), 6);
        // A type's generics may hold commas.
        let t = "macro_rules! t { ($t:ty, $n:ident) => … }";
        assert_eq!(pick(t, "HashMap<K, Vec<V>>, x"), 1);
        assert_eq!(pick(t, "HashMap<K, V>"), 0);
        assert_eq!(pick(m, "$t, $u"), 1, "a fragment substituted from another macro's body is any one fragment");
    }

    #[test]
    fn lexing_keeps_literals_and_groups_whole() {
        assert_eq!(lex("a(\"x)\", 'b', b\"(\")").unwrap().len(), 2);
        assert_eq!(
            lex("r#\"a\"b\"#, 'a, '\\n'").unwrap(),
            [Tok::Literal, Tok::Punct(","), Tok::Lifetime, Tok::Punct(","), Tok::Literal]
        );
        assert_eq!(
            lex("x::<T> => 1.5..2"),
            Some(vec![
                Tok::Ident("x"),
                Tok::Punct("::"),
                Tok::Punct("<"),
                Tok::Ident("T"),
                Tok::Punct(">"),
                Tok::Punct("=>"),
                Tok::Literal,
                Tok::Punct(".."),
                Tok::Literal,
            ])
        );
        assert_eq!(lex("(]"), None);
        assert_eq!(lex("\"open"), None);
    }
}
