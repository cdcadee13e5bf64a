-- Workspaces and the repositories registered in them. IF NOT EXISTS: a store written before
-- the store had migrations per area (its schema version 2) has these tables already.
CREATE TABLE IF NOT EXISTS workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS workspace_repos (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    repo TEXT NOT NULL,
    added_at BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, repo)
);
