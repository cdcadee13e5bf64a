//! Which Docker engine desktops run on: this machine's socket, or an engine on another
//! machine — over TCP with mutual TLS, or over ssh — named the way the Docker CLI names
//! it (`DOCKER_HOST`, `DOCKER_TLS_VERIFY`, `DOCKER_CERT_PATH`), so an environment that
//! works for `docker` works here.
//!
//! Everything a desktop does goes through the engine's API — creating the container,
//! every `exec` of xdotool, the screenshots, removing it — so a remote desktop needs
//! nothing on this machine but the connection. A plain `tcp://` endpoint without TLS is
//! accepted (the Docker CLI accepts it too) and logged as a warning when it is not on
//! loopback: whoever reaches that port owns the engine.

use std::fmt;
use std::path::PathBuf;

use bollard::{Docker, API_DEFAULT_VERSION};

use super::error::{DesktopError, Result};

/// This machine's engine.
pub const LOCAL_SOCKET: &str = "unix:///var/run/docker.sock";

/// Seconds a single request to the engine may take. Generous: an image copied to a remote
/// engine is one request of a few hundred MB; actions have their own, shorter deadlines.
const REQUEST_TIMEOUT_SECS: u64 = 600;

/// The TLS files the Docker CLI expects in its certificate folder.
const TLS_FILES: [&str; 3] = ["ca.pem", "cert.pem", "key.pem"];

/// A Docker engine to connect to.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `unix:///path`, `tcp://host:port` (or `http://`, `https://`), `ssh://[user@]host[:port]`.
    pub host: String,
    /// For `tcp://` and `https://`: the folder holding `ca.pem` (the engine's CA),
    /// `cert.pem` and `key.pem` (this client's certificate and key) — mutual TLS, the
    /// engine's certificate checked against `ca.pem`. `None`: plain HTTP.
    pub tls: Option<PathBuf>,
    /// For `ssh://`: a private key file; `None`: ssh's own configuration and agent
    /// decide (`~/.ssh/config`). The remote user runs `docker system dial-stdio` (see
    /// the `ssh` module), so the Docker CLI must be installed there and the user allowed
    /// to use the engine.
    pub ssh_key: Option<PathBuf>,
    /// For `ssh://`: the known_hosts file holding the engine host's key (checked
    /// strictly); `None`: ssh's own (`~/.ssh/known_hosts`). An unknown host key is refused
    /// either way: nothing is accepted on first use.
    pub ssh_known_hosts: Option<PathBuf>,
}

impl Endpoint {
    /// This machine's engine at [`LOCAL_SOCKET`].
    pub fn local() -> Endpoint {
        Endpoint { host: LOCAL_SOCKET.into(), tls: None, ssh_key: None, ssh_known_hosts: None }
    }

    /// The engine the environment names, as the Docker CLI reads it: `DOCKER_HOST` (else
    /// [`LOCAL_SOCKET`]); TLS when `DOCKER_TLS_VERIFY` is set to anything but empty, `0` or
    /// `false`, or the host is `https://`, with the files in `DOCKER_CERT_PATH` (else
    /// `~/.docker`).
    pub fn from_env() -> Endpoint {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let host = var("DOCKER_HOST").unwrap_or_else(|| LOCAL_SOCKET.into());
        let verify = var("DOCKER_TLS_VERIFY").is_some_and(|v| v != "0" && !v.eq_ignore_ascii_case("false"));
        let tls = (verify || host.starts_with("https://")).then(|| {
            var("DOCKER_CERT_PATH")
                .map(PathBuf::from)
                .unwrap_or_else(|| std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(".docker"))
        });
        Endpoint { host, tls, ..Endpoint::local() }
    }

    /// A remote engine over TCP with mutual TLS, its files in `cert_dir` (see [`Endpoint::tls`]).
    pub fn tcp_tls(host: impl Into<String>, cert_dir: impl Into<PathBuf>) -> Endpoint {
        Endpoint { host: host.into(), tls: Some(cert_dir.into()), ..Endpoint::local() }
    }

    /// Is it a socket of this machine (so images built here are already there)?
    pub fn is_local_socket(&self) -> bool {
        self.host.starts_with("unix://")
    }

    /// Connects, agrees on an API version (bollard speaks a newer one than Debian's
    /// dockerd by default) and pings. Every failure is [`DesktopError::DockerUnavailable`]
    /// naming this endpoint and what was wrong: an unknown scheme, a missing TLS file, a
    /// certificate the engine refused, nothing listening.
    pub async fn connect(&self) -> Result<Docker> {
        let unavailable = |reason: String| DesktopError::DockerUnavailable { endpoint: self.to_string(), reason };
        let docker = if self.host.starts_with("ssh://") {
            let target = super::ssh::Target::parse(&self.host, self.ssh_key.clone(), self.ssh_known_hosts.clone())
                .map_err(unavailable)?;
            target.check().await.map_err(unavailable)?;
            target.client(REQUEST_TIMEOUT_SECS).map_err(unavailable)?
        } else {
            self.client().map_err(unavailable)?
        };
        let docker = docker.negotiate_version().await.map_err(|e| unavailable(chain(&e)))?;
        docker.ping().await.map_err(|e| unavailable(chain(&e)))?;
        Ok(docker)
    }

    fn client(&self) -> std::result::Result<Docker, String> {
        let h = self.host.as_str();
        let bollard = |e: bollard::errors::Error| chain(&e);
        let (scheme, rest) = h.split_once("://").ok_or_else(|| {
            format!("'{h}' has no scheme; expected unix:///path, tcp://host:port, https://host:port or ssh://user@host")
        })?;
        match (scheme, &self.tls) {
            ("unix", _) => Docker::connect_with_unix(h, REQUEST_TIMEOUT_SECS, API_DEFAULT_VERSION).map_err(bollard),
            ("tcp" | "https", Some(dir)) => {
                require_port(rest)?;
                let [ca, cert, key] = TLS_FILES.map(|f| dir.join(f));
                for f in [&ca, &cert, &key] {
                    if !f.is_file() {
                        return Err(format!(
                            "TLS is on (DOCKER_TLS_VERIFY) but {} is missing; the certificate folder \
                             (DOCKER_CERT_PATH, else ~/.docker) must hold ca.pem, cert.pem and key.pem",
                            f.display()
                        ));
                    }
                }
                Docker::connect_with_ssl(h, &key, &cert, &ca, REQUEST_TIMEOUT_SECS, API_DEFAULT_VERSION)
                    .map_err(bollard)
            }
            ("tcp" | "http", None) => {
                require_port(rest)?;
                if !is_loopback(rest) {
                    tracing::warn!(
                        endpoint = h,
                        "the Docker engine is reached over plain TCP: anyone who reaches that port controls it; \
                         set DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH"
                    );
                }
                Docker::connect_with_http(h, REQUEST_TIMEOUT_SECS, API_DEFAULT_VERSION).map_err(bollard)
            }
            ("http", Some(_)) => Err(format!("'{h}': TLS is on (DOCKER_TLS_VERIFY) but the scheme is http://")),
            ("https", None) => unreachable!("from_env and tcp_tls give https:// a certificate folder"),
            ("ssh", _) => unreachable!("connect handles ssh://"),
            (other, _) => {
                Err(format!("unsupported scheme '{other}://' in '{h}'; expected unix://, tcp://, https:// or ssh://"))
            }
        }
    }
}

/// `host:port` must name its port (the Docker CLI's own defaults, 2375 and 2376, are
/// guesses that hide a typo).
fn require_port(authority: &str) -> std::result::Result<(), String> {
    let authority = authority.trim_end_matches('/');
    match authority.rsplit_once(':') {
        Some((_, port)) if port.parse::<u16>().is_ok() => Ok(()),
        _ => Err(format!("'{authority}' has no port; write host:port (the engine's TLS port is usually 2376)")),
    }
}

fn is_loopback(authority: &str) -> bool {
    let host = authority.trim_end_matches('/').rsplit_once(':').map_or(authority, |(h, _)| h);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// An error and its causes on one line (a TLS refusal is three levels down in hyper).
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !out.contains(&s_text) {
            out.push_str(": ");
            out.push_str(&s_text);
        }
        source = s.source();
    }
    out
}

/// The endpoint without its secrets (none are in it: the key files are only named).
impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.host)?;
        if let Some(dir) = &self.tls {
            write!(f, " (TLS, certificates in {})", dir.display())?;
        }
        if let Some(key) = &self.ssh_key {
            write!(f, " (ssh key {})", key.display())?;
        }
        if let Some(hosts) = &self.ssh_known_hosts {
            write!(f, " (known hosts {})", hosts.display())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Endpoint({self})")
    }
}

impl Default for Endpoint {
    fn default() -> Endpoint {
        Endpoint::from_env()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ep(host: &str, tls: Option<&str>) -> Endpoint {
        Endpoint { host: host.into(), tls: tls.map(PathBuf::from), ..Endpoint::local() }
    }

    #[tokio::test]
    async fn bad_endpoints_say_what_is_wrong() {
        let err = |e: Endpoint| async move { e.connect().await.unwrap_err().to_string() };
        let e = err(ep("localhost:2376", None)).await;
        assert!(e.contains("has no scheme"), "{e}");
        let e = err(ep("ftp://h:1", None)).await;
        assert!(e.contains("unsupported scheme 'ftp://'"), "{e}");
        let e = err(ep("tcp://127.0.0.1", None)).await;
        assert!(e.contains("has no port"), "{e}");
        let e = err(ep("tcp://127.0.0.1:2376", Some("/nonexistent/certs"))).await;
        assert!(e.contains("/nonexistent/certs/ca.pem is missing"), "{e}");
        assert!(e.contains("tcp://127.0.0.1:2376 (TLS, certificates in /nonexistent/certs)"), "{e}");
        let e = err(ep("http://127.0.0.1:2376", Some("/c"))).await;
        assert!(e.contains("the scheme is http://"), "{e}");
        // Nothing listens on port 1.
        let e = err(ep("tcp://127.0.0.1:1", None)).await;
        assert!(e.contains("not reachable (tcp://127.0.0.1:1)"), "{e}");
    }

    #[test]
    fn loopback_and_ports() {
        assert!(is_loopback("127.0.0.1:2376") && is_loopback("localhost:1/") && is_loopback("[::1]:2376"));
        assert!(!is_loopback("10.0.0.5:2376") && !is_loopback("docker.example:2376"));
        assert!(require_port("h:2376/").is_ok() && require_port("h").is_err() && require_port("h:x").is_err());
    }

    #[test]
    fn display_names_the_endpoint_and_where_its_files_are() {
        assert_eq!(Endpoint::local().to_string(), LOCAL_SOCKET);
        assert!(Endpoint::local().is_local_socket());
        let t = Endpoint::tcp_tls("tcp://10.0.0.5:2376", "/etc/cc/docker");
        assert_eq!(t.to_string(), "tcp://10.0.0.5:2376 (TLS, certificates in /etc/cc/docker)");
        assert!(!t.is_local_socket());
    }
}
