//! A finished review onto a pull request: which lines of each file's diff GitHub takes an
//! inline comment on ([`diff_lines`]), which findings go inline and which into the summary
//! ([`place`]), and the summary's text ([`summary_body`]).
//!
//! GitHub comments on a line of a diff's hunks only: on the RIGHT side an added or context
//! line, by its number in the new file; on the LEFT side a removed or context line, by its
//! number in the old file. A comment anywhere else makes GitHub refuse the whole review
//! (422), so [`place`] moves such comments — and those on files the pull request does not
//! change, or whose patch GitHub does not show (binary, too large) — into the summary.

use std::collections::{BTreeSet, HashMap};

use crate::providers::github::{PrFile, ReviewComment, Side};

/// The lines of one file a review may comment on, per side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiffLines {
    /// New-file line numbers of added and context lines.
    pub right: BTreeSet<u32>,
    /// Old-file line numbers of removed and context lines.
    pub left: BTreeSet<u32>,
}

impl DiffLines {
    pub fn contains(&self, side: Side, line: u32) -> bool {
        match side {
            Side::Right => self.right.contains(&line),
            Side::Left => self.left.contains(&line),
        }
    }
}

/// The commentable lines of a unified diff's hunks (GitHub's `patch` of a file: hunks
/// without the `---`/`+++` header). A malformed hunk header ends what is read.
pub fn diff_lines(patch: &str) -> DiffLines {
    let mut out = DiffLines::default();
    // The next old and new line numbers, inside a hunk.
    let mut at: Option<(u32, u32)> = None;
    for line in patch.lines() {
        if line.starts_with("@@") {
            at = hunk_start(line);
            if at.is_none() {
                break;
            }
            continue;
        }
        let Some((old, new)) = at.as_mut() else { continue };
        match line.as_bytes().first() {
            Some(b'+') => {
                out.right.insert(*new);
                *new += 1;
            }
            Some(b'-') => {
                out.left.insert(*old);
                *old += 1;
            }
            // "\ No newline at end of file"
            Some(b'\\') => {}
            // A context line (an empty one is a blank context line some tools trim).
            _ => {
                out.left.insert(*old);
                out.right.insert(*new);
                *old += 1;
                *new += 1;
            }
        }
    }
    out
}

/// `@@ -a[,b] +c[,d] @@ …` -> (a, c).
fn hunk_start(header: &str) -> Option<(u32, u32)> {
    let rest = header.strip_prefix("@@ ")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(' ')?;
    let start = |r: &str, sign: char| r.strip_prefix(sign)?.split(',').next()?.parse::<u32>().ok();
    Some((start(old, '-')?, start(new, '+')?))
}

/// Comments split by where they can go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placed {
    /// On a line of the diff: posted inline.
    pub inline: Vec<ReviewComment>,
    /// Not: a file the pull request does not change (or whose patch GitHub does not show),
    /// or a line outside its hunks on that side. For the summary ([`summary_body`]).
    pub outside: Vec<ReviewComment>,
}

/// Splits `comments` into those on lines of `files`' diffs and the rest, each list in the
/// order given.
pub fn place(comments: Vec<ReviewComment>, files: &[PrFile]) -> Placed {
    let lines: HashMap<&str, DiffLines> =
        files.iter().filter_map(|f| Some((f.filename.as_str(), diff_lines(f.patch.as_deref()?)))).collect();
    let mut out = Placed::default();
    for c in comments {
        if lines.get(c.path.as_str()).is_some_and(|d| d.contains(c.side, c.line)) {
            out.inline.push(c);
        } else {
            out.outside.push(c);
        }
    }
    out
}

/// The review's body: `summary`, then the comments that could not go inline, each under its
/// place (`path:line`, and the side when LEFT), its text indented under it.
pub fn summary_body(summary: &str, outside: &[ReviewComment]) -> String {
    let mut s = summary.trim_end().to_string();
    if outside.is_empty() {
        return s;
    }
    if !s.is_empty() {
        s.push_str("\n\n");
    }
    s.push_str("### Findings outside the diff\n");
    for c in outside {
        let side = if c.side == Side::Left { " (old file)" } else { "" };
        s.push_str(&format!("\n- `{}:{}`{side}", c.path, c.line));
        let mut lines = c.body.trim().lines();
        if let Some(first) = lines.next() {
            s.push_str(": ");
            s.push_str(first);
        }
        for l in lines {
            s.push_str("\n  ");
            s.push_str(l);
        }
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn c(path: &str, line: u32, side: Side) -> ReviewComment {
        ReviewComment { path: path.into(), line, side, body: format!("at {line}") }
    }

    const PATCH: &str = "@@ -1,4 +1,5 @@\n import os\n-x = 1\n+x = 2\n+y = 3\n \n def f():\n@@ -20,3 +21,2 @@ def g():\n     a()\n-    b()\n     c()\n\\ No newline at end of file";

    #[test]
    fn the_commentable_lines_are_context_and_changes_on_their_side() {
        let d = diff_lines(PATCH);
        assert_eq!(d.right.iter().copied().collect::<Vec<_>>(), [1, 2, 3, 4, 5, 21, 22]);
        assert_eq!(d.left.iter().copied().collect::<Vec<_>>(), [1, 2, 3, 4, 20, 21, 22]);
    }

    #[test]
    fn comments_off_the_diff_or_off_the_pull_request_go_to_the_summary() {
        let files = [
            PrFile { filename: "a.py".into(), status: "modified".into(), patch: Some(PATCH.into()) },
            PrFile { filename: "logo.png".into(), status: "added".into(), patch: None },
        ];
        let placed = place(
            vec![
                c("a.py", 3, Side::Right),
                c("a.py", 10, Side::Right),
                c("a.py", 21, Side::Left),
                c("a.py", 23, Side::Left),
                c("b.py", 1, Side::Right),
                c("logo.png", 1, Side::Right),
            ],
            &files,
        );
        assert_eq!(placed.inline, [c("a.py", 3, Side::Right), c("a.py", 21, Side::Left)]);
        assert_eq!(
            placed.outside,
            [
                c("a.py", 10, Side::Right),
                c("a.py", 23, Side::Left),
                c("b.py", 1, Side::Right),
                c("logo.png", 1, Side::Right)
            ]
        );
        let mut two_lines = c("b.py", 7, Side::Left);
        two_lines.body = "P1: leaks\nthe handle".into();
        assert_eq!(
            summary_body("Ship it.\n", &[c("a.py", 10, Side::Right), two_lines]),
            "Ship it.\n\n### Findings outside the diff\n\n- `a.py:10`: at 10\n- `b.py:7` (old file): P1: leaks\n  the handle\n"
        );
        assert_eq!(summary_body("Ship it.", &[]), "Ship it.");
    }

    /// A hunk as generated: its kinds of line, and where it starts in each file.
    #[derive(Debug, Clone)]
    struct Hunk {
        gap: (u32, u32),
        lines: Vec<u8>,
    }

    fn hunks() -> impl Strategy<Value = Vec<Hunk>> {
        proptest::collection::vec(
            ((0u32..30, 0u32..30), proptest::collection::vec(prop_oneof![Just(b' '), Just(b'+'), Just(b'-')], 1..12))
                .prop_map(|(gap, lines)| Hunk { gap, lines }),
            0..6,
        )
    }

    proptest! {
        /// diff_lines against a reference walk that numbers every line of the generated
        /// hunks itself.
        #[test]
        fn diff_lines_numbers_each_side_as_a_reference_walk_does(hs in hunks()) {
            let (mut old, mut new) = (1u32, 1u32);
            let mut patch = String::new();
            let mut want = DiffLines::default();
            for h in &hs {
                old += h.gap.0;
                new += h.gap.1;
                let olds = h.lines.iter().filter(|&&k| k != b'+').count();
                let news = h.lines.iter().filter(|&&k| k != b'-').count();
                patch.push_str(&format!("@@ -{old},{olds} +{new},{news} @@ ctx\n"));
                for (i, &k) in h.lines.iter().enumerate() {
                    patch.push_str(&format!("{}line {i}\n", k as char));
                    if k != b'+' { want.left.insert(old); old += 1; }
                    if k != b'-' { want.right.insert(new); new += 1; }
                }
            }
            prop_assert_eq!(diff_lines(&patch), want);
        }
    }
}
