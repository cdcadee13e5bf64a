-- Tool calls waiting for (or given) an operator's or a user's decision. IF NOT EXISTS: a
-- store written before migrations per area (schema version 2) has this table already.
CREATE TABLE IF NOT EXISTS approvals (
    id TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    workspace_id TEXT,
    conversation TEXT NOT NULL,
    principal TEXT NOT NULL,
    why TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
    decided_at BIGINT,
    decided_by TEXT,
    reason TEXT,
    consumed_at BIGINT
);
CREATE INDEX IF NOT EXISTS approvals_open ON approvals (principal, tool, consumed_at);
