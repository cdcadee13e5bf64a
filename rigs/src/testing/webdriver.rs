//! A "remote" WebDriver endpoint for the remote browser rigs' tests: [`RemoteDriver`], the
//! real chromedriver or geckodriver started on 127.0.0.1 apart from any rig (as a grid's
//! node would run it), and [`WebDriverProxy`], a recording HTTP proxy double put in front of
//! one. The proxy forwards every request as it came (through hyper) and records its method,
//! path and headers; set full, it answers every new session as a Selenium Grid with no free
//! slot does (HTTP 500, W3C `session not created`). It covers what a grid adds on the wire in
//! front of a driver — nothing of a grid's routing, queueing or node management.

use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Map, Value};

use crate::browser::{local_browser, local_driver, Engine};
use crate::procs::{self, Group};

/// A real driver on a free port of 127.0.0.1 in a process group of its own, with a HOME
/// of its own; killed when dropped (or by [`RemoteDriver::kill`]).
pub struct RemoteDriver {
    pub engine: Engine,
    pub port: u16,
    group: Group,
    _home: tempfile::TempDir,
}

impl RemoteDriver {
    /// Starts the engine's driver and waits until it listens; `Err` says what is missing.
    pub fn start(engine: Engine) -> Result<RemoteDriver, String> {
        let driver = local_driver(engine).map_err(|e| e.to_string())?;
        let home = tempfile::tempdir().map_err(|e| format!("a HOME for the driver: {e}"))?;
        let port = procs::free_port().map_err(|e| e.to_string())?;
        let mut cmd = Command::new(&driver);
        match engine {
            Engine::Chromium => {
                cmd.arg(format!("--port={port}"));
            }
            Engine::Firefox => {
                cmd.args(["--host", "127.0.0.1", "--port", &port.to_string(), "--marionette-port", "0"]);
            }
            Engine::Webkit => {
                cmd.args(["--host=127.0.0.1", &format!("--port={port}")]);
            }
        }
        // Its browsers' temporary files in its folder too (removed with it, even when killed).
        cmd.env("HOME", home.path())
            .env("TMPDIR", home.path())
            .env("MOZ_CRASHREPORTER_DISABLE", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let group = Group::lead(&mut cmd, "the remote driver").map_err(|e| e.to_string())?;
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(why) = group.exited() {
                return Err(format!("{}: {why}", driver.display()));
            }
            if started.elapsed() > Duration::from_secs(20) {
                return Err(format!("{} did not listen on port {port} within 20 s", driver.display()));
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        Ok(RemoteDriver { engine, port, group, _home: home })
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// The driver's pid (it leads its group).
    pub fn pid(&self) -> i32 {
        self.group.pgid()
    }

    /// One request straight to the driver, behind any rig's back (a grid ending a session):
    /// (status, body).
    pub fn request(&self, method: &str, path: &str) -> Result<(u16, String), String> {
        use std::io::{BufRead, BufReader, Read, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        s.set_read_timeout(Some(Duration::from_secs(10))).map_err(|e| e.to_string())?;
        write!(s, "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\n\r\n", self.port)
            .map_err(|e| e.to_string())?;
        let mut r = BufReader::new(s);
        let mut line = String::new();
        r.read_line(&mut line).map_err(|e| e.to_string())?;
        let status =
            line.split_whitespace().nth(1).and_then(|c| c.parse().ok()).ok_or(format!("no status: {line:?}"))?;
        let mut length = 0;
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).map_err(|e| e.to_string())? == 0 || h.trim().is_empty() {
                break;
            }
            if let Some((n, v)) = h.split_once(':') {
                if n.trim().eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        r.read_exact(&mut body).map_err(|e| e.to_string())?;
        Ok((status, String::from_utf8_lossy(&body).into_owned()))
    }

    /// Kills the driver and what it started (a grid node going away).
    pub fn kill(&self) {
        self.group.kill();
    }

    /// What this machine's browser needs from the session's capabilities as a remote node:
    /// the binary, and `--no-sandbox` for chromium run as root — what the rig leaves out of a
    /// remote session, passed through as an operator's configuration would.
    pub fn node_capabilities(&self) -> Map<String, Value> {
        let browser = local_browser(self.engine).map(|p| p.display().to_string()).unwrap_or_default();
        let caps = match self.engine {
            Engine::Chromium => {
                let mut args = vec![];
                if rustix::process::geteuid().is_root() {
                    args.push("--no-sandbox");
                }
                json!({"goog:chromeOptions": {"binary": browser, "args": args}})
            }
            Engine::Firefox => json!({"moz:firefoxOptions": {"binary": browser}}),
            Engine::Webkit => json!({"webkitgtk:browserOptions": {"binary": browser}}),
        };
        caps.as_object().cloned().unwrap_or_default()
    }
}

/// One request the proxy saw.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// Lower-case names, as they came.
    pub headers: Vec<(String, String)>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

struct ProxyState {
    upstream: Option<u16>,
    seen: Mutex<Vec<Seen>>,
    full: AtomicBool,
}

/// The recording proxy double (see the module doc); it serves until the process ends.
pub struct WebDriverProxy {
    pub port: u16,
    state: Arc<ProxyState>,
}

/// What a Selenium Grid with no free slot answers a new session.
pub const GRID_FULL: &str = r#"{"value":{"error":"session not created","message":"Could not start a new session. No slots available","stacktrace":""}}"#;

impl WebDriverProxy {
    /// A proxy in front of the driver on 127.0.0.1:`upstream`.
    pub fn start(upstream: u16) -> WebDriverProxy {
        WebDriverProxy::spawn(Some(upstream))
    }

    /// A grid with no free slot and no driver behind it: every new session is refused.
    pub fn full() -> WebDriverProxy {
        let p = WebDriverProxy::spawn(None);
        p.set_full(true);
        p
    }

    fn spawn(upstream: Option<u16>) -> WebDriverProxy {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = l.local_addr().expect("address").port();
        l.set_nonblocking(true).expect("nonblocking");
        let state = Arc::new(ProxyState { upstream, seen: Mutex::new(Vec::new()), full: AtomicBool::new(false) });
        let st = state.clone();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            rt.block_on(async move {
                let l = tokio::net::TcpListener::from_std(l).expect("listener");
                let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                    .build::<_, Full<Bytes>>(hyper_util::client::legacy::connect::HttpConnector::new());
                loop {
                    let Ok((s, _)) = l.accept().await else { continue };
                    let (st, client) = (st.clone(), client.clone());
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                            let (st, client) = (st.clone(), client.clone());
                            async move { Ok::<_, std::convert::Infallible>(answer(&st, &client, req).await) }
                        });
                        let _ =
                            hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(s), service).await;
                    });
                }
            });
        });
        WebDriverProxy { port, state }
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// Full: new sessions are refused as a grid with no free slot refuses them.
    pub fn set_full(&self, full: bool) {
        self.state.full.store(full, Ordering::SeqCst);
    }

    /// Every request so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().expect("seen").clone()
    }
}

type Forward = hyper_util::client::legacy::Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

fn json_response(status: u16, body: String) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json; charset=utf-8")
        .body(Full::new(Bytes::from(body)))
        .expect("a response")
}

async fn answer(st: &ProxyState, client: &Forward, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let (parts, body) = req.into_parts();
    let path = parts.uri.path_and_query().map(|p| p.as_str().to_string()).unwrap_or_else(|| "/".into());
    st.seen.lock().expect("seen").push(Seen {
        method: parts.method.to_string(),
        path: path.clone(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect(),
    });
    let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let new_session = parts.method == hyper::Method::POST && path.trim_end_matches('/').ends_with("/session");
    if new_session && st.full.load(Ordering::SeqCst) {
        return json_response(500, GRID_FULL.to_string());
    }
    let Some(up) = st.upstream else {
        return json_response(
            404,
            json!({"value": {"error": "unknown command", "message": "no driver behind this proxy", "stacktrace": ""}})
                .to_string(),
        );
    };
    let mut fwd = Request::builder().method(parts.method).uri(format!("http://127.0.0.1:{up}{path}"));
    for (n, v) in parts.headers.iter() {
        fwd = fwd.header(n, v);
    }
    let fwd = fwd.body(Full::new(body)).expect("a request");
    match client.request(fwd).await {
        Ok(r) => {
            let (parts, body) = r.into_parts();
            let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
            Response::from_parts(parts, Full::new(body))
        }
        Err(e) => json_response(
            502,
            json!({"value": {"error": "unknown error", "message": format!("the proxy could not reach the driver: {e}"), "stacktrace": ""}}).to_string(),
        ),
    }
}
