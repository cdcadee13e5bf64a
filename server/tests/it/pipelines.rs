//! Pipelines, on SQLite and on PostgreSQL, through the tools and a real runtime: triggers
//! matched by equality, one-of and glob (and told why not), preview_trigger recording
//! nothing, a real event (a ticket created, a message posted, a ticket closed) starting the
//! pipeline's real run (a python3 process, the agents' test runtime), submit_output held to
//! the run's schema (errors by pointer, once, only for a pipeline's run), and team leads'
//! activity on a ticket.

use std::sync::Arc;
use std::time::Duration;

use cc_server::agents::admin::{self, AgentSpec};
use cc_server::app::App;
use cc_server::config::Config;
use cc_server::mcp::dispatch::{CallOutcome, Caller};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::principal::Principal;
use cc_server::store::pipelines::PipelineRun;
use cc_server::store::{Agent, Family, Run, RunStatus, RuntimeProfile};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::common::{err, ok_value, test_store, Backend, TestStore, BACKENDS};

const CONFIG: &str = r#"
[runtimes]
allow = ["python3"]

[[pipelines]]
name = "triage"
workspaces = ["default"]
[[pipelines.triggers]]
type = "ticket.created"
filters = { priority = { one_of = ["high", "urgent"] }, title = { glob = "*crash*" }, team = "core" }
[[pipelines.triggers]]
name = "bugs"
type = "ticket.status_changed"
filters = { labels = "bug", status = "in_progress" }
[[pipelines.runs]]
agent = "triager"
brief = "Triage {{event.key}}: {{event.title}} (by {{pipeline}}, trigger {{trigger}})"
output_schema = "schemas/triage.json"
[[pipelines.runs]]
agent = "scribe"
output_schema = { type = "object" }

[[pipelines]]
name = "deploys"
[[pipelines.triggers]]
type = "message.posted"
filters = { text = { glob = "deploy *" }, sender_kind = { one_of = ["operator", "principal"] } }
[[pipelines.triggers]]
type = "ticket.closed"
filters = { status = "done" }
[[pipelines.runs]]
agent = "triager"
output_schema = { type = "object", required = ["ok"], properties = { ok = { type = "boolean" } } }
"#;

const TRIAGE_SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["severity", "summary"],
  "properties": {
    "severity": { "enum": ["p0", "p1", "p2", "p3"] },
    "summary": { "type": "string", "minLength": 1 },
    "owners": { "type": "array", "items": { "type": "string" } }
  },
  "additionalProperties": false
}"#;

/// An app over a store of `backend` with the pipelines above, the agents lead and triager
/// (reporting to lead; its runs are python3 printing their brief), a runtime that starts
/// real processes, the pipelines' listener on the bus, and the operator's approval queue.
pub(crate) struct Runner {
    pub(crate) rt: tokio::runtime::Runtime,
    pub(crate) app: Arc<App>,
    stop: CancellationToken,
    _store: TestStore,
    _tmp: tempfile::TempDir,
}

impl Drop for Runner {
    fn drop(&mut self) {
        self.stop.cancel();
        self.rt.block_on(self.app.services.runtime.shutdown(Duration::from_secs(10)));
    }
}

impl Runner {
    pub(crate) fn new(backend: Backend, agents: &[(&str, Option<&str>, &[&str], u8)]) -> Runner {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("schemas")).unwrap();
        std::fs::write(tmp.path().join("schemas/triage.json"), TRIAGE_SCHEMA).unwrap();
        std::fs::write(tmp.path().join("config.toml"), CONFIG).unwrap();
        let config = Config::load(None, tmp.path()).unwrap();
        let data = cc_indexer::DataDir::new(tmp.path().join("data"));
        let t = rt.block_on(test_store(backend));
        let store = t.store.clone();
        rt.block_on(async {
            store.workspaces().ensure("team", "Team").await.unwrap();
            let p = RuntimeProfile {
                id: RuntimeProfile::new_id(),
                workspace_id: "default".into(),
                name: "print".into(),
                family: Family::McpCli,
                command: String::new(),
                args: Vec::new(),
                wake_on_message: false,
                timeout_secs: 60,
                created_by: "operator".into(),
                created_at: 0,
            };
            let argv: Vec<String> =
                ["python3", "-c", "import os; print('BRIEF=' + os.environ['CC_BRIEF'].splitlines()[0])"]
                    .map(String::from)
                    .to_vec();
            admin::add_profile(&store, &config, p, &argv).await.unwrap();
            for (name, boss, skills, autonomy) in agents {
                let spec = AgentSpec {
                    runtime: Some("print".into()),
                    reports_to: boss.map(|b| Some(b.to_string())),
                    skills: Some(skills.iter().map(|s| s.to_string()).collect()),
                    autonomy: Some(*autonomy),
                    ..AgentSpec::default()
                };
                admin::add(&store, &config, "default", name, spec).await.unwrap();
            }
        });
        let mut services = cc_server::services::Services::with_config(data, store, None, config);
        services.policy.approvals = cc_server::mcp::approvals::ApprovalConfig { queue: true, ..Default::default() };
        let app = Arc::new(App::new(services, cc_server::mcp::tools::registry(), None));
        app.services.runtime.set_endpoint("http://127.0.0.1:9/mcp".into());
        let stop = CancellationToken::new();
        rt.spawn(cc_server::pipelines::background(app.services.clone(), stop.clone()));
        // On PostgreSQL the bus listens before anything is published.
        assert!(rt.block_on(app.services.bus.ready(Duration::from_secs(10))), "the bus did not start listening");
        Runner { rt, app, stop, _store: t, _tmp: tmp }
    }

    pub(crate) fn call(&self, c: &Caller, name: &str, args: Value) -> CallOutcome {
        let surface = cc_server::mcp::surface::Surface::parse(None, true).unwrap();
        self.rt.block_on(self.app.dispatcher.call(
            self.app.services.clone(),
            &surface,
            c,
            name,
            args.as_object().cloned(),
            CancellationToken::new(),
            None,
        ))
    }

    /// A call the operator approves through the queue when it asks.
    pub(crate) fn approved(&self, c: &Caller, name: &str, args: Value) -> CallOutcome {
        match self.call(c, name, args.clone()) {
            CallOutcome::Err(e) if e.error == "approval_pending" => {
                let id = e.data.unwrap()["approval_id"].as_str().unwrap().to_string();
                let store = &self.app.services.store;
                self.rt.block_on(store.approvals().decide(&id, true, "operator (test)", None)).unwrap();
                self.call(c, name, args)
            }
            other => other,
        }
    }

    /// The store's URL (a second connection, for what no API does: a crash's leftovers).
    pub(crate) fn store_url(&self) -> &str {
        &self._store.url
    }

    pub(crate) fn agent(&self, name: &str) -> Agent {
        self.rt.block_on(self.app.services.store.agents().by_name("default", name)).unwrap().unwrap()
    }

    fn pipeline_runs(&self) -> Vec<PipelineRun> {
        self.rt.block_on(self.app.services.store.pipelines().list("default")).unwrap()
    }

    /// The pipeline runs once there are `n` (they are recorded from the bus's events).
    fn wait_runs(&self, n: usize) -> Vec<PipelineRun> {
        for _ in 0..400 {
            let runs = self.pipeline_runs();
            if runs.len() >= n && runs.iter().all(|r| r.status != "claimed") {
                return runs;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("fewer than {n} pipeline runs: {:?}", self.pipeline_runs());
    }

    /// The agent run, once it has ended.
    fn ended(&self, run_id: &str) -> Run {
        for _ in 0..400 {
            let r = self.rt.block_on(self.app.services.store.agents().run(run_id)).unwrap().unwrap();
            if !matches!(r.status, RunStatus::Queued | RunStatus::Running) {
                return r;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("run {run_id} did not end");
    }

    /// What the store holds that a preview must not change: pipeline runs, team activity,
    /// agent runs, tickets, board approvals.
    fn counts(&self) -> (i64, i64, usize, usize, usize) {
        let s = &self.app.services.store;
        self.rt.block_on(async {
            let (runs, activity) = s.pipelines().counts().await.unwrap();
            let agent_runs = s.agents().runs("default", None, false, 1000).await.unwrap().len();
            let f = cc_server::store::TicketFilter { limit: 1000, ..Default::default() };
            let tickets = s.tickets().list("default", &f).await.unwrap().len();
            let board = s.board().list("default", None, 1000).await.unwrap().len();
            (runs, activity, agent_runs, tickets, board)
        })
    }
}

pub(crate) fn chat() -> Caller {
    Caller::local(Mode::Chat)
}

fn team(backend: Backend) -> Runner {
    Runner::new(backend, &[("lead", None, &[], 3), ("triager", Some("lead"), &[], 2)])
}

fn preview(r: &Runner, event: Value) -> Value {
    ok_value(r.call(&chat(), "preview_trigger", json!({"workspace_id": "default", "event": event})))
}

/// The verdict of `pipeline`'s trigger `i`.
fn verdict<'a>(out: &'a Value, pipeline: &str, i: u64) -> &'a Value {
    out["triggers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["pipeline"] == pipeline && t["trigger"] == i)
        .unwrap_or_else(|| panic!("no verdict of {pipeline} trigger {i} in {out}"))
}

#[test]
fn triggers_match_by_equality_one_of_and_glob_and_say_which_filter_failed() {
    for backend in BACKENDS {
        let r = team(backend);
        let before = r.counts();
        let hit =
            json!({"type": "ticket.created", "priority": "urgent", "title": "app crash on start", "team": "core"});
        let out = preview(&r, hit.clone());
        let v = verdict(&out, "triage", 0);
        assert_eq!(v["matched"], true, "{v}");
        assert!(
            v["reason"]
                .as_str()
                .unwrap()
                .contains("every filter holds: priority (one_of), team (equals), title (glob)"),
            "{v}"
        );
        // triager exists and would start; scribe is not an agent of this workspace.
        assert_eq!(
            v["runs"],
            json!([
                {"run": 0, "agent": "triager", "starts": true},
                {"run": 1, "agent": "scribe", "starts": false, "reason": "no agent named 'scribe' in workspace 'default'"}
            ])
        );
        assert_eq!(out["would_start"], 1);
        assert_eq!(out["event"]["workspace_id"], "default");
        assert!(out["event"].as_object().unwrap().contains_key("assignee"), "every field, null when not given");
        // Another event type: the trigger's type is the reason.
        let o = verdict(&out, "deploys", 0);
        assert_eq!(
            (o["matched"].as_bool(), o["reason"].as_str()),
            (Some(false), Some("the trigger hears message.posted, not ticket.created"))
        );
        // Each filter kind failing, with its field, expected and actual values.
        let miss = |event: Value| verdict(&preview(&r, event), "triage", 0).clone();
        let m = miss(json!({"type": "ticket.created", "priority": "low", "title": "app crash", "team": "core"}));
        assert_eq!(m["matched"], false);
        assert_eq!(
            m["failed_filter"],
            json!({"field": "priority", "filter": "one_of", "expected": ["high", "urgent"], "actual": "low"})
        );
        assert_eq!(
            m["reason"],
            "filter priority (one_of) does not hold: priority is \"low\", not one of [\"high\",\"urgent\"]"
        );
        assert!(m["runs"].as_array().unwrap().is_empty());
        let m = miss(json!({"type": "ticket.created", "priority": "high", "title": "slow page", "team": "core"}));
        assert_eq!(
            m["failed_filter"],
            json!({"field": "title", "filter": "glob", "expected": "*crash*", "actual": "slow page"})
        );
        let m = miss(json!({"type": "ticket.created", "priority": "high", "title": "a crash", "team": "web"}));
        assert_eq!(
            m["failed_filter"],
            json!({"field": "team", "filter": "equals", "expected": "core", "actual": "web"})
        );
        let m = miss(json!({"type": "ticket.created", "priority": "high", "title": "a crash"}));
        assert_eq!(m["failed_filter"]["actual"], Value::Null);
        assert!(m["reason"].as_str().unwrap().contains("team is absent (null), not \"core\""), "{m}");
        // A list field matches when one element does.
        let out =
            preview(&r, json!({"type": "ticket.status_changed", "labels": ["ui", "bug"], "status": "in_progress"}));
        let b = verdict(&out, "triage", 1);
        assert_eq!((b["matched"].as_bool(), b["trigger_name"].as_str()), (Some(true), Some("bugs")));
        let out = preview(&r, json!({"type": "ticket.status_changed", "labels": ["ui"], "status": "in_progress"}));
        assert_eq!(verdict(&out, "triage", 1)["failed_filter"]["actual"], json!(["ui"]));
        // A pipeline of one workspace does not hear another's events.
        let out = ok_value(r.call(&chat(), "preview_trigger", json!({"workspace_id": "team", "event": hit})));
        let v = verdict(&out, "triage", 0);
        assert!(v["reason"].as_str().unwrap().contains("hears the workspaces default only, not team"), "{v}");
        // Bad events are named by pointer.
        let e = err(r.call(
            &chat(),
            "preview_trigger",
            json!({"workspace_id": "default", "event": {"type": "ticket.made"}}),
        ));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/event/type")));
        assert!(
            e.message.contains("unknown event type 'ticket.made'; the types: message.posted, run.ended"),
            "{}",
            e.message
        );
        let e = err(r.call(
            &chat(),
            "preview_trigger",
            json!({"workspace_id": "default", "event": {"type": "ticket.created", "titel": "x"}}),
        ));
        assert_eq!(e.pointer.as_deref(), Some("/event/titel"));
        assert!(
            e.message.contains("ticket.created has no field 'titel'; its fields: workspace_id, ticket_id, key, title"),
            "{}",
            e.message
        );
        let e =
            err(r.call(&chat(), "preview_trigger", json!({"workspace_id": "default", "event": {"priority": "high"}})));
        assert_eq!(e.pointer.as_deref(), Some("/event/type"));
        // Nothing was recorded by any of it.
        assert_eq!(r.counts(), before, "{backend:?}: a preview recorded something");
    }
}

#[test]
fn a_matching_event_starts_the_pipelines_real_run_once_and_records_it() {
    for backend in BACKENDS {
        let r = team(backend);
        let c = chat();
        // Does not match (priority low): nothing starts.
        ok_value(r.approved(
            &c,
            "create_ticket",
            json!({"workspace_id": "default", "title": "a crash", "priority": "low", "team": "core"}),
        ));
        let t = ok_value(r.approved(
            &c,
            "create_ticket",
            json!({"workspace_id": "default", "title": "app crash on start", "priority": "urgent", "team": "core"}),
        ));
        let runs = r.wait_runs(2);
        assert_eq!(runs.len(), 2, "{backend:?}: one row per run of the matching trigger: {runs:?}");
        let (started, missing) = (&runs[0], &runs[1]);
        assert_eq!(
            (
                started.pipeline.as_str(),
                started.trigger_index,
                started.run_index,
                started.status.as_str(),
                started.event_type.as_str()
            ),
            ("triage", 0, 0, "started", "ticket.created")
        );
        assert_eq!(started.event["key"], "T-2");
        assert_eq!(started.event["ticket_id"], t["id"]);
        assert_eq!(started.output_schema["required"], json!(["severity", "summary"]));
        assert_eq!((missing.status.as_str(), missing.agent.as_str()), ("not_started", "scribe"));
        assert_eq!(missing.error.as_deref(), Some("no agent named 'scribe' in workspace 'default'"));
        // The agent's run is real: a process that printed its brief, dispatched for the ticket.
        let run = r.ended(started.run_id.as_deref().unwrap());
        assert_eq!(
            (run.status, run.reason.as_str(), run.agent_id.clone()),
            (RunStatus::Done, "pipeline", r.agent("triager").id)
        );
        assert_eq!(run.ticket_id.as_deref(), t["id"].as_str());
        let log = run.log_tail.clone().unwrap_or_default();
        assert!(log.contains("BRIEF=Triage T-2: app crash on start (by triage, trigger 0)"), "{log}");
        assert!(run.brief.contains("submit_output") && run.brief.contains("\"severity\""), "{}", run.brief);
        // Its end is an event too, and no pipeline hears its own runs' ends (none hears run.ended here).
        // A message matching the other pipeline's trigger starts its run.
        let space = t["space_id"].as_str().unwrap();
        ok_value(r.call(
            &c,
            "send_message",
            json!({"workspace_id": "default", "space_id": space, "text": "deploy v2 now"}),
        ));
        ok_value(r.call(
            &c,
            "send_message",
            json!({"workspace_id": "default", "space_id": space, "text": "no deploy"}),
        ));
        let runs = r.wait_runs(3);
        let d = &runs[2];
        assert_eq!(
            (d.pipeline.as_str(), d.event_type.as_str(), d.status.as_str()),
            ("deploys", "message.posted", "started")
        );
        assert_eq!(d.event["text"], "deploy v2 now");
        assert_eq!(r.ended(d.run_id.as_deref().unwrap()).status, RunStatus::Done);
        // A status change to in_progress with the label bug: the trigger "bugs"; closing: ticket.closed.
        ok_value(r.approved(
            &c,
            "update_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-2", "labels": ["bug"]}),
        ));
        ok_value(r.approved(
            &c,
            "update_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-2", "status": "doing"}),
        ));
        let runs = r.wait_runs(5);
        assert_eq!(
            runs[3..].iter().map(|x| (x.pipeline.as_str(), x.trigger_index, x.event_type.as_str())).collect::<Vec<_>>(),
            [("triage", 1, "ticket.status_changed"), ("triage", 1, "ticket.status_changed")]
        );
        ok_value(r.approved(
            &c,
            "close_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-2", "output": "fixed"}),
        ));
        let runs = r.wait_runs(6);
        let closed = &runs[5];
        assert_eq!(
            (closed.pipeline.as_str(), closed.trigger_index, closed.event_type.as_str()),
            ("deploys", 1, "ticket.closed")
        );
        assert_eq!(
            (closed.event["status"].as_str(), closed.event["previous_status"].as_str()),
            (Some("done"), Some("in_progress"))
        );
        // The same event heard again (another replica's listener) starts nothing more.
        let again = cc_server::pipelines::events::TriggerEvent {
            kind: "message.posted",
            workspace_id: "default".into(),
            key: d.event_key.clone(),
            fields: d.event.as_object().unwrap().clone(),
        };
        let fired = r.rt.block_on(cc_server::pipelines::fire(&r.app.services, &again)).unwrap();
        assert!(fired.is_empty(), "{fired:?}");
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(r.pipeline_runs().len(), 6, "{backend:?}");
    }
}

#[test]
fn submit_output_holds_the_run_to_its_schema_by_pointer_once() {
    for backend in BACKENDS {
        let r = team(backend);
        let c = chat();
        ok_value(r.approved(
            &c,
            "create_ticket",
            json!({"workspace_id": "default", "title": "crash", "priority": "high", "team": "core"}),
        ));
        let pr = r.wait_runs(2)[0].clone();
        let run_id = pr.run_id.clone().unwrap();
        let mut as_run = Caller::local(Mode::Chat);
        as_run.principal = Principal::agent(&r.agent("triager"), Some(run_id.clone()));
        let submit = |who: &Caller, output: Value| r.call(who, "submit_output", json!({"output": output}));
        // Every error at once, each by pointer with the schema's keyword.
        let e = err(submit(&as_run, json!({"severity": "p9", "owners": ["a", 3], "extra": true})));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/output")));
        let errors = e.data.as_ref().unwrap()["errors"].as_array().unwrap().clone();
        let mut got: Vec<(String, String)> = errors
            .iter()
            .map(|x| (x["pointer"].as_str().unwrap().to_string(), x["keyword"].as_str().unwrap().to_string()))
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                ("/output".to_string(), "additionalProperties".to_string()),
                ("/output".to_string(), "required".to_string()),
                ("/output/owners/1".to_string(), "type".to_string()),
                ("/output/severity".to_string(), "enum".to_string()),
            ],
            "{backend:?}: {errors:?}"
        );
        assert!(
            e.message.contains("in 4 place(s)")
                && e.message.contains("/output/owners/1 (type at /properties/owners/items/type)"),
            "{}",
            e.message
        );
        assert_eq!(e.data.as_ref().unwrap()["truncated"], false);
        let e = err(submit(&as_run, json!("just text")));
        assert_eq!(e.data.as_ref().unwrap()["errors"][0]["keyword"], "type");
        // A valid payload is stored against the run, once.
        let out = ok_value(submit(&as_run, json!({"severity": "p1", "summary": "null deref at start"})));
        assert_eq!((out["pipeline"].as_str(), out["run_id"].as_str()), (Some("triage"), Some(run_id.as_str())));
        let stored = r.rt.block_on(r.app.services.store.pipelines().get(&pr.id)).unwrap().unwrap();
        assert_eq!(stored.output, Some(json!({"severity": "p1", "summary": "null deref at start"})));
        assert_eq!(stored.rejected_outputs, 2);
        let e = err(submit(&as_run, json!({"severity": "p0", "summary": "again"})));
        assert_eq!(e.error, "conflict");
        assert!(e.message.contains("has its output already"), "{}", e.message);
        // A caller with no pipeline run: no run at all, or a run no pipeline started.
        let e = err(r.call(&c, "submit_output", json!({"workspace_id": "default", "output": {}})));
        assert_eq!(e.error, "not_found");
        assert!(e.message.contains("calls without a run's token, so it has no current pipeline run"), "{}", e.message);
        let mut other = Caller::local(Mode::Chat);
        other.principal = Principal::agent(&r.agent("lead"), Some("run-not-a-pipelines".into()));
        let e = err(submit(&other, json!({})));
        assert!(e.message.contains("run run-not-a-pipelines was not started by a pipeline"), "{}", e.message);
        // Bad arguments are the dispatcher's.
        let e = err(r.call(&as_run, "submit_output", json!({})));
        assert_eq!(e.pointer.as_deref(), Some("/output"));
    }
}

#[test]
fn team_leads_record_activity_on_a_ticket_and_get_ticket_lists_it() {
    for backend in BACKENDS {
        let r = team(backend);
        let c = chat();
        ok_value(r.approved(&c, "create_ticket", json!({"workspace_id": "default", "title": "epic"})));
        let mut lead = Caller::local(Mode::Chat);
        lead.principal = Principal::agent(&r.agent("lead"), None);
        let a = ok_value(r.call(
            &lead,
            "record_team_activity",
            json!({"ticket_id": "T-1", "kind": "assignment", "summary": "triager takes the crash", "details": {"who": "triager"}}),
        ));
        assert_eq!(
            (a["ticket_key"].as_str(), a["activity"]["actor"].as_str(), a["activity"]["kind"].as_str()),
            (Some("T-1"), Some("lead"), Some("assignment"))
        );
        // The operator is a lead too.
        ok_value(r.call(
            &c,
            "record_team_activity",
            json!({"workspace_id": "default", "ticket_id": "T-1", "kind": "decision", "summary": "ship it"}),
        ));
        // An agent with no reports is not; nor is a principal who is not the operator.
        let mut triager = Caller::local(Mode::Chat);
        triager.principal = Principal::agent(&r.agent("triager"), None);
        let e =
            err(r.call(&triager, "record_team_activity", json!({"ticket_id": "T-1", "kind": "note", "summary": "x"})));
        assert_eq!(e.error, "conflict");
        assert!(e.message.contains("triager leads no one: no agent reports to it in the org chart"), "{}", e.message);
        let mut user = Caller::local(Mode::Chat);
        user.principal = Principal::new("alice", None);
        let e = err(r.call(
            &user,
            "record_team_activity",
            json!({"workspace_id": "default", "ticket_id": "T-1", "kind": "note", "summary": "x"}),
        ));
        assert!(e.message.contains("alice is neither"), "{}", e.message);
        let e = err(r.call(&lead, "record_team_activity", json!({"ticket_id": "T-9", "kind": "note", "summary": "x"})));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/ticket_id")));
        let e =
            err(r.call(&lead, "record_team_activity", json!({"ticket_id": "T-1", "kind": "gossip", "summary": "x"})));
        assert_eq!(e.pointer.as_deref(), Some("/kind"));
        // get_ticket lists the entries, oldest first.
        let t = ok_value(r.call(&c, "get_ticket", json!({"workspace_id": "default", "ticket_id": "T-1"})));
        let list = t["team_activity"].as_array().unwrap();
        assert_eq!(
            list.iter().map(|x| (x["actor"].as_str().unwrap(), x["summary"].as_str().unwrap())).collect::<Vec<_>>(),
            [("lead", "triager takes the crash"), ("local", "ship it")],
            "{backend:?}"
        );
        assert_eq!(list[0]["details"], json!({"who": "triager"}));
        ok_value(r.approved(&c, "create_ticket", json!({"workspace_id": "default", "title": "quiet"})));
        let t = ok_value(r.call(&c, "get_ticket", json!({"workspace_id": "default", "ticket_id": "T-2"})));
        assert!(t.get("team_activity").is_none(), "absent when there is none: {t}");
    }
}
