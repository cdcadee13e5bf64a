//! Desktop rig benchmark (a measurement, not a test): time to the first screenshot from a
//! cold start (container start + desktop ready + screenshot) and on a running desktop, and
//! per-action latency p50/p99. Needs dockerd and the image (`bash tests/setup-docker.sh`).
//!
//!   cargo run --release -p cc-rigs --example desktop_bench [ROUNDS]

use std::time::{Duration, Instant};

use cc_rigs::desktop::{build_image, connect, Desktop, DesktopAction, DesktopConfig, MouseButton};

fn stats(name: &str, mut v: Vec<Duration>) {
    v.sort();
    let q = |p: f64| v[((v.len() as f64 - 1.0) * p).round() as usize];
    println!(
        "{name:<28} n={:<4} p50 {:>8.1} ms   p99 {:>8.1} ms   min {:>8.1} ms   max {:>8.1} ms",
        v.len(),
        q(0.5).as_secs_f64() * 1e3,
        q(0.99).as_secs_f64() * 1e3,
        v[0].as_secs_f64() * 1e3,
        v[v.len() - 1].as_secs_f64() * 1e3
    );
}

async fn time<F: std::future::Future>(f: F) -> Duration {
    let t = Instant::now();
    f.await;
    t.elapsed()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds: usize = std::env::args().nth(1).map(|s| s.parse()).transpose()?.unwrap_or(50);
    let docker = connect().await?;
    let built = build_image(&docker, &mut |l: &str| eprintln!("{l}")).await?;
    println!("image {}  ({} rounds per action)", built.tag, rounds);

    let mut cold = Vec::new();
    let mut start_only = Vec::new();
    let mut close = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let d = Desktop::start(&docker, DesktopConfig::default()).await?;
        start_only.push(t.elapsed());
        d.screenshot().await?;
        cold.push(t.elapsed());
        let t = Instant::now();
        d.close().await?;
        close.push(t.elapsed());
    }
    stats("cold: start (ready)", start_only);
    stats("cold: first screenshot", cold);
    stats("close (remove container)", close);

    let d = Desktop::start(&docker, DesktopConfig::default()).await?;
    let mut v = Vec::new();
    for _ in 0..rounds {
        v.push(time(async { d.screenshot().await.unwrap() }).await);
    }
    stats("warm: screenshot 1024x768", v);
    let mut v = Vec::new();
    for i in 0..rounds as i64 {
        v.push(time(async { d.act(DesktopAction::Move { x: 200 + i % 500, y: 300 }).await.unwrap() }).await);
    }
    stats("move", v);
    let mut v = Vec::new();
    for _ in 0..rounds {
        let a = DesktopAction::Click { x: Some(900), y: Some(700), button: MouseButton::Left, clicks: 1 };
        v.push(time(async { d.act(a).await.unwrap() }).await);
    }
    stats("click (move + click)", v);
    let mut v = Vec::new();
    for _ in 0..rounds {
        v.push(time(async { d.act(DesktopAction::Key { keys: "shift".into() }).await.unwrap() }).await);
    }
    stats("key", v);
    let mut v = Vec::new();
    for _ in 0..rounds {
        v.push(time(async { d.act(DesktopAction::Type { text: "hello wörld".into() }).await.unwrap() }).await);
    }
    stats("type 11 chars", v);
    let mut v = Vec::new();
    for _ in 0..rounds {
        v.push(time(async { d.act(DesktopAction::CursorPosition).await.unwrap() }).await);
    }
    stats("cursor_position", v);
    let mut v = Vec::new();
    for _ in 0..rounds {
        v.push(time(async { d.act(DesktopAction::ClipboardWrite { text: "x".repeat(100) }).await.unwrap() }).await);
    }
    stats("clipboard_write", v);
    let mut v = Vec::new();
    for _ in 0..rounds {
        v.push(time(async { d.act(DesktopAction::ClipboardRead).await.unwrap() }).await);
    }
    stats("clipboard_read", v);
    let mut v = Vec::new();
    for i in 0..5u32 {
        let (w, h) = if i % 2 == 0 { (1280, 800) } else { (1024, 768) };
        v.push(time(async { d.resize(w, h).await.unwrap() }).await);
    }
    stats("resize (session restart)", v);
    d.close().await?;
    Ok(())
}
