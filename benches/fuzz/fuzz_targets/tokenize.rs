//! The code tokenizer (`cc_indexer::tokenize`) on arbitrary text: no panic, and every token
//! is the lower-cased text of its own byte range (a sub-word) or of that range without its
//! leading and trailing `_` (a whole identifier), with offsets inside the text on
//! character boundaries. Query terms are tokens; a split identifier's parts are in order.
#![no_main]

use cc_indexer::tokenize::{for_each_token, query_terms, split_identifier};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut all = Vec::new();
    for_each_token(&text, |from, to, token| {
        assert!(from < to && to <= text.len(), "offsets {from}..{to} of a text of {} bytes", text.len());
        assert!(text.is_char_boundary(from) && text.is_char_boundary(to), "offsets {from}..{to} inside a character");
        let range = &text[from..to];
        assert!(
            token == range.to_lowercase() || token == range.trim_matches('_').to_lowercase(),
            "token {token:?} of {range:?} ({from}..{to})"
        );
        assert!(!token.is_empty());
        all.push(token.to_string());
    });
    for t in query_terms(&text) {
        assert!(all.contains(&t), "query term {t:?} is no token");
    }
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()) {
        let mut last = 0;
        for (at, part) in split_identifier(word) {
            assert!(at >= last && at < word.len(), "part {part:?} at {at} of {word:?}");
            last = at;
        }
    }
});
