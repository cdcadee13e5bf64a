-- Agents (operator-registered principals), their runtime profiles, their heartbeats and
-- their runs (a process started with a brief, which calls back as the agent).
CREATE TABLE runtime_profiles (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    family TEXT NOT NULL,
    command TEXT NOT NULL,
    -- The fixed launch arguments, a JSON array of strings (argv, never a shell string).
    args TEXT NOT NULL,
    wake_on_message BIGINT NOT NULL,
    timeout_secs BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (workspace_id, name)
);
CREATE TABLE agents (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    profile_id TEXT NOT NULL REFERENCES runtime_profiles(id),
    -- A JSON array of strings.
    skills TEXT NOT NULL,
    description TEXT NOT NULL,
    reports_to TEXT REFERENCES agents(id) ON DELETE SET NULL,
    capacity BIGINT NOT NULL,
    autonomy BIGINT NOT NULL,
    -- blake3 of the agent's bearer token (the token itself is shown once).
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    UNIQUE (workspace_id, name)
);
CREATE TABLE agent_heartbeats (
    agent_id TEXT PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    note TEXT,
    at BIGINT NOT NULL
);
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'timed_out', 'cancelled', 'abandoned')),
    reason TEXT NOT NULL,
    brief TEXT NOT NULL,
    space_id TEXT,
    message_id TEXT,
    ticket_id TEXT,
    -- blake3 of the run's own bearer token (CC_MCP_TOKEN), valid while it runs.
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    started_at BIGINT,
    ended_at BIGINT,
    -- Which server process started it, and its process (group), to reap it after a crash.
    host TEXT,
    server_pid BIGINT,
    server_started BIGINT,
    pid BIGINT,
    proc_started BIGINT,
    exit_code BIGINT,
    error TEXT,
    log_tail TEXT,
    -- A JSON array of the worktrees kept for their uncommitted or unpushed work.
    kept TEXT
);
CREATE INDEX runs_agent_status ON runs (agent_id, status, created_at);
CREATE INDEX runs_status ON runs (status);
