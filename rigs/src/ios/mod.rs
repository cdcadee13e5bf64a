//! iOS simulator rigs: "drive this simulator for an agent" through WebDriverAgent's HTTP
//! API (default http://127.0.0.1:8100, `CC_WDA_URL`), with one WDA session per rig,
//! created at check-in and reused by every action (re-created once if WDA lost it).
//! Installing, uninstalling, erasing and simulator processes go through Xcode's
//! `xcrun simctl` (WDA cannot do them); on a machine without it they fail saying so.
//!
//! Coordinates are pixels of the latest (scaled) screenshot; they map to screen pixels
//! through [`ScreenMap`], then to the points WDA takes (pixels / the screen's scale).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::device::{DeviceInfo, DeviceOutput, ScreenMap};
use crate::output::{fence, scale_png};
use crate::{BoxFuture, Rig, RigError, SurfaceKind};

/// WebDriverAgent's default address.
pub const DEFAULT_WDA_URL: &str = "http://127.0.0.1:8100";
/// Default characters of fenced text.
pub const DEFAULT_MAX_CHARS: usize = 20_000;
/// Most characters one `type` sends.
pub const MAX_TYPE_CHARS: usize = 10_000;

/// A hardware button WDA can press.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Button {
    Home,
    VolumeUp,
    VolumeDown,
}

impl Button {
    /// The name `/wda/pressButton` takes.
    pub fn wda_name(self) -> &'static str {
        match self {
            Button::Home => "home",
            Button::VolumeUp => "volumeUp",
            Button::VolumeDown => "volumeDown",
        }
    }
}

/// One action on an iOS simulator. JSON: `{"action": "tap", "x": 100, "y": 200}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum IosAction {
    /// WebDriverAgent's status, the device and its screen.
    CheckIn,
    /// A PNG of the screen.
    Screenshot,
    /// The accessibility tree (WDA's page source, XML), fenced.
    Source {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_chars: Option<usize>,
    },
    Tap {
        x: f64,
        y: f64,
    },
    /// From (x, y) to (to_x, to_y) in `duration_ms` (default 300).
    Swipe {
        x: f64,
        y: f64,
        to_x: f64,
        to_y: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u32>,
    },
    /// Text into the focused field (any Unicode).
    Type {
        text: String,
    },
    PressButton {
        button: Button,
    },
    /// Launch an installed app (restarts it when running).
    Launch {
        bundle_id: String,
    },
    /// Bring an installed app to the foreground (launching it if needed).
    Activate {
        bundle_id: String,
    },
    Terminate {
        bundle_id: String,
    },
    /// Open a URL or deep link.
    OpenUrl {
        url: String,
    },
    ClipboardRead {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_chars: Option<usize>,
    },
    ClipboardWrite {
        text: String,
    },
    /// `xcrun simctl install` of an .app folder (or .ipa) on the server's machine.
    Install {
        path: String,
    },
    /// `xcrun simctl uninstall`.
    Uninstall {
        bundle_id: String,
    },
    /// `xcrun simctl erase`: the simulator's contents and settings (it must be shut down).
    Erase,
    /// A process in the simulator, as an argv (`xcrun simctl spawn UDID argv…`).
    Command {
        argv: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_chars: Option<usize>,
    },
}

/// Where WebDriverAgent and the simulator are.
#[derive(Clone, Debug)]
pub struct IosOptions {
    /// WebDriverAgent's base URL (`CC_WDA_URL`, default http://127.0.0.1:8100).
    pub wda_url: String,
    /// The simulator for simctl (`CC_IOS_UDID`, default `booted`).
    pub udid: String,
    /// Xcode's `xcrun` (found on PATH when `None`).
    pub xcrun: Option<PathBuf>,
}

impl IosOptions {
    pub fn from_env() -> IosOptions {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        IosOptions {
            wda_url: env("CC_WDA_URL").unwrap_or_else(|| DEFAULT_WDA_URL.to_string()),
            udid: env("CC_IOS_UDID").unwrap_or_else(|| "booted".to_string()),
            xcrun: None,
        }
    }
}

type HttpClient = hyper_util::client::legacy::Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

/// A WebDriverAgent HTTP client: every answer is `{"value": …, "sessionId": …}`, an error
/// one `{"value": {"error", "message"}}`.
#[derive(Clone)]
pub struct Wda {
    base: String,
    http: HttpClient,
}

/// A WDA error answer.
#[derive(Debug)]
pub enum WdaError {
    /// No answer (connection refused, reset, timed out).
    Unreachable(String),
    /// WDA answered an error (`error` is the W3C error code).
    Answer { status: u16, error: String, message: String },
}

impl Wda {
    pub fn new(base: &str) -> Result<Wda, RigError> {
        let base = base.trim_end_matches('/').to_string();
        let u = url::Url::parse(&base)
            .map_err(|e| RigError::Start(format!("the WebDriverAgent URL '{base}' is not a URL: {e}")))?;
        if u.scheme() != "http" {
            return Err(RigError::Start(format!(
                "the WebDriverAgent URL '{base}' must be http:// (WDA serves plain HTTP)"
            )));
        }
        let http = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
            .build(hyper_util::client::legacy::connect::HttpConnector::new());
        Ok(Wda { base, http })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// One request; the answer's `value`.
    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, WdaError> {
        let uri = format!("{}{path}", self.base);
        let data = body.map(|b| b.to_string()).unwrap_or_default();
        let req = hyper::Request::builder()
            .method(method)
            .uri(&uri)
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(data)))
            .map_err(|e| WdaError::Unreachable(format!("{method} {uri}: {e}")))?;
        let resp = tokio::time::timeout(Duration::from_secs(60), self.http.request(req))
            .await
            .map_err(|_| WdaError::Unreachable(format!("{method} {uri}: no answer in 60 s")))?
            .map_err(|e| WdaError::Unreachable(format!("{method} {uri}: {e}")))?;
        let status = resp.status().as_u16();
        let bytes = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| WdaError::Unreachable(format!("{method} {uri}: reading the answer: {e}")))?
            .to_bytes();
        let v: Value = serde_json::from_slice(&bytes).map_err(|e| WdaError::Answer {
            status,
            error: "invalid answer".into(),
            message: format!(
                "{method} {path} answered {status} with no JSON ({e}): {}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(200)])
            ),
        })?;
        let value = v.get("value").cloned().unwrap_or(Value::Null);
        if let Some(err) = value.get("error").and_then(Value::as_str) {
            return Err(WdaError::Answer {
                status,
                error: err.to_string(),
                message: value.get("message").and_then(Value::as_str).unwrap_or("").to_string(),
            });
        }
        if status >= 400 {
            return Err(WdaError::Answer {
                status,
                error: "http".into(),
                message: format!("{method} {path} answered {status}"),
            });
        }
        Ok(value)
    }
}

fn wda_err(what: &str, e: WdaError) -> RigError {
    match e {
        WdaError::Unreachable(m) => RigError::Dead(format!("WebDriverAgent stopped answering ({what}): {m}")),
        WdaError::Answer { error, message, .. } => {
            RigError::Driver(format!("WebDriverAgent refused {what}: {error}: {message}"))
        }
    }
}

/// WDA rigs of this process, by WDA URL: one rig (one session) per WebDriverAgent.
static CLAIMED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// One iOS simulator driven through WebDriverAgent. See the module doc.
pub struct IosRig {
    wda: Wda,
    udid: String,
    xcrun: Option<PathBuf>,
    session: tokio::sync::Mutex<String>,
    /// The screen in points, and pixels per point.
    points: Mutex<(f64, f64, f64)>,
    map: Mutex<Option<ScreenMap>>,
    engine: String,
    claimed: AtomicBool,
    closed: AtomicBool,
}

impl std::fmt::Debug for IosRig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IosRig").field("wda", &self.wda.base()).field("udid", &self.udid).finish_non_exhaustive()
    }
}

impl IosRig {
    /// Checks in with WebDriverAgent and opens the rig's session.
    pub async fn connect(opts: IosOptions) -> Result<IosRig, RigError> {
        let wda = Wda::new(&opts.wda_url)?;
        wda.call("GET", "/status", None).await.map_err(|e| match e {
            WdaError::Unreachable(m) => RigError::Start(format!(
                "no WebDriverAgent answers at {} ({m}): start WebDriverAgentRunner on the simulator (Xcode: \
                 `xcodebuild test-without-building -scheme WebDriverAgentRunner -destination id=UDID`, or `xcrun simctl \
                 launch UDID com.facebook.WebDriverAgentRunner.xctrunner`), or point CC_WDA_URL at it",
                wda.base()
            )),
            other => wda_err("/status", other),
        })?;
        {
            let mut c = CLAIMED.lock().expect("claims");
            if c.contains(&wda.base().to_string()) {
                return Err(RigError::Start(format!(
                    "the WebDriverAgent at {} is already driven by another rig (one rig per simulator): use that rig \
                     (rig_list; pass its rig_id) or close it with rig_close",
                    wda.base()
                )));
            }
            c.push(wda.base().to_string());
        }
        let xcrun = opts.xcrun.or_else(|| crate::procs::which(&["xcrun"]));
        let engine = wda.base().trim_start_matches("http://").to_string();
        let rig = IosRig {
            wda,
            udid: opts.udid,
            xcrun,
            session: tokio::sync::Mutex::new(String::new()),
            points: Mutex::new((0.0, 0.0, 1.0)),
            map: Mutex::new(None),
            engine,
            claimed: AtomicBool::new(true),
            closed: AtomicBool::new(false),
        };
        // Dropping `rig` on an error below releases the claim.
        *rig.session.lock().await = rig.new_session().await?;
        rig.screen().await?;
        Ok(rig)
    }

    pub fn connect_boxed(opts: IosOptions) -> BoxFuture<'static, Result<Arc<dyn Rig>, RigError>> {
        Box::pin(async move { Ok(Arc::new(IosRig::connect(opts).await?) as Arc<dyn Rig>) })
    }

    async fn new_session(&self) -> Result<String, RigError> {
        let v = self
            .wda
            .call("POST", "/session", Some(json!({"capabilities": {"alwaysMatch": {"platformName": "iOS"}}})))
            .await
            .map_err(|e| wda_err("creating a session", e))?;
        v.get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| RigError::Driver(format!("WebDriverAgent created a session without a sessionId: {v}")))
    }

    /// A call on the rig's session (`/session/:id{path}`); a session WDA lost is created
    /// again once.
    async fn session_call(&self, path: &str, body: Value, what: &str) -> Result<Value, RigError> {
        let mut sid = self.session.lock().await;
        match self.wda.call("POST", &format!("/session/{sid}{path}"), Some(body.clone())).await {
            Err(WdaError::Answer { error, .. }) if error == "invalid session id" => {
                *sid = self.new_session().await?;
                self.wda.call("POST", &format!("/session/{sid}{path}"), Some(body)).await.map_err(|e| wda_err(what, e))
            }
            r => r.map_err(|e| wda_err(what, e)),
        }
    }

    /// The session id in use.
    pub async fn session_id(&self) -> String {
        self.session.lock().await.clone()
    }

    /// `/wda/screen`: the screen in points and its scale.
    async fn screen(&self) -> Result<(f64, f64, f64), RigError> {
        let v = self.wda.call("GET", "/wda/screen", None).await.map_err(|e| wda_err("/wda/screen", e))?;
        let w = v.pointer("/screenSize/width").and_then(Value::as_f64).unwrap_or(0.0);
        let h = v.pointer("/screenSize/height").and_then(Value::as_f64).unwrap_or(0.0);
        let s = v.get("scale").and_then(Value::as_f64).filter(|s| *s > 0.0).unwrap_or(1.0);
        if w <= 0.0 || h <= 0.0 {
            return Err(RigError::Driver(format!("WebDriverAgent's /wda/screen has no screen size: {v}")));
        }
        *self.points.lock().expect("points") = (w, h, s);
        Ok((w, h, s))
    }

    fn map(&self) -> ScreenMap {
        if let Some(m) = *self.map.lock().expect("map") {
            return m;
        }
        let (w, h, s) = *self.points.lock().expect("points");
        ScreenMap::of_screen((w * s).round() as u32, (h * s).round() as u32)
    }

    /// A point of the latest screenshot in WDA points.
    fn to_points(&self, fx: &'static str, fy: &'static str, x: f64, y: f64) -> Result<(f64, f64), RigError> {
        let (px, py) = self.map().to_real(fx, fy, x, y)?;
        let s = self.points.lock().expect("points").2;
        Ok((px as f64 / s, py as f64 / s))
    }

    /// The app's state (0 = not installed, 1 = not running, 2/3 = background, 4 = foreground).
    async fn app_state(&self, bundle: &str) -> Result<i64, RigError> {
        let v = self.session_call("/wda/apps/state", json!({"bundleId": bundle}), "/wda/apps/state").await?;
        Ok(v.as_i64().unwrap_or(0))
    }

    async fn need_installed(&self, bundle: &str) -> Result<(), RigError> {
        check_bundle(bundle)?;
        if self.app_state(bundle).await? == 0 {
            return Err(RigError::NotFound(format!(
                "app {bundle} is not installed on the simulator: install it with action install (an .app built for the simulator)"
            )));
        }
        Ok(())
    }

    async fn simctl(&self, what: &str, args: &[&str]) -> Result<std::process::Output, RigError> {
        let Some(xcrun) = &self.xcrun else {
            return Err(RigError::Driver(format!(
                "{what} needs Xcode's simctl (`xcrun simctl`), and this machine has no xcrun: run cc-server on the Mac \
                 that runs the simulator (WebDriverAgent cannot install, uninstall or erase apps, nor spawn processes)"
            )));
        };
        let out = tokio::process::Command::new(xcrun)
            .arg("simctl")
            .args(args)
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output()
            .await
            .map_err(|e| RigError::Driver(format!("running {} simctl: {e}", xcrun.display())))?;
        Ok(out)
    }

    async fn simctl_ok(&self, what: &str, args: &[&str]) -> Result<String, RigError> {
        let out = self.simctl(what, args).await?;
        if !out.status.success() {
            return Err(RigError::Driver(format!(
                "`xcrun simctl {}` failed ({}): {}",
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Runs one action.
    pub async fn act(&self, action: IosAction) -> Result<DeviceOutput, RigError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(RigError::Dead("the iOS rig is closed".into()));
        }
        let done = |summary: String| Ok(DeviceOutput { summary, ..DeviceOutput::default() });
        match action {
            IosAction::CheckIn => {
                let status = self.wda.call("GET", "/status", None).await.map_err(|e| wda_err("/status", e))?;
                let (w, h, s) = self.screen().await?;
                let (pw, ph) = ((w * s).round() as u32, (h * s).round() as u32);
                let map = ScreenMap::of_screen(pw, ph);
                let get = |p: &str| status.pointer(p).and_then(Value::as_str).unwrap_or("").to_string();
                let mut properties = vec![
                    ("wda_url".to_string(), self.wda.base().to_string()),
                    ("session".to_string(), self.session_id().await),
                    ("screen_points".to_string(), format!("{w}x{h}")),
                    ("scale".to_string(), s.to_string()),
                ];
                for (k, p) in [
                    ("os", "/os/name"),
                    ("sdk", "/os/sdkVersion"),
                    ("wda_build", "/build/productBundleIdentifier"),
                    ("state", "/state"),
                ] {
                    let v = get(p);
                    if !v.is_empty() {
                        properties.push((k.to_string(), v));
                    }
                }
                let info = DeviceInfo {
                    id: self.udid.clone(),
                    model: get("/device").to_string(),
                    os_version: format!("{} {}", get("/os/name"), get("/os/version")).trim().to_string(),
                    screen_width: pw,
                    screen_height: ph,
                    screenshot_scale: map.scale,
                    properties,
                    devices: Vec::new(),
                };
                Ok(DeviceOutput {
                    summary: format!(
                        "WebDriverAgent at {} ({}), screen {w}x{h} points x{s} = {pw}x{ph} pixels; screenshots come back {}x{}",
                        self.wda.base(),
                        info.os_version,
                        map.width,
                        map.height
                    ),
                    info: Some(info),
                    ..DeviceOutput::default()
                })
            }
            IosAction::Screenshot => {
                let v = self.wda.call("GET", "/screenshot", None).await.map_err(|e| wda_err("/screenshot", e))?;
                let b64 = v
                    .as_str()
                    .ok_or_else(|| RigError::Driver("WebDriverAgent's /screenshot has no base64 value".into()))?;
                let png = base64::engine::general_purpose::STANDARD
                    .decode(b64.trim())
                    .map_err(|e| RigError::Driver(format!("WebDriverAgent's screenshot is not base64: {e}")))?;
                let shot = scale_png(&png).map_err(RigError::Driver)?;
                *self.map.lock().expect("map") = Some(ScreenMap::of_shot(&shot));
                Ok(DeviceOutput {
                    summary: format!(
                        "screenshot: {}x{} real, returned {}x{} (scale {:.4})",
                        shot.real_width, shot.real_height, shot.width, shot.height, shot.scale
                    ),
                    image: Some(shot),
                    ..DeviceOutput::default()
                })
            }
            IosAction::Source { max_chars } => {
                let v = self.wda.call("GET", "/source?format=xml", None).await.map_err(|e| wda_err("/source", e))?;
                let xml = v.as_str().unwrap_or_default();
                let s = self.points.lock().expect("points").2;
                Ok(DeviceOutput {
                    summary: format!(
                        "page source: {} characters (x, y, width, height in points; x{s} = screen pixels)",
                        xml.chars().count()
                    ),
                    content: Some(fence("WebDriverAgent page source", xml, max_chars.unwrap_or(DEFAULT_MAX_CHARS))),
                    ..DeviceOutput::default()
                })
            }
            IosAction::Tap { x, y } => {
                let (px, py) = self.to_points("x", "y", x, y)?;
                self.session_call("/wda/tap", json!({"x": px, "y": py}), "tap").await?;
                done(format!("tapped ({x}, {y}) = ({px:.1}, {py:.1}) points"))
            }
            IosAction::Swipe { x, y, to_x, to_y, duration_ms } => {
                let (ax, ay) = self.to_points("x", "y", x, y)?;
                let (bx, by) = self.to_points("to_x", "to_y", to_x, to_y)?;
                let ms = duration_ms.unwrap_or(300);
                if !(1..=60_000).contains(&ms) {
                    return Err(RigError::invalid("duration_ms", format!("{ms} ms; give 1..60000")));
                }
                self.session_call(
                    "/wda/dragfromtoforduration",
                    json!({"fromX": ax, "fromY": ay, "toX": bx, "toY": by, "duration": ms as f64 / 1000.0}),
                    "swipe",
                )
                .await?;
                done(format!("swiped ({ax:.1}, {ay:.1}) -> ({bx:.1}, {by:.1}) points in {ms} ms"))
            }
            IosAction::Type { text } => {
                let n = text.chars().count();
                if n == 0 || n > MAX_TYPE_CHARS {
                    return Err(RigError::invalid("text", format!("{n} characters; give 1..{MAX_TYPE_CHARS}")));
                }
                self.session_call("/wda/keys", json!({"value": [text]}), "type").await?;
                done(format!("typed {n} characters"))
            }
            IosAction::PressButton { button } => {
                self.session_call("/wda/pressButton", json!({"name": button.wda_name()}), "press_button").await?;
                done(format!("pressed {}", button.wda_name()))
            }
            IosAction::Launch { bundle_id } => {
                self.need_installed(&bundle_id).await?;
                self.session_call("/wda/apps/launch", json!({"bundleId": bundle_id}), "launch").await?;
                done(format!("launched {bundle_id}"))
            }
            IosAction::Activate { bundle_id } => {
                self.need_installed(&bundle_id).await?;
                self.session_call("/wda/apps/activate", json!({"bundleId": bundle_id}), "activate").await?;
                done(format!("activated {bundle_id}"))
            }
            IosAction::Terminate { bundle_id } => {
                self.need_installed(&bundle_id).await?;
                let v = self.session_call("/wda/apps/terminate", json!({"bundleId": bundle_id}), "terminate").await?;
                done(if v.as_bool() == Some(false) {
                    format!("{bundle_id} was not running")
                } else {
                    format!("terminated {bundle_id}")
                })
            }
            IosAction::OpenUrl { url } => {
                let ok = url.split_once(':').is_some_and(|(s, _)| {
                    !s.is_empty()
                        && s.starts_with(|c: char| c.is_ascii_alphabetic())
                        && s.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
                });
                if !ok || url.len() > 8192 || url.chars().any(char::is_control) {
                    return Err(RigError::invalid("url", format!("'{url}' is not a URL or deep link (scheme:rest, e.g. https://example.com or myapp://item/1)")));
                }
                self.session_call("/url", json!({"url": url}), "open_url").await?;
                done(format!("opened {url}"))
            }
            IosAction::ClipboardRead { max_chars } => {
                let v = self
                    .wda
                    .call("POST", "/wda/getPasteboard", Some(json!({"contentType": "plaintext"})))
                    .await
                    .map_err(|e| wda_err("reading the pasteboard", e))?;
                let raw = base64::engine::general_purpose::STANDARD
                    .decode(v.as_str().unwrap_or("").trim())
                    .map_err(|e| RigError::Driver(format!("the pasteboard is not base64: {e}")))?;
                let text = String::from_utf8_lossy(&raw);
                Ok(DeviceOutput {
                    summary: format!("the pasteboard holds {} characters", text.chars().count()),
                    content: Some(fence("clipboard", &text, max_chars.unwrap_or(DEFAULT_MAX_CHARS))),
                    ..DeviceOutput::default()
                })
            }
            IosAction::ClipboardWrite { text } => {
                if text.len() > 1_000_000 {
                    return Err(RigError::invalid("text", format!("{} bytes; at most 1000000", text.len())));
                }
                let content = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
                self.wda
                    .call("POST", "/wda/setPasteboard", Some(json!({"content": content, "contentType": "plaintext"})))
                    .await
                    .map_err(|e| wda_err("setting the pasteboard", e))?;
                done(format!("put {} characters on the pasteboard", text.chars().count()))
            }
            IosAction::Install { path } => {
                let p = std::path::Path::new(&path);
                if !p.exists() {
                    return Err(RigError::invalid("path", format!("no app at '{path}' on the server's machine; give the path of a simulator .app folder or an .ipa")));
                }
                self.simctl_ok("install", &["install", &self.udid, &path]).await?;
                done(format!("installed {path}"))
            }
            IosAction::Uninstall { bundle_id } => {
                check_bundle(&bundle_id)?;
                self.simctl_ok("uninstall", &["uninstall", &self.udid, &bundle_id]).await?;
                done(format!("uninstalled {bundle_id}"))
            }
            IosAction::Erase => {
                self.simctl_ok("erase", &["erase", &self.udid]).await?;
                done(format!("erased simulator {}", self.udid))
            }
            IosAction::Command { argv, max_chars } => {
                if argv.is_empty() || argv[0].is_empty() {
                    return Err(RigError::invalid(
                        "argv",
                        "give the command as a non-empty list: [\"defaults\", \"read\"]",
                    ));
                }
                let mut args = vec!["spawn", self.udid.as_str()];
                args.extend(argv.iter().map(String::as_str));
                let out = self.simctl("command", &args).await?;
                let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
                if !out.stderr.is_empty() {
                    text.push_str("\n[stderr]\n");
                    text.push_str(&String::from_utf8_lossy(&out.stderr));
                }
                Ok(DeviceOutput {
                    summary: format!("ran {} in simulator {} ({})", argv[0], self.udid, out.status),
                    content: Some(fence(
                        &format!("output of {} in the simulator", argv[0]),
                        &text,
                        max_chars.unwrap_or(DEFAULT_MAX_CHARS),
                    )),
                    exit_code: out.status.code(),
                    ..DeviceOutput::default()
                })
            }
        }
    }

    fn release(&self) {
        if self.claimed.swap(false, Ordering::SeqCst) {
            CLAIMED.lock().expect("claims").retain(|u| u != self.wda.base());
        }
    }
}

fn check_bundle(b: &str) -> Result<(), RigError> {
    let ok = !b.is_empty()
        && b.len() <= 255
        && b.chars().all(|c| c.is_ascii_alphanumeric() || ".-_".contains(c))
        && !b.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(RigError::invalid(
            "bundle_id",
            format!("'{b}' is not a bundle id (letters, digits, '.', '-': com.example.app)"),
        ))
    }
}

impl Drop for IosRig {
    fn drop(&mut self) {
        self.release();
    }
}

impl Rig for IosRig {
    fn surface(&self) -> SurfaceKind {
        SurfaceKind::Ios
    }
    fn engine(&self) -> &str {
        &self.engine
    }
    fn display(&self) -> (u32, u32) {
        let (w, h, s) = *self.points.lock().expect("points");
        ((w * s).round() as u32, (h * s).round() as u32)
    }
    fn process_groups(&self) -> Vec<i32> {
        Vec::new()
    }
    fn alive(&self) -> BoxFuture<'_, bool> {
        Box::pin(
            async move { !self.closed.load(Ordering::SeqCst) && self.wda.call("GET", "/status", None).await.is_ok() },
        )
    }
    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if self.closed.swap(true, Ordering::SeqCst) {
                return;
            }
            let sid = self.session.lock().await.clone();
            if !sid.is_empty() {
                let _ = tokio::time::timeout(
                    Duration::from_secs(5),
                    self.wda.call("DELETE", &format!("/session/{sid}"), None),
                )
                .await;
            }
            self.release();
        })
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}
