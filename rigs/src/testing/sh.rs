//! The device double's shell: splits a command line the way POSIX `sh` (Android's mksh)
//! would, for a subset, so the argv a client meant is checked against the argv the device
//! would see.
//!
//! Covered: words, `'…'` (everything literal), `"…"` (with `\"`, `\\`, `` \` ``, `\$`
//! escapes), backslash escapes outside quotes, `#` comments, and the lists `;`, `&&`,
//! `||`. Refused with an error (the real shell would expand or redirect, so an argv
//! quoted badly would arrive changed): unquoted or double-quoted `$` and backquotes,
//! unquoted `|`, `&`, `<`, `>`, `(`, `)`, globs (`*`, `?`, `[`), a leading `~`, and an
//! unterminated quote.

/// How a command joins the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Join {
    /// The first command, or after `;`.
    Always,
    /// After `&&`: runs when the one before succeeded.
    And,
    /// After `||`: runs when the one before failed.
    Or,
}

/// A command line as a list of (join, argv).
pub fn parse(line: &str) -> Result<Vec<(Join, Vec<String>)>, String> {
    let mut out: Vec<(Join, Vec<String>)> = Vec::new();
    let mut join = Join::Always;
    let mut argv: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    let finish_cmd = |argv: &mut Vec<String>, out: &mut Vec<(Join, Vec<String>)>, join: Join| -> Result<(), String> {
        if argv.is_empty() {
            return Err("sh: syntax error: an operator with no command before it".into());
        }
        out.push((join, std::mem::take(argv)));
        Ok(())
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("sh: unterminated quoted string".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '`' | '$')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("sh: unterminated quoted string".into()),
                        },
                        Some(c @ ('$' | '`')) => {
                            return Err(format!("the double's sh does not expand {c:?} (inside double quotes)"))
                        }
                        Some(c) => word.push(c),
                        None => return Err("sh: unterminated quoted string".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => word.push(c),
                    None => return Err("sh: a backslash at the end of the line".into()),
                }
            }
            ' ' | '\t' | '\n' => {
                if in_word {
                    argv.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if !in_word => {
                // A comment runs to the end of the line.
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            ';' => {
                if in_word {
                    argv.push(std::mem::take(&mut word));
                    in_word = false;
                }
                finish_cmd(&mut argv, &mut out, join)?;
                join = Join::Always;
            }
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                if in_word {
                    argv.push(std::mem::take(&mut word));
                    in_word = false;
                }
                finish_cmd(&mut argv, &mut out, join)?;
                join = Join::And;
            }
            '|' if chars.peek() == Some(&'|') => {
                chars.next();
                if in_word {
                    argv.push(std::mem::take(&mut word));
                    in_word = false;
                }
                finish_cmd(&mut argv, &mut out, join)?;
                join = Join::Or;
            }
            '$' | '`' | '|' | '&' | '<' | '>' | '(' | ')' | '*' | '?' | '[' => {
                return Err(format!(
                    "the double's sh does not support unquoted {c:?} (the real sh would expand, redirect or glob it)"
                ));
            }
            '~' if !in_word => return Err("the double's sh does not expand a leading '~'".into()),
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        argv.push(word);
    }
    if !argv.is_empty() {
        out.push((join, argv));
    } else if join != Join::Always {
        return Err("sh: syntax error: a command line ending in an operator".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Vec<String> {
        let mut v = parse(line).unwrap();
        assert_eq!(v.len(), 1, "{line}");
        v.remove(0).1
    }

    #[test]
    fn quotes_and_escapes_split_like_sh() {
        assert_eq!(one("input  tap 1 2"), ["input", "tap", "1", "2"]);
        assert_eq!(one("'a b' \"c d\" e\\ f"), ["a b", "c d", "e f"]);
        assert_eq!(one("'it'\\''s' '$HOME' 'x;y' '\"q\"'"), ["it's", "$HOME", "x;y", "\"q\""]);
        assert_eq!(one("\"a\\\"b\\\\c\\n\""), ["a\"b\\c\\n"]);
        assert_eq!(one("''"), [""]);
        assert_eq!(one("a'b'\"c\"d"), ["abcd"]);
        assert_eq!(one("ls # a comment; rm -rf /"), ["ls"]);
        assert_eq!(one("ls;"), ["ls"]);
    }

    #[test]
    fn lists_split_on_unquoted_operators() {
        let v = parse("echo a; echo 'b;c' && false || echo d").unwrap();
        let joins: Vec<Join> = v.iter().map(|(j, _)| *j).collect();
        assert_eq!(joins, [Join::Always, Join::Always, Join::And, Join::Or]);
        assert_eq!(v[1].1, ["echo", "b;c"]);
    }

    #[test]
    fn what_the_double_cannot_do_is_refused() {
        for bad in [
            "echo $HOME",
            "echo \"$HOME\"",
            "ls | wc",
            "a > b",
            "ls *",
            "echo `id`",
            "echo 'open",
            "x &",
            "~/x",
            "; ls",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
