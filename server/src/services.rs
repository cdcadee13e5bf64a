//! What a tool handler may use, and nothing more: the store, the repositories, the rigs,
//! the server's policy settings. Handlers get it through their context
//! ([`crate::mcp::tool::Ctx`]); the MCP façade holds it beside the dispatcher, never inside.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::SystemTime;

use anyhow::Result;
use cc_indexer::DataDir;

use crate::engine::Loaded;
use crate::mcp::approvals::ApprovalConfig;
use crate::mcp::policy::Mode;
use crate::store::Store;

/// The services of one server.
pub struct Services {
    pub data: DataDir,
    pub store: Store,
    pub repos: Repos,
    pub rigs: Rigs,
    pub policy: ServerPolicy,
    /// The operator's configuration file.
    pub config: crate::config::Config,
    /// Events between the parts of the server and between replicas.
    pub bus: Arc<crate::bus::Bus>,
    /// Agents' runs.
    pub runtime: Arc<crate::agents::Runtime>,
    /// The GitHub mirror of tickets, when `[tickets.github]` configures one.
    pub mirror: Option<Arc<crate::providers::Mirror>>,
    /// The memory indexes (built from the store, per workspace).
    pub memory: crate::memory::Memory,
    /// This server among the replicas of its store.
    pub replica: Arc<crate::replicas::Replica>,
}

/// How this server decides: approvals, modes, what a client may read, how feeds are fetched.
#[derive(Clone, Debug)]
pub struct ServerPolicy {
    /// How approvals are decided (elicitation, the operator's queue, nobody).
    pub approvals: ApprovalConfig,
    /// The mode a conversation opens in when its connection names none.
    pub default_mode: Mode,
    /// A ceiling for every conversation (`--max-mode`): when restricted, every session runs
    /// in it and nothing moves it elsewhere. Chat is no ceiling.
    pub max_mode: Mode,
    /// What a client may read of a repository's files (code_read, include_source, the
    /// `cc://` file resources): the walk's files unless the operator widens it.
    pub read_policy: cc_indexer::files::ReadPolicy,
    /// How the owner's news feeds are fetched (timeout, body cap, redirects, concurrency).
    pub feeds: crate::feeds::FeedPolicy,
}

impl Default for ServerPolicy {
    fn default() -> Self {
        ServerPolicy {
            approvals: ApprovalConfig::default(),
            default_mode: Mode::Chat,
            max_mode: Mode::Chat,
            read_policy: cc_indexer::files::ReadPolicy {
                include_ignored: false,
                max_bytes: crate::mcp::tools::code::MAX_READ_BYTES,
            },
            feeds: crate::feeds::FeedPolicy::default(),
        }
    }
}

impl ServerPolicy {
    /// Whether a conversation may be in `mode` under the server's `--max-mode`.
    pub fn check_ceiling(&self, mode: Mode) -> std::result::Result<(), String> {
        if self.max_mode.restricted() && mode != self.max_mode {
            return Err(format!(
                "this server runs every conversation in {} mode (--max-mode {}); {mode} is not available",
                self.max_mode, self.max_mode
            ));
        }
        Ok(())
    }
}

impl Services {
    pub fn new(data: DataDir, store: Store, bound_repo: Option<String>) -> Services {
        Services::with_config(data, store, bound_repo, crate::config::Config::default())
    }

    pub fn with_config(
        data: DataDir,
        store: Store,
        bound_repo: Option<String>,
        config: crate::config::Config,
    ) -> Services {
        let bus = Arc::new(crate::bus::Bus::new(&store));
        let runtime = Arc::new(crate::agents::Runtime::new(store.clone(), bus.clone(), config.clone(), data.clone()));
        let replica = Arc::new(crate::replicas::Replica::this());
        let turns = crate::replicas::IndexTurns::of(&store, &replica);
        Services {
            repos: Repos::new(data.clone(), bound_repo, turns),
            data,
            store,
            rigs: Rigs::new(&config, replica.observer()),
            policy: ServerPolicy::default(),
            config,
            bus,
            runtime,
            mirror: None,
            memory: crate::memory::Memory::new(crate::embedding::global()),
            replica,
        }
    }
}

/// The indexed repositories, loaded once each (index + call graph + vectors) and reloaded
/// after a re-index; the repository a `cc-server mcp` session is bound to, indexed on first use.
pub struct Repos {
    data: DataDir,
    /// The repository the server was started in (`cc-server mcp` inside a checkout).
    pub bound: Option<String>,
    bound_root: Mutex<Option<PathBuf>>,
    loaded: RwLock<HashMap<String, (SystemTime, Arc<Loaded>)>>,
    /// How this server's index runs take turns with other replicas'.
    pub turns: crate::replicas::IndexTurns,
}

impl Repos {
    fn new(data: DataDir, bound: Option<String>, turns: crate::replicas::IndexTurns) -> Repos {
        Repos { data, bound, bound_root: Mutex::new(None), loaded: RwLock::new(HashMap::new()), turns }
    }

    /// The checkout the bound repository lives in: indexed on first use.
    pub fn set_bound_root(&self, root: PathBuf, name: String) {
        debug_assert_eq!(self.bound.as_deref(), Some(name.as_str()));
        *self.bound_root.lock().expect("bound root") = Some(root);
    }

    /// Indexes the bound repository if it has no index yet, reporting progress and
    /// stopping when `cancel` is set.
    fn ensure_bound_indexed(
        &self,
        name: &str,
        progress: &dyn crate::engine::RunProgress,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<()> {
        let indexed = || self.data.repo_dir(name).join("meta.json").is_file();
        if self.bound.as_deref() != Some(name) || indexed() {
            return Ok(());
        }
        let Some(root) = self.bound_root.lock().expect("bound root").clone() else { return Ok(()) };
        let mut opts = cc_indexer::IndexOptions::new(root);
        opts.name = Some(name.to_string());
        self.turns.run(name, cancel, || {
            // Another replica may have indexed it while this one waited for its turn.
            if !indexed() {
                crate::engine::index(&self.data, &opts, progress, cancel)?;
            }
            Ok(())
        })
    }

    /// The repository `name` with its graph, loaded once and reloaded after a re-index.
    /// Blocking (disk reads, maybe a first index run): async callers run it on the blocking pool.
    pub fn get(&self, name: &str) -> Result<Arc<Loaded>> {
        self.get_with(name, &cc_indexer::NoProgress, None)
    }

    /// [`Repos::get`], indexing the bound repository first when it has no index yet (a
    /// long call: progress is reported, and `cancel` stops it).
    pub fn get_with(
        &self,
        name: &str,
        progress: &dyn crate::engine::RunProgress,
        cancel: Option<&std::sync::atomic::AtomicBool>,
    ) -> Result<Arc<Loaded>> {
        self.ensure_bound_indexed(name, progress, cancel)?;
        // The vectors are written after meta.json (the embedding step follows the index run):
        // either changing means a reload.
        let dir = self.data.repo_dir(name);
        let modified =
            |f: &str| std::fs::metadata(dir.join(f)).and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
        let stamp = modified("meta.json").max(modified(cc_indexer::vectors::VECTORS_FILE));
        if let Some((t, l)) = self.loaded.read().expect("repo cache").get(name) {
            if *t == stamp {
                return Ok(l.clone());
            }
        }
        let l = Arc::new(Loaded::open(&self.data, name)?);
        self.loaded.write().expect("repo cache").insert(name.to_string(), (stamp, l.clone()));
        Ok(l)
    }
}

/// The rig pool, started on first use. Rigs live here, not in an MCP connection: a rig
/// closes when the session controlling it ends unless a call asked to `keep` it; a client
/// that reconnects finds a kept rig (rig_list, `rig_id`).
pub struct Rigs {
    /// The pool's limits (`CC_RIG_MAX`, `CC_RIG_IDLE_SECS`, `CC_RIG_ACTION_SECS` by
    /// default); read when the pool starts.
    pub config: cc_rigs::pool::PoolConfig,
    /// Browser engines whose rigs are sessions at a remote WebDriver endpoint
    /// (`[webdriver.<engine>]`, `--webdriver-url`); the others start a driver here.
    pub remote_browsers: HashMap<cc_rigs::browser::Engine, cc_rigs::browser::Remote>,
    pool: OnceLock<cc_rigs::pool::Pool>,
    /// Hears the pool's rigs come and go (this replica's rig records).
    observer: Arc<dyn cc_rigs::pool::Observer>,
}

impl Rigs {
    fn new(config: &crate::config::Config, observer: Arc<dyn cc_rigs::pool::Observer>) -> Rigs {
        Rigs {
            config: rig_config_from_env(),
            remote_browsers: config.webdriver.remotes(),
            pool: OnceLock::new(),
            observer,
        }
    }

    /// The pool, started on first use.
    pub fn pool(&self) -> std::result::Result<&cc_rigs::pool::Pool, cc_rigs::RigError> {
        if let Some(p) = self.pool.get() {
            return Ok(p);
        }
        let pool = cc_rigs::pool::Pool::new(self.config.clone())?;
        pool.observe(self.observer.clone());
        // A racing first call may have set it: then ours is dropped (it holds no rig).
        Ok(self.pool.get_or_init(|| pool))
    }

    /// The pool if a rig tool started it (nothing to close otherwise).
    pub fn started(&self) -> Option<&cc_rigs::pool::Pool> {
        self.pool.get()
    }

    /// Closes every rig and kills every process a rig started (server shutdown).
    pub fn shutdown(&self) {
        if let Some(p) = self.pool.get() {
            p.shutdown();
        }
    }
}

/// The pool's limits: defaults, overridden by `CC_RIG_MAX` (rigs at once),
/// `CC_RIG_IDLE_SECS` (idle time before a rig is closed) and `CC_RIG_ACTION_SECS`.
fn rig_config_from_env() -> cc_rigs::pool::PoolConfig {
    let mut c = cc_rigs::pool::PoolConfig::default();
    let num = |k: &str| std::env::var(k).ok().and_then(|v| v.trim().parse::<u64>().ok()).filter(|n| *n > 0);
    if let Some(n) = num("CC_RIG_MAX") {
        c.max_rigs = n as usize;
    }
    if let Some(n) = num("CC_RIG_IDLE_SECS") {
        c.idle_timeout = std::time::Duration::from_secs(n);
        c.reap_every = c.reap_every.min(std::time::Duration::from_secs(n));
    }
    if let Some(n) = num("CC_RIG_ACTION_SECS") {
        c.action_timeout = std::time::Duration::from_secs(n);
    }
    c
}
