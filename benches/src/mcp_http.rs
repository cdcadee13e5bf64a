//! A bare MCP client over Streamable HTTP for the load generators (`mcp_soak`, `mcp_load`):
//! JSON-RPC messages POSTed with hyper, answers read from a JSON body or the first `data:`
//! event of an SSE one. Compiled, so that the clients are not what saturates the machine.
//! It speaks to any Streamable HTTP MCP server (cc-server, the Python SDK's, …).

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};

pub type HttpClient = Client<hyper_util::client::legacy::connect::HttpConnector, Full<Bytes>>;

/// The protocol version the clients ask for.
pub const PROTOCOL: &str = "2025-06-18";

/// A client keeping up to `idle` connections per host.
pub fn client(idle: usize) -> HttpClient {
    Client::builder(TokioExecutor::new()).pool_max_idle_per_host(idle).build_http()
}

/// One POST to the MCP endpoint: the status, the session id header, and the JSON-RPC
/// message of the body (a JSON body, or the first `data:` event of an SSE one).
pub async fn post(client: &HttpClient, url: &str, session: Option<&str>, body: &Value) -> (u16, Option<String>, Value) {
    let mut req = hyper::Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", PROTOCOL);
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let req = req.body(Full::new(Bytes::from(body.to_string()))).expect("a request");
    let resp = match client.request(req).await {
        Ok(r) => r,
        Err(e) => return (0, None, json!({"transport_error": e.to_string()})),
    };
    let status = resp.status().as_u16();
    let sid = resp.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_string);
    let bytes = match resp.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => return (status, sid, json!({"transport_error": e.to_string()})),
    };
    let text = String::from_utf8_lossy(&bytes);
    let msg = serde_json::from_str(&text).ok().or_else(|| {
        text.lines().filter_map(|l| l.strip_prefix("data:")).find_map(|d| serde_json::from_str(d.trim()).ok())
    });
    (status, sid, msg.unwrap_or(Value::Null))
}

/// Ends a session (DELETE).
pub async fn delete(client: &HttpClient, url: &str, session: &str) {
    let req = hyper::Request::delete(url)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", PROTOCOL)
        .body(Full::new(Bytes::new()))
        .expect("a request");
    if let Ok(r) = client.request(req).await {
        let _ = r.into_body().collect().await;
    }
}

/// Opens a session (initialize, then notifications/initialized): its id.
pub async fn open_session(client: &HttpClient, url: &str, name: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": name, "version": "1"}}});
    let (status, sid, msg) = post(client, url, None, &init).await;
    let sid = sid.unwrap_or_else(|| panic!("initialize: {status} without a session id: {msg}"));
    let (status, _, _) =
        post(client, url, Some(&sid), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
    assert!(status < 300, "notifications/initialized: {status}");
    sid
}

/// A tools/call request.
pub fn tool_call(name: &str, arguments: Value, id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}
