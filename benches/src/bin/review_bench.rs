//! start_ai_review's time on a change of about `--files` files in a large repository, end to
//! end through the MCP dispatcher, with its split (worktrees, index base, index head, diff,
//! impact).
//!
//! ```text
//! review_bench --repo GIT_DIR_OR_CHECKOUT [--files 50] [--runs 2]
//! ```
//!
//! The repository is cloned into a temporary folder (its checkout is what the workspace
//! registers and what the server indexes first, as `cc-server index` would; not timed). Head is
//! the clone's HEAD; base the nearest first-parent ancestor at which `git diff --name-only
//! base HEAD` names at least `--files` files. The first run indexes both revisions from
//! worktrees; the later ones find both indexes (one per commit) and time the rest. Reviewer
//! dispatch is off (no agents). Prints `key=value` lines.

use std::path::Path;
use std::time::Instant;

use cc_benches::{call_tool as call, tool_value as ok};
use cc_indexer::{DataDir, IndexOptions, NoProgress};
use cc_server::mcp::dispatch::Caller;
use cc_server::mcp::policy::Mode;
use serde_json::json;

fn usage() -> ! {
    eprintln!("usage: review_bench --repo GIT_DIR_OR_CHECKOUT [--files N] [--runs N]");
    std::process::exit(2)
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git").arg("-C").arg(dir).args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut repo, mut files, mut runs) = (None, 50usize, 2usize);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--repo" => repo = Some(val()),
            "--files" => files = val().parse().unwrap_or_else(|_| usage()),
            "--runs" => runs = val().parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    let src = repo.unwrap_or_else(|| usage());
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let root = tmp.path().join("repo");
    let t = Instant::now();
    let out = std::process::Command::new("git")
        .args(["clone", "-q", "--no-hardlinks", &src])
        .arg(&root)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git clone: {}", String::from_utf8_lossy(&out.stderr));
    println!("clone_ms={}", t.elapsed().as_millis());
    let head = git(&root, &["rev-parse", "HEAD"]);
    let log = git(&root, &["rev-list", "--first-parent", "--max-count=2000", "HEAD"]);
    let (base, n) = log
        .lines()
        .skip(1)
        .map(|c| (c.to_string(), git(&root, &["diff", "--name-only", "--no-renames", c, &head]).lines().count()))
        .find(|(_, n)| *n >= files)
        .expect("an ancestor that far apart");
    println!("head={head}\nbase={base}\nchanged_files={n}");
    let data = DataDir::new(tmp.path().join("data"));
    let t = Instant::now();
    let indexed =
        cc_server::engine::index_with(&data, &IndexOptions::new(&root), &NoProgress, None, None).expect("indexed");
    println!("checkout_index_ms={} files={}", t.elapsed().as_millis(), indexed.index.stats.files);
    let store = cc_server::serve::open_store(&data).expect("the store");
    cc_server::serve::register(&store, "default", &indexed.index.name, true).expect("registered");
    let app = cc_server::serve::app_of(data, store, None, None, |_| Ok(())).expect("the app");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let caller = Caller::local(Mode::Chat);
    for run in 1..=runs {
        let args = json!({"workspace_id": "default", "repo": indexed.index.name, "base": base, "head": head, "dispatch": false});
        let t = Instant::now();
        let r = ok("start_ai_review", rt.block_on(call(&app, &caller, "start_ai_review", &args)));
        let wall = t.elapsed().as_millis();
        let tm = &r["timings"];
        let symbols: usize =
            r["areas"].as_array().unwrap().iter().map(|a| a["symbols"].as_array().unwrap().len()).sum();
        let callers: u64 = r["areas"].as_array().unwrap().iter().map(|a| a["callers"].as_u64().unwrap()).sum();
        println!(
            "run={run} wall_ms={wall} worktrees_ms={} index_base_ms={} index_head_ms={} diff_ms={} impact_ms={} analysis_ms={} base_cached={} head_cached={} areas={} changed_symbols={symbols} callers={callers} steps={}",
            tm["worktrees_ms"],
            tm["index_base_ms"],
            tm["index_head_ms"],
            tm["diff_ms"],
            tm["impact_ms"],
            tm["total_ms"],
            tm["base_cached"],
            tm["head_cached"],
            r["areas"].as_array().unwrap().len(),
            r["walkthrough"].as_array().unwrap().len()
        );
    }
    println!("peak_rss_mb={:?}", cc_server::engine::peak_rss_mb());
}
