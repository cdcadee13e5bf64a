//! The device rig tools: mobile_use (an Android device or emulator over ADB) and ios_use
//! (an iOS simulator over WebDriverAgent), over the app's rig pool like browser_use: a
//! conversation's first call checks in with its device (its rig), later calls reuse it,
//! `rig_id` takes over any rig of the workspace; rig_list and rig_close see them.
//!
//! Where the devices are is the operator's: mobile_use talks to the ADB server of
//! `ANDROID_ADB_SERVER_PORT` (default 5037) and drives the device named by `serial` (or
//! `ANDROID_SERIAL`), else boots an emulator of the Android SDK (`ANDROID_HOME`); ios_use
//! talks to the WebDriverAgent at `CC_WDA_URL` (default http://127.0.0.1:8100) and runs
//! simctl on `CC_IOS_UDID` (default `booted`).

use std::time::Duration;

use cc_rigs::android::{AndroidAction, AndroidOptions, AndroidRig};
use cc_rigs::device::{DeviceInfo, DeviceOutput};
use cc_rigs::ios::{Button, IosAction, IosOptions, IosRig};
use cc_rigs::pool::{Acquire, Lease};
use cc_rigs::{RigError, SurfaceKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::rigs::{image_out, lease_notices, missing, refuse_stray, rig_error, ImageOut, ReplacedOut};
use crate::mcp::dispatch::{CallCtx, ToolError};
use crate::mcp::registry::{schema_of, ActionClass, Handler, Output, Registry, Scope, Spec};

/// The classes of both tools (spec: the `use` tools' three, and packageInstall).
const CLASSES: &[ActionClass] = &[
    ActionClass::EnclosureControl,
    ActionClass::NetworkEgress,
    ActionClass::ProcessSpawn,
    ActionClass::PackageInstall,
];

// ---------------------------------------------------------------- arguments

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
    /// tap, swipe, long_press: a point of the latest screenshot, in its (scaled) pixels.
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub x: Option<f64>,
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub y: Option<f64>,
    /// swipe: where it ends, in the latest screenshot's pixels.
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub to_x: Option<f64>,
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
    /// tap, swipe: a point of the latest screenshot, in its (scaled) pixels.
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub x: Option<f64>,
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub y: Option<f64>,
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub to_x: Option<f64>,
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

// ---------------------------------------------------------------- results

#[derive(Serialize, JsonSchema)]
pub struct PropertyOut {
    pub name: String,
    pub value: String,
}

#[derive(Serialize, JsonSchema)]
pub struct ListedDeviceOut {
    pub serial: String,
    /// device (usable), offline, unauthorized, …
    pub state: String,
}

#[derive(Serialize, JsonSchema)]
pub struct DeviceInfoOut {
    /// The ADB serial, or the simulator's UDID.
    pub id: String,
    pub model: String,
    pub os_version: String,
    /// The screen in real pixels.
    pub screen_width: u32,
    pub screen_height: u32,
    /// The scale of the screenshots returned (returned / real).
    pub screenshot_scale: f64,
    pub properties: Vec<PropertyOut>,
    /// mobile_use: every device the ADB server lists.
    pub devices: Vec<ListedDeviceOut>,
}

#[derive(Serialize, JsonSchema)]
pub struct DeviceUseOut {
    pub rig_id: String,
    /// The device: its ADB serial, or the WebDriverAgent address.
    pub device: String,
    /// This call started (checked in with) the rig.
    pub created: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<ReplacedOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    pub summary: String,
    /// Text from the device (UI dump, page source, command output, clipboard), fenced as
    /// untrusted data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<DeviceInfoOut>,
    /// command: the exit status, when the device reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

fn info_out(i: DeviceInfo) -> DeviceInfoOut {
    DeviceInfoOut {
        id: i.id,
        model: i.model,
        os_version: i.os_version,
        screen_width: i.screen_width,
        screen_height: i.screen_height,
        screenshot_scale: i.screenshot_scale,
        properties: i.properties.into_iter().map(|(name, value)| PropertyOut { name, value }).collect(),
        devices: i.devices.into_iter().map(|(serial, state)| ListedDeviceOut { serial, state }).collect(),
    }
}

// ---------------------------------------------------------------- parsing

fn name_of<T: Serialize>(v: T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn max_chars(m: Option<u32>) -> Option<usize> {
    m.map(|m| m as usize)
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

/// The pool names the engine; these tools call it `serial`.
fn device_error(e: RigError) -> ToolError {
    match e {
        RigError::Invalid { field: "engine", message } => rig_error(RigError::Invalid {
            field: "serial",
            message: message.replace("engine or rig_id", "serial or rig_id"),
        }),
        e => rig_error(e),
    }
}

/// Actions that may take long (an APK upload, retried dumps, a command) get 4x the time.
fn long(extra: bool, base: Duration) -> Duration {
    if extra {
        base * 4
    } else {
        base
    }
}

fn result(ctx: &CallCtx, lease: &Lease, rig_id_given: bool, out: DeviceOutput) -> Result<Output, ToolError> {
    let notices = lease_notices(ctx, lease, rig_id_given);
    let mut extra = Vec::new();
    let image = out.image.map(|s| image_out(s, &mut extra));
    let value = serde_json::to_value(DeviceUseOut {
        rig_id: lease.id().to_string(),
        device: lease.engine().to_string(),
        created: lease.created,
        replaced: lease.replaced.clone().map(|(rig_id, reason)| ReplacedOut { rig_id, reason }),
        notice: (!notices.is_empty()).then(|| notices.join("; ")),
        summary: out.summary,
        content_truncated: out.content.as_ref().map(|c| c.truncated),
        content: out.content.map(|c| c.fenced),
        image,
        info: out.info.map(info_out),
        exit_code: out.exit_code,
    })
    .map_err(|e| ToolError::internal(e.to_string()))?;
    Ok(Output { value, extra })
}

async fn mobile_use(ctx: CallCtx, a: MobileUseArgs) -> Result<Output, ToolError> {
    let ws = ctx.workspace.clone().expect("scoped");
    let action = android_action(&a)?;
    let slow =
        matches!(action, AndroidAction::Install { .. } | AndroidAction::UiDump { .. } | AndroidAction::Command { .. });
    let pool = ctx.app.rigs().map_err(rig_error)?;
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
    let out = pool
        .run_for(&lease, long(slow, pool.config().action_timeout), move |rig| async move {
            let d = cc_rigs::downcast::<AndroidRig>(rig)
                .ok_or_else(|| RigError::invalid("rig_id", "that rig is not an Android rig"))?;
            d.act(action).await
        })
        .await
        .map_err(device_error)?;
    result(&ctx, &lease, a.rig_id.is_some(), out)
}

async fn ios_use(ctx: CallCtx, a: IosUseArgs) -> Result<Output, ToolError> {
    let ws = ctx.workspace.clone().expect("scoped");
    let action = ios_action(&a)?;
    let slow = matches!(action, IosAction::Install { .. } | IosAction::Erase | IosAction::Command { .. });
    let pool = ctx.app.rigs().map_err(rig_error)?;
    let want = Acquire {
        workspace: ws,
        conversation: ctx.conversation.id.clone(),
        surface: SurfaceKind::Ios,
        engine: None,
        default_engine: String::new(),
        rig_id: a.rig_id.clone(),
    };
    let lease = pool.acquire(want, |_| IosRig::connect_boxed(IosOptions::from_env())).await.map_err(rig_error)?;
    let out = pool
        .run_for(&lease, long(slow, pool.config().action_timeout), move |rig| async move {
            let d = cc_rigs::downcast::<IosRig>(rig)
                .ok_or_else(|| RigError::invalid("rig_id", "that rig is not an iOS rig"))?;
            d.act(action).await
        })
        .await
        .map_err(rig_error)?;
    result(&ctx, &lease, a.rig_id.is_some(), out)
}

pub fn register(r: &mut Registry) {
    let mobile: Handler = std::sync::Arc::new(|ctx: CallCtx, args: Value| {
        Box::pin(async move {
            let a: MobileUseArgs = crate::mcp::registry::from_args(args)?;
            mobile_use(ctx, a).await
        })
    });
    r.add_raw(
        Spec {
            name: "mobile_use",
            title: "Use an Android device",
            description: "Drive Android over ADB: check_in (devices, properties, screen size), screenshot, tap / swipe / long_press (points of the latest screenshot), type (ASCII), key events, install (an APK path) / start / stop / reset (clear data) / uninstall apps, open_url (deep links), ui_dump (the UI hierarchy with element bounds), and device commands in `argv` form (each element one argument). The device is the one named by `serial` (or ANDROID_SERIAL), else an emulator the rig boots with the Android SDK; the conversation's later calls reuse it. Screenshots come back as one PNG scaled to fit 1366x768 with the scale; device text comes back fenced as untrusted data.",
            scope: Scope::Required,
            action_classes: CLASSES,
            read_only: false,
        },
        schema_of::<MobileUseArgs>(),
        schema_of::<DeviceUseOut>(),
        mobile,
    );
    let ios: Handler = std::sync::Arc::new(|ctx: CallCtx, args: Value| {
        Box::pin(async move {
            let a: IosUseArgs = crate::mcp::registry::from_args(args)?;
            ios_use(ctx, a).await
        })
    });
    r.add_raw(
        Spec {
            name: "ios_use",
            title: "Use the iOS simulator",
            description: "Drive the iOS simulator via WebDriverAgent/CoreSimulator: check_in (status, screen), screenshot, source (the accessibility tree), tap / swipe (points of the latest screenshot), type, press_button (home, volume), launch / activate / terminate apps by bundle id, open_url (deep links), clipboard read / write, and through Xcode's `xcrun simctl` install / uninstall / erase and simulator processes in `argv` form. One WebDriverAgent session per rig, reused by the conversation's later calls. Screenshots come back as one PNG scaled to fit 1366x768 with the scale; device text comes back fenced as untrusted data.",
            scope: Scope::Required,
            action_classes: CLASSES,
            read_only: false,
        },
        schema_of::<IosUseArgs>(),
        schema_of::<DeviceUseOut>(),
        ios,
    );
}
