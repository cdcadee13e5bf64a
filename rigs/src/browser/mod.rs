//! browser_use: a headless browser over W3C WebDriver (fantoccini): chromium +
//! chromedriver, firefox-esr + geckodriver, WebKitGTK's MiniBrowser + WebKitWebDriver
//! (under its own Xvfb: MiniBrowser has no headless mode). Each local rig has its own driver
//! process group and a fresh profile in a temporary folder, removed on close. A rig of an
//! engine given a [`Remote`] endpoint (a Selenium Grid, a hosted service) starts nothing
//! here: its session is made there (`remote.rs`), and closing it ends that session.
//!
//! Elements are addressed by a ref from the latest snapshot (`s<generation>e<n>`; a ref of
//! an older snapshot, or whose element is gone, fails and says to take a new snapshot) or
//! by a CSS selector. No action runs caller-supplied JavaScript: the scripts here are
//! fixed (snapshot, console capture, reading values), callers' strings go in as arguments.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::elements::Element;
use fantoccini::error::{CmdError, ErrorStatus, NewSessionError};
use fantoccini::{Client, Locator};
use serde::Serialize;
use serde_json::{json, Value};

use crate::output::{self, Scaled, Untrusted};
use crate::procs::{self, Group};
use crate::{BoxFuture, Rig, RigError, SurfaceKind};

mod remote;
pub use remote::{merge_capabilities, Remote};

const SNAPSHOT_JS: &str = include_str!("snapshot.js");
const CONSOLE_JS: &str = include_str!("console.js");

/// The browser engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    Chromium,
    Firefox,
    Webkit,
}

impl Engine {
    pub const ALL: [Engine; 3] = [Engine::Chromium, Engine::Firefox, Engine::Webkit];

    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Firefox => "firefox",
            Engine::Webkit => "webkit",
        }
    }

    pub fn parse(s: &str) -> Result<Engine, RigError> {
        Engine::ALL.into_iter().find(|e| e.as_str() == s).ok_or_else(|| {
            RigError::invalid("engine", format!("unknown engine '{s}'; engines: chromium, firefox, webkit"))
        })
    }
}

/// How a browser rig starts.
#[derive(Clone, Debug)]
pub struct BrowserOptions {
    pub engine: Engine,
    /// Window size in CSS pixels.
    pub width: u32,
    pub height: u32,
    /// Origins (`https://example.com`, `http://127.0.0.1:8080`) navigation may reach; a
    /// navigation or redirect elsewhere is refused and the tab sent to about:blank. `None`:
    /// any http(s) origin.
    pub allowed_origins: Option<Vec<String>>,
    /// Make the session at this remote WebDriver endpoint instead of starting a driver here.
    pub remote: Option<Remote>,
}

impl BrowserOptions {
    pub fn new(engine: Engine) -> BrowserOptions {
        BrowserOptions { engine, width: 1280, height: 800, allowed_origins: None, remote: None }
    }
}

/// An element: a ref from the latest snapshot, or a CSS selector.
#[derive(Clone, Debug)]
pub enum Target {
    Ref(String),
    Selector(String),
}

/// What to wait for.
#[derive(Clone, Debug)]
pub enum WaitFor {
    /// An element matching this CSS selector.
    Selector(String),
    /// This text in the page's visible text.
    Text(String),
    /// The URL to change from what it is now (to one containing the given text, if any),
    /// and the document to finish loading.
    Navigation(Option<String>),
}

/// Tab operations.
#[derive(Clone, Debug)]
pub enum TabOp {
    List,
    Open(Option<String>),
    Switch(usize),
    Close(Option<usize>),
}

/// One browser action.
#[derive(Clone, Debug)]
pub enum BrowserAction {
    Navigate {
        url: String,
    },
    Back,
    Forward,
    Reload,
    Click {
        target: Target,
    },
    /// A point of the latest viewport screenshot (scaled coordinates; mapped back).
    ClickAt {
        x: f64,
        y: f64,
    },
    Fill {
        target: Target,
        text: String,
    },
    Type {
        target: Option<Target>,
        text: String,
    },
    Press {
        target: Option<Target>,
        key: String,
    },
    Select {
        target: Target,
        value: String,
    },
    Hover {
        target: Target,
    },
    Scroll {
        target: Option<Target>,
        dx: i64,
        dy: i64,
    },
    Wait {
        what: WaitFor,
        timeout: Duration,
    },
    Tabs(TabOp),
    Snapshot {
        max_lines: u32,
    },
    Text {
        target: Option<Target>,
        max_chars: usize,
    },
    Console {
        max_chars: usize,
    },
    ClipboardRead,
    ClipboardWrite {
        text: String,
    },
    Screenshot {
        target: Option<Target>,
    },
}

/// A tab in a result.
#[derive(Clone, Debug, Serialize)]
pub struct Tab {
    pub index: usize,
    pub current: bool,
    pub url: String,
    pub title: String,
}

/// What an action returns: a one-line summary, where the page is, and at most one of
/// fenced text or an image.
#[derive(Clone, Debug, Serialize)]
pub struct ActOutput {
    pub summary: String,
    pub url: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Untrusted>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tabs: Option<Vec<Tab>>,
    /// Element refs the snapshot handed out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refs: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<Scaled>,
}

struct State {
    /// The latest snapshot's generation (0: none yet).
    generation: u64,
    /// (scale, real width, real height) of the latest viewport screenshot.
    last_shot: Option<(f64, u32, u32)>,
    /// Tab handles in the order they were first seen: tab indices stay put (drivers do
    /// not promise an order for their window handles).
    tabs: Vec<fantoccini::wd::WindowHandle>,
}

/// Where a rig's browser runs.
enum Machine {
    /// Here: the driver's process group (the browser it started with it) and the profile.
    Local { group: Group, profile: Mutex<Option<tempfile::TempDir>> },
    /// A session at a remote endpoint (shown without credentials): nothing runs here.
    Remote { endpoint: String },
}

/// One browser: its WebDriver session, and its driver's process group and profile when it
/// runs here.
pub struct BrowserRig {
    engine: Engine,
    client: Client,
    machine: Machine,
    display: (u32, u32),
    dpr: f64,
    allowed: Option<Vec<String>>,
    /// The attribute snapshot refs live in, and the console buffer's name: random per rig,
    /// so a page cannot predict them.
    attr: String,
    console_key: String,
    state: tokio::sync::Mutex<State>,
    closed: AtomicBool,
}

fn cmd_err(e: CmdError) -> RigError {
    match e {
        CmdError::Standard(wd) => {
            let msg = wd.message.to_string();
            match wd.error {
                ErrorStatus::NoSuchElement => RigError::NotFound(format!("no such element: {msg}")),
                ErrorStatus::StaleElementReference => RigError::StaleRef(format!(
                    "the element is no longer on the page ({msg}); take a new snapshot (action extract, what snapshot)"
                )),
                ErrorStatus::InvalidSessionId | ErrorStatus::SessionNotCreated => {
                    let code = wd.error.to_string();
                    let said = if msg.contains(&code) { msg } else { format!("{code}: {msg}") };
                    RigError::Dead(format!("the browser session is gone: {said}"))
                }
                ErrorStatus::InvalidSelector => {
                    RigError::invalid("selector", format!("not a valid CSS selector: {msg}"))
                }
                ErrorStatus::NoSuchWindow => RigError::NotFound(format!("the tab is closed: {msg}; use tabs list")),
                s => RigError::Driver(format!("{s:?}: {msg}")),
            }
        }
        CmdError::Failed(e) => RigError::Dead(format!("lost the driver: {}", remote::chain(&e))),
        CmdError::FailedC(e) => RigError::Dead(format!("lost the driver: {}", remote::chain(&e))),
        CmdError::Lost(e) => RigError::Dead(format!("lost the driver: {}", remote::chain(&e))),
        CmdError::WaitTimeout => RigError::Timeout("timed out waiting".into()),
        other => RigError::Driver(other.to_string()),
    }
}

fn new_session_err(engine: Engine, e: NewSessionError, log: &str) -> RigError {
    RigError::Start(format!("{}: the driver refused a session: {e}{log}", engine.as_str()))
}

/// A new session a remote endpoint did not make: which endpoint, what it said.
fn remote_session_err(engine: Engine, endpoint: &str, e: NewSessionError) -> RigError {
    let what = engine.as_str();
    let short = |v: &Value| {
        let s = v.to_string();
        if s.chars().count() > 400 {
            format!("{}…", s.chars().take(400).collect::<String>())
        } else {
            s
        }
    };
    RigError::Start(match e {
        NewSessionError::SessionNotCreated(wd) => format!(
            "{what}: the WebDriver endpoint {endpoint} refused a new session (a grid answers so when it has no free slot for these capabilities); it said: {}",
            wd.message
        ),
        NewSessionError::Failed(e) => {
            format!("{what}: the WebDriver endpoint {endpoint} did not answer: {}", remote::chain(&e))
        }
        NewSessionError::FailedC(e) => {
            format!("{what}: the WebDriver endpoint {endpoint} did not answer: {}", remote::chain(&e))
        }
        NewSessionError::Lost(e) => format!(
            "{what}: the connection to the WebDriver endpoint {endpoint} was lost while it made the session: {}",
            remote::chain(&e)
        ),
        NewSessionError::NotW3C(v) => format!(
            "{what}: the WebDriver endpoint {endpoint} refused a new session with an answer that is not W3C WebDriver: {}",
            short(&v)
        ),
        NewSessionError::UnexpectedError(CmdError::Standard(wd)) => format!(
            "{what}: the WebDriver endpoint {endpoint} refused a new session ({:?}): {}",
            wd.error, wd.message
        ),
        NewSessionError::UnexpectedError(e) => {
            format!("{what}: the WebDriver endpoint {endpoint} refused a new session: {e}")
        }
        NewSessionError::BadWebdriverUrl(e) => format!("{what}: the WebDriver endpoint {endpoint}: {e}"),
    })
}

/// Where the driver and browser binaries are (each may be named by an environment variable).
fn find(env: &str, names: &[&str], what: &str, package: &str) -> Result<PathBuf, RigError> {
    if let Some(p) = std::env::var_os(env) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(RigError::Start(format!("{what}: {env}={} is not a file", p.display())))
        };
    }
    procs::which(names).ok_or_else(|| {
        RigError::Start(format!("{what} is not installed: none of {names:?} is on PATH ({package}; or set {env})"))
    })
}

/// The local driver of an engine: chromedriver, geckodriver, WebKitWebDriver (each may be
/// named by an environment variable: CC_CHROMEDRIVER, CC_GECKODRIVER, CC_WEBKITDRIVER).
pub fn local_driver(engine: Engine) -> Result<PathBuf, RigError> {
    match engine {
        Engine::Chromium => find("CC_CHROMEDRIVER", &["chromedriver"], "chromedriver", "Debian: chromium-driver"),
        Engine::Firefox => geckodriver(),
        Engine::Webkit => find("CC_WEBKITDRIVER", &["WebKitWebDriver"], "WebKitWebDriver", "Debian: webkit2gtk-driver"),
    }
}

/// The local browser of an engine (CC_CHROMIUM, CC_FIREFOX, CC_MINIBROWSER name one).
pub fn local_browser(engine: Engine) -> Result<PathBuf, RigError> {
    match engine {
        Engine::Chromium => {
            find("CC_CHROMIUM", &["chromium", "chromium-browser", "google-chrome"], "chromium", "Debian: chromium")
        }
        Engine::Firefox => find("CC_FIREFOX", &["firefox-esr", "firefox"], "firefox", "Debian: firefox-esr"),
        Engine::Webkit => minibrowser(),
    }
}

/// What names this machine in a local rig's capabilities: never sent to a remote endpoint.
struct Here {
    browser: PathBuf,
    /// The profile folder the browser gets.
    profile: PathBuf,
}

/// The session's capabilities: what every rig of the engine needs (headless, the window
/// size, no first-run noise), plus, for a local rig, the browser binary, the profile folder
/// and `--no-sandbox` when running as root (`here`).
fn engine_capabilities(engine: Engine, w: u32, h: u32, here: Option<&Here>) -> serde_json::Map<String, Value> {
    let caps = match engine {
        Engine::Chromium => {
            let mut args = vec![
                "--headless=new".to_string(),
                "--disable-dev-shm-usage".into(),
                "--disable-gpu".into(),
                "--no-first-run".into(),
                "--no-default-browser-check".into(),
                "--disable-background-networking".into(),
                "--disable-component-update".into(),
                "--disable-sync".into(),
                "--password-store=basic".into(),
                "--force-device-scale-factor=1".into(),
            ];
            if let Some(here) = here {
                args.push(format!("--user-data-dir={}", here.profile.display()));
            }
            args.push(format!("--window-size={w},{h}"));
            if here.is_some() && is_root() {
                // Chromium refuses to run as root with its sandbox.
                args.push("--no-sandbox".into());
            }
            let mut opts = json!({"args": args, "excludeSwitches": ["enable-automation"]});
            if let Some(here) = here {
                opts["binary"] = json!(here.browser);
            }
            json!({"browserName": "chrome", "goog:chromeOptions": opts})
        }
        Engine::Firefox => {
            let mut args = vec![json!("-headless")];
            if let Some(here) = here {
                args.extend([json!("-profile"), json!(here.profile)]);
            }
            args.extend([json!(format!("--width={w}")), json!(format!("--height={h}"))]);
            let mut opts = json!({
                "args": args,
                "prefs": {
                    "browser.shell.checkDefaultBrowser": false,
                    "datareporting.policy.dataSubmissionEnabled": false,
                    "app.update.auto": false,
                    "network.captive-portal-service.enabled": false,
                    "browser.safebrowsing.malware.enabled": false,
                    "browser.safebrowsing.phishing.enabled": false,
                    "layout.css.devPixelsPerPx": "1.0",
                },
            });
            if let Some(here) = here {
                opts["binary"] = json!(here.browser);
            }
            json!({"browserName": "firefox", "moz:firefoxOptions": opts})
        }
        Engine::Webkit => {
            let mut opts = json!({"args": ["--automation", format!("--geometry={w}x{h}")]});
            if let Some(here) = here {
                opts["binary"] = json!(here.browser);
            }
            json!({"browserName": "MiniBrowser", "webkitgtk:browserOptions": opts})
        }
    };
    match caps {
        Value::Object(m) => m,
        _ => unreachable!("capabilities are an object"),
    }
}

fn geckodriver() -> Result<PathBuf, RigError> {
    if let Ok(p) = find("CC_GECKODRIVER", &["geckodriver"], "geckodriver", "") {
        return Ok(p);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    let cache = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).unwrap_or_else(|| home.join(".cache"));
    for p in [cache.join("cc-server-ci/tools/bin/geckodriver"), home.join(".cargo/bin/geckodriver")] {
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(RigError::Start(
        "geckodriver is not installed: not on PATH, not in ~/.cache/cc-server-ci/tools/bin or ~/.cargo/bin (`cargo install geckodriver --locked`, as tests/run does; or set CC_GECKODRIVER)".into(),
    ))
}

fn minibrowser() -> Result<PathBuf, RigError> {
    if let Some(p) = std::env::var_os("CC_MINIBROWSER") {
        return Ok(PathBuf::from(p));
    }
    for lib in ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/usr/libexec"] {
        for v in ["webkit2gtk-4.1", "webkit2gtk-4.0", "webkitgtk-6.0"] {
            let p = PathBuf::from(lib).join(v).join("MiniBrowser");
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    Err(RigError::Start(
        "webkit: MiniBrowser is not installed (Debian: libwebkit2gtk-4.1-0 with webkit2gtk-driver; or set CC_MINIBROWSER)".into(),
    ))
}

/// A file in `~/.cache/cc-server/` (created), for state shared by every rig that is not
/// browsing state.
fn shared_cache(name: &str) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    let dir =
        std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).unwrap_or_else(|| home.join(".cache")).join("cc-server");
    let _ = std::fs::create_dir_all(&dir);
    dir.join(name)
}

fn log_tail(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().rev().take(8).collect();
    if lines.is_empty() {
        String::new()
    } else {
        format!("\n-- driver log, last lines:\n{}", lines.into_iter().rev().collect::<Vec<_>>().join("\n"))
    }
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

impl BrowserRig {
    /// Starts a browser rig; a boxed future for the pool's factory.
    pub fn launch_boxed(opts: BrowserOptions) -> BoxFuture<'static, Result<Arc<dyn Rig>, RigError>> {
        Box::pin(async move { BrowserRig::launch(opts).await.map(|r| Arc::new(r) as Arc<dyn Rig>) })
    }

    /// Starts the driver (and Xvfb for WebKit) in a new process group, opens a session with
    /// a fresh profile, sizes the window; with `opts.remote`, opens the session there instead.
    pub async fn launch(opts: BrowserOptions) -> Result<BrowserRig, RigError> {
        let allowed = match &opts.allowed_origins {
            None => None,
            Some(list) => Some(list.iter().map(|o| normalize_origin(o)).collect::<Result<Vec<_>, _>>()?),
        };
        match &opts.remote {
            Some(r) => BrowserRig::launch_remote(&opts, r, allowed).await,
            None => BrowserRig::launch_local(&opts, allowed).await,
        }
    }

    async fn launch_local(opts: &BrowserOptions, allowed: Option<Vec<String>>) -> Result<BrowserRig, RigError> {
        let engine = opts.engine;
        let profile = tempfile::Builder::new()
            .prefix(&format!("cc-rig-{}-", engine.as_str()))
            .tempdir()
            .map_err(|e| RigError::Start(format!("creating the rig's profile folder: {e}")))?;
        let dir = profile.path().to_path_buf();
        let log_path = dir.join("driver.log");
        let log = || -> Result<Stdio, RigError> {
            let f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&log_path)
                .map_err(|e| RigError::Start(format!("opening the driver log: {e}")))?;
            Ok(Stdio::from(f))
        };
        // The browser's own temporary files (Chromium's singleton socket folder, which a
        // killed browser leaves behind) go in the rig's folder too, removed with it.
        let tmp = dir.join("tmp");
        std::fs::create_dir_all(&tmp)
            .map_err(|e| RigError::Start(format!("creating the rig's temporary folder: {e}")))?;
        let port = procs::free_port()?;
        let (w, h) = (opts.width.clamp(200, 3840), opts.height.clamp(200, 2160));
        let driver = local_driver(engine)?;
        let browser = local_browser(engine)?;
        let group = match engine {
            Engine::Chromium => {
                let mut cmd = Command::new(driver);
                cmd.arg(format!("--port={port}")).env("TMPDIR", &tmp).stdout(log()?).stderr(log()?);
                Group::lead(&mut cmd, "chromium driver")?
            }
            Engine::Firefox => {
                std::fs::create_dir_all(dir.join("browser"))
                    .map_err(|e| RigError::Start(format!("creating the profile: {e}")))?;
                let mut cmd = Command::new(driver);
                cmd.args(["--host", "127.0.0.1", "--port", &port.to_string(), "--marionette-port", "0"])
                    .env("HOME", &dir)
                    .env("TMPDIR", &tmp)
                    .env("MOZ_CRASHREPORTER_DISABLE", "1")
                    .stdout(log()?)
                    .stderr(log()?);
                Group::lead(&mut cmd, "geckodriver")?
            }
            Engine::Webkit => {
                let xvfb = find("CC_XVFB", &["Xvfb"], "Xvfb (WebKit's display)", "Debian: xvfb")?;
                let mut x = Command::new(xvfb);
                x.args(["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", &format!("{}x{}x24", w + 64, h + 128)])
                    .stdout(Stdio::piped())
                    .stderr(log()?);
                let group = Group::lead(&mut x, "Xvfb")?;
                let display = read_display(&group).await?;
                let mut cmd = Command::new(driver);
                cmd.args(["--host=127.0.0.1", &format!("--port={port}")])
                    .env("DISPLAY", format!(":{display}"))
                    .env("HOME", &dir)
                    .env("TMPDIR", &tmp)
                    .env("XDG_CONFIG_HOME", dir.join("config"))
                    .env("XDG_CACHE_HOME", dir.join("cache"))
                    .env("XDG_DATA_HOME", dir.join("data"))
                    // GStreamer's plugin registry is no browsing state: one shared copy
                    // (an empty one per rig makes WebKit's first frames blank).
                    .env("GST_REGISTRY", shared_cache("gstreamer-registry.bin"))
                    .stdout(log()?)
                    .stderr(log()?);
                group.spawn(&mut cmd, "WebKitWebDriver")?;
                group
            }
        };
        let caps = engine_capabilities(engine, w, h, Some(&Here { browser, profile: dir.join("browser") }));
        // The driver listens once it is ready.
        let started = Instant::now();
        loop {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                break;
            }
            if let Some(why) = group.exited() {
                return Err(RigError::Start(format!(
                    "{}: the driver exited at start: {why}{}",
                    engine.as_str(),
                    log_tail(&log_path)
                )));
            }
            if started.elapsed() > Duration::from_secs(20) {
                return Err(RigError::Start(format!(
                    "{}: the driver did not listen on port {port} within 20 s{}",
                    engine.as_str(),
                    log_tail(&log_path)
                )));
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = fantoccini::ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .map_err(|e| new_session_err(engine, e, &log_tail(&log_path)))?;
        let machine = Machine::Local { group, profile: Mutex::new(Some(profile)) };
        BrowserRig::set_up(engine, client, machine, (w, h), allowed).await
    }

    /// A session at a remote endpoint: the engine's capabilities without what names this
    /// machine, the configured ones merged over them; nothing started here.
    async fn launch_remote(
        opts: &BrowserOptions,
        at: &Remote,
        allowed: Option<Vec<String>>,
    ) -> Result<BrowserRig, RigError> {
        let engine = opts.engine;
        let endpoint = at.endpoint();
        let (url, headers) = at
            .parts()
            .map_err(|e| RigError::Start(format!("{}: the remote WebDriver endpoint: {e}", engine.as_str())))?;
        let (w, h) = (opts.width.clamp(200, 3840), opts.height.clamp(200, 2160));
        let mut caps = engine_capabilities(engine, w, h, None);
        merge_capabilities(&mut caps, &at.capabilities);
        let connector = remote::Connector::new(headers).map_err(|e| {
            RigError::Start(format!("{}: the remote WebDriver endpoint {endpoint}: {e}", engine.as_str()))
        })?;
        tracing::info!(engine = engine.as_str(), %endpoint, "opening a browser session at a remote WebDriver endpoint");
        let client = fantoccini::ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(url.as_str())
            .await
            .map_err(|e| remote_session_err(engine, &endpoint, e))?;
        BrowserRig::set_up(engine, client, Machine::Remote { endpoint }, (w, h), allowed).await
    }

    /// Timeouts, the window size, and what the page sees of it; a session that fails here
    /// is ended.
    async fn set_up(
        engine: Engine,
        client: Client,
        machine: Machine,
        (w, h): (u32, u32),
        allowed: Option<Vec<String>>,
    ) -> Result<BrowserRig, RigError> {
        let setup = async {
            client
                .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
                    Some(Duration::from_secs(15)),
                    Some(Duration::from_secs(30)),
                    Some(Duration::ZERO),
                ))
                .await
                .map_err(cmd_err)?;
            if engine != Engine::Chromium {
                client.set_window_size(w, h).await.map_err(cmd_err)?;
            }
            let v = client
                .execute("return [window.innerWidth, window.innerHeight, window.devicePixelRatio];", vec![])
                .await
                .map_err(cmd_err)?;
            let num = |i: usize| v.get(i).and_then(Value::as_f64).unwrap_or(0.0);
            Ok::<_, RigError>(((num(0) as u32, num(1) as u32), if num(2) > 0.0 { num(2) } else { 1.0 }))
        };
        let (display, dpr) = match setup.await {
            Ok(v) => v,
            Err(e) => {
                let _ = tokio::time::timeout(Duration::from_secs(3), client.close()).await;
                let at = match &machine {
                    Machine::Remote { endpoint } => format!(" at {endpoint}"),
                    Machine::Local { .. } => String::new(),
                };
                return Err(RigError::Start(format!("{}: setting up the session{at}: {e}", engine.as_str())));
            }
        };
        let nonce = uuid::Uuid::new_v4().simple().to_string();
        Ok(BrowserRig {
            engine,
            client,
            machine,
            display,
            dpr,
            allowed,
            attr: format!("data-cc-{}", &nonce[..10]),
            console_key: format!("__cc_console_{}", &nonce[10..20]),
            state: tokio::sync::Mutex::new(State { generation: 0, last_shot: None, tabs: Vec::new() }),
            closed: AtomicBool::new(false),
        })
    }

    /// The temporary profile folder (gone after close; none for a remote rig).
    pub fn profile_dir(&self) -> Option<PathBuf> {
        match &self.machine {
            Machine::Local { profile, .. } => profile.lock().expect("profile").as_ref().map(|p| p.path().to_path_buf()),
            Machine::Remote { .. } => None,
        }
    }

    /// The remote endpoint the session is at (shown without credentials), for a remote rig.
    pub fn remote_endpoint(&self) -> Option<&str> {
        match &self.machine {
            Machine::Remote { endpoint } => Some(endpoint),
            Machine::Local { .. } => None,
        }
    }

    /// The WebDriver session's id.
    pub async fn session_id(&self) -> Option<String> {
        self.client.session_id().await.ok().flatten()
    }

    /// Runs one action. A remote session that is gone (the grid ended it, or stopped
    /// answering) fails with [`RigError::Dead`] naming the endpoint.
    pub async fn act(&self, action: BrowserAction) -> Result<ActOutput, RigError> {
        match (self.act_here(action).await, &self.machine) {
            (Err(RigError::Dead(why)), Machine::Remote { endpoint }) => Err(RigError::Dead(format!(
                "{why} (the session at the remote WebDriver endpoint {endpoint}: the grid ended it or stopped answering)"
            ))),
            (r, _) => r,
        }
    }

    async fn act_here(&self, action: BrowserAction) -> Result<ActOutput, RigError> {
        let mut st = self.state.lock().await;
        let mut out = ActOutput {
            summary: String::new(),
            url: String::new(),
            title: String::new(),
            content: None,
            tabs: None,
            refs: None,
            image: None,
        };
        let c = &self.client;
        match action {
            BrowserAction::Navigate { url } => {
                let u = self.check_url(&url)?;
                c.goto(u.as_str()).await.map_err(cmd_err)?;
                self.after_navigation().await?;
                out.summary = format!("navigated to {u}");
            }
            BrowserAction::Back => {
                c.back().await.map_err(cmd_err)?;
                self.after_navigation().await?;
                out.summary = "went back".into();
            }
            BrowserAction::Forward => {
                c.forward().await.map_err(cmd_err)?;
                self.after_navigation().await?;
                out.summary = "went forward".into();
            }
            BrowserAction::Reload => {
                c.refresh().await.map_err(cmd_err)?;
                self.after_navigation().await?;
                out.summary = "reloaded".into();
            }
            BrowserAction::Click { target } => {
                let (el, what) = self.resolve(&st, &target).await?;
                el.click().await.map_err(cmd_err)?;
                self.after_navigation().await?;
                out.summary = format!("clicked {what}");
            }
            BrowserAction::ClickAt { x, y } => {
                let (scale, rw, rh) = st.last_shot.ok_or_else(|| {
                    RigError::invalid(
                        "x",
                        "no viewport screenshot yet: take one (action screenshot) and give a point of it",
                    )
                })?;
                let (px, py) = output::to_real(scale, rw, rh, x, y);
                let (cx, cy) = (px as f64 / self.dpr, py as f64 / self.dpr);
                let mouse = MouseActions::new("mouse".into())
                    .then(PointerAction::MoveTo { duration: None, x: cx, y: cy })
                    .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
                    .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
                c.perform_actions(mouse).await.map_err(cmd_err)?;
                let _ = c.release_actions().await;
                self.after_navigation().await?;
                out.summary = format!("clicked at ({x}, {y}) of the screenshot = ({px}, {py}) real pixels");
            }
            BrowserAction::Fill { target, text } => {
                let (el, what) = self.resolve(&st, &target).await?;
                el.clear().await.map_err(cmd_err)?;
                if !text.is_empty() {
                    el.send_keys(&text).await.map_err(cmd_err)?;
                }
                out.summary = format!("filled {what} with {} characters", text.chars().count());
            }
            BrowserAction::Type { target, text } => {
                let (el, what) = match &target {
                    Some(t) => self.resolve(&st, t).await?,
                    None => (c.active_element().await.map_err(cmd_err)?, "the focused element".to_string()),
                };
                el.send_keys(&text).await.map_err(cmd_err)?;
                out.summary = format!("typed {} characters into {what}", text.chars().count());
            }
            BrowserAction::Press { target, key } => {
                let keys = parse_keys(&key)?;
                if let Some(t) = &target {
                    let (el, _) = self.resolve(&st, t).await?;
                    c.execute("arguments[0].focus();", vec![elem_arg(&el)]).await.map_err(cmd_err)?;
                }
                self.press(&keys).await?;
                self.after_navigation().await?;
                out.summary = format!("pressed {key}");
            }
            BrowserAction::Select { target, value } => {
                let (el, what) = self.resolve(&st, &target).await?;
                if el.select_by_label(&value).await.is_err() {
                    el.select_by_value(&value).await.map_err(|e| match cmd_err(e) {
                        RigError::NotFound(_) => {
                            RigError::NotFound(format!("{what} has no option labelled or valued '{value}'"))
                        }
                        other => other,
                    })?;
                }
                out.summary = format!("selected '{value}' in {what}");
            }
            BrowserAction::Hover { target } => {
                let (el, what) = self.resolve(&st, &target).await?;
                let mouse = MouseActions::new("mouse".into()).then(PointerAction::MoveToElement {
                    element: el,
                    duration: None,
                    x: 0.0,
                    y: 0.0,
                });
                c.perform_actions(mouse).await.map_err(cmd_err)?;
                out.summary = format!("hovering over {what}");
            }
            BrowserAction::Scroll { target, dx, dy } => {
                if let Some(t) = &target {
                    let (el, what) = self.resolve(&st, t).await?;
                    c.execute("arguments[0].scrollIntoView({block: 'center'});", vec![elem_arg(&el)])
                        .await
                        .map_err(cmd_err)?;
                    out.summary = format!("scrolled {what} into view");
                } else {
                    let v = c
                        .execute(
                            "window.scrollBy(arguments[0], arguments[1]); return [window.scrollX, window.scrollY];",
                            vec![json!(dx), json!(dy)],
                        )
                        .await
                        .map_err(cmd_err)?;
                    out.summary = format!("scrolled by ({dx}, {dy}); the page is at {v}");
                }
            }
            BrowserAction::Wait { what, timeout } => {
                out.summary = self.wait(what, timeout).await?;
            }
            BrowserAction::Tabs(op) => {
                out.summary = self.tabs(&mut st, op).await?;
                out.tabs = Some(self.tab_list(&mut st).await?);
            }
            BrowserAction::Snapshot { max_lines } => {
                st.generation += 1;
                let r = c
                    .execute(SNAPSHOT_JS, vec![json!(self.attr), json!(st.generation), json!(max_lines)])
                    .await
                    .map_err(cmd_err)?;
                let lines = r.get("lines").and_then(Value::as_str).unwrap_or_default();
                let refs = r.get("refs").and_then(Value::as_u64).unwrap_or(0) as u32;
                let cut = r.get("truncated").and_then(Value::as_bool).unwrap_or(false);
                let url = r.get("url").and_then(Value::as_str).unwrap_or_default();
                out.content = Some(output::fence(&format!("snapshot of {url}"), lines, 200_000));
                out.refs = Some(refs);
                out.summary = format!(
                    "snapshot {} with {refs} element refs (s{}e1…){}",
                    st.generation,
                    st.generation,
                    if cut {
                        format!(
                            "; cut at {max_lines} lines (ask for more with max_lines, or extract text of one element)"
                        )
                    } else {
                        String::new()
                    }
                );
            }
            BrowserAction::Text { target, max_chars } => {
                let (text, what) = match &target {
                    Some(t) => {
                        let (el, what) = self.resolve(&st, t).await?;
                        (el.text().await.map_err(cmd_err)?, what)
                    }
                    None => {
                        let v = c
                            .execute("return document.body ? document.body.innerText : '';", vec![])
                            .await
                            .map_err(cmd_err)?;
                        (v.as_str().unwrap_or_default().to_string(), "the page".to_string())
                    }
                };
                let url = c.current_url().await.map_err(cmd_err)?;
                out.content = Some(output::fence(&format!("text of {what} at {url}"), &text, max_chars));
                out.summary = format!("text of {what}: {} characters", text.chars().count());
            }
            BrowserAction::Console { max_chars } => {
                self.install_console().await;
                let v = c
                    .execute(
                        "const b = window[arguments[0]] || []; const out = b.splice(0, b.length); return out;",
                        vec![json!(self.console_key)],
                    )
                    .await
                    .map_err(cmd_err)?;
                let msgs = v.as_array().cloned().unwrap_or_default();
                let text: Vec<String> = msgs
                    .iter()
                    .map(|m| {
                        format!(
                            "[{}] {}",
                            m.get("level").and_then(Value::as_str).unwrap_or("log"),
                            m.get("text").and_then(Value::as_str).unwrap_or("")
                        )
                    })
                    .collect();
                let url = c.current_url().await.map_err(cmd_err)?;
                out.content = Some(output::fence(&format!("console of {url}"), &text.join("\n"), max_chars));
                out.summary = format!(
                    "{} console messages since the last read (captured from the end of each page load on)",
                    msgs.len()
                );
            }
            BrowserAction::ClipboardWrite { text } => {
                self.clipboard(Some(&text)).await?;
                out.summary = format!("wrote {} characters to the clipboard", text.chars().count());
            }
            BrowserAction::ClipboardRead => {
                let text = self.clipboard(None).await?;
                out.content = Some(output::fence("clipboard", &text, 100_000));
                out.summary = format!("the clipboard holds {} characters", text.chars().count());
            }
            BrowserAction::Screenshot { target } => {
                let (png, what) = match &target {
                    Some(t) => {
                        let (el, what) = self.resolve(&st, t).await?;
                        (el.screenshot().await.map_err(cmd_err)?, what)
                    }
                    None => (self.viewport_png().await?, "the viewport".to_string()),
                };
                let shot = output::scale_png(&png).map_err(RigError::Driver)?;
                if target.is_none() {
                    st.last_shot = Some((shot.scale, shot.real_width, shot.real_height));
                }
                out.summary = format!(
                    "screenshot of {what}: {}x{} (real {}x{}, scale {:.4}{})",
                    shot.width,
                    shot.height,
                    shot.real_width,
                    shot.real_height,
                    shot.scale,
                    if target.is_none() { "; click with x, y takes points of this image" } else { "" }
                );
                out.image = Some(shot);
            }
        }
        out.url = c.current_url().await.map(|u| u.to_string()).unwrap_or_default();
        out.title = c.title().await.unwrap_or_default();
        Ok(out)
    }

    /// A viewport capture. WebKitGTK under Xvfb may hand out a blank (one-colour) frame
    /// before it has painted: it is asked again for up to 3 s while that is so.
    async fn viewport_png(&self) -> Result<Vec<u8>, RigError> {
        let mut png = self.client.screenshot().await.map_err(cmd_err)?;
        if self.engine != Engine::Webkit {
            return Ok(png);
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(3) && output::is_blank(&png) {
            tokio::time::sleep(Duration::from_millis(100)).await;
            png = self.client.screenshot().await.map_err(cmd_err)?;
        }
        Ok(png)
    }

    /// Checks a URL a caller asked for: http(s) only (about:blank too), within the
    /// allowed origins.
    fn check_url(&self, raw: &str) -> Result<url::Url, RigError> {
        let u = url::Url::parse(raw.trim())
            .map_err(|e| RigError::invalid("url", format!("not an absolute URL ('{raw}'): {e}")))?;
        if u.as_str() == "about:blank" {
            return Ok(u);
        }
        if u.scheme() != "http" && u.scheme() != "https" {
            return Err(RigError::invalid(
                "url",
                format!(
                    "scheme '{}' is not allowed: http and https only (no file:, data: or javascript: URLs)",
                    u.scheme()
                ),
            ));
        }
        if !self.origin_allowed(&u) {
            return Err(RigError::Blocked(format!(
                "{} is not in this rig's allowed origins ({})",
                u.origin().ascii_serialization(),
                self.allowed.as_deref().unwrap_or_default().join(", ")
            )));
        }
        Ok(u)
    }

    fn origin_allowed(&self, u: &url::Url) -> bool {
        match &self.allowed {
            None => true,
            Some(list) => u.as_str() == "about:blank" || list.iter().any(|o| *o == u.origin().ascii_serialization()),
        }
    }

    /// After anything that may load a document: the landing URL must be allowed (else the
    /// tab goes to about:blank and the action fails), and the console hook is installed.
    async fn after_navigation(&self) -> Result<(), RigError> {
        if self.allowed.is_some() {
            let u = self.client.current_url().await.map_err(cmd_err)?;
            if !self.origin_allowed(&u) {
                let _ = self.client.goto("about:blank").await;
                return Err(RigError::Blocked(format!(
                    "the page went to {} (a link, script or redirect), which is not in this rig's allowed origins ({}); the tab was sent to about:blank",
                    u.origin().ascii_serialization(),
                    self.allowed.as_deref().unwrap_or_default().join(", ")
                )));
            }
        }
        self.install_console().await;
        Ok(())
    }

    async fn install_console(&self) {
        let _ = self.client.execute(CONSOLE_JS, vec![json!(self.console_key)]).await;
    }

    /// The element a target names, and how to name it in a summary.
    async fn resolve(&self, st: &State, target: &Target) -> Result<(Element, String), RigError> {
        match target {
            Target::Selector(sel) => {
                let el = self.client.find(Locator::Css(sel)).await.map_err(|e| match cmd_err(e) {
                    RigError::NotFound(_) => RigError::NotFound(format!("no element matches the selector '{sel}'")),
                    other => other,
                })?;
                Ok((el, format!("'{sel}'")))
            }
            Target::Ref(r) => {
                let gen = parse_ref(r)?;
                if st.generation == 0 {
                    return Err(RigError::StaleRef(format!(
                        "ref {r}: no snapshot was taken in this rig yet: take a new snapshot (action extract, what snapshot) and use its refs"
                    )));
                }
                if gen != st.generation {
                    return Err(RigError::StaleRef(format!(
                        "ref {r} is from snapshot {gen}, the latest is snapshot {}: take a new snapshot (action extract, what snapshot) and use its refs",
                        st.generation
                    )));
                }
                let css = format!("[{}=\"{r}\"]", self.attr);
                match self.client.find(Locator::Css(&css)).await {
                    Ok(el) => Ok((el, format!("ref {r}"))),
                    Err(e) => match cmd_err(e) {
                        RigError::NotFound(_) => Err(RigError::StaleRef(format!(
                            "ref {r} is no longer on the page (it changed or navigated since snapshot {gen}): take a new snapshot (action extract, what snapshot)"
                        ))),
                        other => Err(other),
                    },
                }
            }
        }
    }

    async fn press(&self, keys: &[char]) -> Result<(), RigError> {
        let mut seq = KeyActions::new("keyboard".into());
        for k in keys {
            seq = seq.then(KeyAction::Down { value: *k });
        }
        for k in keys.iter().rev() {
            seq = seq.then(KeyAction::Up { value: *k });
        }
        self.client.perform_actions(seq).await.map_err(cmd_err)?;
        let _ = self.client.release_actions().await;
        Ok(())
    }

    async fn wait(&self, what: WaitFor, timeout: Duration) -> Result<String, RigError> {
        let c = &self.client;
        let start = Instant::now();
        let from = c.current_url().await.map_err(cmd_err)?;
        loop {
            let done = match &what {
                WaitFor::Selector(sel) => match c.find(Locator::Css(sel)).await {
                    Ok(_) => Some(format!("'{sel}' is on the page")),
                    Err(e) => match cmd_err(e) {
                        RigError::NotFound(_) => None,
                        other => return Err(other),
                    },
                },
                WaitFor::Text(t) => {
                    let v = c
                        .execute(
                            "return !!document.body && document.body.innerText.includes(arguments[0]);",
                            vec![json!(t)],
                        )
                        .await
                        .map_err(cmd_err)?;
                    (v == Value::Bool(true)).then(|| format!("the text {t:?} is on the page"))
                }
                WaitFor::Navigation(want) => {
                    let now = c.current_url().await.map_err(cmd_err)?;
                    let ready = c.execute("return document.readyState;", vec![]).await.map_err(cmd_err)?;
                    let moved = match want {
                        Some(w) => now.as_str().contains(w.as_str()),
                        None => now != from,
                    };
                    (moved && ready == json!("complete")).then(|| format!("navigated to {now}"))
                }
            };
            if let Some(s) = done {
                if matches!(what, WaitFor::Navigation(_)) {
                    self.after_navigation().await?;
                }
                return Ok(format!("{s} (after {} ms)", start.elapsed().as_millis()));
            }
            if start.elapsed() >= timeout {
                let what = match &what {
                    WaitFor::Selector(s) => format!("an element matching '{s}'"),
                    WaitFor::Text(t) => format!("the text {t:?}"),
                    WaitFor::Navigation(Some(w)) => format!("a navigation to a URL containing '{w}'"),
                    WaitFor::Navigation(None) => format!("a navigation away from {from}"),
                };
                return Err(RigError::Timeout(format!(
                    "waited {} ms for {what}; it did not come",
                    timeout.as_millis()
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The tab handles, in stable order (known ones first, new ones appended).
    async fn handles(&self, st: &mut State) -> Result<Vec<fantoccini::wd::WindowHandle>, RigError> {
        let now = self.client.windows().await.map_err(cmd_err)?;
        st.tabs.retain(|h| now.contains(h));
        for h in now {
            if !st.tabs.contains(&h) {
                st.tabs.push(h);
            }
        }
        Ok(st.tabs.clone())
    }

    async fn tab_list(&self, st: &mut State) -> Result<Vec<Tab>, RigError> {
        let c = &self.client;
        let current = c.window().await.map_err(cmd_err)?;
        let handles = self.handles(st).await?;
        let mut tabs = Vec::new();
        for (i, h) in handles.iter().enumerate() {
            c.switch_to_window(h.clone()).await.map_err(cmd_err)?;
            tabs.push(Tab {
                index: i,
                current: *h == current,
                url: c.current_url().await.map(|u| u.to_string()).unwrap_or_default(),
                title: c.title().await.unwrap_or_default(),
            });
        }
        c.switch_to_window(current).await.map_err(cmd_err)?;
        Ok(tabs)
    }

    async fn tabs(&self, st: &mut State, op: TabOp) -> Result<String, RigError> {
        let c = &self.client;
        let handles = self.handles(st).await?;
        let nth = |i: usize| {
            handles.get(i).cloned().ok_or_else(|| {
                RigError::NotFound(format!(
                    "no tab {i}: there are {} tabs (0…{}); use tabs list",
                    handles.len(),
                    handles.len().saturating_sub(1)
                ))
            })
        };
        Ok(match op {
            TabOp::List => format!("{} tabs", handles.len()),
            TabOp::Open(url) => {
                let u = url.as_deref().map(|u| self.check_url(u)).transpose()?;
                let w = c.new_window(true).await.map_err(cmd_err)?;
                c.switch_to_window(w.handle).await.map_err(cmd_err)?;
                if let Some(u) = &u {
                    c.goto(u.as_str()).await.map_err(cmd_err)?;
                    self.after_navigation().await?;
                }
                format!("opened tab {}{}", handles.len(), u.map(|u| format!(" at {u}")).unwrap_or_default())
            }
            TabOp::Switch(i) => {
                c.switch_to_window(nth(i)?).await.map_err(cmd_err)?;
                format!("switched to tab {i}")
            }
            TabOp::Close(i) => {
                let current = c.window().await.map_err(cmd_err)?;
                let target = match i {
                    Some(i) => nth(i)?,
                    None => current.clone(),
                };
                if handles.len() == 1 {
                    return Err(RigError::invalid(
                        "tab",
                        "this is the rig's last tab; close the rig with rig_close instead",
                    ));
                }
                c.switch_to_window(target.clone()).await.map_err(cmd_err)?;
                c.close_window().await.map_err(cmd_err)?;
                let rest = self.handles(st).await?;
                let back = if target == current { rest[0].clone() } else { current };
                c.switch_to_window(back).await.map_err(cmd_err)?;
                format!("closed tab {}", i.map_or_else(|| "(the current one)".to_string(), |i| i.to_string()))
            }
        })
    }

    /// The browser's own clipboard, through a helper tab of about:blank (the page never
    /// sees it): write = select the text there and press Ctrl+C; read = Ctrl+V there.
    async fn clipboard(&self, write: Option<&str>) -> Result<String, RigError> {
        let c = &self.client;
        let back = c.window().await.map_err(cmd_err)?;
        let helper = c.new_window(true).await.map_err(cmd_err)?;
        c.switch_to_window(helper.handle.clone()).await.map_err(cmd_err)?;
        let r = async {
            c.goto("about:blank").await.map_err(cmd_err)?;
            c.execute(
                "document.body.innerHTML = ''; const t = document.createElement('textarea'); t.id = 'cc-clip'; document.body.appendChild(t); t.value = arguments[0]; t.focus(); t.select(); return true;",
                vec![json!(write.unwrap_or(""))],
            )
            .await
            .map_err(cmd_err)?;
            let ctrl = fantoccini::key::Key::Control.to_string().chars().next().expect("a key code");
            self.press(&[ctrl, if write.is_some() { 'c' } else { 'v' }]).await?;
            let v = c.execute("return document.getElementById('cc-clip').value;", vec![]).await.map_err(cmd_err)?;
            Ok::<_, RigError>(v.as_str().unwrap_or_default().to_string())
        }
        .await;
        let _ = c.close_window().await;
        c.switch_to_window(back).await.map_err(cmd_err)?;
        r
    }
}

fn elem_arg(el: &Element) -> Value {
    // The W3C element reference object.
    json!({"element-6066-11e4-a52e-4f735466cecf": el.element_id().to_string()})
}

/// `s3e12` -> 3 (the snapshot generation).
fn parse_ref(r: &str) -> Result<u64, RigError> {
    let bad =
        || RigError::invalid("ref", format!("'{r}' is not an element ref (refs look like s2e14, from a snapshot)"));
    let rest = r.strip_prefix('s').ok_or_else(bad)?;
    let (g, n) = rest.split_once('e').ok_or_else(bad)?;
    n.parse::<u64>().map_err(|_| bad())?;
    g.parse::<u64>().map_err(|_| bad())
}

/// `https://Example.com:443/x` -> `https://example.com`.
fn normalize_origin(o: &str) -> Result<String, RigError> {
    let u = url::Url::parse(o.trim()).map_err(|e| {
        RigError::invalid("allowed_origins", format!("'{o}' is not an origin like https://example.com: {e}"))
    })?;
    if u.scheme() != "http" && u.scheme() != "https" {
        return Err(RigError::invalid("allowed_origins", format!("'{o}': http and https origins only")));
    }
    Ok(u.origin().ascii_serialization())
}

/// `Control+Shift+K`, `Enter`, `a` -> WebDriver key codes (modifiers first).
pub fn parse_keys(spec: &str) -> Result<Vec<char>, RigError> {
    use fantoccini::key::Key;
    let code = |k: Key| k.to_string().chars().next().expect("a key code");
    let mut out = Vec::new();
    let parts: Vec<&str> = if spec == "+" { vec!["+"] } else { spec.split('+').collect() };
    for part in parts {
        let p = part.trim();
        let k = match p.to_ascii_lowercase().as_str() {
            "control" | "ctrl" => code(Key::Control),
            "shift" => code(Key::Shift),
            "alt" | "option" => code(Key::Alt),
            "meta" | "cmd" | "command" | "super" => code(Key::Meta),
            "enter" | "return" => code(Key::Enter),
            "tab" => code(Key::Tab),
            "escape" | "esc" => code(Key::Escape),
            "backspace" => code(Key::Backspace),
            "delete" | "del" => code(Key::Delete),
            "insert" => code(Key::Insert),
            "space" => ' ',
            "arrowup" | "up" => code(Key::Up),
            "arrowdown" | "down" => code(Key::Down),
            "arrowleft" | "left" => code(Key::Left),
            "arrowright" | "right" => code(Key::Right),
            "home" => code(Key::Home),
            "end" => code(Key::End),
            "pageup" => code(Key::PageUp),
            "pagedown" => code(Key::PageDown),
            "f1" => code(Key::F1),
            "f2" => code(Key::F2),
            "f3" => code(Key::F3),
            "f4" => code(Key::F4),
            "f5" => code(Key::F5),
            "f6" => code(Key::F6),
            "f7" => code(Key::F7),
            "f8" => code(Key::F8),
            "f9" => code(Key::F9),
            "f10" => code(Key::F10),
            "f11" => code(Key::F11),
            "f12" => code(Key::F12),
            _ if p.chars().count() == 1 => p.chars().next().expect("one char"),
            _ => {
                return Err(RigError::invalid(
                    "key",
                    format!("unknown key '{p}' in '{spec}': use one character or Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, F1-F12, joined to Control, Shift, Alt or Meta with '+'"),
                ))
            }
        };
        out.push(k);
    }
    Ok(out)
}

async fn read_display(group: &Group) -> Result<u32, RigError> {
    let out = group.take_stdout().ok_or_else(|| RigError::Start("Xvfb: no stdout to read the display from".into()))?;
    let read = tokio::task::spawn_blocking(move || {
        use std::io::BufRead;
        let mut line = String::new();
        let mut r = std::io::BufReader::new(out);
        r.read_line(&mut line).map(|_| line)
    });
    match tokio::time::timeout(Duration::from_secs(10), read).await {
        Ok(Ok(Ok(line))) => line
            .trim()
            .parse::<u32>()
            .map_err(|_| RigError::Start(format!("Xvfb did not report a display number (got {:?})", line.trim()))),
        Ok(Ok(Err(e))) => Err(RigError::Start(format!("Xvfb: reading its display: {e}"))),
        Ok(Err(e)) => Err(RigError::Start(format!("Xvfb: {e}"))),
        Err(_) => Err(RigError::Start("Xvfb did not start within 10 s".into())),
    }
}

impl Rig for BrowserRig {
    fn surface(&self) -> SurfaceKind {
        SurfaceKind::Browser
    }
    fn engine(&self) -> &str {
        self.engine.as_str()
    }
    fn display(&self) -> (u32, u32) {
        self.display
    }
    fn process_groups(&self) -> Vec<i32> {
        match &self.machine {
            Machine::Local { group, .. } => vec![group.pgid()],
            Machine::Remote { .. } => Vec::new(),
        }
    }
    /// Local: the driver runs and answers. Remote: the session answers (a window handle
    /// within 3 s); a session the grid ended answers "invalid session id".
    fn alive(&self) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            if self.closed.load(Ordering::SeqCst) {
                return false;
            }
            if let Machine::Local { group, .. } = &self.machine {
                if group.exited().is_some() {
                    return false;
                }
            }
            matches!(tokio::time::timeout(Duration::from_secs(3), self.client.window()).await, Ok(Ok(_)))
        })
    }
    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if self.closed.swap(true, Ordering::SeqCst) {
                return;
            }
            match &self.machine {
                Machine::Local { group, profile } => {
                    // End the session (the browser quits), then kill the group whatever is left.
                    if group.exited().is_none() {
                        let _ = tokio::time::timeout(Duration::from_secs(5), self.client.clone().close()).await;
                    }
                    group.kill();
                    drop(profile.lock().expect("profile").take());
                }
                // DELETE /session/<id>: the grid frees the slot.
                Machine::Remote { .. } => {
                    let _ = tokio::time::timeout(Duration::from_secs(5), self.client.clone().close()).await;
                }
            }
        })
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

impl Drop for BrowserRig {
    fn drop(&mut self) {
        // `Group` kills itself when dropped; the profile folder goes with its TempDir; a
        // remote session is ended by fantoccini when its last client handle goes (while the
        // runtime it was made on runs).
        self.closed.store(true, Ordering::SeqCst);
    }
}

impl std::fmt::Debug for BrowserRig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("BrowserRig");
        d.field("engine", &self.engine.as_str());
        match &self.machine {
            Machine::Local { group, .. } => d.field("process_group", &group.pgid()),
            Machine::Remote { endpoint } => d.field("remote", endpoint),
        };
        d.field("display", &self.display).field("closed", &self.closed.load(Ordering::SeqCst)).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_into_webdriver_codes() {
        assert_eq!(parse_keys("a").unwrap(), vec!['a']);
        assert_eq!(parse_keys("Control+a").unwrap(), vec!['\u{e009}', 'a']);
        assert_eq!(parse_keys("Enter").unwrap(), vec!['\u{e007}']);
        assert_eq!(parse_keys("+").unwrap(), vec!['+']);
        let e = parse_keys("Ctrl+Banana").unwrap_err();
        assert!(e.to_string().starts_with("key: unknown key 'Banana'"), "{e}");
    }

    #[test]
    fn refs_and_origins_parse() {
        assert_eq!(parse_ref("s3e12").unwrap(), 3);
        assert!(parse_ref("e12").unwrap_err().to_string().contains("not an element ref"));
        assert_eq!(normalize_origin("https://Example.com:443/x").unwrap(), "https://example.com");
        assert_eq!(normalize_origin("http://127.0.0.1:8080").unwrap(), "http://127.0.0.1:8080");
        assert!(normalize_origin("file:///etc").is_err());
        assert!(Engine::parse("safari").unwrap_err().to_string().contains("chromium, firefox, webkit"));
    }
}
