//! The rig tools: disposable machines for a conversation, over the services' rig pool
//! (`cc_rigs::pool`): browser_use (a headless browser), computer_use (a Linux desktop in a
//! Docker container), mobile_use (an Android device over ADB), ios_use (an iOS simulator over
//! WebDriverAgent), rig_list and rig_close. A conversation's first call of a `use` tool
//! creates its rig, later calls reuse it; the rig closes when the MCP session that controls it
//! ends, unless a call passed `keep: true`; `rig_id` takes over any rig of the workspace (a
//! client that reconnected finds its kept rig). With several replicas on one store, a rig
//! lives in the replica whose pool made it: rig_list shows the workspace's rigs of every
//! replica (from the store's records, `crate::replicas`), and rig_close of another replica's
//! rig asks that replica to close it. Screenshots come back as one PNG scaled to fit 1366x768; every
//! coordinate a caller gives is in the pixels of those screenshots and is mapped back to the
//! machine's.
//!
//! Where the devices are is the operator's: mobile_use talks to the ADB server of
//! `ANDROID_ADB_SERVER_PORT` (default 5037) and drives the device named by `serial` (or
//! `ANDROID_SERIAL`), else boots an emulator of the Android SDK (`ANDROID_HOME`); ios_use
//! talks to the WebDriverAgent at `CC_WDA_URL` (default http://127.0.0.1:8100) and runs
//! simctl on `CC_IOS_UDID` (default `booted`).

mod browser_use;
mod computer_use;
mod device;
mod ios_use;
mod mobile_use;
mod rig_close;
mod rig_list;

use base64::Engine as _;
use cc_rigs::output::Scaled;
use cc_rigs::pool::{Lease, RigInfo};
use cc_rigs::RigError;
use rmcp::model::ContentBlock;
use schemars::JsonSchema;
use serde::Serialize;

use crate::mcp::tool::{Ctx, ErrorKind, Registry, ToolError};

pub use browser_use::{BrowserUseArgs, BrowserUseOut};
pub use computer_use::{ComputerUseArgs, ComputerUseOut};
pub use device::DeviceUseOut;
pub use ios_use::IosUseArgs;
pub use mobile_use::MobileUseArgs;

/// The area's tools.
pub fn tools(r: &mut Registry) {
    r.add(browser_use::DECL, browser_use::browser_use);
    r.add(computer_use::DECL, computer_use::computer_use);
    r.add(mobile_use::DECL, mobile_use::mobile_use);
    r.add(ios_use::DECL, ios_use::ios_use);
    r.add(rig_list::DECL, rig_list::rig_list);
    r.add(rig_close::DECL, rig_close::rig_close);
}

/// The wire kind of a rig's error.
fn kind(e: &RigError) -> ErrorKind {
    match e {
        RigError::Invalid { .. } => ErrorKind::InvalidInput,
        RigError::StaleRef(_) => ErrorKind::StaleRef,
        RigError::NotFound(_) => ErrorKind::NotFound,
        RigError::NoRig(_) => ErrorKind::NoRig,
        RigError::Limit(_) => ErrorKind::RigLimit,
        RigError::Blocked(_) => ErrorKind::BlockedOrigin,
        RigError::Timeout(_) => ErrorKind::Timeout,
        RigError::Start(_) => ErrorKind::RigStart,
        RigError::Dead(_) => ErrorKind::RigFailed,
        RigError::Driver(_) => ErrorKind::Driver,
        RigError::ShutDown => ErrorKind::ShutDown,
    }
}

#[derive(Serialize, JsonSchema)]
pub struct ReplacedOut {
    /// The failed rig this call's rig replaced.
    pub rig_id: String,
    pub reason: String,
}

#[derive(Serialize, JsonSchema)]
pub struct ImageOut {
    /// The returned PNG (an image content block of this result).
    pub width: u32,
    pub height: u32,
    /// The capture in real pixels.
    pub real_width: u32,
    pub real_height: u32,
    /// returned / real: a point (x, y) of the image is (x / scale, y / scale) on the page.
    pub scale: f64,
}

#[derive(Serialize, JsonSchema)]
pub struct RigOut {
    pub id: String,
    /// browser, desktop, android or ios.
    pub surface: String,
    pub engine: String,
    /// ready, busy, or failed (replaced on its conversation's next call); lost when the
    /// replica holding it is no longer heard from.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    pub display_width: u32,
    pub display_height: u32,
    /// The conversation controlling it (its latest caller).
    pub controller: String,
    /// Kept when its controller's session ends (a call passed `keep`); otherwise that
    /// session's end closes it.
    pub kept: bool,
    /// Seconds since the epoch.
    pub created: u64,
    pub last_used: u64,
    /// Seconds until it is closed if unused.
    pub idle_expires_in: u64,
    /// The replica (server process) whose pool holds it: only that one drives it.
    pub replica_id: String,
    /// That replica's host and pid.
    pub replica: String,
    /// Whether it is the replica answering this call.
    pub this_replica: bool,
}

/// A rig of this replica's pool.
fn rig_out(r: RigInfo, here: &crate::replicas::Replica) -> RigOut {
    RigOut {
        id: r.id,
        surface: r.surface.as_str().to_string(),
        engine: r.engine,
        status: serde_json::to_value(&r.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
        failure: r.failure,
        display_width: r.display_width,
        display_height: r.display_height,
        controller: r.controller,
        kept: r.kept,
        created: r.created,
        last_used: r.last_used,
        idle_expires_in: r.idle_expires_in,
        replica_id: here.id.clone(),
        replica: crate::replicas::describe_host(&here.row()),
        this_replica: true,
    }
}

/// A rig of another replica, as its record says.
fn record_out(l: crate::store::replicas::ListedRig, here: &crate::replicas::Replica) -> RigOut {
    let r = l.rig;
    let lost = here.is_lost(&l.replica);
    RigOut {
        id: r.id,
        surface: r.surface,
        engine: r.engine,
        status: if lost { "lost".to_string() } else { r.status },
        failure: r.failure,
        display_width: r.display_width.max(0) as u32,
        display_height: r.display_height.max(0) as u32,
        controller: r.conversation,
        kept: r.kept,
        created: r.created_at.max(0) as u64,
        last_used: r.last_used_at.max(0) as u64,
        idle_expires_in: (r.idle_expires_at - crate::store::now()).max(0) as u64,
        this_replica: l.replica.id == here.id,
        replica: crate::replicas::describe_host(&l.replica),
        replica_id: l.replica.id,
    }
}

pub fn rig_error(e: RigError) -> ToolError {
    let (pointer, message) = match &e {
        RigError::Invalid { field, message } => (Some(format!("/{field}")), format!("/{field}: {message}")),
        RigError::NoRig(_) => (Some("/rig_id".to_string()), e.to_string()),
        RigError::StaleRef(_) => (Some("/ref".to_string()), e.to_string()),
        _ => (None, e.to_string()),
    };
    ToolError { error: kind(&e), pointer, message, data: None }
}

pub(crate) fn missing(field: &'static str, action: &str) -> ToolError {
    ToolError::invalid(&format!("/{field}"), format!("/{field}: required by action {action}"))
}

/// Refuses an argument the action does not take, naming it: it would be ignored, and a
/// caller who sent `text` with a tap, or `to_x` with a long press, meant something else.
/// `given` lists the action-specific arguments with whether the call set them.
pub(crate) fn refuse_stray(
    action: &str,
    given: &[(&'static str, bool)],
    takes: impl Fn(&str) -> bool,
) -> Result<(), ToolError> {
    match given.iter().find(|(f, set)| *set && !takes(f)) {
        Some((f, _)) => Err(ToolError::invalid(&format!("/{f}"), format!("/{f}: action {action} takes no {f}"))),
        None => Ok(()),
    }
}

/// What a caller should hear about the lease: a replaced rig, a rig a stateless request
/// cannot find again without its id.
pub(crate) fn lease_notices(ctx: &Ctx<String>, lease: &Lease, by_id: bool) -> Vec<String> {
    let mut notices = Vec::new();
    if let Some((id, why)) = &lease.replaced {
        notices.push(format!("rig {id} had failed ({why}); this call started rig {} in its place", lease.id()));
    }
    if ctx.conversation.ephemeral() && lease.created && !by_id {
        notices.push(format!(
            "a stateless request is a conversation of its own: pass rig_id {} to use this rig again",
            lease.id()
        ));
    }
    notices
}

/// The result's one image: its content block is attached to the call's result, its sizes go
/// into the typed result.
pub(crate) fn image_out(ctx: &Ctx<String>, s: Scaled) -> ImageOut {
    ctx.attach(ContentBlock::image(base64::engine::general_purpose::STANDARD.encode(&s.png), "image/png"));
    ImageOut { width: s.width, height: s.height, real_width: s.real_width, real_height: s.real_height, scale: s.scale }
}
