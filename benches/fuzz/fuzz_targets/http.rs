//! The HTTP layer: the axum router of `cc-server serve` (`cc_server::mcp::http::router`:
//! the guard, `/mcp` through rmcp's Streamable HTTP service, `/sse` + `/messages`,
//! `/approvals`) driven in process with `tower::ServiceExt::oneshot` on an arbitrary
//! method, path, query, headers and body. Header values are mostly well-formed (a loopback
//! Host, JSON content types, the operator's token, the id of a session an earlier input
//! opened) so that inputs get past the guard, else fuzzed. No panic, no 5xx but 503 (the
//! session caps), and a JSON body where the response says JSON.
#![no_main]

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Method, Request, StatusCode};
use axum::Router;
use cc_server::mcp::http::{HttpOptions, MAX_BODY};
use cc_server::mcp::sessions::SessionLimits;
use libfuzzer_sys::fuzz_target;
use tower::ServiceExt;

const OPERATOR: &str = "operator-secret";

fn router() -> &'static Router {
    static R: OnceLock<Router> = OnceLock::new();
    R.get_or_init(|| {
        let f = cc_fuzz::fixture();
        let opts = HttpOptions {
            addr: "127.0.0.1:9030".parse().unwrap(),
            principals: Default::default(),
            operator_token: Some(OPERATOR.into()),
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            max_body: MAX_BODY,
            // Sessions expire quickly, so that a long run keeps opening new ones.
            sessions: SessionLimits { idle: Duration::from_millis(500), ..SessionLimits::default() },
        };
        let _rt = f.rt.enter();
        cc_server::mcp::http::router(
            f.app.clone(),
            f.surface.clone(),
            &opts,
            tokio_util::sync::CancellationToken::new(),
        )
    })
}

/// Ids of sessions that initialize requests opened (the newest 16).
fn sessions() -> &'static Mutex<Vec<String>> {
    static S: OnceLock<Mutex<Vec<String>>> = OnceLock::new();
    S.get_or_init(Default::default)
}

const METHODS: &[&str] = &["POST", "GET", "DELETE", "PUT", "OPTIONS", "HEAD", "PATCH"];
const PATHS: &[&str] = &[
    "/mcp",
    "/mcp",
    "/mcp",
    "/sse",
    "/messages",
    "/approvals",
    "/approvals/a1",
    "/approvals/a1/approve",
    "/approvals/a1/reject",
    "/",
    "/mcp/",
    "/messages/x",
];

/// Canned values of each header: the fuzzer picks one, or none, or its own bytes.
const HEADERS: &[(&str, &[&str])] = &[
    ("host", &["127.0.0.1:9030", "localhost", "[::1]:9030", "evil.example.com"]),
    ("origin", &["http://localhost:3000", "https://evil.example.com", "null"]),
    ("content-type", &["application/json", "application/json; charset=utf-8", "text/plain"]),
    ("accept", &["application/json, text/event-stream", "text/event-stream", "application/json"]),
    ("authorization", &["Bearer operator-secret", "bearer operator-secret", "Bearer wrong", "Basic x"]),
    ("mcp-session-id", &["SESSION", "not-a-session"]),
    ("mcp-protocol-version", &["2025-06-18", "2025-03-26", "2024-11-05", "1999-01-01"]),
    ("cc-mode", &["plan", "chat", "review", "orchestrate", "bogus"]),
    ("last-event-id", &["0", "1/2"]),
    ("content-length", &["0", "99999999999"]),
];

fuzz_target!(|data: &[u8]| {
    let f = cc_fuzz::fixture();
    let router = router();
    let mut input = cc_fuzz::Bytes(data);
    let method = Method::from_bytes(input.pick(METHODS).as_bytes()).unwrap();
    let mut uri = input.pick(PATHS).to_string();
    let query = input.chunk();
    if !query.is_empty() {
        uri.push('?');
        uri.push_str(&String::from_utf8_lossy(query));
    }
    let mut req = Request::builder().method(method);
    let Ok(parsed) = uri.parse::<axum::http::Uri>() else { return };
    req = req.uri(parsed);
    let live = sessions().lock().unwrap().clone();
    for (name, canned) in HEADERS {
        let choice = input.byte() as usize;
        let value: Vec<u8> = match choice % (canned.len() + 2) {
            0 => continue,
            1 => input.chunk().to_vec(),
            i => {
                let v = canned[i - 2];
                if v == "SESSION" {
                    match live.get(choice / 8 % live.len().max(1)) {
                        Some(id) => id.clone().into_bytes(),
                        None => continue,
                    }
                } else {
                    v.as_bytes().to_vec()
                }
            }
        };
        if let Ok(v) = HeaderValue::from_bytes(&value) {
            req = req.header(HeaderName::from_static(name), v);
        }
    }
    let Ok(req) = req.body(Body::from(input.rest().to_vec())) else { return };
    let what = format!("{} {}", req.method(), req.uri());
    let response = f.rt.block_on(async {
        let response = tokio::time::timeout(Duration::from_secs(10), router.clone().oneshot(req))
            .await
            .unwrap_or_else(|_| panic!("{what}: no response in 10 s"))
            .unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let json = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        // Streams (SSE) are not read: they stay open. JSON bodies are read whole.
        let body = if json {
            let body =
                tokio::time::timeout(Duration::from_secs(10), axum::body::to_bytes(response.into_body(), 1 << 24))
                    .await
                    .unwrap_or_else(|_| panic!("{what}: the JSON body did not end in 10 s"));
            Some(body.expect("a JSON body reads"))
        } else {
            None
        };
        (status, headers, body)
    });
    let (status, headers, body) = response;
    assert!(
        !status.is_server_error() || status == StatusCode::SERVICE_UNAVAILABLE,
        "{what}: {status} {:?}",
        body.as_ref().map(|b| String::from_utf8_lossy(b).into_owned())
    );
    if let Some(body) = &body {
        if !body.is_empty() {
            assert!(
                serde_json::from_slice::<serde_json::Value>(body).is_ok(),
                "{what}: {status}: a JSON response that is not JSON: {}",
                String::from_utf8_lossy(body)
            );
        }
    }
    if let Some(id) = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()) {
        let mut live = sessions().lock().unwrap();
        if !live.iter().any(|s| s == id) {
            live.push(id.to_string());
            if live.len() > 16 {
                live.remove(0);
            }
        }
    }
});
