//! A review onto a pull request against the local GitHub API double (`github.rs`'s
//! [`Double`], protocol-faithful for pulls, their files and reviews, because GitHub's API
//! cannot be reached from the tests): the pull request read, its files paginated, a review
//! with inline comments posted, a finding off the diff placed into the summary instead of
//! failing the review, GitHub's 422 surfaced when a caller posts one anyway, and rate limits
//! honoured as for issues.

use std::time::Duration;

use cc_server::providers::github::{GhError, GitHub, NewReview, PrFile, ReviewComment, ReviewEvent, Side};
use cc_server::reviews::publish::{place, summary_body};

use crate::github::{Double, Fault, Pull, REPO, TOKEN};

const BASE: &str = "1111111111111111111111111111111111111111";
const HEAD: &str = "2222222222222222222222222222222222222222";

/// `app.py`'s change: line 2 replaced, line 3 added; its old lines 1..=4, new 1..=5.
const APP_PATCH: &str = "@@ -1,4 +1,5 @@\n import os\n-x = 1\n+x = 2\n+y = 3\n \n def f():";

fn run<F: std::future::Future<Output = ()>>(f: F) {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(f)
}

fn client(d: &Double, max_wait: u64) -> GitHub {
    let config = cc_server::config::GitHub {
        repository: REPO.into(),
        workspaces: vec!["default".into()],
        base_url: d.url(),
        token: Some(TOKEN.into()),
        token_env: "CC_TEST_NO_SUCH_VARIABLE".into(),
        assignees: Default::default(),
        timeout_secs: 5,
        sync_every_secs: 1,
        max_wait_secs: max_wait,
    };
    GitHub::from_config(&config, None).unwrap()
}

/// Pull request 7: `app.py` changed, a binary logo added, and `extra` more files.
fn seed(d: &Double, extra: usize) {
    let mut files = vec![
        ("app.py".to_string(), "modified".to_string(), Some(APP_PATCH.to_string())),
        ("logo.png".to_string(), "added".to_string(), None),
    ];
    files.extend((0..extra).map(|i| (format!("gen/f{i:03}.py"), "added".into(), Some("@@ -0,0 +1 @@\n+x = 1".into()))));
    d.add_pull(Pull { number: 7, title: "Pay by card".into(), base_sha: BASE.into(), head_sha: HEAD.into(), files });
}

fn comment(path: &str, line: u32, side: Side, body: &str) -> ReviewComment {
    ReviewComment { path: path.into(), line, side, body: body.into() }
}

#[test]
fn a_pull_request_and_its_files_are_read_page_by_page() {
    run(async {
        let d = Double::start().await;
        seed(&d, 148);
        let gh = client(&d, 2);
        let pr = gh.pull_request(7).await.unwrap();
        assert_eq!((pr.number, pr.base_sha.as_str(), pr.head_sha.as_str()), (7, BASE, HEAD));
        assert_eq!(
            (pr.base_ref.as_str(), pr.head_ref.as_str(), pr.title.as_str()),
            ("main", "feature-7", "Pay by card")
        );
        assert_eq!(pr.html_url, format!("https://github.example/{REPO}/pull/7"));
        let files = gh.pull_request_files(7).await.unwrap();
        assert_eq!(files.len(), 150);
        assert_eq!(
            files[0],
            PrFile { filename: "app.py".into(), status: "modified".into(), patch: Some(APP_PATCH.into()) }
        );
        assert_eq!(files[1].patch, None);
        assert_eq!(files[149].filename, "gen/f147.py");
        let pages: Vec<String> =
            d.log().into_iter().map(|(w, _)| w).filter(|w| w.starts_with("GET pulls/7/files")).collect();
        assert_eq!(pages, ["GET pulls/7/files page 1", "GET pulls/7/files page 2"]);
        let missing = gh.pull_request(8).await.unwrap_err();
        assert_eq!(missing, GhError::Refused("GitHub refused GET /repos/acme/shop/pulls/8 (404 Not Found)".into()));
    });
}

#[test]
fn a_review_goes_inline_where_the_diff_allows_and_into_the_summary_elsewhere() {
    run(async {
        let d = Double::start().await;
        seed(&d, 0);
        let gh = client(&d, 2);
        let files = gh.pull_request_files(7).await.unwrap();
        let findings = vec![
            comment("app.py", 3, Side::Right, "P1: `y` is never read"),
            comment("app.py", 2, Side::Left, "P3: the old default was documented"),
            comment("app.py", 40, Side::Right, "P2: f() leaks a handle"),
            comment("billing.py", 12, Side::Right, "P0: charges twice"),
            comment("logo.png", 1, Side::Right, "P3: too large"),
        ];
        let placed = place(findings, &files);
        assert_eq!(placed.inline.len(), 2);
        assert_eq!(
            placed.outside.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(),
            ["app.py", "billing.py", "logo.png"]
        );
        let review = NewReview {
            commit_id: HEAD.into(),
            body: summary_body("Hold: one P0 outside the diff.", &placed.outside),
            event: ReviewEvent::RequestChanges,
            comments: placed.inline.clone(),
        };
        let posted = gh.create_review(7, &review).await.unwrap();
        assert_eq!(posted.html_url, format!("https://github.example/{REPO}/pull/7#pullrequestreview-{}", posted.id));
        let stored = d.reviews(7);
        assert_eq!(stored.len(), 1);
        let r = &stored[0];
        assert_eq!((r["state"].as_str(), r["commit_id"].as_str()), (Some("CHANGES_REQUESTED"), Some(HEAD)));
        let comments: Vec<(String, u64, String)> = r["comments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (c["path"].as_str().unwrap().into(), c["line"].as_u64().unwrap(), c["side"].as_str().unwrap().into())
            })
            .collect();
        assert_eq!(comments, [("app.py".into(), 3, "RIGHT".into()), ("app.py".into(), 2, "LEFT".into())]);
        let body = r["body"].as_str().unwrap();
        assert!(body.starts_with("Hold: one P0 outside the diff.\n\n### Findings outside the diff\n"), "{body}");
        assert!(body.contains("- `billing.py:12`: P0: charges twice"), "{body}");
        assert!(body.contains("- `app.py:40`: P2: f() leaks a handle"), "{body}");
    });
}

#[test]
fn a_comment_off_the_diff_posted_anyway_is_githubs_422_and_nothing_is_stored() {
    run(async {
        let d = Double::start().await;
        seed(&d, 0);
        let gh = client(&d, 2);
        let review = NewReview {
            commit_id: HEAD.into(),
            body: "see inline".into(),
            event: ReviewEvent::Comment,
            // Old line 3 is context (kept): on the LEFT it is commentable; new line 6 is not in the hunk.
            comments: vec![comment("app.py", 3, Side::Left, "ok"), comment("app.py", 6, Side::Right, "off the diff")],
        };
        let e = gh.create_review(7, &review).await.unwrap_err();
        assert_eq!(
            e,
            GhError::Refused(
                "GitHub refused POST /repos/acme/shop/pulls/7/reviews (422 Unprocessable Entity): Line could not be resolved"
                    .into()
            )
        );
        assert!(d.reviews(7).is_empty());
        // Without the stray comment the same review goes through.
        let ok = NewReview { comments: review.comments[..1].to_vec(), ..review };
        gh.create_review(7, &ok).await.unwrap();
        assert_eq!(d.reviews(7)[0]["comments"][0]["side"], "LEFT");
    });
}

#[test]
fn rate_limits_are_honoured_for_pull_requests_as_for_issues() {
    run(async {
        let d = Double::start().await;
        seed(&d, 0);
        let gh = client(&d, 2);
        // Within what the client waits in place: waited, then answered.
        d.fault(Fault::RetryAfter(429, 1));
        d.fault(Fault::PrimaryLimit(1));
        let started = std::time::Instant::now();
        assert_eq!(gh.pull_request(7).await.unwrap().head_sha, HEAD);
        assert!(started.elapsed() >= Duration::from_millis(950), "{:?}", started.elapsed());
        let gets = d.log().iter().filter(|(w, _)| w == "GET pulls/7").count();
        assert_eq!(gets, 3);
        // Longer: handed back with the time to retry after, nothing posted.
        d.fault(Fault::RetryAfter(403, 30));
        let review =
            NewReview { commit_id: HEAD.into(), body: "b".into(), event: ReviewEvent::Comment, comments: vec![] };
        match gh.create_review(7, &review).await.unwrap_err() {
            GhError::Transient(m, Some(wait)) => {
                assert_eq!(wait, Duration::from_secs(30));
                assert!(m.contains("retry after 30 s"), "{m}");
            }
            other => panic!("expected a transient error with a wait, got {other:?}"),
        }
        assert!(d.reviews(7).is_empty());
    });
}
