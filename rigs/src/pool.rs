//! The pool: every rig, keyed by (workspace, conversation, surface, engine). The first call
//! of a conversation creates its rig, later calls reuse it; any conversation of the
//! workspace may take a rig over by id (a client that reconnected finds its rig with
//! `rig_list`). A rig closes with the conversation that controls it
//! ([`Pool::close_conversation`], when its MCP session ends) unless a call asked to keep it
//! ([`Lease::keep`]); idle rigs are reaped, the count is capped, a rig whose driver died is
//! marked failed and replaced on the next call, and dropping the pool (or [`Pool::shutdown`])
//! closes every rig and kills every process group the pool ever saw.
//!
//! Rigs run on the pool's own runtime: a rig's driver connection does not depend on the
//! runtime (or the MCP connection) of the call that created it.
//!
//! An [`Observer`] ([`Pool::observe`]) hears each rig made and each rig gone, whatever ended
//! it: the server keeps the records other replicas list (this crate knows no store).

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

use crate::{BoxFuture, Rig, RigError, SurfaceKind};

/// Limits and timeouts of a pool.
#[derive(Clone, Debug)]
pub struct PoolConfig {
    /// Most rigs alive at once (across workspaces).
    pub max_rigs: usize,
    /// A rig unused this long is closed.
    pub idle_timeout: Duration,
    /// How often the reaper looks.
    pub reap_every: Duration,
    /// Longest a rig may take to start.
    pub start_timeout: Duration,
    /// Longest one action may take (an action may ask for less, or for more up to 4x).
    pub action_timeout: Duration,
    /// A rig unused this long is probed ([`Rig::alive`]) before a call reuses it, and one that
    /// no longer answers is replaced by that call at once (the lease says which it replaced)
    /// instead of failing it: a grid or a browser service ends sessions idle for a while
    /// (Selenium Grid after 300 s by default, hosted services sooner).
    pub probe_after: Duration,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            max_rigs: 8,
            idle_timeout: Duration::from_secs(15 * 60),
            reap_every: Duration::from_secs(10),
            start_timeout: Duration::from_secs(60),
            action_timeout: Duration::from_secs(30),
            probe_after: Duration::from_secs(30),
        }
    }
}

/// A rig's state as `rig_list` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ready,
    /// An action is running.
    Busy,
    /// The driver died; the next call of its conversation replaces it.
    Failed,
}

/// Why a rig is gone (told to the [`Observer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Closed {
    /// [`Pool::close`] (rig_close).
    Asked,
    /// The conversation controlling it ended ([`Pool::close_conversation`]).
    ConversationEnded,
    /// Unused past the idle timeout.
    Idle,
    /// Its driver died, and the next call replaced it.
    Failed,
    /// The pool shut down.
    ShutDown,
}

/// Hears the pool's rigs come and go: `created` once a rig is in the pool, `closed` once its
/// machine is closed (or given up on). Called on the pool's threads; it must not block.
pub trait Observer: Send + Sync {
    fn created(&self, rig: &RigInfo);
    fn closed(&self, rig_id: &str, why: Closed);
}

/// One rig's row in `rig_list`.
#[derive(Clone, Debug, Serialize)]
pub struct RigInfo {
    pub id: String,
    pub workspace: String,
    pub surface: SurfaceKind,
    pub engine: String,
    pub status: Status,
    /// Why it failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    pub display_width: u32,
    pub display_height: u32,
    /// The conversation that controls it (its last caller).
    pub controller: String,
    /// Kept when its conversation ends (a call asked for `keep`); otherwise the end of the
    /// controlling conversation's session closes it.
    pub kept: bool,
    /// Seconds since the epoch.
    pub created: u64,
    pub last_used: u64,
    /// Seconds until the reaper closes it if unused.
    pub idle_expires_in: u64,
}

struct Entry {
    id: String,
    workspace: String,
    surface: SurfaceKind,
    engine: String,
    rig: Arc<dyn Rig>,
    created: SystemTime,
    controller: Mutex<String>,
    last_used: Mutex<(Instant, SystemTime)>,
    failure: Mutex<Option<String>>,
    /// Outlives its controlling conversation (see [`Lease::keep`]).
    keep: AtomicBool,
    /// Held while an action runs: one action at a time per rig.
    busy: tokio::sync::Mutex<()>,
}

impl Entry {
    fn info(&self, idle: Duration) -> RigInfo {
        let (at, wall) = *self.last_used.lock().expect("last used");
        let failure = self.failure.lock().expect("failure").clone();
        let status = if failure.is_some() {
            Status::Failed
        } else if self.busy.try_lock().is_err() {
            Status::Busy
        } else {
            Status::Ready
        };
        let (w, h) = self.rig.display();
        RigInfo {
            id: self.id.clone(),
            workspace: self.workspace.clone(),
            surface: self.surface,
            engine: self.engine.clone(),
            status,
            failure,
            display_width: w,
            display_height: h,
            controller: self.controller.lock().expect("controller").clone(),
            kept: self.keep.load(Ordering::SeqCst),
            created: secs(self.created),
            last_used: secs(wall),
            idle_expires_in: idle.saturating_sub(at.elapsed()).as_secs(),
        }
    }

    fn touch(&self) {
        *self.last_used.lock().expect("last used") = (Instant::now(), SystemTime::now());
    }
}

fn secs(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Which rig a call wants.
#[derive(Clone, Debug)]
pub struct Acquire {
    pub workspace: String,
    pub conversation: String,
    pub surface: SurfaceKind,
    /// The engine asked for; `None` = the conversation's most recently used rig of the
    /// surface, else the factory's default (`default_engine`).
    pub engine: Option<String>,
    /// The engine a new rig gets when none is asked for.
    pub default_engine: String,
    /// A rig of the workspace by id (taken over by this conversation).
    pub rig_id: Option<String>,
}

impl Acquire {
    pub fn new(workspace: &str, conversation: &str, surface: SurfaceKind, engine: Option<&str>) -> Acquire {
        Acquire {
            workspace: workspace.into(),
            conversation: conversation.into(),
            surface,
            engine: engine.map(str::to_string),
            default_engine: engine.unwrap_or("").to_string(),
            rig_id: None,
        }
    }
}

/// A rig handed to one call.
#[derive(Clone)]
pub struct Lease {
    entry: Arc<Entry>,
    /// The rig was created by this call.
    pub created: bool,
    /// The failed rig this call's rig replaced: (its id, why it failed).
    pub replaced: Option<(String, String)>,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease").field("id", &self.entry.id).field("created", &self.created).finish()
    }
}

impl Lease {
    pub fn id(&self) -> &str {
        &self.entry.id
    }
    pub fn engine(&self) -> &str {
        &self.entry.engine
    }
    pub fn rig(&self) -> Arc<dyn Rig> {
        self.entry.rig.clone()
    }
    /// Whether the rig outlives the conversation that controls it: `true` keeps it when that
    /// conversation ends (until rig_close or the idle timeout), `false` lets the end close it.
    pub fn keep(&self, keep: bool) {
        self.entry.keep.store(keep, Ordering::SeqCst);
    }
    pub fn kept(&self) -> bool {
        self.entry.keep.load(Ordering::SeqCst)
    }
}

struct Inner {
    cfg: PoolConfig,
    rigs: Mutex<Vec<Arc<Entry>>>,
    /// Rigs being created, by key: counted against the limit; a second call of the same
    /// key waits for the first.
    creating: Mutex<Vec<(String, String, SurfaceKind, String)>>,
    /// Every process group any rig ever reported: killed again on shutdown.
    groups: Mutex<BTreeSet<i32>>,
    /// Closes of rigs whose conversation ended, still running: shutdown waits for them.
    closing: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    shut: AtomicBool,
    observer: std::sync::OnceLock<Arc<dyn Observer>>,
}

impl Inner {
    fn tell_closed(&self, id: &str, why: Closed) {
        if let Some(o) = self.observer.get() {
            o.closed(id, why);
        }
    }
}

/// Owns every rig. See the module doc.
pub struct Pool {
    inner: Arc<Inner>,
    rt: Mutex<Option<tokio::runtime::Runtime>>,
    handle: tokio::runtime::Handle,
}

impl Pool {
    /// A pool with its own runtime and its reaper running.
    pub fn new(cfg: PoolConfig) -> Result<Pool, RigError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("cc-rigs")
            .enable_all()
            .build()
            .map_err(|e| RigError::Start(format!("starting the rig pool's runtime: {e}")))?;
        let inner = Arc::new(Inner {
            cfg,
            rigs: Mutex::new(Vec::new()),
            creating: Mutex::new(Vec::new()),
            groups: Mutex::new(BTreeSet::new()),
            closing: Mutex::new(Vec::new()),
            shut: AtomicBool::new(false),
            observer: std::sync::OnceLock::new(),
        });
        let weak = Arc::downgrade(&inner);
        let every = inner.cfg.reap_every;
        rt.spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(inner) = weak.upgrade() else { return };
                reap(&inner).await;
            }
        });
        let handle = rt.handle().clone();
        Ok(Pool { inner, rt: Mutex::new(Some(rt)), handle })
    }

    pub fn config(&self) -> &PoolConfig {
        &self.inner.cfg
    }

    /// Sets the pool's observer (once: `false` when one was set already). Rigs made before
    /// are not told.
    pub fn observe(&self, o: Arc<dyn Observer>) -> bool {
        self.inner.observer.set(o).is_ok()
    }

    /// Runs `fut` on the pool's runtime (what drives every rig).
    pub async fn spawn<T: Send + 'static>(&self, fut: impl Future<Output = T> + Send + 'static) -> Result<T, RigError> {
        if self.inner.shut.load(Ordering::SeqCst) {
            return Err(RigError::ShutDown);
        }
        self.handle.spawn(fut).await.map_err(|e| RigError::Driver(format!("the rig task failed: {e}")))
    }

    /// The rig for this call: the conversation's (or the one named by id), created by
    /// `factory` when there is none, replacing a failed one.
    pub async fn acquire<F>(&self, want: Acquire, factory: F) -> Result<Lease, RigError>
    where
        F: FnOnce(String) -> BoxFuture<'static, Result<Arc<dyn Rig>, RigError>> + Send + 'static,
    {
        if self.inner.shut.load(Ordering::SeqCst) {
            return Err(RigError::ShutDown);
        }
        let mut replaced = None;
        let engine;
        if let Some(id) = &want.rig_id {
            let found = self.find_by_id(&want.workspace, id)?;
            if found.surface != want.surface {
                return Err(RigError::invalid(
                    "rig_id",
                    format!("rig {id} is a {} rig, not a {} rig", found.surface.as_str(), want.surface.as_str()),
                ));
            }
            if let Some(e) = &want.engine {
                if *e != found.engine {
                    return Err(RigError::invalid(
                        "engine",
                        format!("rig {id} runs {}, not {e}; leave out engine or rig_id", found.engine),
                    ));
                }
            }
            *found.controller.lock().expect("controller") = want.conversation.clone();
            self.probe_if_idle(&found).await;
            match self.check_failed(&found).await {
                None => {
                    found.touch();
                    return Ok(Lease { entry: found, created: false, replaced: None });
                }
                Some(r) => {
                    replaced = Some(r);
                    engine = found.engine.clone();
                }
            }
        } else {
            let existing = {
                let rigs = self.inner.rigs.lock().expect("rigs");
                rigs.iter()
                    .filter(|e| {
                        e.workspace == want.workspace
                            && e.surface == want.surface
                            && *e.controller.lock().expect("controller") == want.conversation
                            && want.engine.as_ref().is_none_or(|w| *w == e.engine)
                    })
                    .max_by_key(|e| e.last_used.lock().expect("last used").0)
                    .cloned()
            };
            if let Some(e) = &existing {
                self.probe_if_idle(e).await;
            }
            match existing {
                Some(e) => match self.check_failed(&e).await {
                    None => {
                        e.touch();
                        return Ok(Lease { entry: e, created: false, replaced: None });
                    }
                    Some(r) => {
                        replaced = Some(r);
                        engine = e.engine.clone();
                    }
                },
                None => engine = want.engine.clone().unwrap_or_else(|| want.default_engine.clone()),
            }
        }
        let key = (want.workspace.clone(), want.conversation.clone(), want.surface, engine.clone());
        // Count against the limit, or wait while the same key is being created.
        loop {
            {
                let rigs = self.inner.rigs.lock().expect("rigs");
                let mut creating = self.inner.creating.lock().expect("creating");
                if !creating.contains(&key) {
                    if let Some(e) = rigs.iter().find(|e| {
                        e.workspace == key.0
                            && *e.controller.lock().expect("controller") == key.1
                            && e.surface == key.2
                            && e.engine == key.3
                            && e.failure.lock().expect("failure").is_none()
                    }) {
                        e.touch();
                        return Ok(Lease { entry: e.clone(), created: false, replaced });
                    }
                    let n = rigs.len() + creating.len();
                    if n >= self.inner.cfg.max_rigs {
                        return Err(RigError::Limit(format!(
                            "the rig pool is full ({} of {} rigs); close one with rig_close (rig_list shows them), or wait: rigs unused for {}s are closed",
                            n,
                            self.inner.cfg.max_rigs,
                            self.inner.cfg.idle_timeout.as_secs()
                        )));
                    }
                    creating.push(key.clone());
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let start_timeout = self.inner.cfg.start_timeout;
        let eng = engine.clone();
        let made = self
            .spawn(async move {
                match tokio::time::timeout(start_timeout, factory(eng.clone())).await {
                    Ok(r) => r,
                    Err(_) => Err(RigError::Start(format!(
                        "the {eng} rig did not start within {}s (its processes were killed)",
                        start_timeout.as_secs()
                    ))),
                }
            })
            .await
            .and_then(|r| r);
        self.inner.creating.lock().expect("creating").retain(|k| *k != key);
        let rig = made?;
        self.inner.groups.lock().expect("groups").extend(rig.process_groups());
        let now = SystemTime::now();
        let entry = Arc::new(Entry {
            id: format!("rig-{}", &uuid::Uuid::new_v4().simple().to_string()[..12]),
            workspace: want.workspace.clone(),
            surface: want.surface,
            engine: rig.engine().to_string(),
            rig,
            created: now,
            controller: Mutex::new(want.conversation.clone()),
            last_used: Mutex::new((Instant::now(), now)),
            failure: Mutex::new(None),
            keep: AtomicBool::new(false),
            busy: tokio::sync::Mutex::new(()),
        });
        if self.inner.shut.load(Ordering::SeqCst) {
            let rig = entry.rig.clone();
            let _ = self.spawn(async move { rig.close().await }).await;
            return Err(RigError::ShutDown);
        }
        self.inner.rigs.lock().expect("rigs").push(entry.clone());
        if let Some(o) = self.inner.observer.get() {
            o.created(&entry.info(self.inner.cfg.idle_timeout));
        }
        Ok(Lease { entry, created: true, replaced })
    }

    fn find_by_id(&self, workspace: &str, id: &str) -> Result<Arc<Entry>, RigError> {
        self.inner
            .rigs
            .lock()
            .expect("rigs")
            .iter()
            .find(|e| e.id == id && e.workspace == workspace)
            .cloned()
            .ok_or_else(|| {
                RigError::NoRig(format!(
                    "no rig '{id}' in workspace '{workspace}' (closed, reaped, or never made); rig_list shows the workspace's rigs"
                ))
            })
    }

    /// Marks a rig failed when it was idle past `probe_after` and does not answer now.
    async fn probe_if_idle(&self, e: &Arc<Entry>) {
        let idle = e.last_used.lock().expect("last used").0.elapsed();
        if idle < self.inner.cfg.probe_after
            || e.failure.lock().expect("failure").is_some()
            || e.busy.try_lock().is_err()
        {
            return;
        }
        let rig = e.rig.clone();
        let alive = self
            .spawn(async move { matches!(tokio::time::timeout(Duration::from_secs(5), rig.alive()).await, Ok(true)) })
            .await
            .unwrap_or(false);
        if !alive {
            tracing::info!(rig = %e.id, "an idle rig no longer answers: replacing it");
            *e.failure.lock().expect("failure") =
                Some(format!("it stopped answering while unused for {}s", idle.as_secs()));
        }
    }

    /// A failed rig is closed and removed; returns (its id, why) then.
    async fn check_failed(&self, e: &Arc<Entry>) -> Option<(String, String)> {
        let why = e.failure.lock().expect("failure").clone()?;
        self.remove(&e.id);
        let rig = e.rig.clone();
        let _ = self.spawn(async move { rig.close().await }).await;
        self.inner.tell_closed(&e.id, Closed::Failed);
        Some((e.id.clone(), why))
    }

    fn remove(&self, id: &str) -> Option<Arc<Entry>> {
        let mut rigs = self.inner.rigs.lock().expect("rigs");
        let i = rigs.iter().position(|e| e.id == id)?;
        Some(rigs.remove(i))
    }

    /// Runs one action on the leased rig, on the pool's runtime, one at a time per rig,
    /// within `timeout` (default: the pool's action timeout). An error after which the rig
    /// no longer answers marks it failed.
    pub async fn run<T, F, Fut>(&self, lease: &Lease, f: F) -> Result<T, RigError>
    where
        T: Send + 'static,
        F: FnOnce(Arc<dyn Rig>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, RigError>> + Send + 'static,
    {
        self.run_for(lease, self.inner.cfg.action_timeout, f).await
    }

    /// [`Pool::run`] with its own timeout (capped at 4x the pool's).
    pub async fn run_for<T, F, Fut>(&self, lease: &Lease, timeout: Duration, f: F) -> Result<T, RigError>
    where
        T: Send + 'static,
        F: FnOnce(Arc<dyn Rig>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, RigError>> + Send + 'static,
    {
        let entry = lease.entry.clone();
        let timeout = timeout.min(self.inner.cfg.action_timeout * 4);
        self.spawn(async move {
            let _busy = entry.busy.lock().await;
            entry.touch();
            let r = match tokio::time::timeout(timeout, f(entry.rig.clone())).await {
                Ok(r) => r,
                Err(_) => Err(RigError::Timeout(format!(
                    "the action did not finish within {} ms; the rig is kept (a page may still be loading)",
                    timeout.as_millis()
                ))),
            };
            entry.touch();
            if let Err(e) = &r {
                let probe = matches!(e, RigError::Timeout(_) | RigError::Dead(_) | RigError::Driver(_));
                if probe && !matches!(tokio::time::timeout(Duration::from_secs(5), entry.rig.alive()).await, Ok(true)) {
                    let why = format!("the driver stopped answering ({e})");
                    *entry.failure.lock().expect("failure") = Some(why.clone());
                    return Err(RigError::Dead(format!(
                        "rig {} failed: {why}; the next call starts a new rig in its place",
                        entry.id
                    )));
                }
            }
            r
        })
        .await?
    }

    /// The workspace's rigs (every workspace's when `None`).
    pub fn list(&self, workspace: Option<&str>) -> Vec<RigInfo> {
        let idle = self.inner.cfg.idle_timeout;
        let mut out: Vec<RigInfo> = self
            .inner
            .rigs
            .lock()
            .expect("rigs")
            .iter()
            .filter(|e| workspace.is_none_or(|w| e.workspace == w))
            .map(|e| e.info(idle))
            .collect();
        out.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        out
    }

    /// Closes a rig of the workspace: its machine and everything it owns.
    pub async fn close(&self, workspace: &str, id: &str) -> Result<RigInfo, RigError> {
        let e = self.find_by_id(workspace, id)?;
        let info = e.info(self.inner.cfg.idle_timeout);
        self.remove(id);
        let rig = e.rig.clone();
        let closed = self.spawn(async move { close_rig(rig).await }).await;
        self.inner.tell_closed(id, Closed::Asked);
        closed?;
        Ok(info)
    }

    /// Closes the rigs `conversation` controls that no call asked to keep (its MCP session
    /// ended), in the background on the pool's runtime; returns their ids. A rig another
    /// conversation took over is not its to close.
    pub fn close_conversation(&self, conversation: &str) -> Vec<String> {
        if self.inner.shut.load(Ordering::SeqCst) {
            return Vec::new();
        }
        let ended: Vec<Arc<Entry>> = {
            let mut rigs = self.inner.rigs.lock().expect("rigs");
            let (ended, rest): (Vec<_>, Vec<_>) = rigs.drain(..).partition(|e| {
                !e.keep.load(Ordering::SeqCst) && *e.controller.lock().expect("controller") == conversation
            });
            *rigs = rest;
            ended
        };
        let ids = ended.iter().map(|e| e.id.clone()).collect();
        let mut closing = self.inner.closing.lock().expect("closing");
        closing.retain(|h| !h.is_finished());
        for e in ended {
            tracing::info!(rig = %e.id, "closing a rig: its conversation ended");
            let rig = e.rig.clone();
            let inner = self.inner.clone();
            // Waits for an action still running on it (its caller is gone) before closing.
            closing.push(self.handle.spawn(async move {
                let _running = e.busy.lock().await;
                close_rig(rig).await;
                inner.tell_closed(&e.id, Closed::ConversationEnded);
            }));
        }
        ids
    }

    /// Marks a rig failed (tests simulate a crash with it; drivers report through `run`).
    pub fn mark_failed(&self, id: &str, why: &str) {
        if let Some(e) = self.inner.rigs.lock().expect("rigs").iter().find(|e| e.id == id) {
            *e.failure.lock().expect("failure") = Some(why.to_string());
        }
    }

    /// Every process group any rig of this pool started.
    pub fn process_groups(&self) -> Vec<i32> {
        self.inner.groups.lock().expect("groups").iter().copied().collect()
    }

    /// Closes every rig and kills every process group the pool saw; later calls fail with
    /// [`RigError::ShutDown`]. Also run by `Drop`.
    pub fn shutdown(&self) {
        if self.inner.shut.swap(true, Ordering::SeqCst) {
            return;
        }
        let Some(rt) = self.rt.lock().expect("runtime").take() else { return };
        let inner = self.inner.clone();
        // Block on a thread of our own: this may be called from inside a runtime.
        let t = std::thread::spawn(move || {
            let rigs: Vec<Arc<Entry>> = std::mem::take(&mut *inner.rigs.lock().expect("rigs"));
            let ending: Vec<_> = std::mem::take(&mut *inner.closing.lock().expect("closing"));
            rt.block_on(async {
                // Rigs whose conversation ended are being closed already: let those finish.
                let _ = tokio::time::timeout(Duration::from_secs(15), futures::future::join_all(ending)).await;
                let closes = rigs.iter().map(|e| {
                    let rig = e.rig.clone();
                    async move {
                        // A container's removal can take seconds on a loaded machine; what is not
                        // closed in time is still removed by its own `Drop` (desktops) or killed below.
                        let _ = tokio::time::timeout(Duration::from_secs(15), rig.close()).await;
                    }
                });
                futures::future::join_all(closes).await;
            });
            for e in &rigs {
                inner.tell_closed(&e.id, Closed::ShutDown);
            }
            for g in inner.groups.lock().expect("groups").iter() {
                crate::procs::kill_group(*g);
            }
            drop(rigs);
            rt.shutdown_timeout(Duration::from_secs(2));
        });
        let _ = t.join();
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shutdown();
    }
}

async fn close_rig(rig: Arc<dyn Rig>) {
    if tokio::time::timeout(Duration::from_secs(10), rig.close()).await.is_err() {
        for g in rig.process_groups() {
            crate::procs::kill_group(g);
        }
    }
}

async fn reap(inner: &Arc<Inner>) {
    let idle = inner.cfg.idle_timeout;
    let expired: Vec<Arc<Entry>> = {
        let mut rigs = inner.rigs.lock().expect("rigs");
        let (old, keep): (Vec<_>, Vec<_>) = rigs
            .drain(..)
            .partition(|e| e.last_used.lock().expect("last used").0.elapsed() >= idle && e.busy.try_lock().is_ok());
        *rigs = keep;
        old
    };
    for e in expired {
        tracing::info!(rig = %e.id, "closing an idle rig");
        close_rig(e.rig.clone()).await;
        inner.tell_closed(&e.id, Closed::Idle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A rig with no machine: the pool's bookkeeping alone.
    struct Fake {
        engine: String,
        alive: AtomicBool,
        closed: Arc<AtomicUsize>,
    }

    impl Rig for Fake {
        fn surface(&self) -> SurfaceKind {
            SurfaceKind::Browser
        }
        fn engine(&self) -> &str {
            &self.engine
        }
        fn display(&self) -> (u32, u32) {
            (100, 50)
        }
        fn process_groups(&self) -> Vec<i32> {
            vec![]
        }
        fn alive(&self) -> BoxFuture<'_, bool> {
            Box::pin(async { self.alive.load(Ordering::SeqCst) })
        }
        fn close(&self) -> BoxFuture<'_, ()> {
            Box::pin(async {
                self.closed.fetch_add(1, Ordering::SeqCst);
            })
        }
        fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
            self
        }
    }

    fn factory(closed: Arc<AtomicUsize>) -> impl FnOnce(String) -> BoxFuture<'static, Result<Arc<dyn Rig>, RigError>> {
        move |engine| {
            Box::pin(async move { Ok(Arc::new(Fake { engine, alive: AtomicBool::new(true), closed }) as Arc<dyn Rig>) })
        }
    }

    fn want(ws: &str, conv: &str) -> Acquire {
        let mut a = Acquire::new(ws, conv, SurfaceKind::Browser, None);
        a.default_engine = "chromium".into();
        a
    }

    fn pool(max: usize, idle: Duration) -> Pool {
        Pool::new(PoolConfig {
            max_rigs: max,
            idle_timeout: idle,
            reap_every: Duration::from_millis(50),
            ..Default::default()
        })
        .unwrap()
    }

    #[tokio::test]
    async fn a_conversations_end_closes_its_rigs_but_kept_and_taken_over_ones() {
        let closed = Arc::new(AtomicUsize::new(0));
        let p = pool(4, Duration::from_secs(600));
        let plain = p.acquire(want("w1", "c1"), factory(closed.clone())).await.unwrap();
        let mut firefox = want("w1", "c1");
        firefox.engine = Some("firefox".into());
        let kept = p.acquire(firefox, factory(closed.clone())).await.unwrap();
        kept.keep(true);
        let moved = p.acquire(want("w2", "c1"), factory(closed.clone())).await.unwrap();
        let mut takeover = want("w2", "c2");
        takeover.rig_id = Some(moved.id().to_string());
        p.acquire(takeover, factory(closed.clone())).await.unwrap();
        let other = p.acquire(want("w1", "c3"), factory(closed.clone())).await.unwrap();

        assert_eq!(p.close_conversation("c1"), vec![plain.id().to_string()]);
        let left: Vec<String> = p.list(None).into_iter().map(|r| r.id).collect();
        assert_eq!(left.len(), 3);
        assert!(!left.contains(&plain.id().to_string()));
        assert!(p.list(None).iter().any(|r| r.id == kept.id() && r.kept));
        for _ in 0..100 {
            if closed.load(Ordering::SeqCst) == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(closed.load(Ordering::SeqCst), 1, "the ended conversation's rig is closed");
        // Asking to keep can be taken back: then the end closes it.
        kept.keep(false);
        assert_eq!(p.close_conversation("c1"), vec![kept.id().to_string()]);
        assert_eq!(p.close_conversation("c2"), vec![moved.id().to_string()]);
        assert_eq!(p.close_conversation("c1"), Vec::<String>::new());
        assert_eq!(p.list(None).into_iter().map(|r| r.id).collect::<Vec<_>>(), vec![other.id().to_string()]);
        p.shutdown();
    }

    #[tokio::test]
    async fn reuse_separation_limit_takeover_and_close() {
        let closed = Arc::new(AtomicUsize::new(0));
        let p = pool(3, Duration::from_secs(600));
        let a = p.acquire(want("w1", "c1"), factory(closed.clone())).await.unwrap();
        assert!(a.created);
        let again = p.acquire(want("w1", "c1"), factory(closed.clone())).await.unwrap();
        assert_eq!((again.id(), again.created), (a.id(), false));
        let other_conv = p.acquire(want("w1", "c2"), factory(closed.clone())).await.unwrap();
        let other_ws = p.acquire(want("w2", "c1"), factory(closed.clone())).await.unwrap();
        assert_ne!(other_conv.id(), a.id());
        assert_ne!(other_ws.id(), a.id());
        assert_ne!(other_ws.id(), other_conv.id());
        let e = p.acquire(want("w1", "c3"), factory(closed.clone())).await.err().unwrap();
        assert!(matches!(e, RigError::Limit(_)) && e.to_string().contains("3 of 3"), "{e}");
        assert_eq!(p.list(Some("w1")).len(), 2);
        assert_eq!(p.list(None).len(), 3);
        // A reconnected client (a new conversation) takes its rig over by id.
        let mut by_id = want("w1", "c9");
        by_id.rig_id = Some(a.id().to_string());
        let taken = p.acquire(by_id, factory(closed.clone())).await.unwrap();
        assert_eq!(taken.id(), a.id());
        assert_eq!(p.list(Some("w1")).iter().find(|r| r.id == a.id()).unwrap().controller, "c9");
        // Another workspace cannot name it.
        let mut foreign = want("w2", "c1");
        foreign.rig_id = Some(a.id().to_string());
        assert!(matches!(p.acquire(foreign, factory(closed.clone())).await, Err(RigError::NoRig(_))));
        let info = p.close("w1", a.id()).await.unwrap();
        assert_eq!(info.id, a.id());
        assert_eq!(closed.load(Ordering::SeqCst), 1);
        let e = p.close("w1", a.id()).await.unwrap_err();
        assert!(e.to_string().contains("rig_list"), "{e}");
        p.shutdown();
        assert_eq!(closed.load(Ordering::SeqCst), 3);
        assert!(matches!(p.acquire(want("w1", "c1"), factory(closed.clone())).await, Err(RigError::ShutDown)));
    }

    #[tokio::test]
    async fn idle_rigs_are_reaped() {
        let closed = Arc::new(AtomicUsize::new(0));
        let p = pool(3, Duration::from_millis(200));
        p.acquire(want("w", "c"), factory(closed.clone())).await.unwrap();
        for _ in 0..100 {
            if p.list(None).is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(p.list(None).is_empty());
        assert_eq!(closed.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_dead_rig_is_marked_failed_and_replaced_on_the_next_call() {
        let closed = Arc::new(AtomicUsize::new(0));
        let p = pool(3, Duration::from_secs(600));
        let a = p.acquire(want("w", "c"), factory(closed.clone())).await.unwrap();
        let e = p
            .run(&a, |rig| async move {
                let fake = crate::downcast::<Fake>(rig).unwrap();
                fake.alive.store(false, Ordering::SeqCst);
                Err::<(), _>(RigError::Driver("connection reset".into()))
            })
            .await
            .unwrap_err();
        assert!(matches!(e, RigError::Dead(_)) && e.to_string().contains("next call starts a new rig"), "{e}");
        assert_eq!(p.list(None)[0].status, Status::Failed);
        let b = p.acquire(want("w", "c"), factory(closed.clone())).await.unwrap();
        assert!(b.created);
        assert_eq!(b.replaced.as_ref().map(|r| r.0.as_str()), Some(a.id()));
        assert_eq!(closed.load(Ordering::SeqCst), 1);
        // An ordinary error of a live rig does not fail it.
        let e = p.run(&b, |_| async { Err::<(), _>(RigError::NotFound("no element".into())) }).await.unwrap_err();
        assert!(matches!(e, RigError::NotFound(_)));
        assert_eq!(p.list(None)[0].status, Status::Ready);
    }

    /// Records what the observer hears.
    #[derive(Default)]
    struct Heard(Mutex<Vec<String>>);

    impl Observer for Heard {
        fn created(&self, rig: &RigInfo) {
            self.0.lock().unwrap().push(format!("created {} {} {}", rig.id, rig.workspace, rig.controller));
        }
        fn closed(&self, rig_id: &str, why: Closed) {
            self.0.lock().unwrap().push(format!("closed {rig_id} {why:?}"));
        }
    }

    #[tokio::test]
    async fn the_observer_hears_every_rig_made_and_every_way_one_goes() {
        let closed = Arc::new(AtomicUsize::new(0));
        let p = pool(8, Duration::from_millis(300));
        let heard = Arc::new(Heard::default());
        assert!(p.observe(heard.clone()));
        assert!(!p.observe(heard.clone()), "one observer");
        let asked = p.acquire(want("w", "c1"), factory(closed.clone())).await.unwrap();
        asked.keep(true);
        let ended = p.acquire(want("w", "c2"), factory(closed.clone())).await.unwrap();
        ended.keep(true);
        let failed = p.acquire(want("w", "c3"), factory(closed.clone())).await.unwrap();
        failed.keep(true);
        p.close("w", asked.id()).await.unwrap();
        ended.keep(false);
        p.close_conversation("c2");
        p.mark_failed(failed.id(), "crashed");
        let replacement = p.acquire(want("w", "c3"), factory(closed.clone())).await.unwrap();
        replacement.keep(true);
        let idle = p.acquire(want("w", "c4"), factory(closed.clone())).await.unwrap();
        let has = |line: String| heard.0.lock().unwrap().contains(&line);
        for _ in 0..100 {
            if has(format!("closed {} Idle", idle.id())) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            // The rig that stays is used, so only the other one is idle.
            p.acquire(want("w", "c3"), factory(closed.clone())).await.unwrap();
        }
        p.shutdown();
        let heard = heard.0.lock().unwrap().clone();
        let expect = [
            format!("created {} w c1", asked.id()),
            format!("created {} w c2", ended.id()),
            format!("created {} w c3", failed.id()),
            format!("closed {} Asked", asked.id()),
            format!("closed {} ConversationEnded", ended.id()),
            format!("closed {} Failed", failed.id()),
            format!("created {} w c3", replacement.id()),
            format!("created {} w c4", idle.id()),
            format!("closed {} Idle", idle.id()),
            format!("closed {} ShutDown", replacement.id()),
        ];
        let mut sorted = heard.clone();
        sorted.sort();
        let mut want_sorted = expect.to_vec();
        want_sorted.sort();
        assert_eq!(sorted, want_sorted, "{heard:#?}");
        // Made before gone, for each rig.
        for id in [asked.id(), ended.id(), failed.id(), idle.id(), replacement.id()] {
            let made = heard.iter().position(|l| l.starts_with(&format!("created {id}"))).unwrap();
            let gone = heard.iter().position(|l| l.starts_with(&format!("closed {id}"))).unwrap();
            assert!(made < gone, "{heard:#?}");
        }
    }

    #[tokio::test]
    async fn an_idle_rig_that_stopped_answering_is_replaced_by_the_next_call() {
        let closed = Arc::new(AtomicUsize::new(0));
        let p = Pool::new(PoolConfig { probe_after: Duration::from_millis(100), ..PoolConfig::default() }).unwrap();
        let a = p.acquire(want("w", "c"), factory(closed.clone())).await.unwrap();
        crate::downcast::<Fake>(a.rig()).unwrap().alive.store(false, Ordering::SeqCst);
        // Used a moment ago: reused without a probe.
        let same = p.acquire(want("w", "c"), factory(closed.clone())).await.unwrap();
        assert_eq!((same.id(), same.created), (a.id(), false));
        tokio::time::sleep(Duration::from_millis(150)).await;
        let b = p.acquire(want("w", "c"), factory(closed.clone())).await.unwrap();
        assert!(b.created);
        let (old, why) = b.replaced.clone().unwrap();
        assert_eq!(old, a.id());
        assert!(why.starts_with("it stopped answering while unused"), "{why}");
        assert_eq!(closed.load(Ordering::SeqCst), 1);
        // A live idle rig is reused after its probe.
        tokio::time::sleep(Duration::from_millis(150)).await;
        let mut by_id = want("w", "c2");
        by_id.rig_id = Some(b.id().to_string());
        assert_eq!(p.acquire(by_id, factory(closed.clone())).await.unwrap().id(), b.id());
        p.shutdown();
    }
}
