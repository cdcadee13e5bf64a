//! Plans and playbooks, on SQLite and on PostgreSQL, through their tools: submit_plan's rules
//! (unique step ids, dependencies that exist, no cycle) each refused with its pointer, the
//! conversation's plan versioned on resubmission and read back as a `cc://` resource;
//! create_playbook's placeholder and declaration errors, versions per name; run_playbook's
//! parameter errors (missing, unknown, wrong type, enum value not allowed) all at once by
//! pointer, and the plan it makes waiting on the approvals board.

use std::sync::Arc;

use cc_indexer::DataDir;
use cc_server::app::App;
use cc_server::mcp::dispatch::{CallOutcome, Caller, Conversation};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::principal::Principal;
use cc_server::mcp::surface::Surface;
use cc_server::store::{BoardKind, BoardStatus, Store};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::common::{err, ok_value, on_each_backend};

pub(crate) fn app(store: &Store) -> (tempfile::TempDir, Arc<App>) {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path().join("data"));
    std::fs::create_dir_all(&data.root).unwrap();
    (tmp, cc_server::serve::app_of(data, store.clone(), None, None, |_| Ok(())).unwrap())
}

/// A call in workspace `default` (unless the arguments name one).
pub(crate) async fn call(app: &Arc<App>, c: &Caller, name: &str, mut args: Value) -> CallOutcome {
    if args.get("workspace_id").is_none() {
        args["workspace_id"] = json!("default");
    }
    app.dispatcher
        .call(
            app.services.clone(),
            &Surface::parse(None, true).unwrap(),
            c,
            name,
            args.as_object().cloned(),
            CancellationToken::new(),
            None,
        )
        .await
}

fn step(id: &str, deps: &[&str]) -> Value {
    json!({"id": id, "title": format!("do {id}"), "details": "how", "owners": ["alice"], "depends_on": deps})
}

fn plan(steps: Vec<Value>) -> Value {
    json!({
        "title": "Ship the importer",
        "summary": "Import, check, release.",
        "steps": steps,
        "risks": ["the importer is slow on large files"],
        "acceptance_criteria": ["the nightly import passes"]
    })
}

/// The pointers of an error: `data.errors` when it lists several, else its own.
fn pointers(e: &cc_server::mcp::dispatch::ToolError) -> Vec<String> {
    match e.data.as_ref().and_then(|d| d.get("errors")).and_then(Value::as_array) {
        Some(list) => list.iter().map(|x| x["pointer"].as_str().unwrap().to_string()).collect(),
        None => vec![e.pointer.clone().unwrap_or_default()],
    }
}

#[test]
fn submit_plan_refuses_each_rule_with_its_pointer() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let c = Caller::local(Mode::Plan);
        // (the steps, the pointers refused, a part of the first message)
        let cases: Vec<(Vec<Value>, &[&str], &str)> = vec![
            (
                vec![step("a", &[]), step("b", &["a"]), step("a", &[])],
                &["/plan/steps/2/id"],
                "already the id of step 0",
            ),
            (
                vec![step("a", &[]), step("b", &["a", "c"])],
                &["/plan/steps/1/depends_on/1"],
                "no step has the id 'c' (the steps: a, b)",
            ),
            (vec![step("a", &["a"])], &["/plan/steps/0/depends_on/0"], "depends on itself"),
            (vec![step("a", &[]), step("b", &["a", "a"])], &["/plan/steps/1/depends_on/1"], "listed already"),
            (
                vec![step("build", &["release"]), step("test", &["build"]), step("release", &["test"])],
                &["/plan/steps/1/depends_on/0"],
                "a dependency cycle: build -> release -> test -> build",
            ),
            // Every problem at once.
            (
                vec![step("a", &["zz"]), step("a", &[]), step("b", &["b"])],
                &["/plan/steps/1/id", "/plan/steps/0/depends_on/0", "/plan/steps/2/depends_on/0"],
                "3 errors",
            ),
        ];
        for (steps, want, text) in cases {
            let e = err(call(&app, &c, "submit_plan", json!({"plan": plan(steps.clone())})).await);
            assert_eq!(e.error, "invalid_input", "{steps:?}");
            assert_eq!(pointers(&e), want, "{}", e.message);
            assert_eq!(e.pointer.as_deref(), Some(want[0]));
            assert!(e.message.contains(text), "{}", e.message);
            assert!(e.message.starts_with(want[0]) || e.message.starts_with("3 errors: "), "{}", e.message);
        }
        // What the schema says is the dispatcher's, by pointer too.
        let mut bad = plan(vec![step("a", &[])]);
        bad["steps"][0]["depends_on"] = json!("a");
        let e = err(call(&app, &c, "submit_plan", json!({"plan": bad})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/plan/steps/0/depends_on")));
        let e = err(call(&app, &c, "submit_plan", json!({"plan": {"title": "t", "summary": "s", "steps": []}})).await);
        assert_eq!(e.pointer.as_deref(), Some("/plan/steps"), "{}", e.message);
        let mut extra = plan(vec![step("a", &[])]);
        extra["steps"][0]["owner"] = json!("bob");
        let e = err(call(&app, &c, "submit_plan", json!({"plan": extra})).await);
        assert_eq!(e.pointer.as_deref(), Some("/plan/steps/0/owner"), "{}", e.message);
        // A plan without problems is kept.
        let v = ok_value(
            call(&app, &c, "submit_plan", json!({"plan": plan(vec![step("a", &[]), step("b", &["a"])])})).await,
        );
        assert_eq!(v["version"]["version"], 1);
    });
}

#[test]
fn a_conversations_plan_is_versioned_on_resubmission_and_read_as_a_resource() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let c = Caller::local(Mode::Plan);
        let first = ok_value(call(&app, &c, "submit_plan", json!({"plan": plan(vec![step("a", &[])])})).await);
        let id = first["plan"]["id"].as_str().unwrap().to_string();
        let mut next = plan(vec![step("a", &[]), step("b", &["a"])]);
        next["title"] = json!("Ship the importer, checked");
        let second = ok_value(call(&app, &c, "submit_plan", json!({"plan": next})).await);
        assert_eq!(second["plan"]["id"], id.as_str(), "the same conversation's plan");
        assert_eq!((second["plan"]["version"].as_i64(), second["version"]["version"].as_i64()), (Some(2), Some(2)));
        assert_eq!(second["plan"]["title"], "Ship the importer, checked");
        let uri = second["uri"].as_str().unwrap().to_string();
        assert_eq!(uri, format!("cc://default/plans/{id}"));
        // Another conversation has a plan of its own.
        let other = Caller { conversation: Conversation::new(Mode::Plan), ..c.clone() };
        let third = ok_value(call(&app, &other, "submit_plan", json!({"plan": plan(vec![step("x", &[])])})).await);
        assert_ne!(third["plan"]["id"], id.as_str());
        assert_eq!(third["version"]["version"], 1);
        // The resource: the latest version, or one named.
        let read = |p: Principal, uri: String| {
            let services = app.services.clone();
            async move { cc_server::mcp::service::read_cc(&services, &p, &uri).await }
        };
        let v: Value = serde_json::from_str(&read(Principal::local(), uri.clone()).await.unwrap()).unwrap();
        assert_eq!(v["version"]["version"], 2);
        assert_eq!(v["version"]["document"]["steps"][1]["depends_on"], json!(["a"]));
        let v: Value =
            serde_json::from_str(&read(Principal::local(), format!("{uri}/versions/1")).await.unwrap()).unwrap();
        assert_eq!(v["version"]["document"]["title"], "Ship the importer");
        let e = read(Principal::local(), format!("{uri}/versions/3")).await.unwrap_err();
        assert!(e.message.contains("no version 3 (its versions: 1 to 2)"), "{}", e.message);
        // A principal of another workspace, or the plan under another workspace: none.
        let outsider = Principal::new("outsider", Some(vec!["team".into()]));
        let e = read(outsider, uri.clone()).await.unwrap_err();
        assert!(e.message.contains(&format!("no plan '{id}'")), "{}", e.message);
        store.workspaces().ensure("team", "Team").await.unwrap();
        assert!(read(Principal::local(), format!("cc://team/plans/{id}")).await.is_err());
        // The template is listed.
        assert!(cc_server::mcp::resources::TEMPLATES.iter().any(|t| t.0 == "cc://{workspace_id}/plans/{plan_id}"));
        // Plan mode may submit; orchestrate may not.
        let e = err(call(
            &app,
            &Caller::local(Mode::Orchestrate),
            "submit_plan",
            json!({"plan": plan(vec![step("a", &[])])}),
        )
        .await);
        assert_eq!(e.error, "mode");
    });
}

fn template() -> Value {
    json!({
        "title": "Deploy {{service}} to {{env}}",
        "summary": "Roll {{service}} out with {{replicas}} replicas (canary: {{canary}}).",
        "steps": [
            {"id": "build", "title": "Build {{service}}"},
            {"id": "deploy-{{env}}", "title": "Deploy to {{ env }}", "depends_on": ["build"]},
            {"id": "verify", "title": "Check {{replicas}} replicas are up", "depends_on": ["deploy-{{env}}"]}
        ]
    })
}

fn params() -> Value {
    json!({
        "service": {"type": "string", "description": "what to deploy"},
        "env": {"type": "enum", "values": ["staging", "production"]},
        "replicas": {"type": "integer", "default": 2},
        "canary": {"type": "boolean", "required": false, "default": false}
    })
}

#[test]
fn playbooks_check_their_placeholders_and_declarations_and_keep_versions() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let c = Caller::local(Mode::Orchestrate);
        let v = ok_value(
            call(&app, &c, "create_playbook", json!({"name": "deploy", "params": params(), "plan": template()})).await,
        );
        assert_eq!(v["playbook"]["version"], 1);
        let v = ok_value(
            call(
                &app,
                &c,
                "create_playbook",
                json!({"name": "deploy", "description": "v2", "params": params(), "plan": template()}),
            )
            .await,
        );
        assert_eq!((v["playbook"]["version"].as_i64(), v["playbook"]["description"].as_str()), (Some(2), Some("v2")));
        // (a change to the params, a change to the template, the pointers refused, a part of the message)
        type Case = (Value, Option<(&'static str, Value)>, &'static [&'static str], &'static str);
        let cases: Vec<Case> = vec![
            // A placeholder nobody declared.
            (
                json!({}),
                Some(("/steps/0/title", json!("Build {{service}} for {{region}}"))),
                &["/plan/steps/0/title"],
                "{{region}} is not a declared parameter",
            ),
            // A declared parameter no placeholder uses.
            (
                json!({"colour": {"type": "string"}}),
                None,
                &["/params/colour"],
                "declared but no {{colour}} in the plan uses it",
            ),
            // A malformed placeholder.
            (
                json!({}),
                Some(("/summary", json!("Roll {{service}} {{ replicas }} {{canary}} {{env}} {{not valid}}"))),
                &["/plan/summary"],
                "is not a placeholder",
            ),
            (
                json!({}),
                Some(("/summary", json!("{{service}} {{replicas}} {{canary}} {{env}} {{unclosed"))),
                &["/plan/summary"],
                "never closes",
            ),
            // Declarations that contradict themselves.
            (json!({"env": {"type": "enum"}}), None, &["/params/env/values"], "an enum parameter lists its values"),
            (
                json!({"service": {"type": "string", "values": ["a"]}}),
                None,
                &["/params/service/values"],
                "only an enum parameter has values",
            ),
            (
                json!({"replicas": {"type": "integer", "default": "two"}}),
                None,
                &["/params/replicas/default"],
                "expected an integer; found the string \"two\"",
            ),
            (
                json!({"env": {"type": "enum", "values": ["staging"], "default": "qa"}}),
                None,
                &["/params/env/default"],
                "expected one of staging; found the string \"qa\"",
            ),
            (
                json!({"replicas": {"type": "integer", "required": true, "default": 2}}),
                None,
                &["/params/replicas/required"],
                "a required parameter has no default",
            ),
            (
                json!({"canary": {"type": "boolean", "required": false}}),
                None,
                &["/params/canary/default"],
                "an optional parameter needs a default",
            ),
        ];
        for (patch, edit, want, text) in cases {
            let mut ps = params();
            for (k, v) in patch.as_object().unwrap() {
                ps[k] = v.clone();
            }
            let mut t = template();
            if let Some((at, v)) = edit {
                *t.pointer_mut(at).unwrap() = v;
            }
            let e = err(call(&app, &c, "create_playbook", json!({"name": "deploy", "params": ps, "plan": t})).await);
            assert_eq!(e.error, "invalid_input");
            assert_eq!(pointers(&e), want, "{}", e.message);
            assert!(e.message.contains(text), "{}", e.message);
        }
        // Nothing refused was saved: still two versions.
        let v = ok_value(
            call(&app, &c, "create_playbook", json!({"name": "deploy", "params": params(), "plan": template()})).await,
        );
        assert_eq!(v["playbook"]["version"], 3);
        // A playbook name is a word.
        let e = err(call(
            &app,
            &c,
            "create_playbook",
            json!({"name": "Deploy It", "params": params(), "plan": template()}),
        )
        .await);
        assert_eq!(e.pointer.as_deref(), Some("/name"));
    });
}

#[test]
fn run_playbook_names_every_bad_value_by_pointer_at_once() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let c = Caller::local(Mode::Orchestrate);
        ok_value(
            call(&app, &c, "create_playbook", json!({"name": "deploy", "params": params(), "plan": template()})).await,
        );
        let run = |params: Value| {
            let (app, c) = (app.clone(), c.clone());
            async move { call(&app, &c, "run_playbook", json!({"name": "deploy", "params": params})).await }
        };
        // One at a time: (values, the pointer, a part of the message).
        let cases = [
            (
                json!({"env": "staging"}),
                "/params/service",
                "missing: playbook 'deploy' version 1 requires the string parameter 'service'",
            ),
            (json!({"service": "api"}), "/params/env", "requires the enum (staging, production) parameter 'env'"),
            (
                json!({"service": "api", "env": "staging", "colour": "red"}),
                "/params/colour",
                "has no parameter 'colour' (its parameters: canary, env, replicas, service)",
            ),
            (
                json!({"service": "api", "env": "staging", "replicas": "3"}),
                "/params/replicas",
                "expected an integer; found the string \"3\"",
            ),
            (
                json!({"service": "api", "env": "staging", "replicas": 2.5}),
                "/params/replicas",
                "expected an integer; found the number 2.5",
            ),
            (json!({"service": 7, "env": "staging"}), "/params/service", "expected a string; found the integer 7"),
            (
                json!({"service": "api", "env": "staging", "canary": "yes"}),
                "/params/canary",
                "expected a boolean (true or false); found the string \"yes\"",
            ),
            (
                json!({"service": "api", "env": "qa"}),
                "/params/env",
                "expected one of staging, production; found the string \"qa\"",
            ),
        ];
        for (values, pointer, text) in cases {
            let e = err(run(values.clone()).await);
            assert_eq!(
                (e.error.as_str(), e.pointer.as_deref()),
                ("invalid_input", Some(pointer)),
                "{values}: {}",
                e.message
            );
            assert!(e.message.contains(text), "{values}: {}", e.message);
        }
        // All at once.
        let e = err(run(json!({"env": "qa", "replicas": true, "colour": "red"})).await);
        assert_eq!(
            pointers(&e),
            ["/params/env", "/params/replicas", "/params/service", "/params/colour"],
            "{}",
            e.message
        );
        assert!(e.message.starts_with("4 errors: "), "{}", e.message);
        // The playbook and its version are named too.
        let e = err(call(&app, &c, "run_playbook", json!({"name": "nope"})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/name")));
        assert!(e.message.contains("its playbooks: deploy"), "{}", e.message);
        let e = err(call(&app, &c, "run_playbook", json!({"name": "deploy", "version": 4, "params": {}})).await);
        assert_eq!(e.pointer.as_deref(), Some("/version"));
        assert!(e.message.contains("no version 4 (its versions: 1)"), "{}", e.message);
        // Values that make the filled plan break a plan's rule: named in the filled plan.
        let mut t = template();
        t["steps"][0]["id"] = json!("{{first}}");
        let mut ps = params();
        ps["first"] = json!({"type": "string"});
        ok_value(call(&app, &c, "create_playbook", json!({"name": "twisted", "params": ps, "plan": t})).await);
        let e = err(call(
            &app,
            &c,
            "run_playbook",
            json!({"name": "twisted", "params": {"first": "verify", "service": "api", "env": "staging"}}),
        )
        .await);
        assert_eq!(e.pointer.as_deref(), Some("/params"));
        assert_eq!(pointers(&e), ["/plan/steps/2/id", "/plan/steps/1/depends_on/0"], "{}", e.message);
        assert!(e.message.contains("filled with these values is not a valid plan"), "{}", e.message);
    });
}

#[test]
fn run_playbook_puts_the_filled_plan_on_the_board_for_the_operator() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let c = Caller::local(Mode::Orchestrate);
        ok_value(
            call(&app, &c, "create_playbook", json!({"name": "deploy", "params": params(), "plan": template()})).await,
        );
        let mut t2 = template();
        t2["title"] = json!("Deploy {{service}} to {{env}}, v2");
        ok_value(call(&app, &c, "create_playbook", json!({"name": "deploy", "params": params(), "plan": t2})).await);
        let v = ok_value(
            call(
                &app,
                &c,
                "run_playbook",
                json!({"name": "deploy", "version": 1, "params": {"service": "api", "env": "production"}}),
            )
            .await,
        );
        let doc = &v["version"]["document"];
        assert_eq!(doc["title"], "Deploy api to production");
        assert_eq!(doc["summary"], "Roll api out with 2 replicas (canary: false).");
        assert_eq!(doc["steps"][1]["id"], "deploy-production");
        assert_eq!(doc["steps"][2]["depends_on"], json!(["deploy-production"]));
        assert_eq!(v["params"], json!({"canary": false, "env": "production", "replicas": 2, "service": "api"}));
        // The board approval it names: a pending plan, with the plan in its payload.
        let approval_id = v["approval"]["id"].as_str().unwrap();
        assert_eq!(v["plan"]["approval_id"], approval_id);
        let a = store.board().get(approval_id).await.unwrap().unwrap();
        assert_eq!((a.kind, a.status), (BoardKind::Plan, BoardStatus::Pending));
        assert_eq!(a.payload["plan_id"], v["plan"]["id"]);
        assert_eq!(a.payload["playbook"]["version"], 1);
        assert_eq!(a.payload["plan"]["title"], "Deploy api to production");
        assert!(a.title.starts_with("Plan from playbook deploy v1: "), "{}", a.title);
        let listed =
            ok_value(call(&app, &Caller::local(Mode::Chat), "list_approvals", json!({"status": "pending"})).await);
        assert!(
            listed["approvals"].as_array().unwrap().iter().any(|x| x["id"] == approval_id && x["kind"] == "plan"),
            "{listed}"
        );
        // The operator decides it on the board (someone other than the requester).
        let op = cc_server::store::Actor { id: "principal:operator".into(), name: "operator".into() };
        let decided =
            store.board().decide(approval_id, cc_server::store::board::Decision::Approve, &op, None).await.unwrap();
        assert_eq!(decided.status, BoardStatus::Approved);
        // The latest version without one; the plan is a resource too.
        let v = ok_value(
            call(&app, &c, "run_playbook", json!({"name": "deploy", "params": {"service": "web", "env": "staging"}}))
                .await,
        );
        assert_eq!(v["version"]["document"]["title"], "Deploy web to staging, v2");
        let text = cc_server::mcp::service::read_cc(&app.services, &Principal::local(), v["uri"].as_str().unwrap())
            .await
            .unwrap();
        assert!(text.contains("Deploy web to staging, v2"), "{text}");
    });
}

/// The board's migration 3 (kinds checked by the server: SQLite rebuilds both tables) keeps
/// every approval and event a store of migration 2 held, and then takes a plan approval.
#[test]
fn board_rows_of_the_previous_schema_survive_the_kind_migration() {
    use sqlx::migrate::{Migration, MigrationType, Migrator};
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("workspace.sqlite3");
    let url = format!("sqlite://{}?mode=rwc", path.display());
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        // The schema as it was: every area up to the board's migration 2.
        {
            let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
            sqlx::query("PRAGMA foreign_keys = ON").execute(&pool).await.unwrap();
            let board = cc_server::store::AREAS.iter().position(|a| *a == "board").unwrap();
            for area in &cc_server::store::AREAS[..=board] {
                let ms: Vec<Migration> = cc_server::store::MIGRATIONS
                    .iter()
                    .filter(|m| m.area == *area && (*area != "board" || m.version <= 2))
                    .map(|m| {
                        Migration::new(m.version, m.name.into(), MigrationType::Simple, sqlx::SqlSafeStr::into_sql_str(m.sqlite), false)
                    })
                    .collect();
                let mut migrator = Migrator::with_migrations(ms);
                migrator.dangerous_set_table_name(format!("_migrations_{area}"));
                migrator.run(&pool).await.unwrap();
            }
            sqlx::query("INSERT INTO workspaces (id, name, created_at) VALUES ('default', 'Default', 1)")
                .execute(&pool)
                .await
                .unwrap();
            sqlx::query(
                "INSERT INTO board_approvals (id, workspace_id, kind, title, payload, status, requester, requester_name, \
                 conversation, decided_by, decided_at, next_seq, created_at, updated_at, consumed_at) VALUES \
                 ('ba-1', 'default', 'plan_exit', 'leave plan mode', '{\"x\":1}', 'approved', 'principal:local', 'local', 'c-1', 'operator', 5, 2, 1, 5, 6)",
            )
            .execute(&pool)
            .await
            .unwrap();
            for (seq, action) in [(1, "create"), (2, "approve")] {
                sqlx::query("INSERT INTO board_events (approval_id, seq, action, actor, actor_name, note, at) VALUES ('ba-1', $1, $2, 'a', 'a', NULL, 1)")
                    .bind(seq)
                    .bind(action)
                    .execute(&pool)
                    .await
                    .unwrap();
            }
            // A kind the old schema refuses.
            assert!(sqlx::query("UPDATE board_approvals SET kind = 'plan'").execute(&pool).await.is_err());
            pool.close().await;
        }
        let store = Store::open(&url).await.unwrap();
        let a = store.board().get("ba-1").await.unwrap().unwrap();
        assert_eq!((a.kind, a.status, a.consumed_at, a.payload.clone()), (BoardKind::PlanExit, BoardStatus::Approved, Some(6), json!({"x": 1})));
        let events: Vec<String> = store.board().events("ba-1").await.unwrap().into_iter().map(|e| e.action).collect();
        assert_eq!(events, ["create", "approve"]);
        let by = cc_server::store::Actor { id: "a".into(), name: "a".into() };
        let p = store.board().create("default", BoardKind::Plan, "a plan", &json!({}), &by, None).await.unwrap();
        assert_eq!(p.kind, BoardKind::Plan);
    });
}
