-- Pipeline runs: one row per (pipeline, trigger, run, event) — the unique key makes a run
-- start once even when every replica hears the event — with the event and the output
-- schema as they were when it started (a later config changes no started run's contract),
-- the agent run dispatched for it, and the one output it accepted (`output` is set once,
-- by compare and set on NULL). Team activity: a lead's entries against a ticket.
CREATE TABLE pipeline_runs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    pipeline TEXT NOT NULL,
    trigger_index BIGINT NOT NULL,
    run_index BIGINT NOT NULL,
    agent TEXT NOT NULL,
    event_type TEXT NOT NULL,
    event_key TEXT NOT NULL,
    event TEXT NOT NULL,
    output_schema TEXT NOT NULL,
    run_id TEXT,
    status TEXT NOT NULL,
    error TEXT,
    output TEXT,
    output_at BIGINT,
    rejected_outputs BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (workspace_id, pipeline, trigger_index, run_index, event_key)
);
CREATE INDEX pipeline_runs_run ON pipeline_runs (run_id);
CREATE INDEX pipeline_runs_list ON pipeline_runs (workspace_id, pipeline, created_at);
CREATE TABLE team_activity (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    ticket_id TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    actor TEXT NOT NULL,
    actor_name TEXT NOT NULL,
    kind TEXT NOT NULL,
    summary TEXT NOT NULL,
    details TEXT,
    created_at BIGINT NOT NULL
);
CREATE INDEX team_activity_ticket ON team_activity (ticket_id, created_at, id);
