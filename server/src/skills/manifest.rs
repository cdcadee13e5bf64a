//! SKILL.md: "what is this skill called, and what is it for?" A skill's SKILL.md opens with
//! YAML front matter between two `---` lines — `name` (lowercase letters, digits and
//! hyphens, at most 64) and `description` (at most 1024 characters), other keys allowed —
//! then markdown, the format coding agents already load. Parsed with yaml-rust2; anchors and
//! aliases are refused (an alias would be expanded by copying: a "billion laughs" document).

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;
use yaml_rust2::{Yaml, YamlLoader};

/// At most this many bytes of front matter.
pub const MAX_FRONT_MATTER: usize = 16 * 1024;
/// At most this many characters of description.
pub const MAX_DESCRIPTION: usize = 1024;

/// What a SKILL.md's front matter says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    pub name: String,
    pub description: String,
}

/// Whether `s` is a skill name or slug: 1 to 64 of `a-z`, `0-9` and `-`, starting with a
/// letter or digit.
pub fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
}

struct Anchors(bool);

impl MarkedEventReceiver for Anchors {
    fn on_event(&mut self, ev: Event, _: Marker) {
        match ev {
            Event::Alias(_) => self.0 = true,
            Event::Scalar(_, _, anchor, _) | Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _)
                if anchor > 0 =>
            {
                self.0 = true
            }
            _ => {}
        }
    }
}

/// Parses a SKILL.md: its manifest, or the (1-based) line at fault and why.
pub fn parse(text: &str) -> Result<Manifest, (u32, String)> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != "---" {
        return Err((1, "SKILL.md opens with a '---' line, then YAML front matter (name, description)".into()));
    }
    let mut yaml = String::new();
    let mut closed = false;
    for l in lines {
        if l.trim_end() == "---" {
            closed = true;
            break;
        }
        yaml.push_str(l);
        if yaml.len() > MAX_FRONT_MATTER {
            return Err((1, format!("the front matter passes {MAX_FRONT_MATTER} bytes")));
        }
    }
    if !closed {
        return Err((1, "the front matter has no closing '---' line".into()));
    }
    let at = |m: &Marker| m.line() as u32 + 1;
    let mut anchors = Anchors(false);
    Parser::new_from_str(&yaml).load(&mut anchors, false).map_err(|e| (at(e.marker()), format!("YAML: {e}")))?;
    if anchors.0 {
        return Err((2, "the front matter uses YAML anchors or aliases, which a skill may not".into()));
    }
    let docs = YamlLoader::load_from_str(&yaml).map_err(|e| (at(e.marker()), format!("YAML: {e}")))?;
    let Some(Yaml::Hash(map)) = docs.first() else {
        return Err((2, "the front matter is a YAML mapping (name: …, description: …)".into()));
    };
    let line_of = |key: &str| yaml.lines().position(|l| l.starts_with(&format!("{key}:"))).map_or(2, |i| i as u32 + 2);
    let field = |key: &str| match map.get(&Yaml::String(key.into())) {
        Some(Yaml::String(s)) => Ok(s.trim().to_string()),
        Some(_) => Err((line_of(key), format!("'{key}' is a string"))),
        None => Err((2, format!("the front matter has no '{key}'"))),
    };
    let name = field("name")?;
    if !valid_name(&name) {
        return Err((
            line_of("name"),
            format!("name '{name}': 1 to 64 lowercase letters, digits and hyphens, not starting with a hyphen"),
        ));
    }
    let description = field("description")?;
    if description.is_empty() || description.chars().count() > MAX_DESCRIPTION {
        return Err((line_of("description"), format!("the description is 1 to {MAX_DESCRIPTION} characters")));
    }
    Ok(Manifest { name, description })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: Result<(&str, &str), u32>) {
        let got = parse(text);
        match (got, expected) {
            (Ok(m), Ok((n, d))) => assert_eq!((m.name.as_str(), m.description.as_str()), (n, d)),
            (Err((line, _)), Err(l)) => assert_eq!(line, l, "{text}"),
            (got, want) => panic!("{text:?}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn front_matter() {
        check("---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n", Ok(("pdf", "Fill PDF forms.")));
        check(
            "---\r\nname: a-b\r\ndescription: >\r\n  folded\r\n  text\r\nlicense: MIT\r\n---\r\n",
            Ok(("a-b", "folded text")),
        );
        check("# no front matter\n", Err(1));
        check("---\nname: x\n", Err(1));
        check("---\nname: Not Valid\ndescription: d\n---\n", Err(2));
        check("---\nname: ok\ndescription: d\nversion: [1, 2\n---\n", Err(5));
        check("---\ndescription: d\nname: [a]\n---\n", Err(3));
        check("---\nname: ok\n---\n", Err(2));
        check("---\na: &x [1, 2]\nb: *x\nname: ok\ndescription: d\n---\n", Err(2));
        check("---\n- a list\n---\n", Err(2));
    }
}
