-- Delegation: a ticket handed to an agent by delegate_ticket or delegate_task records the
-- ticket it was delegated from (the lineage, which relation changes never rewrite), who
-- delegated it (an agent; NULL when a principal did), its depth in the lineage (1 under a
-- ticket that was not delegated itself) and its budget (what it and its own delegations may
-- spend, in the workspace's unit; NULL for none declared).
ALTER TABLE tickets ADD COLUMN budget BIGINT;
ALTER TABLE tickets ADD COLUMN delegated_from TEXT REFERENCES tickets(id) ON DELETE SET NULL;
ALTER TABLE tickets ADD COLUMN delegated_by_agent_id TEXT;
ALTER TABLE tickets ADD COLUMN delegation_depth BIGINT NOT NULL DEFAULT 0;
CREATE INDEX tickets_delegated_from ON tickets (delegated_from);
