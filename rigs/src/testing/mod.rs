//! Protocol doubles for the device rigs' tests (feature `test-doubles`; this crate's and
//! the server's integration tests use them): [`adb_device::FakeDevice`], a fake Android
//! device that the real `adb` server connects to; [`AdbServerProcess`], a private real
//! `adb` server for one test; [`wda::FakeWda`], a WebDriverAgent double; for the remote
//! browser rigs, [`webdriver::RemoteDriver`] (a real driver started apart from any rig) and
//! [`webdriver::WebDriverProxy`], a recording proxy double that can answer as a full grid.

pub mod adb_device;
pub mod sh;
pub mod wda;
pub mod webdriver;

use std::future::Future;
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::android::adb::AdbServer;

/// A real `adb` server (Debian's `adb` package) on a private port, in the foreground
/// (`adb -P PORT server nodaemon`) with a HOME of its own (its key is made there, not in
/// the user's ~/.android); killed when dropped.
pub struct AdbServerProcess {
    pub port: u16,
    child: Child,
    _home: tempfile::TempDir,
}

impl AdbServerProcess {
    /// Starts the server; `Err` says what is missing (no `adb` binary) or what failed.
    pub fn start() -> Result<AdbServerProcess, String> {
        let adb = crate::procs::which(&["adb"]).ok_or_else(|| {
            "the Android tests need the real `adb` (Debian package adb: `apt-get install adb`; tests/run installs it)".to_string()
        })?;
        let home = tempfile::tempdir().map_err(|e| format!("a HOME for adb: {e}"))?;
        let port = crate::procs::free_port().map_err(|e| e.to_string())?;
        let child = Command::new(&adb)
            .args(["-P", &port.to_string(), "server", "nodaemon"])
            .env("HOME", home.path())
            .env_remove("ANDROID_SERIAL")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", adb.display()))?;
        let mut me = AdbServerProcess { port, child, _home: home };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(st)) = me.child.try_wait() {
                return Err(format!("adb server exited at start: {st}"));
            }
            if started.elapsed() > Duration::from_secs(20) {
                return Err(format!("adb server did not listen on {port} within 20 s"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(me)
    }

    pub fn server(&self) -> AdbServer {
        AdbServer::new(self.port)
    }

    /// `adb -P PORT <args>` (the real client), returning its standard output.
    pub fn adb(&self, args: &[&str]) -> Result<String, String> {
        let out = Command::new("adb")
            .arg("-P")
            .arg(self.port.to_string())
            .args(args)
            .env("HOME", self._home.path())
            .output()
            .map_err(|e| format!("running adb: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            Ok(text)
        } else {
            Err(format!("adb {}: {text}", args.join(" ")))
        }
    }

    /// `adb connect ADDR`, then waits until the server lists it in `state` (`device`,
    /// `unauthorized`, `offline`). (The client's own verdict is not read: adb 29 says
    /// "failed to connect" / "failed to authenticate" for a device that does not finish
    /// the handshake, and keeps listing it.)
    pub fn connect(&self, addr: std::net::SocketAddr, state: &str) -> Result<(), String> {
        let out = self.adb(&["connect", &addr.to_string()]).unwrap_or_else(|e| e);
        let serial = addr.to_string();
        let started = Instant::now();
        loop {
            let list = self.adb(&["devices"])?;
            if list.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == [serial.as_str(), state]) {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(20) {
                return Err(format!(
                    "{serial} did not become '{state}' within 20 s (adb connect said: {}); adb devices: {list}",
                    out.trim()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for AdbServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TCP server for a double: listens on 127.0.0.1 (a free port) on a thread of its own
/// with its own runtime and hands each connection to `serve`, until the returned sender
/// is sent to or dropped.
pub(crate) fn serve_on_thread<F, Fut>(
    name: &str,
    serve: F,
) -> (SocketAddr, tokio::sync::oneshot::Sender<()>, std::thread::JoinHandle<()>)
where
    F: Fn(tokio::net::TcpStream) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the double");
    std_listener.set_nonblocking(true).expect("nonblocking");
    let addr = std_listener.local_addr().expect("address");
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name(format!("{name}-{}", addr.port()))
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
                loop {
                    tokio::select! {
                        _ = &mut stopped => return,
                        a = listener.accept() => {
                            let Ok((s, _)) = a else { continue };
                            tokio::spawn(serve(s));
                        }
                    }
                }
            });
        })
        .expect("thread");
    (addr, stop, thread)
}

/// Serves `page` as text/html for every path on 127.0.0.1 (a free port) until the process
/// ends; returns the port. For tests that need a page to drive, not a site.
pub fn serve_page(page: &'static str) -> u16 {
    use std::io::{BufRead, BufReader, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the page server");
    let port = l.local_addr().expect("address").port();
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            std::thread::spawn(move || {
                let Ok(clone) = s.try_clone() else { return };
                let mut r = BufReader::new(clone);
                let mut line = String::new();
                // The request line and headers, up to the blank line.
                while r.read_line(&mut line).unwrap_or(0) > 2 && !line.ends_with("\r\n\r\n") {}
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                    page.len()
                );
            });
        }
    });
    port
}
