//! The agents and spaces areas of the store, on SQLite and on PostgreSQL: the operator's
//! registry (names, managers without cycles, tokens), runs (queued → running → ended, once),
//! spaces (numbered messages under concurrent senders, cursors, replies, notes with a base
//! version, checklists), and the bus between two replicas on one PostgreSQL database.
//! The processes themselves (runs started, answered, killed) are tests/mcp/test_agents.py's.

use std::time::Duration;

use cc_server::agents::admin::{self, AgentSpec};
use cc_server::agents::{Brief, DispatchError, Runtime};
use cc_server::bus::{Bus, Event};
use cc_server::config::Config;
use cc_server::store::agents::{Ended, Started};
use cc_server::store::{Family, Member, Run, RunStatus, RuntimeProfile, Sender, SpaceKind, Store, Todo, TodoStatus};

use crate::common::{on_each_backend, test_store, Backend};

fn config() -> Config {
    let mut c = Config::default();
    c.runtimes.allow = vec!["python3".into()];
    c
}

fn profile(ws: &str, name: &str) -> RuntimeProfile {
    RuntimeProfile {
        id: RuntimeProfile::new_id(),
        workspace_id: ws.into(),
        name: name.into(),
        family: Family::McpCli,
        command: String::new(),
        args: Vec::new(),
        wake_on_message: false,
        timeout_secs: 60,
        created_by: "operator".into(),
        created_at: 0,
    }
}

async fn team(store: &Store) {
    store.workspaces().ensure("team", "team").await.unwrap();
    store.workspaces().ensure("other", "other").await.unwrap();
    let argv = vec!["python3".to_string(), "agent.py".to_string()];
    for ws in ["team", "other"] {
        admin::add_profile(store, &config(), profile(ws, "py"), &argv).await.unwrap();
    }
}

fn spec(reports_to: Option<&str>) -> AgentSpec {
    AgentSpec {
        runtime: Some("py".into()),
        reports_to: reports_to.map(|m| Some(m.to_string())),
        skills: Some(vec!["rust".into()]),
        ..AgentSpec::default()
    }
}

#[test]
fn agents_are_the_operators_with_managers_that_make_no_cycle() {
    on_each_backend(|_, store| async move {
        team(&store).await;
        let (lead, lead_token) = admin::add(&store, &config(), "team", "lead", spec(None)).await.unwrap();
        let (dev, _) = admin::add(&store, &config(), "team", "dev", spec(Some("lead"))).await.unwrap();
        admin::add(&store, &config(), "team", "intern", spec(Some("dev"))).await.unwrap();
        // The same name twice in a workspace is refused; in another it is another agent.
        assert!(admin::add(&store, &config(), "team", "lead", spec(None)).await.is_err());
        admin::add(&store, &config(), "other", "lead", spec(None)).await.unwrap();
        // lead -> intern would close lead <- dev <- intern.
        let e = admin::update(&store, "team", "lead", spec(Some("intern"))).await.unwrap_err();
        assert!(format!("{e:#}").contains("cycle"), "{e:#}");
        let e = admin::update(&store, "team", "lead", spec(Some("lead"))).await.unwrap_err();
        assert!(format!("{e:#}").contains("cycle"), "{e:#}");
        assert_eq!(
            store.agents().chain(&store.agents().by_name("team", "intern").await.unwrap().unwrap().id).await.unwrap(),
            vec![dev.id.clone(), lead.id.clone()]
        );
        // A token is shown once; the store keeps its hash, and a rotation retires it.
        let hash = cc_server::agents::hash_token(&lead_token);
        assert_eq!(store.agents().by_token(&hash).await.unwrap().unwrap().id, lead.id);
        let new = admin::rotate(&store, "team", "lead").await.unwrap();
        assert!(store.agents().by_token(&hash).await.unwrap().is_none());
        assert_eq!(store.agents().by_token(&cc_server::agents::hash_token(&new)).await.unwrap().unwrap().id, lead.id);
        // A profile off the allow-list cannot be added, nor an agent on one that went off it.
        let sh = vec!["/bin/sh".to_string(), "-c".to_string(), "id".to_string()];
        let e = admin::add_profile(&store, &config(), profile("team", "sh"), &sh).await.unwrap_err();
        assert!(format!("{e:#}").contains("allow-list"), "{e:#}");
        assert_eq!(store.agents().list("team").await.unwrap().len(), 3);
        // A server whose allow-list no longer holds the profile's program refuses its runs.
        let tmp = tempfile::tempdir().unwrap();
        let bus = std::sync::Arc::new(Bus::new(&store));
        let runtime = std::sync::Arc::new(Runtime::new(
            store.clone(),
            bus,
            Config::default(),
            cc_indexer::DataDir::new(tmp.path()),
        ));
        runtime.set_endpoint("http://127.0.0.1:9/mcp".into());
        let brief = Brief { reason: "ask", text: "hi".into(), space_id: None, message_id: None, ticket_id: None };
        match runtime.dispatch(&dev, brief).await {
            Err(e @ DispatchError::NotAllowed { .. }) => assert!(e.to_string().contains("python3"), "{e}"),
            other => panic!("dispatched a program off the allow-list: {other:?}"),
        }
        assert_eq!(store.agents().counts(&dev.id).await.unwrap(), (0, 0));
    });
}

fn run(id: &str, agent: &str) -> Run {
    Run {
        id: id.into(),
        workspace_id: "team".into(),
        agent_id: agent.into(),
        status: RunStatus::Queued,
        reason: "ask".into(),
        brief: "b".into(),
        space_id: None,
        message_id: None,
        ticket_id: None,
        created_at: cc_server::store::now(),
        started_at: None,
        ended_at: None,
        host: Some("h/boot".into()),
        server_pid: Some(1),
        server_started: Some(2),
        pid: None,
        proc_started: None,
        exit_code: None,
        error: None,
        log_tail: None,
        kept: vec![],
    }
}

#[test]
fn a_run_starts_once_and_ends_once() {
    on_each_backend(|_, store| async move {
        team(&store).await;
        let (a, _) = admin::add(&store, &config(), "team", "a", spec(None)).await.unwrap();
        let agents = store.agents();
        for i in 0..3 {
            agents.add_run(&run(&format!("run-{i}"), &a.id), &format!("placeholder-{i}")).await.unwrap();
        }
        assert_eq!(agents.counts(&a.id).await.unwrap(), (0, 3));
        let started = Started { host: "h/boot".into(), server_pid: 1, server_started: 2, pid: 77, proc_started: 5 };
        assert!(agents.start_run("run-0", &started, "tok-0").await.unwrap());
        assert!(!agents.start_run("run-0", &started, "tok-0").await.unwrap(), "started twice");
        assert_eq!(agents.counts(&a.id).await.unwrap(), (1, 2));
        assert_eq!(
            agents.queued(&a.id).await.unwrap().iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["run-1", "run-2"]
        );
        // The run's token authenticates it while it is live, and not after.
        assert_eq!(agents.run_by_token("tok-0").await.unwrap().unwrap().id, "run-0");
        let ended = Ended {
            status: RunStatus::Done,
            exit_code: Some(0),
            error: None,
            log_tail: Some("ok".into()),
            kept: vec!["kept".into()],
        };
        assert!(agents.end_run("run-0", &ended).await.unwrap());
        assert!(!agents.end_run("run-0", &Ended { status: RunStatus::Abandoned, ..ended.clone() }).await.unwrap());
        let r = agents.run("run-0").await.unwrap().unwrap();
        assert_eq!((r.status, r.exit_code, r.kept), (RunStatus::Done, Some(0), vec!["kept".to_string()]));
        assert!(agents.run_by_token("tok-0").await.unwrap().is_none());
        // Live runs of a host: what a restarted server looks at.
        let live = agents.live_on("h/").await.unwrap();
        assert_eq!(live.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["run-1", "run-2"]);
        assert!(agents.live_on("elsewhere/").await.unwrap().is_empty());
    });
}

fn member(id: &str) -> Member {
    Member { member: id.into(), kind: "agent".into(), name: id.into() }
}

fn sender(name: &str) -> Sender {
    Sender { kind: "agent".into(), name: name.into(), agent_id: None }
}

#[test]
fn messages_are_numbered_in_order_under_concurrent_senders() {
    on_each_backend(|_, store| async move {
        team(&store).await;
        let space = store.spaces().create("team", SpaceKind::Free, "room", &[member("a"), member("b")]).await.unwrap();
        // The same pair's DM is one space, whichever way round.
        let dm = store.spaces().dm("team", &member("a"), &member("b")).await.unwrap();
        assert_eq!(store.spaces().dm("team", &member("b"), &member("a")).await.unwrap().id, dm.id);
        let mut tasks = Vec::new();
        for t in 0..8 {
            let (store, id) = (store.clone(), space.id.clone());
            tasks.push(tokio::spawn(async move {
                for i in 0..25 {
                    store.spaces().post(&id, &sender(&format!("s{t}")), &format!("{t}:{i}"), None).await.unwrap();
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let mut all = Vec::new();
        let mut after = 0;
        loop {
            let page = store.spaces().messages(&space.id, after, 64).await.unwrap();
            if page.is_empty() {
                break;
            }
            after = page.last().unwrap().seq;
            all.extend(page);
        }
        assert_eq!(all.iter().map(|m| m.seq).collect::<Vec<_>>(), (1..=200).collect::<Vec<i64>>());
        // Each sender's messages keep their order.
        for t in 0..8 {
            let mine: Vec<&str> =
                all.iter().filter(|m| m.sender.name == format!("s{t}")).map(|m| m.text.as_str()).collect();
            assert_eq!(mine, (0..25).map(|i| format!("{t}:{i}")).collect::<Vec<_>>());
        }
        assert_eq!(
            store.spaces().latest(&space.id, 3).await.unwrap().iter().map(|m| m.seq).collect::<Vec<_>>(),
            [198, 199, 200]
        );
        // The first reply to a message is its answer.
        let q = &all[10];
        assert!(store.spaces().reply_to(&q.id).await.unwrap().is_none());
        let a1 = store.spaces().post(&space.id, &sender("b"), "first", Some(&q.id)).await.unwrap();
        store.spaces().post(&space.id, &sender("c"), "second", Some(&q.id)).await.unwrap();
        assert_eq!(store.spaces().reply_to(&q.id).await.unwrap().unwrap().id, a1.id);
        assert_eq!(store.spaces().get(&space.id).await.unwrap().unwrap().messages, 202);
    });
}

#[test]
fn notes_take_a_base_version_and_checklists_are_per_conversation() {
    on_each_backend(|_, store| async move {
        team(&store).await;
        let s = store.spaces().create("team", SpaceKind::Free, "room", &[member("a")]).await.unwrap();
        let n0 = store.spaces().notes(&s.id).await.unwrap().unwrap();
        let n1 = store.spaces().set_notes(&s.id, "v1", "a", Some(n0.version)).await.unwrap();
        assert_eq!(n1.version, n0.version + 1);
        let e = store.spaces().set_notes(&s.id, "lost", "b", Some(n0.version)).await.unwrap_err();
        assert!(e.to_string().contains(&n1.version.to_string()), "{e}");
        let n2 = store.spaces().set_notes(&s.id, "v2", "b", None).await.unwrap();
        assert_eq!((n2.text.as_str(), n2.version), ("v2", n1.version + 1));
        let todos = vec![
            Todo { id: None, content: "one".into(), status: TodoStatus::Completed },
            Todo { id: Some("2".into()), content: "two".into(), status: TodoStatus::Pending },
        ];
        store.spaces().set_todos("team", "alice", "key:c1", &todos).await.unwrap();
        assert_eq!(store.spaces().todos("team", "alice", "key:c1").await.unwrap(), todos);
        assert!(store.spaces().todos("team", "alice", "key:c2").await.unwrap().is_empty());
        assert!(store.spaces().todos("team", "bob", "key:c1").await.unwrap().is_empty());
        store.spaces().set_todos("team", "alice", "key:c1", &[]).await.unwrap();
        assert!(store.spaces().todos("team", "alice", "key:c1").await.unwrap().is_empty());
    });
}

/// Two replicas on one PostgreSQL database: an event published through one reaches the
/// other's subscribers (LISTEN/NOTIFY), which is how an answer sent through another
/// replica wakes an ask_agent waiting here.
#[test]
fn an_event_published_by_one_replica_reaches_the_other() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let t = test_store(Backend::Postgres).await;
        let other = Store::open(&t.url).await.unwrap();
        let (here, there) = (Bus::new(&t.store), Bus::new(&other));
        let mut rx = here.subscribe();
        assert!(here.ready(Duration::from_secs(10)).await, "the listener did not start");
        let e = Event::Message {
            workspace_id: "team".into(),
            space_id: "sp-1".into(),
            message_id: "msg-1".into(),
            seq: 1,
            reply_to: Some("msg-0".into()),
        };
        there.publish(&other, e.clone()).await;
        let got =
            tokio::time::timeout(Duration::from_secs(10), rx.recv()).await.expect("no event within 10 s").unwrap();
        assert_eq!(got, e);
    });
}
