//! Desktop rigs: a Linux desktop (Xvfb + openbox + xterm) in a Docker container, driven
//! through the Docker Engine API (bollard) with `docker exec` of xdotool, xclip and ImageMagick.
//!
//! ```no_run
//! # async fn demo() -> cc_rigs::desktop::Result<()> {
//! use cc_rigs::desktop::{connect, Desktop, DesktopAction, DesktopConfig};
//! let docker = connect().await?;
//! let desktop = Desktop::start(&docker, DesktopConfig::default()).await?;
//! desktop.act(DesktopAction::Click { x: Some(100), y: Some(100), button: Default::default(), clicks: 1 }).await?;
//! let shot = desktop.screenshot().await?; // PNG bytes at the display's real size
//! desktop.close().await?; // removes the container
//! # Ok(()) }
//! ```
//!
//! The engine is this machine's dockerd or one on another machine ([`Endpoint`]: the
//! Docker CLI's `DOCKER_HOST`, `DOCKER_TLS_VERIFY`, `DOCKER_CERT_PATH`; TCP with mutual
//! TLS, or ssh): every action goes through its API, so a remote desktop's screenshots and
//! input travel over that one connection.
//!
//! Containers start from the engine's image [`image_tag`] (`cc-server rigs build-image`), with
//! no network unless `egress`, memory and pids capped, every capability dropped, and the
//! labels [`LABEL_DESKTOP`] + the owner process, so [`cleanup_orphans`] can remove what a
//! crashed server left behind. Every action runs as an argv array (never a shell string
//! holding caller text) under a timeout.

mod action;
mod endpoint;
mod error;
mod image;
mod keys;
mod rig;
mod ssh;

pub use action::{
    DesktopAction, MouseButton, ScrollDirection, ACTION_NAMES, MAX_CLIPBOARD_BYTES, MAX_SIZE, MAX_TYPE_CHARS,
    MAX_WAIT_SECONDS, MIN_SIZE,
};
pub use endpoint::{Endpoint, LOCAL_SOCKET};
pub use error::{DesktopError, Result};
pub use image::{build_image, copy_image, image_exists, image_tag, BuiltImage, IMAGE_REPO, RECIPE};

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use bollard::exec::{CreateExecOptions, StartExecResults};
use bollard::models::{ContainerCreateBody, HostConfig};
use bollard::query_parameters::{
    CreateContainerOptionsBuilder, ListContainersOptionsBuilder, RemoveContainerOptionsBuilder,
};
use bollard::Docker;
use futures::StreamExt;

/// Label on every desktop container this crate starts (value `1`).
pub const LABEL_DESKTOP: &str = "cc-rigs.desktop";
/// Labels naming the process that owns the container (see [`Owner`]).
pub const LABEL_OWNER_HOST: &str = "cc-rigs.owner.host";
pub const LABEL_OWNER_BOOT: &str = "cc-rigs.owner.boot-id";
pub const LABEL_OWNER_PID: &str = "cc-rigs.owner.pid";
pub const LABEL_OWNER_START: &str = "cc-rigs.owner.start";

/// The X display inside the container.
const DISPLAY: &str = ":1";
/// Characters per `xdotool type` call and the delay between keystrokes (as Anthropic's
/// computer-use reference does).
const TYPE_CHUNK_CHARS: usize = 50;
const TYPE_DELAY_MS: &str = "12";

/// Connects to the engine the environment names ([`Endpoint::from_env`]: `DOCKER_HOST`,
/// else /var/run/docker.sock; TLS per `DOCKER_TLS_VERIFY` and `DOCKER_CERT_PATH`).
pub async fn connect() -> Result<Docker> {
    Endpoint::from_env().connect().await
}

/// Connects to the engine at `host` (`unix:///…`, `tcp://…` without TLS, `ssh://…`); for
/// TLS build an [`Endpoint`].
pub async fn connect_to(host: &str) -> Result<Docker> {
    Endpoint { host: host.to_string(), ..Endpoint::local() }.connect().await
}

/// The process a container belongs to: it is an orphan once this process is gone.
/// (host, boot id) tell machines and reboots apart; (pid, start time) survives pid reuse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub host: String,
    pub boot_id: String,
    pub pid: u32,
    /// Start time of the process in clock ticks after boot (/proc/PID/stat, field 22).
    pub start: u64,
}

impl Owner {
    /// This process.
    pub fn current() -> std::io::Result<Owner> {
        Owner::of_pid(std::process::id())
    }

    /// A running process of this machine.
    pub fn of_pid(pid: u32) -> std::io::Result<Owner> {
        Ok(Owner { host: hostname(), boot_id: boot_id(), pid, start: start_ticks(pid)? })
    }

    /// Is the owning process still running? Owners on other hosts count as alive (we cannot tell).
    pub fn is_alive(&self) -> bool {
        if self.host != hostname() {
            return true;
        }
        self.boot_id == boot_id() && start_ticks(self.pid).ok() == Some(self.start)
    }

    fn labels(&self) -> [(&'static str, String); 4] {
        [
            (LABEL_OWNER_HOST, self.host.clone()),
            (LABEL_OWNER_BOOT, self.boot_id.clone()),
            (LABEL_OWNER_PID, self.pid.to_string()),
            (LABEL_OWNER_START, self.start.to_string()),
        ]
    }

    fn from_labels(labels: &HashMap<String, String>) -> Option<Owner> {
        Some(Owner {
            host: labels.get(LABEL_OWNER_HOST)?.clone(),
            boot_id: labels.get(LABEL_OWNER_BOOT)?.clone(),
            pid: labels.get(LABEL_OWNER_PID)?.parse().ok()?,
            start: labels.get(LABEL_OWNER_START)?.parse().ok()?,
        })
    }
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|s| s.trim().to_string()).unwrap_or_default()
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id").map(|s| s.trim().to_string()).unwrap_or_default()
}

fn start_ticks(pid: u32) -> std::io::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name (field 2) is in parentheses and may hold spaces: count after the last ')'.
    let after = stat.rsplit_once(')').map(|(_, a)| a).unwrap_or("");
    after
        .split_whitespace()
        .nth(19) // field 22 overall = the 20th after "pid (comm)"
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("/proc/{pid}/stat: no start time")))
}

/// How to start a desktop.
#[derive(Clone, Debug)]
pub struct DesktopConfig {
    /// Image to run; `None`: [`image_tag`] (which must be built).
    pub image: Option<String>,
    /// Initial display size.
    pub width: u32,
    pub height: u32,
    /// Network access: false (default) starts the container with `--network none`.
    pub egress: bool,
    /// Memory cap in bytes (no swap beyond it).
    pub memory_bytes: i64,
    /// Most processes inside.
    pub pids_limit: i64,
    /// CPU cap in billionths of a CPU (`None`: no cap).
    pub nano_cpus: Option<i64>,
    /// Deadline of each action (a `wait` gets its own duration on top).
    pub action_timeout: Duration,
    /// Deadline for the desktop to become ready after the container starts.
    pub start_timeout: Duration,
    /// Extra labels (the pool puts rig, workspace and conversation ids here).
    pub labels: BTreeMap<String, String>,
    /// Owner recorded on the container; `None`: this process.
    pub owner: Option<Owner>,
    /// The engine the pool's factory starts it on, and that `Drop` removes it from
    /// (default: [`Endpoint::from_env`]). [`Desktop::start`] uses the client it is given.
    pub engine: Endpoint,
}

impl Default for DesktopConfig {
    fn default() -> Self {
        DesktopConfig {
            image: None,
            width: 1024,
            height: 768,
            egress: false,
            memory_bytes: 1 << 30,
            pids_limit: 512,
            nano_cpus: None,
            action_timeout: Duration::from_secs(30),
            start_timeout: Duration::from_secs(60),
            labels: BTreeMap::new(),
            owner: None,
            engine: Endpoint::from_env(),
        }
    }
}

/// A PNG of the display at its real size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Screenshot {
    pub png: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// What an action returns.
#[derive(Clone, Debug, PartialEq)]
pub enum ActionOutput {
    /// The action was done (move, click, drag, scroll, type, key, clipboard_write, wait).
    Done,
    Screenshot(Screenshot),
    Cursor {
        x: i64,
        y: i64,
    },
    /// The display's size after `resize`.
    Resized {
        width: u32,
        height: u32,
    },
    /// The clipboard's text (untrusted: fence it before showing it to a model).
    Clipboard {
        text: String,
    },
}

/// Keycodes of the X keyboard map that `type` binds to characters the map lacks.
#[derive(Debug, Default)]
struct Keymap {
    /// Keycodes with no keysym when the desktop started.
    spare: Vec<u8>,
    /// (character, keycode) bound so far, least recently used first.
    bound: Vec<(char, u8)>,
}

impl Keymap {
    /// Keycodes without keysyms in `xmodmap -pke` output ("keycode  93 =").
    fn spare_keycodes(pke: &str) -> Vec<u8> {
        pke.lines()
            .filter_map(|l| {
                let (code, syms) = l.strip_prefix("keycode")?.split_once('=')?;
                syms.trim().is_empty().then(|| code.trim().parse().ok()).flatten()
            })
            .collect()
    }

    /// Binds the characters of `chunk` that need a keycode and have none; returns the new
    /// bindings. `chunk` holds at most `spare.len()` such characters (chunks_for_keymap).
    fn bind(&mut self, chunk: &str) -> Vec<(u8, char)> {
        let mut new = Vec::new();
        let wanted: Vec<char> = {
            let mut v: Vec<char> = chunk.chars().filter(|c| action::needs_keycode(*c)).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        for &c in &wanted {
            if let Some(i) = self.bound.iter().position(|(b, _)| *b == c) {
                let entry = self.bound.remove(i);
                self.bound.push(entry); // most recently used
                continue;
            }
            let code = if self.bound.len() < self.spare.len() {
                let used: Vec<u8> = self.bound.iter().map(|(_, k)| *k).collect();
                self.spare.iter().copied().find(|k| !used.contains(k))
            } else {
                // Reuse the least recently used binding of a character this chunk does not type.
                let i = self.bound.iter().position(|(b, _)| !wanted.contains(b));
                i.map(|i| self.bound.remove(i).1)
            };
            let Some(code) = code else { continue }; // no spare keycodes: xdotool binds it itself
            self.bound.push((c, code));
            new.push((code, c));
        }
        new
    }
}

/// Output of one command run inside the container.
struct ExecOutput {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    code: i64,
}

/// One running desktop container. Actions take `&self`; the caller serialises them per rig.
/// `close` removes the container; dropping an open `Desktop` removes it too (blocking).
pub struct Desktop {
    docker: Docker,
    id: String,
    size: Mutex<(u32, u32)>,
    keymap: Mutex<Keymap>,
    config: DesktopConfig,
    /// The image it runs (the rig's engine).
    image: String,
    closed: AtomicBool,
}

impl std::fmt::Debug for Desktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desktop").field("id", &self.id).field("size", &self.display_size()).finish()
    }
}

impl Desktop {
    /// Starts a container and waits until its desktop is ready (Xvfb, window manager,
    /// a terminal window at the top left).
    pub async fn start(docker: &Docker, config: DesktopConfig) -> Result<Desktop> {
        let bad_size = |w: u32, h: u32| w < MIN_SIZE.0 || h < MIN_SIZE.1 || w > MAX_SIZE.0 || h > MAX_SIZE.1;
        if bad_size(config.width, config.height) {
            return Err(DesktopError::bad(
                "/width",
                format!(
                    "{}x{}: the display must be between {}x{} and {}x{}",
                    config.width, config.height, MIN_SIZE.0, MIN_SIZE.1, MAX_SIZE.0, MAX_SIZE.1
                ),
            ));
        }
        let image = config.image.clone().unwrap_or_else(image_tag);
        if !image_exists(docker, &image).await? {
            return Err(DesktopError::ImageMissing { tag: image });
        }
        let owner = match &config.owner {
            Some(o) => o.clone(),
            None => Owner::current()?,
        };
        let mut labels: HashMap<String, String> = config.labels.clone().into_iter().collect();
        labels.insert(LABEL_DESKTOP.into(), "1".into());
        for (k, v) in owner.labels() {
            labels.insert(k.into(), v);
        }
        let body = ContainerCreateBody {
            image: Some(image.clone()),
            env: Some(vec![
                format!("DISPLAY={DISPLAY}"),
                format!("CC_WIDTH={}", config.width),
                format!("CC_HEIGHT={}", config.height),
            ]),
            labels: Some(labels),
            network_disabled: Some(!config.egress),
            host_config: Some(HostConfig {
                network_mode: Some(if config.egress { "bridge" } else { "none" }.into()),
                memory: Some(config.memory_bytes),
                memory_swap: Some(config.memory_bytes),
                pids_limit: Some(config.pids_limit),
                nano_cpus: config.nano_cpus,
                cap_drop: Some(vec!["ALL".into()]),
                security_opt: Some(vec!["no-new-privileges".into()]),
                ..Default::default()
            }),
            ..Default::default()
        };
        let created = docker.create_container(Some(CreateContainerOptionsBuilder::default().build()), body).await?;
        let desktop = Desktop {
            docker: docker.clone(),
            id: created.id,
            size: Mutex::new((config.width, config.height)),
            keymap: Mutex::new(Keymap::default()),
            config,
            image,
            closed: AtomicBool::new(false),
        };
        // From here on a failure removes the container (close, or Drop).
        if let Err(e) = desktop.boot().await {
            let _ = desktop.close().await;
            return Err(e);
        }
        Ok(desktop)
    }

    async fn boot(&self) -> Result<()> {
        self.docker.start_container(&self.id, None::<bollard::query_parameters::StartContainerOptions>).await?;
        let secs = self.config.start_timeout.as_secs().max(1).to_string();
        let out = self
            .exec("start", &["cc-desktop-wait", &secs], self.config.start_timeout + Duration::from_secs(5))
            .await
            .map_err(|e| DesktopError::Start(e.to_string()))?;
        if out.code != 0 {
            let logs = self.logs().await;
            return Err(DesktopError::Start(format!(
                "cc-desktop-wait exited with {}: {}{}",
                out.code,
                String::from_utf8_lossy(&out.stderr).trim(),
                if logs.is_empty() { String::new() } else { format!("; container log: {logs}") }
            )));
        }
        // The keycodes free for typing characters the keyboard map lacks (see `type_text`).
        let map = self.run("start", &["xmodmap", "-pke"], self.config.action_timeout).await?;
        self.keymap.lock().expect("keymap lock").spare = Keymap::spare_keycodes(&String::from_utf8_lossy(&map));
        Ok(())
    }

    /// The last lines the container printed (for start errors).
    async fn logs(&self) -> String {
        let opts =
            bollard::query_parameters::LogsOptionsBuilder::default().stdout(true).stderr(true).tail("20").build();
        let mut stream = self.docker.logs(&self.id, Some(opts));
        let mut out = String::new();
        while let Some(Ok(line)) = stream.next().await {
            out.push_str(&line.to_string());
        }
        out.trim().replace('\n', " | ")
    }

    /// Types text. `xdotool type` binds a character the keyboard map lacks (é, ✓, 日) to a
    /// scratch keycode for one keystroke and then rebinds it, and a busy client that reads
    /// the map late sees the wrong character or none. So each chunk's missing characters
    /// are first bound to free keycodes with one `xmodmap` call and stay bound (least
    /// recently used bindings are reused when the free keycodes run out): xdotool then
    /// finds every character in the map and never rebinds while the client reads.
    async fn type_text(&self, text: &str) -> Result<()> {
        let spare = self.keymap.lock().expect("keymap lock").spare.len();
        for chunk in action::chunks_for_keymap(text, TYPE_CHUNK_CHARS, spare) {
            let bindings = self.keymap.lock().expect("keymap lock").bind(chunk);
            if !bindings.is_empty() {
                let mut argv = vec!["xmodmap".to_string()];
                for (code, c) in bindings {
                    let sym = format!("U{:04X}", c as u32);
                    argv.extend(["-e".to_string(), format!("keycode {code} = {sym} {sym}")]);
                }
                let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
                self.run("type", &argv, self.config.action_timeout).await?;
            }
            self.xdotool("type", &["type", "--delay", TYPE_DELAY_MS, "--", chunk]).await?;
        }
        Ok(())
    }

    /// The container id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The display size (width, height) in pixels, as of the last start or resize.
    pub fn display_size(&self) -> (u32, u32) {
        *self.size.lock().expect("size lock")
    }

    /// The configuration it was started with.
    pub fn config(&self) -> &DesktopConfig {
        &self.config
    }

    /// Runs one action (validated against the display first).
    pub async fn act(&self, action: DesktopAction) -> Result<ActionOutput> {
        self.check_open()?;
        let (w, h) = self.display_size();
        action.validate(w, h)?;
        let name = action.name();
        let t = self.config.action_timeout;
        match action {
            DesktopAction::Screenshot => self.screenshot().await.map(ActionOutput::Screenshot),
            DesktopAction::Move { x, y } => {
                // No `mousemove --sync`: it waits for the pointer to move and hangs when it is
                // already there. Without it the move is still done before the next action:
                // xdotool's X connection is synced when it exits.
                self.xdotool(name, &["mousemove", &x.to_string(), &y.to_string()]).await?;
                Ok(ActionOutput::Done)
            }
            DesktopAction::Click { x, y, button, clicks } => {
                let mut args: Vec<String> = Vec::new();
                if let (Some(x), Some(y)) = (x, y) {
                    args.extend(["mousemove".into(), x.to_string(), y.to_string()]);
                }
                args.extend(["click".into(), "--repeat".into(), clicks.to_string(), "--delay".into(), "10".into()]);
                args.push(button.x_button().into());
                self.xdotool(name, &args).await?;
                Ok(ActionOutput::Done)
            }
            DesktopAction::Drag { x, y, to_x, to_y, button } => {
                let b = button.x_button();
                // A move half-way between press and release: some toolkits start a drag only
                // after motion with the button down.
                let (mx, my) = ((x + to_x) / 2, (y + to_y) / 2);
                #[rustfmt::skip]
                let args = [
                    "mousemove", &x.to_string(), &y.to_string(), "mousedown", b,
                    "mousemove", &mx.to_string(), &my.to_string(),
                    "mousemove", &to_x.to_string(), &to_y.to_string(), "mouseup", b,
                ].map(String::from);
                self.xdotool(name, &args).await?;
                Ok(ActionOutput::Done)
            }
            DesktopAction::Scroll { direction, amount, x, y } => {
                let mut args: Vec<String> = Vec::new();
                if let (Some(x), Some(y)) = (x, y) {
                    args.extend(["mousemove".into(), x.to_string(), y.to_string()]);
                }
                args.extend(["click".into(), "--repeat".into(), amount.to_string(), "--delay".into(), "10".into()]);
                args.push(direction.x_button().into());
                self.xdotool(name, &args).await?;
                Ok(ActionOutput::Done)
            }
            DesktopAction::Type { text } => {
                self.type_text(&text).await?;
                Ok(ActionOutput::Done)
            }
            DesktopAction::Key { keys } => {
                let combos = keys::parse(&keys)?;
                let mut args = vec!["key".to_string(), "--".to_string()];
                args.extend(combos);
                self.xdotool(name, &args).await?;
                Ok(ActionOutput::Done)
            }
            DesktopAction::CursorPosition => {
                let out = self.run(name, &["xdotool", "getmouselocation", "--shell"], t).await?;
                let text = String::from_utf8_lossy(&out);
                let field =
                    |k: &str| text.lines().find_map(|l| l.strip_prefix(k).and_then(|v| v.trim().parse::<i64>().ok()));
                match (field("X="), field("Y=")) {
                    (Some(x), Some(y)) => Ok(ActionOutput::Cursor { x, y }),
                    _ => Err(DesktopError::ActionFailed {
                        action: name.into(),
                        code: 0,
                        stderr: format!("unexpected xdotool output: {text}"),
                    }),
                }
            }
            DesktopAction::Resize { width, height } => {
                let (w, h) = self.resize(width, height).await?;
                Ok(ActionOutput::Resized { width: w, height: h })
            }
            DesktopAction::ClipboardRead => {
                let out = self.exec(name, &["xclip", "-selection", "clipboard", "-o"], t).await?;
                if out.code != 0 {
                    let err = String::from_utf8_lossy(&out.stderr);
                    // xclip says so when nothing owns the clipboard: that is an empty clipboard.
                    if err.contains("target STRING not available") || err.contains("target UTF8_STRING not available") {
                        return Ok(ActionOutput::Clipboard { text: String::new() });
                    }
                    return Err(DesktopError::ActionFailed {
                        action: name.into(),
                        code: out.code,
                        stderr: err.trim().into(),
                    });
                }
                Ok(ActionOutput::Clipboard { text: String::from_utf8_lossy(&out.stdout).into_owned() })
            }
            DesktopAction::ClipboardWrite { text } => {
                self.run(name, &["cc-desktop-clip-set", &text], t).await?;
                Ok(ActionOutput::Done)
            }
            DesktopAction::Wait { seconds } => {
                tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
                self.check_alive().await?;
                Ok(ActionOutput::Done)
            }
        }
    }

    /// A PNG of the whole display, with its real size read from the PNG header.
    pub async fn screenshot(&self) -> Result<Screenshot> {
        self.check_open()?;
        let png = self.run("screenshot", &["import", "-window", "root", "png:-"], self.config.action_timeout).await?;
        let (width, height) = png_size(&png).ok_or_else(|| DesktopError::ActionFailed {
            action: "screenshot".into(),
            code: 0,
            stderr: format!("`import` did not return a PNG ({} bytes)", png.len()),
        })?;
        Ok(Screenshot { png, width, height })
    }

    /// Changes the display size: the image's `cc-desktop-resize` restarts Xvfb at the new
    /// size, and the window manager and the terminal with it (other windows close: Xvfb's
    /// RandR cannot grow its screen).
    /// Returns the size the display reports afterwards.
    pub async fn resize(&self, width: u32, height: u32) -> Result<(u32, u32)> {
        self.check_open()?;
        DesktopAction::Resize { width, height }.validate(width.max(1), height.max(1))?;
        let out = self
            .run("resize", &["cc-desktop-resize", &width.to_string(), &height.to_string()], self.config.action_timeout)
            .await?;
        let text = String::from_utf8_lossy(&out);
        let size = text.trim().split_once('x').and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)));
        let Some((w, h)) = size else {
            return Err(DesktopError::ActionFailed {
                action: "resize".into(),
                code: 0,
                stderr: format!("unexpected output: {text}"),
            });
        };
        *self.size.lock().expect("size lock") = (w, h);
        Ok((w, h))
    }

    /// Removes the container (idempotent). Later actions answer [`DesktopError::Closed`].
    pub async fn close(&self) -> Result<()> {
        if self.closed.load(Ordering::SeqCst) {
            return Ok(());
        }
        // Marked closed only once removed: a removal that fails (or is abandoned by a
        // timeout) is retried by `Drop`. Two closes racing both remove; the second gets 404.
        remove(&self.docker, &self.id).await?;
        self.closed.store(true, Ordering::SeqCst);
        Ok(())
    }

    /// Is the container still running? (For the pool: a dead desktop marks the rig failed.)
    pub async fn is_running(&self) -> bool {
        !self.closed.load(Ordering::SeqCst)
            && matches!(
                self.docker.inspect_container(&self.id, None::<bollard::query_parameters::InspectContainerOptions>).await,
                Ok(c) if c.state.as_ref().and_then(|s| s.running) == Some(true)
            )
    }

    fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(DesktopError::Closed { id: self.id.clone() });
        }
        Ok(())
    }

    async fn check_alive(&self) -> Result<()> {
        if self.is_running().await {
            Ok(())
        } else {
            Err(DesktopError::Gone { id: self.id.clone(), reason: "the container is not running".into() })
        }
    }

    async fn xdotool<S: AsRef<str>>(&self, action: &str, args: &[S]) -> Result<()> {
        let mut argv = vec!["xdotool"];
        argv.extend(args.iter().map(|a| a.as_ref()));
        let out = self.exec(action, &argv, self.config.action_timeout).await?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        // xdotool skips an unknown key name with a warning and exits 0: treat it as an error.
        if out.code != 0 || stderr.contains("No such key name") {
            return Err(DesktopError::ActionFailed {
                action: action.into(),
                code: out.code,
                stderr: stderr.trim().into(),
            });
        }
        Ok(())
    }

    /// Runs argv and returns stdout, or fails with stderr when the exit code is not 0.
    async fn run(&self, action: &str, argv: &[&str], timeout: Duration) -> Result<Vec<u8>> {
        let out = self.exec(action, argv, timeout).await?;
        if out.code != 0 {
            return Err(DesktopError::ActionFailed {
                action: action.into(),
                code: out.code,
                stderr: String::from_utf8_lossy(&out.stderr).trim().into(),
            });
        }
        Ok(out.stdout)
    }

    /// `docker exec` of an argv array (no shell), stdout and stderr collected, under `timeout`.
    async fn exec(&self, action: &str, argv: &[&str], timeout: Duration) -> Result<ExecOutput> {
        let work = async {
            let exec = self
                .docker
                .create_exec(
                    &self.id,
                    CreateExecOptions {
                        cmd: Some(argv.to_vec()),
                        attach_stdout: Some(true),
                        attach_stderr: Some(true),
                        tty: Some(false),
                        ..Default::default()
                    },
                )
                .await
                .map_err(|e| self.docker_error(e))?;
            let mut stdout = Vec::new();
            let mut stderr = Vec::new();
            if let StartExecResults::Attached { mut output, .. } =
                self.docker.start_exec(&exec.id, None).await.map_err(|e| self.docker_error(e))?
            {
                while let Some(frame) = output.next().await {
                    match frame? {
                        bollard::container::LogOutput::StdOut { message }
                        | bollard::container::LogOutput::Console { message } => stdout.extend_from_slice(&message),
                        bollard::container::LogOutput::StdErr { message } => stderr.extend_from_slice(&message),
                        bollard::container::LogOutput::StdIn { .. } => {}
                    }
                }
            }
            let code = self.docker.inspect_exec(&exec.id).await?.exit_code.unwrap_or(-1);
            Ok(ExecOutput { stdout, stderr, code })
        };
        match tokio::time::timeout(timeout, work).await {
            Ok(r) => r,
            Err(_) => Err(DesktopError::Timeout { action: action.into(), timeout }),
        }
    }

    /// A 404/409 on exec means the container is gone or stopped.
    fn docker_error(&self, e: bollard::errors::Error) -> DesktopError {
        match e {
            bollard::errors::Error::DockerResponseServerError { status_code: 404 | 409, message } => {
                DesktopError::Gone { id: self.id.clone(), reason: message }
            }
            e => e.into(),
        }
    }
}

impl Drop for Desktop {
    /// An open desktop that is dropped (a panic, a forgotten close) still removes its
    /// container: on a thread of its own with its own connection to the config's engine
    /// (the desktop's client may belong to a runtime that this very thread is blocking),
    /// waiting for it.
    fn drop(&mut self) {
        if *self.closed.get_mut() {
            return;
        }
        let id = self.id.clone();
        let engine = self.config.engine.clone();
        let handle = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            rt.block_on(async {
                let removed = async { remove(&engine.connect().await?, &id).await }.await;
                if let Err(e) = &removed {
                    tracing::warn!(container = %id, %engine, "removing a dropped desktop's container: {e}");
                }
                removed.ok()
            })
        });
        let _ = handle.join();
    }
}

async fn remove(docker: &Docker, id: &str) -> Result<()> {
    let opts = RemoveContainerOptionsBuilder::default().force(true).v(true).build();
    match docker.remove_container(id, Some(opts)).await {
        Ok(()) => Ok(()),
        // Already gone (removed from outside, or a second close racing us).
        Err(bollard::errors::Error::DockerResponseServerError { status_code: 404, .. }) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Width and height from a PNG's IHDR chunk, or None when `png` is not a PNG.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if png.len() < 24 || &png[..8] != SIGNATURE || &png[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((w, h))
}

/// A desktop container this crate started, as the daemon lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesktopContainer {
    pub id: String,
    pub labels: BTreeMap<String, String>,
    pub owner: Option<Owner>,
    /// Docker's state: running, exited, created, …
    pub state: String,
}

/// Every container (running or not) with the [`LABEL_DESKTOP`] label, and `extra` labels
/// (`key=value`) when given.
pub async fn list_desktops(docker: &Docker, extra: &[(&str, &str)]) -> Result<Vec<DesktopContainer>> {
    let mut label_filters = vec![format!("{LABEL_DESKTOP}=1")];
    label_filters.extend(extra.iter().map(|(k, v)| format!("{k}={v}")));
    let filters = HashMap::from([("label".to_string(), label_filters)]);
    let opts = ListContainersOptionsBuilder::default().all(true).filters(&filters).build();
    let list = docker.list_containers(Some(opts)).await?;
    Ok(list
        .into_iter()
        .filter_map(|c| {
            let labels = c.labels.unwrap_or_default();
            Some(DesktopContainer {
                id: c.id?,
                owner: Owner::from_labels(&labels),
                labels: labels.into_iter().collect(),
                state: c.state.map(|s| s.to_string()).unwrap_or_default(),
            })
        })
        .collect())
}

/// Removes the desktop containers whose owner process is gone (a server that crashed or
/// was killed), and labelled containers with no readable owner. Returns their ids.
/// Containers of live owners and of other hosts are left alone.
pub async fn cleanup_orphans(docker: &Docker) -> Result<Vec<String>> {
    let mut removed = Vec::new();
    for c in list_desktops(docker, &[]).await? {
        let orphan = match &c.owner {
            Some(o) => !o.is_alive(),
            None => true,
        };
        if orphan {
            tracing::info!(container = %c.id, owner = ?c.owner, "removing an orphaned desktop container");
            remove(docker, &c.id).await?;
            removed.push(c.id);
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keymap_binds_missing_characters_to_spare_keycodes_lru() {
        let pke = "keycode   8 =\nkeycode   9 = Escape NoSymbol Escape\nkeycode  93 =\nkeycode 97 = \n";
        let mut k = Keymap { spare: Keymap::spare_keycodes(pke), bound: Vec::new() };
        assert_eq!(k.spare, [8, 93, 97]);
        assert_eq!(k.bind("abc"), []);
        assert_eq!(k.bind("é✓é"), [(8, 'é'), (93, '✓')]);
        assert_eq!(k.bind("é日"), [(97, '日')]); // é already bound
                                                 // full: reuses the least recently used binding (✓) for ö, never one this chunk types
        assert_eq!(k.bind("öé"), [(93, 'ö')]);
        assert_eq!(k.bound, [('日', 97), ('é', 8), ('ö', 93)]);
    }

    #[test]
    fn png_size_reads_ihdr() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend(1024u32.to_be_bytes());
        png.extend(768u32.to_be_bytes());
        assert_eq!(png_size(&png), Some((1024, 768)));
        assert_eq!(png_size(b"GIF89a........................"), None);
        assert_eq!(png_size(&png[..20]), None);
    }

    #[test]
    fn owner_of_this_process_is_alive_and_round_trips() {
        let me = Owner::current().unwrap();
        assert!(me.is_alive());
        let labels: HashMap<String, String> = me.labels().into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        assert_eq!(Owner::from_labels(&labels), Some(me.clone()));
        let reused_pid = Owner { start: me.start + 1, ..me.clone() };
        assert!(!reused_pid.is_alive());
        let rebooted = Owner { boot_id: "another boot".into(), ..me.clone() };
        assert!(!rebooted.is_alive());
        let elsewhere = Owner { host: format!("{}-elsewhere", me.host), pid: u32::MAX, ..me };
        assert!(elsewhere.is_alive(), "owners on other hosts are not ours to judge");
    }

    #[test]
    fn start_ticks_survives_spaces_in_the_command_name() {
        // Our own stat parses; a made-up name with ") (" in it is handled by rsplit.
        assert!(start_ticks(std::process::id()).unwrap() > 0);
    }
}
