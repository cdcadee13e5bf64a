//! mobile_use: an Android device or emulator over ADB.

use cc_rigs::android::{AndroidAction, AndroidOptions, AndroidRig};
use cc_rigs::pool::Acquire;
use cc_rigs::{RigError, SurfaceKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::device::{device_error, long, max_chars, name_of, result, DeviceUseOut, CLASSES, HINTS};
use super::{missing, refuse_stray, rig_error};
use crate::mcp::tool::{Ctx, Decl, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "mobile_use",
    title: "Use an Android device",
    description: "Drive Android over ADB: check_in (devices, properties, screen size), screenshot, tap / swipe / long_press (points of the latest screenshot), type (ASCII), key events, install (an APK path) / start / stop / reset (clear data) / uninstall apps, open_url (deep links), ui_dump (the UI hierarchy with element bounds), and device commands in `argv` form (each element one argument). The device is the one named by `serial` (or ANDROID_SERIAL), else an emulator the rig boots with the Android SDK; the conversation's later calls reuse it, until the session ends (unless `keep`). Screenshots come back as one PNG scaled to fit 1366x768 with the scale; device text comes back fenced as untrusted data.",
    set: ToolSet::Rigs,
    scope: Scope::Required,
    classes: CLASSES,
    approval: false,
    modes: Modes::Chat,
    hints: HINTS,
};

/// What mobile_use does.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MobileActionName {
    CheckIn,
    Screenshot,
    Tap,
    Swipe,
    LongPress,
    Type,
    Key,
    Install,
    Start,
    Stop,
    Reset,
    Uninstall,
    OpenUrl,
    UiDump,
    Command,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MobileUseArgs {
    /// The action: check_in (devices, properties, screen size), screenshot, tap (x, y),
    /// swipe (x, y, to_x, to_y, duration_ms), long_press (x, y, duration_ms), type (text:
    /// printable ASCII, newline, tab), key (key: HOME, BACK, ENTER, … or a key code),
    /// install (path of an APK on the server's machine), start (package, activity?), stop
    /// (package), reset (package: clears its data), uninstall (package), open_url (url,
    /// package?), ui_dump (the UI hierarchy with bounds), command (argv: run on the device,
    /// each element one argument).
    pub action: MobileActionName,
    /// The device's ADB serial (`adb devices`), when this call checks in with a device;
    /// without it: the conversation's device rig, else ANDROID_SERIAL, else an emulator
    /// the rig boots (Android SDK).
    #[schemars(length(min = 1, max = 200))]
    pub serial: Option<String>,
    /// A rig of this workspace to use (see rig_list), e.g. after reconnecting.
    #[schemars(length(min = 1, max = 100))]
    pub rig_id: Option<String>,
    /// Keep the rig when this MCP session ends, for a later session to take over with
    /// rig_id (rig_close or the idle timeout still close it); false undoes an earlier keep.
    /// Default: the rig closes when the session that controls it ends.
    pub keep: Option<bool>,
    /// tap, swipe, long_press: a point of the latest screenshot, in its (scaled) pixels.
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub x: Option<f64>,
    /// tap, swipe, long_press: the point's vertical coordinate, with x.
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub y: Option<f64>,
    /// swipe: where it ends, in the latest screenshot's pixels.
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub to_x: Option<f64>,
    /// swipe: where it ends, vertically (with to_x).
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub to_y: Option<f64>,
    /// swipe (default 300), long_press (default 1000): milliseconds.
    #[schemars(range(min = 1, max = 60000))]
    pub duration_ms: Option<u32>,
    /// type: the text.
    #[schemars(length(max = 10000))]
    pub text: Option<String>,
    /// key: a key name (HOME, BACK, ENTER, DEL, VOLUME_UP, KEYCODE_TAB) or number.
    #[schemars(length(min = 1, max = 64))]
    pub key: Option<String>,
    /// install: the APK's path on the machine cc-server runs on.
    #[schemars(length(min = 1, max = 4096))]
    pub path: Option<String>,
    /// start, stop, reset, uninstall, open_url (optional): the app's package name.
    #[schemars(length(min = 1, max = 255))]
    pub package: Option<String>,
    /// start: an activity of the package (.MainActivity, com.x.MainActivity).
    #[schemars(length(min = 1, max = 512))]
    pub activity: Option<String>,
    /// open_url: a URL or deep link (https://…, myapp://…).
    #[schemars(length(min = 1, max = 8192))]
    pub url: Option<String>,
    /// command: the program and its arguments; each element arrives as one argument.
    #[schemars(length(min = 1, max = 1000))]
    pub argv: Option<Vec<String>>,
    /// ui_dump, command: at most this many characters of text (default 20000).
    #[schemars(range(min = 1, max = 1000000))]
    pub max_chars: Option<u32>,
}

/// The typed Android action a call asks for; every missing argument is named.
fn android_action(a: &MobileUseArgs) -> Result<AndroidAction, ToolError> {
    use MobileActionName as N;
    let name = name_of(a.action);
    let name = name.as_str();
    let x = || a.x.ok_or_else(|| missing("x", name));
    let y = || a.y.ok_or_else(|| missing("y", name));
    let package = || a.package.clone().ok_or_else(|| missing("package", name));
    let action = match a.action {
        N::CheckIn => AndroidAction::CheckIn,
        N::Screenshot => AndroidAction::Screenshot,
        N::Tap => AndroidAction::Tap { x: x()?, y: y()? },
        N::Swipe => AndroidAction::Swipe {
            x: x()?,
            y: y()?,
            to_x: a.to_x.ok_or_else(|| missing("to_x", name))?,
            to_y: a.to_y.ok_or_else(|| missing("to_y", name))?,
            duration_ms: a.duration_ms,
        },
        N::LongPress => AndroidAction::LongPress { x: x()?, y: y()?, duration_ms: a.duration_ms },
        N::Type => AndroidAction::Type { text: a.text.clone().ok_or_else(|| missing("text", name))? },
        N::Key => AndroidAction::Key { key: a.key.clone().ok_or_else(|| missing("key", name))? },
        N::Install => AndroidAction::Install { path: a.path.clone().ok_or_else(|| missing("path", name))? },
        N::Start => AndroidAction::Start { package: package()?, activity: a.activity.clone() },
        N::Stop => AndroidAction::Stop { package: package()? },
        N::Reset => AndroidAction::Reset { package: package()? },
        N::Uninstall => AndroidAction::Uninstall { package: package()? },
        N::OpenUrl => AndroidAction::OpenUrl {
            url: a.url.clone().ok_or_else(|| missing("url", name))?,
            package: a.package.clone(),
        },
        N::UiDump => AndroidAction::UiDump { max_chars: max_chars(a.max_chars) },
        N::Command => AndroidAction::Command {
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
        ("key", a.key.is_some()),
        ("path", a.path.is_some()),
        ("package", a.package.is_some()),
        ("activity", a.activity.is_some()),
        ("url", a.url.is_some()),
        ("argv", a.argv.is_some()),
        ("max_chars", a.max_chars.is_some()),
    ];
    let takes = serde_json::to_value(&action).unwrap_or_default();
    refuse_stray(name, &given, |f| takes.get(f).is_some())?;
    Ok(action)
}

pub async fn mobile_use(ctx: Ctx<String>, a: MobileUseArgs) -> Result<DeviceUseOut, ToolError> {
    let ws = ctx.workspace.clone();
    let action = android_action(&a)?;
    let slow =
        matches!(action, AndroidAction::Install { .. } | AndroidAction::UiDump { .. } | AndroidAction::Command { .. });
    let pool = ctx.services.rigs.pool().map_err(rig_error)?;
    let want = Acquire {
        workspace: ws,
        conversation: ctx.conversation.id.clone(),
        surface: SurfaceKind::Android,
        engine: a.serial.clone(),
        default_engine: String::new(),
        rig_id: a.rig_id.clone(),
    };
    let lease = pool
        .acquire(want, |engine| {
            let serial = (!engine.is_empty()).then_some(engine);
            AndroidRig::connect_boxed(AndroidOptions::from_env(serial))
        })
        .await
        .map_err(device_error)?;
    if let Some(keep) = a.keep {
        lease.keep(keep);
    }
    let out = pool
        .run_for(&lease, long(slow, pool.config().action_timeout), move |rig| async move {
            let d = cc_rigs::downcast::<AndroidRig>(rig)
                .ok_or_else(|| RigError::invalid("rig_id", "that rig is not an Android rig"))?;
            d.act(action).await
        })
        .await
        .map_err(device_error)?;
    Ok(result(&ctx, &lease, a.rig_id.is_some(), out))
}
