//! Android rigs over ADB: "drive this phone (or an emulator I boot) for an agent".
//!
//! [`AndroidRig`] talks to the ADB server (the host protocol, through [`adb::AdbServer`],
//! a small async client of our own) and through it to one device: the one the operator
//! names (`serial`, else `ANDROID_SERIAL`), or an emulator the rig boots when an Android
//! SDK `emulator` with an AVD is found. [`AndroidAction`] (serde `action` tag + JSON
//! Schema) is the mobile_use vocabulary; coordinates are points of the latest (scaled)
//! screenshot and map to device pixels through [`ScreenMap`].
//!
//! Every command is an argv whose elements are quoted for the device's `sh` one by one
//! ([`adb::command_line`]): nothing a caller gives is re-split by the device.
//!
//! Closing a rig on a named device does not touch the device beyond the rig's own
//! traces: it force-stops the apps the rig started and forgets the device (its claim is
//! released, so another rig may take it). An emulator the rig booted is killed (it was
//! started with `-wipe-data -no-snapshot-save`: nothing is kept).

pub mod adb;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::device::{DeviceInfo, DeviceOutput, ScreenMap};
use crate::output::{fence, scale_png};
use crate::{procs, BoxFuture, Rig, RigError, SurfaceKind};
use adb::{command_line, AdbServer, ShellOutput};

/// Most characters one `type` may send.
pub const MAX_TYPE_CHARS: usize = 10_000;
/// Most bytes of all argv elements of one `command`.
pub const MAX_ARGV_BYTES: usize = 100_000;
/// Largest APK `install` pushes.
pub const MAX_APK_BYTES: u64 = 1 << 30;
/// How often `ui_dump` asks uiautomator before giving up (it answers "null root node"
/// while the screen changes).
pub const UI_DUMP_TRIES: u32 = 5;
/// Default characters of fenced text.
pub const DEFAULT_MAX_CHARS: usize = 20_000;

/// One action on an Android device. JSON: `{"action": "tap", "x": 100, "y": 200}`.
/// Coordinates are pixels of the latest screenshot this rig returned (scaled to fit
/// 1366x768); before any screenshot, of the screenshot the screen would give.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum AndroidAction {
    /// The devices the ADB server lists, this device's properties and screen size.
    CheckIn,
    /// A PNG of the screen (`screencap -p`).
    Screenshot,
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
    /// Hold (x, y) for `duration_ms` (default 1000).
    LongPress {
        x: f64,
        y: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u32>,
    },
    /// Printable ASCII, newlines (Enter) and tabs, through `input text`.
    Type {
        text: String,
    },
    /// A key event: `HOME`, `BACK`, `ENTER`, `KEYCODE_VOLUME_UP`, or a key code number.
    Key {
        key: String,
    },
    /// Install (or replace) the APK at `path` on the server's machine.
    Install {
        path: String,
    },
    /// Start `package`'s launcher activity, or `activity` (`.Main`, `com.x.Main`).
    Start {
        package: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        activity: Option<String>,
    },
    /// Force-stop an app.
    Stop {
        package: String,
    },
    /// Clear an app's data (`pm clear`).
    Reset {
        package: String,
    },
    Uninstall {
        package: String,
    },
    /// Open a URL or deep link (`am start -a android.intent.action.VIEW -d URL`), in
    /// `package` when given.
    OpenUrl {
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        package: Option<String>,
    },
    /// The UI hierarchy (uiautomator): one line per element with its text, id and bounds.
    UiDump {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_chars: Option<usize>,
    },
    /// A command on the device, as an argv: each element arrives as one argument.
    Command {
        argv: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_chars: Option<usize>,
    },
}

/// How to find the device: the ADB server, the device's serial, and (without a serial)
/// the Android SDK whose emulator the rig may boot.
#[derive(Clone, Debug)]
pub struct AndroidOptions {
    pub server: AdbServer,
    /// The device to drive; `None`: `ANDROID_SERIAL`, else an emulator the rig boots.
    pub serial: Option<String>,
    /// The Android SDK (`ANDROID_HOME`, `ANDROID_SDK_ROOT`, else `emulator` on PATH).
    pub sdk: Option<PathBuf>,
    /// The AVD an emulator boots (default: the first `emulator -list-avds` names).
    pub avd: Option<String>,
}

impl AndroidOptions {
    /// The server and SDK from the environment (`ANDROID_ADB_SERVER_PORT`,
    /// `ANDROID_HOME` / `ANDROID_SDK_ROOT`), the serial given or `ANDROID_SERIAL`.
    pub fn from_env(serial: Option<String>) -> AndroidOptions {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        AndroidOptions {
            server: AdbServer::from_env(),
            serial: serial.or_else(|| env("ANDROID_SERIAL")),
            sdk: env("ANDROID_HOME").or_else(|| env("ANDROID_SDK_ROOT")).map(PathBuf::from),
            avd: env("CC_ANDROID_AVD"),
        }
    }
}

/// Devices driven by a rig of this process: one rig per device.
static CLAIMED: Mutex<BTreeSet<(String, String)>> = Mutex::new(BTreeSet::new());

struct Claim {
    key: (String, String),
}

impl Claim {
    fn take(server: &AdbServer, serial: &str) -> Result<Claim, RigError> {
        let key = (server.addr.to_string(), serial.to_string());
        let mut c = CLAIMED.lock().expect("claims");
        if !c.insert(key.clone()) {
            return Err(RigError::invalid(
                "serial",
                format!(
                    "device {serial} is already driven by another rig (one rig per device): use that rig (rig_list \
                     shows it; pass its rig_id) or close it with rig_close"
                ),
            ));
        }
        Ok(Claim { key })
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        CLAIMED.lock().expect("claims").remove(&self.key);
    }
}

/// One Android device driven over ADB. See the module doc.
pub struct AndroidRig {
    server: AdbServer,
    serial: String,
    /// Shell protocol v2 (exit status, separate stderr) is available.
    v2: bool,
    screen: Mutex<(u32, u32)>,
    map: Mutex<Option<ScreenMap>>,
    /// Packages this rig started (force-stopped on close).
    started: Mutex<BTreeSet<String>>,
    emulator: Mutex<Option<procs::Group>>,
    claim: Mutex<Option<Claim>>,
    closed: AtomicBool,
}

impl std::fmt::Debug for AndroidRig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AndroidRig").field("serial", &self.serial).finish_non_exhaustive()
    }
}

fn devices_text(list: &[adb::DeviceEntry]) -> String {
    if list.is_empty() {
        "none".into()
    } else {
        list.iter().map(|d| format!("{} ({})", d.serial, d.state)).collect::<Vec<_>>().join(", ")
    }
}

/// The SDK's emulator binary, if any.
fn find_emulator(sdk: Option<&Path>) -> Option<PathBuf> {
    if let Some(root) = sdk {
        let p = root.join("emulator").join("emulator");
        if p.is_file() {
            return Some(p);
        }
    }
    procs::which(&["emulator"])
}

impl AndroidRig {
    /// Checks in with the device named by `opts` (or boots an emulator), claiming it.
    pub async fn connect(opts: AndroidOptions) -> Result<AndroidRig, RigError> {
        let server = opts.server.clone();
        let devices = server.devices().await?;
        let (serial, emulator) = match &opts.serial {
            Some(serial) => {
                let Some(d) = devices.iter().find(|d| d.serial == *serial) else {
                    return Err(RigError::invalid(
                        "serial",
                        format!(
                            "no device '{serial}' on the ADB server at {}; it lists: {} (connect a network device with \
                             `adb connect HOST:PORT`)",
                            server.addr,
                            devices_text(&devices)
                        ),
                    ));
                };
                if d.state != "device" {
                    let hint = match d.state.as_str() {
                        "unauthorized" => "accept this computer's RSA key on the device (USB debugging prompt)",
                        "offline" => {
                            "the device does not answer: reconnect it (`adb reconnect offline`) or restart its adbd"
                        }
                        _ => "boot it into Android",
                    };
                    return Err(RigError::Start(format!(
                        "device {serial} is {} on the ADB server at {}, not ready: {hint}",
                        d.state, server.addr
                    )));
                }
                (serial.clone(), None)
            }
            None => match find_emulator(opts.sdk.as_deref()) {
                Some(bin) => {
                    let (group, serial) = boot_emulator(&server, &bin, opts.avd.as_deref()).await?;
                    (serial, Some(group))
                }
                None => {
                    return Err(RigError::Start(format!(
                    "no device named and no emulator to boot: pass serial (or set ANDROID_SERIAL) to drive a device \
                         of the ADB server at {} (it lists: {}), or install the Android SDK emulator with an AVD \
                         (ANDROID_HOME or ANDROID_SDK_ROOT, or `emulator` on PATH) for the rig to boot one",
                    server.addr,
                    devices_text(&devices)
                )))
                }
            },
        };
        let claim = Claim::take(&server, &serial)?;
        let features = server.features(&serial).await.unwrap_or_default();
        let rig = AndroidRig {
            server,
            v2: features.iter().any(|f| f == "shell_v2"),
            serial,
            screen: Mutex::new((0, 0)),
            map: Mutex::new(None),
            started: Mutex::new(BTreeSet::new()),
            emulator: Mutex::new(emulator),
            claim: Mutex::new(Some(claim)),
            closed: AtomicBool::new(false),
        };
        let size = rig.screen_size().await?;
        *rig.screen.lock().expect("screen") = size;
        Ok(rig)
    }

    /// [`AndroidRig::connect`] as the pool's factory wants it.
    pub fn connect_boxed(opts: AndroidOptions) -> BoxFuture<'static, Result<Arc<dyn Rig>, RigError>> {
        Box::pin(async move { Ok(Arc::new(AndroidRig::connect(opts).await?) as Arc<dyn Rig>) })
    }

    pub fn serial(&self) -> &str {
        &self.serial
    }

    /// Runs an argv on the device (each element quoted for its shell).
    pub async fn run<S: AsRef<str>>(&self, argv: &[S]) -> Result<ShellOutput, RigError> {
        self.server.shell(&self.serial, &command_line(argv), self.v2).await
    }

    /// Runs an argv and returns its output as text; a non-zero exit is a driver error.
    async fn run_ok<S: AsRef<str>>(&self, argv: &[S]) -> Result<String, RigError> {
        let out = self.run(argv).await?;
        if out.exit.is_some_and(|c| c != 0) {
            return Err(RigError::Driver(format!(
                "`{}` failed on {} (exit {}): {}",
                argv.iter().map(|a| a.as_ref()).collect::<Vec<_>>().join(" "),
                self.serial,
                out.exit.unwrap_or(0),
                out.text().trim()
            )));
        }
        Ok(out.text())
    }

    /// `wm size`: the override size when one is set, else the physical size.
    async fn screen_size(&self) -> Result<(u32, u32), RigError> {
        let text = self.run_ok(&["wm", "size"]).await?;
        parse_wm_size(&text).ok_or_else(|| {
            RigError::Driver(format!("`wm size` on {} answered '{}', not a size", self.serial, text.trim()))
        })
    }

    fn map(&self) -> ScreenMap {
        if let Some(m) = *self.map.lock().expect("map") {
            return m;
        }
        let (w, h) = *self.screen.lock().expect("screen");
        ScreenMap::of_screen(w, h)
    }

    async fn installed(&self, package: &str) -> Result<bool, RigError> {
        let out = self.run(&["pm", "path", package]).await?;
        Ok(String::from_utf8_lossy(&out.stdout).lines().any(|l| l.starts_with("package:")))
    }

    async fn need_installed(&self, package: &str) -> Result<(), RigError> {
        if self.installed(package).await? {
            Ok(())
        } else {
            Err(RigError::NotFound(format!(
                "package {package} is not installed on {}: install its APK with action install (check_in lists \
                 nothing of apps; `command` with argv [\"pm\", \"list\", \"packages\"] does)",
                self.serial
            )))
        }
    }

    async fn packages(&self) -> Result<BTreeSet<String>, RigError> {
        let text = self.run_ok(&["pm", "list", "packages"]).await?;
        Ok(text.lines().filter_map(|l| l.trim().strip_prefix("package:")).map(str::to_string).collect())
    }

    /// Runs one action.
    pub async fn act(&self, action: AndroidAction) -> Result<DeviceOutput, RigError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(RigError::Dead(format!("the rig of {} is closed", self.serial)));
        }
        let done = |summary: String| Ok(DeviceOutput { summary, ..DeviceOutput::default() });
        match action {
            AndroidAction::CheckIn => self.check_in().await,
            AndroidAction::Screenshot => {
                let png = self.server.exec(&self.serial, "screencap -p").await?;
                if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
                    return Err(RigError::Driver(format!(
                        "`screencap -p` on {} did not answer a PNG: {}",
                        self.serial,
                        String::from_utf8_lossy(&png[..png.len().min(200)]).trim()
                    )));
                }
                let shot = scale_png(&png).map_err(RigError::Driver)?;
                *self.map.lock().expect("map") = Some(ScreenMap::of_shot(&shot));
                *self.screen.lock().expect("screen") = (shot.real_width, shot.real_height);
                Ok(DeviceOutput {
                    summary: format!(
                        "screenshot of {}: {}x{} real, returned {}x{} (scale {:.4})",
                        self.serial, shot.real_width, shot.real_height, shot.width, shot.height, shot.scale
                    ),
                    image: Some(shot),
                    ..DeviceOutput::default()
                })
            }
            AndroidAction::Tap { x, y } => {
                let (rx, ry) = self.map().to_real("x", "y", x, y)?;
                self.run_ok(&["input", "tap", &rx.to_string(), &ry.to_string()]).await?;
                done(format!("tapped ({x}, {y}) = device pixel ({rx}, {ry})"))
            }
            AndroidAction::Swipe { x, y, to_x, to_y, duration_ms } => {
                let m = self.map();
                let (ax, ay) = m.to_real("x", "y", x, y)?;
                let (bx, by) = m.to_real("to_x", "to_y", to_x, to_y)?;
                let ms = duration(duration_ms, 300)?;
                self.run_ok(&[
                    "input",
                    "swipe",
                    &ax.to_string(),
                    &ay.to_string(),
                    &bx.to_string(),
                    &by.to_string(),
                    &ms.to_string(),
                ])
                .await?;
                done(format!("swiped device pixels ({ax}, {ay}) -> ({bx}, {by}) in {ms} ms"))
            }
            AndroidAction::LongPress { x, y, duration_ms } => {
                let (rx, ry) = self.map().to_real("x", "y", x, y)?;
                let ms = duration(duration_ms, 1000)?;
                let (sx, sy) = (rx.to_string(), ry.to_string());
                self.run_ok(&["input", "swipe", &sx, &sy, &sx, &sy, &ms.to_string()]).await?;
                done(format!("long-pressed device pixel ({rx}, {ry}) for {ms} ms"))
            }
            AndroidAction::Type { text } => {
                let steps = type_steps(&text)?;
                for s in &steps {
                    match s {
                        TypeStep::Text(t) => self.run_ok(&["input", "text", t]).await?,
                        TypeStep::Key(k) => self.run_ok(&["input", "keyevent", k]).await?,
                    };
                }
                done(format!("typed {} characters", text.chars().count()))
            }
            AndroidAction::Key { key } => {
                let code = keycode(&key)?;
                self.run_ok(&["input", "keyevent", &code]).await?;
                done(format!("pressed {code}"))
            }
            AndroidAction::Install { path } => self.install(&path).await,
            AndroidAction::Start { package, activity } => {
                check_package("package", &package)?;
                self.need_installed(&package).await?;
                let out = match &activity {
                    Some(a) => {
                        check_activity(a)?;
                        let component = if a.contains('/') { a.clone() } else { format!("{package}/{a}") };
                        self.run_ok(&["am", "start", "-n", &component]).await?
                    }
                    None => self
                        .run(&["monkey", "-p", &package, "-c", "android.intent.category.LAUNCHER", "1"])
                        .await?
                        .text(),
                };
                if out.contains("No activities found") || out.contains("Error") || out.contains("monkey aborted") {
                    return Err(RigError::Driver(format!(
                        "starting {package} failed on {}: {}",
                        self.serial,
                        out.trim()
                    )));
                }
                self.started.lock().expect("started").insert(package.clone());
                done(format!("started {}", activity.map_or(package.clone(), |a| format!("{package} ({a})"))))
            }
            AndroidAction::Stop { package } => {
                check_package("package", &package)?;
                self.need_installed(&package).await?;
                self.run_ok(&["am", "force-stop", &package]).await?;
                done(format!("stopped {package}"))
            }
            AndroidAction::Reset { package } => {
                check_package("package", &package)?;
                self.need_installed(&package).await?;
                let out = self.run_ok(&["pm", "clear", &package]).await?;
                if !out.contains("Success") {
                    return Err(RigError::Driver(format!("`pm clear {package}` answered: {}", out.trim())));
                }
                done(format!("cleared the data of {package}"))
            }
            AndroidAction::Uninstall { package } => {
                check_package("package", &package)?;
                self.need_installed(&package).await?;
                let out = self.run(&["pm", "uninstall", &package]).await?.text();
                if !out.contains("Success") {
                    return Err(RigError::Driver(format!("`pm uninstall {package}` answered: {}", out.trim())));
                }
                self.started.lock().expect("started").remove(&package);
                done(format!("uninstalled {package}"))
            }
            AndroidAction::OpenUrl { url, package } => {
                check_url(&url)?;
                let mut argv = vec!["am", "start", "-a", "android.intent.action.VIEW", "-d", url.as_str()];
                if let Some(p) = &package {
                    check_package("package", p)?;
                    self.need_installed(p).await?;
                    argv.extend(["-p", p.as_str()]);
                }
                let out = self.run_ok(&argv).await?;
                if out.contains("Error") {
                    return Err(RigError::Driver(format!("opening {url} failed on {}: {}", self.serial, out.trim())));
                }
                done(format!("opened {url}"))
            }
            AndroidAction::UiDump { max_chars } => self.ui_dump(max_chars.unwrap_or(DEFAULT_MAX_CHARS)).await,
            AndroidAction::Command { argv, max_chars } => {
                if argv.is_empty() || argv[0].is_empty() {
                    return Err(RigError::invalid(
                        "argv",
                        "give the command as a non-empty list: [\"ls\", \"-l\", \"/sdcard\"]",
                    ));
                }
                let bytes: usize = argv.iter().map(|a| a.len()).sum();
                if bytes > MAX_ARGV_BYTES {
                    return Err(RigError::invalid(
                        "argv",
                        format!("{bytes} bytes of arguments; at most {MAX_ARGV_BYTES}"),
                    ));
                }
                if let Some(i) = argv.iter().position(|a| a.contains('\0')) {
                    return Err(RigError::invalid("argv", format!("element {i} contains a NUL byte")));
                }
                let out = self.run(&argv).await?;
                let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
                if !out.stderr.is_empty() {
                    text.push_str("\n[stderr]\n");
                    text.push_str(&String::from_utf8_lossy(&out.stderr));
                }
                Ok(DeviceOutput {
                    summary: format!(
                        "ran {} on {}{}",
                        argv[0],
                        self.serial,
                        out.exit
                            .map_or(" (exit status unknown: the device has no shell protocol v2)".into(), |c| format!(
                                ", exit {c}"
                            ))
                    ),
                    content: Some(fence(
                        &format!("output of {} on {}", argv[0], self.serial),
                        &text,
                        max_chars.unwrap_or(DEFAULT_MAX_CHARS),
                    )),
                    exit_code: out.exit.map(i32::from),
                    ..DeviceOutput::default()
                })
            }
        }
    }

    async fn check_in(&self) -> Result<DeviceOutput, RigError> {
        let devices = self.server.devices().await?;
        let props_text = self.run_ok(&["getprop"]).await?;
        let props = parse_getprop(&props_text);
        let size = self.screen_size().await?;
        *self.screen.lock().expect("screen") = size;
        let get = |k: &str| props.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()).unwrap_or_default();
        let keep = [
            "ro.product.manufacturer",
            "ro.product.model",
            "ro.product.device",
            "ro.build.version.release",
            "ro.build.version.sdk",
            "ro.product.cpu.abi",
            "ro.kernel.qemu",
        ];
        let map = ScreenMap::of_screen(size.0, size.1);
        let info = DeviceInfo {
            id: self.serial.clone(),
            model: get("ro.product.model"),
            os_version: format!("Android {} (SDK {})", get("ro.build.version.release"), get("ro.build.version.sdk")),
            screen_width: size.0,
            screen_height: size.1,
            screenshot_scale: map.scale,
            properties: props.iter().filter(|(k, _)| keep.contains(&k.as_str())).cloned().collect(),
            devices: devices.iter().map(|d| (d.serial.clone(), d.state.clone())).collect(),
        };
        Ok(DeviceOutput {
            summary: format!(
                "{} ({}), {}, screen {}x{}; screenshots come back {}x{}",
                self.serial, info.model, info.os_version, size.0, size.1, map.width, map.height
            ),
            info: Some(info),
            ..DeviceOutput::default()
        })
    }

    async fn install(&self, path: &str) -> Result<DeviceOutput, RigError> {
        let meta = std::fs::metadata(path).map_err(|e| {
            RigError::invalid(
                "path",
                format!("no APK at '{path}' on the server's machine ({e}); give the path of an .apk file there"),
            )
        })?;
        if !meta.is_file() {
            return Err(RigError::invalid("path", format!("'{path}' is not a file; give the path of an .apk file")));
        }
        if meta.len() > MAX_APK_BYTES {
            return Err(RigError::invalid(
                "path",
                format!("'{path}' has {} bytes; at most {MAX_APK_BYTES}", meta.len()),
            ));
        }
        let data =
            tokio::fs::read(path).await.map_err(|e| RigError::invalid("path", format!("reading '{path}': {e}")))?;
        if !data.starts_with(b"PK\x03\x04") {
            return Err(RigError::invalid(
                "path",
                format!("'{path}' is not an APK (an APK is a zip archive; this file does not start like one)"),
            ));
        }
        let before = self.packages().await?;
        let remote = format!("/data/local/tmp/cc-rigs-{}.apk", uuid::Uuid::new_v4().simple());
        self.server.push(&self.serial, &data, &remote, 0o644).await?;
        let out = self.run(&["pm", "install", "-r", &remote]).await;
        let _ = self.run(&["rm", "-f", &remote]).await;
        let text = out?.text();
        if !text.contains("Success") {
            return Err(RigError::Driver(format!("`pm install` of {path} failed on {}: {}", self.serial, text.trim())));
        }
        let after = self.packages().await?;
        let new: Vec<&String> = after.difference(&before).collect();
        Ok(DeviceOutput {
            summary: if new.is_empty() {
                format!("installed {path} (it replaced an installed package)")
            } else {
                format!("installed {path}: {}", new.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))
            },
            ..DeviceOutput::default()
        })
    }

    async fn ui_dump(&self, max_chars: usize) -> Result<DeviceOutput, RigError> {
        let remote = format!("/data/local/tmp/cc-rigs-ui-{}.xml", uuid::Uuid::new_v4().simple());
        let mut last = String::new();
        for attempt in 0..UI_DUMP_TRIES {
            if attempt > 0 {
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            let out = self.run(&["uiautomator", "dump", &remote]).await?;
            let text = out.text();
            if out.exit.is_some_and(|c| c != 0) || text.contains("ERROR") || !text.contains("dumped to") {
                last = text.trim().to_string();
                continue;
            }
            let xml = self.run(&["cat", &remote]).await?;
            let _ = self.run(&["rm", "-f", &remote]).await;
            let xml = String::from_utf8_lossy(&xml.stdout).into_owned();
            let map = self.map();
            let (lines, n) = ui_elements(&xml, &map);
            let text = format!(
                "{n} elements; bounds in device pixels [left,top][right,bottom]; tap=(x,y) is the center in screenshot \
                 pixels (scale {:.4})\n{lines}",
                map.scale
            );
            return Ok(DeviceOutput {
                summary: format!("UI hierarchy of {}: {n} elements", self.serial),
                content: Some(fence(&format!("uiautomator dump of {}", self.serial), &text, max_chars)),
                ..DeviceOutput::default()
            });
        }
        let _ = self.run(&["rm", "-f", &remote]).await;
        Err(RigError::Driver(format!(
            "uiautomator could not dump the UI of {} in {UI_DUMP_TRIES} tries (it fails while the screen changes or \
             when another uiautomator runs): {last}",
            self.serial
        )))
    }
}

impl Rig for AndroidRig {
    fn surface(&self) -> SurfaceKind {
        SurfaceKind::Android
    }
    fn engine(&self) -> &str {
        &self.serial
    }
    fn display(&self) -> (u32, u32) {
        *self.screen.lock().expect("screen")
    }
    fn process_groups(&self) -> Vec<i32> {
        self.emulator.lock().expect("emulator").as_ref().map(|g| vec![g.pgid()]).unwrap_or_default()
    }
    fn alive(&self) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            !self.closed.load(Ordering::SeqCst)
                && self
                    .server
                    .devices()
                    .await
                    .is_ok_and(|d| d.iter().any(|d| d.serial == self.serial && d.state == "device"))
        })
    }
    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if self.closed.swap(true, Ordering::SeqCst) {
                return;
            }
            let emulator = self.emulator.lock().expect("emulator").take();
            match emulator {
                Some(g) => g.kill(),
                None => {
                    let started: Vec<String> =
                        std::mem::take(&mut *self.started.lock().expect("started")).into_iter().collect();
                    for p in started {
                        let _ = tokio::time::timeout(Duration::from_secs(5), self.run(&["am", "force-stop", &p])).await;
                    }
                }
            }
            self.claim.lock().expect("claim").take();
        })
    }
    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

/// Boots an AVD on a free console port and waits for `sys.boot_completed`.
async fn boot_emulator(server: &AdbServer, bin: &Path, avd: Option<&str>) -> Result<(procs::Group, String), RigError> {
    let list = tokio::process::Command::new(bin)
        .arg("-list-avds")
        .output()
        .await
        .map_err(|e| RigError::Start(format!("running {} -list-avds: {e}", bin.display())))?;
    let avds: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    let name = match avd {
        Some(a) if avds.iter().any(|x| x == a) => a.to_string(),
        Some(a) => {
            return Err(RigError::Start(format!(
                "the emulator at {} has no AVD '{a}'; it has: {}",
                bin.display(),
                avds.join(", ")
            )))
        }
        None => avds.first().cloned().ok_or_else(|| {
            RigError::Start(format!(
                "the Android SDK emulator at {} has no AVD to boot: create one (`avdmanager create avd -n NAME -k \
                 \"system-images;…\"`), or pass serial to drive a device",
                bin.display()
            ))
        })?,
    };
    let known: Vec<String> = server.devices().await?.into_iter().map(|d| d.serial).collect();
    let port = (5554u16..=5680)
        .step_by(2)
        .find(|p| {
            !known.contains(&format!("emulator-{p}"))
                && std::net::TcpListener::bind(("127.0.0.1", *p)).is_ok()
                && std::net::TcpListener::bind(("127.0.0.1", *p + 1)).is_ok()
        })
        .ok_or_else(|| RigError::Start("no free emulator console port in 5554..5680".into()))?;
    let serial = format!("emulator-{port}");
    let mut cmd = std::process::Command::new(bin);
    cmd.args(["-avd", &name, "-port", &port.to_string()])
        .args(["-no-window", "-no-audio", "-no-boot-anim", "-no-snapshot-save", "-wipe-data"])
        .env("ANDROID_ADB_SERVER_PORT", server.addr.port().to_string());
    let group = procs::Group::lead(&mut cmd, "the Android emulator")?;
    let started = Instant::now();
    loop {
        if let Some(why) = group.exited() {
            return Err(RigError::Start(format!("the emulator ({name}) exited while booting: {why}")));
        }
        let ready = server.devices().await?.iter().any(|d| d.serial == serial && d.state == "device");
        if ready {
            if let Ok(out) = server.shell(&serial, "getprop sys.boot_completed", false).await {
                if out.text().trim() == "1" {
                    return Ok((group, serial));
                }
            }
        }
        if started.elapsed() > Duration::from_secs(600) {
            return Err(RigError::Start(format!("the emulator ({name}) did not finish booting in 10 minutes")));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

fn duration(ms: Option<u32>, default: u32) -> Result<u32, RigError> {
    let ms = ms.unwrap_or(default);
    if !(1..=60_000).contains(&ms) {
        return Err(RigError::invalid("duration_ms", format!("{ms} ms; give 1..60000")));
    }
    Ok(ms)
}

/// `Physical size: 1080x2400` (and `Override size: …`, which wins).
pub fn parse_wm_size(text: &str) -> Option<(u32, u32)> {
    let mut physical = None;
    let mut over = None;
    for l in text.lines() {
        let Some((label, size)) = l.split_once(':') else { continue };
        let Some((w, h)) = size.trim().split_once('x') else { continue };
        let (Ok(w), Ok(h)) = (w.trim().parse::<u32>(), h.trim().parse::<u32>()) else { continue };
        if label.contains("Override") {
            over = Some((w, h));
        } else {
            physical = Some((w, h));
        }
    }
    over.or(physical).filter(|(w, h)| *w > 0 && *h > 0)
}

/// `[name]: [value]` lines of `getprop`.
pub fn parse_getprop(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let (k, v) = l.strip_prefix('[')?.split_once("]: [")?;
            Some((k.to_string(), v.strip_suffix(']')?.to_string()))
        })
        .collect()
}

fn check_package(field: &'static str, p: &str) -> Result<(), RigError> {
    let ok = !p.is_empty()
        && p.len() <= 255
        && p.split('.').all(|seg| {
            !seg.is_empty()
                && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !seg.starts_with(|c: char| c.is_ascii_digit())
        });
    if ok {
        Ok(())
    } else {
        Err(RigError::invalid(
            field,
            format!("'{p}' is not a package name (letters, digits, '_' in dot-separated parts: com.example.app)"),
        ))
    }
}

fn check_activity(a: &str) -> Result<(), RigError> {
    let ok = !a.is_empty() && a.len() <= 512 && a.chars().all(|c| c.is_ascii_alphanumeric() || "._/$".contains(c));
    if ok {
        Ok(())
    } else {
        Err(RigError::invalid("activity", format!("'{a}' is not an activity (.MainActivity, com.example.app.MainActivity or com.example.app/.MainActivity)")))
    }
}

fn check_url(url: &str) -> Result<(), RigError> {
    let scheme_ok = url.split_once(':').is_some_and(|(s, _)| {
        !s.is_empty()
            && s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    if !scheme_ok || url.len() > 8192 || url.chars().any(char::is_control) {
        return Err(RigError::invalid(
            "url",
            format!("'{url}' is not a URL or deep link (scheme:rest, e.g. https://example.com or myapp://item/1)"),
        ));
    }
    Ok(())
}

/// A key name as `input keyevent` takes it: `KEYCODE_*` or a number.
pub fn keycode(key: &str) -> Result<String, RigError> {
    let k = key.trim();
    if !k.is_empty() && k.len() <= 64 && k.chars().all(|c| c.is_ascii_digit()) {
        return Ok(k.to_string());
    }
    let up = k.to_ascii_uppercase();
    if up.is_empty() || up.len() > 64 || !up.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(RigError::invalid("key", format!("'{key}' is not a key: give a KEYCODE name (HOME, BACK, ENTER, DEL, VOLUME_UP, KEYCODE_TAB) or a key code number")));
    }
    Ok(if up.starts_with("KEYCODE_") { up } else { format!("KEYCODE_{up}") })
}

/// One `input` call of a `type` action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeStep {
    /// An `input text` argument (spaces written `%s`).
    Text(String),
    /// An `input keyevent` code (Enter, Tab).
    Key(String),
}

/// Splits text into `input text` arguments and key events. `input text` turns `%s` into a
/// space, so spaces are written `%s`, and a literal `%` followed by `s` is split across
/// two calls; newlines press Enter and tabs Tab. Only printable ASCII can be typed this
/// way: anything else is an error naming the first such character.
pub fn type_steps(text: &str) -> Result<Vec<TypeStep>, RigError> {
    if text.is_empty() {
        return Err(RigError::invalid("text", "nothing to type"));
    }
    let n = text.chars().count();
    if n > MAX_TYPE_CHARS {
        return Err(RigError::invalid("text", format!("{n} characters; at most {MAX_TYPE_CHARS} per action")));
    }
    if let Some((i, c)) = text.chars().enumerate().find(|(_, c)| !(matches!(c, ' '..='~' | '\n' | '\t'))) {
        return Err(RigError::invalid(
            "text",
            format!(
                "character {i} ({c:?}, U+{:04X}) cannot be typed: Android's `input text` takes printable ASCII only \
                 (plus newline and tab); type the ASCII parts, and for other text use an app's paste or an IME",
                c as u32
            ),
        ));
    }
    let mut steps = Vec::new();
    let mut cur = String::new();
    let mut last_literal_percent = false;
    let flush = |cur: &mut String, steps: &mut Vec<TypeStep>| {
        if !cur.is_empty() {
            steps.push(TypeStep::Text(std::mem::take(cur)));
        }
    };
    for c in text.chars() {
        match c {
            '\n' | '\t' => {
                flush(&mut cur, &mut steps);
                steps.push(TypeStep::Key(if c == '\n' { "66" } else { "61" }.into()));
                last_literal_percent = false;
            }
            ' ' => {
                cur.push_str("%s");
                last_literal_percent = false;
            }
            's' if last_literal_percent => {
                flush(&mut cur, &mut steps);
                cur.push('s');
                last_literal_percent = false;
            }
            c => {
                cur.push(c);
                last_literal_percent = c == '%';
            }
        }
    }
    flush(&mut cur, &mut steps);
    Ok(steps)
}

fn xml_unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';').filter(|e| *e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let ent = &rest[1..end];
        let ch = match ent {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ if ent.starts_with("#x") => u32::from_str_radix(&ent[2..], 16).ok().and_then(char::from_u32),
            _ if ent.starts_with('#') => ent[1..].parse().ok().and_then(char::from_u32),
            _ => None,
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The attributes of one start tag's text (after the tag name), unescaped.
fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = tag;
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq].trim().rsplit(char::is_whitespace).next().unwrap_or("").to_string();
        let after = &rest[eq + 2..];
        let Some(close) = after.find('"') else { break };
        out.push((name, xml_unescape(&after[..close])));
        rest = &after[close + 1..];
    }
    out
}

/// `[l,t][r,b]`.
fn parse_bounds(b: &str) -> Option<(i64, i64, i64, i64)> {
    let nums: Vec<i64> = b
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    (nums.len() == 4).then(|| (nums[0], nums[1], nums[2], nums[3]))
}

/// The `<node>` elements of a uiautomator dump, one line each: class, text, content
/// description, resource id, flags, bounds (device pixels) and the center in screenshot
/// pixels. Returns the lines and their count.
pub fn ui_elements(xml: &str, map: &ScreenMap) -> (String, usize) {
    let mut lines = String::new();
    let mut n = 0;
    let mut depth: usize = 0;
    let mut rest = xml;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix("/node") {
            depth = depth.saturating_sub(1);
            rest = r;
            continue;
        }
        let Some(r) = rest.strip_prefix("node") else { continue };
        let Some(end) = r.find('>') else { break };
        let tag = &r[..end];
        let self_closing = tag.trim_end().ends_with('/');
        rest = &r[end + 1..];
        let attrs = attributes(tag);
        let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str()).unwrap_or("");
        let class = get("class").rsplit('.').next().unwrap_or("").to_string();
        let mut line = format!("{}[{n}] {class}", "  ".repeat(depth.min(40)));
        for (key, label) in [("text", "text"), ("content-desc", "desc"), ("resource-id", "id")] {
            let v = get(key);
            if !v.is_empty() {
                line.push_str(&format!(" {label}={v:?}"));
            }
        }
        for flag in ["clickable", "focused", "checked", "selected", "scrollable"] {
            if get(flag) == "true" {
                line.push_str(&format!(" {flag}"));
            }
        }
        if get("enabled") == "false" {
            line.push_str(" disabled");
        }
        let b = get("bounds");
        if let Some((l, t, r, bo)) = parse_bounds(b) {
            let cx = ((l + r) as f64 / 2.0 * map.scale).round();
            let cy = ((t + bo) as f64 / 2.0 * map.scale).round();
            line.push_str(&format!(" bounds=[{l},{t}][{r},{bo}] tap=({cx},{cy})"));
        }
        lines.push_str(&line);
        lines.push('\n');
        n += 1;
        if !self_closing {
            depth += 1;
        }
    }
    (lines, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_escapes_spaces_and_splits_literal_percent_s() {
        use TypeStep::*;
        assert_eq!(type_steps("hello world").unwrap(), [Text("hello%sworld".into())]);
        assert_eq!(type_steps("100%sure").unwrap(), [Text("100%".into()), Text("sure".into())]);
        assert_eq!(
            type_steps("a\nb\tc").unwrap(),
            [Text("a".into()), Key("66".into()), Text("b".into()), Key("61".into()), Text("c".into())]
        );
        assert_eq!(type_steps("it's $HOME; ok").unwrap(), [Text("it's%s$HOME;%sok".into())]);
        let e = type_steps("café").unwrap_err();
        assert_eq!(e.kind(), "invalid_input");
        assert!(e.to_string().starts_with("text: character 3 ('é', U+00E9) cannot be typed"), "{e}");
        assert!(type_steps("").is_err());
    }

    #[test]
    fn keys_packages_and_urls_are_checked() {
        assert_eq!(keycode("home").unwrap(), "KEYCODE_HOME");
        assert_eq!(keycode("KEYCODE_BACK").unwrap(), "KEYCODE_BACK");
        assert_eq!(keycode("66").unwrap(), "66");
        assert!(keycode("ctrl+c").unwrap_err().to_string().starts_with("key: 'ctrl+c' is not a key"));
        assert!(check_package("package", "com.example.app").is_ok());
        assert!(check_package("package", "com.example;rm").is_err());
        assert!(check_package("package", "1com.x").is_err());
        assert!(check_url("myapp://item/1").is_ok());
        assert!(check_url("https://example.com/?q=a b").is_ok());
        assert!(check_url("no scheme").unwrap_err().to_string().starts_with("url: "));
    }

    #[test]
    fn wm_size_and_getprop_parse() {
        assert_eq!(parse_wm_size("Physical size: 1080x2400\n"), Some((1080, 2400)));
        assert_eq!(parse_wm_size("Physical size: 1080x2400\nOverride size: 720x1600\n"), Some((720, 1600)));
        assert_eq!(parse_wm_size("error"), None);
        assert_eq!(
            parse_getprop("[ro.product.model]: [Pixel 7]\n[ro.build.version.sdk]: [34]\n"),
            vec![
                ("ro.product.model".to_string(), "Pixel 7".to_string()),
                ("ro.build.version.sdk".to_string(), "34".to_string())
            ]
        );
    }

    #[test]
    fn ui_dumps_become_elements_with_bounds_and_tap_points() {
        let xml = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.x" content-desc="" clickable="false" enabled="true" bounds="[0,0][1080,2400]"><node index="0" text="Sign &amp; go &quot;now&quot;" resource-id="com.x:id/go" class="android.widget.Button" package="com.x" content-desc="" clickable="true" enabled="true" bounds="[100,200][300,400]" /></node></hierarchy>"#;
        let (lines, n) = ui_elements(xml, &ScreenMap::of_screen(1080, 2400));
        assert_eq!(n, 2);
        let l: Vec<&str> = lines.lines().collect();
        assert_eq!(l[0], "[0] FrameLayout bounds=[0,0][1080,2400] tap=(173,384)");
        assert_eq!(l[1], "  [1] Button text=\"Sign & go \\\"now\\\"\" id=\"com.x:id/go\" clickable bounds=[100,200][300,400] tap=(64,96)");
    }
}
