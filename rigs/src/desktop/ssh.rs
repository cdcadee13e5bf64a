//! The Docker engine over ssh, as the Docker CLI reaches it: each HTTP connection is one
//! `ssh … [user@]host docker system dial-stdio`, the engine's API spoken over that
//! process's stdin and stdout. The system's ssh client does the rest — its config, its
//! agent, its known_hosts — with `BatchMode=yes` (never a prompt: an unknown host key is
//! refused) and the URL's port and the endpoint's key and known_hosts files passed as
//! options. (bollard's own ssh transport drops the port
//! of `ssh://user@host:port`.)

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::task::{Context, Poll};
use std::time::Duration;

use bollard::{Docker, API_DEFAULT_VERSION};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Where ssh goes: `ssh://[user@]host[:port]` and a key file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Target {
    user: Option<String>,
    host: String,
    port: Option<u16>,
    key: Option<PathBuf>,
    known_hosts: Option<PathBuf>,
}

impl Target {
    pub(super) fn parse(url: &str, key: Option<PathBuf>, known_hosts: Option<PathBuf>) -> Result<Target, String> {
        let rest = url.strip_prefix("ssh://").ok_or_else(|| format!("'{url}' is not an ssh:// URL"))?;
        let rest = rest.trim_end_matches('/');
        if rest.contains('/') {
            return Err(format!("'{url}': an ssh endpoint is ssh://[user@]host[:port], without a path"));
        }
        let (user, hostport) = match rest.rsplit_once('@') {
            Some((u, h)) if !u.is_empty() => (Some(u.to_string()), h),
            Some(_) => return Err(format!("'{url}': the user before '@' is empty")),
            None => (None, rest),
        };
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(':') => {
                let port = p.parse::<u16>().map_err(|_| format!("'{url}': '{p}' is not a port"))?;
                (h.trim_start_matches('[').trim_end_matches(']').to_string(), Some(port))
            }
            _ => (hostport.to_string(), None),
        };
        if host.is_empty() || host.starts_with('-') {
            return Err(format!("'{url}': no host"));
        }
        Ok(Target { user, host, port, key, known_hosts })
    }

    /// `ssh` with the options and destination, ready for the remote command.
    fn command(&self) -> Command {
        let mut cmd = Command::new("ssh");
        cmd.args(["-o", "BatchMode=yes", "-o", "ConnectTimeout=20", "-o", "ServerAliveInterval=30"]);
        if let Some(p) = self.port {
            cmd.arg("-p").arg(p.to_string());
        }
        if let Some(k) = &self.key {
            cmd.args(["-o", "IdentitiesOnly=yes", "-i"]).arg(k);
        }
        if let Some(f) = &self.known_hosts {
            let mut opt = std::ffi::OsString::from("UserKnownHostsFile=");
            opt.push(f);
            cmd.args(["-o", "StrictHostKeyChecking=yes", "-o"]).arg(opt);
        }
        if let Some(u) = &self.user {
            cmd.arg("-l").arg(u);
        }
        // `--`: the host can never be read as an option.
        cmd.arg("--").arg(&self.host);
        cmd.kill_on_drop(true);
        cmd
    }

    /// Runs `docker version` on the host once, so that what ssh or the remote shell says
    /// (a refused key, an unknown host key, no Docker CLI there) becomes the error instead
    /// of a connection that closes without an answer.
    pub(super) async fn check(&self) -> Result<(), String> {
        let mut cmd = self.command();
        cmd.args(["docker", "version", "--format", "{{.Server.APIVersion}}"]);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let out = cmd.output();
        let out = match tokio::time::timeout(Duration::from_secs(60), out).await {
            Ok(Ok(out)) => out,
            Ok(Err(e)) => return Err(format!("cannot run ssh: {e} (Debian: openssh-client)")),
            Err(_) => return Err("ssh did not finish `docker version` within 60 s".into()),
        };
        if out.status.success() {
            return Ok(());
        }
        let err = String::from_utf8_lossy(&out.stderr);
        let err = err.trim();
        Err(match out.status.code() {
            Some(255) => format!("ssh failed: {err}"),
            Some(127) => format!("the remote host has no Docker CLI to run `docker system dial-stdio` with: {err}"),
            _ => format!("`docker version` on the remote host failed ({}): {err}", out.status),
        })
    }

    /// A client speaking to the engine through connections of [`SshConnector`].
    pub(super) fn client(&self, timeout_secs: u64) -> Result<Docker, String> {
        let client = Client::builder(TokioExecutor::new()).build(SshConnector(self.clone()));
        let transport = move |req: bollard::BollardRequest| {
            let client = client.clone();
            async move { client.request(req).await.map_err(bollard::errors::Error::from) }
        };
        // The authority is a placeholder: the connector knows where it goes.
        Docker::connect_with_custom_transport(transport, Some("http://docker"), timeout_secs, API_DEFAULT_VERSION)
            .map_err(|e| e.to_string())
    }
}

/// Opens one `docker system dial-stdio` over ssh per connection.
#[derive(Clone)]
struct SshConnector(Target);

impl tower_service::Service<hyper::Uri> for SshConnector {
    type Response = SshStream;
    type Error = std::io::Error;
    type Future = Pin<Box<dyn Future<Output = std::io::Result<SshStream>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _: hyper::Uri) -> Self::Future {
        let mut cmd = self.0.command();
        Box::pin(async move {
            cmd.args(["docker", "system", "dial-stdio"]);
            cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
            let mut child = cmd.spawn()?;
            let stdout = child.stdout.take().expect("piped");
            let stdin = child.stdin.take().expect("piped");
            Ok(SshStream::new(tokio::io::join(stdout, stdin), child))
        })
    }
}

/// One connection: the ssh process's stdout to read, its stdin to write; the process is
/// killed when the connection is dropped.
type SshStream = crate::conn::Conn<tokio::io::Join<ChildStdout, ChildStdin>, Child>;
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssh_urls_parse_or_say_what_is_wrong() {
        let t = Target::parse("ssh://deploy@build-7:2222", None, None).unwrap();
        assert_eq!((t.user.as_deref(), t.host.as_str(), t.port), (Some("deploy"), "build-7", Some(2222)));
        let t = Target::parse("ssh://build-7/", None, None).unwrap();
        assert_eq!((t.user, t.host.as_str(), t.port), (None, "build-7", None));
        let t = Target::parse("ssh://root@[::1]:22", None, None).unwrap();
        assert_eq!((t.host.as_str(), t.port), ("::1", Some(22)));
        for (url, why) in [
            ("ssh://h:x", "'x' is not a port"),
            ("ssh://@h", "the user before '@' is empty"),
            ("ssh://h/var/run", "without a path"),
            ("ssh://-oProxyCommand=x", "no host"),
            ("tcp://h:1", "not an ssh:// URL"),
        ] {
            let e = Target::parse(url, None, None).unwrap_err();
            assert!(e.contains(why), "{url}: {e}");
        }
    }
}
