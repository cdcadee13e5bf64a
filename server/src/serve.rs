//! `cc-server serve`, `cc-server mcp`, `cc-server tools` and `cc-server approvals`: opening
//! the store, building the app and running a transport; project binding; the printed
//! tool surface; the operator's approval queue.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use cc_indexer::{DataDir, IndexOptions, NoProgress};
use rmcp::ServiceExt;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::app::App;
use crate::cli::{
    ApprovalsArgs, ApprovalsCommand, McpArgs, PolicyArgs, ServeArgs, SurfaceArgs, ToolsArgs, WebDriverArgs,
};
use crate::mcp::approvals::ApprovalConfig;
use crate::mcp::extension::Extension;
use crate::mcp::http::{HttpOptions, MAX_BODY};
use crate::mcp::policy::Mode;
use crate::mcp::principal::{Principal, Principals};
use crate::mcp::service::Session;
use crate::mcp::sessions::SessionLimits;
use crate::mcp::surface::Surface;
use crate::services::{ServerPolicy, Services};
use crate::store::{Store, DEFAULT_WORKSPACE};

/// Where the workspace store is, and what the server adds: the settings every command that
/// builds a server shares (`--store`, the extension of a test binary).
#[derive(Clone, Default)]
pub struct Setup {
    /// `--store URL` / `CC_STORE_URL`; `None`: SQLite in the data directory.
    pub store_url: Option<String>,
    pub extension: Option<Arc<dyn Extension>>,
    /// The operator's configuration file (`--config`, else `<data>/config.toml`).
    pub config: crate::config::Config,
}

/// The SQLite store of a data directory.
pub fn sqlite_path(data: &DataDir) -> PathBuf {
    data.root.join("workspace.sqlite3")
}

/// Opens (creating and migrating) the store: `url`, else SQLite in the data directory.
pub async fn open_store_at(data: &DataDir, url: Option<&str>) -> Result<Store> {
    let store = match url {
        Some(u) => Store::open(u).await,
        None => Store::open_sqlite(&sqlite_path(data)).await,
    };
    store.with_context(|| {
        format!(
            "opening the workspace store ({})",
            url.map_or_else(|| sqlite_path(data).display().to_string(), crate::store::redact)
        )
    })
}

/// [`open_store_at`] for a caller without a runtime (the CLI, tests): on a runtime of its own.
pub fn open_store(data: &DataDir) -> Result<Store> {
    block_on(open_store_at(data, None))
}

/// Runs `f` to completion, on a runtime the calls share.
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    // One runtime for every call, kept running: sqlx returns a released connection to its
    // pool from a task it spawns, and a runtime dropped at the end of the call dropped that
    // task, leaking the connection (the store's one writer: the next write timed out).
    static RUNTIME: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("cc-block-on")
                .enable_all()
                .build()
                .expect("a runtime")
        })
        .block_on(f)
}

/// Registers an indexed repository in a workspace, creating the workspace if needed.
pub async fn register_async(store: &Store, workspace: &str, repo: &str, quiet: bool) -> Result<()> {
    anyhow::ensure!(
        !workspace.is_empty()
            && workspace.len() <= 100
            && workspace.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
        "invalid workspace id '{workspace}': use letters, digits, '.', '-' and '_'"
    );
    if store.workspaces().ensure(workspace, workspace).await? && !quiet {
        eprintln!("created workspace '{workspace}'");
    }
    Ok(store.workspaces().add_repo(workspace, repo).await?)
}

/// [`register_async`] for a caller without a runtime.
pub fn register(store: &Store, workspace: &str, repo: &str, quiet: bool) -> Result<()> {
    block_on(register_async(store, workspace, repo, quiet))
}

fn surface(app: &App, a: &SurfaceArgs) -> Result<Surface> {
    app.surface(a.tools.as_deref()).map_err(|e| anyhow::anyhow!("--tools: {e}"))
}

/// The app over the product's registry, on the data directory's SQLite store.
pub fn build_app(data: DataDir, bound_repo: Option<String>) -> Result<Arc<App>> {
    build_app_with(data, bound_repo, |_| {})
}

/// [`build_app`], with its policy settings adjusted by `configure` before it is shared.
pub fn build_app_with(
    data: DataDir,
    bound_repo: Option<String>,
    configure: impl FnOnce(&mut ServerPolicy),
) -> Result<Arc<App>> {
    let store = open_store(&data)?;
    app_of(data, store, bound_repo, None, |p| {
        configure(p);
        Ok(())
    })
}

/// [`app_of`] with the operator's configuration.
pub fn app_with_config(
    data: DataDir,
    store: Store,
    bound_repo: Option<String>,
    setup: &Setup,
    configure: impl FnOnce(&mut ServerPolicy) -> Result<()>,
) -> Result<Arc<App>> {
    let mut services = Services::with_config(data, store.clone(), bound_repo, setup.config.clone());
    if let Some(g) = &setup.config.tickets.github {
        let mirror = crate::providers::Mirror::new(store, g)?;
        block_on(mirror.register())?;
        services.mirror = Some(Arc::new(mirror));
    }
    configure(&mut services.policy)?;
    let app = App::new(services, crate::mcp::tools::registry(), setup.extension.clone());
    Ok(Arc::new(app.with_bridge(&setup.config.bridge)))
}

/// The app over the product's registry (and `extension`'s tools) on `store`.
pub fn app_of(
    data: DataDir,
    store: Store,
    bound_repo: Option<String>,
    extension: Option<Arc<dyn Extension>>,
    configure: impl FnOnce(&mut ServerPolicy) -> Result<()>,
) -> Result<Arc<App>> {
    let mut services = Services::new(data, store, bound_repo);
    configure(&mut services.policy)?;
    Ok(Arc::new(App::new(services, crate::mcp::tools::registry(), extension)))
}

/// The modes of `--mode` and `--max-mode`: (the opening mode, the ceiling).
fn modes(p: &PolicyArgs) -> Result<(Mode, Mode)> {
    let ceiling = p.max_mode;
    let default = p.mode.unwrap_or(ceiling);
    anyhow::ensure!(
        !ceiling.restricted() || default == ceiling,
        "--mode {default} is above --max-mode {ceiling}: with a ceiling every conversation runs in {ceiling}"
    );
    Ok((default, ceiling))
}

fn apply_policy(policy: &mut ServerPolicy, p: &PolicyArgs, operator: bool) -> Result<()> {
    (policy.default_mode, policy.max_mode) = modes(p)?;
    policy.read_policy.include_ignored = p.read_ignored_files;
    policy.approvals = ApprovalConfig {
        queue: p.approval_queue || operator,
        timeout: std::time::Duration::from_secs(p.approval_timeout),
        ..ApprovalConfig::default()
    };
    Ok(())
}

/// The setup with the command line's WebDriver endpoints and headers over the configuration's
/// `[webdriver]`, every table checked (a bad value fails the start, naming the flag or table).
fn with_webdriver(setup: &Setup, a: &WebDriverArgs) -> Result<Setup> {
    let mut setup = setup.clone();
    setup.config.webdriver.apply(&a.urls, &a.headers).map_err(crate::cli::BadInput)?;
    Ok(setup)
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")
}

pub fn serve(data: DataDir, setup: &Setup, a: ServeArgs, quiet: bool) -> Result<()> {
    modes(&a.policy)?;
    let setup = &with_webdriver(setup, &a.webdriver)?;
    let unauthenticated = a.token.iter().all(|t| t.is_empty()) && a.tokens_file.is_none();
    if !a.listen.is_loopback() && unauthenticated && !a.allow_unauthenticated {
        anyhow::bail!(
            "--listen {}: refusing to serve every tool without a token on an address other hosts can reach; \
             give --token SECRET (or --tokens-file FILE), or --allow-unauthenticated to serve it anyway",
            a.listen
        );
    }
    let mut principals = Principals::default();
    for t in a.token.iter().filter(|t| !t.is_empty()) {
        principals.add_flag(t).context("--token")?;
    }
    if let Some(f) = &a.tokens_file {
        principals.add_file(f).context("--tokens-file")?;
    }
    let operator_token = a.operator_token.clone().filter(|t| !t.is_empty());
    if let Some(op) = &operator_token {
        anyhow::ensure!(op.len() >= 8, "--operator-token: shorter than 8 characters");
        anyhow::ensure!(
            principals.authenticate(op).is_none(),
            "--operator-token: the same secret as a principal's token (an agent would approve its own calls)"
        );
    }
    let rt = runtime()?;
    let store = rt.block_on(open_store_at(&data, setup.store_url.as_deref()))?;
    let app = app_with_config(data.clone(), store.clone(), None, setup, |p| {
        apply_policy(p, &a.policy, operator_token.is_some())
    })?;
    // This replica is in the store before anything of it (its rigs' records) is.
    rt.block_on(crate::replicas::join(&app.services)).context("recording this replica in the store")?;
    for path in &a.index {
        let opts = IndexOptions::new(path);
        let name = index_name(&opts);
        // One replica at a time indexes a repository; the others wait, then find it current.
        let run =
            app.services.repos.turns.run(&name, None, || crate::engine::index(&data, &opts, &NoProgress, None))?;
        rt.block_on(register_async(&store, DEFAULT_WORKSPACE, &run.index.name, quiet))?;
        if !quiet {
            crate::output::print_report(&run, true);
        }
    }
    let surface = surface(&app, &a.surface)?;
    let opts = HttpOptions {
        addr: std::net::SocketAddr::new(a.listen, a.port),
        principals,
        operator_token,
        allowed_hosts: a.allowed_hosts,
        allowed_origins: a.allowed_origins,
        max_body: MAX_BODY,
        sessions: SessionLimits {
            max_total: a.max_sessions as usize,
            max_per_principal: a.max_sessions_per_principal as usize,
            idle: std::time::Duration::from_secs(a.session_idle_secs),
        },
    };
    if !a.listen.is_loopback() && opts.principals.is_empty() {
        eprintln!("warning: listening on {} without --token: anyone who can reach it can use every tool", a.listen);
    }
    if !a.listen.is_loopback() && opts.allowed_hosts.is_empty() {
        eprintln!(
            "note: only the Host names localhost, 127.0.0.1 and [::1] are accepted; clients that reach {} by another \
             name or address need it listed with --allowed-host",
            a.listen
        );
    }
    // Runs a server of this machine left behind when it died: reaped, marked abandoned.
    let abandoned = rt.block_on(app.services.runtime.recover());
    if abandoned > 0 && !quiet {
        eprintln!("cc-server: {abandoned} run(s) of a server that stopped without ending them were reaped and marked abandoned");
    }
    let feeds_stop = CancellationToken::new();
    if a.feed_refresh_secs > 0 {
        let every = std::time::Duration::from_secs(a.feed_refresh_secs);
        let (store, policy) = (app.services.store.clone(), app.services.policy.feeds.clone());
        rt.spawn(crate::feeds::background(store, policy, every, feeds_stop.clone()));
    }
    if let (Some(m), Some(g)) = (&app.services.mirror, &setup.config.tickets.github) {
        let every = std::time::Duration::from_secs(g.sync_every_secs.max(1));
        rt.spawn(crate::providers::background(m.clone(), every, feeds_stop.clone()));
    }
    // Orchestration plans decided while no server followed up (it stopped in between).
    if let Err(e) = rt.block_on(app.services.store.orchestration().resume()) {
        eprintln!("cc-server: decomposing approved orchestration plans: {e}");
    }
    rt.spawn(crate::pipelines::background(app.services.clone(), feeds_stop.clone()));
    let replica_stop = CancellationToken::new();
    let replica = rt.spawn(crate::replicas::background(app.services.clone(), replica_stop.clone()));
    start_bridge(&rt, &app);
    let r = rt.block_on(crate::mcp::http::serve(app.clone(), surface, opts, CancellationToken::new()));
    feeds_stop.cancel();
    if let Some(b) = &app.dispatcher.bridge {
        b.shutdown();
    }
    // Nothing a rig or a run started outlives the server.
    rt.block_on(app.services.runtime.shutdown(std::time::Duration::from_secs(10)));
    app.services.rigs.shutdown();
    // Leaves the replicas: its row and its rigs' records go.
    replica_stop.cancel();
    let _ = rt.block_on(async { tokio::time::timeout(std::time::Duration::from_secs(5), replica).await });
    r
}

/// The name an index run of `opts` gives its repository (its `--name`, else its folder's).
pub fn index_name(opts: &IndexOptions) -> String {
    opts.name.clone().unwrap_or_else(|| {
        let root = std::fs::canonicalize(&opts.root).unwrap_or_else(|_| opts.root.clone());
        cc_indexer::store::default_name(&root)
    })
}

/// The repository `cc-server mcp` binds to: `-p`, else the nearest folder upward with
/// `.git`, unless `CC_NO_PROJECT=1`.
pub fn find_project(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    if std::env::var("CC_NO_PROJECT").is_ok_and(|v| v == "1") {
        return None;
    }
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors().find(|d| d.join(".git").exists()).map(Path::to_path_buf)
}

pub fn mcp(data: DataDir, setup: &Setup, a: McpArgs) -> Result<()> {
    let setup = &with_webdriver(setup, &a.webdriver)?;
    let bound = match find_project(a.project.as_deref()) {
        Some(root) => {
            let root = root.canonicalize().with_context(|| format!("--project {}", root.display()))?;
            anyhow::ensure!(root.is_dir(), "--project {}: not a directory", root.display());
            // The existing index of this root, or a new one named after the folder.
            let name = data
                .repos()?
                .into_iter()
                .filter_map(|m| m.ok())
                .find(|m| Path::new(&m.root) == root)
                .map(|m| m.name)
                .unwrap_or_else(|| cc_indexer::store::default_name(&root));
            Some((name, root))
        }
        None => None,
    };
    let rt = runtime()?;
    let store = rt.block_on(open_store_at(&data, setup.store_url.as_deref()))?;
    if let Some((name, _)) = &bound {
        rt.block_on(store.workspaces().add_repo(DEFAULT_WORKSPACE, name))?;
    }
    let app = app_with_config(data, store, bound.as_ref().map(|(n, _)| n.clone()), setup, |p| {
        apply_policy(p, &a.policy, false)
    })?;
    let surface = surface(&app, &a.surface)?;
    if let Some((name, root)) = bound {
        app.services.repos.set_bound_root(root, name);
    }
    let rigs_owner = app.clone();
    start_bridge(&rt, &app);
    let r = rt.block_on(async move {
        let signals = crate::signals::listen();
        let session = Session::new(app, surface).with_principal(Principal::local());
        let running = session.serve(rmcp::transport::stdio()).await.context("MCP over stdio")?;
        tokio::select! {
            r = running.waiting() => { r.context("MCP session")?; }
            _ = signals => {}
        }
        Ok(())
    });
    // Nothing a rig or a bridged server started outlives the server.
    rigs_owner.services.rigs.shutdown();
    if let Some(b) = &rigs_owner.dispatcher.bridge {
        b.shutdown();
    }
    r
}

/// Connects the bridged servers (each keeps reconnecting on its own task) and waits a moment
/// for them, so a client's first tools/list has their tools; a slow one joins later.
fn start_bridge(rt: &tokio::runtime::Runtime, app: &App) {
    if let Some(b) = &app.dispatcher.bridge {
        let _in = rt.enter();
        b.start();
        rt.block_on(b.settle(std::time::Duration::from_secs(3)));
    }
}

/// `cc-server approvals list|approve|reject`: the operator's queue, on the store.
pub fn approvals(data: &DataDir, setup: &Setup, a: ApprovalsArgs) -> Result<()> {
    block_on(async {
        let store = open_store_at(data, setup.store_url.as_deref()).await?;
        let approvals = store.approvals();
        match a.command {
            ApprovalsCommand::List { all, json } => {
                let list = approvals.list(!all).await?;
                if json {
                    println!("{}", serde_json::to_string_pretty(&json!({ "approvals": list }))?);
                } else if list.is_empty() {
                    println!("{}", if all { "no approvals" } else { "no pending approvals" });
                } else {
                    for ap in list {
                        let ws = ap.workspace.as_deref().unwrap_or("-");
                        let spent = if ap.consumed_at.is_some() { " (used)" } else { "" };
                        println!(
                            "{}  {}{spent}  {}  workspace={ws}  principal={}",
                            ap.id, ap.status, ap.tool, ap.principal
                        );
                        println!("    why: {}", ap.why);
                        println!("    arguments: {}", ap.arguments);
                    }
                }
            }
            ApprovalsCommand::Approve { id, reason } => {
                let ap = approvals.decide(&id, true, "operator (cli)", reason.as_deref()).await?;
                println!("approved {} ({}); the client's next identical call runs", ap.id, ap.tool);
            }
            ApprovalsCommand::Reject { id, reason } => {
                let ap = approvals.decide(&id, false, "operator (cli)", reason.as_deref()).await?;
                println!("rejected {} ({})", ap.id, ap.tool);
            }
        }
        Ok(())
    })
}

/// `cc-server board …`: the operator's view of the approvals board, and its decisions.
pub fn board(data: &DataDir, setup: &Setup, a: crate::cli::BoardArgs) -> Result<()> {
    use crate::cli::BoardCommand as C;
    use crate::store::board::Decision;
    use crate::store::{Actor, BoardStatus};
    block_on(async {
        let store = open_store_at(data, setup.store_url.as_deref()).await?;
        let board = store.board();
        match a.command {
            C::List { workspace, status, json } => {
                let status = status.map(|s| BoardStatus::parse(&s)).transpose()?;
                let list = board.list(&workspace, status, 1000).await?;
                if json {
                    println!("{}", serde_json::to_string_pretty(&json!({ "approvals": list }))?);
                } else if list.is_empty() {
                    println!("no board approvals in workspace '{workspace}'");
                } else {
                    for ap in list {
                        println!(
                            "{}  {}  {}  {}  requester={}",
                            ap.id,
                            ap.status.as_str(),
                            ap.kind.as_str(),
                            ap.title,
                            ap.requester
                        );
                    }
                }
            }
            C::Show { id, json } => {
                let ap = board.get(&id).await?.ok_or_else(|| anyhow::anyhow!("no board approval '{id}'"))?;
                let events = board.events(&id).await?;
                if json {
                    println!("{}", serde_json::to_string_pretty(&json!({ "approval": ap, "events": events }))?);
                } else {
                    println!("{}  {}  {}  {}", ap.id, ap.status.as_str(), ap.kind.as_str(), ap.title);
                    println!("    workspace={}  requester={}", ap.workspace_id, ap.requester);
                    println!("    payload: {}", ap.payload);
                    for e in events {
                        let note = e.note.map(|n| format!(": {n}")).unwrap_or_default();
                        println!("    {}. {} by {}{note}", e.seq, e.action, e.actor);
                    }
                }
            }
            C::Decide { id, decision, note } => {
                let d = match decision.as_str() {
                    "approve" => Decision::Approve,
                    "reject" => Decision::Reject,
                    "request_revision" | "request-revision" => Decision::RequestRevision,
                    other => anyhow::bail!("unknown decision '{other}': approve, reject or request_revision"),
                };
                let by = Actor { id: "principal:operator".into(), name: "operator".into() };
                let ap = board.decide(&id, d, &by, note.as_deref()).await?;
                println!("{} is {} now", ap.id, ap.status.as_str());
            }
        }
        Ok(())
    })
}

/// `cc-server agents …`: the operator's registry of agents.
pub fn agents(data: &DataDir, setup: &Setup, a: crate::cli::AgentsArgs) -> Result<()> {
    use crate::agents::admin::{self, AgentSpec};
    use crate::cli::AgentsCommand as C;
    let spec = |f: crate::cli::AgentFields| AgentSpec {
        runtime: f.runtime,
        skills: f.skills,
        description: f.description,
        reports_to: f.reports_to.map(|m| (m != "none").then_some(m)),
        capacity: f.capacity,
        autonomy: f.autonomy,
    };
    block_on(async {
        let store = open_store_at(data, setup.store_url.as_deref()).await?;
        match a.command {
            C::Add { name, workspace, fields } => {
                let (agent, token) = admin::add(&store, &setup.config, &workspace, &name, spec(fields)).await?;
                eprintln!(
                    "added agent '{}' ({}) to workspace '{}'; its token (shown once):",
                    agent.name, agent.id, workspace
                );
                println!("{token}");
            }
            C::Update { name, workspace, fields } => {
                let agent = admin::update(&store, &workspace, &name, spec(fields)).await?;
                println!("updated agent '{}' ({})", agent.name, agent.id);
            }
            C::List { workspace, json: as_json } => {
                let list = store.agents().list(&workspace).await?;
                if as_json {
                    println!("{}", serde_json::to_string_pretty(&json!({ "agents": list }))?);
                } else if list.is_empty() {
                    println!("no agents in workspace '{workspace}' (cc-server agents add NAME --runtime PROFILE)");
                } else {
                    for ag in list {
                        println!(
                            "{:<20} {}  capacity {}  autonomy {}  skills: {}",
                            ag.name,
                            ag.id,
                            ag.capacity,
                            ag.autonomy,
                            if ag.skills.is_empty() { "-".into() } else { ag.skills.join(", ") }
                        );
                    }
                }
            }
            C::Show { name, workspace, runs: n, json: as_json } => {
                let ag = admin::get(&store, &workspace, &name).await?;
                let runs = store.agents().runs(&workspace, Some(&ag.id), false, n).await?;
                let beat = store.agents().heartbeats(&workspace).await?.into_iter().find(|h| h.agent_id == ag.id);
                if as_json {
                    println!(
                        "{}",
                        serde_json::to_string_pretty(&json!({ "agent": ag, "heartbeat": beat, "runs": runs }))?
                    );
                    return Ok(());
                }
                println!("{} ({}) in workspace '{}'", ag.name, ag.id, ag.workspace_id);
                println!("  profile {}  capacity {}  autonomy {}", ag.profile_id, ag.capacity, ag.autonomy);
                println!("  skills: {}", if ag.skills.is_empty() { "-".into() } else { ag.skills.join(", ") });
                if !ag.description.is_empty() {
                    println!("  {}", ag.description);
                }
                match beat {
                    Some(b) => println!(
                        "  last heartbeat: {} {} s ago{}",
                        b.status,
                        (crate::store::now() - b.at).max(0),
                        b.note.map(|n| format!(" ({n})")).unwrap_or_default()
                    ),
                    None => println!("  no heartbeat yet"),
                }
                if runs.is_empty() {
                    println!("  no runs");
                }
                for r in runs {
                    println!(
                        "  {}  {:<10} {}{}",
                        r.id,
                        r.status.as_str(),
                        r.reason,
                        r.error.map(|e| format!(": {e}")).unwrap_or_default()
                    );
                }
            }
            C::Remove { name, workspace } => {
                admin::remove(&store, &workspace, &name).await?;
                println!("removed agent '{name}' from workspace '{workspace}'");
            }
            C::Token { name, workspace } => {
                let token = admin::rotate(&store, &workspace, &name).await?;
                eprintln!("a new token for agent '{name}' (the old one no longer works):");
                println!("{token}");
            }
        }
        Ok(())
    })
}

/// `cc-server profiles …`: runtime profiles, by the operator.
pub fn profiles(data: &DataDir, setup: &Setup, a: crate::cli::ProfilesArgs) -> Result<()> {
    use crate::cli::ProfilesCommand as C;
    block_on(async {
        let store = open_store_at(data, setup.store_url.as_deref()).await?;
        match a.command {
            C::Add { name, workspace, family, wake_on_message, timeout, argv } => {
                let timeout = timeout.unwrap_or(setup.config.runtimes.run_timeout_secs);
                let p = crate::store::agents::RuntimeProfile {
                    id: crate::store::agents::RuntimeProfile::new_id(),
                    workspace_id: workspace,
                    name,
                    family,
                    command: String::new(),
                    args: Vec::new(),
                    wake_on_message,
                    timeout_secs: timeout,
                    created_by: "operator (cli)".into(),
                    created_at: crate::store::now(),
                };
                let p = crate::agents::admin::add_profile(&store, &setup.config, p, &argv).await?;
                println!("added runtime profile '{}' ({}): {} {}", p.name, p.id, p.command, p.args.join(" "));
            }
            C::List { workspace, json: as_json } => {
                let list = store.agents().profiles(&workspace).await?;
                if as_json {
                    println!("{}", serde_json::to_string_pretty(&json!({ "profiles": list }))?);
                } else if list.is_empty() {
                    println!("no runtime profiles in workspace '{workspace}' (cc-server profiles add NAME --family F -- COMMAND)");
                } else {
                    for p in list {
                        println!("{:<20} {:<12} {} {}", p.name, p.family.as_str(), p.command, p.args.join(" "));
                    }
                }
            }
        }
        Ok(())
    })
}

/// `cc-server tools`: the served surface as a table, JSON or Markdown (docs/mcp-tools.md).
pub fn tools(setup: &Setup, a: ToolsArgs) -> Result<()> {
    let mut registry = crate::mcp::tools::registry();
    let mut extra = Vec::new();
    if let Some(e) = &setup.extension {
        e.register(&mut registry);
        extra = e.sets();
    }
    let surface =
        Surface::parse_with(a.surface.tools.as_deref(), &extra).map_err(|e| anyhow::anyhow!("--tools: {e}"))?;
    let tools: Vec<_> = surface.served(&registry).collect();
    if a.json {
        let all: Vec<_> = tools.iter().map(|t| crate::mcp::surface::contract(t)).collect();
        println!("{}", serde_json::to_string_pretty(&all)?);
    } else if a.markdown {
        print!("{}", crate::mcp::surface::markdown(&tools));
    } else {
        for t in &tools {
            println!("{:<26} {:<13} {}", t.decl.name, t.decl.set, t.decl.description);
        }
    }
    Ok(())
}
