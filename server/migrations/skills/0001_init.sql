-- What happened to a workspace's skills: every creation, install, update and pin (with the
-- commit and content hash it left in skills-lock.json), and every refusal of the scan gate
-- (with the file, line and rule of each finding). The skills themselves live on disk, in the
-- workspace's skills folder, locked by skills-lock.json; this is their history.
CREATE TABLE skill_events (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    slug TEXT NOT NULL,
    action TEXT NOT NULL,
    repository TEXT,
    path TEXT,
    ref TEXT,
    commit_id TEXT,
    hash TEXT,
    -- the scan gate's findings (JSON array) when it refused, else '[]'
    refusals TEXT NOT NULL,
    actor TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX skill_events_slug ON skill_events (workspace_id, slug, created_at);
