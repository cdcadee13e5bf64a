//! computer_use through the dispatcher against the real dockerd and the desktop image (the
//! test command starts dockerd and builds the image; these tests fail naming what is
//! missing): a conversation's rig is started by its first call and reused, other
//! conversations and workspaces get their own; coordinates are screenshot pixels mapped
//! to the display (checked after a resize that makes screenshots smaller than the display);
//! text typed into the desktop's terminal comes back from its clipboard, fenced; bad input
//! names its field; rig_close and server shutdown remove the containers; read-only modes
//! refuse the tool.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cc_rigs::desktop::{list_desktops, ActionOutput, Desktop, DesktopAction};
use cc_server::app::App;
use cc_server::mcp::dispatch::Caller;
use cc_server::mcp::policy::Mode;
use serde_json::{json, Value};

use super::common::{call, err, ok, rig_fixture};

/// The desktop image built (once; other test processes wait on the build lock).
fn image_built() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let docker = cc_rigs::desktop::connect().await.unwrap_or_else(|e| {
            panic!("{e}\n(the desktop tests need dockerd: run `bash tests/setup-docker.sh` as root, or tests/run)")
        });
        let mut progress = |line: &str| eprintln!("[build-image] {line}");
        cc_rigs::desktop::build_image(&docker, &mut progress).await.unwrap_or_else(|e| panic!("{e}"));
    });
}

/// Desktop containers of a conversation (the tool labels them with its id).
fn containers_of(conversation: &str) -> usize {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let docker = cc_rigs::desktop::connect().await.unwrap();
        list_desktops(&docker, &[("cc-server.conversation", conversation)]).await.unwrap().len()
    })
}

fn computer(app: &Arc<App>, caller: &Caller, ws: &str, args: Value) -> Value {
    let mut args = args;
    args["workspace_id"] = json!(ws);
    ok(call(app, caller, "computer_use", args)).value
}

/// The desktop behind a rig id (to check what the tool did in display pixels).
fn desktop(app: &Arc<App>, ws: &str, rig: &str, caller: &Caller) -> Arc<Desktop> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let pool = app.services.rigs.pool().unwrap();
    let want = cc_rigs::pool::Acquire {
        rig_id: Some(rig.to_string()),
        ..cc_rigs::pool::Acquire::new(ws, &caller.conversation.id, cc_rigs::SurfaceKind::Desktop, None)
    };
    let lease = rt
        .block_on(pool.acquire(want, |_| Box::pin(async { Err(cc_rigs::RigError::Start("no new rig here".into())) })))
        .unwrap();
    cc_rigs::downcast::<Desktop>(lease.rig()).unwrap()
}

/// Polls the clipboard through the tool until its fenced text holds `want`.
fn clipboard_becomes(app: &Arc<App>, caller: &Caller, want: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let out = computer(app, caller, "default", json!({"action": "clipboard_read"}));
        let fenced = out["content"].as_str().unwrap().to_string();
        if fenced.contains(&format!("\n{want}\n")) {
            return fenced;
        }
        assert!(Instant::now() < deadline, "the clipboard never held {want:?}: {fenced}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn computer_use_drives_a_desktop_per_conversation_and_rig_close_removes_it() {
    image_built();
    let f = rig_fixture(false);
    let app = &f.app;
    let alice = Caller::local(Mode::Chat);

    // The first call starts the conversation's desktop: no network, 1024x768, scale 1.
    let shot = ok(call(app, &alice, "computer_use", json!({"workspace_id": "default", "action": "screenshot"})));
    assert_eq!(shot.value["created"], true, "{}", shot.value);
    assert_eq!(shot.value["network"], "none");
    assert_eq!((shot.value["display_width"].as_u64(), shot.value["display_height"].as_u64()), (Some(1024), Some(768)));
    assert_eq!(shot.value["scale"], 1.0);
    assert_eq!(shot.extra.len(), 1, "one image block");
    let block = serde_json::to_value(&shot.extra[0]).unwrap();
    assert_eq!((block["type"].as_str(), block["mimeType"].as_str()), (Some("image"), Some("image/png")));
    assert_eq!(
        (shot.value["image"]["width"].as_u64(), shot.value["image"]["height"].as_u64()),
        (Some(1024), Some(768))
    );
    let rig = shot.value["rig_id"].as_str().unwrap().to_string();
    assert!(shot.value["engine"].as_str().unwrap().starts_with("cc-server-desktop:"), "{}", shot.value);
    assert_eq!(containers_of(&alice.conversation.id), 1);

    // Later calls reuse it: same rig, same container. Type into the terminal (top left),
    // run a command that copies UTF-8 text to the clipboard, read it back fenced.
    let moved = computer(app, &alice, "default", json!({"action": "click", "x": 120, "y": 100}));
    assert_eq!((moved["rig_id"].as_str(), moved["created"].as_bool()), (Some(rig.as_str()), Some(false)));
    let text = "grüße ✓ 'rig' \"one\"";
    let typed = r#"printf '%s' "grüße ✓ 'rig' \"one\"" | xclip -selection clipboard -i"#;
    computer(app, &alice, "default", json!({"action": "type", "text": typed}));
    computer(app, &alice, "default", json!({"action": "key", "keys": "Return"}));
    let fenced = clipboard_becomes(app, &alice, text);
    assert!(fenced.starts_with("<untrusted-data source=\"desktop clipboard\" nonce=\""), "{fenced}");
    assert_eq!(containers_of(&alice.conversation.id), 1, "one container for the whole conversation");

    // Another conversation gets its own desktop; so does the same caller in another workspace.
    let bob = Caller::local(Mode::Chat);
    let bobs = computer(app, &bob, "default", json!({"action": "cursor_position"}));
    assert_eq!(bobs["created"], true);
    assert_ne!(bobs["rig_id"], json!(rig));
    let team = computer(app, &alice, "team", json!({"action": "cursor_position"}));
    assert_eq!(team["created"], true);
    assert_ne!(team["rig_id"], json!(rig));
    assert_eq!(containers_of(&alice.conversation.id), 2);
    let listed = ok(call(app, &alice, "rig_list", json!({"workspace_id": "default"}))).value;
    let surfaces: Vec<&str> =
        listed["rigs"].as_array().unwrap().iter().map(|r| r["surface"].as_str().unwrap()).collect();
    assert_eq!(surfaces, ["desktop", "desktop"], "{listed}");

    // A display larger than 1366x768: screenshots are scaled down, coordinates scaled up.
    let resized = computer(app, &alice, "default", json!({"action": "resize", "width": 2732, "height": 1536}));
    assert_eq!((resized["display_width"].as_u64(), resized["display_height"].as_u64()), (Some(2732), Some(1536)));
    assert_eq!(resized["scale"], 0.5, "{resized}");
    let shot = ok(call(app, &alice, "computer_use", json!({"workspace_id": "default", "action": "screenshot"})));
    let img = &shot.value["image"];
    assert_eq!((img["width"].as_u64(), img["height"].as_u64()), (Some(1366), Some(768)), "{img}");
    assert_eq!((img["real_width"].as_u64(), img["real_height"].as_u64()), (Some(2732), Some(1536)));
    computer(app, &alice, "default", json!({"action": "move", "x": 683, "y": 385}));
    let d = desktop(app, "default", &rig, &alice);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let real = rt.block_on(d.act(DesktopAction::CursorPosition)).unwrap();
    assert_eq!(real, ActionOutput::Cursor { x: 1366, y: 770 }, "(683, 385) of a 1366x768 screenshot of 2732x1536");
    let cursor = computer(app, &alice, "default", json!({"action": "cursor_position"}));
    assert_eq!(cursor["cursor"], json!({"x": 683, "y": 385}), "{cursor}");

    // Bad input names the field; nothing is sent to the desktop.
    let bad = |args: Value| {
        let mut args = args;
        args["workspace_id"] = json!("default");
        err(call(app, &alice, "computer_use", args))
    };
    let e = bad(json!({"action": "move", "x": 1366, "y": 10}));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/x")), "{e:?}");
    assert!(e.message.contains("screenshot pixels") && e.message.contains("1366x768"), "{e:?}");
    let e = bad(json!({"action": "move", "x": 10}));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/y")), "{e:?}");
    let e = bad(json!({"action": "fly"}));
    assert_eq!(e.pointer.as_deref(), Some("/action"), "{e:?}");
    let e = bad(json!({"action": "screenshot", "x": 3}));
    assert_eq!(e.pointer.as_deref(), Some("/x"), "{e:?}");
    let e = bad(json!({"action": "key", "keys": "ctrl+nosuchkey"}));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/keys")), "{e:?}");
    let e = bad(json!({"action": "click", "clicks": 4}));
    assert_eq!(e.pointer.as_deref(), Some("/clicks"), "{e:?}");

    // A read-only mode refuses it before anything runs.
    let planner = Caller::local(Mode::Plan);
    let e = err(call(app, &planner, "computer_use", json!({"workspace_id": "default", "action": "screenshot"})));
    assert_eq!(e.error, "mode", "{e:?}");
    assert_eq!(containers_of(&planner.conversation.id), 0);

    // rig_close removes the container; the id is gone.
    let closed = ok(call(app, &alice, "rig_close", json!({"workspace_id": "default", "rig_id": rig}))).value;
    assert_eq!(closed["closed"]["surface"], "desktop");
    assert_eq!(containers_of(&alice.conversation.id), 1, "the team workspace's desktop is still there");
    let e = err(call(
        app,
        &alice,
        "computer_use",
        json!({"workspace_id": "default", "action": "wait", "seconds": 0.1, "rig_id": rig}),
    ));
    assert_eq!(e.error, "no_rig", "{e:?}");

    // Server shutdown removes every desktop it started.
    app.services.rigs.shutdown();
    assert_eq!(containers_of(&alice.conversation.id), 0);
    assert_eq!(containers_of(&bob.conversation.id), 0);
}

#[test]
fn a_dead_desktop_is_replaced_on_the_next_call_and_says_so() {
    image_built();
    let f = rig_fixture(false);
    let app = &f.app;
    let alice = Caller::local(Mode::Chat);
    let first = computer(app, &alice, "default", json!({"action": "cursor_position"}));
    let rig = first["rig_id"].as_str().unwrap().to_string();
    // The container dies under the rig (dockerd restarted, removed from outside).
    let d = desktop(app, "default", &rig, &alice);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let docker = cc_rigs::desktop::connect().await.unwrap();
        let opts = bollard_remove_force();
        docker.remove_container(d.id(), Some(opts)).await.unwrap();
    });
    let e = err(call(app, &alice, "computer_use", json!({"workspace_id": "default", "action": "cursor_position"})));
    assert_eq!(e.error, "rig_failed", "{e:?}");
    let next = computer(app, &alice, "default", json!({"action": "cursor_position"}));
    assert_eq!(next["created"], true);
    assert_eq!(next["replaced"]["rig_id"], json!(rig), "{next}");
    assert!(next["notice"].as_str().unwrap().contains(&rig), "{next}");
    app.services.rigs.shutdown();
    assert_eq!(containers_of(&alice.conversation.id), 0);
}

fn bollard_remove_force() -> bollard::query_parameters::RemoveContainerOptions {
    bollard::query_parameters::RemoveContainerOptionsBuilder::default().force(true).build()
}
