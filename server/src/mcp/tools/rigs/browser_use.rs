//! browser_use: a headless Chromium, Firefox or WebKit per conversation, over W3C WebDriver.

use std::time::Duration;

use cc_rigs::browser::{BrowserAction, BrowserOptions, BrowserRig, Engine, TabOp, Target, WaitFor};
use cc_rigs::pool::Acquire;
use cc_rigs::{RigError, SurfaceKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{image_out, lease_notices, missing, refuse_stray, rig_error, ImageOut, ReplacedOut};
use crate::mcp::tool::{ActionClass, Ctx, Decl, Hints, Modes, Scope, ToolError, ToolSet};

pub const DECL: Decl = Decl {
    name: "browser_use",
    title: "Use a browser",
    description: "Drive a headless Chromium, Firefox, or WebKit (`engine`): navigate, click, fill, type, press, select, hover, scroll, wait_for, tabs, extract (a11y snapshot with element refs / DOM text / console), clipboard, screenshot. The conversation's first call starts its rig (a fresh profile), later calls reuse it; it closes when the session ends unless `keep`. Elements by `ref` from the latest snapshot or by CSS `selector`; screenshots come back as one PNG scaled to fit 1366x768 with the scale; page text comes back fenced as untrusted data. Runs no caller JavaScript.",
    set: ToolSet::Rigs,
    scope: Scope::Required,
    classes: &[ActionClass::EnclosureControl, ActionClass::NetworkEgress, ActionClass::ProcessSpawn],
    approval: false,
    modes: Modes::Chat,
    hints: Hints { read_only: false, destructive: true, idempotent: false, open_world: true },
};

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
    /// Keep the rig when this MCP session ends, for a later session to take over with
    /// rig_id (rig_close or the idle timeout still close it); false undoes an earlier keep.
    /// Default: the rig closes when the session that controls it ends.
    pub keep: Option<bool>,
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
    /// click: the point's vertical coordinate, with x.
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

pub async fn browser_use(ctx: Ctx<String>, a: BrowserUseArgs) -> Result<BrowserUseOut, ToolError> {
    let ws = ctx.workspace.clone();
    let (action, extra) = parse_action(&a)?;
    let engine = a.engine.map(|e| match e {
        EngineName::Chromium => Engine::Chromium,
        EngineName::Firefox => Engine::Firefox,
        EngineName::Webkit => Engine::Webkit,
    });
    let allowed = a.allowed_origins.clone();
    let remotes = ctx.services.rigs.remote_browsers.clone();
    let pool = ctx.services.rigs.pool().map_err(rig_error)?;
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
                let engine = Engine::parse(&engine)?;
                let mut opts = BrowserOptions::new(engine);
                opts.allowed_origins = allowed;
                opts.remote = remotes.get(&engine).cloned();
                BrowserRig::launch_boxed(opts).await
            })
        })
        .await
        .map_err(rig_error)?;
    if let Some(keep) = a.keep {
        lease.keep(keep);
    }
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
    let image = out.image.map(|s| image_out(&ctx, s));
    Ok(BrowserUseOut {
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
    })
}
