//! Desktop rigs on a remote Docker engine. The "remote" engine is a second, real dockerd
//! this test starts itself: its own data and exec roots in a temporary folder, listening
//! on a loopback TCP port with mutual TLS (a CA, a server and a client certificate that
//! openssl makes for the test), with no network of its own (`--bridge none`, no
//! iptables). It shares nothing with this machine's engine but the kernel, so the image
//! has to be copied there and every action — start, exec of xdotool, screenshots,
//! removal — has to go over the TLS connection. Needs root and Debian's docker.io, as the
//! other desktop tests (tests/setup-docker.sh).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cc_rigs::desktop::{
    build_image, connect_to, image_exists, image_tag, ActionOutput, Desktop, DesktopConfig, DesktopError, Endpoint,
};
use serde_json::json;

use crate::desktop::{act, clipboard_becomes, config, count, docker, unique};

/// Runs openssl with `args` in `dir`, panicking with its stderr when it fails.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl").args(args).current_dir(dir).output().expect("running openssl");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A CA in `dir`: ca.pem and ca-key.pem.
fn make_ca(dir: &Path, name: &str) {
    std::fs::create_dir_all(dir).unwrap();
    openssl(dir, &["genrsa", "-out", "ca-key.pem", "2048"]);
    openssl(
        dir,
        &[
            "req",
            "-new",
            "-x509",
            "-days",
            "2",
            "-key",
            "ca-key.pem",
            "-subj",
            &format!("/CN={name}"),
            "-out",
            "ca.pem",
        ],
    );
}

/// A key and a certificate signed by the CA in `ca_dir`, written to `dir` as
/// `<stem>-key.pem` and `<stem>-cert.pem` (or key.pem and cert.pem when `stem` is empty:
/// the Docker CLI's names for a client).
fn make_cert(dir: &Path, ca_dir: &Path, stem: &str, cn: &str, ext: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let name = |s: &str| if stem.is_empty() { format!("{s}.pem") } else { format!("{stem}-{s}.pem") };
    let (key, cert, csr, extfile) = (name("key"), name("cert"), format!("{cn}.csr"), format!("{cn}.ext"));
    std::fs::write(dir.join(&extfile), ext).unwrap();
    openssl(dir, &["genrsa", "-out", &key, "2048"]);
    openssl(dir, &["req", "-new", "-key", &key, "-subj", &format!("/CN={cn}"), "-out", &csr]);
    let (ca, ca_key) = (ca_dir.join("ca.pem"), ca_dir.join("ca-key.pem"));
    #[rustfmt::skip]
    openssl(dir, &[
        "x509", "-req", "-days", "2", "-in", &csr, "-CA", ca.to_str().unwrap(), "-CAkey", ca_key.to_str().unwrap(),
        "-CAcreateserial", "-extfile", &extfile, "-out", &cert,
    ]);
}

const SERVER_EXT: &str = "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n";
const CLIENT_EXT: &str = "extendedKeyUsage=clientAuth\n";

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A second dockerd on 127.0.0.1 with mutual TLS; stopped (SIGTERM, then SIGKILL) and its
/// folder removed on drop.
struct RemoteEngine {
    dir: tempfile::TempDir,
    child: Child,
    port: u16,
}

impl RemoteEngine {
    async fn start() -> RemoteEngine {
        assert!(rustix::process::geteuid().is_root(), "a second dockerd needs root (as tests/setup-docker.sh)");
        assert!(Path::new("/usr/sbin/dockerd").is_file(), "dockerd is not installed: run tests/setup-docker.sh");
        let dir = tempfile::Builder::new().prefix("cc-remote-engine-").tempdir().unwrap();
        let d = dir.path();
        make_ca(d, "cc-test-engine-ca");
        make_cert(d, d, "server", "127.0.0.1", SERVER_EXT);
        make_cert(&d.join("client"), d, "", "cc-test-client", CLIENT_EXT);
        std::fs::copy(d.join("ca.pem"), d.join("client/ca.pem")).unwrap();
        std::fs::write(d.join("daemon.json"), "{}").unwrap();
        let port = free_port();
        let log = std::fs::File::create(d.join("dockerd.log")).unwrap();
        let p = |f: &str| d.join(f).to_str().unwrap().to_string();
        let mut cmd = Command::new("/usr/sbin/dockerd");
        #[rustfmt::skip]
        cmd.args([
            "--config-file", &p("daemon.json"),
            "--data-root", &p("data"), "--exec-root", &p("exec"), "--pidfile", &p("dockerd.pid"),
            "-H", &format!("tcp://127.0.0.1:{port}"), "-H", &format!("unix://{}", p("docker.sock")),
            "--tlsverify", "--tlscacert", &p("ca.pem"), "--tlscert", &p("server-cert.pem"), "--tlskey", &p("server-key.pem"),
            "--bridge", "none", "--iptables=false", "--ip6tables=false",
        ])
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log);
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let child = cmd.spawn().expect("starting dockerd");
        let mut engine = RemoteEngine { dir, child, port };
        engine.wait_ready().await;
        engine
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("dockerd.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(15)..].join("\n")
    }

    /// Waits for its unix socket to answer (the TCP side is what the tests check).
    async fn wait_ready(&mut self) {
        let sock = format!("unix://{}", self.dir.path().join("docker.sock").display());
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if connect_to(&sock).await.is_ok() {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("the second dockerd exited with {status}:\n{}", self.log_tail());
            }
            assert!(Instant::now() < deadline, "the second dockerd did not answer in 60 s:\n{}", self.log_tail());
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    fn tcp(&self) -> String {
        format!("tcp://127.0.0.1:{}", self.port)
    }

    /// The endpoint with the client's certificates.
    fn endpoint(&self) -> Endpoint {
        Endpoint::tcp_tls(self.tcp(), self.dir.path().join("client"))
    }

    fn dir(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for RemoteEngine {
    fn drop(&mut self) {
        let pid = rustix::process::Pid::from_child(&self.child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().ok().flatten().is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // dockerd bind-mounts its data root onto itself and may leave that (or a
        // container's layers) mounted when it is stopped: unmount what is left, deepest
        // first, so the folder can go.
        let prefix = self.dir.path().to_string_lossy().into_owned();
        let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
        let mut left: Vec<&str> =
            mounts.lines().filter_map(|l| l.split(' ').nth(1)).filter(|m| m.starts_with(&prefix)).collect();
        left.sort_by_key(|m| std::cmp::Reverse(m.len()));
        for m in left {
            let _ = Command::new("umount").args(["-l", m]).status();
        }
    }
}

/// The image is copied to the remote engine from this machine's, a desktop runs there
/// (through the pool's factory, from the config's endpoint) and takes input, its
/// screenshots and clipboard come back over TLS, and close and drop remove it there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desktop_runs_on_a_remote_engine_over_tls() {
    let local = docker().await; // this machine's engine, with the image built
    let engine = RemoteEngine::start().await;
    let remote = engine.endpoint().connect().await.unwrap_or_else(|e| panic!("{e}\n{}", engine.log_tail()));
    let tag = image_tag();
    assert!(!image_exists(&remote, &tag).await.unwrap(), "a fresh engine has no desktop image");

    let label = unique("remote");
    let cfg = || DesktopConfig { engine: engine.endpoint(), ..config(&label) };
    match Desktop::start(&remote, cfg()).await {
        Err(DesktopError::ImageMissing { tag: t }) => assert_eq!(t, tag),
        other => panic!("a desktop without its image: {other:?}"),
    }
    let mut lines = Vec::new();
    let built = build_image(&remote, &mut |l: &str| lines.push(l.to_string())).await.unwrap();
    assert!(built.built, "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("copying") && l.contains("this machine's engine")), "{lines:?}");
    assert!(image_exists(&remote, &tag).await.unwrap());
    assert!(!build_image(&remote, &mut |_| {}).await.unwrap().built, "a second build-image is a no-op");

    // The pool's factory connects to the config's engine.
    let rig = Desktop::launch_boxed(cfg()).await.unwrap_or_else(|e| panic!("{e}"));
    let d = cc_rigs::downcast::<Desktop>(rig.clone()).expect("a desktop rig");
    assert_eq!(count(&remote, &label).await, 1);
    assert_eq!(count(&local, &label).await, 0, "the desktop must not run on this machine's engine");
    assert!(rig.alive().await);
    let shot = d.screenshot().await.unwrap();
    assert_eq!((shot.width, shot.height), (1024, 768));
    act(&d, json!({"action": "move", "x": 120, "y": 100})).await;
    act(&d, json!({"action": "click"})).await;
    let text = "remote ✓ über TLS";
    act(&d, json!({"action": "type", "text": format!("printf '%s' '{text}' | xclip -selection clipboard -i")})).await;
    act(&d, json!({"action": "key", "keys": "Return"})).await;
    clipboard_becomes(&d, text).await;
    match act(&d, json!({"action": "cursor_position"})).await {
        ActionOutput::Cursor { x, y } => assert_eq!((x, y), (120, 100)),
        other => panic!("{other:?}"),
    }
    rig.close().await;
    assert_eq!(count(&remote, &label).await, 0, "close removes the container from the remote engine");
    assert!(!rig.alive().await);
    drop(d);
    drop(rig);

    // A desktop dropped without close is removed from its own engine, not this machine's.
    let dropped = Desktop::start(&remote, cfg()).await.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count(&remote, &label).await, 1);
    drop(dropped);
    assert_eq!(count(&remote, &label).await, 0, "drop removes the container from the remote engine");
}

/// Mutual TLS holds both ways: the engine refuses a client without a certificate of its
/// CA, and the client refuses an engine whose certificate its CA did not sign. Each error
/// names the endpoint.
#[tokio::test]
async fn a_remote_engine_and_its_clients_check_each_others_certificates() {
    let engine = RemoteEngine::start().await;
    let plain = Endpoint { host: engine.tcp(), ..Endpoint::local() };
    let e = plain.connect().await.unwrap_err();
    assert!(matches!(e, DesktopError::DockerUnavailable { .. }), "plain HTTP to the TLS port: {e}");
    assert!(e.to_string().contains(&engine.tcp()), "{e}");

    // A client certificate of another CA (the engine's CA still trusted by the client).
    let other = engine.dir().join("other");
    make_ca(&other.join("ca"), "cc-test-other-ca");
    make_cert(&other.join("client"), &other.join("ca"), "", "cc-test-stranger", CLIENT_EXT);
    std::fs::copy(engine.dir().join("ca.pem"), other.join("client/ca.pem")).unwrap();
    let e = Endpoint::tcp_tls(engine.tcp(), other.join("client")).connect().await.unwrap_err();
    assert!(matches!(e, DesktopError::DockerUnavailable { .. }), "a stranger's certificate: {e}");

    // The right client certificate but another CA to check the engine with.
    let distrust = other.join("distrust");
    std::fs::create_dir_all(&distrust).unwrap();
    for f in ["cert.pem", "key.pem"] {
        std::fs::copy(engine.dir().join("client").join(f), distrust.join(f)).unwrap();
    }
    std::fs::copy(other.join("ca/ca.pem"), distrust.join("ca.pem")).unwrap();
    let e = Endpoint::tcp_tls(engine.tcp(), &distrust).connect().await.unwrap_err().to_string();
    assert!(e.contains("certificate") || e.contains("UnknownIssuer"), "an engine the client's CA did not sign: {e}");
    assert!(e.contains(&format!("{} (TLS, certificates in {})", engine.tcp(), distrust.display())), "{e}");

    let docker = engine.endpoint().connect().await.unwrap_or_else(|e| panic!("{e}"));
    assert!(docker.ping().await.is_ok());
}

/// A real sshd on a loopback port in front of the second engine: its own host key and
/// config, one authorized client key, and `SetEnv DOCKER_HOST` so the session's `docker`
/// (the Docker CLI, which bollard's ssh transport runs as `docker system dial-stdio`)
/// talks to the second engine's socket. The client trusts its host key through a
/// known_hosts file of the test's. Stopped on drop.
struct Sshd {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Sshd {
    fn start(dir: &Path, docker_sock: &Path) -> Sshd {
        assert!(Path::new("/usr/sbin/sshd").is_file(), "sshd is not installed: run tests/setup-docker.sh");
        std::fs::create_dir_all(dir).unwrap();
        for key in ["host_key", "client_key"] {
            let out = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-C", "cc-test", "-f"])
                .arg(dir.join(key))
                .output()
                .expect("running ssh-keygen");
            assert!(out.status.success(), "ssh-keygen: {}", String::from_utf8_lossy(&out.stderr));
        }
        std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys")).unwrap();
        let port = free_port();
        let host_key = std::fs::read_to_string(dir.join("host_key.pub")).unwrap();
        std::fs::write(dir.join("known_hosts"), format!("[127.0.0.1]:{port} {host_key}")).unwrap();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\n\
             AuthorizedKeysFile {d}/authorized_keys\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n\
             PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nSetEnv DOCKER_HOST=unix://{sock}\n",
            d = dir.display(),
            sock = docker_sock.display()
        );
        std::fs::write(dir.join("sshd_config"), config).unwrap();
        // sshd's privilege separation folder (the package's service unit makes it at boot).
        std::fs::create_dir_all("/run/sshd").unwrap();
        let log = std::fs::File::create(dir.join("sshd.log")).unwrap();
        let mut cmd = Command::new("/usr/sbin/sshd");
        cmd.args(["-D", "-e", "-f"])
            .arg(dir.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        let mut child = cmd.spawn().expect("starting sshd");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!(
                    "sshd exited with {status}: {}",
                    std::fs::read_to_string(dir.join("sshd.log")).unwrap_or_default()
                );
            }
            assert!(Instant::now() < deadline, "sshd did not listen on {port} in 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        Sshd { child, port, dir: dir.to_path_buf() }
    }

    fn endpoint(&self) -> Endpoint {
        Endpoint {
            host: format!("ssh://root@127.0.0.1:{}", self.port),
            tls: None,
            ssh_key: Some(self.dir.join("client_key")),
            ssh_known_hosts: Some(self.dir.join("known_hosts")),
        }
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Over ssh: the engine behind a real sshd, reached with a key file; a desktop runs there
/// and its screenshot comes back through the ssh channel. A key the server does not know,
/// and a host key the client does not know, are refused, naming the endpoint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desktop_runs_on_a_remote_engine_over_ssh() {
    let _local = docker().await; // the image to copy
    let engine = RemoteEngine::start().await;
    let sshd = Sshd::start(&engine.dir().join("ssh"), &engine.dir().join("docker.sock"));
    let remote = sshd.endpoint().connect().await.unwrap_or_else(|e| panic!("{e}"));
    let info = remote.info().await.unwrap();
    let root = engine.dir().join("data");
    assert_eq!(info.docker_root_dir.as_deref(), root.to_str(), "ssh reached another engine than the test's");
    build_image(&remote, &mut |_| {}).await.unwrap_or_else(|e| panic!("{e}"));
    let label = unique("remote-ssh");
    let d = Desktop::start(&remote, DesktopConfig { engine: sshd.endpoint(), ..config(&label) })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(count(&remote, &label).await, 1);
    let shot = d.screenshot().await.unwrap();
    assert_eq!((shot.width, shot.height), (1024, 768));
    drop(d); // removed through a connection of its own, over ssh too
    assert_eq!(count(&remote, &label).await, 0);

    let stranger = engine.dir().join("stranger");
    let out = Command::new("ssh-keygen").args(["-q", "-t", "ed25519", "-N", "", "-f"]).arg(&stranger).output().unwrap();
    assert!(out.status.success());
    let e = Endpoint { ssh_key: Some(stranger), ..sshd.endpoint() }.connect().await.unwrap_err();
    assert!(matches!(e, DesktopError::DockerUnavailable { .. }), "{e}");
    assert!(e.to_string().contains(&format!("ssh://root@127.0.0.1:{}", sshd.port)), "{e}");
    assert!(e.to_string().contains("Permission denied"), "a refused key: {e}");
    // A host key nobody vouched for is refused, never accepted on first use.
    let empty = engine.dir().join("no_known_hosts");
    std::fs::write(&empty, "").unwrap();
    let e = Endpoint { ssh_known_hosts: Some(empty), ..sshd.endpoint() }.connect().await.unwrap_err();
    assert!(e.to_string().contains("Host key verification failed"), "an unknown host key: {e}");
}
