//! A small async client of the ADB server's host protocol (OVERVIEW.TXT, SERVICES.TXT,
//! SYNC.TXT of AOSP's packages/modules/adb): each request is a 4-hex-digit length and a
//! payload on a fresh TCP connection to the server, answered `OKAY` or `FAIL` + a
//! length-prefixed message; `host:transport:<serial>` binds the connection to a device,
//! whose services (`shell,v2,raw:`, `shell:`, `exec:`, `sync:`) then talk through it.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::RigError;

/// The ADB server's default port.
pub const DEFAULT_PORT: u16 = 5037;
/// Largest chunk a sync `DATA` carries (SYNC.TXT: 64 KiB).
const SYNC_CHUNK: usize = 64 * 1024;
/// Longest output a command may return (a screenshot of a 4K screen fits).
const MAX_OUTPUT: usize = 64 * 1024 * 1024;

/// The ADB server a rig talks to (the one `adb` itself uses: port 5037, or
/// `ANDROID_ADB_SERVER_PORT`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdbServer {
    pub addr: SocketAddr,
}

/// One row of `host:devices-l`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceEntry {
    pub serial: String,
    /// `device` (usable), `offline`, `unauthorized`, `recovery`, `bootloader`, …
    pub state: String,
    /// `product:… model:… device:… transport_id:…` as the server reports them.
    pub details: String,
}

/// What a shell command produced. `exit` is known when the device speaks shell protocol v2.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShellOutput {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit: Option<u8>,
}

impl ShellOutput {
    /// Standard output and error as text (lossy), one after the other.
    pub fn text(&self) -> String {
        let mut s = String::from_utf8_lossy(&self.stdout).into_owned();
        if !self.stderr.is_empty() {
            s.push_str(&String::from_utf8_lossy(&self.stderr));
        }
        s
    }
}

impl AdbServer {
    pub fn new(port: u16) -> AdbServer {
        AdbServer { addr: SocketAddr::from(([127, 0, 0, 1], port)) }
    }

    /// `ANDROID_ADB_SERVER_PORT` (what the adb client reads), else 5037.
    pub fn from_env() -> AdbServer {
        let port = std::env::var("ANDROID_ADB_SERVER_PORT").ok().and_then(|p| p.trim().parse().ok());
        AdbServer::new(port.unwrap_or(DEFAULT_PORT))
    }

    async fn connect(&self) -> Result<TcpStream, RigError> {
        match tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(self.addr)).await {
            Ok(Ok(s)) => {
                let _ = s.set_nodelay(true);
                Ok(s)
            }
            Ok(Err(e)) => Err(RigError::Start(format!(
                "no ADB server answers on {} ({e}): start one with `adb start-server` (Debian package adb; \
                 ANDROID_ADB_SERVER_PORT picks another port)",
                self.addr
            ))),
            Err(_) => {
                Err(RigError::Start(format!("the ADB server on {} did not accept a connection in 5 s", self.addr)))
            }
        }
    }

    /// `host:version`: the server's protocol version.
    pub async fn version(&self) -> Result<u32, RigError> {
        let v = self.host_query("host:version").await?;
        u32::from_str_radix(v.trim(), 16)
            .map_err(|_| RigError::Driver(format!("the ADB server answered host:version with '{v}'")))
    }

    /// Every device the server knows, in any state.
    pub async fn devices(&self) -> Result<Vec<DeviceEntry>, RigError> {
        Ok(parse_devices(&self.host_query("host:devices-l").await?))
    }

    /// The device's feature list (`shell_v2`, `cmd`, …).
    pub async fn features(&self, serial: &str) -> Result<Vec<String>, RigError> {
        let f = self.host_query(&format!("host-serial:{serial}:features")).await?;
        Ok(f.trim().split(',').filter(|s| !s.is_empty()).map(str::to_string).collect())
    }

    /// A host request whose answer is OKAY + a length-prefixed string.
    pub async fn host_query(&self, request: &str) -> Result<String, RigError> {
        let mut s = self.connect().await?;
        send_request(&mut s, request).await?;
        let body = read_hex_prefixed(&mut s).await.map_err(|e| io_err(request, e))?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// A connection bound to `serial`, on which `service` was accepted.
    async fn open(&self, serial: &str, service: &str) -> Result<TcpStream, RigError> {
        let mut s = self.connect().await?;
        send_request(&mut s, &format!("host:transport:{serial}")).await?;
        send_request(&mut s, service).await?;
        Ok(s)
    }

    /// `exec:<command>`: the raw standard output (binary safe; no standard error).
    pub async fn exec(&self, serial: &str, command: &str) -> Result<Vec<u8>, RigError> {
        let mut s = self.open(serial, &format!("exec:{command}")).await?;
        read_to_end_limited(&mut s).await.map_err(|e| io_err("exec", e))
    }

    /// A shell command line: shell protocol v2 (`shell,v2,raw:`: separate output streams
    /// and the exit status) when `v2`, else the legacy `shell:` (output only).
    pub async fn shell(&self, serial: &str, command: &str, v2: bool) -> Result<ShellOutput, RigError> {
        if !v2 {
            let mut s = self.open(serial, &format!("shell:{command}")).await?;
            let stdout = read_to_end_limited(&mut s).await.map_err(|e| io_err("shell", e))?;
            return Ok(ShellOutput { stdout, stderr: Vec::new(), exit: None });
        }
        let mut s = self.open(serial, &format!("shell,v2,raw:{command}")).await?;
        // Nothing goes to its standard input: close it (id 3 = exit, 4 = close stdin).
        s.write_all(&[4, 0, 0, 0, 0]).await.map_err(|e| io_err("shell", e))?;
        let mut out = ShellOutput::default();
        loop {
            let mut head = [0u8; 5];
            match s.read_exact(&mut head).await {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                Err(e) => return Err(io_err("shell", e)),
            }
            let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
            if out.stdout.len() + out.stderr.len() + len > MAX_OUTPUT {
                return Err(RigError::Driver(format!("the command's output passed {MAX_OUTPUT} bytes")));
            }
            let mut data = vec![0u8; len];
            s.read_exact(&mut data).await.map_err(|e| io_err("shell", e))?;
            match head[0] {
                1 => out.stdout.extend_from_slice(&data),
                2 => out.stderr.extend_from_slice(&data),
                3 => {
                    out.exit = data.first().copied();
                    break;
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Pushes `data` to `remote` (a file path on the device) with permissions `mode`
    /// through the sync service: SEND `<path>,<mode>`, DATA chunks, DONE `<mtime>`.
    pub async fn push(&self, serial: &str, data: &[u8], remote: &str, mode: u32) -> Result<(), RigError> {
        let mut s = self.open(serial, "sync:").await?;
        let spec = format!("{remote},{mode}");
        let mut req = Vec::with_capacity(8 + spec.len());
        req.extend_from_slice(b"SEND");
        req.extend_from_slice(&(spec.len() as u32).to_le_bytes());
        req.extend_from_slice(spec.as_bytes());
        s.write_all(&req).await.map_err(|e| io_err("sync", e))?;
        for chunk in data.chunks(SYNC_CHUNK) {
            let mut d = Vec::with_capacity(8 + chunk.len());
            d.extend_from_slice(b"DATA");
            d.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
            d.extend_from_slice(chunk);
            s.write_all(&d).await.map_err(|e| io_err("sync", e))?;
        }
        let mtime =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as u32);
        let mut done = b"DONE".to_vec();
        done.extend_from_slice(&mtime.to_le_bytes());
        s.write_all(&done).await.map_err(|e| io_err("sync", e))?;
        let mut head = [0u8; 8];
        s.read_exact(&mut head).await.map_err(|e| io_err("sync", e))?;
        let len = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        match &head[..4] {
            b"OKAY" => {
                let _ = s.write_all(b"QUIT\0\0\0\0").await;
                Ok(())
            }
            b"FAIL" => {
                let mut msg = vec![0u8; len.min(64 * 1024)];
                s.read_exact(&mut msg).await.map_err(|e| io_err("sync", e))?;
                Err(RigError::Driver(format!("pushing {remote}: {}", String::from_utf8_lossy(&msg))))
            }
            other => Err(RigError::Driver(format!(
                "pushing {remote}: the device answered '{}' to DONE",
                String::from_utf8_lossy(other)
            ))),
        }
    }
}

fn io_err(what: &str, e: std::io::Error) -> RigError {
    RigError::Dead(format!("the ADB connection broke during {what}: {e}"))
}

/// Writes one host request and reads its OKAY (or turns its FAIL into an error).
async fn send_request(s: &mut TcpStream, request: &str) -> Result<(), RigError> {
    let framed = format!("{:04x}{request}", request.len());
    s.write_all(framed.as_bytes()).await.map_err(|e| io_err(request, e))?;
    let mut status = [0u8; 4];
    s.read_exact(&mut status).await.map_err(|e| io_err(request, e))?;
    match &status {
        b"OKAY" => Ok(()),
        b"FAIL" => {
            let msg = read_hex_prefixed(s).await.map_err(|e| io_err(request, e))?;
            Err(RigError::Driver(format!("the ADB server refused {request}: {}", String::from_utf8_lossy(&msg))))
        }
        other => Err(RigError::Driver(format!(
            "the ADB server answered {request} with '{}' (not OKAY/FAIL)",
            String::from_utf8_lossy(other)
        ))),
    }
}

async fn read_hex_prefixed<R: AsyncRead + Unpin>(s: &mut R) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    s.read_exact(&mut len).await?;
    let n = std::str::from_utf8(&len)
        .ok()
        .and_then(|t| usize::from_str_radix(t, 16).ok())
        .ok_or_else(|| std::io::Error::other(format!("bad length prefix {:?}", String::from_utf8_lossy(&len))))?;
    let mut body = vec![0u8; n];
    s.read_exact(&mut body).await?;
    Ok(body)
}

async fn read_to_end_limited<R: AsyncRead + Unpin>(s: &mut R) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = s.read(&mut buf).await?;
        if n == 0 {
            return Ok(out);
        }
        if out.len() + n > MAX_OUTPUT {
            return Err(std::io::Error::other(format!("output passed {MAX_OUTPUT} bytes")));
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// Parses `host:devices-l`: `<serial> <state> <details…>` per line (whitespace-separated).
pub fn parse_devices(text: &str) -> Vec<DeviceEntry> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let serial = it.next()?.to_string();
            let state = it.next()?.to_string();
            Some(DeviceEntry { serial, state, details: it.collect::<Vec<_>>().join(" ") })
        })
        .collect()
}

/// Quotes one argument for the device's `sh` (mksh/toybox): inside single quotes nothing
/// is special but the single quote itself, written `'\''`. Every argument is quoted, so
/// the device's shell passes each as exactly one argument, whatever it contains.
pub fn quote(arg: &str) -> String {
    let mut s = String::with_capacity(arg.len() + 2);
    s.push('\'');
    for c in arg.chars() {
        if c == '\'' {
            s.push_str("'\\''");
        } else {
            s.push(c);
        }
    }
    s.push('\'');
    s
}

/// An argv as one command line for the device's shell, every element quoted.
pub fn command_line<S: AsRef<str>>(argv: &[S]) -> String {
    argv.iter().map(|a| quote(a.as_ref())).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_l_rows_parse() {
        let d = parse_devices(
            "emulator-5554          device product:sdk_gphone64 model:Pixel_7 device:emu64 transport_id:1\n127.0.0.1:5555 offline transport_id:2\n\n",
        );
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].serial.as_str(), d[0].state.as_str()), ("emulator-5554", "device"));
        assert!(d[0].details.starts_with("product:sdk_gphone64 model:Pixel_7"));
        assert_eq!(
            (d[1].serial.as_str(), d[1].state.as_str(), d[1].details.as_str()),
            ("127.0.0.1:5555", "offline", "transport_id:2")
        );
    }

    #[test]
    fn quoting_keeps_each_argument_whole() {
        assert_eq!(quote("plain"), "'plain'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(command_line(&["echo", "a b", "x;y", "$HOME"]), "'echo' 'a b' 'x;y' '$HOME'");
    }
}
