//! Governance: work products revised against the revision a writer read (racing writers on
//! both backends: one wins per base, none is lost unseen), and the approvals board's state
//! machine (every step from every status, the requester never deciding its own request,
//! racing deciders getting one decision), and goals whose progress rolls up from their
//! children, through the store and the tools.

use std::sync::Arc;

use cc_server::app::App;
use cc_server::mcp::dispatch::{CallOutcome, Caller};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::principal::Principal;
use cc_server::serve::block_on;
use cc_server::store::board::Decision;
use cc_server::store::{Actor, BoardKind, BoardStatus, GoalLevel, NewGoal, NewTicket, StoreError};
use serde_json::{json, Value};

use crate::common::{call, err, ok_value, on_each_backend, rig_fixture};

/// A call that may need an approval: the operator approves it through the queue and it is
/// made again.
pub(crate) fn approved(app: &Arc<App>, c: &Caller, name: &str, args: Value) -> CallOutcome {
    match call(app, c, name, args.clone()) {
        CallOutcome::Err(e) if e.error == "approval_pending" => {
            let id = e.data.unwrap()["approval_id"].as_str().unwrap().to_string();
            block_on(app.services.store.approvals().decide(&id, true, "operator (test)", None)).unwrap();
            call(app, c, name, args)
        }
        other => other,
    }
}

#[test]
fn racing_writers_on_one_base_one_wins_and_the_others_learn_the_current_revision() {
    on_each_backend(|_, store| async move {
        let t = store
            .tickets()
            .create("default", NewTicket { title: "t".into(), creator: "local".into(), ..NewTicket::default() })
            .await
            .unwrap();
        let (w, first) =
            store.work_products().create("default", &t.id, "document", "spec", "v1", "local").await.unwrap();
        assert_eq!((w.revisions, w.current_revision_id.as_str()), (1, first.id.as_str()));
        // Rounds of 8 writers on the same base: exactly one is saved per round, every
        // refusal names the revision that won, and the history has every saved revision.
        let mut base = first.id.clone();
        for round in 0..4 {
            let mut tasks = Vec::new();
            for i in 0..8 {
                let (store, wid, base) = (store.clone(), w.id.clone(), base.clone());
                tasks.push(tokio::spawn(async move {
                    store.work_products().save_revision(&wid, &base, &format!("r{round} w{i}"), &format!("w{i}")).await
                }));
            }
            let mut won = Vec::new();
            let mut refusals = Vec::new();
            for t in tasks {
                match t.await.unwrap() {
                    Ok(r) => won.push(r),
                    Err(StoreError::Conflict(m)) => refusals.push(m),
                    Err(e) => panic!("{e}"),
                }
            }
            assert_eq!(won.len(), 1, "round {round}");
            assert_eq!(refusals.len(), 7);
            for m in &refusals {
                assert!(m.contains(&format!("the current revision is {}", won[0].id)), "{m}");
            }
            assert_eq!(won[0].base_revision_id.as_deref(), Some(base.as_str()));
            base = won[0].id.clone();
        }
        let revs = store.work_products().revisions(&w.id).await.unwrap();
        assert_eq!(revs.iter().map(|r| r.number).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
        for pair in revs.windows(2) {
            assert_eq!(pair[1].base_revision_id.as_deref(), Some(pair[0].id.as_str()), "a chain, none lost");
        }
        assert_eq!(store.work_products().get(&w.id).await.unwrap().unwrap().current_revision_id, base);
        // Writers that each rebase on the current revision until saved all get in.
        let mut tasks = Vec::new();
        for i in 0..6 {
            let (store, wid) = (store.clone(), w.id.clone());
            tasks.push(tokio::spawn(async move {
                loop {
                    let cur = store.work_products().get(&wid).await.unwrap().unwrap().current_revision_id;
                    match store.work_products().save_revision(&wid, &cur, &format!("merge {i}"), "m").await {
                        Ok(r) => return r,
                        Err(StoreError::Conflict(_)) => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let revs = store.work_products().revisions(&w.id).await.unwrap();
        assert_eq!(revs.len(), 11);
        let texts: Vec<&str> = revs.iter().map(|r| r.content.as_str()).collect();
        for i in 0..6 {
            assert!(texts.contains(&format!("merge {i}").as_str()), "{texts:?}");
        }
    });
}

#[test]
fn work_product_tools_create_revise_list_and_read() {
    let f = rig_fixture(true);
    let app = &f.app;
    let c = Caller::local(Mode::Chat);
    ok_value(approved(app, &c, "create_ticket", json!({"workspace_id": "default", "title": "write the spec"})));
    ok_value(approved(app, &c, "create_ticket", json!({"workspace_id": "team", "title": "theirs"})));
    let e = err(call(
        app,
        &c,
        "create_work_product",
        json!({"workspace_id": "default", "ticket_id": "T-1", "kind": "document", "title": "spec", "content": "v1"}),
    ));
    assert_eq!(e.error, "approval_pending");
    let w = ok_value(approved(
        app,
        &c,
        "create_work_product",
        json!({"workspace_id": "default", "ticket_id": "T-1", "kind": "document", "title": "spec", "content": "v1"}),
    ));
    let wid = w["work_product"]["id"].as_str().unwrap().to_string();
    let r1 = w["revision"]["id"].as_str().unwrap().to_string();
    let save = |base: &str, content: &str| {
        approved(
            app,
            &c,
            "save_work_product_revision",
            json!({"workspace_id": "default", "work_product_id": wid, "base_revision_id": base, "content": content}),
        )
    };
    let r2 = ok_value(save(&r1, "v2"));
    assert_eq!((r2["number"].as_i64(), r2["base_revision_id"].as_str()), (Some(2), Some(r1.as_str())));
    // A stale base: refused with the current revision's id.
    let e = err(save(&r1, "v2 from someone else"));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/base_revision_id")));
    assert_eq!(e.data.unwrap()["current_revision_id"], r2["id"]);
    let g = ok_value(call(app, &c, "get_work_product", json!({"workspace_id": "default", "work_product_id": wid})));
    let contents: Vec<&str> =
        g["revisions"].as_array().unwrap().iter().map(|r| r["content"].as_str().unwrap()).collect();
    assert_eq!(contents, ["v1", "v2"]);
    assert_eq!(g["work_product"]["current_revision_id"], r2["id"]);
    let l = ok_value(call(app, &c, "list_work_products", json!({"workspace_id": "default", "ticket_id": "T-1"})));
    assert_eq!(l["work_products"].as_array().unwrap().len(), 1);
    let l = ok_value(call(app, &c, "list_work_products", json!({"workspace_id": "team"})));
    assert_eq!(l["work_products"], json!([]));
    // Errors name the pointer; another workspace's work product does not exist here.
    let cases = [
        ("get_work_product", json!({"workspace_id": "team", "work_product_id": wid}), "not_found", "/work_product_id"),
        ("list_work_products", json!({"workspace_id": "default", "ticket_id": "T-7"}), "not_found", "/ticket_id"),
        (
            "create_work_product",
            json!({"workspace_id": "default", "ticket_id": "T-1", "kind": "Not A Word", "title": "x", "content": ""}),
            "invalid_input",
            "/kind",
        ),
        (
            "create_work_product",
            json!({"workspace_id": "team", "ticket_id": "T-2", "kind": "doc", "title": "x", "content": ""}),
            "not_found",
            "/ticket_id",
        ),
        (
            "save_work_product_revision",
            json!({"workspace_id": "default", "work_product_id": wid, "content": "x"}),
            "invalid_input",
            "/base_revision_id",
        ),
        (
            "save_work_product_revision",
            json!({"workspace_id": "team", "work_product_id": wid, "base_revision_id": r1, "content": "x"}),
            "not_found",
            "/work_product_id",
        ),
    ];
    for (tool, args, kind, pointer) in cases {
        let e = err(approved(app, &c, tool, args.clone()));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), (kind, Some(pointer)), "{tool} {args}: {}", e.message);
    }
}

fn actor(id: &str) -> Actor {
    Actor { id: id.into(), name: id.into() }
}

#[test]
fn the_board_takes_only_the_state_machines_steps() {
    use BoardStatus as S;
    use Decision as D;
    // (the steps that bring an approval to `from`, the step, where it ends or None).
    let table: &[(&[D], D, Option<S>)] = &[
        (&[], D::Approve, Some(S::Approved)),
        (&[], D::Reject, Some(S::Rejected)),
        (&[], D::RequestRevision, Some(S::RevisionRequested)),
        (&[], D::Resubmit, None),
        (&[D::RequestRevision], D::Resubmit, Some(S::Pending)),
        (&[D::RequestRevision], D::Reject, Some(S::Rejected)),
        (&[D::RequestRevision], D::Approve, None),
        (&[D::RequestRevision], D::RequestRevision, None),
        (&[D::Approve], D::Reject, None),
        (&[D::Approve], D::Approve, None),
        (&[D::Approve], D::Resubmit, None),
        (&[D::Reject], D::Approve, None),
        (&[D::Reject], D::RequestRevision, None),
        (&[D::RequestRevision, D::Resubmit], D::Approve, Some(S::Approved)),
    ];
    on_each_backend(|_, store| async move {
        let board = store.board();
        for (before, step, want) in table {
            let a = board
                .create("default", BoardKind::Merge, "merge #4", &json!({"pr": 4}), &actor("alice"), None)
                .await
                .unwrap();
            for d in *before {
                let by = if *d == D::Resubmit { actor("alice") } else { actor("bob") };
                board.decide(&a.id, *d, &by, None).await.unwrap();
            }
            let by = if *step == D::Resubmit { actor("alice") } else { actor("bob") };
            match (board.decide(&a.id, *step, &by, Some("n")).await, want) {
                (Ok(got), Some(w)) => assert_eq!(got.status, *w, "{before:?} then {step:?}"),
                (Err(StoreError::Conflict(m)), None) => assert!(m.contains("is not a step from there"), "{m}"),
                (other, _) => panic!("{before:?} then {step:?}: {other:?}"),
            }
        }
        // The requester never decides its own; only it resubmits.
        let a = board.create("default", BoardKind::Hire, "hire qa", &json!(null), &actor("alice"), None).await.unwrap();
        for d in [D::Approve, D::Reject, D::RequestRevision] {
            match board.decide(&a.id, d, &actor("alice"), None).await {
                Err(StoreError::Conflict(m)) => assert!(m.contains("cannot") && m.contains("its own request"), "{m}"),
                other => panic!("{other:?}"),
            }
        }
        board.decide(&a.id, D::RequestRevision, &actor("bob"), Some("which team?")).await.unwrap();
        assert!(matches!(board.decide(&a.id, D::Resubmit, &actor("bob"), None).await, Err(StoreError::Conflict(_))));
        board.comment(&a.id, &actor("alice"), "the web team").await.unwrap();
        board.decide(&a.id, D::Resubmit, &actor("alice"), None).await.unwrap();
        // Racing deciders: one decision.
        let mut tasks = Vec::new();
        for i in 0..8 {
            let (store, id) = (store.clone(), a.id.clone());
            let d = if i % 2 == 0 { D::Approve } else { D::Reject };
            tasks.push(tokio::spawn(async move { store.board().decide(&id, d, &actor(&format!("r{i}")), None).await }));
        }
        let mut oks = 0;
        for t in tasks {
            oks += t.await.unwrap().is_ok() as usize;
        }
        assert_eq!(oks, 1);
        let events: Vec<String> = board.events(&a.id).await.unwrap().into_iter().map(|e| e.action).collect();
        assert_eq!(events.len(), 5);
        assert_eq!(events[..4], ["create", "request_revision", "comment", "resubmit"]);
        assert!(events[4] == "approve" || events[4] == "reject");
        let decided = board.list("default", Some(BoardStatus::Approved), 100).await.unwrap().len()
            + board.list("default", Some(BoardStatus::Rejected), 100).await.unwrap().len();
        assert_eq!(decided, 10, "9 decided by the table, 1 by the race");
    });
}

#[test]
fn board_tools_open_decide_and_comment_with_the_requester_kept_out() {
    let f = rig_fixture(true);
    let app = &f.app;
    let alice = Caller::local(Mode::Chat);
    let mut bob = Caller::local(Mode::Chat);
    bob.principal = Principal::new("bob", None);
    let a = ok_value(approved(
        app,
        &alice,
        "create_approval",
        json!({"workspace_id": "default", "kind": "publish", "title": "publish v2", "payload": {"version": "2.0"}}),
    ));
    assert_eq!((a["status"].as_str(), a["requester"].as_str()), (Some("pending"), Some("local")));
    let id = a["id"].as_str().unwrap().to_string();
    let decide = |c: &Caller, d: &str| {
        approved(
            app,
            c,
            "decide_approval",
            json!({"workspace_id": "default", "approval_id": id, "decision": d, "note": "n"}),
        )
    };
    let e = err(decide(&alice, "approve"));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/decision")));
    assert!(e.message.contains("its own request"), "{}", e.message);
    let r = ok_value(decide(&bob, "request_revision"));
    assert_eq!(r["approval"]["status"], "revision_requested");
    let e = err(decide(&bob, "approve"));
    assert!(e.message.contains("allowed: reject, resubmit"), "{}", e.message);
    ok_value(approved(
        app,
        &alice,
        "comment_approval",
        json!({"workspace_id": "default", "approval_id": id, "text": "changelog added"}),
    ));
    ok_value(decide(&alice, "resubmit"));
    let r = ok_value(decide(&bob, "approve"));
    assert_eq!(
        (r["approval"]["status"].as_str(), r["approval"]["decided_by"].as_str()),
        (Some("approved"), Some("bob"))
    );
    let actions: Vec<&str> = r["events"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["create", "request_revision", "comment", "resubmit", "approve"]);
    ok_value(approved(
        app,
        &alice,
        "create_approval",
        json!({"workspace_id": "default", "kind": "custom", "title": "other"}),
    ));
    let l = ok_value(call(app, &alice, "list_approvals", json!({"workspace_id": "default", "status": "pending"})));
    assert_eq!(l["approvals"].as_array().unwrap().len(), 1);
    let l = ok_value(call(app, &alice, "list_approvals", json!({"workspace_id": "team"})));
    assert_eq!(l["approvals"], json!([]));
    let cases = [
        (
            "decide_approval",
            json!({"workspace_id": "team", "approval_id": id, "decision": "reject"}),
            "not_found",
            "/approval_id",
        ),
        (
            "decide_approval",
            json!({"workspace_id": "default", "approval_id": id, "decision": "maybe"}),
            "invalid_input",
            "/decision",
        ),
        (
            "create_approval",
            json!({"workspace_id": "default", "kind": "deploy", "title": "x"}),
            "invalid_input",
            "/kind",
        ),
        (
            "comment_approval",
            json!({"workspace_id": "default", "approval_id": "ba-none", "text": "x"}),
            "not_found",
            "/approval_id",
        ),
        ("list_approvals", json!({"workspace_id": "default", "status": "open"}), "invalid_input", "/status"),
    ];
    for (tool, args, kind, pointer) in cases {
        let e = err(approved(app, &bob, tool, args.clone()));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), (kind, Some(pointer)), "{tool} {args}: {}", e.message);
    }
}

fn goal(level: GoalLevel, parent: Option<&str>, title: &str) -> NewGoal {
    NewGoal {
        level,
        parent_id: parent.map(str::to_string),
        owner: None,
        title: title.into(),
        target: None,
        created_by: "local".into(),
        conversation: None,
    }
}

#[test]
fn a_parents_progress_is_the_mean_of_its_childrens() {
    on_each_backend(|_, store| async move {
        store.workspaces().ensure("other", "Other").await.unwrap();
        let g = store.goals();
        let co = g.create("default", goal(GoalLevel::Company, None, "ship v2")).await.unwrap();
        let web = g.create("default", goal(GoalLevel::Team, Some(&co.id), "web")).await.unwrap();
        let api = g.create("default", goal(GoalLevel::Team, Some(&co.id), "api")).await.unwrap();
        let t1 = g.create("default", goal(GoalLevel::Task, Some(&web.id), "login")).await.unwrap();
        let t2 = g.create("default", goal(GoalLevel::Task, Some(&web.id), "signup")).await.unwrap();
        g.set_progress("default", &t1.id, 100).await.unwrap();
        g.set_progress("default", &t2.id, 51).await.unwrap();
        g.set_progress("default", &api.id, 20).await.unwrap();
        let by = |id: &str, all: &[cc_server::store::Goal]| all.iter().find(|x| x.id == id).unwrap().clone();
        let all = g.list("default").await.unwrap();
        assert_eq!((by(&web.id, &all).progress, by(&web.id, &all).computed), (75, true));
        assert_eq!(by(&co.id, &all).progress, 47, "(75 + 20) / 2, rounded down");
        assert_eq!((by(&api.id, &all).progress, by(&api.id, &all).computed), (20, false));
        // A parent's progress is computed, never set.
        match g.set_progress("default", &web.id, 90).await {
            Err(StoreError::Conflict(m)) => assert!(m.contains("computed"), "{m}"),
            other => panic!("{other:?}"),
        }
        // Levels nest downward only; a parent of another workspace is not found.
        assert!(matches!(
            g.create("default", goal(GoalLevel::Company, Some(&web.id), "x")).await,
            Err(StoreError::Invalid(_))
        ));
        assert!(matches!(
            g.create("other", goal(GoalLevel::Team, Some(&co.id), "x")).await,
            Err(StoreError::NotFound { .. })
        ));
        assert!(matches!(g.set_progress("other", &t1.id, 5).await, Err(StoreError::NotFound { .. })));
    });
}

#[test]
fn goal_tools_create_list_and_update_progress() {
    let f = rig_fixture(true);
    let app = &f.app;
    let c = Caller::local(Mode::Chat);
    let co = ok_value(approved(
        app,
        &c,
        "create_goal",
        json!({"workspace_id": "default", "level": "company", "title": "ship v2", "target": "by March"}),
    ));
    let co_id = co["id"].as_str().unwrap().to_string();
    let a = ok_value(approved(
        app,
        &c,
        "create_goal",
        json!({"workspace_id": "default", "level": "agent", "title": "a", "parent_goal_id": co_id, "owner": "dev"}),
    ));
    let b = ok_value(approved(
        app,
        &c,
        "create_goal",
        json!({"workspace_id": "default", "level": "task", "title": "b", "parent_goal_id": co_id}),
    ));
    ok_value(approved(
        app,
        &c,
        "update_goal_progress",
        json!({"workspace_id": "default", "goal_id": a["id"], "progress": 40}),
    ));
    ok_value(approved(
        app,
        &c,
        "update_goal_progress",
        json!({"workspace_id": "default", "goal_id": b["id"], "progress": 80}),
    ));
    let l = ok_value(call(
        app,
        &Caller::local(Mode::Orchestrate),
        "list_goals",
        json!({"workspace_id": "default", "level": "company"}),
    ));
    assert_eq!(l["goals"].as_array().unwrap().len(), 1);
    assert_eq!((l["goals"][0]["progress"].as_i64(), l["goals"][0]["children"].as_i64()), (Some(60), Some(2)));
    let cases = [
        (
            "update_goal_progress",
            json!({"workspace_id": "default", "goal_id": co_id, "progress": 10}),
            "invalid_input",
            "/progress",
        ),
        (
            "update_goal_progress",
            json!({"workspace_id": "default", "goal_id": a["id"], "progress": 101}),
            "invalid_input",
            "/progress",
        ),
        (
            "update_goal_progress",
            json!({"workspace_id": "team", "goal_id": a["id"], "progress": 1}),
            "not_found",
            "/goal_id",
        ),
        (
            "create_goal",
            json!({"workspace_id": "default", "level": "division", "title": "x"}),
            "invalid_input",
            "/level",
        ),
        (
            "create_goal",
            json!({"workspace_id": "default", "level": "company", "title": "x", "parent_goal_id": b["id"]}),
            "invalid_input",
            "/level",
        ),
        (
            "create_goal",
            json!({"workspace_id": "team", "level": "task", "title": "x", "parent_goal_id": co_id}),
            "not_found",
            "/parent_goal_id",
        ),
        ("list_goals", json!({"workspace_id": "default", "status": "done"}), "invalid_input", "/status"),
    ];
    for (tool, args, kind, pointer) in cases {
        let e = err(approved(app, &c, tool, args.clone()));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), (kind, Some(pointer)), "{tool} {args}: {}", e.message);
    }
}

/// `cc-server board list | show | decide`, the operator's view, on the data directory.
#[test]
fn the_operator_sees_and_decides_the_board_from_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let id = block_on(async {
        let store = cc_server::store::Store::open_sqlite(&data.join("workspace.sqlite3")).await.unwrap();
        let a = store
            .board()
            .create("default", BoardKind::Publish, "publish v2", &json!({"v": 2}), &actor("alice"), None)
            .await
            .unwrap();
        a.id
    });
    let cc = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_cc-server"))
            .args(args)
            .env("CC_DATA_DIR", &data)
            .env_remove("CC_STORE_URL")
            .output()
            .unwrap()
    };
    let out = |o: std::process::Output| {
        assert!(o.status.success(), "{}\n{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let listed = out(cc(&["board", "list"]));
    assert!(listed.contains(&id) && listed.contains("pending") && listed.contains("publish v2"), "{listed}");
    let shown: Value = serde_json::from_str(&out(cc(&["board", "show", &id, "--json"]))).unwrap();
    assert_eq!(shown["approval"]["payload"], json!({"v": 2}));
    assert!(
        out(cc(&["board", "decide", &id, "request_revision", "--note", "add notes"])).contains("revision_requested")
    );
    let o = cc(&["board", "decide", &id, "approve"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("allowed: reject, resubmit"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let shown = out(cc(&["board", "show", &id]));
    assert!(shown.contains("2. request_revision by operator: add notes"), "{shown}");
    assert!(out(cc(&["board", "list", "--status", "pending"])).contains("no board approvals"));
}

// ------------------------------------------------------------ a conversation's goal

#[test]
fn a_conversation_has_one_active_goal_until_it_is_met() {
    on_each_backend(|_, store| async move {
        let goals = store.goals();
        let start = |conv: &str, title: &str| NewGoal {
            conversation: Some((conv.to_string(), "goal".to_string())),
            ..goal(GoalLevel::Task, None, title)
        };
        let g = goals.start("default", start("local|key:c1", "green CI")).await.unwrap();
        assert_eq!((g.conversation.as_deref(), g.prompt.as_deref()), (Some("local|key:c1"), Some("goal")));
        assert_eq!(goals.active("default", "local|key:c1").await.unwrap().unwrap().id, g.id);
        match goals.start("default", start("local|key:c1", "another")).await {
            Err(StoreError::Conflict(m)) => assert!(m.contains("'green CI'") && m.contains("complete_goal"), "{m}"),
            other => panic!("{other:?}"),
        }
        // Another conversation has its own; a plain goal belongs to none.
        goals.start("default", start("local|key:c2", "docs")).await.unwrap();
        goals.create("default", goal(GoalLevel::Task, None, "plain")).await.unwrap();
        let met = goals.complete("default", &g.id, "CI run 12 passed").await.unwrap();
        assert_eq!(
            (met.status.as_str(), met.progress, met.evidence.as_deref()),
            ("met", 100, Some("CI run 12 passed"))
        );
        assert!(met.met_at.is_some());
        assert!(goals.active("default", "local|key:c1").await.unwrap().is_none());
        assert!(matches!(goals.complete("default", &g.id, "again").await, Err(StoreError::Conflict(_))));
        // Met, it leaves room for the conversation's next goal.
        goals.start("default", start("local|key:c1", "next")).await.unwrap();
    });
}

#[test]
fn the_goal_prompt_starts_the_goal_complete_goal_meets() {
    let f = rig_fixture(true);
    let app = &f.app;
    let c = Caller::local(Mode::Chat);
    let prompt = |name: &str, args: Value| {
        block_on(cc_server::mcp::prompts::get(&app.services, &c.principal, &c.conversation, name, args.as_object()))
    };
    // Nothing active yet: a clear error, saying how to start one.
    let e = err(call(app, &c, "complete_goal", json!({"workspace_id": "default", "evidence": "done"})));
    assert_eq!(e.error, "not_found");
    assert!(e.message.contains("no active goal") && e.message.contains("/goal"), "{}", e.message);
    // Bad prompt arguments name the argument.
    for (args, pointer) in [
        (json!({}), "/objective"),
        (json!({"objective": ""}), "/objective"),
        (json!({"objective": 3}), "/objective"),
        (json!({"objective": "x", "workspace_id": "nope"}), "/workspace_id"),
        (json!({"objective": "x", "colour": "red"}), "/colour"),
    ] {
        let e = prompt("goal", args.clone()).unwrap_err();
        assert!(e.message.starts_with(pointer), "{args}: {}", e.message);
    }
    let r = prompt("loop", json!({"objective": "make the suite pass", "target": "cargo test is green"})).unwrap();
    let text = r.messages[0].content.as_text().expect("a text message").text.clone();
    assert!(
        text.contains("Work in a loop toward this goal: make the suite pass") && text.contains("complete_goal"),
        "{text}"
    );
    let l = ok_value(call(app, &c, "list_goals", json!({"workspace_id": "default"})));
    let g = &l["goals"][0];
    assert_eq!(
        (g["title"].as_str(), g["status"].as_str(), g["prompt"].as_str()),
        (Some("make the suite pass"), Some("active"), Some("loop"))
    );
    assert_eq!(g["target"], "cargo test is green");
    assert!(text.contains(g["id"].as_str().unwrap()));
    // One at a time per conversation; another conversation starts its own.
    let e = prompt("goal", json!({"objective": "else"})).unwrap_err();
    assert!(e.message.contains("active already"), "{}", e.message);
    let other = Caller::local(Mode::Chat);
    let e = err(call(app, &other, "complete_goal", json!({"workspace_id": "default", "evidence": "x"})));
    assert_eq!(e.error, "not_found");
    let e = err(call(app, &c, "complete_goal", json!({"workspace_id": "default", "evidence": " "})));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/evidence")));
    let met = ok_value(call(
        app,
        &c,
        "complete_goal",
        json!({"workspace_id": "default", "evidence": "suite green: 142 passed"}),
    ));
    assert_eq!((met["status"].as_str(), met["progress"].as_i64()), (Some("met"), Some(100)));
    assert_eq!(met["evidence"], "suite green: 142 passed");
    let e = err(call(app, &c, "complete_goal", json!({"workspace_id": "default", "evidence": "again"})));
    assert_eq!(e.error, "not_found");
}

// ------------------------------------------------------------ plan_exit on the board

#[test]
fn exit_plan_mode_goes_through_a_plan_exit_board_approval() {
    let f = rig_fixture(true);
    let app = &f.app;
    let board = app.services.store.board();
    let c = Caller::local(Mode::Plan);
    let lead = Actor { id: "principal:lead".into(), name: "lead".into() };
    // The request is a plan_exit on the board (and the confirmation port's queue asks too).
    let e = err(call(app, &c, "exit_plan_mode", json!({})));
    assert_eq!(e.error, "approval_pending");
    let data = e.data.unwrap();
    let id = data["board_approval_id"].as_str().unwrap().to_string();
    assert!(e.message.contains(&format!("cc-server board decide {id}")), "{}", e.message);
    let a = block_on(board.get(&id)).unwrap().unwrap();
    assert_eq!(
        (a.kind, a.status, a.conversation.as_deref()),
        (BoardKind::PlanExit, BoardStatus::Pending, Some(c.conversation.id.as_str()))
    );
    assert_eq!(a.workspace_id, "default");
    assert!(a.requester.contains("conversation"), "{}", a.requester);
    // Asked again: the same board approval.
    let again = err(call(app, &c, "exit_plan_mode", json!({})));
    assert_eq!(again.data.unwrap()["board_approval_id"].as_str(), Some(id.as_str()));
    assert_eq!(c.conversation.mode(), Mode::Plan);
    // A revision asked on the board: the next call resubmits it.
    block_on(board.decide(&id, Decision::RequestRevision, &lead, Some("say what you will change"))).unwrap();
    err(call(app, &c, "exit_plan_mode", json!({})));
    assert_eq!(block_on(board.get(&id)).unwrap().unwrap().status, BoardStatus::Pending);
    // Decided on the board: that decision lets the conversation out, once.
    block_on(board.decide(&id, Decision::Approve, &lead, None)).unwrap();
    let v = ok_value(call(app, &c, "exit_plan_mode", json!({})));
    assert_eq!((v["mode"].as_str(), v["previous"].as_str()), (Some("chat"), Some("plan")));
    assert!(block_on(board.get(&id)).unwrap().unwrap().consumed_at.is_some());
    // Back in plan, leaving needs a new approval: the used one does not count.
    ok_value(call(app, &c, "set_mode", json!({"mode": "plan"})));
    let e = err(call(app, &c, "exit_plan_mode", json!({})));
    let second = e.data.unwrap()["board_approval_id"].as_str().unwrap().to_string();
    assert_ne!(second, id);
    // Rejected on the board: the conversation stays; the next request says so.
    block_on(board.decide(&second, Decision::Reject, &lead, Some("not yet"))).unwrap();
    let e = err(call(app, &c, "exit_plan_mode", json!({})));
    assert!(e.message.contains(&format!("rejected the previous request, {second}, by lead")), "{}", e.message);
    let third = e.data.as_ref().unwrap()["board_approval_id"].as_str().unwrap().to_string();
    assert_eq!(c.conversation.mode(), Mode::Plan);
    // The operator's queue decides through the port: the board records it as the decision.
    let port_id = e.data.unwrap()["approval_id"].as_str().unwrap().to_string();
    block_on(app.services.store.approvals().decide(&port_id, true, "operator (test)", None)).unwrap();
    assert_eq!(ok_value(call(app, &c, "exit_plan_mode", json!({})))["mode"], "chat");
    let t = block_on(board.get(&third)).unwrap().unwrap();
    assert_eq!(t.status, BoardStatus::Approved);
    assert!(t.decided_by.as_deref().unwrap().contains("confirmation port") && t.consumed_at.is_some(), "{t:?}");
    let steps: Vec<String> = block_on(board.events(&third)).unwrap().into_iter().map(|e| e.action).collect();
    assert_eq!(steps, ["create", "approve"]);
}

#[test]
fn a_declined_plan_exit_is_rejected_on_the_board() {
    let f = rig_fixture(false);
    let app = &f.app;
    let c = Caller::local(Mode::Plan);
    // Nobody to ask: denied, and the board's request stays open for a decider.
    let e = err(call(app, &c, "exit_plan_mode", json!({})));
    assert_eq!(e.error, "approval_denied");
    let id = e.data.unwrap()["board_approval_id"].as_str().unwrap().to_string();
    let board = app.services.store.board();
    assert_eq!(block_on(board.get(&id)).unwrap().unwrap().status, BoardStatus::Pending);
    let lead = Actor { id: "principal:lead".into(), name: "lead".into() };
    block_on(board.decide(&id, Decision::Approve, &lead, None)).unwrap();
    assert_eq!(ok_value(call(app, &c, "exit_plan_mode", json!({})))["mode"], "chat");
}
