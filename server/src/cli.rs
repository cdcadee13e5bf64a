//! Command-line interface: flags, commands, exit codes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use cc_indexer::{DataDir, IndexOptions, Lang, Repo, SearchQuery, SymbolKind, WalkOptions};
use clap::{Args, Parser, Subcommand};

use crate::output;

/// cc-server: a code-graph engine for agents.
///
/// Index repositories ahead of time (19 languages, tree-sitter), then ask where a symbol
/// is and what matches a query. Indexes live in the data directory, one folder per
/// repository; re-indexing only re-parses what changed.
#[derive(Parser, Debug)]
#[command(name = "cc-server", version, about, long_about, max_term_width = 100)]
pub struct Cli {
    /// Where indexes are kept [env: CC_DATA_DIR] [default: $XDG_DATA_HOME/cc-server, i.e.
    /// ~/.local/share/cc-server]
    // CC_DATA_DIR is read by `data_dir`, not by clap: clap lists an argument an environment
    // variable supplies in every usage line, as if the person had to type it.
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Print less: no progress bar, no per-language table
    #[arg(long, short, global = true)]
    pub quiet: bool,

    /// The operator's configuration file (allowed runtime commands, run limits, health
    /// thresholds) [default: <data dir>/config.toml when it exists]
    #[arg(long, global = true, env = "CC_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// The workspace store (workspaces, approvals, and the workspace areas' data):
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE for a team's server (several
    /// replicas may share it), else SQLite in the data directory (workspace.sqlite3)
    #[arg(long = "store", global = true, env = "CC_STORE_URL", hide_env_values = true, value_name = "URL")]
    pub store_url: Option<String>,

    /// Embedding model for semantic search: a folder (model.onnx + tokenizer.json + config.json +
    /// special_tokens_map.json + tokenizer_config.json; or one .onnx file in such a folder), or a
    /// fastembed model name (fetched on a connected machine). An index remembers the model its
    /// vectors were made with: its later searches and index runs use it when none is named.
    /// ONNX Runtime is loaded from ORT_DYLIB_PATH, else from the Python package `onnxruntime` (>= 1.24)
    #[arg(long, global = true, env = "CC_EMBED_MODEL", value_name = "DIR|NAME")]
    pub embed_model: Option<String>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Index a repository (incrementally when it was indexed before)
    ///
    /// Walks PATH honouring .gitignore, skips binary, vendored, minified and over-size files,
    /// parses every file of the 19 supported languages in parallel and writes a symbol index
    /// under the data directory. Run it again to pick up changes: only added, changed and
    /// deleted files are re-parsed. Progress is a bar on a terminal, else a line on stderr
    /// every 5 s (CC_PROGRESS_EVERY=SECONDS).
    Index(IndexArgs),
    /// Search symbols by words of their name, signature, doc comment and body (BM25 and embeddings)
    ///
    /// Identifiers are split into words, so `parse json` finds `parseJSONValue` and
    /// `parse_json`. Without --repo, searches the repository the current directory is in,
    /// else every indexed repository.
    Search(SearchArgs),
    /// Look up symbols by exact name (or qualified name) and print file:line and signature
    ///
    /// With --path, lists the symbols defined in that file or folder (with a NAME, only those
    /// of that name).
    Symbol(SymbolArgs),
    /// List the indexed repositories: when they were indexed and how big they are
    Repos(ReposArgs),
    /// Who calls a symbol: incoming call edges, breadth-first up to --depth hops
    ///
    /// NAME is a symbol id, a qualified name (`pkg.mod.Class.method`, `crate::m::f`) or a
    /// plain name; a plain name that matches several symbols lists them instead of guessing.
    Callers(GraphArgs),
    /// What a symbol calls: outgoing call edges, external names included (`json.loads`)
    Callees(GraphArgs),
    /// What may break if a symbol changes: its transitive callers up to --depth hops
    Impact(ImpactArgs),
    /// The call graph as data: `graph export` writes every edge (JSON lines, CSV or DOT)
    Graph(GraphCommandArgs),
    /// Remove a repository's index (never the repository itself) and take it out of every
    /// workspace
    Remove(RemoveArgs),
    /// Serve MCP over HTTP: Streamable HTTP at /mcp, the legacy HTTP+SSE pair at /sse + /messages
    ///
    /// Binds 127.0.0.1:9030 unless told otherwise; Host and Origin are checked on every route
    /// (DNS rebinding), and with --token every request needs `Authorization: Bearer TOKEN`.
    /// With --index, indexes those repositories first (into the default workspace).
    Serve(ServeArgs),
    /// Serve MCP over stdio (for an agent that starts cc-server itself)
    ///
    /// Started inside a repository, binds to it (the nearest folder upward with .git; -p
    /// overrides, CC_NO_PROJECT=1 disables): the repository joins the default workspace and is
    /// indexed on first use.
    Mcp(McpArgs),
    /// Print the MCP tool surface: every tool with its sets, scope and input schema
    Tools(ToolsArgs),

    /// Measure index and query performance on a repository, side by side with peers
    ///
    /// Indexes a mirror of PATH (the repository itself is never modified) cold, warm, and
    /// after changing --touch files, then times a seeded query workload drawn from its own
    /// symbols (exact lookups, keyword search, callers, callees, impact at depth 3 and 6).
    /// Prints a table: index wall time, MB/s, files/s, peak RSS, index size as a multiple
    /// of the source, time per changed file, and per query kind p50/p95/p99/max. --against
    /// also runs universal-ctags and ripgrep (and CodeGraphContext) where installed.
    Bench(crate::bench::BenchArgs),
    /// The operator's approval queue: list, approve or reject pending tool calls
    ///
    /// A tool call that needs an approval, from a client that cannot be asked by
    /// elicitation, waits here when the server runs with --approval-queue (or
    /// --operator-token). Works on the data directory, for `serve` and `mcp` alike; an
    /// approved call runs when the client makes it again with the same arguments.
    Approvals(ApprovalsArgs),
    /// The approvals board: list, show and decide governed actions (plan exit, merge,
    /// publish, hire, custom) that agents and clients open with create_approval
    ///
    /// The operator decides as `operator` (never a request of its own): approve, reject,
    /// request_revision; the board's state machine refuses any other step.
    Board(BoardArgs),
    /// Disposable machines (rigs): `rigs build-image` builds the desktop rig image
    Rigs(RigsArgs),
    /// The agents of a workspace: add, list, show, update, remove, token
    ///
    /// An agent is a principal the operator registers (no tool hires one): its token
    /// authenticates its MCP calls, which are attributed to it, and it sees only its
    /// workspace. Its runtime profile says how a run of it is started.
    Agents(AgentsArgs),
    /// Runtime profiles: how an agent's run is started (a family, a command, fixed arguments)
    Profiles(ProfilesArgs),
    /// The owner's news feeds: add, list, remove, pause, resume, refresh now
    ///
    /// The feeds the news feed tools read (list_feeds, list_articles, get_article, …). Only
    /// this command adds or removes a feed: no request can. `serve` refreshes the active
    /// feeds every --feed-refresh-secs; `feeds refresh` (or the refresh_feeds tool) does it
    /// now. Works on the data directory's store, or --store's.
    Feeds(crate::feeds::cli::FeedsArgs),
    /// Memory: the operator's memory domains (`memory domains add|list|grant`)
    ///
    /// Facts and policies live in named domains of a workspace. Anyone of the workspace may
    /// propose a fact; a policy needs write access to its domain, which only this command
    /// grants. Works on the data directory's store, or --store's.
    Memory(crate::memory::cli::MemoryArgs),
    /// External MCP servers bridged into the registry: add, list, remove, check
    ///
    /// Their tools are served beside the built-ins as SERVER__TOOL on the tool set
    /// bridge:SERVER, under this server's policy (docs/bridge.md). Edits the configuration file.
    Bridge(crate::mcp::bridge::cli::BridgeArgs),
}

#[derive(Args, Debug)]
pub struct AgentsArgs {
    #[command(subcommand)]
    pub command: AgentsCommand,
}

#[derive(Args, Debug, Clone)]
pub struct AgentFields {
    /// The runtime profile its runs start from (see `cc-server profiles list`)
    #[arg(long, value_name = "PROFILE")]
    pub runtime: Option<String>,
    /// Its skills, comma-separated (consult_agent matches a brief against them)
    #[arg(long, value_delimiter = ',', value_name = "SKILL,...")]
    pub skills: Option<Vec<String>>,
    /// What it does, in words (consult_agent matches against it too)
    #[arg(long, value_name = "TEXT")]
    pub description: Option<String>,
    /// The agent it reports to (the org chart); `none` for nobody
    #[arg(long, value_name = "NAME")]
    pub reports_to: Option<String>,
    /// Runs it may have at once; more are queued [default: 1]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub capacity: Option<u32>,
    /// How much it may decide alone, 0 to 3 [default: 1]
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub autonomy: Option<u8>,
}

#[derive(Subcommand, Debug)]
pub enum AgentsCommand {
    /// Register an agent and print its token (shown once: keep it)
    Add {
        name: String,
        #[arg(long, default_value = crate::store::DEFAULT_WORKSPACE)]
        workspace: String,
        #[command(flatten)]
        fields: AgentFields,
    },
    /// The workspace's agents
    List {
        #[arg(long, default_value = crate::store::DEFAULT_WORKSPACE)]
        workspace: String,
        #[arg(long)]
        json: bool,
    },
    /// One agent, with its last heartbeat and its recent runs
    Show {
        name: String,
        #[arg(long, default_value = crate::store::DEFAULT_WORKSPACE)]
        workspace: String,
        /// How many of its runs to show, newest first
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=10_000))]
        runs: u32,
        #[arg(long)]
        json: bool,
    },
    /// Change an agent's profile, skills, description, manager, capacity or autonomy
    Update {
        name: String,
        #[arg(long, default_value = crate::store::DEFAULT_WORKSPACE)]
        workspace: String,
        #[command(flatten)]
        fields: AgentFields,
    },
    /// Remove an agent (its runs' records go with it)
    Remove {
        name: String,
        #[arg(long, default_value = crate::store::DEFAULT_WORKSPACE)]
        workspace: String,
    },
    /// Give the agent a new token and print it (the old one stops working)
    Token {
        name: String,
        #[arg(long, default_value = crate::store::DEFAULT_WORKSPACE)]
        workspace: String,
    },
}

#[derive(Args, Debug)]
pub struct ProfilesArgs {
    #[command(subcommand)]
    pub command: ProfilesCommand,
}

#[derive(Subcommand, Debug)]
pub enum ProfilesCommand {
    /// Define a runtime profile: `profiles add NAME --family mcp-cli -- COMMAND ARG…`
    ///
    /// The command must be on the allow-list of the configuration ([runtimes] allow). The
    /// arguments are kept as argv (each one argument; no shell). mcp-cli: the command as
    /// given, the brief on stdin and in CC_BRIEF, the server in CC_MCP_URL, CC_MCP_TOKEN and
    /// CC_MCP_CONFIG. claude-code: `COMMAND -p BRIEF --mcp-config FILE ARG…`.
    Add {
        name: String,
        #[arg(long, default_value = crate::store::DEFAULT_WORKSPACE)]
        workspace: String,
        /// mcp-cli or claude-code
        #[arg(long, value_parser = parse_family)]
        family: crate::store::Family,
        /// A message to an agent of this profile starts a run when it has none
        #[arg(long)]
        wake_on_message: bool,
        /// A run's wall-clock limit, seconds [default: the configuration's run_timeout_secs]
        #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
        timeout: Option<u64>,
        /// The command and its fixed arguments, after `--`
        #[arg(last = true, required = true, value_name = "COMMAND")]
        argv: Vec<String>,
    },
    /// The workspace's runtime profiles
    List {
        #[arg(long, default_value = crate::store::DEFAULT_WORKSPACE)]
        workspace: String,
        #[arg(long)]
        json: bool,
    },
}

fn parse_family(s: &str) -> Result<crate::store::Family, String> {
    crate::store::Family::parse(s).ok_or_else(|| format!("unknown family '{s}'; expected mcp-cli or claude-code"))
}

#[derive(Args, Debug)]
pub struct RigsArgs {
    #[command(subcommand)]
    pub command: RigsCommand,
}

#[derive(Subcommand, Debug)]
pub enum RigsCommand {
    /// Build the desktop rig image unless the engine has the image of this recipe already
    ///
    /// The engine is the one the Docker CLI's variables name: DOCKER_HOST (else
    /// /var/run/docker.sock; tcp://HOST:PORT with DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH
    /// for mutual TLS, or ssh://USER@HOST). A remote engine gets a copy of this machine's
    /// image when this machine's engine has it. Otherwise debootstraps a minimal Debian
    /// (the host's release and mirror) with Xvfb, openbox, xdotool, xclip, ImageMagick and
    /// xterm and imports it as cc-server-desktop:<recipe hash> (needs root and
    /// debootstrap). Prints the image tag.
    BuildImage,
}

#[derive(Args, Debug)]
pub struct ApprovalsArgs {
    #[command(subcommand)]
    pub command: ApprovalsCommand,
}

#[derive(Subcommand, Debug)]
pub enum ApprovalsCommand {
    /// The pending approvals (with --all, the decided ones too), newest first
    List {
        /// Decided and used approvals too
        #[arg(long)]
        all: bool,
        /// JSON output
        #[arg(long)]
        json: bool,
    },
    /// Approve a pending call: the client's next identical call runs (once)
    Approve {
        id: String,
        /// Why (recorded with the decision)
        #[arg(long)]
        reason: Option<String>,
    },
    /// Reject a pending call: the client's next identical call is told so
    Reject {
        id: String,
        /// Why (shown to the client)
        #[arg(long)]
        reason: Option<String>,
    },
}

#[derive(Args, Debug)]
pub struct BoardArgs {
    #[command(subcommand)]
    pub command: BoardCommand,
}

#[derive(Subcommand, Debug)]
pub enum BoardCommand {
    /// A workspace's board approvals, newest first
    List {
        #[arg(long, default_value = "default")]
        workspace: String,
        /// Only those in this status: pending, approved, rejected, revision_requested
        #[arg(long)]
        status: Option<String>,
        /// JSON output
        #[arg(long)]
        json: bool,
    },
    /// One board approval with its steps and comments
    Show {
        id: String,
        /// JSON output
        #[arg(long)]
        json: bool,
    },
    /// Decide a board approval: approve, reject or request_revision
    Decide {
        id: String,
        decision: String,
        /// Why (kept with the decision)
        #[arg(long)]
        note: Option<String>,
    },
}

#[derive(Args, Debug, Clone)]
pub struct PolicyArgs {
    /// The mode a conversation opens in when its connection names none: a default, which
    /// an HTTP client may change with the `Cc-Mode` header when the session opens, and a
    /// conversation with set_mode / exit_plan_mode (see --max-mode for a ceiling)
    /// [default: chat, or the --max-mode]
    #[arg(long, value_parser = crate::mcp::policy::Mode::parse)]
    pub mode: Option<crate::mcp::policy::Mode>,
    /// A ceiling for every conversation: with plan, review or orchestrate, every session
    /// runs in that mode and no header, set_mode or exit_plan_mode takes it elsewhere
    /// (chat, the default, is no ceiling)
    #[arg(long, default_value = "chat", value_parser = crate::mcp::policy::Mode::parse)]
    pub max_mode: crate::mcp::policy::Mode,
    /// Also serve the files an index leaves out — gitignored, hidden and vendored ones —
    /// through code_read, include_source and the cc:// file resources (never `.git`,
    /// never outside the repository, never through a symbolic link)
    #[arg(long)]
    pub read_ignored_files: bool,
    /// Keep calls that need an approval in an operator's queue (`cc-server approvals`)
    /// when the client cannot be asked by elicitation; without it (and without
    /// --operator-token) such calls are denied
    #[arg(long, env = "CC_APPROVAL_QUEUE")]
    pub approval_queue: bool,
    /// Seconds a client is given to answer an approval asked by elicitation
    #[arg(long, default_value_t = 120, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub approval_timeout: u64,
}

#[derive(Args, Debug, Clone)]
pub struct SurfaceArgs {
    /// Serve only these tool sets (comma-separated): discovery, conversation, workspace,
    /// code, rigs, agents, messaging, feeds; `default` names them all. Without it every tool
    /// set is served
    #[arg(long, value_name = "SETS")]
    pub tools: Option<String>,
    /// Serve every tool set: the default (kept for scripts that pass it)
    #[arg(long, conflicts_with = "tools")]
    pub all_tools: bool,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on. Any address but loopback needs --token or --tokens-file (or
    /// --allow-unauthenticated), and clients that reach it by a name or address other than
    /// localhost need that Host listed with --allowed-host
    #[arg(long, default_value = "127.0.0.1")]
    pub listen: std::net::IpAddr,
    /// Serve a non-loopback --listen address without tokens: anyone who reaches it can
    /// use every tool
    #[arg(long)]
    pub allow_unauthenticated: bool,
    /// Most Streamable HTTP sessions open at once
    #[arg(long, default_value_t = 1024, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_sessions: u64,
    /// Most Streamable HTTP sessions one principal may have open at once
    #[arg(long, default_value_t = 256, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_sessions_per_principal: u64,
    /// A session with no request in flight, no open stream and no request for this long
    /// is closed (the client's next request gets 404 and it initializes again)
    #[arg(long, default_value_t = 300, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub session_idle_secs: u64,
    /// Port to listen on (0 picks a free one)
    #[arg(long, default_value_t = 9030)]
    pub port: u16,
    /// Require a bearer token on every request: SECRET (principal `default`), or
    /// NAME=SECRET for a named principal; repeatable. Each principal sees every workspace
    /// unless a --tokens-file line restricts it
    #[arg(long, env = "CC_TOKEN", hide_env_values = true, value_name = "[NAME=]SECRET")]
    pub token: Vec<String>,
    /// Principals from a file, one a line: `NAME SECRET [WORKSPACE,...|*]` (the
    /// workspaces the principal may see; `*` or none: all)
    #[arg(long, env = "CC_TOKENS_FILE", value_name = "PATH")]
    pub tokens_file: Option<PathBuf>,
    /// The operator's bearer token: serves the approval queue at /approvals (list,
    /// approve, reject) and turns the queue on
    #[arg(long, env = "CC_OPERATOR_TOKEN", hide_env_values = true, value_name = "SECRET")]
    pub operator_token: Option<String>,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Also accept this Host (a name or an address, with or without a port) for a server
    /// reached other than by localhost / 127.0.0.1 / [::1]; repeatable
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,
    /// Also accept requests from this Origin (`https://app.example.com`)
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,
    /// Index these repositories before serving (into the default workspace)
    #[arg(long = "index", value_name = "PATH")]
    pub index: Vec<PathBuf>,
    /// Refresh the news feeds (`cc-server feeds`) when the server starts and then every
    /// SECS seconds; 0: only when asked (the refresh_feeds tool, `cc-server feeds refresh`)
    #[arg(long, default_value_t = 1800, value_name = "SECS", value_parser = clap::value_parser!(u64).range(0..=604_800))]
    pub feed_refresh_secs: u64,
    #[command(flatten)]
    pub surface: SurfaceArgs,
    #[command(flatten)]
    pub webdriver: WebDriverArgs,
}

#[derive(Args, Debug)]
pub struct McpArgs {
    /// The repository to bind to [default: found by walking up from the current directory]
    #[arg(long, short = 'p')]
    pub project: Option<PathBuf>,
    #[command(flatten)]
    pub surface: SurfaceArgs,
    #[command(flatten)]
    pub policy: PolicyArgs,
    #[command(flatten)]
    pub webdriver: WebDriverArgs,
}

/// Where browser rigs run (`crate::webdriver`): over the configuration's `[webdriver.<engine>]`.
#[derive(Args, Debug, Clone, Default)]
pub struct WebDriverArgs {
    /// Make the browser rigs of ENGINE (chromium, firefox, webkit; a plain URL is chromium's)
    /// sessions at a remote W3C WebDriver endpoint — a Selenium Grid (`http://grid:4444`, or
    /// `…/wd/hub`), a hosted browser service — instead of starting a driver here; repeatable,
    /// or several entries separated by commas or spaces. USER:PASSWORD@ in the URL goes as
    /// Basic authentication. Nothing naming this machine (binary paths, the profile folder,
    /// --no-sandbox) is sent; capabilities to pass through go in `[webdriver.ENGINE]` of the
    /// configuration file
    #[arg(
        long = "webdriver-url",
        env = "CC_WEBDRIVER_URL",
        hide_env_values = true,
        value_delimiter = ',',
        value_name = "[ENGINE=]URL"
    )]
    pub urls: Vec<String>,
    /// A header sent on every request to the remote WebDriver endpoint of ENGINE (without
    /// ENGINE: of every engine with one), for the service's authentication; repeatable (in the
    /// variable: one per line). Its value is never shown; prefer the variable or the
    /// configuration file to a command line other users can read
    #[arg(
        long = "webdriver-header",
        env = "CC_WEBDRIVER_HEADER",
        hide_env_values = true,
        value_delimiter = '\n',
        value_name = "[ENGINE:]NAME: VALUE"
    )]
    pub headers: Vec<String>,
}

#[derive(Args, Debug)]
pub struct ToolsArgs {
    /// JSON: every tool's name, sets, scope, action classes, input and output schemas
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Markdown, as docs/mcp-tools.md
    #[arg(long)]
    pub markdown: bool,
    #[command(flatten)]
    pub surface: SurfaceArgs,
}

#[derive(Args, Debug)]
pub struct GraphArgs {
    /// A symbol id, qualified name or plain name
    pub name: String,
    /// Hops to follow [default: 1]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=50))]
    pub depth: Option<u64>,
    /// At most this many symbols in the answer [default: 500]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub limit: Option<u64>,
    /// The repository (see `cc-server repos`)
    #[arg(long)]
    pub repo: Option<String>,
    /// Also follow references: a function or class passed, stored or returned as a value
    /// (`sorted(xs, key=k)`), which is not a call by the site's symbol
    #[arg(long)]
    pub references: bool,
    /// Also walk the possible edges (calls the graph cannot decide: a method of a receiver of
    /// unknown type, several symbols of that name), which are otherwise listed apart
    #[arg(long)]
    pub possible: bool,
    /// JSON output
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct RemoveArgs {
    /// The index's name (see `cc-server repos`)
    pub name: String,
}

#[derive(Args, Debug)]
pub struct GraphCommandArgs {
    #[command(subcommand)]
    pub command: GraphCommand,
}

#[derive(Subcommand, Debug)]
pub enum GraphCommand {
    /// Write every edge of a repository's call graph to stdout: both ends' ids and qualified
    /// names, the edge's kind, confidence, how it was resolved and its call sites
    ///
    /// jsonl: one JSON object per edge; csv: a header row, then one row per edge; dot:
    /// Graphviz. Ids are the 16 hex digits the other commands take.
    Export(GraphExportArgs),
}

#[derive(Args, Debug)]
pub struct GraphExportArgs {
    /// The repository (see `cc-server repos`) [default: the one the current directory is in,
    /// or the only one indexed]
    #[arg(long)]
    pub repo: Option<String>,
    /// Output format
    #[arg(long, default_value = "jsonl", value_parser = ["jsonl", "csv", "dot"])]
    pub format: String,
}

#[derive(Args, Debug)]
pub struct ImpactArgs {
    /// A symbol id, qualified name or plain name
    pub name: String,
    /// Hops to follow [default: 3]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=50))]
    pub depth: Option<u64>,
    /// At most this many symbols in the answer [default: 500]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub limit: Option<u64>,
    /// The repository (see `cc-server repos`)
    #[arg(long)]
    pub repo: Option<String>,
    /// Also follow references: a function or class passed, stored or returned as a value
    /// (`sorted(xs, key=k)`), which is not a call by the site's symbol
    #[arg(long)]
    pub references: bool,
    /// Also walk the possible edges (calls the graph cannot decide: a method of a receiver of
    /// unknown type, several symbols of that name), which are otherwise listed apart
    #[arg(long)]
    pub possible: bool,
    /// JSON output
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct IndexArgs {
    /// The repository folder to index
    pub path: PathBuf,
    /// Name of the index [default: the folder's name]
    #[arg(long)]
    pub name: Option<String>,
    /// Keep running and re-index when files change (Ctrl-C stops)
    #[arg(long)]
    pub watch: bool,
    /// Skip files larger than this many bytes
    #[arg(long, default_value_t = cc_indexer::walk::DEFAULT_MAX_FILE_SIZE, value_name = "BYTES")]
    pub max_file_size: u64,
    /// Worker threads [default: one per core]
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    /// Print the run's report as JSON on stdout
    #[arg(long)]
    pub json: bool,
    /// Do not embed symbols (semantic search then uses the vectors of an earlier run, if any)
    #[arg(long)]
    pub no_embed: bool,
    /// Register the repository in this workspace (created if missing) for the MCP tools
    #[arg(long, default_value = crate::store::DEFAULT_WORKSPACE)]
    pub workspace: String,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Words to look for: names, parts of names, words of doc comments
    pub query: String,
    /// Only symbols of these kinds (comma-separated): function, method, class, struct,
    /// interface, trait, enum, module, constant, type, macro, …
    #[arg(long, value_delimiter = ',', value_parser = parse_kind)]
    pub kind: Vec<SymbolKind>,
    /// Only these languages (comma-separated): python, rust, go, …
    #[arg(long, value_delimiter = ',', value_parser = parse_lang)]
    pub lang: Vec<Lang>,
    /// Only files under this repository-relative folder or path
    #[arg(long)]
    pub path: Option<String>,
    /// The repository to search (see `cc-server repos`)
    #[arg(long)]
    pub repo: Option<String>,
    /// At most this many results
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub limit: u64,
    /// Ranking: hybrid (BM25 and embeddings fused), keyword (BM25), semantic (embeddings)
    #[arg(long, default_value = "hybrid", value_parser = parse_mode)]
    pub mode: cc_indexer::Mode,
    /// JSON output
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct SymbolArgs {
    /// A name (`parse_json`) or a qualified name (`pkg.mod.parse_json`, `crate::a::f`)
    #[arg(required_unless_present = "path")]
    pub name: Option<String>,
    /// The symbols defined in this file or folder (relative to the repository's root; `.`:
    /// all), in path and line order
    #[arg(long)]
    pub path: Option<String>,
    /// The repository to look in (see `cc-server repos`)
    #[arg(long)]
    pub repo: Option<String>,
    /// At most this many matches
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub limit: u64,
    /// JSON output
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ReposArgs {
    /// JSON output
    #[arg(long)]
    pub json: bool,
}

fn parse_kind(s: &str) -> Result<SymbolKind, String> {
    SymbolKind::parse(&s.to_ascii_lowercase()).ok_or_else(|| {
        let all: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
        format!("unknown kind '{s}'; expected one of: {}", all.join(", "))
    })
}

fn parse_mode(s: &str) -> Result<cc_indexer::Mode, String> {
    cc_indexer::Mode::parse(s).ok_or_else(|| format!("unknown mode '{s}'; expected one of: hybrid, keyword, semantic"))
}

fn parse_lang(s: &str) -> Result<Lang, String> {
    Lang::from_name(s).ok_or_else(|| {
        let all: Vec<&str> = Lang::all().map(Lang::name).collect();
        format!("unknown language '{s}'; expected one of: {}", all.join(", "))
    })
}

/// Exit codes: 0 success, 1 failure, 2 bad input (usage, a path or name that does not
/// exist), 3 an index that must be rebuilt (another format version, corrupt).
pub fn run() -> ExitCode {
    run_with(None)
}

/// [`run`] with an extension of the server (the conformance fixtures' test binary).
pub fn run_with(extension: Option<std::sync::Arc<dyn crate::mcp::extension::Extension>>) -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("CC_LOG"))
        .with_writer(std::io::stderr)
        .init();
    match dispatch(cli, extension) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(exit_code(&e))
        }
    }
}

fn exit_code(e: &anyhow::Error) -> u8 {
    use cc_indexer::Error as E;
    if e.downcast_ref::<Ambiguous>().is_some()
        || e.downcast_ref::<BadInput>().is_some()
        || e.downcast_ref::<NoSuchSymbol>().is_some()
    {
        return 2;
    }
    // The workspace store refuses what names nothing or is malformed (an unknown approval
    // or agent, a decided approval, an id of the wrong shape) the same way.
    if let Some(
        crate::store::StoreError::NotFound { .. }
        | crate::store::StoreError::Conflict(_)
        | crate::store::StoreError::Invalid(_),
    ) = e.downcast_ref::<crate::store::StoreError>()
    {
        return 2;
    }
    if matches!(
        e.downcast_ref::<cc_graph::Error>(),
        Some(cc_graph::Error::Version { .. } | cc_graph::Error::Corrupt(_) | cc_graph::Error::Missing)
    ) {
        return 3;
    }
    match e.downcast_ref::<E>() {
        Some(E::RootMissing(_) | E::RootNotDir(_) | E::RootUnreadable { .. } | E::UnknownRepo { .. })
        | Some(E::BadName(_) | E::NameTaken { .. }) => 2,
        Some(E::FormatVersion { .. } | E::Corrupt { .. }) => 3,
        _ => 1,
    }
}

fn data_dir(cli: &Cli) -> Result<DataDir> {
    let from_env = std::env::var_os("CC_DATA_DIR").filter(|v| !v.is_empty()).map(PathBuf::from);
    match cli.data_dir.clone().or(from_env) {
        Some(d) => Ok(DataDir::new(d)),
        None => dirs::data_dir()
            .map(|d| DataDir::new(d.join("cc-server")))
            .context("no data directory: set --data-dir or CC_DATA_DIR"),
    }
}

fn dispatch(cli: Cli, extension: Option<std::sync::Arc<dyn crate::mcp::extension::Extension>>) -> Result<()> {
    if !matches!(cli.command, Command::Serve(_) | Command::Mcp(_) | Command::Rigs(_) | Command::Bench(_)) {
        end_quietly_on_a_closed_stdout();
    }
    crate::embedding::configure(cli.embed_model.clone());
    let data = data_dir(&cli)?;
    let quiet = cli.quiet;
    // `bridge add` may create the file --config names.
    let creates = matches!(cli.command, Command::Bridge(_)) && cli.config.as_deref().is_some_and(|p| !p.exists());
    let config =
        if creates { Default::default() } else { crate::config::Config::load(cli.config.as_deref(), &data.root)? };
    let config_path = cli.config.clone().unwrap_or_else(|| data.root.join("config.toml"));
    let setup = crate::serve::Setup { store_url: cli.store_url.clone(), extension, config };
    match cli.command {
        Command::Index(a) => index(&data, &setup, a, quiet),
        Command::Search(a) => search(&data, a),
        Command::Symbol(a) => symbol(&data, a),
        Command::Repos(a) => repos(&data, a),
        Command::Callers(a) => graph_query(&data, GraphOp::Callers, &a.into()),
        Command::Callees(a) => graph_query(&data, GraphOp::Callees, &a.into()),
        Command::Impact(a) => graph_query(&data, GraphOp::Impact, &a.into()),
        Command::Graph(a) => graph_command(&data, a),
        Command::Remove(a) => remove(&data, &setup, a, quiet),
        Command::Serve(a) => crate::serve::serve(data, &setup, a, quiet),
        Command::Mcp(a) => crate::serve::mcp(data, &setup, a),
        Command::Tools(a) => crate::serve::tools(&setup, a),
        Command::Bench(a) => crate::bench::run(a, quiet),
        Command::Approvals(a) => crate::serve::approvals(&data, &setup, a),
        Command::Board(a) => crate::serve::board(&data, &setup, a),
        Command::Rigs(a) => rigs(a, quiet),
        Command::Agents(a) => crate::serve::agents(&data, &setup, a),
        Command::Profiles(a) => crate::serve::profiles(&data, &setup, a),
        Command::Feeds(a) => crate::feeds::cli::run(&data, &setup, a),
        Command::Memory(a) => crate::memory::cli::run(&data, &setup, a),
        Command::Bridge(a) => crate::mcp::bridge::cli::run(&config_path, &setup, a),
    }
}

/// A command whose output goes to `head` or `grep -q` ends when the pipe closes, as `ls`
/// and `grep` do, instead of panicking on the failed write (Rust ignores SIGPIPE). Not
/// for the servers and the rig commands: they own containers and sessions that a
/// signal's death would leave behind, and see the closed pipe as a write error.
fn end_quietly_on_a_closed_stdout() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal; no handler is installed.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn rigs(a: RigsArgs, quiet: bool) -> Result<()> {
    match a.command {
        RigsCommand::BuildImage => {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            let built = rt.block_on(async {
                let docker = cc_rigs::desktop::connect().await?;
                let mut progress = |line: &str| {
                    if !quiet {
                        eprintln!("{line}");
                    }
                };
                cc_rigs::desktop::build_image(&docker, &mut progress).await
            })?;
            if !quiet {
                eprintln!("{} {}", built.tag, if built.built { "built" } else { "is already there" });
            }
            println!("{}", built.tag);
            Ok(())
        }
    }
}

fn index(data: &DataDir, setup: &crate::serve::Setup, a: IndexArgs, quiet: bool) -> Result<()> {
    if let Some(t) = a.threads {
        anyhow::ensure!(t >= 1, "--threads must be at least 1 (got {t})");
        // The parse pool follows --threads too; it must be sized before anything uses rayon.
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .context("--threads: the worker pool was already started")?;
    }
    let mut walk = WalkOptions { max_file_size: a.max_file_size, ..WalkOptions::default() };
    if let Some(t) = a.threads {
        walk.threads = t;
    }
    if a.name.is_none() {
        refuse_an_overlapping_index(data, &a.path)?;
    }
    let opts = IndexOptions { root: a.path.clone(), name: a.name.clone(), walk };
    let cancel = Arc::new(AtomicBool::new(false));
    let show_bar = !quiet && !a.json;
    // On a PostgreSQL store, this run takes its turn with the replicas' (an advisory lock).
    let turns = match setup.store_url.as_deref() {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            let host = crate::agents::ServerIdentity::this().host;
            let host = host.split('/').next().unwrap_or_default().to_string();
            crate::replicas::IndexTurns::Postgres {
                url: url.to_string(),
                who: format!("cc-server index ({host}, pid {})", std::process::id()),
            }
        }
        _ => crate::replicas::IndexTurns::Local,
    };
    let name = crate::serve::index_name(&opts);
    let run_once = |first: bool| -> Result<crate::engine::Indexed> {
        let bar = output::Bar::new(show_bar);
        let embed = (!a.no_embed).then(crate::embedding::global);
        let report =
            turns.run(&name, Some(&cancel), || crate::engine::index_with(data, &opts, &bar, Some(&cancel), embed))?;
        bar.finish();
        if a.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else if first {
            output::print_report(&report, quiet);
        } else if !quiet {
            output::print_change(&report);
        }
        Ok(report)
    };
    // Watching starts before the first run: a change made while it goes is re-indexed
    // right after it, not lost.
    // (A path that does not resolve is left to the run, which names what is wrong.)
    let watch = match std::fs::canonicalize(&a.path) {
        Ok(root) if a.watch => Some((cc_indexer::watch::Watch::start(&root, std::slice::from_ref(&data.root))?, root)),
        _ => None,
    };
    let report = run_once(true)?;
    if report.index.stats.files == 0 && !a.json {
        eprintln!(
            "warning: {} holds no file of a supported language ({} other files): nothing of it can be searched",
            report.index.root, report.index.other_files
        );
    }
    crate::serve::block_on(async {
        let store = crate::serve::open_store_at(data, setup.store_url.as_deref()).await?;
        crate::serve::register_async(&store, &a.workspace, &report.index.name, quiet || a.json).await
    })?;
    if let Some((watch, root)) = watch {
        eprintln!("watching {} for changes (Ctrl-C stops)", root.display());
        watch.run(Duration::from_millis(300), || match run_once(false) {
            Ok(_) => true,
            Err(e) => {
                eprintln!("error: {e:#}");
                true
            }
        })?;
    }
    Ok(())
}

/// Indexing a folder inside an indexed repository (or one that holds one) would make a
/// second index of the same files under another name: refused unless --name says it is
/// meant. Re-indexing a folder indexed before is not an overlap.
fn refuse_an_overlapping_index(data: &DataDir, path: &Path) -> Result<()> {
    let Ok(root) = std::fs::canonicalize(path) else { return Ok(()) };
    let metas: Vec<_> = data.repos()?.into_iter().filter_map(|m| m.ok()).collect();
    if metas.iter().any(|m| Path::new(&m.root) == root) {
        return Ok(());
    }
    for m in &metas {
        let other = Path::new(&m.root);
        let how = if root.starts_with(other) {
            "is inside"
        } else if other.starts_with(&root) {
            "holds"
        } else {
            continue;
        };
        return Err(BadInput(format!(
            "{} {how} the indexed repository '{}' ({}): re-index that one (`cc-server index {}`), or give --name to make a second, overlapping index",
            root.display(),
            m.name,
            m.root,
            m.root
        ))
        .into());
    }
    Ok(())
}

/// The repositories a query runs over: the one named, else the one the current
/// directory is in, else all of them.
fn pick_repos(data: &DataDir, name: Option<&str>) -> Result<Vec<Repo>> {
    if let Some(n) = name {
        return Ok(vec![Repo::open(data, n)?]);
    }
    let metas: Vec<_> = data.repos()?.into_iter().filter_map(|m| m.ok()).collect();
    if metas.is_empty() {
        return Err(BadInput("nothing is indexed yet: run `cc-server index PATH` first".into()).into());
    }
    if let Ok(cwd) = std::env::current_dir().and_then(std::fs::canonicalize) {
        if let Some(m) = metas.iter().filter(|m| cwd.starts_with(&m.root)).max_by_key(|m| m.root.len()) {
            return Ok(vec![Repo::open(data, &m.name)?]);
        }
    }
    metas.iter().map(|m| Repo::open(data, &m.name).map_err(Into::into)).collect()
}

fn search(data: &DataDir, a: SearchArgs) -> Result<()> {
    if a.query.trim().is_empty() {
        return Err(BadInput("the query is empty: give words to search for".into()).into());
    }
    let repos = pick_repos(data, a.repo.as_deref())?;
    let q = SearchQuery {
        text: a.query.clone(),
        kinds: a.kind.clone(),
        langs: a.lang.clone(),
        path_prefix: a.path.clone(),
        limit: a.limit as usize,
    };
    let mut hits = Vec::new();
    let mut mode = a.mode;
    let mut semantic = String::new();
    for r in &repos {
        let vectors = cc_indexer::VectorIndex::read(&r.dir).map_err(|e| e.to_string());
        let res = crate::engine::hybrid_search(r, &vectors, &q, a.mode)?;
        if res.mode != a.mode || semantic.is_empty() {
            (mode, semantic) = (res.mode, res.semantic);
        }
        hits.extend(res.hits.into_iter().map(|h| (r.meta.name.clone(), h)));
    }
    if a.mode == cc_indexer::Mode::Semantic && mode != a.mode {
        anyhow::bail!("--mode semantic: semantic search is {semantic}");
    }
    if hits.is_empty() {
        if let Some(p) = &a.path {
            let p = p.trim_matches('/');
            if !repos.iter().any(|r| Path::new(&r.meta.root).join(p).exists()) {
                let names: Vec<&str> = repos.iter().map(|r| r.meta.name.as_str()).collect();
                return Err(BadInput(format!(
                    "--path: '{p}' is no folder or file of {} (a path relative to the repository's root)",
                    names.join(", ")
                ))
                .into());
            }
        }
    }
    hits.sort_by(|x, y| y.1.score.total_cmp(&x.1.score).then(x.1.symbol.id.cmp(&y.1.symbol.id)));
    hits.truncate(q.limit);
    for (i, h) in hits.iter_mut().enumerate() {
        h.1.rank = i + 1;
    }
    output::print_ranked(&hits, repos.len() > 1, a.json, mode, &semantic)
}

fn symbol(data: &DataDir, a: SymbolArgs) -> Result<()> {
    let repos = pick_repos(data, a.repo.as_deref())?;
    let limit = a.limit as usize;
    let mut found = Vec::new();
    match (&a.path, &a.name) {
        (Some(path), name) => {
            for r in &repos {
                let l = crate::engine::Loaded::open(data, &r.meta.name)?;
                let path = if path == "." { "" } else { path.as_str() };
                found.extend(
                    crate::ops::symbols_in(&*l.graph, path, name.as_deref())?
                        .into_iter()
                        .take(limit - found.len().min(limit))
                        .map(|s| (r.meta.name.clone(), s)),
                );
            }
        }
        (None, Some(name)) => {
            for r in &repos {
                found.extend(crate::ops::lookup_indexed(r, name, limit)?.into_iter().map(|s| (r.meta.name.clone(), s)));
            }
            if found.is_empty() {
                // A qualified suffix, a file's top level: the graph knows those.
                for r in &repos {
                    let graph = cc_graph::CallGraph::load(&r.dir)?;
                    let docs = crate::ops::lookup_in_graph(r, &graph, name, limit)?;
                    found.extend(docs.into_iter().map(|s| (r.meta.name.clone(), s)));
                }
            }
        }
        (None, None) => unreachable!("clap requires a name or --path"),
    }
    found.truncate(limit);
    output::print_symbols(&found, repos.len() > 1, a.json)?;
    if found.is_empty() {
        match (&a.path, &a.name) {
            (Some(p), None) => {
                return Err(
                    BadInput(format!("no symbols defined in '{p}' (a path relative to the repository's root)")).into()
                )
            }
            (Some(p), Some(n)) => return Err(BadInput(format!("no symbol named '{n}' in '{p}'")).into()),
            (None, n) => return Err(NoSuchSymbol(n.clone().unwrap_or_default()).into()),
        }
    }
    Ok(())
}

fn repos(data: &DataDir, a: ReposArgs) -> Result<()> {
    let metas = data.repos()?;
    output::print_repos(data, &metas, a.json)
}

pub use crate::ops::GraphOp;

/// A name that matches several symbols: the candidates, for the person to pick from.
#[derive(Debug, thiserror::Error)]
#[error("'{name}' matches {count} symbols; name one by qualified name, by its parameters (`name(int, str)`) or by id:\n{list}")]
pub struct Ambiguous {
    pub name: String,
    pub count: usize,
    pub list: String,
}

/// A name that matches no symbol (bad input: exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("no symbol named '{0}'; try `cc-server search {0}`")]
pub struct NoSuchSymbol(pub String);

/// Input the person must correct (exit code 2): an empty query, a path or name that is not
/// in the index, a bad URL, an unknown id.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInput(pub String);

/// What `callers`, `callees` and `impact` were asked (their arguments differ only in the
/// default depth their help states).
struct GraphQuery {
    name: String,
    depth: Option<u64>,
    limit: Option<u64>,
    repo: Option<String>,
    follow: crate::ops::Follow,
    json: bool,
}

impl From<GraphArgs> for GraphQuery {
    fn from(a: GraphArgs) -> Self {
        let follow = crate::ops::Follow { references: a.references, possible: a.possible };
        GraphQuery { name: a.name, depth: a.depth, limit: a.limit, repo: a.repo, follow, json: a.json }
    }
}

impl From<ImpactArgs> for GraphQuery {
    fn from(a: ImpactArgs) -> Self {
        let follow = crate::ops::Follow { references: a.references, possible: a.possible };
        GraphQuery { name: a.name, depth: a.depth, limit: a.limit, repo: a.repo, follow, json: a.json }
    }
}

fn remove(data: &DataDir, setup: &crate::serve::Setup, a: RemoveArgs, quiet: bool) -> Result<()> {
    let root = Repo::open(data, &a.name).map(|r| r.meta.root.clone());
    data.remove(&a.name)?;
    let workspaces = crate::serve::block_on(async {
        let store = crate::serve::open_store_at(data, setup.store_url.as_deref()).await?;
        Ok::<_, anyhow::Error>(store.workspaces().forget_repo(&a.name).await?)
    })?;
    if !quiet {
        let from =
            if workspaces.is_empty() { String::new() } else { format!("; taken out of {}", workspaces.join(", ")) };
        let of = root.map(|r| format!(" (of {r}, which is untouched)")).unwrap_or_default();
        println!("removed the index '{}'{of}{from}", a.name);
    }
    Ok(())
}

fn graph_command(data: &DataDir, a: GraphCommandArgs) -> Result<()> {
    match a.command {
        GraphCommand::Export(e) => {
            let repos = pick_repos(data, e.repo.as_deref())?;
            if repos.len() > 1 {
                let names: Vec<&str> = repos.iter().map(|r| r.meta.name.as_str()).collect();
                return Err(BadInput(format!(
                    "--repo: several repositories are indexed ({}); name one",
                    names.join(", ")
                ))
                .into());
            }
            // Every edge: the graph in memory (the map answers walks, not a full listing).
            let graph = cc_graph::CallGraph::load(&repos[0].dir).with_context(|| {
                let (name, root) = (&repos[0].meta.name, &repos[0].meta.root);
                format!("the call graph of '{name}': rebuild it with `cc-server index {root} --name {name}`")
            })?;
            let format = cc_graph::ExportFormat::parse(&e.format).expect("clap checked the format");
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::new(stdout.lock());
            let written = graph.export(&mut w, format).and_then(|()| std::io::Write::flush(&mut w));
            match written {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                r => Ok(r?),
            }
        }
    }
}

fn graph_query(data: &DataDir, op: GraphOp, q: &GraphQuery) -> Result<()> {
    let repos = pick_repos(data, q.repo.as_deref())?;
    // The graphs alone, walked in place: a query opens no search index and reads no vectors.
    let loaded: Vec<Box<dyn cc_graph::GraphView>> =
        repos.iter().map(crate::engine::open_graph).collect::<Result<_>>()?;
    let graphs: Vec<&dyn cc_graph::GraphView> = loaded.iter().map(|g| &**g).collect();
    let name = q.name.as_str();
    let (i, start) = match crate::ops::find(&graphs, name)? {
        crate::ops::Found::One(i, s) => (i, s),
        crate::ops::Found::None => return Err(NoSuchSymbol(name.to_string()).into()),
        crate::ops::Found::Many(matches) => {
            let list: Vec<String> = matches
                .iter()
                .map(|(_, s)| {
                    format!(
                        "  {}  {}:{}  [{}]  {}  id {}",
                        s.qualified_name,
                        s.path,
                        s.span.start_line,
                        s.kind,
                        s.signature.trim(),
                        s.id
                    )
                })
                .collect();
            return Err(Ambiguous { name: name.to_string(), count: matches.len(), list: list.join("\n") }.into());
        }
    };
    let graph = graphs[i];
    let (walk, depth) =
        crate::ops::walk(graph, op, &start, q.depth.map(|d| d as usize), q.limit.map(|n| n as usize), q.follow)?;
    let out = crate::mcp::tools::code::walk_out(
        crate::store::DEFAULT_WORKSPACE,
        &repos[i].meta.name,
        graph,
        &start,
        depth as u32,
        walk,
    )?;
    output::print_walk(op, &out, q.json)
}
