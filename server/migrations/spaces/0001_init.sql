-- Messaging spaces (a DM per pair of agents, one per ticket or review, free ones), their
-- members, their messages (numbered per space) and their handoff notes; and each
-- conversation's checklist (todo_read / todo_write).
CREATE TABLE spaces (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('dm', 'ticket', 'review', 'free')),
    name TEXT NOT NULL,
    -- The DM's pair of agent ids, sorted and joined by a space: one DM per pair.
    dm_key TEXT UNIQUE,
    next_seq BIGINT NOT NULL,
    notes TEXT NOT NULL,
    notes_version BIGINT NOT NULL,
    notes_updated_by TEXT,
    notes_updated_at BIGINT,
    created_at BIGINT NOT NULL
);
CREATE INDEX spaces_workspace ON spaces (workspace_id, created_at);
CREATE TABLE space_members (
    space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    -- An agent's id, or `principal:NAME`.
    member TEXT NOT NULL,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    added_at BIGINT NOT NULL,
    PRIMARY KEY (space_id, member)
);
CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    sender_kind TEXT NOT NULL,
    sender_name TEXT NOT NULL,
    sender_agent_id TEXT,
    text TEXT NOT NULL,
    reply_to TEXT,
    created_at BIGINT NOT NULL,
    UNIQUE (space_id, seq)
);
CREATE INDEX messages_reply ON messages (reply_to);
CREATE TABLE todos (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    principal TEXT NOT NULL,
    conversation TEXT NOT NULL,
    -- A JSON array of {id?, content, status}.
    items TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, principal, conversation)
);
