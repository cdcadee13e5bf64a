-- Memory: domains (who may write to each), facts and policies with their supersession
-- chains, the vectors of entries (a cache of the embedding model's output, keyed by model),
-- the agents' working memory (observations, notes, hot items), consolidation's promotions
-- and harmonization's conflicts. `seq` numbers every change of an entry per workspace
-- (`memory_counters`), so a search index built from this store catches up by reading
-- what changed after the last number it saw, on any replica.
CREATE TABLE memory_domains (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (workspace_id, name)
);
-- A writer is `agent:NAME` or `principal:NAME`.
CREATE TABLE memory_writers (
    domain_id TEXT NOT NULL REFERENCES memory_domains(id) ON DELETE CASCADE,
    writer TEXT NOT NULL,
    granted_by TEXT NOT NULL,
    granted_at BIGINT NOT NULL,
    PRIMARY KEY (domain_id, writer)
);
CREATE TABLE memory_counters (
    workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
    seq BIGINT NOT NULL
);
CREATE TABLE memory_entries (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    domain_id TEXT NOT NULL REFERENCES memory_domains(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    author TEXT NOT NULL,
    author_key TEXT NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    superseded_by TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    seq BIGINT NOT NULL
);
CREATE INDEX memory_entries_seq ON memory_entries (workspace_id, seq);
CREATE INDEX memory_entries_domain ON memory_entries (domain_id, kind, status);
CREATE INDEX memory_entries_superseded_by ON memory_entries (superseded_by);
-- f32 little-endian, base64: both backends hold it as text.
CREATE TABLE memory_vectors (
    entry_id TEXT PRIMARY KEY REFERENCES memory_entries(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    vector TEXT NOT NULL
);
CREATE TABLE memory_observations (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    session TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX memory_observations_owner ON memory_observations (workspace_id, owner, created_at);
CREATE TABLE memory_notes (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    content TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, owner)
);
-- Hot items stay after eviction (evicted_at, evicted_reason) until consolidation promotes
-- them or purges them: "seen again across sessions" counts evicted items too.
CREATE TABLE memory_hot (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    session TEXT NOT NULL,
    text TEXT NOT NULL,
    item_key TEXT NOT NULL,
    durable BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    evicted_at BIGINT,
    evicted_reason TEXT,
    promoted_fact_id TEXT
);
CREATE INDEX memory_hot_session ON memory_hot (workspace_id, owner, session, created_at);
CREATE INDEX memory_hot_key ON memory_hot (workspace_id, owner, item_key);
CREATE TABLE memory_promotions (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    fact_id TEXT NOT NULL REFERENCES memory_entries(id) ON DELETE CASCADE,
    reason TEXT NOT NULL,
    sources TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX memory_promotions_ws ON memory_promotions (workspace_id, created_at);
-- One row per pair of facts (fact_a < fact_b), whatever its resolution.
CREATE TABLE memory_conflicts (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    domain_id TEXT NOT NULL REFERENCES memory_domains(id) ON DELETE CASCADE,
    fact_a TEXT NOT NULL REFERENCES memory_entries(id) ON DELETE CASCADE,
    fact_b TEXT NOT NULL REFERENCES memory_entries(id) ON DELETE CASCADE,
    cues TEXT NOT NULL,
    similarity DOUBLE PRECISION NOT NULL,
    resolution TEXT NOT NULL,
    winner_id TEXT,
    policy_id TEXT,
    detail TEXT NOT NULL,
    detected_at BIGINT NOT NULL,
    resolved_at BIGINT,
    UNIQUE (fact_a, fact_b)
);
CREATE INDEX memory_conflicts_ws ON memory_conflicts (workspace_id, resolution, detected_at);
