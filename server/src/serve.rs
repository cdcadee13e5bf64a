//! `cc-server serve`, `cc-server mcp` and `cc-server tools`: building the app and
//! running a transport; project binding; the printed tool surface.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use cc_indexer::{DataDir, IndexOptions, NoProgress};
use rmcp::ServiceExt;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::app::App;
use crate::cli::{ApprovalsArgs, ApprovalsCommand, McpArgs, PolicyArgs, ServeArgs, SurfaceArgs, ToolsArgs};
use crate::mcp::approvals::ApprovalConfig;
use crate::mcp::dispatch::Dispatcher;
use crate::mcp::http::{HttpOptions, MAX_BODY};
use crate::mcp::policy::Mode;
use crate::mcp::principal::{Principal, Principals};
use crate::mcp::registry::{Surface, ToolDef};
use crate::mcp::service::Session;
use crate::mcp::sessions::SessionLimits;
use crate::store::{SqliteStore, Store, DEFAULT_WORKSPACE};

pub fn open_store(data: &DataDir) -> Result<Arc<dyn Store>> {
    Ok(Arc::new(SqliteStore::open(&data.root.join("workspace.sqlite3"))?))
}

/// Registers an indexed repository in a workspace, creating the workspace if needed.
pub fn register(store: &dyn Store, workspace: &str, repo: &str, quiet: bool) -> Result<()> {
    anyhow::ensure!(
        !workspace.is_empty()
            && workspace.len() <= 100
            && workspace.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)),
        "invalid workspace id '{workspace}': use letters, digits, '.', '-' and '_'"
    );
    if store.ensure_workspace(workspace, workspace)? && !quiet {
        eprintln!("created workspace '{workspace}'");
    }
    store.add_repo(workspace, repo)
}

fn surface(a: &SurfaceArgs) -> Result<Surface> {
    Surface::parse(a.tools.as_deref(), a.all_tools).map_err(|e| anyhow::anyhow!("--tools: {e}"))
}

pub fn build_app(data: DataDir, bound_repo: Option<String>) -> Result<Arc<App>> {
    build_app_with(data, bound_repo, |_| {})
}

/// [`build_app`], with its policy settings adjusted by `configure` before it is shared.
pub fn build_app_with(data: DataDir, bound_repo: Option<String>, configure: impl FnOnce(&mut App)) -> Result<Arc<App>> {
    try_build_app(data, bound_repo, |app| {
        configure(app);
        Ok(())
    })
}

/// [`build_app_with`] with a configuration step that may refuse.
fn try_build_app(
    data: DataDir,
    bound_repo: Option<String>,
    configure: impl FnOnce(&mut App) -> Result<()>,
) -> Result<Arc<App>> {
    let store = open_store(&data)?;
    let registry = crate::mcp::tools::registry();
    let unknown = registry.unknown_names_in_tables();
    anyhow::ensure!(unknown.is_empty(), "tool tables name unregistered tools: {unknown:?}");
    let mut app = App::new(data, store, Dispatcher::new(registry), bound_repo);
    configure(&mut app)?;
    Ok(Arc::new(app))
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

fn apply_policy(app: &mut App, p: &PolicyArgs, operator: bool) -> Result<()> {
    (app.default_mode, app.max_mode) = modes(p)?;
    app.read_policy.include_ignored = p.read_ignored_files;
    app.approvals = ApprovalConfig {
        queue: p.approval_queue || operator,
        timeout: std::time::Duration::from_secs(p.approval_timeout),
        ..ApprovalConfig::default()
    };
    Ok(())
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")
}

pub fn serve(data: DataDir, a: ServeArgs, quiet: bool) -> Result<()> {
    let surface = surface(&a.surface)?;
    modes(&a.policy)?;
    let unauthenticated = a.token.iter().all(|t| t.is_empty()) && a.tokens_file.is_none();
    if !a.listen.is_loopback() && unauthenticated && !a.allow_unauthenticated {
        anyhow::bail!(
            "--listen {}: refusing to serve every tool without a token on an address other hosts can reach; \
             give --token SECRET (or --tokens-file FILE), or --allow-unauthenticated to serve it anyway",
            a.listen
        );
    }
    let store = open_store(&data)?;
    for path in &a.index {
        let run = crate::engine::index(&data, &IndexOptions::new(path), &NoProgress, None)?;
        register(&*store, DEFAULT_WORKSPACE, &run.index.name, quiet)?;
        if !quiet {
            crate::output::print_report(&run, true);
        }
    }
    drop(store);
    let mut principals = Principals::default();
    for t in a.token.iter().filter(|t| !t.is_empty()) {
        principals.add_flag(t).context("--token")?;
    }
    if let Some(f) = &a.tokens_file {
        principals.add_file(f).context("--tokens-file")?;
    }
    let operator_token = a.operator_token.filter(|t| !t.is_empty());
    if let Some(op) = &operator_token {
        anyhow::ensure!(op.len() >= 8, "--operator-token: shorter than 8 characters");
        anyhow::ensure!(
            principals.authenticate(op).is_none(),
            "--operator-token: the same secret as a principal's token (an agent would approve its own calls)"
        );
    }
    let app = try_build_app(data, None, |app| apply_policy(app, &a.policy, operator_token.is_some()))?;
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
    let r = runtime()?.block_on(crate::mcp::http::serve(app.clone(), surface, opts, CancellationToken::new()));
    // Nothing a rig started outlives the server.
    app.shutdown_rigs();
    r
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

pub fn mcp(data: DataDir, a: McpArgs) -> Result<()> {
    let surface = surface(&a.surface)?;
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
            open_store(&data)?.ensure_workspace(DEFAULT_WORKSPACE, "Default")?;
            open_store(&data)?.add_repo(DEFAULT_WORKSPACE, &name)?;
            Some((name, root))
        }
        None => None,
    };
    let app = try_build_app(data, bound.as_ref().map(|(n, _)| n.clone()), |app| apply_policy(app, &a.policy, false))?;
    if let Some((name, root)) = bound {
        app.set_bound_root(root, name);
    }
    let rigs_owner = app.clone();
    let r = runtime()?.block_on(async move {
        let session = Session::new(app, surface).with_principal(Principal::local());
        let running = session.serve(rmcp::transport::stdio()).await.context("MCP over stdio")?;
        tokio::select! {
            r = running.waiting() => { r.context("MCP session")?; }
            _ = crate::signals::wait() => {}
        }
        Ok(())
    });
    // Nothing a rig started outlives the server.
    rigs_owner.shutdown_rigs();
    r
}

fn tool_json(t: &ToolDef) -> serde_json::Value {
    json!({
        "name": t.name,
        "title": t.title,
        "description": t.description,
        "toolsets": t.toolsets,
        "workspace_scope": t.scope,
        "action_classes": t.action_classes,
        "requires_approval": t.requires_approval,
        "read_only": t.read_only,
        "input_schema": t.input_schema,
        "output_schema": t.output_schema,
    })
}

/// The surface as Markdown: what docs/mcp-tools.md holds.
pub fn markdown(tools: &[&ToolDef]) -> String {
    let mut s = String::from(
        "# MCP tools\n\nGenerated by `cc-server tools --markdown --all-tools`; do not edit by hand (a test fails when this file drifts from the server).\n\n",
    );
    s.push_str("| Tool | Sets | workspace_id | Action classes | Description |\n|---|---|---|---|---|\n");
    for t in tools {
        let scope = serde_json::to_value(t.scope).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        let classes: Vec<String> = t
            .action_classes
            .iter()
            .filter_map(|c| serde_json::to_value(c).ok()?.as_str().map(str::to_string))
            .collect();
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            t.name,
            if t.toolsets.is_empty() { "(always)".to_string() } else { t.toolsets.join(", ") },
            scope,
            if classes.is_empty() { "—".to_string() } else { classes.join(", ") },
            t.description.replace('|', "\\|")
        ));
    }
    s.push_str(&policy_markdown());
    for t in tools {
        s.push_str(&format!("\n## `{}`\n\n{}\n\nArguments:\n\n", t.name, t.description));
        let props = t.input_schema.get("properties").and_then(|p| p.as_object());
        let required: Vec<&str> = t
            .input_schema
            .get("required")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        match props {
            Some(p) if !p.is_empty() => {
                for (name, schema) in p {
                    let ty = schema.get("type").map(|t| t.to_string().replace('"', "")).unwrap_or_else(|| "any".into());
                    let desc = schema.get("description").and_then(|d| d.as_str()).unwrap_or("").replace('\n', " ");
                    let req = if required.contains(&name.as_str()) { "required" } else { "optional" };
                    s.push_str(&format!("- `{name}` ({ty}, {req}): {desc}\n"));
                }
            }
            _ => s.push_str("- none\n"),
        }
    }
    s
}

/// `cc-server approvals list|approve|reject`: the operator's queue, on the data directory.
pub fn approvals(data: &DataDir, a: ApprovalsArgs) -> Result<()> {
    let store = open_store(data)?;
    match a.command {
        ApprovalsCommand::List { all, json } => {
            let list = store.approvals(!all)?;
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
            let ap = store.decide_approval(&id, true, "operator (cli)", reason.as_deref())?;
            println!("approved {} ({}); the client's next identical call runs", ap.id, ap.tool);
        }
        ApprovalsCommand::Reject { id, reason } => {
            let ap = store.decide_approval(&id, false, "operator (cli)", reason.as_deref())?;
            println!("rejected {} ({})", ap.id, ap.tool);
        }
    }
    Ok(())
}

/// The policy tables as Markdown (part of docs/mcp-tools.md): modes, guardrails, approvals.
fn policy_markdown() -> String {
    use crate::mcp::policy::{Mode, ALWAYS_ALLOWED, GUARDRAILS, MODE_ALLOWLISTS, SPEC_NOT_YET_REGISTERED};
    let code = |names: &[&str]| {
        if names.is_empty() {
            "—".to_string()
        } else {
            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        }
    };
    let mut s = String::from(
        "\n## Policy\n\nA conversation (an MCP session) opens in the server's `--mode` (default chat) or the `Cc-Mode` header's; `set_mode` and `exit_plan_mode` change it, asking for an approval when they leave a restricted mode. A blocked call is refused with the reason.\n\n| Mode | Allowed tools (besides the always-allowed ones) |\n|---|---|\n| chat | every served tool |\n",
    );
    for (m, names) in MODE_ALLOWLISTS {
        s.push_str(&format!("| {m} | {} |\n", code(names)));
    }
    s.push_str("\n| Always allowed | Tools |\n|---|---|\n");
    for (set, names) in ALWAYS_ALLOWED {
        s.push_str(&format!("| {set} | {} |\n", code(names)));
    }
    s.push_str("\nAction-class guardrails (prompt = asked through the confirmation port; denied when no approver is connected):\n\n| Class |");
    for m in Mode::ALL {
        s.push_str(&format!(" {m} |"));
    }
    s.push_str(" Hints |\n|---|---|---|---|---|---|\n");
    for row in GUARDRAILS {
        let class =
            serde_json::to_value(row.class).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        s.push_str(&format!("| {class} |"));
        for d in row.by_mode {
            s.push_str(&format!(
                " {} |",
                serde_json::to_value(d).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
            ));
        }
        let mut hints = Vec::new();
        if row.destructive {
            hints.push("destructive");
        }
        if row.open_world {
            hints.push("open world");
        }
        s.push_str(&format!(" {} |\n", if hints.is_empty() { "—".to_string() } else { hints.join(", ") }));
    }
    s.push_str(&format!(
        "\nTools that require an approval: {}.\n\nNamed by the spec, joining these tables when they are registered:\n\n",
        code(crate::mcp::registry::APPROVALS)
    ));
    for (table, names) in SPEC_NOT_YET_REGISTERED {
        s.push_str(&format!("- {table}: {}\n", code(names)));
    }
    s
}

pub fn tools(a: ToolsArgs) -> Result<()> {
    let surface = surface(&a.surface)?;
    let registry = crate::mcp::tools::registry();
    let tools: Vec<&ToolDef> = registry.all().filter(|t| surface.serves(t)).collect();
    if a.json {
        println!("{}", serde_json::to_string_pretty(&tools.iter().map(|t| tool_json(t)).collect::<Vec<_>>())?);
    } else if a.markdown {
        print!("{}", markdown(&tools));
    } else {
        for t in &tools {
            let sets = if t.toolsets.is_empty() { "(always)".to_string() } else { t.toolsets.join(",") };
            println!("{:<20} {:<12} {}", t.name, sets, t.description);
        }
    }
    Ok(())
}
