//! The memory area, on SQLite and on PostgreSQL, through its tools: domains and who may
//! write to them, supersession chains and search leaving superseded entries out, hot memory
//! evicted by TTL and by count, consolidation's promotions with their sources, harmonization's
//! resolutions; and, with the real embedding model, the relevance set (hybrid at least as good
//! as keyword and as semantic) and the labelled conflict pairs (precision and recall).

use std::collections::BTreeSet;
use std::sync::Arc;

use cc_indexer::relevance::score;
use cc_indexer::DataDir;
use cc_server::app::App;
use cc_server::embedding::Embeddings;
use cc_server::mcp::dispatch::{CallOutcome, Caller, Conversation};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::principal::{AgentRef, Principal};
use cc_server::mcp::surface::Surface;
use cc_server::memory::conflict::{detect, features};
use cc_server::memory::{Memory, SearchQuery};
use cc_server::store::memory::NewEntry;
use cc_server::store::{EntryKind, Store};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::cli::model_dir;
use crate::common::{err, ok_value, on_each_backend};

fn app(store: &Store) -> (tempfile::TempDir, Arc<App>) {
    let tmp = tempfile::tempdir().unwrap();
    let data = DataDir::new(tmp.path().join("data"));
    std::fs::create_dir_all(&data.root).unwrap();
    (tmp, cc_server::serve::app_of(data, store.clone(), None, None, |_| Ok(())).unwrap())
}

/// An agent of workspace `default` calling in a conversation of its own.
fn agent(name: &str) -> Caller {
    let mut c = Caller::local(Mode::Chat);
    c.principal = Principal {
        name: Arc::from(format!("{name}@default")),
        workspaces: Some(Arc::from(vec!["default".to_string()])),
        operator: false,
        agent: Some(Arc::new(AgentRef {
            agent_id: format!("ag-{name}"),
            name: name.into(),
            workspace: "default".into(),
            run_id: None,
        })),
    };
    c
}

/// The same agent in another conversation (another session).
fn next_session(c: &Caller) -> Caller {
    Caller { conversation: Conversation::new(Mode::Chat), ..c.clone() }
}

async fn call(app: &Arc<App>, c: &Caller, name: &str, mut args: Value) -> CallOutcome {
    args["workspace_id"] = json!("default");
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

async fn fact(app: &Arc<App>, c: &Caller, domain: &str, text: &str) -> String {
    let v = ok_value(call(app, c, "propose_fact", json!({"domain": domain, "text": text})).await);
    v["fact"]["id"].as_str().unwrap().to_string()
}

fn ids(v: &Value) -> Vec<String> {
    v["results"].as_array().unwrap().iter().map(|h| h["entry"]["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn supersession_chains_are_kept_and_search_leaves_superseded_facts_out_unless_asked() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let alice = agent("alice");
        let v = ok_value(
            call(
                &app,
                &alice,
                "propose_fact",
                json!({"domain": "release", "text": "Deploys go out with the deploy tool v1.", "source": "T-4"}),
            )
            .await,
        );
        assert_eq!(v["domain_created"], true);
        assert_eq!((v["fact"]["author"].as_str(), v["fact"]["source"].as_str()), (Some("alice"), Some("T-4")));
        let a = v["fact"]["id"].as_str().unwrap().to_string();
        let b = fact(&app, &alice, "release", "Deploys go out with the deploy tool v2.").await;
        let c = fact(&app, &alice, "release", "Deploys go out with the deploy tool v3.").await;
        let v = ok_value(
            call(
                &app,
                &alice,
                "propose_fact",
                json!({"domain": "release", "text": "Rollbacks redeploy the previous tag."}),
            )
            .await,
        );
        assert_eq!(v["domain_created"], false);
        ok_value(call(&app, &alice, "supersede_fact", json!({"old_id": a, "new_id": b})).await);
        let v = ok_value(call(&app, &alice, "supersede_fact", json!({"old_id": b, "new_id": c})).await);
        let chain: Vec<&str> = v["chain"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
        assert_eq!(chain, [a.as_str(), b.as_str(), c.as_str()]);
        assert_eq!(v["superseded"]["superseded_by"], c.as_str());
        // Superseded once is superseded: the second time is a conflict naming what replaced it.
        let e = err(call(&app, &alice, "supersede_fact", json!({"old_id": a, "new_id": c})).await);
        assert_eq!(e.error, "conflict");
        assert!(e.message.contains(&format!("by {b}")), "{}", e.message);
        // A superseded fact cannot replace another.
        let e = err(call(&app, &alice, "supersede_fact", json!({"old_id": c, "new_id": a})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/new_id")));
        let v = ok_value(call(&app, &alice, "search_memory", json!({"query": "deploy tool", "mode": "keyword"})).await);
        assert_eq!(ids(&v), std::slice::from_ref(&c));
        assert_eq!(v["mode"], "keyword");
        assert_eq!(v["semantic"], "not used (mode keyword)");
        assert_eq!(v["results"][0]["bm25_rank"], 1);
        let v = ok_value(
            call(
                &app,
                &alice,
                "search_memory",
                json!({"query": "deploy tool", "mode": "keyword", "include_superseded": true}),
            )
            .await,
        );
        let got: BTreeSet<String> = ids(&v).into_iter().collect();
        assert_eq!(got, [a.clone(), b.clone(), c.clone()].into_iter().collect());
        let old = v["results"].as_array().unwrap().iter().find(|h| h["entry"]["id"] == a.as_str()).unwrap();
        assert_eq!(
            (old["entry"]["status"].as_str(), old["entry"]["superseded_by"].as_str()),
            (Some("superseded"), Some(b.as_str()))
        );
        // Another author may not supersede alice's fact without write access to the domain.
        let bob = agent("bob");
        let d = fact(&app, &bob, "release", "Deploys go out with the deploy tool v4.").await;
        let e = err(call(&app, &bob, "supersede_fact", json!({"old_id": c, "new_id": d})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/old_id")));
        assert!(e.message.contains("write access") && e.message.contains("agent:bob"), "{}", e.message);
        // Domains with their counts (active facts only) and writers.
        let v = ok_value(call(&app, &alice, "list_memory_domains", json!({})).await);
        assert_eq!(v["domains"][0]["name"], "release");
        assert_eq!((v["domains"][0]["facts"].as_i64(), v["domains"][0]["policies"].as_i64()), (Some(3), Some(0)));
        assert_eq!(v["domains"][0]["writers"], json!(["agent:alice"]));
        // Another replica's index (another Memory on the same store) catches up from the store.
        let other = Memory::new(Box::leak(Box::new(Embeddings::new(None))));
        let q = SearchQuery {
            text: "deploy tool".into(),
            mode: cc_indexer::Mode::Hybrid,
            domain_id: None,
            kinds: vec![],
            include_inactive: false,
            limit: 10,
        };
        let ans = other.search(&store, "default", &q).await.unwrap();
        assert!(ans.semantic.starts_with("unavailable: no embedding model"), "{}", ans.semantic);
        assert_eq!(ans.hits.len(), 2);
        let e = fact(&app, &alice, "release", "Deploys go out with the deploy tool v5.").await;
        let ans = other.search(&store, "default", &q).await.unwrap();
        assert!(ans.hits.iter().any(|h| h.entry.id == e), "a fact written after the index was built is found");
    });
}

#[test]
fn policies_need_write_access_to_their_domain_and_bad_input_names_its_pointer() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let (bob, carol) = (agent("bob"), agent("carol"));
        fact(&app, &bob, "backend", "Money amounts are integer cents.").await;
        let e = err(call(
            &app,
            &carol,
            "propose_policy",
            json!({"domain": "backend", "text": "Never use floats for money."}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/domain")));
        assert!(
            e.message.starts_with("refused: propose_policy needs write access to memory domain 'backend'"),
            "{}",
            e.message
        );
        assert!(e.message.contains("agent:bob") && e.message.contains("memory domains grant"), "{}", e.message);
        assert_eq!(e.data.as_ref().unwrap()["gate"], "domain_write");
        assert!(store.memory().grant("default", "backend", "agent:carol", "operator").await.unwrap());
        let p1 = ok_value(
            call(&app, &carol, "propose_policy", json!({"domain": "backend", "text": "Never use floats for money."}))
                .await,
        );
        let p1 = p1["policy"]["id"].as_str().unwrap().to_string();
        let p2 = ok_value(
            call(
                &app,
                &bob,
                "propose_policy",
                json!({"domain": "backend", "text": "Endpoints need an OpenAPI description."}),
            )
            .await,
        );
        let p2 = p2["policy"]["id"].as_str().unwrap().to_string();
        let v = ok_value(call(&app, &bob, "list_policies", json!({"domain": "backend"})).await);
        assert_eq!(v["policies"].as_array().unwrap().len(), 2);
        // Retiring: a writer may; someone else is refused; the retired policy stays readable.
        let dave = agent("dave");
        let e = err(call(&app, &dave, "supersede_policy", json!({"old_id": p1})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/old_id")));
        let v = ok_value(call(&app, &carol, "supersede_policy", json!({"old_id": p1})).await);
        assert_eq!(v["superseded"]["status"], "retired");
        let v = ok_value(call(&app, &bob, "list_policies", json!({})).await);
        assert_eq!(
            v["policies"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap()).collect::<Vec<_>>(),
            [p2.as_str()]
        );
        let v = ok_value(
            call(
                &app,
                &bob,
                "search_memory",
                json!({"query": "floats money", "kinds": ["policy"], "include_superseded": true}),
            )
            .await,
        );
        assert_eq!(ids(&v), std::slice::from_ref(&p1));
        let v =
            ok_value(call(&app, &bob, "search_memory", json!({"query": "floats money", "kinds": ["policy"]})).await);
        assert!(ids(&v).is_empty());
        // A fact is not a policy, and the other way round.
        let e = err(call(&app, &bob, "supersede_fact", json!({"old_id": p2, "new_id": p2})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/old_id")));
        // Bad input: the pointer of the argument at fault.
        for (tool, args, pointer, kind) in [
            ("propose_policy", json!({"domain": "nowhere", "text": "x"}), "/domain", "not_found"),
            ("propose_fact", json!({"domain": "Bad Name", "text": "x"}), "/domain", "invalid_input"),
            ("propose_fact", json!({"domain": "backend", "text": "   "}), "/text", "invalid_input"),
            ("propose_fact", json!({"domain": "backend"}), "/text", "invalid_input"),
            ("search_memory", json!({"query": "x", "mode": "dense"}), "/mode", "invalid_input"),
            ("search_memory", json!({"query": "x", "limit": 0}), "/limit", "invalid_input"),
            ("search_memory", json!({"query": "x", "domain": "nowhere"}), "/domain", "not_found"),
            ("supersede_fact", json!({"old_id": "mf-nope", "new_id": "mf-nope2"}), "/old_id", "not_found"),
            ("remember", json!({"text": "x", "ttl_secs": 0}), "/ttl_secs", "invalid_input"),
        ] {
            let e = err(call(&app, &bob, tool, args).await);
            assert_eq!((e.error.as_str(), e.pointer.as_deref()), (kind, Some(pointer)), "{tool}: {}", e.message);
        }
        // The operator (a local, unauthenticated server's principal) writes to every domain.
        let op = Caller::local(Mode::Chat);
        ok_value(
            call(&app, &op, "propose_policy", json!({"domain": "backend", "text": "Money is integer cents."})).await,
        );
    });
}

#[test]
fn hot_memory_is_bounded_by_count_and_ttl_and_says_what_it_evicted() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let alice = agent("alice");
        let mut first = String::new();
        for i in 0..32 {
            let v = ok_value(call(&app, &alice, "remember", json!({"text": format!("item {i}")})).await);
            assert_eq!(v["evicted"], json!([]), "{i}");
            assert_eq!(v["held"], i + 1);
            if i == 0 {
                first = v["item"]["id"].as_str().unwrap().to_string();
            }
        }
        let v = ok_value(call(&app, &alice, "remember", json!({"text": "item 32"})).await);
        assert_eq!(v["evicted"], json!([{"id": first, "text": "item 0", "reason": "count"}]));
        assert_eq!((v["held"].as_i64(), v["max_items"].as_i64()), (Some(32), Some(32)));
        // Another session's hot memory is its own.
        let other = next_session(&alice);
        let v = ok_value(call(&app, &other, "remember", json!({"text": "short-lived", "ttl_secs": 2})).await);
        let short = v["item"]["id"].as_str().unwrap().to_string();
        assert_eq!(v["held"], 1);
        let v = ok_value(call(&app, &other, "get_my_notes", json!({})).await);
        assert_eq!(v["hot"].as_array().unwrap().len(), 1);
        // Expiry is counted in whole seconds: 2 s from now is past in 3.
        tokio::time::sleep(std::time::Duration::from_millis(3100)).await;
        let v = ok_value(call(&app, &other, "get_my_notes", json!({})).await);
        assert_eq!(v["hot"], json!([]), "an expired item is out of hot memory");
        let v = ok_value(call(&app, &other, "remember", json!({"text": "next"})).await);
        assert_eq!(v["evicted"], json!([{"id": short, "text": "short-lived", "reason": "ttl"}]));
        // Notes and observations are the caller's own.
        ok_value(call(&app, &alice, "update_my_notes", json!({"content": "# plan\n- step 1"})).await);
        ok_value(call(&app, &alice, "record_observation", json!({"text": "CI took 14 minutes"})).await);
        let v = ok_value(call(&app, &other, "get_my_notes", json!({})).await);
        assert_eq!(v["notes"]["content"], "# plan\n- step 1");
        assert_eq!(v["observations"][0]["text"], "CI took 14 minutes");
        let v = ok_value(call(&app, &agent("bob"), "get_my_notes", json!({})).await);
        assert_eq!((v["notes"]["content"].as_str(), v["observations"].as_array().unwrap().len()), (Some(""), 0));
    });
}

#[test]
fn consolidation_promotes_durable_and_repeated_items_and_records_their_sources() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let s1 = agent("alice");
        let id = |v: Value| v["item"]["id"].as_str().unwrap().to_string();
        let durable = id(ok_value(
            call(&app, &s1, "remember", json!({"text": "The flaky test is checkout_spec line 40.", "durable": true}))
                .await,
        ));
        let seen1 = id(ok_value(call(&app, &s1, "remember", json!({"text": "Staging needs VPN access."})).await));
        ok_value(call(&app, &s1, "remember", json!({"text": "Lunch at noon."})).await);
        let expired =
            id(ok_value(call(&app, &s1, "remember", json!({"text": "Build 812 is running", "ttl_secs": 1})).await));
        let s2 = next_session(&s1);
        let seen2 = id(ok_value(call(&app, &s2, "remember", json!({"text": "staging needs VPN access"})).await));
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        let v = ok_value(call(&app, &s2, "consolidate_memory", json!({"domain": "working"})).await);
        assert_eq!(v["evicted"], json!([{"id": expired, "text": "Build 812 is running", "reason": "ttl"}]));
        let p = v["promotions"].as_array().unwrap();
        assert_eq!(p.len(), 2, "{v}");
        assert_eq!((p[0]["reason"].as_str(), p[0]["sources"].clone()), (Some("durable"), json!([durable])));
        assert_eq!(
            (p[1]["reason"].as_str(), p[1]["sources"].clone()),
            (Some("seen in 2 sessions"), json!([seen1, seen2]))
        );
        assert_eq!(p[1]["text"], "staging needs VPN access");
        let fact = store.memory().get(p[0]["fact_id"].as_str().unwrap()).await.unwrap().unwrap();
        assert_eq!((fact.kind, fact.author.as_str(), fact.domain.as_str()), (EntryKind::Fact, "alice", "working"));
        assert_eq!(fact.source, "consolidation of 1 hot items");
        // Promoted once: a second pass promotes nothing; the promotions are kept.
        let v = ok_value(call(&app, &s2, "consolidate_memory", json!({"domain": "working"})).await);
        assert_eq!((v["promotions"].clone(), v["evicted"].clone()), (json!([]), json!([])));
        assert_eq!(store.memory().promotions("default").await.unwrap().len(), 2);
        // Seen again later: linked to the fact already known, not repeated.
        let s3 = next_session(&s1);
        ok_value(
            call(&app, &s3, "remember", json!({"text": "The flaky test is checkout_spec line 40.", "durable": true}))
                .await,
        );
        let v = ok_value(call(&app, &s3, "consolidate_memory", json!({"domain": "working"})).await);
        assert_eq!(v["promotions"][0]["reason"], "durable, already known");
        assert_eq!(v["promotions"][0]["fact_id"], fact.id.as_str());
        let v = ok_value(call(&app, &s3, "list_memory_domains", json!({})).await);
        assert_eq!(v["domains"][0]["facts"], 2);
    });
}

#[test]
fn harmonize_resolves_by_policy_then_by_explicit_supersession_and_otherwise_leaves_it_open() {
    on_each_backend(|_, store| async move {
        let (_tmp, app) = app(&store);
        let (alice, bob, op) = (agent("alice"), agent("bob"), Caller::local(Mode::Chat));
        // Open: nothing decides it.
        let pg15 = fact(&app, &alice, "ops", "The staging database runs PostgreSQL 15.").await;
        let pg16 = fact(&app, &bob, "ops", "The staging database runs PostgreSQL 16.").await;
        // A policy agrees with alice: bob's fact is superseded by the policy.
        let fri = fact(&app, &alice, "ops", "Deploys to production are frozen on Friday.").await;
        let thu = fact(&app, &bob, "ops", "Deploys to production are frozen on Thursday.").await;
        let policy = ok_value(
            call(
                &app,
                &op,
                "propose_policy",
                json!({"domain": "ops", "text": "Deploys to production are frozen on Friday."}),
            )
            .await,
        );
        let policy = policy["policy"]["id"].as_str().unwrap().to_string();
        // Alice superseded 30 by 60; bob restates 30: the supersession wins.
        let t30 = fact(&app, &alice, "ops", "The gateway timeout is 30 seconds.").await;
        let t60 = fact(&app, &alice, "ops", "The gateway timeout is 60 seconds.").await;
        ok_value(call(&app, &alice, "supersede_fact", json!({"old_id": t30, "new_id": t60})).await);
        let b30 = fact(&app, &bob, "ops", "The gateway timeout is 30 seconds.").await;
        // One author contradicting themself is not a cross-agent conflict.
        fact(&app, &alice, "ops", "The cache TTL is 5 minutes.").await;
        fact(&app, &alice, "ops", "The cache TTL is 10 minutes.").await;
        // A paraphrase is no conflict.
        fact(&app, &bob, "ops", "Production deploys are frozen on Friday.").await;
        let v = ok_value(call(&app, &op, "harmonize_memory", json!({"domain": "ops"})).await);
        assert_eq!(v["similarity"], "words");
        let conflicts = v["conflicts"].as_array().unwrap();
        let find = |a: &str, b: &str| {
            conflicts
                .iter()
                .find(|c| {
                    let (x, y) = (c["fact_a"].as_str().unwrap(), c["fact_b"].as_str().unwrap());
                    (x == a && y == b) || (x == b && y == a)
                })
                .unwrap_or_else(|| panic!("no conflict of {a} and {b} in {v}"))
        };
        let c = find(&pg15, &pg16);
        assert_eq!((c["resolution"].as_str(), c["cues"].clone()), (Some("open"), json!(["number"])));
        let c = find(&fri, &thu);
        assert_eq!(
            (c["resolution"].as_str(), c["winner_id"].as_str(), c["policy_id"].as_str()),
            (Some("policy"), Some(fri.as_str()), Some(policy.as_str()))
        );
        let c = find(&t60, &b30);
        assert_eq!((c["resolution"].as_str(), c["winner_id"].as_str()), (Some("supersession"), Some(t60.as_str())));
        assert_eq!(conflicts.len(), 3, "{v}");
        let thu_now = store.memory().get(&thu).await.unwrap().unwrap();
        assert_eq!(thu_now.superseded_by.as_deref(), Some(policy.as_str()));
        assert_eq!(store.memory().get(&b30).await.unwrap().unwrap().superseded_by.as_deref(), Some(t60.as_str()));
        // Harmonizing again finds nothing new; the operator then supersedes one side of the
        // open conflict, and the next pass resolves it for the fact that stands.
        let v = ok_value(call(&app, &op, "harmonize_memory", json!({})).await);
        assert_eq!((v["conflicts"].clone(), v["resolved"].clone()), (json!([]), json!([])));
        ok_value(call(&app, &op, "supersede_fact", json!({"old_id": pg15, "new_id": pg16})).await);
        let v = ok_value(call(&app, &op, "harmonize_memory", json!({})).await);
        assert_eq!(v["resolved"][0]["resolution"], "supersession");
        assert_eq!(v["resolved"][0]["winner_id"], pg16.as_str());
        let v = ok_value(call(&app, &op, "list_memory_conflicts", json!({"resolution": "open"})).await);
        assert_eq!(v["conflicts"], json!([]));
        let v = ok_value(call(&app, &op, "list_memory_conflicts", json!({"domain": "ops"})).await);
        assert_eq!(v["conflicts"].as_array().unwrap().len(), 3);
        // Out of search now: what lost.
        let v = ok_value(
            call(&app, &op, "search_memory", json!({"query": "deploys frozen thursday", "kinds": ["fact"]})).await,
        );
        assert!(!ids(&v).contains(&thu), "{v}");
    });
}

// ---- measured with the real model

fn leaked_model() -> &'static Embeddings {
    let dir = model_dir();
    Box::leak(Box::new(Embeddings::new(Some(dir.display().to_string()))))
}

fn data(name: &str) -> Value {
    let p = cc_indexer::fixture::manifest_dir(env!("CARGO_MANIFEST_DIR")).join("../tests/data/memory").join(name);
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).unwrap()
}

#[test]
fn relevance_set_hybrid_is_at_least_as_good_as_keyword_and_as_semantic() {
    let set = data("relevance.json");
    let entries = set["entries"].as_array().unwrap();
    let queries = set["queries"].as_array().unwrap();
    assert!(entries.len() >= 60 && queries.len() >= 30);
    // The labels say which queries share a word with their answers; half do not.
    let mut lexical = 0;
    for q in queries {
        let terms: BTreeSet<String> =
            cc_server::rank::content_terms(q["query"].as_str().unwrap()).into_iter().collect();
        let shares = q["expect"].as_array().unwrap().iter().any(|id| {
            let e = entries.iter().find(|e| e["id"] == *id).unwrap();
            cc_server::rank::words(e["text"].as_str().unwrap()).iter().any(|w| terms.contains(w))
        });
        assert_eq!(shares, q["lexical"].as_bool().unwrap(), "{}", q["query"]);
        lexical += usize::from(shares);
    }
    assert!(queries.len() - lexical >= queries.len() / 2, "at least half share no word with their answer");
    let embeddings = leaked_model();
    on_each_backend(|backend, store| async move {
        let memory = Memory::new(embeddings);
        let mut by_label = std::collections::HashMap::new();
        for e in entries {
            let name = e["domain"].as_str().unwrap();
            let (d, _) = store.memory().ensure_domain("default", name, "principal:test", "test").await.unwrap();
            let kind = EntryKind::parse(e["kind"].as_str().unwrap()).unwrap();
            let ne = NewEntry {
                kind,
                text: e["text"].as_str().unwrap(),
                author: "test",
                author_key: "principal:test",
                source: "",
            };
            let saved = store.memory().propose("default", &d.id, ne).await.unwrap();
            by_label.insert(saved.id, e["id"].as_str().unwrap().to_string());
        }
        let mut report = Vec::new();
        for mode in [cc_indexer::Mode::Keyword, cc_indexer::Mode::Semantic, cc_indexer::Mode::Hybrid] {
            let (mut mrr, mut recall) = (0.0, 0.0);
            for q in queries {
                let sq = SearchQuery {
                    text: q["query"].as_str().unwrap().into(),
                    mode,
                    domain_id: None,
                    kinds: vec![],
                    include_inactive: false,
                    limit: 10,
                };
                let ans = memory.search(&store, "default", &sq).await.unwrap();
                assert_eq!(ans.mode, mode, "{}", ans.semantic);
                let ranked: Vec<String> = ans.hits.iter().map(|h| by_label[&h.entry.id].clone()).collect();
                let expect: Vec<String> =
                    q["expect"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().into()).collect();
                let (m, r) = score(&ranked, &expect);
                if m < 1.0 {
                    eprintln!(
                        "  {}: {} ranks its answer {:?} at {:?} ({:?})",
                        mode.as_str(),
                        q["query"],
                        expect,
                        ranked.iter().position(|x| expect.contains(x)).map(|p| p + 1),
                        &ranked[..ranked.len().min(3)]
                    );
                }
                mrr += m;
                recall += r;
            }
            let n = queries.len() as f64;
            report.push((mode, mrr / n, recall / n));
        }
        eprintln!(
            "memory relevance ({}, {} entries, {} queries, MRR@10 / recall@10):",
            backend_name(backend),
            entries.len(),
            queries.len()
        );
        for (m, mrr, r) in &report {
            eprintln!("  {:8} {mrr:.3} / {r:.3}", m.as_str());
        }
        let (k, s, h) = (report[0], report[1], report[2]);
        assert!(h.1 >= k.1 && h.1 >= s.1, "hybrid MRR {:.3} against keyword {:.3} and semantic {:.3}", h.1, k.1, s.1);
        assert!(
            h.2 >= k.2 && h.2 >= s.2,
            "hybrid recall {:.3} against keyword {:.3} and semantic {:.3}",
            h.2,
            k.2,
            s.2
        );
    });
}

fn backend_name(b: crate::common::Backend) -> &'static str {
    match b {
        crate::common::Backend::Sqlite => "sqlite",
        crate::common::Backend::Postgres => "postgres",
    }
}

/// Precision and recall of conflict detection over the labelled pairs, with cosine from the
/// model (`Some`) or by words (`None`).
fn conflict_scores(cosines: Option<&[f32]>) -> (f64, f64, usize) {
    let set = data("conflicts.json");
    let pairs = set["pairs"].as_array().unwrap();
    let (mut tp, mut fp, mut fneg) = (0, 0, 0);
    for (i, p) in pairs.iter().enumerate() {
        let (a, b) = (features(p["a"].as_str().unwrap()), features(p["b"].as_str().unwrap()));
        let cosine = cosines.map(|c| c[i]);
        let got = detect(&a, &b, cosine).is_some();
        let sim = cosine.unwrap_or_else(|| cc_server::memory::conflict::jaccard(&a.words, &b.words));
        match (got, p["conflict"].as_bool().unwrap()) {
            (true, true) => tp += 1,
            (true, false) => {
                fp += 1;
                eprintln!("  false positive ({sim:.2}): {} | {}", p["a"], p["b"]);
            }
            (false, true) => {
                fneg += 1;
                eprintln!("  missed ({sim:.2}): {} | {}", p["a"], p["b"]);
            }
            (false, false) => {}
        }
    }
    (f64::from(tp) / f64::from((tp + fp).max(1)), f64::from(tp) / f64::from((tp + fneg).max(1)), pairs.len())
}

#[test]
fn labelled_conflict_pairs_precision_and_recall_stay_above_their_floors() {
    let set = data("conflicts.json");
    let pairs = set["pairs"].as_array().unwrap();
    assert!(pairs.len() >= 40);
    let texts: Vec<String> = pairs
        .iter()
        .flat_map(|p| [p["a"].as_str().unwrap().to_string(), p["b"].as_str().unwrap().to_string()])
        .collect();
    let model = leaked_model().model().unwrap();
    let vecs = model.lock().unwrap().embed(&texts, &mut |_| {}).unwrap();
    let cosines: Vec<f32> = vecs.chunks(2).map(|v| cc_indexer::vectors::dot_f32(&v[0], &v[1])).collect();
    let (p_e, r_e, n) = conflict_scores(Some(&cosines));
    let (p_w, r_w, _) = conflict_scores(None);
    eprintln!("conflict detection on {n} labelled pairs: embedding precision {p_e:.3} recall {r_e:.3}; words precision {p_w:.3} recall {r_w:.3}");
    // Floors set from the measurement (embedding 1.000 / 1.000, words 1.000 / 0.958 on 48
    // pairs; docs/performance.md), a few pairs below it: the set was written with the rules
    // in view, so new pairs are expected to do worse, never this set.
    assert!(p_e >= 0.9 && r_e >= 0.9, "embedding: precision {p_e:.3}, recall {r_e:.3}");
    assert!(p_w >= 0.9 && r_w >= 0.9, "words: precision {p_w:.3}, recall {r_w:.3}");
}

#[test]
fn the_operator_adds_lists_and_grants_domains_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let cc = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_cc-server"))
            .args(args)
            .env("CC_DATA_DIR", &data)
            .output()
            .unwrap()
    };
    let text = |o: &std::process::Output| {
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    };
    let help = cc(&["memory", "domains", "--help"]);
    assert!(help.status.success() && text(&help).contains("policies"), "{}", text(&help));
    let help = cc(&["memory", "domains", "grant", "--help"]);
    assert!(text(&help).contains("--agent <NAME>") && text(&help).contains("--principal <NAME>"), "{}", text(&help));
    let add = cc(&["memory", "domains", "add", "backend", "--description", "services and APIs", "--agent", "alice"]);
    assert!(add.status.success(), "{}", text(&add));
    assert!(String::from_utf8_lossy(&add.stdout).starts_with("md-"), "{}", text(&add));
    let again = cc(&["memory", "domains", "add", "backend"]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("already"), "{}", text(&again));
    for bad in [
        &["memory", "domains", "add", "Bad Name"][..],
        &["memory", "domains", "add", "ops", "--workspace", "nowhere"],
        &["memory", "domains", "grant", "nowhere", "--agent", "bob"],
        &["memory", "domains", "grant", "backend"],
    ] {
        let o = cc(bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", text(&o));
    }
    let grant = cc(&["memory", "domains", "grant", "backend", "--agent", "bob", "--principal", "ci"]);
    assert!(grant.status.success(), "{}", text(&grant));
    assert_eq!(
        String::from_utf8_lossy(&grant.stdout),
        "agent:bob may now write to backend\nprincipal:ci may now write to backend\n"
    );
    let list = cc(&["memory", "domains", "list"]);
    assert!(
        String::from_utf8_lossy(&list.stdout)
            .contains("backend  0 facts, 0 policies  writers: agent:alice, agent:bob, principal:ci"),
        "{}",
        text(&list)
    );
    let list = cc(&["memory", "domains", "list", "--json"]);
    let v: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(v["domains"][0]["description"], "services and APIs");
    assert_eq!(v["domains"][0]["writers"], json!(["agent:alice", "agent:bob", "principal:ci"]));
}
