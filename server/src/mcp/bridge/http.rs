//! rmcp's Streamable HTTP client transport over the workspace's reqwest: the three requests
//! the transport makes (POST a message, GET the server's stream, DELETE the session), their
//! answers as rmcp expects them. (rmcp's own reqwest client is another major version.)

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::StatusCode;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Sse, SseStream};

const SESSION_ID: &str = "Mcp-Session-Id";
const LAST_EVENT_ID: &str = "Last-Event-Id";
const EVENT_STREAM: &str = "text/event-stream";
const JSON: &str = "application/json";

/// The HTTP client of one bridged server.
#[derive(Clone)]
pub struct Http(pub reqwest::Client);

/// A failed request, as the transport reports it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HttpError(String);

type Error = StreamableHttpError<HttpError>;

fn client_error(e: reqwest::Error) -> Error {
    StreamableHttpError::Client(HttpError(format!("{e}")))
}

fn media_is(ct: Option<&HeaderValue>, want: &str) -> bool {
    ct.and_then(|v| v.to_str().ok())
        .and_then(|s| s.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case(want))
}

fn with_headers(
    mut b: reqwest::RequestBuilder,
    auth: Option<String>,
    headers: HashMap<HeaderName, HeaderValue>,
) -> reqwest::RequestBuilder {
    if let Some(token) = auth {
        b = b.bearer_auth(token);
    }
    for (k, v) in headers {
        b = b.header(k, v);
    }
    b
}

fn sse(response: reqwest::Response) -> BoxStream<'static, Result<Sse, SseError>> {
    SseStream::from_bytes_stream(response.bytes_stream()).boxed()
}

impl StreamableHttpClient for Http {
    type Error = HttpError;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let mut b = self.0.post(uri.as_ref()).header(ACCEPT, format!("{EVENT_STREAM}, {JSON}"));
        let attached = session_id.is_some();
        if let Some(s) = session_id {
            b = b.header(SESSION_ID, s.as_ref());
        }
        let body = serde_json::to_vec(&message)?;
        let b = with_headers(b, auth, headers).header(CONTENT_TYPE, JSON).body(body);
        let response = b.send().await.map_err(client_error)?;
        let status = response.status();
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && attached {
            return Err(StreamableHttpError::SessionExpired);
        }
        let no_answer = matches!(
            message,
            ClientJsonRpcMessage::Notification(_) | ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_)
        );
        let session = response.headers().get(SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_string);
        let ct = response.headers().get(CONTENT_TYPE).cloned();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            if let Ok(m @ ServerJsonRpcMessage::Error(_)) = serde_json::from_str::<ServerJsonRpcMessage>(&body) {
                return Ok(StreamableHttpPostResponse::Json(m, session));
            }
            let body: String = body.chars().take(300).collect();
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!("HTTP {status}: {body}"))));
        }
        if media_is(ct.as_ref(), EVENT_STREAM) {
            return Ok(StreamableHttpPostResponse::Sse(sse(response), session));
        }
        if media_is(ct.as_ref(), JSON) {
            let body = response.bytes().await.map_err(client_error)?;
            return match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
                Ok(m) => Ok(StreamableHttpPostResponse::Json(m, session)),
                Err(_) if no_answer => Ok(StreamableHttpPostResponse::Accepted),
                Err(e) => Err(StreamableHttpError::Deserialize(e)),
            };
        }
        if no_answer {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        Err(StreamableHttpError::UnexpectedContentType(ct.map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        let b = self.0.delete(uri.as_ref()).header(SESSION_ID, session_id.as_ref());
        let response = with_headers(b, auth, headers).send().await.map_err(client_error)?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            return Ok(());
        }
        response.error_for_status().map_err(client_error)?;
        Ok(())
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, Error> {
        let mut b = self.0.get(uri.as_ref()).header(ACCEPT, format!("{EVENT_STREAM}, {JSON}"));
        if let Some(s) = session_id {
            b = b.header(SESSION_ID, s.as_ref());
        }
        if let Some(id) = last_event_id {
            b = b.header(LAST_EVENT_ID, id);
        }
        let response = with_headers(b, auth, headers).send().await.map_err(client_error)?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        let response = response.error_for_status().map_err(client_error)?;
        let ct = response.headers().get(CONTENT_TYPE).cloned();
        if !media_is(ct.as_ref(), EVENT_STREAM) {
            return Err(StreamableHttpError::UnexpectedContentType(
                ct.map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
            ));
        }
        Ok(sse(response))
    }
}
