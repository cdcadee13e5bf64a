//! Resource templates: a file, or a symbol's source, of an indexed repository; a space's
//! messages; a plan.
//!
//! `cc://{workspace_id}/repos/{repo}/files/{+path}`,
//! `cc://{workspace_id}/repos/{repo}/symbols/{id}`, `cc://spaces/{space_id}/messages`
//! (which a client may subscribe to: it hears of each new message) and
//! `cc://{workspace_id}/plans/{plan_id}` (its latest version; `…/versions/{n}` an earlier one). URIs are split by hand, not by a
//! URL parser: a parser would read the workspace as an authority and lower-case it,
//! renaming things on a case-sensitive file system; and a hand split is linear in the
//! URI's length whatever it holds (no backtracking matcher).

use serde::Serialize;

/// The templates, as listed by `resources/templates/list`.
pub const TEMPLATES: &[(&str, &str, &str)] = &[
    ("cc://{workspace_id}/repos/{repo}/files/{+path}", "file", "A file of an indexed repository (text)."),
    (
        "cc://{workspace_id}/repos/{repo}/symbols/{id}",
        "symbol",
        "The source of one symbol of an indexed repository (id from a code tool).",
    ),
    (
        "cc://spaces/{space_id}/messages",
        "space messages",
        "A space's last 50 messages (JSON, oldest first); subscribe to hear of each new one.",
    ),
    (
        "cc://{workspace_id}/plans/{plan_id}",
        "plan",
        "A plan (submit_plan, run_playbook) with its latest version's PlanDocument (JSON).",
    ),
    (
        "cc://{workspace_id}/plans/{plan_id}/versions/{version}",
        "plan version",
        "One version (1, 2, …) of a plan, with its PlanDocument (JSON).",
    ),
];

pub fn file_uri(ws: &str, repo: &str, path: &str) -> String {
    format!("cc://{ws}/repos/{repo}/files/{path}")
}

pub fn symbol_uri(ws: &str, repo: &str, id: &str) -> String {
    format!("cc://{ws}/repos/{repo}/symbols/{id}")
}

pub fn messages_uri(space_id: &str) -> String {
    format!("cc://spaces/{space_id}/messages")
}

pub fn plan_uri(ws: &str, plan_id: &str) -> String {
    format!("cc://{ws}/plans/{plan_id}")
}

/// What a `cc://` URI addresses.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub enum Address<'a> {
    File { workspace: &'a str, repo: &'a str, path: &'a str },
    Symbol { workspace: &'a str, repo: &'a str, id: &'a str },
    Messages { space: &'a str },
    Plan { workspace: &'a str, id: &'a str, version: Option<&'a str> },
}

/// Splits a `cc://` URI; `None` when it matches no template.
pub fn parse(uri: &str) -> Option<Address<'_>> {
    parse_counting(uri, &mut 0)
}

/// [`parse`], adding to `steps` one for every byte it looks at: each byte is looked at
/// a bounded number of times, whatever the URI holds (the tests check the count, not a
/// clock: no backtracking, linear in the length).
pub fn parse_counting<'a>(uri: &'a str, steps: &mut usize) -> Option<Address<'a>> {
    let rest = strip(uri, "cc://", steps)?;
    if let Some((space, "messages")) = strip(rest, "spaces/", steps).and_then(|r| split_slash(r, steps)) {
        if !space.is_empty() {
            return Some(Address::Messages { space });
        }
    }
    let (workspace, rest) = split_slash(rest, steps)?;
    if let Some(plan) = strip(rest, "plans/", steps) {
        if workspace.is_empty() {
            return None;
        }
        return match split_slash(plan, steps) {
            None => (!plan.is_empty()).then_some(Address::Plan { workspace, id: plan, version: None }),
            Some((id, more)) => {
                let version = strip(more, "versions/", steps)?;
                (!id.is_empty() && !version.is_empty() && !has_slash(version, steps)).then_some(Address::Plan {
                    workspace,
                    id,
                    version: Some(version),
                })
            }
        };
    }
    let rest = strip(rest, "repos/", steps)?;
    let (repo, rest) = split_slash(rest, steps)?;
    if workspace.is_empty() || repo.is_empty() {
        return None;
    }
    if let Some(path) = strip(rest, "files/", steps) {
        return (!path.is_empty()).then_some(Address::File { workspace, repo, path });
    }
    let id = strip(rest, "symbols/", steps)?;
    (!id.is_empty() && !has_slash(id, steps)).then_some(Address::Symbol { workspace, repo, id })
}

fn strip<'a>(s: &'a str, prefix: &str, steps: &mut usize) -> Option<&'a str> {
    *steps += prefix.len().min(s.len());
    s.strip_prefix(prefix)
}

fn split_slash<'a>(s: &'a str, steps: &mut usize) -> Option<(&'a str, &'a str)> {
    for (i, b) in s.bytes().enumerate() {
        *steps += 1;
        if b == b'/' {
            return Some((&s[..i], &s[i + 1..]));
        }
    }
    None
}

fn has_slash(s: &str, steps: &mut usize) -> bool {
    for b in s.bytes() {
        *steps += 1;
        if b == b'/' {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_by_hand_keeping_case() {
        assert_eq!(
            parse("cc://Team/repos/Shop/files/src/Main.java"),
            Some(Address::File { workspace: "Team", repo: "Shop", path: "src/Main.java" })
        );
        assert_eq!(
            parse("cc://default/repos/shop/symbols/00ff00ff00ff00ff"),
            Some(Address::Symbol { workspace: "default", repo: "shop", id: "00ff00ff00ff00ff" })
        );
        assert_eq!(parse("cc://default/repos/shop/other/x"), None);
        assert_eq!(parse("cc://spaces/s-1/messages"), Some(Address::Messages { space: "s-1" }));
        assert_eq!(parse("cc://spaces//messages"), None);
        assert_eq!(parse("cc://spaces/s-1/messages/x"), None);
        // A workspace named "spaces" keeps its repositories.
        assert_eq!(
            parse("cc://spaces/repos/r/files/a"),
            Some(Address::File { workspace: "spaces", repo: "r", path: "a" })
        );
        assert_eq!(parse("cc://w/plans/pl-1"), Some(Address::Plan { workspace: "w", id: "pl-1", version: None }));
        assert_eq!(
            parse("cc://w/plans/pl-1/versions/2"),
            Some(Address::Plan { workspace: "w", id: "pl-1", version: Some("2") })
        );
        for bad in [
            "cc://w/plans/",
            "cc://w/plans/pl-1/",
            "cc://w/plans/pl-1/other/2",
            "cc://w/plans/pl-1/versions/2/x",
            "cc:///plans/p",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        assert_eq!(parse("http://x"), None);
        assert_eq!(parse("cc:///repos/a/files/x"), None);
    }

    #[test]
    fn long_adversarial_uris_are_rejected_in_linear_time() {
        // The TS SDK's template matcher backtracked on `{/id*}` with long comma payloads
        // (CVE-2026-0621). A hand split looks at each byte a bounded number of times.
        // (No Debug output of the megabyte payloads on failure.)
        for payload in [",".repeat(1 << 20), "/".repeat(1 << 20), "a/".repeat(1 << 19)] {
            let uri = format!("cc://w/repos/r/symbols/{payload}");
            let ok = match parse(&uri) {
                Some(Address::Symbol { id, .. }) => id == payload && !payload.contains('/'),
                None => payload.contains('/'),
                Some(_) => false,
            };
            assert!(ok, "unexpected split of a long symbol URI");
            assert!(parse(&format!("cc://{payload}")).is_none());
            assert!(parse(&format!("cc://w/repos/r/files/{payload}")).is_some());
        }
    }

    /// Linear by operation count: over adversarial shapes of growing length, the bytes
    /// looked at never exceed 2 per byte of input (plus the fixed prefixes), so doubling
    /// the input at most doubles the work.
    #[test]
    fn template_matching_is_linear_by_operation_count() {
        let shapes: &[(&str, &str, &str)] = &[
            ("cc://w/repos/r/symbols/", ",", ""),
            ("cc://w/repos/r/symbols/", "a", "/"),
            ("cc://", "/", ""),
            ("cc://", "a", ""),
            ("cc://w/repos/", "r", "/files/x"),
            ("cc://w/repos/r/files/", "a/", ""),
            ("cc://", "repos/", ""),
            ("", "cc://", ""),
            ("cc://w/repos/r/", "symbols/", "x"),
            ("cc://w/", "{+path}", "/repos/r/files/x"),
            ("cc://w/plans/", "p", ""),
            ("cc://w/plans/p/versions/", "1", ""),
            ("cc://w/plans/", "p/", "versions/1"),
        ];
        for (head, unit, tail) in shapes {
            let mut per_byte = Vec::new();
            for k in [1usize << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20] {
                let uri = format!("{head}{}{tail}", unit.repeat(k / unit.len().max(1)));
                let mut steps = 0;
                let _ = parse_counting(&uri, &mut steps);
                assert!(steps <= 2 * uri.len() + 64, "{head}{unit}*{k}{tail}: {steps} steps for {} bytes", uri.len());
                per_byte.push(steps as f64 / uri.len() as f64);
            }
            // Work per byte does not grow with the length (it would, for a backtracking matcher).
            let (first, last) = (per_byte[0], per_byte[per_byte.len() - 1]);
            assert!(last <= first + 0.01, "{head}{unit}{tail}: steps per byte grew from {first} to {last}");
        }
    }
}
