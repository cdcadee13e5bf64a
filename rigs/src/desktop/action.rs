//! `DesktopAction`: the computer_use vocabulary as one typed enum (serde + JSON Schema), and
//! its validation against the display.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::{DesktopError, Result};
use super::keys;

/// Most characters one `type` action may send. Typing runs at ~13 ms a character (50 per
/// xdotool call, 12 ms apart), so 5,000 take about a minute: within the pool's longest
/// action deadline (4x its action timeout, 120 s by default). Longer text goes through
/// `clipboard_write` and a paste.
pub const MAX_TYPE_CHARS: usize = 5_000;
/// Most bytes `clipboard_write` may put on the clipboard (it travels as one argv entry,
/// and Linux caps one at 128 KiB).
pub const MAX_CLIPBOARD_BYTES: usize = 100_000;
/// Longest `wait`, in seconds.
pub const MAX_WAIT_SECONDS: f64 = 60.0;
/// Display sizes `resize` accepts (inclusive).
pub const MIN_SIZE: (u32, u32) = (320, 240);
pub const MAX_SIZE: (u32, u32) = (3840, 2160);

/// One action on a desktop. JSON: `{"action": "click", "x": 10, "y": 20, "button": "right"}`.
/// Coordinates are real display pixels, origin top left (the result layer maps scaled
/// screenshot coordinates back with [`DesktopAction::map_coordinates`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum DesktopAction {
    /// A PNG of the whole display.
    Screenshot,
    /// Move the pointer to (x, y).
    Move { x: i64, y: i64 },
    /// Click `button` `clicks` times (2 = double, 3 = triple click), at (x, y) when given,
    /// else where the pointer is.
    Click {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i64>,
        #[serde(default)]
        button: MouseButton,
        /// 1 (default), 2 (double click) or 3 (triple click)
        #[serde(default = "one")]
        clicks: u8,
    },
    /// Press `button` at (x, y), move to (to_x, to_y), release.
    Drag {
        x: i64,
        y: i64,
        to_x: i64,
        to_y: i64,
        #[serde(default)]
        button: MouseButton,
    },
    /// Turn the wheel `amount` notches (default 3) towards `direction`, at (x, y) when given.
    Scroll {
        direction: ScrollDirection,
        #[serde(default = "three")]
        amount: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        x: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        y: Option<i64>,
    },
    /// Type text (any UTF-8; newlines press Return), in chunks of 50 characters.
    Type { text: String },
    /// Press key combinations, xdotool syntax: `ctrl+s`, `Return`, `ctrl+a BackSpace`
    /// (space-separated combinations are pressed one after the other).
    Key { keys: String },
    /// Where the pointer is.
    CursorPosition,
    /// Change the display size: the session restarts at the new size (open windows close;
    /// the terminal comes back).
    Resize { width: u32, height: u32 },
    /// The clipboard's text.
    ClipboardRead,
    /// Put text on the clipboard.
    ClipboardWrite { text: String },
    /// Do nothing for `seconds` (at most 60).
    Wait { seconds: f64 },
}

fn one() -> u8 {
    1
}
fn three() -> u32 {
    3
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MouseButton {
    #[default]
    Left,
    Middle,
    Right,
}

impl MouseButton {
    /// The X button number xdotool takes.
    pub fn x_button(self) -> &'static str {
        match self {
            MouseButton::Left => "1",
            MouseButton::Middle => "2",
            MouseButton::Right => "3",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScrollDirection {
    Up,
    Down,
    Left,
    Right,
}

impl ScrollDirection {
    /// The X button of one wheel notch (4 up, 5 down, 6 left, 7 right).
    pub fn x_button(self) -> &'static str {
        match self {
            ScrollDirection::Up => "4",
            ScrollDirection::Down => "5",
            ScrollDirection::Left => "6",
            ScrollDirection::Right => "7",
        }
    }
}

/// Every action name, in the order of the enum (for "unknown action" errors).
pub const ACTION_NAMES: &[&str] = &[
    "screenshot",
    "move",
    "click",
    "drag",
    "scroll",
    "type",
    "key",
    "cursor_position",
    "resize",
    "clipboard_read",
    "clipboard_write",
    "wait",
];

impl DesktopAction {
    /// Parses an action from JSON with errors that name the field: an unknown or missing
    /// `action`, a missing coordinate, an unknown field, a value of the wrong type.
    pub fn from_json(value: serde_json::Value) -> Result<Self> {
        let Some(obj) = value.as_object() else {
            return Err(DesktopError::bad("", "expected an object with an `action` field"));
        };
        match obj.get("action") {
            None => return Err(DesktopError::bad("/action", format!("missing; one of {}", ACTION_NAMES.join(", ")))),
            Some(serde_json::Value::String(a)) if !ACTION_NAMES.contains(&a.as_str()) => {
                return Err(DesktopError::bad(
                    "/action",
                    format!("unknown action `{a}`; one of {}", ACTION_NAMES.join(", ")),
                ))
            }
            Some(serde_json::Value::String(_)) => {}
            Some(other) => return Err(DesktopError::bad("/action", format!("expected a string, got {other}"))),
        }
        let given: Vec<String> = obj.keys().cloned().collect();
        let action: DesktopAction = serde_json::from_value(value).map_err(|e| {
            let msg = e.to_string();
            // serde names the field in backticks: "missing field `x`", "unknown field `z`, expected …"
            let field =
                msg.split('`').nth(1).filter(|_| msg.starts_with("missing field") || msg.starts_with("unknown field"));
            match field {
                Some(f) if msg.starts_with("missing field") => DesktopError::bad(&format!("/{f}"), "missing"),
                Some(f) => DesktopError::bad(&format!("/{f}"), msg.clone()),
                None => DesktopError::bad("", msg),
            }
        })?;
        // serde ignores extra fields of a unit variant (`screenshot`) even with
        // deny_unknown_fields: every field given must be one the action serialises back.
        let known = serde_json::to_value(&action).unwrap_or_default();
        if let Some(extra) = given.iter().find(|k| known.get(k.as_str()).is_none()) {
            return Err(DesktopError::bad(
                &format!("/{extra}"),
                format!("action `{}` takes no `{extra}`", action.name()),
            ));
        }
        Ok(action)
    }

    /// The action's name (`"click"`).
    pub fn name(&self) -> &'static str {
        match self {
            DesktopAction::Screenshot => "screenshot",
            DesktopAction::Move { .. } => "move",
            DesktopAction::Click { .. } => "click",
            DesktopAction::Drag { .. } => "drag",
            DesktopAction::Scroll { .. } => "scroll",
            DesktopAction::Type { .. } => "type",
            DesktopAction::Key { .. } => "key",
            DesktopAction::CursorPosition => "cursor_position",
            DesktopAction::Resize { .. } => "resize",
            DesktopAction::ClipboardRead => "clipboard_read",
            DesktopAction::ClipboardWrite { .. } => "clipboard_write",
            DesktopAction::Wait { .. } => "wait",
        }
    }

    /// Applies `f` to every (x, y) point of the action (the result layer maps coordinates
    /// of a scaled screenshot back to display pixels with it). `resize` sizes are not points.
    pub fn map_coordinates(&mut self, mut f: impl FnMut(i64, i64) -> (i64, i64)) {
        match self {
            DesktopAction::Move { x, y } => (*x, *y) = f(*x, *y),
            DesktopAction::Drag { x, y, to_x, to_y, .. } => {
                (*x, *y) = f(*x, *y);
                (*to_x, *to_y) = f(*to_x, *to_y);
            }
            DesktopAction::Click { x: Some(x), y: Some(y), .. }
            | DesktopAction::Scroll { x: Some(x), y: Some(y), .. } => (*x, *y) = f(*x, *y),
            _ => {}
        }
    }

    /// Checks the action against a display of `width` x `height`: coordinates on screen,
    /// counts and sizes in range, key names known.
    pub fn validate(&self, width: u32, height: u32) -> Result<()> {
        let point = |px: &str, x: i64, py: &str, y: i64| -> Result<()> {
            if x < 0 || x >= i64::from(width) {
                return Err(DesktopError::bad(
                    px,
                    format!("{x} is off screen (the display is {width}x{height}: x in 0..={})", width - 1),
                ));
            }
            if y < 0 || y >= i64::from(height) {
                return Err(DesktopError::bad(
                    py,
                    format!("{y} is off screen (the display is {width}x{height}: y in 0..={})", height - 1),
                ));
            }
            Ok(())
        };
        let optional_point = |x: Option<i64>, y: Option<i64>| -> Result<()> {
            match (x, y) {
                (Some(x), Some(y)) => point("/x", x, "/y", y),
                (None, None) => Ok(()),
                (Some(_), None) => Err(DesktopError::bad("/y", "missing (give both x and y, or neither)")),
                (None, Some(_)) => Err(DesktopError::bad("/x", "missing (give both x and y, or neither)")),
            }
        };
        match self {
            DesktopAction::Screenshot | DesktopAction::CursorPosition | DesktopAction::ClipboardRead => Ok(()),
            DesktopAction::Move { x, y } => point("/x", *x, "/y", *y),
            DesktopAction::Click { x, y, clicks, .. } => {
                if !(1..=3).contains(clicks) {
                    return Err(DesktopError::bad(
                        "/clicks",
                        format!("{clicks}: expected 1, 2 (double) or 3 (triple)"),
                    ));
                }
                optional_point(*x, *y)
            }
            DesktopAction::Drag { x, y, to_x, to_y, .. } => {
                point("/x", *x, "/y", *y)?;
                point("/to_x", *to_x, "/to_y", *to_y)
            }
            DesktopAction::Scroll { amount, x, y, .. } => {
                if !(1..=100).contains(amount) {
                    return Err(DesktopError::bad("/amount", format!("{amount}: expected 1..=100 notches")));
                }
                optional_point(*x, *y)
            }
            DesktopAction::Type { text } => {
                let n = text.chars().count();
                if n == 0 {
                    return Err(DesktopError::bad("/text", "empty"));
                }
                if n > MAX_TYPE_CHARS {
                    return Err(DesktopError::bad(
                        "/text",
                        format!(
                            "{n} characters; type takes at most {MAX_TYPE_CHARS} per call (split it, or \
                             clipboard_write it and paste with a key combination)"
                        ),
                    ));
                }
                if let Some(c) = text.chars().find(|c| c.is_control() && *c != '\n' && *c != '\t') {
                    return Err(DesktopError::bad(
                        "/text",
                        format!(
                            "contains the control character U+{:04X} (only newline and tab can be typed)",
                            c as u32
                        ),
                    ));
                }
                Ok(())
            }
            DesktopAction::Key { keys } => keys::parse(keys).map(|_| ()),
            DesktopAction::Resize { width: w, height: h } => {
                if *w < MIN_SIZE.0 || *w > MAX_SIZE.0 {
                    return Err(DesktopError::bad("/width", format!("{w}: expected {}..={}", MIN_SIZE.0, MAX_SIZE.0)));
                }
                if *h < MIN_SIZE.1 || *h > MAX_SIZE.1 {
                    return Err(DesktopError::bad("/height", format!("{h}: expected {}..={}", MIN_SIZE.1, MAX_SIZE.1)));
                }
                Ok(())
            }
            DesktopAction::ClipboardWrite { text } => {
                if text.len() > MAX_CLIPBOARD_BYTES {
                    return Err(DesktopError::bad(
                        "/text",
                        format!("{} bytes; at most {MAX_CLIPBOARD_BYTES}", text.len()),
                    ));
                }
                if text.contains('\0') {
                    return Err(DesktopError::bad("/text", "contains a NUL character"));
                }
                Ok(())
            }
            DesktopAction::Wait { seconds } => {
                if !seconds.is_finite() || *seconds < 0.0 || *seconds > MAX_WAIT_SECONDS {
                    return Err(DesktopError::bad("/seconds", format!("{seconds}: expected 0..={MAX_WAIT_SECONDS}")));
                }
                Ok(())
            }
        }
    }
}

/// Does typing `c` need a keycode bound to it? (Not for printable ASCII, newline and tab,
/// which the default map has.)
pub(crate) fn needs_keycode(c: char) -> bool {
    !(c == '\n' || c == '\t' || (' '..='~').contains(&c))
}

/// Splits text into chunks of at most `n` characters that each hold at most `spare`
/// distinct characters needing a keycode (all of them fit in the map at once). With no
/// spare keycodes at all, only the `n` limit applies.
pub(crate) fn chunks_for_keymap(text: &str, n: usize, spare: usize) -> Vec<&str> {
    if spare == 0 {
        return chunks(text, n);
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut count = 0;
    let mut distinct: Vec<char> = Vec::new();
    for (i, c) in text.char_indices() {
        let new_special = needs_keycode(c) && !distinct.contains(&c);
        if count == n || (new_special && distinct.len() == spare) {
            out.push(&text[start..i]);
            start = i;
            count = 0;
            distinct.clear();
        }
        if needs_keycode(c) && !distinct.contains(&c) {
            distinct.push(c);
        }
        count += 1;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Splits text into chunks of at most `n` characters (never inside a character).
pub(crate) fn chunks(text: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut count = 0;
    for (i, _) in text.char_indices() {
        if count == n {
            out.push(&text[start..i]);
            start = i;
            count = 0;
        }
        count += 1;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: serde_json::Value) -> String {
        match DesktopAction::from_json(v) {
            Err(e) => e.to_string(),
            Ok(a) => match a.validate(1024, 768) {
                Err(e) => e.to_string(),
                Ok(()) => panic!("accepted: {a:?}"),
            },
        }
    }

    #[test]
    fn parses_every_action() {
        let cases = [
            json!({"action": "screenshot"}),
            json!({"action": "move", "x": 1, "y": 2}),
            json!({"action": "click"}),
            json!({"action": "click", "x": 5, "y": 6, "button": "right", "clicks": 2}),
            json!({"action": "drag", "x": 1, "y": 2, "to_x": 3, "to_y": 4}),
            json!({"action": "scroll", "direction": "down"}),
            json!({"action": "type", "text": "héllo ✓"}),
            json!({"action": "key", "keys": "ctrl+shift+t Return"}),
            json!({"action": "cursor_position"}),
            json!({"action": "resize", "width": 800, "height": 600}),
            json!({"action": "clipboard_read"}),
            json!({"action": "clipboard_write", "text": "x"}),
            json!({"action": "wait", "seconds": 0.5}),
        ];
        assert_eq!(cases.len(), ACTION_NAMES.len() + 1);
        for c in cases {
            let a = DesktopAction::from_json(c.clone()).unwrap_or_else(|e| panic!("{c}: {e}"));
            a.validate(1024, 768).unwrap_or_else(|e| panic!("{c}: {e}"));
            assert_eq!(Some(a.name()), c["action"].as_str());
            // round trip
            assert_eq!(DesktopAction::from_json(serde_json::to_value(&a).unwrap()).unwrap(), a);
        }
    }

    #[test]
    fn bad_input_names_the_field() {
        assert_eq!(
            err(json!({"action": "fly"})),
            "/action: unknown action `fly`; one of screenshot, move, click, drag, scroll, type, key, \
             cursor_position, resize, clipboard_read, clipboard_write, wait"
        );
        assert!(err(json!({"x": 1})).starts_with("/action: missing"));
        assert_eq!(err(json!({"action": "move", "x": 1})), "/y: missing");
        assert_eq!(err(json!({"action": "click", "x": 1})), "/y: missing (give both x and y, or neither)");
        assert!(err(json!({"action": "move", "x": 1, "y": 2, "z": 3})).starts_with("/z: unknown field"));
        assert_eq!(err(json!({"action": "screenshot", "x": 3})), "/x: action `screenshot` takes no `x`");
        assert!(
            err(json!({"action": "type", "text": "a".repeat(MAX_TYPE_CHARS + 1)})).contains("at most 5000 per call")
        );
        assert_eq!(
            err(json!({"action": "cursor_position", "text": "a"})),
            "/text: action `cursor_position` takes no `text`"
        );
        assert_eq!(
            err(json!({"action": "move", "x": 1024, "y": 0})),
            "/x: 1024 is off screen (the display is 1024x768: x in 0..=1023)"
        );
        assert_eq!(
            err(json!({"action": "drag", "x": 0, "y": 0, "to_x": 5, "to_y": -1})),
            "/to_y: -1 is off screen (the display is 1024x768: y in 0..=767)"
        );
        assert_eq!(err(json!({"action": "click", "clicks": 4})), "/clicks: 4: expected 1, 2 (double) or 3 (triple)");
        assert_eq!(
            err(json!({"action": "scroll", "direction": "down", "amount": 0})),
            "/amount: 0: expected 1..=100 notches"
        );
        assert!(err(json!({"action": "scroll", "direction": "sideways"})).contains("unknown variant `sideways`"));
        assert_eq!(err(json!({"action": "resize", "width": 100, "height": 600})), "/width: 100: expected 320..=3840");
        assert_eq!(err(json!({"action": "wait", "seconds": 61})), "/seconds: 61: expected 0..=60");
        assert_eq!(err(json!({"action": "type", "text": ""})), "/text: empty");
        assert!(err(json!({"action": "key", "keys": "ctrl+Retrun"})).starts_with("/keys: unknown key `Retrun`"));
        assert!(err(json!({"action": "move", "x": "1", "y": 2})).contains("invalid type"));
    }

    #[test]
    fn maps_every_point() {
        let mut a = DesktopAction::Drag { x: 1, y: 2, to_x: 3, to_y: 4, button: MouseButton::Left };
        a.map_coordinates(|x, y| (x * 10, y * 10));
        assert_eq!(a, DesktopAction::Drag { x: 10, y: 20, to_x: 30, to_y: 40, button: MouseButton::Left });
        let mut c = DesktopAction::Click { x: Some(1), y: Some(1), button: MouseButton::Left, clicks: 1 };
        c.map_coordinates(|x, y| (x + 1, y + 2));
        assert_eq!(c, DesktopAction::Click { x: Some(2), y: Some(3), button: MouseButton::Left, clicks: 1 });
    }

    #[test]
    fn chunks_by_character() {
        assert_eq!(chunks("abcdé✓", 2), vec!["ab", "cd", "é✓"]);
        assert_eq!(chunks("abc", 50), vec!["abc"]);
        assert!(chunks("", 50).is_empty());
        // at most 2 distinct characters needing a keycode per chunk
        assert_eq!(chunks_for_keymap("aébéc✓dée日", 50, 2), vec!["aébéc✓dée", "日"]);
        assert_eq!(chunks_for_keymap("é✓日é", 50, 2), vec!["é✓", "日é"]);
        assert_eq!(chunks_for_keymap("abcdef", 4, 2), vec!["abcd", "ef"]);
        assert_eq!(chunks_for_keymap("éé", 50, 0), vec!["éé"]);
    }

    #[test]
    fn schema_is_tagged_by_action() {
        let schema = serde_json::to_value(schemars::schema_for!(DesktopAction)).unwrap();
        let text = schema.to_string();
        for name in ACTION_NAMES {
            assert!(text.contains(&format!("\"const\":\"{name}\"")), "{name} missing from {text}");
        }
    }
}
