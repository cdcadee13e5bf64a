-- Goals at four levels (company, team, agent, task), nested by parent; a goal's own
-- progress is kept only for goals without children (a parent's is computed from them).
CREATE TABLE goals (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    level TEXT NOT NULL CHECK (level IN ('company', 'team', 'agent', 'task')),
    parent_id TEXT REFERENCES goals(id) ON DELETE CASCADE,
    owner TEXT,
    title TEXT NOT NULL,
    target TEXT,
    status TEXT NOT NULL CHECK (status IN ('active', 'met')),
    progress BIGINT NOT NULL,
    evidence TEXT,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    met_at BIGINT
);
CREATE INDEX goals_workspace ON goals (workspace_id, created_at);
CREATE INDEX goals_parent ON goals (parent_id);
