//! Desktop rigs against the real dockerd: image, start, input, read-back, resize, close,
//! four at once, orphan cleanup, bad input.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use bollard::Docker;
use cc_rigs::desktop::{
    build_image, cleanup_orphans, connect, connect_to, list_desktops, png_size, ActionOutput, Desktop, DesktopAction,
    DesktopConfig, DesktopError, MouseButton, Owner, ScrollDirection,
};
use serde_json::json;

pub(crate) const TEST_LABEL: &str = "cc-rigs.test";

/// The daemon, with the image built (once; other test processes wait on the build lock).
pub(crate) async fn docker() -> Docker {
    let docker = connect().await.unwrap_or_else(|e| {
        panic!("{e}\n(the desktop tests need dockerd: run `bash tests/setup-docker.sh` as root, or tests/run)")
    });
    let mut progress = |line: &str| eprintln!("[build-image] {line}");
    build_image(&docker, &mut progress).await.unwrap_or_else(|e| panic!("{e}"));
    docker
}

/// A label value unique to this test run, to count only this test's containers.
pub(crate) fn unique(name: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{name}-{}-{nanos}", std::process::id())
}

pub(crate) fn config(label: &str) -> DesktopConfig {
    DesktopConfig { labels: BTreeMap::from([(TEST_LABEL.to_string(), label.to_string())]), ..Default::default() }
}

pub(crate) async fn count(docker: &Docker, label: &str) -> usize {
    list_desktops(docker, &[(TEST_LABEL, label)]).await.unwrap().len()
}

async fn start(docker: &Docker, label: &str) -> Desktop {
    Desktop::start(docker, config(label)).await.unwrap_or_else(|e| panic!("start: {e}"))
}

pub(crate) async fn act(d: &Desktop, action: serde_json::Value) -> ActionOutput {
    let a = DesktopAction::from_json(action.clone()).unwrap_or_else(|e| panic!("{action}: {e}"));
    d.act(a).await.unwrap_or_else(|e| panic!("{action}: {e}"))
}

async fn clipboard(d: &Desktop) -> String {
    match act(d, json!({"action": "clipboard_read"})).await {
        ActionOutput::Clipboard { text } => text,
        other => panic!("clipboard_read answered {other:?}"),
    }
}

/// Polls the clipboard until it holds `want` (typing reaches the terminal asynchronously).
pub(crate) async fn clipboard_becomes(d: &Desktop, want: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = clipboard(d).await;
        if got == want {
            return;
        }
        assert!(Instant::now() < deadline, "the clipboard holds {got:?}, not {want:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn screenshot_is_a_png_of_the_display_size() {
    let docker = docker().await;
    let d = start(&docker, &unique("shot")).await;
    assert_eq!(d.display_size(), (1024, 768));
    let shot = d.screenshot().await.unwrap();
    assert_eq!((shot.width, shot.height), (1024, 768));
    assert_eq!(png_size(&shot.png), Some((1024, 768)));
    assert!(shot.png.ends_with(b"IEND\xae\x42\x60\x82"), "the PNG is cut short");
    match act(&d, json!({"action": "screenshot"})).await {
        ActionOutput::Screenshot(s) => assert_eq!((s.width, s.height), (1024, 768)),
        other => panic!("{other:?}"),
    }
    d.close().await.unwrap();
}

#[tokio::test]
async fn type_into_the_terminal_and_read_it_back() {
    let docker = docker().await;
    let d = start(&docker, &unique("type")).await;
    let before = d.screenshot().await.unwrap();
    // The terminal sits at the top left: click into it, type a command that puts UTF-8 text
    // on the clipboard, run it, read the clipboard.
    act(&d, json!({"action": "move", "x": 120, "y": 100})).await;
    act(&d, json!({"action": "click"})).await;
    let text = "héllo wörld ✓ 日本語 — \"quoted\" $HOME";
    let typed = format!("printf '%s' '{text}' | xclip -selection clipboard -i");
    // Longer than one 50-character chunk.
    assert!(typed.chars().count() > 50);
    act(&d, json!({"action": "type", "text": typed})).await;
    act(&d, json!({"action": "key", "keys": "Return"})).await;
    clipboard_becomes(&d, text).await;
    let after = d.screenshot().await.unwrap();
    assert_ne!(before.png, after.png, "typing changed nothing on screen");
    d.close().await.unwrap();
}

#[tokio::test]
async fn clipboard_write_then_read_and_paste() {
    let docker = docker().await;
    let d = start(&docker, &unique("clip")).await;
    let text = "ünïcødé ✓ 'quotes' \"double\" $(not run) `nor this`\nsecond line";
    assert!(matches!(act(&d, json!({"action": "clipboard_write", "text": text})).await, ActionOutput::Done));
    assert_eq!(clipboard(&d).await, text);
    d.close().await.unwrap();
}

#[tokio::test]
async fn pointer_actions_move_the_pointer() {
    let docker = docker().await;
    let d = start(&docker, &unique("pointer")).await;
    act(&d, json!({"action": "move", "x": 321, "y": 123})).await;
    assert_eq!(act(&d, json!({"action": "cursor_position"})).await, ActionOutput::Cursor { x: 321, y: 123 });
    for clicks in 1..=3 {
        for button in [MouseButton::Left, MouseButton::Middle, MouseButton::Right] {
            let a = DesktopAction::Click { x: Some(700), y: Some(500), button, clicks };
            d.act(a).await.unwrap();
            // close a context menu a right click may open
            act(&d, json!({"action": "key", "keys": "Escape"})).await;
        }
    }
    assert_eq!(act(&d, json!({"action": "cursor_position"})).await, ActionOutput::Cursor { x: 700, y: 500 });
    act(&d, json!({"action": "drag", "x": 600, "y": 400, "to_x": 650, "to_y": 450})).await;
    assert_eq!(act(&d, json!({"action": "cursor_position"})).await, ActionOutput::Cursor { x: 650, y: 450 });
    for direction in [ScrollDirection::Up, ScrollDirection::Down, ScrollDirection::Left, ScrollDirection::Right] {
        d.act(DesktopAction::Scroll { direction, amount: 2, x: Some(100), y: Some(100) }).await.unwrap();
    }
    assert_eq!(act(&d, json!({"action": "cursor_position"})).await, ActionOutput::Cursor { x: 100, y: 100 });
    act(&d, json!({"action": "key", "keys": "ctrl+shift+a shift+Tab"})).await;
    let t = Instant::now();
    act(&d, json!({"action": "wait", "seconds": 0.2})).await;
    assert!(t.elapsed() >= Duration::from_millis(200));
    d.close().await.unwrap();
}

#[tokio::test]
async fn resize_changes_the_display_and_the_screenshot() {
    let docker = docker().await;
    let d = start(&docker, &unique("resize")).await;
    assert_eq!(
        act(&d, json!({"action": "resize", "width": 800, "height": 600})).await,
        ActionOutput::Resized { width: 800, height: 600 }
    );
    assert_eq!(d.display_size(), (800, 600));
    let shot = d.screenshot().await.unwrap();
    assert_eq!((shot.width, shot.height), (800, 600));
    // Coordinates are checked against the new size.
    let err = d.act(DesktopAction::Move { x: 900, y: 10 }).await.unwrap_err();
    assert_eq!(err.to_string(), "/x: 900 is off screen (the display is 800x600: x in 0..=799)");
    // Larger than the first size, and the terminal is back.
    d.resize(1280, 800).await.unwrap();
    let shot = d.screenshot().await.unwrap();
    assert_eq!((shot.width, shot.height), (1280, 800));
    act(&d, json!({"action": "click", "x": 100, "y": 100})).await;
    act(&d, json!({"action": "type", "text": "printf after-resize | xclip -selection clipboard -i\n"})).await;
    clipboard_becomes(&d, "after-resize").await;
    d.close().await.unwrap();
}

#[tokio::test]
async fn close_removes_the_container_and_it_was_confined() {
    let docker = docker().await;
    let label = unique("close");
    assert_eq!(count(&docker, &label).await, 0);
    let d = start(&docker, &label).await;
    assert_eq!(count(&docker, &label).await, 1);
    let info =
        docker.inspect_container(d.id(), None::<bollard::query_parameters::InspectContainerOptions>).await.unwrap();
    let host = info.host_config.unwrap();
    assert_eq!(host.network_mode.as_deref(), Some("none"));
    assert_eq!(host.memory, Some(DesktopConfig::default().memory_bytes));
    assert_eq!(host.pids_limit, Some(DesktopConfig::default().pids_limit));
    assert_eq!(host.cap_drop, Some(vec!["ALL".to_string()]));
    let id = d.id().to_string();
    d.close().await.unwrap();
    assert_eq!(count(&docker, &label).await, 0);
    let gone = docker.inspect_container(&id, None::<bollard::query_parameters::InspectContainerOptions>).await;
    assert!(matches!(gone, Err(bollard::errors::Error::DockerResponseServerError { status_code: 404, .. })));
    let err = d.act(DesktopAction::Screenshot).await.unwrap_err();
    assert!(matches!(err, DesktopError::Closed { .. }), "{err}");
    d.close().await.unwrap(); // idempotent
}

#[tokio::test]
async fn dropping_an_open_desktop_removes_its_container() {
    let docker = docker().await;
    let label = unique("drop");
    let d = start(&docker, &label).await;
    assert_eq!(count(&docker, &label).await, 1);
    drop(d);
    assert_eq!(count(&docker, &label).await, 0);
}

#[tokio::test]
async fn four_desktops_at_once() {
    let docker = docker().await;
    let label = unique("four");
    // Four X sessions starting at once on a small shared machine can take a while.
    let cfg = DesktopConfig { start_timeout: Duration::from_secs(180), ..config(&label) };
    let started = futures::future::join_all((0..4).map(|_| Desktop::start(&docker, cfg.clone()))).await;
    let desktops: Vec<Desktop> = started.into_iter().map(|r| r.unwrap()).collect();
    assert_eq!(count(&docker, &label).await, 4);
    // Each has its own display: different pointer positions, same-size screenshots.
    for (i, d) in desktops.iter().enumerate() {
        d.act(DesktopAction::Move { x: 10 + i as i64 * 100, y: 20 }).await.unwrap();
    }
    let shots = futures::future::join_all(desktops.iter().map(|d| d.screenshot())).await;
    for s in shots {
        assert_eq!(png_size(&s.unwrap().png), Some((1024, 768)));
    }
    for (i, d) in desktops.iter().enumerate() {
        assert_eq!(
            d.act(DesktopAction::CursorPosition).await.unwrap(),
            ActionOutput::Cursor { x: 10 + i as i64 * 100, y: 20 }
        );
    }
    for d in &desktops {
        d.close().await.unwrap();
    }
    assert_eq!(count(&docker, &label).await, 0);
}

#[tokio::test]
async fn cleanup_orphans_removes_containers_whose_owner_is_gone() {
    let docker = docker().await;
    let label = unique("orphan");
    // An owner process that then exits.
    let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let dead = Owner::of_pid(child.id()).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!dead.is_alive());
    let orphan = Desktop::start(&docker, DesktopConfig { owner: Some(dead.clone()), ..config(&label) }).await.unwrap();
    let alive = start(&docker, &label).await;
    assert_eq!(count(&docker, &label).await, 2);
    let removed = cleanup_orphans(&docker).await.unwrap();
    assert!(removed.contains(&orphan.id().to_string()), "{removed:?}");
    assert!(!removed.contains(&alive.id().to_string()));
    let left = list_desktops(&docker, &[(TEST_LABEL, &label)]).await.unwrap();
    assert_eq!(left.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), [alive.id()]);
    assert_eq!(left[0].owner, Some(Owner::current().unwrap()));
    alive.close().await.unwrap();
    drop(orphan); // its container is gone already; removing again is not an error
    assert_eq!(count(&docker, &label).await, 0);
}

#[tokio::test]
async fn bad_input_is_answered_clearly_and_changes_nothing() {
    let docker = docker().await;
    let d = start(&docker, &unique("bad")).await;
    let parse_err = |v: serde_json::Value| DesktopAction::from_json(v).unwrap_err().to_string();
    assert!(parse_err(json!({"action": "teleport"})).starts_with("/action: unknown action `teleport`; one of"));
    assert_eq!(parse_err(json!({"action": "move", "y": 3})), "/x: missing");
    let act_err = |a: DesktopAction| {
        let d = &d;
        async move { d.act(a).await.unwrap_err() }
    };
    let e = act_err(DesktopAction::Move { x: 5000, y: 5 }).await;
    assert!(matches!(&e, DesktopError::BadInput { pointer, .. } if pointer == "/x"), "{e}");
    assert_eq!(e.to_string(), "/x: 5000 is off screen (the display is 1024x768: x in 0..=1023)");
    let e = act_err(DesktopAction::Click { x: Some(3), y: None, button: MouseButton::Left, clicks: 1 }).await;
    assert_eq!(e.to_string(), "/y: missing (give both x and y, or neither)");
    let e = act_err(DesktopAction::Key { keys: "ctrl+Retrun".into() }).await;
    assert!(e.to_string().starts_with("/keys: unknown key `Retrun` in `ctrl+Retrun`"), "{e}");
    let e = act_err(DesktopAction::Resize { width: 10, height: 10 }).await;
    assert_eq!(e.to_string(), "/width: 10: expected 320..=3840");
    // The desktop is untouched and still answers.
    assert_eq!(d.display_size(), (1024, 768));
    d.act(DesktopAction::Move { x: 5, y: 5 }).await.unwrap();
    d.close().await.unwrap();
}

#[tokio::test]
async fn a_missing_daemon_or_image_is_named() {
    let e = connect_to("unix:///nonexistent/docker.sock").await.unwrap_err();
    assert!(matches!(e, DesktopError::DockerUnavailable { .. }), "{e}");
    assert!(e.to_string().contains("unix:///nonexistent/docker.sock"), "{e}");
    assert!(e.to_string().contains("start dockerd"), "{e}");
    let docker = docker().await;
    let cfg = DesktopConfig { image: Some("cc-server-desktop:no-such-recipe".into()), ..config(&unique("noimage")) };
    let e = Desktop::start(&docker, cfg).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        "the desktop image cc-server-desktop:no-such-recipe is not built: run `cc-server rigs build-image`"
    );
}
