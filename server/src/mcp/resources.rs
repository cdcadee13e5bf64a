//! Resource templates: a file, or a symbol's source, of an indexed repository.
//!
//! `cc://{workspace_id}/repos/{repo}/files/{+path}` and
//! `cc://{workspace_id}/repos/{repo}/symbols/{id}`. URIs are split by hand, not by a
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
];

pub fn file_uri(ws: &str, repo: &str, path: &str) -> String {
    format!("cc://{ws}/repos/{repo}/files/{path}")
}

pub fn symbol_uri(ws: &str, repo: &str, id: &str) -> String {
    format!("cc://{ws}/repos/{repo}/symbols/{id}")
}

/// What a `cc://` URI addresses.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub enum Address<'a> {
    File { workspace: &'a str, repo: &'a str, path: &'a str },
    Symbol { workspace: &'a str, repo: &'a str, id: &'a str },
}

/// Splits a `cc://` URI; `None` when it matches no template.
pub fn parse(uri: &str) -> Option<Address<'_>> {
    let rest = uri.strip_prefix("cc://")?;
    let (workspace, rest) = rest.split_once('/')?;
    let rest = rest.strip_prefix("repos/")?;
    let (repo, rest) = rest.split_once('/')?;
    if workspace.is_empty() || repo.is_empty() {
        return None;
    }
    if let Some(path) = rest.strip_prefix("files/") {
        return (!path.is_empty()).then_some(Address::File { workspace, repo, path });
    }
    let id = rest.strip_prefix("symbols/")?;
    (!id.is_empty() && !id.contains('/')).then_some(Address::Symbol { workspace, repo, id })
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
}
