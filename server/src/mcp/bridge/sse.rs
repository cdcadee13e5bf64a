//! The legacy HTTP+SSE transport of MCP (protocol 2024-11-05) as a client, for bridged servers
//! that have not moved to Streamable HTTP: a GET opens the server's event stream; its first
//! event, `endpoint`, names the URL every message is POSTed to; the server's messages come
//! back as `message` events on that stream. (rmcp dropped this transport's client; this is
//! it over the workspace's reqwest and the SSE parser rmcp uses.)
//!
//! Messages are POSTed one at a time, in the order rmcp sends them (a cancellation never
//! overtakes its request). The endpoint must be on the stream's own origin: a server cannot
//! send cc-server's requests, and the operator's headers, anywhere else.

use std::future::Future;

use futures::StreamExt;
use reqwest::header::{HeaderMap, ACCEPT, CONTENT_TYPE};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;
use sse_stream::SseStream;
use tokio::sync::{mpsc, oneshot};

const EVENT_STREAM: &str = "text/event-stream";

/// Why a message could not be sent.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SseError(String);

type Outgoing = (ClientJsonRpcMessage, oneshot::Sender<Result<(), SseError>>);

/// One open event stream and the queue of messages POSTed to its endpoint.
pub struct LegacySse {
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    outgoing: mpsc::UnboundedSender<Outgoing>,
    tasks: [tokio::task::AbortHandle; 2],
}

impl Drop for LegacySse {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Opens `url`'s event stream and waits for its `endpoint` event.
pub async fn connect(client: reqwest::Client, url: &str, headers: HeaderMap) -> Result<LegacySse, String> {
    let base = reqwest::Url::parse(url).map_err(|e| format!("url {url}: {e}"))?;
    let response = client
        .get(base.clone())
        .headers(headers.clone())
        .header(ACCEPT, EVENT_STREAM)
        .send()
        .await
        .map_err(|e| format!("GET {url}: {e}"))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("GET {url}: HTTP {status} (not an SSE endpoint)"));
    }
    let ct = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    if !ct.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case(EVENT_STREAM)) {
        return Err(format!("GET {url}: answered {ct:?}, not an event stream"));
    }
    let mut events = SseStream::from_bytes_stream(response.bytes_stream());
    let endpoint = loop {
        match events.next().await {
            None => return Err(format!("{url}: the event stream ended before its `endpoint` event")),
            Some(Err(e)) => return Err(format!("{url}: reading the event stream: {e}")),
            Some(Ok(ev)) if ev.event.as_deref() == Some("endpoint") => break ev.data.unwrap_or_default(),
            Some(Ok(_)) => continue, // a comment or a ping before it
        }
    };
    let endpoint = base.join(endpoint.trim()).map_err(|e| format!("{url}: the endpoint event {endpoint:?}: {e}"))?;
    if endpoint.origin() != base.origin() {
        return Err(format!("{url}: the server names {endpoint} to POST to, on another origin (refused)"));
    }
    let (to_rmcp, incoming) = mpsc::channel(256);
    let reader = tokio::spawn(async move {
        while let Some(ev) = events.next().await {
            let Ok(ev) = ev else { break };
            if ev.event.as_deref().is_some_and(|e| e != "message") {
                continue;
            }
            let Some(data) = ev.data else { continue };
            match serde_json::from_str::<ServerJsonRpcMessage>(&data) {
                Ok(m) => {
                    if to_rmcp.send(m).await.is_err() {
                        break;
                    }
                }
                Err(e) => tracing::warn!("bridge (sse): a message that is not JSON-RPC: {e}"),
            }
        }
        // Dropping `to_rmcp` ends the session: the bridge reconnects.
    });
    let (outgoing, mut queue) = mpsc::unbounded_channel::<Outgoing>();
    let writer = tokio::spawn(async move {
        while let Some((message, done)) = queue.recv().await {
            let _ = done.send(post(&client, &endpoint, &headers, &message).await);
        }
    });
    Ok(LegacySse { incoming, outgoing, tasks: [reader.abort_handle(), writer.abort_handle()] })
}

async fn post(
    client: &reqwest::Client,
    endpoint: &reqwest::Url,
    headers: &HeaderMap,
    message: &ClientJsonRpcMessage,
) -> Result<(), SseError> {
    let body = serde_json::to_vec(message).map_err(|e| SseError(e.to_string()))?;
    let response = client
        .post(endpoint.clone())
        .headers(headers.clone())
        .header(CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| SseError(format!("POST {endpoint}: {e}")))?;
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    let text: String = response.text().await.unwrap_or_default().chars().take(300).collect();
    Err(SseError(format!("POST {endpoint}: HTTP {status}: {text}")))
}

impl Transport<RoleClient> for LegacySse {
    type Error = SseError;

    fn send(&mut self, item: ClientJsonRpcMessage) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        // Queued now, in rmcp's order; the future only waits for its POST's answer.
        let (done, answer) = oneshot::channel();
        let queued = self.outgoing.send((item, done)).map_err(|_| SseError("the connection is closed".into()));
        async move {
            queued?;
            answer.await.map_err(|_| SseError("the connection is closed".into()))?
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), SseError> {
        for t in &self.tasks {
            t.abort();
        }
        Ok(())
    }
}
