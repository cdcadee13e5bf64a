//! The rig tools: browser_use (a headless browser per conversation), computer_use (a Linux
//! desktop in a Docker container per conversation), rig_list and rig_close, over the app's
//! rig pool (`cc_rigs::pool`). A conversation's first call of a `use` tool creates its rig,
//! later calls reuse it; `rig_id` takes over any rig of the workspace (a client that
//! reconnected). Screenshots come back as one PNG scaled to fit 1366x768; every coordinate a
//! caller gives is in the pixels of those screenshots and is mapped back to the machine's.

use std::time::Duration;

use base64::Engine as _;
use cc_rigs::browser::{BrowserAction, BrowserOptions, BrowserRig, Engine, TabOp, Target, WaitFor};
use cc_rigs::desktop::{ActionOutput, Desktop, DesktopAction, DesktopConfig, MouseButton, ScrollDirection};
use cc_rigs::output::{fence, fit_scale, scale_png, Scaled};
use cc_rigs::pool::{Acquire, Lease, RigInfo};
use cc_rigs::{RigError, SurfaceKind};
use rmcp::model::ContentBlock;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mcp::dispatch::{CallCtx, ToolError};
use crate::mcp::registry::{schema_of, ActionClass, Handler, Output, Registry, Scope, Spec};

// ---------------------------------------------------------------- arguments

/// What browser_use does.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BrowserActionName {
    Navigate,
    Back,
    Forward,
    Reload,
    Click,
    Fill,
    Type,
    Press,
    Select,
    Hover,
    Scroll,
    WaitFor,
    Tabs,
    Extract,
    Clipboard,
    Screenshot,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum EngineName {
    Chromium,
    Firefox,
    Webkit,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExtractWhat {
    /// An accessibility-style outline with element refs (`[ref=s1e3]`) for later actions.
    Snapshot,
    /// The visible text of the page (or of `ref` / `selector`).
    Text,
    /// Console messages logged since the last read.
    Console,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WaitUntil {
    /// An element matching `selector`.
    Selector,
    /// `text` in the page's visible text.
    Text,
    /// The URL changes (to one containing `url`, if given) and the page finishes loading.
    Navigation,
}

#[derive(Clone, Copy, Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// tabs: list the tabs.
    List,
    /// tabs: open a tab (at `url`, if given) and switch to it.
    Open,
    /// tabs: switch to tab `tab`.
    Switch,
    /// tabs: close tab `tab` (default: the current one).
    Close,
    /// clipboard: read it.
    Read,
    /// clipboard: write `text` to it.
    Write,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrowserUseArgs {
    /// The action: navigate (url), back, forward, reload, click (ref | selector | x+y of the
    /// latest screenshot), fill (ref | selector, text), type (text; into ref | selector or
    /// the focused element), press (key, e.g. Enter or Control+a), select (ref | selector,
    /// value), hover (ref | selector), scroll (dx/dy pixels, or ref | selector into view),
    /// wait_for (until: selector | text | navigation), tabs (op: list | open | switch |
    /// close), extract (what: snapshot | text | console), clipboard (op: read | write),
    /// screenshot (the viewport, or ref | selector).
    pub action: BrowserActionName,
    /// The browser engine (default: the conversation's current browser rig, else chromium).
    pub engine: Option<EngineName>,
    /// A rig of this workspace to use (see rig_list), e.g. after reconnecting.
    #[schemars(length(min = 1, max = 100))]
    pub rig_id: Option<String>,
    /// navigate, tabs open: an http(s) URL. wait_for navigation: text the new URL contains.
    #[schemars(length(min = 1, max = 8192))]
    pub url: Option<String>,
    /// An element ref from the latest snapshot (`s2e5`).
    #[serde(rename = "ref")]
    #[schemars(length(min = 1, max = 40))]
    pub element_ref: Option<String>,
    /// A CSS selector (instead of `ref`).
    #[schemars(length(min = 1, max = 2000))]
    pub selector: Option<String>,
    /// fill, type, clipboard write: the text. wait_for text: the text to wait for.
    #[schemars(length(max = 100000))]
    pub text: Option<String>,
    /// press: a key (one character, Enter, Tab, Escape, ArrowDown, …), with modifiers joined by '+' (Control+a).
    #[schemars(length(min = 1, max = 100))]
    pub key: Option<String>,
    /// select: the option's label or value.
    #[schemars(length(max = 1000))]
    pub value: Option<String>,
    /// click: a point of the latest viewport screenshot, in its (scaled) pixels.
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub x: Option<f64>,
    #[schemars(range(min = 0.0, max = 100000.0))]
    pub y: Option<f64>,
    /// scroll: pixels right (negative: left).
    #[schemars(range(min = -100000, max = 100000))]
    pub dx: Option<i64>,
    /// scroll: pixels down (negative: up).
    #[schemars(range(min = -100000, max = 100000))]
    pub dy: Option<i64>,
    /// extract: what to take from the page.
    pub what: Option<ExtractWhat>,
    /// wait_for: what to wait for.
    pub until: Option<WaitUntil>,
    /// tabs: list | open | switch | close; clipboard: read | write.
    pub op: Option<Op>,
    /// tabs switch / close: the tab's index (from tabs list).
    #[schemars(range(min = 0, max = 1000))]
    pub tab: Option<u32>,
    /// wait_for: how long to wait, in ms (default 10000).
    #[schemars(range(min = 1, max = 120000))]
    pub timeout_ms: Option<u32>,
    /// extract text / console: at most this many characters (default 20000).
    #[schemars(range(min = 1, max = 1000000))]
    pub max_chars: Option<u32>,
    /// extract snapshot: at most this many lines (default 400).
    #[schemars(range(min = 1, max = 20000))]
    pub max_lines: Option<u32>,
    /// When this call creates the rig: the only origins (https://example.com) navigation
    /// and redirects may reach. Ignored for an existing rig.
    #[schemars(length(max = 100))]
    pub allowed_origins: Option<Vec<String>>,
}

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

/// The computer_use arguments. Everything but `rig_id` and `egress` is the desktop action
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
    /// When this call creates the rig: give its desktop network access (default: none).
    pub egress: Option<bool>,
    /// A point, in the pixels of the screenshots this rig returns (`scale` maps them to
    /// the display).
    #[schemars(range(min = 0, max = 100000))]
    pub x: Option<i64>,
    #[schemars(range(min = 0, max = 100000))]
    pub y: Option<i64>,
    /// drag: where to release, in screenshot pixels.
    #[schemars(range(min = 0, max = 100000))]
    pub to_x: Option<i64>,
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
    #[schemars(range(min = 1, max = 100000))]
    pub height: Option<u32>,
    /// wait: seconds (at most 60).
    #[schemars(range(min = 0.0, max = 60.0))]
    pub seconds: Option<f64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RigCloseArgs {
    /// The rig to destroy (see rig_list).
    #[schemars(length(min = 1, max = 100))]
    pub rig_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

// ---------------------------------------------------------------- results

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
pub struct TabOut {
    pub index: usize,
    pub current: bool,
    pub url: String,
    pub title: String,
}

#[derive(Serialize, JsonSchema)]
pub struct BrowserUseOut {
    pub rig_id: String,
    pub engine: String,
    /// This call started the rig.
    pub created: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<ReplacedOut>,
    /// Something the caller should know (a replaced rig, a stateless request).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    pub summary: String,
    pub url: String,
    /// The page's title: page data (a page may say anything in it).
    pub title: String,
    /// Text taken from the page or clipboard, fenced as untrusted data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_truncated: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refs: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tabs: Option<Vec<TabOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageOut>,
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

#[derive(Serialize, JsonSchema)]
pub struct RigOut {
    pub id: String,
    /// browser, desktop, android or ios.
    pub surface: String,
    pub engine: String,
    /// ready, busy, or failed (replaced on its conversation's next call).
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    pub display_width: u32,
    pub display_height: u32,
    /// The conversation controlling it (its latest caller).
    pub controller: String,
    /// Seconds since the epoch.
    pub created: u64,
    pub last_used: u64,
    /// Seconds until it is closed if unused.
    pub idle_expires_in: u64,
}

#[derive(Serialize, JsonSchema)]
pub struct RigListOut {
    pub workspace_id: String,
    pub rigs: Vec<RigOut>,
    /// The pool's limits.
    pub max_rigs: usize,
    pub idle_timeout_secs: u64,
}

#[derive(Serialize, JsonSchema)]
pub struct RigCloseOut {
    pub closed: RigOut,
}

fn rig_out(r: RigInfo) -> RigOut {
    RigOut {
        id: r.id,
        surface: r.surface.as_str().to_string(),
        engine: r.engine,
        status: serde_json::to_value(&r.status).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
        failure: r.failure,
        display_width: r.display_width,
        display_height: r.display_height,
        controller: r.controller,
        created: r.created,
        last_used: r.last_used,
        idle_expires_in: r.idle_expires_in,
    }
}

pub fn rig_error(e: RigError) -> ToolError {
    let (pointer, message) = match &e {
        RigError::Invalid { field, message } => (Some(format!("/{field}")), format!("/{field}: {message}")),
        RigError::NoRig(_) => (Some("/rig_id".to_string()), e.to_string()),
        RigError::StaleRef(_) => (Some("/ref".to_string()), e.to_string()),
        _ => (None, e.to_string()),
    };
    ToolError { error: e.kind(), pointer, message, data: None }
}

pub(super) fn missing(field: &'static str, action: &str) -> ToolError {
    ToolError::invalid(&format!("/{field}"), format!("/{field}: required by action {action}"))
}

/// Refuses an argument the action does not take, naming it: it would be ignored, and a
/// caller who sent `text` with a tap, or `to_x` with a long press, meant something else.
/// `given` lists the action-specific arguments with whether the call set them.
pub(super) fn refuse_stray(
    action: &str,
    given: &[(&'static str, bool)],
    takes: impl Fn(&str) -> bool,
) -> Result<(), ToolError> {
    match given.iter().find(|(f, set)| *set && !takes(f)) {
        Some((f, _)) => Err(ToolError::invalid(&format!("/{f}"), format!("/{f}: action {action} takes no {f}"))),
        None => Ok(()),
    }
}

/// The action-specific arguments browser_use's `action` takes (`engine`, `rig_id` and
/// `allowed_origins` go with every action).
fn browser_takes(action: BrowserActionName) -> &'static [&'static str] {
    use BrowserActionName as N;
    const TARGET: [&str; 2] = ["ref", "selector"];
    match action {
        N::Navigate => &["url"],
        N::Back | N::Forward | N::Reload => &[],
        N::Click => &["ref", "selector", "x", "y"],
        N::Fill | N::Type => &["ref", "selector", "text"],
        N::Press => &["ref", "selector", "key"],
        N::Select => &["ref", "selector", "value"],
        N::Hover | N::Screenshot => &TARGET,
        N::Scroll => &["ref", "selector", "dx", "dy"],
        N::WaitFor => &["until", "selector", "text", "url", "timeout_ms"],
        N::Tabs => &["op", "url", "tab"],
        N::Extract => &["what", "ref", "selector", "max_chars", "max_lines"],
        N::Clipboard => &["op", "text"],
    }
}

fn target(a: &BrowserUseArgs, action: &str) -> Result<Option<Target>, ToolError> {
    match (&a.element_ref, &a.selector) {
        (Some(_), Some(_)) => {
            Err(ToolError::invalid("/selector", format!("/selector: give ref or selector for {action}, not both")))
        }
        (Some(r), None) => Ok(Some(Target::Ref(r.clone()))),
        (None, Some(s)) => Ok(Some(Target::Selector(s.clone()))),
        (None, None) => Ok(None),
    }
}

fn need_target(a: &BrowserUseArgs, action: &str) -> Result<Target, ToolError> {
    target(a, action)?.ok_or_else(|| {
        ToolError::invalid("/ref", format!("/ref: action {action} needs an element: ref (from a snapshot) or selector"))
    })
}

/// The typed action a call asks for; every missing argument is named.
fn parse_action(a: &BrowserUseArgs) -> Result<(BrowserAction, Duration), ToolError> {
    use BrowserActionName as N;
    let name = serde_json::to_value(a.action).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let name = name.as_str();
    let text = |field| a.text.clone().ok_or_else(|| missing(field, name));
    let max_chars = a.max_chars.unwrap_or(20_000) as usize;
    let mut extra = Duration::ZERO;
    let action = match a.action {
        N::Navigate => BrowserAction::Navigate { url: a.url.clone().ok_or_else(|| missing("url", name))? },
        N::Back => BrowserAction::Back,
        N::Forward => BrowserAction::Forward,
        N::Reload => BrowserAction::Reload,
        N::Click => match (a.x, a.y, target(a, name)?) {
            (Some(_), Some(_), Some(_)) => {
                return Err(ToolError::invalid("/x", "/x: give a point (x, y) or an element (ref | selector) to click, not both"))
            }
            (Some(x), Some(y), None) => BrowserAction::ClickAt { x, y },
            (Some(_), None, _) => return Err(missing("y", "click at a point")),
            (None, Some(_), _) => return Err(missing("x", "click at a point")),
            (None, None, Some(t)) => BrowserAction::Click { target: t },
            (None, None, None) => {
                return Err(ToolError::invalid(
                    "/ref",
                    "/ref: action click needs an element (ref from a snapshot, or selector) or a point (x, y) of the latest screenshot",
                ))
            }
        },
        N::Fill => BrowserAction::Fill { target: need_target(a, name)?, text: text("text")? },
        N::Type => BrowserAction::Type { target: target(a, name)?, text: text("text")? },
        N::Press => BrowserAction::Press { target: target(a, name)?, key: a.key.clone().ok_or_else(|| missing("key", name))? },
        N::Select => {
            BrowserAction::Select { target: need_target(a, name)?, value: a.value.clone().ok_or_else(|| missing("value", name))? }
        }
        N::Hover => BrowserAction::Hover { target: need_target(a, name)? },
        N::Scroll => {
            let t = target(a, name)?;
            if t.is_none() && a.dx.is_none() && a.dy.is_none() {
                return Err(ToolError::invalid("/dy", "/dy: action scroll needs dx and/or dy (pixels), or an element (ref | selector) to bring into view"));
            }
            BrowserAction::Scroll { target: t, dx: a.dx.unwrap_or(0), dy: a.dy.unwrap_or(0) }
        }
        N::WaitFor => {
            let timeout = Duration::from_millis(a.timeout_ms.unwrap_or(10_000) as u64);
            extra = timeout;
            let what = match a.until.ok_or_else(|| missing("until", name))? {
                WaitUntil::Selector => WaitFor::Selector(a.selector.clone().ok_or_else(|| missing("selector", "wait_for selector"))?),
                WaitUntil::Text => WaitFor::Text(a.text.clone().ok_or_else(|| missing("text", "wait_for text"))?),
                WaitUntil::Navigation => WaitFor::Navigation(a.url.clone()),
            };
            BrowserAction::Wait { what, timeout }
        }
        N::Tabs => BrowserAction::Tabs(match a.op.ok_or_else(|| missing("op", name))? {
            Op::List => TabOp::List,
            Op::Open => TabOp::Open(a.url.clone()),
            Op::Switch => TabOp::Switch(a.tab.ok_or_else(|| missing("tab", "tabs switch"))? as usize),
            Op::Close => TabOp::Close(a.tab.map(|t| t as usize)),
            other => {
                return Err(ToolError::invalid("/op", format!("/op: tabs takes list, open, switch or close, not {other:?}").to_lowercase()))
            }
        }),
        N::Extract => match a.what.ok_or_else(|| missing("what", name))? {
            ExtractWhat::Snapshot => BrowserAction::Snapshot { max_lines: a.max_lines.unwrap_or(400) },
            ExtractWhat::Text => BrowserAction::Text { target: target(a, name)?, max_chars },
            ExtractWhat::Console => BrowserAction::Console { max_chars },
        },
        N::Clipboard => match a.op.ok_or_else(|| missing("op", name))? {
            Op::Read => BrowserAction::ClipboardRead,
            Op::Write => BrowserAction::ClipboardWrite { text: text("text")? },
            other => {
                return Err(ToolError::invalid("/op", format!("/op: clipboard takes read or write, not {other:?}").to_lowercase()))
            }
        },
        N::Screenshot => BrowserAction::Screenshot { target: target(a, name)? },
    };
    let given = [
        ("url", a.url.is_some()),
        ("ref", a.element_ref.is_some()),
        ("selector", a.selector.is_some()),
        ("text", a.text.is_some()),
        ("key", a.key.is_some()),
        ("value", a.value.is_some()),
        ("x", a.x.is_some()),
        ("y", a.y.is_some()),
        ("dx", a.dx.is_some()),
        ("dy", a.dy.is_some()),
        ("what", a.what.is_some()),
        ("until", a.until.is_some()),
        ("op", a.op.is_some()),
        ("tab", a.tab.is_some()),
        ("timeout_ms", a.timeout_ms.is_some()),
        ("max_chars", a.max_chars.is_some()),
        ("max_lines", a.max_lines.is_some()),
    ];
    let takes = browser_takes(a.action);
    refuse_stray(name, &given, |f| takes.contains(&f))?;
    Ok((action, extra))
}

async fn browser_use(ctx: CallCtx, a: BrowserUseArgs) -> Result<Output, ToolError> {
    let ws = ctx.workspace.clone().expect("scoped");
    let (action, extra) = parse_action(&a)?;
    let engine = a.engine.map(|e| match e {
        EngineName::Chromium => Engine::Chromium,
        EngineName::Firefox => Engine::Firefox,
        EngineName::Webkit => Engine::Webkit,
    });
    let allowed = a.allowed_origins.clone();
    let pool = ctx.app.rigs().map_err(rig_error)?;
    let want = Acquire {
        workspace: ws,
        conversation: ctx.conversation.id.clone(),
        surface: SurfaceKind::Browser,
        engine: engine.map(|e| e.as_str().to_string()),
        default_engine: Engine::Chromium.as_str().to_string(),
        rig_id: a.rig_id.clone(),
    };
    let lease = pool
        .acquire(want, move |engine| {
            Box::pin(async move {
                let mut opts = BrowserOptions::new(Engine::parse(&engine)?);
                opts.allowed_origins = allowed;
                BrowserRig::launch_boxed(opts).await
            })
        })
        .await
        .map_err(rig_error)?;
    let timeout = pool.config().action_timeout + extra;
    let out = pool
        .run_for(&lease, timeout, move |rig| async move {
            let b = cc_rigs::downcast::<BrowserRig>(rig)
                .ok_or_else(|| RigError::invalid("rig_id", "that rig is not a browser rig"))?;
            b.act(action).await
        })
        .await
        .map_err(rig_error)?;
    let notices = lease_notices(&ctx, &lease, a.rig_id.is_some());
    let mut extra_blocks = Vec::new();
    let image = out.image.map(|s| image_out(s, &mut extra_blocks));
    let result = BrowserUseOut {
        rig_id: lease.id().to_string(),
        engine: lease.engine().to_string(),
        created: lease.created,
        replaced: lease.replaced.clone().map(|(rig_id, reason)| ReplacedOut { rig_id, reason }),
        notice: (!notices.is_empty()).then(|| notices.join("; ")),
        summary: out.summary,
        url: out.url,
        title: out.title,
        content_truncated: out.content.as_ref().map(|c| c.truncated),
        content: out.content.map(|c| c.fenced),
        refs: out.refs,
        tabs: out.tabs.map(|t| {
            t.into_iter().map(|t| TabOut { index: t.index, current: t.current, url: t.url, title: t.title }).collect()
        }),
        image,
    };
    let value = serde_json::to_value(result).map_err(|e| ToolError::internal(e.to_string()))?;
    Ok(Output { value, extra: extra_blocks })
}

/// What a caller should hear about the lease: a replaced rig, a rig a stateless request
/// cannot find again without its id.
pub(crate) fn lease_notices(ctx: &CallCtx, lease: &Lease, by_id: bool) -> Vec<String> {
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

/// The result's one image: its content block goes into `blocks`, its sizes into the result.
pub(crate) fn image_out(s: Scaled, blocks: &mut Vec<ContentBlock>) -> ImageOut {
    blocks.push(ContentBlock::image(base64::engine::general_purpose::STANDARD.encode(&s.png), "image/png"));
    ImageOut { width: s.width, height: s.height, real_width: s.real_width, real_height: s.real_height, scale: s.scale }
}

/// The desktop action of a computer_use call, in screenshot pixels: every argument but
/// `rig_id` and `egress`, checked by `DesktopAction` (which names the field at fault).
fn desktop_action(args: &Value) -> Result<DesktopAction, ToolError> {
    let mut action = args.clone();
    if let Some(o) = action.as_object_mut() {
        o.remove("rig_id");
        o.remove("egress");
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

async fn computer_use(ctx: CallCtx, args: Value) -> Result<Output, ToolError> {
    let a: ComputerUseArgs = serde_json::from_value(args.clone()).map_err(|e| ToolError::invalid("", e.to_string()))?;
    let mut action = desktop_action(&args)?;
    let ws = ctx.workspace.clone().expect("scoped");
    let pool = ctx.app.rigs().map_err(rig_error)?;
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
    let mut extra_blocks = Vec::new();
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
            result.image = Some(image_out(shot, &mut extra_blocks));
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
    let value = serde_json::to_value(result).map_err(|e| ToolError::internal(e.to_string()))?;
    Ok(Output { value, extra: extra_blocks })
}

pub fn register(r: &mut Registry) {
    let handler: Handler = std::sync::Arc::new(|ctx: CallCtx, args: Value| {
        Box::pin(async move {
            let a: BrowserUseArgs = crate::mcp::registry::from_args(args)?;
            browser_use(ctx, a).await
        })
    });
    r.add_raw(
        Spec {
            name: "browser_use",
            title: "Use a browser",
            description: "Drive a headless Chromium, Firefox, or WebKit (`engine`): navigate, click, fill, type, press, select, hover, scroll, wait_for, tabs, extract (a11y snapshot with element refs / DOM text / console), clipboard, screenshot. The conversation's first call starts its rig (a fresh profile), later calls reuse it. Elements by `ref` from the latest snapshot or by CSS `selector`; screenshots come back as one PNG scaled to fit 1366x768 with the scale; page text comes back fenced as untrusted data. Runs no caller JavaScript.",
            scope: Scope::Required,
            action_classes: &[ActionClass::EnclosureControl, ActionClass::NetworkEgress, ActionClass::ProcessSpawn],
            read_only: false,
        },
        schema_of::<BrowserUseArgs>(),
        schema_of::<BrowserUseOut>(),
        handler,
    );
    let handler: Handler =
        std::sync::Arc::new(|ctx: CallCtx, args: Value| Box::pin(async move { computer_use(ctx, args).await }));
    r.add_raw(
        Spec {
            name: "computer_use",
            title: "Use a Linux desktop",
            description: "Drive a Linux desktop (Xvfb, openbox, xterm) in a Docker container: screenshot, move, click (left/middle/right, double, triple), drag, scroll, type (any UTF-8), key combos, cursor_position, resize, clipboard_read/write, wait. The conversation's first call starts its rig (no network unless `egress`; memory and processes capped), later calls reuse it. Screenshots come back as one PNG scaled to fit 1366x768; x/y are in screenshot pixels (`scale` maps them to the display). Clipboard text comes back fenced as untrusted data.",
            scope: Scope::Required,
            action_classes: &[ActionClass::EnclosureControl, ActionClass::NetworkEgress, ActionClass::ProcessSpawn],
            read_only: false,
        },
        schema_of::<ComputerUseArgs>(),
        schema_of::<ComputerUseOut>(),
        handler,
    );
    r.add(
        Spec {
            name: "rig_list",
            title: "List rigs",
            description: "List a workspace's rigs with their surface, engine, status, display size, controller (conversation), created and last-used times.",
            scope: Scope::Required,
            action_classes: &[],
            read_only: true,
        },
        |ctx: CallCtx, _: NoArgs| async move {
            let ws = ctx.workspace.clone().expect("scoped");
            let pool = ctx.app.rigs().map_err(rig_error)?;
            Ok(RigListOut {
                rigs: pool.list(Some(&ws)).into_iter().map(rig_out).collect(),
                workspace_id: ws,
                max_rigs: pool.config().max_rigs,
                idle_timeout_secs: pool.config().idle_timeout.as_secs(),
            })
        },
    );
    r.add(
        Spec {
            name: "rig_close",
            title: "Close a rig",
            description: "Destroy a rig and discard the machine state it owns (browser, driver processes and profile; desktop container; a device rig's session, the Android apps it started and the emulator it booted).",
            scope: Scope::Required,
            action_classes: &[ActionClass::EnclosureControl],
            read_only: false,
        },
        |ctx: CallCtx, a: RigCloseArgs| async move {
            let ws = ctx.workspace.clone().expect("scoped");
            let pool = ctx.app.rigs().map_err(rig_error)?;
            let info = pool.close(&ws, &a.rig_id).await.map_err(rig_error)?;
            Ok(RigCloseOut { closed: rig_out(info) })
        },
    );
}
