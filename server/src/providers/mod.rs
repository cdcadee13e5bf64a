//! Ticket providers: "this workspace's tickets live on GitHub Issues too". The store is the
//! truth and the default provider; a workspace configured under `[tickets.github]` has each
//! ticket mirrored as an issue of the repository — created, updated (title, body, status as
//! open/closed with its reason, labels, assignees), commented (every message of the ticket's
//! space), closed and reopened — and the ticket keeps the issue's number and address.
//!
//! Every change marks the ticket's row of the outbox (`ticket_outbox`) in the change's own
//! transaction, so nothing is lost to an outage: a [`Mirror::sync`] right after the call
//! pushes it, and while GitHub is down (or rate-limits, or fails) the row waits for the next
//! attempt, backed off, which [`background`] makes. A sync pushes the ticket's whole current
//! state, so retries are idempotent; an issue or comment whose answer was lost in an outage is
//! found again by the marker its body carries before anything is created twice. What GitHub
//! refuses as it is (a 422) is kept as the ticket's `sync.last_error`, not retried until the
//! ticket changes.

pub mod github;

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::config::GitHub as GitHubConfig;
use crate::store::{Store, Ticket, TicketStatus};
use github::{GhError, GitHub, IssueState};

/// The GitHub mirror of the configured workspaces.
pub struct Mirror {
    store: Store,
    gh: GitHub,
    config: GitHubConfig,
}

/// How a sync went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Synced {
    /// Everything is on the provider.
    Done { number: i64 },
    /// Another syncer holds the ticket, or it is not mirrored.
    Skipped,
    /// Kept for the next attempt, in this many seconds.
    Retry { error: String, in_secs: i64 },
    /// Refused as it is; retried when the ticket changes.
    Refused { error: String },
}

/// A sync holds a ticket this long at most (seconds).
const LEASE_SECS: i64 = 120;

impl Mirror {
    /// The mirror `config` describes, its token from the configuration or the environment.
    pub fn new(store: Store, config: &GitHubConfig) -> anyhow::Result<Mirror> {
        let token = config.resolve_token()?;
        let gh = GitHub::new(
            &config.base_url,
            &config.repository,
            token,
            Duration::from_secs(config.timeout_secs.max(1)),
            Duration::from_secs(config.max_wait_secs),
        )
        .map_err(anyhow::Error::msg)?;
        Ok(Mirror { store, gh, config: config.clone() })
    }

    /// How long one sync may take when a tool waits for it.
    pub fn call_timeout(&self) -> Duration {
        Duration::from_secs(self.config.timeout_secs.max(1) * 3)
    }

    /// Records in the store which workspaces mirror on this repository (those that exist).
    pub async fn register(&self) -> anyhow::Result<()> {
        let mut rows = Vec::new();
        for w in &self.config.workspaces {
            anyhow::ensure!(
                self.store.workspaces().get(w).await?.is_some(),
                "[tickets.github] workspaces names '{w}', which this server's store does not have"
            );
            rows.push((w.clone(), "github".to_string(), self.config.repository.clone()));
        }
        self.store.tickets().set_providers(&rows).await?;
        Ok(())
    }

    /// The issue a ticket is, as it is pushed.
    async fn state_of(&self, t: &Ticket) -> IssueState {
        let mut labels = t.labels.clone();
        if t.priority != crate::store::Priority::None {
            labels.push(format!("priority: {}", t.priority.as_str()));
        }
        if matches!(
            t.status,
            TicketStatus::InProgress | TicketStatus::Blocked | TicketStatus::InReview | TicketStatus::Failed
        ) {
            labels.push(format!("status: {}", t.status.as_str().replace('_', " ")));
        }
        let mut assignees = Vec::new();
        if let Some(a) = &t.assignee_id {
            if let Ok(Some(agent)) = self.store.agents().get(a).await {
                if let Some(login) = self.config.assignees.get(&agent.name) {
                    assignees.push(login.clone());
                }
            }
        }
        let (state, state_reason) = match t.status {
            TicketStatus::Done => ("closed", Some("completed")),
            TicketStatus::Failed | TicketStatus::Cancelled => ("closed", Some("not_planned")),
            _ => ("open", None),
        };
        let mut body = t.description.clone();
        if let Some(o) = &t.output {
            body.push_str(&format!("\n\n**Output:** {o}"));
        }
        if let Some(e) = &t.error {
            body.push_str(&format!("\n\n**Failed:** {e}"));
        }
        body.push_str(&format!("\n\n{}", marker(&t.id)));
        IssueState { title: format!("{}: {}", t.key, t.title), body, state, state_reason, labels, assignees }
    }

    /// Pushes ticket `id` (its state, then the messages of its space not mirrored yet) and
    /// records the outcome in its outbox row.
    pub async fn sync(&self, id: &str) -> anyhow::Result<Synced> {
        let tickets = self.store.tickets();
        let Some(o) = tickets.lease(id, LEASE_SECS).await? else { return Ok(Synced::Skipped) };
        let Some(t) = tickets.get(id).await? else {
            tickets.sync_ended(id, Ok(o.changes)).await?;
            return Ok(Synced::Skipped);
        };
        let outcome = self.push(&t, o.attempts > 0, o.comments_synced).await;
        Ok(match outcome {
            Ok(number) => {
                tickets.sync_ended(id, Ok(o.changes)).await?;
                Synced::Done { number }
            }
            Err(GhError::Transient(error, wait)) => {
                let in_secs = wait.map_or_else(|| backoff(o.attempts), |w| w.as_secs() as i64).max(1);
                tickets.sync_ended(id, Err((error.clone(), Some(in_secs)))).await?;
                Synced::Retry { error, in_secs }
            }
            Err(GhError::Refused(error)) => {
                tickets.sync_ended(id, Err((error.clone(), None))).await?;
                Synced::Refused { error }
            }
        })
    }

    async fn push(&self, t: &Ticket, retrying: bool, comments_synced: i64) -> Result<i64, GhError> {
        let state = self.state_of(t).await;
        let store_err = |e: crate::store::StoreError| GhError::Transient(format!("the store: {e}"), None);
        let number = match t.provider_number {
            Some(n) => {
                self.gh.update_issue(n, &state).await?;
                n
            }
            None => {
                // An earlier attempt may have created it and lost the answer.
                let found = if retrying { self.gh.find_issue(&marker(&t.id)).await? } else { None };
                let refound = found.is_some();
                let issue = match found {
                    Some(i) => i,
                    None => self.gh.create_issue(&state).await?,
                };
                self.store.tickets().set_provider_ref(&t.id, issue.number, &issue.url).await.map_err(store_err)?;
                if state.state != "open" || refound {
                    self.gh.update_issue(issue.number, &state).await?;
                }
                issue.number
            }
        };
        let mut after = comments_synced;
        let mut posted: Option<Vec<String>> = None;
        loop {
            let msgs = self.store.spaces().messages(&t.space_id, after, 100).await.map_err(store_err)?;
            if msgs.is_empty() {
                break;
            }
            for m in msgs {
                let mark = format!("<!-- cc-server message {} -->", m.id);
                if retrying && posted.is_none() {
                    posted = Some(self.gh.comment_bodies(number).await?);
                }
                let already = posted.as_ref().is_some_and(|p| p.iter().any(|b| b.contains(&mark)));
                if !already {
                    self.gh.comment(number, &format!("**{}:** {}\n\n{mark}", m.sender.name, m.text)).await?;
                }
                self.store.tickets().comments_synced(&t.id, m.seq).await.map_err(store_err)?;
                after = m.seq;
            }
        }
        Ok(number)
    }

    /// Syncs every ticket whose attempt is due; answers how many it tried.
    pub async fn drain(&self) -> usize {
        let Ok(due) = self.store.tickets().due(100).await else { return 0 };
        for id in &due {
            if let Err(e) = self.sync(id).await {
                tracing::warn!(ticket = id, "syncing a ticket with GitHub: {e:#}");
            }
        }
        due.len()
    }
}

/// The marker an issue's body carries: which ticket it mirrors.
fn marker(ticket_id: &str) -> String {
    format!("<!-- cc-server ticket {ticket_id} -->")
}

/// Seconds before attempt `attempts + 1`: 2, 4, 8, … up to five minutes.
fn backoff(attempts: i64) -> i64 {
    2_i64.saturating_pow(attempts.clamp(0, 20) as u32 + 1).min(300)
}

/// Retries what is due every `every`, until `stop`.
pub async fn background(mirror: Arc<Mirror>, every: Duration, stop: CancellationToken) {
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(every) => {}
        }
        mirror.drain().await;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn backoff_doubles_up_to_five_minutes() {
        assert_eq!((0..10).map(super::backoff).collect::<Vec<_>>(), [2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
    }
}
