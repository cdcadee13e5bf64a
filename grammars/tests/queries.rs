//! Every tags query compiles against its grammar and uses only captures the extractor
//! understands (a typo such as `@definiton.function` would otherwise be dropped silently).

use cc_grammars::{captures, Lang, LANGUAGES};

#[test]
fn every_query_compiles_against_its_grammar() {
    let mut failures = Vec::new();
    for spec in &LANGUAGES {
        match spec.lang.try_tags_query() {
            Ok(q) => {
                let unknown = captures::unknown_captures(q.capture_names().iter().copied());
                if !unknown.is_empty() {
                    failures.push(format!("{}: unknown captures {unknown:?}", spec.name));
                }
                if !q.capture_names().contains(&"name") {
                    failures.push(format!("{}: no @name capture", spec.name));
                }
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_language_defines_and_calls() {
    // Each query must find definitions and calls: the two things the graph is built from.
    for lang in Lang::all() {
        let names = lang.tags_query().capture_names();
        assert!(names.iter().any(|n| n.starts_with("definition.")), "{lang}: no @definition.* capture");
        if lang != Lang::Asm {
            assert!(names.contains(&"reference.call"), "{lang}: no @reference.call capture");
        }
    }
}
