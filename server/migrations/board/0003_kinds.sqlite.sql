-- A board approval's kind is checked by the server (`BoardKind::parse` refuses a kind it does
-- not know), no longer by a CHECK listing them: a new kind (plan, from run_playbook) needs no
-- table rebuild. SQLite cannot drop a CHECK, so the two tables are rebuilt with their rows:
-- renaming a table rewrites the references to it, so board_events follows board_approvals to
-- its old name and both old tables are dropped child first (no cascade touches a row).
ALTER TABLE board_events RENAME TO board_events_old;
ALTER TABLE board_approvals RENAME TO board_approvals_old;
CREATE TABLE board_approvals (
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
INSERT INTO board_approvals (id, workspace_id, kind, title, payload, status, requester, requester_name, conversation,
    decided_by, decided_at, next_seq, created_at, updated_at, consumed_at)
SELECT id, workspace_id, kind, title, payload, status, requester, requester_name, conversation,
    decided_by, decided_at, next_seq, created_at, updated_at, consumed_at FROM board_approvals_old;
CREATE TABLE board_events (
    approval_id TEXT NOT NULL REFERENCES board_approvals(id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    action TEXT NOT NULL,
    actor TEXT NOT NULL,
    actor_name TEXT NOT NULL,
    note TEXT,
    at BIGINT NOT NULL,
    PRIMARY KEY (approval_id, seq)
);
INSERT INTO board_events (approval_id, seq, action, actor, actor_name, note, at)
SELECT approval_id, seq, action, actor, actor_name, note, at FROM board_events_old;
DROP TABLE board_events_old;
DROP TABLE board_approvals_old;
CREATE INDEX board_approvals_status ON board_approvals (workspace_id, status, created_at);
CREATE INDEX board_approvals_conversation ON board_approvals (conversation, kind, created_at);
