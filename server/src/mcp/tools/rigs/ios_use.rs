//! ios_use: the iOS simulator over WebDriverAgent and CoreSimulator.

use cc_rigs::ios::{Button, IosAction, IosOptions, IosRig};
use cc_rigs::pool::Acquire;
use cc_rigs::{RigError, SurfaceKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::device::{long, max_chars, name_of, result, DeviceUseOut, CLASSES, HINTS};
use super::{missing, refuse_stray, rig_error};
use crate::mcp::tool::{Ctx, Decl, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "ios_use",
    title: "Use the iOS simulator",
    description: "Drive the iOS simulator via WebDriverAgent/CoreSimulator: check_in (status, screen), screenshot, source (the accessibility tree), tap / swipe (points of the latest screenshot), type, press_button (home, volume), launch / activate / terminate apps by bundle id, open_url (deep links), clipboard read / write, and through Xcode's `xcrun simctl` install / uninstall / erase and simulator processes in `argv` form. One WebDriverAgent session per rig, reused by the conversation's later calls until the session ends (unless `keep`). Screenshots come back as one PNG scaled to fit 1366x768 with the scale; device text comes back fenced as untrusted data.",
    set: ToolSet::Rigs,
    scope: Scope::Required,
    classes: CLASSES,
    approval: false,
    modes: Modes::Chat,
    hints: HINTS,
};

/// What ios_use does.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum IosActionName {
    CheckIn,
    Screenshot,
    Source,
    Tap,
    Swipe,
    Type,
    PressButton,
    Launch,
    Activate,
    Terminate,
    OpenUrl,
    Clipboard,
    Install,
    Uninstall,
    Erase,
    Command,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ButtonName {
    Home,
    VolumeUp,
    VolumeDown,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ClipboardOp {
    Read,
    Write,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IosUseArgs {
    /// The action: check_in (WebDriverAgent status, screen), screenshot, source (the
    /// accessibility tree, XML), tap (x, y), swipe (x, y, to_x, to_y, duration_ms), type
    /// (text, any Unicode), press_button (button: home | volume_up | volume_down), launch /
    /// activate / terminate (bundle_id), open_url (url), clipboard (op: read | write with
    /// text), install (path of a simulator .app on the server's machine), uninstall
    /// (bundle_id), erase (the simulator's contents), command (argv: a process in the
    /// simulator). install, uninstall, erase and command need Xcode's `xcrun simctl`.
    pub action: IosActionName,
    /// A rig of this workspace to use (see rig_list), e.g. after reconnecting.
    #[schemars(length(min = 1, max = 100))]
    pub rig_id: Option<String>,
    /// Keep the rig when this MCP session ends, for a later session to take over with
    /// rig_id (rig_close or the idle timeout still close it); false undoes an earlier keep.
    /// Default: the rig closes when the session that controls it ends.
    pub keep: Option<bool>,
    /// tap, swipe: a point of the latest screenshot, in its (scaled) pixels.
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub x: Option<f64>,
    /// tap, swipe: the point's vertical coordinate, with x.
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub y: Option<f64>,
    /// swipe: where it ends, horizontally (with to_y).
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub to_x: Option<f64>,
    /// swipe: where it ends, vertically (with to_x).
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub to_y: Option<f64>,
    /// swipe: milliseconds (default 300).
    #[schemars(range(min = 1, max = 60000))]
    pub duration_ms: Option<u32>,
    /// type, clipboard write: the text.
    #[schemars(length(max = 100000))]
    pub text: Option<String>,
    /// press_button: the button.
    pub button: Option<ButtonName>,
    /// launch, activate, terminate, uninstall: the app's bundle id.
    #[schemars(length(min = 1, max = 255))]
    pub bundle_id: Option<String>,
    /// open_url: a URL or deep link.
    #[schemars(length(min = 1, max = 8192))]
    pub url: Option<String>,
    /// clipboard: read | write.
    pub op: Option<ClipboardOp>,
    /// install: the app's path on the machine cc-server runs on.
    #[schemars(length(min = 1, max = 4096))]
    pub path: Option<String>,
    /// command: the program and its arguments; each element arrives as one argument.
    #[schemars(length(min = 1, max = 1000))]
    pub argv: Option<Vec<String>>,
    /// source, clipboard read, command: at most this many characters (default 20000).
    #[schemars(range(min = 1, max = 1000000))]
    pub max_chars: Option<u32>,
}

/// The typed iOS action a call asks for; every missing argument is named.
fn ios_action(a: &IosUseArgs) -> Result<IosAction, ToolError> {
    use IosActionName as N;
    let name = name_of(a.action);
    let name = name.as_str();
    let x = || a.x.ok_or_else(|| missing("x", name));
    let y = || a.y.ok_or_else(|| missing("y", name));
    let bundle = || a.bundle_id.clone().ok_or_else(|| missing("bundle_id", name));
    let action = match a.action {
        N::CheckIn => IosAction::CheckIn,
        N::Screenshot => IosAction::Screenshot,
        N::Source => IosAction::Source { max_chars: max_chars(a.max_chars) },
        N::Tap => IosAction::Tap { x: x()?, y: y()? },
        N::Swipe => IosAction::Swipe {
            x: x()?,
            y: y()?,
            to_x: a.to_x.ok_or_else(|| missing("to_x", name))?,
            to_y: a.to_y.ok_or_else(|| missing("to_y", name))?,
            duration_ms: a.duration_ms,
        },
        N::Type => IosAction::Type { text: a.text.clone().ok_or_else(|| missing("text", name))? },
        N::PressButton => IosAction::PressButton {
            button: match a.button.ok_or_else(|| missing("button", name))? {
                ButtonName::Home => Button::Home,
                ButtonName::VolumeUp => Button::VolumeUp,
                ButtonName::VolumeDown => Button::VolumeDown,
            },
        },
        N::Launch => IosAction::Launch { bundle_id: bundle()? },
        N::Activate => IosAction::Activate { bundle_id: bundle()? },
        N::Terminate => IosAction::Terminate { bundle_id: bundle()? },
        N::OpenUrl => IosAction::OpenUrl { url: a.url.clone().ok_or_else(|| missing("url", name))? },
        N::Clipboard => match a.op.ok_or_else(|| missing("op", name))? {
            ClipboardOp::Read => IosAction::ClipboardRead { max_chars: max_chars(a.max_chars) },
            ClipboardOp::Write => {
                IosAction::ClipboardWrite { text: a.text.clone().ok_or_else(|| missing("text", "clipboard write"))? }
            }
        },
        N::Install => IosAction::Install { path: a.path.clone().ok_or_else(|| missing("path", name))? },
        N::Uninstall => IosAction::Uninstall { bundle_id: bundle()? },
        N::Erase => IosAction::Erase,
        N::Command => IosAction::Command {
            argv: a.argv.clone().ok_or_else(|| missing("argv", name))?,
            max_chars: max_chars(a.max_chars),
        },
    };
    let given = [
        ("x", a.x.is_some()),
        ("y", a.y.is_some()),
        ("to_x", a.to_x.is_some()),
        ("to_y", a.to_y.is_some()),
        ("duration_ms", a.duration_ms.is_some()),
        ("text", a.text.is_some()),
        ("button", a.button.is_some()),
        ("bundle_id", a.bundle_id.is_some()),
        ("url", a.url.is_some()),
        ("op", a.op.is_some()),
        ("path", a.path.is_some()),
        ("argv", a.argv.is_some()),
        ("max_chars", a.max_chars.is_some()),
    ];
    // The typed form carries every argument it took, but clipboard's `op` (read / write).
    let takes = serde_json::to_value(&action).unwrap_or_default();
    refuse_stray(name, &given, |f| takes.get(f).is_some() || (f == "op" && a.action == N::Clipboard))?;
    Ok(action)
}

pub async fn ios_use(ctx: Ctx<String>, a: IosUseArgs) -> Result<DeviceUseOut, ToolError> {
    let ws = ctx.workspace.clone();
    let action = ios_action(&a)?;
    let slow = matches!(action, IosAction::Install { .. } | IosAction::Erase | IosAction::Command { .. });
    let pool = ctx.services.rigs.pool().map_err(rig_error)?;
    let want = Acquire {
        workspace: ws,
        conversation: ctx.conversation.id.clone(),
        surface: SurfaceKind::Ios,
        engine: None,
        default_engine: String::new(),
        rig_id: a.rig_id.clone(),
    };
    let lease = pool.acquire(want, |_| IosRig::connect_boxed(IosOptions::from_env())).await.map_err(rig_error)?;
    if let Some(keep) = a.keep {
        lease.keep(keep);
    }
    let out = pool
        .run_for(&lease, long(slow, pool.config().action_timeout), move |rig| async move {
            let d = cc_rigs::downcast::<IosRig>(rig)
                .ok_or_else(|| RigError::invalid("rig_id", "that rig is not an iOS rig"))?;
            d.act(action).await
        })
        .await
        .map_err(rig_error)?;
    Ok(result(&ctx, &lease, a.rig_id.is_some(), out))
}
