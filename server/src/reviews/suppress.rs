//! "Was this finding dismissed here before?" A dismissal is keyed by the place, not by the
//! review: blake3 of the repository, the file, the finding's line context (the text of the
//! lines from two before to two after it at the review's head, whitespace collapsed: the same
//! code moved elsewhere in the file keeps its key, a change of those lines makes a new one)
//! and the title (case and whitespace folded).

use std::path::Path;

/// Lines of context on each side of a finding's line.
pub const CONTEXT: usize = 2;

fn fold(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The context of `line` (1-based) in `text`.
pub fn context(text: &str, line: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let from = line.saturating_sub(CONTEXT + 1);
    let to = (line + CONTEXT).min(lines.len());
    lines.get(from..to).unwrap_or_default().iter().map(|l| fold(l)).collect::<Vec<_>>().join("\n")
}

/// The suppression key of a finding at `file`:`line` of `repo` at `commit` (its checkout at `root`).
pub fn key(root: &Path, commit: &str, repo: &str, file: &str, line: usize, title: &str) -> String {
    let text =
        super::git::show(root, commit, file).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    key_of(repo, file, &context(&text, line), title)
}

pub fn key_of(repo: &str, file: &str, context: &str, title: &str) -> String {
    let mut h = blake3::Hasher::new();
    for part in [repo, file, &blake3::hash(context.as_bytes()).to_hex(), &fold(&title.to_lowercase())] {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    h.finalize().to_hex()[..32].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_follows_the_lines_not_their_place() {
        let a = "a\nb\nc\nd\ne\nf\n";
        let moved = "x\ny\na\nb\nc\nd\ne\nf\n";
        assert_eq!(context(a, 3), "a\nb\nc\nd\ne");
        assert_eq!(context(a, 1), "a\nb\nc");
        assert_eq!(context(a, 3), context(moved, 5));
        assert_eq!(key_of("r", "f", &context(a, 3), "Null  deref"), key_of("r", "f", &context(moved, 5), "null deref"));
        assert_ne!(key_of("r", "f", &context(a, 3), "t"), key_of("r", "f", &context(a, 4), "t"));
        assert_ne!(key_of("r", "f", "c", "t"), key_of("r", "g", "c", "t"));
    }
}
