//! Policy, through the dispatcher: the tables name registered tools, conversation modes
//! refuse with the reason, guardrails deny in read-only modes and prompt in chat,
//! approvals through the operator's queue (decide, resume once, reject, nobody to ask),
//! principals see only their workspaces, annotations come from the guardrail data, and
//! argument and result sizes are bounded.

use std::sync::Arc;

use cc_indexer::DataDir;
use cc_server::app::App;
use cc_server::mcp::approvals::ApprovalConfig;
use cc_server::mcp::dispatch::{CallOutcome, Caller, Conversation, MAX_ARGS_BYTES};
use cc_server::mcp::policy::{self, Mode};
use cc_server::mcp::principal::Principal;
use cc_server::mcp::surface::{ExtraSet, Surface};
use cc_server::mcp::tool::{ActionClass, Ctx, Decl, Hints, Modes, Registry, Scope, ToolSet};
use cc_server::serve::block_on;
use serde_json::{json, Value};

use super::common::{err, ok_value as ok, shop_fixture, Fixture};
use tokio_util::sync::CancellationToken;

/// Two workspaces: `default` with repository `shop`, `team` with none; `queue` turns the
/// operator's approval queue on.
fn fixture(queue: bool) -> Fixture {
    shop_fixture(&[("tax.py", "def compute_tax(x):\n    return x * 0.2\n")], queue)
}

fn conformance() -> Surface {
    Surface::parse_with(Some("default,conformance"), &[ExtraSet { name: "conformance", explicit_only: true }]).unwrap()
}

fn call_as(app: &Arc<App>, caller: &Caller, name: &str, args: Value) -> CallOutcome {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(app.dispatcher.call(
        app.services.clone(),
        &conformance(),
        caller,
        name,
        args.as_object().cloned(),
        CancellationToken::new(),
        None,
    ))
}

/// The policy is derived from the declarations: every tool's modes and approval are the
/// spec's, it has a gate in every mode, and its hints agree with its action classes.
#[test]
fn every_declaration_agrees_with_the_spec_tables() {
    let registry = cc_server::mcp::tools::registry();
    assert!(registry.all().count() >= 16);
    for t in registry.all() {
        policy::agrees_with_spec(t).unwrap();
        for m in Mode::ALL {
            let _ = policy::gate(m, t);
        }
        policy::hints_agree(t).unwrap();
    }
    // The spec's names are tools of the registry (to come), never fixtures.
    for (_, names) in policy::SPEC_TABLES {
        assert!(names.iter().all(|n| !n.starts_with("test_")));
    }
    // The check catches a declaration that strays from the spec.
    let mut stray = registry.get("code_read").unwrap().clone();
    stray.decl.modes = Modes::Chat;
    assert!(policy::agrees_with_spec(&stray).unwrap_err().contains("every mode"));
    stray.decl.modes = Modes::Always;
    stray.decl.approval = true;
    assert!(policy::agrees_with_spec(&stray).unwrap_err().contains("approval"));
}

#[test]
fn a_mode_refuses_what_its_allow_list_lacks_with_the_reason() {
    let f = fixture(false);
    let plan = Caller::local(Mode::Plan);
    let e = err(call_as(&f.app, &plan, "test_approval_counter", json!({"key": "plan-1"})));
    assert_eq!(e.error, "mode");
    assert!(e.message.contains("not allowed in plan mode"), "{}", e.message);
    assert!(e.message.contains("allowed in chat"), "{}", e.message);
    assert!(e.message.contains("exit_plan_mode"), "{}", e.message);
    let data = e.data.unwrap();
    assert_eq!(data["mode"], "plan");
    assert_eq!(data["allowed_in"], json!(["chat"]));
    // Always-allowed and allow-listed tools run.
    ok(call_as(&f.app, &plan, "code_symbol", json!({"workspace_id": "default", "name": "compute_tax"})));
    ok(call_as(&f.app, &plan, "list_repos", json!({"workspace_id": "default"})));
    let review = Caller::local(Mode::Review);
    let e = err(call_as(&f.app, &review, "exit_plan_mode", json!({})));
    assert_eq!(e.error, "mode");
    assert!(e.message.contains("set_mode"), "{}", e.message);
    // Discovery reports the same gate.
    let v = ok(call_as(&f.app, &plan, "search_tool_bm25", json!({"query": "approval counter", "limit": 50})));
    assert_eq!(v["mode"], "plan");
    let hit = v["tools"].as_array().unwrap().iter().find(|t| t["name"] == "test_approval_counter").unwrap();
    assert_eq!(hit["callable"], false);
    assert!(hit["reason"].as_str().unwrap().contains("not allowed in plan mode"));
    let v = ok(call_as(&f.app, &plan, "list_my_tools", json!({})));
    let names: Vec<&str> = v["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"code_callers") && names.contains(&"exit_plan_mode"), "{names:?}");
    assert!(!names.contains(&"test_approval_counter") && !names.contains(&"test_simple_text"), "{names:?}");
    assert!(v["blocked"].as_u64().unwrap() > 10, "{v}");
}

#[test]
fn the_mode_is_the_conversations_not_the_calls() {
    let f = fixture(false);
    let chat = Caller::local(Mode::Chat);
    // A mode in the arguments is not a mode: unknown property.
    let e = err(call_as(&f.app, &chat, "list_my_tools", json!({"mode": "chat"})));
    assert_eq!(e.pointer.as_deref(), Some("/mode"));
    // chat -> plan is immediate (it narrows), and it holds for the next calls.
    let v = ok(call_as(&f.app, &chat, "set_mode", json!({"mode": "plan"})));
    assert_eq!(
        (v["previous"].as_str(), v["mode"].as_str(), v["changed"].as_bool()),
        (Some("chat"), Some("plan"), Some(true))
    );
    assert_eq!(chat.conversation.mode(), Mode::Plan);
    assert_eq!(err(call_as(&f.app, &chat, "test_approval_counter", json!({"key": "k"}))).error, "mode");
    // Leaving plan needs an approval; with nobody to ask it is denied and the mode stays.
    let e = err(call_as(&f.app, &chat, "exit_plan_mode", json!({})));
    assert_eq!(e.error, "approval_denied");
    assert!(e.message.contains("no approver is connected"), "{}", e.message);
    let e = err(call_as(&f.app, &chat, "set_mode", json!({"mode": "chat"})));
    assert_eq!(e.error, "approval_denied");
    assert_eq!(chat.conversation.mode(), Mode::Plan);
    // Another conversation is not affected: in chat the tool is allowed (and asks for
    // its approval, which nobody can give here).
    let other = Caller::local(Mode::Chat);
    assert_eq!(ok(call_as(&f.app, &other, "list_my_tools", json!({})))["mode"], "chat");
    assert_eq!(err(call_as(&f.app, &other, "test_approval_counter", json!({"key": "k"}))).error, "approval_denied");
}

#[test]
fn leaving_plan_mode_through_the_operator_queue() {
    let f = fixture(true);
    let c = Caller::local(Mode::Plan);
    let e = err(call_as(&f.app, &c, "exit_plan_mode", json!({})));
    assert_eq!(e.error, "approval_pending");
    let id = e.data.as_ref().unwrap()["approval_id"].as_str().unwrap().to_string();
    assert!(e.message.contains(&format!("cc-server approvals approve {id}")), "{}", e.message);
    let pending = block_on(f.app.services.store.approvals().list(true)).unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].tool, "exit_plan_mode");
    assert_eq!(pending[0].conversation, c.conversation.id);
    assert!(pending[0].why.contains("plan_exit"), "{}", pending[0].why);
    // Asking again before a decision answers with the same approval.
    let e2 = err(call_as(&f.app, &c, "exit_plan_mode", json!({})));
    assert_eq!(e2.data.unwrap()["approval_id"], id.as_str());
    // Another conversation of the same principal cannot use this conversation's approval.
    block_on(f.app.services.store.approvals().decide(&id, true, "operator (test)", None)).unwrap();
    let other = Caller { conversation: Conversation::new(Mode::Plan), ..c.clone() };
    assert_eq!(err(call_as(&f.app, &other, "exit_plan_mode", json!({}))).error, "approval_pending");
    let v = ok(call_as(&f.app, &c, "exit_plan_mode", json!({})));
    assert_eq!(v["mode"], "chat");
    assert_eq!(c.conversation.mode(), Mode::Chat);
    assert_eq!(other.conversation.mode(), Mode::Plan);
}

#[test]
fn approvals_through_the_operator_queue_run_once() {
    let f = fixture(true);
    let c = Caller::local(Mode::Chat);
    let args = json!({"key": "queue-1"});
    let e = err(call_as(&f.app, &c, "test_approval_counter", args.clone()));
    assert_eq!(e.error, "approval_pending");
    let data = e.data.unwrap();
    let id = data["approval_id"].as_str().unwrap().to_string();
    assert!(data["resume"].as_str().unwrap().contains("same arguments"), "{data}");
    let a = block_on(f.app.services.store.approvals().get(&id)).unwrap().unwrap();
    assert_eq!(
        (a.tool.as_str(), a.principal.as_str(), a.status.as_str()),
        ("test_approval_counter", "local", "pending")
    );
    assert_eq!(a.arguments, args);
    // Other arguments are another call: not approved by this one.
    assert_eq!(err(call_as(&f.app, &c, "test_approval_counter", json!({"key": "queue-2"}))).error, "approval_pending");
    block_on(f.app.services.store.approvals().decide(&id, true, "operator (test)", None)).unwrap();
    let v = ok(call_as(&f.app, &c, "test_approval_counter", args.clone()));
    assert_eq!(v["count"], 1);
    // Used once: the next identical call asks again.
    let e = err(call_as(&f.app, &c, "test_approval_counter", args.clone()));
    assert_eq!(e.error, "approval_pending");
    let id2 = e.data.unwrap()["approval_id"].as_str().unwrap().to_string();
    assert_ne!(id2, id);
    block_on(f.app.services.store.approvals().decide(&id2, false, "operator (test)", Some("not today"))).unwrap();
    let e = err(call_as(&f.app, &c, "test_approval_counter", args.clone()));
    assert_eq!(e.error, "approval_denied");
    assert!(e.message.contains("rejected by operator (test): not today"), "{}", e.message);
    // The counter did not move on the rejected call.
    let id3 = err(call_as(&f.app, &c, "test_approval_counter", args.clone())).data.unwrap()["approval_id"]
        .as_str()
        .unwrap()
        .to_string();
    block_on(f.app.services.store.approvals().decide(&id3, true, "operator (test)", None)).unwrap();
    assert_eq!(ok(call_as(&f.app, &c, "test_approval_counter", args))["count"], 2);
    // The guardrail prompt goes through the same port.
    let e = err(call_as(&f.app, &c, "test_action_class_prompt", json!({"key": "g"})));
    assert_eq!(e.error, "approval_pending");
    assert!(e.data.unwrap()["why"].as_str().unwrap().contains("packageInstall"));
}

#[test]
fn without_an_approver_approval_gated_calls_are_denied() {
    let f = fixture(false);
    let c = Caller::local(Mode::Chat);
    for tool in ["test_approval_counter", "test_action_class_prompt"] {
        let e = err(call_as(&f.app, &c, tool, json!({"key": "none"})));
        assert_eq!(e.error, "approval_denied", "{tool}");
        assert_eq!(e.data.unwrap()["status"], "no_approver");
        assert!(e.message.contains("did not run"), "{}", e.message);
    }
    assert!(
        block_on(f.app.services.store.approvals().list(false)).unwrap().is_empty(),
        "nothing is queued without a queue"
    );
}

/// A tool on the always-allowed list that declares enclosureControl: the allow-list lets
/// it through, the guardrail table decides.
#[test]
fn guardrails_deny_in_read_only_modes_and_allow_in_chat() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct NoArgs {}
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Done {
        done: bool,
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut r = Registry::new();
    r.add(
        Decl {
            name: "search_code",
            title: "t",
            description: "A test tool declaring enclosureControl, allowed in every mode.",
            set: ToolSet::Code,
            scope: Scope::Global,
            classes: &[ActionClass::EnclosureControl],
            approval: false,
            modes: Modes::Always,
            hints: Hints { read_only: false, destructive: true, idempotent: false, open_world: false },
        },
        |_: Ctx<()>, _: NoArgs| async { Ok(Done { done: true }) },
    );
    let app = app_of_registry(tmp.path(), r);
    for m in [Mode::Plan, Mode::Review, Mode::Orchestrate] {
        let e = err(call_as(&app, &Caller::local(m), "search_code", json!({})));
        assert_eq!(e.error, "guardrail", "{m}");
        assert!(e.message.contains("enclosureControl"), "{}", e.message);
        assert!(e.message.contains(&format!("{m} mode denies")), "{}", e.message);
        assert_eq!(e.data.unwrap()["allowed_in"], json!(["chat"]));
    }
    assert_eq!(ok(call_as(&app, &Caller::local(Mode::Chat), "search_code", json!({})))["done"], true);
    // The annotations come from the same rows.
    let t = app.dispatcher.registry.get("search_code").unwrap();
    let wire = cc_server::mcp::service::wire_tool(t);
    let a = wire.annotations.unwrap();
    assert_eq!((a.read_only_hint, a.destructive_hint, a.open_world_hint), (Some(false), Some(true), Some(false)));
}

#[test]
fn annotations_follow_the_guardrail_table() {
    let mut registry = cc_server::mcp::tools::registry();
    cc_server::mcp::extension::Extension::register(&cc_tests::conformance::Fixtures, &mut registry);
    let hints = |name: &str| {
        let a = cc_server::mcp::service::wire_tool(registry.get(name).unwrap()).annotations.unwrap();
        (a.read_only_hint, a.destructive_hint, a.open_world_hint)
    };
    assert_eq!(hints("code_callers"), (Some(true), Some(false), Some(false)));
    // packageInstall: destructive and open-world in the table.
    assert_eq!(hints("test_action_class_prompt"), (Some(false), Some(true), Some(true)));
    assert_eq!(hints("set_mode"), (Some(false), Some(false), Some(false)));
}

#[test]
fn a_principal_sees_only_its_workspaces() {
    let f = fixture(false);
    let team_only = Caller { principal: Principal::new("bob", Some(vec!["team".into()])), ..Caller::local(Mode::Chat) };
    let v = ok(call_as(&f.app, &team_only, "list_workspaces", json!({})));
    let ids: Vec<&str> = v["workspaces"].as_array().unwrap().iter().map(|w| w["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["team"]);
    // Another principal's workspace is answered as one that does not exist.
    let e = err(call_as(&f.app, &team_only, "list_repos", json!({"workspace_id": "default"})));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("workspace", Some("/workspace_id")));
    assert!(e.message.contains("no workspace 'default'"), "{}", e.message);
    let e = err(call_as(&f.app, &team_only, "code_symbol", json!({"workspace_id": "default", "name": "compute_tax"})));
    assert_eq!(e.error, "workspace");
    assert_eq!(ok(call_as(&f.app, &team_only, "list_repos", json!({"workspace_id": "team"})))["repos"], json!([]));
    let everyone = Caller::local(Mode::Chat);
    assert_eq!(
        ok(call_as(&f.app, &everyone, "list_repos", json!({"workspace_id": "default"})))["repos"][0]["name"],
        "shop"
    );
    // Resources too.
    let uri = "cc://default/repos/shop/files/tax.py";
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    assert!(rt.block_on(cc_server::mcp::service::read_cc(&f.app.services, &team_only.principal, uri)).is_err());
    assert!(rt
        .block_on(cc_server::mcp::service::read_cc(&f.app.services, &everyone.principal, uri))
        .unwrap()
        .contains("compute_tax"));
}

#[test]
fn argument_and_result_sizes_are_bounded() {
    let f = fixture(false);
    let c = Caller::local(Mode::Chat);
    let big = "x".repeat(MAX_ARGS_BYTES + 1);
    let e = err(call_as(&f.app, &c, "search_code", json!({"workspace_id": "default", "query": big})));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/")));
    assert!(e.message.contains(&format!("larger than {MAX_ARGS_BYTES} bytes")), "{}", e.message);
    // Just under the limit, the schema speaks (query is at most 1000 characters).
    let e = err(call_as(&f.app, &c, "search_code", json!({"workspace_id": "default", "query": "y".repeat(5000)})));
    assert_eq!(e.pointer.as_deref(), Some("/query"));
    // A file too big to read is refused before it is read (a sparse file: no disk used).
    let huge = f.tmp.path().join("shop/huge.log");
    std::fs::File::create(&huge).unwrap().set_len(cc_server::mcp::tools::code::MAX_READ_BYTES + 1).unwrap();
    let e = err(call_as(&f.app, &c, "code_read", json!({"workspace_id": "default", "path": "huge.log"})));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/path")));
    assert!(e.message.contains("files up to"), "{}", e.message);

    // A result past the limit is an error saying so, not a giant message.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Args {
        n: usize,
    }
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Out {
        text: String,
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut r = Registry::new();
    r.add(
        Decl {
            name: "big",
            title: "big",
            description: "Answers n bytes.",
            set: ToolSet::Code,
            scope: Scope::Global,
            classes: &[],
            approval: false,
            modes: Modes::Chat,
            hints: Hints::READ,
        },
        |_: Ctx<()>, a: Args| async move { Ok(Out { text: "z".repeat(a.n) }) },
    );
    let app = app_of_registry(tmp.path(), r);
    let limit = cc_server::mcp::dispatch::MAX_RESULT_BYTES;
    assert_eq!(ok(call_as(&app, &c, "big", json!({"n": 1000})))["text"].as_str().unwrap().len(), 1000);
    let e = err(call_as(&app, &c, "big", json!({"n": limit + 1})));
    assert_eq!(e.error, "result_too_large");
    assert!(e.message.contains(&format!("larger than {limit} bytes")), "{}", e.message);
}

/// An app over `registry` alone, with its data in `dir`.
fn app_of_registry(dir: &std::path::Path, registry: Registry) -> Arc<App> {
    let data = DataDir::new(dir);
    let services = cc_server::services::Services::new(data.clone(), cc_server::serve::open_store(&data).unwrap(), None);
    Arc::new(App::new(services, registry, None))
}

#[test]
fn a_principal_cannot_flood_the_operator_queue() {
    let f = fixture(true);
    // The same app with a queue of two per principal.
    let data = f.app.services.data.clone();
    let store = cc_server::serve::open_store(&data).unwrap();
    let app = cc_server::serve::app_of(data, store, None, Some(Arc::new(cc_tests::conformance::Fixtures)), |p| {
        p.approvals = ApprovalConfig { queue: true, max_pending: 2, ..ApprovalConfig::default() };
        Ok(())
    })
    .unwrap();
    let c = Caller::local(Mode::Chat);
    for k in ["a", "b"] {
        assert_eq!(err(call_as(&app, &c, "test_approval_counter", json!({"key": k}))).error, "approval_pending");
    }
    let e = err(call_as(&app, &c, "test_approval_counter", json!({"key": "c"})));
    assert_eq!(e.error, "approval_denied");
    assert_eq!(e.data.unwrap()["status"], "too_many_pending");
    // Another principal has its own allowance.
    let other = Caller { principal: Principal::new("carol", None), ..Caller::local(Mode::Chat) };
    assert_eq!(err(call_as(&app, &other, "test_approval_counter", json!({"key": "c"}))).error, "approval_pending");
}
