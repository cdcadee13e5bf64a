//! Orchestration, on SQLite and on PostgreSQL, through the tools: a plan's violations one
//! by one (each code alone, then all at once, by pointer), bad input named by pointer, a
//! clean plan onto the board (and nothing else), the operator's approval decomposing it into
//! a parent ticket and one ticket per task with their blocked_by relations, a rejection
//! making nothing.

use cc_server::mcp::dispatch::Caller;
use cc_server::mcp::policy::Mode;
use cc_server::mcp::principal::Principal;
use cc_server::store::{BoardKind, BoardStatus, RelationKind, TicketFilter};
use serde_json::{json, Value};

use crate::common::{err, ok_value, BACKENDS};
use crate::pipelines::Runner;

fn team(backend: crate::common::Backend) -> Runner {
    Runner::new(
        backend,
        &[
            ("lead", None, &["planning"], 3),
            ("dev", Some("lead"), &["rust", "sql"], 2),
            ("qa", Some("lead"), &["python"], 1),
        ],
    )
}

/// A clean plan: design (dev) → build (dev) → test (qa, after build), within 10.
fn plan() -> Value {
    json!({
        "title": "ship search",
        "summary": "the search page, end to end",
        "agents": ["dev", "qa"],
        "tasks": [
            {"id": "design", "title": "design the index", "agent": "dev", "skills": ["sql"], "budget": 2, "autonomy": 2},
            {"id": "build", "title": "build it", "agent": "dev", "skills": ["rust"], "depends_on": ["design"], "budget": 5},
            {"id": "test", "title": "test it", "agent": "qa", "skills": ["python"], "depends_on": ["build", "design"], "budget": 3, "autonomy": 1}
        ],
        "budget": 10
    })
}

fn orchestrator() -> Caller {
    Caller::local(Mode::Orchestrate)
}

fn propose(r: &Runner, plan: Value) -> Value {
    ok_value(r.call(&orchestrator(), "propose_orchestration", json!({"workspace_id": "default", "plan": plan})))
}

/// The (code, pointer) of each violation.
fn codes(out: &Value) -> Vec<(String, String)> {
    out["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["code"].as_str().unwrap().to_string(), v["pointer"].as_str().unwrap().to_string()))
        .collect()
}

fn edit(f: impl FnOnce(&mut Value)) -> Value {
    let mut p = plan();
    f(&mut p);
    p
}

fn tickets(r: &Runner) -> Vec<cc_server::store::Ticket> {
    let f = TicketFilter { limit: 1000, ..Default::default() };
    let mut t = r.rt.block_on(r.app.services.store.tickets().list("default", &f)).unwrap();
    t.reverse();
    t
}

#[test]
fn each_violation_alone_then_all_at_once_and_nothing_is_stored() {
    for backend in BACKENDS {
        let r = team(backend);
        let one = |p: Value| {
            let out = propose(&r, p);
            assert_eq!(out["status"], "invalid", "{out}");
            assert!(out.get("approval_id").is_none());
            let c = codes(&out);
            assert_eq!(c.len(), 1, "{backend:?}: {out}");
            (c[0].0.clone(), c[0].1.clone(), out["violations"][0]["message"].as_str().unwrap().to_string())
        };
        let (c, p, m) = one(edit(|p| p["agents"].as_array_mut().unwrap().push(json!("ghost"))));
        assert_eq!((c.as_str(), p.as_str()), ("unknown_agent", "/plan/agents/2"));
        assert!(m.contains("no agent named 'ghost' in workspace 'default'") && m.contains("no plan hires one"), "{m}");
        let (c, p, m) = one(edit(|p| {
            p["tasks"][2]["agent"] = json!("lead");
            p["tasks"][2]["skills"] = json!([]);
        }));
        assert_eq!((c.as_str(), p.as_str()), ("unknown_agent", "/plan/tasks/2/agent"));
        assert!(m.contains("agent 'lead' is not one of the plan's agents (/plan/agents: dev, qa)"), "{m}");
        let (c, p, m) = one(edit(|p| p["tasks"][1]["skills"] = json!(["rust", "go"])));
        assert_eq!((c.as_str(), p.as_str()), ("missing_skill", "/plan/tasks/1/skills/1"));
        assert!(
            m.contains("task 'build' needs the skill 'go', and agent 'dev' does not have it (its skills: rust, sql)"),
            "{m}"
        );
        let (c, p, m) = one(edit(|p| p["tasks"][0]["depends_on"] = json!(["test"])));
        assert_eq!((c.as_str(), p.as_str()), ("dependency_cycle", "/plan/tasks/0/depends_on/0"));
        assert!(m.contains("design → test → build → design") || m.contains("design → test → design"), "{m}");
        let (c, p, m) = one(edit(|p| p["tasks"][2]["depends_on"] = json!(["build", "deploy"])));
        assert_eq!((c.as_str(), p.as_str()), ("unknown_dependency", "/plan/tasks/2/depends_on/1"));
        assert!(m.contains("task 'test' depends on 'deploy', and no task of the plan has that id"), "{m}");
        let (c, p, m) = one(edit(|p| {
            p["tasks"].as_array_mut().unwrap().push(json!({"id": "build", "title": "again", "agent": "qa"}));
        }));
        assert_eq!((c.as_str(), p.as_str()), ("duplicate_task", "/plan/tasks/3/id"));
        assert!(m.contains("task id 'build' is /plan/tasks/1/id's already"), "{m}");
        let (c, p, m) = one(edit(|p| p["budget"] = json!(9)));
        assert_eq!((c.as_str(), p.as_str()), ("budget_exceeded", "/plan/budget"));
        assert!(
            m.contains("the tasks ask 10 together (design: 2, build: 5, test: 3), beyond the plan's envelope of 9"),
            "{m}"
        );
        let (c, p, m) = one(edit(|p| p["tasks"][2]["autonomy"] = json!(2)));
        assert_eq!((c.as_str(), p.as_str()), ("autonomy_exceeded", "/plan/tasks/2/autonomy"));
        assert!(m.contains("task 'test' asks autonomy 2, beyond agent 'qa''s cap of 1"), "{m}");
        // All at once: every violation, none hiding another.
        let all = propose(
            &r,
            json!({
                "agents": ["dev", "qa", "ghost"],
                "tasks": [
                    {"id": "a", "title": "a", "agent": "dev", "skills": ["go"], "depends_on": ["b"], "budget": 6, "autonomy": 3},
                    {"id": "b", "title": "b", "agent": "qa", "depends_on": ["a", "zzz"], "budget": 6},
                    {"id": "a", "title": "a again", "agent": "lead"}
                ],
                "budget": 10
            }),
        );
        let mut got = codes(&all);
        got.sort();
        let want = [
            ("autonomy_exceeded", "/plan/tasks/0/autonomy"),
            ("budget_exceeded", "/plan/budget"),
            ("dependency_cycle", "/plan/tasks/0/depends_on/0"),
            ("duplicate_task", "/plan/tasks/2/id"),
            ("missing_skill", "/plan/tasks/0/skills/0"),
            ("unknown_agent", "/plan/agents/2"),
            ("unknown_agent", "/plan/tasks/2/agent"),
            ("unknown_dependency", "/plan/tasks/1/depends_on/1"),
        ];
        assert_eq!(got, want.map(|(a, b)| (a.to_string(), b.to_string())), "{backend:?}: {all}");
        // Nothing of it reached the board or the tickets.
        let board = r.rt.block_on(r.app.services.store.board().list("default", None, 100)).unwrap();
        assert!(board.is_empty() && tickets(&r).is_empty());
    }
}

#[test]
fn bad_input_is_named_by_pointer_and_the_mode_is_orchestrates() {
    let r = team(crate::common::Backend::Sqlite);
    let bad =
        |p: Value| err(r.call(&orchestrator(), "propose_orchestration", json!({"workspace_id": "default", "plan": p})));
    let e = bad(edit(|p| p["tasks"][1]["budget"] = json!(-1)));
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/plan/tasks/1/budget")));
    let e = bad(edit(|p| {
        p.as_object_mut().unwrap().remove("budget");
    }));
    assert_eq!(e.pointer.as_deref(), Some("/plan/budget"));
    let e = bad(edit(|p| p["tasks"][0]["owner"] = json!("dev")));
    assert_eq!(e.pointer.as_deref(), Some("/plan/tasks/0/owner"));
    let e = bad(edit(|p| p["tasks"][0]["autonomy"] = json!(7)));
    assert_eq!(e.pointer.as_deref(), Some("/plan/tasks/0/autonomy"));
    // Plan mode may not propose one; orchestrate and chat may.
    let e = err(r.call(
        &Caller::local(Mode::Plan),
        "propose_orchestration",
        json!({"workspace_id": "default", "plan": plan()}),
    ));
    assert_eq!(e.error, "mode");
}

#[test]
fn a_clean_plan_waits_on_the_board_and_its_approval_decomposes_it() {
    for backend in BACKENDS {
        let r = team(backend);
        let out = propose(&r, plan());
        assert_eq!((out["status"].as_str(), out["violations"].clone()), (Some("pending_approval"), json!([])), "{out}");
        let approval_id = out["approval_id"].as_str().unwrap().to_string();
        let store = &r.app.services.store;
        let ap = r.rt.block_on(store.board().get(&approval_id)).unwrap().unwrap();
        assert_eq!(
            (ap.kind, ap.status, ap.title.as_str()),
            (BoardKind::Orchestration, BoardStatus::Pending, "ship search")
        );
        assert_eq!(ap.payload["tasks"][2]["depends_on"], json!(["build", "design"]));
        // Nothing is made inside the call.
        assert!(tickets(&r).is_empty(), "{backend:?}");
        // The proposer cannot approve its own plan; the operator does.
        let own = err(r.approved(
            &orchestrator(),
            "decide_approval",
            json!({"workspace_id": "default", "approval_id": approval_id, "decision": "approve"}),
        ));
        assert_eq!(own.error, "mode", "decide_approval is not an orchestrate tool");
        let mut op = Caller::local(Mode::Chat);
        op.principal = Principal::operator();
        let d = ok_value(r.approved(
            &op,
            "decide_approval",
            json!({"workspace_id": "default", "approval_id": approval_id, "decision": "approve"}),
        ));
        assert_eq!(d["approval"]["status"], "approved");
        let ts = tickets(&r);
        assert_eq!(
            ts.iter().map(|t| (t.key.as_str(), t.title.as_str())).collect::<Vec<_>>(),
            [("T-1", "ship search"), ("T-2", "design the index"), ("T-3", "build it"), ("T-4", "test it")]
        );
        let (parent, design, build, test) = (&ts[0], &ts[1], &ts[2], &ts[3]);
        assert_eq!(parent.budget, Some(10));
        assert!(
            parent.description.contains("the search page, end to end") && parent.description.contains(&approval_id)
        );
        let (dev, qa) = (r.agent("dev").id, r.agent("qa").id);
        for (t, who, budget) in [(design, &dev, 2), (build, &dev, 5), (test, &qa, 3)] {
            assert_eq!(
                (t.assignee_id.as_ref(), t.parent_id.as_ref(), t.budget),
                (Some(who), Some(&parent.id), Some(budget))
            );
        }
        let blocked_by = |t: &cc_server::store::Ticket| {
            let rel = r.rt.block_on(store.tickets().relations(&t.id)).unwrap();
            let mut v: Vec<String> =
                rel.into_iter().filter(|x| x.kind == RelationKind::BlockedBy).map(|x| x.other_id).collect();
            v.sort();
            v
        };
        assert!(blocked_by(design).is_empty());
        assert_eq!(blocked_by(build), std::slice::from_ref(&design.id));
        let mut want = vec![design.id.clone(), build.id.clone()];
        want.sort();
        assert_eq!(blocked_by(test), want);
        // The outcome is on the board, and the plan records its tickets.
        let events = r.rt.block_on(store.board().events(&approval_id)).unwrap();
        let last = events.last().unwrap();
        assert_eq!(
            (last.action.as_str(), last.note.as_deref()),
            ("comment", Some("decomposed: T-1 (the plan), T-2, T-3, T-4"))
        );
        let p = r.rt.block_on(store.orchestration().by_approval(&approval_id)).unwrap().unwrap();
        assert_eq!((p.status.as_str(), p.parent_ticket_id.as_deref()), ("decomposed", Some(parent.id.as_str())));
        assert_eq!(p.tickets.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>(), ["design", "build", "test"]);
        // Decided once: a second approval is refused by the board, and nothing more is made.
        let again = err(r.approved(
            &op,
            "decide_approval",
            json!({"workspace_id": "default", "approval_id": approval_id, "decision": "approve"}),
        ));
        assert_eq!(again.error, "conflict");
        assert_eq!(tickets(&r).len(), 4);
    }
}

#[test]
fn a_rejected_plan_makes_nothing() {
    for backend in BACKENDS {
        let r = team(backend);
        let out = propose(&r, plan());
        let approval_id = out["approval_id"].as_str().unwrap().to_string();
        let store = &r.app.services.store;
        // The operator's own command line decides through the same path.
        let by = cc_server::store::Actor { id: "principal:operator".into(), name: "operator".into() };
        r.rt.block_on(store.board().decide(
            &approval_id,
            cc_server::store::board::Decision::Reject,
            &by,
            Some("not now"),
        ))
        .unwrap();
        assert!(tickets(&r).is_empty(), "{backend:?}");
        let p = r.rt.block_on(store.orchestration().by_approval(&approval_id)).unwrap().unwrap();
        assert_eq!((p.status.as_str(), p.parent_ticket_id.as_deref()), ("rejected", None));
        let events = r.rt.block_on(store.board().events(&approval_id)).unwrap();
        assert_eq!(events.last().unwrap().note.as_deref(), Some("rejected: nothing was decomposed"));
        // A revision requested is no decision: still nothing, and the plan waits.
        let out = propose(&r, plan());
        let second = out["approval_id"].as_str().unwrap().to_string();
        r.rt.block_on(store.board().decide(&second, cc_server::store::board::Decision::RequestRevision, &by, None))
            .unwrap();
        assert!(tickets(&r).is_empty());
        let p = r.rt.block_on(store.orchestration().by_approval(&second)).unwrap().unwrap();
        assert_eq!(p.status, "proposed");
        assert_eq!(r.rt.block_on(store.orchestration().resume()).unwrap(), 0, "nothing decided waits");
    }
}

/// A decision whose follow-up did not run (the server stopped between them: here the board
/// row is moved by hand, as a decision committed just before a crash leaves it) is followed
/// up when a server starts (`resume`), once.
#[test]
fn an_approval_whose_decomposition_did_not_run_is_decomposed_at_start() {
    for backend in BACKENDS {
        let r = team(backend);
        let out = propose(&r, plan());
        let approval_id = out["approval_id"].as_str().unwrap().to_string();
        let store = &r.app.services.store;
        r.rt.block_on(async {
            let pool = sqlx::any::AnyPoolOptions::new().max_connections(1).connect(r.store_url()).await.unwrap();
            sqlx::query("UPDATE board_approvals SET status = 'approved', decided_by = 'operator' WHERE id = $1")
                .bind(&approval_id)
                .execute(&pool)
                .await
                .unwrap();
            pool.close().await;
        });
        assert!(tickets(&r).is_empty());
        assert_eq!(r.rt.block_on(store.orchestration().resume()).unwrap(), 1, "{backend:?}");
        assert_eq!(tickets(&r).len(), 4);
        assert_eq!(r.rt.block_on(store.orchestration().resume()).unwrap(), 0);
        assert_eq!(tickets(&r).len(), 4);
    }
}

/// Board migration 0003 (the kind's CHECK left to the server) on SQLite, which rebuilds the
/// board's tables: approvals and events written under 0002 are kept, events still cascade
/// from their approval, and the new kind is stored. (On PostgreSQL it is a DROP CONSTRAINT,
/// which touches no row; `an_empty_database_migrates_to_the_schema_snapshot` covers it.)
#[test]
fn board_migration_0003_keeps_what_0002_wrote() {
    use cc_server::store::MIGRATIONS;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let tmp = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", tmp.path().join("old.sqlite3").display());
        let pool = sqlx::sqlite::SqlitePoolOptions::new().max_connections(1).connect(&url).await.unwrap();
        sqlx::raw_sql("PRAGMA foreign_keys = ON").execute(&pool).await.unwrap();
        let sql = |area: &str, version: i64| {
            MIGRATIONS.iter().find(|m| m.area == area && m.version == version).unwrap().sqlite
        };
        for (area, v) in [("workspaces", 1), ("board", 1), ("board", 2)] {
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql(area, v))).execute(&pool).await.unwrap();
        }
        sqlx::raw_sql(
            "INSERT INTO workspaces (id, name, created_at) VALUES ('default', 'Default', 1); \
             INSERT INTO board_approvals (id, workspace_id, kind, title, payload, status, requester, requester_name, conversation, \
             decided_by, decided_at, next_seq, created_at, updated_at, consumed_at) VALUES \
             ('ba-1', 'default', 'plan_exit', 'leave plan mode', '{}', 'approved', 'principal:a', 'a', 'c1', 'operator', 5, 2, 1, 5, 6); \
             INSERT INTO board_events (approval_id, seq, action, actor, actor_name, note, at) VALUES \
             ('ba-1', 1, 'create', 'principal:a', 'a', NULL, 1), ('ba-1', 2, 'approve', 'principal:operator', 'operator', 'ok', 5);",
        )
        .execute(&pool)
        .await
        .unwrap();
        let orchestration = "INSERT INTO board_approvals (id, workspace_id, kind, title, payload, status, requester, requester_name, \
             next_seq, created_at, updated_at) VALUES ('ba-2', 'default', 'orchestration', 'p', '{}', 'pending', 'x', 'x', 0, 7, 7)";
        assert!(sqlx::raw_sql(orchestration).execute(&pool).await.is_err(), "0002 refuses the new kind");
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql("board", 3))).execute(&pool).await.unwrap();
        let row: (String, String, Option<i64>, Option<String>) =
            sqlx::query_as("SELECT kind, status, consumed_at, conversation FROM board_approvals WHERE id = 'ba-1'")
                .fetch_one(&pool)
                .await
                .unwrap();
        assert_eq!(row, ("plan_exit".into(), "approved".into(), Some(6), Some("c1".into())));
        let events: Vec<(i64, String, Option<String>)> =
            sqlx::query_as("SELECT seq, action, note FROM board_events WHERE approval_id = 'ba-1' ORDER BY seq")
                .fetch_all(&pool)
                .await
                .unwrap();
        assert_eq!(events, [(1, "create".into(), None), (2, "approve".into(), Some("ok".into()))]);
        sqlx::raw_sql(orchestration).execute(&pool).await.unwrap();
        // The events still reference the approvals (an unknown approval is refused; a deleted one takes its events).
        let orphan = "INSERT INTO board_events (approval_id, seq, action, actor, actor_name, at) VALUES ('ba-9', 1, 'create', 'x', 'x', 1)";
        assert!(sqlx::raw_sql(orphan).execute(&pool).await.is_err());
        sqlx::raw_sql("DELETE FROM board_approvals WHERE id = 'ba-1'").execute(&pool).await.unwrap();
        let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM board_events").fetch_one(&pool).await.unwrap();
        assert_eq!(left, 0);
    });
}
