//! Bridged MCP servers: "the operator's other MCP servers, on cc-server's one endpoint, under
//! cc-server's policy" — the registry's dynamic layer (spec/registry.md).
//!
//! The operator lists the servers in `[[bridge]]` ([`config`]); `serve` and `mcp` connect to
//! each (a child process over stdio, Streamable HTTP through [`http`], or the legacy HTTP+SSE
//! transport through [`sse`]: a url without `transport` tries Streamable HTTP first, then SSE,
//! as the MCP specification's backwards-compatibility section says) with rmcp's client, and
//! keep reconnecting with backoff. Each server's tools are mounted as registry tools
//! ([`Bridge::catalog`]: the built-in registry plus the mounted tools, swapped whole when a
//! list changes) under `<server>__<tool>` ([`names`]) on the tool set `bridge:<server>`:
//!
//! - a name that is a built-in's (or another bridged server's, first in the file wins), or not
//!   a valid tool name, is not mounted, and says why ([`Upstream::skipped`], `bridge check`);
//! - descriptions and titles are untrusted: control and hidden characters removed, capped,
//!   prefixed `[from external server 'NAME']`; the server's annotations are not used: a
//!   bridged tool is read-only only when the config says so (`[bridge.tools.X] read_only`);
//! - policy is the built-ins': the set, the modes (chat only unless the config lists a
//!   restricted mode), approvals (asked unless the config says `approval = false`),
//!   workspace scoping (a server with `workspaces` has workspace-scoped tools, visible in
//!   those workspaces only), and results fenced as untrusted data with `fence = true`;
//! - dynamic: a server's `notifications/tools/list_changed`, or a reconnect that lists other
//!   tools, rebuilds the catalog and every session hears `notifications/tools/list_changed`;
//!   a dead server's tools stay listed and answer `unavailable` naming the server and why;
//! - its resources (`bridge:<server>:<uri>`) and prompts (`<server>__<prompt>`) are served
//!   beside the product's, cleaned the same way, to principals that see one of the server's
//!   workspaces (every principal, for a server bridged into every workspace); a resource can
//!   be subscribed to when the server offers it: one upstream subscription per resource,
//!   however many sessions ask, renewed on a reconnect, its updates sent to each session;
//! - a call is forwarded with its progress (the external server's notifications become the
//!   caller's) and its cancellation (the caller's cancel, or the server's `timeout_secs`,
//!   sends `notifications/cancelled` to the external server).

pub mod cli;
pub mod config;
pub mod http;
pub mod names;
pub mod sse;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientCapabilities, ClientConfig,
    ClientRequest, ContentBlock, Implementation, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ServerResult, Tool,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{ClientHandler, ErrorData, Peer, RoleClient, ServiceExt};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

pub use config::{BridgeDecl, Endpoint, HttpTransport};

use super::policy::Mode;
use super::principal::Principal;
use super::surface::{ExtraSet, Surface};
use super::tool::{
    Ctx, Decl, ErrorKind, Handler, Hints, Modes, Output, ProgressFn, Registry, Scope, ToolError, ToolSet, NEVER_SERVED,
};

/// The first wait before a reconnect, and the longest.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(250), Duration::from_secs(10));
/// How long connecting (the process starting, the handshake, the first list) may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Characters of one fenced text block.
const FENCE_CHARS: usize = 200_000;

/// A string that lives as long as the process: the registry's declarations are `'static`.
/// The same text is leaked once (a server that reconnects with the same tools adds nothing).
fn intern(s: &str) -> &'static str {
    static SEEN: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let seen = seen.get_or_insert_with(HashSet::new);
    if let Some(s) = seen.get(s) {
        return s;
    }
    let s: &'static str = Box::leak(s.to_string().into_boxed_str());
    seen.insert(s);
    s
}

fn intern_modes(modes: &[Mode]) -> &'static [Mode] {
    static SEEN: Mutex<Vec<&'static [Mode]>> = Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(m) = seen.iter().find(|m| **m == modes) {
        return m;
    }
    let m: &'static [Mode] = Box::leak(modes.to_vec().into_boxed_slice());
    seen.push(m);
    m
}

/// Where a bridged server is now.
#[derive(Clone)]
enum State {
    /// Not connected yet.
    Connecting,
    Up(Peer<RoleClient>),
    /// Dead, or never reached: why.
    Down(String),
}

/// One bridged server: its declaration, its connection, the tools it listed last.
pub struct Upstream {
    pub decl: BridgeDecl,
    set: &'static str,
    state: Mutex<State>,
    /// Its tools as it listed them last (kept while it is down: they answer `unavailable`).
    tools: Mutex<Vec<Tool>>,
    /// Its tools that are not mounted, and why.
    skipped: Mutex<Vec<(String, String)>>,
    /// Its resources and prompts as it listed them last (empty when it has none).
    resources: Mutex<Vec<rmcp::model::Resource>>,
    prompts: Mutex<Vec<rmcp::model::Prompt>>,
    /// The calls in flight that asked for progress, by the progress token sent upstream.
    progress: Mutex<HashMap<ProgressToken, ProgressFn>>,
    /// Its tool list changed (its notification): list again.
    relist: tokio::sync::Notify,
    /// The HTTP transport that answered last (a url without `transport` is tried with it first).
    transport: Mutex<Option<HttpTransport>>,
    /// Its resources the sessions subscribed to (its own URI: how many sessions), and the
    /// updates it sent for them.
    subscribed: Mutex<HashMap<String, usize>>,
    updated: tokio::sync::broadcast::Sender<String>,
}

impl Upstream {
    fn new(decl: BridgeDecl) -> Arc<Upstream> {
        Arc::new(Upstream {
            set: intern(&decl.set_name()),
            decl,
            state: Mutex::new(State::Connecting),
            tools: Mutex::new(Vec::new()),
            skipped: Mutex::new(Vec::new()),
            resources: Mutex::new(Vec::new()),
            prompts: Mutex::new(Vec::new()),
            progress: Mutex::new(HashMap::new()),
            relist: tokio::sync::Notify::new(),
            transport: Mutex::new(None),
            subscribed: Mutex::new(HashMap::new()),
            updated: tokio::sync::broadcast::channel(64).0,
        })
    }

    pub fn name(&self) -> &str {
        &self.decl.name
    }

    /// Its tools that are not mounted, and why (a name collision, an invalid name or schema).
    pub fn skipped(&self) -> Vec<(String, String)> {
        self.skipped.lock().expect("skipped").clone()
    }

    /// Its connection, or why there is none.
    fn peer(&self) -> Result<Peer<RoleClient>, String> {
        match &*self.state.lock().expect("state") {
            State::Up(p) => Ok(p.clone()),
            State::Connecting => Err("not connected yet".into()),
            State::Down(why) => Err(why.clone()),
        }
    }

    fn set_state(&self, s: State) {
        *self.state.lock().expect("state") = s;
    }

    /// Whether it is connected, or why not.
    pub fn status(&self) -> Result<(), String> {
        self.peer().map(|_| ())
    }

    fn unavailable(&self, why: &str) -> ToolError {
        ToolError::new(ErrorKind::Unavailable, format!("external server '{}' is unavailable: {why}", self.decl.name))
            .with_data(json!({ "server": self.decl.name, "reason": why }))
    }
}

/// rmcp's client callbacks for one server: its progress notifications go to the call that
/// asked, its list changes wake the connection's task.
#[derive(Clone)]
struct Hooks(Arc<Upstream>);

impl ClientHandler for Hooks {
    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let f = self.0.progress.lock().expect("progress").get(&params.progress_token).cloned();
        if let Some(f) = f {
            f(params.progress, params.total, params.message);
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.relist.notify_one();
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.relist.notify_one();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.relist.notify_one();
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.updated.send(params.uri);
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("cc-server-bridge", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_06_18)
    }
}

/// A live connection: the client, and a stdio server's process (killed when this is dropped).
struct Client {
    service: RunningService<RoleClient, Hooks>,
    _child: Option<tokio::process::Child>,
}

/// Connects to `up` (starting its process, or opening its HTTP session) and does the handshake.
async fn connect(up: &Arc<Upstream>) -> Result<Client, String> {
    let hooks = Hooks(up.clone());
    let d = &up.decl;
    let fut = async {
        match d.endpoint() {
            Endpoint::Stdio { argv, env } => {
                let mut cmd = tokio::process::Command::new(&argv[0]);
                cmd.args(&argv[1..])
                    .env_clear()
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::inherit())
                    .kill_on_drop(true);
                for k in ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ"] {
                    if let Some(v) = std::env::var_os(k) {
                        cmd.env(k, v);
                    }
                }
                cmd.envs(env);
                let mut child = cmd.spawn().map_err(|e| format!("starting {}: {e}", argv[0]))?;
                let (stdout, stdin) = (child.stdout.take().expect("piped"), child.stdin.take().expect("piped"));
                let service =
                    hooks.serve((stdout, stdin)).await.map_err(|e| format!("the MCP handshake failed: {e}"))?;
                Ok(Client { service, _child: Some(child) })
            }
            Endpoint::Http { url, headers, transport } => {
                let mut map = reqwest::header::HeaderMap::new();
                for (k, v) in headers {
                    let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
                        .map_err(|e| format!("headers.{k}: {e}"))?;
                    let value = reqwest::header::HeaderValue::from_str(v).map_err(|e| format!("headers.{k}: {e}"))?;
                    map.insert(name, value);
                }
                let client = reqwest::Client::builder()
                    .connect_timeout(Duration::from_secs(10))
                    .build()
                    .map_err(|e| format!("an HTTP client: {e}"))?;
                let known = *up.transport.lock().expect("transport");
                let first = transport.or(known).unwrap_or(HttpTransport::StreamableHttp);
                let connected = match connect_http(hooks.clone(), &client, url, &map, first).await {
                    Ok(c) => Ok((c, first)),
                    // No transport configured: the other one (the specification's fallback).
                    Err(why) if transport.is_none() => {
                        let other = match first {
                            HttpTransport::StreamableHttp => HttpTransport::Sse,
                            HttpTransport::Sse => HttpTransport::StreamableHttp,
                        };
                        match connect_http(hooks, &client, url, &map, other).await {
                            Ok(c) => Ok((c, other)),
                            Err(why2) => Err(format!("{why}; and over {}: {why2}", other.as_str())),
                        }
                    }
                    Err(why) => Err(why),
                };
                let (c, used) = connected?;
                *up.transport.lock().expect("transport") = Some(used);
                Ok(c)
            }
        }
    };
    tokio::time::timeout(CONNECT_TIMEOUT, fut)
        .await
        .map_err(|_| format!("connecting took longer than {} s", CONNECT_TIMEOUT.as_secs()))?
}

/// One HTTP transport's connection and handshake.
async fn connect_http(
    hooks: Hooks,
    client: &reqwest::Client,
    url: &str,
    headers: &reqwest::header::HeaderMap,
    transport: HttpTransport,
) -> Result<Client, String> {
    let service = match transport {
        HttpTransport::StreamableHttp => {
            use rmcp::transport::streamable_http_client::{
                StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
            };
            // As many calls in flight as cc-server's clients make (rmcp's default is 16).
            let mut cfg = StreamableHttpClientTransportConfig::with_uri(url.to_string()).max_concurrent_requests(256);
            cfg.custom_headers = headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            let transport = StreamableHttpClientTransport::with_client(http::Http(client.clone()), cfg);
            hooks.serve(transport).await
        }
        HttpTransport::Sse => {
            let transport = sse::connect(client.clone(), url, headers.clone()).await?;
            hooks.serve(transport).await
        }
    };
    let service = service.map_err(|e| format!("the MCP handshake with {url} failed: {e}"))?;
    Ok(Client { service, _child: None })
}

async fn list_tools(peer: &Peer<RoleClient>) -> Result<Vec<Tool>, String> {
    peer.list_all_tools().await.map_err(|e| format!("tools/list failed: {e}"))
}

/// Lists `up`'s resources and prompts, when its capabilities say it has them.
async fn list_extras(up: &Upstream, peer: &Peer<RoleClient>) {
    let caps = peer.peer_info().map(|i| i.capabilities.clone());
    if caps.as_ref().is_some_and(|c| c.resources.is_some()) {
        match peer.list_all_resources().await {
            Ok(r) => *up.resources.lock().expect("resources") = r,
            Err(e) => tracing::warn!(server = up.name(), "bridge: resources/list failed: {e}"),
        }
    }
    if caps.as_ref().is_some_and(|c| c.prompts.is_some()) {
        match peer.list_all_prompts().await {
            Ok(p) => *up.prompts.lock().expect("prompts") = p,
            Err(e) => tracing::warn!(server = up.name(), "bridge: prompts/list failed: {e}"),
        }
    }
}

/// The address a bridged resource is mounted at: `bridge:<server>:<its own uri>`.
fn resource_uri(server: &str, uri: &str) -> String {
    format!("bridge:{server}:{uri}")
}

/// The bridged servers and the catalog they make with the built-in registry.
pub struct Bridge {
    builtin: Arc<Registry>,
    pub servers: Vec<Arc<Upstream>>,
    catalog: RwLock<Arc<Registry>>,
    /// Bumped each time the catalog is rebuilt with other tools.
    generation: tokio::sync::watch::Sender<u64>,
    stop: CancellationToken,
}

impl Bridge {
    /// The bridge over `builtin` (nothing connected yet: [`Bridge::start`]).
    pub fn new(decls: &[BridgeDecl], builtin: Arc<Registry>) -> Arc<Bridge> {
        Arc::new(Bridge {
            catalog: RwLock::new(builtin.clone()),
            builtin,
            servers: decls.iter().cloned().map(Upstream::new).collect(),
            generation: tokio::sync::watch::channel(0).0,
            stop: CancellationToken::new(),
        })
    }

    /// The tool sets it adds: `bridge:<server>` each.
    pub fn sets(&self) -> Vec<ExtraSet> {
        self.servers.iter().map(|s| ExtraSet { name: s.set, explicit_only: false }).collect()
    }

    /// The built-in tools and the mounted ones, as of now.
    pub fn catalog(&self) -> Arc<Registry> {
        self.catalog.read().expect("catalog").clone()
    }

    /// Which catalog [`Bridge::catalog`] is (changes when the tools do).
    pub fn generation(&self) -> u64 {
        *self.generation.borrow()
    }

    /// Connects to every server, each on a task of its own that reconnects with backoff
    /// (on the current runtime).
    pub fn start(self: &Arc<Self>) {
        for up in &self.servers {
            tokio::spawn(self.clone().keep(up.clone()));
        }
    }

    /// Whether a server has not been reached (nor failed) yet.
    pub fn connecting(&self) -> bool {
        self.servers.iter().any(|s| matches!(*s.state.lock().expect("state"), State::Connecting))
    }

    /// Waits until every server was reached once (or failed once), at most `limit`.
    pub async fn settle(&self, limit: Duration) {
        let until = tokio::time::Instant::now() + limit;
        while tokio::time::Instant::now() < until && self.connecting() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Disconnects every server (their processes end).
    pub fn shutdown(&self) {
        self.stop.cancel();
    }

    /// Tells `peer` (a session) `notifications/tools/list_changed` each time the catalog
    /// changes, until the session is gone.
    pub fn notify(self: &Arc<Self>, peer: rmcp::Peer<rmcp::RoleServer>) {
        let mut rx = self.generation.subscribe();
        let stop = self.stop.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    r = rx.changed() => if r.is_err() { return },
                    _ = stop.cancelled() => return,
                }
                if peer.notify_tool_list_changed().await.is_err() {
                    return; // the session ended
                }
            }
        });
    }

    /// One server's connection for as long as the bridge runs: connect, list, mount; relist
    /// on its notification; when it dies, mark it down and reconnect with backoff.
    async fn keep(self: Arc<Self>, up: Arc<Upstream>) {
        let mut wait = BACKOFF.0;
        loop {
            let client = tokio::select! {
                c = connect(&up) => c,
                _ = self.stop.cancelled() => return,
            };
            match client {
                Err(why) => {
                    tracing::warn!(server = up.name(), "bridge: {why}; retrying in {} ms", wait.as_millis());
                    up.set_state(State::Down(why));
                }
                Ok(client) => {
                    let peer = client.service.peer().clone();
                    match list_tools(&peer).await {
                        Err(why) => up.set_state(State::Down(why)),
                        Ok(tools) => {
                            tracing::info!(server = up.name(), tools = tools.len(), "bridge: connected");
                            *up.tools.lock().expect("tools") = tools;
                            list_extras(&up, &peer).await;
                            resubscribe(&up, &peer).await;
                            {
                                // Mounted before it counts as reached: a call that waited
                                // for it (`settle`) then finds its tools in the catalog.
                                let mut state = up.state.lock().expect("state");
                                *state = State::Up(peer.clone());
                                self.rebuild();
                            }
                            wait = BACKOFF.0;
                            let why = self.serve(&up, client, &peer).await;
                            let Some(why) = why else { return };
                            tracing::warn!(server = up.name(), "bridge: {why}; reconnecting");
                            up.set_state(State::Down(why));
                        }
                    }
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = self.stop.cancelled() => return,
            }
            wait = (wait * 2).min(BACKOFF.1);
        }
    }

    /// A live connection: relists on the server's notification; answers why it ended
    /// (`None`: the bridge stopped).
    async fn serve(&self, up: &Arc<Upstream>, client: Client, peer: &Peer<RoleClient>) -> Option<String> {
        let Client { service, _child: child } = client;
        let ct = service.cancellation_token();
        let mut waiting = std::pin::pin!(service.waiting());
        loop {
            tokio::select! {
                r = &mut waiting => {
                    return Some(match r {
                        Ok(reason) => format!("the connection ended ({reason:?})"),
                        Err(e) => format!("the connection failed ({e})"),
                    });
                }
                _ = up.relist.notified() => match list_tools(peer).await {
                    Ok(tools) => {
                        *up.tools.lock().expect("tools") = tools;
                        list_extras(up, peer).await;
                        self.rebuild();
                    }
                    Err(why) => tracing::warn!(server = up.name(), "bridge: {why}"),
                },
                _ = self.stop.cancelled() => {
                    ct.cancel();
                    drop(child);
                    return None;
                }
            }
        }
    }

    /// The servers whose resources and prompts a session serving `surface` shows `principal`:
    /// those on its surface that are bridged into every workspace or into one the principal
    /// sees (a resource read names no workspace; the principal's own do).
    fn visible<'a>(
        &'a self,
        surface: &'a Surface,
        principal: &'a Principal,
    ) -> impl Iterator<Item = &'a Arc<Upstream>> + 'a {
        self.servers.iter().filter(|s| {
            surface.has(s.set) && (s.decl.workspaces.is_empty() || s.decl.workspaces.iter().any(|w| principal.sees(w)))
        })
    }

    /// The server and its own URI of the mounted resource `uri`, if `principal` sees it.
    fn resource_of(&self, surface: &Surface, principal: &Principal, uri: &str) -> Option<(Arc<Upstream>, String)> {
        self.visible(surface, principal).find_map(|up| {
            let own = uri.strip_prefix(&format!("bridge:{}:", up.name()))?;
            up.resources.lock().expect("resources").iter().any(|r| r.uri == own).then(|| (up.clone(), own.to_string()))
        })
    }

    /// The bridged servers' resources, mounted at `bridge:<server>:<uri>` as `<server>__<name>`.
    pub fn resources(&self, surface: &Surface, principal: &Principal) -> Vec<rmcp::model::Resource> {
        let mut out = Vec::new();
        for up in self.visible(surface, principal) {
            for r in up.resources.lock().expect("resources").iter() {
                let mut m = rmcp::model::Resource::new(
                    resource_uri(up.name(), &r.uri),
                    format!("{}{}{}", up.name(), names::SEPARATOR, names::clean(&r.name, names::MAX_TITLE)),
                );
                m.title = r.title.as_deref().map(|t| names::clean(t, names::MAX_TITLE));
                m.description = Some(names::description(up.name(), r.description.as_deref()));
                m.mime_type = r.mime_type.clone();
                m.size = r.size;
                out.push(m);
            }
        }
        out
    }

    /// The bridged servers' prompts, as `<server>__<name>`.
    pub fn prompts(&self, surface: &Surface, principal: &Principal) -> Vec<rmcp::model::Prompt> {
        let mut out = Vec::new();
        for up in self.visible(surface, principal) {
            for p in up.prompts.lock().expect("prompts").iter() {
                let mut m = p.clone();
                m.name = format!("{}{}{}", up.name(), names::SEPARATOR, p.name);
                m.title = p.title.as_deref().map(|t| names::clean(t, names::MAX_TITLE));
                m.description = Some(names::description(up.name(), p.description.as_deref()));
                m.icons = None;
                m.meta = None;
                if let Some(args) = &mut m.arguments {
                    for a in args {
                        a.description = a.description.as_deref().map(|d| names::clean(d, names::MAX_DESCRIPTION));
                    }
                }
                out.push(m);
            }
        }
        out
    }

    /// Reads a bridged resource (`None`: `uri` is not one).
    pub async fn read(
        &self,
        surface: &Surface,
        principal: &Principal,
        uri: &str,
    ) -> Option<Result<rmcp::model::ReadResourceResult, ErrorData>> {
        let (up, own) = self.resource_of(surface, principal, uri)?;
        let peer = match up.peer() {
            Ok(p) => p,
            Err(why) => return Some(Err(ErrorData::internal_error(up.unavailable(&why).message, None))),
        };
        let r = peer.read_resource(rmcp::model::ReadResourceRequestParams::new(own)).await;
        Some(r.map_err(|e| ErrorData::internal_error(format!("external server '{}': {e}", up.name()), None)))
    }

    /// Gets a bridged prompt (`None`: `name` is not one).
    pub async fn get_prompt(
        &self,
        surface: &Surface,
        principal: &Principal,
        name: &str,
        arguments: Option<rmcp::model::JsonObject>,
    ) -> Option<Result<rmcp::model::GetPromptResult, ErrorData>> {
        let (up, own) = self.visible(surface, principal).find_map(|up| {
            let own = name.strip_prefix(&format!("{}{}", up.name(), names::SEPARATOR))?;
            up.prompts.lock().expect("prompts").iter().any(|p| p.name == own).then(|| (up.clone(), own.to_string()))
        })?;
        let peer = match up.peer() {
            Ok(p) => p,
            Err(why) => return Some(Err(ErrorData::internal_error(up.unavailable(&why).message, None))),
        };
        let mut params = rmcp::model::GetPromptRequestParams::new(own);
        params.arguments = arguments;
        let r = peer.get_prompt(params).await;
        Some(r.map_err(|e| ErrorData::internal_error(format!("external server '{}': {e}", up.name()), None)))
    }

    /// Subscribes a session (`peer`) to the mounted resource `uri` (`None`: `uri` is not
    /// one): the server is subscribed once per resource, whatever the number of sessions;
    /// each update it sends is a `notifications/resources/updated` of the mounted URI to the
    /// session, until the returned task is aborted (unsubscribe, the session's end), which
    /// unsubscribes the server when no session is left.
    #[allow(deprecated)] // resources/subscribe is the method of the protocol the bridge speaks
    pub async fn subscribe(
        &self,
        surface: &Surface,
        principal: &Principal,
        uri: &str,
        peer: Peer<rmcp::RoleServer>,
    ) -> Option<Result<tokio::task::AbortHandle, ErrorData>> {
        let (up, own) = self.resource_of(surface, principal, uri)?;
        let upstream = match up.peer() {
            Ok(p) => p,
            Err(why) => return Some(Err(ErrorData::internal_error(up.unavailable(&why).message, None))),
        };
        let offers = upstream
            .peer_info()
            .and_then(|i| i.capabilities.resources.as_ref().and_then(|r| r.subscribe))
            .unwrap_or(false);
        if !offers {
            return Some(Err(ErrorData::invalid_params(
                format!(
                    "{uri} cannot be subscribed to: external server '{}' offers no resource subscriptions",
                    up.name()
                ),
                Some(json!({ "uri": uri, "server": up.name() })),
            )));
        }
        // Listening before subscribing: no update is missed in between.
        let mut updates = up.updated.subscribe();
        let first = {
            let mut subs = up.subscribed.lock().expect("subscribed");
            let n = subs.entry(own.clone()).or_insert(0);
            *n += 1;
            *n == 1
        };
        let guard = Subscribed { up: up.clone(), own: own.clone() };
        if first {
            let params = rmcp::model::SubscribeRequestParams::new(own.clone());
            if let Err(e) = upstream.subscribe(params).await {
                drop(guard);
                return Some(Err(ErrorData::internal_error(
                    format!("external server '{}': resources/subscribe failed: {e}", up.name()),
                    None,
                )));
            }
        }
        let mounted = uri.to_string();
        let task = tokio::spawn(async move {
            let _guard = guard;
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match updates.recv().await {
                    Ok(u) if u == own => {}
                    Ok(_) => continue,
                    Err(RecvError::Lagged(_)) => {} // one notification covers what was missed
                    Err(RecvError::Closed) => return,
                }
                let params = rmcp::model::ResourceUpdatedNotificationParam::new(mounted.clone());
                if peer.notify_resource_updated(params).await.is_err() {
                    return; // the session is gone
                }
            }
        });
        Some(Ok(task.abort_handle()))
    }

    /// Mounts every server's last listed tools over the built-ins; bumps the generation
    /// when the result differs.
    fn rebuild(&self) {
        let mut reg = (*self.builtin).clone();
        for up in &self.servers {
            let tools = up.tools.lock().expect("tools").clone();
            let mut skipped = Vec::new();
            for t in &tools {
                if let Err(why) = mount(&mut reg, &self.builtin, up, t) {
                    skipped.push((t.name.to_string(), why));
                }
            }
            let mut old = up.skipped.lock().expect("skipped");
            if *old != skipped {
                for (t, why) in &skipped {
                    tracing::warn!(server = up.name(), tool = t.as_str(), "bridge: not mounted: {why}");
                }
                *old = skipped;
            }
        }
        let same = {
            let cur = self.catalog.read().expect("catalog");
            same_tools(&cur, &reg)
        };
        if !same {
            *self.catalog.write().expect("catalog") = Arc::new(reg);
            self.generation.send_modify(|g| *g += 1);
        }
    }
}

/// Whether two catalogs list the same tools with the same declarations and schemas.
/// One session's subscription to a server's resource: dropped, it counts one session less,
/// and the last one unsubscribes the server.
struct Subscribed {
    up: Arc<Upstream>,
    own: String,
}

impl Drop for Subscribed {
    #[allow(deprecated)] // resources/unsubscribe: as `Bridge::subscribe`
    fn drop(&mut self) {
        let last = {
            let mut subs = self.up.subscribed.lock().expect("subscribed");
            match subs.get_mut(&self.own) {
                Some(n) if *n > 1 => {
                    *n -= 1;
                    false
                }
                Some(_) => {
                    subs.remove(&self.own);
                    true
                }
                None => false,
            }
        };
        let (Ok(peer), Ok(rt)) = (self.up.peer(), tokio::runtime::Handle::try_current()) else { return };
        if last {
            let params = rmcp::model::UnsubscribeRequestParams::new(std::mem::take(&mut self.own));
            rt.spawn(async move {
                let _ = peer.unsubscribe(params).await;
            });
        }
    }
}

/// Subscribes the server again to what sessions are subscribed to (after a reconnect).
#[allow(deprecated)] // as `Bridge::subscribe`
async fn resubscribe(up: &Upstream, peer: &Peer<RoleClient>) {
    let uris: Vec<String> = up.subscribed.lock().expect("subscribed").keys().cloned().collect();
    for uri in uris {
        if let Err(e) = peer.subscribe(rmcp::model::SubscribeRequestParams::new(uri.clone())).await {
            tracing::warn!(server = up.name(), "bridge: resources/subscribe {uri} after reconnecting: {e}");
        }
    }
}

fn same_tools(a: &Registry, b: &Registry) -> bool {
    a.all().count() == b.all().count()
        && a.all().zip(b.all()).all(|(x, y)| {
            x.decl.name == y.decl.name
                && x.decl.description == y.decl.description
                && x.decl.title == y.decl.title
                && x.input_schema == y.input_schema
        })
}

/// Mounts one tool of `up` on `reg` under this server's name for it, with its policy.
fn mount(reg: &mut Registry, builtin: &Registry, up: &Arc<Upstream>, t: &Tool) -> Result<(), String> {
    let d = &up.decl;
    let name = names::mounted(&d.prefix(), &t.name)?;
    if builtin.get(&name).is_some() {
        return Err(format!("'{name}' is a built-in tool's name: the built-in is served, this one is not"));
    }
    if reg.get(&name).is_some() {
        return Err(format!("'{name}' is mounted already (by a bridged server earlier in the config)"));
    }
    if NEVER_SERVED.contains(&name.as_str()) {
        return Err(format!("'{name}' is never served"));
    }
    let input: Map<String, Value> = (*t.input_schema).clone();
    if let Err(e) = jsonschema::validator_for(&Value::Object(input.clone())) {
        return Err(format!("its input schema does not compile: {e}"));
    }
    let policy = d.tool(&t.name);
    let restricted: Vec<Mode> =
        policy.modes.as_ref().unwrap_or(&d.modes).iter().copied().filter(|m| m.restricted()).collect();
    let modes = if restricted.is_empty() { Modes::Chat } else { Modes::In(intern_modes(&restricted)) };
    let read_only = policy.read_only;
    // A tool that takes a `workspace_id` of its own (another cc-server) gets it checked as one
    // of this server's workspaces, and passed on.
    let own_workspace = input.get("properties").and_then(|p| p.get("workspace_id")).is_some();
    let scope = match (d.workspaces.is_empty(), own_workspace) {
        (false, _) => Scope::Required,
        (true, true) => Scope::Optional,
        (true, false) => Scope::Global,
    };
    let title = t.title.as_deref().or(t.annotations.as_ref().and_then(|a| a.title.as_deref())).unwrap_or(&t.name);
    let decl = Decl {
        name: intern(&name),
        title: intern(&names::clean(title, names::MAX_TITLE)),
        description: intern(&names::description(&d.name, t.description.as_deref())),
        set: ToolSet::Extra(up.set),
        scope,
        classes: &[],
        approval: policy.approval.unwrap_or(d.approval),
        modes,
        // The external server's annotations are not trusted: read-only only when the operator says so.
        hints: Hints { read_only, destructive: !read_only, idempotent: false, open_world: true },
    };
    reg.add_raw(decl, input, Map::new(), forwarder(up.clone(), t.name.to_string(), own_workspace));
    Ok(())
}

/// The handler of a mounted tool: forwards the call to its server.
fn forwarder(up: Arc<Upstream>, tool: String, own_workspace: bool) -> Handler {
    Arc::new(move |ctx, mut args| {
        let (up, tool) = (up.clone(), tool.clone());
        if let (true, Some(ws), Some(o)) = (own_workspace, ctx.workspace.clone(), args.as_object_mut()) {
            o.insert("workspace_id".into(), Value::String(ws));
        }
        Box::pin(async move { forward(&up, &tool, ctx, args).await })
    })
}

/// Sends `notifications/cancelled` for a call still in flight when it is dropped (the
/// caller cancelled, the timeout passed, the session ended).
struct InFlight {
    up: Arc<Upstream>,
    peer: Peer<RoleClient>,
    id: Option<rmcp::model::RequestId>,
    token: ProgressToken,
    reason: &'static str,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.up.progress.lock().expect("progress").remove(&self.token);
        if let Some(id) = self.id.take() {
            let (peer, reason) = (self.peer.clone(), self.reason);
            tokio::spawn(async move {
                let _ = peer.notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason.into()))).await;
            });
        }
    }
}

async fn forward(up: &Arc<Upstream>, tool: &str, ctx: Ctx<Option<String>>, args: Value) -> Result<Output, ToolError> {
    let d = &up.decl;
    if let Some(ws) = ctx.workspace.as_ref().filter(|_| !d.workspaces.is_empty()) {
        if !d.workspaces.iter().any(|w| w == ws) {
            return Err(ToolError::workspace(format!(
                "/workspace_id: the external server '{}' is not bridged into workspace '{ws}' (it is into: {})",
                d.name,
                d.workspaces.join(", ")
            )));
        }
    }
    let peer = up.peer().map_err(|why| up.unavailable(&why))?;
    let mut params = CallToolRequestParams::new(tool.to_string());
    params.arguments = match args {
        Value::Object(o) => Some(o),
        _ => None,
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .map_err(|e| up.unavailable(&format!("sending the call failed: {e}")))?;
    let mut flight = InFlight {
        up: up.clone(),
        peer: peer.clone(),
        id: Some(handle.id.clone()),
        token: handle.progress_token.clone(),
        reason: "the caller cancelled the call",
    };
    if let Some(p) = &ctx.call.progress {
        up.progress.lock().expect("progress").insert(handle.progress_token.clone(), p.clone());
    }
    let limit = Duration::from_secs(d.timeout_secs);
    let answer = tokio::select! {
        r = tokio::time::timeout(limit, handle.await_response()) => r,
        _ = ctx.cancel.cancelled() => return Err(ToolError::cancelled()),
    };
    let answer = match answer {
        Err(_) => {
            flight.reason = "the call took longer than cc-server's timeout for this server";
            return Err(ToolError::new(
                ErrorKind::Timeout,
                format!(
                    "external server '{}' did not answer {tool} within {} s (its timeout_secs)",
                    d.name, d.timeout_secs
                ),
            )
            .with_data(json!({ "server": d.name })));
        }
        Ok(a) => {
            flight.id = None;
            a
        }
    };
    let result = match answer {
        Ok(ServerResult::CallToolResult(r)) => r,
        Ok(other) => {
            return Err(up.unavailable(&format!("it answered tools/call with something else ({other:?})")));
        }
        Err(rmcp::ServiceError::McpError(e)) => {
            return Err(ToolError::new(
                ErrorKind::InvalidInput,
                format!("external server '{}' refused the call: {}", d.name, e.message),
            )
            .with_data(json!({ "server": d.name, "code": e.code.0 })));
        }
        Err(e) => return Err(up.unavailable(&format!("the call failed: {e}"))),
    };
    let fenced = |text: &str| {
        if d.fence {
            cc_rigs::output::fence_from(
                &format!("external server '{}'", d.name),
                &format!("{}/{tool}", d.name),
                text,
                FENCE_CHARS,
            )
            .fenced
        } else {
            text.to_string()
        }
    };
    let content: Vec<ContentBlock> = result
        .content
        .into_iter()
        .map(|b| match b.as_text() {
            Some(t) if d.fence => ContentBlock::text(fenced(&t.text)),
            _ => b,
        })
        .collect();
    if result.is_error == Some(true) {
        let text: Vec<String> = content.iter().filter_map(|b| b.as_text().map(|t| t.text.clone())).collect();
        return Err(ToolError::new(
            ErrorKind::Internal,
            format!("external server '{}' answered an error from {tool}: {}", d.name, text.join("\n")),
        )
        .with_data(json!({ "server": d.name, "external_error": true })));
    }
    match result.structured_content {
        Some(v) if v.is_object() && !d.fence => {
            let extra = content.into_iter().filter(|b| b.as_text().is_none()).collect();
            Ok(Output { value: v, extra })
        }
        _ => Ok(Output { value: Value::Null, extra: content }),
    }
}

/// What `bridge check` prints for one server.
pub struct Checked {
    pub name: String,
    pub endpoint: String,
    /// Its tools' mounted names (or why it could not be reached).
    pub tools: Result<Vec<String>, String>,
    pub skipped: Vec<(String, String)>,
    pub resources: usize,
    pub prompts: usize,
}

/// Connects to each server once and says what it serves and what is not mounted.
pub async fn check(decls: &[BridgeDecl], builtin: Arc<Registry>) -> Vec<Checked> {
    let bridge = Bridge::new(decls, builtin);
    let mut out = Vec::new();
    for up in &bridge.servers {
        let mut c = Checked {
            name: up.name().to_string(),
            endpoint: String::new(),
            tools: Err(String::new()),
            skipped: Vec::new(),
            resources: 0,
            prompts: 0,
        };
        let connected = connect(up).await;
        c.endpoint = match up.decl.endpoint() {
            Endpoint::Stdio { argv, .. } => format!("stdio: {}", argv.join(" ")),
            // The legacy transport is said: the operator may want to know its server is old.
            Endpoint::Http { url, .. } => match *up.transport.lock().expect("transport") {
                Some(HttpTransport::Sse) => format!("http: {url} (sse)"),
                _ => format!("http: {url}"),
            },
        };
        match connected {
            Err(why) => c.tools = Err(why),
            Ok(client) => {
                let peer = client.service.peer().clone();
                match list_tools(&peer).await {
                    Err(why) => c.tools = Err(why),
                    Ok(tools) => {
                        *up.tools.lock().expect("tools") = tools;
                        bridge.rebuild();
                        let catalog = bridge.catalog();
                        c.tools = Ok(catalog
                            .all()
                            .filter(|t| t.decl.set.as_str() == up.set)
                            .map(|t| t.decl.name.to_string())
                            .collect());
                        c.skipped = up.skipped();
                    }
                }
                let caps = peer.peer_info().map(|i| i.capabilities.clone());
                if caps.as_ref().is_some_and(|c| c.resources.is_some()) {
                    c.resources = peer.list_all_resources().await.map(|r| r.len()).unwrap_or(0);
                }
                if caps.as_ref().is_some_and(|c| c.prompts.is_some()) {
                    c.prompts = peer.list_all_prompts().await.map(|r| r.len()).unwrap_or(0);
                }
                let _ = client.service.cancel().await;
            }
        }
        out.push(c);
    }
    out
}

/// The servers' names and how they are reached, for `bridge list`.
pub fn describe(d: &BridgeDecl) -> BTreeMap<&'static str, String> {
    let mut m = BTreeMap::new();
    m.insert("name", d.name.clone());
    match d.endpoint() {
        Endpoint::Stdio { argv, .. } => m.insert("command", argv.join(" ")),
        Endpoint::Http { url, transport, .. } => {
            if let Some(t) = transport {
                m.insert("transport", t.as_str().to_string());
            }
            m.insert("url", url.to_string())
        }
    };
    m.insert("set", d.set_name());
    m.insert("prefix", d.prefix());
    m
}
