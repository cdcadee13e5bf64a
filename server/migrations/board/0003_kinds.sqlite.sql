-- A board approval's kind is checked by the server (BoardKind::parse refuses a stored kind
-- it does not know), not by the table: a new kind (orchestration, …) needs no migration.
-- SQLite cannot drop a CHECK: both tables are rebuilt, rows kept. The events' copy is made
-- first and the old tables dropped children first, so no ON DELETE CASCADE fires; renaming
-- board_approvals_new rewrites board_events_new's reference to the final name.
CREATE TABLE board_approvals_new (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected', 'revision_requested')),
    requester TEXT NOT NULL,
    requester_name TEXT NOT NULL,
    conversation TEXT,
    decided_by TEXT,
    decided_at BIGINT,
    next_seq BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    consumed_at BIGINT
);
INSERT INTO board_approvals_new (id, workspace_id, kind, title, payload, status, requester, requester_name, conversation,
    decided_by, decided_at, next_seq, created_at, updated_at, consumed_at)
    SELECT id, workspace_id, kind, title, payload, status, requester, requester_name, conversation,
    decided_by, decided_at, next_seq, created_at, updated_at, consumed_at FROM board_approvals;
CREATE TABLE board_events_new (
    approval_id TEXT NOT NULL REFERENCES board_approvals_new(id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    action TEXT NOT NULL,
    actor TEXT NOT NULL,
    actor_name TEXT NOT NULL,
    note TEXT,
    at BIGINT NOT NULL,
    PRIMARY KEY (approval_id, seq)
);
INSERT INTO board_events_new (approval_id, seq, action, actor, actor_name, note, at)
    SELECT approval_id, seq, action, actor, actor_name, note, at FROM board_events;
DROP TABLE board_events;
DROP TABLE board_approvals;
ALTER TABLE board_approvals_new RENAME TO board_approvals;
ALTER TABLE board_events_new RENAME TO board_events;
CREATE INDEX board_approvals_status ON board_approvals (workspace_id, status, created_at);
CREATE INDEX board_approvals_conversation ON board_approvals (conversation, kind, created_at);
