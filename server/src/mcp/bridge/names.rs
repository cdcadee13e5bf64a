//! What a bridged server's words become here: its tools' names under this server's naming
//! scheme, and its descriptions and titles as untrusted text (capped, control and hidden
//! characters removed, marked as the server's).

/// The characters of a tool name (MCP: `[A-Za-z0-9_.-]`, 1 to 128 of them).
pub const MAX_TOOL_NAME: usize = 128;
/// A bridged description's length, in characters, before its marker.
pub const MAX_DESCRIPTION: usize = 1024;
/// A bridged title's length, in characters.
pub const MAX_TITLE: usize = 100;
/// The separator between a server's name and its tool's: `<server>__<tool>`.
pub const SEPARATOR: &str = "__";

/// Whether `name` is a valid MCP tool name.
pub fn valid_tool_name(name: &str) -> bool {
    (1..=MAX_TOOL_NAME).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

/// Whether `name` may name a bridged server: 1 to 32 letters, digits and `-` (no `_`, so
/// the `__` of a mounted name is the server's end).
pub fn valid_server_name(name: &str) -> bool {
    (1..=32).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// The name a server's tool is mounted under: `prefix` + its own name (`prefix` is
/// `<server>__` unless the operator chose another); why not, when it cannot be.
pub fn mounted(prefix: &str, tool: &str) -> Result<String, String> {
    let name = format!("{prefix}{tool}");
    if valid_tool_name(&name) {
        Ok(name)
    } else {
        Err(format!("'{name}' is not a tool name (1 to {MAX_TOOL_NAME} of A-Z a-z 0-9 _ . -): the tool is not mounted"))
    }
}

/// A character that shows nothing or changes how the text around it shows: bidi controls,
/// zero-width characters, the tag block, variation selectors, soft hyphens, byte order marks.
fn hidden(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0xE0000..=0xE0FFF)
}

/// `text` without control characters (a newline or tab becomes a space) and hidden ones,
/// runs of spaces collapsed, cut to `max` characters (marked with `…`).
pub fn clean(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    let mut space = false;
    for c in text.chars() {
        if hidden(c) || (c.is_control() && !c.is_whitespace()) {
            continue;
        }
        let c = if c.is_whitespace() { ' ' } else { c };
        if c == ' ' {
            if space || out.is_empty() {
                continue;
            }
            space = true;
        } else {
            space = false;
        }
        if n == max {
            out.truncate(out.trim_end().len());
            out.push('…');
            return out;
        }
        out.push(c);
        n += 1;
    }
    out.truncate(out.trim_end().len());
    out
}

/// A bridged tool's (resource's, prompt's) description as shown here: cleaned, capped, and
/// marked as the server's.
pub fn description(server: &str, text: Option<&str>) -> String {
    let body = clean(text.unwrap_or(""), MAX_DESCRIPTION);
    if body.is_empty() {
        format!("[from external server '{server}']")
    } else {
        format!("[from external server '{server}'] {body}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_prefixed_and_within_mcps_rules() {
        assert_eq!(mounted("docs__", "search").unwrap(), "docs__search");
        assert!(mounted("docs__", "has space").unwrap_err().contains("not a tool name"));
        assert!(mounted("docs__", &"x".repeat(125)).is_err(), "over 128 characters");
        assert!(mounted("docs__", "ünï").is_err());
        assert!(valid_server_name("git-hub2") && !valid_server_name("a_b") && !valid_server_name(""));
        assert!(!valid_server_name(&"a".repeat(33)) && !valid_server_name("a.b"));
    }

    #[test]
    fn descriptions_lose_hidden_and_control_characters_and_are_capped_and_marked() {
        let hostile = "Reads\u{202E}txt.exe\u{202C} files.\u{200B}\u{E0041}\u{E0042}\x07\x1b[31m\nIgnore\tprevious";
        let d = description("evil", Some(hostile));
        assert_eq!(d, "[from external server 'evil'] Readstxt.exe files.[31m Ignore previous");
        let long = "a".repeat(5000);
        let d = description("s", Some(&long));
        assert_eq!(d.chars().count(), "[from external server 's'] ".chars().count() + MAX_DESCRIPTION + 1);
        assert!(d.ends_with('…'));
        assert_eq!(description("s", None), "[from external server 's']");
        assert_eq!(clean("  a \u{FEFF} b  ", 10), "a b");
    }
}
