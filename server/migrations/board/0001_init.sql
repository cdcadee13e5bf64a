-- The approvals board: governed actions (plan exit, merge, publish, hire, custom) a
-- requester opens and someone else decides, with every step and comment kept in order.
-- (The confirmation port's per-call approvals are the approvals area's.)
CREATE TABLE board_approvals (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('plan_exit', 'merge', 'publish', 'hire', 'custom')),
    title TEXT NOT NULL,
    -- JSON.
    payload TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'revision_requested')),
    -- Who asked: a principal's name or an agent's id (the one who may not decide it).
    requester TEXT NOT NULL,
    requester_name TEXT NOT NULL,
    -- The conversation it was opened in (exit_plan_mode's).
    conversation TEXT,
    decided_by TEXT,
    decided_at BIGINT,
    next_seq BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX board_approvals_status ON board_approvals (workspace_id, status, created_at);
CREATE TABLE board_events (
    approval_id TEXT NOT NULL REFERENCES board_approvals(id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    -- create, approve, reject, request_revision, resubmit, comment.
    action TEXT NOT NULL,
    actor TEXT NOT NULL,
    actor_name TEXT NOT NULL,
    note TEXT,
    at BIGINT NOT NULL,
    PRIMARY KEY (approval_id, seq)
);
