//! The tickets area, on SQLite and on PostgreSQL: keys per workspace under concurrent
//! creators, a space per ticket, statuses and their aliases, final statuses, filters and
//! cursors, relations kept in inverse pairs without cycles (and a property test of random
//! add/remove sequences against a model), pull request links.

use std::collections::{BTreeSet, HashMap};

use cc_server::agents::admin::{self, AgentSpec};
use cc_server::config::Config;
use cc_server::store::tickets::{parse_key, Relation};
use cc_server::store::{
    Delegation, Family, Member, NewTicket, Priority, RelationKind, RuntimeProfile, SpaceKind, Store, StoreError,
    Ticket, TicketFilter, TicketPatch, TicketStatus,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;

use crate::common::on_each_backend;

fn new(title: &str) -> NewTicket {
    NewTicket { title: title.into(), description: "d".into(), creator: "local".into(), ..NewTicket::default() }
}

async fn ticket(store: &Store, ws: &str, title: &str) -> Ticket {
    store.tickets().create(ws, new(title)).await.unwrap()
}

async fn agent(store: &Store, ws: &str, name: &str) -> String {
    let mut c = Config::default();
    c.runtimes.allow = vec!["python3".into()];
    if store.agents().profile(ws, "py").await.unwrap().is_none() {
        let p = RuntimeProfile {
            id: RuntimeProfile::new_id(),
            workspace_id: ws.into(),
            name: "py".into(),
            family: Family::McpCli,
            command: String::new(),
            args: Vec::new(),
            wake_on_message: false,
            timeout_secs: 60,
            created_by: "operator".into(),
            created_at: 0,
        };
        admin::add_profile(store, &c, p, &["python3".to_string(), "a.py".to_string()]).await.unwrap();
    }
    let spec = AgentSpec { runtime: Some("py".into()), ..AgentSpec::default() };
    admin::add(store, &c, ws, name, spec).await.unwrap().0.id
}

#[test]
fn keys_are_per_workspace_and_never_shared_by_concurrent_creators() {
    on_each_backend(|_, store| async move {
        store.workspaces().ensure("other", "Other").await.unwrap();
        let mut tasks = Vec::new();
        for i in 0..24 {
            let store = store.clone();
            tasks.push(tokio::spawn(async move { store.tickets().create("default", new(&format!("t{i}"))).await }));
        }
        let mut keys = BTreeSet::new();
        for t in tasks {
            keys.insert(parse_key(&t.await.unwrap().unwrap().key).unwrap());
        }
        assert_eq!(keys, (1..=24).collect::<BTreeSet<i64>>());
        let o = ticket(&store, "other", "first of other").await;
        assert_eq!(o.key, "T-1");
        // A space of kind ticket, made with it, holding its first members.
        let mut n = new("with members");
        n.members = vec![Member { member: "principal:local".into(), kind: "principal".into(), name: "local".into() }];
        let t = store.tickets().create("default", n).await.unwrap();
        let space = store.spaces().get(&t.space_id).await.unwrap().unwrap();
        assert_eq!((space.kind, space.workspace_id.as_str()), (SpaceKind::Ticket, "default"));
        assert_eq!(space.name, "T-25: with members");
        assert_eq!(space.members.len(), 1);
        // By id or key, only in its own workspace.
        assert_eq!(store.tickets().find("default", "T-25").await.unwrap().unwrap().id, t.id);
        assert_eq!(store.tickets().find("default", "t-25").await.unwrap().unwrap().id, t.id);
        assert_eq!(store.tickets().find("default", &t.id).await.unwrap().unwrap().key, "T-25");
        assert!(store.tickets().find("other", &t.id).await.unwrap().is_none());
        assert_eq!(store.tickets().find("other", "T-1").await.unwrap().unwrap().id, o.id);
        assert!(store.tickets().find("other", "T-2").await.unwrap().is_none());
    });
}

#[test]
fn statuses_take_the_usual_aliases_and_refuse_others_listing_what_is_accepted() {
    for (input, want) in [
        ("open", TicketStatus::Open),
        ("todo", TicketStatus::Open),
        ("Backlog", TicketStatus::Open),
        ("in-progress", TicketStatus::InProgress),
        ("In Progress", TicketStatus::InProgress),
        ("doing", TicketStatus::InProgress),
        ("started", TicketStatus::InProgress),
        ("completed", TicketStatus::Done),
        ("closed", TicketStatus::Done),
        ("in_review", TicketStatus::InReview),
        ("canceled", TicketStatus::Cancelled),
        ("blocked", TicketStatus::Blocked),
        ("failed", TicketStatus::Failed),
    ] {
        assert_eq!(TicketStatus::parse_input(input), Ok(want), "{input}");
    }
    let e = TicketStatus::parse_input("shipped").unwrap_err();
    for s in ["open", "in_progress", "blocked", "in_review", "done", "failed", "cancelled", "doing", "todo"] {
        assert!(e.contains(s), "{e}");
    }
}

#[test]
fn final_statuses_hold_until_update_reopens() {
    on_each_backend(|_, store| async move {
        let t = ticket(&store, "default", "ship it").await;
        let tk = store.tickets();
        let done = tk.finish(&t.id, TicketStatus::Done, Some("shipped"), None).await.unwrap();
        assert_eq!((done.status, done.output.as_deref()), (TicketStatus::Done, Some("shipped")));
        assert!(done.closed_at.is_some() && done.version > t.version);
        match tk.finish(&t.id, TicketStatus::Failed, None, Some("boom")).await {
            Err(StoreError::Conflict(m)) => {
                assert!(m.contains("T-1 is done already") && m.contains("update_ticket"), "{m}")
            }
            other => panic!("{other:?}"),
        }
        let p = TicketPatch { status: Some(TicketStatus::InProgress), ..TicketPatch::default() };
        let re = tk.update(&t.id, &p).await.unwrap();
        assert_eq!((re.status, re.closed_at), (TicketStatus::InProgress, None));
        let failed = tk.finish(&t.id, TicketStatus::Failed, None, Some("boom")).await.unwrap();
        assert_eq!((failed.status, failed.error.as_deref(), failed.output), (TicketStatus::Failed, Some("boom"), None));
        assert!(matches!(tk.update("tk-none", &p).await, Err(StoreError::NotFound { .. })));
    });
}

#[test]
fn list_filters_by_status_assignee_label_and_parent_with_a_cursor() {
    on_each_backend(|_, store| async move {
        let dev = agent(&store, "default", "dev").await;
        let tk = store.tickets();
        let parent = ticket(&store, "default", "epic").await;
        for i in 0..10 {
            let mut n = new(&format!("task {i}"));
            n.labels = if i % 2 == 0 { vec!["bug".into(), "ui".into()] } else { vec!["feature".into()] };
            n.assignee_id = (i % 3 == 0).then(|| dev.clone());
            n.parent_id = (i < 4).then(|| parent.id.clone());
            n.priority = Priority::High;
            tk.create("default", n).await.unwrap();
        }
        let all = |f: TicketFilter| {
            let tk = store.tickets();
            async move { tk.list("default", &TicketFilter { limit: 100, ..f }).await.unwrap() }
        };
        let keys = |v: Vec<Ticket>| v.into_iter().map(|t| t.key).collect::<Vec<_>>();
        assert_eq!(all(TicketFilter::default()).await.len(), 11);
        assert_eq!(
            keys(all(TicketFilter { label: Some("bug".into()), ..TicketFilter::default() }).await),
            ["T-10", "T-8", "T-6", "T-4", "T-2"]
        );
        assert_eq!(
            keys(all(TicketFilter { assignee_id: Some(dev.clone()), ..TicketFilter::default() }).await),
            ["T-11", "T-8", "T-5", "T-2"]
        );
        assert_eq!(
            keys(all(TicketFilter { parent_id: Some(parent.id.clone()), ..TicketFilter::default() }).await),
            ["T-5", "T-4", "T-3", "T-2"]
        );
        let t2 = tk.find("default", "T-2").await.unwrap().unwrap();
        assert_eq!(t2.labels, ["bug", "ui"]);
        tk.finish(&t2.id, TicketStatus::Done, None, None).await.unwrap();
        assert_eq!(
            keys(all(TicketFilter { status: Some(TicketStatus::Done), ..TicketFilter::default() }).await),
            ["T-2"]
        );
        // Pages of 4, newest first, each after the last one's number.
        let mut seen = Vec::new();
        let mut before = None;
        loop {
            let page = tk
                .list("default", &TicketFilter { before_number: before, limit: 4, ..TicketFilter::default() })
                .await
                .unwrap();
            if page.is_empty() {
                break;
            }
            before = Some(parse_key(&page.last().unwrap().key).unwrap());
            seen.extend(keys(page));
        }
        assert_eq!(seen, (1..=11).rev().map(|n| format!("T-{n}")).collect::<Vec<_>>());
        // Labels are replaced by an update, in its transaction.
        let p =
            TicketPatch { labels: Some(vec!["docs".into()]), title: Some("renamed".into()), ..TicketPatch::default() };
        let u = tk.update(&t2.id, &p).await.unwrap();
        assert_eq!((u.labels, u.title.as_str()), (vec!["docs".to_string()], "renamed"));
    });
}

fn pairs_hold(rows: &[Relation]) -> Result<(), String> {
    let set: BTreeSet<(String, RelationKind, String)> =
        rows.iter().map(|r| (r.ticket_id.clone(), r.kind, r.other_id.clone())).collect();
    for (a, k, b) in &set {
        if !set.contains(&(b.clone(), k.inverse(), a.clone())) {
            return Err(format!("{a} {} {b} has no inverse", k.as_str()));
        }
    }
    Ok(())
}

fn acyclic(rows: &[Relation], kind: RelationKind) -> bool {
    let mut edges: HashMap<&str, Vec<&str>> = HashMap::new();
    for r in rows.iter().filter(|r| r.kind == kind) {
        edges.entry(&r.ticket_id).or_default().push(&r.other_id);
    }
    fn visit<'a>(n: &'a str, e: &HashMap<&'a str, Vec<&'a str>>, state: &mut HashMap<&'a str, u8>) -> bool {
        match state.get(n) {
            Some(1) => return false,
            Some(2) => return true,
            _ => {}
        }
        state.insert(n, 1);
        for m in e.get(n).into_iter().flatten() {
            if !visit(m, e, state) {
                return false;
            }
        }
        state.insert(n, 2);
        true
    }
    let mut state = HashMap::new();
    edges.keys().copied().collect::<Vec<_>>().into_iter().all(|n| visit(n, &edges, &mut state))
}

#[test]
fn relations_are_kept_in_inverse_pairs_and_refuse_cycles() {
    on_each_backend(|_, store| async move {
        store.workspaces().ensure("other", "Other").await.unwrap();
        let tk = store.tickets();
        let [a, b, c] = [
            ticket(&store, "default", "a").await,
            ticket(&store, "default", "b").await,
            ticket(&store, "default", "c").await,
        ];
        assert!(tk.relate("default", &a.id, RelationKind::BlockedBy, &b.id, "local").await.unwrap());
        assert!(!tk.relate("default", &b.id, RelationKind::Blocking, &a.id, "local").await.unwrap(), "the same pair");
        assert!(tk.relate("default", &b.id, RelationKind::BlockedBy, &c.id, "local").await.unwrap());
        match tk.relate("default", &c.id, RelationKind::BlockedBy, &a.id, "local").await {
            Err(StoreError::Conflict(m)) => {
                assert!(m.contains("would close the cycle T-3 blocked_by T-1 blocked_by T-2 blocked_by T-3"), "{m}")
            }
            other => panic!("{other:?}"),
        }
        // blocking is the inverse: the same cycle, written the other way.
        assert!(matches!(
            tk.relate("default", &a.id, RelationKind::Blocking, &c.id, "local").await,
            Err(StoreError::Conflict(_))
        ));
        assert!(matches!(
            tk.relate("default", &a.id, RelationKind::RelatedTo, &a.id, "local").await,
            Err(StoreError::Invalid(_))
        ));
        // One parent each; parent_of is sub_issue_of seen from the parent.
        assert!(tk.relate("default", &a.id, RelationKind::ParentOf, &b.id, "local").await.unwrap());
        assert_eq!(tk.get(&b.id).await.unwrap().unwrap().parent_id.as_deref(), Some(a.id.as_str()));
        match tk.relate("default", &b.id, RelationKind::SubIssueOf, &c.id, "local").await {
            Err(StoreError::Conflict(m)) => assert!(m.contains("T-2 is a sub-issue of T-1 already"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            tk.relate("default", &a.id, RelationKind::SubIssueOf, &b.id, "local").await,
            Err(StoreError::Conflict(_))
        ));
        let rels = tk.relations(&a.id).await.unwrap();
        let kinds: Vec<_> = rels.iter().map(|r| (r.kind, r.other_id == b.id)).collect();
        assert_eq!(kinds, [(RelationKind::BlockedBy, true), (RelationKind::ParentOf, true)]);
        pairs_hold(&tk.all_relations("default").await.unwrap()).unwrap();
        // Removal takes both rows, and the parent.
        assert!(tk.unrelate("default", &b.id, RelationKind::SubIssueOf, &a.id).await.unwrap());
        assert!(!tk.unrelate("default", &b.id, RelationKind::SubIssueOf, &a.id).await.unwrap());
        assert_eq!(tk.get(&b.id).await.unwrap().unwrap().parent_id, None);
        assert!(tk.relations(&a.id).await.unwrap().iter().all(|r| r.kind != RelationKind::ParentOf));
        // Another workspace's ticket is not found.
        let o = ticket(&store, "other", "o").await;
        assert!(matches!(
            tk.relate("default", &a.id, RelationKind::RelatedTo, &o.id, "local").await,
            Err(StoreError::NotFound { .. })
        ));
        // Pull requests: linked once, unlinked once.
        assert!(tk.link_pr(&a.id, "PR_kwDOA1", "local").await.unwrap());
        assert!(!tk.link_pr(&a.id, "PR_kwDOA1", "local").await.unwrap());
        assert_eq!(tk.prs(&a.id).await.unwrap()[0].pr_node_id, "PR_kwDOA1");
        assert!(tk.unlink_pr(&a.id, "PR_kwDOA1").await.unwrap());
        assert!(!tk.unlink_pr(&a.id, "PR_kwDOA1").await.unwrap());
    });
}

/// One step of the property test: add or remove `kind` between tickets `a` and `b` (of 5).
#[derive(Clone, Debug)]
struct Op {
    add: bool,
    a: usize,
    kind: RelationKind,
    b: usize,
}

fn op() -> impl Strategy<Value = Op> {
    (any::<bool>(), 0..5usize, prop::sample::select(RelationKind::ALL.to_vec()), 0..5usize)
        .prop_map(|(add, a, kind, b)| Op { add: add || a % 2 == 0, a, kind, b })
}

/// The model's one row for `a kind b`: the checked direction (related_to: the smaller first).
fn canon(a: usize, kind: RelationKind, b: usize) -> (usize, RelationKind, usize) {
    match kind {
        RelationKind::Blocking | RelationKind::DuplicatedBy | RelationKind::ParentOf => (b, kind.inverse(), a),
        RelationKind::RelatedTo => (a.min(b), kind, a.max(b)),
        _ => (a, kind, b),
    }
}

/// What the model says an addition does: Ok(added?) or the refusal's kind.
fn model_add(
    model: &BTreeSet<(usize, RelationKind, usize)>,
    a: usize,
    kind: RelationKind,
    b: usize,
) -> Result<bool, &'static str> {
    if a == b {
        return Err("invalid");
    }
    let (from, k, to) = canon(a, kind, b);
    if model.contains(&(from, k, to)) {
        return Ok(false);
    }
    if k == RelationKind::SubIssueOf && model.iter().any(|(x, kk, _)| *x == from && *kk == RelationKind::SubIssueOf) {
        return Err("conflict");
    }
    if matches!(k, RelationKind::BlockedBy | RelationKind::SubIssueOf) {
        // Is `from` reachable from `to`?
        let mut stack = vec![to];
        let mut seen = BTreeSet::new();
        while let Some(x) = stack.pop() {
            if x == from {
                return Err("conflict");
            }
            if seen.insert(x) {
                stack.extend(model.iter().filter(|(y, kk, _)| *y == x && *kk == k).map(|(_, _, z)| *z));
            }
        }
    }
    Ok(true)
}

/// Random add/remove sequences (generated by proptest; no shrinking, each case printed on
/// failure) leave the pairs consistent, both kinds acyclic, parent_id equal to sub_issue_of,
/// and every answer what a model of the rules says.
#[test]
fn random_relation_sequences_keep_pairs_consistent_and_acyclic() {
    on_each_backend(|_, store| async move {
        let mut runner = TestRunner::deterministic();
        let strategy = prop::collection::vec(op(), 1..40);
        let cases = if store.backend() == cc_server::store::Backend::Sqlite { 16 } else { 8 };
        for case in 0..cases {
            let ws = format!("prop{case}");
            store.workspaces().ensure(&ws, &ws).await.unwrap();
            let mut ids = Vec::new();
            for i in 0..5 {
                ids.push(ticket(&store, &ws, &format!("t{i}")).await.id);
            }
            let ops = strategy.new_tree(&mut runner).unwrap().current();
            let mut model: BTreeSet<(usize, RelationKind, usize)> = BTreeSet::new();
            let tk = store.tickets();
            for (i, o) in ops.iter().enumerate() {
                let ctx = || format!("case {case}, step {i} of {ops:?}");
                if o.add {
                    let want = model_add(&model, o.a, o.kind, o.b);
                    let got = tk.relate(&ws, &ids[o.a], o.kind, &ids[o.b], "prop").await;
                    match (&want, &got) {
                        (Ok(w), Ok(g)) => assert_eq!(w, g, "{}", ctx()),
                        (Err("invalid"), Err(StoreError::Invalid(_)))
                        | (Err("conflict"), Err(StoreError::Conflict(_))) => {}
                        _ => panic!("model {want:?}, store {got:?}: {}", ctx()),
                    }
                    if want == Ok(true) {
                        model.insert(canon(o.a, o.kind, o.b));
                    }
                } else {
                    let was = model.remove(&canon(o.a, o.kind, o.b));
                    assert_eq!(tk.unrelate(&ws, &ids[o.a], o.kind, &ids[o.b]).await.unwrap(), was, "{}", ctx());
                }
                let rows = tk.all_relations(&ws).await.unwrap();
                pairs_hold(&rows).unwrap_or_else(|e| panic!("{e}: {}", ctx()));
                assert!(acyclic(&rows, RelationKind::BlockedBy), "blocked_by cycle: {}", ctx());
                assert!(acyclic(&rows, RelationKind::SubIssueOf), "sub_issue_of cycle: {}", ctx());
                for (n, id) in ids.iter().enumerate() {
                    let parent = tk.get(id).await.unwrap().unwrap().parent_id;
                    let want = model
                        .iter()
                        .find(|(x, k, _)| *x == n && *k == RelationKind::SubIssueOf)
                        .map(|(_, _, p)| ids[*p].clone());
                    assert_eq!(parent, want, "{}", ctx());
                }
            }
        }
    });
}

// ------------------------------------------------------------ delegation's gates

/// An agent of autonomy `autonomy` in workspace default.
async fn agent_of(store: &Store, name: &str, autonomy: u8) -> String {
    let id = agent(store, "default", name).await;
    let spec = AgentSpec { autonomy: Some(autonomy), ..AgentSpec::default() };
    admin::update(store, "default", name, spec).await.unwrap();
    id
}

fn delegation(from: Option<&Ticket>, by: Option<&str>, to: &str, max_depth: u32) -> Delegation {
    Delegation {
        from: from.map(|t| t.id.clone()),
        by_agent_id: by.map(str::to_string),
        to_agent_id: to.into(),
        max_depth,
    }
}

fn task(title: &str, budget: Option<i64>) -> NewTicket {
    NewTicket { budget, ..new(title) }
}

/// A refusal's gate and message, or a panic with what came instead.
fn refused(r: Result<Ticket, StoreError>) -> (&'static str, String) {
    match r {
        Err(StoreError::Refused { gate, message, .. }) => (gate, message),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_delegated_ticket_is_a_tracked_child_of_its_lineage() {
    on_each_backend(|_, store| async move {
        let lead = agent_of(&store, "lead", 3).await;
        let dev = agent_of(&store, "dev", 2).await;
        let tk = store.tickets();
        let root = ticket(&store, "default", "epic").await;
        let d =
            tk.delegate("default", task("api", None), &delegation(Some(&root), Some(&lead), &dev, 3)).await.unwrap();
        assert_eq!(d.key, "T-2");
        assert_eq!((d.assignee_id.as_deref(), d.parent_id.as_deref()), (Some(dev.as_str()), Some(root.id.as_str())));
        assert_eq!(
            (d.delegated_from.as_deref(), d.delegated_by_agent_id.as_deref()),
            (Some(root.id.as_str()), Some(lead.as_str()))
        );
        assert_eq!(d.delegation_depth, 1);
        assert_eq!(
            tk.delegated_from(&root.id).await.unwrap().iter().map(|t| t.key.as_str()).collect::<Vec<_>>(),
            ["T-2"]
        );
        // It is the parent's sub-issue, both ways.
        let rel = tk.relations(&root.id).await.unwrap();
        assert_eq!((rel[0].kind, rel[0].other_id.as_str()), (RelationKind::ParentOf, d.id.as_str()));
        // Delegated from no ticket: a lineage of its own, at depth 1.
        let solo = tk.delegate("default", task("solo", None), &delegation(None, None, &dev, 3)).await.unwrap();
        assert_eq!((solo.delegation_depth, solo.delegated_from, solo.parent_id), (1, None, None));
        let refused_depth = tk.delegate("default", task("x", None), &delegation(None, None, &dev, 0)).await;
        assert_eq!(refused(refused_depth).0, "depth_cap");
    });
}

#[test]
fn delegation_gate_depth_cap_names_the_depth_the_lineage_and_the_cap() {
    on_each_backend(|_, store| async move {
        let a = agent_of(&store, "a", 3).await;
        let b = agent_of(&store, "b", 3).await;
        let c = agent_of(&store, "c", 3).await;
        let dd = agent_of(&store, "d", 3).await;
        let tk = store.tickets();
        let root = ticket(&store, "default", "root").await;
        let t2 = tk.delegate("default", task("one", None), &delegation(Some(&root), Some(&a), &b, 2)).await.unwrap();
        let t3 = tk.delegate("default", task("two", None), &delegation(Some(&t2), Some(&b), &c, 2)).await.unwrap();
        assert_eq!(t3.delegation_depth, 2);
        let (gate, m) =
            refused(tk.delegate("default", task("three", None), &delegation(Some(&t3), Some(&c), &dd, 2)).await);
        assert_eq!(gate, "depth_cap");
        assert!(m.contains("depth 3 (T-1 → T-2 → T-3 → the new ticket)") && m.contains("the cap is 2"), "{m}");
        assert!(m.contains("max_depth"), "{m}");
        // Under a larger cap the same hand-over goes.
        let t4 = tk.delegate("default", task("three", None), &delegation(Some(&t3), Some(&c), &dd, 3)).await.unwrap();
        assert_eq!(t4.delegation_depth, 3);
        // A refusal leaves no ticket behind.
        assert_eq!(tk.list("default", &TicketFilter { limit: 100, ..TicketFilter::default() }).await.unwrap().len(), 4);
    });
}

#[test]
fn delegation_gate_cycle_refuses_work_back_up_its_own_chain() {
    on_each_backend(|_, store| async move {
        let lead = agent_of(&store, "lead", 3).await;
        let dev = agent_of(&store, "dev", 3).await;
        let qa = agent_of(&store, "qa", 3).await;
        let ops = agent_of(&store, "ops", 3).await;
        let tk = store.tickets();
        let mut n = new("epic");
        n.assignee_id = Some(lead.clone());
        let root = tk.create("default", n).await.unwrap();
        let t2 =
            tk.delegate("default", task("api", None), &delegation(Some(&root), Some(&lead), &dev, 5)).await.unwrap();
        let t3 = tk.delegate("default", task("tests", None), &delegation(Some(&t2), Some(&dev), &qa, 5)).await.unwrap();
        // qa hands it back to lead, or to dev: both are up its chain.
        for (to, name) in [(&lead, "lead"), (&dev, "dev")] {
            let (gate, m) =
                refused(tk.delegate("default", task("back", None), &delegation(Some(&t3), Some(&qa), to, 5)).await);
            assert_eq!(gate, "cycle");
            assert!(m.contains(&format!("{name} is in this delegation's chain already")), "{m}");
            assert!(m.contains("lead → dev → qa →"), "{m}");
        }
        // To itself.
        let (gate, m) =
            refused(tk.delegate("default", task("me", None), &delegation(Some(&t3), Some(&qa), &qa, 5)).await);
        assert_eq!(gate, "cycle");
        assert!(m.contains("qa is in this delegation's chain already (delegating"), "{m}");
        // Someone outside the chain may take it.
        tk.delegate("default", task("ops", None), &delegation(Some(&t3), Some(&qa), &ops, 5)).await.unwrap();
    });
}

#[test]
fn delegation_gate_budget_envelope_gives_no_child_more_than_is_left() {
    on_each_backend(|_, store| async move {
        let lead = agent_of(&store, "lead", 3).await;
        let dev = agent_of(&store, "dev", 3).await;
        let qa = agent_of(&store, "qa", 3).await;
        let tk = store.tickets();
        let root = tk.create("default", task("epic", Some(100))).await.unwrap();
        let del = |to: &str| delegation(Some(&root), Some(&lead), to, 3);
        let t2 = tk.delegate("default", task("api", Some(60)), &del(&dev)).await.unwrap();
        assert_eq!(t2.budget, Some(60));
        let (gate, m) = refused(tk.delegate("default", task("ui", Some(50)), &del(&qa)).await);
        assert_eq!(gate, "budget_envelope");
        assert!(m.contains("asks 50, and T-1 has 40 left of its 100; 60 given to T-2"), "{m}");
        let (gate, m) = refused(tk.delegate("default", task("ui", None), &del(&qa)).await);
        assert_eq!(gate, "budget_envelope");
        assert!(m.contains("declares a budget of 100 (40 left; 60 given to T-2)") && m.contains("at most 40"), "{m}");
        let t3 = tk.delegate("default", task("ui", Some(40)), &del(&qa)).await.unwrap();
        let (_, m) = refused(tk.delegate("default", task("more", Some(1)), &del(&qa)).await);
        assert!(m.contains("asks 1, and T-1 has 0 left of its 100; 100 given to T-2, T-3"), "{m}");
        // The child's own delegations draw on the child's envelope.
        let (_, m) =
            refused(tk.delegate("default", task("sub", Some(61)), &delegation(Some(&t2), Some(&dev), &qa, 3)).await);
        assert!(m.contains("T-2 has 60 left of its 60"), "{m}");
        // A cancelled child gives its share back; a done one keeps it spent.
        tk.finish(&t3.id, TicketStatus::Cancelled, None, None).await.unwrap();
        tk.finish(&t2.id, TicketStatus::Done, None, None).await.unwrap();
        tk.delegate("default", task("ui again", Some(40)), &del(&qa)).await.unwrap();
        // Racing delegations never overspend: 30 in tens, eight asking.
        let pot = tk.create("default", task("pot", Some(30))).await.unwrap();
        let mut racers = Vec::new();
        for i in 0..8 {
            let (store, d) = (store.clone(), delegation(Some(&pot), Some(&lead), &dev, 3));
            racers.push(tokio::spawn(async move {
                store.tickets().delegate("default", task(&format!("r{i}"), Some(10)), &d).await
            }));
        }
        let mut won = 0;
        for r in racers {
            match r.await.unwrap() {
                Ok(_) => won += 1,
                Err(StoreError::Refused { gate: "budget_envelope", .. }) => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(won, 3);
        let given: i64 = tk.delegated_from(&pot.id).await.unwrap().iter().filter_map(|t| t.budget).sum();
        assert_eq!(given, 30);
    });
}

#[test]
fn delegation_gate_autonomy_cap_keeps_delegation_from_widening_autonomy() {
    on_each_backend(|_, store| async move {
        let lead = agent_of(&store, "lead", 3).await;
        let dev = agent_of(&store, "dev", 2).await;
        let qa = agent_of(&store, "qa", 2).await;
        let intern = agent_of(&store, "intern", 0).await;
        let tk = store.tickets();
        let root = ticket(&store, "default", "epic").await;
        let (gate, m) =
            refused(tk.delegate("default", task("x", None), &delegation(Some(&root), Some(&intern), &qa, 3)).await);
        assert_eq!(gate, "autonomy_cap");
        assert!(m.contains("intern has autonomy 0, which delegates nothing"), "{m}");
        let (gate, m) =
            refused(tk.delegate("default", task("x", None), &delegation(Some(&root), Some(&dev), &lead, 3)).await);
        assert_eq!(gate, "autonomy_cap");
        assert!(
            m.contains("dev (autonomy 2) delegates only to agents of autonomy 2 or less, and lead has autonomy 3"),
            "{m}"
        );
        // Equal or lower goes; a principal (no agent) has no cap.
        tk.delegate("default", task("peer", None), &delegation(Some(&root), Some(&dev), &qa, 3)).await.unwrap();
        tk.delegate("default", task("down", None), &delegation(Some(&root), Some(&lead), &intern, 3)).await.unwrap();
        tk.delegate("default", task("op", None), &delegation(Some(&root), None, &lead, 3)).await.unwrap();
    });
}

// ------------------------------------------------------------ the tools, through the dispatcher

mod tools {
    use std::sync::Arc;

    use cc_server::app::App;
    use cc_server::mcp::dispatch::{CallOutcome, Caller};
    use cc_server::mcp::policy::Mode;
    use cc_server::mcp::principal::Principal;
    use cc_server::serve::block_on;
    use cc_server::store::{Agent, Run, RunStatus};
    use serde_json::{json, Value};

    use crate::common::{call, err, ok_value, rig_fixture, Fixture};

    /// An app with the operator's queue (workspaces default and team) and the agents dev and
    /// qa in default, ops in team.
    fn fixture() -> (Fixture, Agent, Agent) {
        let f = rig_fixture(true);
        let store = f.app.services.store.clone();
        let ids = block_on(async {
            let dev = super::agent(&store, "default", "dev").await;
            let qa = super::agent(&store, "default", "qa").await;
            super::agent(&store, "team", "ops").await;
            (store.agents().get(&dev).await.unwrap().unwrap(), store.agents().get(&qa).await.unwrap().unwrap())
        });
        (f, ids.0, ids.1)
    }

    /// A call that may need an approval: the operator approves it through the queue and it
    /// is made again.
    fn approved(app: &Arc<App>, c: &Caller, name: &str, args: Value) -> CallOutcome {
        match call(app, c, name, args.clone()) {
            CallOutcome::Err(e) if e.error == "approval_pending" => {
                let id = e.data.unwrap()["approval_id"].as_str().unwrap().to_string();
                block_on(app.services.store.approvals().decide(&id, true, "operator (test)", None)).unwrap();
                call(app, c, name, args)
            }
            other => other,
        }
    }

    fn chat() -> Caller {
        Caller::local(Mode::Chat)
    }

    fn create(app: &Arc<App>, args: Value) -> Value {
        ok_value(approved(app, &chat(), "create_ticket", args))
    }

    #[test]
    fn tickets_are_created_read_listed_updated_and_ended() {
        let (f, dev, _) = fixture();
        let app = &f.app;
        let c = chat();
        // Approval-gated: pending in the queue first.
        let e = err(call(app, &c, "create_ticket", json!({"workspace_id": "default", "title": "first"})));
        assert_eq!(e.error, "approval_pending");
        let epic = create(app, json!({"workspace_id": "default", "title": "epic", "labels": ["plan"]}));
        assert_eq!(epic["key"], "T-1");
        let t = create(
            app,
            json!({"workspace_id": "default", "title": "fix login", "description": "it 500s", "status": "todo",
                   "priority": "high", "labels": ["bug", "bug", "ui"], "to_agent_name": "dev", "team": "web",
                   "parent_ticket_id": "T-1"}),
        );
        assert_eq!(
            (t["key"].as_str(), t["status"].as_str(), t["priority"].as_str()),
            (Some("T-2"), Some("open"), Some("high"))
        );
        assert_eq!(t["labels"], json!(["bug", "ui"]));
        assert_eq!((t["assignee_id"].as_str(), t["parent_id"].as_str()), (Some(dev.id.as_str()), epic["id"].as_str()));
        let space = block_on(app.services.store.spaces().get(t["space_id"].as_str().unwrap())).unwrap().unwrap();
        assert!(space.members.iter().any(|m| m.member == dev.id), "{:?}", space.members);
        // get_ticket by key or id.
        let g = ok_value(call(app, &c, "get_ticket", json!({"workspace_id": "default", "ticket_id": "T-2"})));
        assert_eq!(g["ticket"]["id"], t["id"]);
        let g = ok_value(call(app, &c, "get_ticket", json!({"workspace_id": "default", "ticket_id": t["id"]})));
        assert_eq!(g["ticket"]["key"], "T-2");
        // list_tickets: filters and a cursor.
        for i in 0..3 {
            create(app, json!({"workspace_id": "default", "title": format!("chore {i}")}));
        }
        let l = ok_value(call(app, &c, "list_tickets", json!({"workspace_id": "default", "assignee": "dev"})));
        assert_eq!(l["tickets"].as_array().unwrap().len(), 1);
        let l = ok_value(call(app, &c, "list_tickets", json!({"workspace_id": "default", "label": "plan"})));
        assert_eq!(l["tickets"][0]["key"], "T-1");
        let l = ok_value(call(app, &c, "list_tickets", json!({"workspace_id": "default", "parent_ticket_id": "T-1"})));
        assert_eq!(l["tickets"][0]["key"], "T-2");
        let p1 = ok_value(call(app, &c, "list_tickets", json!({"workspace_id": "default", "limit": 3})));
        let keys = |v: &Value| {
            v["tickets"].as_array().unwrap().iter().map(|t| t["key"].as_str().unwrap().to_string()).collect::<Vec<_>>()
        };
        assert_eq!(keys(&p1), ["T-5", "T-4", "T-3"]);
        let p2 = ok_value(call(
            app,
            &c,
            "list_tickets",
            json!({"workspace_id": "default", "limit": 3, "cursor": p1["next_cursor"]}),
        ));
        assert_eq!(keys(&p2), ["T-2", "T-1"]);
        assert!(p2.get("next_cursor").is_none());
        // update_ticket: aliases, and an unknown status lists what is accepted.
        let u = ok_value(approved(
            app,
            &c,
            "update_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-2", "status": "In-Progress", "labels": ["bug"]}),
        ));
        assert_eq!((u["status"].as_str(), &u["labels"]), (Some("in_progress"), &json!(["bug"])));
        let l = ok_value(call(app, &c, "list_tickets", json!({"workspace_id": "default", "status": "doing"})));
        assert_eq!(keys(&l), ["T-2"]);
        let e = err(approved(
            app,
            &c,
            "update_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-2", "status": "shipped"}),
        ));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/status")));
        assert!(e.message.contains("in_progress") && e.message.contains("completed"), "{}", e.message);
        // close_ticket and fail_ticket are final until update_ticket reopens.
        let d = ok_value(approved(
            app,
            &c,
            "close_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-2", "output": "fixed in #4"}),
        ));
        assert_eq!((d["status"].as_str(), d["output"].as_str()), (Some("done"), Some("fixed in #4")));
        let e =
            err(call(app, &c, "fail_ticket", json!({"workspace_id": "default", "ticket_id": "T-2", "error": "no"})));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/ticket_id")));
        assert!(e.message.contains("update_ticket"), "{}", e.message);
        ok_value(approved(
            app,
            &c,
            "update_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-2", "status": "reopened"}),
        ));
        let x = ok_value(call(
            app,
            &c,
            "fail_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-2", "error": "flaky CI"}),
        ));
        assert_eq!((x["status"].as_str(), x["error"].as_str()), (Some("failed"), Some("flaky CI")));
    }

    #[test]
    fn bad_input_and_other_workspaces_are_errors_naming_the_pointer() {
        let (f, _, _) = fixture();
        let app = &f.app;
        let c = chat();
        create(app, json!({"workspace_id": "default", "title": "a"}));
        let other = create(app, json!({"workspace_id": "team", "title": "theirs"}));
        let cases = [
            ("get_ticket", json!({"workspace_id": "default"}), "invalid_input", "/ticket_id"),
            ("get_ticket", json!({"workspace_id": "default", "ticket_id": "T-9"}), "not_found", "/ticket_id"),
            ("get_ticket", json!({"workspace_id": "default", "ticket_id": other["id"]}), "not_found", "/ticket_id"),
            (
                "get_ticket",
                json!({"workspace_id": "default", "ticket_id": "T-1", "extra": 1}),
                "invalid_input",
                "/extra",
            ),
            ("list_tickets", json!({"workspace_id": "default", "cursor": "nope"}), "invalid_input", "/cursor"),
            ("list_tickets", json!({"workspace_id": "default", "assignee": "ops"}), "not_found", "/assignee"),
            ("list_tickets", json!({"workspace_id": "default", "status": "later"}), "invalid_input", "/status"),
            ("list_tickets", json!({"workspace_id": "default", "limit": 0}), "invalid_input", "/limit"),
            ("create_ticket", json!({"workspace_id": "default", "title": ""}), "invalid_input", "/title"),
            (
                "create_ticket",
                json!({"workspace_id": "default", "title": "x", "priority": "asap"}),
                "invalid_input",
                "/priority",
            ),
            (
                "add_ticket_collaborator",
                json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "ops"}),
                "not_found",
                "/to_agent_name",
            ),
            (
                "add_ticket_collaborator",
                json!({"workspace_id": "default", "ticket_id": "T-1"}),
                "invalid_input",
                "/to_agent_id",
            ),
            (
                "comment_on_ticket",
                json!({"workspace_id": "default", "ticket_id": "T-1", "text": ""}),
                "invalid_input",
                "/text",
            ),
            ("fail_ticket", json!({"workspace_id": "default", "ticket_id": "T-1"}), "invalid_input", "/error"),
            (
                "ticket_relation",
                json!({"workspace_id": "default", "action": "add", "ticket_id": "T-1", "kind": "cousin_of", "other_ticket_id": "T-1"}),
                "invalid_input",
                "/kind",
            ),
            (
                "ticket_relation",
                json!({"workspace_id": "default", "action": "toggle", "ticket_id": "T-1", "kind": "related_to", "other_ticket_id": "T-1"}),
                "invalid_input",
                "/action",
            ),
            (
                "ticket_pr_link",
                json!({"workspace_id": "default", "action": "link", "ticket_id": "T-1", "pr_node_id": "42"}),
                "invalid_input",
                "/pr_node_id",
            ),
            (
                "ticket_pr_link",
                json!({"workspace_id": "default", "action": "link", "ticket_id": other["id"], "pr_node_id": "PR_kwDOA1b2"}),
                "not_found",
                "/ticket_id",
            ),
            ("list_ticket_relations", json!({"workspace_id": "team", "ticket_id": "T-9"}), "not_found", "/ticket_id"),
        ];
        for (tool, args, kind, pointer) in cases {
            let e = err(approved(app, &c, tool, args.clone()));
            assert_eq!((e.error.as_str(), e.pointer.as_deref()), (kind, Some(pointer)), "{tool} {args}: {}", e.message);
            assert!(e.message.starts_with(pointer) || e.error != "invalid_input", "{tool}: {}", e.message);
        }
        // Relating to another workspace's ticket is not found, naming the other ticket.
        let e = err(approved(
            app,
            &c,
            "ticket_relation",
            json!({"workspace_id": "default", "action": "add", "ticket_id": "T-1", "kind": "related_to", "other_ticket_id": other["id"]}),
        ));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/other_ticket_id")));
        // A principal that does not see a workspace cannot reach its tickets.
        let mut outsider = chat();
        outsider.principal = Principal::new("outsider", Some(vec!["default".into()]));
        let e = err(call(app, &outsider, "get_ticket", json!({"workspace_id": "team", "ticket_id": "T-1"})));
        assert_eq!(e.error, "workspace");
    }

    #[test]
    fn assignees_collaborators_and_comments_live_in_the_tickets_space() {
        let (f, dev, qa) = fixture();
        let app = &f.app;
        let c = chat();
        let t = create(app, json!({"workspace_id": "default", "title": "a"}));
        let space_id = t["space_id"].as_str().unwrap().to_string();
        let members = |app: &Arc<App>| {
            block_on(app.services.store.spaces().get(&space_id))
                .unwrap()
                .unwrap()
                .members
                .into_iter()
                .map(|m| m.member)
                .collect::<Vec<_>>()
        };
        let a = ok_value(approved(
            app,
            &c,
            "assign_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "dev", "team": "web"}),
        ));
        assert_eq!((a["assignee_id"].as_str(), a["team"].as_str()), (Some(dev.id.as_str()), Some("web")));
        assert!(members(app).contains(&dev.id));
        let e = err(approved(
            app,
            &c,
            "assign_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_id": qa.id}),
        ));
        assert_eq!(e.error, "conflict");
        assert!(e.message.contains("reassign_ticket"), "{}", e.message);
        let r = ok_value(approved(
            app,
            &c,
            "reassign_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "qa", "reason": "dev is away"}),
        ));
        assert_eq!(r["assignee_id"].as_str(), Some(qa.id.as_str()));
        let e = err(approved(
            app,
            &c,
            "reassign_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "qa"}),
        ));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/to_agent_name")));
        let col = ok_value(call(
            app,
            &c,
            "add_ticket_collaborator",
            json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_id": dev.id}),
        ));
        assert_eq!(col["space_id"].as_str(), Some(space_id.as_str()));
        let m = ok_value(call(
            app,
            &c,
            "comment_on_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-1", "text": "looking"}),
        ));
        assert_eq!((m["space_id"].as_str(), m["sender"]["name"].as_str()), (Some(space_id.as_str()), Some("local")));
        let msgs = ok_value(call(app, &c, "get_messages", json!({"workspace_id": "default", "space_id": space_id})));
        let texts: Vec<&str> =
            msgs["messages"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
        assert_eq!(texts, ["local reassigned T-1 from dev to qa: dev is away", "looking"]);
    }

    #[test]
    fn relations_and_pull_requests_through_the_tools() {
        let (f, _, _) = fixture();
        let app = &f.app;
        let c = chat();
        for t in ["epic", "api", "ui"] {
            create(app, json!({"workspace_id": "default", "title": t}));
        }
        let rel = |action: &str, a: &str, kind: &str, b: &str| {
            approved(
                app,
                &c,
                "ticket_relation",
                json!({"workspace_id": "default", "action": action, "ticket_id": a, "kind": kind, "other_ticket_id": b}),
            )
        };
        assert_eq!(ok_value(rel("add", "T-1", "parent_of", "T-2"))["changed"], true);
        assert_eq!(ok_value(rel("add", "T-3", "sub_issue_of", "T-1"))["changed"], true);
        assert_eq!(ok_value(rel("add", "T-3", "blocked_by", "T-2"))["changed"], true);
        assert_eq!(ok_value(rel("add", "T-2", "blocking", "T-3"))["changed"], false);
        let e = err(rel("add", "T-2", "blocked_by", "T-3"));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/kind")));
        assert!(e.message.contains("cycle T-2 blocked_by T-3 blocked_by T-2"), "{}", e.message);
        let e = err(rel("add", "T-1", "sub_issue_of", "T-3"));
        assert_eq!(e.error, "conflict");
        let e = err(rel("add", "T-1", "related_to", "T-1"));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/other_ticket_id")));
        let l =
            ok_value(call(app, &c, "list_ticket_relations", json!({"workspace_id": "default", "ticket_id": "T-1"})));
        let subs: Vec<&str> = l["sub_tickets"].as_array().unwrap().iter().map(|t| t["key"].as_str().unwrap()).collect();
        assert_eq!(subs, ["T-2", "T-3"]);
        let l =
            ok_value(call(app, &c, "list_ticket_relations", json!({"workspace_id": "default", "ticket_id": "T-3"})));
        assert_eq!(l["parent"]["key"], "T-1");
        assert_eq!(
            l["links"],
            json!([{"kind": "blocked_by", "ticket": {"ticket_id": l["links"][0]["ticket"]["ticket_id"], "key": "T-2", "title": "api", "status": "open"}}])
        );
        assert_eq!(ok_value(rel("remove", "T-2", "blocking", "T-3"))["changed"], true);
        let l =
            ok_value(call(app, &c, "list_ticket_relations", json!({"workspace_id": "default", "ticket_id": "T-2"})));
        assert_eq!(l["links"], json!([]));
        // Pull requests.
        let link = |action: &str, pr: &str| {
            call(
                app,
                &c,
                "ticket_pr_link",
                json!({"workspace_id": "default", "action": action, "ticket_id": "T-2", "pr_node_id": pr}),
            )
        };
        assert_eq!(ok_value(link("link", "PR_kwDOKq1x2s5abcd"))["changed"], true);
        let v = ok_value(link("link", "MDExOlB1bGxSZXF1ZXN0MzQ1Njc4OTA="));
        assert_eq!(v["prs"].as_array().unwrap().len(), 2);
        assert_eq!(ok_value(link("link", "PR_kwDOKq1x2s5abcd"))["changed"], false);
        assert_eq!(ok_value(link("unlink", "PR_kwDOKq1x2s5abcd"))["prs"].as_array().unwrap().len(), 1);
        let g = ok_value(call(app, &c, "get_ticket", json!({"workspace_id": "default", "ticket_id": "T-2"})));
        assert_eq!(g["prs"][0]["pr_node_id"], "MDExOlB1bGxSZXF1ZXN0MzQ1Njc4OTA=");
    }

    #[test]
    fn without_an_approver_gated_ticket_verbs_are_denied() {
        let f = rig_fixture(false);
        let e = err(call(&f.app, &chat(), "create_ticket", json!({"workspace_id": "default", "title": "x"})));
        assert_eq!(e.error, "approval_denied");
        assert!(block_on(f.app.services.store.tickets().list("default", &Default::default())).unwrap().is_empty());
    }

    fn run(id: &str, agent: &Agent, ticket: Option<&str>) -> Run {
        Run {
            id: id.into(),
            workspace_id: "default".into(),
            agent_id: agent.id.clone(),
            status: RunStatus::Queued,
            reason: "ticket".into(),
            brief: "b".into(),
            space_id: None,
            message_id: None,
            ticket_id: ticket.map(str::to_string),
            created_at: cc_server::store::now(),
            started_at: None,
            ended_at: None,
            host: None,
            server_pid: None,
            server_started: None,
            pid: None,
            proc_started: None,
            exit_code: None,
            error: None,
            log_tail: None,
            kept: vec![],
        }
    }

    #[test]
    fn plan_mode_completes_only_the_dispatched_ticket_and_review_has_every_verb() {
        let (f, dev, _) = fixture();
        let app = &f.app;
        let mine = create(app, json!({"workspace_id": "default", "title": "mine"}));
        create(app, json!({"workspace_id": "default", "title": "other"}));
        block_on(app.services.store.agents().add_run(&run("run-plan", &dev, mine["id"].as_str()), "hash-plan"))
            .unwrap();
        let mut planner = Caller::local(Mode::Plan);
        planner.principal = Principal::agent(&dev, Some("run-plan".into()));
        // Not a plan verb at all.
        let e = err(call(app, &planner, "create_ticket", json!({"title": "x"})));
        assert_eq!(e.error, "mode");
        // Reads are; the completion verbs only on the dispatched ticket.
        ok_value(call(app, &planner, "get_ticket", json!({"ticket_id": "T-2"})));
        let e = err(call(app, &planner, "comment_on_ticket", json!({"ticket_id": "T-2", "text": "hi"})));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("mode", Some("/ticket_id")));
        assert!(e.message.contains("dispatched ticket"), "{}", e.message);
        let m = ok_value(call(app, &planner, "comment_on_ticket", json!({"ticket_id": "T-1", "text": "on it"})));
        assert_eq!(m["sender"]["agent_id"].as_str(), Some(dev.id.as_str()));
        let e = err(approved(app, &planner, "close_ticket", json!({"ticket_id": "T-2"})));
        assert_eq!(e.error, "mode");
        let d = ok_value(approved(app, &planner, "close_ticket", json!({"ticket_id": "T-1", "output": "done"})));
        assert_eq!(d["status"], "done");
        // A plan conversation that was not dispatched for a ticket completes none.
        let e = err(call(
            app,
            &Caller::local(Mode::Plan),
            "fail_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-2", "error": "x"}),
        ));
        assert_eq!(e.error, "mode");
        // Review mode has every ticket verb; orchestrate only the reads.
        let review = Caller::local(Mode::Review);
        ok_value(approved(app, &review, "create_ticket", json!({"workspace_id": "default", "title": "from review"})));
        let orch = Caller::local(Mode::Orchestrate);
        ok_value(call(app, &orch, "list_tickets", json!({"workspace_id": "default"})));
        assert_eq!(
            err(call(
                app,
                &orch,
                "comment_on_ticket",
                json!({"workspace_id": "default", "ticket_id": "T-2", "text": "x"})
            ))
            .error,
            "mode"
        );
    }

    // -------------------------------------------------------- delegation through the tools

    /// An app whose runtime may start python3 and has an endpoint, on a runtime that
    /// outlives each call (a dispatched run's monitor lives on it), with agents of workspace
    /// default whose profile prints the run's CC_TICKET_ID.
    struct Runner {
        _tmp: tempfile::TempDir,
        app: Arc<App>,
        rt: tokio::runtime::Runtime,
    }

    impl Runner {
        fn new(agents: &[(&str, u8)]) -> Runner {
            use cc_server::agents::admin::{self, AgentSpec};
            use cc_server::config::Config;
            use cc_server::store::{Family, RuntimeProfile};
            let tmp = tempfile::tempdir().unwrap();
            let data = cc_indexer::DataDir::new(tmp.path().join("data"));
            std::fs::create_dir_all(&data.root).unwrap();
            let store = cc_server::serve::open_store(&data).unwrap();
            let mut config = Config::default();
            config.runtimes.allow = vec!["python3".into()];
            config.delegation.max_depth = 2;
            let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
            rt.block_on(async {
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
                    ["python3", "-c", "import os; print('CC_TICKET_ID=' + os.environ['CC_TICKET_ID'])"]
                        .map(String::from)
                        .to_vec();
                admin::add_profile(&store, &config, p, &argv).await.unwrap();
                for (name, autonomy) in agents {
                    let spec =
                        AgentSpec { runtime: Some("print".into()), autonomy: Some(*autonomy), ..AgentSpec::default() };
                    admin::add(&store, &config, "default", name, spec).await.unwrap();
                }
            });
            let mut services = cc_server::services::Services::with_config(data, store, None, config);
            services.policy.approvals = cc_server::mcp::approvals::ApprovalConfig { queue: true, ..Default::default() };
            let app = Arc::new(App::new(services, cc_server::mcp::tools::registry(), None));
            app.services.runtime.set_endpoint("http://127.0.0.1:9/mcp".into());
            Runner { _tmp: tmp, app, rt }
        }

        fn call(&self, c: &Caller, name: &str, args: Value) -> CallOutcome {
            let surface = cc_server::mcp::surface::Surface::parse(None, true).unwrap();
            self.rt.block_on(self.app.dispatcher.call(
                self.app.services.clone(),
                &surface,
                c,
                name,
                args.as_object().cloned(),
                tokio_util::sync::CancellationToken::new(),
                None,
            ))
        }

        /// A call the operator approves through the queue when it asks.
        fn approved(&self, c: &Caller, name: &str, args: Value) -> CallOutcome {
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

        fn agent(&self, name: &str) -> Agent {
            self.rt.block_on(self.app.services.store.agents().by_name("default", name)).unwrap().unwrap()
        }

        /// The run, once it has ended.
        fn ended(&self, run_id: &str) -> Run {
            for _ in 0..300 {
                let r = self.rt.block_on(self.app.services.store.agents().run(run_id)).unwrap().unwrap();
                if !matches!(r.status, RunStatus::Queued | RunStatus::Running) {
                    return r;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            panic!("run {run_id} did not end");
        }

        fn texts(&self, space_id: &str) -> Vec<String> {
            let m = self.rt.block_on(self.app.services.store.spaces().messages(space_id, 0, 100)).unwrap();
            m.into_iter().map(|m| m.text).collect()
        }

        fn ticket(&self, key: &str) -> cc_server::store::Ticket {
            self.rt.block_on(self.app.services.store.tickets().find("default", key)).unwrap().unwrap()
        }
    }

    #[test]
    fn delegation_dispatches_a_tracked_child_and_reports_its_end_to_the_parent() {
        let r = Runner::new(&[("lead", 3), ("qa", 2), ("dev", 2)]);
        let c = chat();
        let epic = ok_value(r.approved(
            &c,
            "create_ticket",
            json!({"workspace_id": "default", "title": "epic", "budget": 10}),
        ));
        // Past the envelope: refused, naming the gate, the pointer and the numbers.
        let e = err(r.call(
            &c,
            "delegate_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "qa", "budget": 20}),
        ));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/budget")));
        assert_eq!(e.data.as_ref().unwrap()["gate"], "budget_envelope");
        assert!(e.message.contains("asks 20, and T-1 has 10 left of its 10"), "{}", e.message);
        let d = ok_value(r.call(
            &c,
            "delegate_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "qa", "budget": 5,
                   "description": "write the tests"}),
        ));
        assert_eq!(
            (d["child_key"].as_str(), d["depth"].as_i64(), d["budget"].as_i64()),
            (Some("T-2"), Some(1), Some(5))
        );
        assert_eq!(d["parent_ticket_id"], epic["id"]);
        let child = d["child_ticket_id"].as_str().unwrap().to_string();
        // The run was dispatched for the child, and its process saw CC_TICKET_ID.
        let run = r.ended(d["run"]["run_id"].as_str().unwrap());
        assert_eq!(
            (run.status, run.ticket_id.as_deref(), run.reason.as_str()),
            (RunStatus::Done, Some(child.as_str()), "delegate")
        );
        assert!(
            run.log_tail.as_deref().unwrap_or_default().contains(&format!("CC_TICKET_ID={child}")),
            "{:?}",
            run.log_tail
        );
        assert!(run.brief.contains("T-2") && run.brief.contains("write the tests"), "{}", run.brief);
        let t2 = r.ticket("T-2");
        assert_eq!(t2.assignee_id, Some(r.agent("qa").id));
        let epic_space = epic["space_id"].as_str().unwrap().to_string();
        assert_eq!(r.texts(&epic_space), ["local delegated T-2 to qa (budget 5): epic"]);
        // qa, in its run for T-2, delegates on with delegate_task: the gates one by one.
        let qa = r.agent("qa");
        let mut as_qa = Caller::local(Mode::Chat);
        as_qa.principal = Principal::agent(&qa, Some(run.id.clone()));
        let gate = |args: Value| {
            let e = err(r.call(&as_qa, "delegate_task", args));
            (e.data.as_ref().map(|d| d["gate"].clone()).unwrap_or_default(), e)
        };
        let (g, e) = gate(json!({"task": "more", "to_agent_name": "lead", "budget": 1}));
        assert_eq!((g.as_str(), e.pointer.as_deref()), (Some("autonomy_cap"), Some("/to_agent_name")));
        assert!(
            e.message
                .contains("qa (autonomy 2) delegates only to agents of autonomy 2 or less, and lead has autonomy 3"),
            "{}",
            e.message
        );
        let (g, e) = gate(json!({"task": "more", "to_agent_id": qa.id, "budget": 1}));
        assert_eq!((g.as_str(), e.pointer.as_deref()), (Some("cycle"), Some("/to_agent_id")));
        let (g, e) = gate(json!({"task": "more", "to_agent_name": "dev", "budget": 6}));
        assert_eq!((g.as_str(), e.pointer.as_deref()), (Some("budget_envelope"), Some("/budget")));
        assert!(e.message.contains("asks 6, and T-2 has 5 left of its 5"), "{}", e.message);
        let e = err(r.call(
            &as_qa,
            "delegate_task",
            json!({"task": "more", "to_agent_name": "dev", "ticket_id": "T-1", "budget": 1}),
        ));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/ticket_id")));
        assert!(e.message.contains("dispatched for T-2"), "{}", e.message);
        let d3 =
            ok_value(r.call(&as_qa, "delegate_task", json!({"task": "fixtures", "to_agent_name": "dev", "budget": 2})));
        assert_eq!((d3["child_key"].as_str(), d3["depth"].as_i64()), (Some("T-3"), Some(2)));
        let t3 = r.ticket("T-3");
        assert_eq!(
            (t3.delegated_by_agent_id.as_deref(), t3.delegated_from.as_deref()),
            (Some(qa.id.as_str()), Some(child.as_str()))
        );
        r.ended(d3["run"]["run_id"].as_str().unwrap());
        // dev is at depth 2, the server's cap: one more is refused.
        let dev = r.agent("dev");
        let dev_run = d3["run"]["run_id"].as_str().unwrap().to_string();
        let mut as_dev = Caller::local(Mode::Chat);
        as_dev.principal = Principal::agent(&dev, Some(dev_run));
        let e = err(r.call(&as_dev, "delegate_task", json!({"task": "deeper", "to_agent_name": "qa", "budget": 1})));
        assert_eq!(
            (e.data.as_ref().unwrap()["gate"].as_str(), e.pointer.as_deref()),
            (Some("depth_cap"), Some("/ticket_id"))
        );
        assert!(e.message.contains("depth 3") && e.message.contains("the cap is 2"), "{}", e.message);
        // The children's ends are reported into their parents' spaces.
        ok_value(r.call(&as_dev, "fail_ticket", json!({"ticket_id": "T-3", "error": "no fixtures exist"})));
        assert_eq!(
            r.texts(&t2.space_id).last().unwrap(),
            "T-3 (fixtures), delegated to dev, failed: no fixtures exist"
        );
        ok_value(r.approved(&as_qa, "close_ticket", json!({"ticket_id": "T-2", "output": "tests written"})));
        assert_eq!(r.texts(&epic_space).last().unwrap(), "T-2 (epic), delegated to qa, is done: tests written");
        // Nothing is delegated from a ticket that has ended.
        let e = err(r.call(
            &c,
            "delegate_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-2", "to_agent_name": "dev", "budget": 1}),
        ));
        assert_eq!(e.error, "conflict");
        assert!(e.message.contains("T-2 is done already"), "{}", e.message);
    }

    #[test]
    fn delegation_bad_input_names_the_pointer_and_a_run_that_cannot_start_cancels_the_child() {
        let (f, _, _) = fixture();
        let app = &f.app;
        let c = chat();
        create(app, json!({"workspace_id": "default", "title": "a", "budget": 3}));
        let cases = [
            (json!({"workspace_id": "default", "ticket_id": "T-1"}), "invalid_input", "/to_agent_id"),
            (json!({"workspace_id": "default", "ticket_id": "T-9", "to_agent_name": "qa"}), "not_found", "/ticket_id"),
            (
                json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "ops"}),
                "not_found",
                "/to_agent_name",
            ),
            (
                json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "qa", "budget": -1}),
                "invalid_input",
                "/budget",
            ),
            (
                json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "qa", "title": ""}),
                "invalid_input",
                "/title",
            ),
        ];
        for (args, kind, pointer) in cases {
            let e = err(call(app, &c, "delegate_ticket", args.clone()));
            assert_eq!((e.error.as_str(), e.pointer.as_deref()), (kind, Some(pointer)), "{args}: {}", e.message);
        }
        let e = err(call(app, &c, "delegate_task", json!({"workspace_id": "default", "to_agent_name": "qa"})));
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/task")));
        // This app serves no HTTP endpoint: the run cannot start, and the child is cancelled
        // (its budget goes back to the parent).
        let e = err(call(
            app,
            &c,
            "delegate_ticket",
            json!({"workspace_id": "default", "ticket_id": "T-1", "to_agent_name": "qa", "budget": 3}),
        ));
        assert_eq!(e.error, "unavailable");
        assert!(e.message.contains("T-2 was cancelled: the delegated run could not start"), "{}", e.message);
        let t2 = block_on(f.app.services.store.tickets().find("default", "T-2")).unwrap().unwrap();
        assert_eq!(e.data.unwrap()["child_ticket_id"].as_str(), Some(t2.id.as_str()));
        assert_eq!(t2.status, cc_server::store::TicketStatus::Cancelled);
        // Plan mode delegates nothing.
        let e = err(call(
            app,
            &Caller::local(Mode::Plan),
            "delegate_task",
            json!({"workspace_id": "default", "task": "x", "to_agent_name": "qa"}),
        ));
        assert_eq!(e.error, "mode");
    }
}
