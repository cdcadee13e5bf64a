//! computer_use: a Linux desktop (Xvfb, openbox, xterm) in a Docker container per conversation.

use std::time::Duration;

use cc_rigs::desktop::{ActionOutput, Desktop, DesktopAction, DesktopConfig, MouseButton, ScrollDirection};
use cc_rigs::output::{fence, fit_scale, scale_png};
use cc_rigs::pool::Acquire;
use cc_rigs::{RigError, SurfaceKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{image_out, lease_notices, rig_error, ImageOut, ReplacedOut};
use crate::mcp::tool::{ActionClass, Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "computer_use",
    title: "Use a Linux desktop",
    description: "Drive a Linux desktop (Xvfb, openbox, xterm) in a Docker container: screenshot, move, click (left/middle/right, double, triple), drag, scroll, type (any UTF-8), key combos, cursor_position, resize, clipboard_read/write, wait. The conversation's first call starts its rig (no network unless `egress`; memory and processes capped), later calls reuse it; it closes when the session ends unless `keep`. Screenshots come back as one PNG scaled to fit 1366x768; x/y are in screenshot pixels (`scale` maps them to the display). Clipboard text comes back fenced as untrusted data.",
    set: ToolSet::Rigs,
    scope: Scope::Required,
    classes: &[ActionClass::EnclosureControl, ActionClass::NetworkEgress, ActionClass::ProcessSpawn],
    approval: false,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: true, idempotent: false, open_world: true },
};

/// What computer_use does.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DesktopActionName {
    Screenshot,
    Move,
    Click,
    Drag,
    Scroll,
    Type,
    Key,
    CursorPosition,
    Resize,
    ClipboardRead,
    ClipboardWrite,
    Wait,
}

/// The computer_use arguments. Everything but `rig_id`, `keep` and `egress` is the desktop action
/// (`cc_rigs::desktop::DesktopAction`, which checks which fields each action takes).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComputerUseArgs {
    /// The action: screenshot, move (x, y), click (x, y optional; button; clicks 2 = double,
    /// 3 = triple), drag (x, y -> to_x, to_y), scroll (direction, amount; at x, y), type
    /// (text, any UTF-8; newlines press Return), key (keys: `ctrl+s`, `Return`, `ctrl+a
    /// BackSpace`), cursor_position, resize (width, height), clipboard_read, clipboard_write
    /// (text), wait (seconds).
    pub action: DesktopActionName,
    /// A rig of this workspace to use (see rig_list), e.g. after reconnecting.
    #[schemars(length(min = 1, max = 100))]
    pub rig_id: Option<String>,
    /// Keep the rig when this MCP session ends, for a later session to take over with
    /// rig_id (rig_close or the idle timeout still close it); false undoes an earlier keep.
    /// Default: the rig closes when the session that controls it ends.
    pub keep: Option<bool>,
    /// When this call creates the rig: give its desktop network access (default: none).
    pub egress: Option<bool>,
    /// A point, in the pixels of the screenshots this rig returns (`scale` maps them to
    /// the display).
    #[schemars(range(min = 0, max = 100000))]
    pub x: Option<i64>,
    /// move, click, drag, scroll: the point's vertical coordinate, with x.
    #[schemars(range(min = 0, max = 100000))]
    pub y: Option<i64>,
    /// drag: where to release, in screenshot pixels.
    #[schemars(range(min = 0, max = 100000))]
    pub to_x: Option<i64>,
    /// drag: where it ends, vertically (with to_x).
    #[schemars(range(min = 0, max = 100000))]
    pub to_y: Option<i64>,
    /// click, drag: the mouse button (default left).
    pub button: Option<MouseButton>,
    /// click: 1 (default), 2 (double click), 3 (triple click).
    #[schemars(range(min = 1, max = 3))]
    pub clicks: Option<u8>,
    /// scroll: which way the wheel turns.
    pub direction: Option<ScrollDirection>,
    /// scroll: notches (default 3).
    #[schemars(range(min = 1, max = 100))]
    pub amount: Option<u32>,
    /// type (at most 5,000 characters), clipboard_write (at most 100,000 bytes): the text.
    #[schemars(length(max = 100000))]
    pub text: Option<String>,
    /// key: xdotool key combinations, space-separated.
    #[schemars(length(min = 1, max = 1000))]
    pub keys: Option<String>,
    /// resize: the new display size in real pixels (320x240 to 3840x2160).
    #[schemars(range(min = 1, max = 100000))]
    pub width: Option<u32>,
    /// resize: the screen's new height in pixels, with width.
    #[schemars(range(min = 1, max = 100000))]
    pub height: Option<u32>,
    /// wait: seconds (at most 60).
    #[schemars(range(min = 0.0, max = 60.0))]
    pub seconds: Option<f64>,
}

#[derive(Serialize, JsonSchema)]
pub struct PointOut {
    pub x: i64,
    pub y: i64,
}

#[derive(Serialize, JsonSchema)]
pub struct ComputerUseOut {
    pub rig_id: String,
    /// The desktop image the rig runs.
    pub engine: String,
    /// This call started the rig.
    pub created: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<ReplacedOut>,
    /// Something the caller should know (a replaced rig, a stateless request, an ignored option).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    pub summary: String,
    /// The display in real pixels.
    pub display_width: u32,
    pub display_height: u32,
    /// Screenshot pixels per display pixel (1 when the display fits 1366x768): the
    /// coordinates this tool takes and returns are display pixels times `scale`.
    pub scale: f64,
    /// The network: `none` unless the rig was created with egress.
    pub network: String,
    /// cursor_position: where the pointer is, in screenshot pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<PointOut>,
    /// clipboard_read: the clipboard's text, fenced as untrusted data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageOut>,
}

/// The desktop action of a computer_use call, in screenshot pixels: every argument but
/// `rig_id`, `keep` and `egress`, checked by `DesktopAction` (which names the field at fault).
fn desktop_action(args: &Value) -> Result<DesktopAction, ToolError> {
    let mut action = args.clone();
    if let Some(o) = action.as_object_mut() {
        o.remove("rig_id");
        o.remove("egress");
        o.remove("keep");
    }
    DesktopAction::from_json(action).map_err(|e| rig_error(e.into()))
}

/// Maps an action's points from screenshot pixels to display pixels, after checking them
/// against the screenshot's size (so an off-screen error speaks the caller's coordinates).
fn to_display(action: &mut DesktopAction, (w, h): (u32, u32)) -> Result<f64, ToolError> {
    let scale = fit_scale(w, h);
    let (sw, sh) = (((w as f64 * scale).round() as u32).max(1), ((h as f64 * scale).round() as u32).max(1));
    action.validate(sw, sh).map_err(|e| {
        let e: RigError = e.into();
        let mut t = rig_error(e);
        if scale < 1.0 {
            t.message.push_str(&format!(
                " (coordinates are screenshot pixels: the {w}x{h} display is {sw}x{sh} in screenshots, scale {scale:.4})"
            ));
        }
        t
    })?;
    if scale < 1.0 {
        action.map_coordinates(|x, y| {
            let r = |v: i64, max: u32| ((v as f64 / scale).round() as i64).clamp(0, i64::from(max) - 1);
            (r(x, w), r(y, h))
        });
    }
    Ok(scale)
}

/// The typed arguments name `rig_id`, `keep` and `egress`; the desktop action is read from the call's
/// arguments as sent (every other field), by `DesktopAction`.
pub async fn computer_use(ctx: Ctx<String>, a: ComputerUseArgs) -> Result<ComputerUseOut, ToolError> {
    let mut action = desktop_action(ctx.arguments())?;
    let ws = ctx.workspace.clone();
    let pool = ctx.services.rigs.pool().map_err(rig_error)?;
    let egress = a.egress.unwrap_or(false);
    let config = DesktopConfig {
        egress,
        action_timeout: pool.config().action_timeout,
        start_timeout: pool.config().start_timeout,
        labels: [("cc-server.workspace", ws.as_str()), ("cc-server.conversation", ctx.conversation.id.as_str())]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    };
    let want = Acquire {
        workspace: ws,
        conversation: ctx.conversation.id.clone(),
        surface: SurfaceKind::Desktop,
        engine: None,
        default_engine: cc_rigs::desktop::image_tag(),
        rig_id: a.rig_id.clone(),
    };
    let lease = pool.acquire(want, move |_engine| Desktop::launch_boxed(config)).await.map_err(rig_error)?;
    if let Some(keep) = a.keep {
        lease.keep(keep);
    }
    let desktop = cc_rigs::downcast::<Desktop>(lease.rig())
        .ok_or_else(|| rig_error(RigError::invalid("rig_id", format!("rig {} is not a desktop rig", lease.id()))))?;
    let mut notices = lease_notices(&ctx, &lease, a.rig_id.is_some());
    if a.egress.is_some() && !lease.created && desktop.config().egress != egress {
        notices.push(format!(
            "egress applies when a rig is created: rig {} keeps {} (close it with rig_close to start one with{} network)",
            lease.id(),
            if desktop.config().egress { "its network" } else { "no network" },
            if egress { "" } else { "out" }
        ));
    }
    let scale = to_display(&mut action, desktop.display_size())?;
    // Typing runs at ~12 ms a character, a wait for its seconds: their deadline grows with them.
    let extra = match &action {
        DesktopAction::Type { text } => Duration::from_millis(text.chars().count() as u64 * 20),
        DesktopAction::Wait { seconds } => Duration::from_secs_f64(*seconds),
        _ => Duration::ZERO,
    };
    let name = action.name();
    let out = pool
        .run_for(&lease, pool.config().action_timeout + extra, move |rig| async move {
            let d = cc_rigs::downcast::<Desktop>(rig).ok_or_else(|| RigError::Driver("not a desktop rig".into()))?;
            let out = d.act(action).await?;
            // Scaling a screenshot is CPU work: on the pool's runtime, off the caller's.
            Ok(match out {
                ActionOutput::Screenshot(s) => {
                    let scaled = tokio::task::spawn_blocking(move || scale_png(&s.png))
                        .await
                        .map_err(|e| RigError::Driver(e.to_string()))?
                        .map_err(RigError::Driver)?;
                    (ActionOutput::Done, Some(scaled))
                }
                other => (other, None),
            })
        })
        .await
        .map_err(rig_error)?;
    let (w, h) = desktop.display_size();
    let scale_now = fit_scale(w, h);
    let mut result = ComputerUseOut {
        rig_id: lease.id().to_string(),
        engine: lease.engine().to_string(),
        created: lease.created,
        replaced: lease.replaced.clone().map(|(rig_id, reason)| ReplacedOut { rig_id, reason }),
        notice: None,
        summary: format!("{name}: done"),
        display_width: w,
        display_height: h,
        scale: scale_now,
        network: if desktop.config().egress { "egress" } else { "none" }.to_string(),
        cursor: None,
        content: None,
        content_truncated: None,
        image: None,
    };
    match out {
        (_, Some(shot)) => {
            result.summary = format!("screenshot: {}x{} (display {w}x{h})", shot.width, shot.height);
            result.image = Some(image_out(&ctx, shot));
        }
        (ActionOutput::Cursor { x, y }, _) => {
            let s = |v: i64| (v as f64 * scale).round() as i64;
            result.summary = format!("the pointer is at ({}, {}) in screenshot pixels", s(x), s(y));
            result.cursor = Some(PointOut { x: s(x), y: s(y) });
        }
        (ActionOutput::Clipboard { text }, _) => {
            let f = fence("desktop clipboard", &text, 100_000);
            result.summary = format!("clipboard_read: {} characters", f.chars);
            result.content_truncated = Some(f.truncated);
            result.content = Some(f.fenced);
        }
        (ActionOutput::Resized { width, height }, _) => {
            result.summary = format!("resize: the display is {width}x{height} (scale {scale_now:.4})");
        }
        (ActionOutput::Done | ActionOutput::Screenshot(_), None) => {}
    }
    result.notice = (!notices.is_empty()).then(|| notices.join("; "));
    Ok(result)
}
