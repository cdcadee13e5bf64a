//! News feed figures, against feeds this process serves on 127.0.0.1 (nothing else is
//! fetched): a refresh of `--feeds` feeds of `--items` items each, first (every article
//! new), then again (every feed answers 304), then again with validators the server
//! ignores (200, every article unchanged); and list_articles latency over `--articles`
//! articles through the MCP dispatcher (first page, a filtered page, pages at random
//! cursors).
//!
//! ```text
//! feeds_bench refresh [--feeds 200] [--items 50] [--concurrency 8] [--postgres ADMIN_URL]
//! feeds_bench list [--articles 100000] [--samples 300] [--seed 42] [--postgres ADMIN_URL]
//! ```
//!
//! SQLite in a temporary folder unless `--postgres` names a server (a database is created
//! for the run and dropped after: the URL of tests/postgres.sh will do). Prints `key=value`
//! lines. The feed server shares the process (and the 2 cores) with the refresh.

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use cc_benches::{percentile, BenchStore, Rng};
use cc_indexer::DataDir;
use cc_server::app::App;
use cc_server::feeds::FeedPolicy;
use cc_server::mcp::dispatch::Caller;
use cc_server::mcp::policy::Mode;
use cc_server::store::feeds::{FetchedFeed, NewArticle};
use cc_server::store::Store;
use serde_json::{json, Value};

fn usage() -> ! {
    eprintln!(
        "usage: feeds_bench refresh [--feeds N] [--items N] [--concurrency N] [--postgres ADMIN_URL]\n       \
         feeds_bench list [--articles N] [--samples N] [--seed S] [--postgres ADMIN_URL]"
    );
    std::process::exit(2)
}

struct Opts {
    feeds: usize,
    items: usize,
    concurrency: usize,
    articles: usize,
    samples: usize,
    seed: u64,
    postgres: Option<String>,
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(cmd) = args.next() else { usage() };
    let mut o = Opts {
        feeds: 200,
        items: 50,
        concurrency: FeedPolicy::default().concurrency,
        articles: 100_000,
        samples: 300,
        seed: 42,
        postgres: None,
    };
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        let num = |v: String| v.parse::<usize>().unwrap_or_else(|_| usage());
        match a.as_str() {
            "--feeds" => o.feeds = num(val()),
            "--items" => o.items = num(val()),
            "--concurrency" => o.concurrency = num(val()).max(1),
            "--articles" => o.articles = num(val()),
            "--samples" => o.samples = num(val()).max(1),
            "--seed" => o.seed = num(val()) as u64,
            "--postgres" => o.postgres = Some(val()),
            _ => usage(),
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    rt.block_on(async {
        let db = BenchStore::open("feeds", o.postgres.as_deref()).await;
        match cmd.as_str() {
            "refresh" => refresh(&o, &db.store).await,
            "list" => list(&o, &db.store).await,
            _ => usage(),
        }
        db.close().await;
    });
}

/// The feeds served: feed `n` is `docs[n]` (`items` items of about 1 KB of HTML each, made
/// once, before the clock starts), with an ETag and a Last-Modified; `honour` says whether
/// If-None-Match is answered with 304.
struct Served {
    docs: Vec<String>,
    honour: std::sync::atomic::AtomicBool,
}

fn feed_doc(n: usize, items: usize) -> String {
    let mut s = format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Feed {n}</title><link>https://f{n}.example/</link><description>d</description>"
    );
    for i in 0..items {
        let para = "<p>Lorem ipsum dolor sit amet, <b>consectetur</b> adipiscing elit, sed do eiusmod tempor \
                    incididunt ut labore et dolore magna aliqua. <a href=\"https://example.com/x\">Ut enim</a> ad \
                    minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo.</p>";
        s.push_str(&format!(
            "<item><guid>f{n}-i{i}</guid><title>Item {i} of feed {n}</title><link>https://f{n}.example/{i}</link>\
             <pubDate>Tue, 01 Apr 2025 {:02}:{:02}:00 GMT</pubDate><description><![CDATA[{para}{para}{para}]]></description></item>",
            i / 60 % 24,
            i % 60
        ));
    }
    s.push_str("</channel></rss>");
    s
}

async fn serve_feed(State(s): State<Arc<Served>>, Path(n): Path<usize>, headers: HeaderMap) -> Response {
    let Some(doc) = s.docs.get(n) else { return axum::http::StatusCode::NOT_FOUND.into_response() };
    let etag = format!("\"f{n}-v1\"");
    let honour = s.honour.load(std::sync::atomic::Ordering::Relaxed);
    if honour && headers.get("if-none-match").and_then(|v| v.to_str().ok()) == Some(etag.as_str()) {
        return (axum::http::StatusCode::NOT_MODIFIED, [("etag", etag)]).into_response();
    }
    (
        [
            ("content-type", "application/rss+xml".to_string()),
            ("etag", etag),
            ("last-modified", "Tue, 01 Apr 2025 00:00:00 GMT".into()),
        ],
        doc.clone(),
    )
        .into_response()
}

fn app(store: &Store, concurrency: usize) -> (Arc<App>, tempfile::TempDir) {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let data = DataDir::new(tmp.path().join("data"));
    std::fs::create_dir_all(&data.root).expect("the data folder");
    let app = cc_server::serve::app_of(data, store.clone(), None, None, |p| {
        p.feeds = FeedPolicy { concurrency, ..FeedPolicy::default() };
        Ok(())
    })
    .expect("the app");
    (app, tmp)
}

async fn call(app: &Arc<App>, name: &str, args: Value) -> Value {
    cc_benches::tool_value(name, cc_benches::call_tool(app, &Caller::local(Mode::Chat), name, &args).await)
}

async fn refresh(o: &Opts, store: &Store) {
    let docs = (0..o.feeds).map(|n| feed_doc(n, o.items)).collect();
    let served = Arc::new(Served { docs, honour: true.into() });
    let router = axum::Router::new().route("/feed/{n}", axum::routing::get(serve_feed)).with_state(served.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port on 127.0.0.1");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(async move { axum::serve(listener, router).await });
    for n in 0..o.feeds {
        store.feeds().add(&format!("http://{addr}/feed/{n}"), None).await.expect("add");
    }
    let (app, _tmp) = app(store, o.concurrency);
    println!("feeds={} items={} concurrency={}", o.feeds, o.items, o.concurrency);
    let rounds = [("first", true), ("not_modified", true), ("unchanged_200", false)];
    for (label, honour) in rounds {
        served.honour.store(honour, std::sync::atomic::Ordering::Relaxed);
        let t = Instant::now();
        let r = call(&app, "refresh_feeds", json!({})).await;
        let wall = t.elapsed().as_secs_f64();
        println!(
            "refresh={label} wall_s={wall:.3} new={} updated={} not_modified={} failed={}",
            r["new"], r["updated"], r["not_modified"], r["failed"]
        );
        assert_eq!(r["failed"], 0, "{r}");
    }
}

async fn list(o: &Opts, store: &Store) {
    // 100 feeds of articles/100 each, stored as refreshes would (one transaction per feed).
    let feeds = 100.min(o.articles.max(1));
    let per = o.articles / feeds;
    let t = Instant::now();
    let mut feed_ids = Vec::new();
    for f in 0..feeds {
        let id = store.feeds().add(&format!("http://127.0.0.1:9/feed/{f}"), None).await.expect("add").id;
        let arts: Vec<NewArticle> = (0..per)
            .map(|i| {
                let published = 1_600_000_000 + (f * per + i) as i64 * 37 % 100_000_000;
                NewArticle {
                    dedup_key: format!("id:f{f}-{i}"),
                    guid: Some(format!("f{f}-{i}")),
                    title: format!("Article {i} of feed {f}"),
                    link: Some(format!("https://f{f}.example/{i}")),
                    author: Some("Bench".into()),
                    published_at: Some(published),
                    updated_at: None,
                    content: "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>".repeat(8),
                    content_html: true,
                    content_hash: format!("h{f}-{i}"),
                }
            })
            .collect();
        store.feeds().apply(&id, &FetchedFeed { status: 200, ..FetchedFeed::default() }, &arts).await.expect("apply");
        feed_ids.push(id);
    }
    println!("articles={} feeds={feeds} load_s={:.1}", feeds * per, t.elapsed().as_secs_f64());
    let (app, _tmp) = app(store, 1);
    // Every page's cursor and every article's id, by paging through all of it (limit 200).
    let t = Instant::now();
    let mut cursors = Vec::new();
    let mut ids: Vec<Value> = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"limit": 200});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = call(&app, "list_articles", args).await;
        ids.extend(page["articles"].as_array().expect("articles").iter().map(|a| a["article_id"].clone()));
        match page["next_cursor"].as_str() {
            Some(c) => {
                cursors.push(c.to_string());
                cursor = Some(c.to_string());
            }
            None => break,
        }
    }
    println!("walk_all_pages_limit200_s={:.2} pages={}", t.elapsed().as_secs_f64(), cursors.len() + 1);
    // The newest 20 read (the unread filter skips them), and 100 saved at random (the saved
    // filter's page is theirs).
    let mut rng = Rng::new(o.seed);
    for id in ids.iter().take(200).step_by(10) {
        call(&app, "set_article_read", json!({"article_id": id, "read": true})).await;
    }
    let mut saved = 0;
    for _ in 0..100.min(ids.len()) {
        let id = &ids[rng.below(ids.len())];
        let r = call(&app, "set_article_saved", json!({"article_id": id, "saved": true})).await;
        saved += usize::from(r["changed"] == true);
    }
    println!("read=20 saved={saved}");
    let mut time = |label: &str, args: &mut dyn FnMut(&mut Rng) -> Value| {
        let mut ms = Vec::with_capacity(o.samples);
        let app = app.clone();
        let mut calls = Vec::new();
        for _ in 0..o.samples {
            calls.push(args(&mut rng));
        }
        let label = label.to_string();
        async move {
            for a in calls {
                let t = Instant::now();
                let v = call(&app, "list_articles", a).await;
                ms.push(t.elapsed().as_secs_f64() * 1e3);
                std::hint::black_box(v);
            }
            ms.sort_by(f64::total_cmp);
            println!(
                "list={label} samples={} p50_ms={:.2} p95_ms={:.2} p99_ms={:.2} max_ms={:.2}",
                ms.len(),
                percentile(&ms, 50.0),
                percentile(&ms, 95.0),
                percentile(&ms, 99.0),
                ms.last().copied().unwrap_or(0.0)
            );
        }
    };
    time("first_page_limit50", &mut |_| json!({})).await;
    time("random_cursor_limit50", &mut |r| json!({"cursor": cursors[r.below(cursors.len())]})).await;
    time("unread_first_page", &mut |_| json!({"unread": true})).await;
    time("one_feed_random_cursor", &mut |r| {
        // A cursor of the whole list works inside one feed too (the feed's articles after it).
        json!({"feed_id": feed_ids[r.below(feed_ids.len())], "cursor": cursors[r.below(cursors.len())]})
    })
    .await;
    time("saved_only", &mut |_| json!({"saved": true})).await;
}
