//! mobile_use and ios_use through the dispatcher, as a client calls them: mobile_use on a
//! fake Android device behind the real `adb` server, ios_use on a WebDriverAgent double
//! (cc_rigs::testing). Each call is confirmed through the operator's queue (the tools
//! declare packageInstall, which chat mode prompts for); read-only modes refuse them;
//! rig_list shows their rigs and rig_close removes them.

use std::sync::Arc;

use cc_rigs::testing::adb_device::{apk, DeviceConfig, FakeDevice, InputEvent};
use cc_rigs::testing::wda::FakeWda;
use cc_rigs::testing::AdbServerProcess;
use cc_server::app::App;
use cc_server::mcp::dispatch::{CallOutcome, Caller};
use cc_server::mcp::policy::Mode;
use serde_json::{json, Value};

use super::common::{err, ok, rig_fixture};

/// One call through the dispatcher (`common::call`, which takes its arguments by value).
fn call(app: &Arc<App>, caller: &Caller, name: &str, args: &Value) -> CallOutcome {
    super::common::call(app, caller, name, args.clone())
}

fn confirmed(app: &Arc<App>, caller: &Caller, name: &str, args: Value) -> CallOutcome {
    match call(app, caller, name, &args) {
        CallOutcome::Err(e) if e.error == "approval_pending" => {
            let data = e.data.unwrap();
            assert!(data["why"].as_str().unwrap().contains("packageInstall"), "{data}");
            let id = data["approval_id"].as_str().unwrap().to_string();
            cc_server::serve::block_on(app.services.store.approvals().decide(&id, true, "operator (test)", None))
                .unwrap();
            call(app, caller, name, &args)
        }
        other => other,
    }
}

fn with_ws(args: Value) -> Value {
    let mut args = args;
    args["workspace_id"] = json!("default");
    args
}

#[test]
fn mobile_use_drives_a_device_behind_the_real_adb_server() {
    let adb = AdbServerProcess::start().unwrap_or_else(|e| panic!("{e}"));
    let dev = FakeDevice::start(DeviceConfig::default());
    adb.connect(dev.addr, "device").unwrap();
    // The tool finds the ADB server as adb does.
    std::env::set_var("ANDROID_ADB_SERVER_PORT", adb.port.to_string());
    std::env::remove_var("ANDROID_SERIAL");
    let f = rig_fixture(true);
    let app = &f.app;
    let alice = Caller::local(Mode::Chat);
    let serial = dev.serial();
    let mobile = |caller: &Caller, args: Value| confirmed(app, caller, "mobile_use", with_ws(args));

    // Chat mode asks first: nothing runs until the operator approves.
    let e = err(call(app, &alice, "mobile_use", &with_ws(json!({"action": "check_in", "serial": serial}))));
    assert_eq!(e.error, "approval_pending", "{e:?}");
    assert!(dev.state().commands.is_empty());

    let c = ok(mobile(&alice, json!({"action": "check_in", "serial": serial}))).value;
    assert_eq!((c["created"].as_bool(), c["device"].as_str()), (Some(true), Some(serial.as_str())));
    assert_eq!(c["info"]["model"], "Fake Pixel");
    assert_eq!((c["info"]["screen_width"].as_u64(), c["info"]["screen_height"].as_u64()), (Some(1080), Some(2400)));
    assert!(c["info"]["devices"].as_array().unwrap().contains(&json!({"serial": serial, "state": "device"})), "{c}");
    let rig = c["rig_id"].as_str().unwrap().to_string();

    // A screenshot: one PNG block, scaled; later calls reuse the rig without a serial.
    let shot = ok(mobile(&alice, json!({"action": "screenshot"})));
    assert_eq!(shot.extra.len(), 1);
    let block = serde_json::to_value(&shot.extra[0]).unwrap();
    assert_eq!((block["type"].as_str(), block["mimeType"].as_str()), (Some("image"), Some("image/png")));
    let img = &shot.value["image"];
    assert_eq!((img["height"].as_u64(), img["real_height"].as_u64()), (Some(768), Some(2400)));
    assert_eq!(shot.value["rig_id"], rig.as_str());
    assert_eq!(shot.value["created"], false);
    let scale = img["scale"].as_f64().unwrap();

    // A tap in screenshot pixels arrives in device pixels.
    ok(mobile(&alice, json!({"action": "tap", "x": 50, "y": 400})));
    assert_eq!(
        dev.state().inputs.last().unwrap(),
        &InputEvent::Tap { x: (50.0 / scale).round() as i64, y: (400.0 / scale).round() as i64 }
    );
    // argv arrives intact; the output is fenced.
    let argv = json!(["echo", "a b", "it's", "x;y", "\"q\""]);
    let out = ok(mobile(&alice, json!({"action": "command", "argv": argv}))).value;
    assert_eq!(serde_json::to_value(dev.state().commands.last().unwrap()).unwrap(), argv);
    assert_eq!(out["exit_code"], 0);
    assert!(out["content"].as_str().unwrap().starts_with("<untrusted-data source=\"output of echo"), "{out}");
    // Install an APK, start it.
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("shop.apk");
    std::fs::write(&path, apk("com.example.shop")).unwrap();
    let out = ok(mobile(&alice, json!({"action": "install", "path": path.display().to_string()}))).value;
    assert!(out["summary"].as_str().unwrap().contains("com.example.shop"), "{out}");
    ok(mobile(&alice, json!({"action": "start", "package": "com.example.shop"})));
    assert_eq!(dev.state().foreground.as_deref(), Some("com.example.shop"));

    // Bad input names the field.
    let e = err(mobile(&alice, json!({"action": "tap", "x": 5})));
    assert_eq!((e.pointer.as_deref(), e.message.as_str()), (Some("/y"), "/y: required by action tap"));
    // An argument the action does not take is refused, not ignored.
    let e = err(mobile(&alice, json!({"action": "tap", "x": 5, "y": 5, "text": "hello"})));
    assert_eq!((e.pointer.as_deref(), e.message.as_str()), (Some("/text"), "/text: action tap takes no text"));
    let e = err(mobile(&alice, json!({"action": "long_press", "x": 5, "y": 5, "to_x": 9})));
    assert_eq!(e.pointer.as_deref(), Some("/to_x"), "{e:?}");
    let e = err(mobile(&alice, json!({"action": "screenshot", "package": "com.example.shop"})));
    assert_eq!(e.pointer.as_deref(), Some("/package"), "{e:?}");
    let e = err(mobile(&alice, json!({"action": "tap", "x": 5000, "y": 5})));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/x")), "{e:?}");
    assert!(e.message.contains("off the screen"), "{}", e.message);
    let e = err(mobile(&alice, json!({"action": "install", "path": "/no/such.apk"})));
    assert_eq!(e.pointer.as_deref(), Some("/path"), "{e:?}");
    let e = err(mobile(&alice, json!({"action": "stop", "package": "com.example.missing"})));
    assert_eq!(e.error, "not_found", "{e:?}");
    let bob = Caller::local(Mode::Chat);
    let e = err(mobile(&bob, json!({"action": "check_in", "serial": "emulator-5998"})));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/serial")), "{e:?}");
    assert!(e.message.contains("no device 'emulator-5998'"), "{}", e.message);
    // The same device in another conversation: one rig per device, take it over by id.
    let e = err(mobile(&bob, json!({"action": "check_in", "serial": serial})));
    assert!(e.message.contains("already driven by another rig"), "{}", e.message);
    let t = ok(mobile(&bob, json!({"action": "screenshot", "rig_id": rig}))).value;
    assert_eq!(t["rig_id"], rig.as_str());

    // Read-only modes refuse it.
    for m in [Mode::Plan, Mode::Review] {
        let e = err(call(app, &Caller::local(m), "mobile_use", &with_ws(json!({"action": "screenshot"}))));
        assert_eq!(e.error, "mode", "{e:?}");
    }

    // rig_list shows the rig; rig_close removes it and stops what it started.
    let list = ok(call(app, &alice, "rig_list", &json!({"workspace_id": "default"}))).value;
    let rigs = list["rigs"].as_array().unwrap();
    assert_eq!(rigs.len(), 1, "{list}");
    assert_eq!((rigs[0]["surface"].as_str(), rigs[0]["engine"].as_str()), (Some("android"), Some(serial.as_str())));
    assert_eq!((rigs[0]["display_width"].as_u64(), rigs[0]["display_height"].as_u64()), (Some(1080), Some(2400)));
    let closed = ok(confirmed(app, &alice, "rig_close", json!({"workspace_id": "default", "rig_id": rig}))).value;
    assert_eq!(closed["closed"]["id"], rig.as_str());
    assert!(ok(call(app, &alice, "rig_list", &json!({"workspace_id": "default"}))).value["rigs"]
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(dev.state().foreground, None);
    assert!(!dev.state().packages["com.example.shop"].running);
    let e = err(mobile(&alice, json!({"action": "screenshot", "rig_id": rig})));
    assert_eq!(e.error, "no_rig");
    app.services.rigs.shutdown();
}

#[test]
fn ios_use_drives_webdriveragent_with_one_session() {
    let wda = FakeWda::start();
    std::env::set_var("CC_WDA_URL", wda.url());
    let f = rig_fixture(true);
    let app = &f.app;
    let alice = Caller::local(Mode::Chat);
    let ios = |args: Value| confirmed(app, &alice, "ios_use", with_ws(args));

    let c = ok(ios(json!({"action": "check_in"}))).value;
    assert_eq!(c["created"], true);
    assert_eq!(c["info"]["os_version"], "iOS 17.5");
    let rig = c["rig_id"].as_str().unwrap().to_string();
    let shot = ok(ios(json!({"action": "screenshot"})));
    assert_eq!(shot.extra.len(), 1);
    assert_eq!(shot.value["image"]["height"], 768);
    let scale = shot.value["image"]["scale"].as_f64().unwrap();
    ok(ios(json!({"action": "tap", "x": 30, "y": 60})));
    assert_eq!(wda.state().taps, vec![((30.0 / scale).round() / 3.0, (60.0 / scale).round() / 3.0)]);
    ok(ios(json!({"action": "press_button", "button": "volume_down"})));
    assert_eq!(wda.state().buttons, vec!["volumeDown"]);
    ok(ios(json!({"action": "launch", "bundle_id": "com.apple.Preferences"})));
    assert_eq!(wda.state().foreground.as_deref(), Some("com.apple.Preferences"));
    let src = ok(ios(json!({"action": "source"}))).value;
    assert!(src["content"].as_str().unwrap().starts_with("<untrusted-data source=\"WebDriverAgent page source\""));
    ok(ios(json!({"action": "clipboard", "op": "write", "text": "héllo"})));
    let r = ok(ios(json!({"action": "clipboard", "op": "read"}))).value;
    assert!(r["content"].as_str().unwrap().contains("\nhéllo\n"), "{r}");
    assert_eq!(wda.state().sessions_created, 1, "one session for every action");

    let e = err(ios(json!({"action": "launch", "bundle_id": "com.example.missing"})));
    assert_eq!(e.error, "not_found", "{e:?}");
    let e = err(ios(json!({"action": "press_button"})));
    assert_eq!(e.message, "/button: required by action press_button");
    let e = err(ios(json!({"action": "tap", "x": 1, "y": 1, "bundle_id": "com.example.shop"})));
    assert_eq!(e.message, "/bundle_id: action tap takes no bundle_id");
    let e = err(ios(json!({"action": "clipboard", "op": "read", "text": "x"})));
    assert_eq!(e.pointer.as_deref(), Some("/text"), "{e:?}");
    let e = err(ios(json!({"action": "screenshot", "op": "read"})));
    assert_eq!(e.pointer.as_deref(), Some("/op"), "{e:?}");
    let e = err(ios(json!({"action": "tap", "x": 1, "y": 9999})));
    assert_eq!(e.pointer.as_deref(), Some("/y"), "{e:?}");
    if cc_rigs::procs::which(&["xcrun"]).is_none() {
        let e = err(ios(json!({"action": "erase"})));
        assert!(e.message.contains("needs Xcode's simctl"), "{}", e.message);
    }
    let e = err(call(app, &Caller::local(Mode::Orchestrate), "ios_use", &with_ws(json!({"action": "screenshot"}))));
    assert_eq!(e.error, "mode", "{e:?}");

    let list = ok(call(app, &alice, "rig_list", &json!({"workspace_id": "default"}))).value;
    assert_eq!(list["rigs"][0]["surface"], "ios");
    assert_eq!(list["rigs"][0]["display_width"], 1170);
    // The conversation controls one rig: rig_close needs no id for it.
    let closed = ok(confirmed(app, &alice, "rig_close", json!({"workspace_id": "default"}))).value;
    assert_eq!(closed["closed"]["id"], rig, "{closed}");
    assert!(wda.state().sessions.is_empty(), "rig_close deleted the session");
    let e = err(confirmed(app, &alice, "rig_close", json!({"workspace_id": "default"})));
    assert!(e.pointer.as_deref() == Some("/rig_id") && e.message.contains("controls no rig"), "{e:?}");
    assert!(ok(call(app, &alice, "rig_list", &json!({"workspace_id": "default"}))).value["rigs"]
        .as_array()
        .unwrap()
        .is_empty());
    app.services.rigs.shutdown();
}
