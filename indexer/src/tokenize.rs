//! The code-aware tokenizer: identifiers split into lower-cased sub-words.
//!
//! `parseJSONValue` -> `parsejsonvalue`, `parse`, `json`, `value`;
//! `HTTPServer2` -> `httpserver2`, `http`, `server`, `2`; `snake_case_name` ->
//! `snake_case_name`, `snake`, `case`, `name`. The whole identifier is kept as a token
//! too, so an exact identifier query ranks its symbol first. The same function tokenizes
//! documents (through tantivy) and queries.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Name under which [`CodeTokenizer`] is registered with tantivy.
pub const CODE_TOKENIZER: &str = "code";

/// Longest token kept, in bytes; longer runs (base64, hashes) are dropped.
const MAX_TOKEN: usize = 64;

/// Splits `text` into (byte offset, token) pairs, in order: each identifier-like run
/// (letters, digits, `_`) yields itself lower-cased and, when it has parts, its parts.
pub fn tokens(text: &str, mut emit: impl FnMut(usize, usize, String)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = text[i..].chars().next().expect("char boundary");
        if !is_word_char(c) {
            i += c.len_utf8();
            continue;
        }
        let start = i;
        while i < bytes.len() {
            let c = text[i..].chars().next().expect("char boundary");
            if !is_word_char(c) {
                break;
            }
            i += c.len_utf8();
        }
        let word = &text[start..i];
        let trimmed = word.trim_matches('_');
        if trimmed.is_empty() || trimmed.len() > MAX_TOKEN {
            continue;
        }
        let parts = split_identifier(word);
        let whole = trimmed.to_lowercase();
        let single = parts.len() == 1 && parts[0].1 == whole;
        emit(start, i, whole);
        if !single {
            for (off, part) in parts {
                emit(start + off, start + off + part.len(), part);
            }
        }
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The sub-words of one identifier with their byte offsets, lower-cased.
pub fn split_identifier(word: &str) -> Vec<(usize, String)> {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Lower,
        Upper,
        Digit,
        Other,
    }
    fn class(c: char) -> Class {
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
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for k in 0..chars.len() {
        let (off, c) = chars[k];
        if c == '_' {
            if let Some(s) = start.take() {
                out.push((s, word[s..off].to_lowercase()));
            }
            continue;
        }
        let Some(s) = start else {
            start = Some(off);
            continue;
        };
        let prev = class(chars[k - 1].1);
        let cur = class(c);
        let next = chars.get(k + 1).map(|&(_, n)| class(n));
        let boundary = match (prev, cur) {
            (Class::Lower, Class::Upper) => true,
            (Class::Digit, Class::Upper | Class::Lower) | (Class::Upper | Class::Lower, Class::Digit) => true,
            // `JSONValue`: the boundary is before the `V` that starts `Value`.
            (Class::Upper, Class::Upper) => next == Some(Class::Lower),
            _ => false,
        };
        if boundary {
            out.push((s, word[s..off].to_lowercase()));
            start = Some(off);
        }
    }
    if let Some(s) = start {
        out.push((s, word[s..].to_lowercase()));
    }
    out
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
        self.buf.clear();
        let buf = &mut self.buf;
        tokens(text, |from, to, t| {
            let position = buf.len();
            buf.push(Token { offset_from: from, offset_to: to, position, text: t, position_length: 1 });
        });
        CodeTokenStream { tokens: &mut self.buf[..], next: 0 }
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

    #[test]
    fn drops_long_runs() {
        assert!(toks(&"a".repeat(100)).is_empty());
    }
}
