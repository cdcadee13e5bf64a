//! Several `cc-server serve` replicas on one PostgreSQL store and one data directory, as an
//! operator runs them behind a load balancer: real processes spoken to over MCP (POST /mcp).
//! What one replica writes, the other reads (workspaces, messages, tickets, memory); an
//! approval asked for through one is decided through the other; a rig made by one is listed
//! and closed through the other; one replica at a time indexes a repository (an advisory
//! lock) and both serve the index; a session lives in the replica that opened it. Plus the
//! records of a replica that stopped answering: listed as lost, then swept.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use cc_server::mcp::dispatch::Caller;
use cc_server::mcp::policy::Mode;
use cc_server::store::replicas::{ReplicaRow, RigRecord};
use serde_json::{json, Value};

use super::common::{call, err, ok, rig_fixture, test_store, Backend, Mcp};

const OPERATOR: &str = "replica-operator-secret";

/// One `cc-server serve` process; stopped (SIGTERM, then SIGKILL) when dropped.
struct Server {
    child: Child,
    err: PathBuf,
    out: PathBuf,
    base: Option<String>,
}

impl Server {
    /// Starts a replica on `store` and `data` (not waiting for it).
    fn start(dir: &Path, name: &str, data: &Path, store: &str, args: &[&str]) -> Server {
        let (err, out) = (dir.join(format!("{name}.stderr")), dir.join(format!("{name}.stdout")));
        let child = Command::new(env!("CARGO_BIN_EXE_cc-server"))
            .args(["serve", "--port", "0", "--operator-token", OPERATOR, "--feed-refresh-secs", "0"])
            .args(args)
            .env("CC_DATA_DIR", data)
            .env("CC_STORE_URL", store)
            .env("CC_LOG", "cc_server=info,cc_indexer=info")
            .env("CC_REPLICA_HEARTBEAT_SECS", "1")
            .env_remove("CC_EMBED_MODEL")
            .env_remove("CC_TOKEN")
            .env_remove("CC_OPERATOR_TOKEN")
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .unwrap();
        Server { child, err, out, base: None }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.err).unwrap_or_default()
    }

    fn stdout(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap_or_default()
    }

    fn pid(&self) -> i64 {
        i64::from(self.child.id())
    }

    /// Waits until it serves; its base URL.
    fn ready(&mut self, within: Duration) -> String {
        let until = Instant::now() + within;
        loop {
            let log = self.log();
            if let Some(line) = log.lines().find(|l| l.contains("serving MCP on http://")) {
                let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap();
                let base = url.trim_end_matches("/mcp").to_string();
                self.base = Some(base.clone());
                return base;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("the replica exited ({status}) before serving:\n{log}");
            }
            assert!(Instant::now() < until, "the replica did not serve within {within:?}:\n{log}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGTERM, then SIGKILL after 10 s; its exit status.
    fn terminate(&mut self) -> std::process::ExitStatus {
        if let Some(status) = self.child.try_wait().unwrap() {
            return status;
        }
        let _ = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status();
        for _ in 0..200 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        self.child.wait().unwrap()
    }

    /// Stops it; it must exit cleanly.
    fn stop(&mut self) {
        let status = self.terminate();
        assert!(status.success(), "the replica exited with {status}:\n{}", self.log());
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// Decides approval `id` through the replica at `base` (the operator's HTTP endpoint).
async fn approve_through(base: &str, id: &str) {
    let r = reqwest::Client::new()
        .post(format!("{base}/approvals/{id}/approve"))
        .bearer_auth(OPERATOR)
        .header("content-type", "application/json")
        .body(json!({"by": "operator (replicas test)"}).to_string())
        .send()
        .await
        .unwrap();
    let status = r.status();
    assert_eq!(status, 200, "{}", r.text().await.unwrap());
}

/// A call that needs an approval, through `caller`, decided through the replica at
/// `decider`: refused as pending, approved there, then run here once.
async fn approved(caller: &mut Mcp, decider: &str, tool: &str, args: Value) -> Value {
    let pending = caller.err(tool, args.clone()).await;
    assert_eq!(pending["error"], "approval_pending", "{pending}");
    let id = pending["data"]["approval_id"].as_str().unwrap().to_string();
    approve_through(decider, &id).await;
    caller.ok(tool, args).await
}

/// The number of files each index run parsed, from a replica's report ("this run: parsed N files").
fn parsed(stdout: &str) -> Vec<u64> {
    stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("this run: parsed "))
        .map(|r| r.split_whitespace().next().unwrap().parse().unwrap())
        .collect()
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (p, t) in files {
        std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
        std::fs::write(root.join(p), t).unwrap();
    }
}

const SHOP: &[(&str, &str)] = &[
    ("billing/invoice.py", "def compute_total(items):\n    return sum(items)\n"),
    (
        "billing/tax.py",
        "from billing.invoice import compute_total\n\ndef with_tax(items):\n    return compute_total(items) * 1.2\n",
    ),
    ("api/routes.py", "from billing.tax import with_tax\n\ndef checkout(cart):\n    return with_tax(cart)\n"),
];

fn wait_until(what: &str, within: Duration, mut f: impl FnMut() -> bool) {
    let until = Instant::now() + within;
    while !f() {
        assert!(Instant::now() < until, "{what}: not within {within:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

async fn wait_until_async<F: std::future::Future<Output = bool>>(
    what: &str,
    within: Duration,
    mut f: impl FnMut() -> F,
) {
    let until = Instant::now() + within;
    while !f().await {
        assert!(Instant::now() < until, "{what}: not within {within:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[test]
fn two_replicas_share_the_store_take_turns_indexing_and_keep_sessions_apart() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let pg = test_store(Backend::Postgres).await;
        let tmp = tempfile::tempdir().unwrap();
        let (repo, data) = (tmp.path().join("shop"), tmp.path().join("data"));
        write(&repo, SHOP);
        let repo_arg = repo.to_str().unwrap();

        // The test holds the repository's index turn, as a replica indexing it would: both
        // replicas started with --index wait for it, naming who holds it, and neither indexes.
        use sqlx::{ConnectOptions, Connection};
        let key = cc_server::replicas::index_lock_key("shop");
        let mut holder = pg
            .url
            .parse::<sqlx::postgres::PgConnectOptions>()
            .unwrap()
            .application_name("the replicas test")
            .connect()
            .await
            .unwrap();
        sqlx::query("SELECT pg_advisory_lock($1)").bind(key).execute(&mut holder).await.unwrap();
        let mut a = Server::start(tmp.path(), "a", &data, &pg.url, &["--index", repo_arg]);
        let mut b = Server::start(tmp.path(), "b", &data, &pg.url, &["--index", repo_arg]);
        for s in [&a, &b] {
            wait_until("a replica waiting for the index turn", Duration::from_secs(60), || {
                s.log().contains("waiting for the replicas test, which is indexing this repository")
            });
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(!data.join("repos/shop/meta.json").exists(), "indexed while another held the turn");
        for s in [&a, &b] {
            assert!(!s.log().contains("serving MCP"), "{}", s.log());
            assert_eq!(parsed(&s.stdout()), Vec::<u64>::new());
        }
        sqlx::query("SELECT pg_advisory_unlock($1)").bind(key).execute(&mut holder).await.unwrap();
        holder.close().await.unwrap();

        // Then one indexes it and the other finds it current: the files are parsed once.
        let (base_a, base_b) = (a.ready(Duration::from_secs(120)), b.ready(Duration::from_secs(120)));
        let mut runs = [parsed(&a.stdout()), parsed(&b.stdout())].concat();
        runs.sort();
        assert_eq!(runs, vec![0, 3], "A:\n{}\nB:\n{}", a.stdout(), b.stdout());
        for s in [&a, &b] {
            assert!(s.log().contains("took the index turn after waiting"), "{}", s.log());
        }

        // Both replicas are in the store, with heartbeats.
        let replicas = pg.store.replicas().list().await.unwrap();
        let mut pids: Vec<i64> = replicas.iter().map(|r| r.pid).collect();
        pids.sort();
        let mut want = vec![a.pid(), b.pid()];
        want.sort();
        assert_eq!(pids, want, "{replicas:?}");

        let (mut ma, mut mb) =
            (Mcp::connect(&base_a, "replicas-test").await, Mcp::connect(&base_b, "replicas-test").await);
        // Both serve the same index.
        let q = json!({"workspace_id": "default", "query": "compute total"});
        let (ra, rb) = (ma.ok("search_code", q.clone()).await, mb.ok("search_code", q).await);
        assert_eq!(ra["results"][0]["symbol"]["qualified_name"], "billing.invoice.compute_total", "{ra}");
        assert_eq!(ra["results"][0]["symbol"]["id"], rb["results"][0]["symbol"]["id"]);

        // A workspace the operator makes (another process on the store) is on both.
        let other = tmp.path().join("ledger");
        write(&other, &[("ledger.py", "def post_entry(amount):\n    return amount\n")]);
        let made = Command::new(env!("CARGO_BIN_EXE_cc-server"))
            .args(["index", other.to_str().unwrap(), "--workspace", "team", "--quiet"])
            .env("CC_DATA_DIR", &data)
            .env("CC_STORE_URL", &pg.url)
            .env_remove("CC_EMBED_MODEL")
            .output()
            .unwrap();
        assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
        for m in [&mut ma, &mut mb] {
            let ws = m.ok("list_workspaces", json!({})).await;
            assert!(ws["workspaces"].as_array().unwrap().iter().any(|w| w["id"] == "team"), "{ws}");
            let found = m.ok("search_code", json!({"workspace_id": "team", "query": "post entry"})).await;
            assert_eq!(found["results"][0]["symbol"]["name"], "post_entry", "{found}");
        }

        // A ticket created through A, its approval decided through B; A's call then runs.
        let ticket = approved(
            &mut ma,
            &base_b,
            "create_ticket",
            json!({"workspace_id": "default", "title": "Ship the importer"}),
        )
        .await;
        let (ticket_id, space) = (ticket["id"].as_str().unwrap().to_string(), ticket["space_id"].as_str().unwrap());
        // Updated through B (approved through A), read through A.
        let args = json!({"workspace_id": "default", "ticket_id": ticket_id, "status": "in_progress"});
        let updated = approved(&mut mb, &base_a, "update_ticket", args).await;
        assert_eq!(updated["status"], "in_progress", "{updated}");
        let seen = ma.ok("get_ticket", json!({"workspace_id": "default", "ticket_id": ticket_id})).await;
        assert_eq!(seen["ticket"]["status"], "in_progress", "{seen}");

        // A message posted through A is read through B.
        let args = json!({"workspace_id": "default", "space_id": space, "text": "the importer is half done"});
        let sent = ma.ok("send_message", args).await;
        let got = mb.ok("get_messages", json!({"workspace_id": "default", "space_id": space})).await;
        let texts: Vec<&str> =
            got["messages"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
        assert!(texts.contains(&"the importer is half done"), "{got}");
        assert!(got["messages"].as_array().unwrap().iter().any(|m| m["id"] == sent["id"]));

        // A fact written through A is recalled through B.
        let text = "The staging database listens on port 6543";
        ma.ok("propose_fact", json!({"workspace_id": "default", "domain": "ops", "text": text})).await;
        let recalled =
            mb.ok("search_memory", json!({"workspace_id": "default", "query": "staging database port"})).await;
        assert_eq!(recalled["results"][0]["entry"]["text"], text, "{recalled}");

        // A session lives in the replica that opened it: B answers A's session id with 404
        // and says why; A still serves it.
        let body = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/list"});
        let r = ma.post_to(&base_b, &body).await;
        assert_eq!(r.status(), 404);
        let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
        let message = v["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("Session not found")
                && message.contains("another replica")
                && message.contains("Mcp-Session-Id"),
            "{v}"
        );
        let r = ma.post_to(&base_a, &body).await;
        assert_eq!(r.status(), 200);

        // A re-index by another process (in its turn): both replicas serve the new index.
        write(&repo, &[("billing/refund.py", "def refund_order(order):\n    return order\n")]);
        let reindexed = Command::new(env!("CARGO_BIN_EXE_cc-server"))
            .args(["index", repo_arg, "--quiet"])
            .env("CC_DATA_DIR", &data)
            .env("CC_STORE_URL", &pg.url)
            .env_remove("CC_EMBED_MODEL")
            .output()
            .unwrap();
        assert!(reindexed.status.success(), "{}", String::from_utf8_lossy(&reindexed.stderr));
        for m in [&mut ma, &mut mb] {
            let found = m.ok("search_code", json!({"workspace_id": "default", "query": "refund order"})).await;
            assert_eq!(found["results"][0]["symbol"]["name"], "refund_order", "{found}");
        }

        // A replica that stops leaves the store; the other stays.
        a.stop();
        let left = pg.store.replicas().list().await.unwrap();
        assert_eq!(left.iter().map(|r| r.pid).collect::<Vec<_>>(), vec![b.pid()], "{left:?}");
        b.stop();
        assert!(pg.store.replicas().list().await.unwrap().is_empty());
    });
}

/// The process groups of `pid`'s descendants other than its own group (a rig's processes).
fn descendant_groups(pid: i64) -> Vec<i32> {
    let stat = |p: i64| -> Option<(i64, i32)> {
        let s = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        let rest = &s[s.rfind(')')? + 2..];
        let f: Vec<&str> = rest.split_whitespace().collect();
        Some((f.get(1)?.parse().ok()?, f.get(2)?.parse().ok()?))
    };
    let all: Vec<(i64, i64, i32)> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i64>().ok())
        .filter_map(|p| stat(p).map(|(ppid, pgrp)| (p, ppid, pgrp)))
        .collect();
    let own = stat(pid).map(|s| s.1);
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(all.iter().filter(|(_, pp, _)| *pp == parent).map(|(p, _, _)| *p));
        i += 1;
    }
    let mut groups: Vec<i32> =
        all.iter().filter(|(p, _, g)| tree.contains(p) && Some(*g) != own).map(|(_, _, g)| *g).collect();
    groups.sort();
    groups.dedup();
    groups
}

#[test]
fn a_rig_made_through_one_replica_is_listed_and_closed_through_the_other() {
    let port = cc_rigs::testing::serve_page("<!doctype html><title>Replica page</title><h1>Replica page</h1>");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let pg = test_store(Backend::Postgres).await;
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let mut a = Server::start(tmp.path(), "a", &data, &pg.url, &[]);
        let mut b = Server::start(tmp.path(), "b", &data, &pg.url, &[]);
        let (base_a, base_b) = (a.ready(Duration::from_secs(60)), b.ready(Duration::from_secs(60)));
        let (mut ma, mut mb) = (Mcp::connect(&base_a, "replicas-test").await, Mcp::connect(&base_b, "replicas-test").await);
        let replicas = pg.store.replicas().list().await.unwrap();
        let a_id = replicas.iter().find(|r| r.pid == a.pid()).expect("A is in the store").id.clone();

        let nav = ma
            .ok("browser_use", json!({"workspace_id": "default", "action": "navigate", "url": format!("http://127.0.0.1:{port}/")}))
            .await;
        assert_eq!(nav["title"], "Replica page", "{nav}");
        let rig = nav["rig_id"].as_str().unwrap().to_string();

        // B lists it as A's; A as its own.
        let listed = |v: &Value| v["rigs"].as_array().unwrap().iter().find(|r| r["id"] == rig.as_str()).cloned();
        let mut on_b = None;
        // The record may first say busy (written while the call that made it ran) until
        // A's next heartbeat writes its pool as it is.
        for _ in 0..300 {
            on_b = listed(&mb.ok("rig_list", json!({"workspace_id": "default"})).await);
            if on_b.as_ref().is_some_and(|r| r["status"] == "ready") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let on_b = on_b.expect("B lists A's rig");
        assert_eq!((on_b["replica_id"].as_str(), on_b["this_replica"].as_bool()), (Some(a_id.as_str()), Some(false)));
        assert_eq!((on_b["surface"].as_str(), on_b["engine"].as_str()), (Some("browser"), Some("chromium")));
        assert_eq!(on_b["status"], "ready", "{on_b}");
        assert!(on_b["replica"].as_str().unwrap().contains(&format!("pid {}", a.pid())), "{on_b}");
        let on_a = listed(&ma.ok("rig_list", json!({"workspace_id": "default"})).await).expect("A lists its rig");
        assert_eq!((on_a["replica_id"].as_str(), on_a["this_replica"].as_bool()), (Some(a_id.as_str()), Some(true)));
        // The same conversation controls it, whichever replica answers.
        assert_eq!(on_a["controller"], on_b["controller"]);
        assert!(!on_a["controller"].as_str().unwrap().is_empty());

        // Its machine: processes under A, in groups of their own.
        let groups = descendant_groups(a.pid());
        assert!(!groups.is_empty() && !cc_rigs::procs::groups_alive(&groups).is_empty(), "no rig process under A");

        // Closed through B: A closes it, its record goes, B answers with what it was.
        let closed = mb.ok("rig_close", json!({"workspace_id": "default", "rig_id": rig})).await;
        assert_eq!((closed["closed"]["id"].as_str(), closed["closed"]["this_replica"].as_bool()), (Some(rig.as_str()), Some(false)));
        wait_until("the rig's processes gone", Duration::from_secs(15), || cc_rigs::procs::groups_alive(&groups).is_empty());
        assert!(pg.store.replicas().rig("default", &rig).await.unwrap().is_none());
        for m in [&mut ma, &mut mb] {
            assert!(listed(&m.ok("rig_list", json!({"workspace_id": "default"})).await).is_none());
        }
        let gone = mb.err("rig_close", json!({"workspace_id": "default", "rig_id": rig})).await;
        assert_eq!((gone["error"].as_str(), gone["pointer"].as_str()), (Some("no_rig"), Some("/rig_id")), "{gone}");
        assert!(a.log().contains("rig_close through replica"), "{}", a.log());

        // A rig kept past its session lives until rig_close; A's stop closes it and its record.
        let again = ma
            .ok("browser_use", json!({"workspace_id": "default", "action": "navigate", "url": format!("http://127.0.0.1:{port}/"), "keep": true}))
            .await;
        let kept = again["rig_id"].as_str().unwrap().to_string();
        wait_until_async("the kept rig's record", Duration::from_secs(10), || {
            let store = pg.store.clone();
            let kept = kept.clone();
            async move { store.replicas().rig("default", &kept).await.unwrap().is_some() }
        })
        .await;
        let groups = descendant_groups(a.pid());
        a.stop();
        assert!(cc_rigs::procs::groups_alive(&groups).is_empty(), "a stopped replica leaves no rig process");
        assert!(pg.store.replicas().rig("default", &kept).await.unwrap().is_none());
        let listed_b = mb.ok("rig_list", json!({"workspace_id": "default"})).await;
        assert!(listed(&listed_b).is_none() && !listed_b["rigs"].as_array().unwrap().iter().any(|r| r["id"] == kept.as_str()));
        b.stop();
    });
}

/// A replica that stopped answering (killed, its host gone): its rigs are listed as lost,
/// rig_close says whose they were and does not wait, and the sweep removes them.
#[test]
fn the_rigs_of_a_replica_not_heard_from_are_lost_then_swept() {
    let f = rig_fixture(false);
    let app = &f.app;
    let store = &app.services.store;
    let old = cc_server::store::now() - 3600;
    let gone = ReplicaRow {
        id: "replica-gone".into(),
        host: "elsewhere/boot".into(),
        pid: 4242,
        started_at: old,
        heartbeat_at: old,
    };
    let record = RigRecord {
        id: "rig-elsewhere".into(),
        workspace_id: "default".into(),
        conversation: "conv-1".into(),
        surface: "browser".into(),
        engine: "firefox".into(),
        replica_id: gone.id.clone(),
        status: "ready".into(),
        failure: None,
        kept: true,
        display_width: 1280,
        display_height: 800,
        created_at: old,
        last_used_at: old,
        idle_expires_at: old + 900,
    };
    cc_server::serve::block_on(async {
        store.replicas().heartbeat(&gone).await.unwrap();
        store.replicas().put_rig(&record).await.unwrap();
    });
    let caller = Caller::local(Mode::Chat);
    let list = ok(call(app, &caller, "rig_list", json!({"workspace_id": "default"}))).value;
    let rigs = list["rigs"].as_array().unwrap();
    assert_eq!(rigs.len(), 1, "{list}");
    assert_eq!(rigs[0]["id"], "rig-elsewhere");
    assert_eq!(rigs[0]["status"], "lost");
    assert_eq!(
        (rigs[0]["this_replica"].as_bool(), rigs[0]["replica_id"].as_str()),
        (Some(false), Some("replica-gone"))
    );
    assert_eq!(rigs[0]["replica"], "elsewhere, pid 4242");
    assert_eq!(rigs[0]["idle_expires_in"], 0);
    // Not in another workspace.
    let team = ok(call(app, &caller, "rig_list", json!({"workspace_id": "team"}))).value;
    assert_eq!(team["rigs"], json!([]));

    let started = Instant::now();
    let e = err(call(app, &caller, "rig_close", json!({"workspace_id": "default", "rig_id": "rig-elsewhere"})));
    assert!(started.elapsed() < Duration::from_secs(5), "no waiting for a lost replica");
    assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("unavailable", Some("/rig_id")), "{e:?}");
    assert!(e.message.contains("replica-gone (elsewhere, pid 4242)") && e.message.contains("lost"), "{}", e.message);
    assert_eq!(e.data.as_ref().unwrap()["replica_id"], "replica-gone");
    // Another workspace cannot name it.
    let e = err(call(app, &caller, "rig_close", json!({"workspace_id": "team", "rig_id": "rig-elsewhere"})));
    assert_eq!(e.error, "no_rig", "{e:?}");

    // A live replica's rig on SQLite: rig_close says it cannot reach it, naming it.
    let live = ReplicaRow { id: "replica-live".into(), heartbeat_at: cc_server::store::now(), ..gone.clone() };
    let mut theirs = RigRecord { id: "rig-live".into(), replica_id: live.id.clone(), ..record.clone() };
    theirs.created_at = cc_server::store::now();
    cc_server::serve::block_on(async {
        store.replicas().heartbeat(&live).await.unwrap();
        store.replicas().put_rig(&theirs).await.unwrap();
    });
    let list = ok(call(app, &caller, "rig_list", json!({"workspace_id": "default"}))).value;
    let statuses: Vec<(&str, &str)> = list["rigs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(statuses, vec![("rig-elsewhere", "lost"), ("rig-live", "ready")]);
    let e = err(call(app, &caller, "rig_close", json!({"workspace_id": "default", "rig_id": "rig-live"})));
    assert_eq!(e.error, "unavailable", "{e:?}");
    assert!(e.message.contains("SQLite") && e.message.contains("replica-live"), "{}", e.message);

    // The sweep takes the replicas not heard from, with their records; the live one stays.
    let swept = cc_server::serve::block_on(store.replicas().sweep(cc_server::store::now() - 600)).unwrap();
    assert_eq!(swept, 1);
    let list = ok(call(app, &caller, "rig_list", json!({"workspace_id": "default"}))).value;
    let ids: Vec<&str> = list["rigs"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec!["rig-live"]);
    app.services.rigs.shutdown();
}

/// The store's replica records on both backends: a heartbeat moves, a sync makes a replica's
/// records exactly its pool, leaving removes them.
#[test]
fn replica_records_on_each_backend() {
    super::common::on_each_backend(|_, store| async move {
        let r = store.replicas();
        let me = ReplicaRow { id: "r1".into(), host: "h/b".into(), pid: 1, started_at: 10, heartbeat_at: 10 };
        r.heartbeat(&me).await.unwrap();
        r.heartbeat(&ReplicaRow { heartbeat_at: 20, ..me.clone() }).await.unwrap();
        assert_eq!(r.get("r1").await.unwrap().unwrap().heartbeat_at, 20);
        let rig = |id: &str| RigRecord {
            id: id.into(),
            workspace_id: "default".into(),
            conversation: "c".into(),
            surface: "browser".into(),
            engine: "chromium".into(),
            replica_id: "r1".into(),
            status: "ready".into(),
            failure: None,
            kept: false,
            display_width: 1,
            display_height: 1,
            created_at: 1,
            last_used_at: 1,
            idle_expires_at: 2,
        };
        r.put_rig(&rig("g1")).await.unwrap();
        r.put_rig(&rig("g2")).await.unwrap();
        r.put_rig(&RigRecord { status: "busy".into(), conversation: "c2".into(), ..rig("g1") }).await.unwrap();
        let got = r.rig("default", "g1").await.unwrap().unwrap();
        assert_eq!((got.rig.status.as_str(), got.rig.conversation.as_str(), got.replica.pid), ("busy", "c2", 1));
        r.sync_rigs("r1", &[rig("g2"), rig("g3")]).await.unwrap();
        let ids: Vec<String> = r.rigs("default").await.unwrap().into_iter().map(|l| l.rig.id).collect();
        assert_eq!(ids, vec!["g2", "g3"]);
        assert!(r.remove_rig("g2").await.unwrap());
        assert!(!r.remove_rig("g2").await.unwrap());
        // A record of a replica the store does not know is refused.
        assert!(r.put_rig(&RigRecord { replica_id: "nobody".into(), ..rig("g9") }).await.is_err());
        r.leave("r1").await.unwrap();
        assert!(r.rigs("default").await.unwrap().is_empty() && r.list().await.unwrap().is_empty());
    });
}
