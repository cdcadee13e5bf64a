-- Tickets: a key per workspace (T-1, T-2, …, allocated from ticket_counters in the
-- ticket's own transaction), a space per ticket, labels (one row each, for the label
-- filter), relations between tickets (each stored both ways: the row and its inverse) and
-- the pull requests linked to a ticket.
CREATE TABLE ticket_counters (
    workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
    -- The last key number given out.
    last_number BIGINT NOT NULL,
    -- Bumped by every relation change: the row lock that serializes them per workspace.
    relations_seq BIGINT NOT NULL
);
CREATE TABLE tickets (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    -- The N of its key T-N.
    number BIGINT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'blocked', 'in_review', 'done', 'failed', 'cancelled')),
    priority TEXT NOT NULL CHECK (priority IN ('none', 'low', 'medium', 'high', 'urgent')),
    assignee_id TEXT REFERENCES agents(id) ON DELETE SET NULL,
    team TEXT,
    -- The ticket it is a sub-issue of (the sub_issue_of relation, kept here as well).
    parent_id TEXT REFERENCES tickets(id) ON DELETE SET NULL,
    -- Who created it: a principal's name, or an agent's name.
    creator TEXT NOT NULL,
    creator_agent_id TEXT,
    space_id TEXT NOT NULL REFERENCES spaces(id),
    output TEXT,
    error TEXT,
    -- Bumped by every change.
    version BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    closed_at BIGINT,
    UNIQUE (workspace_id, number)
);
CREATE INDEX tickets_status ON tickets (workspace_id, status, number);
CREATE INDEX tickets_assignee ON tickets (workspace_id, assignee_id, number);
CREATE INDEX tickets_parent ON tickets (parent_id, number);
CREATE TABLE ticket_labels (
    ticket_id TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    PRIMARY KEY (ticket_id, label)
);
CREATE INDEX ticket_labels_label ON ticket_labels (label, ticket_id);
CREATE TABLE ticket_relations (
    ticket_id TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('blocked_by', 'blocking', 'duplicate_of', 'duplicated_by', 'sub_issue_of', 'parent_of', 'related_to')),
    other_id TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (ticket_id, kind, other_id)
);
CREATE INDEX ticket_relations_other ON ticket_relations (other_id);
CREATE TABLE ticket_prs (
    ticket_id TEXT NOT NULL REFERENCES tickets(id) ON DELETE CASCADE,
    -- The pull request's GraphQL node id (PR_…).
    pr_node_id TEXT NOT NULL,
    linked_by TEXT NOT NULL,
    linked_at BIGINT NOT NULL,
    PRIMARY KEY (ticket_id, pr_node_id)
);
