//! Events between the parts of a server, and between the replicas on one database: "a
//! message was posted in space S", "run R ended", "ticket T was created or changed", "an
//! approval was asked for or decided" (the operator console's live pages). Waiters (ask_agent, resource
//! subscriptions, the run queue) subscribe instead of polling the store.
//!
//! On SQLite (one server) an event goes to a broadcast channel. On PostgreSQL it is sent
//! with `pg_notify` on the channel [`CHANNEL`], and every replica's listener (one `LISTEN`
//! connection each, this one's too) puts it on its channel: a message posted through any
//! replica wakes a waiter on every replica. Events are hints; the store is the truth (a
//! waiter reads the store after it subscribed, so nothing posted in between is missed).

use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::store::{Backend, Store};

/// The PostgreSQL notification channel of the events.
pub const CHANNEL: &str = "cc_server_events";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A message was posted.
    Message { workspace_id: String, space_id: String, message_id: String, seq: i64, reply_to: Option<String> },
    /// A run changed status (queued, running, ended).
    Run { workspace_id: String, agent_id: String, run_id: String, status: String },
    /// A ticket was created (`previous_status` none) or changed (its status then and now;
    /// `version` is the ticket's after the change).
    Ticket { workspace_id: String, ticket_id: String, version: i64, status: String, previous_status: Option<String> },
    /// An approval was asked for or decided: a tool call's (`board` false; `workspace_id` none
    /// for a call outside a workspace) or the board's.
    Approval { workspace_id: Option<String>, approval_id: String, board: bool, status: String },
    /// Replica `replica_id` is asked to close its rig `rig_id` (rig_close through another
    /// replica, `by`); the owner closes it and removes its record, which the asker waits for.
    RigClose { workspace_id: String, rig_id: String, replica_id: String, by: String },
}

pub struct Bus {
    tx: broadcast::Sender<Event>,
    /// Whether the PostgreSQL listener is listening (always true on SQLite).
    ready: tokio::sync::watch::Sender<bool>,
    /// The PostgreSQL listener forwarding notifications to `tx` (started on first use, again
    /// if the runtime it ran on is gone).
    listener: Mutex<Option<tokio::task::JoinHandle<()>>>,
    postgres_url: Option<String>,
}

impl Bus {
    pub fn new(store: &Store) -> Bus {
        let (tx, _) = broadcast::channel(4096);
        let postgres_url = (store.backend() == Backend::Postgres).then(|| store.url().to_string());
        let (ready, _) = tokio::sync::watch::channel(postgres_url.is_none());
        Bus { tx, ready, listener: Mutex::new(None), postgres_url }
    }

    /// Starts the PostgreSQL listener (if there is one) and waits until it listens, at most
    /// `within`; `false` when it did not in time (events then arrive once it does).
    pub async fn ready(&self, within: std::time::Duration) -> bool {
        self.ensure_listener();
        let mut rx = self.ready.subscribe();
        tokio::time::timeout(within, rx.wait_for(|r| *r)).await.is_ok_and(|r| r.is_ok())
    }

    /// Events from now on. (On PostgreSQL, the listener is started if it is not running.)
    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        let rx = self.tx.subscribe();
        self.ensure_listener();
        rx
    }

    /// Sends an event to every subscriber of every replica.
    pub async fn publish(&self, store: &Store, e: Event) {
        match store.backend() {
            Backend::Sqlite => {
                let _ = self.tx.send(e);
            }
            Backend::Postgres => {
                self.ensure_listener();
                let payload = serde_json::to_string(&e).expect("events serialize");
                if let Err(err) = store.notify(CHANNEL, &payload).await {
                    // The waiters still find the change in the store when they look again.
                    tracing::warn!("pg_notify: {err}");
                    let _ = self.tx.send(e);
                }
            }
        }
    }

    fn ensure_listener(&self) {
        let Some(url) = &self.postgres_url else { return };
        let Ok(rt) = tokio::runtime::Handle::try_current() else { return };
        let mut l = self.listener.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if l.as_ref().is_some_and(|h| !h.is_finished()) {
            return;
        }
        let (url, tx, ready) = (url.clone(), self.tx.clone(), self.ready.clone());
        *l = Some(rt.spawn(async move {
            loop {
                match sqlx::postgres::PgListener::connect(&url).await {
                    Ok(mut listener) => {
                        if let Err(e) = listener.listen(CHANNEL).await {
                            tracing::warn!("LISTEN {CHANNEL}: {e}");
                        } else {
                            ready.send_replace(true);
                            loop {
                                match listener.recv().await {
                                    Ok(n) => {
                                        if let Ok(e) = serde_json::from_str::<Event>(n.payload()) {
                                            let _ = tx.send(e);
                                        }
                                    }
                                    Err(e) => {
                                        ready.send_replace(false);
                                        tracing::warn!("the event listener lost its connection: {e}");
                                        break;
                                    }
                                }
                            }
                        }
                    }
                    Err(e) => tracing::warn!("the event listener cannot connect: {e}"),
                }
                tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            }
        }));
    }
}

impl Drop for Bus {
    fn drop(&mut self) {
        if let Some(h) = self.listener.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
            h.abort();
        }
    }
}
