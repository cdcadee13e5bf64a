-- Artifacts: an ordered list of typed blocks (markdown, table, chart, mermaid, code, json),
-- revised by compare and set on the revision a writer read, every revision kept, numbered.
CREATE TABLE artifacts (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    current_revision_id TEXT NOT NULL,
    revisions BIGINT NOT NULL,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX artifacts_workspace ON artifacts (workspace_id, id);
CREATE TABLE artifact_revisions (
    id TEXT PRIMARY KEY,
    artifact_id TEXT NOT NULL REFERENCES artifacts(id) ON DELETE CASCADE,
    number BIGINT NOT NULL,
    base_revision_id TEXT,
    title TEXT NOT NULL,
    -- JSON: the blocks.
    blocks TEXT NOT NULL,
    author TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (artifact_id, number)
);
