//! Key combinations in xdotool syntax (`ctrl+shift+t`, `Return`), checked against the X
//! keysym names an agent uses, with friendly aliases (`enter`, `esc`, `cmd`) mapped to them.

use super::error::{DesktopError, Result};

/// Keysym names accepted as written (matched case-insensitively, sent in this spelling).
/// Letters and digits are accepted as single characters besides these.
const NAMES: &[&str] = &[
    // modifiers
    "Shift_L",
    "Shift_R",
    "Control_L",
    "Control_R",
    "Alt_L",
    "Alt_R",
    "Meta_L",
    "Meta_R",
    "Super_L",
    "Super_R",
    "Hyper_L",
    "Hyper_R",
    "Caps_Lock",
    "Num_Lock",
    "Scroll_Lock",
    "ISO_Level3_Shift",
    // editing and motion
    "Return",
    "Tab",
    "ISO_Left_Tab",
    "BackSpace",
    "Delete",
    "Escape",
    "Insert",
    "Home",
    "End",
    "Page_Up",
    "Page_Down",
    "Prior",
    "Next",
    "Left",
    "Right",
    "Up",
    "Down",
    "Begin",
    "space",
    "Menu",
    "Print",
    "Pause",
    "Break",
    "Sys_Req",
    "Linefeed",
    "Clear",
    "Undo",
    "Redo",
    "Find",
    "Cancel",
    "Help",
    // punctuation keysyms
    "exclam",
    "quotedbl",
    "numbersign",
    "dollar",
    "percent",
    "ampersand",
    "apostrophe",
    "parenleft",
    "parenright",
    "asterisk",
    "plus",
    "comma",
    "minus",
    "period",
    "slash",
    "colon",
    "semicolon",
    "less",
    "equal",
    "greater",
    "question",
    "at",
    "bracketleft",
    "backslash",
    "bracketright",
    "asciicircum",
    "underscore",
    "grave",
    "braceleft",
    "bar",
    "braceright",
    "asciitilde",
    // keypad
    "KP_Enter",
    "KP_Add",
    "KP_Subtract",
    "KP_Multiply",
    "KP_Divide",
    "KP_Decimal",
    "KP_Separator",
    "KP_Equal",
    "KP_Home",
    "KP_End",
    "KP_Left",
    "KP_Right",
    "KP_Up",
    "KP_Down",
    "KP_Page_Up",
    "KP_Page_Down",
    "KP_Insert",
    "KP_Delete",
    "KP_Begin",
    "KP_Space",
    "KP_Tab",
    // media and browser keys
    "XF86AudioMute",
    "XF86AudioLowerVolume",
    "XF86AudioRaiseVolume",
    "XF86AudioPlay",
    "XF86AudioPause",
    "XF86AudioStop",
    "XF86AudioNext",
    "XF86AudioPrev",
    "XF86Back",
    "XF86Forward",
    "XF86Refresh",
    "XF86HomePage",
    "XF86Search",
    "XF86Copy",
    "XF86Cut",
    "XF86Paste",
    "XF86Calculator",
    "XF86Mail",
    "XF86MonBrightnessUp",
    "XF86MonBrightnessDown",
];

/// Friendly names (lowercase) and what xdotool is sent for them.
const ALIASES: &[(&str, &str)] = &[
    ("ctrl", "ctrl"),
    ("control", "ctrl"),
    ("alt", "alt"),
    ("option", "alt"),
    ("shift", "shift"),
    ("super", "super"),
    ("win", "super"),
    ("windows", "super"),
    ("cmd", "super"),
    ("command", "super"),
    ("meta", "meta"),
    ("enter", "Return"),
    ("esc", "Escape"),
    ("del", "Delete"),
    ("ins", "Insert"),
    ("pageup", "Page_Up"),
    ("pgup", "Page_Up"),
    ("pagedown", "Page_Down"),
    ("pgdn", "Page_Down"),
    ("arrowleft", "Left"),
    ("arrowright", "Right"),
    ("arrowup", "Up"),
    ("arrowdown", "Down"),
    ("printscreen", "Print"),
    ("capslock", "Caps_Lock"),
];

/// Single punctuation characters and their keysym names.
const PUNCTUATION: &[(char, &str)] = &[
    ('!', "exclam"),
    ('"', "quotedbl"),
    ('#', "numbersign"),
    ('$', "dollar"),
    ('%', "percent"),
    ('&', "ampersand"),
    ('\'', "apostrophe"),
    ('(', "parenleft"),
    (')', "parenright"),
    ('*', "asterisk"),
    (',', "comma"),
    ('-', "minus"),
    ('.', "period"),
    ('/', "slash"),
    (':', "colon"),
    (';', "semicolon"),
    ('<', "less"),
    ('=', "equal"),
    ('>', "greater"),
    ('?', "question"),
    ('@', "at"),
    ('[', "bracketleft"),
    ('\\', "backslash"),
    (']', "bracketright"),
    ('^', "asciicircum"),
    ('_', "underscore"),
    ('`', "grave"),
    ('{', "braceleft"),
    ('|', "bar"),
    ('}', "braceright"),
    ('~', "asciitilde"),
];

/// Most combinations one `key` action may press.
pub const MAX_COMBOS: usize = 50;

/// One key name in xdotool's spelling, or an error naming it.
fn key(name: &str) -> Option<String> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.clone().next()) {
        if c.is_ascii_alphanumeric() {
            return Some(c.to_string());
        }
        if let Some((_, n)) = PUNCTUATION.iter().find(|(p, _)| *p == c) {
            return Some((*n).to_string());
        }
        return None;
    }
    let lower = name.to_ascii_lowercase();
    if let Some((_, to)) = ALIASES.iter().find(|(a, _)| *a == lower) {
        return Some((*to).to_string());
    }
    if let Some(n) = NAMES.iter().find(|n| n.eq_ignore_ascii_case(name)) {
        return Some((*n).to_string());
    }
    // F1..F35, KP_0..KP_9
    if let Some(rest) = lower.strip_prefix('f') {
        if let Ok(n) = rest.parse::<u8>() {
            if (1..=35).contains(&n) && !rest.starts_with('0') {
                return Some(format!("F{n}"));
            }
        }
    }
    if let Some(rest) = lower.strip_prefix("kp_") {
        if rest.len() == 1 && rest.as_bytes()[0].is_ascii_digit() {
            return Some(format!("KP_{rest}"));
        }
    }
    None
}

/// Parses `keys` (whitespace-separated combinations of `+`-joined key names) into the
/// arguments of `xdotool key`, or says which name is unknown.
pub fn parse(keys: &str) -> Result<Vec<String>> {
    let combos: Vec<&str> = keys.split_whitespace().collect();
    if combos.is_empty() {
        return Err(DesktopError::bad("/keys", "empty; e.g. `Return`, `ctrl+s`, `ctrl+a BackSpace`"));
    }
    if combos.len() > MAX_COMBOS {
        return Err(DesktopError::bad("/keys", format!("{} combinations; at most {MAX_COMBOS}", combos.len())));
    }
    combos
        .into_iter()
        .map(|combo| {
            // `ctrl++` means ctrl and plus
            let parts: Vec<&str> = if let Some(head) = combo.strip_suffix("++") {
                head.split('+').chain(["plus"]).collect()
            } else if combo == "+" {
                vec!["plus"]
            } else {
                combo.split('+').collect()
            };
            let names = parts
                .iter()
                .map(|p| {
                    if p.is_empty() {
                        return Err(DesktopError::bad("/keys", format!("`{combo}`: an empty key name between `+`")));
                    }
                    key(p).ok_or_else(|| {
                        DesktopError::bad(
                            "/keys",
                            format!(
                                "unknown key `{p}` in `{combo}`; use X keysym names such as Return, Tab, \
                                 BackSpace, Escape, Delete, Home, Page_Up, Left, F5, space, or modifiers \
                                 ctrl, alt, shift, super"
                            ),
                        )
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(names.join("+"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn ok(keys: &str) -> Vec<String> {
        parse(keys).unwrap_or_else(|e| panic!("{keys}: {e}"))
    }

    #[test]
    fn accepts_xdotool_names_and_aliases() {
        assert_eq!(ok("ctrl+s"), ["ctrl+s"]);
        assert_eq!(ok("Return"), ["Return"]);
        assert_eq!(ok("return"), ["Return"]);
        assert_eq!(ok("Ctrl+Shift+T"), ["ctrl+shift+T"]);
        assert_eq!(ok("ctrl+a BackSpace"), ["ctrl+a", "BackSpace"]);
        assert_eq!(ok("Enter esc cmd+c"), ["Return", "Escape", "super+c"]);
        assert_eq!(ok("f5 F12 KP_7 kp_enter"), ["F5", "F12", "KP_7", "KP_Enter"]);
        assert_eq!(ok("ctrl+- ctrl++ +"), ["ctrl+minus", "ctrl+plus", "plus"]);
        assert_eq!(ok("page_down"), ["Page_Down"]);
    }

    #[test]
    fn refuses_unknown_names() {
        for bad in ["Retrun", "F0", "F36", "F05", "é", "ctrl+", "foo+a", "", "   "] {
            let e = parse(bad).expect_err(bad).to_string();
            assert!(e.starts_with("/keys: "), "{bad}: {e}");
        }
        assert!(parse("Retrun").unwrap_err().to_string().contains("unknown key `Retrun`"));
    }
}
