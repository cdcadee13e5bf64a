//! Agents, their runtime profiles, heartbeats and runs: "who works here, how is each one
//! started, is it alive, and what is it doing?"

use serde::{Deserialize, Serialize};

use super::{now, Result, Store, StoreError};

/// How a runtime profile's command is started (its argv, and how it gets its brief).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Any MCP-speaking program: the command and its fixed arguments as given; the brief on
    /// stdin and in CC_BRIEF; the server in CC_MCP_URL, CC_MCP_TOKEN and CC_MCP_CONFIG.
    McpCli,
    /// Claude Code's command line: `claude -p BRIEF --mcp-config FILE` and the fixed arguments.
    ClaudeCode,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::McpCli => "mcp-cli",
            Family::ClaudeCode => "claude-code",
        }
    }

    pub fn parse(s: &str) -> Option<Family> {
        match s {
            "mcp-cli" => Some(Family::McpCli),
            "claude-code" => Some(Family::ClaudeCode),
            _ => None,
        }
    }
}

/// A reusable way to start an agent's process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RuntimeProfile {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub family: Family,
    /// The program (a name on PATH or a path), which the operator's allow-list holds.
    pub command: String,
    /// Fixed launch arguments, each one argument (argv; never a shell string).
    pub args: Vec<String>,
    /// A message to an agent of this profile (send_to_agent) starts a run when it has none.
    pub wake_on_message: bool,
    /// A run's wall-clock limit, seconds.
    pub timeout_secs: u64,
    pub created_by: String,
    pub created_at: i64,
}

impl RuntimeProfile {
    /// A new profile's id.
    pub fn new_id() -> String {
        format!("rp-{}", uuid::Uuid::now_v7().simple())
    }
}

#[derive(sqlx::FromRow)]
struct ProfileRow {
    id: String,
    workspace_id: String,
    name: String,
    family: String,
    command: String,
    args: String,
    wake_on_message: i64,
    timeout_secs: i64,
    created_by: String,
    created_at: i64,
}

impl ProfileRow {
    fn into_profile(self) -> Result<RuntimeProfile> {
        Ok(RuntimeProfile {
            family: Family::parse(&self.family)
                .ok_or_else(|| StoreError::Invalid(format!("a profile of the unknown family '{}'", self.family)))?,
            args: serde_json::from_str(&self.args).map_err(|e| StoreError::Invalid(format!("profile args: {e}")))?,
            id: self.id,
            workspace_id: self.workspace_id,
            name: self.name,
            command: self.command,
            wake_on_message: self.wake_on_message != 0,
            timeout_secs: self.timeout_secs.max(0) as u64,
            created_by: self.created_by,
            created_at: self.created_at,
        })
    }
}

/// An agent: an operator-registered principal of one workspace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Agent {
    pub id: String,
    pub workspace_id: String,
    pub name: String,
    pub profile_id: String,
    pub skills: Vec<String>,
    pub description: String,
    /// The id of the agent it reports to (none: the top of the org chart).
    pub reports_to: Option<String>,
    /// Runs it may have at once; more are queued.
    pub capacity: u32,
    /// How much it may decide alone, 0..3 (delegation checks it).
    pub autonomy: u8,
    pub created_at: i64,
}

#[derive(sqlx::FromRow)]
struct AgentRow {
    id: String,
    workspace_id: String,
    name: String,
    profile_id: String,
    skills: String,
    description: String,
    reports_to: Option<String>,
    capacity: i64,
    autonomy: i64,
    created_at: i64,
}

impl AgentRow {
    fn into_agent(self) -> Result<Agent> {
        Ok(Agent {
            skills: serde_json::from_str(&self.skills)
                .map_err(|e| StoreError::Invalid(format!("agent skills: {e}")))?,
            id: self.id,
            workspace_id: self.workspace_id,
            name: self.name,
            profile_id: self.profile_id,
            description: self.description,
            reports_to: self.reports_to,
            capacity: self.capacity.clamp(0, u32::MAX as i64) as u32,
            autonomy: self.autonomy.clamp(0, 3) as u8,
            created_at: self.created_at,
        })
    }
}

const AGENT_COLUMNS: &str =
    "id, workspace_id, name, profile_id, skills, description, reports_to, capacity, autonomy, created_at";
const PROFILE_COLUMNS: &str =
    "id, workspace_id, name, family, command, args, wake_on_message, timeout_secs, created_by, created_at";

/// An agent's last heartbeat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema, sqlx::FromRow)]
pub struct Heartbeat {
    pub agent_id: String,
    /// active, idle or stuck.
    pub status: String,
    pub note: Option<String>,
    /// Seconds since the epoch.
    pub at: i64,
}

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Waiting for the agent to be under its capacity.
    Queued,
    Running,
    /// The process exited 0.
    Done,
    /// It exited non-zero, or could not start.
    Failed,
    /// It ran past its wall-clock limit and was killed.
    TimedOut,
    /// The server shut down (or someone stopped it) while it ran: its processes were killed.
    Cancelled,
    /// The server that ran it died; its processes were reaped when a server started again.
    Abandoned,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Queued => "queued",
            RunStatus::Running => "running",
            RunStatus::Done => "done",
            RunStatus::Failed => "failed",
            RunStatus::TimedOut => "timed_out",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Abandoned => "abandoned",
        }
    }

    fn parse(s: &str) -> Result<RunStatus> {
        Ok(match s {
            "queued" => RunStatus::Queued,
            "running" => RunStatus::Running,
            "done" => RunStatus::Done,
            "failed" => RunStatus::Failed,
            "timed_out" => RunStatus::TimedOut,
            "cancelled" => RunStatus::Cancelled,
            "abandoned" => RunStatus::Abandoned,
            other => return Err(StoreError::Invalid(format!("a run with the unknown status '{other}'"))),
        })
    }

    /// Queued or running.
    pub fn live(self) -> bool {
        matches!(self, RunStatus::Queued | RunStatus::Running)
    }
}

/// One run of an agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Run {
    pub id: String,
    pub workspace_id: String,
    pub agent_id: String,
    pub status: RunStatus,
    /// Why it was started: ask, consult, message, delegate, review, manual.
    pub reason: String,
    pub brief: String,
    pub space_id: Option<String>,
    pub message_id: Option<String>,
    pub ticket_id: Option<String>,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub ended_at: Option<i64>,
    /// The server that queued and runs it: `hostname/boot id`, its pid and start time.
    pub host: Option<String>,
    pub server_pid: Option<i64>,
    pub server_started: Option<i64>,
    /// The process (and process group) it runs as.
    pub pid: Option<i64>,
    /// The process's start time (clock ticks since boot), to tell it from a later one with
    /// the same pid.
    pub proc_started: Option<i64>,
    pub exit_code: Option<i64>,
    pub error: Option<String>,
    /// The end of its output.
    pub log_tail: Option<String>,
    /// Worktrees kept for their uncommitted or unpushed work.
    pub kept: Vec<String>,
}

#[derive(sqlx::FromRow)]
struct RunRow {
    id: String,
    workspace_id: String,
    agent_id: String,
    status: String,
    reason: String,
    brief: String,
    space_id: Option<String>,
    message_id: Option<String>,
    ticket_id: Option<String>,
    created_at: i64,
    started_at: Option<i64>,
    ended_at: Option<i64>,
    host: Option<String>,
    server_pid: Option<i64>,
    server_started: Option<i64>,
    pid: Option<i64>,
    proc_started: Option<i64>,
    exit_code: Option<i64>,
    error: Option<String>,
    log_tail: Option<String>,
    kept: Option<String>,
}

impl RunRow {
    fn into_run(self) -> Result<Run> {
        Ok(Run {
            status: RunStatus::parse(&self.status)?,
            kept: self.kept.as_deref().map(serde_json::from_str).transpose().unwrap_or_default().unwrap_or_default(),
            id: self.id,
            workspace_id: self.workspace_id,
            agent_id: self.agent_id,
            reason: self.reason,
            brief: self.brief,
            space_id: self.space_id,
            message_id: self.message_id,
            ticket_id: self.ticket_id,
            created_at: self.created_at,
            started_at: self.started_at,
            ended_at: self.ended_at,
            host: self.host,
            server_pid: self.server_pid,
            server_started: self.server_started,
            pid: self.pid,
            proc_started: self.proc_started,
            exit_code: self.exit_code,
            error: self.error,
            log_tail: self.log_tail,
        })
    }
}

const RUN_COLUMNS: &str = "id, workspace_id, agent_id, status, reason, brief, space_id, message_id, ticket_id, created_at, started_at, ended_at, host, server_pid, server_started, pid, proc_started, exit_code, error, log_tail, kept";

/// Where a started run's process is, and the server that started it.
#[derive(Clone, Debug)]
pub struct Started {
    pub host: String,
    pub server_pid: i64,
    pub server_started: i64,
    pub pid: i64,
    pub proc_started: i64,
}

/// How a run ended.
#[derive(Clone, Debug)]
pub struct Ended {
    pub status: RunStatus,
    pub exit_code: Option<i64>,
    pub error: Option<String>,
    pub log_tail: Option<String>,
    pub kept: Vec<String>,
}

/// The agents area of a [`Store`].
pub struct Agents<'a> {
    pub(super) store: &'a Store,
}

impl Agents<'_> {
    fn err(&self, e: sqlx::Error) -> StoreError {
        match &e {
            sqlx::Error::Database(d) if d.is_unique_violation() => StoreError::Conflict("the name is taken".into()),
            _ => self.store.err(e),
        }
    }

    // ------------------------------------------------------------ profiles

    /// Adds a profile; [`StoreError::Conflict`] when the workspace has one of that name.
    pub async fn add_profile(&self, p: &RuntimeProfile) -> Result<()> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO runtime_profiles ({PROFILE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
        )))
        .bind(&p.id)
        .bind(&p.workspace_id)
        .bind(&p.name)
        .bind(p.family.as_str())
        .bind(&p.command)
        .bind(serde_json::to_string(&p.args).expect("strings serialize"))
        .bind(p.wake_on_message as i64)
        .bind(p.timeout_secs as i64)
        .bind(&p.created_by)
        .bind(p.created_at)
        .execute(self.store.writer())
        .await
        .map_err(|e| match self.err(e) {
            StoreError::Conflict(_) => StoreError::Conflict(format!(
                "workspace '{}' has a runtime profile '{}' already",
                p.workspace_id, p.name
            )),
            e => e,
        })?;
        Ok(())
    }

    pub async fn profiles(&self, workspace: &str) -> Result<Vec<RuntimeProfile>> {
        let rows: Vec<ProfileRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {PROFILE_COLUMNS} FROM runtime_profiles WHERE workspace_id = $1 ORDER BY name"
        )))
        .bind(workspace)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))?;
        rows.into_iter().map(ProfileRow::into_profile).collect()
    }

    /// A profile by id, or by name within `workspace`.
    pub async fn profile(&self, workspace: &str, id_or_name: &str) -> Result<Option<RuntimeProfile>> {
        let row: Option<ProfileRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {PROFILE_COLUMNS} FROM runtime_profiles WHERE workspace_id = $1 AND (id = $2 OR name = $2)"
        )))
        .bind(workspace)
        .bind(id_or_name)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))?;
        row.map(ProfileRow::into_profile).transpose()
    }

    // ------------------------------------------------------------ agents

    /// Adds an agent with the hash of its token; [`StoreError::Conflict`] on a taken name.
    pub async fn add(&self, a: &Agent, token_hash: &str) -> Result<()> {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "INSERT INTO agents ({AGENT_COLUMNS}, token_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
        )))
        .bind(&a.id)
        .bind(&a.workspace_id)
        .bind(&a.name)
        .bind(&a.profile_id)
        .bind(serde_json::to_string(&a.skills).expect("strings serialize"))
        .bind(&a.description)
        .bind(&a.reports_to)
        .bind(a.capacity as i64)
        .bind(a.autonomy as i64)
        .bind(a.created_at)
        .bind(token_hash)
        .execute(self.store.writer())
        .await
        .map_err(|e| match self.err(e) {
            StoreError::Conflict(_) => {
                StoreError::Conflict(format!("workspace '{}' has an agent '{}' already", a.workspace_id, a.name))
            }
            e => e,
        })?;
        Ok(())
    }

    /// Replaces an agent's editable fields (profile, skills, description, manager, capacity,
    /// autonomy). The caller checks that `reports_to` makes no cycle ([`Agents::chain`]).
    pub async fn update(&self, a: &Agent) -> Result<()> {
        let n = sqlx::query(
            "UPDATE agents SET profile_id = $2, skills = $3, description = $4, reports_to = $5, capacity = $6, autonomy = $7 WHERE id = $1",
        )
        .bind(&a.id)
        .bind(&a.profile_id)
        .bind(serde_json::to_string(&a.skills).expect("strings serialize"))
        .bind(&a.description)
        .bind(&a.reports_to)
        .bind(a.capacity as i64)
        .bind(a.autonomy as i64)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?
        .rows_affected();
        if n == 0 {
            return Err(StoreError::NotFound { what: format!("agent '{}'", a.name) });
        }
        Ok(())
    }

    pub async fn set_token(&self, id: &str, token_hash: &str) -> Result<()> {
        sqlx::query("UPDATE agents SET token_hash = $2 WHERE id = $1")
            .bind(id)
            .bind(token_hash)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// Removes an agent (its runs, heartbeats go with it); `false` when there was none.
    pub async fn remove(&self, id: &str) -> Result<bool> {
        let n = sqlx::query("DELETE FROM agents WHERE id = $1")
            .bind(id)
            .execute(self.store.writer())
            .await
            .map_err(|e| self.err(e))?
            .rows_affected();
        Ok(n > 0)
    }

    /// A workspace's agents, by name.
    pub async fn list(&self, workspace: &str) -> Result<Vec<Agent>> {
        let rows: Vec<AgentRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {AGENT_COLUMNS} FROM agents WHERE workspace_id = $1 ORDER BY name"
        )))
        .bind(workspace)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))?;
        rows.into_iter().map(AgentRow::into_agent).collect()
    }

    pub async fn get(&self, id: &str) -> Result<Option<Agent>> {
        let row: Option<AgentRow> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {AGENT_COLUMNS} FROM agents WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.store.err(e))?;
        row.map(AgentRow::into_agent).transpose()
    }

    /// The agent of `workspace` named exactly `name`.
    pub async fn by_name(&self, workspace: &str, name: &str) -> Result<Option<Agent>> {
        let row: Option<AgentRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {AGENT_COLUMNS} FROM agents WHERE workspace_id = $1 AND name = $2"
        )))
        .bind(workspace)
        .bind(name)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))?;
        row.map(AgentRow::into_agent).transpose()
    }

    /// The agent whose token hashes to `token_hash`.
    pub async fn by_token(&self, token_hash: &str) -> Result<Option<Agent>> {
        let row: Option<AgentRow> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {AGENT_COLUMNS} FROM agents WHERE token_hash = $1")))
                .bind(token_hash)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.store.err(e))?;
        row.map(AgentRow::into_agent).transpose()
    }

    /// The managers above `id`, nearest first (stopping at a repeat, which is a cycle).
    pub async fn chain(&self, id: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        let mut at = self.get(id).await?.and_then(|a| a.reports_to);
        while let Some(m) = at {
            if out.contains(&m) {
                break;
            }
            out.push(m.clone());
            at = self.get(&m).await?.and_then(|a| a.reports_to);
        }
        Ok(out)
    }

    // ------------------------------------------------------------ heartbeats

    pub async fn heartbeat(&self, agent_id: &str, status: &str, note: Option<&str>) -> Result<Heartbeat> {
        let at = now();
        sqlx::query(
            "INSERT INTO agent_heartbeats (agent_id, status, note, at) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (agent_id) DO UPDATE SET status = excluded.status, note = excluded.note, at = excluded.at",
        )
        .bind(agent_id)
        .bind(status)
        .bind(note)
        .bind(at)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?;
        Ok(Heartbeat { agent_id: agent_id.into(), status: status.into(), note: note.map(str::to_string), at })
    }

    /// The last heartbeat of each agent of `workspace` that sent one.
    pub async fn heartbeats(&self, workspace: &str) -> Result<Vec<Heartbeat>> {
        sqlx::query_as(
            "SELECT h.agent_id, h.status, h.note, h.at FROM agent_heartbeats h JOIN agents a ON a.id = h.agent_id \
             WHERE a.workspace_id = $1",
        )
        .bind(workspace)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))
    }

    // ------------------------------------------------------------ runs

    /// Records a new run (queued, by the server `r.host` / `r.server_pid` /
    /// `r.server_started`), with a placeholder token hash until it starts.
    pub async fn add_run(&self, r: &Run, token_hash: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO runs (id, workspace_id, agent_id, status, reason, brief, space_id, message_id, ticket_id, token_hash, created_at, host, server_pid, server_started) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        )
        .bind(&r.id)
        .bind(&r.workspace_id)
        .bind(&r.agent_id)
        .bind(r.status.as_str())
        .bind(&r.reason)
        .bind(&r.brief)
        .bind(&r.space_id)
        .bind(&r.message_id)
        .bind(&r.ticket_id)
        .bind(token_hash)
        .bind(r.created_at)
        .bind(&r.host)
        .bind(r.server_pid)
        .bind(r.server_started)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.err(e))?;
        Ok(())
    }

    pub async fn run(&self, id: &str) -> Result<Option<Run>> {
        let row: Option<RunRow> =
            sqlx::query_as(sqlx::AssertSqlSafe(format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = $1")))
                .bind(id)
                .fetch_optional(self.store.reader())
                .await
                .map_err(|e| self.store.err(e))?;
        row.map(RunRow::into_run).transpose()
    }

    /// The live run (queued or running) whose token hashes to `token_hash`.
    pub async fn run_by_token(&self, token_hash: &str) -> Result<Option<Run>> {
        let row: Option<RunRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE token_hash = $1 AND status IN ('queued', 'running')"
        )))
        .bind(token_hash)
        .fetch_optional(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))?;
        row.map(RunRow::into_run).transpose()
    }

    /// Runs, newest first: of one agent, or of the workspace; live ones only when asked.
    pub async fn runs(&self, workspace: &str, agent: Option<&str>, live_only: bool, limit: u32) -> Result<Vec<Run>> {
        let live = if live_only { "AND status IN ('queued', 'running')" } else { "" };
        let rows: Vec<RunRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE workspace_id = $1 AND ($2 IS NULL OR agent_id = $2) {live} \
             ORDER BY created_at DESC, id DESC LIMIT $3"
        )))
        .bind(workspace)
        .bind(agent)
        .bind(limit as i64)
        .fetch_all(self.store.reader())
        .await
        .map_err(|e| self.store.err(e))?;
        rows.into_iter().map(RunRow::into_run).collect()
    }

    /// An agent's queued runs, oldest first (the order they start in).
    pub async fn queued(&self, agent_id: &str) -> Result<Vec<Run>> {
        let rows: Vec<RunRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE agent_id = $1 AND status = 'queued' ORDER BY created_at, id"
        )))
        .bind(agent_id)
        .fetch_all(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?;
        rows.into_iter().map(RunRow::into_run).collect()
    }

    /// (running, queued) runs of an agent.
    pub async fn counts(&self, agent_id: &str) -> Result<(u32, u32)> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT status, COUNT(*) FROM runs WHERE agent_id = $1 AND status IN ('queued', 'running') GROUP BY status",
        )
        .bind(agent_id)
        .fetch_all(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?;
        let get = |s: &str| rows.iter().find(|(k, _)| k == s).map_or(0, |(_, n)| *n as u32);
        Ok((get("running"), get("queued")))
    }

    /// Marks a queued run running with where its process is and the hash of the token it
    /// was given; `false` when it was not queued any more (cancelled meanwhile).
    pub async fn start_run(&self, id: &str, s: &Started, token_hash: &str) -> Result<bool> {
        let n = sqlx::query(
            "UPDATE runs SET status = 'running', started_at = $2, host = $3, server_pid = $4, server_started = $5, pid = $6, proc_started = $7, token_hash = $8 \
             WHERE id = $1 AND status = 'queued'",
        )
        .bind(id)
        .bind(now())
        .bind(&s.host)
        .bind(s.server_pid)
        .bind(s.server_started)
        .bind(s.pid)
        .bind(s.proc_started)
        .bind(token_hash)
        .execute(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?
        .rows_affected();
        Ok(n == 1)
    }

    /// Ends a live run; `false` when it had ended already.
    pub async fn end_run(&self, id: &str, e: &Ended) -> Result<bool> {
        let n = sqlx::query(
            "UPDATE runs SET status = $2, ended_at = $3, exit_code = $4, error = $5, log_tail = $6, kept = $7 \
             WHERE id = $1 AND status IN ('queued', 'running')",
        )
        .bind(id)
        .bind(e.status.as_str())
        .bind(now())
        .bind(e.exit_code)
        .bind(&e.error)
        .bind(&e.log_tail)
        .bind(serde_json::to_string(&e.kept).expect("strings serialize"))
        .execute(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?
        .rows_affected();
        Ok(n == 1)
    }

    /// The live runs of servers on hosts whose name starts with `host_prefix`, every workspace.
    pub async fn live_on(&self, host_prefix: &str) -> Result<Vec<Run>> {
        let rows: Vec<RunRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE status IN ('queued', 'running') AND host LIKE $1"
        )))
        .bind(format!("{}%", host_prefix.replace('%', "")))
        .fetch_all(self.store.writer())
        .await
        .map_err(|e| self.store.err(e))?;
        rows.into_iter().map(RunRow::into_run).collect()
    }
}
