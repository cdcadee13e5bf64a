//! What mobile_use and ios_use share: their action classes, their result, and its assembly.

use std::time::Duration;

use cc_rigs::device::{DeviceInfo, DeviceOutput};
use cc_rigs::pool::Lease;
use cc_rigs::RigError;
use schemars::JsonSchema;
use serde::Serialize;

use super::{image_out, lease_notices, rig_error, ImageOut, ReplacedOut};
use crate::mcp::tool::{ActionClass, Ctx, Hints, ToolError};

/// The hints of both tools (their classes are destructive and open-world).
pub(crate) const HINTS: Hints = Hints { read_only: false, destructive: true, idempotent: false, open_world: true };

/// The classes of both tools (spec: the `use` tools' three, and packageInstall).
pub(crate) const CLASSES: &[ActionClass] = &[
    ActionClass::EnclosureControl,
    ActionClass::NetworkEgress,
    ActionClass::ProcessSpawn,
    ActionClass::PackageInstall,
];

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

pub(crate) fn name_of<T: Serialize>(v: T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

pub(crate) fn max_chars(m: Option<u32>) -> Option<usize> {
    m.map(|m| m as usize)
}

/// The pool names the engine; these tools call it `serial`.
pub(crate) fn device_error(e: RigError) -> ToolError {
    match e {
        RigError::Invalid { field: "engine", message } => rig_error(RigError::Invalid {
            field: "serial",
            message: message.replace("engine or rig_id", "serial or rig_id"),
        }),
        e => rig_error(e),
    }
}

/// Actions that may take long (an APK upload, retried dumps, a command) get 4x the time.
pub(crate) fn long(extra: bool, base: Duration) -> Duration {
    if extra {
        base * 4
    } else {
        base
    }
}

pub(crate) fn result(ctx: &Ctx<String>, lease: &Lease, rig_id_given: bool, out: DeviceOutput) -> DeviceUseOut {
    let notices = lease_notices(ctx, lease, rig_id_given);
    let image = out.image.map(|s| image_out(ctx, s));
    DeviceUseOut {
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
    }
}
