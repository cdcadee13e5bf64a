//! install_skill through the MCP dispatcher: the time to install a skill of `--bytes` bytes
//! (`--files` markdown files and its SKILL.md) from a git repository the bench makes,
//! served over file:// (and by git-daemon on 127.0.0.1 with `--daemon`), `--samples` times,
//! each under a new slug; the scan gate's time on the same files alone besides.
//!
//! ```text
//! skills_bench [--bytes 1048576] [--files 16] [--samples 20] [--daemon] [--postgres ADMIN_URL]
//! ```
//!
//! install_skill is approval-gated: each timed call is one whose approval the operator gave
//! beforehand (its pending approval made and decided before the clock starts), so the figure
//! is an approved call's: ls-remote, a depth-1 fetch, the listing and reading of the folder,
//! the scan, the write and rename, the lock, the store's history row. Prints `key=value` lines.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use cc_benches::{percentile, BenchStore};
use cc_indexer::DataDir;
use cc_server::app::App;
use cc_server::mcp::approvals::ApprovalConfig;
use cc_server::mcp::dispatch::{CallOutcome, Caller};
use cc_server::mcp::policy::Mode;
use cc_server::skills::scan::{Entry, EntryKind};
use serde_json::{json, Value};

fn usage() -> ! {
    eprintln!("usage: skills_bench [--bytes N] [--files N] [--samples N] [--daemon] [--postgres ADMIN_URL]");
    std::process::exit(2)
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "b")
        .env("GIT_AUTHOR_EMAIL", "b@example.org")
        .env("GIT_COMMITTER_NAME", "b")
        .env("GIT_COMMITTER_EMAIL", "b@example.org")
        .stderr(Stdio::inherit())
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The skill's files: a SKILL.md and `files` markdown files of prose, `bytes` in all.
fn skill_files(bytes: usize, files: usize) -> Vec<(String, String)> {
    let mut out =
        vec![("SKILL.md".to_string(), "---\nname: big\ndescription: A large skill.\n---\n# Big\n".to_string())];
    let per = bytes.saturating_sub(out[0].1.len()) / files.max(1);
    let line = "The reviewer reads the whole change before commenting, then runs its tests.\n";
    for i in 0..files {
        let mut text = format!("# Part {i}\n\n");
        while text.len() + line.len() <= per {
            text.push_str(line);
        }
        out.push((format!("reference/part-{i:02}.md"), text));
    }
    out
}

async fn call(app: &Arc<App>, name: &str, args: &Value) -> CallOutcome {
    cc_benches::call_tool(app, &Caller::local(Mode::Chat), name, args).await
}

fn main() {
    let (mut bytes, mut files, mut samples, mut daemon, mut postgres) = (1 << 20, 16, 20, false, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--bytes" => bytes = val().parse().unwrap_or_else(|_| usage()),
            "--files" => files = val().parse().unwrap_or_else(|_| usage()),
            "--samples" => samples = val().parse::<usize>().unwrap_or_else(|_| usage()).max(1),
            "--daemon" => daemon = true,
            "--postgres" => postgres = Some(val()),
            _ => usage(),
        }
    }
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let root = tmp.path();
    // The repository: one commit with the skill under skills/big, pushed to a bare origin.
    git(root, &["init", "-q", "--bare", "origin.git"]);
    let work = root.join("work");
    git(root, &["init", "-q", "-b", "main", "work"]);
    let content = skill_files(bytes, files);
    for (p, t) in &content {
        let path = work.join("skills/big").join(p);
        std::fs::create_dir_all(path.parent().unwrap()).expect("a folder");
        std::fs::write(path, t).expect("a file");
    }
    git(&work, &["add", "-A"]);
    git(&work, &["commit", "-q", "-m", "big"]);
    git(&work, &["push", "-q", &format!("file://{}/origin.git", root.display()), "main"]);
    let total: usize = content.iter().map(|(_, t)| t.len()).sum();
    println!("skill_bytes={total} skill_files={}", content.len());
    let mut daemon_child = None;
    let url = if daemon {
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("addr").port();
        let exec = git(root, &["--exec-path"]);
        let child = Command::new(Path::new(&exec).join("git-daemon"))
            .args(["--reuseaddr", "--export-all", "--listen=127.0.0.1", &format!("--port={port}")])
            .arg(format!("--base-path={}", root.display()))
            .arg(root)
            .stderr(Stdio::null())
            .spawn()
            .expect("git-daemon");
        daemon_child = Some(child);
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        format!("git://127.0.0.1:{port}/origin.git")
    } else {
        format!("file://{}/origin.git", root.display())
    };
    println!("transport={}", if daemon { "git-daemon" } else { "file" });

    // The scan gate alone, on the same files in memory.
    let entries: Vec<Entry> =
        content.iter().map(|(p, t)| Entry::new(p.clone(), EntryKind::File, t.as_bytes().to_vec())).collect();
    let mut scan_ms = Vec::new();
    for _ in 0..samples {
        let t = Instant::now();
        cc_server::skills::scan::scan(&entries).expect("the bench's skill passes the gate");
        scan_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    scan_ms.sort_by(f64::total_cmp);
    println!("scan samples={samples} p50_ms={:.2} max_ms={:.2}", percentile(&scan_ms, 50.0), scan_ms[samples - 1]);

    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    rt.block_on(async {
        let db = BenchStore::open("skills", postgres.as_deref()).await;
        let data = DataDir::new(root.join("data"));
        std::fs::create_dir_all(&data.root).expect("the data folder");
        let app = cc_server::serve::app_of(data, db.store.clone(), None, None, |p| {
            p.approvals = ApprovalConfig { queue: true, ..ApprovalConfig::default() };
            Ok(())
        })
        .expect("the app");
        let mut ms = Vec::new();
        for i in 0..samples {
            let args = json!({"workspace_id": "default", "repository": url, "path": "skills/big", "ref": "main", "slug": format!("big-{i}")});
            match call(&app, "install_skill", &args).await {
                CallOutcome::Err(e) if e.error == "approval_pending" => {
                    let id = e.data.expect("data")["approval_id"].as_str().expect("an id").to_string();
                    app.services.store.approvals().decide(&id, true, "operator (bench)", None).await.expect("decide");
                }
                _ => panic!("install_skill did not ask for approval"),
            }
            let t = Instant::now();
            match call(&app, "install_skill", &args).await {
                CallOutcome::Ok(_) => {}
                CallOutcome::Err(e) => panic!("install_skill: {e:?}"),
                CallOutcome::Unknown(n) => panic!("unknown tool {n}"),
            }
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        ms.sort_by(f64::total_cmp);
        println!(
            "install_skill samples={samples} p50_ms={:.1} p95_ms={:.1} min_ms={:.1} max_ms={:.1}",
            percentile(&ms, 50.0),
            percentile(&ms, 95.0),
            ms[0],
            ms[samples - 1]
        );
        drop(app);
        db.close().await;
    });
    if let Some(mut c) = daemon_child {
        let _ = c.kill();
        let _ = c.wait();
    }
}
