//! This server as one replica of several on one PostgreSQL store: "who am I, who else is
//! there, whose rig is this, and whose turn is it to index?"
//!
//! - [`Replica`]: this process's identity (a UUID, its host and pid), recorded in the store's
//!   `replicas` table with a heartbeat every [`Timing::heartbeat`]; a replica not heard from
//!   for [`Timing::lost_after`] is *lost* (its rigs are listed as such) and swept, with its
//!   records, after [`Timing::sweep_after`].
//! - Rig records: the pool's [`Observer`] queues each rig made and gone; [`background`] writes
//!   them in order, and every heartbeat makes this replica's records what its pool holds (so
//!   a record missed while the store was away comes back right). `rig_list` reads them;
//!   `rig_close` of another replica's rig publishes [`Event::RigClose`], the owner closes it,
//!   and the asker waits for its record to go ([`close_remote`]).
//! - Index turns ([`IndexTurns`]): on PostgreSQL an index run holds an advisory lock on a key
//!   of its repository's name ([`index_lock_key`]) on a connection of its own, so one replica
//!   at a time indexes a repository and the others wait, then find it current. (On one host
//!   the indexer's own `index.lock` flock already makes runs take turns; a lock in the shared
//!   database also holds across hosts, whatever the shared file system does with flock.)
//!   The index files are replaced atomically (a temporary file renamed into place, meta.json
//!   last; `cc_indexer::store`), and `Repos` reloads a repository whose meta.json or vectors
//!   changed on its next use, so a replica reading never loads a half-written index and
//!   serves the new one once it is written.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cc_rigs::pool::{Closed, Observer, RigInfo};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::bus::Event;
use crate::services::Services;
use crate::store::replicas::{ListedRig, ReplicaRow, RigRecord};
use crate::store::{now, Backend};

/// How often a replica says it is there, and when the others stop believing it.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub heartbeat: Duration,
    /// No heartbeat for this long: lost.
    pub lost_after: Duration,
    /// No heartbeat for this long: its row and its rigs' records are removed.
    pub sweep_after: Duration,
}

impl Timing {
    /// 5 s heartbeats, lost after 30 s, swept after 10 minutes; `CC_REPLICA_HEARTBEAT_SECS`
    /// and `CC_REPLICA_LOST_SECS` change the first two (the sweep stays 20 lost periods).
    pub fn from_env() -> Timing {
        let num = |k: &str| std::env::var(k).ok().and_then(|v| v.trim().parse::<u64>().ok()).filter(|n| *n > 0);
        let heartbeat = Duration::from_secs(num("CC_REPLICA_HEARTBEAT_SECS").unwrap_or(5));
        let lost_after = Duration::from_secs(num("CC_REPLICA_LOST_SECS").unwrap_or(30)).max(heartbeat * 2);
        Timing { heartbeat, lost_after, sweep_after: lost_after * 20 }
    }
}

enum Op {
    Created(Box<RigRecord>),
    Closed(String),
}

/// This server process among the replicas of its store.
pub struct Replica {
    /// A UUID, new with every process.
    pub id: String,
    /// `hostname/boot id`.
    pub host: String,
    pub pid: i64,
    pub started_at: i64,
    pub timing: Timing,
    tx: mpsc::Sender<Op>,
    rx: Mutex<Option<mpsc::Receiver<Op>>>,
}

impl Replica {
    pub fn this() -> Replica {
        let me = crate::agents::ServerIdentity::this();
        let (tx, rx) = mpsc::channel(1024);
        Replica {
            id: uuid::Uuid::new_v4().to_string(),
            host: me.host,
            pid: me.pid,
            started_at: now(),
            timing: Timing::from_env(),
            tx,
            rx: Mutex::new(Some(rx)),
        }
    }

    pub fn row(&self) -> ReplicaRow {
        ReplicaRow {
            id: self.id.clone(),
            host: self.host.clone(),
            pid: self.pid,
            started_at: self.started_at,
            heartbeat_at: now(),
        }
    }

    /// What the rig pool tells this replica's records.
    pub fn observer(&self) -> Arc<dyn Observer> {
        Arc::new(Recorder { replica_id: self.id.clone(), tx: self.tx.clone() })
    }

    /// Whether replica `r` has not been heard from for [`Timing::lost_after`].
    pub fn is_lost(&self, r: &ReplicaRow) -> bool {
        now() - r.heartbeat_at > self.timing.lost_after.as_secs() as i64
    }
}

/// A replica as messages name it: its id, host name (without the boot id) and pid.
pub fn describe(r: &ReplicaRow) -> String {
    format!("{} ({})", r.id, describe_host(r))
}

/// A replica's host name (without the boot id) and pid.
pub fn describe_host(r: &ReplicaRow) -> String {
    let host = r.host.split('/').next().unwrap_or_default();
    format!("{host}, pid {}", r.pid)
}

struct Recorder {
    replica_id: String,
    tx: mpsc::Sender<Op>,
}

impl Observer for Recorder {
    fn created(&self, rig: &RigInfo) {
        // A full queue (no writer running, or the store away) loses nothing for good: the
        // next heartbeat writes the pool as it is.
        let _ = self.tx.try_send(Op::Created(Box::new(record_of(rig, &self.replica_id))));
    }
    fn closed(&self, rig_id: &str, _why: Closed) {
        let _ = self.tx.try_send(Op::Closed(rig_id.to_string()));
    }
}

/// A rig of the pool as its record.
pub fn record_of(rig: &RigInfo, replica_id: &str) -> RigRecord {
    let status = serde_json::to_value(&rig.status).ok().and_then(|v| v.as_str().map(str::to_string));
    RigRecord {
        id: rig.id.clone(),
        workspace_id: rig.workspace.clone(),
        conversation: rig.controller.clone(),
        surface: rig.surface.as_str().to_string(),
        engine: rig.engine.clone(),
        replica_id: replica_id.to_string(),
        status: status.unwrap_or_default(),
        failure: rig.failure.clone(),
        kept: rig.kept,
        display_width: i64::from(rig.display_width),
        display_height: i64::from(rig.display_height),
        created_at: rig.created as i64,
        last_used_at: rig.last_used as i64,
        idle_expires_at: now() + rig.idle_expires_in as i64,
    }
}

/// Records this replica (its first heartbeat): before anything of it is written.
pub async fn join(services: &Services) -> crate::store::Result<()> {
    services.store.replicas().heartbeat(&services.replica.row()).await
}

/// This replica's life among the others, until `stop`: heartbeats (and the sweep of lost
/// replicas), its rigs' records written in order, and the rig closes other replicas ask of
/// it. Leaves (its row and records removed) when stopped.
pub async fn background(services: Arc<Services>, stop: CancellationToken) {
    let Some(mut ops) = services.replica.rx.lock().expect("replica queue").take() else { return };
    let mut events = services.bus.subscribe();
    let replicas = || services.store.replicas();
    let me = services.replica.id.clone();
    let timing = services.replica.timing;
    let mut beat = tokio::time::interval(timing.heartbeat);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = beat.tick() => {
                if let Err(e) = replicas().heartbeat(&services.replica.row()).await {
                    tracing::warn!("replica heartbeat: {e}");
                    continue;
                }
                let before = now() - timing.sweep_after.as_secs() as i64;
                match replicas().sweep(before).await {
                    Ok(n) if n > 0 => tracing::info!("swept {n} replica(s) not heard from for {}s, with their rigs' records", timing.sweep_after.as_secs()),
                    Ok(_) => {}
                    Err(e) => tracing::warn!("sweeping lost replicas: {e}"),
                }
                // The pool as it is now, after every change queued before this look (the
                // queue is read in order, and this runs between two of its entries).
                let live: Vec<RigRecord> = match services.rigs.started() {
                    Some(p) => p.list(None).iter().map(|r| record_of(r, &me)).collect(),
                    None => Vec::new(),
                };
                if let Err(e) = replicas().sync_rigs(&me, &live).await {
                    tracing::warn!("writing this replica's rig records: {e}");
                }
            }
            op = ops.recv() => {
                let r = match op {
                    None => break,
                    Some(Op::Created(r)) => replicas().put_rig(&r).await,
                    Some(Op::Closed(id)) => replicas().remove_rig(&id).await.map(|_| ()),
                };
                if let Err(e) = r {
                    tracing::warn!("a rig record: {e}");
                }
            }
            e = events.recv() => match e {
                Ok(Event::RigClose { workspace_id, rig_id, replica_id, by }) if replica_id == me => {
                    let services = services.clone();
                    tokio::spawn(async move {
                        tracing::info!(rig = %rig_id, "closing a rig: rig_close through replica {by}");
                        let closed = match services.rigs.started() {
                            Some(p) => p.close(&workspace_id, &rig_id).await.map(|_| ()),
                            None => Err(cc_rigs::RigError::NoRig(rig_id.clone())),
                        };
                        if let Err(e) = closed {
                            // Not (or no longer) in the pool: the record is stale.
                            tracing::info!(rig = %rig_id, "rig_close through replica {by}: {e}");
                            let _ = services.store.replicas().remove_rig(&rig_id).await;
                        }
                    });
                }
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => tracing::warn!("the replica listener missed {n} events"),
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            }
        }
    }
    if let Err(e) = replicas().leave(&me).await {
        tracing::warn!("leaving the replicas: {e}");
    }
}

/// How long `rig_close` waits for another replica to close its rig.
pub const REMOTE_CLOSE_WAIT: Duration = Duration::from_secs(15);

/// Why another replica's rig was not closed.
#[derive(Debug)]
pub enum RemoteCloseError {
    /// The owner has not been heard from: the rig went with it, or cannot be reached.
    Lost(String),
    /// The owner did not remove the record in time.
    NoAnswer(String),
    /// SQLite: events do not cross processes.
    NotShared(String),
    Store(crate::store::StoreError),
}

/// Asks the replica owning `listed` to close it, and waits (at most `wait`) until its record
/// is gone. `Ok` with the record as it was.
pub async fn close_remote(
    services: &Services,
    listed: ListedRig,
    wait: Duration,
) -> Result<RigRecord, RemoteCloseError> {
    let owner = describe(&listed.replica);
    let rig = &listed.rig.id;
    if services.replica.is_lost(&listed.replica) {
        return Err(RemoteCloseError::Lost(format!(
            "rig {rig} belongs to replica {owner}, which has not been heard from for {}s (lost): its machine went \
             with it or cannot be reached from here; its record is swept {}s after its last heartbeat",
            now() - listed.replica.heartbeat_at,
            services.replica.timing.sweep_after.as_secs()
        )));
    }
    if services.store.backend() == Backend::Sqlite {
        return Err(RemoteCloseError::NotShared(format!(
            "rig {rig} belongs to another server process on this SQLite store ({owner}); rig_close reaches another \
             replica only over PostgreSQL: close it there"
        )));
    }
    let event = Event::RigClose {
        workspace_id: listed.rig.workspace_id.clone(),
        rig_id: rig.clone(),
        replica_id: listed.replica.id.clone(),
        by: services.replica.id.clone(),
    };
    services.bus.publish(&services.store, event).await;
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match services.store.replicas().rig(&listed.rig.workspace_id, rig).await {
            Ok(None) => return Ok(listed.rig),
            Ok(Some(_)) => {}
            Err(e) => return Err(RemoteCloseError::Store(e)),
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(RemoteCloseError::NoAnswer(format!(
                "rig {rig} belongs to replica {owner}, which was asked to close it and did not within {}s; \
                 try again, or close it through that replica",
                wait.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The PostgreSQL advisory-lock key of repository `name`'s index runs: the first 8 bytes of
/// blake3("cc-server index " + name), as a signed 64-bit number.
pub fn index_lock_key(name: &str) -> i64 {
    let h = blake3::hash(format!("cc-server index {name}").as_bytes());
    i64::from_be_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"))
}

/// How this server's index runs take turns with other replicas'.
#[derive(Clone, Debug)]
pub enum IndexTurns {
    /// One host (SQLite): the indexer's `index.lock` is enough.
    Local,
    /// An advisory lock on the store's PostgreSQL; `who` names the holder to the waiters (its
    /// connection's `application_name`: the first 63 bytes).
    Postgres { url: String, who: String },
}

impl IndexTurns {
    pub fn of(store: &crate::store::Store, replica: &Replica) -> IndexTurns {
        match store.backend() {
            Backend::Sqlite => IndexTurns::Local,
            Backend::Postgres => IndexTurns::Postgres {
                url: store.url().to_string(),
                who: format!("cc-server {} pid {}", replica.id, replica.pid),
            },
        }
    }

    /// Runs `f` (an index run of repository `name`) in its turn: waits while another replica
    /// indexes `name` (stopping when `cancel` is set), holds the turn through `f`.
    pub fn run<T>(
        &self,
        name: &str,
        cancel: Option<&AtomicBool>,
        f: impl FnOnce() -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        match self {
            IndexTurns::Local => f(),
            IndexTurns::Postgres { url, who } => {
                let lock = IndexLock::take(url, who, name, cancel)?;
                let r = f();
                lock.release();
                r
            }
        }
    }
}

/// The advisory lock of one repository's index runs, held on a connection of its own (on a
/// thread of its own, so it is taken and held the same from blocking code and from a
/// runtime's). Released by [`IndexLock::release`] or when dropped (the connection ends).
pub struct IndexLock {
    release: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl IndexLock {
    /// Takes the lock of repository `name`, waiting while another session holds it (logging
    /// who, once), or until `cancel` is set.
    pub fn take(url: &str, who: &str, name: &str, cancel: Option<&AtomicBool>) -> anyhow::Result<IndexLock> {
        let key = index_lock_key(name);
        // PostgreSQL keeps 63 bytes of an application_name.
        let mut who = who.to_string();
        while who.len() > 63 {
            who.pop();
        }
        let (url, repo) = (url.to_string(), name.to_string());
        let (taken_tx, taken_rx) = std::sync::mpsc::channel::<Result<(), String>>();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let abandon = Arc::new(AtomicBool::new(false));
        let gave_up = abandon.clone();
        let thread = std::thread::Builder::new().name("cc-index-lock".into()).spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = taken_tx.send(Err(format!("a runtime for the index lock: {e}")));
                    return;
                }
            };
            rt.block_on(async move {
                use sqlx::{ConnectOptions, Connection};
                let opts = match url.parse::<sqlx::postgres::PgConnectOptions>() {
                    Ok(o) => o.application_name(&who),
                    Err(e) => {
                        let _ = taken_tx.send(Err(format!("the store URL: {e}")));
                        return;
                    }
                };
                let mut c = match opts.connect().await {
                    Ok(c) => c,
                    Err(e) => {
                        let _ = taken_tx.send(Err(format!("connecting for the index lock: {e}")));
                        return;
                    }
                };
                let mut waited = false;
                loop {
                    if gave_up.load(Ordering::SeqCst) {
                        let _ = c.close().await;
                        return;
                    }
                    let got: Result<(bool,), _> =
                        sqlx::query_as("SELECT pg_try_advisory_lock($1)").bind(key).fetch_one(&mut c).await;
                    match got {
                        Ok((true,)) => break,
                        Ok((false,)) => {}
                        Err(e) => {
                            let _ = taken_tx.send(Err(format!("pg_try_advisory_lock: {e}")));
                            return;
                        }
                    }
                    if !waited {
                        waited = true;
                        let holder: Option<(String,)> = sqlx::query_as(
                            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid \
                             WHERE l.locktype = 'advisory' AND l.granted AND l.database = \
                             (SELECT oid FROM pg_database WHERE datname = current_database()) \
                             AND ((l.classid::bigint << 32) | l.objid::bigint) = $1 AND l.objsubid = 1",
                        )
                        .bind(key)
                        .fetch_optional(&mut c)
                        .await
                        .unwrap_or(None);
                        let holder = holder.map_or_else(|| "another session".to_string(), |(h,)| h);
                        tracing::info!(repo = %repo, "waiting for {holder}, which is indexing this repository");
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                if waited {
                    tracing::info!(repo = %repo, "took the index turn after waiting");
                }
                let _ = taken_tx.send(Ok(()));
                // Held until released (or the taker is gone).
                let _ = tokio::task::spawn_blocking(move || release_rx.recv()).await;
                let _ = sqlx::query("SELECT pg_advisory_unlock($1)").bind(key).execute(&mut c).await;
                let _ = c.close().await;
            });
        })?;
        let lock = IndexLock { release: Some(release_tx), thread: Some(thread) };
        loop {
            match taken_rx.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(())) => return Ok(lock),
                Ok(Err(e)) => {
                    lock.release();
                    anyhow::bail!("the index turn of repository '{name}': {e}");
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                        abandon.store(true, Ordering::SeqCst);
                        lock.release();
                        return Err(cc_indexer::Error::Cancelled.into());
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    lock.release();
                    anyhow::bail!("the index turn of repository '{name}': the lock's connection ended");
                }
            }
        }
    }

    /// Lets the next replica index.
    pub fn release(mut self) {
        self.end();
    }

    fn end(&mut self) {
        drop(self.release.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for IndexLock {
    fn drop(&mut self) {
        self.end();
    }
}
