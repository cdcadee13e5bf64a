-- Mirroring tickets on a provider (GitHub Issues): which workspaces mirror where (written at
-- server start from config.toml), the provider's number and address of each mirrored ticket,
-- and the outbox — one row per mirrored ticket, marked in the transaction of every change,
-- so a change made while the provider is down is kept and pushed when it is back.
CREATE TABLE ticket_providers (
    workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    -- owner/name on GitHub.
    repository TEXT NOT NULL
);
ALTER TABLE tickets ADD COLUMN provider_number BIGINT;
ALTER TABLE tickets ADD COLUMN provider_url TEXT;
CREATE TABLE ticket_outbox (
    ticket_id TEXT PRIMARY KEY REFERENCES tickets(id) ON DELETE CASCADE,
    -- Bumped by each change to mirror; synced_changes is how many a sync has pushed.
    changes BIGINT NOT NULL,
    synced_changes BIGINT NOT NULL,
    -- The last message (seq) of the ticket's space mirrored as a comment.
    comments_synced BIGINT NOT NULL,
    attempts BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    -- 1: the provider refused the ticket as it is (a 422): not retried until it changes.
    refused BIGINT NOT NULL,
    last_error TEXT,
    -- A replica syncing it holds it until then (seconds).
    lease_until BIGINT,
    updated_at BIGINT NOT NULL
);
CREATE INDEX ticket_outbox_due ON ticket_outbox (next_attempt_at);
