//! What an attacker or a careless operator tries: a repository that carries links out of
//! itself, FIFOs and devices that would stall a read, values out of a field's range, a
//! server bound beyond loopback without a token, a mode that should be a ceiling.

use std::os::unix::fs::symlink;
use std::sync::Arc;
use std::time::Duration;

use cc_indexer::{DataDir, IndexOptions, NoProgress};
use cc_server::app::App;
use cc_server::mcp::dispatch::{Caller, ToolError};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::principal::Principal;
use cc_server::mcp::surface::Surface;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::common::{err, ok_value};

struct Hostile {
    tmp: tempfile::TempDir,
    app: Arc<App>,
}

/// A repository `hostile` (workspace `default`) holding what a clone can carry: links to
/// `/`, to a file and a folder outside it, to another repository (`private`, workspace
/// `team`), a chain of links, a link to /dev/zero, a FIFO, a gitignored file, a hidden
/// `.env`, `.git/config` — and a hard link to a file outside it.
fn hostile() -> Hostile {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, private, outside) = (tmp.path().join("hostile"), tmp.path().join("private"), tmp.path().join("outside"));
    for d in [repo.join("src"), repo.join(".git"), private.clone(), outside.clone()] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(repo.join("src/app.py"), "def main():\n    return helper()\n\ndef helper():\n    return 1\n")
        .unwrap();
    std::fs::write(repo.join(".gitignore"), "local_settings.py\n").unwrap();
    std::fs::write(repo.join("local_settings.py"), "SECRET = 'gitignored'\n").unwrap();
    std::fs::write(repo.join(".env"), "TOKEN=hidden\n").unwrap();
    std::fs::write(repo.join(".git/config"), "[remote \"origin\"]\n\turl = https://user:pw@example.com/x\n").unwrap();
    std::fs::write(outside.join("secret.txt"), "outside-secret\n").unwrap();
    std::fs::write(private.join("keys.py"), "KEY = 'private-repo'\n").unwrap();
    symlink("/", repo.join("linkroot")).unwrap();
    symlink(outside.join("secret.txt"), repo.join("leak.py")).unwrap();
    symlink(&outside, repo.join("src/outdir")).unwrap();
    symlink(&private, repo.join("other")).unwrap();
    symlink("chain2.py", repo.join("chain1.py")).unwrap();
    symlink(outside.join("secret.txt"), repo.join("chain2.py")).unwrap();
    symlink("/dev/zero", repo.join("zero.py")).unwrap();
    mkfifo(&repo.join("src/pipe.py"));
    // A hard link is a regular file of the tree: what it gives is its content.
    std::fs::hard_link(outside.join("secret.txt"), repo.join("src/hard.py")).unwrap();
    let data = DataDir::new(tmp.path().join("data"));
    let store = cc_server::serve::open_store(&data).unwrap();
    for (path, ws) in [(&repo, "default"), (&private, "team")] {
        let run = cc_server::engine::index(&data, &IndexOptions::new(path), &NoProgress, None).unwrap();
        cc_server::serve::register(&store, ws, &run.index.name, true).unwrap();
    }
    let app = cc_server::serve::build_app(data, None).unwrap();
    Hostile { tmp, app }
}

fn mkfifo(p: &std::path::Path) {
    let st = std::process::Command::new("mkfifo").arg(p).status().unwrap();
    assert!(st.success(), "mkfifo {}", p.display());
}

fn read(app: &Arc<App>, path: &str) -> Result<Value, ToolError> {
    match super::common::call(
        app,
        &Caller::local(Mode::Chat),
        "code_read",
        json!({"workspace_id": "default", "path": path}),
    ) {
        cc_server::mcp::dispatch::CallOutcome::Ok(o) => Ok(o.value),
        cc_server::mcp::dispatch::CallOutcome::Err(e) => Err(e),
        cc_server::mcp::dispatch::CallOutcome::Unknown(n) => panic!("unknown tool {n}"),
    }
}

#[test]
fn reads_never_leave_the_repository() {
    let h = hostile();
    assert!(read(&h.app, "src/app.py").unwrap()["text"].as_str().unwrap().contains("def main"));
    let refused = [
        ("linkroot/etc/passwd", "symbolic link"),
        ("linkroot/etc/shadow", "symbolic link"),
        ("linkroot/proc/self/environ", "symbolic link"),
        ("leak.py", "symbolic link"),
        ("src/outdir/secret.txt", "symbolic link"),
        ("other/keys.py", "symbolic link"),
        ("chain1.py", "symbolic link"),
        ("zero.py", "symbolic link"),
        ("src/pipe.py", "not a regular file (a FIFO)"),
        ("local_settings.py", "ignored by .gitignore"),
        (".env", "hidden"),
        (".git/config", "never served"),
        ("../outside/secret.txt", "without '..'"),
        ("/etc/passwd", "without '..'"),
    ];
    for (path, why) in refused {
        let e = read(&h.app, path).expect_err(path);
        assert_eq!(e.pointer.as_deref(), Some("/path"), "{path}: {e:?}");
        assert!(e.message.contains(why), "{path}: {}", e.message);
        assert!(!e.message.contains("outside-secret") && !e.message.contains("root:"), "{path} leaked: {}", e.message);
    }
    // The hard link: git cannot carry one; made on the server's disk, it reads as the file it is.
    assert_eq!(read(&h.app, "src/hard.py").unwrap()["text"], "outside-secret");
}

#[test]
fn include_source_and_resources_obey_the_same_rules() {
    let h = hostile();
    let caller = Caller::local(Mode::Chat);
    let v = ok_value(super::common::call(
        &h.app,
        &caller,
        "code_symbol",
        json!({"workspace_id": "default", "name": "helper", "include_source": true}),
    ));
    assert!(v["matches"][0]["source"].as_str().unwrap().contains("return 1"), "{v}");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let read_cc = |uri: &str| rt.block_on(cc_server::mcp::service::read_cc(&h.app.services, &Principal::local(), uri));
    assert!(read_cc("cc://default/repos/hostile/files/src/app.py").unwrap().contains("def helper"));
    for uri in [
        "cc://default/repos/hostile/files/linkroot/etc/passwd",
        "cc://default/repos/hostile/files/leak.py",
        "cc://default/repos/hostile/files/other/keys.py",
        "cc://default/repos/hostile/files/.git/config",
        "cc://default/repos/hostile/files/local_settings.py",
        "cc://default/repos/hostile/files/src/pipe.py",
    ] {
        let e = read_cc(uri).expect_err(uri);
        assert!(!e.message.contains("outside-secret") && !e.message.contains("private-repo"), "{uri}: {e:?}");
    }
    // The other repository is readable only through its own workspace.
    assert!(read_cc("cc://team/repos/private/files/keys.py").unwrap().contains("private-repo"));
    let only_default = Principal::new("agent", Some(vec!["default".into()]));
    assert!(rt
        .block_on(cc_server::mcp::service::read_cc(
            &h.app.services,
            &only_default,
            "cc://team/repos/private/files/keys.py"
        ))
        .is_err());
}

#[test]
fn the_operator_widens_what_is_served_but_never_past_the_root() {
    let h = hostile();
    let data = DataDir::new(h.tmp.path().join("data"));
    let app = cc_server::serve::build_app_with(data, None, |p| p.read_policy.include_ignored = true).unwrap();
    assert!(read(&app, "local_settings.py").unwrap()["text"].as_str().unwrap().contains("gitignored"));
    assert!(read(&app, ".env").unwrap()["text"].as_str().unwrap().contains("hidden"));
    for path in [".git/config", "linkroot/etc/passwd", "leak.py", "src/pipe.py"] {
        assert!(read(&app, path).is_err(), "{path}");
    }
}

/// Two reads of a FIFO and one of a link to /dev/zero, at once, on a runtime of two
/// workers (this machine's): each answers at once, and another call goes on meanwhile. A
/// stall is caught by the test's own deadline (not a speed measurement).
#[test]
fn a_fifo_or_a_device_does_not_stall_the_server() {
    let h = hostile();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let surface = Surface::parse(None, true).unwrap();
    let call = |path: &'static str| {
        let (app, surface) = (h.app.clone(), surface.clone());
        async move {
            let args = json!({"workspace_id": "default", "path": path});
            app.dispatcher
                .call(
                    app.services.clone(),
                    &surface,
                    &Caller::local(Mode::Chat),
                    "code_read",
                    args.as_object().cloned(),
                    CancellationToken::new(),
                    None,
                )
                .await
        }
    };
    let outcomes = rt.block_on(async {
        let all = async {
            let (a, b, z) = tokio::join!(call("src/pipe.py"), call("src/pipe.py"), call("zero.py"));
            let other = call("src/app.py").await;
            (a, b, z, other)
        };
        tokio::time::timeout(Duration::from_secs(60), all).await.expect("the reads stalled the server")
    });
    for o in [outcomes.0, outcomes.1, outcomes.2] {
        let e = err(o);
        assert!(e.message.contains("FIFO") || e.message.contains("symbolic link"), "{}", e.message);
    }
    assert!(ok_value(outcomes.3)["text"].as_str().unwrap().contains("def main"));
}

#[test]
fn a_value_out_of_its_fields_range_names_the_field() {
    let h = hostile();
    let c = Caller::local(Mode::Chat);
    for (field, value) in
        [("start_line", json!(1u64 << 40)), ("end_line", json!(1u64 << 33)), ("start_line", json!(1.5))]
    {
        let e = err(super::common::call(
            &h.app,
            &c,
            "code_read",
            json!({"workspace_id": "default", "path": "src/app.py", field: value}),
        ));
        assert_eq!(e.pointer.as_deref(), Some(format!("/{field}").as_str()), "{field}={value}: {e:?}");
    }
    // What the schema cannot say is still named by its pointer (serde's path).
    let v: Result<cc_server::mcp::tools::code::ReadArgs, _> =
        cc_server::mcp::tool::from_args(json!({"start_line": 1u64 << 40}));
    let e = v.err().expect("out of range for u32");
    assert_eq!(e.pointer.as_deref(), Some("/start_line"), "{e:?}");
}

#[test]
fn max_mode_is_a_ceiling() {
    let h = hostile();
    let data = DataDir::new(h.tmp.path().join("data"));
    let app = cc_server::serve::build_app_with(data, None, |p| {
        p.default_mode = Mode::Plan;
        p.max_mode = Mode::Plan;
    })
    .unwrap();
    let c = Caller::local(Mode::Plan);
    let e = err(super::common::call(&app, &c, "set_mode", json!({"mode": "chat"})));
    assert_eq!(e.error, "mode");
    assert!(e.message.contains("--max-mode plan"), "{}", e.message);
    let e = err(super::common::call(&app, &c, "exit_plan_mode", json!({})));
    assert!(e.message.contains("--max-mode plan"), "{}", e.message);
    assert!(
        app.services.policy.check_ceiling(Mode::Chat).is_err() && app.services.policy.check_ceiling(Mode::Plan).is_ok()
    );
}

fn cc(args: &[&str], data: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_cc-server"))
        .args(args)
        .env("CC_DATA_DIR", data)
        .env_remove("CC_TOKEN")
        .env_remove("CC_TOKENS_FILE")
        .output()
        .unwrap()
}

#[test]
fn a_server_beyond_loopback_needs_a_token() {
    let tmp = tempfile::tempdir().unwrap();
    let out = cc(&["serve", "--listen", "0.0.0.0", "--port", "0"], tmp.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--token") && err.contains("--allow-unauthenticated"), "{err}");
    // --mode above --max-mode is refused too, before anything is served.
    let out = cc(&["serve", "--port", "0", "--mode", "chat", "--max-mode", "plan"], tmp.path());
    assert!(String::from_utf8_lossy(&out.stderr).contains("above --max-mode plan"), "{out:?}");
    // With --allow-unauthenticated it serves (and stops on SIGTERM).
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cc-server"))
        .args(["serve", "--listen", "0.0.0.0", "--port", "0", "--allow-unauthenticated"])
        .env("CC_DATA_DIR", tmp.path())
        .env_remove("CC_TOKEN")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::BufRead;
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("serving MCP") {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 {
            break;
        }
        seen.push_str(&line);
    }
    // At once: the server listens for SIGTERM before it says it serves (it ran on, once).
    let _ = std::process::Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let stopped = (0..600).find_map(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        child.try_wait().unwrap()
    });
    if stopped.is_none() {
        let _ = child.kill();
        panic!("the server did not stop within 60 s of a SIGTERM sent as it said it serves");
    }
    assert!(seen.contains("serving MCP on http://0.0.0.0:"), "{seen}");
    assert!(seen.contains("warning: listening on 0.0.0.0 without --token"), "{seen}");
}
