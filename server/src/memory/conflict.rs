//! Conflict detection between two facts: "do these say the same thing about the same subject,
//! except for a number, a negation, a date or a name?"
//!
//! Two facts conflict when they are near-duplicates — the cosine of their embeddings at least
//! [`COSINE_MIN`], or the overlap of their content words at least [`JACCARD_MIN`] (the only
//! test without a model) — and one of these differs:
//! - `number`: each side has a number the other lacks (a substitution: "15" for "16"; a
//!   number only one side adds is detail, not contradiction);
//! - `date`: the same for dates (ISO dates, years, month and weekday names, quarters);
//! - `negation`: one side is negated (not, never, no, …) and the other is not, or the two
//!   use opposite words (enabled / disabled, allowed / forbidden, …);
//! - `entity`: each side names something the other does not (capitalised or code-like words:
//!   PostgreSQL for MySQL).
//!
//! — and nothing else is substituted: two facts each with a plain word the other lacks are
//! about two subjects ([`other_subject`]), whatever their numbers.
//!
//! The thresholds were set on the labelled pairs in `tests/data/memory/conflicts.json`
//! (precision and recall in docs/performance.md).

use std::collections::BTreeSet;

use serde::Serialize;

/// Near-duplicates by embedding: cosine at least this.
pub const COSINE_MIN: f32 = 0.72;
/// Near-duplicates by words (no model): Jaccard of content words at least this.
pub const JACCARD_MIN: f32 = 0.45;

const NEGATIONS: &[&str] = &[
    "not",
    "no",
    "never",
    "cannot",
    "can't",
    "don't",
    "doesn't",
    "isn't",
    "aren't",
    "won't",
    "shouldn't",
    "mustn't",
    "didn't",
    "wasn't",
    "weren't",
    "without",
    "none",
    "nobody",
    "neither",
    "nor",
];

const OPPOSITES: &[(&str, &str)] = &[
    ("enabled", "disabled"),
    ("enable", "disable"),
    ("allowed", "forbidden"),
    ("allowed", "prohibited"),
    ("required", "optional"),
    ("always", "never"),
    ("synchronous", "asynchronous"),
    ("sync", "async"),
    ("public", "private"),
    ("before", "after"),
];

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];
const WEEKDAYS: &[&str] = &["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// What a text says, for comparison.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// Content words: lower-cased, as written (identifiers whole), without function words.
    pub words: BTreeSet<String>,
    pub numbers: BTreeSet<String>,
    pub dates: BTreeSet<String>,
    pub entities: BTreeSet<String>,
    pub negated: bool,
    /// Words of [`OPPOSITES`] it uses.
    pub polar: BTreeSet<String>,
    /// Every word, lower-cased (an entity of one text the other has in lower case is no
    /// substitution: "Production deploys" against "Deploys to production").
    pub lower: BTreeSet<String>,
}

fn raw_words(text: &str) -> Vec<(bool, String)> {
    // (starts a sentence, the word as written, trimmed of punctuation but `'`, `.`, `%`, `-` inside)
    let mut out = Vec::new();
    let mut start = true;
    for w in text.split_whitespace() {
        let t = w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '%' || c == '`'));
        if !t.is_empty() {
            out.push((start, t.trim_matches('`').to_string()));
        }
        start = w.ends_with(['.', '!', '?', ':']) || w.starts_with('-') && w.len() == 1;
    }
    out
}

fn is_date(lower: &str) -> bool {
    let b = lower.as_bytes();
    let iso = b.len() == 10 && b[4] == b'-' && b[7] == b'-' && lower.chars().filter(char::is_ascii_digit).count() == 8;
    let year = b.len() == 4 && lower.parse::<u32>().is_ok_and(|y| (1990..=2100).contains(&y));
    let quarter = b.len() == 2 && b[0] == b'q' && (b'1'..=b'4').contains(&b[1]);
    iso || year || quarter || MONTHS.contains(&lower) || WEEKDAYS.contains(&lower)
}

/// The features of `text`.
pub fn features(text: &str) -> Features {
    let mut f = Features::default();
    for (start, w) in raw_words(text) {
        let lower = w.to_lowercase();
        f.lower.insert(lower.clone());
        if !is_function_word(&lower) {
            f.words.insert(lower.clone());
        }
        if is_date(&lower) {
            f.dates.insert(lower);
            continue;
        }
        if lower.chars().any(|c| c.is_ascii_digit()) {
            f.numbers.insert(lower.trim_end_matches('.').to_string());
            continue;
        }
        if NEGATIONS.contains(&lower.as_str()) || lower.ends_with("n't") {
            f.negated = true;
            continue;
        }
        if OPPOSITES.iter().any(|(a, b)| *a == lower || *b == lower) {
            f.polar.insert(lower.clone());
        }
        let chars: Vec<char> = w.chars().collect();
        let capital = chars.first().is_some_and(|c| c.is_uppercase());
        let inner = chars.windows(2).any(|p| p[0].is_lowercase() && p[1].is_uppercase())
            || w.contains(['_', '.', '/'])
            || (chars.len() > 1 && chars.iter().all(|c| c.is_uppercase()));
        let common = start && is_function_word(&lower);
        if (capital || inner) && !common && lower != "i" {
            f.entities.insert(lower);
        }
    }
    f
}

fn is_function_word(w: &str) -> bool {
    crate::rank::content_terms(w).is_empty()
}

/// Each side has one the other lacks.
fn substituted(a: &BTreeSet<String>, b: &BTreeSet<String>) -> Option<String> {
    let only_a: Vec<&String> = a.difference(b).collect();
    let only_b: Vec<&String> = b.difference(a).collect();
    (!only_a.is_empty() && !only_b.is_empty()).then(|| {
        format!(
            "{} / {}",
            only_a.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
            only_b.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        )
    })
}

/// What differs between two texts: (cue, the differing words), in the order number,
/// negation, date, entity.
pub fn cues(a: &Features, b: &Features) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(d) = substituted(&a.numbers, &b.numbers) {
        out.push(("number", d));
    }
    if a.negated != b.negated {
        out.push(("negation", if a.negated { "negated / not" } else { "not / negated" }.to_string()));
    } else {
        let opposite = OPPOSITES.iter().find(|(x, y)| {
            (a.polar.contains(*x) && b.polar.contains(*y) && !a.polar.contains(*y) && !b.polar.contains(*x))
                || (a.polar.contains(*y) && b.polar.contains(*x) && !a.polar.contains(*x) && !b.polar.contains(*y))
        });
        if let Some((x, y)) = opposite {
            out.push(("negation", format!("{x} / {y}")));
        }
    }
    if let Some(d) = substituted(&a.dates, &b.dates) {
        out.push(("date", d));
    }
    let a_names: BTreeSet<String> = a.entities.difference(&b.lower).cloned().collect();
    let b_names: BTreeSet<String> = b.entities.difference(&a.lower).cloned().collect();
    if let Some(d) = substituted(&a_names, &b_names) {
        out.push(("entity", d));
    }
    out
}

/// Jaccard overlap of two word sets.
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f32 {
    let inter = a.intersection(b).count() as f32;
    let union = (a.len() + b.len()) as f32 - inter;
    if union == 0.0 {
        0.0
    } else {
        inter / union
    }
}

/// How two facts were compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Similarity {
    /// Cosine of their embeddings.
    Embedding,
    /// Jaccard of their content words (no model).
    Words,
}

/// A detected contradiction.
#[derive(Clone, Debug, PartialEq)]
pub struct Detection {
    pub similarity: f32,
    pub cues: Vec<(&'static str, String)>,
}

/// Whether two texts are near-duplicates: by embedding when both have one, or by words (a
/// name the model places apart, "Unleash" for "LaunchDarkly", still leaves every other word
/// shared); and how alike they are (the cosine when there is one).
fn near(a: &Features, b: &Features, cosine: Option<f32>) -> (bool, f32) {
    let j = jaccard(&a.words, &b.words);
    match cosine {
        Some(c) => (c >= COSINE_MIN || j >= JACCARD_MIN, c),
        None => (j >= JACCARD_MIN, j),
    }
}

/// The words of a text that are not what a cue compares (numbers, dates, names, negations,
/// opposite words): what says which subject and attribute it is about.
fn plain(f: &Features) -> BTreeSet<&str> {
    f.words
        .iter()
        .map(String::as_str)
        .filter(|w| {
            !(f.numbers.contains(*w)
                || f.dates.contains(*w)
                || f.entities.contains(*w)
                || f.polar.contains(*w)
                || NEGATIONS.contains(w))
        })
        .collect()
}

/// Whether the two are about different subjects: each has a plain word the other lacks ("the
/// timeout of project *amber*" and "the timeout of project *cobalt*" differ in their numbers
/// because they are about two things, not because they disagree).
pub fn other_subject(a: &Features, b: &Features) -> bool {
    let only_a = plain(a).into_iter().any(|w| !b.lower.contains(w));
    let only_b = plain(b).into_iter().any(|w| !a.lower.contains(w));
    only_a && only_b
}

/// Whether two facts conflict; `cosine` is their embeddings' cosine when both have one.
pub fn detect(a: &Features, b: &Features, cosine: Option<f32>) -> Option<Detection> {
    let (near, sim) = near(a, b, cosine);
    if !near || other_subject(a, b) {
        return None;
    }
    let cues = cues(a, b);
    (!cues.is_empty()).then_some(Detection { similarity: sim, cues })
}

/// Whether two texts say the same (near-duplicates with nothing that differs).
pub fn agrees(a: &Features, b: &Features, cosine: Option<f32>) -> bool {
    near(a, b, cosine).0 && cues(a, b).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(a: &str, b: &str, expect: &[&str]) {
        let got: Vec<&str> = cues(&features(a), &features(b)).into_iter().map(|c| c.0).collect();
        assert_eq!(got, expect, "{a} | {b}");
    }

    #[test]
    fn cues_of_pairs() {
        check("The staging database runs PostgreSQL 15.", "The staging database runs PostgreSQL 16.", &["number"]);
        check("The staging database runs PostgreSQL 15.", "The staging database runs PostgreSQL 15 on ARM.", &[]);
        check("Deploys are frozen on Friday.", "Deploys are frozen on Thursday.", &["date"]);
        check("The cache is enabled in production.", "The cache is disabled in production.", &["negation"]);
        check("Feature flags are cleaned up monthly.", "Feature flags are not cleaned up monthly.", &["negation"]);
        check("We deploy with ArgoCD.", "We deploy with Flux.", &["entity"]);
        check("We deploy with ArgoCD.", "ArgoCD deploys our services.", &[]);
        check("Deploys to production are frozen on Friday.", "Production deploys are frozen on Friday.", &[]);
    }

    #[test]
    fn near_duplicates_by_words_without_a_model() {
        let (a, b) = (features("The API timeout is 30 seconds"), features("The API timeout is 60 seconds"));
        assert!(detect(&a, &b, None).is_some());
        let c = features("Lunch is served at noon in the cafeteria");
        assert!(detect(&a, &c, None).is_none());
        // The same frame about two subjects is no conflict.
        let (x, y) = (
            features("The timeout of project amber is 30 seconds"),
            features("The timeout of project cobalt is 45 seconds"),
        );
        assert!(other_subject(&x, &y) && detect(&x, &y, Some(0.95)).is_none());
        assert!(agrees(&a, &features("The API timeout is 30 seconds."), None));
    }
}
