//! The code-aware tokenizer: identifiers split into lower-cased sub-words.
//!
//! `parseJSONValue` -> `parsejsonvalue`, `parse`, `json`, `value`;
//! `HTTPServer2` -> `httpserver2`, `http`, `server`, `2`; `snake_case_name` ->
//! `snake_case_name`, `snake`, `case`, `name`. The whole identifier is kept as a token
//! too, so an exact identifier query ranks its symbol first. The same function tokenizes
//! documents (through tantivy) and queries. ASCII text is scanned and split byte by byte
//! (`cargo bench --bench tokenize`: 25-28% faster than by `char`, which other text still is).

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Name under which [`CodeTokenizer`] is registered with tantivy.
pub const CODE_TOKENIZER: &str = "code";

/// Longest token kept, in bytes; longer runs (base64, hashes) are dropped.
const MAX_TOKEN: usize = 64;

/// Splits `text` into (byte offset, token) pairs, in order: each identifier-like run
/// (letters, digits, `_`) yields itself lower-cased and, when it has parts, its parts.
pub fn tokens(text: &str, mut emit: impl FnMut(usize, usize, String)) {
    for_each_token(text, |from, to, t| emit(from, to, t.to_string()));
}

/// [`tokens`] without an allocation per token: each token is lent as `&str`.
pub fn for_each_token(text: &str, mut emit: impl FnMut(usize, usize, &str)) {
    let bytes = text.as_bytes();
    let mut whole = String::new();
    let mut part = String::new();
    let mut parts: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        // ASCII bytes tested as bytes; other characters decoded.
        if bytes[i].is_ascii() && !is_ascii_word(bytes[i]) {
            i += 1;
            continue;
        }
        let (c, len) = char_at(text, i);
        if !is_word_char(c) {
            i += len;
            continue;
        }
        let start = i;
        let mut ascii = true;
        while i < bytes.len() {
            if bytes[i].is_ascii() {
                if !is_ascii_word(bytes[i]) {
                    break;
                }
                i += 1;
                continue;
            }
            let (c, len) = char_at(text, i);
            if !is_word_char(c) {
                break;
            }
            ascii = false;
            i += len;
        }
        let word = &text[start..i];
        let trimmed = word.trim_matches('_');
        if trimmed.is_empty() || trimmed.len() > MAX_TOKEN {
            continue;
        }
        if ascii {
            split_ascii(word.as_bytes(), &mut parts);
        } else {
            split_ranges(word, &mut parts);
        }
        lower_into(&mut whole, trimmed);
        emit(start, i, &whole);
        // One part is the trimmed word itself (a part ends only at `_` or a case or digit
        // boundary): already emitted.
        if parts.len() > 1 {
            for &(from, to) in &parts {
                lower_into(&mut part, &word[from..to]);
                emit(start + from, start + to, &part);
            }
        }
    }
}

#[inline]
fn char_at(text: &str, i: usize) -> (char, usize) {
    let b = text.as_bytes()[i];
    if b.is_ascii() {
        (b as char, 1)
    } else {
        let c = text[i..].chars().next().expect("char boundary");
        (c, c.len_utf8())
    }
}

/// `s` lower-cased into `buf` (as `str::to_lowercase` does).
fn lower_into(buf: &mut String, s: &str) {
    buf.clear();
    if s.is_ascii() {
        buf.push_str(s);
        buf.make_ascii_lowercase();
    } else {
        buf.push_str(&s.to_lowercase());
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_ascii_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// [`split_ranges`] of an ASCII identifier, byte by byte.
fn split_ascii(word: &[u8], out: &mut Vec<(usize, usize)>) {
    out.clear();
    let mut start: Option<usize> = None;
    for (off, &b) in word.iter().enumerate() {
        if b == b'_' {
            if let Some(s) = start.take() {
                out.push((s, off));
            }
            continue;
        }
        let Some(s) = start else {
            start = Some(off);
            continue;
        };
        let prev = word[off - 1];
        let boundary = if b.is_ascii_uppercase() {
            // `parseJSON`, `v2X`; `JSONValue`: before the `V` that starts `Value`.
            prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && word.get(off + 1).is_some_and(u8::is_ascii_lowercase))
        } else if b.is_ascii_lowercase() {
            prev.is_ascii_digit()
        } else {
            prev.is_ascii_alphabetic()
        };
        if boundary {
            out.push((s, off));
            start = Some(off);
        }
    }
    if let Some(s) = start {
        out.push((s, word.len()));
    }
}

/// The sub-words of one identifier with their byte offsets, lower-cased.
pub fn split_identifier(word: &str) -> Vec<(usize, String)> {
    let mut parts = Vec::new();
    if word.is_ascii() {
        split_ascii(word.as_bytes(), &mut parts);
    } else {
        split_ranges(word, &mut parts);
    }
    parts.into_iter().map(|(from, to)| (from, word[from..to].to_lowercase())).collect()
}

/// The byte ranges of the sub-words of one identifier, into `out`.
fn split_ranges(word: &str, out: &mut Vec<(usize, usize)>) {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Lower,
        Upper,
        Digit,
        Other,
    }
    fn class(c: char) -> Class {
        if c.is_ascii() {
            return match c {
                'a'..='z' => Class::Lower,
                'A'..='Z' => Class::Upper,
                '0'..='9' => Class::Digit,
                _ => Class::Other,
            };
        }
        if c.is_lowercase() {
            Class::Lower
        } else if c.is_uppercase() {
            Class::Upper
        } else if c.is_numeric() {
            Class::Digit
        } else {
            Class::Other
        }
    }
    out.clear();
    let mut start: Option<usize> = None;
    // (offset, class) of the previous character.
    let mut prev: Option<Class> = None;
    let mut it = word.char_indices().peekable();
    while let Some((off, c)) = it.next() {
        if c == '_' {
            if let Some(s) = start.take() {
                out.push((s, off));
            }
            prev = Some(class(c));
            continue;
        }
        let cur = class(c);
        let Some(s) = start else {
            start = Some(off);
            prev = Some(cur);
            continue;
        };
        let next = it.peek().map(|&(_, n)| class(n));
        let boundary = match (prev.expect("a previous character"), cur) {
            (Class::Lower, Class::Upper) => true,
            (Class::Digit, Class::Upper | Class::Lower) | (Class::Upper | Class::Lower, Class::Digit) => true,
            // `JSONValue`: the boundary is before the `V` that starts `Value`.
            (Class::Upper, Class::Upper) => next == Some(Class::Lower),
            _ => false,
        };
        if boundary {
            out.push((s, off));
            start = Some(off);
        }
        prev = Some(cur);
    }
    if let Some(s) = start {
        out.push((s, word.len()));
    }
}

/// Lower-cased sub-word tokens of `text` (the same as indexing produces), deduplicated,
/// in first-seen order: used to turn a query into terms.
pub fn query_terms(text: &str) -> Vec<String> {
    let mut seen = Vec::new();
    tokens(text, |_, _, t| {
        if !seen.contains(&t) {
            seen.push(t);
        }
    });
    seen
}

/// The tantivy tokenizer over [`tokens`].
#[derive(Clone, Default)]
pub struct CodeTokenizer {
    buf: Vec<Token>,
}

pub struct CodeTokenStream<'a> {
    tokens: &'a mut [Token],
    next: usize,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        // Tokens of earlier calls are reused, their text buffers too.
        let buf = &mut self.buf;
        let mut n = 0;
        for_each_token(text, |from, to, t| {
            let token =
                Token { offset_from: from, offset_to: to, position: n, text: String::new(), position_length: 1 };
            if n == buf.len() {
                buf.push(token);
            } else {
                let old = std::mem::replace(&mut buf[n], token);
                buf[n].text = old.text;
            }
            buf[n].text.clear();
            buf[n].text.push_str(t);
            n += 1;
        });
        CodeTokenStream { tokens: &mut self.buf[..n], next: 0 }
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        let mut v = Vec::new();
        tokens(s, |_, _, t| v.push(t));
        v
    }

    #[test]
    fn splits_identifiers() {
        assert_eq!(toks("parseJSONValue"), ["parsejsonvalue", "parse", "json", "value"]);
        assert_eq!(toks("HTTPServer2"), ["httpserver2", "http", "server", "2"]);
        assert_eq!(toks("snake_case_name"), ["snake_case_name", "snake", "case", "name"]);
        assert_eq!(toks("__init__"), ["init"]);
        assert_eq!(toks("x"), ["x"]);
        assert_eq!(toks("fn parse(a: &str)"), ["fn", "parse", "a", "str"]);
        assert_eq!(toks("os.path.join"), ["os", "path", "join"]);
        assert_eq!(toks("getHTTP"), ["gethttp", "get", "http"]);
        assert_eq!(toks("Überweisung"), ["überweisung"]);
    }

    /// Every word of up to five characters over `a Z 9 _ é`: the ASCII byte splitter
    /// splits as the character one does, and a word yields itself and its parts unless its
    /// one part is itself.
    #[test]
    fn the_ascii_fast_path_tokenizes_as_the_general_one() {
        let alphabet = ['a', 'Z', '9', '_', 'é', 'B'];
        let mut words = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> =
                words.iter().flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}"))).collect();
            words.extend(longer);
        }
        words.sort();
        words.dedup();
        let (mut general, mut ascii) = (Vec::new(), Vec::new());
        for w in &words {
            split_ranges(w, &mut general);
            if w.is_ascii() {
                split_ascii(w.as_bytes(), &mut ascii);
                assert_eq!(ascii, general, "{w:?}");
            }
            let trimmed = w.trim_matches('_');
            let mut expected = Vec::new();
            if !trimmed.is_empty() {
                expected.push(trimmed.to_lowercase());
                let parts: Vec<String> = general.iter().map(|&(a, b)| w[a..b].to_lowercase()).collect();
                if !(parts.len() == 1 && parts[0] == expected[0]) {
                    expected.extend(parts);
                }
            }
            assert_eq!(toks(w), expected, "{w:?}");
        }
    }

    /// Found by the `tokenize` fuzz target: a sub-word's end was its start plus the length
    /// of its lower-cased text, which is longer or shorter than the original when
    /// lower-casing changes a character's UTF-8 length (`İ` -> `i̇`, the Kelvin sign -> `k`):
    /// offsets past the word, inside a character, or past the text.
    #[test]
    fn offsets_are_byte_ranges_of_the_text_when_lower_casing_changes_lengths() {
        for text in ["pubİstanbul x", "fooİ", "getKelvin\u{212a}Value", "ẞtraßeNeu", "aİİİB_c"] {
            let mut seen = Vec::new();
            for_each_token(text, |from, to, t| {
                assert!(from < to && to <= text.len(), "{t:?}: {from}..{to} of {} bytes in {text:?}", text.len());
                assert!(text.is_char_boundary(from) && text.is_char_boundary(to), "{t:?}: {from}..{to} in {text:?}");
                let range = &text[from..to];
                assert!(t == range.to_lowercase() || t == range.trim_matches('_').to_lowercase(), "{t:?} of {range:?}");
                seen.push(t.to_string());
            });
            assert!(!seen.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn drops_long_runs() {
        assert!(toks(&"a".repeat(100)).is_empty());
    }
}
