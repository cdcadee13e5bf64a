//! `GET /ui/events?ws=ID`: the server's bus (`crate::bus`) as server-sent events, for one
//! workspace — `message`, `run`, `ticket`, `approval` (a tool call's approval outside any
//! workspace goes to every workspace's stream), each with the event as JSON; `resync` when
//! this stream fell behind the bus (events were dropped: the page reads everything again);
//! `ready` first, once subscribed.
//! Events are hints: a page that hears one re-reads itself from the store.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::{RawQuery, State};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use futures::StreamExt;
use tokio::sync::broadcast::error::RecvError;

use super::auth::Session;
use super::html::{Params, View};
use super::{Answer, Console};
use crate::bus::Event;

/// The SSE event name and whether `e` concerns workspace `ws`.
fn name_for(e: &Event, ws: &str) -> Option<&'static str> {
    match e {
        Event::Message { workspace_id, .. } => (workspace_id == ws).then_some("message"),
        Event::Run { workspace_id, .. } => (workspace_id == ws).then_some("run"),
        Event::Ticket { workspace_id, .. } => (workspace_id == ws).then_some("ticket"),
        Event::Approval { workspace_id, .. } => workspace_id.as_deref().is_none_or(|w| w == ws).then_some("approval"),
        Event::RigClose { .. } => None,
    }
}

pub(crate) async fn events(State(c): State<Console>, Extension(s): Extension<Session>, q: RawQuery) -> Answer {
    let p = Params::of(q);
    let view = View::new(&c, &s, p.get("ws")).await?;
    let ws = view.ws;
    // Subscribed before the answer's headers go out: a page that saw the stream open misses nothing after.
    let rx = c.app.services.bus.subscribe();
    let stop = c.shutdown.clone();
    let stream = futures::stream::unfold((rx, ws, stop), |(mut rx, ws, stop)| async move {
        loop {
            let got = tokio::select! {
                _ = stop.cancelled() => return None,
                got = rx.recv() => got,
            };
            let event = match got {
                Ok(e) => match name_for(&e, &ws) {
                    Some(name) => SseEvent::default().event(name).data(serde_json::to_string(&e).unwrap_or_default()),
                    None => continue,
                },
                Err(RecvError::Lagged(n)) => SseEvent::default().event("resync").data(n.to_string()),
                Err(RecvError::Closed) => return None,
            };
            return Some((Ok::<_, Infallible>(event), (rx, ws, stop)));
        }
    })
    .boxed();
    // First, `ready`: the page shows it is live (and after a reconnect reads itself again).
    let opened = futures::stream::once(async { Ok(SseEvent::default().event("ready").data("{}")) });
    let sse: Response =
        Sse::new(opened.chain(stream)).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response();
    Ok(sse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_go_to_their_workspace() {
        let m = Event::Message {
            workspace_id: "a".into(),
            space_id: "s".into(),
            message_id: "m".into(),
            seq: 1,
            reply_to: None,
        };
        assert_eq!((name_for(&m, "a"), name_for(&m, "b")), (Some("message"), None));
        let anywhere =
            Event::Approval { workspace_id: None, approval_id: "ap-1".into(), board: false, status: "pending".into() };
        assert_eq!((name_for(&anywhere, "a"), name_for(&anywhere, "b")), (Some("approval"), Some("approval")));
        let board = Event::Approval {
            workspace_id: Some("b".into()),
            approval_id: "ba-1".into(),
            board: true,
            status: "pending".into(),
        };
        assert_eq!((name_for(&board, "a"), name_for(&board, "b")), (None, Some("approval")));
    }
}
