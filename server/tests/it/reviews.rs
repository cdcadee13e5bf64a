//! Reviews on the call graph, on both store backends, through the dispatcher: a real git
//! repository the test makes with two commits (two packages, `shop` and `billing`: a changed
//! function with callers, a removed one, an added one) reviewed base..head — its areas,
//! symbols, blast radius and walkthrough exact — then findings (the author never confirms its
//! own), a resolution's trace, a dismissal whose suppression flags the same finding raised
//! again, verdicts replaced and kept, set_cohort_summary, the finalize rule case by case,
//! a finalized review refusing every change, diagrams checked against the head's graph, a
//! review of a pull request published to the local GitHub API double (`github.rs`'s `Double`:
//! GitHub cannot be reached from the tests), and bad input named by pointer.

use std::path::Path;
use std::sync::Arc;

use cc_indexer::{DataDir, IndexOptions, NoProgress};
use cc_server::app::App;
use cc_server::mcp::dispatch::{CallOutcome, Caller};
use cc_server::mcp::policy::Mode;
use cc_server::mcp::principal::Principal;
use cc_server::mcp::surface::Surface;
use cc_server::store::Store;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::common::{err, ok_value, on_each_backend};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

const BASE: &[(&str, &str)] = &[
    ("shop/__init__.py", ""),
    ("shop/pricing.py", "def price(item):\n    return item.cost * 2\n\n\ndef old_discount(item):\n    return 0\n"),
    (
        "shop/cart.py",
        "from shop.pricing import price, old_discount\n\n\ndef total(items):\n    return sum(price(i) - old_discount(i) for i in items)\n\n\ndef count(items):\n    return len(items)\n",
    ),
    ("billing/__init__.py", ""),
    (
        "billing/invoice.py",
        "from shop.cart import total\n\n\ndef bill(items):\n    return total(items)\n\n\ndef render(x):\n    return str(x)\n\n\ndef report(x):\n    return render(x)\n",
    ),
    ("README.md", "a shop\n"),
];

const HEAD: &[(&str, &str)] = &[
    (
        "shop/pricing.py",
        "def price(item):\n    return item.cost * 3\n\n\ndef rebate(item):\n    return item.cost // 10\n",
    ),
    (
        "shop/cart.py",
        "from shop.pricing import price, rebate\n\n\ndef total(items):\n    return sum(price(i) - rebate(i) for i in items)\n\n\ndef count(items):\n    return len(items)\n",
    ),
    (
        "billing/invoice.py",
        "from shop.cart import total\n\n\ndef bill(items):\n    return total(items)\n\n\ndef render(x):\n    return f\"{x:.2f}\"\n\n\ndef report(x):\n    return render(x)\n",
    ),
    ("README.md", "a shop, now with rebates\n"),
];

struct Fx {
    _tmp: tempfile::TempDir,
    app: Arc<App>,
    repo: std::path::PathBuf,
    base: String,
    head: String,
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (p, t) in files {
        std::fs::create_dir_all(root.join(p).parent().unwrap()).unwrap();
        std::fs::write(root.join(p), t).unwrap();
    }
}

/// The repository `shop` (two commits; the checkout at head, indexed) registered in workspace
/// `default` of an app on `store`.
async fn fixture(store: Store) -> Fx {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    write(&repo, BASE);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-qm", "base"]);
    let base = git(&repo, &["rev-parse", "HEAD"]);
    write(&repo, HEAD);
    git(&repo, &["commit", "-qam", "head"]);
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let data = DataDir::new(tmp.path().join("data"));
    let (d2, r2) = (data.clone(), repo.clone());
    let name = tokio::task::spawn_blocking(move || {
        cc_server::engine::index(&d2, &IndexOptions::new(&r2), &NoProgress, None).unwrap().index.name
    })
    .await
    .unwrap();
    store.workspaces().add_repo("default", &name).await.unwrap();
    let app = cc_server::serve::app_of(data, store, None, None, |_| Ok(())).unwrap();
    Fx { _tmp: tmp, app, repo, base, head }
}

async fn call(app: &Arc<App>, caller: &Caller, name: &str, args: Value) -> CallOutcome {
    app.dispatcher
        .call(
            app.services.clone(),
            &Surface::parse(None, true).unwrap(),
            caller,
            name,
            args.as_object().cloned(),
            CancellationToken::new(),
            None,
        )
        .await
}

fn who(name: &str, mode: Mode) -> Caller {
    let mut c = Caller::local(mode);
    c.principal = Principal::new(name, None);
    c
}

fn names(v: &Value, key: &str) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x[key].as_str().unwrap().to_string()).collect()
}

async fn start(f: &Fx, c: &Caller) -> Value {
    ok_value(
        call(
            &f.app,
            c,
            "start_ai_review",
            json!({"workspace_id": "default", "repo": "shop", "base": f.base, "head": "main", "dispatch": false}),
        )
        .await,
    )
}

#[test]
fn a_change_becomes_areas_with_their_symbols_blast_radius_and_walkthrough() {
    on_each_backend(|_, store| async move {
        let f = fixture(store.clone()).await;
        let alice = who("alice", Mode::Chat);
        let r = start(&f, &alice).await;
        assert_eq!((r["base_sha"].as_str(), r["head_sha"].as_str()), (Some(f.base.as_str()), Some(f.head.as_str())));
        assert_eq!(r["changed_files"], json!(["README.md", "billing/invoice.py", "shop/cart.py", "shop/pricing.py"]));
        let areas = r["areas"].as_array().unwrap();
        assert_eq!(names(&r["areas"], "area"), ["billing", "shop"], "{areas:#?}");
        let sym = |a: &Value| -> Vec<(String, String, u64)> {
            a["symbols"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    (
                        s["qualified_name"].as_str().unwrap().into(),
                        s["change"].as_str().unwrap().into(),
                        s["callers"].as_u64().unwrap(),
                    )
                })
                .collect()
        };
        let own = |q: &str, c: &str, n: u64| (q.to_string(), c.to_string(), n);
        assert_eq!(sym(&areas[0]), [own("billing.invoice.render", "modified", 1)]);
        assert_eq!(
            sym(&areas[1]),
            [
                own("shop.cart.total", "modified", 1),
                own("shop.pricing.price", "modified", 2),
                own("shop.pricing.old_discount", "removed", 2),
                own("shop.pricing.rebate", "added", 2),
            ]
        );
        // Blast radius: callers outside the area's own changes (bill calls total; report calls render).
        assert_eq!(
            (areas[0]["callers"].as_u64(), areas[0]["caller_files"].clone()),
            (Some(1), json!(["billing/invoice.py"]))
        );
        assert_eq!(
            (areas[1]["callers"].as_u64(), areas[1]["caller_files"].clone()),
            (Some(1), json!(["billing/invoice.py"]))
        );
        assert_eq!(areas[1]["blast_radius"], json!({"callers": 1, "files": 1}));
        assert_eq!(areas[1]["files"], json!(["shop/cart.py", "shop/pricing.py"]));
        // Callees first: total comes after what it calls.
        let steps: Vec<String> = names(&r["walkthrough"], "qualified_name");
        assert_eq!(
            steps,
            [
                "billing.invoice.render",
                "shop.pricing.price",
                "shop.pricing.old_discount",
                "shop.pricing.rebate",
                "shop.cart.total"
            ]
        );
        assert_eq!(r["walkthrough"][4]["calls"], json!(["shop.pricing.price", "shop.pricing.rebate"]));
        assert_eq!(r["walkthrough"][1]["called_by"], json!(["shop.cart.total"]));
        assert_eq!(r["unassigned_areas"], json!([]));
        // The space has the overview and the walkthrough; the user's checkout is untouched and
        // no worktree is left.
        let msgs = store.spaces().messages(r["space_id"].as_str().unwrap(), 0, 10).await.unwrap();
        assert_eq!(msgs.len(), 2);
        assert!(
            msgs[1].text.starts_with("Walkthrough") && msgs[1].text.contains("5. [modified] shop.cart.total"),
            "{}",
            msgs[1].text
        );
        assert_eq!(git(&f.repo, &["status", "--porcelain"]), "");
        assert_eq!(git(&f.repo, &["worktree", "list", "--porcelain"]).matches("worktree ").count(), 1);
        // A second review of the same commits uses the indexes made for the first.
        let again = start(&f, &alice).await;
        assert_eq!(
            (again["timings"]["base_cached"].as_bool(), again["timings"]["head_cached"].as_bool()),
            (Some(true), Some(true))
        );
        assert_eq!(r["timings"]["base_cached"], false);
        assert_eq!(again["areas"], r["areas"]);
        // Dispatching with no reviewer agent in the workspace leaves every area unassigned.
        let d = ok_value(
            call(&f.app, &alice, "dispatch_reviewers", json!({"workspace_id": "default", "review_id": r["review_id"]}))
                .await,
        );
        assert_eq!(d["unassigned_areas"], json!(["billing", "shop"]));
        // Bad input, by pointer.
        for (args, pointer, kind) in [
            (json!({"repo": "nope", "base": "main", "head": "main"}), "/repo", "not_found"),
            (json!({"repo": "shop", "base": "no-such-branch", "head": "main"}), "/base", "invalid_input"),
            (json!({"repo": "shop", "base": "main", "head": "--output=x"}), "/head", "invalid_input"),
        ] {
            let mut a = args.clone();
            a["workspace_id"] = json!("default");
            let e = err(call(&f.app, &alice, "start_ai_review", a).await);
            assert_eq!((e.error.as_str(), e.pointer.as_deref()), (kind, Some(pointer)), "{args}: {}", e.message);
            assert!(e.message.starts_with(pointer), "{}", e.message);
        }
        let e = err(call(
            &f.app,
            &alice,
            "dispatch_reviewers",
            json!({"workspace_id": "default", "review_id": r["review_id"], "areas": ["shop", "web"]}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/areas/1")));
    });
}

#[test]
fn findings_are_confirmed_by_peers_resolved_with_a_trace_and_dismissed_into_a_suppression() {
    on_each_backend(|_, store| async move {
        let f = fixture(store.clone()).await;
        let (alice, bob) = (who("alice", Mode::Review), who("bob", Mode::Review));
        let r = start(&f, &who("alice", Mode::Chat)).await;
        let rid = r["review_id"].as_str().unwrap().to_string();
        let add = |c: &Caller, area: &str, file: &str, line: u32, p: &str, title: &str| {
            let args = json!({"workspace_id": "default", "review_id": rid, "area": area, "file": file, "line": line,
                              "priority": p, "title": title, "body": "because"});
            let (app, c) = (f.app.clone(), c.clone_for_test());
            async move { call(&app, &c, "add_review_node", args).await }
        };
        let n1 = ok_value(add(&alice, "shop", "shop/pricing.py", 2, "P1", "price tripled without a test").await);
        assert_eq!((n1["suppressed"].as_bool(), n1["node"]["author"].as_str()), (Some(false), Some("alice")));
        let id1 = n1["node_id"].as_str().unwrap().to_string();
        // The author can never confirm its own finding; a peer can, once.
        let e =
            err(call(&f.app, &alice, "confirm_review_node", json!({"workspace_id": "default", "node_id": id1})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/node_id")));
        assert_eq!(e.data.as_ref().unwrap()["gate"], "author_confirms");
        for _ in 0..2 {
            let c = ok_value(
                call(&f.app, &bob, "confirm_review_node", json!({"workspace_id": "default", "node_id": id1})).await,
            );
            assert_eq!(c["confirmed_by"], json!(["bob"]));
        }
        // Resolved with a commit: the trace is in the review and in its space.
        let res = ok_value(
            call(
                &f.app,
                &alice,
                "resolve_review_node",
                json!({"workspace_id": "default", "node_id": id1, "commit": "main", "explanation": "test added"}),
            )
            .await,
        );
        assert_eq!(
            (res["node"]["status"].as_str(), res["node"]["resolved_commit"].as_str()),
            (Some("resolved"), Some(f.head.as_str()))
        );
        assert_eq!(
            res["trace"]["text"],
            format!("resolved price tripled without a test (shop/pricing.py:2) in commit {}: test added", f.head)
        );
        let events = store.reviews().events(&rid).await.unwrap();
        assert_eq!(
            events.iter().map(|e| e.action.as_str()).collect::<Vec<_>>(),
            ["start", "node", "confirm", "resolve"]
        );
        let msgs = store.spaces().latest(r["space_id"].as_str().unwrap(), 1).await.unwrap();
        assert!(msgs[0].text.contains(&format!("trace {id1}: resolved price tripled")), "{}", msgs[0].text);
        let e = err(call(
            &f.app,
            &bob,
            "resolve_review_node",
            json!({"workspace_id": "default", "node_id": id1, "explanation": "again"}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/node_id")));
        // Dismissed: a suppression fact in memory; the same finding at the same place comes back
        // suppressed, in this review and in the next; another title or place does not.
        let n2 = ok_value(add(&bob, "billing", "billing/invoice.py", 9, "P2", "Formatting  changes output").await);
        let id2 = n2["node_id"].as_str().unwrap().to_string();
        let d = ok_value(
            call(
                &f.app,
                &alice,
                "dismiss_review_node",
                json!({"workspace_id": "default", "node_id": id2, "reason": "intended"}),
            )
            .await,
        );
        assert_eq!((d["node"]["status"].as_str(), d["fact"]["domain"].as_str()), (Some("dismissed"), Some("reviews")));
        let fact = d["fact"]["id"].as_str().unwrap().to_string();
        assert!(d["fact"]["text"].as_str().unwrap().contains("billing/invoice.py:9"), "{}", d["fact"]);
        let again = ok_value(add(&alice, "billing", "billing/invoice.py", 9, "P2", "formatting changes output").await);
        assert_eq!((again["suppressed"].as_bool(), again["suppressed_by"].as_str()), (Some(true), Some(fact.as_str())));
        let r2 = start(&f, &who("carol", Mode::Chat)).await;
        let later = ok_value(
            call(&f.app, &bob, "add_review_node", json!({"workspace_id": "default", "review_id": r2["review_id"], "area": "billing",
                "file": "billing/invoice.py", "line": 9, "priority": "P2", "title": "formatting changes output", "body": ""})).await,
        );
        assert_eq!(later["suppressed_by"].as_str(), Some(fact.as_str()));
        for (line, title) in [(13, "formatting changes output"), (9, "another finding")] {
            let other = ok_value(add(&alice, "billing", "billing/invoice.py", line, "P3", title).await);
            assert_eq!(other["suppressed"], false, "{line} {title}");
        }
        // Bad input, by pointer.
        for (args, pointer, kind) in [
            (json!({"area": "web", "file": "shop/cart.py", "line": 1}), "/area", "not_found"),
            (json!({"area": "shop", "file": "shop/nope.py", "line": 1}), "/file", "invalid_input"),
            (json!({"area": "shop", "file": "shop/cart.py", "line": 99}), "/line", "invalid_input"),
            (json!({"area": "shop", "file": "shop/cart.py", "line": 0}), "/line", "invalid_input"),
            (
                json!({"area": "shop", "file": "shop/cart.py", "line": 1, "priority": "P9"}),
                "/priority",
                "invalid_input",
            ),
        ] {
            let mut a =
                json!({"workspace_id": "default", "review_id": rid, "priority": "P1", "title": "t", "body": ""});
            for (k, v) in args.as_object().unwrap() {
                a[k] = v.clone();
            }
            let e = err(call(&f.app, &alice, "add_review_node", a).await);
            assert_eq!((e.error.as_str(), e.pointer.as_deref()), (kind, Some(pointer)), "{args}: {}", e.message);
        }
        let e = err(call(
            &f.app,
            &alice,
            "add_review_node",
            json!({"workspace_id": "default", "review_id": "rv-nope", "area": "shop",
            "file": "shop/cart.py", "line": 1, "priority": "P1", "title": "t", "body": ""}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/review_id")));
        let e =
            err(call(&f.app, &alice, "resolve_review_node", json!({"workspace_id": "default", "node_id": id2})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/node_id")), "{}", e.message);
        let e = err(call(
            &f.app,
            &alice,
            "resolve_review_node",
            json!({"workspace_id": "default", "node_id": again["node_id"], "commit": "nope"}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/commit")));
        let e = err(call(
            &f.app,
            &alice,
            "resolve_review_node",
            json!({"workspace_id": "default", "node_id": again["node_id"]}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/commit")));
        let e =
            err(call(&f.app, &alice, "confirm_review_node", json!({"workspace_id": "default", "node_id": "nd-nope"}))
                .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/node_id")));
        // Peer review with no reviewer agent: said so.
        let e = err(call(
            &f.app,
            &alice,
            "request_peer_review",
            json!({"workspace_id": "default", "node_id": again["node_id"]}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("unavailable", Some("/node_id")), "{}", e.message);
        let e = err(call(
            &f.app,
            &alice,
            "request_peer_review",
            json!({"workspace_id": "default", "node_id": again["node_id"], "agent": "zed"}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/agent")));
    });
}

#[test]
fn verdicts_are_replaced_and_kept_and_finalize_applies_the_rule_then_closes_the_review() {
    on_each_backend(|_, store| async move {
        let f = fixture(store.clone()).await;
        let chat = who("lead", Mode::Chat);
        let (alice, bob) = (who("alice", Mode::Review), who("bob", Mode::Review));
        let new_review = || async { start(&f, &chat).await["review_id"].as_str().unwrap().to_string() };
        let node = |rid: String, c: Caller, p: &'static str| {
            let app = f.app.clone();
            async move {
                ok_value(
                    call(
                        &app,
                        &c,
                        "add_review_node",
                        json!({"workspace_id": "default", "review_id": rid, "area": "shop",
                    "file": "shop/cart.py", "line": 5, "priority": p, "title": format!("{p} finding"), "body": ""}),
                    )
                    .await,
                )["node_id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            }
        };
        let confirm = |id: String, c: Caller| {
            let app = f.app.clone();
            async move {
                ok_value(call(&app, &c, "confirm_review_node", json!({"workspace_id": "default", "node_id": id})).await)
            }
        };
        let verdict = |rid: String, c: Caller, v: &'static str, conf: f64| {
            let app = f.app.clone();
            async move {
                ok_value(
                    call(
                        &app,
                        &c,
                        "submit_reviewer_verdict",
                        json!({"workspace_id": "default", "review_id": rid,
                    "verdict": v, "confidence": conf, "explanation": format!("{v} it")}),
                    )
                    .await,
                )
            }
        };
        let finalize = |rid: String| {
            let app = f.app.clone();
            async move {
                ok_value(
                    call(
                        &app,
                        &who("lead", Mode::Chat),
                        "finalize_review",
                        json!({"workspace_id": "default", "review_id": rid}),
                    )
                    .await,
                )
            }
        };
        // Rule 3, with a replaced verdict: alice's block is replaced by ship (kept in her
        // history); bob holds at 0.5; ship 0.8 wins.
        let rid = new_review().await;
        verdict(rid.clone(), alice.clone_for_test(), "block", 0.9).await;
        let v = verdict(rid.clone(), alice.clone_for_test(), "ship", 0.8).await;
        assert_eq!(
            v["history"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| (h["verdict"].as_str().unwrap(), h["current"].as_bool().unwrap()))
                .collect::<Vec<_>>(),
            [("block", false), ("ship", true)]
        );
        verdict(rid.clone(), bob.clone_for_test(), "hold", 0.5).await;
        let s = ok_value(
            call(
                &f.app,
                &bob,
                "set_cohort_summary",
                json!({"workspace_id": "default", "review_id": rid, "area": "shop", "summary": "prices and rebates"}),
            )
            .await,
        );
        assert_eq!(s["summary"], "prices and rebates");
        let out = finalize(rid.clone()).await;
        assert_eq!((out["decision"]["verdict"].as_str(), out["decision"]["rule"].as_u64()), (Some("ship"), Some(3)));
        assert_eq!(out["decision"]["weights"], json!([0.8, 0.5, 0.0]));
        assert_eq!(out["verdicts"].as_array().unwrap().len(), 2);
        assert!(
            out["summary"]
                .as_str()
                .unwrap()
                .contains("**shop** (4 changed symbols; blast radius 1 callers in 1 files): prices and rebates"),
            "{}",
            out["summary"]
        );
        assert_eq!(
            (out["review"]["status"].as_str(), out["review"]["verdict"].as_str()),
            (Some("finalized"), Some("ship"))
        );
        assert_eq!(store.reviews().get(&rid).await.unwrap().unwrap().summary.as_deref(), out["summary"].as_str());
        // A finalized review takes nothing more.
        let n = {
            let r2 = new_review().await;
            node(r2, alice.clone_for_test(), "P3").await
        };
        for (tool, args, pointer) in [
            (
                "add_review_node",
                json!({"review_id": rid, "area": "shop", "file": "shop/cart.py", "line": 1, "priority": "P1", "title": "t", "body": ""}),
                "/review_id",
            ),
            (
                "submit_reviewer_verdict",
                json!({"review_id": rid, "verdict": "ship", "confidence": 1.0, "explanation": "x"}),
                "/review_id",
            ),
            ("set_cohort_summary", json!({"review_id": rid, "area": "shop", "summary": "x"}), "/review_id"),
            ("dispatch_reviewers", json!({"review_id": rid}), "/review_id"),
            ("finalize_review", json!({"review_id": rid}), "/review_id"),
        ] {
            let mut a = args.clone();
            a["workspace_id"] = json!("default");
            let c = if tool == "finalize_review" || tool == "dispatch_reviewers" {
                chat.clone_for_test()
            } else {
                bob.clone_for_test()
            };
            let e = err(call(&f.app, &c, tool, a).await);
            assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some(pointer)), "{tool}: {}", e.message);
            assert!(e.message.contains("finalized"), "{}", e.message);
        }
        let _ = n;
        // The store refuses too, whatever the tools checked before (a racing finalize).
        let me = cc_server::store::Actor { id: "principal:x".into(), name: "x".into() };
        let e = store
            .reviews()
            .submit_verdict(&rid, cc_server::store::reviews::Verdict::Ship, 1.0, "late", &me)
            .await
            .unwrap_err();
        assert!(matches!(e, cc_server::store::StoreError::Conflict(_)), "{e}");
        // Rule 1: a confirmed open P0 blocks, whatever the verdicts.
        let rid = new_review().await;
        let p0 = node(rid.clone(), alice.clone_for_test(), "P0").await;
        confirm(p0, bob.clone_for_test()).await;
        verdict(rid.clone(), bob.clone_for_test(), "ship", 1.0).await;
        let out = finalize(rid).await;
        assert_eq!((out["decision"]["verdict"].as_str(), out["decision"]["rule"].as_u64()), (Some("block"), Some(1)));
        assert_eq!(out["nodes"][0]["consensus"], "confirmed");
        // An unconfirmed P0 does not; a confirmed P1 holds.
        let rid = new_review().await;
        node(rid.clone(), alice.clone_for_test(), "P0").await;
        let p1 = node(rid.clone(), alice.clone_for_test(), "P1").await;
        confirm(p1, bob.clone_for_test()).await;
        verdict(rid.clone(), bob.clone_for_test(), "ship", 1.0).await;
        let out = finalize(rid).await;
        assert_eq!((out["decision"]["verdict"].as_str(), out["decision"]["rule"].as_u64()), (Some("hold"), Some(2)));
        assert_eq!(names(&out["nodes"], "consensus"), ["unconfirmed", "confirmed"]);
        // A resolved confirmed P0 no longer blocks; a tie goes to the stricter.
        let rid = new_review().await;
        let p0 = node(rid.clone(), alice.clone_for_test(), "P0").await;
        confirm(p0.clone(), bob.clone_for_test()).await;
        ok_value(
            call(
                &f.app,
                &alice,
                "resolve_review_node",
                json!({"workspace_id": "default", "node_id": p0, "explanation": "fixed"}),
            )
            .await,
        );
        verdict(rid.clone(), alice.clone_for_test(), "ship", 0.5).await;
        verdict(rid.clone(), bob.clone_for_test(), "hold", 0.5).await;
        let out = finalize(rid).await;
        assert_eq!((out["decision"]["verdict"].as_str(), out["decision"]["rule"].as_u64()), (Some("hold"), Some(3)));
        assert_eq!(out["nodes"][0]["consensus"], "resolved");
        // Nothing said: hold.
        let rid = new_review().await;
        let out = finalize(rid).await;
        assert_eq!((out["decision"]["verdict"].as_str(), out["decision"]["rule"].as_u64()), (Some("hold"), Some(4)));
        // Bad input by pointer; modes: review mode reaches the participation tools only.
        let rid = new_review().await;
        let e = err(call(&f.app, &alice, "submit_reviewer_verdict", json!({"workspace_id": "default", "review_id": rid, "verdict": "maybe", "confidence": 0.5, "explanation": "x"})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/verdict")));
        let e = err(call(&f.app, &alice, "submit_reviewer_verdict", json!({"workspace_id": "default", "review_id": rid, "verdict": "ship", "confidence": 1.5, "explanation": "x"})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/confidence")));
        let e = err(call(
            &f.app,
            &alice,
            "set_cohort_summary",
            json!({"workspace_id": "default", "review_id": rid, "area": "web", "summary": "x"}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/area")));
        let e =
            err(call(&f.app, &alice, "finalize_review", json!({"workspace_id": "default", "review_id": rid})).await);
        assert_eq!(e.error.as_str(), "mode");
        let e = err(call(
            &f.app,
            &alice,
            "start_ai_review",
            json!({"workspace_id": "default", "repo": "shop", "base": "main", "head": "main"}),
        )
        .await);
        assert_eq!(e.error.as_str(), "mode");
    });
}

trait CloneForTest {
    fn clone_for_test(&self) -> Caller;
}

impl CloneForTest for Caller {
    /// The same principal in the same conversation.
    fn clone_for_test(&self) -> Caller {
        Caller {
            conversation: self.conversation.clone(),
            principal: self.principal.clone(),
            peer: None,
            can_elicit: false,
        }
    }
}

#[test]
fn a_diagram_is_checked_against_the_heads_graph_and_refused_when_contradicted_unless_forced() {
    on_each_backend(|_, store| async move {
        let f = fixture(store.clone()).await;
        let bob = who("bob", Mode::Review);
        let r = start(&f, &who("alice", Mode::Chat)).await;
        let rid = r["review_id"].as_str().unwrap().to_string();
        let participants = json!([
            {"name": "total", "symbol": "shop.cart.total"},
            {"name": "price", "symbol": "shop.pricing.price"},
            {"name": "rebate", "symbol": "shop.pricing.rebate"},
        ]);
        let diagram = |calls: Value| json!({"kind": "sequence", "participants": participants, "calls": calls});
        let add = |d: Value, force: Option<bool>| {
            let mut args = json!({"workspace_id": "default", "review_id": rid, "area": "shop", "diagram": d});
            if let Some(x) = force {
                args["force"] = json!(x);
            }
            let (app, c) = (f.app.clone(), bob.clone_for_test());
            async move { call(&app, &c, "add_review_diagram", args).await }
        };
        // Calls the head's graph has: verified, stored unmarked.
        let ok = ok_value(
            add(diagram(json!([{"from": "total", "to": "price"}, {"from": "total", "to": "rebate"}])), None).await,
        );
        assert_eq!(
            (ok["check"]["verified"].as_u64(), ok["check"]["contradicted"].as_u64()),
            (Some(5), Some(0)),
            "{}",
            ok["check"]
        );
        assert_eq!(ok["stored"]["forced"], false);
        // price never calls total: contradicted, refused by pointer with the check in data.
        let bad = diagram(json!([{"from": "total", "to": "price"}, {"from": "price", "to": "total"}]));
        let e = err(add(bad.clone(), None).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/diagram/calls/1")), "{}", e.message);
        assert_eq!(e.data.as_ref().unwrap()["check"]["contradicted"], 1);
        // Forced: stored with its marks.
        let forced = ok_value(add(bad, Some(true)).await);
        assert_eq!(forced["stored"]["forced"], true);
        let marks: Vec<(String, String)> = forced["check"]["elements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e["pointer"].as_str().unwrap().into(), e["status"].as_str().unwrap().into()))
            .collect();
        assert_eq!(marks.last().unwrap(), &("/calls/1".to_string(), "contradicted".to_string()));
        let kept = store.reviews().diagrams(&rid).await.unwrap();
        assert_eq!(
            kept.iter().map(|d| (d.kind.as_str(), d.forced)).collect::<Vec<_>>(),
            [("sequence", false), ("sequence", true)]
        );
        assert_eq!(kept[1].marks, forced["check"]);
        // A diagram that does not hold together, and an unknown area, by pointer.
        let e = err(add(diagram(json!([{"from": "total", "to": "nobody"}])), None).await);
        assert_eq!(
            (e.error.as_str(), e.pointer.as_deref()),
            ("invalid_input", Some("/diagram/calls/0/to")),
            "{}",
            e.message
        );
        let e = err(call(
            &f.app,
            &bob,
            "add_review_diagram",
            json!({"workspace_id": "default", "review_id": rid, "area": "web",
            "diagram": diagram(json!([]))}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/area")));
        // Finalized: no more diagrams.
        ok_value(
            call(
                &f.app,
                &who("lead", Mode::Chat),
                "finalize_review",
                json!({"workspace_id": "default", "review_id": rid}),
            )
            .await,
        );
        let e = err(add(diagram(json!([])), None).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/review_id")));
    });
}

/// An app over `store` whose configuration points [tickets.github] at the double.
fn app_with_github(data: DataDir, store: Store, d: &crate::github::Double) -> Arc<App> {
    let mut config = cc_server::config::Config::default();
    config.tickets.github = Some(cc_server::config::GitHub {
        repository: crate::github::REPO.into(),
        workspaces: vec!["default".into()],
        base_url: d.url(),
        token: Some(crate::github::TOKEN.into()),
        token_env: "CC_TEST_NO_SUCH_VARIABLE".into(),
        assignees: Default::default(),
        timeout_secs: 5,
        sync_every_secs: 1,
        max_wait_secs: 2,
    });
    let services = cc_server::services::Services::with_config(data, store, None, config);
    Arc::new(App::new(services, cc_server::mcp::tools::registry(), None))
}

#[test]
fn a_pull_requests_review_is_published_with_inline_comments_and_the_rest_in_its_summary() {
    on_each_backend(|_, store| async move {
        let f = fixture(store.clone()).await;
        let d = crate::github::Double::start().await;
        // Pull request 9 is base..head of the fixture, with git's own patches.
        let files: Vec<(String, String, Option<String>)> = ["billing/invoice.py", "shop/cart.py", "shop/pricing.py"]
            .iter()
            .map(|p| {
                let diff = git(&f.repo, &["diff", &f.base, &f.head, "--", p]);
                let patch = diff[diff.find("@@").unwrap()..].to_string();
                (p.to_string(), "modified".to_string(), Some(patch))
            })
            .collect();
        d.add_pull(crate::github::Pull {
            number: 9,
            title: "rebates".into(),
            base_sha: f.base.clone(),
            head_sha: f.head.clone(),
            files,
        });
        let app = app_with_github(f.app.services.data.clone(), store.clone(), &d);
        let (lead, alice, bob) = (who("lead", Mode::Chat), who("alice", Mode::Review), who("bob", Mode::Review));
        let r = ok_value(
            call(
                &app,
                &lead,
                "start_ai_review",
                json!({"workspace_id": "default", "repo": "shop", "pr": 9, "dispatch": false}),
            )
            .await,
        );
        assert_eq!((r["base_sha"].as_str(), r["head_sha"].as_str()), (Some(f.base.as_str()), Some(f.head.as_str())));
        let rid = r["review_id"].as_str().unwrap().to_string();
        assert_eq!(store.reviews().get(&rid).await.unwrap().unwrap().pr, Some(9));
        let add = |file: &str, line: u32, title: &str| {
            let args = json!({"workspace_id": "default", "review_id": rid, "area": if file.starts_with("shop") { "shop" } else { "billing" },
                              "file": file, "line": line, "priority": "P2", "title": title, "body": "details"});
            let (app, c) = (app.clone(), alice.clone_for_test());
            async move { ok_value(call(&app, &c, "add_review_node", args).await)["node_id"].as_str().unwrap().to_string() }
        };
        let on_diff = add("shop/pricing.py", 2, "tripled").await;
        add("billing/invoice.py", 1, "import unused").await;
        ok_value(call(&app, &bob, "confirm_review_node", json!({"workspace_id": "default", "node_id": on_diff})).await);
        let e =
            err(call(&app, &lead, "publish_review_to_github", json!({"workspace_id": "default", "review_id": rid}))
                .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/review_id")), "{}", e.message);
        ok_value(call(&app, &lead, "finalize_review", json!({"workspace_id": "default", "review_id": rid})).await);
        let p = ok_value(
            call(&app, &lead, "publish_review_to_github", json!({"workspace_id": "default", "review_id": rid})).await,
        );
        assert_eq!((p["pr"].as_i64(), p["event"].as_str()), (Some(9), Some("COMMENT")));
        assert_eq!(
            p["inline"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| (c["path"].as_str().unwrap(), c["line"].as_u64().unwrap()))
                .collect::<Vec<_>>(),
            [("shop/pricing.py", 2)]
        );
        assert_eq!(p["in_summary"][0]["path"], "billing/invoice.py");
        let posted = d.reviews(9);
        assert_eq!(posted.len(), 1);
        assert_eq!(posted[0]["commit_id"], f.head.as_str());
        let body = posted[0]["body"].as_str().unwrap();
        assert!(
            body.starts_with("## Review of shop")
                && body.contains("### Findings outside the diff")
                && body.contains("`billing/invoice.py:1`"),
            "{body}"
        );
        assert_eq!(posted[0]["comments"][0]["path"], "shop/pricing.py");
        assert!(
            posted[0]["comments"][0]["body"].as_str().unwrap().contains("confirmed by bob"),
            "{}",
            posted[0]["comments"][0]
        );
        // A review not started from a pull request needs its number; one GitHub does not know is refused.
        let other = start(&f, &lead).await["review_id"].as_str().unwrap().to_string();
        ok_value(call(&app, &lead, "finalize_review", json!({"workspace_id": "default", "review_id": other})).await);
        let e =
            err(call(&app, &lead, "publish_review_to_github", json!({"workspace_id": "default", "review_id": other}))
                .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/pr")));
        let e = err(call(
            &app,
            &lead,
            "publish_review_to_github",
            json!({"workspace_id": "default", "review_id": other, "pr": 404}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("conflict", Some("/pr")), "{}", e.message);
        // start_ai_review: a pull request GitHub does not know, pr with base, neither.
        let e =
            err(call(&app, &lead, "start_ai_review", json!({"workspace_id": "default", "repo": "shop", "pr": 404}))
                .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("not_found", Some("/pr")));
        let e = err(call(
            &app,
            &lead,
            "start_ai_review",
            json!({"workspace_id": "default", "repo": "shop", "pr": 9, "base": "main"}),
        )
        .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/pr")));
        let e = err(call(&app, &lead, "start_ai_review", json!({"workspace_id": "default", "repo": "shop"})).await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("invalid_input", Some("/base")));
        // Without a GitHub client: unavailable.
        let e =
            err(call(&f.app, &lead, "start_ai_review", json!({"workspace_id": "default", "repo": "shop", "pr": 9}))
                .await);
        assert_eq!((e.error.as_str(), e.pointer.as_deref()), ("unavailable", Some("/pr")));
    });
}
