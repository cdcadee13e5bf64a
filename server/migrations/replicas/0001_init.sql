-- The server processes sharing this store (replicas), each with its heartbeat, and the rigs
-- each one holds: any replica lists a workspace's rigs, and asks the owner to close one.
CREATE TABLE replicas (
    id TEXT PRIMARY KEY,
    -- hostname/boot id, as the agents' runs name their server.
    host TEXT NOT NULL,
    pid BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    -- Seconds since the epoch of its last heartbeat: one not heard from for a while is lost.
    heartbeat_at BIGINT NOT NULL
);
CREATE TABLE rigs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    -- The conversation controlling it.
    conversation TEXT NOT NULL,
    surface TEXT NOT NULL,
    engine TEXT NOT NULL,
    replica_id TEXT NOT NULL REFERENCES replicas(id) ON DELETE CASCADE,
    -- As of the owner's last look: ready, busy or failed.
    status TEXT NOT NULL,
    failure TEXT,
    kept BIGINT NOT NULL,
    display_width BIGINT NOT NULL,
    display_height BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT NOT NULL,
    -- When the owner's reaper closes it if unused.
    idle_expires_at BIGINT NOT NULL
);
CREATE INDEX rigs_by_workspace ON rigs (workspace_id, created_at);
CREATE INDEX rigs_by_replica ON rigs (replica_id);
