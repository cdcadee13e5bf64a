//! The agent runtime: "start this agent with this brief, keep it within its capacity and
//! its time, and leave nothing behind".
//!
//! An agent is an operator-registered principal with a runtime profile (store::agents). A
//! dispatch (ask_agent, consult_agent, a woken send_to_agent, delegate_ticket, delegate_task;
//! later dispatch_reviewers) records a **run**: queued while the agent is at its capacity, then
//! running — a real process started from the profile's argv ([`launch`]) in a process group
//! of its own, with the brief, a per-run bearer token and the server's URL, so it calls back
//! over MCP as the agent — then done, failed, timed_out (killed at its wall-clock limit) or
//! cancelled (killed at server shutdown). Its output goes to a bounded log in the run's
//! folder. A run left live by a server that died is marked abandoned, and its process group
//! killed, when a server starts again on that host ([`Runtime::recover`]).

pub mod admin;
pub mod launch;
pub mod proc;
pub mod worktree;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use cc_indexer::DataDir;
use tokio_util::sync::CancellationToken;

use crate::bus::{Bus, Event};
use crate::config::Config;
use crate::store::agents::{Ended, Started};
use crate::store::{now, Agent, Run, RunStatus, Store, StoreError};

/// A new bearer token and its hash (what the store keeps): 256 bits from the OS's random
/// source (two v4 UUIDs).
pub fn new_token(prefix: &str) -> (String, String) {
    let t = format!("{prefix}-{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple());
    let h = hash_token(&t);
    (t, h)
}

/// The hash the store keeps of a token.
pub fn hash_token(token: &str) -> String {
    blake3::hash(token.as_bytes()).to_hex().to_string()
}

/// Why a dispatch could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The profile's command is not on the operator's allow-list.
    #[error(
        "agent '{agent}''s runtime profile '{profile}' starts `{command}`, which the operator's allow-list does not \
         hold ([runtimes] allow in the server's config.toml)"
    )]
    NotAllowed { agent: String, profile: String, command: String },
    /// This server has no HTTP endpoint for runs to call back to.
    #[error("agents run only under `cc-server serve`: a run calls back over HTTP, and this server serves stdio only")]
    NoEndpoint,
    #[error("the server is shutting down")]
    ShuttingDown,
}

/// What a dispatch asks a run to do.
#[derive(Clone, Debug, Default)]
pub struct Brief {
    /// Why: ask, consult, message, delegate, review, manual.
    pub reason: &'static str,
    pub text: String,
    pub space_id: Option<String>,
    pub message_id: Option<String>,
    pub ticket_id: Option<String>,
}

/// Which server this is: `hostname/boot id`, pid, start time (clock ticks since boot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerIdentity {
    pub host: String,
    pub pid: i64,
    pub started: i64,
}

impl ServerIdentity {
    pub fn this() -> ServerIdentity {
        let pid = std::process::id() as i64;
        ServerIdentity { host: proc::host(), pid, started: proc::start_time(pid as i32).unwrap_or(0) }
    }
}

struct LiveRun {
    stop: CancellationToken,
    done: tokio::sync::watch::Receiver<bool>,
    /// Its worktrees are being released: it gets no new one.
    released: bool,
}

/// The runs of one server.
pub struct Runtime {
    store: Store,
    bus: Arc<Bus>,
    config: Config,
    data: DataDir,
    identity: ServerIdentity,
    /// The MCP URL runs call back to (set by `serve` once it listens).
    endpoint: RwLock<Option<String>>,
    live: Mutex<HashMap<String, LiveRun>>,
    /// One capacity decision at a time.
    pump: tokio::sync::Mutex<()>,
    /// One worktree made or released at a time (git locks a checkout's worktree list).
    worktrees: tokio::sync::Mutex<()>,
    /// Each worktree's changed files, looked at most every [`CHANGES_TTL`].
    changes: Mutex<HashMap<PathBuf, Changes>>,
    /// (agent, space) → how many of the agent's runs connected here are subscribed to the
    /// space's messages: such an agent hears a new message itself, and is not started again.
    listeners: Arc<Mutex<HashMap<(String, String), usize>>>,
    shutting_down: AtomicBool,
}

/// A run's session listening to a space (see [`Runtime::listen`]); it stops when dropped.
pub struct Listening {
    key: (String, String),
    map: Arc<Mutex<HashMap<(String, String), usize>>>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let mut map = self.map.lock().expect("listeners");
        if let Some(n) = map.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.key);
            }
        }
    }
}

/// How long a worktree's list of changed files is reused (a code tool called in a loop
/// does not run `git status` each time).
const CHANGES_TTL: Duration = Duration::from_secs(2);

/// A worktree's changed files, and when they were looked at.
type Changes = (std::time::Instant, Arc<Vec<String>>);

impl Runtime {
    pub fn new(store: Store, bus: Arc<Bus>, config: Config, data: DataDir) -> Runtime {
        Runtime {
            store,
            bus,
            config,
            data,
            identity: ServerIdentity::this(),
            endpoint: RwLock::new(None),
            live: Mutex::new(HashMap::new()),
            pump: tokio::sync::Mutex::new(()),
            worktrees: tokio::sync::Mutex::new(()),
            changes: Mutex::new(HashMap::new()),
            listeners: Arc::default(),
            shutting_down: AtomicBool::new(false),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Where runs call back to: `http://HOST:PORT/mcp`.
    pub fn set_endpoint(&self, url: String) {
        *self.endpoint.write().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(url);
    }

    pub fn endpoint(&self) -> Option<String> {
        self.endpoint.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// The folder of a run: its MCP config, its log, its worktrees.
    pub fn run_dir(&self, run_id: &str) -> PathBuf {
        self.data.root.join("runs").join(run_id)
    }

    /// Records a run of `agent` for `brief` and starts it if the agent is under its capacity
    /// (else it is queued). Answers the run as recorded.
    pub async fn dispatch(self: &Arc<Self>, agent: &Agent, brief: Brief) -> Result<Run, DispatchError> {
        if self.shutting_down.load(Ordering::Relaxed) {
            return Err(DispatchError::ShuttingDown);
        }
        if self.endpoint().is_none() {
            return Err(DispatchError::NoEndpoint);
        }
        let profile = self
            .store
            .agents()
            .profile(&agent.workspace_id, &agent.profile_id)
            .await?
            .ok_or_else(|| StoreError::NotFound { what: format!("runtime profile of agent '{}'", agent.name) })?;
        if !self.config.allows(&profile.command) {
            return Err(DispatchError::NotAllowed {
                agent: agent.name.clone(),
                profile: profile.name.clone(),
                command: profile.command.clone(),
            });
        }
        let run = Run {
            id: format!("run-{}", uuid::Uuid::now_v7().simple()),
            workspace_id: agent.workspace_id.clone(),
            agent_id: agent.id.clone(),
            status: RunStatus::Queued,
            reason: brief.reason.to_string(),
            brief: brief.text,
            space_id: brief.space_id,
            message_id: brief.message_id,
            ticket_id: brief.ticket_id,
            created_at: now(),
            started_at: None,
            ended_at: None,
            host: Some(self.identity.host.clone()),
            server_pid: Some(self.identity.pid),
            server_started: Some(self.identity.started),
            pid: None,
            proc_started: None,
            exit_code: None,
            error: None,
            log_tail: None,
            kept: Vec::new(),
        };
        // A placeholder hash until it starts (the token is made then).
        self.store.agents().add_run(&run, &hash_token(&uuid::Uuid::new_v4().to_string())).await?;
        self.event(&run, RunStatus::Queued).await;
        self.clone().pump(agent.id.clone()).await;
        Ok(self.store.agents().run(&run.id).await?.unwrap_or(run))
    }

    async fn event(&self, run: &Run, status: RunStatus) {
        let e = Event::Run {
            workspace_id: run.workspace_id.clone(),
            agent_id: run.agent_id.clone(),
            run_id: run.id.clone(),
            status: status.as_str().to_string(),
        };
        self.bus.publish(&self.store, e).await;
    }

    /// Starts the agent's queued runs, oldest first, while it is under its capacity. (Boxed:
    /// a run's end pumps again, from the task [`Runtime::start`] spawned.)
    fn pump(self: Arc<Self>, agent_id: String) -> futures::future::BoxFuture<'static, ()> {
        Box::pin(async move { self.pump_now(&agent_id).await })
    }

    async fn pump_now(self: &Arc<Self>, agent_id: &str) {
        let _one = self.pump.lock().await;
        loop {
            if self.shutting_down.load(Ordering::Relaxed) {
                return;
            }
            let Ok(Some(agent)) = self.store.agents().get(agent_id).await else { return };
            let Ok((running, _)) = self.store.agents().counts(agent_id).await else { return };
            if running >= agent.capacity.max(1) {
                return;
            }
            let Ok(queued) = self.store.agents().queued(agent_id).await else { return };
            // Only this server's queued runs: another replica starts its own.
            let Some(run) = queued
                .into_iter()
                .find(|r| r.server_pid == Some(self.identity.pid) && r.host.as_deref() == Some(&self.identity.host))
            else {
                return;
            };
            if let Err(e) = self.start(&agent, &run).await {
                tracing::warn!(run = run.id, "starting a run failed: {e}");
                let ended = Ended {
                    status: RunStatus::Failed,
                    exit_code: None,
                    error: Some(e),
                    log_tail: None,
                    kept: Vec::new(),
                };
                let _ = self.store.agents().end_run(&run.id, &ended).await;
                self.event(&run, RunStatus::Failed).await;
            }
        }
    }

    /// Starts a queued run's process and its monitor.
    async fn start(self: &Arc<Self>, agent: &Agent, run: &Run) -> Result<(), String> {
        let profile = self
            .store
            .agents()
            .profile(&agent.workspace_id, &agent.profile_id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the agent's runtime profile is gone")?;
        if !self.config.allows(&profile.command) {
            return Err(format!("`{}` is not on the operator's allow-list any more", profile.command));
        }
        let endpoint = self.endpoint().ok_or("no endpoint")?;
        let (token, token_hash) = new_token("ccr");
        let dir = self.run_dir(&run.id);
        let mut spec = launch::Launch::new(&profile, agent, run, &endpoint, &token, &dir, &self.config);
        // The workspace's verified skills, copied into the run's folder: a drifted or unlocked
        // skill is left out, and a failure offers none (the run starts without skills).
        let skills_dir = dir.join("skills");
        let (data, ws, to) = (self.data.root.clone(), agent.workspace_id.clone(), skills_dir.clone());
        let offered =
            tokio::task::spawn_blocking(move || crate::skills::Skills::of(&data, &ws).and_then(|s| s.materialize(&to)))
                .await;
        match offered {
            Ok(Ok(_)) => spec.env.push(("CC_SKILLS_DIR".into(), skills_dir.display().to_string())),
            Ok(Err(e)) => tracing::warn!(run = %run.id, "the workspace's skills are not offered to this run: {e}"),
            Err(e) => tracing::warn!(run = %run.id, "the workspace's skills are not offered to this run: {e}"),
        }
        let mut child = proc::spawn(&spec, &dir, self.config.runtimes.log_bytes).map_err(|e| e.to_string())?;
        let pid = child.pid();
        let started = Started {
            host: self.identity.host.clone(),
            server_pid: self.identity.pid,
            server_started: self.identity.started,
            pid: pid as i64,
            proc_started: proc::start_time(pid).unwrap_or(0),
        };
        match self.store.agents().start_run(&run.id, &started, &token_hash).await {
            Ok(true) => {}
            Ok(false) => {
                child.kill_group();
                return Ok(());
            }
            Err(e) => {
                child.kill_group();
                return Err(e.to_string());
            }
        }
        self.event(run, RunStatus::Running).await;
        let stop = CancellationToken::new();
        let (done_tx, done_rx) = tokio::sync::watch::channel(false);
        self.live
            .lock()
            .expect("live runs")
            .insert(run.id.clone(), LiveRun { stop: stop.clone(), done: done_rx, released: false });
        let timeout = Duration::from_secs(if profile.timeout_secs > 0 {
            profile.timeout_secs
        } else {
            self.config.runtimes.run_timeout_secs
        });
        let me = self.clone();
        let (run, agent_id) = (run.clone(), agent.id.clone());
        tokio::spawn(async move {
            let (status, exit_code, error) = tokio::select! {
                code = child.wait() => match code {
                    Ok(0) => (RunStatus::Done, Some(0), None),
                    Ok(c) => (RunStatus::Failed, Some(c as i64), Some(format!("the process exited with status {c}"))),
                    Err(e) => (RunStatus::Failed, None, Some(format!("waiting for the process: {e}"))),
                },
                _ = tokio::time::sleep(timeout) => (RunStatus::TimedOut, None, Some(format!("the run took longer than its limit of {} s and was killed", timeout.as_secs()))),
                _ = stop.cancelled() => (RunStatus::Cancelled, None, Some("the server shut down; the run was killed".to_string())),
            };
            // Whatever the leader left behind in its group goes with it.
            child.kill_group();
            let log_tail = child.finish().await;
            let kept = {
                let _one = me.worktrees.lock().await;
                if let Some(l) = me.live.lock().expect("live runs").get_mut(&run.id) {
                    l.released = true;
                }
                worktree::release_all(&me.run_dir(&run.id)).await
            };
            let ended = Ended { status, exit_code, error, log_tail: Some(log_tail), kept };
            let _ = me.store.agents().end_run(&run.id, &ended).await;
            me.live.lock().expect("live runs").remove(&run.id);
            let _ = done_tx.send(true);
            me.event(&run, status).await;
            if !me.shutting_down.load(Ordering::Relaxed) {
                me.pump(agent_id).await;
            }
        });
        Ok(())
    }

    /// Kills every live run of this server (status cancelled) and cancels its queued runs;
    /// waits for their processes, at most `within`.
    pub async fn shutdown(&self, within: Duration) {
        self.shutting_down.store(true, Ordering::Relaxed);
        let live: Vec<LiveRun> = {
            let map = self.live.lock().expect("live runs");
            map.values().map(|l| LiveRun { stop: l.stop.clone(), done: l.done.clone(), released: l.released }).collect()
        };
        for l in &live {
            l.stop.cancel();
        }
        let _ = tokio::time::timeout(within, async {
            for mut l in live {
                let _ = l.done.wait_for(|d| *d).await;
            }
        })
        .await;
        if let Ok(runs) = self.store.agents().live_on(&self.identity.host).await {
            for r in runs.into_iter().filter(|r| r.server_pid == Some(self.identity.pid)) {
                let ended = Ended {
                    status: RunStatus::Cancelled,
                    exit_code: None,
                    error: Some("the server shut down before the run started".into()),
                    log_tail: None,
                    kept: Vec::new(),
                };
                let _ = self.store.agents().end_run(&r.id, &ended).await;
            }
        }
    }

    /// At start: the live runs of servers of this host that are gone are marked abandoned,
    /// and their process groups (when their leader is still the process that was started)
    /// killed. Answers how many.
    pub async fn recover(&self) -> usize {
        let hostname = self.identity.host.split('/').next().unwrap_or_default().to_string();
        let Ok(runs) = self.store.agents().live_on(&format!("{hostname}/")).await else { return 0 };
        let mut n = 0;
        for r in runs {
            let same_boot = r.host.as_deref() == Some(&self.identity.host);
            let server_alive = same_boot
                && r.server_pid.zip(r.server_started).is_some_and(|(pid, st)| {
                    (pid, st) == (self.identity.pid, self.identity.started) || proc::start_time(pid as i32) == Some(st)
                });
            if server_alive {
                continue;
            }
            if same_boot {
                if let (Some(pid), Some(st)) = (r.pid, r.proc_started) {
                    if proc::start_time(pid as i32) == Some(st) {
                        proc::kill_group(pid as i32);
                    }
                }
            }
            let ended = Ended {
                status: RunStatus::Abandoned,
                exit_code: None,
                error: Some("the server that ran it stopped without ending it; its processes were reaped".into()),
                log_tail: None,
                kept: worktree::release_all(&self.run_dir(&r.id)).await,
            };
            if self.store.agents().end_run(&r.id, &ended).await.unwrap_or(false) {
                n += 1;
            }
        }
        n
    }

    /// Records that a run of `agent_id` listens to `space_id` (its session subscribed to the
    /// space's messages), until the answer is dropped.
    pub fn listen(&self, agent_id: &str, space_id: &str) -> Listening {
        let key = (agent_id.to_string(), space_id.to_string());
        *self.listeners.lock().expect("listeners").entry(key.clone()).or_default() += 1;
        Listening { key, map: self.listeners.clone() }
    }

    /// Whether a run of `agent_id` connected to this server listens to `space_id`: a message
    /// there reaches it without starting a run. (A run listening through another replica is
    /// not known here: that replica's message starts one more run, whose answer is a
    /// duplicate, never a loss.)
    pub fn listening(&self, agent_id: &str, space_id: &str) -> bool {
        self.listeners.lock().expect("listeners").contains_key(&(agent_id.to_string(), space_id.to_string()))
    }

    /// The live run's own worktree of `repo` (checked out at `origin`), made on first use.
    pub async fn worktree(&self, run_id: &str, repo: &str, origin: &Path) -> Result<worktree::Worktree, String> {
        let _one = self.worktrees.lock().await;
        let live = self.live.lock().expect("live runs").get(run_id).is_some_and(|l| !l.released);
        if !live {
            return Err(format!("run {run_id} is not running on this server: it gets no worktree here"));
        }
        worktree::ensure(&self.run_dir(run_id), run_id, repo, origin).await
    }

    /// The run's worktree of `repo`, when it has made one.
    pub fn worktree_of(&self, run_id: &str, repo: &str) -> Option<worktree::Worktree> {
        worktree::of_run(&self.run_dir(run_id)).into_iter().find(|w| w.repo == repo)
    }

    /// The files of `w` changed since it was made (reused for [`CHANGES_TTL`]).
    pub async fn changed_files(&self, w: &worktree::Worktree) -> Arc<Vec<String>> {
        if let Some((at, files)) = self.changes.lock().expect("changes").get(&w.path) {
            if at.elapsed() < CHANGES_TTL {
                return files.clone();
            }
        }
        let files = Arc::new(worktree::changed_files(w).await);
        let mut map = self.changes.lock().expect("changes");
        map.retain(|_, (at, _)| at.elapsed() < CHANGES_TTL);
        map.insert(w.path.clone(), (std::time::Instant::now(), files.clone()));
        files
    }

    /// The run of `id`, when it is live on this server: its stop token (tests, the console).
    pub fn stop(&self, run_id: &str) -> bool {
        match self.live.lock().expect("live runs").get(run_id) {
            Some(l) => {
                l.stop.cancel();
                true
            }
            None => false,
        }
    }
}
